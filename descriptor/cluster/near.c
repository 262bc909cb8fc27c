/* Candidates from the store's near-neighbour index, and batch clusters
 * over them (see neardup/cluster.h).
 *
 * Batch: one walk of the index gives, per tree, the documents in sequence
 * order; each is paired with the ND_NEAR_WINDOW before it.  Pairs are
 * made distinct, every document's w-shingles are read once (u32
 * fingerprints, sorted: a multiset), and pairs are scored by bag
 * resemblance.  Pairs the index did not propose count 0: not being a
 * near neighbour is evidence too (scoring them before each join made
 * the gold set's clusters worse, 0.956 -> 0.941 max-F1), except between
 * large tentative clusters, whose averages are completed first
 * (nd_linkage_complete).  Then nd_linkage_sparse links only pairs inside
 * a component of pairs at or above the cut, and the shingles are freed
 * before it. */
#include "indexer/html_text.h"
#include "indexer/xapian_terms.h"
#include "lmdb_store/store_internal.h"
#include "neardup/cluster.h"
#include "descriptor/cluster/cluster_internal.h"
#include "neardup/verify.h"
#include "descriptor/verify/verify_internal.h"
#include "descriptor/verify/record.h"
#include "neardup/similarity.h"
#include "neardup/words.h"
#include "common/nd_buf.h"
#include "common/nd_hash.h"
#include "common/nd_parallel.h"

#include <stdlib.h>
#include <string.h>

int nd_near_candidates(nd_store_txn *txn, const nd_sig *sig, nd_docid self, nd_docid **out, size_t *n)
{
	size_t cap = 2 * ND_NEAR_WINDOW * ND_NEAR_TREES, m = 0;
	uint32_t *v;
	int rc = ND_OK;
	*out = NULL;
	*n = 0;
	if (!sig->present)
		return ND_OK;
	if (!(v = malloc(cap * sizeof(*v))))
		return nd_error_set(ND_ENOMEM, "out of memory");
	for (unsigned t = 0; t < ND_NEAR_TREES && rc == ND_OK; t++) {
		size_t got = 0;
		rc = nd_store_near(txn, t, sig->near + t * ND_NEAR_ROWS, ND_NEAR_ROWS, self, ND_NEAR_WINDOW,
				   v + m, &got);
		m += got;
	}
	if (rc < 0) {
		free(v);
		return rc;
	}
	*out = v;
	*n = nd__sort_unique_u32(v, m);
	return ND_OK;
}

/* ---- batch ---- */

/* Candidate pairs: each document of the walk with the ND_NEAR_WINDOW
 * before it in its tree. */
typedef struct {
	const uint32_t *index;  /* docid -> index in docs + 1 (0: not among them) */
	uint32_t nindex;
	uint32_t ring[ND_NEAR_WINDOW];
	unsigned tree, held;
	uint64_t *pairs;
	size_t n, cap;
} walk_ctx;

static int on_entry(unsigned tree, uint32_t docid, void *vctx)
{
	walk_ctx *w = vctx;
	if (tree != w->tree)
		w->tree = tree, w->held = 0;
	if (docid >= w->nindex || !w->index[docid])
		return 0;
	uint32_t x = w->index[docid] - 1;
	if (nd_array_reserve((void **)&w->pairs, &w->cap, w->n + ND_NEAR_WINDOW, sizeof(uint64_t)) < 0)
		return nd_error_set(ND_ENOMEM, "out of memory for candidate pairs");
	unsigned have = w->held < ND_NEAR_WINDOW ? w->held : ND_NEAR_WINDOW;
	for (unsigned k = 0; k < have; k++) {
		uint32_t y = w->ring[k];
		if (y != x)
			w->pairs[w->n++] = x < y ? (uint64_t)x << 32 | y : (uint64_t)y << 32 | x;
	}
	w->ring[w->held++ % ND_NEAR_WINDOW] = x;
	return 0;
}

/* Pairs are sorted in place by their first document's top bits (at most
 * 256 ranges, swapped into place), then each range on its own: a million
 * documents give 64M pairs (55M distinct), which sorted whole took a
 * scratch copy of 512 MB beside them. */
typedef struct {
	uint64_t *pairs;
	const size_t *start;    /* of each range; [nd] the end */
	size_t *kept;           /* out: distinct pairs at each range's start */
} range_ctx;

static int sort_ranges(void *vctx, unsigned t, uint32_t from, uint32_t to)
{
	range_ctx *c = vctx;
	(void)t;
	for (uint32_t d = from; d < to; d++)
		c->kept[d] = nd__sort_unique_u64(c->pairs + c->start[d], c->start[d + 1] - c->start[d]);
	return ND_OK;
}

/* v[0..*n) made ascending and distinct, *n what is left; first documents
 * below ndocs. */
static int sort_unique_pairs(uint64_t *v, size_t *n, size_t ndocs, unsigned jobs)
{
	unsigned shift = 0;
	size_t start[257] = {0}, head[256], kept[256];
	int rc;
	if (*n == 0)
		return ND_OK;
	while ((ndocs - 1) >> shift >= 256)
		shift++;
	unsigned nd = (unsigned)((ndocs - 1) >> shift) + 1;
#define DIGIT(p) ((unsigned)((p) >> 32 >> shift))
	for (size_t i = 0; i < *n; i++)
		start[DIGIT(v[i]) + 1]++;
	for (unsigned d = 0; d < nd; d++)
		start[d + 1] += start[d];
	memcpy(head, start, sizeof(head));
	for (unsigned d = 0; d < nd; d++)
		while (head[d] < start[d + 1]) { /* each misplaced pair swapped to its range */
			uint64_t x = v[head[d]];
			unsigned dx = DIGIT(x);
			while (dx != d) {
				uint64_t y = v[head[dx]];
				v[head[dx]++] = x;
				x = y, dx = DIGIT(x);
			}
			v[head[d]++] = x;
		}
#undef DIGIT
	range_ctx c = {v, start, kept};
	if ((rc = nd_parallel_shares(jobs, nd, sort_ranges, &c)) < 0)
		return rc;
	size_t m = 0;
	for (unsigned d = 0; d < nd; d++) {
		memmove(v + m, v + start[d], kept[d] * sizeof(*v));
		m += kept[d];
	}
	*n = m;
	return ND_OK;
}

/* The candidate pairs of docs[0..n) (ascending) in the near-neighbour
 * index of txn's snapshot, as indexes into docs: *pairs (ascending,
 * distinct; the caller frees it), *np of them. */
static int candidate_pairs(nd_store_txn *txn, const nd_docid *docs, size_t n, unsigned jobs, uint64_t **pairs,
			   size_t *np)
{
	*pairs = NULL, *np = 0;
	uint32_t nindex = docs[n - 1] + 1, *index = calloc(nindex, sizeof(*index));
	if (!index)
		return nd_error_set(ND_ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++)
		index[docs[i]] = (uint32_t)i + 1;
	walk_ctx w = {index, nindex, {0}, UINT32_MAX, 0, NULL, 0, 0};
	int rc = nd_store_near_each(txn, on_entry, &w);
	free(index);
	size_t m = w.n;
	if (rc < 0 || (rc = sort_unique_pairs(w.pairs, &m, n, jobs)) < 0) {
		free(w.pairs);
		return rc;
	}
	if (m && m < w.cap) { /* give back the repeats and the doubling's slack */
		uint64_t *shrunk = realloc(w.pairs, m * sizeof(uint64_t));
		if (shrunk)
			w.pairs = shrunk;
	}
	*pairs = w.pairs, *np = m;
	return ND_OK;
}

/* The pairs a share scores: pairs[idx[k]] (idx NULL: pairs[k]) for k in
 * its range; base of them were scored before (progress). */
typedef struct {
	const uint64_t *pairs;
	const uint32_t *idx;
	size_t base;
} pair_walk;

static inline size_t walk_at(const pair_walk *w, uint32_t k)
{
	return w->idx ? w->idx[k] : k;
}

/* Pairs a thread takes at a time: a pair costs from a few loads (refused
 * by its sizes or buckets) to two whole merges, unevenly along the order
 * (a large family's pairs come together); enough that the prefetches a
 * few pairs ahead rarely meet a chunk's end. */
#define PAIR_CHUNK 4096
#define PROGRESS_PAIRS 262144

/* fn(ctx, ...) over every pair of w->pairs[0..np) (ascending), on jobs
 * threads, PAIR_CHUNK pairs at a time.  A spilled record set is read a
 * block at a time: the pairs whose first record is in tile ta and second
 * in tb, tb's pages released after each block and ta's after the last, so
 * that at most two tiles of records are resident whatever the corpus.  A
 * block keeps the pairs' order. */
static int tiled_shares(const nd__recset *rs, pair_walk *w, size_t np, unsigned jobs, nd_share_fn fn, void *ctx)
{
	uint32_t nt = nd__recset_tiles(rs);
	size_t *start = NULL, *put = NULL;
	uint32_t *idx = NULL;
	int rc = ND_OK;

	w->idx = NULL, w->base = 0;
	if (np > UINT32_MAX)
		return nd_error_set(ND_ETOOBIG, "%zu candidate pairs at once", np);
	if (nt == 1 || np == 0)
		return nd_parallel_chunks(jobs, (uint32_t)np, PAIR_CHUNK, fn, ctx);
	if (!(start = malloc((nt + 1) * sizeof(*start))) || !(put = malloc((nt + 1) * sizeof(*put)))) {
		rc = nd_error_set(ND_ENOMEM, "out of memory");
		goto done;
	}
	for (size_t g0 = 0, g1; g0 < np && rc == ND_OK; g0 = g1) {
		uint32_t ta = nd__recset_tile(rs, w->pairs[g0] >> 32);
		for (g1 = g0 + 1; g1 < np && nd__recset_tile(rs, w->pairs[g1] >> 32) == ta; g1++)
			;
		uint32_t *grown = realloc(idx, (g1 - g0) * sizeof(*idx));
		if (!grown) {
			rc = nd_error_set(ND_ENOMEM, "out of memory for %zu candidate pairs", g1 - g0);
			break;
		}
		idx = grown;
		/* The group's pairs by the tile of their second, in order. */
		memset(start, 0, (nt + 1) * sizeof(*start));
		for (size_t i = g0; i < g1; i++)
			start[nd__recset_tile(rs, (uint32_t)w->pairs[i]) + 1]++;
		for (uint32_t t = 0; t < nt; t++)
			start[t + 1] += start[t];
		memcpy(put, start, (nt + 1) * sizeof(*put));
		for (size_t i = g0; i < g1; i++)
			idx[put[nd__recset_tile(rs, (uint32_t)w->pairs[i])]++] = (uint32_t)i;
		for (uint32_t tb = 0; tb < nt && rc == ND_OK; tb++) {
			size_t len = start[tb + 1] - start[tb];
			if (!len)
				continue;
			w->idx = idx + start[tb];
			rc = nd_parallel_chunks(jobs, (uint32_t)len, PAIR_CHUNK, fn, ctx);
			w->base += len;
			if (tb != ta)
				nd__recset_release_tile(rs, tb);
		}
		nd__recset_release_tile(rs, ta);
	}
done:
	w->idx = NULL;
	free(start);
	free(put);
	free(idx);
	return rc;
}

/* Sizes further apart than this factor are never one group (resemblance
 * <= the smaller over the larger; 0.8 leaves room for the sample's error
 * against ND_GROUP_RESEMBLANCE). */
#define GROUP_SIZES 0.8f

/* Plain resemblance below which the strict point reads no words. */
#define STRICT_FLOOR 0.4

/* What a pair is scored by, from the two records: PLAIN (0 below
 * STRICT_FLOOR, where its merge stops early) and STORY write a score,
 * GROUP, COPY and EDITED a verdict (1 or 0, a byte a pair: the passes of
 * a million documents score 55M pairs), STORY the copy verdict too.
 * GROUP's byte says which of these the two are; EDITED whether two near
 * ones are edited copies of one text (nd__rec_edited). */
enum { SCORE_PLAIN, SCORE_GROUP, SCORE_COPY, SCORE_STORY, SCORE_EDITED };
enum { SAME_GROUP = 1, SAME_VERSION = 2, SAME_KIN = 4, SAME_HELD = 8, SAME_NEAR = 16 };

typedef struct {
	pair_walk w;
	const nd__recset *rs;
	const nd__common *common;
	float *score;
	uint8_t *yes;
	int what;
	const nd_near_options *o;
	const uint32_t *site; /* GROUP: each record's site (0: none), or NULL */
	const uint32_t *nsh;  /* GROUP: each record's shingles, read once */
} score_ctx;

/* Why the group pass reads a pair's records: of like sizes (LIKE), two
 * pages of one site (SITE); 0: neither, as most pairs are, told from two
 * dense arrays without the cache misses of two records. */
enum { GROUP_LIKE = 1, GROUP_SITE = 2 };
static inline int group_reads(const score_ctx *c, uint64_t p)
{
	uint32_t x = c->nsh[p >> 32], y = c->nsh[(uint32_t)p];
	uint32_t sa = c->site ? c->site[p >> 32] : 0;
	return (x >= GROUP_SIZES * y && y >= GROUP_SIZES * x ? GROUP_LIKE : 0) |
	       (sa && sa == c->site[(uint32_t)p] ? GROUP_SITE : 0);
}

/* Ask for r's samples, weights and checkpoint around where it is cut at
 * threshold t (cut_at and the weights before the cut read them). */
static inline void prefetch_cut(const nd__rec *r, uint32_t t)
{
	if (r->thr <= t || !r->nsample)
		return; /* not cut: its whole weight is in its head */
	uint32_t at = (uint32_t)((uint64_t)r->nsample * t / ((uint64_t)r->thr + 1));
	__builtin_prefetch(r->sample + at);
	if (r->groups)
		__builtin_prefetch(r->groups + at);
	if (r->cum && at >= ND_REC_CUM_STEP)
		__builtin_prefetch(r->cum + 2 * (at / ND_REC_CUM_STEP - 1));
}

/* Pairs come in order of their first document; the second's record is
 * a cache miss each: ask for what scoring the pairs ahead of k will read
 * of it.  Eight ahead its head; four ahead the merge's start (samples
 * [0, most): about half of the sample is what a copy merge that refuses
 * reads, a group merge stops within a few), and around the cut of
 * whichever side is cut at the other's threshold (the end of a sample,
 * far from what the merge reads, the first's too); or, when both have
 * buckets, only the second's, which refuse most copy pairs alone. */
static inline void prefetch_ahead(const nd__recset *rs, const pair_walk *w, uint32_t k, uint32_t to,
				  uint32_t most, int buckets, const score_ctx *group)
{
	if (k + 8 < to && (!group || group_reads(group, w->pairs[walk_at(w, k + 8)])))
		__builtin_prefetch(nd__recset_get(rs, (uint32_t)w->pairs[walk_at(w, k + 8)]));
	if (k + 4 >= to)
		return;
	uint64_t p = w->pairs[walk_at(w, k + 4)];
	if (group && !group_reads(group, p))
		return;
	const nd__rec *a = nd__recset_get(rs, p >> 32), *b = nd__recset_get(rs, (uint32_t)p);
	if (buckets && a->buckets && b->buckets) {
		for (uint32_t l = 0; l < ND_REC_BUCKET_BYTES; l += 64)
			__builtin_prefetch(b->buckets + l);
		return; /* the buckets bound the cut too: most pairs read nothing else */
	}
	for (uint32_t l = 0; l < most && l < b->nsample; l += 16)
		__builtin_prefetch(b->sample + l);
	__builtin_prefetch(b->cum);
	prefetch_cut(b, a->thr);
	prefetch_cut(a, b->thr);
}

static int score_share(void *vctx, unsigned t, uint32_t from, uint32_t to)
{
	score_ctx *c = vctx;
	const uint64_t *pairs = c->w.pairs;
	for (uint32_t k = from; k < to; k++) {
		size_t i = walk_at(&c->w, k);
		const nd__rec *a = nd__recset_get(c->rs, pairs[i] >> 32);
		const nd__rec *b = nd__recset_get(c->rs, (uint32_t)pairs[i]);
		prefetch_ahead(c->rs, &c->w, k, to, c->what == SCORE_GROUP ? 32 : 128, c->what == SCORE_COPY,
			       c->nsh ? c : NULL);
		float v = 0;
		int yes = 0, reads = c->nsh ? group_reads(c, pairs[i]) : 0;
		if ((!c->nsh || reads) && a->nwords && b->nwords) {
			if (c->what == SCORE_PLAIN)
				v = (float)nd__rec_plain_floor(a, b, STRICT_FLOOR);
			else if (c->what == SCORE_GROUP) {
				/* Like sizes or one site (group_reads).  One
				 * site: versions of a page too (alike, or one
				 * held by the other nearly whole).  Kin are at
				 * least GROUP_SIZES alike in size as well, and so
				 * are two copies of one text that may each be
				 * edited (near: asked once the count is known). */
				int sizes = reads & GROUP_LIKE, site = reads & GROUP_SITE;
				double r = nd__rec_plain_floor(a, b, ND_SITE_VERSION);
				int version = site && r >= ND_SITE_VERSION;
				int held = site && nd__rec_contained_floor(a, b, ND_SITE_CONTAINED) >= ND_SITE_CONTAINED;
				yes = (sizes && (float)r >= ND_GROUP_RESEMBLANCE ? SAME_GROUP : 0) |
				      ((float)r >= ND_KIN_RESEMBLANCE ? SAME_KIN : 0) |
				      (sizes && !site && (float)r >= ND_SITE_VERSION ? SAME_NEAR : 0) |
				      (version ? SAME_VERSION : 0) | (held ? SAME_HELD : 0);
			} else if (c->what == SCORE_COPY)
				yes = nd__rec_verdict(ND_POINT_COPY, a, b, c->common, NULL, NULL) == 1;
			else if (c->what == SCORE_EDITED)
				yes = nd__rec_edited(a, b, c->common);
			else
				nd__rec_story(a, b, c->common, &v, &yes);
		}
		if (c->score)
			c->score[i] = v;
		if (c->yes)
			c->yes[i] = (uint8_t)yes;
	}
	/* Chunks are taken in order: where the calling thread's ends is
	 * about how far the pairs are. */
	size_t done = c->w.base + to;
	if (t == 0 && c->o->progress && (c->w.base + from) / PROGRESS_PAIRS != done / PROGRESS_PAIRS)
		c->o->progress("scoring", done, 0, c->o->ctx);
	return ND_OK;
}

/* score (PLAIN, STORY) and yes (GROUP, COPY, STORY) of every pair; site
 * (GROUP, may be NULL): see score_ctx. */
static int score_pairs(const nd__recset *rs, const nd__common *common, const uint64_t *pairs, size_t np,
		       float *score, uint8_t *yes, int what, const uint32_t *site, const nd_near_options *o)
{
	score_ctx c = {{pairs, NULL, 0}, rs, common, score, yes, what, o, site, NULL};
	uint32_t *nsh = NULL;
	if (what == SCORE_GROUP) {
		size_t n = nd__recset_size(rs);
		uint32_t tile = UINT32_MAX;
		if (!(nsh = malloc((n + 1) * sizeof(*nsh))))
			return nd_error_set(ND_ENOMEM, "out of memory for the sizes of %zu documents", n);
		for (size_t i = 0; i < n; i++) {
			nd__recset_walked(rs, i, &tile);
			nsh[i] = nd__recset_get(rs, i)->nshingles;
		}
		nd__recset_release(rs);
		c.nsh = nsh;
	}
	int rc = tiled_shares(rs, &c.w, np, o->jobs, score_share, &c);
	free(nsh);
	return rc;
}

/* The strict point reads words: Levenshtein on the pairs whose records
 * could be that close (plain resemblance of their samples well above
 * what 8% of edits leaves), each share with its own database handle
 * (Xapian's are not thread-safe). */
typedef struct {
	nd_xdb *db;
	const char *path;
	const nd_docid *docs;
	const uint64_t *pairs;
	const uint32_t *which;
	float *score;
} strict_ctx;

static int strict_share(void *vctx, unsigned t, uint32_t from, uint32_t to)
{
	strict_ctx *c = vctx;
	nd_xdb *db = c->db;
	int rc = ND_OK;
	if (t > 0 && (rc = nd_xdb_open(&db, c->path, ND_XDB_READ)) < 0)
		return rc;
	if (t > 0)
		nd__xdb_copy_settings(db, c->db);
	for (uint32_t k = from; k < to && rc == ND_OK; k++) {
		size_t i = c->which[k];
		uint32_t *x = NULL, *y = NULL;
		size_t nx = 0, ny = 0;
		nd_verify_options vo = ND_VERIFY_OPTIONS_INIT;
		vo.point = ND_POINT_STRICT;
		rc = nd_words_get(db, c->docs[c->pairs[i] >> 32], &x, &nx, NULL);
		if (rc == ND_OK)
			rc = nd_words_get(db, c->docs[(uint32_t)c->pairs[i]], &y, &ny, NULL);
		nd_verify_how how;
		double d;
		if (rc == ND_OK)
			rc = nd_verify_pair(x, nx, y, ny, &vo, &how, &d);
		c->score[i] = rc == 1 ? 1.0f : 0.0f;
		rc = rc == ND_ENOTFOUND || rc == 1 ? ND_OK : rc;
		free(x);
		free(y);
	}
	if (t > 0)
		nd_xdb_close(db);
	return rc;
}

static int judge_strict(nd_xdb *db, const nd_docid *docs, const uint64_t *pairs, size_t np, float *score,
			unsigned jobs)
{
	size_t m = 0;
	for (size_t i = 0; i < np; i++)
		m += score[i] >= STRICT_FLOOR;
	uint32_t *which = malloc((m + 1) * sizeof(*which)); /* np < 2^32: scored */
	if (!which)
		return nd_error_set(ND_ENOMEM, "out of memory");
	m = 0;
	for (size_t i = 0; i < np; i++) {
		if (score[i] >= STRICT_FLOOR)
			which[m++] = (uint32_t)i;
		score[i] = 0;
	}
	strict_ctx c = {db, nd_xdb_path(db), docs, pairs, which, score};
	int rc = m ? nd_parallel_shares(jobs, (uint32_t)m, strict_share, &c) : ND_OK;
	free(which);
	return rc;
}

/* A term of prefix: its site's name (the host without "www.", hashed),
 * where the term stands in the terms' buffer, and its postings. */
typedef struct {
	uint64_t key;
	size_t at;
	uint32_t tf;
} site_term;

static int site_term_cmp(const void *a, const void *b)
{
	const site_term *x = a, *y = b;
	return x->key != y->key ? (x->key < y->key ? -1 : 1) : (x->at > y->at) - (x->at < y->at);
}

/* The documents of docs[0..n) (ascending) under the terms of prefix, a
 * site by the name of each term (nd_host_bare: one with "www." and one
 * without are one site) whose terms have ND_SITE_GROUPS postings or
 * more together, given the ordinals after *ord at site[i], where it is
 * still 0. */
static int sites_by(nd_xdb *db, const char *prefix, const nd_docid *docs, size_t n, uint32_t *site, uint32_t *ord)
{
	nd_xdb_terms *it = NULL;
	nd_xdb_postlist *pl = NULL;
	nd_posting buf[256];
	nd_buf names = ND_BUF_INIT;
	site_term *v = NULL;
	const char *term, *bare;
	size_t len, got, nv = 0, cap = 0, plen = strlen(prefix);
	uint32_t tf;
	int rc = nd_xdb_terms_open(&it, db, prefix);
	while (rc >= 0 && (rc = nd_xdb_terms_next(it, &term, &len, &tf, NULL)) == 1) {
		if ((rc = nd_array_reserve((void **)&v, &cap, nv + 1, sizeof(*v))) < 0)
			break;
		size_t nb = nd_host_bare(term + plen, len - plen, &bare);
		v[nv++] = (site_term){nd__site_hash(bare, nb), names.len, tf};
		if ((rc = nd_buf_put(&names, term, len)) < 0 || (rc = nd_buf_putc(&names, 0)) < 0)
			break;
	}
	nd_xdb_terms_free(it);
	if (nv)
		qsort(v, nv, sizeof(*v), site_term_cmp);
	for (size_t i = 0, j; rc >= 0 && i < nv && *ord < UINT32_MAX - 1; i = j) {
		uint64_t postings = v[i].tf;
		for (j = i + 1; j < nv && v[j].key == v[i].key; j++)
			postings += v[j].tf;
		if (postings < ND_SITE_GROUPS)
			continue;
		++*ord;
		for (size_t k = i; k < j && rc >= 0; k++) {
			if ((rc = nd_xdb_postlist_open(&pl, db, names.ptr + v[k].at)) < 0)
				break;
			size_t lo = 0;
			do {
				if ((rc = nd_xdb_postlist_next(pl, 0, buf, 256, &got)) < 0)
					break;
				for (size_t m = 0; m < got; m++) {
					/* Postings ascend, so the search starts where the last ended. */
					lo += nd__lower_bound_u32(docs + lo, n - lo, buf[m].docid);
					if (lo < n && docs[lo] == buf[m].docid && !site[lo])
						site[lo] = *ord;
				}
			} while (got == 256);
			nd_xdb_postlist_free(pl);
			pl = NULL;
		}
	}
	free(v);
	nd_buf_free(&names);
	return rc < 0 ? rc : ND_OK;
}

/* Of the pages idx[0..k) (indices in the low 32 bits) of one frame,
 * whether two are framed apart: each next two of the first
 * FRAME_APART_ASKED asked (a site of many pages has its versions, and
 * needs no pair). */
#define FRAME_APART_ASKED 8
/* Frames asked between two releases of a spilled set's arrays: a frame
 * reads up to FRAME_APART_ASKED records anywhere in the set, a few pages
 * each (4,096 frames made the pass sign's peak at 1M, 900 MB). */
#define FRAME_APART_RELEASE 1024
static int frame_apart(const nd__recset *rs, const uint64_t *idx, size_t k)
{
	for (size_t x = 0; x + 1 < k && x + 1 < FRAME_APART_ASKED; x++)
		if (nd__rec_framed_apart(nd__recset_get(rs, (uint32_t)idx[x]), nd__recset_get(rs, (uint32_t)idx[x + 1])))
			return 1;
	return 0;
}

/* Pages without a site whose records share a frame (their first and last
 * words), ND_FRAME_GROUPS or more, or ND_FRAME_END_GROUPS two of which are
 * framed apart: one site each, ordinals after *ord, apart[i] set for the
 * pages of a site two of whose pages are framed apart.  The frame's top 32
 * bits and the page's index, sorted: pages that collide by chance share no
 * text that half of them hold. */
static int sites_by_frame(const nd__recset *rs, size_t n, uint32_t *site, uint8_t *apart, uint32_t *ord)
{
	uint64_t *f = malloc((n + 1) * sizeof(*f));
	size_t m = 0;
	if (!f)
		return nd_error_set(ND_ENOMEM, "out of memory for the frames of %zu documents", n);
	for (size_t i = 0; i < n; i++) {
		uint64_t fr = site[i] ? 0 : nd__recset_get(rs, i)->frame;
		if (fr)
			f[m++] = (fr >> 32) << 32 | (uint64_t)i;
	}
	nd__sort_u64(f, m);
	/* The pages asked lie anywhere in a spilled set: what they brought
	 * in is given back now and then, as a walk gives back its tiles. */
	size_t asked = 0;
	for (size_t i = 0, j; i < m && *ord < UINT32_MAX - 1; i = j) {
		for (j = i + 1; j < m && f[j] >> 32 == f[i] >> 32; j++)
			;
		if (j - i < ND_FRAME_END_GROUPS)
			continue;
		if (++asked % FRAME_APART_RELEASE == 0)
			nd__recset_release_arrays(rs);
		uint8_t a = (uint8_t)frame_apart(rs, f + i, j - i);
		if (!a && j - i < ND_FRAME_GROUPS)
			continue; /* two copies of one text, say: no site */
		++*ord;
		for (size_t k = i; k < j; k++)
			site[(uint32_t)f[k]] = *ord, apart[(uint32_t)f[k]] = a;
	}
	nd__recset_release(rs);
	free(f);
	return ND_OK;
}

/* The site of each of docs[0..n) (ascending), at site[i]: an ordinal from
 * 1, 0 for none.  A page's host term ("H" and the host, as omindex and
 * neardup index write it); else omindex's base URL ("J": one run of
 * omindex indexes one site, given as /shop/ when it has no host; not in
 * a mu database, whose H and J are Bcc addresses and attachments); else
 * its frame, for text that came without an address (files, mail, another
 * application's pages).  Only sites of ND_SITE_GROUPS pages or more
 * (ND_FRAME_END_GROUPS of a frame): a smaller one has no template to tell.
 * *frame_from: the first frame's ordinal; *nsites: the last ordinal. */
static int sites_of(nd_xdb *db, const nd__recset *rs, const nd_docid *docs, size_t n, uint32_t *site,
		    uint8_t *apart, uint32_t *frame_from, uint32_t *nsites)
{
	uint32_t ord = 0;
	int rc;
	memset(site, 0, n * sizeof(*site));
	memset(apart, 0, n);
	*frame_from = 1, *nsites = 0;
	if (!n)
		return ND_OK;
	int named = 0;
	if (db && (rc = nd_xdb_names_sites(db, &named)) < 0)
		return rc;
	if (named && ((rc = sites_by(db, "H", docs, n, site, &ord)) < 0 ||
		      (rc = sites_by(db, "J", docs, n, site, &ord)) < 0))
		return rc;
	*frame_from = ord + 1;
	rc = sites_by_frame(rs, n, site, apart, &ord);
	*nsites = ord;
	return rc;
}

/* Components of the pairs whose GROUP byte has a bit of mask, each
 * document's root in (*out)[i] (caller frees). */
static int components_of(size_t n, const uint64_t *pairs, const uint8_t *same, size_t np, uint8_t mask,
			 uint32_t **out)
{
	int rc = nd__components(n, pairs, NULL, same, mask, np, 0, out);
	for (size_t i = 0; rc == ND_OK && i < n; i++)
		(*out)[i] = nd__root(*out, (uint32_t)i);
	return rc;
}

/* A pair as one key, the lower document first. */
static uint64_t pair_key(uint32_t x, uint32_t y)
{
	return x < y ? (uint64_t)x << 32 | y : (uint64_t)y << 32 | x;
}

/* Whether x and y are a pair among the sorted keys k[0..n). */
static int linked(const uint64_t *k, size_t n, uint32_t x, uint32_t y)
{
	return nd__in_sorted_u64(k, n, pair_key(x, y));
}

/* The held one of a pair the GROUP score calls SAME_HELD: the shorter,
 * whose smaller sample nd__rec_contained_floor measured. */
static uint32_t held_of(const nd__recset *rs, uint64_t pair)
{
	uint32_t x = (uint32_t)(pair >> 32), y = (uint32_t)pair;
	return nd__recset_get(rs, x)->nshingles <= nd__recset_get(rs, y)->nshingles ? x : y;
}

/* Whether holders x and y are versions of each other: linked (a pair of
 * key[0..nv)), joined in up through pages that no page holds, or one kin
 * (copies of one text, each edited in places of its own: each holds
 * others, and a candidate pair links few two by two). */
static int held_versions(uint32_t *up, const uint64_t *key, size_t nv, const uint32_t *kin, uint32_t x,
			 uint32_t y)
{
	return nd__root(up, x) == nd__root(up, y) || linked(key, nv, x, y) || kin[x] == kin[y];
}

/* The versions of each site's pages, each document's root in (*out)[i]:
 * pages alike (SAME_VERSION), and a page that another holds nearly whole
 * (SAME_HELD: its print version).  A page held by two pages that are not
 * versions of each other is its site's template and little else (not
 * found, no results, log in): held by, and alike to, every page of its
 * site, it would make them all one version, whose template is then no
 * one's.  Its links are dropped, and so are those of two pages alike to
 * each other that two such pages hold.  (Of the pages holding one, each
 * next two in order are asked; three versions of one text, each edited,
 * need not be alike two by two, but none holds another.)  Two holders are
 * versions of each other when linked, or joined through versions that no
 * page holds: the pages a template's specializations are (one class page
 * for each type, two releases of each), alike along a chain and not two
 * by two, are one version, but a page that every page holds joins none. */
static int site_versions(const nd__recset *rs, size_t n, const uint64_t *pairs, uint8_t *same, size_t np,
			 const uint32_t *kin, uint32_t **out)
{
	const uint8_t link = SAME_VERSION | SAME_HELD;
	size_t nv = 0, nh = 0;
	for (size_t k = 0; k < np; k++)
		nv += (same[k] & link) != 0, nh += (same[k] & SAME_HELD) != 0;
	uint64_t *key = malloc((nv + 1) * sizeof(*key));
	uint32_t *at = calloc(n + 2, sizeof(*at)), *by = malloc((nh + 1) * sizeof(*by));
	uint32_t *up = malloc((n + 1) * sizeof(*up));
	uint8_t *hub = calloc(n + 1, 1);
	int rc = ND_OK;
	if (!key || !at || !by || !hub || !up) {
		rc = nd_error_set(ND_ENOMEM, "out of memory for %zu versions", nv);
		goto done;
	}
	nv = 0;
	for (size_t k = 0; k < np; k++) {
		if (same[k] & link)
			key[nv++] = pair_key((uint32_t)(pairs[k] >> 32), (uint32_t)pairs[k]);
		if (same[k] & SAME_HELD)
			at[held_of(rs, pairs[k]) + 2]++;
	}
	nd__sort_u64(key, nv);
	for (size_t i = 2; i < n + 2; i++) /* the pages holding p at by[at[p + 1]..) while filling */
		at[i] += at[i - 1];
	for (size_t k = 0; k < np; k++)
		if (same[k] & SAME_HELD) {
			uint32_t p = held_of(rs, pairs[k]), x = (uint32_t)(pairs[k] >> 32);
			by[at[p + 1]++] = p == x ? (uint32_t)pairs[k] : x;
		}
	/* Versions through pages that no page holds (none held: nothing to
	 * ask, the common case at scale). */
	for (size_t i = 0; nh && i < n; i++)
		up[i] = (uint32_t)i;
	for (size_t k = 0; nh && k < np; k++) {
		uint32_t x = (uint32_t)(pairs[k] >> 32), y = (uint32_t)pairs[k];
		if ((same[k] & link) && at[x] == at[x + 1] && at[y] == at[y + 1])
			nd__join(up, x, y);
	}
	for (size_t p = 0; p < n; p++)
		for (uint32_t i = at[p]; i + 1 < at[p + 1] && !hub[p]; i++)
			hub[p] = !held_versions(up, key, nv, kin, by[i], by[i + 1]);
	/* Two such pages alike to each other, each held by one page, the two
	 * not versions: excerpts of two articles, each mostly the template. */
	for (size_t k = 0; k < np; k++) {
		uint32_t x = (uint32_t)(pairs[k] >> 32), y = (uint32_t)pairs[k];
		if ((same[k] & SAME_VERSION) && at[x] < at[x + 1] && at[y] < at[y + 1] && by[at[x]] != by[at[y]] &&
		    !held_versions(up, key, nv, kin, by[at[x]], by[at[y]]))
			hub[x] = hub[y] = 1;
	}
	for (size_t k = 0; k < np; k++)
		if ((same[k] & link) && (hub[pairs[k] >> 32] || hub[(uint32_t)pairs[k]]))
			same[k] &= (uint8_t)~link;
	rc = components_of(n, pairs, same, np, SAME_GROUP | link, out);
done:
	free(key);
	free(at);
	free(by);
	free(up);
	free(hub);
	return rc;
}

/* The sites whose pages count toward one template: a host's pages by
 * their frame (first and last words), when half of them share one.  A
 * page under another template than its site's (crawled again after a
 * redesign, an AMP page) holds its article, which the page holds under
 * the site's template too: two versions, yet not a template.  A page
 * whose frame no other page of its host has counts toward none; a host
 * whose pages share no frame (extraction left each its title at an end)
 * is one site, as are sites told by a frame.  site[0..n) is renumbered in
 * place, host sites first, *frame_from moved to where frame sites now
 * start. */
static int template_sites(const nd__recset *rs, uint32_t *site, uint32_t *frame_from, size_t n)
{
	uint64_t *key = malloc((n + 1) * sizeof(*key)), *sorted = malloc((n + 1) * sizeof(*sorted));
	uint32_t *framed = calloc(2 * ((size_t)*frame_from + 1), sizeof(*framed));
	uint32_t *ord = NULL, next = 0;
	size_t m = 0, u = 0;
	int rc = ND_OK;
	if (!key || !sorted || !framed) {
		rc = nd_error_set(ND_ENOMEM, "out of memory for the frames of %zu documents", n);
		goto done;
	}
	/* Each host page's (site, frame) as one hash; 0 without a frame. */
	uint32_t tile = UINT32_MAX;
	for (size_t i = 0; i < n; i++) {
		nd__recset_walked(rs, i, &tile);
		uint64_t fr = site[i] && site[i] < *frame_from ? nd__recset_get(rs, i)->frame : 0;
		key[i] = fr ? nd_mix64(fr ^ (uint64_t)site[i] * 0x9E3779B97F4A7C15ull) | 1 : 0;
		if (key[i])
			sorted[m++] = key[i];
	}
	nd__sort_u64(sorted, m);
	/* The frames two pages or more share, each once, and their hosts. */
	for (size_t i = 0; i < m; i++)
		if (i + 1 < m && sorted[i + 1] == sorted[i] && (!u || sorted[u - 1] != sorted[i]))
			sorted[u++] = sorted[i];
	if (!(ord = calloc(u + 1, sizeof(*ord)))) {
		rc = nd_error_set(ND_ENOMEM, "out of memory for %zu frames", u);
		goto done;
	}
	for (size_t i = 0; i < n; i++) {
		if (!key[i])
			continue; /* no host, or no frame */
		size_t at = nd__lower_bound_u64(sorted, u, key[i]);
		framed[2 * site[i] + 1]++; /* pages with a frame, */
		if (at < u && sorted[at] == key[i])
			framed[2 * site[i]]++, key[i] = at + 1; /* and shared: its place, from 1 */
		else
			key[i] = 0;
	}
	/* A host is told by its frames when half its pages share them: two
	 * copies of one page share theirs on any host. */
	for (uint32_t s = 1; s < *frame_from; s++)
		framed[2 * s] = framed[2 * s] && 2 * framed[2 * s] >= framed[2 * s + 1];
	/* New ordinals in the pages' order: a framed host's pages by frame
	 * (none for a lone frame), any other host as it was, then frames. */
	uint32_t *host = calloc((size_t)*frame_from + 1, sizeof(*host));
	if (!host) {
		rc = nd_error_set(ND_ENOMEM, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t s = site[i];
		if (!s || s >= *frame_from)
			continue;
		uint32_t *o = framed[2 * s] ? (key[i] ? &ord[key[i] - 1] : NULL) : &host[s];
		if (o && !*o)
			*o = ++next;
		key[i] = o ? *o : 0;
	}
	free(host);
	for (size_t i = 0; i < n; i++)
		if (site[i])
			site[i] = site[i] < *frame_from ? (uint32_t)key[i] : site[i] - *frame_from + next + 1;
	*frame_from = next + 1;
done:
	free(key);
	free(sorted);
	free(framed);
	free(ord);
	return rc;
}

/* A family (fam[i]: each document's root) of more than ND_KIN_FAMILY
 * groups of up is one text copied and edited in each copy: its groups
 * become one (each member's root its family's).  *joined (may be NULL):
 * whether any did. */
static int join_families(size_t n, const uint32_t *fam, uint32_t *up, int *joined)
{
	uint32_t *groups = calloc(n + 1, sizeof(*groups));
	if (!groups)
		return nd_error_set(ND_ENOMEM, "out of memory for the kin of %zu documents", n);
	for (size_t i = 0; i < n; i++)
		groups[fam[i]] += up[i] == i;
	for (size_t i = 0; i < n; i++)
		if (groups[fam[i]] > ND_KIN_FAMILY && up[i] != fam[i]) {
			up[i] = fam[i];
			if (joined)
				*joined = 1;
		}
	free(groups);
	return ND_OK;
}

/* The count over the groups of up (each document's root, a group's the
 * smallest index): its representatives' shingles, with the sites of
 * site[0..n) (0: none; frames from frame_from), each document's version
 * on its site (ver, or NULL) and kin. */
static int count_groups(const nd__recset *rs, size_t n, const uint32_t *up, const uint32_t *site, const uint8_t *apart,
			uint32_t frame_from, uint32_t nsites, size_t pages, const uint32_t *ver, const uint32_t *kin,
			unsigned jobs, nd__common **out)
{
	uint32_t *reps = calloc(n + 1, sizeof(*reps)), *rkin = calloc(n + 1, sizeof(*rkin));
	uint32_t *rver = ver ? malloc((n + 1) * sizeof(*rver)) : NULL, *gsite = NULL;
	uint8_t *rapart = NULL;
	size_t nreps = 0;
	int rc = ND_OK;
	*out = NULL;
	if (!reps || !rkin || (ver && !rver)) {
		rc = nd_error_set(ND_ENOMEM, "out of memory for the groups of %zu documents", n);
		goto done;
	}
	for (size_t i = 0; i < n; i++)
		if (up[i] == i && nd__recset_get(rs, i)->nwords)
			reps[nreps++] = (uint32_t)i;
	/* The groups' sites apart (each page's floor reads its own), those
	 * that count toward a template. */
	uint32_t tframe_from = frame_from;
	if (pages) {
		if (!(gsite = malloc((n + 1) * sizeof(*gsite)))) {
			rc = nd_error_set(ND_ENOMEM, "out of memory for the sites of %zu documents", n);
			goto done;
		}
		memcpy(gsite, site, n * sizeof(*gsite));
		if ((rc = template_sites(rs, gsite, &tframe_from, n)) < 0)
			goto done;
		if (apart && !(rapart = malloc(n + 1))) {
			rc = nd_error_set(ND_ENOMEM, "out of memory for the sites of %zu documents", n);
			goto done;
		}
	}
	for (size_t r = 0; r < nreps; r++) { /* reps ascend: r <= reps[r] */
		if (gsite)
			gsite[r] = gsite[reps[r]];
		if (rapart)
			rapart[r] = apart[reps[r]];
		rkin[r] = kin[reps[r]];
		if (rver)
			rver[r] = ver[reps[r]];
	}
	rc = nd__common_build(rs, reps, gsite, tframe_from, rver, rapart, rkin, nreps, jobs, out);
	if (rc == ND_OK) /* ordinals are given to sites with pages among docs or not */
		nd__common_set_sites(*out, frame_from - 1, nsites - (frame_from - 1), pages);
	if (rc == ND_OK && pages)
		rc = nd__common_floors(*out, rs, site, n);
	if (rc < 0) {
		nd__common_free(*out);
		*out = NULL;
	}
done:
	free(reps);
	free(rkin);
	free(rver);
	free(gsite);
	free(rapart);
	return rc;
}

/* Copies of one text, each edited in places of its own, may be too far
 * apart to be kin (three words of 100 replaced in each: plain resemblance
 * about 0.7) and then are as many groups, their text common.  Near pairs
 * (near[0..nnear), ascending: plain resemblance ND_SITE_VERSION, not of
 * one site, a site's versions being its own) that the count now shows to
 * be such copies join kin; a kin of more than ND_KIN_FAMILY groups so
 * made becomes one group in up.  *joined: whether any did. */
static int edited_families(const nd__recset *rs, const nd__common *c, const uint32_t *kin, uint32_t *up,
			   const uint64_t *near, size_t nnear, size_t n, const nd_near_options *o, int *joined)
{
	uint32_t *fam = malloc((n + 1) * sizeof(*fam));
	uint8_t *yes = malloc(nnear + 1);
	int any = 0, rc;
	*joined = 0;
	if (!fam || !yes) {
		rc = nd_error_set(ND_ENOMEM, "out of memory for the kin of %zu documents", n);
		goto done;
	}
	if ((rc = score_pairs(rs, c, near, nnear, NULL, yes, SCORE_EDITED, NULL, o)) < 0)
		goto done;
	memcpy(fam, kin, n * sizeof(*fam)); /* each a root or pointing at one */
	for (size_t k = 0; k < nnear; k++)
		if (yes[k])
			nd__join(fam, (uint32_t)(near[k] >> 32), (uint32_t)near[k]), any = 1;
	for (size_t i = 0; any && i < n; i++)
		fam[i] = nd__root(fam, (uint32_t)i);
	if (any)
		rc = join_families(n, fam, up, joined);
done:
	free(fam);
	free(yes);
	return rc;
}

/* Whether the n pages of one frame, rs in docid order, hold two framed
 * apart, asked as sites_by_frame asks a frame's pages. */
static int frame_pages_apart(const nd__recset *rs, size_t n)
{
	size_t k = n < FRAME_APART_ASKED ? n : FRAME_APART_ASKED;
	uint64_t idx[FRAME_APART_ASKED];
	for (size_t i = 0; i < k; i++)
		idx[i] = i;
	return frame_apart(rs, idx, k);
}

/* Groups of near-identical documents, whose representatives (smallest
 * index) count the collection's common shingles: plain resemblance >=
 * ND_GROUP_RESEMBLANCE over the candidate pairs.  With sites, the
 * versions of a page on its site too: pages of one site of plain
 * resemblance >= ND_SITE_VERSION are one version, whose text is not the
 * site's template.  And each group's kin (ND_KIN_RESEMBLANCE), by which
 * the filter of own text is counted; kin of many groups are one group
 * (join_families), and so are copies edited too far apart for kin, once
 * the count shows them (edited_families: then counted again).  The pairs
 * *pairsp are freed once read, *pairsp NULL (on success). */
static int fresh_common(nd_xdb *db, const nd_docid *docs, const nd__recset *rs, size_t n, uint64_t **pairsp,
			size_t np, const nd_near_options *o, int one_site, nd__common **out)
{
	const uint64_t *pairs = *pairsp;
	uint8_t *same = malloc(np + 1);
	uint32_t *up = NULL, *site = malloc((n + 1) * sizeof(*site)), *ver = NULL, *kin = NULL;
	uint8_t *apart = calloc(n + 1, 1);
	uint64_t *near = NULL;
	uint32_t frame_from = 1, nsites = 0;
	size_t pages = 0, nnear = 0;
	int rc, joined = 0;
	*out = NULL;
	if (!same || !site || !apart) {
		free(same);
		free(site);
		free(apart);
		return nd_error_set(ND_ENOMEM, "out of memory for %zu candidate pairs", np);
	}
	if (one_site) { /* one site's pages, all of them: a host's (1) or a frame's (2; 3 framed apart) */
		for (size_t i = 0; i < n; i++)
			site[i] = 1, frame_from = one_site >= 2 ? 1 : 2, nsites = 1;
		memset(apart, one_site == 3, n);
	} else if ((rc = sites_of(db, rs, docs, n, site, apart, &frame_from, &nsites)) < 0)
		goto done;
	for (size_t i = 0; i < n; i++)
		pages += site[i] != 0;
	if ((rc = score_pairs(rs, NULL, pairs, np, NULL, same, SCORE_GROUP, pages ? site : NULL, o)) < 0)
		goto done;
	if ((rc = components_of(n, pairs, same, np, SAME_GROUP | SAME_KIN, &kin)) < 0 ||
	    (pages && (rc = site_versions(rs, n, pairs, same, np, kin, &ver)) < 0) ||
	    (rc = components_of(n, pairs, same, np, SAME_GROUP, &up)) < 0 || (rc = join_families(n, kin, up, NULL)) < 0)
		goto done;
	for (size_t k = 0; k < np; k++)
		nnear += (same[k] & SAME_NEAR) && kin[pairs[k] >> 32] != kin[(uint32_t)pairs[k]];
	if (nnear && !(near = malloc(nnear * sizeof(*near)))) {
		rc = nd_error_set(ND_ENOMEM, "out of memory for %zu near pairs", nnear);
		goto done;
	}
	nnear = 0;
	for (size_t k = 0; near && k < np; k++)
		if ((same[k] & SAME_NEAR) && kin[pairs[k] >> 32] != kin[(uint32_t)pairs[k]])
			near[nnear++] = pairs[k];
	/* The count was sign's peak at 1M: the groups are known, so what
	 * made them goes first, the pairs too (55 MB and 440 MB there;
	 * cluster_near walks them again, 4-5 s of the links' two minutes). */
	free(same);
	same = NULL;
	free(*pairsp);
	*pairsp = NULL;
	pairs = NULL;
	if ((rc = count_groups(rs, n, up, site, apart, frame_from, nsites, pages, ver, kin, o->jobs, out)) < 0 || !nnear ||
	    (rc = edited_families(rs, *out, kin, up, near, nnear, n, o, &joined)) < 0 || !joined)
		goto done;
	nd__common_free(*out);
	rc = count_groups(rs, n, up, site, apart, frame_from, nsites, pages, ver, kin, o->jobs, out);
done:
	if (rc < 0) {
		nd__common_free(*out);
		*out = NULL;
	}
	free(same);
	free(up);
	free(near);
	free(site);
	free(apart);
	free(ver);
	free(kin);
	return rc;
}

/* The pairs of a site's pages docs[0..n) (ascending) its count reads, as
 * indexes: every pair of a small site; of a larger one, as the
 * collection's count has them, those near in the near-neighbour index. */
#define SITE_ALL_PAIRS 256
static int site_pairs(nd_store_txn *txn, const nd_docid *docs, size_t n, uint64_t **out, size_t *np)
{
	size_t cap = n <= SITE_ALL_PAIRS ? n * (n - 1) / 2 : n * 2 * ND_NEAR_WINDOW * ND_NEAR_TREES;
	uint64_t *v = malloc((cap + 1) * sizeof(*v));
	int rc = ND_OK;
	*out = NULL, *np = 0;
	if (!v)
		return nd_error_set(ND_ENOMEM, "out of memory for the pairs of %zu pages", n);
	size_t m = 0;
	for (size_t i = 0; i < n && rc == ND_OK; i++) {
		if (n <= SITE_ALL_PAIRS) {
			for (size_t j = i + 1; j < n; j++)
				v[m++] = (uint64_t)i << 32 | j;
			continue;
		}
		nd_docid *near;
		size_t nn;
		if ((rc = nd__links_neighbours(txn, docs[i], &near, &nn)) < 0)
			break;
		for (size_t k = 0; k < nn && m < cap; k++) {
			size_t j = nd__lower_bound_u32(docs, n, near[k]);
			if (j < n && docs[j] == near[k] && j != i)
				v[m++] = i < j ? (uint64_t)i << 32 | j : (uint64_t)j << 32 | i;
		}
		free(near);
	}
	if (rc < 0) {
		free(v);
		return rc;
	}
	*out = v, *np = n <= SITE_ALL_PAIRS ? m : nd__sort_unique_u64(v, m);
	return ND_OK;
}

int nd__site_template(nd_store_txn *txn, const nd_docid *docs, size_t n, int by_frame, nd__site_tpl *t)
{
	nd_near_options o = ND_NEAR_OPTIONS_INIT;
	nd__recset *rs = NULL;
	nd__common *c = NULL;
	uint64_t *pairs = NULL;
	size_t np = 0;
	int rc;
	memset(t, 0, sizeof(*t));
	if (n < (by_frame ? ND_FRAME_END_GROUPS : ND_SITE_GROUPS))
		return ND_OK;
	if ((rc = site_pairs(txn, docs, n, &pairs, &np)) < 0)
		return rc;
	o.jobs = 1;
	if ((rc = nd__recset_load(txn, docs, n, NULL, 1, &rs)) < 0)
		goto done;
	/* As sites_by_frame: too few pages of a frame, none framed apart, are no site. */
	int apart = by_frame && frame_pages_apart(rs, n);
	if (by_frame && n < ND_FRAME_GROUPS && !apart)
		goto done;
	if ((rc = fresh_common(NULL, docs, rs, n, &pairs, np, &o, by_frame ? 2 + apart : 1, &c)) < 0 ||
	    (rc = nd__common_entries(c, &t->h, &t->g, &t->n)) < 0)
		goto done;
	const uint8_t *f;
	nd__common_floor_entries(c, &f, &t->nfloors);
	if (t->nfloors && !(t->floors = malloc(t->nfloors * ND_FLOOR_BYTES))) {
		rc = nd_error_set(ND_ENOMEM, "out of memory");
		goto done;
	}
	if (t->nfloors)
		memcpy(t->floors, f, t->nfloors * ND_FLOOR_BYTES);
done:
	if (rc < 0)
		nd__site_tpl_free(t);
	nd__common_free(c);
	nd__recset_free(rs);
	free(pairs);
	return rc;
}

/* Story: average linkage over the plain resemblance of the proposed
 * pairs (a pair the index did not propose counting 0, except between
 * large tentative clusters, whose averages are completed), then every
 * pair the copy verdict accepts joins its two story clusters: a story
 * holds every copy of its members, however many there are (averages over
 * a family of thousands fall below any cut). */
typedef struct {
	pair_walk w;           /* the batch being scored */
	const nd__recset *rs;
	const nd__common *common;
	unsigned jobs;
	float *out;
} fresh_ctx;

static int fresh_share(void *vctx, unsigned t, uint32_t from, uint32_t to)
{
	fresh_ctx *f = vctx;
	(void)t;
	for (uint32_t k = from; k < to; k++) {
		size_t i = walk_at(&f->w, k);
		prefetch_ahead(f->rs, &f->w, k, to, 128, 0, NULL);
		const nd__rec *a = nd__recset_get(f->rs, f->w.pairs[i] >> 32);
		const nd__rec *b = nd__recset_get(f->rs, (uint32_t)f->w.pairs[i]);
		f->out[i] = a->nwords && b->nwords ? nd__rec_story_score(a, b, f->common) : 0.0f;
	}
	return ND_OK;
}

/* nd_score_pairs_fn for completed averages (pair ascending), from the
 * records, on every core (a family of thousands completes millions of
 * pairs). */
static int score_fresh(const uint64_t *pair, size_t n, float *out, void *vctx)
{
	fresh_ctx *f = vctx;
	f->w.pairs = pair, f->out = out;
	return tiled_shares(f->rs, &f->w, n, f->jobs, fresh_share, f);
}

/* *rs is freed (and NULL) once nothing is left to score: the final
 * linkage runs without the records. */
static int story(nd__recset **rsp, const nd__common *common, size_t n, uint64_t **pairs, size_t *np,
		 const nd_near_options *o, size_t *into, nd_near_stats *stats)
{
	uint8_t *copy = malloc(*np + 1);
	float *res = malloc((*np + 1) * sizeof(*res));
	uint32_t *up = NULL;
	int rc;

	if (!copy || !res) {
		rc = nd_error_set(ND_ENOMEM, "out of memory for %zu candidate pairs", *np);
		goto done;
	}
	const nd__recset *rs = *rsp;
	/* Story resemblance and copy verdict of every pair, one merge each. */
	if ((rc = score_pairs(rs, common, *pairs, *np, res, copy, SCORE_STORY, NULL, o)) < 0)
		goto done;
	/* The copy verdict's components, before completion adds pairs. */
	if ((rc = nd__components(n, *pairs, NULL, copy, 0xff, *np, 0, &up)) < 0)
		goto done;
	free(copy);
	copy = NULL;
	/* Pairs sharing nothing can neither join nor link: dropped. */
	size_t kept = 0;
	for (size_t i = 0; i < *np; i++)
		if (res[i] > 0)
			(*pairs)[kept] = (*pairs)[i], res[kept++] = res[i];
	*np = kept;
	/* Their room too (45% of the candidates at 1M documents, 290 MB),
	 * or the linkage runs beside it. */
	uint64_t *fewer = realloc(*pairs, (kept + 1) * sizeof(**pairs));
	float *less = realloc(res, (kept + 1) * sizeof(*res));
	if (fewer)
		*pairs = fewer;
	if (less)
		res = less;
	if (stats)
		stats->pairs += kept;
	if (o->complete) {
		fresh_ctx f = {{NULL, NULL, 0}, rs, common, o->jobs, NULL};
		size_t added = 0;
		if ((rc = nd_linkage_complete(n, pairs, &res, np, o->cut, (size_t)o->complete * n,
					      ND_NEAR_COMPLETE_DOCS, score_fresh, &f, &added)) < 0)
			goto done;
		if (stats)
			stats->completed += added;
	}
	nd__recset_free(*rsp);
	*rsp = NULL;
	if ((rc = nd_linkage_sparse(n, *pairs, res, *np, o->cut, into, stats ? &stats->linked : NULL)) < 0)
		goto done;
	for (size_t i = 0; i < n; i++)
		nd__join(up, (uint32_t)i, (uint32_t)into[i]);
	for (size_t i = 0; i < n; i++)
		into[i] = nd__root(up, (uint32_t)i);
done:
	free(copy);
	free(res);
	free(up);
	return rc;
}

typedef int (*pair_fn)(nd_docid a, nd_docid b, void *ctx);

typedef struct {
	const nd__recset *rs;
	const nd__common *common;
} split_ctx;

static int split_copy(uint32_t a, uint32_t b, void *ctx)
{
	const split_ctx *s = ctx;
	const nd__rec *x = nd__recset_get(s->rs, a), *y = nd__recset_get(s->rs, b);
	return x->nwords && y->nwords && nd__rec_verdict(ND_POINT_COPY, x, y, s->common, NULL, NULL) == 1;
}

static int split_dist(uint32_t a, uint32_t b, double *d, void *ctx)
{
	const split_ctx *s = ctx;
	nd_verify_how how;
	int rc = nd__rec_verdict(ND_POINT_COPY, nd__recset_get(s->rs, b), nd__recset_get(s->rs, a), s->common, &how, d);
	return rc < 0 ? rc : ND_OK;
}

/* nd_cluster_near; with link (may be NULL; single only), also every pair
 * linked; with common_out (rule_links), the collection's common shingles
 * are counted afresh from these records, used, and handed back. */
static int cluster_near(nd_xdb *db, nd_store *st, const nd_near_options *opts, nd_point point,
			const nd_docid *docs, size_t n, size_t *into, nd_near_stats *stats, pair_fn link,
			void *link_ctx, nd__common **common_out)
{
	nd_near_options o = ND_NEAR_OPTIONS_INIT;
	uint64_t *pairs = NULL;
	size_t np = 0;
	nd_store_txn *txn = NULL;
	nd__recset *rs = NULL;
	nd__common *common = NULL;
	uint32_t *up = NULL;
	float *score = NULL;
	uint8_t *yes = NULL;
	int rc = ND_OK;

	if (opts)
		o = *opts;
	if (!(o.cut > 0 && o.cut <= 1))
		return nd_error_set(ND_EINVAL, "the cut must be in (0, 1], not %g", o.cut);
	if (o.jobs == 0 || o.jobs > 64)
		return nd_error_set(ND_EINVAL, "jobs must be 1..64, not %u", o.jobs);
	if (n >= UINT32_MAX)
		return nd_error_set(ND_EINVAL, "too many documents to cluster at once (%zu)", n);
	for (size_t i = 0; i < n; i++)
		into[i] = i;
	if (n == 0)
		return ND_OK;
	for (size_t i = 1; i < n; i++)
		if (docs[i] <= docs[i - 1])
			return nd_error_set(ND_EINVAL, "documents to cluster must be in ascending docid order");

	/* Candidate pairs and records, from one snapshot. */
	if ((rc = nd_store_read_begin(st, &txn)) < 0)
		goto done;
	rc = candidate_pairs(txn, docs, n, o.jobs, &pairs, &np);
	nd__store_release_pages(st); /* the index is walked */
	if (rc < 0)
		goto done;
	if (stats)
		stats->candidates += np;
	if ((rc = nd__recset_load(txn, docs, n, nd_store_path(st), o.jobs, &rs)) < 0)
		goto done;
	if (stats)
		stats->words_bytes += nd__recset_bytes(rs);
	rc = common_out ? fresh_common(db, docs, rs, n, &pairs, np, &o, 0, &common) : nd__common_load(txn, &common);
	if (rc == ND_OK && np && !pairs) /* given back to the count: the same snapshot walked again */
		rc = candidate_pairs(txn, docs, n, o.jobs, &pairs, &np);
	if (rc == ND_OK)
		rc = nd__common_own(common); /* used past the transaction */
	if (rc == ND_OK)
		rc = nd__common_index(common, SIZE_MAX);
	nd_store_txn_end(txn);
	txn = NULL;
	nd__store_release_pages(st); /* the records are copied out */
	/* Buckets only for the copy verdict's bounded merges: story merges
	 * every pair to the end. */
	if (rc < 0 || (rc = nd__recset_weigh(rs, common, o.jobs, o.single && point == ND_POINT_COPY)) < 0)
		goto done;

	if (!o.single) {
		rc = story(&rs, common, n, &pairs, &np, &o, into, stats);
		goto done;
	}
	/* Single linkage is a point's clusters decided pair by pair: the
	 * components of the pairs its verdict accepts. */
	if (point == ND_POINT_STRICT ? !(score = malloc((np + 1) * sizeof(*score))) : !(yes = malloc(np + 1))) {
		rc = nd_error_set(ND_ENOMEM, "out of memory for %zu candidate pairs", np);
		goto done;
	}
	if (point == ND_POINT_STRICT) {
		if ((rc = score_pairs(rs, common, pairs, np, score, NULL, SCORE_PLAIN, NULL, &o)) < 0 ||
		    (rc = judge_strict(db, docs, pairs, np, score, o.jobs)) < 0)
			goto done;
	} else if ((rc = score_pairs(rs, common, pairs, np, NULL, yes, SCORE_COPY, NULL, &o)) < 0)
		goto done;
	for (size_t i = 0; i < np && rc == ND_OK; i++)
		if (score ? score[i] >= 1 : yes[i]) {
			if (stats)
				stats->linked++, stats->pairs++;
			if (link)
				rc = link(docs[pairs[i] >> 32], docs[(uint32_t)pairs[i]], link_ctx);
		}
	if (rc < 0)
		goto done;
	/* Strict's pairs are near enough that their components stay near;
	 * copy's are split where they chain, as the links' clusters are. */
	if (point == ND_POINT_STRICT) {
		if ((rc = nd__components(n, pairs, score, yes, 0xff, np, 1, &up)) < 0)
			goto done;
		for (size_t i = 0; i < n; i++)
			into[i] = nd__root(up, (uint32_t)i);
	} else {
		if (!(up = malloc((n + 1) * sizeof(*up)))) {
			rc = nd_error_set(ND_ENOMEM, "out of memory");
			goto done;
		}
		split_ctx sc = {rs, common};
		if ((rc = nd__split_pairs(n, pairs, yes, np, split_copy, split_dist, &sc, up)) < 0)
			goto done;
		for (size_t i = 0; i < n; i++)
			into[i] = up[i];
	}
done:
	nd_store_txn_end(txn);
	if (common_out && rc == ND_OK)
		*common_out = common, common = NULL;
	nd__common_free(common);
	nd__recset_free(rs);
	free(up);
	free(score);
	free(yes);
	free(pairs);
	return rc;
}

int nd__cluster_near_at(nd_xdb *db, nd_store *st, const nd_near_options *opts, nd_point point,
			const nd_docid *docs, size_t n, size_t *into, nd_near_stats *stats)
{
	return cluster_near(db, st, opts, point, docs, n, into, stats, NULL, NULL, NULL);
}

int nd_cluster_near(nd_xdb *db, nd_store *st, const nd_near_options *opts, const nd_docid *docs, size_t n,
		    size_t *into, nd_near_stats *stats)
{
	return cluster_near(db, st, opts, ND_POINT_COPY, docs, n, into, stats, NULL, NULL, NULL);
}

/* ---- links: the copy point's verified pairs, kept in the store ---- */

static int add_link(nd_docid a, nd_docid b, void *ctx)
{
	return nd_u64s_push(ctx, (uint64_t)a << 32 | b);
}

typedef struct {
	const nd_u64s *links;
	size_t from, to;
	int last;
	const nd__common *common; /* stored with the first */
	uint64_t counted[2];      /* ... and what it was counted over */
	uint64_t nlinks;          /* ... and the links made with it */
} write_ctx;

static int write_links(nd_store_txn *txn, void *vctx)
{
	write_ctx *w = vctx;
	int rc = w->from == 0 ? nd_store_links_clear(txn) : ND_OK;
	if (rc == ND_OK && w->from == 0 && w->common) {
		uint64_t none = 0; /* links between two texts made since */
		if ((rc = nd__common_store(txn, w->common)) == ND_OK &&
		    (rc = nd_store_meta_put(txn, ND_META_COMMON_COUNTED, w->counted, sizeof(w->counted))) == ND_OK &&
		    (rc = nd_store_meta_put(txn, ND_META_COMMON_LINKS, &w->nlinks, sizeof(w->nlinks))) == ND_OK)
			rc = nd_store_meta_put(txn, ND_META_COMMON_APART, &none, sizeof(none));
	}
	for (size_t i = w->from; i < w->to && rc == ND_OK; i++)
		rc = nd_store_link_put(txn, (uint32_t)(w->links->v[i] >> 32), (uint32_t)w->links->v[i]);
	if (rc == ND_OK && w->last)
		rc = nd_store_links_settled(txn);
	return rc;
}

/* The rule's links over every record now: *links (ascending, a < b),
 * weighed by the store's common shingles, or (fresh not NULL) by those
 * the records give now, handed back in *fresh with what they were
 * counted over (counted: the documents and the last docid). */
static int rule_links(nd_xdb *db, nd_store *st, const nd_near_options *opts, nd_u64s *links, nd__common **fresh,
		      uint64_t *counted)
{
	nd_near_options o = opts ? *opts : (nd_near_options)ND_NEAR_OPTIONS_INIT;
	nd_docid *ids = NULL;
	size_t *into = NULL, n = 0;
	nd_store_txn *txn;
	int rc;

	o.single = 1;
	/* What signing wrote is on disk: the pages LMDB kept for it are the
	 * links' to use. */
	if ((rc = nd__store_give_back(st)) < 0 || (rc = nd_store_read_begin(st, &txn)) < 0)
		return rc;
	rc = nd__store_docids(txn, &ids, &n);
	nd_store_txn_end(txn);
	if (rc < 0)
		goto done;
	if (!(into = malloc((n + 1) * sizeof(*into)))) {
		rc = nd_error_set(ND_ENOMEM, "out of memory");
		goto done;
	}
	if (counted)
		counted[0] = n, counted[1] = n ? ids[n - 1] : 0;
	if ((rc = cluster_near(db, st, &o, ND_POINT_COPY, ids, n, into, NULL, add_link, links, fresh)) < 0)
		goto done;
	nd__sort_u64(links->v, links->n);
done:
	free(ids);
	free(into);
	return rc;
}

int nd_links_rebuild(nd_xdb *db, nd_store *st, const nd_near_options *opts, uint64_t *nlinks)
{
	return nd__links_rebuild(db, st, opts, nlinks, NULL);
}

int nd__links_rebuild(nd_xdb *db, nd_store *st, const nd_near_options *opts, uint64_t *nlinks,
		      nd_links_report *rep)
{
	nd_u64s links = {NULL, 0, 0};
	nd__common *common = NULL;
	int rc;

	if (nlinks)
		*nlinks = 0;
	/* Made again from every record, the collection's common shingles are
	 * counted again too. */
	uint64_t counted[2] = {0, 0};
	if ((rc = rule_links(db, st, opts, &links, &common, counted)) < 0)
		goto done;
	/* Written in transactions of a million, the first clearing the old
	 * ones (and marking them for a rebuild) and the last settling them:
	 * a killed run is redone by the next writer. */
	const size_t step = (size_t)1 << 20;
	size_t from = 0;
	do {
		size_t to = links.n - from > step ? from + step : links.n;
		write_ctx w = {&links, from, to, to == links.n, common, {counted[0], counted[1]}, links.n};
		if ((rc = nd_store_write(st, write_links, &w)) < 0)
			goto done;
		from = to;
	} while (from < links.n);
	if (nlinks)
		*nlinks = links.n;
	if (rep) {
		nd__sites_seen s = nd__common_sites(common);
		rep->sites = s.hosts, rep->frame_sites = s.frames, rep->site_pages = s.pages, rep->template_shingles = s.template_shingles;
	}
done:
	nd__common_free(common);
	free(links.v);
	return rc;
}

typedef struct {
	nd_u64s *v;
} stored_ctx;

static int add_stored(uint32_t a, uint32_t b, void *ctx)
{
	return a < b ? add_link(a, b, ctx) : 0; /* kept both ways: once */
}

int nd_links_check(nd_xdb *db, nd_store *st, const nd_near_options *opts, uint64_t *missing, uint64_t *extra,
		   uint64_t *nlinks)
{
	nd_u64s rule = {NULL, 0, 0}, have = {NULL, 0, 0};
	nd_store_txn *txn = NULL;
	nd__common *common = NULL;
	nd__site_judge sj;
	int rc;

	memset(&sj, 0, sizeof(sj));
	*missing = *extra = 0;
	if (nlinks)
		*nlinks = 0;
	if ((rc = rule_links(db, st, opts, &rule, NULL, NULL)) < 0 || (rc = nd_store_read_begin(st, &txn)) < 0)
		goto done;
	if ((rc = nd_store_links_each(txn, add_stored, &have)) < 0)
		goto done;
	if (have.n > 1)
		nd__sort_u64(have.v, have.n);
	if ((rc = nd__common_load(txn, &common)) < 0)
		goto done;
	nd__site_judge_init(&sj, txn);
	/* A pair whose sites hooks counted is judged with their templates, as
	 * the hook that linked or unlinked it did (sites.c). */
	for (size_t i = 0, k = 0; i < rule.n || k < have.n;) {
		int miss = k == have.n || (i < rule.n && rule.v[i] < have.v[k]);
		if (!miss && i < rule.n && k < have.n && rule.v[i] == have.v[k]) {
			i++, k++;
			continue;
		}
		uint64_t pair = miss ? rule.v[i++] : have.v[k++];
		int v = nd__site_verdict(&sj, common, (nd_docid)(pair >> 32), (nd_docid)pair);
		if (v < 0) {
			rc = v;
			goto done;
		}
		if (v == 2 || v == miss)
			*(miss ? missing : extra) += 1;
	}
	if (nlinks)
		*nlinks = have.n;
done:
	nd__site_judge_free(&sj);
	nd__common_free(common);
	nd_store_txn_end(txn);
	free(rule.v);
	free(have.v);
	return rc;
}
