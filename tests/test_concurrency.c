/* One process applies 1,000 changes (10,000 in make slow) through hooks (with Xapian commits
 * and LMDB map growth along the way) while another searches, collapses and
 * checks the store's consistency: the reader sees no error and never a
 * half-applied change. */
#include "tests/test_util.h"
#include "neardup/check.h"
#include "neardup/collapse.h"
#include "neardup/hook.h"
#include "lmdb_store/store_internal.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define VOCAB 2000
#define SLOT 3
#define NOPS (tu_slow() ? 10000 : 1000) /* make slow: the full run */
#define LIVE 150

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

static char *family_text(uint64_t fam, int copy)
{
	return tu_copy_doc(4000 + fam, fam * 13 + (uint64_t)copy, 100 + (size_t)(fam % 4) * 30, copy ? 1 : 0, VOCAB);
}

#define FAIL(...) do { fprintf(stderr, "reader: " __VA_ARGS__); fputc('\n', stderr); return 1; } while (0)

typedef struct {
	nd_store_txn *txn;
	int bad;
} rd_ctx;

/* In one snapshot: every keyed record is in its cluster, and every cluster
 * member carries that key. */
static int rd_one(uint32_t docid, uint64_t key, const void *payload, size_t len, void *vctx)
{
	rd_ctx *c = vctx;
	(void)payload;
	(void)len;
	if (!key)
		return 0;
	nd_docid *m;
	size_t n, found = 0;
	if (nd_store_key_docs(c->txn, key, &m, &n) < 0)
		return c->bad = 1;
	for (size_t i = 0; i < n; i++) {
		uint64_t k;
		found += m[i] == docid;
		if (nd_store_doc_get(c->txn, m[i], &k, NULL, NULL) < 0 || k != key)
			c->bad = 1;
	}
	free(m);
	if (found != 1)
		c->bad = 1;
	return c->bad;
}

/* The reader: until the writer closes the pipe, search both ways, check a
 * text, and check the store.  Exit status 0 when every round succeeded. */
static int reader(const char *dbpath, const char *storepath, int done_fd, int ready_fd)
{
	nd_xdb *db;
	nd_store *st;
	nd_descriptor *d;
	nd_tokenizer *tk;
	long rounds = 0;
	char *text = family_text(7, 1);
	if (nd_xdb_open(&db, dbpath, ND_XDB_READ) < 0 || nd_store_open(&st, storepath, ND_STORE_READ) < 0 ||
	    nd_descriptor_load(&d, st, db) < 0 || nd_tokenizer_new(&tk) < 0)
		FAIL("open: %s", nd_error_last());
	if (write(ready_fd, "r", 1) != 1)
		FAIL("pipe");
	for (;;) {
		char c;
		ssize_t r = read(done_fd, &c, 1); /* non-blocking: 0 at EOF = writer done */
		int last = r == 0;
		nd_xdb_hit hits[20];
		size_t n;
		if (nd_xdb_reopen(db, NULL) < 0)
			FAIL("reopen: %s", nd_error_last());
		for (int mode = ND_COLLAPSE_NATIVE; mode <= ND_COLLAPSE_FILTER; mode++) {
			if (nd_search(db, st, "w0002a OR w0005a", (nd_collapse_mode)mode, 0, 20, 300, hits, &n,
				      NULL) < 0)
				FAIL("search (%d): %s", mode, nd_error_last());
			for (size_t i = 0; i < n; i++)
				for (size_t j = 0; j < i; j++)
					if (hits[i].docid == hits[j].docid)
						FAIL("docid %u twice in one page", hits[i].docid);
		}
		nd_check_result cr = ND_CHECK_RESULT_INIT;
		if (nd_check_text(tk, d, db, st, text, strlen(text), NULL, 4, &cr) < 0)
			FAIL("check: %s", nd_error_last());
		nd_check_result_clear(&cr);
		rd_ctx rc = {NULL, 0};
		if (nd_store_read_begin(st, &rc.txn) < 0)
			FAIL("store txn: %s", nd_error_last());
		int e = nd_store_docs_each(rc.txn, rd_one, &rc);
		nd_store_txn_end(rc.txn);
		if (e < 0 || rc.bad)
			FAIL("store inconsistent in one snapshot (round %ld)", rounds);
		rounds++;
		if (last)
			break;
	}
	fprintf(stderr, "reader: %ld consistent rounds\n", rounds);
	nd_tokenizer_free(tk);
	nd_descriptor_free(d);
	nd_store_close(st);
	nd_xdb_close(db);
	free(text);
	return rounds > 1 ? 0 : 1;
}

static void test_reader_during_updates(void **state)
{
	(void)state;
	char *dbpath = tu_join(dir, "db"), *storepath = tu_join(dir, "store");
	nd_indexer *ix;
	nd_store *st;
	uint64_t rng = 11;

	assert_int_equal(nd_indexer_open(&ix, dbpath, NULL), ND_OK);
	for (int i = 0; i < LIVE; i++) {
		char id[32], *t = family_text((uint64_t)(i % 60), i / 60);
		snprintf(id, sizeof(id), "doc%d", i);
		assert_int_equal(nd_indexer_add_text(ix, id, t, strlen(t), NULL, NULL), ND_OK);
		free(t);
	}
	assert_int_equal(nd_indexer_commit(ix), ND_OK);
	nd_xdb *db = nd_indexer_db(ix);
	tu_build_and_sign(db, storepath, 200, &st);
	assert_int_equal(nd_collapse_slot_set(st, SLOT), ND_OK);
	nd_docid all[LIVE];
	for (int i = 0; i < LIVE; i++)
		all[i] = (nd_docid)i + 1;
	assert_int_equal(nd_collapse_write_slot(db, st, NULL, SLOT, all, LIVE, NULL), ND_OK);
	assert_int_equal(nd_indexer_commit(ix), ND_OK);
	/* The smallest map LMDB allows (what the store holds now), so the
	 * writer grows it while the reader reads. */
	assert_int_equal(nd__store_set_mapsize(st, (size_t)1 << 16), ND_OK);
	size_t map0 = nd__store_mapsize(st);

	int done[2], ready[2];
	assert_int_equal(pipe(done), 0);
	assert_int_equal(pipe(ready), 0);
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(done[1]);
		close(ready[0]);
		/* The child opens its own handles; the parent's are never used here. */
		if (fcntl(done[0], F_SETFL, O_NONBLOCK) < 0)
			_exit(3);
		_exit(reader(dbpath, storepath, done[0], ready[1]));
	}
	close(done[0]);
	close(ready[1]);
	char c;
	assert_int_equal(read(ready[0], &c, 1), 1);

	nd_hook *h;
	nd_hook_options ho = ND_HOOK_OPTIONS_INIT;
	ho.max_drift = 0;
	assert_int_equal(nd_hook_open(&h, db, st, &ho), ND_OK);
	int live[LIVE];
	for (int i = 0; i < LIVE; i++)
		live[i] = 1;
	for (int op = 0; op < NOPS; op++) {
		uint64_t r = tu_rand(&rng);
		int i = (int)(r % LIVE);
		char id[32];
		nd_docid docid;
		snprintf(id, sizeof(id), "doc%d", i);
		if (live[i] && (r >> 20) % 4 == 0) {
			assert_int_equal(nd_indexer_delete(ix, id, &docid), ND_OK);
			live[i] = 0;
		} else {
			char *t = family_text((r >> 8) % 60, (int)((r >> 16) % 3));
			assert_int_equal(nd_indexer_add_text(ix, id, t, strlen(t), NULL, NULL), ND_OK);
			free(t);
			docid = nd_indexer_last_docid(ix);
			live[i] = 1;
		}
		assert_int_equal(nd_hook_changed(h, docid, NULL), ND_OK);
		if (op % 100 == 99)
			assert_int_equal(nd_indexer_commit(ix), ND_OK);
	}
	assert_int_equal(nd_indexer_commit(ix), ND_OK);
	assert_true(nd__store_mapsize(st) > map0); /* the map grew under the reader */
	close(done[1]); /* the reader runs one last round and exits */
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);

	/* And the store is what signing from scratch gives. */
	nd_sign_options so = ND_SIGN_OPTIONS_INIT;
	nd_sign_report rep;
	so.update = 1;
	so.max_drift = 0;
	assert_int_equal(nd_sign_all(st, db, &so, &rep), ND_OK);
	assert_int_equal(rep.added + rep.replaced + rep.deleted, 0);
	nd_hook_free(h);
	assert_int_equal(nd_indexer_close(ix), ND_OK);
	nd_store_close(st);
	close(ready[0]);
	free(dbpath);
	free(storepath);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reader_during_updates),
	};
	return cmocka_run_group_tests_name("concurrency", tests, setup, teardown);
}
