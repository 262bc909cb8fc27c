/* Candidates of a signature by bit-set Jaccard, through the store's bit
 * postings with prefix filtering, and their comparison with a text by the
 * one pair verdict: what check and the tolerant hooks share. */
#include "descriptor/verify/verify_internal.h"
#include "descriptor/verify/common.h"
#include "descriptor/verify/record.h"
#include "neardup/words.h"
#include "common/nd_join.h"
#include "common/nd_buf.h"
#include "neardup/cluster.h"

#include <stdlib.h>
#include <string.h>

int nd__cmp_cand(const void *x, const void *y)
{
	const nd__cand *a = x, *b = y;
	if (a->rank != b->rank)
		return a->rank > b->rank ? -1 : 1;
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

/* The store's bit postings as a join's postings. */
typedef struct {
	nd_store_txn *txn;
	uint32_t *last; /* the list handed out last */
} store_postings;

static int bit_postings(uint32_t bit, void *ctx, const uint32_t **ids, size_t *n)
{
	store_postings *sp = ctx;
	free(sp->last);
	sp->last = NULL;
	int rc = nd_store_bit_docs(sp->txn, (uint16_t)bit, &sp->last, n);
	*ids = sp->last;
	return rc;
}

double nd__cand_rank(const nd_sig *a, const nd_sig *b, double jaccard)
{
	/* The closer of two estimates: bits, and the share of MinHashes that
	 * agree, of the descriptive words held (a page in a template keeps
	 * its words while its frequencies, and so its bits, move) or of the
	 * text; a tree without a key on either side agrees on nothing. */
	unsigned agree = 0, asked = 0;
	if (a->key && b->key == a->key)
		return 2.0;
	for (unsigned t = 0; a->present && b->present && t < ND_NEAR_TREES; t++) {
		const uint16_t *x = a->near + t * ND_NEAR_ROWS, *y = b->near + t * ND_NEAR_ROWS;
		if (x[0] == UINT16_MAX && x[ND_NEAR_ROWS - 1] == UINT16_MAX)
			continue; /* (a key's rows are never all UINT16_MAX) */
		asked += ND_NEAR_ROWS;
		for (unsigned r = 0; r < ND_NEAR_ROWS; r++)
			agree += x[r] == y[r];
	}
	double share = asked ? (double)agree / asked : 0;
	return share > jaccard ? share : jaccard;
}

int nd__tolerant_candidates(nd_store_txn *txn, const nd_descriptor *d, const nd_sig *sig, double t,
			       nd__cand **out, size_t *nout)
{
	uint32_t na = sig->nbits, probe = nd_jaccard_prefix(na, t);
	bit_df *order = NULL;
	uint32_t *rare = NULL, *all = NULL, *near = NULL;
	size_t nnear = 0;
	size_t nall = 0, cap = 0, nc = 0;
	store_postings sp = {txn, NULL};
	nd__cand *c = NULL;
	int rc = ND_OK;

	*out = NULL;
	*nout = 0;
	if (!na && !sig->present)
		return ND_OK;
	if (!(order = malloc((na + 1) * sizeof(*order))) || !(rare = malloc((na + 1) * sizeof(*rare)))) {
		rc = nd_error_set(ND_ENOMEM, "out of memory");
		goto done;
	}
	/* The store holds every document under every bit: probing the
	 * text's own prefix, rarest bits first, is enough. */
	for (uint32_t i = 0; t > 0 && i < na && rc == ND_OK; i++) {
		order[i].bit = sig->bits[i];
		rc = nd_store_bit_count(txn, sig->bits[i], &order[i].df);
	}
	if (rc < 0)
		goto done;
	if (na > 1)
		qsort(order, na, sizeof(*order), cmp_bit_df);
	for (uint32_t i = 0; i < na; i++)
		rare[i] = order[i].bit;
	if (t <= 0) {
		/* Equal keys only, from the key's own list. */
		if (sig->key && (rc = nd_store_key_docs(txn, sig->key, &all, &nall)) < 0)
			goto done;
		cap = nall;
	} else if (na && (rc = nd_prefix_candidates(rare, probe, bit_postings, &sp, &all, &nall, &cap)) < 0)
		goto done;
	/* And the near-neighbour index's: documents holding mostly the same
	 * descriptive words, whatever their bits. */
	if ((rc = nd_near_candidates(txn, sig, 0, &near, &nnear)) < 0)
		goto done;
	/* Both together, each once; the index's stand whatever their Jaccard. */
	if (nnear && nd_array_reserve((void **)&all, &cap, nall + nnear, sizeof(*all)) < 0) {
		rc = nd_error_set(ND_ENOMEM, "out of memory");
		goto done;
	}
	if (nnear)
		memcpy(all + nall, near, nnear * sizeof(*all));
	nall = nd__sort_unique_u32(all, nall + nnear);
	if (!(c = malloc((nall + 1) * sizeof(*c)))) {
		rc = nd_error_set(ND_ENOMEM, "out of memory");
		goto done;
	}
	/* Exact Jaccard of each candidate, from its record. */
	for (size_t i = 0; i < nall && rc == ND_OK; i++) {
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
		if (j >= t - 1e-12 || (nnear && bsearch(&all[i], near, nnear, sizeof(*near), nd_cmp_u32)))
			c[nc++] = (nd__cand){all[i], j, nd__cand_rank(sig, &b, j)};
		nd_sig_clear(&b);
	}
	if (rc == ND_OK) {
		qsort(c, nc, sizeof(*c), nd__cmp_cand);
		*out = c;
		*nout = nc;
		c = NULL;
	}
done:
	free(sp.last);
	free(near);
	free(order);
	free(rare);
	free(all);
	free(c);
	return rc;
}

int nd__compare_candidates(nd_xdb *db, nd_store_txn *txn, const nd__common *common, const nd__rec *rec,
			   const uint32_t *ids, size_t n, const nd__cand *c, size_t nc, nd_docid self,
			   size_t max_compare, const nd_verify_options *vo, nd__template_fn tf, void *tctx,
			   nd_check_member *out, size_t *nout)
{
	nd_point point = vo ? vo->point : ND_POINT_COPY;
	/* Its weights by this store's common text, once for all candidates
	 * when it meets more than one (a comparison sums them itself). */
	size_t reads = 0;
	for (size_t i = 0; i < nc && reads < max_compare && reads < 2; i++)
		reads += c[i].docid != self;
	nd__rec me = *rec;
	me.groups = NULL, me.cum = NULL, me.buckets = NULL;
	int rc = point == ND_POINT_STRICT || reads < 2 ? ND_OK : nd__rec_weigh(&me, common);
	*nout = 0;
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < nc && *nout < max_compare; i++) {
		double dist = 1;
		nd_verify_how how = ND_VERIFY_NO_WORDS;
		int dup = 0;
		if (c[i].docid == self)
			continue;
		if (point == ND_POINT_STRICT) {
			/* Levenshtein: the words themselves. */
			uint32_t *w = NULL;
			size_t nw;
			rc = nd_words_get(db, c[i].docid, &w, &nw, NULL);
			if (rc == ND_OK)
				rc = dup = nd_verify_pair(ids, n, w, nw, vo, &how, &dist);
			free(w);
		} else {
			nd__rec other;
			nd__extra e = {NULL, NULL, 0, NULL, 0};
			if ((rc = nd__rec_of_doc(txn, c[i].docid, &other)) == ND_OK && tf)
				rc = tf(tctx, c[i].docid, &e);
			if (rc == ND_OK && (e.n || e.nfloors)) {
				/* The table with the candidate's site's template. */
				nd__common with = *common;
				nd__rec mine = nd__rec_unweighed(&me);
				nd__common_set_extra(&with, &e);
				rc = other.nwords ? (dup = nd__rec_verdict(point, &mine, &other, &with, &how, &dist))
						  : ND_ENOTFOUND;
			} else if (rc == ND_OK)
				rc = other.nwords ? (dup = nd__rec_verdict(point, &me, &other, common, &how, &dist))
						  : ND_ENOTFOUND;
			nd__rec_free(&other);
		}
		if (rc == ND_ENOTFOUND) { /* deleted since signing, or no words */
			rc = dup = 0;
			how = ND_VERIFY_NO_WORDS;
		} else if (rc < 0)
			break;
		out[(*nout)++] = (nd_check_member){c[i].docid, dist, dup, c[i].jaccard, how};
	}
	nd__rec_unweigh(&me);
	return rc < 0 ? rc : ND_OK;
}

int nd__cands_since(nd_store_txn *txn, nd__cand *c, size_t *nc, uint64_t since)
{
	size_t k = 0;
	if (!since)
		return ND_OK;
	for (size_t i = 0; i < *nc; i++) {
		uint64_t date;
		int rc = nd_store_date_get(txn, c[i].docid, &date);
		if (rc < 0 && rc != ND_ENOTFOUND)
			return rc;
		if (rc == ND_ENOTFOUND || date >= since)
			c[k++] = c[i];
	}
	*nc = k;
	return ND_OK;
}
