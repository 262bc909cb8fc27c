/* Crawl-time check: sign text as if it were indexed, then verify it
 * against the members of the cluster it would join. */
#include "neardup/check.h"
#include "neardup/shards.h"
#include "neardup/similarity.h"
#include "neardup/words.h"
#include "descriptor/cluster/cluster_internal.h"
#include "descriptor/verify/verify_internal.h"
#include "descriptor/verify/record.h"
#include "indexer/xapian_terms.h"

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
	if (!(wdf = calloc((size_t)d->n + 1, sizeof(uint32_t))) || !(seen = malloc((n + 1) * sizeof(uint16_t)))) {
		free(wdf);
		return nd_error_set(ND_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		int32_t w = nd__descriptor_find(d, tokens[i].text, tokens[i].len);
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
typedef struct {
	nd_check_member m;
	double rank;
} ranked_member;

static int cmp_ranked(const void *x, const void *y)
{
	const ranked_member *a = x, *b = y;
	if (a->rank != b->rank)
		return a->rank > b->rank ? -1 : 1;
	return a->m.docid < b->m.docid ? -1 : a->m.docid > b->m.docid;
}

static int check_text(nd_tokenizer *tk, const nd_descriptor *d, nd_xdb *db, nd_store *const *stores,
		      const nd_shards *sh, size_t nstores, const char *text, size_t len, double tolerant,
		      const nd_verify_options *vo, size_t max_compare, nd_check_result *out)
{
	const nd_token *t;
	size_t n;
	uint32_t *ids = NULL;
	nd__rec rec = ND_REC_INIT;
	nd__xapian_terms xt = {NULL, 0, NULL};
	ranked_member *all = NULL;
	nd_check_member *m = NULL;
	size_t nall = 0;
	nd_store_txn *txn = NULL;
	nd__common *common = NULL;
	nd__cand *c = NULL;
	int rc = ND_OK;

	out->cluster_size = out->nmembers = out->duplicates = 0;
	/* A database another indexer built has the words Xapian's
	 * TermGenerator split: the text is split alike. */
	if (d->word_lengths) {
		if ((rc = nd__xapian_terms_of(text, len, &xt)) < 0)
			return rc;
		t = xt.tokens, n = xt.n;
	} else if ((rc = nd_tokenize(tk, text, len, 0, &t, &n, NULL)) < 0) {
		return rc;
	}
	if ((rc = nd_sig_from_tokens(d, t, n, &out->sig)) < 0)
		goto cleanup;
	if ((rc = nd__verify_options_check(vo)) < 0)
		goto cleanup;
	/* Its words, and its record as if it were indexed. */
	if (!(ids = malloc((n + 1) * sizeof(uint32_t)))) {
		rc = nd_error_set(ND_ENOMEM, "out of memory");
		goto cleanup;
	}
	/* A database of our own keeps the text's own words (without the lines
	 * it quotes); another application's, every word in its positions. */
	size_t nown = n;
	if (d->word_lengths)
		nd_word_ids(t, n, ids);
	else
		nown = nd_word_ids_own(text, len, t, n, ids);
	if ((rc = nd__rec_make(ids, nown, &rec, out->sig.near + ND_NEAR_WORD_N, d->text_keys)) < 0)
		goto cleanup;
	rec.bits = out->sig.bits, rec.nbits = out->sig.nbits;
	if (n)
		out->sig.present = out->sig.present ? out->sig.present : 1;
	if (!out->sig.nbits && !out->sig.present)
		goto cleanup;
	if (!(m = malloc((max_compare + 1) * sizeof(*m)))) {
		rc = nd_error_set(ND_ENOMEM, "out of memory");
		goto cleanup;
	}
	for (size_t s = 0; s < nstores; s++) {
		size_t nc = 0, nm = 0;
		if ((rc = nd_store_read_begin(stores[s], &txn)) < 0 ||
		    (rc = nd__tolerant_candidates(txn, d, &out->sig, tolerant, &c, &nc)) < 0 ||
		    (rc = nd__cands_since(txn, c, &nc, vo ? vo->since : 0)) < 0 ||
		    (rc = nd__common_load(txn, &common)) < 0)
			goto cleanup;
		/* Each candidate with its site's template, when hooks counted
		 * one since the collection's count. */
		nd__site_cands sc = {.self = 0};
		nd__site_judge_init(&sc.j, txn);
		rc = nd__compare_candidates(db, txn, common, &rec, ids, nown, c, nc, 0, max_compare, vo,
					    nd__site_cand_templates, &sc, m, &nm);
		nd__site_judge_free(&sc.j);
		if (rc < 0)
			goto cleanup;
		out->cluster_size += nc;
		ranked_member *p = realloc(all, (nall + nm + 1) * sizeof(*all));
		if (!p) {
			rc = nd_error_set(ND_ENOMEM, "out of memory");
			goto cleanup;
		}
		all = p;
		/* Members are the first candidates, in order: ranks match up. */
		for (size_t i = 0, k = 0; i < nm; i++) {
			while (k < nc && c[k].docid != m[i].docid)
				k++;
			ranked_member x = {m[i], k < nc ? c[k].rank : 0};
			if (sh)
				x.m.docid = nd_shards_docid(sh, s, x.m.docid);
			all[nall++] = x;
		}
		nd_store_txn_end(txn);
		txn = NULL;
		nd__common_free(common);
		common = NULL;
		free(c);
		c = NULL;
	}
	/* Most similar first over every store, then docid. */
	if (nall > 1)
		qsort(all, nall, sizeof(*all), cmp_ranked);
	size_t keep = nall < max_compare ? nall : max_compare;
	if (!(out->members = calloc(keep + 1, sizeof(nd_check_member)))) {
		rc = nd_error_set(ND_ENOMEM, "out of memory");
		goto cleanup;
	}
	for (size_t i = 0; i < keep; i++) {
		out->members[i] = all[i].m;
		out->duplicates += all[i].m.duplicate;
	}
	out->nmembers = keep;
cleanup:
	nd_store_txn_end(txn);
	nd__common_free(common);
	nd__rec_free(&rec);
	free(c);
	free(m);
	free(all);
	free(ids);
	nd__xapian_terms_free(&xt);
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
