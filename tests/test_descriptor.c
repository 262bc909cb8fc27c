/* The descriptive-words method on a synthetic collection where the right
 * answers are known. */
#include "tests/test_util.h"
#include "neardup/descriptor.h"
#include "descriptor/method/method.h"
#include "descriptor/verify/record.h"
#include "neardup/handle.h"

#include <lmdb.h>

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define NDOCS 600
#define VOCAB 3000

static char *dir, *dbpath;

/* Random documents, plus planted words:
 *   "bimodal" in 90 documents: 45 at 1% of their words, 45 at 10%;
 *   "everywhere" in every document (too common to describe anything);
 *   "12345" and "x" in 100 documents (a number and a single letter);
 *   a few documents of two words (too short for a signature). */
static int setup(void **state)
{
	(void)state;
	uint64_t rng = 42;
	nd_indexer *ix;
	dir = tu_tmpdir();
	dbpath = tu_join(dir, "db");
	assert_int_equal(nd_indexer_open(&ix, dbpath, NULL), ND_OK);
	for (int i = 0; i < NDOCS; i++) {
		size_t n = 200;
		char *doc = tu_random_doc(&rng, n, VOCAB);
		size_t extra = 0;
		char *full = malloc(strlen(doc) + 400);
		strcpy(full, doc);
		if (i < 90) {
			extra = i < 45 ? 2 : 22;
			for (size_t k = 0; k < extra; k++)
				strcat(full, " bimodal");
		}
		strcat(full, " everywhere");
		if (i % 6 == 0)
			strcat(full, " 12345 x");
		char id[32];
		snprintf(id, sizeof(id), "doc%04d", i);
		assert_int_equal(nd_indexer_add_text(ix, id, full, strlen(full), NULL, NULL), ND_OK);
		free(doc);
		free(full);
	}
	for (int i = 0; i < 5; i++) {
		char id[32];
		snprintf(id, sizeof(id), "short%d", i);
		assert_int_equal(nd_indexer_add_text(ix, id, "waaaba waaaca", 13, NULL, NULL), ND_OK);
	}
	assert_int_equal(nd_indexer_close(ix), ND_OK);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tu_rmtree(dir);
	free(dir);
	free(dbpath);
	return 0;
}

static nd_build_options opts(void)
{
	nd_build_options o = ND_BUILD_OPTIONS_INIT;
	o.words = 300;
	return o;
}

static int32_t find_word(const nd_descriptor *d, const char *w)
{
	for (uint32_t i = 0; i < nd_descriptor_size(d); i++)
		if (!strcmp(nd_descriptor_word(d, i), w))
			return (int32_t)i;
	return -1;
}

/* The word whose bytes are term[0..len), by a walk of them all. */
static int32_t find_bytes(const nd_descriptor *d, const char *term, size_t len)
{
	for (uint32_t i = 0; i < nd_descriptor_size(d); i++) {
		const char *w = nd_descriptor_word(d, i);
		if (strlen(w) == len && !memcmp(w, term, len))
			return (int32_t)i;
	}
	return -1;
}

static void test_selection_known(void **state)
{
	(void)state;
	nd_xdb *db;
	nd_descriptor *d;
	nd_build_report rep;
	nd_build_options o = opts();
	assert_int_equal(nd_xdb_open(&db, dbpath, ND_XDB_READ), ND_OK);
	assert_int_equal(nd_descriptor_build(&d, db, &o, &rep), ND_OK);
	assert_true(rep.chosen > 20 && rep.chosen <= 300);
	assert_true(rep.coverage > 0.8);
	assert_true(rep.mean_bits >= ND_MIN_BITS);
	assert_false(rep.word_lengths);
	/* Words are sorted (termlists merge-join with them). */
	for (uint32_t i = 1; i < nd_descriptor_size(d); i++)
		assert_true(strcmp(nd_descriptor_word(d, i - 1), nd_descriptor_word(d, i)) < 0);
	assert_int_equal(find_word(d, "everywhere"), -1);
	assert_int_equal(find_word(d, "12345"), -1);
	assert_int_equal(find_word(d, "x"), -1);
	/* The signers' lookup finds each word at its index, by its bytes only:
	 * a prefix, an extension and a NUL inside are other terms. */
	for (uint32_t i = 0; i < nd_descriptor_size(d); i++) {
		const char *w = nd_descriptor_word(d, i);
		size_t len = strlen(w);
		char t[256];
		assert_true(len > 0 && len + 2 < sizeof(t));
		assert_int_equal(nd__descriptor_find(d, w, len), (int32_t)i);
		memcpy(t, w, len);
		t[len] = 's', t[len + 1] = '\0';
		assert_int_equal(nd__descriptor_find(d, t, len + 1), find_bytes(d, t, len + 1));
		t[len] = '\0';
		assert_int_equal(nd__descriptor_find(d, t, len + 1), -1);
		assert_int_equal(nd__descriptor_find(d, w, len - 1), find_bytes(d, w, len - 1));
	}
	assert_int_equal(nd__descriptor_find(d, "everywhere", 10), -1);
	assert_int_equal(nd__descriptor_find(d, "", 0), -1);
	/* The bimodal word's threshold falls between its two modes (~0.01 and
	 * ~0.1), where small edits cannot carry a document across. */
	int32_t b = find_word(d, "bimodal");
	assert_true(b >= 0);
	double t = nd_descriptor_threshold(d, (uint32_t)b);
	assert_true(t > 0.015 && t < 0.09);
	assert_true(nd_descriptor_lambda(d, (uint32_t)b) < 0.01);
	/* Deterministic for a seed. */
	nd_descriptor *d2;
	assert_int_equal(nd_descriptor_build(&d2, db, &o, NULL), ND_OK);
	assert_int_equal(nd_descriptor_version(d), nd_descriptor_version(d2));
	nd_descriptor_free(d2);
	nd_descriptor_free(d);
	nd_xdb_close(db);
}

/* --word-share: each set draws from its seed's share of the candidates, so
 * sets of different seeds differ, and rep.candidates shrinks to about that
 * share; out-of-range shares are refused. */
static void test_word_share(void **state)
{
	(void)state;
	nd_xdb *db;
	nd_descriptor *all, *h1, *h2;
	nd_build_report ra, r1, r2;
	nd_build_options o = opts();
	assert_int_equal(nd_xdb_open(&db, dbpath, ND_XDB_READ), ND_OK);
	assert_int_equal(nd_descriptor_build(&all, db, &o, &ra), ND_OK);
	o.word_share = 0.5;
	assert_int_equal(nd_descriptor_build(&h1, db, &o, &r1), ND_OK);
	o.seed = 2;
	assert_int_equal(nd_descriptor_build(&h2, db, &o, &r2), ND_OK);
	for (int k = 0; k < 2; k++) {
		const nd_build_report *r = k ? &r2 : &r1;
		if (!(r->candidates > ra.candidates * 0.35 && r->candidates < ra.candidates * 0.65))
			fail_msg("share 0.5 kept %u of %u candidates", r->candidates, ra.candidates);
	}
	/* Each half-set's words are candidates of the full run; the halves differ. */
	uint32_t shared = 0;
	for (uint32_t i = 0; i < nd_descriptor_size(h1); i++)
		shared += find_word(h2, nd_descriptor_word(h1, i)) >= 0;
	assert_true(shared < nd_descriptor_size(h1));
	assert_true(nd_descriptor_version(h1) != nd_descriptor_version(h2));
	nd_descriptor *bad;
	o.word_share = 0;
	assert_int_equal(nd_descriptor_build(&bad, db, &o, NULL), ND_EINVAL);
	o.word_share = 1.5;
	assert_int_equal(nd_descriptor_build(&bad, db, &o, NULL), ND_EINVAL);
	nd_descriptor_free(all);
	nd_descriptor_free(h1);
	nd_descriptor_free(h2);
	nd_xdb_close(db);
}

/* A collection too small for any word to be a candidate gets the empty
 * set and says how many documents it needs; one of identical texts gets
 * it too, with no count.  The empty set is saved and loaded like any. */
static void test_too_few_documents(void **state)
{
	(void)state;
	nd_build_options o = opts();
	char *path = tu_join(dir, "few"), *spath = tu_join(dir, "few.store");
	nd_indexer *ix;
	nd_xdb *db;
	nd_descriptor *d = NULL;
	assert_int_equal(nd_indexer_open(&ix, path, NULL), ND_OK);
	for (int i = 0; i < 40; i++) {
		char id[16];
		snprintf(id, sizeof(id), "d%d", i);
		assert_int_equal(nd_indexer_add_text(ix, id, "one text for all", 16, NULL, NULL), ND_OK);
		if (i == 5) { /* 6 documents */
			assert_int_equal(nd_indexer_close(ix), ND_OK);
			assert_int_equal(nd_xdb_open(&db, path, ND_XDB_READ), ND_OK);
			nd_build_report few;
			assert_int_equal(nd_descriptor_build(&d, db, &o, &few), ND_OK);
			assert_int_equal(nd_descriptor_size(d), 0);
			assert_int_equal(few.chosen, 0);
			assert_int_equal(few.min_docs, 15);
			assert_int_equal(few.doccount, 6);
			nd_descriptor_free(d);
			nd_xdb_close(db);
			assert_int_equal(nd_indexer_open(&ix, path, NULL), ND_OK);
		}
	}
	assert_int_equal(nd_indexer_close(ix), ND_OK);
	assert_int_equal(nd_xdb_open(&db, path, ND_XDB_READ), ND_OK);
	nd_build_report rep;
	assert_int_equal(nd_descriptor_build(&d, db, &o, &rep), ND_OK); /* every word in all 40 */
	assert_int_equal(nd_descriptor_size(d), 0);
	assert_int_equal(rep.min_docs, 0); /* enough documents, no word */
	nd_store *st;
	nd_descriptor *back = NULL;
	assert_int_equal(nd_store_open(&st, spath, ND_STORE_WRITE), ND_OK);
	assert_int_equal(nd_descriptor_save(d, st, db, &o), ND_OK);
	assert_int_equal(nd_descriptor_load(&back, st, db), ND_OK);
	assert_int_equal(nd_descriptor_size(back), 0);
	assert_true(nd_descriptor_version(back) == nd_descriptor_version(d));
	/* Every document signed, none with a key. */
	nd_sign_report sr;
	assert_int_equal(nd_sign_all(st, db, NULL, &sr), ND_OK);
	assert_int_equal(sr.docs, 40);
	assert_int_equal(sr.keyed, 0);
	nd_descriptor_free(back);
	nd_descriptor_free(d);
	nd_store_close(st);
	nd_xdb_close(db);
	tu_rmtree(path);
	tu_rmtree(spath);
	free(path);
	free(spath);
}

static nd_store *build_and_sign(const char *name, nd_xdb *db, nd_sign_report *rep)
{
	nd_descriptor *d;
	nd_store *st;
	nd_build_options o = opts();
	char *path = tu_join(dir, name);
	assert_int_equal(nd_descriptor_build(&d, db, &o, NULL), ND_OK);
	assert_int_equal(nd_store_open(&st, path, ND_STORE_WRITE), ND_OK);
	assert_int_equal(nd_descriptor_save(d, st, db, &o), ND_OK);
	nd_descriptor_free(d);
	if (rep) {
		nd_sign_options so = ND_SIGN_OPTIONS_INIT;
		so.block_docs = 64; /* several blocks */
		assert_int_equal(nd_sign_all(st, db, &so, rep), ND_OK);
	}
	free(path);
	return st;
}

typedef struct {
	nd_store_txn *txn;
	const nd_descriptor *d;
	nd_xdb *db;
	uint64_t keyed, unkeyed;
} check_ctx;

/* Every record equals signing the document from its termlist, and the
 * store's clusters hold exactly the keyed documents. */
static int check_record(uint32_t docid, uint64_t key, const void *payload, size_t len, void *vctx)
{
	check_ctx *c = vctx;
	nd_sig stored = ND_SIG_INIT, fresh = ND_SIG_INIT;
	assert_int_equal(nd_sig_decode(&stored, payload, len, nd_descriptor_size(c->d)), ND_OK);
	assert_int_equal(stored.key, key);
	if (c->db) {
		assert_int_equal(nd_sig_from_termlist(c->d, c->db, docid, &fresh), ND_OK);
		assert_int_equal(fresh.nbits, stored.nbits);
		assert_memory_equal(fresh.bits, stored.bits, stored.nbits * sizeof(uint16_t));
		assert_int_equal(fresh.key, key);
		/* Postlist walk and termlist agree on the fingerprint and the
		 * near-neighbour keys too. */
		assert_int_equal(fresh.fingerprint, stored.fingerprint);
		assert_int_equal(!!fresh.present, stored.present);
		if (stored.present)
			assert_memory_equal(fresh.near, stored.near, sizeof(stored.near));
	}
	if (stored.nbits < ND_MIN_BITS)
		assert_int_equal(key, 0);
	if (key) {
		uint32_t *ids;
		size_t n, found = 0;
		assert_int_equal(nd_store_key_docs(c->txn, key, &ids, &n), ND_OK);
		for (size_t i = 0; i < n; i++)
			found += ids[i] == docid;
		assert_int_equal(found, 1);
		free(ids);
		c->keyed++;
	} else
		c->unkeyed++;
	nd_sig_clear(&stored);
	nd_sig_clear(&fresh);
	return 0;
}

static void check_store(nd_store *st, nd_xdb *db, check_ctx *out)
{
	nd_descriptor *d;
	nd_store_txn *txn;
	nd_store_keys *it;
	uint64_t key;
	size_t size, in_clusters = 0;
	assert_int_equal(nd_descriptor_load(&d, st, db), ND_OK);
	assert_int_equal(nd_store_read_begin(st, &txn), ND_OK);
	check_ctx c = {txn, d, db, 0, 0};
	assert_int_equal(nd_store_docs_each(txn, check_record, &c), ND_OK);
	assert_int_equal(nd_store_keys_open(txn, &it), ND_OK);
	while (nd_store_keys_next(it, &key, &size) == 1)
		in_clusters += size;
	nd_store_keys_free(it);
	assert_int_equal(in_clusters, c.keyed);
	nd_store_txn_end(txn);
	nd_descriptor_free(d);
	if (out)
		*out = c;
}

static void test_sign_matches_termlist(void **state)
{
	(void)state;
	nd_xdb *db;
	nd_sign_report rep;
	check_ctx c;
	assert_int_equal(nd_xdb_open(&db, dbpath, ND_XDB_READ), ND_OK);
	nd_store *st = build_and_sign("sign1", db, &rep);
	assert_int_equal(rep.docs, NDOCS + 5);
	assert_int_equal(rep.keyed + rep.unkeyed, rep.docs);
	check_store(st, db, &c);
	assert_int_equal(c.keyed, rep.keyed);
	assert_true(c.unkeyed >= 5); /* the two-word documents */
	/* A second run has nothing to do. */
	nd_sign_report again;
	assert_int_equal(nd_sign_all(st, db, NULL, &again), ND_OK);
	assert_int_equal(again.docs, 0);
	nd_store_close(st);
	nd_xdb_close(db);
}

/* Editing one word of a document keeps its key far more often than not,
 * and unrelated documents almost never share one. */
static void test_edit_stability(void **state)
{
	(void)state;
	char *path = tu_join(dir, "editdb");
	nd_indexer *ix;
	uint64_t rng = 7;
	const int n = 300;
	assert_int_equal(nd_indexer_open(&ix, path, NULL), ND_OK);
	for (int i = 0; i < n; i++) {
		char *doc = tu_random_doc(&rng, 250, VOCAB), id[32];
		snprintf(id, sizeof(id), "orig%d", i);
		assert_int_equal(nd_indexer_add_text(ix, id, doc, strlen(doc), NULL, NULL), ND_OK);
		free(doc);
	}
	assert_int_equal(nd_indexer_commit(ix), ND_OK);
	nd_xdb *db;
	assert_int_equal(nd_xdb_open(&db, path, ND_XDB_READ), ND_OK);
	nd_sign_report rep;
	nd_store *st = build_and_sign("editstore", db, &rep);
	/* Edited copies, signed incrementally after the originals. */
	rng = 7;
	for (int i = 0; i < n; i++) {
		char *doc = tu_random_doc(&rng, 250, VOCAB), id[32];
		uint64_t erng = 1000 + i;
		char *edited = tu_edit_doc(&erng, doc, 1, VOCAB);
		snprintf(id, sizeof(id), "edit%d", i);
		assert_int_equal(nd_indexer_add_text(ix, id, edited, strlen(edited), NULL, NULL), ND_OK);
		free(doc);
		free(edited);
	}
	assert_int_equal(nd_indexer_close(ix), ND_OK);
	assert_int_equal(nd_xdb_reopen(db, NULL), ND_OK);
	/* Doubling the database is far past the default drift limit. */
	nd_sign_options so = ND_SIGN_OPTIONS_INIT;
	assert_int_equal(nd_sign_all(st, db, &so, &rep), ND_ESTATE);
	assert_non_null(strstr(nd_error_last(), "stale"));
	so.max_drift = 0;
	assert_int_equal(nd_sign_all(st, db, &so, &rep), ND_OK);
	assert_int_equal(rep.docs, n);
	double drift;
	assert_int_equal(nd_drift(st, &drift), ND_OK);
	assert_true(drift == 1.0); /* n documents added to the n it was built from */
	nd_store_txn *txn;
	assert_int_equal(nd_store_read_begin(st, &txn), ND_OK);
	int keyed = 0, kept = 0, shared_unrelated = 0;
	for (int i = 0; i < n; i++) {
		uint64_t k0, k1, knext;
		assert_int_equal(nd_store_doc_get(txn, (uint32_t)(i + 1), &k0, NULL, NULL), ND_OK);
		assert_int_equal(nd_store_doc_get(txn, (uint32_t)(n + i + 1), &k1, NULL, NULL), ND_OK);
		assert_int_equal(nd_store_doc_get(txn, (uint32_t)((i + 1) % n + 1), &knext, NULL, NULL), ND_OK);
		if (!k0)
			continue;
		keyed++;
		kept += k0 == k1;
		shared_unrelated += k0 == knext;
	}
	nd_store_txn_end(txn);
	print_message("one-word edit: %d of %d keyed documents kept their key; "
		      "%d unrelated neighbours shared a key\n", kept, keyed, shared_unrelated);
	assert_true(keyed > n * 3 / 4);
	assert_true(kept >= keyed * 3 / 4);
	assert_true(shared_unrelated <= keyed / 50);
	nd_store_close(st);
	nd_xdb_close(db);
	free(path);
}

/* Kill the signer mid-run, many ways: the store stays consistent and a
 * rerun ends with exactly what an uninterrupted run stores. */
typedef struct {
	int blocks_left;
} kill_ctx;

static void die_after(nd_docid done, nd_docid last, void *vctx)
{
	kill_ctx *k = vctx;
	(void)done;
	(void)last;
	if (--k->blocks_left == 0)
		raise(SIGKILL);
}

static int collect_rec(uint32_t docid, uint64_t key, const void *payload, size_t len, void *ctx)
{
	FILE *f = ctx;
	fprintf(f, "%u %016llx %zu ", docid, (unsigned long long)key, len);
	fwrite(payload, 1, len, f);
	fputc('\n', f);
	return 0;
}

static char *dump_store(nd_store *st)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	nd_store_txn *txn;
	assert_int_equal(nd_store_read_begin(st, &txn), ND_OK);
	assert_int_equal(nd_store_docs_each(txn, collect_rec, f), ND_OK);
	nd_store_txn_end(txn);
	fclose(f);
	return buf;
}

static void test_crash_resume(void **state)
{
	(void)state;
	nd_xdb *db;
	nd_sign_report rep;
	assert_int_equal(nd_xdb_open(&db, dbpath, ND_XDB_READ), ND_OK);
	nd_store *ref = build_and_sign("crash-ref", db, &rep);
	char *want = dump_store(ref);
	nd_store_close(ref);
	int kills = 0;
	for (int trial = 0; trial < 8; trial++) {
		char name[32];
		snprintf(name, sizeof(name), "crash%d", trial);
		nd_store *st = build_and_sign(name, db, NULL);
		nd_store_close(st);
		char *path = tu_join(dir, name);
		pid_t pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			nd_xdb *cdb;
			nd_store *cst;
			nd_sign_options so = ND_SIGN_OPTIONS_INIT;
			kill_ctx k = {trial < 4 ? 1 + trial * 2 : 1000};
			so.block_docs = 16;
			so.progress = die_after;
			so.ctx = &k;
			if (nd_xdb_open(&cdb, dbpath, ND_XDB_READ) < 0 ||
			    nd_store_open(&cst, path, ND_STORE_WRITE) < 0)
				_exit(3);
			nd_sign_all(cst, cdb, &so, NULL);
			_exit(0);
		}
		if (trial >= 4) /* and from outside, at a random moment */
			usleep(1000 * (useconds_t)(trial * 3));
		if (trial >= 4)
			kill(pid, SIGKILL);
		int status;
		assert_int_equal(waitpid(pid, &status, 0), pid);
		kills += WIFSIGNALED(status);
		assert_int_equal(nd_store_open(&st, path, ND_STORE_WRITE), ND_OK);
		check_store(st, db, NULL);             /* consistent as left */
		assert_int_equal(nd_sign_all(st, db, NULL, &rep), ND_OK); /* resume */
		char *got = dump_store(st);
		assert_string_equal(got, want);
		free(got);
		nd_store_close(st);
		free(path);
	}
	assert_true(kills >= 4);
	free(want);
	nd_xdb_close(db);
}

/* Near-neighbour keys with weights: a row agrees between two word sets
 * with the chance of the weighted Jaccard (shared weight / union weight),
 * not the plain one.  Heavy words are the shared ones here, so the two
 * differ by far more than the sampling error of 400 pairs x 60 rows. */
enum { NW = 400, HELD = 30, PAIRS = 400 };

/* Over PAIRS seeded pairs of HELD words each (10 rare ones shared, the
 * rest drawn from all), the share of d's near rows that agree, and the
 * mean weighted (by w) and plain Jaccard of the pairs. */
static double rows_agree(const nd_descriptor *d, const double *w, double *wj, double *j)
{
	uint64_t rng = 7;
	double agree = 0;
	*wj = *j = 0;
	for (int p = 0; p < PAIRS; p++) {
		uint32_t a[HELD], b[HELD];
		uint16_t na[ND_NEAR_N], nb[ND_NEAR_N];
		char in[NW] = {0};
		double shared = 0, uni = 0;
		int nshared = 0, nuni = 0;
		nd__near_reset(na);
		nd__near_reset(nb);
		for (int k = 0; k < HELD; k++) {
			if (k < 10)
				a[k] = b[k] = (uint32_t)(tu_rand(&rng) % (NW / 2));
			else
				a[k] = (uint32_t)(tu_rand(&rng) % NW), b[k] = (uint32_t)(tu_rand(&rng) % NW);
			in[a[k]] |= 1, in[b[k]] |= 2;
			nd__near_add(d, na, a[k]);
			nd__near_add(d, nb, b[k]);
		}
		for (int i = 0; i < NW; i++)
			if (in[i]) {
				uni += w[i], nuni++;
				if (in[i] == 3)
					shared += w[i], nshared++;
			}
		*wj += shared / uni, *j += (double)nshared / nuni;
		for (int k = 0; k < ND_NEAR_WORD_N; k++) /* the word trees' rows */
			agree += na[k] == nb[k];
	}
	*wj /= PAIRS, *j /= PAIRS;
	return agree / ((double)PAIRS * ND_NEAR_WORD_N);
}

static void test_near_weights(void **state)
{
	(void)state;
	const char *words[NW];
	char buf[NW][16];
	double th[NW], w[NW], wj, j;
	nd_descriptor *d;
	for (int i = 0; i < NW; i++) {
		snprintf(buf[i], sizeof(buf[i]), "w%03d", i);
		words[i] = buf[i], th[i] = 0.01;
		w[i] = i < NW / 2 ? 6.0 : 1.0; /* w000..w199 rare, the rest common */
	}
	assert_int_equal(nd_descriptor_from_words(&d, words, th, NW, 1), ND_OK);
	uint64_t plain_version = nd_descriptor_version(d);
	assert_int_equal(nd__descriptor_finish(d, w), ND_OK);
	assert_true(nd_descriptor_version(d) != plain_version); /* the keys differ, so does the set */
	double agree = rows_agree(d, w, &wj, &j);
	print_message("near rows agree %.3f; weighted Jaccard %.3f, plain %.3f\n", agree, wj, j);
	assert_true(fabs(agree - wj) < 0.03);
	assert_true(wj - j > 0.1);
	/* Equal weights: the plain Jaccard. */
	assert_int_equal(nd__descriptor_finish(d, NULL), ND_OK);
	assert_true(nd_descriptor_version(d) == plain_version);
	/* ... with the keys of every store signed before weights were kept
	 * (words 0-2, rows 0-2, as those stores hold them): such a store
	 * keeps its index without re-signing. */
	const uint16_t pinned[3][3] = {{553, 35139, 9870}, {65188, 24224, 9144}, {6410, 14292, 64162}};
	for (int i = 0; i < 3; i++)
		for (int k = 0; k < 3; k++)
			assert_int_equal(d->near_hash[i * ND_NEAR_WORD_N + k], pinned[i][k]);
	agree = rows_agree(d, w, &wj, &j);
	print_message("equal weights: rows agree %.3f\n", agree);
	assert_true(fabs(agree - j) < 0.03);
	/* Weights must be positive and finite. */
	w[3] = 0;
	assert_int_equal(nd__descriptor_finish(d, w), ND_EINVAL);
	nd_descriptor_free(d);
}

/* A built set keeps its weights (ln(1 + N/df), frozen with it) through the
 * store; a set given as words has none, and saving it over a weighted one
 * leaves no stale weights behind; a damaged weights record is refused. */
typedef struct {
	const void *v;
	size_t len;
} weights_rec;

static int put_weights(nd_store_txn *txn, void *ctx)
{
	const weights_rec *r = ctx;
	return nd_store_meta_put(txn, "set.weights", r->v, r->len);
}

static void test_weights_stored(void **state)
{
	(void)state;
	nd_xdb *db;
	nd_descriptor *d, *back;
	assert_int_equal(nd_xdb_open(&db, dbpath, ND_XDB_READ), ND_OK);
	nd_store *st = build_and_sign("weights", db, NULL);
	nd_build_options o = opts();
	uint32_t ndocs = 0;
	assert_int_equal(nd_descriptor_build(&d, db, &o, NULL), ND_OK);
	assert_int_equal(nd_descriptor_load(&back, st, db), ND_OK);
	assert_non_null(d->weights);
	assert_non_null(back->weights);
	assert_true(nd_descriptor_version(back) == nd_descriptor_version(d));
	assert_memory_equal(back->weights, d->weights, d->n * sizeof(double));
	assert_memory_equal(back->near_hash, d->near_hash, (size_t)d->n * ND_NEAR_WORD_N * sizeof(uint16_t));
	assert_int_equal(nd_xdb_doccount(db, &ndocs), ND_OK);
	for (uint32_t i = 0; i < d->n; i++) {
		uint32_t df = 0;
		uint64_t cf;
		assert_int_equal(nd_xdb_termfreq(db, d->words[i], &df, &cf), ND_OK);
		assert_true(fabs(d->weights[i] - log1p((double)ndocs / df)) < 1e-12);
		assert_true(nd_descriptor_weight(d, i) == d->weights[i]);
	}
	nd_descriptor_free(back);
	/* The same words given as words: equal weights, another version. */
	nd_descriptor *plain;
	assert_int_equal(nd_descriptor_from_words(&plain, (const char *const *)d->words, d->thresholds, d->n,
						  d->word_lengths), ND_OK);
	assert_null(plain->weights);
	assert_true(nd_descriptor_weight(plain, 0) == 0);
	assert_true(nd_descriptor_version(plain) != nd_descriptor_version(d));
	assert_int_equal(nd_descriptor_save(plain, st, db, NULL), ND_OK);
	assert_int_equal(nd_descriptor_load(&back, st, db), ND_OK);
	assert_null(back->weights);
	assert_true(nd_descriptor_version(back) == nd_descriptor_version(plain));
	nd_descriptor_free(back);
	nd_descriptor_free(plain);
	/* A weights record of the wrong size. */
	weights_rec junk = {"not doubles", 12};
	assert_int_equal(nd_store_write(st, put_weights, &junk), ND_OK);
	assert_int_equal(nd_descriptor_load(&back, st, db), ND_ECORRUPT);
	assert_non_null(strstr(nd_error_last(), "set.weights"));
	/* ... or of the right size but not a weight. */
	double *nan_weights = calloc(d->n, sizeof(double));
	memcpy(nan_weights, d->weights, d->n * sizeof(double));
	nan_weights[d->n / 2] = NAN;
	weights_rec rec = {nan_weights, d->n * sizeof(double)};
	assert_int_equal(nd_store_write(st, put_weights, &rec), ND_OK);
	assert_int_equal(nd_descriptor_load(&back, st, db), ND_ECORRUPT);
	assert_non_null(strstr(nd_error_last(), "near-key weight"));
	free(nan_weights);
	nd_descriptor_free(d);
	nd_store_close(st);
	nd_xdb_close(db);
}

/* A store from before the mixed text keys (no set.text_keys) keeps the
 * rotated keys its records were signed with: a check of a two-word text
 * finds its copies through them. */
static void test_text_keys_stored(void **state)
{
	(void)state;
	nd_xdb *db;
	nd_descriptor *d, *back;
	assert_int_equal(nd_xdb_open(&db, dbpath, ND_XDB_READ), ND_OK);
	nd_store *st = build_and_sign("textkeys", db, NULL);
	assert_int_equal(nd_descriptor_load(&back, st, db), ND_OK);
	assert_int_equal(back->text_keys, ND_TEXT_KEYS_MIXED); /* a new set */
	nd_descriptor_free(back);
	/* The set as a neardup from before made it, signed as it signed. */
	nd_build_options o = opts();
	assert_int_equal(nd_descriptor_build(&d, db, &o, NULL), ND_OK);
	uint64_t mixed = nd_descriptor_version(d);
	double *w = malloc(d->n * sizeof(double));
	memcpy(w, d->weights, d->n * sizeof(double));
	d->text_keys = ND_TEXT_KEYS_ROTATED;
	assert_int_equal(nd__descriptor_finish(d, w), ND_OK);
	free(w);
	assert_true(nd_descriptor_version(d) != mixed);
	assert_int_equal(nd_descriptor_save(d, st, db, &o), ND_OK);
	nd_sign_report sr;
	assert_int_equal(nd_sign_all(st, db, NULL, &sr), ND_OK);
	nd_store_close(st);
	char *spath = tu_join(dir, "textkeys");
	MDB_env *env;
	MDB_txn *txn;
	MDB_dbi meta;
	MDB_val k = {strlen("set.text_keys"), "set.text_keys"};
	assert_int_equal(mdb_env_create(&env), 0);
	assert_int_equal(mdb_env_set_maxdbs(env, 16), 0);
	assert_int_equal(mdb_env_open(env, spath, 0, 0644), 0);
	assert_int_equal(mdb_txn_begin(env, NULL, 0, &txn), 0);
	assert_int_equal(mdb_dbi_open(txn, "meta", 0, &meta), 0);
	assert_int_equal(mdb_del(txn, meta, &k, NULL), 0);
	assert_int_equal(mdb_txn_commit(txn), 0);
	mdb_env_close(env);
	assert_int_equal(nd_store_open(&st, spath, ND_STORE_READ), ND_OK);
	assert_int_equal(nd_descriptor_load(&back, st, db), ND_OK);
	assert_int_equal(back->text_keys, ND_TEXT_KEYS_ROTATED);
	assert_true(nd_descriptor_version(back) == nd_descriptor_version(d));
	nd_descriptor_free(back);
	nd_store_close(st);
	nd_handle *h;
	nd_check_result cr = ND_CHECK_RESULT_INIT;
	assert_int_equal(nd_open(&h, dbpath, spath, ND_OPEN_READ, NULL), ND_OK);
	assert_int_equal(nd_check(h, "waaaba waaaca", 13, &cr), ND_OK);
	assert_true(cr.duplicates >= ND_NEAR_WINDOW); /* of 5: a window's worth at least */
	nd_check_result_clear(&cr);
	nd_close(h);
	nd_descriptor_free(d);
	nd_xdb_close(db);
	free(spath);
}

static void test_uuid_mismatch(void **state)
{
	(void)state;
	nd_xdb *db, *other;
	nd_indexer *ix;
	nd_descriptor *d;
	char *otherpath = tu_join(dir, "otherdb");
	assert_int_equal(nd_indexer_open(&ix, otherpath, NULL), ND_OK);
	assert_int_equal(nd_indexer_add_text(ix, "a", "some other words", 16, NULL, NULL), ND_OK);
	assert_int_equal(nd_indexer_close(ix), ND_OK);
	assert_int_equal(nd_xdb_open(&db, dbpath, ND_XDB_READ), ND_OK);
	assert_int_equal(nd_xdb_open(&other, otherpath, ND_XDB_READ), ND_OK);
	nd_store *st = build_and_sign("uuid", db, NULL);
	assert_int_equal(nd_descriptor_load(&d, st, other), ND_EMISMATCH);
	assert_non_null(strstr(nd_error_last(), otherpath));
	assert_int_equal(nd_sign_all(st, other, NULL, NULL), ND_EMISMATCH);
	assert_int_equal(nd_descriptor_load(&d, st, db), ND_OK);
	nd_descriptor_free(d);
	nd_store_close(st);
	/* A store with no set. */
	char *empty = tu_join(dir, "empty-store");
	assert_int_equal(nd_store_open(&st, empty, ND_STORE_WRITE), ND_OK);
	assert_int_equal(nd_sign_all(st, db, NULL, NULL), ND_ESTATE);
	nd_store_close(st);
	nd_xdb_close(db);
	nd_xdb_close(other);
	free(otherpath);
	free(empty);
}

/* A database written by Debian's scriptindex: its "index" action adds a Z
 * stem per word, so Xapian's lengths are about twice the word count and
 * the set must measure lengths in words.  Both signing paths still agree. */
static void test_scriptindex_database(void **state)
{
	(void)state;
	if (system("command -v scriptindex >/dev/null 2>&1") != 0)
		skip();
	char *db = tu_join(dir, "omega"), *rules = tu_join(dir, "omega.idx"),
	     *input = tu_join(dir, "omega.txt"), cmd[2048];
	const char *r = "id : boolean=Q unique=Q\ntext : index\n";
	tu_write_file(rules, r, strlen(r));
	FILE *f = fopen(input, "w");
	uint64_t rng = 99;
	for (int i = 0; i < 300; i++) {
		char *doc = tu_random_doc(&rng, 150 + (size_t)(i % 7) * 20, VOCAB);
		fprintf(f, "id=o%d\ntext=%s\n\n", i, doc);
		free(doc);
	}
	fclose(f);
	snprintf(cmd, sizeof(cmd), "scriptindex '%s' '%s' '%s' >/dev/null", db, rules, input);
	assert_int_equal(system(cmd), 0);
	nd_xdb *x;
	nd_descriptor *d;
	nd_build_report rep;
	nd_build_options o = opts();
	nd_store *st;
	char *sp = tu_join(dir, "omega-store");
	assert_int_equal(nd_xdb_open(&x, db, ND_XDB_READ), ND_OK);
	assert_int_equal(nd_descriptor_build(&d, x, &o, &rep), ND_OK);
	assert_true(rep.word_lengths);
	assert_true(rep.coverage > 0.5);
	assert_int_equal(nd_store_open(&st, sp, ND_STORE_WRITE), ND_OK);
	assert_int_equal(nd_descriptor_save(d, st, x, &o), ND_OK);
	nd_sign_report sr;
	assert_int_equal(nd_sign_all(st, x, NULL, &sr), ND_OK);
	assert_int_equal(sr.docs, 300);
	check_ctx c;
	check_store(st, x, &c);
	assert_true(c.keyed > 150);
	nd_descriptor_free(d);
	nd_store_close(st);
	nd_xdb_close(x);
	free(db);
	free(rules);
	free(input);
	free(sp);
}

static void test_sig_decode_rejects(void **state)
{
	(void)state;
	nd_sig s = ND_SIG_INIT;
	uint16_t bad1[] = {3, 5, 4, 9};      /* claims 3 bits, out of order */
	uint16_t bad2[] = {2, 1, 500};       /* bit past the set */
	/* count, bits, no near-neighbour keys (0 trees, 0 rows), then the
	 * 8-byte fingerprint */
	uint16_t good[] = {4, 1, 2, 3, 7, 0, 0x1111, 0x2222, 0x3333, 0x4444};
	assert_int_equal(nd_sig_decode(&s, bad1, sizeof(bad1), 100), ND_ECORRUPT);
	assert_int_equal(nd_sig_decode(&s, bad2, sizeof(bad2), 100), ND_ECORRUPT);
	assert_int_equal(nd_sig_decode(&s, good, 12, 100), ND_ECORRUPT); /* no fingerprint */
	assert_int_equal(nd_sig_decode(&s, good, sizeof(good) - 1, 100), ND_ECORRUPT);
	assert_int_equal(nd_sig_decode(&s, good, sizeof(good), 100), ND_OK);
	assert_int_equal(s.nbits, 4);
	assert_int_equal(s.present, 0);
	assert_int_equal(s.fingerprint, 0x4444333322221111ULL);
	/* With the near-neighbour section: read whole, or refused when short
	 * or of other dimensions than this build's. */
	uint16_t withnear[5 + 1 + ND_NEAR_TREES * ND_NEAR_ROWS + 4] = {4, 1, 2, 3, 7};
	uint8_t dims[2] = {ND_NEAR_TREES, ND_NEAR_ROWS};
	memcpy(&withnear[5], dims, 2);
	for (int k = 0; k < ND_NEAR_TREES * ND_NEAR_ROWS; k++)
		withnear[6 + k] = (uint16_t)(1000 + k);
	assert_int_equal(nd_sig_decode(&s, withnear, sizeof(withnear), 100), ND_OK);
	assert_int_equal(s.present, 1);
	assert_int_equal(s.near[ND_NEAR_TREES * ND_NEAR_ROWS - 1], 1000 + ND_NEAR_TREES * ND_NEAR_ROWS - 1);
	assert_int_equal(nd_sig_decode(&s, withnear, sizeof(withnear) - 2, 100), ND_ECORRUPT);
	dims[1] = ND_NEAR_ROWS + 1;
	memcpy(&withnear[5], dims, 2);
	assert_int_equal(nd_sig_decode(&s, withnear, sizeof(withnear), 100), ND_ECORRUPT);
	assert_int_not_equal(s.key, 0);
	assert_int_equal(nd_sig_key(s.bits, 3), 0); /* three bits: no key */
	nd_sig_clear(&s);
}

/* build --jobs: the edit simulation, thresholds and coverage split over
 * 1, 2 and 5 threads choose the same words, thresholds and Lambdas, and
 * report the same figures. */
static void test_build_jobs(void **state)
{
	(void)state;
	nd_xdb *db;
	nd_descriptor *d[3];
	nd_build_report rep[3];
	const unsigned jobs[] = {1, 2, 5};
	assert_int_equal(nd_xdb_open(&db, dbpath, ND_XDB_READ), ND_OK);
	for (int k = 0; k < 3; k++) {
		nd_build_options o = opts();
		o.jobs = jobs[k];
		assert_int_equal(nd_descriptor_build(&d[k], db, &o, &rep[k]), ND_OK);
	}
	assert_true(nd_descriptor_size(d[0]) > 10);
	for (int k = 1; k < 3; k++) {
		assert_int_equal(nd_descriptor_size(d[k]), nd_descriptor_size(d[0]));
		assert_true(nd_descriptor_version(d[k]) == nd_descriptor_version(d[0]));
		for (uint32_t i = 0; i < nd_descriptor_size(d[0]); i++) {
			assert_string_equal(nd_descriptor_word(d[k], i), nd_descriptor_word(d[0], i));
			assert_true(nd_descriptor_threshold(d[k], i) == nd_descriptor_threshold(d[0], i));
			assert_true(nd_descriptor_lambda(d[k], i) == nd_descriptor_lambda(d[0], i));
		}
		assert_int_equal(rep[k].rated, rep[0].rated);
		assert_true(rep[k].coverage == rep[0].coverage);
		assert_true(rep[k].mean_bits == rep[0].mean_bits);
		assert_true(rep[k].key_change == rep[0].key_change);
	}
	assert_true(rep[0].key_change > 0); /* the edits were simulated */
	for (int k = 0; k < 3; k++)
		nd_descriptor_free(d[k]);
	nd_xdb_close(db);
}

/* --jobs: signing with 1, 2 and 7 threads (uneven word shares) writes the
 * same records, byte for byte, and reads the same postings. */
typedef struct {
	nd_store_txn *other;
	uint64_t n, differ;
} same_ctx;

static int same_record(uint32_t docid, uint64_t key, const void *payload, size_t len, void *vctx)
{
	same_ctx *c = vctx;
	uint64_t k2;
	const void *p2;
	size_t l2;
	c->n++;
	if (nd_store_doc_get(c->other, docid, &k2, &p2, &l2) != ND_OK || k2 != key || l2 != len ||
	    memcmp(p2, payload, len))
		c->differ++;
	return 0;
}

static void test_sign_jobs(void **state)
{
	(void)state;
	nd_xdb *db;
	nd_descriptor *d;
	nd_build_options o = opts();
	const unsigned jobs[] = {1, 2, 7};
	nd_store *st[3];
	nd_sign_report rep[3];
	assert_int_equal(nd_xdb_open(&db, dbpath, ND_XDB_READ), ND_OK);
	assert_int_equal(nd_descriptor_build(&d, db, &o, NULL), ND_OK);
	for (int k = 0; k < 3; k++) {
		char name[32];
		snprintf(name, sizeof(name), "jobs%u", jobs[k]);
		char *path = tu_join(dir, name);
		nd_sign_options so = ND_SIGN_OPTIONS_INIT;
		so.block_docs = 50; /* several blocks, the last one short */
		so.jobs = jobs[k];
		assert_int_equal(nd_store_open(&st[k], path, ND_STORE_WRITE), ND_OK);
		assert_int_equal(nd_descriptor_save(d, st[k], db, &o), ND_OK);
		assert_int_equal(nd_sign_all(st[k], db, &so, &rep[k]), ND_OK);
		free(path);
	}
	for (int k = 1; k < 3; k++) {
		nd_store_txn *a, *b;
		same_ctx c = {NULL, 0, 0};
		assert_int_equal(rep[k].docs, rep[0].docs);
		assert_int_equal(rep[k].keyed, rep[0].keyed);
		assert_int_equal(rep[k].postings, rep[0].postings);
		assert_int_equal(nd_store_read_begin(st[0], &a), ND_OK);
		assert_int_equal(nd_store_read_begin(st[k], &b), ND_OK);
		c.other = b;
		assert_int_equal(nd_store_docs_each(a, same_record, &c), ND_OK);
		if (c.differ || c.n != rep[0].docs)
			fail_msg("jobs %u: %llu of %llu records differ", jobs[k], (unsigned long long)c.differ,
				 (unsigned long long)c.n);
		/* and the same bit postings, each in docid order */
		for (uint32_t bit = 0; bit < nd_descriptor_size(d); bit++) {
			uint32_t *x, *y;
			size_t nx, ny;
			assert_int_equal(nd_store_bit_docs(a, (uint16_t)bit, &x, &nx), ND_OK);
			assert_int_equal(nd_store_bit_docs(b, (uint16_t)bit, &y, &ny), ND_OK);
			if (nx != ny || (nx && memcmp(x, y, nx * sizeof(*x))))
				fail_msg("jobs %u: postings of bit %u differ", jobs[k], bit);
			for (size_t i = 1; i < nx; i++)
				assert_true(x[i - 1] < x[i]);
			free(x);
			free(y);
		}
		nd_store_txn_end(a);
		nd_store_txn_end(b);
	}
	for (int k = 0; k < 3; k++)
		nd_store_close(st[k]);
	nd_descriptor_free(d);
	nd_xdb_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_selection_known),
		cmocka_unit_test(test_word_share),
		cmocka_unit_test(test_too_few_documents),
		cmocka_unit_test(test_sign_jobs),
		cmocka_unit_test(test_build_jobs),
		cmocka_unit_test(test_sign_matches_termlist),
		cmocka_unit_test(test_edit_stability),
		cmocka_unit_test(test_crash_resume),
		cmocka_unit_test(test_uuid_mismatch),
		cmocka_unit_test(test_near_weights),
		cmocka_unit_test(test_weights_stored),
		cmocka_unit_test(test_text_keys_stored),
		cmocka_unit_test(test_scriptindex_database),
		cmocka_unit_test(test_sig_decode_rejects),
	};
	return cmocka_run_group_tests_name("descriptor", tests, setup, teardown);
}
