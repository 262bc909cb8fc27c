/* Re-index hooks and `update`: the store stays what signing from scratch
 * would give, whatever sequence of adds, replaces and deletes it sees. */
#include "tests/test_util.h"
#include "neardup/hook.h"
#include "neardup/collapse.h"
#include "neardup/cluster.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#define VOCAB 3000
#define SLOT 7

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

/* Base texts in families: a text and 0-2 lightly edited copies. */
static char *family_text(uint64_t fam, int copy)
{
	return tu_copy_doc(1000 + fam, fam * 31 + (uint64_t)copy, 150 + (size_t)(fam % 7) * 30, (size_t)copy, VOCAB);
}

static void build_store(const char *dbpath, const char *storepath, uint32_t words)
{
	nd_xdb *db;
	assert_int_equal(nd_xdb_open(&db, dbpath, ND_XDB_READ), ND_OK);
	tu_build_and_sign(db, storepath, words, NULL);
	nd_xdb_close(db);
}

typedef struct {
	nd_store_txn *txn;
	const nd_descriptor *d;
	nd_xdb *db;
	size_t records;
	uint64_t near;     /* near-neighbour entries the records call for */
	uint64_t links;    /* links checked against the rule */
	uint64_t bits;     /* bit postings the records call for */
} consist_ctx;

static int check_one(uint32_t docid, uint64_t key, const void *payload, size_t len, void *vctx)
{
	consist_ctx *c = vctx;
	nd_sig stored = ND_SIG_INIT, fresh = ND_SIG_INIT;
	assert_int_equal(nd_sig_decode(&stored, payload, len, nd_descriptor_size(c->d)), ND_OK);
	assert_int_equal(stored.key, key);
	/* A record only for a present document, equal to signing it afresh. */
	assert_int_equal(nd_sig_from_termlist(c->d, c->db, docid, &fresh), ND_OK);
	assert_int_equal(fresh.key, key);
	assert_int_equal(fresh.fingerprint, stored.fingerprint);
	/* Its near-neighbour keys are its record's, entered once a tree. */
	assert_int_equal(!!fresh.present, stored.present);
	if (stored.present) {
		assert_memory_equal(fresh.near, stored.near, sizeof(stored.near));
		for (unsigned t = 0; t < ND_NEAR_TREES; t++)
			assert_int_equal(nd_store_near_has(c->txn, t, stored.near + t * ND_NEAR_ROWS, ND_NEAR_ROWS,
							   docid), 1);
		c->near += ND_NEAR_TREES;
	}
	if (key) {
		nd_docid *m;
		size_t n, found = 0;
		assert_int_equal(nd_store_key_docs(c->txn, key, &m, &n), ND_OK);
		for (size_t i = 0; i < n; i++) {
			uint64_t k;
			found += m[i] == docid;
			assert_int_equal(nd_store_doc_get(c->txn, m[i], &k, NULL, NULL), ND_OK);
			assert_int_equal(k, key); /* sig -> docs holds only docs with that sig */
		}
		assert_int_equal(found, 1);
		free(m);
	}
	/* Under each of its bits once (a replaced record that keeps a bit
	 * keeps its posting), and under no other (counted below). */
	for (uint32_t i = 0; i < stored.nbits; i++)
		assert_int_equal(nd_store_bit_has(c->txn, stored.bits[i], docid), 1);
	c->bits += stored.nbits;
	c->records++;
	nd_sig_clear(&stored);
	nd_sig_clear(&fresh);
	return 0;
}

/* doc -> sig and sig -> docs agree with the database; update finds nothing
 * left to do; the collapse slot holds every document's collapse id. */
static uint64_t check_consistent(nd_xdb *db, nd_store *st, int slot)
{
	nd_descriptor *d;
	nd_store_txn *txn;
	uint32_t doccount;
	nd_docid last;
	assert_int_equal(nd_descriptor_load(&d, st, db), ND_OK);
	assert_int_equal(nd_store_read_begin(st, &txn), ND_OK);
	consist_ctx c = {txn, d, db, 0, 0, 0, 0};
	assert_int_equal(nd_store_docs_each(txn, check_one, &c), ND_OK);
	nd_store_txn_end(txn);
	assert_int_equal(nd_xdb_doccount(db, &doccount), ND_OK);
	assert_int_equal(c.records, doccount); /* every present document has a record */
	uint64_t entries;
	assert_int_equal(nd_store_read_begin(st, &txn), ND_OK);
	assert_int_equal(nd_store_near_count(txn, &entries), ND_OK);
	nd_store_txn_end(txn);
	assert_int_equal(entries, c.near); /* and no entry of a replaced or deleted record is left */
	assert_int_equal(nd_store_read_begin(st, &txn), ND_OK);
	assert_int_equal(nd_store_bit_postings(txn, &entries), ND_OK);
	nd_store_txn_end(txn);
	assert_int_equal(entries, c.bits); /* nor a posting */

	/* Settled links are exactly the rule's for these records: what the
	 * hooks made one change at a time is what a rebuild makes. */
	int links;
	assert_int_equal(nd_store_read_begin(st, &txn), ND_OK);
	links = nd_store_links_state(txn);
	nd_store_txn_end(txn);
	if (links == ND_LINKS_SETTLED) {
		uint64_t missing, extra, have;
		assert_int_equal(nd_links_check(db, st, NULL, &missing, &extra, &have), ND_OK);
		assert_int_equal(missing, 0);
		assert_int_equal(extra, 0);
		c.links += have;
	}

	nd_sign_options so = ND_SIGN_OPTIONS_INIT;
	nd_sign_report rep;
	so.update = 1;
	so.max_drift = 0;
	assert_int_equal(nd_sign_all(st, db, &so, &rep), ND_OK);
	assert_int_equal(rep.added + rep.replaced + rep.deleted, 0);

	if (slot >= 0) {
		assert_int_equal(nd_xdb_lastdocid(db, &last), ND_OK);
		for (nd_docid id = 1; id <= last; id++) {
			char *v;
			size_t len;
			nd_docid want;
			if (nd_xdb_doc_value(db, id, (unsigned)slot, &v, &len) != ND_OK)
				continue; /* deleted */
			assert_int_equal(nd_collapse_ids(db, st, NULL, &id, 1, &want), ND_OK);
			if (want) {
				assert_int_equal(len, 4);
				assert_int_equal(((nd_docid)(unsigned char)v[0] << 24) |
						 ((nd_docid)(unsigned char)v[1] << 16) |
						 ((nd_docid)(unsigned char)v[2] << 8) | (unsigned char)v[3], want);
			} else {
				assert_int_equal(len, 0);
			}
			free(v);
		}
	}
	nd_descriptor_free(d);
	return links == ND_LINKS_SETTLED ? c.links + 1 : 0; /* 0: links not settled */
}

typedef struct {
	nd_docid docid;
	uint64_t key;
} rec;

static int snap_one(uint32_t docid, uint64_t key, const void *payload, size_t len, void *vctx)
{
	(void)payload;
	(void)len;
	rec **p = vctx;
	**p = (rec){docid, key};
	(*p)++;
	return 0;
}

/* n families' originals, ids prefix0.., in a database and a store built
 * with that many descriptive words and signed. */
static void families(const char *dbpath, const char *storepath, const char *prefix, int n, int words)
{
	nd_indexer *ix;
	assert_int_equal(nd_indexer_open(&ix, dbpath, NULL), ND_OK);
	for (int f = 0; f < n; f++) {
		char id[32], *t = family_text((uint64_t)f, 0);
		snprintf(id, sizeof(id), "%s%d", prefix, f);
		assert_int_equal(nd_indexer_add_text(ix, id, t, strlen(t), NULL, NULL), ND_OK);
		free(t);
	}
	assert_int_equal(nd_indexer_close(ix), ND_OK);
	build_store(dbpath, storepath, words);
}

/* Random adds, replaces and deletes through nd_hook_changed, checked
 * against the database after every batch and against signing everything
 * from scratch at the end; with group, the store's writes held until the
 * database's commit. */
static void random_operations(int group)
{
	char *dbpath = tu_join(dir, group ? "gopsdb" : "opsdb"), *storepath = tu_join(dir, group ? "gopsstore" : "opsstore");
	const int nfam = 120, nops = 400;
	uint64_t rng = 5;
	int present[400] = {0}; /* family id -> which copy is indexed (1, 2), -1 deleted */
	nd_indexer *ix;
	assert_int_equal(nd_indexer_open(&ix, dbpath, NULL), ND_OK);
	for (int f = 0; f < nfam; f++)
		for (int c = 0; c <= f % 3; c++) {
			char id[32], *t = family_text((uint64_t)f, c);
			snprintf(id, sizeof(id), "f%d.%d", f, c);
			assert_int_equal(nd_indexer_add_text(ix, id, t, strlen(t), NULL, NULL), ND_OK);
			free(t);
		}
	assert_int_equal(nd_indexer_close(ix), ND_OK);
	build_store(dbpath, storepath, 250);

	nd_store *st;
	nd_hook *h;
	nd_hook_options ho = ND_HOOK_OPTIONS_INIT;
	ho.max_drift = 0;
	ho.jobs = 3; /* asked for; the indexer's handle is writable, so signing uses one */
	ho.group_commit = group;
	assert_int_equal(nd_store_open(&st, storepath, ND_STORE_WRITE), ND_OK);
	assert_int_equal(nd_indexer_open(&ix, dbpath, NULL), ND_OK);
	nd_xdb *db = nd_indexer_db(ix);
	/* Keep collapse ids in a slot from the start, as `sign --value-slot` does. */
	assert_int_equal(nd_collapse_slot_set(st, SLOT), ND_OK);
	{
		nd_docid last, *all;
		assert_int_equal(nd_xdb_lastdocid(db, &last), ND_OK);
		all = malloc(last * sizeof(*all));
		for (nd_docid i = 0; i < last; i++)
			all[i] = i + 1;
		assert_int_equal(nd_collapse_write_slot(db, st, NULL, SLOT, all, last, NULL), ND_OK);
		free(all);
	}
	assert_int_equal(nd_hook_open(&h, db, st, &ho), ND_OK);
	check_consistent(db, st, SLOT);

	size_t found = 0, expected = 0, counts[4] = {0};
	for (int op = 0; op < nops; op++) {
		uint64_t r = tu_rand(&rng);
		int f = (int)(r % 200), kind = (int)((r >> 8) % 3);
		char id[32];
		nd_hook_result res = ND_HOOK_RESULT_INIT;
		nd_docid docid;
		snprintf(id, sizeof(id), "live%d", f);
		if (kind == 2 && present[f] > 0) {
			assert_int_equal(nd_indexer_delete(ix, id, &docid), ND_OK);
			present[f] = -1;
			assert_int_equal(nd_hook_changed(h, docid, &res), ND_OK);
			assert_int_equal(res.change, ND_CHANGE_DELETED);
			assert_int_equal(res.key, 0);
		} else {
			/* A copy of family f % nfam: joins its cluster when the edit
			 * keeps the signature. */
			int copy = 1 + (int)((r >> 16) % 2);
			char *t = family_text((uint64_t)(f % nfam), copy);
			int had = present[f] > 0, same = present[f] == copy;
			assert_int_equal(nd_indexer_add_text(ix, id, t, strlen(t), NULL, NULL), ND_OK);
			free(t);
			docid = nd_indexer_last_docid(ix);
			assert_int_not_equal(docid, 0);
			present[f] = copy;
			assert_int_equal(nd_hook_changed(h, docid, &res), ND_OK);
			/* The same text again is no change (and no drift). */
			assert_int_equal(res.change, same ? ND_CHANGE_NONE : had ? ND_CHANGE_REPLACED : ND_CHANGE_ADDED);
			/* Its duplicates are those a hook that settles nothing
			 * finds, reading every candidate: the ones settling
			 * refused and the hook did not read again were not. */
			if (res.change != ND_CHANGE_NONE) {
				nd_hook_result again = ND_HOOK_RESULT_INIT;
				assert_int_equal(nd_hook_changed(h, docid, &again), ND_OK);
				assert_int_equal(again.change, ND_CHANGE_NONE);
				assert_int_equal(again.nduplicates, res.nduplicates);
				assert_int_equal(again.candidates, res.candidates);
				for (size_t i = 0; i < res.nduplicates; i++) {
					assert_int_equal(again.duplicates[i].docid, res.duplicates[i].docid);
					assert_true(again.duplicates[i].distance == res.duplicates[i].distance);
					assert_int_equal(again.duplicates[i].how, res.duplicates[i].how);
				}
				nd_hook_result_clear(&again);
			}
			/* The family's original (docids of f0..: not deleted by
			 * these operations) when it has the same key: a duplicate. */
			if (res.key) {
				char oid[32];
				nd_docid orig;
				nd_store_txn *txn;
				uint64_t okey;
				snprintf(oid, sizeof(oid), "Qf%d.0", f % nfam);
				assert_int_equal(nd_xdb_find_uid(db, oid + 1, &orig), ND_OK);
				assert_int_equal(nd_store_read_begin(st, &txn), ND_OK);
				assert_int_equal(nd_store_doc_get(txn, orig, &okey, NULL, NULL), ND_OK);
				nd_store_txn_end(txn);
				if (okey == res.key) {
					expected++;
					for (size_t i = 0; i < res.nduplicates; i++)
						found += res.duplicates[i].docid == orig;
					assert_true(res.candidates >= res.nduplicates);
				}
			}
		}
		counts[res.change]++;
		nd_hook_result_clear(&res);
		if (op % 100 == 99) {
			assert_int_equal(nd_indexer_commit(ix), ND_OK);
			assert_int_equal(nd_hook_commit(h), ND_OK);
			uint64_t links = check_consistent(db, st, SLOT);
			assert_true(links > 1); /* settled by every hook, and some pairs linked */
		}
	}
	assert_true(counts[ND_CHANGE_ADDED] > 20 && counts[ND_CHANGE_REPLACED] > 20 &&
		    counts[ND_CHANGE_DELETED] > 20 && counts[ND_CHANGE_NONE] > 20);
	/* Copies one or two words apart are within 8%: verification finds
	 * nearly every original sharing the copy's key. */
	assert_true(expected > 50);
	assert_true(found >= expected * 9 / 10);

	/* Signing from scratch gives exactly the records the hooks left. */
	nd_store_txn *txn;
	uint64_t ndocs, nkeys;
	assert_int_equal(nd_store_read_begin(st, &txn), ND_OK);
	assert_int_equal(nd_store_counts(txn, &ndocs, &nkeys), ND_OK);
	rec *before = malloc((ndocs + 1) * sizeof(rec)), *after = malloc((ndocs + 1) * sizeof(rec));
	rec *p = before;
	assert_int_equal(nd_store_docs_each(txn, snap_one, &p), ND_OK);
	nd_store_txn_end(txn);
	nd_sign_options so = ND_SIGN_OPTIONS_INIT;
	so.restart = 1;
	so.max_drift = 0;
	assert_int_equal(nd_sign_all(st, db, &so, NULL), ND_OK);
	assert_int_equal(nd_store_read_begin(st, &txn), ND_OK);
	p = after;
	assert_int_equal(nd_store_docs_each(txn, snap_one, &p), ND_OK);
	nd_store_txn_end(txn);
	assert_int_equal((size_t)(p - after), ndocs);
	for (uint64_t i = 0; i < ndocs; i++) {
		assert_int_equal(before[i].docid, after[i].docid);
		assert_int_equal(before[i].key, after[i].key);
	}
	free(before);
	free(after);

	nd_hook_free(h);
	assert_int_equal(nd_indexer_close(ix), ND_OK);
	nd_store_close(st);
	free(dbpath);
	free(storepath);
}

static void test_hook_random_operations(void **state)
{
	(void)state;
	random_operations(0);
}

static void test_hook_group_commit(void **state)
{
	(void)state;
	random_operations(1);
}

/* Group commit: other processes see hooked documents with the commit,
 * their links settled; freeing the hook commits what it holds. */
static void test_group_commit_visible(void **state)
{
	(void)state;
	char *dbpath = tu_join(dir, "gc-db"), *storepath = tu_join(dir, "gc-st");
	nd_indexer *ix;
	families(dbpath, storepath, "g", 60, 150);

	nd_store *st;
	nd_hook *h;
	nd_hook_options ho = ND_HOOK_OPTIONS_INIT;
	ho.max_drift = 0;
	ho.group_commit = 1;
	assert_int_equal(nd_store_open(&st, storepath, ND_STORE_WRITE), ND_OK);
	assert_int_equal(nd_indexer_open(&ix, dbpath, NULL), ND_OK);
	nd_xdb *db = nd_indexer_db(ix);
	assert_int_equal(nd_hook_open(&h, db, st, &ho), ND_OK);
	size_t dups = 0;
	for (int f = 0; f < 5; f++) {
		char id[32], *t = family_text((uint64_t)f, 1); /* a copy of g<f> */
		nd_hook_result res = ND_HOOK_RESULT_INIT;
		snprintf(id, sizeof(id), "copy%d", f);
		assert_int_equal(nd_indexer_add_text(ix, id, t, strlen(t), NULL, NULL), ND_OK);
		free(t);
		assert_int_equal(nd_hook_changed(h, nd_indexer_last_docid(ix), &res), ND_OK);
		assert_int_equal(res.change, ND_CHANGE_ADDED);
		dups += res.nduplicates > 0; /* found among the held writes' records */
		nd_hook_result_clear(&res);
	}
	assert_true(dups >= 4);
	assert_int_equal(tu_records_elsewhere(storepath, 1), 60);
	assert_int_equal(nd_indexer_commit(ix), ND_OK);
	assert_int_equal(nd_hook_commit(h), ND_OK);
	assert_int_equal(tu_records_elsewhere(storepath, 1), 65);
	assert_true(check_consistent(db, st, -1) > 1); /* links settled, copies linked */

	char *t = family_text(7, 1);
	assert_int_equal(nd_indexer_add_text(ix, "copy7", t, strlen(t), NULL, NULL), ND_OK);
	free(t);
	assert_int_equal(nd_hook_changed(h, nd_indexer_last_docid(ix), NULL), ND_OK);
	assert_int_equal(nd_indexer_commit(ix), ND_OK);
	nd_hook_free(h); /* commits */
	assert_int_equal(tu_records_elsewhere(storepath, 1), 66);
	assert_int_equal(nd_indexer_close(ix), ND_OK);
	nd_store_close(st);
	free(dbpath);
	free(storepath);
}

/* The drift limit: hooks refuse once the set is stale, naming the drift. */
static void test_hook_drift_limit(void **state)
{
	(void)state;
	char *dbpath = tu_join(dir, "driftdb"), *storepath = tu_join(dir, "driftstore");
	nd_indexer *ix;
	families(dbpath, storepath, "d", 100, 200);
	nd_store *st;
	nd_hook *h;
	nd_hook_options ho = ND_HOOK_OPTIONS_INIT;
	ho.max_drift = 0.1;
	assert_int_equal(nd_store_open(&st, storepath, ND_STORE_WRITE), ND_OK);
	assert_int_equal(nd_indexer_open(&ix, dbpath, NULL), ND_OK);
	assert_int_equal(nd_hook_open(&h, nd_indexer_db(ix), st, &ho), ND_OK);
	int i, rc = ND_OK;
	for (i = 0; i < 20 && rc == ND_OK; i++) {
		char id[32], *t = family_text((uint64_t)(500 + i), 0);
		snprintf(id, sizeof(id), "new%d", i);
		assert_int_equal(nd_indexer_add_text(ix, id, t, strlen(t), NULL, NULL), ND_OK);
		free(t);
		rc = nd_hook_changed(h, nd_indexer_last_docid(ix), NULL);
	}
	/* 10 new documents on 100 reach 10%; the 11th is refused. */
	assert_int_equal(rc, ND_ESTATE);
	assert_int_equal(i, 11);
	assert_non_null(strstr(nd_error_last(), "11%"));
	double drift;
	assert_int_equal(nd_drift(st, &drift), ND_OK);
	assert_true(drift > 0.099 && drift < 0.101); /* the refused change is not stored */
	nd_hook_free(h);
	assert_int_equal(nd_hook_open(&h, nd_indexer_db(ix), st, &ho), ND_OK); /* at the limit, not past */
	nd_hook_free(h);
	assert_int_equal(nd_indexer_close(ix), ND_OK);
	nd_store_close(st);
	free(dbpath);
	free(storepath);
}

typedef struct {
	size_t n[4];
	nd_docid docs[4][16];
} upd_seen;

static void on_update(const nd_hook_result *res, void *vctx)
{
	upd_seen *u = vctx;
	if (u->n[res->change] < 16)
		u->docs[res->change][u->n[res->change]] = res->docid;
	u->n[res->change]++;
}

static void write_page(const char *docs, const char *name, int fam, int copy)
{
	char *path = tu_join(docs, name), *t = family_text((uint64_t)fam, copy);
	size_t len = strlen(t) + 64;
	char *html = malloc(len);
	snprintf(html, len, "<html><body><p>%s</p></body></html>\n", t);
	tu_write_file(path, html, strlen(html));
	free(html);
	free(t);
	free(path);
}

/* A database maintained by omindex: `update` finds exactly the files it
 * added, re-indexed and deleted. */
static void test_update_after_omindex(void **state)
{
	(void)state;
	if (system("command -v omindex >/dev/null 2>&1") != 0)
		skip();
	char *docs = tu_join(dir, "site"), *dbpath = tu_join(dir, "omdb"), *storepath = tu_join(dir, "omstore");
	char cmd[4096], name[64];
	assert_int_equal(mkdir(docs, 0755), 0);
	for (int i = 0; i < 80; i++) {
		snprintf(name, sizeof(name), "p%02d.html", i);
		write_page(docs, name, i, 0);
	}
	snprintf(cmd, sizeof(cmd), "omindex --db '%s' --url / '%s' >/dev/null 2>&1", dbpath, docs);
	assert_int_equal(system(cmd), 0);
	build_store(dbpath, storepath, 200);

	/* 3 new pages, 2 rewritten (other text, later mtime), 2 removed. */
	for (int i = 80; i < 83; i++) {
		snprintf(name, sizeof(name), "p%02d.html", i);
		write_page(docs, name, i, 0);
	}
	for (int i = 10; i < 12; i++) {
		snprintf(name, sizeof(name), "p%02d.html", i);
		write_page(docs, name, 300 + i, 0);
		char *path = tu_join(docs, name);
		struct timeval tv[2];
		gettimeofday(&tv[0], NULL);
		tv[0].tv_sec += 10;
		tv[1] = tv[0];
		assert_int_equal(utimes(path, tv), 0);
		free(path);
	}
	for (int i = 20; i < 22; i++) {
		snprintf(name, sizeof(name), "p%02d.html", i);
		char *path = tu_join(docs, name);
		assert_int_equal(remove(path), 0);
		free(path);
	}
	nd_xdb *db;
	nd_docid old10, old20;
	assert_int_equal(nd_xdb_open(&db, dbpath, ND_XDB_READ), ND_OK);
	assert_int_equal(nd_xdb_find_uid(db, "/p10.html", &old10), ND_OK);
	assert_int_equal(nd_xdb_find_uid(db, "/p20.html", &old20), ND_OK);
	nd_xdb_close(db);
	assert_int_equal(system(cmd), 0);

	nd_store *st;
	nd_hook *h;
	nd_sign_report rep;
	upd_seen seen;
	memset(&seen, 0, sizeof(seen));
	assert_int_equal(nd_xdb_open(&db, dbpath, ND_XDB_READ), ND_OK);
	assert_int_equal(nd_store_open(&st, storepath, ND_STORE_WRITE), ND_OK);
	assert_int_equal(nd_hook_open(&h, db, st, NULL), ND_OK);
	assert_int_equal(nd_hook_update(h, on_update, &seen, &rep), ND_OK);
	assert_int_equal(rep.added, 3);
	assert_int_equal(rep.replaced, 2);
	assert_int_equal(rep.deleted, 2);
	assert_int_equal(rep.recounted, 0); /* 3 added to 80: not a quarter */
	assert_int_equal(seen.n[ND_CHANGE_ADDED], 3);
	assert_int_equal(seen.n[ND_CHANGE_REPLACED], 2);
	assert_int_equal(seen.n[ND_CHANGE_DELETED], 2);
	for (int k = 0; k < 3; k++) {
		char *uid;
		assert_int_equal(nd_xdb_doc_uid(db, seen.docs[ND_CHANGE_ADDED][k], &uid), ND_OK);
		assert_true(!strcmp(uid, "/p80.html") || !strcmp(uid, "/p81.html") || !strcmp(uid, "/p82.html"));
		free(uid);
	}
	assert_true(seen.docs[ND_CHANGE_REPLACED][0] == old10 || seen.docs[ND_CHANGE_REPLACED][1] == old10);
	assert_true(seen.docs[ND_CHANGE_DELETED][0] == old20 || seen.docs[ND_CHANGE_DELETED][1] == old20);
	/* A second update finds nothing. */
	assert_int_equal(nd_hook_update(h, NULL, NULL, &rep), ND_OK);
	assert_int_equal(rep.added + rep.replaced + rep.deleted, 0);
	check_consistent(db, st, -1);
	nd_hook_free(h);
	nd_store_close(st);
	nd_xdb_close(db);
	free(docs);
	free(dbpath);
	free(storepath);
}

/* Tolerant duplicates: b is a with its first descriptive word replaced,
 * so it has 5 of a's 6 bits and c's key; c has b's bits but other text.
 * By key, b's only candidate is c, which differs; tolerant at 0.5 finds a
 * as well, verified, and c as a candidate only. */
static void test_hook_tolerant(void **state)
{
	(void)state;
	char *tdb = tu_join(dir, "tol-db"), *tst = tu_join(dir, "tol-st");
	uint64_t rng = 21;
	char *filler = tu_random_doc(&rng, 200, VOCAB), *other = tu_random_doc(&rng, 200, VOCAB);
	size_t cap = strlen(filler) + strlen(other) + 100;
	char *a = malloc(cap), *b = malloc(cap), *c = malloc(cap);
	/* The set's words (s1...) hold digits: after the title's six words,
	 * so that a's and b's are no two numbered titles. */
	snprintf(a, cap, "a page of these words here s1 s2 s3 s4 s5 s6 %s s1 s2 s3 s4 s5 s6", filler);
	snprintf(b, cap, "a page of these words here s7 s2 s3 s4 s5 s6 %s s7 s2 s3 s4 s5 s6", filler);
	snprintf(c, cap, "a page of these words here s7 s2 s3 s4 s5 s6 %s s7 s2 s3 s4 s5 s6", other);
	const char *ids[] = {"a", "c"};
	char *texts[] = {a, c};
	nd_xdb *ro;
	nd_store *st;
	nd_descriptor *d;
	tu_handmade_set(tdb, tst, ids, texts, 2, 6, &ro, &st, &d);
	nd_docid da, dc;
	assert_int_equal(nd_xdb_find_uid(ro, "a", &da), ND_OK);
	assert_int_equal(nd_xdb_find_uid(ro, "c", &dc), ND_OK);
	nd_xdb_close(ro);

	nd_indexer *ix;
	nd_hook *exact, *tol;
	nd_hook_options ho = ND_HOOK_OPTIONS_INIT;
	ho.max_drift = 0; /* a set of two documents: every change is half of it */
	assert_int_equal(nd_indexer_open(&ix, tdb, NULL), ND_OK);
	assert_int_equal(nd_hook_open(&exact, nd_indexer_db(ix), st, &ho), ND_OK);
	ho.tolerant = 0.5;
	assert_int_equal(nd_hook_open(&tol, nd_indexer_db(ix), st, &ho), ND_OK);
	assert_int_equal(nd_indexer_add_text(ix, "b", b, strlen(b), NULL, NULL), ND_OK);
	nd_docid db_ = nd_indexer_last_docid(ix);
	nd_hook_result r = ND_HOOK_RESULT_INIT;
	assert_int_equal(nd_hook_changed(exact, db_, &r), ND_OK);
	assert_int_equal(r.change, ND_CHANGE_ADDED);
	assert_int_equal(r.candidates, 2); /* c, by key; a, by the near-neighbour index */
	assert_int_equal(r.nduplicates, 1);
	assert_int_equal(r.duplicates[0].docid, da);
	assert_int_equal(nd_hook_changed(tol, db_, &r), ND_OK);
	assert_int_equal(r.candidates, 2); /* a (5/6) and c (1) */
	assert_int_equal(r.nduplicates, 1);
	assert_int_equal(r.duplicates[0].docid, da);
	assert_true(r.duplicates[0].distance > 0 && r.duplicates[0].distance <= 0.08);
	/* Its neighbours in the index were judged as its links settled: a,
	 * linked, is reported however few comparisons are allowed (c, the
	 * most similar by bits, is refused without one). */
	nd_hook *one;
	ho.max_compare = 1;
	assert_int_equal(nd_hook_open(&one, nd_indexer_db(ix), st, &ho), ND_OK);
	assert_int_equal(nd_hook_changed(one, db_, &r), ND_OK);
	assert_int_equal(r.candidates, 2);
	assert_int_equal(r.nduplicates, 1);
	assert_int_equal(r.duplicates[0].docid, da);
	/* Deleted: no record, nothing to report. */
	assert_int_equal(nd_indexer_delete(ix, "b", NULL), ND_OK);
	assert_int_equal(nd_hook_changed(tol, db_, &r), ND_OK);
	assert_int_equal(r.change, ND_CHANGE_DELETED);
	assert_int_equal(r.candidates, 0);
	assert_int_equal(r.nduplicates, 0);
	nd_hook_result_clear(&r);
	ho.tolerant = 1.5;
	nd_hook *bad = NULL;
	assert_int_equal(nd_hook_open(&bad, nd_indexer_db(ix), st, &ho), ND_EINVAL);
	assert_null(bad);
	(void)dc;

	nd_hook_free(one);
	nd_hook_free(tol);
	nd_hook_free(exact);
	assert_int_equal(nd_indexer_close(ix), ND_OK);
	nd_descriptor_free(d);
	nd_store_close(st);
	free(a);
	free(b);
	free(c);
	free(filler);
	free(other);
	free(tdb);
	free(tst);
}

/* Online clusters: a page in a site template (its bits, and so its key,
 * differ) is linked by its hook to the page it copies, so both get one
 * collapse id, in the value slot too; deleting it takes the id away.
 * Unrelated pages stay apart. */
static void test_hook_links(void **state)
{
	(void)state;
	char *tdb = tu_join(dir, "lnk-db"), *tst = tu_join(dir, "lnk-st");
	uint64_t rng = 33;
	char *filler = tu_random_doc(&rng, 200, VOCAB), *other = tu_random_doc(&rng, 200, VOCAB);
	char *frame = tu_random_doc(&rng, 100, VOCAB);
	size_t cap = strlen(filler) + strlen(other) + 2 * strlen(frame) + 100;
	char *a = malloc(cap), *b = malloc(cap), *c = malloc(cap);
	snprintf(a, cap, "s1 s2 s3 s4 s5 s6 %s s1 s2 s3 s4 s5 s6", filler);
	snprintf(c, cap, "s1 s2 s3 s4 s5 s6 %s s1 s2 s3 s4 s5 s6", other);
	snprintf(b, cap, "%s s1 s2 s3 s4 s5 s6 %s s1 s2 s3 s4 s5 s6 %s", frame, filler, frame);
	const char *ids[] = {"a", "c"};
	char *texts[] = {a, c};
	nd_xdb *ro;
	nd_store *st;
	nd_descriptor *d;
	tu_handmade_set(tdb, tst, ids, texts, 2, 6, &ro, &st, &d);
	/* Signed by the library: links pending until built. */
	assert_int_equal(nd_links_rebuild(ro, st, NULL, NULL), ND_OK);
	nd_xdb_close(ro);

	nd_indexer *ix;
	nd_hook *h;
	nd_hook_options ho = ND_HOOK_OPTIONS_INIT;
	ho.max_drift = 0;
	assert_int_equal(nd_indexer_open(&ix, tdb, NULL), ND_OK);
	nd_xdb *db = nd_indexer_db(ix);
	assert_int_equal(nd_collapse_slot_set(st, 9), ND_OK);
	assert_int_equal(nd_hook_open(&h, db, st, &ho), ND_OK);
	assert_int_equal(nd_indexer_add_text(ix, "b", b, strlen(b), NULL, NULL), ND_OK);
	nd_docid docs[3];
	assert_int_equal(nd_xdb_find_uid(db, "a", &docs[0]), ND_OK);
	assert_int_equal(nd_xdb_find_uid(db, "c", &docs[1]), ND_OK);
	docs[2] = nd_indexer_last_docid(ix);
	nd_hook_result r = ND_HOOK_RESULT_INIT;
	assert_int_equal(nd_hook_changed(h, docs[2], &r), ND_OK);
	nd_store_txn *txn;
	assert_int_equal(nd_store_read_begin(st, &txn), ND_OK);
	uint64_t ka, kb;
	const void *pay;
	size_t len;
	assert_int_equal(nd_store_doc_get(txn, docs[0], &ka, &pay, &len), ND_OK);
	assert_int_equal(nd_store_doc_get(txn, docs[2], &kb, &pay, &len), ND_OK);
	assert_int_equal(nd_store_links_state(txn), ND_LINKS_SETTLED);
	nd_store_txn_end(txn);
	assert_true(ka != kb); /* the template moved its bits */
	assert_int_equal(r.nduplicates, 1);
	assert_int_equal(r.duplicates[0].docid, docs[0]);
	/* a copy, not strict: its page kept whole in the template */
	assert_true(r.duplicates[0].how == ND_VERIFIED_CONTAINMENT || r.duplicates[0].how == ND_VERIFIED_RESEMBLANCE);
	nd_docid cid[3];
	assert_int_equal(nd_collapse_ids(db, st, NULL, docs, 3, cid), ND_OK);
	assert_true(cid[0] == docs[0] && cid[2] == docs[0] && cid[1] == 0);
	char *v = NULL;
	size_t vl = 0;
	assert_int_equal(nd_xdb_doc_value(db, docs[2], 9, &v, &vl), ND_OK);
	assert_int_equal(vl, ND_COLLAPSE_VALUE_LEN); /* the hook kept the slot */
	free(v);
	/* b goes: a is alone again, and so is its slot. */
	assert_int_equal(nd_indexer_delete(ix, "b", NULL), ND_OK);
	assert_int_equal(nd_hook_changed(h, docs[2], &r), ND_OK);
	assert_int_equal(nd_collapse_ids(db, st, NULL, docs, 2, cid), ND_OK);
	assert_true(cid[0] == 0 && cid[1] == 0);
	v = NULL, vl = 0;
	int vrc = nd_xdb_doc_value(db, docs[0], 9, &v, &vl);
	assert_true(vrc == ND_ENOTFOUND || vl == 0);
	free(v);
	nd_hook_result_clear(&r);
	nd_hook_free(h);
	assert_int_equal(nd_indexer_close(ix), ND_OK);
	nd_descriptor_free(d);
	nd_store_close(st);
	free(a);
	free(b);
	free(c);
	free(filler);
	free(other);
	free(frame);
	free(tdb);
	free(tst);
}

/* The links are a function of the records, whatever path made them.  A
 * family of near-copies larger than the near-neighbour windows crowds
 * every tree, so each add, replace and delete moves linked pairs across
 * the window edge: losses around an entry that came in, gains around one
 * that left.  Hooks one change at a time, and 'update' over many changes
 * at once, must leave exactly the links a rebuild makes. */
static void links_exact(nd_xdb *db, nd_store *st)
{
	nd_store_txn *txn;
	uint64_t missing, extra, have;
	assert_int_equal(nd_store_read_begin(st, &txn), ND_OK);
	assert_int_equal(nd_store_links_state(txn), ND_LINKS_SETTLED);
	nd_store_txn_end(txn);
	assert_int_equal(nd_links_check(db, st, NULL, &missing, &extra, &have), ND_OK);
	if (missing || extra)
		fail_msg("links: %llu missing, %llu extra of %llu", (unsigned long long)missing,
			 (unsigned long long)extra, (unsigned long long)have);
	assert_true(have > 20);
}

static void test_links_follow_records(void **state)
{
	(void)state;
	char *dbpath = tu_join(dir, "follow-db"), *storepath = tu_join(dir, "follow-st");
	uint64_t rng = 77, brng = 4242;
	char *base[4];
	nd_indexer *ix;
	char id[32];
	for (int f = 0; f < 4; f++)
		base[f] = tu_random_doc(&brng, 120, VOCAB);
	assert_int_equal(nd_indexer_open(&ix, dbpath, NULL), ND_OK);
	for (int i = 0; i < 130; i++) {
		/* 4 families of 12 copies (rare enough for descriptive words),
		 * one of exact copies, 82 others */
		char *t = i >= 48 ? tu_random_doc(&rng, 120, VOCAB) : i % 4 ? tu_edit_doc(&rng, base[i % 4], 1 + i % 3, VOCAB)
								: strdup(base[0]);
		snprintf(id, sizeof(id), "d%d", i);
		assert_int_equal(nd_indexer_add_text(ix, id, t, strlen(t), NULL, NULL), ND_OK);
		free(t);
	}
	assert_int_equal(nd_indexer_close(ix), ND_OK);
	build_store(dbpath, storepath, 150);

	nd_store *st;
	nd_hook *h;
	nd_hook_options ho = ND_HOOK_OPTIONS_INIT;
	ho.max_drift = 0;
	assert_int_equal(nd_store_open(&st, storepath, ND_STORE_WRITE), ND_OK);
	assert_int_equal(nd_indexer_open(&ix, dbpath, NULL), ND_OK);
	nd_xdb *db = nd_indexer_db(ix);
	assert_int_equal(nd_hook_open(&h, db, st, &ho), ND_OK);
	/* Signed by the library without links: the first writer makes them. */
	assert_int_equal(nd_hook_update(h, NULL, NULL, NULL), ND_OK);
	links_exact(db, st);
	int next = 130;
	for (int round = 0; round < 24; round++) {
		int hooks = round % 3 != 2; /* every third round: many changes, then one update */
		for (int op = 0; op < 6; op++) {
			uint64_t r = tu_rand(&rng);
			int kind = (int)(r % 3), which = (int)((r >> 8) % (uint64_t)next);
			nd_docid docid = 0;
			snprintf(id, sizeof(id), "d%d", kind == 0 ? next++ : which);
			if (kind == 2) {
				if (nd_indexer_delete(ix, id, &docid) == ND_ENOTFOUND)
					continue;
			} else {
				/* family 0's copies are exact: equal sequences in every
				 * tree, ordered by docid, so a replaced document that
				 * becomes one lands between linked copies everywhere */
				int fam = (int)((r >> 24) % 4);
				char *t = !((r >> 16) % 4) ? tu_random_doc(&rng, 120, VOCAB)
					  : fam ? tu_edit_doc(&rng, base[fam], 1 + (r >> 20) % 3, VOCAB) : strdup(base[0]);
				assert_int_equal(nd_indexer_add_text(ix, id, t, strlen(t), NULL, NULL), ND_OK);
				free(t);
				docid = nd_indexer_last_docid(ix);
			}
			if (hooks) {
				assert_int_equal(nd_indexer_commit(ix), ND_OK); /* commit, then the hook */
				assert_int_equal(nd_hook_changed(h, docid, NULL), ND_OK);
			}
		}
		assert_int_equal(nd_indexer_commit(ix), ND_OK);
		if (!hooks)
			assert_int_equal(nd_hook_update(h, NULL, NULL, NULL), ND_OK);
		links_exact(db, st);
	}
	/* And surely: documents between exact copies (docids 1, 5, 9, ...)
	 * become copies too, each one putting linked copies a window apart,
	 * then copies in the middle go, bringing others within one. */
	for (int i = 0; i < 24; i++) {
		nd_docid docid;
		snprintf(id, sizeof(id), "d%d", i < 12 ? 4 * (i / 2) + 1 + i % 2 : 4 * (i - 12) + 8);
		if (i < 12)
			assert_int_equal(nd_indexer_add_text(ix, id, base[0], strlen(base[0]), NULL, NULL), ND_OK);
		else if (nd_indexer_delete(ix, id, &docid) == ND_ENOTFOUND)
			continue;
		assert_int_equal(nd_indexer_commit(ix), ND_OK);
		assert_int_equal(nd_hook_changed(h, i < 12 ? nd_indexer_last_docid(ix) : docid, NULL), ND_OK);
		links_exact(db, st);
	}
	nd_hook_free(h);
	assert_int_equal(nd_indexer_close(ix), ND_OK);
	nd_store_close(st);
	for (int f = 0; f < 4; f++)
		free(base[f]);
	free(dbpath);
	free(storepath);
}

/* A process that hooks documents and dies before committing them leaves
 * records of documents the database never kept; update removes them (and
 * reports them deleted), as does the next hook's open, so fsck --db and
 * the next documents' docids are clean. */
static void test_phantom_records(void **state)
{
	(void)state;
	char *dbpath = tu_join(dir, "ph-db"), *storepath = tu_join(dir, "ph-st");
	nd_indexer *ix;
	families(dbpath, storepath, "p", 60, 150);
	for (int via_hook = 0; via_hook < 2; via_hook++) {
		pid_t pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			/* The child hooks 5 new documents and dies uncommitted. */
			nd_store *cst;
			nd_hook *ch;
			nd_hook_options co = ND_HOOK_OPTIONS_INIT;
			co.max_drift = 0;
			if (nd_indexer_open(&ix, dbpath, NULL) || nd_store_open(&cst, storepath, ND_STORE_WRITE) ||
			    nd_hook_open(&ch, nd_indexer_db(ix), cst, &co))
				_exit(2);
			for (int f = 0; f < 5; f++) {
				char id[32], *t = family_text((uint64_t)(100 + f), 0);
				snprintf(id, sizeof(id), "ghost%d", f);
				if (nd_indexer_add_text(ix, id, t, strlen(t), NULL, NULL) ||
				    nd_hook_changed(ch, nd_indexer_last_docid(ix), NULL))
					_exit(3);
				free(t);
			}
			_exit(0);
		}
		int status;
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		nd_store *st;
		nd_xdb *db;
		nd_store_txn *txn;
		uint64_t ndocs;
		uint32_t doccount;
		nd_hook *h;
		nd_hook_options ho = ND_HOOK_OPTIONS_INIT;
		ho.max_drift = 0;
		assert_int_equal(nd_store_open(&st, storepath, ND_STORE_WRITE), ND_OK);
		assert_int_equal(nd_xdb_open(&db, dbpath, ND_XDB_READ), ND_OK);
		assert_int_equal(nd_xdb_doccount(db, &doccount), ND_OK);
		assert_int_equal(nd_store_read_begin(st, &txn), ND_OK);
		assert_int_equal(nd_store_counts(txn, &ndocs, NULL), ND_OK);
		nd_store_txn_end(txn);
		assert_int_equal(ndocs, (uint64_t)doccount + 5); /* the phantoms */
		nd_sign_report rep;
		h = NULL;
		if (via_hook) {
			/* The hook's open removes them: nothing left for update. */
			assert_int_equal(nd_hook_open(&h, db, st, &ho), ND_OK);
			assert_int_equal(nd_hook_update(h, NULL, NULL, &rep), ND_OK);
			assert_int_equal(rep.deleted, 0);
		} else {
			nd_sign_options so = ND_SIGN_OPTIONS_INIT;
			so.update = 1;
			so.max_drift = 0;
			assert_int_equal(nd_sign_all(st, db, &so, &rep), ND_OK);
			assert_int_equal(rep.deleted, 5);
		}
		assert_int_equal(nd_store_read_begin(st, &txn), ND_OK);
		assert_int_equal(nd_store_counts(txn, &ndocs, NULL), ND_OK);
		nd_store_txn_end(txn);
		assert_int_equal(ndocs, doccount);
		nd_hook_free(h);
		nd_xdb_close(db);
		nd_store_close(st);
	}
	free(dbpath);
	free(storepath);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hook_random_operations),
		cmocka_unit_test(test_hook_group_commit),
		cmocka_unit_test(test_group_commit_visible),
		cmocka_unit_test(test_hook_drift_limit),
		cmocka_unit_test(test_update_after_omindex),
		cmocka_unit_test(test_hook_tolerant),
		cmocka_unit_test(test_hook_links),
		cmocka_unit_test(test_links_follow_records),
		cmocka_unit_test(test_phantom_records),
	};
	return cmocka_run_group_tests_name("hook", tests, setup, teardown);
}
