/* A feed window: records dated before it leave the store, and stay out
 * (update does not sign them again); duplicates are found inside it only,
 * and the store stays the window's size however long the stream. */
#include "tests/test_util.h"
#include "neardup/hook.h"
#include "neardup/check.h"
#include "neardup/window.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define VOCAB 3000
#define DATE_SLOT 3
#define T0 1764000000ull   /* 2025-11-24 16:00:00 UTC */

static char *dir;

static int setup(void **state)
{
	(void)state;
	dir = tu_tmpdir();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tu_rmtree(dir);
	free(dir);
	return 0;
}

/* Article n of the stream, or (copy) a lightly edited copy of it. */
static char *article(uint64_t n, int copy)
{
	return tu_copy_doc(7000 + n, n * 17 + 3, 160 + (size_t)(n % 5) * 30, copy ? 2 : 0, VOCAB);
}

/* Index a text dated `date` (decimal seconds in DATE_SLOT); its docid. */
static nd_docid add_dated(nd_indexer *ix, const char *id, const char *text, uint64_t date)
{
	char v[32];
	nd_docid docid;
	assert_int_equal(nd_indexer_add_text(ix, id, text, strlen(text), NULL, NULL), ND_OK);
	docid = nd_indexer_last_docid(ix);
	snprintf(v, sizeof(v), "%llu", (unsigned long long)date);
	assert_int_equal(nd_xdb_set_value(nd_indexer_db(ix), docid, DATE_SLOT, v, strlen(v)), ND_OK);
	return docid;
}

static int has_record(nd_store *st, nd_docid docid)
{
	nd_store_txn *txn;
	const void *p;
	size_t len;
	uint64_t key;
	assert_int_equal(nd_store_read_begin(st, &txn), ND_OK);
	int rc = nd_store_doc_get(txn, docid, &key, &p, &len);
	nd_store_txn_end(txn);
	return rc == ND_OK;
}

static int found(const nd_hook_result *r, nd_docid docid)
{
	for (size_t i = 0; i < r->nduplicates; i++)
		if (r->duplicates[i].docid == docid)
			return 1;
	return 0;
}

static void test_date_values(void **state)
{
	(void)state;
	uint64_t t;
	const unsigned char be32[] = {0x69, 0x23, 0x8a, 0x00};
	const unsigned char sortable[] = {0xe0, 0x5e, 0x92, 0x48, 0x10}; /* sortable_serialise(1764000000) */
	assert_int_equal(nd_date_of_value("1764000000", 10, &t), ND_OK);
	assert_int_equal(t, T0);
	assert_int_equal(nd_date_of_value(sortable, sizeof(sortable), &t), ND_OK);
	assert_int_equal(t, T0);
	assert_int_equal(nd_date_of_value(be32, sizeof(be32), &t), ND_OK);
	assert_int_equal(t, 0x69238a00ull);
	assert_int_equal(nd_date_of_value("20251124", 8, &t), ND_OK);
	assert_int_equal(t, T0 - 16 * 3600);
	assert_int_equal(nd_date_of_value("20251124160000", 14, &t), ND_OK);
	assert_int_equal(t, T0);
	assert_int_equal(nd_date_of_value("n3d7336a0", 9, &t), ND_OK); /* mu: 2002-09-02 10:00 */
	assert_int_equal(t, 0x3d7336a0ull);
	assert_int_equal(nd_date_of_value("n3d7336a", 8, &t), ND_ENOTFOUND); /* a digit short */
	assert_int_equal(nd_date_of_value("20251324", 8, &t), ND_ENOTFOUND); /* month 13 */
	assert_int_equal(nd_date_of_value("", 0, &t), ND_ENOTFOUND);
	assert_int_equal(nd_date_of_value("\x01\x02", 2, &t), ND_ENOTFOUND);
	assert_int_equal(nd_duration_parse("24h", &t), ND_OK);
	assert_int_equal(t, 86400);
	assert_int_equal(nd_duration_parse("90", &t), ND_OK);
	assert_int_equal(t, 90);
	assert_int_equal(nd_duration_parse("2w", &t), ND_OK);
	assert_int_equal(t, 14 * 86400);
	assert_int_equal(nd_duration_parse("0h", &t), ND_EINVAL);
	assert_int_equal(nd_duration_parse("5x", &t), ND_EINVAL);
	assert_int_equal(nd_duration_parse("h", &t), ND_EINVAL);
	assert_int_equal(nd_duration_parse("5hh", &t), ND_EINVAL);
}

/* A stream of one article a minute, a 30-minute window by value slot:
 * signing keeps the last half hour; each hooked article finds a copy of an
 * article 5 minutes old and not one of an article an hour old; the store
 * never holds more than the window; update signs nothing back; check
 * narrows further with since. */
static void test_window_by_slot(void **state)
{
	(void)state;
	char *dbpath = tu_join(dir, "slot-db"), *storepath = tu_join(dir, "slot-st");
	const uint64_t base = 150, stream = 150, window = 30 * 60;
	nd_indexer *ix;
	nd_docid docid_of[400] = {0};
	assert_int_equal(nd_indexer_open(&ix, dbpath, NULL), ND_OK);
	for (uint64_t n = 0; n < base; n++) {
		char id[32], *t = article(n, 0);
		snprintf(id, sizeof(id), "a%llu", (unsigned long long)n);
		docid_of[n] = add_dated(ix, id, t, T0 + n * 60);
		free(t);
	}
	assert_int_equal(nd_indexer_commit(ix), ND_OK);

	nd_xdb *db = nd_indexer_db(ix);
	nd_store *st;
	nd_descriptor *d;
	nd_build_options bo = ND_BUILD_OPTIONS_INIT;
	nd_window w = {window, DATE_SLOT};
	nd_sign_report rep;
	bo.words = 250;
	assert_int_equal(nd_descriptor_build(&d, db, &bo, NULL), ND_OK);
	assert_int_equal(nd_store_open(&st, storepath, ND_STORE_WRITE), ND_OK);
	assert_int_equal(nd_descriptor_save(d, st, db, &bo), ND_OK);
	assert_int_equal(nd_window_set(st, &w), ND_OK);
	assert_int_equal(nd_sign_all(st, db, NULL, &rep), ND_OK);
	/* The newest is T0 + 149 min: minutes 119..149 are inside. */
	assert_int_equal(tu_records(st), 31);
	assert_int_equal(rep.docs, 31);
	assert_false(has_record(st, docid_of[118]));
	assert_true(has_record(st, docid_of[119]));
	uint64_t clock, from;
	assert_int_equal(nd_window_clock(st, &clock, &from), ND_OK);
	assert_int_equal(clock, T0 + 149 * 60);
	assert_int_equal(from, clock - window);

	nd_hook *h;
	nd_hook_options ho = ND_HOOK_OPTIONS_INIT;
	ho.max_drift = 0;
	assert_int_equal(nd_hook_open(&h, db, st, &ho), ND_OK);
	size_t near_found = 0, far_found = 0, near_tried = 0, far_tried = 0;
	uint64_t most = 0;
	for (uint64_t n = base; n < base + stream; n++) {
		char id[32], *t = article(n, 0);
		nd_hook_result r = ND_HOOK_RESULT_INIT;
		snprintf(id, sizeof(id), "a%llu", (unsigned long long)n);
		docid_of[n] = add_dated(ix, id, t, T0 + n * 60);
		free(t);
		assert_int_equal(nd_hook_changed(h, docid_of[n], &r), ND_OK);
		assert_int_equal(r.change, ND_CHANGE_ADDED);
		nd_hook_result_clear(&r);
		if (n % 3 == 0) {
			/* A copy of the article 5 minutes back (inside), or of the
			 * one 60 minutes back (gone), arriving at this minute. */
			int far = n % 2;
			uint64_t of = n - (far ? 60 : 5);
			t = article(of, 1);
			snprintf(id, sizeof(id), "copy%llu", (unsigned long long)n);
			nd_docid cd = add_dated(ix, id, t, T0 + n * 60);
			free(t);
			assert_int_equal(nd_hook_changed(h, cd, &r), ND_OK);
			if (far) {
				far_tried++;
				far_found += found(&r, docid_of[of]);
			} else {
				near_tried++;
				near_found += found(&r, docid_of[of]);
			}
			nd_hook_result_clear(&r);
		}
		uint64_t now = tu_records(st);
		if (now > most)
			most = now;
	}
	assert_int_equal(nd_indexer_commit(ix), ND_OK);
	assert_true(near_tried >= 20 && far_tried >= 20);
	assert_true(near_found >= near_tried * 9 / 10);
	assert_int_equal(far_found, 0);
	/* 31 minutes of articles and their copies, however long the stream. */
	assert_true(most <= 31 + 11);
	assert_false(has_record(st, docid_of[base + stream - 32]));
	assert_true(has_record(st, docid_of[base + stream - 1]));

	/* A broken date (the year 2100) moves no clock: nothing leaves, and
	 * the document stays, undated. */
	uint64_t had = tu_records(st);
	char *bt = article(999, 0);
	nd_docid bd = add_dated(ix, "broken", bt, 4102444800ull);
	nd_hook_result br = ND_HOOK_RESULT_INIT;
	free(bt);
	assert_int_equal(nd_hook_changed(h, bd, &br), ND_OK);
	assert_int_equal(br.change, ND_CHANGE_ADDED);
	nd_hook_result_clear(&br);
	assert_int_equal(tu_records(st), had + 1);
	assert_int_equal(nd_window_clock(st, &clock, &from), ND_OK);
	assert_int_equal(clock, T0 + (base + stream - 1) * 60);
	/* An article a day old arrives late: outside the window, no record,
	 * no key, nothing changed. */
	bt = article(998, 0);
	bd = add_dated(ix, "late", bt, T0 - 86400);
	free(bt);
	assert_int_equal(nd_hook_changed(h, bd, &br), ND_OK);
	assert_int_equal(br.change, ND_CHANGE_NONE);
	assert_int_equal(br.key, 0);
	nd_hook_result_clear(&br);
	assert_false(has_record(st, bd));
	assert_int_equal(tu_records(st), had + 1);
	assert_int_equal(nd_indexer_commit(ix), ND_OK);

	/* update: the old documents stay in the database and out of the store. */
	uint64_t before = tu_records(st);
	assert_int_equal(nd_hook_update(h, NULL, NULL, &rep), ND_OK);
	assert_int_equal(rep.added, 0);
	assert_int_equal(rep.deleted, 0);
	assert_int_equal(tu_records(st), before);

	/* check: a copy of the article 20 minutes back is found in the window
	 * and not with since 10 minutes back. */
	nd_tokenizer *tk;
	nd_check_result cr = ND_CHECK_RESULT_INIT;
	nd_verify_options vo = ND_VERIFY_OPTIONS_INIT;
	uint64_t of = base + stream - 1 - 20;
	char *t = article(of, 1);
	assert_int_equal(nd_tokenizer_new(&tk), ND_OK);
	assert_int_equal(nd_check_text(tk, d, db, st, t, strlen(t), &vo, 8, &cr), ND_OK);
	int hit = 0;
	for (size_t i = 0; i < cr.nmembers; i++)
		hit |= cr.members[i].docid == docid_of[of] && cr.members[i].duplicate;
	assert_true(hit);
	nd_check_result_clear(&cr);
	vo.since = T0 + (base + stream - 1 - 10) * 60;
	assert_int_equal(nd_check_text(tk, d, db, st, t, strlen(t), &vo, 8, &cr), ND_OK);
	for (size_t i = 0; i < cr.nmembers; i++)
		assert_true(cr.members[i].docid != docid_of[of]);
	nd_check_result_clear(&cr);
	free(t);
	nd_tokenizer_free(tk);

	/* A new set ('build') keeps the window and the dates: signing again
	 * holds what the window held, every record dated, no date left over. */
	nd_descriptor *d2;
	nd_store_txn *txn;
	uint64_t dated;
	assert_int_equal(nd_descriptor_build(&d2, db, &bo, NULL), ND_OK);
	assert_int_equal(nd_descriptor_save(d2, st, db, &bo), ND_OK);
	nd_descriptor_free(d2);
	assert_int_equal(tu_records(st), 0);
	assert_int_equal(nd_sign_all(st, db, NULL, &rep), ND_OK);
	assert_int_equal(tu_records(st), before);
	assert_int_equal(nd_store_read_begin(st, &txn), ND_OK);
	assert_int_equal(nd_store_dates_count(txn, &dated), ND_OK);
	nd_store_txn_end(txn);
	assert_int_equal(dated, before - 1); /* all but the broken date */
	nd_hook_free(h);
	assert_int_equal(nd_hook_open(&h, db, st, &ho), ND_OK);

	/* Removing the window keeps the records and signs the rest back. */
	nd_window none = ND_WINDOW_INIT;
	assert_int_equal(nd_window_set(st, &none), ND_OK);
	assert_int_equal(nd_hook_update(h, NULL, NULL, &rep), ND_OK);
	assert_true(rep.added > 200);
	nd_hook_free(h);
	nd_descriptor_free(d);
	nd_store_close(st);
	assert_int_equal(nd_indexer_close(ix), ND_OK);
	free(dbpath);
	free(storepath);
}

/* By arrival: what a store holds when the window is set arrives then; a
 * second later, with a one-second window, the next hook lets it all go,
 * and update does not sign it back. */
static void test_window_by_arrival(void **state)
{
	(void)state;
	char *dbpath = tu_join(dir, "arr-db"), *storepath = tu_join(dir, "arr-st");
	nd_indexer *ix;
	assert_int_equal(nd_indexer_open(&ix, dbpath, NULL), ND_OK);
	for (uint64_t n = 0; n < 80; n++) {
		char id[32], *t = article(n, 0);
		snprintf(id, sizeof(id), "b%llu", (unsigned long long)n);
		assert_int_equal(nd_indexer_add_text(ix, id, t, strlen(t), NULL, NULL), ND_OK);
		free(t);
	}
	assert_int_equal(nd_indexer_commit(ix), ND_OK);
	nd_xdb *db = nd_indexer_db(ix);
	nd_store *st;
	tu_build_and_sign(db, storepath, 200, &st);
	assert_int_equal(tu_records(st), 80);
	nd_window w = {1, ND_WINDOW_ARRIVAL};
	assert_int_equal(nd_window_set(st, &w), ND_OK);
	nd_store_txn *txn;
	uint64_t dated;
	assert_int_equal(nd_store_read_begin(st, &txn), ND_OK);
	assert_int_equal(nd_store_dates_count(txn, &dated), ND_OK);
	nd_store_txn_end(txn);
	assert_int_equal(dated, 80);
	sleep(2);

	nd_hook *h;
	nd_hook_options ho = ND_HOOK_OPTIONS_INIT;
	nd_hook_result r = ND_HOOK_RESULT_INIT;
	ho.max_drift = 0;
	assert_int_equal(nd_hook_open(&h, db, st, &ho), ND_OK);
	char *t = article(5, 1);
	assert_int_equal(nd_indexer_add_text(ix, "late", t, strlen(t), NULL, NULL), ND_OK);
	free(t);
	nd_docid late = nd_indexer_last_docid(ix);
	assert_int_equal(nd_hook_changed(h, late, &r), ND_OK);
	assert_int_equal(r.change, ND_CHANGE_ADDED);
	assert_int_equal(r.nduplicates, 0); /* its original left */
	nd_hook_result_clear(&r);
	assert_int_equal(tu_records(st), 1);
	assert_true(has_record(st, late));
	assert_int_equal(nd_indexer_commit(ix), ND_OK);
	nd_sign_report rep;
	assert_int_equal(nd_hook_update(h, NULL, NULL, &rep), ND_OK);
	assert_int_equal(rep.added, 0);
	assert_int_equal(tu_records(st), 1);
	nd_hook_free(h);
	nd_store_close(st);
	assert_int_equal(nd_indexer_close(ix), ND_OK);
	free(dbpath);
	free(storepath);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_date_values),
		cmocka_unit_test(test_window_by_slot),
		cmocka_unit_test(test_window_by_arrival),
	};
	return cmocka_run_group_tests_name("window", tests, setup, teardown);
}
