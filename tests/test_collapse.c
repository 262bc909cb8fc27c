/* Collapsed search: native (Xapian's collapse key on the slot) and filter
 * (ranked list through the store) keep the same results, and only
 * verified near-duplicates are folded together. */
#include "tests/test_util.h"
#include "neardup/collapse.h"
#include "neardup/hook.h"
#include "neardup/similarity.h"
#include "neardup/words.h"

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
	tu_build_and_sign(nd_indexer_db(ix), storepath, 250, &st);
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
	const char *queries[] = {"waaada", "waabaa waacfa", "waaeaa AND waaaca", "wabaaa OR wabfaa",
				 "waeaaa", "waaaha NOT waaaja"};
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
	assert_int_equal(nd_xdb_search(db, "waaaba OR waaaca OR waaada", &q, hits, &n, NULL), ND_OK);
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
	assert_int_equal(nd_search(db, s2, "waaada", ND_COLLAPSE_NATIVE, 0, 5, 100, h, &n, NULL), ND_ESTATE);
	assert_non_null(strstr(nd_error_last(), "--value-slot"));
	/* The word-sequence slots, today's and those of databases indexed
	 * before ids marked digits. */
	const int word_slots[] = {ND_SLOT_WORDS, ND_SLOT_FULL_WORDS, ND_SLOT_WORDS_V1, ND_SLOT_FULL_WORDS_V1};
	for (size_t k = 0; k < 4; k++) {
		assert_int_equal(nd_collapse_slot_set(s2, word_slots[k]), ND_EINVAL);
		assert_non_null(strstr(nd_error_last(), "word sequences"));
	}
	assert_int_equal(nd_search(db, s2, "waaada AND (", ND_COLLAPSE_NONE, 0, 5, 100, h, &n, NULL), ND_EINVAL);
	nd_store_close(s2);
	free(p);
}

/* The prefix-filtered collapse equals the definition, computed here by
 * scanning every kept result, on a ranked list of the family corpus. */
static void test_tolerant_equals_scan(void **state)
{
	(void)state;
	nd_xdb_query q = {0, 0, -1, 0};
	nd_xdb_hit *hits = malloc(ndocs * sizeof(*hits));
	nd_docid *ranked = malloc(ndocs * sizeof(*ranked));
	nd_collapsed *out = malloc(ndocs * sizeof(*out));
	nd_sig *sig = calloc(ndocs, sizeof(*sig));
	size_t *kept = malloc(ndocs * sizeof(*kept)), *folded = calloc(ndocs, sizeof(*folded)), n, nk;
	nd_store_txn *txn;
	q.max = ndocs;
	assert_int_equal(nd_xdb_search(db, "waaaba OR waaaca OR waaada OR waaaea", &q, hits, &n, NULL), ND_OK);
	assert_true(n > 100);
	assert_int_equal(nd_store_read_begin(st, &txn), ND_OK);
	for (size_t i = 0; i < n; i++) {
		const void *pay;
		size_t len;
		uint64_t key;
		ranked[i] = hits[i].docid;
		assert_int_equal(nd_store_doc_get(txn, ranked[i], &key, &pay, &len), ND_OK);
		assert_int_equal(nd_sig_decode(&sig[i], pay, len, VOCAB * 10), ND_OK);
	}
	nd_store_txn_end(txn);
	/* What equal-key filtering folds: nd_collapse_tolerant starts from it. */
	nd_docid *ids = malloc(n * sizeof(*ids));
	size_t *lk = malloc(n * sizeof(*lk)), *into = malloc(n * sizeof(*into));
	assert_int_equal(nd_collapse_ids(db, st, NULL, ranked, n, ids), ND_OK);
	const double floors[] = {0.2, 0.5, 0.8, 1.0};
	size_t similar = 0, by_key = 0;
	for (size_t f = 0; f < sizeof(floors) / sizeof(*floors); f++)
	for (int g = 0; g < 2; g++) { /* g: with the equal-key groups */
		size_t m = 0;
		for (size_t i = 0; i < n; i++) {
			size_t compared = 0, to = SIZE_MAX, j = 0;
			while (g && ids[i] && j < i && ids[j] != ids[i])
				j++;
			if (g && ids[i] && j < i) { /* joins the leader of the first of its group */
				lk[i] = lk[j];
				folded[lk[j]]++;
				by_key++;
				continue;
			}
			for (size_t k = 0; k < m && compared < 8 && to == SIZE_MAX; k++) {
				const nd_sig *a = &sig[i], *b = &sig[kept[k]];
				uint32_t common = 0;
				for (uint32_t x = 0; x < a->nbits; x++)
					for (uint32_t y = 0; y < b->nbits; y++)
						common += a->bits[x] == b->bits[y];
				if (!a->nbits || !b->nbits ||
				    (double)common / (a->nbits + b->nbits - common) < floors[f] - 1e-12)
					continue;
				compared++;
				similar++;
				uint32_t *wa, *wb;
				size_t na, nb;
				double dist;
				int exact;
				assert_int_equal(nd_words_get(db, ranked[kept[k]], &wa, &na, NULL), ND_OK);
				assert_int_equal(nd_words_get(db, ranked[i], &wb, &nb, NULL), ND_OK);
				assert_int_equal(nd_levenshtein(wa, na, wb, nb, 0.08, &dist, &exact), ND_OK);
				if (exact && dist <= 0.08)
					to = k;
				free(wa);
				free(wb);
			}
			if (to == SIZE_MAX) {
				folded[m] = 0;
				lk[i] = m;
				kept[m++] = i;
			} else {
				folded[to]++;
				lk[i] = to;
			}
		}
		/* The same when no leader's words may be held (each read again). */
		nd_verify_options held[2] = {ND_VERIFY_OPTIONS_INIT, ND_VERIFY_OPTIONS_INIT};
		held[1].max_held_bytes = 1;
		for (int h = 0; h < 2; h++) {
			if (g) {
				assert_int_equal(nd_collapse_tolerant(db, st, &held[h], floors[f], ranked, n, out, &nk),
						 ND_OK);
			} else { /* the grouping alone, counted here */
				assert_int_equal(nd_verify_tolerant(db, st, &held[h], floors[f], ranked, n, NULL, into, NULL),
						 ND_OK);
				nk = 0;
				for (size_t i = 0; i < n; i++)
					if (into[i] == i) {
						lk[i] = nk;
						out[nk++] = (nd_collapsed){ranked[i], 0};
					} else
						out[lk[into[i]]].collapsed++;
			}
			assert_int_equal(nk, m);
			for (size_t k = 0; k < m; k++) {
				assert_int_equal(out[k].docid, ranked[kept[k]]);
				assert_int_equal(out[k].collapsed, folded[k]);
			}
		}
		assert_true(m < n);
	}
	assert_true(by_key > 0); /* the corpus's copies share keys: the group rule was used */
	free(ids);
	free(lk);
	free(into);
	assert_true(similar > n); /* the floors were met often, not just by copies */
	for (size_t i = 0; i < n; i++)
		nd_sig_clear(&sig[i]);
	free(sig);
	free(hits);
	free(ranked);
	free(out);
	free(kept);
	free(folded);
}

/* Tolerant collapse, on a hand-made set (s1..s6 above 0.5%): b is a with
 * s1 replaced by s7, so it has 5 of a's 6 bits (Jaccard 5/6; not the
 * first, which a too short prefix would miss), another key,
 * and 2 words changed of about 210; c has b's bits but other text.  Equal
 * keys fold none of them; tolerant folds b into a, or a into b, whichever
 * ranks first, and never c. */
static void test_tolerant(void **state)
{
	(void)state;
	char *tdir = tu_tmpdir(), *tdb = tu_join(tdir, "db"), *tst = tu_join(tdir, "st");
	uint64_t rng = 11;
	char *filler = tu_random_doc(&rng, 200, VOCAB), *other = tu_random_doc(&rng, 200, VOCAB),
	     *other2 = tu_random_doc(&rng, 200, VOCAB);
	size_t cap = strlen(filler) + strlen(other) + 200;
	char *text[4];
	const char *ids[4] = {"a", "b", "c", "far"};
	for (int i = 0; i < 4; i++)
		text[i] = malloc(cap);
	snprintf(text[0], cap, "s1 s2 s3 s4 s5 s6 %s s1 s2 s3 s4 s5 s6", filler);
	snprintf(text[1], cap, "s7 s2 s3 s4 s5 s6 %s s7 s2 s3 s4 s5 s6", filler);
	snprintf(text[2], cap, "s7 s2 s3 s4 s5 s6 %s s7 s2 s3 s4 s5 s6", other);
	snprintf(text[3], cap, "s1 s2 %s s1 s2", other2);
	nd_xdb *tx;
	nd_store *ts;
	nd_descriptor *d;
	tu_handmade_set(tdb, tst, ids, text, 4, 6, &tx, &ts, &d);
	nd_docid a, b, c, far;
	assert_int_equal(nd_xdb_find_uid(tx, "a", &a), ND_OK);
	assert_int_equal(nd_xdb_find_uid(tx, "b", &b), ND_OK);
	assert_int_equal(nd_xdb_find_uid(tx, "c", &c), ND_OK);
	assert_int_equal(nd_xdb_find_uid(tx, "far", &far), ND_OK);

	nd_collapsed out[8];
	size_t nk;
	/* Equal keys: a's key is its own; b and c share one but differ. */
	nd_docid r1[] = {a, b, c, far};
	assert_int_equal(nd_collapse(tx, ts, NULL, r1, 4, out, &nk), ND_OK);
	assert_int_equal(nk, 4);
	/* Tolerant: b folds into a; c matches a's and b's bits but not their text. */
	assert_int_equal(nd_collapse_tolerant(tx, ts, NULL, 0.5, r1, 4, out, &nk), ND_OK);
	assert_int_equal(nk, 3);
	assert_int_equal(out[0].docid, a);
	assert_int_equal(out[0].collapsed, 1);
	assert_int_equal(out[1].docid, c);
	assert_int_equal(out[1].collapsed, 0);
	assert_int_equal(out[2].docid, far);
	/* The grouping underneath: b's leader is a, at its word distance. */
	size_t into[4];
	double dist[4];
	assert_int_equal(nd_verify_tolerant(tx, ts, NULL, 0.5, r1, 4, NULL, into, dist), ND_OK);
	assert_int_equal(into[0], 0);
	assert_int_equal(into[1], 0);
	assert_int_equal(into[2], 2);
	assert_int_equal(into[3], 3);
	assert_true(dist[0] == 0 && dist[2] == 0);
	assert_true(dist[1] > 0 && dist[1] <= 0.08); /* 2 of about 212 words */
	/* Known groups are taken as verified: c said to be b's joins a too,
	 * uncompared (distance -1). */
	nd_docid known[4] = {0, 7, 7, 0};
	assert_int_equal(nd_verify_tolerant(tx, ts, NULL, 0.5, r1, 4, known, into, dist), ND_OK);
	assert_int_equal(into[1], 0);
	assert_int_equal(into[2], 0);
	assert_true(dist[2] == -1);
	assert_int_equal(into[3], 3);
	/* The ranking decides which of the two is kept. */
	nd_docid r2[] = {b, far, a, c};
	assert_int_equal(nd_collapse_tolerant(tx, ts, NULL, 0.5, r2, 4, out, &nk), ND_OK);
	assert_int_equal(nk, 3);
	assert_int_equal(out[0].docid, b);
	assert_int_equal(out[0].collapsed, 1);
	assert_int_equal(out[2].docid, c);
	/* 5/6 is under 0.9: nothing folds. */
	assert_int_equal(nd_collapse_tolerant(tx, ts, NULL, 0.9, r1, 4, out, &nk), ND_OK);
	assert_int_equal(nk, 4);
	/* At most max_leaders kept results are compared: with one, b meets c
	 * (Jaccard 1, ranked first) and stops there. */
	nd_verify_options one = ND_VERIFY_OPTIONS_INIT;
	one.max_leaders = 1;
	nd_docid r3[] = {c, a, b};
	assert_int_equal(nd_collapse_tolerant(tx, ts, &one, 0.5, r3, 3, out, &nk), ND_OK);
	assert_int_equal(nk, 3);
	assert_int_equal(nd_collapse_tolerant(tx, ts, NULL, 0.5, r3, 3, out, &nk), ND_OK);
	assert_int_equal(nk, 2);
	assert_int_equal(out[1].docid, a);
	assert_int_equal(out[1].collapsed, 1);
	/* A docid without a record is kept; a floor outside (0, 1] is refused. */
	nd_docid r4[] = {a, 999, b};
	assert_int_equal(nd_collapse_tolerant(tx, ts, NULL, 0.5, r4, 3, out, &nk), ND_OK);
	assert_int_equal(nk, 2);
	assert_int_equal(out[1].docid, 999);
	assert_int_equal(nd_collapse_tolerant(tx, ts, NULL, 0, r1, 4, out, &nk), ND_EINVAL);
	/* Through nd_search: every document has s2; one of a and b is folded. */
	nd_xdb_hit h[8];
	size_t nh;
	uint32_t est;
	assert_int_equal(nd_search(tx, ts, "s2", ND_COLLAPSE_TOLERANT, 0, 8, 100, h, &nh, &est), ND_OK);
	assert_int_equal(nh, 3);
	assert_int_equal(est, 3);
	assert_int_equal(h[0].collapsed + h[1].collapsed + h[2].collapsed, 1);
	assert_int_equal(nd_search(tx, ts, "s2", ND_COLLAPSE_FILTER, 0, 8, 100, h, &nh, NULL), ND_OK);
	assert_int_equal(nh, 4);

	nd_descriptor_free(d);
	nd_store_close(ts);
	nd_xdb_close(tx);
	for (int i = 0; i < 4; i++)
		free(text[i]);
	free(filler);
	free(other);
	free(other2);
	tu_rmtree(tdir);
	free(tdir);
	free(tdb);
	free(tst);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_native_equals_filter),
		cmocka_unit_test(test_filter_keeps_one_per_group),
		cmocka_unit_test(test_native_needs_slot),
		cmocka_unit_test(test_tolerant),
		cmocka_unit_test(test_tolerant_equals_scan),
	};
	return cmocka_run_group_tests_name("collapse", tests, setup, teardown);
}
