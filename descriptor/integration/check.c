/* Crawl-time check: sign text as if it were indexed, then verify it
 * against the members of the cluster it would join. */
#include "neardup/check.h"
#include "neardup/shards.h"
#include "neardup/similarity.h"
#include "neardup/words.h"
#include "descriptor/verify/verify_internal.h"

#include <stdlib.h>
#include <string.h>

int nd_sig_from_tokens(const nd_descriptor *d, const nd_token *tokens, size_t n, nd_sig *out)
{
	/* wdf of each descriptive word present; the rest only add to len,
	 * exactly as Xapian's length counts them for our databases. */
	uint32_t *wdf = NULL;
	uint16_t *seen = NULL;
	size_t nseen = 0;
	int rc = ND_OK;

	out->nbits = 0;
	out->key = 0;
	out->present = 0;
	nd__near_reset(out->near);
	if (n > UINT32_MAX)
		return nd_error_set(ND_ETOOBIG, "document of %zu words", n);
	if (!(wdf = calloc(d->n, sizeof(uint32_t))) || !(seen = malloc((n + 1) * sizeof(uint16_t)))) {
		free(wdf);
		return nd_error_set(ND_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		int32_t w = nd__find_sorted(d->words, d->n, tokens[i].text, tokens[i].len);
		if (w >= 0 && wdf[w]++ == 0) {
			seen[nseen++] = (uint16_t)w;
			nd__near_add(d, out->near, (uint32_t)w);
		}
	}
	out->present = (uint32_t)nseen;
	qsort(seen, nseen, sizeof(uint16_t), nd__cmp_u16);
	for (size_t i = 0; i < nseen && rc == ND_OK; i++)
		if (nd_bit_above(wdf[seen[i]], (uint32_t)n, d->thresholds[seen[i]]))
			rc = nd_sig_push(out, seen[i]);
	if (rc == ND_OK)
		out->key = nd_sig_key(out->bits, out->nbits);
	free(wdf);
	free(seen);
	return rc;
}

void nd_check_result_clear(nd_check_result *r)
{
	nd_sig_clear(&r->sig);
	free(r->members);
	memset(r, 0, sizeof(*r));
}

/* tolerant 0: the members of the text's exact key and its neighbours in
 * the near-neighbour index; else also candidates of bit-set Jaccard >=
 * tolerant.  Over every store given; sh (NULL: one
 * unsharded store) turns each store's docids into the combined
 * database's. */
static int check_text(nd_tokenizer *tk, const nd_descriptor *d, nd_xdb *db, nd_store *const *stores,
		      const nd_shards *sh, size_t nstores, const char *text, size_t len, double tolerant,
		      const nd_verify_options *vo, size_t max_compare, nd_check_result *out)
{
	const nd_token *t;
	size_t n;
	uint32_t *ids = NULL;
	nd__cand *all = NULL;
	size_t nall = 0;
	nd_store_txn *txn = NULL;
	int rc = ND_OK;

	out->cluster_size = out->nmembers = out->duplicates = 0;
	if (d->word_lengths)
		return nd_error_set(ND_EINVAL, "this set measures lengths in termlist words (a database "
				    "built by another indexer); checking text needs one built by "
				    "'neardup index'");
	if ((rc = nd_tokenize(tk, text, len, 0, &t, &n, NULL)) < 0 ||
	    (rc = nd_sig_from_tokens(d, t, n, &out->sig)) < 0)
		return rc;
	if ((rc = nd__verify_options_check(vo)) < 0)
		return rc;
	if (!out->sig.nbits && !out->sig.present)
		return ND_OK;
	for (size_t s = 0; s < nstores; s++) {
		nd__cand *c = NULL;
		size_t nd = 0;
		if ((rc = nd_store_read_begin(stores[s], &txn)) < 0)
			goto cleanup;
		rc = nd__tolerant_candidates(txn, d, &out->sig, tolerant, &c, &nd);
		nd_store_txn_end(txn);
		txn = NULL;
		nd__cand *p = rc == ND_OK ? realloc(all, (nall + nd + 1) * sizeof(*all)) : NULL;
		if (rc == ND_OK && !p)
			rc = nd_error_set(ND_ENOMEM, "out of memory");
		if (rc == ND_OK) {
			all = p;
			for (size_t i = 0; i < nd; i++) {
				nd__cand x = c[i];
				if (sh)
					x.docid = nd_shards_docid(sh, s, x.docid);
				all[nall++] = x;
			}
		}
		free(c);
		if (rc < 0)
			goto cleanup;
	}
	qsort(all, nall, sizeof(*all), nd__cmp_cand); /* most similar, then docid */
	out->cluster_size = nall;
	if (!nall)
		goto cleanup;
	/* Word ids of the text, to compare with the members' sequences. */
	if (!(ids = malloc((n + 1) * sizeof(uint32_t)))) {
		rc = nd_error_set(ND_ENOMEM, "out of memory");
		goto cleanup;
	}
	nd_word_ids(t, n, ids);
	size_t m = nall < max_compare ? nall : max_compare;
	if (!(out->members = calloc(m + 1, sizeof(nd_check_member)))) {
		rc = nd_error_set(ND_ENOMEM, "out of memory");
		goto cleanup;
	}
	if ((rc = nd__compare_candidates(db, ids, n, all, nall, 0, m, vo, out->members,
					 &out->nmembers)) < 0)
		goto cleanup;
	for (size_t i = 0; i < out->nmembers; i++)
		out->duplicates += out->members[i].duplicate;
cleanup:
	nd_store_txn_end(txn);
	free(all);
	free(ids);
	return rc;
}

int nd_check_text(nd_tokenizer *tk, const nd_descriptor *d, nd_xdb *db, nd_store *st,
		  const char *text, size_t len, const nd_verify_options *vo, size_t max_compare,
		  nd_check_result *out)
{
	return check_text(tk, d, db, &st, NULL, 1, text, len, 0, vo, max_compare, out);
}

int nd_check_text_tolerant(nd_tokenizer *tk, const nd_descriptor *d, nd_xdb *db, nd_store *st,
			   const char *text, size_t len, double min_jaccard, const nd_verify_options *vo,
			   size_t max_compare, nd_check_result *out)
{
	if (!(min_jaccard > 0 && min_jaccard <= 1))
		return nd_error_set(ND_EINVAL, "min_jaccard must be in (0, 1], not %g", min_jaccard);
	return check_text(tk, d, db, &st, NULL, 1, text, len, min_jaccard, vo, max_compare, out);
}

int nd_check_text_shards(nd_tokenizer *tk, const nd_shards *sh, nd_xdb *db, const char *text, size_t len,
			 double min_jaccard, const nd_verify_options *vo, size_t max_compare,
			 nd_check_result *out)
{
	size_t n = nd_shards_stores(sh);
	nd_store **st = malloc(n * sizeof(*st));
	int rc;
	if (min_jaccard < 0 || min_jaccard > 1) {
		free(st);
		return nd_error_set(ND_EINVAL, "min_jaccard must be in [0, 1], not %g", min_jaccard);
	}
	if (!st)
		return nd_error_set(ND_ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++)
		st[i] = nd_shards_store(sh, i);
	rc = check_text(tk, nd_shards_descriptor(sh), db, st, sh, n, text, len, min_jaccard, vo, max_compare,
			out);
	free(st);
	return rc;
}
