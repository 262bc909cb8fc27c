/* The LMDB store: records and clusters in step, map growth, bad files. */
#include "tests/test_util.h"
#include "lmdb_store/store_internal.h"
#include "common/nd_buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include <pthread.h>

#include <lmdb.h>

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

typedef struct {
	uint32_t docid;
	uint64_t key;
} put;

static int put_fn(nd_store_txn *txn, void *ctx)
{
	const put *p = ctx;
	for (; p->docid; p++) {
		int rc = nd_store_doc_put(txn, p->docid, p->key, "\0\0\0\0xy", 6); /* no bits, no near keys, "xy" */
		if (rc < 0)
			return rc;
	}
	return ND_OK;
}

static void expect_cluster(nd_store *st, uint64_t key, const uint32_t *ids, size_t n)
{
	nd_store_txn *txn;
	uint32_t *got;
	size_t m;
	assert_int_equal(nd_store_read_begin(st, &txn), ND_OK);
	assert_int_equal(nd_store_key_docs(txn, key, &got, &m), ND_OK);
	assert_int_equal(m, n);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(got[i], ids[i]);
	free(got);
	nd_store_txn_end(txn);
}

/* Each record's note: its docid and key. */
static int note_fn(nd_store_txn *txn, void *ctx)
{
	const put *p = ctx;
	for (; p->docid; p++) {
		int rc = nd__store_note_put(txn, p->docid, p->docid * 1000 + p->key);
		if (rc < 0)
			return rc;
	}
	return ND_OK;
}

static int note_del_fn(nd_store_txn *txn, void *ctx)
{
	return nd__store_note_del(txn, *(uint32_t *)ctx);
}

static int del_fn(nd_store_txn *txn, void *ctx)
{
	return nd_store_doc_del(txn, *(uint32_t *)ctx);
}

/* What a group's list holds now (want[0..n), ascending). */
static void expect_group(nd_store *st, uint64_t group, const uint32_t *want, size_t n)
{
	char name[32];
	const void *v;
	size_t len;
	nd_store_txn *txn;
	snprintf(name, sizeof(name), "group/%016llx", (unsigned long long)group);
	assert_int_equal(nd_store_read_begin(st, &txn), ND_OK);
	int rc = nd_store_meta_get(txn, name, &v, &len);
	if (!n)
		assert_int_equal(rc, ND_ENOTFOUND);
	else {
		assert_int_equal(rc, ND_OK);
		assert_int_equal(len, 4 * n);
		assert_memory_equal(v, want, 4 * n);
	}
	nd_store_txn_end(txn);
}

typedef struct {
	uint32_t docid;
	uint64_t group;
	size_t max, n; /* out: members */
} join_arg;

static int join_fn(nd_store_txn *txn, void *ctx)
{
	join_arg *j = ctx;
	uint32_t *m;
	int rc = nd__store_group_join(txn, j->docid, j->group, j->max, &m, &j->n);
	free(m);
	return rc;
}

static int note_put_fn(nd_store_txn *txn, void *ctx)
{
	const join_arg *j = ctx;
	return nd__store_note_put(txn, j->docid, j->group);
}

/* A group's list follows its members' notes: a document joins in order,
 * once; it leaves when its record goes, when its note is dropped or
 * names another group; the list goes with its last member; it keeps the
 * latest max. */
static void test_note_groups(void **state)
{
	(void)state;
	char *path = tu_join(dir, "groups");
	nd_store *st;
	assert_int_equal(nd_store_open(&st, path, ND_STORE_WRITE), ND_OK);
	put a[] = {{5, 100}, {3, 100}, {9, 100}, {4, 0}, {0, 0}};
	assert_int_equal(nd_store_write(st, put_fn, a), ND_OK);
	uint32_t order[] = {9, 3, 5, 3, 4};
	join_arg j = {0, 77, 16, 0};
	for (size_t i = 0; i < 5; i++) {
		j.docid = order[i];
		assert_int_equal(nd_store_write(st, join_fn, &j), ND_OK);
	}
	assert_int_equal(j.n, 4);
	expect_group(st, 77, (uint32_t[]){3, 4, 5, 9}, 4);
	assert_int_equal(nd_store_write(st, del_fn, (uint32_t[]){9}), ND_OK);
	expect_group(st, 77, (uint32_t[]){3, 4, 5}, 3);
	assert_int_equal(nd_store_write(st, note_del_fn, (uint32_t[]){4}), ND_OK);
	join_arg other = {5, 78, 16, 0};
	assert_int_equal(nd_store_write(st, note_put_fn, &other), ND_OK);
	expect_group(st, 77, (uint32_t[]){3}, 1);
	assert_int_equal(nd_store_write(st, del_fn, (uint32_t[]){3}), ND_OK);
	expect_group(st, 77, NULL, 0);
	/* The latest max. */
	for (uint32_t d = 1; d <= 5; d++) {
		join_arg k = {d, 79, 3, 0};
		assert_int_equal(nd_store_write(st, join_fn, &k), ND_OK);
	}
	expect_group(st, 79, (uint32_t[]){3, 4, 5}, 3);
	nd_store_close(st);
	free(path);
}

static int dates_fn(nd_store_txn *txn, void *ctx)
{
	const uint32_t *d = ctx; /* docid, date pairs, 0-ended */
	int rc = ND_OK;
	for (; *d && rc == ND_OK; d += 2)
		rc = nd_store_date_put(txn, d[0], d[1]);
	return rc;
}

static int shift_fn(nd_store_txn *txn, void *ctx)
{
	return nd__store_move_kept(txn, ctx);
}

static void expect_note(nd_store *st, uint32_t docid, int present, uint64_t note)
{
	nd_store_txn *txn;
	uint64_t got = 0;
	assert_int_equal(nd_store_read_begin(st, &txn), ND_OK);
	assert_int_equal(nd__store_note_get(txn, docid, &got), present ? ND_OK : ND_ENOTFOUND);
	if (present)
		assert_int_equal(got, note);
	nd_store_txn_end(txn);
}

/* A store of records 2, 4, 5, 6, 9 that keeps by docid what a renumbering
 * moves: groups 77 (4, 5, 9), 78 (6) and 80 (2), their notes, and the
 * dates given (docid, date pairs, 0-terminated). */
static nd_store *kept_store(const char *path, uint32_t *dates)
{
	nd_store *st;
	assert_int_equal(nd_store_open(&st, path, ND_STORE_WRITE), ND_OK);
	put a[] = {{4, 100}, {5, 100}, {6, 200}, {9, 100}, {2, 300}, {0, 0}};
	assert_int_equal(nd_store_write(st, put_fn, a), ND_OK);
	join_arg joins[] = {{4, 77, 16, 0}, {5, 77, 16, 0}, {9, 77, 16, 0}, {6, 78, 16, 0}, {2, 80, 16, 0}};
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(nd_store_write(st, join_fn, &joins[i]), ND_OK);
	assert_int_equal(nd_store_write(st, dates_fn, dates), ND_OK);
	return st;
}

/* A renumbered database (every docid 3 lower): the dates, notes and
 * groups' members the store keeps by docid move down with it; those of
 * docids <= 3 go, and a moved note replaces the one whose docid it takes. */
static void test_shift_kept(void **state)
{
	(void)state;
	char *path = tu_join(dir, "shift");
	nd_store *st;
	nd_store_txn *txn;
	uint64_t date = 0, n = 0;
	st = kept_store(path, (uint32_t[]){4, 1000, 5, 2000, 9, 3000, 2, 500, 0});
	nd__renumbering r = {3, NULL, NULL, 0};
	assert_int_equal(nd_store_write(st, shift_fn, &r), ND_OK);
	expect_group(st, 77, (uint32_t[]){1, 2, 6}, 3);
	expect_group(st, 78, (uint32_t[]){3}, 1);
	expect_group(st, 80, NULL, 0);
	expect_note(st, 1, 1, 77);
	expect_note(st, 2, 1, 77);
	expect_note(st, 3, 1, 78);
	expect_note(st, 6, 1, 77);
	expect_note(st, 4, 0, 0);
	expect_note(st, 9, 0, 0);
	assert_int_equal(nd_store_read_begin(st, &txn), ND_OK);
	assert_int_equal(nd_store_dates_count(txn, &n), ND_OK);
	assert_int_equal(n, 3);
	assert_int_equal(nd_store_date_get(txn, 1, &date), ND_OK);
	assert_int_equal(date, 1000);
	assert_int_equal(nd_store_date_get(txn, 2, &date), ND_OK);
	assert_int_equal(date, 2000);
	assert_int_equal(nd_store_date_get(txn, 6, &date), ND_OK);
	assert_int_equal(date, 3000);
	assert_int_equal(nd_store_date_get(txn, 9, &date), ND_ENOTFOUND);
	nd_store_txn_end(txn);
	nd_store_close(st);
	free(path);
}

/* copydatabase's numbering (2, 4, 5, 9 now 1, 2, 3, 4; 6 gone): each
 * document's dates, note and group membership move to its own docid. */
static void test_move_kept_in_order(void **state)
{
	(void)state;
	char *path = tu_join(dir, "inorder");
	nd_store *st;
	nd_store_txn *txn;
	uint64_t date = 0, n = 0;
	st = kept_store(path, (uint32_t[]){4, 1000, 5, 2000, 9, 3000, 2, 500, 6, 700, 0});
	uint32_t from[] = {2, 4, 5, 9}, to[] = {1, 2, 3, 4};
	nd__renumbering r = {0, from, to, 4};
	assert_int_equal(nd__renumber(&r, 9), 4);
	assert_int_equal(nd__renumber(&r, 6), 0);
	assert_int_equal(nd__renumbering_most(&r), 5);
	assert_int_equal(nd_store_write(st, shift_fn, &r), ND_OK);
	expect_group(st, 77, (uint32_t[]){2, 3, 4}, 3);
	expect_group(st, 78, NULL, 0);
	expect_group(st, 80, (uint32_t[]){1}, 1);
	expect_note(st, 1, 1, 80);
	expect_note(st, 2, 1, 77);
	expect_note(st, 4, 1, 77);
	expect_note(st, 5, 0, 0);
	expect_note(st, 9, 0, 0);
	assert_int_equal(nd_store_read_begin(st, &txn), ND_OK);
	assert_int_equal(nd_store_dates_count(txn, &n), ND_OK);
	assert_int_equal(n, 4);
	uint32_t want[][2] = {{1, 500}, {2, 1000}, {3, 2000}, {4, 3000}};
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(nd_store_date_get(txn, want[i][0], &date), ND_OK);
		assert_int_equal(date, want[i][1]);
	}
	nd_store_txn_end(txn);
	nd_store_close(st);
	free(path);
}

static void test_records_and_clusters(void **state)
{
	(void)state;
	char *path = tu_join(dir, "s1");
	nd_store *st;
	assert_int_equal(nd_store_open(&st, path, ND_STORE_WRITE), ND_OK);
	put a[] = {{5, 100}, {3, 100}, {9, 100}, {4, 0}, {7, 200}, {0, 0}};
	assert_int_equal(nd_store_write(st, put_fn, a), ND_OK);
	expect_cluster(st, 100, (uint32_t[]){3, 5, 9}, 3);   /* sorted docids */
	expect_cluster(st, 0, NULL, 0);                       /* no-key docs are in no cluster */
	/* Moving doc 5 to key 200 removes it from 100. */
	put b[] = {{5, 200}, {0, 0}};
	assert_int_equal(nd_store_write(st, put_fn, b), ND_OK);
	expect_cluster(st, 100, (uint32_t[]){3, 9}, 2);
	expect_cluster(st, 200, (uint32_t[]){5, 7}, 2);
	uint32_t nine = 9, missing = 42;
	assert_int_equal(nd_store_write(st, note_fn, a), ND_OK);
	assert_int_equal(nd_store_write(st, del_fn, &nine), ND_OK);
	expect_cluster(st, 100, (uint32_t[]){3}, 1);
	assert_int_equal(nd_store_write(st, del_fn, &missing), ND_ENOTFOUND);

	nd_store_txn *txn;
	uint64_t docs, keys, key;
	const void *payload;
	size_t len;
	assert_int_equal(nd_store_read_begin(st, &txn), ND_OK);
	assert_int_equal(nd_store_counts(txn, &docs, &keys), ND_OK);
	assert_int_equal(docs, 4);
	assert_int_equal(keys, 2);
	assert_int_equal(nd_store_doc_get(txn, 4, &key, &payload, &len), ND_OK);
	assert_int_equal(key, 0);
	assert_int_equal(len, 6);
	assert_memory_equal(payload, "\0\0\0\0xy", 6);
	assert_int_equal(nd_store_doc_get(txn, 9, &key, &payload, &len), ND_ENOTFOUND);
	/* A document's note stays while its record does, and goes with it. */
	uint64_t note;
	assert_int_equal(nd__store_note_get(txn, 5, &note), ND_OK);
	assert_int_equal(note, 5 * 1000 + 100);
	assert_int_equal(nd__store_note_get(txn, 9, &note), ND_ENOTFOUND);
	nd_store_txn_end(txn);
	/* Dropped on its own, and again: nothing to do. */
	assert_int_equal(nd_store_write(st, note_del_fn, (uint32_t[]){5}), ND_OK);
	assert_int_equal(nd_store_write(st, note_del_fn, (uint32_t[]){5}), ND_OK);
	assert_int_equal(nd_store_read_begin(st, &txn), ND_OK);
	assert_int_equal(nd__store_note_get(txn, 5, &note), ND_ENOTFOUND);
	assert_int_equal(nd__store_note_get(txn, 3, &note), ND_OK);
	nd_store_txn_end(txn);
	nd_store_close(st);

	/* Read-only reopen sees the same; writes are refused. */
	assert_int_equal(nd_store_open(&st, path, ND_STORE_READ), ND_OK);
	expect_cluster(st, 200, (uint32_t[]){5, 7}, 2);
	assert_int_equal(nd_store_write(st, put_fn, b), ND_EINVAL);
	nd_store_close(st);
	free(path);
}

/* A reader keeps its snapshot while the writer commits. */
static void test_snapshot(void **state)
{
	(void)state;
	char *path = tu_join(dir, "s2");
	nd_store *w, *r;
	nd_store_txn *txn;
	uint64_t docs;
	assert_int_equal(nd_store_open(&w, path, ND_STORE_WRITE), ND_OK);
	put a[] = {{1, 10}, {0, 0}};
	assert_int_equal(nd_store_write(w, put_fn, a), ND_OK);
	assert_int_equal(nd_store_open(&r, path, ND_STORE_READ), ND_OK);
	assert_int_equal(nd_store_read_begin(r, &txn), ND_OK);
	put b[] = {{2, 10}, {3, 10}, {0, 0}};
	assert_int_equal(nd_store_write(w, put_fn, b), ND_OK);
	assert_int_equal(nd_store_counts(txn, &docs, NULL), ND_OK);
	assert_int_equal(docs, 1);
	nd_store_txn_end(txn);
	assert_int_equal(nd_store_read_begin(r, &txn), ND_OK);
	assert_int_equal(nd_store_counts(txn, &docs, NULL), ND_OK);
	assert_int_equal(docs, 3);
	nd_store_txn_end(txn);
	nd_store_close(r);
	nd_store_close(w);
	free(path);
}

typedef struct {
	uint32_t n;
	int attempts;
} many_ctx;

static int many_fn(nd_store_txn *txn, void *vctx)
{
	many_ctx *c = vctx;
	char payload[200];
	memset(payload, 'p', sizeof(payload));
	memset(payload, 0, 4); /* an empty bit list, no near-neighbour keys */
	c->attempts++;
	for (uint32_t i = 1; i <= c->n; i++) {
		int rc = nd_store_doc_put(txn, i, 1 + i % 97, payload, sizeof(payload));
		if (rc < 0)
			return rc;
	}
	return ND_OK;
}

static void test_map_grows(void **state)
{
	(void)state;
	char *path = tu_join(dir, "s3");
	nd_store *st;
	nd_store_txn *txn;
	uint64_t docs, keys;
	assert_int_equal(nd_store_open(&st, path, ND_STORE_WRITE), ND_OK);
	assert_int_equal(nd__store_set_mapsize(st, 64 * 1024), ND_OK);
	many_ctx c = {20000, 0}; /* ~5 MB: does not fit 64 KiB */
	assert_int_equal(nd_store_write(st, many_fn, &c), ND_OK);
	assert_true(c.attempts > 1); /* it did meet a full map and replay */
	assert_int_equal(nd_store_read_begin(st, &txn), ND_OK);
	assert_int_equal(nd_store_counts(txn, &docs, &keys), ND_OK);
	assert_int_equal(docs, 20000);
	assert_int_equal(keys, 97);
	nd_store_txn_end(txn);
	nd_store_close(st);
	free(path);
}

static int put_first(nd_store_txn *txn, void *ctx)
{
	(void)ctx;
	return nd_store_meta_put(txn, "first", "x", 1);
}

/* Puts records, then fails: none of them may stay. */
static int put_then_fail(nd_store_txn *txn, void *ctx)
{
	int rc = many_fn(txn, ctx);
	return rc < 0 ? rc : nd_error_set(ND_EINVAL, "refused on purpose");
}

typedef struct {
	nd_store *st;
	int write_rc;
	uint64_t seen;
} other_thread;

/* Another thread of the process: it reads the last commit and may not
 * write into what this one holds. */
static void *from_other_thread(void *vctx)
{
	other_thread *o = vctx;
	many_ctx c = {10, 0};
	nd_store_txn *txn;
	o->write_rc = nd_store_write(o->st, many_fn, &c);
	if (nd_store_read_begin(o->st, &txn) == ND_OK) {
		nd_store_counts(txn, &o->seen, NULL);
		nd_store_txn_end(txn);
	}
	return NULL;
}

/* Group commit: held writes are read by their own handle at once, by
 * another process once committed; each stays all or nothing; a full map
 * commits what is held and goes on. */
static void test_group_commit(void **state)
{
	(void)state;
	char *path = tu_join(dir, "gc");
	nd_store *st;
	const void *v;
	size_t len;
	nd_store_txn *txn;
	assert_int_equal(nd_store_open(&st, path, ND_STORE_WRITE), ND_OK);
	assert_int_equal(nd_store_hold(st), ND_OK);
	many_ctx c = {200, 0}, more = {300, 0};
	assert_int_equal(nd_store_write(st, many_fn, &c), ND_OK);
	assert_int_equal(nd_store_write(st, put_then_fail, &more), ND_EINVAL);
	assert_int_equal(tu_records(st), 200);
	assert_int_equal(tu_records_elsewhere(path, 100), 0);
	other_thread o = {st, 0, 99};
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, from_other_thread, &o), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(o.write_rc, ND_EINVAL);
	assert_int_equal(o.seen, 0);
	assert_int_equal(nd_store_commit(st), ND_OK);
	assert_int_equal(tu_records_elsewhere(path, 100), 200);
	assert_int_equal(nd_store_commit(st), ND_OK); /* nothing held */
	nd_store_close(st);

	/* A write that fills the map: what was held before it is stored too. */
	assert_int_equal(nd_store_open(&st, path, ND_STORE_WRITE), ND_OK);
	assert_int_equal(nd__store_set_mapsize(st, 64 * 1024), ND_OK);
	assert_int_equal(nd_store_hold(st), ND_OK);
	assert_int_equal(nd_store_write(st, put_first, NULL), ND_OK);
	many_ctx big = {20000, 0};
	assert_int_equal(nd_store_write(st, many_fn, &big), ND_OK);
	assert_true(big.attempts > 1);
	assert_int_equal(tu_records(st), 20000);
	nd_store_close(st); /* commits what is held */
	assert_int_equal(tu_records_elsewhere(path, 100), 20000);
	assert_int_equal(nd_store_open(&st, path, ND_STORE_READ), ND_OK);
	assert_int_equal(nd_store_read_begin(st, &txn), ND_OK);
	assert_int_equal(nd_store_meta_get(txn, "first", &v, &len), ND_OK);
	assert_int_equal(len, 1);
	nd_store_txn_end(txn);
	assert_int_equal(tu_records(st), 20000);
	nd_store_close(st);
	free(path);
}

static void test_bad_stores(void **state)
{
	(void)state;
	nd_store *st;
	char *missing = tu_join(dir, "missing");
	assert_int_equal(nd_store_open(&st, missing, ND_STORE_READ), ND_ENOTFOUND);
	assert_null(st);
	assert_non_null(strstr(nd_error_last(), missing));
	/* A foreign file where data.mdb should be. */
	char *foreign = tu_join(dir, "foreign"), cmd[1024];
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s' && head -c 65536 /dev/urandom > '%s/data.mdb'",
		 foreign, foreign);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(nd_store_open(&st, foreign, ND_STORE_WRITE), ND_ECORRUPT);
	assert_non_null(strstr(nd_error_last(), foreign));
	/* A truncated store. */
	char *trunc = tu_join(dir, "trunc");
	assert_int_equal(nd_store_open(&st, trunc, ND_STORE_WRITE), ND_OK);
	put a[] = {{1, 10}, {0, 0}};
	assert_int_equal(nd_store_write(st, put_fn, a), ND_OK);
	nd_store_close(st);
	snprintf(cmd, sizeof(cmd), "truncate -s 100 '%s/data.mdb'", trunc);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(nd_store_open(&st, trunc, ND_STORE_READ), ND_ECORRUPT);
	assert_non_null(strstr(nd_error_last(), "truncated"));
	/* Emptied: refused, never initialised afresh, not even by a writer. */
	snprintf(cmd, sizeof(cmd), "truncate -s 0 '%s/data.mdb'", trunc);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(nd_store_open(&st, trunc, ND_STORE_WRITE), ND_ECORRUPT);
	assert_null(st);
	struct stat sb;
	char *data = tu_join(trunc, "data.mdb");
	assert_int_equal(stat(data, &sb), 0);
	assert_int_equal(sb.st_size, 0);
	free(data);
	/* Two writers of one store, even in one process: the second is told. */
	char *two = tu_join(dir, "two");
	nd_store *w1, *w2;
	assert_int_equal(nd_store_open(&w1, two, ND_STORE_WRITE), ND_OK);
	assert_int_equal(nd_store_open(&w2, two, ND_STORE_WRITE), ND_ELOCKED);
	assert_non_null(strstr(nd_error_last(), "another process"));
	assert_int_equal(nd_store_open(&w2, two, ND_STORE_READ), ND_OK); /* readers go on */
	nd_store_close(w2);
	nd_store_close(w1);
	assert_int_equal(nd_store_open(&w2, two, ND_STORE_WRITE), ND_OK); /* released on close */
	nd_store_close(w2);
	free(two);
	/* A store of another format version. */
	char *old = tu_join(dir, "old");
	assert_int_equal(nd_store_open(&st, old, ND_STORE_WRITE), ND_OK);
	nd_store_close(st);
	/* Rewrite the format record (to 99) with LMDB's own tool, mdb_load
	 * from lmdb-utils, which scripts/setup.sh installs. */
	snprintf(cmd, sizeof(cmd),
		 "printf 'VERSION=3\\nformat=bytevalue\\ntype=btree\\nHEADER=END\\n 666f726d6174\\n 63000000\\nDATA=END\\n' "
		 "| mdb_load -s meta '%s'", old);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(nd_store_open(&st, old, ND_STORE_READ), ND_EVERSION);
	assert_non_null(strstr(nd_error_last(), "format 99"));
	free(missing);
	free(foreign);
	free(trunc);
	free(old);
}

/* Bit postings follow the records: put, replace and delete keep bit ->
 * docs equal to the records' bits; a payload without a bit list is
 * refused; a store of an older format (2: no postings) is refused,
 * whether opened to read or to write, saying how to make it again. */
typedef struct {
	uint32_t docid;
	uint16_t n, bits[4];
} bitrec;

static int bits_put_fn(nd_store_txn *txn, void *ctx)
{
	const bitrec *r = ctx;
	for (; r->docid; r++) {
		uint8_t pay[2 + 8 + 8];
		memcpy(pay, &r->n, 2);
		memcpy(pay + 2, r->bits, 2 * (size_t)r->n);
		memset(pay + 2 + 2 * r->n, 0, 2);    /* no near-neighbour keys */
		memset(pay + 4 + 2 * r->n, 0xab, 6); /* what follows is the caller's */
		int rc = nd_store_doc_put(txn, r->docid, 0, pay, 2 + 2 * (size_t)r->n + 8);
		if (rc < 0)
			return rc;
	}
	return ND_OK;
}

static int bad_payload_fn(nd_store_txn *txn, void *ctx)
{
	(void)ctx;
	return nd_store_doc_put(txn, 77, 0, "\x05\x00ab", 4); /* claims 5 bits, holds 1 */
}

static void expect_bit(nd_store *st, uint16_t bit, const uint32_t *ids, size_t n)
{
	nd_store_txn *txn;
	uint32_t *got;
	size_t m, c;
	assert_int_equal(nd_store_read_begin(st, &txn), ND_OK);
	assert_int_equal(nd_store_bit_docs(txn, bit, &got, &m), ND_OK);
	assert_int_equal(nd_store_bit_count(txn, bit, &c), ND_OK);
	if (m != n || c != n)
		fail_msg("bit %u: %zu postings (count %zu), want %zu", bit, m, c, n);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(got[i], ids[i]);
		assert_int_equal(nd_store_bit_has(txn, bit, ids[i]), 1);
	}
	free(got);
	nd_store_txn_end(txn);
}

static void test_bit_postings(void **state)
{
	(void)state;
	char *path = tu_join(dir, "bits");
	nd_store *st;
	assert_int_equal(nd_store_open(&st, path, ND_STORE_WRITE), ND_OK);
	bitrec a[] = {{1, 2, {3, 7}}, {2, 3, {3, 7, 9}}, {3, 1, {9}}, {0, 0, {0}}};
	assert_int_equal(nd_store_write(st, bits_put_fn, a), ND_OK);
	expect_bit(st, 3, (uint32_t[]){1, 2}, 2);
	expect_bit(st, 7, (uint32_t[]){1, 2}, 2);
	expect_bit(st, 9, (uint32_t[]){2, 3}, 2);
	/* Replace 2's bits {3, 7, 9} by {4}; delete 3. */
	bitrec b[] = {{2, 1, {4}}, {0, 0, {0}}};
	uint32_t three = 3;
	assert_int_equal(nd_store_write(st, bits_put_fn, b), ND_OK);
	assert_int_equal(nd_store_write(st, del_fn, &three), ND_OK);
	expect_bit(st, 3, (uint32_t[]){1}, 1);
	expect_bit(st, 4, (uint32_t[]){2}, 1);
	expect_bit(st, 9, NULL, 0);
	nd_store_txn *txn;
	uint64_t total;
	assert_int_equal(nd_store_read_begin(st, &txn), ND_OK);
	assert_int_equal(nd_store_bit_has(txn, 9, 2), 0);
	assert_int_equal(nd_store_bit_postings(txn, &total), ND_OK);
	assert_int_equal(total, 3); /* 1: {3, 7}; 2: {4} */
	nd_store_txn_end(txn);
	assert_int_equal(nd_store_write(st, bad_payload_fn, NULL), ND_EINVAL);
	assert_non_null(strstr(nd_error_last(), "document 77"));
	expect_bit(st, 3, (uint32_t[]){1}, 1);
	/* One transaction puts 5 twice, then 4, over bits past one byte: a
	 * document's removals apply before its later additions, and each
	 * bit's postings come out in docid order whatever the queue order. */
	bitrec c[] = {{5, 2, {3, 300}}, {5, 2, {300, 600}}, {4, 2, {300, 513}}, {0, 0, {0}}};
	assert_int_equal(nd_store_write(st, bits_put_fn, c), ND_OK);
	expect_bit(st, 3, (uint32_t[]){1}, 1);
	expect_bit(st, 300, (uint32_t[]){4, 5}, 2);
	expect_bit(st, 513, (uint32_t[]){4}, 1);
	expect_bit(st, 600, (uint32_t[]){5}, 1);
	nd_store_close(st);

	/* Make it a format-2 store: no bit table, format record 2. */
	MDB_env *env;
	MDB_txn *t;
	MDB_dbi dbi;
	uint32_t two = 2;
	MDB_val k = {6, "format"}, v = {sizeof(two), &two};
	assert_int_equal(mdb_env_create(&env), 0);
	assert_int_equal(mdb_env_set_maxdbs(env, 16), 0);
	assert_int_equal(mdb_env_open(env, path, 0, 0644), 0);
	assert_int_equal(mdb_txn_begin(env, NULL, 0, &t), 0);
	assert_int_equal(mdb_dbi_open(t, "bits", 0, &dbi), 0);
	assert_int_equal(mdb_drop(t, dbi, 1), 0);
	assert_int_equal(mdb_dbi_open(t, "meta", 0, &dbi), 0);
	assert_int_equal(mdb_put(t, dbi, &k, &v, 0), 0);
	assert_int_equal(mdb_txn_commit(t), 0);
	mdb_env_close(env);

	assert_int_equal(nd_store_open(&st, path, ND_STORE_READ), ND_EVERSION);
	assert_non_null(strstr(nd_error_last(), "neardup build"));
	assert_int_equal(nd_store_open(&st, path, ND_STORE_WRITE), ND_EVERSION);
	free(path);
}


/* The near-neighbour index follows the records: a payload's section
 * (u8 trees, u8 rows, the sequences) is entered once a tree, replaced
 * and deleted with its record, and cleared with the rest; a probe gives
 * the nearest entries of one tree on each side, never the prober. */
typedef struct {
	uint32_t docid;
	uint16_t seq[2][3]; /* 2 trees of 3 rows; seq[0][0] 0xffff: no section */
} nearrec;

static int near_put_fn(nd_store_txn *txn, void *ctx)
{
	const nearrec *r = ctx;
	for (; r->docid; r++) {
		uint8_t pay[2 + 2 + 12 + 8] = {0};
		size_t len = 2 + 2 + 8;
		if (r->seq[0][0] != 0xffff) {
			pay[2] = 2, pay[3] = 3;
			memcpy(pay + 4, r->seq, 12);
			len += 12;
		}
		int rc = nd_store_doc_put(txn, r->docid, 0, pay, len);
		if (rc < 0)
			return rc;
	}
	return ND_OK;
}

static int near_bad_fn(nd_store_txn *txn, void *ctx)
{
	(void)ctx; /* 2 trees of 3 rows claimed, one sequence held */
	uint8_t pay[2 + 2 + 6] = {0, 0, 2, 3};
	return nd_store_doc_put(txn, 9, 0, pay, sizeof(pay));
}

static int clear_fn(nd_store_txn *txn, void *ctx)
{
	(void)ctx;
	return nd_store_clear(txn);
}

static void expect_near(nd_store *st, unsigned tree, const uint16_t *seq, uint32_t self, unsigned window,
			const uint32_t *want, size_t nwant)
{
	nd_store_txn *txn;
	uint32_t got[16];
	size_t n;
	assert_int_equal(nd_store_read_begin(st, &txn), ND_OK);
	assert_int_equal(nd_store_near(txn, tree, seq, 3, self, window, got, &n), ND_OK);
	nd_store_txn_end(txn);
	if (n != nwant)
		fail_msg("tree %u: %zu neighbours, want %zu", tree, n, nwant);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(got[i], want[i]);
}

static uint64_t near_entries(nd_store *st)
{
	nd_store_txn *txn;
	uint64_t n;
	assert_int_equal(nd_store_read_begin(st, &txn), ND_OK);
	assert_int_equal(nd_store_near_count(txn, &n), ND_OK);
	nd_store_txn_end(txn);
	return n;
}

static void test_near_index(void **state)
{
	(void)state;
	char *path = tu_join(dir, "near");
	nd_store *st;
	assert_int_equal(nd_store_open(&st, path, ND_STORE_WRITE), ND_OK);
	/* Tree 0 orders 1 < 2 < 3 < 4 by sequence (2 and 3 share two rows);
	 * tree 1 the other way round.  5 has no section. */
	nearrec a[] = {{1, {{10, 1, 1}, {90, 0, 0}}}, {2, {{20, 5, 1}, {80, 0, 0}}}, {3, {{20, 5, 2}, {70, 0, 0}}},
		       {4, {{30, 0, 0}, {60, 0, 0}}}, {5, {{0xffff}, {0}}}, {0, {{0}}}};
	assert_int_equal(nd_store_write(st, near_put_fn, a), ND_OK);
	assert_int_equal(near_entries(st), 8);
	/* 2's neighbours: after it 3 then 4, before it 1; itself left out. */
	expect_near(st, 0, a[1].seq[0], 2, 2, (uint32_t[]){3, 4, 1}, 3);
	expect_near(st, 0, a[1].seq[0], 2, 1, (uint32_t[]){3, 1}, 2);
	expect_near(st, 1, a[1].seq[1], 2, 1, (uint32_t[]){1, 3}, 2); /* reversed order */
	/* A text not stored (self 0) probing between 3 and 4. */
	expect_near(st, 0, (uint16_t[]){25, 0, 0}, 0, 1, (uint32_t[]){4, 3}, 2);
	expect_near(st, 0, (uint16_t[]){99, 0, 0}, 0, 3, (uint32_t[]){4, 3, 2}, 3); /* past the end */
	/* Replace 2 far away, delete 3: their old entries go. */
	nearrec b[] = {{2, {{40, 0, 0}, {10, 0, 0}}}, {0, {{0}}}};
	uint32_t three = 3;
	assert_int_equal(nd_store_write(st, near_put_fn, b), ND_OK);
	assert_int_equal(nd_store_write(st, del_fn, &three), ND_OK);
	assert_int_equal(near_entries(st), 6);
	expect_near(st, 0, a[0].seq[0], 1, 3, (uint32_t[]){4, 2}, 2);
	nd_store_txn *txn;
	assert_int_equal(nd_store_read_begin(st, &txn), ND_OK);
	assert_int_equal(nd_store_near_has(txn, 0, a[1].seq[0], 3, 2), 0);
	assert_int_equal(nd_store_near_has(txn, 0, b[0].seq[0], 3, 2), 1);
	assert_int_equal(nd_store_near_has(txn, 1, a[2].seq[1], 3, 3), 0);
	nd_store_txn_end(txn);
	/* One transaction replacing 4 by the same keys keeps them (removal
	 * before re-addition); a malformed section is refused whole. */
	nearrec c[] = {{4, {{30, 0, 0}, {60, 0, 0}}}, {4, {{30, 0, 0}, {60, 0, 0}}}, {0, {{0}}}};
	assert_int_equal(nd_store_write(st, near_put_fn, c), ND_OK);
	assert_int_equal(near_entries(st), 6);
	assert_int_equal(nd_store_write(st, near_bad_fn, NULL), ND_EINVAL);
	assert_non_null(strstr(nd_error_last(), "document 9"));
	assert_int_equal(near_entries(st), 6);
	assert_int_equal(nd_store_write(st, clear_fn, NULL), ND_OK);
	assert_int_equal(near_entries(st), 0);
	nd_store_close(st);
	free(path);
}

/* A first signing's index, made whole: after nd_store_near_defer, puts
 * (in later transactions too) leave the index alone; nd_store_near_rebuild
 * makes exactly what piecemeal writes would have, from the records. */
static int defer_fn(nd_store_txn *txn, void *ctx)
{
	(void)ctx;
	return nd_store_near_defer(txn);
}

static int rebuild_fn(nd_store_txn *txn, void *ctx)
{
	(void)ctx;
	return nd_store_near_rebuild(txn);
}

static void test_near_rebuild(void **state)
{
	(void)state;
	char *path = tu_join(dir, "nearb");
	nd_store *st;
	nd_store_txn *txn;
	assert_int_equal(nd_store_open(&st, path, ND_STORE_WRITE), ND_OK);
	nearrec a[] = {{1, {{10, 1, 1}, {90, 0, 0}}}, {2, {{20, 5, 1}, {80, 0, 0}}}, {0, {{0}}}};
	nearrec b[] = {{3, {{20, 5, 2}, {70, 0, 0}}}, {4, {{30, 0, 0}, {60, 0, 0}}}, {5, {{0xffff}, {0}}},
		       {2, {{40, 0, 0}, {10, 0, 0}}}, {0, {{0}}}};
	assert_int_equal(nd_store_write(st, near_put_fn, a), ND_OK); /* piecemeal: 4 entries */
	assert_int_equal(nd_store_write(st, defer_fn, NULL), ND_OK);
	assert_int_equal(nd_store_write(st, near_put_fn, b), ND_OK);  /* deferred: 3 and 4 absent */
	assert_int_equal(nd_store_read_begin(st, &txn), ND_OK);
	assert_int_equal(nd_store_near_deferred(txn), 1);
	assert_int_equal(nd_store_near_has(txn, 0, b[0].seq[0], 3, 3), 0);
	nd_store_txn_end(txn);
	assert_int_equal(nd_store_write(st, rebuild_fn, NULL), ND_OK);
	assert_int_equal(near_entries(st), 8); /* 1, 2 (replaced), 3, 4 over two trees */
	assert_int_equal(nd_store_read_begin(st, &txn), ND_OK);
	assert_int_equal(nd_store_near_deferred(txn), 0);
	assert_int_equal(nd_store_near_has(txn, 0, b[0].seq[0], 3, 3), 1);
	assert_int_equal(nd_store_near_has(txn, 1, b[1].seq[1], 3, 4), 1);
	assert_int_equal(nd_store_near_has(txn, 0, b[3].seq[0], 3, 2), 1);
	assert_int_equal(nd_store_near_has(txn, 0, a[1].seq[0], 3, 2), 0); /* 2's old keys are gone */
	nd_store_txn_end(txn);
	expect_near(st, 0, b[0].seq[0], 3, 1, (uint32_t[]){4, 1}, 2); /* 1 < 3 < 4 < 2 in tree 0 */
	/* Piecemeal again after the rebuild. */
	uint32_t one = 1;
	assert_int_equal(nd_store_write(st, del_fn, &one), ND_OK);
	assert_int_equal(near_entries(st), 6);
	nd_store_close(st);
	free(path);
}

/* The index of a store as "tree docid seq..." lines, in order. */
typedef struct {
	nd_buf out;
} listing;

static int list_entry(unsigned tree, uint32_t docid, void *ctx)
{
	listing *l = ctx;
	char line[32];
	int n = snprintf(line, sizeof(line), "%u %u\n", tree, docid);
	return nd_buf_put(&l->out, line, (size_t)n) < 0 ? ND_ENOMEM : 0;
}

static char *near_listing(nd_store *st)
{
	listing l = {ND_BUF_INIT};
	nd_store_txn *txn;
	assert_int_equal(nd_store_read_begin(st, &txn), ND_OK);
	assert_int_equal(nd_store_near_each(txn, list_entry, &l), ND_OK);
	nd_store_txn_end(txn);
	assert_int_equal(nd_buf_putc(&l.out, 0), ND_OK);
	return l.out.ptr;
}

static size_t near_lines(const char *listing)
{
	size_t n = 0;
	for (; *listing; listing++)
		n += *listing == '\n';
	return n;
}

/* A rebuild of many entries, their keys sharing first values by the
 * hundred (the runs its sort swaps keys into, then sorts one by one),
 * makes the index piecemeal writes make. */
static void test_near_rebuild_many(void **state)
{
	(void)state;
	enum { N = 20000 };
	nearrec *r = calloc(N + 1, sizeof(*r));
	uint64_t x = 88172645463325252ull;
	assert_non_null(r);
	for (uint32_t i = 0; i < N; i++) {
		r[i].docid = i + 1;
		for (int t = 0; t < 2; t++)
			for (int k = 0; k < 3; k++) {
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				r[i].seq[t][k] = (uint16_t)(k == 0 ? x % 97 : x % 60000);
			}
	}
	char *got[2];
	for (int run = 0; run < 2; run++) {
		char name[16];
		snprintf(name, sizeof(name), "nearmany%d", run);
		char *path = tu_join(dir, name);
		nd_store *st;
		assert_int_equal(nd_store_open(&st, path, ND_STORE_WRITE), ND_OK);
		if (run == 1)
			assert_int_equal(nd_store_write(st, defer_fn, NULL), ND_OK);
		assert_int_equal(nd_store_write(st, near_put_fn, r), ND_OK);
		if (run == 1)
			assert_int_equal(nd__store_near_rebuild(st), ND_OK);
		got[run] = near_listing(st);
		nd_store_close(st);
		free(path);
	}
	assert_int_equal(near_lines(got[0]), 2 * N);
	assert_string_equal(got[1], got[0]);
	free(got[0]);
	free(got[1]);
	free(r);
}

static int put_between(nd_store *st, void *ctx)
{
	int *calls = ctx;
	nearrec c[] = {{6, {{25, 0, 0}, {65, 0, 0}}}, {0, {{0}}}};
	return (*calls)++ == 0 ? nd_store_write(st, near_put_fn, c) : ND_OK;
}

/* A rebuild in transactions of a few entries makes what one transaction
 * makes; a write between its steps has it made again, with that write. */
static void test_near_rebuild_steps(void **state)
{
	(void)state;
	nearrec a[] = {{1, {{10, 1, 1}, {90, 0, 0}}}, {2, {{20, 5, 1}, {80, 0, 0}}}, {3, {{20, 5, 2}, {70, 0, 0}}},
		       {4, {{30, 0, 0}, {60, 0, 0}}}, {5, {{0xffff}, {0}}}, {7, {{5, 0, 0}, {99, 0, 0}}}, {0, {{0}}}};
	nearrec c[] = {{6, {{25, 0, 0}, {65, 0, 0}}}, {0, {{0}}}};
	char *want = NULL, *want6 = NULL;
	for (int run = 0; run < 4; run++) {
		char name[16];
		snprintf(name, sizeof(name), "nearsteps%d", run);
		char *path = tu_join(dir, name);
		nd_store *st;
		nd_store_txn *txn;
		int calls = 0;
		assert_int_equal(nd_store_open(&st, path, ND_STORE_WRITE), ND_OK);
		assert_int_equal(nd_store_write(st, defer_fn, NULL), ND_OK);
		assert_int_equal(nd_store_write(st, near_put_fn, a), ND_OK);
		if (run == 1) /* what a write between steps must come to */
			assert_int_equal(nd_store_write(st, near_put_fn, c), ND_OK);
		/* run 0, 1: one transaction; 2: steps of 3 entries; 3: steps of
		 * 3 with a record put between the first two. */
		nd__store_set_rebuild_step(run >= 2 ? 3 : 0, run == 3 ? put_between : NULL, &calls);
		assert_int_equal(nd__store_near_rebuild(st), ND_OK);
		nd__store_set_rebuild_step(0, NULL, NULL);
		assert_int_equal(nd_store_read_begin(st, &txn), ND_OK);
		assert_int_equal(nd_store_near_deferred(txn), 0);
		nd_store_txn_end(txn);
		char *got = near_listing(st);
		if (run == 0)
			want = got;
		else if (run == 1)
			want6 = got;
		else {
			assert_string_equal(got, run == 3 ? want6 : want);
			assert_int_equal(calls, run == 3 ? 1 : 0); /* 10 entries; stale after the first step */
			free(got);
		}
		/* Whole: a second rebuild has nothing to do. */
		assert_int_equal(nd__store_near_rebuild(st), ND_OK);
		nd_store_close(st);
		free(path);
	}
	assert_int_equal(strlen(want6) > strlen(want), 1);
	free(want);
	free(want6);
}

/* Links: kept both ways, dropped with a record that changes or goes, and
 * by clear; the first change of a record since the links were settled
 * journals it as it was, and its lost partners as touched. */
static int link_fn(nd_store_txn *txn, void *ctx)
{
	const uint32_t *pairs = ctx;
	for (; pairs[0]; pairs += 2) {
		int rc = nd_store_link_put(txn, pairs[0], pairs[1]);
		if (rc < 0)
			return rc;
	}
	return nd_store_links_settled(txn);
}

static void expect_links(nd_store *st, uint32_t docid, const uint32_t *want, size_t n)
{
	nd_store_txn *txn;
	uint32_t *got;
	size_t m;
	assert_int_equal(nd_store_read_begin(st, &txn), ND_OK);
	assert_int_equal(nd_store_links(txn, docid, &got, &m), ND_OK);
	if (m != n)
		fail_msg("document %u: %zu links, want %zu", docid, m, n);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(got[i], want[i]);
	free(got);
	nd_store_txn_end(txn);
}

static int links_state(nd_store *st)
{
	nd_store_txn *txn;
	assert_int_equal(nd_store_read_begin(st, &txn), ND_OK);
	int p = nd_store_links_state(txn);
	nd_store_txn_end(txn);
	return p;
}

/* The journal as "docid:state:payload-length " words. */
typedef struct {
	char text[256];
} journal_text;

static int on_journaled(uint32_t docid, int state, const void *old, size_t len, void *ctx)
{
	journal_text *j = ctx;
	size_t at = strlen(j->text);
	assert_true((old != NULL) == (state == ND_JOURNAL_RECORD));
	snprintf(j->text + at, sizeof(j->text) - at, "%u:%d:%zu ", docid, state, len);
	return 0;
}

static void expect_journal(nd_store *st, const char *want)
{
	journal_text j = {""};
	nd_store_txn *txn;
	assert_int_equal(nd_store_read_begin(st, &txn), ND_OK);
	assert_int_equal(nd_store_journal_each(txn, on_journaled, &j), ND_OK);
	nd_store_txn_end(txn);
	assert_string_equal(j.text, want);
}

static int count_link(uint32_t a, uint32_t b, void *ctx)
{
	(void)a, (void)b;
	++*(size_t *)ctx;
	return 0;
}

static int unlink_fn(nd_store_txn *txn, void *ctx)
{
	const uint32_t *p = ctx;
	return nd_store_link_del(txn, p[0], p[1]);
}

static int links_clear_fn(nd_store_txn *txn, void *ctx)
{
	(void)ctx;
	return nd_store_links_clear(txn);
}

static void test_links(void **state)
{
	(void)state;
	char *path = tu_join(dir, "links");
	nd_store *st;
	assert_int_equal(nd_store_open(&st, path, ND_STORE_WRITE), ND_OK);
	assert_int_equal(links_state(st), ND_LINKS_SETTLED); /* never signed */
	put a[] = {{1, 5}, {2, 5}, {3, 6}, {4, 7}, {0, 0}};
	assert_int_equal(nd_store_write(st, put_fn, a), ND_OK);
	assert_int_equal(links_state(st), ND_LINKS_JOURNAL); /* records without links */
	expect_journal(st, "1:0:0 2:0:0 3:0:0 4:0:0 ");
	uint32_t l[] = {1, 2, 2, 3, 4, 1, 1, 2, 0, 0}; /* 1-2 twice: kept once */
	assert_int_equal(nd_store_write(st, link_fn, l), ND_OK);
	assert_int_equal(links_state(st), ND_LINKS_SETTLED);
	expect_journal(st, "");
	expect_links(st, 1, (uint32_t[]){2, 4}, 2);
	expect_links(st, 2, (uint32_t[]){1, 3}, 2);
	expect_links(st, 3, (uint32_t[]){2}, 1);
	size_t each = 0;
	nd_store_txn *txn;
	assert_int_equal(nd_store_read_begin(st, &txn), ND_OK);
	assert_int_equal(nd_store_links_each(txn, count_link, &each), ND_OK);
	nd_store_txn_end(txn);
	assert_int_equal(each, 6); /* 3 pairs, each way */
	uint32_t self[] = {3, 3, 0, 0};
	assert_int_equal(nd_store_write(st, link_fn, self), ND_EINVAL);
	/* 2 is replaced: its links go both ways; it is journaled with its
	 * record as it was (6 bytes), its partners as touched. */
	put b[] = {{2, 8}, {0, 0}};
	assert_int_equal(nd_store_write(st, put_fn, b), ND_OK);
	assert_int_equal(links_state(st), ND_LINKS_JOURNAL);
	expect_journal(st, "1:2:0 2:1:6 3:2:0 ");
	expect_links(st, 2, NULL, 0);
	expect_links(st, 1, (uint32_t[]){4}, 1);
	expect_links(st, 3, NULL, 0);
	/* 1, touched, then changed: journaled with its record; 2 again: its
	 * first old record stays. */
	put c[] = {{1, 9}, {2, 9}, {0, 0}};
	assert_int_equal(nd_store_write(st, put_fn, c), ND_OK);
	expect_journal(st, "1:1:6 2:1:6 3:2:0 4:2:0 ");
	/* 4 is deleted: journaled as it was. */
	uint32_t four = 4;
	assert_int_equal(nd_store_write(st, del_fn, &four), ND_OK);
	expect_journal(st, "1:1:6 2:1:6 3:2:0 4:1:6 ");
	expect_links(st, 1, NULL, 0);
	uint32_t again[] = {1, 3, 0, 0};
	assert_int_equal(nd_store_write(st, link_fn, again), ND_OK);
	expect_links(st, 3, (uint32_t[]){1}, 1);
	uint32_t pair[] = {3, 1};
	assert_int_equal(nd_store_write(st, unlink_fn, pair), ND_OK);
	assert_int_equal(nd_store_write(st, unlink_fn, pair), ND_OK); /* gone already: no error */
	expect_links(st, 1, NULL, 0);
	expect_links(st, 3, NULL, 0);
	/* Dropping the links marks them for a rebuild, and nothing is
	 * journaled until they are settled. */
	assert_int_equal(nd_store_write(st, links_clear_fn, NULL), ND_OK);
	assert_int_equal(links_state(st), ND_LINKS_REBUILD);
	assert_int_equal(nd_store_write(st, put_fn, b), ND_OK);
	expect_journal(st, "");
	assert_int_equal(links_state(st), ND_LINKS_REBUILD);
	/* Clearing every record leaves nothing to link: settled. */
	assert_int_equal(nd_store_write(st, clear_fn, NULL), ND_OK);
	expect_links(st, 1, NULL, 0);
	assert_int_equal(links_state(st), ND_LINKS_SETTLED);
	nd_store_close(st);
	free(path);
}

/* A journal past ND_STORE_JOURNAL_MIN entries and 1/ND_STORE_JOURNAL_SHARE
 * of the records gives way to a rebuild. */
static void test_journal_overflow(void **state)
{
	(void)state;
	char *path = tu_join(dir, "journal");
	nd_store *st;
	assert_int_equal(nd_store_open(&st, path, ND_STORE_WRITE), ND_OK);
	many_ctx m = {ND_STORE_JOURNAL_MIN, 0};
	assert_int_equal(nd_store_write(st, many_fn, &m), ND_OK);
	assert_int_equal(links_state(st), ND_LINKS_JOURNAL);
	uint64_t n;
	nd_store_txn *txn;
	assert_int_equal(nd_store_read_begin(st, &txn), ND_OK);
	assert_int_equal(nd_store_journal_count(txn, &n), ND_OK);
	nd_store_txn_end(txn);
	assert_int_equal(n, ND_STORE_JOURNAL_MIN);
	put one[] = {{ND_STORE_JOURNAL_MIN + 1, 3}, {0, 0}};
	assert_int_equal(nd_store_write(st, put_fn, one), ND_OK);
	assert_int_equal(links_state(st), ND_LINKS_REBUILD);
	expect_journal(st, "");
	nd_store_close(st);
	free(path);
}

/* Opening trusts a snapshot known good: one a walk passed, or that its
 * own writer committed.  Any other write to the file changes its change
 * time, and the next open walks it; ND_STORE_CHECK (fsck) always walks. */
static void test_verified_snapshot(void **state)
{
	(void)state;
	char *path = tu_join(dir, "verified"), *data = tu_join(path, "data.mdb"), *mark = tu_join(path, "verified");
	nd_store *st;
	struct stat sb;
	assert_int_equal(nd_store_open(&st, path, ND_STORE_WRITE), ND_OK);
	many_ctx m = {3000, 0};
	assert_int_equal(nd_store_write(st, many_fn, &m), ND_OK);
	nd_store_close(st);
	assert_int_equal(stat(mark, &sb), 0); /* the writer's commits left it current */
	assert_int_equal(nd_store_open(&st, path, ND_STORE_READ | ND_STORE_CHECK), ND_OK);
	nd_store_close(st);
	/* Scribble pages in place until one the snapshot uses is hit. */
	assert_int_equal(stat(data, &sb), 0);
	long psize = sysconf(_SC_PAGESIZE), pages = (long)(sb.st_size / psize);
	int fd = open(data, O_RDWR), hit = 0;
	assert_true(fd >= 0);
	for (long p = 2; p < pages && !hit; p++) {
		unsigned char keep[64], junk[64];
		memset(junk, 0xa5, sizeof(junk));
		assert_int_equal(pread(fd, keep, sizeof(keep), p * psize + 512), (ssize_t)sizeof(keep));
		assert_int_equal(pwrite(fd, junk, sizeof(junk), p * psize + 512), (ssize_t)sizeof(junk));
		hit = nd_store_open(&st, path, ND_STORE_READ | ND_STORE_CHECK) == ND_ECORRUPT;
		if (!hit) {
			nd_store_close(st);
			assert_int_equal(pwrite(fd, keep, sizeof(keep), p * psize + 512), (ssize_t)sizeof(keep));
		}
	}
	close(fd);
	assert_true(hit);
	/* Written behind the store's back: the marker no longer matches. */
	assert_int_equal(nd_store_open(&st, path, ND_STORE_READ), ND_ECORRUPT);
	/* Were it recorded as good (as a walk or the writer would), opening
	 * checks the meta pages alone; fsck's open still walks. */
	assert_int_equal(nd__store_mark_verified(path), ND_OK);
	assert_int_equal(nd_store_open(&st, path, ND_STORE_READ), ND_OK);
	nd_store_close(st);
	assert_int_equal(nd_store_open(&st, path, ND_STORE_READ | ND_STORE_CHECK), ND_ECORRUPT);
	free(path);
	free(data);
	free(mark);
}

/* Releasing the map's pages loses nothing: a pointer into the map and a
 * fresh read give the same bytes after it, and (Linux) the pages leave the
 * process's resident set. */
#define REL_DOCS 2000
#define REL_LEN 1500

static void rel_payload(uint32_t docid, uint8_t *out)
{
	memset(out, 0, 4); /* no bits, no near keys */
	for (size_t i = 4; i < REL_LEN; i++)
		out[i] = (uint8_t)(docid * 31 + i);
}

/* REL_DOCS records, or *ctx when ctx is not NULL. */
static int rel_put_fn(nd_store_txn *txn, void *ctx)
{
	uint8_t buf[REL_LEN];
	uint32_t n = ctx ? *(const uint32_t *)ctx : REL_DOCS;
	for (uint32_t d = 1; d <= n; d++) {
		rel_payload(d, buf);
		int rc = nd_store_doc_put(txn, d, 0, buf, REL_LEN);
		if (rc < 0)
			return rc;
	}
	return ND_OK;
}

/* docid's record as rel_payload wrote it: where it is read from. */
static const void *rel_check(nd_store_txn *txn, uint32_t docid)
{
	uint8_t want[REL_LEN];
	const void *p;
	size_t len;
	uint64_t key;
	assert_int_equal(nd_store_doc_get(txn, docid, &key, &p, &len), ND_OK);
	assert_int_equal(len, REL_LEN);
	rel_payload(docid, want);
	assert_memory_equal(p, want, REL_LEN);
	return p;
}

/* The sum of /proc/self/status's fields a and b (b may be NULL), in KiB;
 * -1 where there is no such file. */
static long status_kb(const char *a, const char *b)
{
	long kb = -1, v;
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	while (f && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');
		size_t n = colon ? (size_t)(colon - line) : 0;
		if (n && ((strlen(a) == n && !strncmp(line, a, n)) || (b && strlen(b) == n && !strncmp(line, b, n))) &&
		    sscanf(colon + 1, "%ld", &v) == 1)
			kb = (kb < 0 ? 0 : kb) + v;
	}
	if (f)
		fclose(f);
	return kb;
}

/* Resident pages of mapped files: RssFile, and RssShmem for a store on
 * tmpfs. */
static long rss_file_kb(void)
{
	return status_kb("RssFile", "RssShmem");
}

/* A walk of every record keeps at most a few thousand records' pages
 * resident: 40,000 records of 1.5 KB (some 80 MB of map, two records a
 * page) walked with the resident file pages read every thousand; the
 * kernel maps pages around each it faults in, so 8,192 records between
 * releases come to about 32 MB. */
typedef struct {
	uint32_t seen;
	long most;
} walk_rss;

static int walk_rss_fn(uint32_t docid, uint64_t key, const void *payload, size_t len, void *ctx)
{
	walk_rss *w = ctx;
	(void)docid, (void)key, (void)payload, (void)len;
	if (++w->seen % 1000 == 0) {
		long kb = rss_file_kb();
		w->most = kb > w->most ? kb : w->most;
	}
	return 0;
}

static void test_walk_releases(void **state)
{
	(void)state;
	char *path = tu_join(dir, "walkrel");
	nd_store *st;
	nd_store_txn *txn;
	uint32_t n = 40000;
	walk_rss w = {0, -1};
	assert_int_equal(nd_store_open(&st, path, ND_STORE_WRITE), ND_OK);
	assert_int_equal(nd__store_set_mapsize(st, (size_t)256 << 20), ND_OK);
	assert_int_equal(nd_store_write(st, rel_put_fn, &n), ND_OK);
	nd__store_release_pages(st);
	long base = rss_file_kb();
	assert_int_equal(nd_store_read_begin(st, &txn), ND_OK);
	assert_int_equal(nd_store_docs_each(txn, walk_rss_fn, &w), ND_OK);
	nd_store_txn_end(txn);
	assert_int_equal(w.seen, n);
#ifdef __linux__
	if (base >= 0 && w.most >= 0 && w.most - base > 48 * 1024)
		fail_msg("a walk of %u records held %ld KiB of the map", n, w.most - base);
#endif
	/* Read one by one, in a scattered order (a search collapsing its
	 * matches): each fault maps 64 KB around its record, and 256 reads
	 * between releases held 28 MB here (80 MB without them).  The first
	 * record read is still good after. */
	nd__store_release_pages(st);
	base = rss_file_kb();
	long most = -1;
	const void *first = NULL;
	size_t first_len = 0;
	assert_int_equal(nd_store_read_begin(st, &txn), ND_OK);
	for (uint32_t i = 0; i < n; i++) {
		const void *p;
		size_t len;
		uint64_t key;
		assert_int_equal(nd_store_doc_get(txn, 1 + (uint32_t)((uint64_t)i * 7919 % n), &key, &p, &len), ND_OK);
		if (!first)
			first = p, first_len = len;
		if (i % 1000 == 999) {
			long kb = rss_file_kb();
			most = kb > most ? kb : most;
		}
	}
	uint8_t want[REL_LEN];
	rel_payload(1, want);
	assert_int_equal(first_len, REL_LEN);
	assert_memory_equal(first, want, REL_LEN);
	nd_store_txn_end(txn);
#ifdef __linux__
	if (base >= 0 && most >= 0 && most - base > 48 * 1024)
		fail_msg("reading %u records by docid held %ld KiB of the map", n, most - base);
#endif
	nd_store_close(st);
	free(path);
}

static int put_down_fn(nd_store_txn *txn, void *ctx)
{
	uint8_t buf[REL_LEN];
	(void)ctx;
	/* Past the last docid, then before it: appended, then put. */
	for (uint32_t d = 3 * REL_DOCS; d > 2 * REL_DOCS; d -= 2) {
		rel_payload(d, buf);
		int rc = nd_store_doc_put(txn, d, 0, buf, REL_LEN);
		if (rc < 0)
			return rc;
	}
	return ND_OK;
}

/* Records put in docid order fill their pages: two of 1.5 KB to a 4 KB
 * page, where splitting each full page in half left one (2,000 records
 * took 2,000 pages).  Records put out of order are all still there. */
static void test_records_fill_pages(void **state)
{
	(void)state;
	char *path = tu_join(dir, "fill"), *file = tu_join(path, "data.mdb");
	nd_store *st;
	nd_store_txn *txn;
	nd__store_pages pg;
	assert_int_equal(nd_store_open(&st, path, ND_STORE_WRITE), ND_OK);
	assert_int_equal(nd_store_write(st, rel_put_fn, NULL), ND_OK);
	assert_int_equal(nd__store_pages_check(file, 1, &pg), ND_OK);
	if (pg.page_size == 4096 && pg.pages > REL_DOCS * 6 / 10)
		fail_msg("%d records of %d bytes took %llu pages", REL_DOCS, REL_LEN, (unsigned long long)pg.pages);
	assert_int_equal(nd_store_write(st, put_down_fn, NULL), ND_OK);
	assert_int_equal(nd_store_read_begin(st, &txn), ND_OK);
	for (uint32_t d = 1; d <= 3 * REL_DOCS; d++) {
		const void *p;
		size_t len;
		uint64_t key;
		if (d <= REL_DOCS || (d > 2 * REL_DOCS && (3 * REL_DOCS - d) % 2 == 0))
			rel_check(txn, d);
		else
			assert_int_equal(nd_store_doc_get(txn, d, &key, &p, &len), ND_ENOTFOUND);
	}
	nd_store_txn_end(txn);
	nd_store_close(st);
	free(file);
	free(path);
}

/* The pages LMDB keeps after a large write are given back, and the store
 * reads and writes as before; while a read is open nothing is done, and
 * the read stays good. */
static void test_give_back(void **state)
{
	(void)state;
	char *path = tu_join(dir, "giveback");
	nd_store *st;
	nd_store_txn *txn;
	uint32_t n = 20000; /* 30 MB of records in one transaction */
	assert_int_equal(nd_store_open(&st, path, ND_STORE_WRITE), ND_OK);
	assert_int_equal(nd_store_write(st, rel_put_fn, &n), ND_OK);

	/* ASan's allocator keeps what is freed: the memory is measured
	 * without it. */
	long held = status_kb("RssAnon", NULL);
	assert_int_equal(nd_store_read_begin(st, &txn), ND_OK);
	assert_int_equal(nd__store_give_back(st), ND_OK); /* a read is open: nothing */
	long kept = status_kb("RssAnon", NULL);
	rel_check(txn, 777);
	nd_store_txn_end(txn);

	long before = status_kb("RssAnon", NULL);
	assert_int_equal(nd__store_give_back(st), ND_OK);
	long after = status_kb("RssAnon", NULL);
#if !defined(__SANITIZE_ADDRESS__) && defined(__linux__)
	if (held >= 0 && kept >= 0 && held - kept >= 15 * 1024)
		fail_msg("a read was open, yet RssAnon fell %ld -> %ld KiB", held, kept);
	if (before >= 0 && after >= 0 && before - after < 15 * 1024)
		fail_msg("giving back the pages of a 30 MB write: RssAnon %ld -> %ld KiB", before, after);
#else
	(void)held, (void)kept, (void)before, (void)after;
#endif
	uint32_t m = 100;
	assert_int_equal(nd_store_write(st, rel_put_fn, &m), ND_OK); /* rewrites 1..100 */
	assert_int_equal(nd_store_read_begin(st, &txn), ND_OK);
	for (uint32_t d = 1; d <= n; d += 997)
		rel_check(txn, d);
	nd_store_txn_end(txn);
	nd_store_close(st);
	/* Another handle sees it all, and the file passes its walk. */
	assert_int_equal(nd_store_open(&st, path, ND_STORE_READ | ND_STORE_CHECK), ND_OK);
	nd_store_close(st);
	free(path);
}

static void test_release_pages(void **state)
{
	(void)state;
	char *path = tu_join(dir, "release");
	nd_store *st;
	nd_store_txn *txn;
	uint8_t want[REL_LEN];
	const void *first = NULL, *at[REL_DOCS];
	volatile uint8_t sum = 0;
	assert_int_equal(nd_store_open(&st, path, ND_STORE_WRITE), ND_OK);
	assert_int_equal(nd_store_write(st, rel_put_fn, NULL), ND_OK);
	assert_int_equal(nd_store_read_begin(st, &txn), ND_OK);
	for (uint32_t d = 1; d <= REL_DOCS; d++)
		at[d - 1] = rel_check(txn, d);
	first = at[0];
	/* Reads release as they go: every page made resident again here. */
	for (uint32_t d = 0; d < REL_DOCS; d++)
		for (size_t i = 0; i < REL_LEN; i += 512)
			sum += ((const uint8_t *)at[d])[i];
	(void)sum; /* read only to touch the pages (clang: set but not used) */
	long before = rss_file_kb();
	nd__store_release_pages(st);
	long after = rss_file_kb();
	rel_payload(1, want);
	assert_memory_equal(first, want, REL_LEN); /* read again from the page cache */
	for (uint32_t d = 1; d <= REL_DOCS; d += 97)
		rel_check(txn, d);
	nd_store_txn_end(txn);
#ifdef __linux__
	/* 2,000 records of 1.5 KB: megabytes of map, gone from the set. */
	if (before >= 0 && after >= 0 && before - after < 1024)
		fail_msg("resident file pages %ld KiB before the release, %ld after", before, after);
#else
	(void)before, (void)after;
#endif
	nd_store_close(st);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_records_and_clusters),
		cmocka_unit_test(test_note_groups),
		cmocka_unit_test(test_shift_kept),
		cmocka_unit_test(test_move_kept_in_order),
		cmocka_unit_test(test_snapshot),
		cmocka_unit_test(test_map_grows),
		cmocka_unit_test(test_group_commit),
		cmocka_unit_test(test_bad_stores),
		cmocka_unit_test(test_bit_postings),
		cmocka_unit_test(test_near_index),
		cmocka_unit_test(test_near_rebuild),
		cmocka_unit_test(test_near_rebuild_steps),
		cmocka_unit_test(test_near_rebuild_many),
		cmocka_unit_test(test_links),
		cmocka_unit_test(test_journal_overflow),
		cmocka_unit_test(test_verified_snapshot),
		cmocka_unit_test(test_release_pages),
		cmocka_unit_test(test_walk_releases),
		cmocka_unit_test(test_records_fill_pages),
		cmocka_unit_test(test_give_back),
	};
	return cmocka_run_group_tests_name("store", tests, setup, teardown);
}
