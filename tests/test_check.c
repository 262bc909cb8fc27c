/* Crawl-time check: the signature of unindexed text equals the one
 * indexing and signing the same text gives, and near-duplicates are found. */
#include "tests/test_util.h"
#include "neardup/check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NDOCS 400
#define VOCAB 3000

static char *dir, *dbpath, *storepath;

static int setup(void **state)
{
	(void)state;
	uint64_t rng = 77;
	nd_indexer *ix;
	nd_xdb *db;
	dir = tu_tmpdir();
	dbpath = tu_join(dir, "db");
	storepath = tu_join(dir, "store");
	assert_int_equal(nd_indexer_open(&ix, dbpath, NULL), ND_OK);
	for (int i = 0; i < NDOCS; i++) {
		char *doc = tu_random_doc(&rng, 100 + (size_t)(i % 9) * 40, VOCAB), id[32];
		snprintf(id, sizeof(id), "d%d", i);
		assert_int_equal(nd_indexer_add_text(ix, id, doc, strlen(doc), NULL, NULL), ND_OK);
		free(doc);
	}
	assert_int_equal(nd_indexer_close(ix), ND_OK);
	assert_int_equal(nd_xdb_open(&db, dbpath, ND_XDB_READ), ND_OK);
	tu_build_and_sign(db, storepath, 300, NULL);
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
	return 0;
}

/* 60 new texts (some with case, punctuation and long tokens, which the
 * tokenizer folds or drops): check first, then index and sign, compare. */
static void test_check_equals_index_then_sign(void **state)
{
	(void)state;
	nd_tokenizer *tk;
	nd_store *st;
	nd_descriptor *d;
	nd_xdb *db;
	nd_indexer *ix;
	uint64_t rng = 1234;
	nd_sig want[60];
	int keyed = 0;
	assert_int_equal(nd_tokenizer_new(&tk), ND_OK);
	assert_int_equal(nd_xdb_open(&db, dbpath, ND_XDB_READ), ND_OK);
	assert_int_equal(nd_store_open(&st, storepath, ND_STORE_WRITE), ND_OK);
	assert_int_equal(nd_descriptor_load(&d, st, db), ND_OK);
	char *texts[60];
	for (int i = 0; i < 60; i++) {
		char *doc = tu_random_doc(&rng, 80 + (size_t)i * 7, VOCAB);
		size_t n = strlen(doc);
		texts[i] = malloc(n + 200);
		/* Upper case, punctuation and an over-long token must not matter. */
		snprintf(texts[i], n + 200, "%s, W0001A! %s", doc,
			 i % 3 ? "" : "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
		free(doc);
		nd_check_result r = ND_CHECK_RESULT_INIT;
		assert_int_equal(nd_check_text(tk, d, db, st, texts[i], strlen(texts[i]), NULL, 4, &r), ND_OK);
		want[i] = r.sig;
		r.sig = (nd_sig)ND_SIG_INIT;
		nd_check_result_clear(&r);
		keyed += want[i].key != 0;
	}
	assert_true(keyed > 30);
	assert_int_equal(nd_indexer_open(&ix, dbpath, NULL), ND_OK);
	for (int i = 0; i < 60; i++) {
		char id[32];
		snprintf(id, sizeof(id), "new%d", i);
		assert_int_equal(nd_indexer_add_text(ix, id, texts[i], strlen(texts[i]), NULL, NULL), ND_OK);
	}
	assert_int_equal(nd_indexer_close(ix), ND_OK);
	assert_int_equal(nd_xdb_reopen(db, NULL), ND_OK);
	nd_sign_report rep;
	assert_int_equal(nd_sign_all(st, db, NULL, &rep), ND_OK);
	assert_int_equal(rep.docs, 60);
	nd_store_txn *txn;
	assert_int_equal(nd_store_read_begin(st, &txn), ND_OK);
	for (int i = 0; i < 60; i++) {
		char uid[32];
		nd_docid docid;
		uint64_t key;
		const void *payload;
		size_t len;
		nd_sig got = ND_SIG_INIT;
		snprintf(uid, sizeof(uid), "new%d", i);
		assert_int_equal(nd_xdb_find_uid(db, uid, &docid), ND_OK);
		assert_int_equal(nd_store_doc_get(txn, docid, &key, &payload, &len), ND_OK);
		assert_int_equal(nd_sig_decode(&got, payload, len, nd_descriptor_size(d)), ND_OK);
		assert_int_equal(key, want[i].key);
		assert_int_equal(got.nbits, want[i].nbits);
		if (got.nbits)
			assert_memory_equal(got.bits, want[i].bits, got.nbits * sizeof(uint16_t));
		nd_sig_clear(&got);
		nd_sig_clear(&want[i]);
		free(texts[i]);
	}
	nd_store_txn_end(txn);
	nd_descriptor_free(d);
	nd_store_close(st);
	nd_xdb_close(db);
	nd_tokenizer_free(tk);
}

/* An indexed document, lightly edited, finds its original as a verified
 * duplicate; an unrelated text finds none. */
static void test_check_finds_original(void **state)
{
	(void)state;
	nd_tokenizer *tk;
	nd_store *st;
	nd_descriptor *d;
	nd_xdb *db;
	uint64_t rng = 77;
	char *doc = tu_random_doc(&rng, 100, VOCAB); /* the text of d0 (same seed) */
	uint64_t e = 5;
	char *edited = tu_edit_doc(&e, doc, 2, VOCAB);
	assert_int_equal(nd_tokenizer_new(&tk), ND_OK);
	assert_int_equal(nd_xdb_open(&db, dbpath, ND_XDB_READ), ND_OK);
	assert_int_equal(nd_store_open(&st, storepath, ND_STORE_READ), ND_OK);
	assert_int_equal(nd_descriptor_load(&d, st, db), ND_OK);
	nd_check_result r = ND_CHECK_RESULT_INIT;
	assert_int_equal(nd_check_text(tk, d, db, st, doc, strlen(doc), NULL, 8, &r), ND_OK);
	assert_int_not_equal(r.sig.key, 0);
	uint64_t key = r.sig.key;
	nd_docid d0;
	assert_int_equal(nd_xdb_find_uid(db, "d0", &d0), ND_OK);
	int found = 0;
	for (size_t i = 0; i < r.nmembers; i++)
		if (r.members[i].docid == d0) {
			found = 1;
			assert_true(r.members[i].duplicate);
			assert_true(r.members[i].distance == 0);
		}
	assert_true(found);
	nd_check_result_clear(&r);
	/* At the strict point the words themselves: the same text, at
	 * Levenshtein distance 0. */
	nd_verify_options strict = ND_VERIFY_OPTIONS_INIT;
	strict.point = ND_POINT_STRICT;
	assert_int_equal(nd_check_text(tk, d, db, st, doc, strlen(doc), &strict, 8, &r), ND_OK);
	found = 0;
	for (size_t i = 0; i < r.nmembers; i++)
		if (r.members[i].docid == d0) {
			found = 1;
			assert_true(r.members[i].duplicate);
			assert_int_equal(r.members[i].how, ND_VERIFIED_LEVENSHTEIN);
			assert_true(r.members[i].distance == 0);
		}
	assert_true(found);
	nd_check_result_clear(&r);
	assert_int_equal(nd_check_text(tk, d, db, st, edited, strlen(edited), NULL, 8, &r), ND_OK);
	if (r.sig.key == key) { /* a 2-word edit usually keeps the key; when it does: */
		assert_true(r.duplicates >= 1);
		assert_true(r.members[0].distance <= 0.02 + 1e-9);
	}
	nd_check_result_clear(&r);
	nd_descriptor_free(d);
	nd_store_close(st);
	nd_xdb_close(db);
	nd_tokenizer_free(tk);
	free(doc);
	free(edited);
}

/* Tolerant check: a copy whose signature lost one of six bits has no
 * equal key, but shares 5 of 6 bits (Jaccard 5/6): found at --tolerant
 * 0.5 and verified, not at 0.9.  A text with only two bits (no key) is
 * still matched.  The set is made by hand: s1..s6 above 1%. */
static void test_check_tolerant(void **state)
{
	(void)state;
	char *tdir = tu_tmpdir(), *tdb = tu_join(tdir, "db"), *tst = tu_join(tdir, "st");
	uint64_t rng = 5;
	char *filler = tu_random_doc(&rng, 200, VOCAB), *other = tu_random_doc(&rng, 200, VOCAB);
	size_t cap = strlen(filler) + 200;
	char *a = malloc(cap), *b = malloc(cap), *two = malloc(cap);
	/* a: s1..s6 twice each; b: s6 replaced by s7 (not in the set). */
	snprintf(a, cap, "s1 s2 s3 s4 s5 s6 %s s1 s2 s3 s4 s5 s6", filler);
	snprintf(b, cap, "s1 s2 s3 s4 s5 s7 %s s1 s2 s3 s4 s5 s7", filler);
	snprintf(two, cap, "s1 s2 %s s1 s2", other);
	const char *ids[] = {"a", "two", "other"};
	char *texts[] = {a, two, other};
	nd_xdb *db;
	nd_store *st;
	nd_descriptor *d;
	nd_tokenizer *tk;
	tu_handmade_set(tdb, tst, ids, texts, 3, 6, &db, &st, &d);
	assert_int_equal(nd_tokenizer_new(&tk), ND_OK);

	nd_check_result r = ND_CHECK_RESULT_INIT;
	/* Plain check: b's key (5 bits) is nobody's, but the near-neighbour
	 * index proposes a (and two, and other: its text trees hold every
	 * document with a word), and the verdict confirms a alone. */
	assert_int_equal(nd_check_text(tk, d, db, st, b, strlen(b), NULL, 8, &r), ND_OK);
	assert_int_equal(r.sig.nbits, 5);
	assert_true(r.sig.key != 0);
	assert_int_equal(r.cluster_size, 3);
	assert_int_equal(r.duplicates, 1);
	assert_int_equal(r.members[0].docid, 1);
	assert_true(r.members[0].duplicate && r.members[0].how == ND_VERIFIED_RESEMBLANCE);
	nd_check_result_clear(&r);
	/* Tolerant 0.5: a (5 of 6 bits shared) by the bits; two ({s1, s2}:
	 * 2/5) and other only as neighbours in the near-neighbour index.  a
	 * ranks first and is the one duplicate; two, sharing bits, next. */
	assert_int_equal(nd_check_text_tolerant(tk, d, db, st, b, strlen(b), 0.5, NULL, 8, &r), ND_OK);
	assert_int_equal(r.cluster_size, 3);
	assert_int_equal(r.nmembers, 3);
	assert_int_equal(r.duplicates, 1);
	assert_true(fabs(r.members[0].jaccard - 5.0 / 6.0) < 1e-9);
	assert_true(fabs(r.members[1].jaccard - 2.0 / 5.0) < 1e-9);
	assert_true(r.members[0].duplicate && r.members[0].distance <= 0.08);
	assert_true(!r.members[1].duplicate);
	nd_check_result_clear(&r);
	/* At 0.9 the bits find nothing, the index still finds a. */
	assert_int_equal(nd_check_text_tolerant(tk, d, db, st, b, strlen(b), 0.9, NULL, 8, &r), ND_OK);
	assert_int_equal(r.cluster_size, 3);
	assert_int_equal(r.duplicates, 1);
	assert_int_equal(r.members[0].docid, 1);
	nd_check_result_clear(&r);
	/* Two bits: no key, but the index still finds "two" (and a, other);
	 * "two" is "other" with four words added, so both are its copies. */
	assert_int_equal(nd_check_text(tk, d, db, st, two, strlen(two), NULL, 8, &r), ND_OK);
	assert_int_equal(r.sig.key, 0);
	assert_int_equal(r.cluster_size, 3);
	assert_int_equal(r.duplicates, 2);
	assert_int_equal(r.members[0].docid, 2);
	nd_check_result_clear(&r);
	assert_int_equal(nd_check_text_tolerant(tk, d, db, st, two, strlen(two), 1.0, NULL, 8, &r), ND_OK);
	assert_int_equal(r.cluster_size, 3); /* and a and other, the index's neighbours */
	assert_int_equal(r.duplicates, 2);
	assert_int_equal(r.members[0].docid, 2);
	nd_check_result_clear(&r);
	assert_int_equal(nd_check_text_tolerant(tk, d, db, st, b, strlen(b), 0, NULL, 8, &r), ND_EINVAL);
	nd_check_result_clear(&r);

	nd_tokenizer_free(tk);
	nd_descriptor_free(d);
	nd_store_close(st);
	nd_xdb_close(db);
	free(a), free(b), free(two), free(filler), free(other);
	tu_rmtree(tdir);
	free(tdir), free(tdb), free(tst);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check_equals_index_then_sign),
		cmocka_unit_test(test_check_finds_original),
		cmocka_unit_test(test_check_tolerant),
	};
	return cmocka_run_group_tests_name("check", tests, setup, teardown);
}
