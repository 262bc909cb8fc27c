/* Word sequences (stored and rebuilt) and cluster verification. */
#include "tests/test_util.h"
#include "descriptor/verify/verify_internal.h"
#include "neardup/descriptor.h"
#include "neardup/similarity.h"
#include "neardup/tokenizer.h"
#include "neardup/verify.h"
#include "neardup/words.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dir, *dbpath;
static char *base;           /* 100-word base text */
static nd_docid ids[8];      /* docids by role below */

enum { ORIG, ONE_WORD, SAME, FAR, OTHER, BY_HAND, NO_WORDS, NROLES };

/* Index text via the indexer (stored sequence) and return its docid. */
static nd_docid add(nd_indexer *ix, const char *id, const char *text)
{
	nd_docid d;
	assert_int_equal(nd_indexer_add_text(ix, id, text, strlen(text), NULL, NULL), ND_OK);
	assert_int_equal(nd_indexer_commit(ix), ND_OK);
	assert_int_equal(nd_xdb_find_uid(nd_indexer_db(ix), id, &d), ND_OK);
	return d;
}

static int setup(void **state)
{
	(void)state;
	uint64_t rng = 11, e1 = 1, e2 = 2;
	nd_indexer *ix;
	dir = tu_tmpdir();
	dbpath = tu_join(dir, "db");
	base = tu_random_doc(&rng, 100, 2000);
	char *one = tu_edit_doc(&e1, base, 1, 2000);    /* one word substituted */
	char *far = tu_edit_doc(&e2, base, 40, 2000);   /* ~30% substituted */
	char *other = tu_random_doc(&rng, 100, 2000);
	assert_int_equal(nd_indexer_open(&ix, dbpath, NULL), ND_OK);
	ids[ORIG] = add(ix, "orig", base);
	ids[ONE_WORD] = add(ix, "one", one);
	ids[SAME] = add(ix, "same", base);
	ids[FAR] = add(ix, "far", far);
	ids[OTHER] = add(ix, "other", other);

	/* The same text as a foreign indexer would store it: postings with
	 * positions, no sequence slot. */
	nd_tokenizer *tk;
	const nd_token *t;
	size_t n;
	nd_xdb_doc *doc;
	assert_int_equal(nd_tokenizer_new(&tk), ND_OK);
	assert_int_equal(nd_tokenize(tk, base, strlen(base), 0, &t, &n, NULL), ND_OK);
	assert_int_equal(nd_xdb_doc_new(&doc), ND_OK);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(nd_xdb_doc_add_posting(doc, t[i].text, t[i].len, t[i].pos), ND_OK);
	assert_int_equal(nd_xdb_doc_add_boolean(doc, "Qbyhand"), ND_OK);
	assert_int_equal(nd_xdb_replace(nd_indexer_db(ix), "Qbyhand", doc, &ids[BY_HAND]), ND_OK);
	nd_xdb_doc_free(doc);
	nd_tokenizer_free(tk);
	/* A document with no words at all (only its id term). */
	assert_int_equal(nd_xdb_doc_new(&doc), ND_OK);
	assert_int_equal(nd_xdb_doc_add_boolean(doc, "Qempty"), ND_OK);
	assert_int_equal(nd_xdb_replace(nd_indexer_db(ix), "Qempty", doc, &ids[NO_WORDS]), ND_OK);
	nd_xdb_doc_free(doc);
	assert_int_equal(nd_indexer_close(ix), ND_OK);
	free(one);
	free(far);
	free(other);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tu_rmtree(dir);
	free(dir);
	free(dbpath);
	free(base);
	return 0;
}

static void test_words_both_routes(void **state)
{
	(void)state;
	nd_xdb *db;
	uint32_t *stored, *rebuilt;
	size_t ns, nr;
	nd_words_source s1, s2;
	assert_int_equal(nd_xdb_open(&db, dbpath, ND_XDB_READ), ND_OK);
	assert_int_equal(nd_words_get(db, ids[ORIG], &stored, &ns, &s1), ND_OK);
	assert_int_equal(nd_words_get(db, ids[BY_HAND], &rebuilt, &nr, &s2), ND_OK);
	assert_int_equal(s1, ND_WORDS_STORED);
	assert_int_equal(s2, ND_WORDS_POSITIONS);
	assert_int_equal(ns, 100);
	assert_int_equal(nr, ns);
	assert_memory_equal(stored, rebuilt, ns * sizeof(uint32_t));
	free(stored);
	free(rebuilt);
	uint32_t *none;
	size_t nn;
	assert_int_equal(nd_words_get(db, ids[NO_WORDS], &none, &nn, NULL), ND_ENOTFOUND);
	assert_non_null(strstr(nd_error_last(), "no stored word sequence"));
	assert_int_equal(nd_words_get(db, 999, &none, &nn, NULL), ND_ENOTFOUND);
	/* No sequence and no positions, but omindex-style data with a sample. */
	nd_xdb *w;
	nd_xdb_doc *doc;
	nd_docid d;
	nd_words_source src;
	char *p = tu_join(dir, "omindex-like");
	const char *data = "url=http://x/\nsample=The quick brown fox\ncaption=Fox\n";
	assert_int_equal(nd_xdb_open(&w, p, ND_XDB_WRITE), ND_OK);
	assert_int_equal(nd_xdb_doc_new(&doc), ND_OK);
	assert_int_equal(nd_xdb_doc_add_boolean(doc, "Uhttp://x/"), ND_OK);
	assert_int_equal(nd_xdb_doc_set_data(doc, data, strlen(data)), ND_OK);
	assert_int_equal(nd_xdb_replace(w, "Uhttp://x/", doc, &d), ND_OK);
	nd_xdb_doc_free(doc);
	assert_int_equal(nd_xdb_commit(w), ND_OK);
	assert_int_equal(nd_words_get(w, d, &none, &nn, &src), ND_OK);
	assert_int_equal(src, ND_WORDS_DATA);
	assert_int_equal(nn, 4);
	assert_int_equal(none[3], nd_word_id("fox", 3));
	free(none);
	nd_xdb_close(w);
	free(p);
	nd_xdb_close(db);
}

static void test_verify_splits(void **state)
{
	(void)state;
	nd_xdb *db;
	nd_verified v[NROLES];
	nd_verify_stats st = {0};
	uint32_t groups;
	assert_int_equal(nd_xdb_open(&db, dbpath, ND_XDB_READ), ND_OK);
	/* Candidate cluster in docid order (docids were assigned in role order). */
	assert_int_equal(nd_verify_cluster(db, NULL, 0, ids, NROLES, NULL, v, &groups, &st), ND_OK);
	assert_int_equal(v[ORIG].how, ND_VERIFIED_REPRESENTATIVE);
	assert_int_equal(v[ONE_WORD].group, v[ORIG].group);
	assert_int_equal(v[ONE_WORD].how, ND_VERIFIED_RESEMBLANCE);
	assert_true(v[ONE_WORD].distance > 0.02 && v[ONE_WORD].distance < 0.1); /* 3 shingles of 98 */
	assert_int_equal(v[SAME].group, v[ORIG].group);
	assert_true(v[SAME].distance == 0);
	assert_int_equal(v[BY_HAND].group, v[ORIG].group); /* rebuilt sequence, same text */
	assert_int_not_equal(v[FAR].group, v[ORIG].group);
	assert_int_not_equal(v[OTHER].group, v[ORIG].group);
	assert_int_not_equal(v[OTHER].group, v[FAR].group);
	assert_int_equal(v[NO_WORDS].how, ND_VERIFY_NO_WORDS);
	assert_int_equal(groups, 4);
	assert_int_equal(st.no_words, 1);
	assert_int_equal(st.rebuilt, 1);
	/* A stricter bound rejects the one-word edit too (at the strict point;
	 * copy accepts it by resemblance). */
	nd_verify_options o = ND_VERIFY_OPTIONS_INIT;
	o.max_distance = 0.005;
	o.point = ND_POINT_STRICT;
	assert_int_equal(nd_verify_cluster(db, NULL, 0, ids, NROLES, &o, v, &groups, NULL), ND_OK);
	assert_int_not_equal(v[ONE_WORD].group, v[ORIG].group);
	assert_int_equal(v[SAME].group, v[ORIG].group);
	nd_xdb_close(db);
}

static int touch_fn(nd_store_txn *txn, void *ctx)
{
	return nd_store_doc_put(txn, *(nd_docid *)ctx, 123, "\0", 2); /* no bits */
}

/* Results and rebuilt sequences are cached in the store, and dropped when
 * a member's record changes. */
static void test_verify_cache(void **state)
{
	(void)state;
	nd_xdb *db;
	nd_store *st;
	nd_verified v1[NROLES], v2[NROLES];
	nd_verify_stats a = {0}, b = {0}, c = {0};
	uint32_t g1, g2;
	char *sp = tu_join(dir, "cache-store");
	assert_int_equal(nd_xdb_open(&db, dbpath, ND_XDB_READ), ND_OK);
	assert_int_equal(nd_store_open(&st, sp, ND_STORE_WRITE), ND_OK);
	assert_int_equal(nd_verify_cluster(db, st, 123, ids, NROLES, NULL, v1, &g1, &a), ND_OK);
	assert_int_equal(a.cached_clusters, 0);
	assert_true(a.compared > 0);
	assert_int_equal(nd_verify_cluster(db, st, 123, ids, NROLES, NULL, v2, &g2, &b), ND_OK);
	assert_int_equal(b.cached_clusters, 1);
	assert_int_equal(b.compared, 0);
	assert_int_equal(g1, g2);
	for (int i = 0; i < NROLES; i++) {
		assert_int_equal(v1[i].docid, v2[i].docid);
		assert_int_equal(v1[i].group, v2[i].group);
		assert_true(v1[i].distance == v2[i].distance);
	}
	/* Other options: not the cached answer. */
	nd_verify_options o = ND_VERIFY_OPTIONS_INIT;
	o.max_distance = 0.005;
	o.point = ND_POINT_STRICT;
	assert_int_equal(nd_verify_cluster(db, st, 123, ids, NROLES, &o, v2, &g2, &c), ND_OK);
	assert_int_equal(c.cached_clusters, 0);
	assert_int_not_equal(v2[ONE_WORD].group, v2[ORIG].group);
	/* A member's record changes: the cluster is verified afresh, and the
	 * rebuilt sequence of the hand-made document comes from the cache. */
	assert_int_equal(nd_verify_cluster(db, st, 123, ids, NROLES, NULL, v2, &g2, &c), ND_OK);
	memset(&c, 0, sizeof(c));
	assert_int_equal(nd_verify_cluster(db, st, 123, ids, NROLES, NULL, v2, &g2, &c), ND_OK);
	assert_int_equal(c.cached_clusters, 1);
	assert_int_equal(nd_store_write(st, touch_fn, &ids[ONE_WORD]), ND_OK);
	memset(&c, 0, sizeof(c));
	assert_int_equal(nd_verify_cluster(db, st, 123, ids, NROLES, NULL, v2, &g2, &c), ND_OK);
	assert_int_equal(c.cached_clusters, 0);
	assert_true(c.compared > 0);
	assert_int_equal(c.rebuilt, 0);
	assert_int_equal(c.cached_words, 1);
	assert_int_equal(v2[BY_HAND].group, v2[ORIG].group);
	nd_store_close(st);
	nd_xdb_close(db);
	free(sp);
}

static int cached(nd_store *st, uint64_t key)
{
	nd_store_txn *txn;
	const void *v;
	size_t n;
	assert_int_equal(nd_store_read_begin(st, &txn), ND_OK);
	int rc = nd_store_cluster_cache_get(txn, key, &v, &n);
	nd_store_txn_end(txn);
	assert_true(rc == ND_OK || rc == ND_ENOTFOUND);
	return rc == ND_OK;
}

static uint64_t gen_of(nd_store *st)
{
	nd_store_txn *txn;
	uint64_t g;
	assert_int_equal(nd_store_read_begin(st, &txn), ND_OK);
	assert_int_equal(nd_store_records_gen(txn, &g), ND_OK);
	nd_store_txn_end(txn);
	return g;
}

/* A batch writes results when full, flushed or freed, and never writes a
 * result computed before a member's record changed. */
static void test_verify_batch(void **state)
{
	(void)state;
	nd_xdb *db;
	nd_store *st;
	nd_verify_batch *b;
	nd_verified v[NROLES];
	nd_verify_options o = ND_VERIFY_OPTIONS_INIT;
	char *sp = tu_join(dir, "batch-store");
	assert_int_equal(nd_xdb_open(&db, dbpath, ND_XDB_READ), ND_OK);
	assert_int_equal(nd_store_open(&st, sp, ND_STORE_WRITE), ND_OK);
	assert_int_equal(nd_verify_batch_new(&b, st, 2, 0), ND_OK);
	o.batch = b;
	uint64_t g0 = gen_of(st);
	assert_int_equal(nd_verify_cluster(db, st, 7, ids, NROLES, &o, v, NULL, NULL), ND_OK);
	assert_false(cached(st, 7)); /* queued */
	assert_int_equal(nd_verify_batch_flush(b), ND_OK);
	assert_true(cached(st, 7));
	assert_true(gen_of(st) == g0); /* caching changes no record */
	/* Computed, then a member changes before the flush: dropped. */
	assert_int_equal(nd_verify_cluster(db, st, 8, ids, NROLES, &o, v, NULL, NULL), ND_OK);
	assert_int_equal(nd_store_write(st, touch_fn, &ids[ONE_WORD]), ND_OK);
	assert_true(gen_of(st) == g0 + 1);
	assert_int_equal(nd_verify_batch_flush(b), ND_OK);
	assert_false(cached(st, 8));
	/* Two results fill it: written without a flush. */
	assert_int_equal(nd_verify_cluster(db, st, 9, ids, NROLES, &o, v, NULL, NULL), ND_OK);
	assert_false(cached(st, 9));
	assert_int_equal(nd_verify_cluster(db, st, 10, ids, NROLES, &o, v, NULL, NULL), ND_OK);
	assert_true(cached(st, 9) && cached(st, 10));
	assert_int_equal(nd_verify_cluster(db, st, 11, ids, NROLES, &o, v, NULL, NULL), ND_OK);
	nd_verify_batch_free(b);
	assert_true(cached(st, 11));
	/* A byte bound below one result: each is written at once. */
	assert_int_equal(nd_verify_batch_new(&b, st, 100, 1), ND_OK);
	o.batch = b;
	assert_int_equal(nd_verify_cluster(db, st, 12, ids, NROLES, &o, v, NULL, NULL), ND_OK);
	assert_true(cached(st, 12));
	nd_verify_batch_free(b);
	nd_store_close(st);
	nd_xdb_close(db);
	free(sp);
}

/* Unrelated members never make verification all-pairs. */
static void test_verify_bounded(void **state)
{
	(void)state;
	char *p = tu_join(dir, "many");
	nd_indexer *ix;
	nd_docid docs[60];
	uint64_t rng = 3;
	assert_int_equal(nd_indexer_open(&ix, p, NULL), ND_OK);
	for (int i = 0; i < 60; i++) {
		char *t = tu_random_doc(&rng, 50, 5000), id[16];
		snprintf(id, sizeof(id), "u%d", i);
		docs[i] = add(ix, id, t);
		free(t);
	}
	assert_int_equal(nd_indexer_close(ix), ND_OK);
	nd_xdb *db;
	nd_verified v[60];
	nd_verify_stats st = {0};
	nd_verify_options o = ND_VERIFY_OPTIONS_INIT;
	uint32_t groups;
	o.max_leaders = 4;
	assert_int_equal(nd_xdb_open(&db, p, ND_XDB_READ), ND_OK);
	assert_int_equal(nd_verify_cluster(db, NULL, 0, docs, 60, &o, v, &groups, &st), ND_OK);
	assert_int_equal(groups, 60);
	assert_true(st.compared <= 60 * 4);
	assert_int_equal(st.rejected, st.compared);
	nd_xdb_close(db);
	free(p);
}

/* Clusters by average linkage equal a brute-force reference: every pair
 * whose bit sets reach the Jaccard floor (no prefix filtering), scored by
 * 3-shingle resemblance, clustered by a dense UPGMA.  Documents are made
 * of shared paragraphs (six stories of four, plus strays), so resemblances
 * are graded and stories overlap: averaging, not chaining, decides. */
#define LK_DOCS 40
#define LK_PARAS 30

/* The named points: strict within 8%, copy across a template, story on
 * a shared part; each accepts what the stricter one does. */
static void test_points(void **state)
{
	(void)state;
	enum { N = 200, T = 60 };
	uint32_t base[N], edited[N], templ[N + 2 * T], part[N], other[N];
	uint64_t rng = 5;
	for (size_t i = 0; i < N; i++) {
		base[i] = edited[i] = (uint32_t)(1000 + i);
		other[i] = (uint32_t)(900000 + i);
		part[i] = i < 40 ? base[i] : (uint32_t)(500000 + i);
	}
	edited[N / 2] = 7; /* one word changed */
	for (size_t i = 0; i < T; i++) {
		templ[i] = (uint32_t)(700000 + tu_rand(&rng) % 50000);
		templ[T + N + i] = (uint32_t)(800000 + i);
	}
	memcpy(templ + T, base, sizeof(base));
	const struct {
		const uint32_t *b;
		size_t nb;
		int strict, copy, story;
	} cases[] = {
		{edited, N, 1, 1, 1},
		{templ, N + 2 * T, 0, 1, 1},  /* 38% of words added: a template */
		{part, N, 0, 0, 1},           /* a fifth of the text shared */
		{other, N, 0, 0, 0},
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(*cases); k++) {
		const nd_point points[] = {ND_POINT_STRICT, ND_POINT_COPY, ND_POINT_STORY};
		const int want[] = {cases[k].strict, cases[k].copy, cases[k].story};
		for (size_t p = 0; p < 3; p++) {
			nd_verify_options o = ND_VERIFY_OPTIONS_INIT;
			nd_verify_how how;
			double d = -1;
			o.point = points[p];
			int rc = nd_verify_pair(base, N, cases[k].b, cases[k].nb, &o, &how, &d);
			if (rc != want[p])
				fail_msg("case %zu at %s: verdict %d, expected %d (distance %g)", k,
					 nd_point_name(points[p]), rc, want[p], d);
			if (rc && points[p] == ND_POINT_STRICT)
				assert_int_equal(how, ND_VERIFIED_LEVENSHTEIN);
			if (rc && points[p] != ND_POINT_STRICT && how == ND_VERIFIED_RESEMBLANCE)
				assert_true(1 - d >= nd_point_resemblance(points[p]));
			if (rc && points[p] != ND_POINT_STRICT && how != ND_VERIFIED_RESEMBLANCE) {
				/* the template's copy: all of it kept in the page */
				assert_int_equal(how, ND_VERIFIED_CONTAINMENT);
				assert_true(cases[k].b == templ && 1 - d >= ND_POINT_COPY_CONTAINMENT);
			}
		}
	}
	/* The default is copy; names round-trip; unknown ones are refused. */
	nd_verify_options def = ND_VERIFY_OPTIONS_INIT;
	assert_int_equal(def.point, ND_POINT_COPY);
	for (int p = 0; p < 3; p++) {
		nd_point back;
		assert_int_equal(nd_point_parse(nd_point_name((nd_point)p), &back), ND_OK);
		assert_int_equal(back, p);
	}
	nd_point x;
	assert_int_equal(nd_point_parse("loose", &x), ND_EINVAL);
	assert_null(nd_point_name((nd_point)7));
	assert_true(nd_point_resemblance(ND_POINT_STORY) < nd_point_resemblance(ND_POINT_COPY));
}

/* Tagged 3-shingles of a[0..n) (the k-th occurrence of a shingle is a
 * shingle of its own), as sorted (fingerprint, k) pairs: an independent
 * reference for what the records sample. */
typedef struct {
	uint64_t fp;
	uint32_t k;
} tagged;

static int cmp_tagged(const void *x, const void *y)
{
	const tagged *a = x, *b = y;
	if (a->fp != b->fp)
		return a->fp < b->fp ? -1 : 1;
	return a->k < b->k ? -1 : a->k > b->k;
}

static size_t tagged_of(const uint32_t *a, size_t n, tagged *out)
{
	size_t m = n ? (n >= 3 ? n - 2 : 1) : 0;
	for (size_t i = 0; i < m; i++)
		out[i] = (tagged){nd_shingle_fp(a, n, i, 3), 0};
	qsort(out, m, sizeof(*out), cmp_tagged);
	for (size_t i = 1; i < m; i++)
		if (out[i].fp == out[i - 1].fp)
			out[i].k = out[i - 1].k + 1;
	return m;
}

static size_t tagged_common(const tagged *x, size_t nx, const tagged *y, size_t ny)
{
	size_t both = 0;
	for (size_t i = 0, j = 0; i < nx && j < ny;) {
		int c = cmp_tagged(&x[i], &y[j]);
		both += c == 0;
		i += c <= 0, j += c >= 0;
	}
	return both;
}

/* The copy verdict on two texts equals its definition, computed here
 * from their shingles: the same words; or, for texts of ND_REC_SHORT_WORDS
 * or more, tagged 3-shingle resemblance >= the point's, or the shorter
 * (>= ND_CONTAIN_MIN_WORDS words, the longer at most ND_CONTAIN_MAX_RATIO
 * times as long) keeping ND_POINT_COPY_CONTAINMENT of its shingles.
 * Texts under ND_REC_SAMPLE shingles are compared whole, so the answer is
 * exact; strict is word Levenshtein within the bound. */
static void test_points_reference(void **state)
{
	(void)state;
	uint64_t rng = 17;
	uint32_t a[260], b[300];
	tagged ta[260], tb[300];
	int seen[3] = {0, 0, 0}; /* strict, copy only, refused: each exercised */
	int seen_contained = 0;  /* copy by containment alone */
	int seen_part = 0;       /* resemblance enough, but a part of the other */
	for (int k = 0; k < 600; k++) {
		size_t na = 20 + tu_rand(&rng) % 230, nb = 0, edits = tu_rand(&rng) % (na / (k % 3 == 1 ? 16 : 4) + 1);
		for (size_t i = 0; i < na; i++)
			a[i] = (uint32_t)(tu_rand(&rng) % 300) << 1; /* repeats: multisets matter; even: no value */
		/* b: a with edits (substitute, insert, delete), sometimes framed. */
		/* (k % 3 == 1: framed by 40-50% more words, a few edits: where
		 * containment alone decides) */
		size_t frame = k % 3 == 0 ? tu_rand(&rng) % 40 : k % 3 == 1 ? na * 2 / 5 + tu_rand(&rng) % (na / 10 + 1) : 0;
		for (size_t i = 0; i < frame; i++)
			b[nb++] = (uint32_t)(1000 + i) << 1;
		for (size_t i = 0; i < na && nb < 256; i++) {
			uint64_t r = tu_rand(&rng) % na;
			if (r < edits / 3)
				continue;                                   /* delete */
			if (r < 2 * edits / 3)
				b[nb++] = (uint32_t)(tu_rand(&rng) % 300) << 1; /* insert */
			b[nb++] = r < edits ? (uint32_t)(tu_rand(&rng) % 300) << 1 : a[i];
		}
		nd_verify_options o = ND_VERIFY_OPTIONS_INIT;
		double d, lev;
		int exact;
		nd_verify_how how;
		assert_int_equal(nd_levenshtein(a, na, b, nb, o.max_distance, &lev, &exact), ND_OK);
		size_t ma = tagged_of(a, na, ta), mb = tagged_of(b, nb, tb), both = tagged_common(ta, ma, tb, mb);
		double res = (double)both / (double)(ma + mb - both);
		double cont = (double)both / (double)(ma < mb ? ma : mb);
		size_t lo = na < nb ? na : nb, hi = na < nb ? nb : na;
		int contained = lo >= ND_CONTAIN_MIN_WORDS && hi <= ND_CONTAIN_MAX_RATIO * lo &&
				cont >= ND_POINT_COPY_CONTAINMENT;
		/* A short text held in one over 1.5 times as long (by words and
		 * by shingles) is a part of it, whatever resemblance says. */
		size_t slo = ma < mb ? ma : mb, shi = ma < mb ? mb : ma;
		int part = lo < ND_CONTAIN_MIN_WORDS && cont >= ND_POINT_COPY_CONTAINMENT &&
			   hi > ND_CONTAIN_MAX_RATIO * lo && shi > ND_CONTAIN_MAX_RATIO * slo;
		int strict = exact && lev <= o.max_distance;
		int want = (res >= ND_POINT_COPY_RESEMBLANCE && !part) || contained;
		int got = nd_verify_pair(a, na, b, nb, &o, &how, &d);
		seen[strict ? 0 : want ? 1 : 2]++;
		seen_contained += contained && res < ND_POINT_COPY_RESEMBLANCE;
		seen_part += part && res >= ND_POINT_COPY_RESEMBLANCE;
		if (got != want)
			fail_msg("pair %d (%zu, %zu words): verdict %d, resemblance %g, containment %g", k, na, nb, got,
				 res, cont);
		if (got)
			assert_int_equal(how, res >= ND_POINT_COPY_RESEMBLANCE && !part ? ND_VERIFIED_RESEMBLANCE
									   : ND_VERIFIED_CONTAINMENT);
		o.point = ND_POINT_STRICT;
		assert_int_equal(nd_verify_pair(a, na, b, nb, &o, &how, &d), strict);
	}
	/* Containment alone decides in a narrow band (kept 0.8-0.83 of the
	 * shorter's shingles in a text 1.4-1.5 times as long); the cases of
	 * test_values_and_containment pin it down. */
	if (seen_contained < 2)
		fail_msg("only %d pairs copies by containment alone", seen_contained);
	if (seen_part < 2)
		fail_msg("only %d pairs parts of the other", seen_part);
	if (seen[0] < 20 || seen[1] < 20 || seen[2] < 20)
		fail_msg("classes strict %d, copy only %d, refused %d: too few of one", seen[0], seen[1], seen[2]);
}

/* Past ND_REC_SAMPLE shingles a record keeps a sample, and the verdict's
 * resemblance is an estimate: within a few hundredths of the whole
 * texts', so only pairs that close to the point may go either way. */
/* Plain resemblance of two records over the union's sample, counted one
 * by one: each record's samples at or below the lower threshold. */
static double plain_counted(const nd__rec *a, const nd__rec *b)
{
	uint32_t t = a->thr < b->thr ? a->thr : b->thr, ca = 0, cb = 0, shared = 0;
	while (ca < a->nsample && a->sample[ca] <= t)
		ca++;
	while (cb < b->nsample && b->sample[cb] <= t)
		cb++;
	for (uint32_t i = 0, j = 0; i < ca && j < cb;) {
		uint32_t x = a->sample[i], y = b->sample[j];
		shared += x == y;
		i += x <= y, j += y <= x;
	}
	return ca + cb - shared ? (double)shared / (ca + cb - shared) : 0;
}

static void test_sampled_estimate(void **state)
{
	(void)state;
	uint64_t rng = 23;
	enum { N = 3000 };
	uint32_t *a = malloc(N * sizeof(*a)), *b = malloc(N * sizeof(*b));
	tagged *ta = malloc(N * sizeof(*ta)), *tb = malloc(N * sizeof(*tb));
	double worst = 0;
	int close = 0;
	for (int k = 0; k < 60; k++) {
		size_t na = 600 + tu_rand(&rng) % (N - 600), nb = 0;
		for (size_t i = 0; i < na; i++)
			a[i] = (uint32_t)(tu_rand(&rng) % 5000) << 1;
		/* b keeps a random share of a's words in runs, the rest new. */
		uint64_t keep = 30 + tu_rand(&rng) % 70;
		for (size_t i = 0; i < na; i++)
			b[nb++] = tu_rand(&rng) % 100 < keep ? a[i] : (uint32_t)(5000 + tu_rand(&rng) % 5000) << 1;
		size_t ma = tagged_of(a, na, ta), mb = tagged_of(b, nb, tb), both = tagged_common(ta, ma, tb, mb);
		double res = (double)both / (double)(ma + mb - both);
		nd__rec ra, rb;
		nd__rec_scores sc;
		assert_int_equal(nd__rec_make(a, na, &ra, NULL, 0), ND_OK);
		assert_int_equal(nd__rec_make(b, nb, &rb, NULL, 0), ND_OK);
		assert_true(ra.nsample < ra.nshingles && ra.nsample <= 2 * ND_REC_SAMPLE);
		nd__rec_compare(&ra, &rb, NULL, &sc);
		assert_true(sc.plain == plain_counted(&ra, &rb));
		double err = fabs(sc.plain - res);
		worst = err > worst ? err : worst;
		close += fabs(res - ND_POINT_COPY_RESEMBLANCE) < 0.1;
		nd__rec_free(&ra);
		nd__rec_free(&rb);
	}
	if (worst > 0.1)
		fail_msg("a sampled resemblance %g away from the whole texts'", worst);
	assert_true(close >= 3); /* pairs near the point were among them */
	free(a), free(b), free(ta), free(tb);
}

/* Records are read in place from store pages, which align a value to 2
 * bytes only: a record at an odd address reads as the one encoded, a
 * short encoding is refused, and one whose arrays are out of order (a
 * damaged page; order is not checked there) gives some verdict without
 * reading outside its bytes (the buffers are exactly sized, for ASan). */
/* The same words are a copy at copy and story, decided before any merge:
 * distance 0, by resemblance, whatever the length (a text under 8 words
 * is a copy of nothing else). */
static void test_same_words_are_copies(void **state)
{
	(void)state;
	uint64_t rng = 11;
	const size_t lens[] = {3, 60, 1500};
	for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
		size_t n = lens[l];
		uint32_t *a = malloc(n * sizeof(*a)), *b = malloc(n * sizeof(*b));
		for (size_t i = 0; i < n; i++)
			a[i] = b[i] = i % 40 == 5 ? nd_word_id("2024", 4) : (uint32_t)(tu_rand(&rng) % 4000) << 1;
		nd__rec ra, rb;
		assert_int_equal(nd__rec_make(a, n, &ra, NULL, 0), ND_OK);
		assert_int_equal(nd__rec_make(b, n, &rb, NULL, 0), ND_OK);
		for (nd_point p = ND_POINT_COPY; p <= ND_POINT_STORY; p++) {
			nd_verify_how how = ND_VERIFIED_CONTAINMENT;
			double dist = 1;
			if (p != ND_POINT_COPY && p != ND_POINT_STORY)
				continue;
			assert_int_equal(nd__rec_verdict(p, &ra, &rb, NULL, &how, &dist), 1);
			assert_int_equal(how, ND_VERIFIED_RESEMBLANCE);
			assert_true(dist == 0);
			assert_int_equal(nd__rec_verdict(p, &rb, &ra, NULL, NULL, NULL), 1);
		}
		nd__rec_free(&rb);
		/* One word other: a short text is then no copy. */
		b[n / 2] ^= 2;
		assert_int_equal(nd__rec_make(b, n, &rb, NULL, 0), ND_OK);
		assert_int_equal(nd__rec_verdict(ND_POINT_COPY, &ra, &rb, NULL, NULL, NULL), n >= 8);
		nd__rec_free(&ra);
		nd__rec_free(&rb);
		free(a);
		free(b);
	}
}

/* Two pages of one template (the same 120 words before and after, each
 * its own 150 between) are framed apart; a copy of one text, edited in
 * one word of 10 throughout, or with a paragraph of its own added, is
 * not: what stands between its ends is shared. */
static uint32_t *frame_page(uint64_t *rng, const uint32_t *tpl, const uint32_t *body, size_t nbody, size_t *n)
{
	uint32_t *w = malloc((240 + nbody) * sizeof(*w));
	memcpy(w, tpl, 120 * sizeof(*w));
	for (size_t i = 0; i < nbody; i++)
		w[120 + i] = body ? body[i] : (uint32_t)(tu_rand(rng) % 4000) << 1;
	memcpy(w + 120 + nbody, tpl + 120, 120 * sizeof(*w));
	*n = 240 + nbody;
	return w;
}

static void test_framed_apart(void **state)
{
	(void)state;
	uint64_t rng = 5;
	uint32_t tpl[240], text[600], *p[2], *q;
	size_t np[2], nq;
	nd__rec a, b, c;
	for (size_t i = 0; i < 240; i++)
		tpl[i] = (uint32_t)(tu_rand(&rng) % 4000) << 1;
	for (size_t i = 0; i < 600; i++)
		text[i] = (uint32_t)(tu_rand(&rng) % 4000) << 1;
	for (int k = 0; k < 2; k++) {
		p[k] = frame_page(&rng, tpl, NULL, 150, &np[k]);
		assert_int_equal(nd__rec_make(p[k], np[k], k ? &b : &a, NULL, 0), ND_OK);
	}
	assert_true(nd__rec_framed_apart(&a, &b) && nd__rec_framed_apart(&b, &a));
	/* A page and a copy of it, one word in ten edited throughout: its
	 * article shared, so not two pages of a template. */
	q = frame_page(&rng, tpl, p[0] + 120, 150, &nq);
	for (size_t i = 0; i < nq; i += 10)
		q[i] = (uint32_t)(tu_rand(&rng) % 4000) << 1;
	assert_int_equal(nd__rec_make(q, nq, &c, NULL, 0), ND_OK);
	assert_false(nd__rec_framed_apart(&a, &c));
	nd__rec_free(&c);
	free(q);
	/* A text edited throughout, and with a paragraph added inside. */
	uint32_t edited[600], longer[700];
	memcpy(edited, text, sizeof(text));
	for (size_t i = 3; i < 600; i += 10)
		edited[i] = (uint32_t)(tu_rand(&rng) % 4000) << 1;
	memcpy(longer, text, 300 * sizeof(*longer));
	for (size_t i = 300; i < 400; i++)
		longer[i] = (uint32_t)(tu_rand(&rng) % 4000) << 1;
	memcpy(longer + 400, text + 300, 300 * sizeof(*longer));
	nd__rec t, e, l;
	assert_int_equal(nd__rec_make(text, 600, &t, NULL, 0), ND_OK);
	assert_int_equal(nd__rec_make(edited, 600, &e, NULL, 0), ND_OK);
	assert_int_equal(nd__rec_make(longer, 700, &l, NULL, 0), ND_OK);
	assert_false(nd__rec_framed_apart(&t, &e));
	assert_false(nd__rec_framed_apart(&t, &l));
	nd__rec_free(&t), nd__rec_free(&e), nd__rec_free(&l);
	nd__rec_free(&a), nd__rec_free(&b);
	free(p[0]), free(p[1]);
}

static void test_record_in_place(void **state)
{
	(void)state;
	uint64_t rng = 7;
	enum { N = 1500 };
	uint32_t *a = malloc(N * sizeof(*a)), *b = malloc(N * sizeof(*b));
	for (size_t i = 0; i < N; i++) {
		a[i] = i % 50 == 7 ? nd_word_id("1999", 4) : (uint32_t)(tu_rand(&rng) % 4000) << 1;
		b[i] = tu_rand(&rng) % 100 < 80 ? a[i] : (uint32_t)(tu_rand(&rng) % 4000) << 1;
	}
	nd__rec ra, rb, va, bad;
	nd__rec_scores want, got;
	assert_int_equal(nd__rec_make(a, N, &ra, NULL, 0), ND_OK);
	assert_int_equal(nd__rec_make(b, N, &rb, NULL, 0), ND_OK);
	assert_true(ra.nplaces > 1 && ra.nsample > 100);
	size_t len = nd__rec_size(&ra);
	uint8_t *buf = malloc(len + 1), *dam = malloc(len);
	assert_int_equal(nd__rec_encode(&ra, buf + 1), len);
	assert_int_equal(nd__rec_decode(buf + 1, len, &va), ND_OK);
	assert_true(ra.nnames > 1);
	/* The frame, then the samples' places, then the words that lead the
	 * text, then their places last: a text this long has all four, kept
	 * as made (its lead holds "1999", said 30 times). */
	assert_true(ra.nleads > 0 && va.nleads == ra.nleads && va.lthr == ra.lthr &&
		    !memcmp((const void *)va.leads, ra.leads, ra.nleads * 4));
	assert_true(va.borrowed && (uint8_t *)va.sample > buf &&
		    (uint8_t *)(va.names + va.nnames) + 8 + va.nsample + 16 + 6 == (uint8_t *)va.leads &&
		    (uint8_t *)(va.leads + va.nleads) == buf + 1 + len);
	assert_true(ra.frame != 0 && va.frame == ra.frame);
	assert_true((ra.lead[0] | ra.lead[1]) && !memcmp(va.lead, ra.lead, sizeof(ra.lead)));
	assert_true(ra.pos && va.pos == (uint8_t *)(va.names + va.nnames) + 8 && !memcmp(va.pos, ra.pos, ra.nsample));
	nd__rec_compare(&ra, &rb, NULL, &want);
	nd__rec_compare(&va, &rb, NULL, &got);
	assert_true(memcmp(&want, &got, sizeof(want)) == 0);
	assert_int_equal(nd__rec_verdict(ND_POINT_COPY, &va, &rb, NULL, NULL, NULL),
			 nd__rec_verdict(ND_POINT_COPY, &ra, &rb, NULL, NULL, NULL));
	assert_int_equal(nd__rec_decode(buf + 1, len - 1, &bad), ND_ECORRUPT);

	/* A record with a set of values after its places (as written before
	 * no rule read them) reads the same, the values skipped. */
	size_t vat = 36 + (size_t)ra.nsample * 4 + (size_t)ra.nplaces * 8;
	uint8_t *old = malloc(len + 8);
	uint16_t nv = 2;
	uint32_t vals[2] = {5, 9}, vthr = 10;
	memcpy(old, buf + 1, vat);
	memcpy(old + 6, &nv, 2);
	memcpy(old + 24, &vthr, 4);
	memcpy(old + vat, vals, 8);
	memcpy(old + vat + 8, buf + 1 + vat, len - vat);
	assert_int_equal(nd__rec_decode(old, len + 8, &bad), ND_OK);
	assert_true(bad.nnames == ra.nnames && memcmp((const void *)bad.names, ra.names, ra.nnames * 4) == 0);
	assert_true(bad.frame == ra.frame && bad.nplaces == ra.nplaces);
	nd__rec_compare(&bad, &rb, NULL, &got);
	assert_true(memcmp(&want, &got, sizeof(want)) == 0);
	assert_int_equal(nd__rec_decode(old, len + 7, &bad), ND_ECORRUPT);
	free(old);
	nd__rec_free(&va); /* frees nothing of buf's */

	/* The sample reversed and the places' halves swapped, in a buffer
	 * that ends where the record does. */
	memcpy(dam, buf + 1, len);
	assert_int_equal(nd__rec_decode(dam, len, &bad), ND_OK);
	for (uint32_t i = 0; i < bad.nsample / 2; i++) {
		uint32_t x = bad.sample[i];
		bad.sample[i] = bad.sample[bad.nsample - 1 - i], bad.sample[bad.nsample - 1 - i] = x;
	}
	for (uint32_t i = 0; i < bad.nplaces; i++)
		bad.places[i] = bad.places[i] << 32 | bad.places[i] >> 32;
	const nd_point points[] = {ND_POINT_COPY, ND_POINT_STORY};
	for (int k = 0; k < 2; k++) {
		nd_point p = points[k];
		int v = nd__rec_verdict(p, &bad, &rb, NULL, NULL, NULL), w = nd__rec_verdict(p, &rb, &bad, NULL, NULL, NULL);
		assert_true((v == 0 || v == 1) && (w == 0 || w == 1));
	}
	nd__rec_compare(&bad, &ra, NULL, &got);
	assert_true(got.plain >= 0 && got.plain <= 1);
	nd__rec_free(&bad);
	nd__rec_free(&ra);
	nd__rec_free(&rb);
	free(buf), free(dam), free(a), free(b);
}

/* Each sample's place in its text: the same text with its halves
 * swapped has each shingle inside a half half the text further on, and a
 * repeated shingle's later occurrence has none. */
static void test_record_positions(void **state)
{
	(void)state;
	enum { N = 1000 };
	uint32_t *a = malloc(N * sizeof(*a)), *b = malloc(N * sizeof(*b));
	assert_true(a && b);
	for (size_t i = 0; i < N; i++)
		a[i] = (uint32_t)(i + 1) << 1;
	memcpy(b, a + N / 2, N / 2 * sizeof(*a));
	memcpy(b + N / 2, a, N / 2 * sizeof(*a));
	nd__rec ra, rb;
	assert_int_equal(nd__rec_make(a, N, &ra, NULL, 0), ND_OK);
	assert_int_equal(nd__rec_make(b, N, &rb, NULL, 0), ND_OK);
	assert_true(ra.pos && rb.pos && ra.nsample > 100);
	size_t both = 0;
	for (uint32_t i = 0, j = 0; i < ra.nsample && j < rb.nsample;) {
		if (ra.sample[i] != rb.sample[j]) {
			ra.sample[i] < rb.sample[j] ? i++ : j++;
			continue;
		}
		int pa = ra.pos[i], pb = rb.pos[j], want = pa < 127 ? pa + 127 : pa - 127;
		assert_true(pa != ND_REC_POS_UNKNOWN && abs(pb - want) <= 1);
		both++, i++, j++;
	}
	assert_true(both > 100);
	nd__rec_free(&ra);
	/* Two words in turn: two shingles, each about 500 times, all but
	 * their first occurrences tagged, and those have no place. */
	for (size_t i = 0; i < N; i++)
		a[i] = (uint32_t)(i % 2 + 1) << 1;
	assert_int_equal(nd__rec_make(a, N, &ra, NULL, 0), ND_OK);
	size_t unknown = 0;
	for (uint32_t i = 0; i < ra.nsample; i++)
		unknown += ra.pos[i] == ND_REC_POS_UNKNOWN;
	assert_true(ra.nsample > 100 && unknown + 2 >= ra.nsample);
	nd__rec_free(&ra);
	nd__rec_free(&rb);
	free(a);
	free(b);
}

/* A record's samples cut at another's threshold: the count below is
 * guessed from the hashes' spread, so samples crowded anywhere in their
 * range must still be cut where they are (plain resemblance against a
 * count one by one, over records made by hand). */
static uint32_t skewed_samples(uint64_t *rng, uint32_t *v, uint32_t n, uint32_t thr, int skew)
{
	uint32_t m = 0;
	for (uint32_t i = 0; i < n; i++) {
		double u = (double)(tu_rand(rng) % 1000000) / 1000000.0;
		double f = skew == 0 ? u : skew == 1 ? u * u * u : 1 - u * u * u;
		v[i] = (uint32_t)(f * thr);
	}
	nd__sort_u32(v, n);
	for (uint32_t i = 0; i < n; i++)
		if (!m || v[i] != v[m - 1])
			v[m++] = v[i];
	return m;
}

static void test_sample_cut(void **state)
{
	(void)state;
	uint64_t rng = 41;
	uint32_t va[600], vb[600];
	for (int k = 0; k < 3000; k++) {
		nd__rec ra = ND_REC_INIT, rb = ND_REC_INIT;
		nd__rec_scores sc;
		ra.thr = (uint32_t)tu_rand(&rng) | 1, rb.thr = (uint32_t)tu_rand(&rng) | 1;
		if (k % 7 == 0)
			ra.thr = UINT32_MAX;
		ra.nsample = skewed_samples(&rng, va, 1 + (uint32_t)(tu_rand(&rng) % 512), ra.thr, k % 3);
		rb.nsample = skewed_samples(&rng, vb, 1 + (uint32_t)(tu_rand(&rng) % 512), rb.thr, (k / 3) % 3);
		/* Some of a's below b's threshold are b's too. */
		for (uint32_t i = 0, j = 0; i < ra.nsample && j < rb.nsample; i += 2) {
			while (j < rb.nsample && vb[j] < va[i])
				j++;
			if (j < rb.nsample && va[i] <= rb.thr && (j == 0 || vb[j - 1] < va[i]) && vb[j] > va[i]) {
				vb[j] = va[i];
				j++;
			}
		}
		/* A threshold at a kept sample, as a capped record has it,
		 * and b holding that hash and the next: the cut's edges. */
		if (k % 4 == 0 && ra.nsample && va[ra.nsample - 1] < UINT32_MAX) {
			ra.thr = va[ra.nsample - 1];
			if (ra.thr + 1 <= rb.thr && rb.nsample + 2 <= 600) {
				vb[rb.nsample++] = ra.thr;
				vb[rb.nsample++] = ra.thr + 1;
				rb.nsample = (uint32_t)nd__sort_unique_u32(vb, rb.nsample);
			}
		}
		ra.sample = va, rb.sample = vb;
		ra.nwords = ra.nshingles = 1000, rb.nwords = rb.nshingles = 1000;
		ra.text = 1, rb.text = 3;
		nd__rec_compare(&ra, &rb, NULL, &sc);
		double want = plain_counted(&ra, &rb);
		if (sc.plain != want)
			fail_msg("pair %d: plain %g, counted %g (%u and %u samples, thresholds %u and %u)", k, sc.plain,
				 want, ra.nsample, rb.nsample, ra.thr, rb.thr);
		/* The group pass's bounded merge: the figure where it reaches
		 * its floor, 0 or the figure below; here and against a with
		 * every 16th sample lost (0.94 and over, the floor 0.9). */
		uint32_t vc[600];
		nd__rec rc = ra;
		rc.nsample = 0, rc.sample = vc, rc.text = 5;
		for (uint32_t i = 0; i < ra.nsample; i++)
			if (i % 16 != 7)
				vc[rc.nsample++] = va[i];
		const nd__rec *other[2] = {&rb, &rc};
		for (int o = 0; o < 2; o++) {
			double exact = plain_counted(&ra, other[o]);
			for (int f = 0; f < 3; f++) {
				double floor = f == 0 ? 0 : f == 1 ? 0.5 : ND_GROUP_RESEMBLANCE;
				double got = nd__rec_plain_floor(&ra, other[o], floor);
				if (exact >= floor ? got != exact : got != 0 && got != exact)
					fail_msg("pair %d/%d: plain %g at floor %g, counted %g", k, o, got, floor, exact);
			}
		}
	}
}

/* The text trees' keys of short texts: under the rotated scheme every
 * text of one shingle (1-3 words) has one of 65,536 keys, so 20,000
 * distinct one-word texts share some by the thousand, and copies among
 * 200,000 short texts were crowded out of each other's windows; mixed,
 * each has its own, and near-copies still agree as often.  A text that
 * fills every bin keys alike under both, so a store from before keeps
 * its long texts' keys. */
static int cmp_keys(const void *a, const void *b)
{
	return memcmp(a, b, ND_TEXT_TREES * ND_NEAR_ROWS * sizeof(uint16_t));
}

static void test_short_text_keys(void **state)
{
	(void)state;
	enum { N = 20000, K = ND_TEXT_TREES * ND_NEAR_ROWS, LONG = 2000 };
	uint16_t(*keys)[K] = malloc(N * sizeof(*keys));
	assert_non_null(keys);
	size_t same[2] = {0, 0};
	for (int scheme = ND_TEXT_KEYS_ROTATED; scheme <= ND_TEXT_KEYS_MIXED; scheme++) {
		for (uint32_t i = 0; i < N; i++) {
			uint32_t word = 1000 + i;
			nd__rec r;
			assert_int_equal(nd__rec_make(&word, 1, &r, keys[i], scheme), ND_OK);
			nd__rec_free(&r);
			for (int k = 0; k < K; k++)
				assert_true(keys[i][k] != UINT16_MAX);
		}
		qsort(keys, N, sizeof(*keys), cmp_keys);
		for (uint32_t i = 1; i < N; i++)
			same[scheme] += !cmp_keys(keys[i - 1], keys[i]);
	}
	assert_true(same[ND_TEXT_KEYS_ROTATED] > 1000); /* 2,841 */
	assert_int_equal(same[ND_TEXT_KEYS_MIXED], 0);
	/* Near-copies agree on as many bins under both: a borrowed bin agrees
	 * when the bin it borrows from does (400 texts of 30 words, each with
	 * one word replaced). */
	uint16_t a[K], b[K];
	nd__rec r;
	size_t agree[2] = {0, 0};
	uint64_t rng = 7;
	for (int pair = 0; pair < 400; pair++) {
		uint32_t t[30], u[30];
		for (int i = 0; i < 30; i++)
			t[i] = u[i] = (uint32_t)(tu_rand(&rng) % 100000) + 1000;
		u[tu_rand(&rng) % 30] = 999;
		for (int scheme = ND_TEXT_KEYS_ROTATED; scheme <= ND_TEXT_KEYS_MIXED; scheme++) {
			assert_int_equal(nd__rec_make(t, 30, &r, a, scheme), ND_OK);
			nd__rec_free(&r);
			assert_int_equal(nd__rec_make(u, 30, &r, b, scheme), ND_OK);
			nd__rec_free(&r);
			for (int k = 0; k < K; k++)
				agree[scheme] += a[k] == b[k];
		}
	}
	assert_true(agree[ND_TEXT_KEYS_MIXED] > 400 * K / 2);
	assert_true(agree[ND_TEXT_KEYS_MIXED] + 400 * K / 100 >= agree[ND_TEXT_KEYS_ROTATED]);
	uint32_t *ids = malloc(LONG * sizeof(uint32_t));
	assert_non_null(ids);
	for (uint32_t i = 0; i < LONG; i++)
		ids[i] = 5000 + i * 7919 % 3001;
	assert_int_equal(nd__rec_make(ids, LONG, &r, a, ND_TEXT_KEYS_ROTATED), ND_OK);
	nd__rec_free(&r);
	assert_int_equal(nd__rec_make(ids, LONG, &r, b, ND_TEXT_KEYS_MIXED), ND_OK);
	nd__rec_free(&r);
	assert_memory_equal(a, b, sizeof(a));
	free(ids);
	free(keys);
}

/* The radix sort sorts: random values, repeats, shared high bytes; small
 * arrays and large ones (wider digits). */
static void test_sort_u64(void **state)
{
	(void)state;
	uint64_t rng = 3;
	size_t sizes[] = {0, 1, 63, 64, 65, 1000, 5000, 65535, 65536, 200000};
	for (size_t s = 0; s < sizeof(sizes) / sizeof(*sizes); s++)
		for (int kind = 0; kind < 3; kind++) {
			size_t n = sizes[s];
			uint64_t *v = malloc((n + 1) * sizeof(*v));
			for (size_t i = 0; i < n; i++) {
				uint64_t x = tu_rand(&rng);
				v[i] = kind == 0 ? x : kind == 1 ? x % 7 : (x & 0xffff) | 0xabcd000000000000ULL;
			}
			uint64_t sum = 0;
			for (size_t i = 0; i < n; i++)
				sum += v[i];
			nd__sort_u64(v, n);
			for (size_t i = 1; i < n; i++)
				if (v[i - 1] > v[i])
					fail_msg("size %zu kind %d: out of order at %zu", n, kind, i);
			for (size_t i = 0; i < n; i++)
				sum -= v[i];
			assert_true(sum == 0); /* the same values */
			free(v);
		}
	/* By the high half alone: the low halves (the input's order) stay in
	 * order among equal high halves. */
	size_t n = 150000;
	uint64_t *v = malloc(n * sizeof(*v));
	assert_non_null(v);
	for (size_t i = 0; i < n; i++)
		v[i] = (tu_rand(&rng) % 5000) << 32 | i;
	nd__sort_u64_high(v, n);
	for (size_t i = 1; i < n; i++)
		if (v[i - 1] >> 32 > v[i] >> 32 || (v[i - 1] >> 32 == v[i] >> 32 && (uint32_t)v[i - 1] > (uint32_t)v[i]))
			fail_msg("high sort: out of order at %zu", i);
	free(v);
}

static void count_progress(size_t done, size_t n, void *ctx)
{
	size_t *last = ctx;
	assert_true(done > last[0] && done <= n); /* moves forward, within n */
	last[0] = done;
	last[1] = n;
}

static void test_cluster_linkage(void **state)
{
	(void)state;
	char *tdir = tu_tmpdir(), *tdb = tu_join(tdir, "db"), *tst = tu_join(tdir, "st");
	char *para[LK_PARAS], *texts[LK_DOCS], names[LK_DOCS][8];
	const char *ids[LK_DOCS];
	uint64_t rng = 77;
	for (int p = 0; p < LK_PARAS; p++) {
		char *words = tu_random_doc(&rng, 25 + tu_rand(&rng) % 30, 3000);
		size_t len = strlen(words) + 32;
		para[p] = malloc(len);
		/* Two marker words per paragraph: the descriptive words s1..s16. */
		snprintf(para[p], len, "%s s%d s%d", words, p % 16 + 1, p % 16 + 1);
		free(words);
	}
	for (int d = 0; d < LK_DOCS; d++) {
		size_t len = 1;
		int pick[6], np = 0, story = d % 6;
		for (int k = 0; k < 4; k++) /* most of its story, in order */
			if (tu_rand(&rng) % 5)
				pick[np++] = story * 4 + k;
		for (int k = 0; k < 2; k++) /* and strays: any paragraph */
			if (tu_rand(&rng) % 2)
				pick[np++] = (int)(tu_rand(&rng) % LK_PARAS);
		if (!np)
			pick[np++] = story * 4;
		for (int k = 0; k < np; k++)
			len += strlen(para[pick[k]]) + 1;
		texts[d] = calloc(1, len);
		for (int k = 0; k < np; k++) {
			strcat(texts[d], para[pick[k]]);
			strcat(texts[d], " ");
		}
		snprintf(names[d], sizeof(names[d]), "d%d", d);
		ids[d] = names[d];
	}
	nd_xdb *db;
	nd_store *st;
	nd_descriptor *desc;
	tu_handmade_set(tdb, tst, ids, texts, LK_DOCS, 16, &db, &st, &desc);

	nd_docid docs[LK_DOCS];
	nd_sig sig[LK_DOCS];
	uint32_t *w[LK_DOCS];
	size_t nw[LK_DOCS];
	nd_store_txn *txn;
	assert_int_equal(nd_store_read_begin(st, &txn), ND_OK);
	for (int d = 0; d < LK_DOCS; d++) {
		const void *pay;
		size_t len;
		uint64_t key;
		assert_int_equal(nd_xdb_find_uid(db, ids[d], &docs[d]), ND_OK);
		assert_int_equal(nd_store_doc_get(txn, docs[d], &key, &pay, &len), ND_OK);
		memset(&sig[d], 0, sizeof(sig[d]));
		assert_int_equal(nd_sig_decode(&sig[d], pay, len, 1u << 16), ND_OK);
		assert_int_equal(nd_words_get(db, docs[d], &w[d], &nw[d], NULL), ND_OK);
	}
	nd_store_txn_end(txn);

	const double floors[] = {0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.3, 0.3},
		     cuts[] = {0.05, 0.08, 0.1, 0.12, 0.15, 0.2, 0.3, 0.1, 0.2};
	int chained = 0;
	for (int c = 0; c < 9; c++) {
		static double s[LK_DOCS][LK_DOCS];
		size_t into[LK_DOCS], ref[LK_DOCS], comp[LK_DOCS];
		nd_linkage_options o = ND_LINKAGE_OPTIONS_INIT;
		nd_linkage_stats ls = {0};
		uint64_t pairs = 0;
		o.min_jaccard = floors[c];
		o.cut = cuts[c];
		for (int i = 0; i < LK_DOCS; i++) {
			comp[i] = (size_t)i;
			for (int j = 0; j < LK_DOCS; j++) {
				uint32_t common = 0;
				s[i][j] = 0;
				for (uint32_t x = 0; x < sig[i].nbits; x++)
					for (uint32_t y = 0; y < sig[j].nbits; y++)
						common += sig[i].bits[x] == sig[j].bits[y];
				if (i == j || !sig[i].nbits || !sig[j].nbits ||
				    (double)common / (sig[i].nbits + sig[j].nbits - common) < floors[c] - 1e-12)
					continue;
				nd_shingle_sim sim;
				assert_int_equal(nd_shingle_similarity(w[i], nw[i], w[j], nw[j], 3, &sim), ND_OK);
				s[i][j] = sim.bag;
				pairs += i < j;
			}
		}
		size_t progress[2] = {0, 0};
		o.progress = count_progress;
		o.ctx = progress;
		static double lv[LK_DOCS * LK_DOCS];
		tu_dense_upgma(LK_DOCS, &s[0][0], cuts[c], lv);
		for (int i = 0; i < LK_DOCS; i++) { /* each cluster named by its first member */
			ref[i] = (size_t)i;
			for (int j = 0; j < i && ref[i] == (size_t)i; j++)
				if (lv[j * LK_DOCS + i] >= 0)
					ref[i] = (size_t)j;
		}
		assert_int_equal(nd_cluster_linkage(db, st, &o, docs, LK_DOCS, into, &ls), ND_OK);
		assert_int_equal(progress[0], LK_DOCS); /* the last call reports all done */
		assert_int_equal(progress[1], LK_DOCS);
		assert_int_equal(ls.compared, pairs);
		size_t nclusters = 0;
		for (int i = 0; i < LK_DOCS; i++) {
			if (into[i] != ref[i])
				fail_msg("floor %g cut %g: d%d in the cluster of d%zu, reference d%zu", floors[c], cuts[c], i,
					 into[i], ref[i]);
			nclusters += into[i] == (size_t)i;
		}
		assert_true(nclusters > 1 && nclusters < LK_DOCS); /* not one blob, not all alone */
		/* Single linkage (components of the pairs >= cut) for contrast. */
		for (int pass = 0; pass < LK_DOCS; pass++)
			for (int i = 0; i < LK_DOCS; i++)
				for (int j = 0; j < LK_DOCS; j++)
					if (s[i][j] >= cuts[c] && comp[j] < comp[i])
						comp[i] = comp[j];
		for (int i = 0; i < LK_DOCS; i++)
			chained += comp[i] != into[i];
	}
	assert_true(chained > 0); /* somewhere one close pair would have joined two stories */
	for (int d = 0; d < LK_DOCS; d++) {
		nd_sig_clear(&sig[d]);
		free(w[d]);
		free(texts[d]);
	}
	for (int p = 0; p < LK_PARAS; p++)
		free(para[p]);
	nd_descriptor_free(desc);
	nd_store_close(st);
	nd_xdb_close(db);
	tu_rmtree(tdir);
	free(tdir);
	free(tdb);
	free(tst);
}

/* n word ids of random lower-case words (no digit: none is a value). */
static void random_words(uint64_t *rng, uint32_t *out, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char w[9];
		size_t len = 4 + tu_rand(rng) % 5;
		for (size_t k = 0; k < len; k++)
			w[k] = (char)('a' + tu_rand(rng) % 26);
		out[i] = nd_word_id(w, len);
	}
}

static uint32_t value_id(const char *v)
{
	return nd_word_id(v, strlen(v));
}

/* The records' veto: other values in the same places. */
static int values_differ(const uint32_t *a, size_t na, const uint32_t *b, size_t nb)
{
	nd__rec ra, rb;
	nd__rec_scores sc;
	assert_int_equal(nd__rec_make(a, na, &ra, NULL, 0), ND_OK);
	assert_int_equal(nd__rec_make(b, nb, &rb, NULL, 0), ND_OK);
	nd__rec_compare(&ra, &rb, NULL, &sc);
	nd__rec_free(&ra);
	nd__rec_free(&rb);
	return sc.values_differ;
}

static int verdict(const uint32_t *a, size_t na, const uint32_t *b, size_t nb, nd_point p, nd_verify_how *how)
{
	nd_verify_options o = ND_VERIFY_OPTIONS_INIT;
	double d;
	o.point = p;
	int rc = nd_verify_pair(a, na, b, nb, &o, how, &d);
	assert_true(rc == 0 || rc == 1);
	return rc;
}

/* What differs counts, not only how much: two fillings of one template
 * (other prices and dates in the same places, two or more, and one or
 * more per 100 words) are refused at every point
 * though 97% of their words agree; a text and its copy cut short or with a
 * comment thread added are copies by containment, unless the shorter is
 * too short, the longer far longer, or a value of the shorter is lost. */
static void test_values_and_containment(void **state)
{
	(void)state;
	uint64_t rng = 77;
	/* Ids say which words hold a digit, and nothing else does. */
	assert_true(value_id("2024") & ND_WORD_DIGIT);
	assert_true(value_id("12.99") & ND_WORD_DIGIT);
	assert_true(value_id("mp3") & ND_WORD_DIGIT);
	assert_false(value_id("price") & ND_WORD_DIGIT);
	assert_false(value_id("straße") & ND_WORD_DIGIT);
	uint32_t w[400];
	random_words(&rng, w, 400);
	for (size_t i = 0; i < 400; i++)
		assert_false(w[i] & ND_WORD_DIGIT);

	/* A 120-word listing with a price at 30 and a date at 80; the other
	 * listing has other values there. */
	enum { L = 120 };
	uint32_t x[L], y[L];
	memcpy(x, w, sizeof(x));
	memcpy(y, w, sizeof(y));
	x[30] = value_id("12.99"), y[30] = value_id("14.50");
	x[80] = value_id("2024"), y[80] = value_id("2025");
	const nd_point points[] = {ND_POINT_STRICT, ND_POINT_COPY, ND_POINT_STORY};
	nd_verify_how how;
	for (size_t p = 0; p < 3; p++) {
		assert_int_equal(verdict(x, L, y, L, points[p], &how), 0);
		assert_int_equal(how, ND_REFUSED_VALUES);
	}
	assert_int_equal(values_differ(x, L, y, L), 1);
	/* Two values changed in 90 words are a filling, refused; one value
	 * changed is an update, accepted, however short the text (a short
	 * page's next release with its date moved on), as in 120 words or
	 * a 300-word text. */
	assert_int_equal(verdict(x, 90, y, 90, ND_POINT_STRICT, &how), 0);
	assert_int_equal(how, ND_REFUSED_VALUES);
	y[80] = x[80];
	assert_int_equal(verdict(x, 90, y, 90, ND_POINT_STRICT, &how), 1);
	assert_int_equal(verdict(x, 40, y, 40, ND_POINT_COPY, &how), 1);
	assert_int_equal(verdict(x, L, y, L, ND_POINT_STRICT, &how), 1);
	uint32_t lx[300], ly[300];
	memcpy(lx, w, sizeof(lx));
	memcpy(ly, w, sizeof(ly));
	lx[150] = value_id("12"), ly[150] = value_id("14");
	assert_int_equal(verdict(lx, 300, ly, 300, ND_POINT_STRICT, &how), 1);
	assert_int_equal(how, ND_VERIFIED_LEVENSHTEIN);
	/* The rule is a rate: three years moved on in a 400-word file (its
	 * next release) is a version, three in 250 words a filling. */
	uint32_t *vx = malloc(400 * sizeof(*vx)), *vy = malloc(400 * sizeof(*vy));
	assert_non_null(vx);
	assert_non_null(vy);
	for (size_t i = 0; i < 400; i++)
		vx[i] = vy[i] = w[(i * 7) % 400];
	const char *was[] = {"2019", "2020", "2021"}, *now[] = {"2022", "2023", "2024"};
	for (size_t k = 0; k < 3; k++)
		vx[40 + 60 * k] = value_id(was[k]), vy[40 + 60 * k] = value_id(now[k]);
	assert_int_equal(verdict(vx, 400, vy, 400, ND_POINT_STRICT, &how), 1);
	assert_int_equal(values_differ(vx, 400, vy, 400), 0);
	assert_int_equal(verdict(vx, 250, vy, 250, ND_POINT_COPY, &how), 0);
	assert_int_equal(how, ND_REFUSED_VALUES);
	free(vx);
	free(vy);
	/* A block added with other values in the places the text has too (a
	 * mirror's header quoting another notice) changes no value of it. */
	uint32_t blk[L + 60];
	memcpy(blk, x, L * sizeof(uint32_t));
	memcpy(blk + L, x, 60 * sizeof(uint32_t));
	blk[L + 30] = value_id("3.75");
	assert_int_equal(verdict(x, L, blk, L + 60, ND_POINT_COPY, &how), 1);
	assert_int_equal(values_differ(x, L, blk, L + 60), 0);
	/* A value changed into a word, or a value added elsewhere, is an edit. */
	memcpy(y, x, sizeof(y));
	y[30] = w[399];
	y[60] = value_id("99");
	assert_int_equal(verdict(x, L, y, L, ND_POINT_STRICT, &how), 1);

	/* A 100-word article and the same with a 45-word comment thread:
	 * a copy at copy and story, not at strict. */
	uint32_t art[250];
	memcpy(art, w + 100, sizeof(art));
	for (size_t p = 0; p < 3; p++) {
		int want = points[p] != ND_POINT_STRICT;
		assert_int_equal(verdict(art, 100, art, 145, points[p], &how), want);
	}
	/* Containment alone: the article with six words changed and 48 added
	 * keeps over 0.8 of its shingles (resemblance under the point's), in
	 * a text under 1.5 times as long. */
	uint32_t big[150];
	memcpy(big, art, 100 * sizeof(uint32_t));
	for (size_t k = 0; k < 6; k++)
		big[8 + 16 * k] = w[k];
	memcpy(big + 100, w + 300, 48 * sizeof(uint32_t));
	assert_int_equal(verdict(art, 100, big, 148, ND_POINT_COPY, &how), 1);
	assert_int_equal(how, ND_VERIFIED_CONTAINMENT);
	/* One word more changed (a value, which refuses only by the veto:
	 * one changed place is under its two) and the shorter keeps under
	 * 0.8: resemblance decides, and refuses. */
	uint32_t vart[100];
	memcpy(vart, art, sizeof(vart));
	vart[50] = value_id("1999");
	assert_int_equal(verdict(vart, 100, big, 148, ND_POINT_COPY, &how), 0);
	assert_int_equal(how, ND_VERIFIED_RESEMBLANCE);
	/* Too short to say (40 words), or the longer over 1.5 times as long
	 * (100 in 250): resemblance decides, and refuses. */
	assert_int_equal(verdict(art, 40, art, 100, ND_POINT_COPY, &how), 0);
	assert_int_equal(verdict(art, 100, art, 250, ND_POINT_COPY, &how), 0);
	assert_int_equal(how, ND_VERIFIED_RESEMBLANCE);
	/* A 30-word list held whole in one of 50 (resemblance 0.58) is a part
	 * of it, not a copy (a letter's functions and its members), though
	 * the same story; in one of 44 (under 1.5 times as long) a copy.  A
	 * 100-word text held in one of 160 has words enough of its own, and
	 * resemblance keeps it (a page and its print version). */
	assert_int_equal(verdict(art, 30, art, 50, ND_POINT_COPY, &how), 0);
	assert_int_equal(verdict(art, 30, art, 50, ND_POINT_STORY, &how), 1);
	assert_int_equal(verdict(art, 30, art, 44, ND_POINT_COPY, &how), 1);
	assert_int_equal(verdict(art, 100, art, 160, ND_POINT_COPY, &how), 1);
	assert_int_equal(how, ND_VERIFIED_RESEMBLANCE);
}

/* The same template about another named thing is another document: a
 * 300-word page whose name (repeated 5 times) stands where the other page
 * has its own is refused at strict and copy (distinct man pages of two
 * commands, a product page for another product), though 95% of their
 * words agree, and so it is when the other name is in the one already, at
 * places the other shares; its next version with words edited, a name
 * renamed in one place only, or a name kept elsewhere in the other
 * (repeated there) is not a rename.  A record written before names were
 * kept reads as one without them, and refuses no rename. */
static void test_renamed(void **state)
{
	(void)state;
	uint64_t rng = 1234;
	enum { L = 300 };
	uint32_t w[L + 20], a[L], b[L + 2];
	random_words(&rng, w, L + 20);
	const size_t at[] = {10, 50, 120, 200, 260};
	memcpy(a, w, sizeof(a));
	memcpy(b, w, L * sizeof(uint32_t));
	for (size_t k = 0; k < 5; k++)
		a[at[k]] = w[L], b[at[k]] = w[L + 1];
	const nd_point points[] = {ND_POINT_STRICT, ND_POINT_COPY};
	nd_verify_how how;
	for (size_t p = 0; p < 2; p++) {
		assert_int_equal(verdict(a, L, b, L, points[p], &how), 0);
		assert_int_equal(how, ND_REFUSED_RENAMED);
	}
	/* The same story, though: a story retold says "said" where it said
	 * "says". */
	assert_int_equal(verdict(a, L, b, L, ND_POINT_STORY, &how), 1);
	/* The next version: five words edited into new ones. */
	uint32_t v[L];
	memcpy(v, a, sizeof(v));
	for (size_t k = 0; k < 5; k++)
		v[30 + 50 * k] = w[L + 2 + k];
	assert_int_equal(verdict(a, L, v, L, ND_POINT_COPY, &how), 1);
	/* Renamed in one place only. */
	memcpy(v, a, sizeof(v));
	v[at[0]] = w[L + 1];
	assert_int_equal(verdict(a, L, v, L, ND_POINT_COPY, &how), 1);
	/* The other name already in the one, in three places the other
	 * shares (llvm-tblgen(1) renamed from clang-tblgen(1), which says
	 * "LLVM" itself): a rename all the same. */
	uint32_t a2[L], b2[L];
	memcpy(a2, a, sizeof(a2));
	memcpy(b2, b, sizeof(b2));
	for (size_t k = 0; k < 3; k++)
		a2[30 + 70 * k] = b2[30 + 70 * k] = w[L + 1];
	assert_int_equal(verdict(a2, L, b2, L, ND_POINT_COPY, &how), 0);
	assert_int_equal(how, ND_REFUSED_RENAMED);
	assert_int_equal(verdict(b2, L, a2, L, ND_POINT_COPY, &how), 0);
	assert_int_equal(how, ND_REFUSED_RENAMED);
	/* The first name still in the other, twice. */
	b[L] = w[L], b[L + 1] = w[L];
	assert_int_equal(verdict(a, L, b, L + 2, ND_POINT_COPY, &how), 1);
	/* A word renamed through two texts that begin alike (one title, one
	 * NAME line): it names something else than what they are about (a
	 * parameter in a release's reference, a contributor's name spelled
	 * another way), so an edit. */
	uint32_t p1[L], p2[L];
	memcpy(p1, w, sizeof(p1));
	memcpy(p2, w, sizeof(p2));
	for (size_t k = 1; k < 5; k++)
		p1[at[k]] = w[L], p2[at[k]] = w[L + 1];
	assert_int_equal(verdict(p1, L, p2, L, ND_POINT_COPY, &how), 1);
	assert_int_equal(verdict(p1, L, p2, L, ND_POINT_STRICT, &how), 1);
	/* Two that begin otherwise, a word of their first ND_LEAD_WORDS
	 * renamed (the named thing) or not (two commands' pages whose NAME
	 * lines differ where the sample holds no place): a rename. */
	p1[3] = w[L], p2[3] = w[L + 1];
	assert_int_equal(verdict(p1, L, p2, L, ND_POINT_COPY, &how), 0);
	assert_int_equal(how, ND_REFUSED_RENAMED);
	p1[3] = p2[3] = w[3], p2[ND_LEAD_WORDS - 1] = w[L + 2];
	assert_int_equal(verdict(p1, L, p2, L, ND_POINT_COPY, &how), 0);
	assert_int_equal(how, ND_REFUSED_RENAMED);
	p2[ND_LEAD_WORDS - 1] = w[ND_LEAD_WORDS - 1], p2[ND_LEAD_WORDS] = w[L + 2];
	assert_int_equal(verdict(p1, L, p2, L, ND_POINT_COPY, &how), 1);

	/* A record without names (as written before them, and before frames)
	 * decodes, and its pairs are judged by the rest. */
	nd__rec ra, rb, old;
	assert_int_equal(nd__rec_make(a, L, &ra, NULL, 0), ND_OK);
	assert_int_equal(nd__rec_make(b, L, &rb, NULL, 0), ND_OK);
	assert_true(ra.nnames >= 5 && ra.frame);
	assert_int_equal(nd__rec_verdict(ND_POINT_COPY, &ra, &rb, NULL, &how, NULL), 0);
	assert_int_equal(how, ND_REFUSED_RENAMED);
	/* The words that lead a text survive the store; a record from before
	 * them knows none, and refuses a rename wherever it stands, as it
	 * did. */
	nd__rec rp1, rp2, back;
	assert_int_equal(nd__rec_make(p1, L, &rp1, NULL, 0), ND_OK);
	assert_int_equal(nd__rec_make(p2, L, &rp2, NULL, 0), ND_OK);
	assert_true(rp1.lead[0] | rp1.lead[1]);
	size_t plen = nd__rec_size(&rp1);
	uint8_t *pbuf = malloc(plen);
	assert_non_null(pbuf);
	assert_int_equal(nd__rec_encode(&rp1, pbuf), plen);
	assert_int_equal(nd__rec_decode(pbuf, plen, &back), ND_OK);
	assert_memory_equal(back.lead, rp1.lead, sizeof(back.lead));
	assert_int_equal(nd__rec_verdict(ND_POINT_COPY, &back, &rp2, NULL, &how, NULL), 1);
	assert_int_equal(nd__rec_decode(pbuf, plen - 16, &back), ND_ECORRUPT); /* a lead it announces */
	memset(rp1.lead, 0, sizeof(rp1.lead));
	assert_int_equal(nd__rec_encode(&rp1, pbuf), plen - 16);
	assert_int_equal(nd__rec_decode(pbuf, plen - 16, &back), ND_OK);
	assert_int_equal(nd__rec_verdict(ND_POINT_COPY, &back, &rp2, NULL, &how, NULL), 0);
	assert_int_equal(how, ND_REFUSED_RENAMED);
	nd__rec_free(&back);
	free(pbuf);
	nd__rec_free(&rp1);
	nd__rec_free(&rp2);
	free(ra.pos); /* a record as before places were kept: names and frame last */
	ra.pos = NULL;
	memset(ra.lead, 0, sizeof(ra.lead));
	free(ra.leads);
	ra.leads = NULL, ra.nleads = 0;
	size_t len = nd__rec_size(&ra), cut = len - 6 - (size_t)ra.nnames * 4 - 8;
	uint8_t *buf = malloc(len);
	assert_non_null(buf);
	assert_int_equal(nd__rec_encode(&ra, buf), len);
	buf[1] = 0;
	assert_int_equal(nd__rec_decode(buf, len, &old), ND_ECORRUPT); /* names it does not announce */
	assert_int_equal(nd__rec_decode(buf, cut, &old), ND_OK);
	assert_int_equal(old.nnames, 0);
	assert_int_equal(nd__rec_verdict(ND_POINT_COPY, &old, &rb, NULL, &how, NULL), 1);
	buf[1] = 2;
	assert_int_equal(nd__rec_decode(buf, cut, &old), ND_ECORRUPT);
	nd__rec_free(&old);
	free(buf);
	nd__rec_free(&ra);
	nd__rec_free(&rb);
}

/* Two pages of one template about two types into a and b (rustdoc's
 * iterator pages), from words w: a title of two words, the page's name
 * (w[shared + 2 * own + p]) and, unless 0, a release (said again at
 * words 500 and 1500); own words of its own; then the shared words,
 * after every `every` of them the page's name and its type parameter.
 * Returns each page's length. */
static size_t template_pages(const uint32_t *w, size_t shared, size_t own, size_t every, uint32_t release,
			     uint32_t *a, uint32_t *b)
{
	const uint32_t *name = w + shared + 2 * own;
	uint32_t *pages[2] = {a, b};
	size_t n = 0;
	for (int p = 0; p < 2; p++) {
		uint32_t *x = pages[p];
		n = 0;
		x[n++] = name[4], x[n++] = name[5], x[n++] = name[p];
		if (release)
			x[n++] = release;
		for (size_t k = 0; k < own; k++)
			x[n++] = w[shared + p * own + k];
		for (size_t k = 0; k < shared; k++) {
			x[n++] = w[k];
			if (k % every == every - 1)
				x[n++] = name[p], x[n++] = name[2 + p]; /* "Peekable<I>", "Rev<J>" */
		}
		if (release)
			x[500] = x[1500] = release; /* "since 2.4" */
	}
	return n;
}

/* Two reference pages of one template about two types (rustdoc's
 * iterator pages): 2,000 words of a trait's methods both show, in which
 * each says its type's name 40 times (sampled in a place or two),
 * each time before its own type parameter, under a title of its own and a
 * description of its own.  The name is in each one's title, whose words'
 * places each record keeps whole: a rename at every point but story.
 * Its copy with words edited, its next release (the number in its title
 * changed wherever it stands) and one whose description renames a word
 * after the title are not; a record without its leads (as written before
 * them) sees no rename. */
static void test_renamed_by_lead(void **state)
{
	(void)state;
	uint64_t rng = 99;
	enum { SHARED = 2000, OWN = 30, L = 4 + OWN + SHARED + 80 };
	uint32_t w[SHARED + 2 * OWN + 10], a[L], b[L], v[L];
	random_words(&rng, w, SHARED + 2 * OWN + 10);
	for (size_t k = 400; k < SHARED; k++) /* a vocabulary of 400, as a trait's methods say "self" and "iterator" */
		w[k] = w[tu_rand(&rng) % 400];
	/* Each page names the other where both list their methods
	 * ("fn peekable", "fn rev"), twice. */
	w[700] = w[900] = w[SHARED + 2 * OWN], w[1300] = w[1700] = w[SHARED + 2 * OWN + 1];
	const uint32_t *name = w + SHARED + 2 * OWN; /* two names, two parameters, title words */
	assert_int_equal(template_pages(w, SHARED, OWN, 50, value_id("2.4"), a, b), L);
	nd_verify_how how;
	assert_int_equal(verdict(a, L, b, L, ND_POINT_COPY, &how), 0);
	assert_int_equal(how, ND_REFUSED_RENAMED);
	assert_int_equal(verdict(a, L, b, L, ND_POINT_STRICT, &how), 0);
	assert_int_equal(verdict(a, L, b, L, ND_POINT_STORY, &how), 1);
	/* Its copy with ten words edited. */
	memcpy(v, a, sizeof(v));
	for (size_t k = 0; k < 10; k++)
		v[100 + 180 * k] = w[SHARED + OWN + k];
	assert_int_equal(verdict(a, L, v, L, ND_POINT_COPY, &how), 1);
	/* Its next release: "2.4" is "2.5" in its title and where it says it
	 * again, twice. */
	memcpy(v, a, sizeof(v));
	v[3] = v[500] = v[1500] = value_id("2.5");
	assert_int_equal(verdict(a, L, v, L, ND_POINT_COPY, &how), 1);
	/* Its next release, whose description names another base class in
	 * its first sentence and wherever it says it (glibmm's VariantIter,
	 * "VariantBase" then "VariantContainerBase"): the title is the same,
	 * and the word renamed is not in it. */
	uint32_t r1[L];
	memcpy(r1, a, sizeof(r1));
	r1[10] = r1[300] = r1[700] = r1[1100] = w[SHARED + 2 * OWN + 6];
	memcpy(v, r1, sizeof(v));
	v[10] = v[300] = v[700] = v[1100] = w[SHARED + 2 * OWN + 7];
	assert_int_equal(verdict(r1, L, v, L, ND_POINT_COPY, &how), 1);
	/* Without the places of their leads' words, the names go unseen. */
	nd__rec ra, rb;
	assert_int_equal(nd__rec_make(a, L, &ra, NULL, 0), ND_OK);
	assert_int_equal(nd__rec_make(b, L, &rb, NULL, 0), ND_OK);
	assert_true(ra.nleads >= 20 && rb.nleads >= 20);
	assert_int_equal(nd__rec_verdict(ND_POINT_COPY, &ra, &rb, NULL, &how, NULL), 0);
	assert_int_equal(how, ND_REFUSED_RENAMED);
	uint32_t keep = ra.nleads;
	ra.nleads = rb.nleads = 0;
	assert_int_equal(nd__rec_verdict(ND_POINT_COPY, &ra, &rb, NULL, &how, NULL), 1);
	ra.nleads = keep;
	nd__rec_free(&ra);
	nd__rec_free(&rb);
	/* A word of the lead said more than one word in ND_LEAD_SHARE ("the",
	 * 13 times in 200) keeps no places; the name said 3 times keeps all
	 * three, the one right after the text's first word too (its place
	 * reads the start). */
	uint32_t t[200];
	memcpy(t, w, sizeof(t));
	t[0] = w[SHARED + 2 * OWN + 5], t[1] = name[0];
	for (size_t k = 0; k < 200; k += 200 / (ND_LEAD_SHARE / 2))
		t[k + 2] = w[SHARED + 2 * OWN + 5];
	t[60] = t[120] = name[0];
	assert_int_equal(nd__rec_make(t, 200, &ra, NULL, 0), ND_OK);
	assert_int_equal(ra.nleads, 3);
	nd__rec_free(&ra);
}

/* The same two pages of one template when each says its name 80 times
 * (rustdoc's Range, with every trait it implements: 67 times in 4,900
 * words, one word in 73): still a rename, as the title's word is one in
 * 27 words, under ND_LEAD_SHARE's one in 25. */
static void test_renamed_said_often(void **state)
{
	(void)state;
	uint64_t rng = 7;
	enum { SHARED = 2000, OWN = 30, L = 3 + OWN + SHARED + 160 };
	uint32_t w[SHARED + 2 * OWN + 8], a[L], b[L];
	random_words(&rng, w, SHARED + 2 * OWN + 8);
	for (size_t k = 400; k < SHARED; k++)
		w[k] = w[tu_rand(&rng) % 400];
	assert_int_equal(template_pages(w, SHARED, OWN, 25, 0, a, b), L);
	nd_verify_how how;
	assert_int_equal(verdict(a, L, b, L, ND_POINT_COPY, &how), 0);
	assert_int_equal(how, ND_REFUSED_RENAMED);
	assert_int_equal(verdict(a, L, b, L, ND_POINT_STORY, &how), 1);
}

/* Short reference pages of one template, each about its own name, which
 * its title begins with and which it says once more: Doxygen's pages of
 * the C headers ("cassert File Reference" ... "Definition in file
 * cassert"), whose one paragraph every such page shows.  The name meets
 * its namesake at the text's start and at one place more: a rename.
 * Pages whose name stands beside their own numbers (PostgreSQL's "37.40.
 * routine_column_usage" ... "Table 37.38. routine_column_usage") meet
 * there only if a number is a number wherever it stands.  The same page
 * of a release that numbered its sections otherwise, a copy whose
 * first word was edited, and one whose headline said twice was edited,
 * are copies. */
static void test_renamed_at_start(void **state)
{
	(void)state;
	uint64_t rng = 4711;
	enum { SHARED = 60, OWN = 20, L = 3 + SHARED + OWN + 5 };
	uint32_t w[SHARED + 2 * OWN + 16], a[L], b[L], c[L];
	random_words(&rng, w, SHARED + 2 * OWN + 16);
	const uint32_t *name = w + SHARED + 2 * OWN, *word = name + 2; /* two names; then other words */
	uint32_t *pages[2] = {a, b};
	for (int p = 0; p < 2; p++) {
		uint32_t *x = pages[p];
		size_t n = 0;
		x[n++] = name[p], x[n++] = word[0], x[n++] = word[1]; /* "cassert File Reference" */
		memcpy(x + n, w, SHARED * sizeof(*x));
		n += SHARED;
		memcpy(x + n, w + SHARED + p * OWN, OWN * sizeof(*x)); /* its macros, its own */
		n += OWN;
		x[n++] = word[2], x[n++] = word[3], x[n++] = word[4], x[n++] = name[p], x[n++] = word[5];
		assert_int_equal(n, L);
	}
	nd_verify_how how;
	assert_int_equal(verdict(a, L, b, L, ND_POINT_COPY, &how), 0);
	assert_int_equal(how, ND_REFUSED_RENAMED);
	assert_int_equal(verdict(a, L, b, L, ND_POINT_STORY, &how), 1);
	/* A copy whose first word was edited, and one edited elsewhere. */
	memcpy(c, a, sizeof(c));
	c[0] = word[6];
	assert_int_equal(verdict(a, L, c, L, ND_POINT_COPY, &how), 1);
	memcpy(c, a, sizeof(c));
	c[40] = word[6];
	assert_int_equal(verdict(a, L, c, L, ND_POINT_COPY, &how), 1);

	/* Numbered: each page's number first, then its name; the name again
	 * after "the view", and after "table" and another number. */
	uint32_t p1[L], p2[L], p3[L];
	uint32_t *num[3] = {p1, p2, p3};
	const char *first[3] = {"37.40.", "37.44.", "37.42."}, *table[3] = {"37.38.", "37.42.", "37.38."};
	for (int p = 0; p < 3; p++) {
		uint32_t *x = num[p];
		memcpy(x, a, sizeof(a));
		x[0] = value_id(first[p]), x[1] = name[p == 1];
		x[2] = word[7], x[3] = word[8], x[4] = name[p == 1];
		x[30] = word[9], x[31] = value_id(table[p]), x[32] = name[p == 1];
		x[L - 2] = word[10];
	}
	assert_int_equal(verdict(p1, L, p2, L, ND_POINT_COPY, &how), 0);
	assert_int_equal(how, ND_REFUSED_RENAMED);
	/* p3: p1 in a release that numbered its section otherwise (a
	 * number of the title and one more changed would be two values in
	 * 88 words: a filling). */
	assert_int_equal(verdict(p1, L, p3, L, ND_POINT_COPY, &how), 1);
	/* A headline said twice (a page's <title>, then its heading), one
	 * word of it edited in both: its lead's one place, no rename. */
	memcpy(p1, a, sizeof(a));
	p1[0] = p1[3] = word[11], p1[1] = p1[4] = word[12], p1[2] = p1[5] = word[13];
	memcpy(p2, p1, sizeof(p1));
	p2[1] = p2[4] = word[10];
	assert_int_equal(verdict(p1, L, p2, L, ND_POINT_COPY, &how), 1);
}

/* Reference pages too short for a name to be one word in ND_LEAD_SHARE:
 * Doxygen's page of a header file (25 words, "ov_tree_map_/info_fn_imps.hpp
 * File Reference ... Definition in file ov_tree_map_/info_fn_imps.hpp")
 * and of a specialization (std::hash<int>, whose "int" is 5 of its 123
 * words).  Said up to ND_LEAD_FLOOR times, a title's word is a name at
 * any length, so two such pages are a rename; an edited copy of either is
 * still a copy. */
static void test_renamed_short(void **state)
{
	(void)state;
	uint64_t rng = 1201;
	enum { S = 25, H = 123 };
	uint32_t w[H + 8], a[H], b[H + 5];
	random_words(&rng, w, H + 8);
	const uint32_t *name = w + H; /* two names */
	/* The premise: each name is said more than one word in ND_LEAD_SHARE. */
	assert_true(2 > S / ND_LEAD_SHARE && 5 > H / ND_LEAD_SHARE && 5 <= ND_LEAD_FLOOR);
	for (int p = 0; p < 2; p++) {
		uint32_t *x = p ? b : a;
		memcpy(x, w, S * sizeof(*x));
		x[11] = x[S - 3] = x[2];               /* "hpp", "file" */
		x[S - 2] = x[0];                       /* "ov_tree_map_" */
		x[1] = x[S - 1] = name[p];             /* "info_fn_imps" */
	}
	nd_verify_how how;
	assert_int_equal(verdict(a, S, b, S, ND_POINT_COPY, &how), 0);
	assert_int_equal(how, ND_REFUSED_RENAMED);
	memcpy(b, a, S * sizeof(*b));
	b[8] = w[H + 2];
	assert_int_equal(verdict(a, S, b, S, ND_POINT_COPY, &how), 1);
	/* The specialization: its name in the title and four times more;
	 * the other's is two words ("unsigned short"). */
	static const size_t at[] = {2, 29, 38, 98, 100};
	size_t na = 0, nb = 0;
	for (size_t i = 0, k = 0; i < H - 5; i++) {
		if (k < 5 && i == at[k] - k) {
			a[na++] = name[0], b[nb++] = name[1], b[nb++] = w[H + 4];
			k++;
		}
		a[na++] = b[nb++] = w[i];
	}
	assert_int_equal(na, H);
	assert_int_equal(verdict(a, na, b, nb, ND_POINT_COPY, &how), 0);
	assert_int_equal(how, ND_REFUSED_RENAMED);
	memcpy(b, a, H * sizeof(*b));
	b[50] = w[H + 2], b[90] = w[H + 3];
	assert_int_equal(verdict(a, H, b, H, ND_POINT_COPY, &how), 1);
}

/* Two fillings of one template: a word in ten their own, so their
 * 3-shingles agree as much as an edited version's (resemblance ~0.54,
 * which copy accepts) while their descriptive signatures share a fifth
 * of their bits.  Resemblance that barely accepts a pair is not enough
 * then: copy refuses it (ND_REFUSED_SIGNATURE).  Half the bits in common,
 * a signature not keyed (3 bits) or not known, a pair well above the
 * band, one that containment accepts, the story point and the strict
 * point (which decides by words) leave it alone. */
static void test_signature(void **state)
{
	(void)state;
	uint64_t rng = 4242;
	enum { L = 300 };
	uint32_t w[2 * L], a[L], b[L], c[L], t[L + 100];
	random_words(&rng, w, 2 * L);
	memcpy(a, w, L * sizeof(uint32_t));
	memcpy(b, w, sizeof(b));
	memcpy(c, w, sizeof(c));
	for (size_t k = 5; k < L; k += 10)
		b[k] = w[L + k];
	for (size_t k = 5; k < L; k += 40)
		c[k] = w[L + k];
	/* a edited a word in twenty, and a thread added. */
	memcpy(t, w, L * sizeof(uint32_t));
	for (size_t k = 5; k < L; k += 20)
		t[k] = w[L + k];
	memcpy(t + L, w + L, 100 * sizeof(uint32_t));
	const uint16_t six[] = {1, 2, 3, 4, 5, 6}, other[] = {1, 2, 7, 8, 9, 10}, half[] = {1, 2, 3, 4, 7, 8};
	nd__rec ra, rb, rc, rt;
	assert_int_equal(nd__rec_make(a, L, &ra, NULL, 0), ND_OK);
	assert_int_equal(nd__rec_make(b, L, &rb, NULL, 0), ND_OK);
	assert_int_equal(nd__rec_make(c, L, &rc, NULL, 0), ND_OK);
	assert_int_equal(nd__rec_make(t, L + 100, &rt, NULL, 0), ND_OK);
	nd_verify_how how;
	double d;
	/* No signatures: resemblance accepts the fillings, barely. */
	assert_int_equal(nd__rec_verdict(ND_POINT_COPY, &ra, &rb, NULL, &how, &d), 1);
	assert_int_equal(how, ND_VERIFIED_RESEMBLANCE);
	assert_true(d > 1 - ND_SIGNATURE_BAND && d <= 1 - ND_POINT_COPY_RESEMBLANCE);
	ra.bits = six, ra.nbits = 6;
	rb.bits = other, rb.nbits = 6;
	assert_int_equal(nd__rec_verdict(ND_POINT_COPY, &ra, &rb, NULL, &how, &d), 0);
	assert_int_equal(how, ND_REFUSED_SIGNATURE);
	assert_int_equal(nd__rec_verdict(ND_POINT_COPY, &ra, &rb, NULL, NULL, NULL), 0); /* yes-or-no route */
	assert_int_equal(nd__rec_verdict(ND_POINT_STORY, &ra, &rb, NULL, &how, NULL), 1);
	assert_int_equal(nd__rec_refused(ND_POINT_STRICT, &ra, &rb, &how), 0);
	rb.bits = half; /* 4 of 8: half */
	assert_int_equal(nd__rec_verdict(ND_POINT_COPY, &ra, &rb, NULL, &how, NULL), 1);
	rb.bits = other + 3, rb.nbits = 3; /* not keyed */
	assert_int_equal(nd__rec_verdict(ND_POINT_COPY, &ra, &rb, NULL, &how, NULL), 1);
	rb.bits = NULL, rb.nbits = 0; /* not known */
	assert_int_equal(nd__rec_verdict(ND_POINT_COPY, &ra, &rb, NULL, &how, NULL), 1);
	/* A version a word in forty edited: well above the band. */
	rc.bits = other, rc.nbits = 6;
	assert_int_equal(nd__rec_verdict(ND_POINT_COPY, &ra, &rc, NULL, &how, &d), 1);
	assert_true(d < 1 - ND_SIGNATURE_BAND);
	/* A thread added: other relative frequencies, and, contained, a copy
	 * all the same, though its resemblance is in the band. */
	rt.bits = other, rt.nbits = 6;
	assert_int_equal(nd__rec_verdict(ND_POINT_COPY, &ra, &rt, NULL, &how, &d), 1);
	assert_true(d > 1 - ND_SIGNATURE_BAND && d <= 1 - ND_POINT_COPY_RESEMBLANCE);
	/* The records never own their bits. */
	nd__rec_free(&ra);
	nd__rec_free(&rb);
	nd__rec_free(&rc);
	nd__rec_free(&rt);
}

/* Two mails of one thread are two messages unless their words are the
 * same (a reply quotes what it answers); the thread survives the record's
 * encoding, and a record from before threads reads as none. */
static void test_thread(void **state)
{
	(void)state;
	uint64_t rng = 77;
	enum { L = 200, OWN = 20 };
	uint32_t w[L + OWN], reply[L + OWN];
	random_words(&rng, w, L + OWN);
	memcpy(reply, w + L, OWN * sizeof(uint32_t)); /* its own lines, then the quote */
	memcpy(reply + OWN, w, L * sizeof(uint32_t));
	nd__rec ro, rr, rs, back;
	assert_int_equal(nd__rec_make(w, L, &ro, NULL, 0), ND_OK);
	assert_int_equal(nd__rec_make(reply, L + OWN, &rr, NULL, 0), ND_OK);
	assert_int_equal(nd__rec_make(w, L, &rs, NULL, 0), ND_OK); /* the mail resent */
	nd_verify_how how;
	/* Without threads the reply is a copy: the premise. */
	assert_int_equal(nd__rec_verdict(ND_POINT_COPY, &ro, &rr, NULL, &how, NULL), 1);
	ro.thread = rr.thread = rs.thread = 0x1234;
	assert_int_equal(nd__rec_verdict(ND_POINT_COPY, &ro, &rr, NULL, &how, NULL), 0);
	assert_int_equal(how, ND_REFUSED_THREAD);
	assert_int_equal(nd__rec_verdict(ND_POINT_COPY, &ro, &rr, NULL, NULL, NULL), 0); /* yes-or-no route */
	assert_int_equal(nd__rec_refused(ND_POINT_STRICT, &ro, &rr, &how), 1);
	assert_int_equal(nd__rec_verdict(ND_POINT_STORY, &ro, &rr, NULL, &how, NULL), 1);
	assert_int_equal(nd__rec_verdict(ND_POINT_COPY, &ro, &rs, NULL, &how, NULL), 1);
	assert_int_equal(nd__rec_refused(ND_POINT_STRICT, &ro, &rs, &how), 0);
	rr.thread = 0x4321; /* another thread: a copy again */
	assert_int_equal(nd__rec_verdict(ND_POINT_COPY, &ro, &rr, NULL, &how, NULL), 1);

	free(ro.pos); /* the thread last, as before places were kept */
	ro.pos = NULL;
	uint8_t *buf = malloc(nd__rec_size(&ro) + 1);
	assert_non_null(buf);
	size_t len = nd__rec_encode(&ro, buf);
	assert_int_equal(len, nd__rec_size(&ro));
	assert_int_equal(nd__rec_decode(buf, len, &back), ND_OK);
	assert_int_equal(back.thread, 0x1234);
	assert_int_equal(back.nsample, ro.nsample);
	memset(buf + len - 4, 0, 4); /* a thread of 0 is no thread's */
	assert_int_equal(nd__rec_decode(buf, len, &back), ND_ECORRUPT);
	ro.thread = 0;
	assert_int_equal(nd__rec_size(&ro), len - 4); /* as before threads */
	len = nd__rec_encode(&ro, buf);
	assert_int_equal(nd__rec_decode(buf, len, &back), ND_OK);
	assert_int_equal(back.thread, 0);
	free(buf);
	nd__rec_free(&ro);
	nd__rec_free(&rr);
	nd__rec_free(&rs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_words_both_routes),
		cmocka_unit_test(test_verify_splits),
		cmocka_unit_test(test_verify_cache),
		cmocka_unit_test(test_verify_batch),
		cmocka_unit_test(test_verify_bounded),
		cmocka_unit_test(test_cluster_linkage),
		cmocka_unit_test(test_points),
		cmocka_unit_test(test_points_reference),
		cmocka_unit_test(test_sampled_estimate),
		cmocka_unit_test(test_sample_cut),
		cmocka_unit_test(test_same_words_are_copies),
		cmocka_unit_test(test_record_in_place),
		cmocka_unit_test(test_record_positions),
		cmocka_unit_test(test_values_and_containment),
		cmocka_unit_test(test_renamed),
		cmocka_unit_test(test_renamed_by_lead),
		cmocka_unit_test(test_renamed_said_often),
		cmocka_unit_test(test_renamed_at_start),
		cmocka_unit_test(test_renamed_short),
		cmocka_unit_test(test_signature),
		cmocka_unit_test(test_thread),
		cmocka_unit_test(test_sort_u64),
		cmocka_unit_test(test_short_text_keys),
		cmocka_unit_test(test_framed_apart),
	};
	return cmocka_run_group_tests_name("verify", tests, setup, teardown);
}
