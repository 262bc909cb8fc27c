/* The LMDB store: records and clusters in step, map growth, bad files. */
#include "tests/test_util.h"
#include "lmdb_store/store_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
		int rc = nd_store_doc_put(txn, p->docid, p->key, "xy", 2);
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

static int del_fn(nd_store_txn *txn, void *ctx)
{
	return nd_store_doc_del(txn, *(uint32_t *)ctx);
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
	assert_int_equal(len, 2);
	assert_memory_equal(payload, "xy", 2);
	assert_int_equal(nd_store_doc_get(txn, 9, &key, &payload, &len), ND_ENOTFOUND);
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
	int rc = nd_store_open(&st, trunc, ND_STORE_READ);
	assert_true(rc == ND_ECORRUPT || rc == ND_EIO);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_records_and_clusters),
		cmocka_unit_test(test_snapshot),
		cmocka_unit_test(test_map_grows),
		cmocka_unit_test(test_bad_stores),
	};
	return cmocka_run_group_tests_name("store", tests, setup, teardown);
}
