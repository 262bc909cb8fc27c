/* Adversarial sizes: no path may go quadratic.  A document of one word
 * repeated a million times; a cluster of 100,000 identical documents; a
 * cluster of 10,000 documents with one signature and pairwise different
 * texts (the all-pairs trap for verification).  The default run uses
 * 20,000 and 3,000 (the counts asserted are linear either way); make slow
 * the full sizes. */
#include "tests/test_util.h"
#include "neardup/check.h"
#include "neardup/descriptor.h"
#include "neardup/indexer.h"
#include "neardup/store.h"
#include "neardup/verify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VOCAB 2000
#define BASE_DOCS 300
#define IDENTICAL (tu_slow() ? 100000 : 20000)
#define DISTINCT (tu_slow() ? 10000 : 3000)

static char *dir, *dbpath, *storepath, *base, *base2;

/* A short text sure to have a key: descriptive words first..first+7, each
 * a tenth of it, between random words. */
static char *key_text(const nd_descriptor *d, uint32_t first, uint64_t *rng)
{
	size_t cap = 8 * 5 * 40, n = 0;
	char *t = malloc(cap);
	for (uint32_t i = first; i < first + 8; i++)
		for (int r = 0; r < 5; r++)
			n += (size_t)snprintf(t + n, cap - n, "%s w%04llua ", nd_descriptor_word(d, i),
					      (unsigned long long)(tu_rand(rng) % VOCAB));
	return t;
}

/* Index BASE_DOCS random texts and build the descriptive set from them:
 * the big clusters arrive later, as documents do in a live index. */
static int setup(void **state)
{
	(void)state;
	uint64_t rng = 5;
	nd_indexer *ix;
	nd_xdb *db;
	nd_store *st;
	nd_descriptor *d;
	nd_build_options o = ND_BUILD_OPTIONS_INIT;
	char id[32];

	dir = tu_tmpdir();
	dbpath = tu_join(dir, "db");
	storepath = tu_join(dir, "store");
	assert_int_equal(nd_indexer_open(&ix, dbpath, NULL), ND_OK);
	for (int i = 0; i < BASE_DOCS; i++) {
		char *t = tu_random_doc(&rng, 150, VOCAB);
		snprintf(id, sizeof(id), "base%d", i);
		assert_int_equal(nd_indexer_add_text(ix, id, t, strlen(t), NULL, NULL), ND_OK);
		free(t);
	}
	assert_int_equal(nd_indexer_close(ix), ND_OK);
	o.words = 400;
	assert_int_equal(nd_xdb_open(&db, dbpath, ND_XDB_READ), ND_OK);
	assert_int_equal(nd_descriptor_build(&d, db, &o, NULL), ND_OK);
	base = key_text(d, 0, &rng);
	base2 = key_text(d, 8, &rng);
	assert_int_equal(nd_store_open(&st, storepath, ND_STORE_WRITE), ND_OK);
	assert_int_equal(nd_descriptor_save(d, st, db, &o), ND_OK);
	nd_descriptor_free(d);
	nd_store_close(st);
	nd_xdb_close(db);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tu_rmtree(dir);
	free(dir);
	free(dbpath);
	free(storepath);
	free(base);
	free(base2);
	return 0;
}

static void sign_all(nd_store *st, nd_xdb *db)
{
	nd_sign_options so = ND_SIGN_OPTIONS_INIT;
	so.max_drift = 0; /* the clusters below dwarf the base set on purpose */
	assert_int_equal(nd_sign_all(st, db, &so, NULL), ND_OK);
}

/* The members of the cluster `uid` belongs to. */
static void cluster_of(nd_store *st, nd_xdb *db, const char *uid, uint64_t *key, uint32_t **docs,
		       size_t *n)
{
	nd_docid d;
	nd_store_txn *txn;
	assert_int_equal(nd_xdb_find_uid(db, uid, &d), ND_OK);
	assert_int_equal(nd_store_read_begin(st, &txn), ND_OK);
	assert_int_equal(nd_store_doc_get(txn, d, key, NULL, NULL), ND_OK);
	assert_true(*key != 0);
	assert_int_equal(nd_store_key_docs(txn, *key, docs, n), ND_OK);
	nd_store_txn_end(txn);
}

/* One word a million times: indexed, signed and checked, and a pair of
 * such documents is judged by shingles (their records' at copy, long
 * shingles at strict), never by a 10^12-cell Levenshtein. */
static void test_one_word_million(void **state)
{
	(void)state;
	size_t words = 1000000;
	char *t = malloc(words * 5 + 16);
	for (size_t i = 0; i < words; i++)
		memcpy(t + i * 5, "spam ", 5);
	size_t len = words * 5;
	nd_indexer *ix;
	assert_int_equal(nd_indexer_open(&ix, dbpath, NULL), ND_OK);
	assert_int_equal(nd_indexer_add_text(ix, "spam-a", t, len, NULL, NULL), ND_OK);
	memcpy(t + len, "ham", 4);
	assert_int_equal(nd_indexer_add_text(ix, "spam-b", t, len + 3, NULL, NULL), ND_OK);
	assert_int_equal(nd_indexer_close(ix), ND_OK);

	nd_xdb *db;
	nd_store *st;
	nd_docid pair[2];
	assert_int_equal(nd_xdb_open(&db, dbpath, ND_XDB_READ), ND_OK);
	assert_int_equal(nd_store_open(&st, storepath, ND_STORE_WRITE), ND_OK);
	sign_all(st, db);
	assert_int_equal(nd_xdb_find_uid(db, "spam-a", &pair[0]), ND_OK);
	assert_int_equal(nd_xdb_find_uid(db, "spam-b", &pair[1]), ND_OK);

	nd_verify_options vo = ND_VERIFY_OPTIONS_INIT;
	nd_verified out[2];
	nd_verify_stats vs = {0};
	uint32_t groups;
	assert_int_equal(nd_verify_cluster(db, NULL, 0, pair, 2, &vo, out, &groups, &vs), ND_OK);
	assert_int_equal(vs.compared, 1);
	assert_int_equal(groups, 1);
	assert_int_equal(out[1].how, ND_VERIFIED_RESEMBLANCE);
	vo.point = ND_POINT_STRICT;
	assert_int_equal(nd_verify_cluster(db, NULL, 0, pair, 2, &vo, out, &groups, &vs), ND_OK);
	assert_int_equal(groups, 1);
	assert_int_equal(out[1].how, ND_VERIFIED_SHINGLES);

	/* The crawl-time check of the same text: one word, so no key, but its
	 * text's near-neighbour keys find both copies. */
	nd_tokenizer *tk;
	nd_descriptor *d;
	nd_check_result cr = ND_CHECK_RESULT_INIT;
	assert_int_equal(nd_tokenizer_new(&tk), ND_OK);
	assert_int_equal(nd_descriptor_load(&d, st, db), ND_OK);
	assert_int_equal(nd_check_text(tk, d, db, st, t, len, NULL, 8, &cr), ND_OK);
	assert_true(cr.sig.nbits <= 1);
	assert_int_equal(cr.sig.key, 0);
	int found = 0;
	for (size_t i = 0; i < cr.nmembers; i++)
		if (cr.members[i].duplicate && (cr.members[i].docid == pair[0] || cr.members[i].docid == pair[1]))
			found++;
	assert_int_equal(found, 2);
	nd_check_result_clear(&cr);
	nd_descriptor_free(d);
	nd_tokenizer_free(tk);
	nd_store_close(st);
	nd_xdb_close(db);
	free(t);
}

/* 100,000 copies of one text: one cluster, verified with n - 1
 * comparisons (each member against the group's representative). */
static void test_identical_cluster(void **state)
{
	(void)state;
	nd_index_options io = ND_INDEX_OPTIONS_INIT;
	nd_indexer *ix;
	char id[32];
	io.batch_docs = 20000;
	assert_int_equal(nd_indexer_open(&ix, dbpath, &io), ND_OK);
	for (int i = 0; i < IDENTICAL; i++) {
		snprintf(id, sizeof(id), "copy%d", i);
		assert_int_equal(nd_indexer_add_text(ix, id, base, strlen(base), NULL, NULL), ND_OK);
	}
	assert_int_equal(nd_indexer_close(ix), ND_OK);

	nd_xdb *db;
	nd_store *st;
	uint64_t key;
	uint32_t *docs;
	size_t n;
	assert_int_equal(nd_xdb_open(&db, dbpath, ND_XDB_READ), ND_OK);
	assert_int_equal(nd_store_open(&st, storepath, ND_STORE_WRITE), ND_OK);
	sign_all(st, db);
	cluster_of(st, db, "copy0", &key, &docs, &n);
	assert_int_equal(n, IDENTICAL);

	nd_verify_options vo = ND_VERIFY_OPTIONS_INIT;
	nd_verified *out = malloc(n * sizeof(*out));
	nd_verify_stats vs = {0};
	uint32_t groups;
	assert_int_equal(nd_verify_cluster(db, st, key, docs, n, &vo, out, &groups, &vs), ND_OK);
	assert_int_equal(groups, 1);
	assert_int_equal(vs.compared, n - 1);
	assert_int_equal(out[n - 1].group, 0);
	assert_true(out[n - 1].distance == 0.0);
	/* Asked again, the cache answers without comparing. */
	nd_verify_stats again = {0};
	assert_int_equal(nd_verify_cluster(db, st, key, docs, n, &vo, out, &groups, &again), ND_OK);
	assert_int_equal(again.compared, 0);
	assert_int_equal(again.cached_clusters, 1);
	free(out);
	free(docs);
	nd_store_close(st);
	nd_xdb_close(db);
}

/* DISTINCT documents sharing one signature but pairwise far apart: the
 * second base text plus half as many words again from a vocabulary the descriptive
 * set has never seen.  All-pairs would be 5*10^7 comparisons; the leader
 * bound keeps it under max_leaders per member. */
static void test_distinct_cluster(void **state)
{
	(void)state;
	nd_index_options io = ND_INDEX_OPTIONS_INIT;
	nd_indexer *ix;
	uint64_t rng = 99;
	size_t blen = strlen(base2), cap = blen + 40 * 12 + 8;
	char *t = malloc(cap), id[32];
	io.batch_docs = 5000;
	assert_int_equal(nd_indexer_open(&ix, dbpath, &io), ND_OK);
	for (int i = 0; i < DISTINCT; i++) {
		size_t n = (size_t)snprintf(t, cap, "%s", base2);
		for (int w = 0; w < 40; w++)
			n += (size_t)snprintf(t + n, cap - n, " zz%llu",
					      (unsigned long long)(tu_rand(&rng) % 1000000));
		snprintf(id, sizeof(id), "far%d", i);
		assert_int_equal(nd_indexer_add_text(ix, id, t, n, NULL, NULL), ND_OK);
	}
	assert_int_equal(nd_indexer_close(ix), ND_OK);
	free(t);

	nd_xdb *db;
	nd_store *st;
	uint64_t key;
	uint32_t *docs;
	size_t n;
	assert_int_equal(nd_xdb_open(&db, dbpath, ND_XDB_READ), ND_OK);
	assert_int_equal(nd_store_open(&st, storepath, ND_STORE_WRITE), ND_OK);
	sign_all(st, db);
	cluster_of(st, db, "far0", &key, &docs, &n);
	assert_true(n >= DISTINCT * 9 / 10 && n <= DISTINCT); /* nearly all share the key */

	/* Far apart by Levenshtein (the strict point: under copy they share
	 * their main text, base2, and are duplicates). */
	nd_verify_options vo = ND_VERIFY_OPTIONS_INIT;
	vo.point = ND_POINT_STRICT;
	nd_verified *out = malloc(n * sizeof(*out));
	nd_verify_stats vs = {0};
	uint32_t groups;
	assert_int_equal(nd_verify_cluster(db, NULL, key, docs, n, &vo, out, &groups, &vs), ND_OK);
	assert_true(groups > n / 2);                    /* they really differ */
	assert_true(vs.compared <= (uint64_t)n * vo.max_leaders);
	assert_true(vs.rejected > (uint64_t)n);
	free(out);
	free(docs);
	nd_store_close(st);
	nd_xdb_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_word_million),
		cmocka_unit_test(test_identical_cluster),
		cmocka_unit_test(test_distinct_cluster),
	};
	return cmocka_run_group_tests_name("limits", tests, setup, teardown);
}
