/* Crawl-time check: sign text as if it were indexed, then verify it
 * against the members of the cluster it would join. */
#include "neardup/check.h"
#include "neardup/shards.h"
#include "neardup/similarity.h"
#include "neardup/words.h"
#include "descriptor/desc_internal.h"

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
	if (n > UINT32_MAX)
		return nd_error_set(ND_ETOOBIG, "document of %zu words", n);
	if (!(wdf = calloc(d->n, sizeof(uint32_t))) || !(seen = malloc((n + 1) * sizeof(uint16_t)))) {
		free(wdf);
		return nd_error_set(ND_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		int32_t w = nd__find_sorted(d->words, d->n, tokens[i].text, tokens[i].len);
		if (w >= 0 && wdf[w]++ == 0)
			seen[nseen++] = (uint16_t)w;
	}
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

static int cmp_cand(const void *x, const void *y)
{
	const nd__cand *a = x, *b = y;
	if (a->jaccard != b->jaccard)
		return a->jaccard > b->jaccard ? -1 : 1;
	return a->docid < b->docid ? -1 : a->docid > b->docid;
}

typedef struct {
	uint16_t bit;
	size_t df;
} bit_df;

static int cmp_bit_df(const void *x, const void *y)
{
	const bit_df *a = x, *b = y;
	if (a->df != b->df)
		return a->df < b->df ? -1 : 1;
	return a->bit < b->bit ? -1 : a->bit > b->bit;
}

static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	return a < b ? -1 : a > b;
}

int nd__tolerant_candidates(nd_store_txn *txn, const nd_descriptor *d, const nd_sig *sig, double t,
			       nd__cand **out, size_t *nout)
{
	uint32_t na = sig->nbits, probe = nd__jaccard_prefix(na, t);
	bit_df *order = NULL;
	uint32_t *all = NULL;
	size_t nall = 0, cap = 0, nc = 0;
	nd__cand *c = NULL;
	int rc = ND_OK;

	*out = NULL;
	*nout = 0;
	if (!na)
		return ND_OK;
	if (!(order = malloc(na * sizeof(*order))))
		return nd_error_set(ND_ENOMEM, "out of memory");
	for (uint32_t i = 0; i < na && rc == ND_OK; i++) {
		order[i].bit = sig->bits[i];
		rc = nd_store_bit_count(txn, sig->bits[i], &order[i].df);
	}
	if (rc < 0)
		goto done;
	qsort(order, na, sizeof(*order), cmp_bit_df);
	for (uint32_t i = 0; i < probe && rc == ND_OK; i++) {
		uint32_t *docs;
		size_t n;
		if ((rc = nd_store_bit_docs(txn, order[i].bit, &docs, &n)) < 0)
			break;
		if (nall + n > cap) {
			size_t ncap = (nall + n) * 2 + 16;
			uint32_t *v = realloc(all, ncap * sizeof(*v));
			if (!v) {
				free(docs);
				rc = nd_error_set(ND_ENOMEM, "out of memory");
				break;
			}
			all = v, cap = ncap;
		}
		if (n)
			memcpy(all + nall, docs, n * sizeof(*docs));
		nall += n;
		free(docs);
	}
	if (rc < 0)
		goto done;
	if (nall)
		qsort(all, nall, sizeof(*all), cmp_u32);
	if (!(c = malloc((nall + 1) * sizeof(*c)))) {
		rc = nd_error_set(ND_ENOMEM, "out of memory");
		goto done;
	}
	/* Exact Jaccard of each distinct candidate, from its record. */
	for (size_t i = 0; i < nall && rc == ND_OK; i++) {
		if (i && all[i] == all[i - 1])
			continue;
		uint64_t key;
		const void *pay;
		size_t len;
		nd_sig b = ND_SIG_INIT;
		if ((rc = nd_store_doc_get(txn, all[i], &key, &pay, &len)) < 0 ||
		    (rc = nd_sig_decode(&b, pay, len, d->n)) < 0) {
			nd_sig_clear(&b);
			break;
		}
		double j = nd__sig_jaccard(sig, &b);
		if (j >= t - 1e-12)
			c[nc++] = (nd__cand){all[i], j};
		nd_sig_clear(&b);
	}
	if (rc == ND_OK) {
		qsort(c, nc, sizeof(*c), cmp_cand);
		*out = c;
		*nout = nc;
		c = NULL;
	}
done:
	free(order);
	free(all);
	free(c);
	return rc;
}

int nd__compare_candidates(nd_xdb *db, const uint32_t *ids, size_t n, const nd__cand *c, size_t nc,
			   nd_docid self, size_t max_compare, double max_distance, nd_check_member *out,
			   size_t *nout)
{
	int rc = ND_OK;
	*nout = 0;
	for (size_t i = 0; i < nc && *nout < max_compare; i++) {
		uint32_t *w = NULL;
		size_t nw;
		double dist = 1;
		int exact = 0;
		if (c[i].docid == self)
			continue;
		rc = nd_words_get(db, c[i].docid, &w, &nw, NULL);
		if (rc == ND_OK)
			rc = nd_levenshtein(ids, n, w, nw, max_distance, &dist, &exact);
		free(w);
		if (rc == ND_ENOTFOUND) /* deleted since signing, or no words */
			rc = ND_OK;
		else if (rc < 0)
			return rc;
		out[(*nout)++] = (nd_check_member){c[i].docid, dist, exact && dist <= max_distance, c[i].jaccard};
	}
	return rc;
}

/* tolerant < 0: the members of the text's exact key; else candidates of
 * bit-set Jaccard >= tolerant.  Over every store given; sh (NULL: one
 * unsharded store) turns each store's docids into the combined
 * database's. */
static int check_text(nd_tokenizer *tk, const nd_descriptor *d, nd_xdb *db, nd_store *const *stores,
		      const nd_shards *sh, size_t nstores, const char *text, size_t len, double tolerant,
		      double max_distance, size_t max_compare, nd_check_result *out)
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
	if (tolerant < 0 ? !out->sig.key : !out->sig.nbits)
		return ND_OK;
	for (size_t s = 0; s < nstores; s++) {
		uint32_t *docs = NULL;
		nd__cand *c = NULL;
		size_t nd = 0;
		if ((rc = nd_store_read_begin(stores[s], &txn)) < 0)
			goto cleanup;
		if (tolerant < 0)
			rc = nd_store_key_docs(txn, out->sig.key, &docs, &nd);
		else
			rc = nd__tolerant_candidates(txn, d, &out->sig, tolerant, &c, &nd);
		nd_store_txn_end(txn);
		txn = NULL;
		nd__cand *p = rc == ND_OK ? realloc(all, (nall + nd + 1) * sizeof(*all)) : NULL;
		if (rc == ND_OK && !p)
			rc = nd_error_set(ND_ENOMEM, "out of memory");
		if (rc == ND_OK) {
			all = p;
			for (size_t i = 0; i < nd; i++) {
				nd__cand x = docs ? (nd__cand){docs[i], 1.0} : c[i];
				if (sh)
					x.docid = nd_shards_docid(sh, s, x.docid);
				all[nall++] = x;
			}
		}
		free(docs);
		free(c);
		if (rc < 0)
			goto cleanup;
	}
	qsort(all, nall, sizeof(*all), cmp_cand); /* most similar, then docid */
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
	if ((rc = nd__compare_candidates(db, ids, n, all, nall, 0, m, max_distance, out->members,
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
		  const char *text, size_t len, double max_distance, size_t max_compare,
		  nd_check_result *out)
{
	return check_text(tk, d, db, &st, NULL, 1, text, len, -1, max_distance, max_compare, out);
}

int nd_check_text_tolerant(nd_tokenizer *tk, const nd_descriptor *d, nd_xdb *db, nd_store *st,
			   const char *text, size_t len, double min_jaccard, double max_distance,
			   size_t max_compare, nd_check_result *out)
{
	if (!(min_jaccard > 0 && min_jaccard <= 1))
		return nd_error_set(ND_EINVAL, "min_jaccard must be in (0, 1], not %g", min_jaccard);
	return check_text(tk, d, db, &st, NULL, 1, text, len, min_jaccard, max_distance, max_compare, out);
}

int nd_check_text_shards(nd_tokenizer *tk, const nd_shards *sh, nd_xdb *db, const char *text, size_t len,
			 double min_jaccard, double max_distance, size_t max_compare, nd_check_result *out)
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
	rc = check_text(tk, nd_shards_descriptor(sh), db, st, sh, n, text, len, min_jaccard > 0 ? min_jaccard : -1,
			max_distance, max_compare, out);
	free(st);
	return rc;
}
