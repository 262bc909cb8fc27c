/* Collapsed search: native (Xapian's collapse key on the slot) and filter
 * (ranked list through the store) keep the same results, and only
 * verified near-duplicates are folded together. */
#include "tests/test_util.h"
#include "neardup/collapse.h"
#include "neardup/hook.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VOCAB 2000
#define SLOT 5

static char *dir, *dbpath, *storepath;
static nd_xdb *db;
static nd_store *st;
static nd_docid ndocs;

static int setup(void **state)
{
	(void)state;
	nd_indexer *ix;
	nd_descriptor *d;
	nd_build_options o = ND_BUILD_OPTIONS_INIT;
	dir = tu_tmpdir();
	dbpath = tu_join(dir, "db");
	storepath = tu_join(dir, "store");
	assert_int_equal(nd_indexer_open(&ix, dbpath, NULL), ND_OK);
	/* 150 families of 1-4 documents: an original and lightly edited copies. */
	for (int f = 0; f < 150; f++) {
		uint64_t rng = 9000 + (uint64_t)f;
		char *base = tu_random_doc(&rng, 120 + (size_t)(f % 5) * 40, VOCAB);
		for (int c = 0; c <= f % 4; c++) {
			uint64_t erng = (uint64_t)f * 7 + (uint64_t)c;
			char *t = c ? tu_edit_doc(&erng, base, 1 + (size_t)c % 2, VOCAB) : strdup(base), id[32];
			snprintf(id, sizeof(id), "f%d.%d", f, c);
			assert_int_equal(nd_indexer_add_text(ix, id, t, strlen(t), NULL, NULL), ND_OK);
			free(t);
		}
		free(base);
	}
	assert_int_equal(nd_indexer_commit(ix), ND_OK);
	o.words = 250;
	assert_int_equal(nd_descriptor_build(&d, nd_indexer_db(ix), &o, NULL), ND_OK);
	assert_int_equal(nd_store_open(&st, storepath, ND_STORE_WRITE), ND_OK);
	assert_int_equal(nd_descriptor_save(d, st, nd_indexer_db(ix), &o), ND_OK);
	assert_int_equal(nd_sign_all(st, nd_indexer_db(ix), NULL, NULL), ND_OK);
	nd_descriptor_free(d);
	/* What `neardup sign --value-slot` does. */
	assert_int_equal(nd_xdb_lastdocid(nd_indexer_db(ix), &ndocs), ND_OK);
	nd_docid *all = malloc(ndocs * sizeof(*all));
	for (nd_docid i = 0; i < ndocs; i++)
		all[i] = i + 1;
	assert_int_equal(nd_collapse_slot_set(st, SLOT), ND_OK);
	assert_int_equal(nd_collapse_write_slot(nd_indexer_db(ix), st, NULL, SLOT, all, ndocs, NULL), ND_OK);
	free(all);
	assert_int_equal(nd_indexer_close(ix), ND_OK);
	assert_int_equal(nd_xdb_open(&db, dbpath, ND_XDB_READ), ND_OK);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	nd_xdb_close(db);
	nd_store_close(st);
	tu_rmtree(dir);
	free(dir);
	free(dbpath);
	free(storepath);
	return 0;
}

static void test_native_equals_filter(void **state)
{
	(void)state;
	/* Frequent, middling and rare words of the synthetic vocabulary. */
	const char *queries[] = {"w0003a", "w0010a w0025a", "w0040a AND w0002a", "w0100a OR w0150a",
				 "w0400a", "w0007a NOT w0009a"};
	nd_xdb_hit a[10], b[10];
	size_t total_collapsed = 0;
	for (size_t q = 0; q < sizeof(queries) / sizeof(queries[0]); q++) {
		for (uint32_t off = 0; off < 60; off += 10) {
			size_t na, nb;
			assert_int_equal(nd_search(db, st, queries[q], ND_COLLAPSE_NATIVE, off, 10, 10000, a,
						   &na, NULL), ND_OK);
			assert_int_equal(nd_search(db, st, queries[q], ND_COLLAPSE_FILTER, off, 10, 10000, b,
						   &nb, NULL), ND_OK);
			assert_int_equal(na, nb);
			for (size_t i = 0; i < na; i++) {
				assert_int_equal(a[i].docid, b[i].docid);
				assert_int_equal(a[i].collapsed, b[i].collapsed);
				assert_true(a[i].weight == b[i].weight);
				total_collapsed += a[i].collapsed;
			}
		}
	}
	assert_true(total_collapsed > 20); /* the corpus has families: something collapsed */
}

/* Over a whole ranked list: kept documents have distinct collapse ids, and
 * each dropped one shares its id with a better-ranked kept one. */
static void test_filter_keeps_one_per_group(void **state)
{
	(void)state;
	nd_xdb_query q = {0, 0, -1, 0};
	nd_xdb_hit *hits = malloc(ndocs * sizeof(*hits));
	nd_docid *ranked = malloc(ndocs * sizeof(*ranked)), *ids = malloc(ndocs * sizeof(*ids));
	nd_collapsed *kept = malloc(ndocs * sizeof(*kept));
	size_t n, nkept, dropped = 0, counted = 0;
	q.max = ndocs;
	assert_int_equal(nd_xdb_search(db, "w0001a OR w0002a OR w0003a", &q, hits, &n, NULL), ND_OK);
	assert_true(n > 100);
	for (size_t i = 0; i < n; i++)
		ranked[i] = hits[i].docid;
	assert_int_equal(nd_collapse_ids(db, st, NULL, ranked, n, ids), ND_OK);
	assert_int_equal(nd_collapse(db, st, NULL, ranked, n, kept, &nkept), ND_OK);
	assert_true(nkept < n);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (k < nkept && kept[k].docid == ranked[i]) {
			for (size_t j = 0; j < i; j++) /* no better-ranked document of its group */
				assert_true(!ids[i] || ids[j] != ids[i]);
			counted += kept[k].collapsed;
			k++;
			continue;
		}
		dropped++;
		assert_int_not_equal(ids[i], 0);
		int found = 0;
		for (size_t j = 0; j < i; j++)
			found |= ids[j] == ids[i];
		assert_true(found);
	}
	assert_int_equal(k, nkept);
	assert_int_equal(dropped, counted);
	/* A collapse id is a member of its own group: the lowest docid. */
	for (size_t i = 0; i < n; i++)
		if (ids[i]) {
			nd_docid self;
			assert_int_equal(nd_collapse_ids(db, st, NULL, &ids[i], 1, &self), ND_OK);
			assert_int_equal(self, ids[i]);
			assert_true(ids[i] <= ranked[i]);
		}
	free(hits);
	free(ranked);
	free(ids);
	free(kept);
}

static void test_native_needs_slot(void **state)
{
	(void)state;
	char *p = tu_join(dir, "noslot");
	nd_store *s2;
	nd_xdb_hit h[5];
	size_t n;
	assert_int_equal(nd_store_open(&s2, p, ND_STORE_WRITE), ND_OK);
	assert_int_equal(nd_search(db, s2, "w0003a", ND_COLLAPSE_NATIVE, 0, 5, 100, h, &n, NULL), ND_ESTATE);
	assert_non_null(strstr(nd_error_last(), "--value-slot"));
	assert_int_equal(nd_collapse_slot_set(s2, 0x6e64), ND_EINVAL); /* the word-sequence slot */
	assert_int_equal(nd_search(db, s2, "w0003a AND (", ND_COLLAPSE_NONE, 0, 5, 100, h, &n, NULL), ND_EINVAL);
	nd_store_close(s2);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_native_equals_filter),
		cmocka_unit_test(test_filter_keeps_one_per_group),
		cmocka_unit_test(test_native_needs_slot),
	};
	return cmocka_run_group_tests_name("collapse", tests, setup, teardown);
}
