/* The Xapian wrapper against small databases built in the test. */
#include "tests/test_util.h"
#include "neardup/xdb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dir;
static char *dbpath;

/* Three documents: "the cat sat", "the dog sat on the mat", and an
 * omindex-style one keyed by a U term with a Z stem term. */
static int setup(void **state)
{
	(void)state;
	nd_xdb *db;
	nd_xdb_doc *doc;
	dir = tu_tmpdir();
	dbpath = tu_join(dir, "db");
	assert_int_equal(nd_xdb_open(&db, dbpath, ND_XDB_WRITE), ND_OK);
	const char *texts[2][6] = {{"the", "cat", "sat", NULL}, {"the", "dog", "sat", "on", "the", "mat"}};
	for (int d = 0; d < 2; d++) {
		assert_int_equal(nd_xdb_doc_new(&doc), ND_OK);
		for (int i = 0; i < 6 && texts[d][i]; i++)
			assert_int_equal(nd_xdb_doc_add_posting(doc, texts[d][i], strlen(texts[d][i]), i + 1), ND_OK);
		assert_int_equal(nd_xdb_doc_add_boolean(doc, d ? "Qdoc2" : "Qdoc1"), ND_OK);
		assert_int_equal(nd_xdb_doc_set_data(doc, d ? "id=doc2\n" : "id=doc1\n", 8), ND_OK);
		assert_int_equal(nd_xdb_doc_set_value(doc, 1, "v", 1), ND_OK);
		assert_int_equal(nd_xdb_replace(db, d ? "Qdoc2" : "Qdoc1", doc, NULL), ND_OK);
		nd_xdb_doc_free(doc);
	}
	assert_int_equal(nd_xdb_doc_new(&doc), ND_OK);
	assert_int_equal(nd_xdb_doc_add_posting(doc, "fish", 4, 1), ND_OK);
	assert_int_equal(nd_xdb_doc_add_posting(doc, "Zfish", 5, 1), ND_OK);
	assert_int_equal(nd_xdb_doc_add_boolean(doc, "Uhttp://x/fish"), ND_OK);
	assert_int_equal(nd_xdb_replace(db, "Uhttp://x/fish", doc, NULL), ND_OK);
	nd_xdb_doc_free(doc);
	assert_int_equal(nd_xdb_commit(db), ND_OK);
	nd_xdb_close(db);
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

/* got is want (NULL: none); got freed. */
static void expect_string_or_null(char *got, const char *want)
{
	if (want)
		assert_string_equal(got, want);
	else
		assert_null(got);
	free(got);
}

/* A document's site: its H term (a host), else omindex's J (a run's base
 * URL, "J" alone for "/"); a term of a longer prefix that begins with the
 * letter is another field's. */
static void test_doc_site(void **state)
{
	(void)state;
	const char *terms[][2] = {{"Hshop.example", "Jhttps://shop.example"}, {"J/wiki", NULL}, {"J", NULL},
				  {"HXFOO", "JXBAR"}, {NULL, NULL}};
	const char *site[] = {"Hshop.example", "J/wiki", "J", NULL, NULL};
	const char *host[] = {"shop.example", NULL, NULL, NULL, NULL};
	char *path = tu_join(dir, "sites"), *out;
	nd_xdb *db;
	nd_xdb_doc *doc;
	assert_int_equal(nd_xdb_open(&db, path, ND_XDB_WRITE), ND_OK);
	for (int d = 0; d < 5; d++) {
		char uid[16];
		snprintf(uid, sizeof(uid), "Qs%d", d);
		assert_int_equal(nd_xdb_doc_new(&doc), ND_OK);
		assert_int_equal(nd_xdb_doc_add_posting(doc, "word", 4, 1), ND_OK);
		assert_int_equal(nd_xdb_doc_add_boolean(doc, uid), ND_OK);
		for (int k = 0; k < 2 && terms[d][k]; k++)
			assert_int_equal(nd_xdb_doc_add_boolean(doc, terms[d][k]), ND_OK);
		assert_int_equal(nd_xdb_replace(db, uid, doc, NULL), ND_OK);
		nd_xdb_doc_free(doc);
	}
	assert_int_equal(nd_xdb_commit(db), ND_OK);
	int named;
	assert_int_equal(nd_xdb_names_sites(db, &named), ND_OK);
	assert_int_equal(named, 1);
	for (int d = 0; d < 5; d++) {
		assert_int_equal(nd_xdb_doc_site(db, (nd_docid)(d + 1), &out), ND_OK);
		expect_string_or_null(out, site[d]);
		assert_int_equal(nd_xdb_doc_host(db, (nd_docid)(d + 1), &out), ND_OK);
		expect_string_or_null(out, host[d]);
	}
	/* With a word prefix (words under XB), a field's terms are read as
	 * written: the sites' H and J, beside the words. */
	assert_int_equal(nd_xdb_set_prefixes(db, "XB", NULL), ND_OK);
	uint32_t tf;
	assert_int_equal(nd_xdb_termfreq(db, "J/wiki", &tf, NULL), ND_OK);
	assert_int_equal(tf, 1);
	assert_int_equal(nd_xdb_termfreq(db, "word", &tf, NULL), ND_OK);
	assert_int_equal(tf, 0); /* no word is under XB */
	nd_xdb_terms *it;
	const char *term;
	size_t len;
	int n = 0;
	assert_int_equal(nd_xdb_terms_open(&it, db, "H"), ND_OK);
	while (nd_xdb_terms_next(it, &term, &len, NULL, NULL) == 1)
		n += len == 13 && !memcmp(term, "Hshop.example", 13);
	nd_xdb_terms_free(it);
	assert_int_equal(n, 1);
	nd_xdb_postlist *pl;
	nd_posting p[4];
	size_t got;
	assert_int_equal(nd_xdb_postlist_open(&pl, db, "J/wiki"), ND_OK);
	assert_int_equal(nd_xdb_postlist_next(pl, 0, p, 4, &got), ND_OK);
	assert_int_equal(got, 1);
	assert_int_equal(p[0].docid, 2);
	nd_xdb_postlist_free(pl);
	nd_xdb_close(db);
	free(path);
}

static void test_stats(void **state)
{
	(void)state;
	nd_xdb *db;
	uint32_t n, tf;
	uint64_t cf, rev;
	nd_docid last;
	double avg;
	char *uuid;
	assert_int_equal(nd_xdb_open(&db, dbpath, ND_XDB_READ), ND_OK);
	assert_int_equal(nd_xdb_doccount(db, &n), ND_OK);
	assert_int_equal(n, 3);
	assert_int_equal(nd_xdb_lastdocid(db, &last), ND_OK);
	assert_int_equal(last, 3);
	assert_int_equal(nd_xdb_avglength(db, &avg), ND_OK);
	assert_true(avg > 3.6 && avg < 3.7); /* (3 + 6 + 2) / 3 */
	assert_int_equal(nd_xdb_termfreq(db, "the", &tf, &cf), ND_OK);
	assert_int_equal(tf, 2);
	assert_int_equal(cf, 3);
	assert_int_equal(nd_xdb_termfreq(db, "absent", &tf, &cf), ND_OK);
	assert_int_equal(tf, 0);
	assert_int_equal(nd_xdb_uuid(db, &uuid), ND_OK);
	assert_int_equal(strlen(uuid), 36);
	free(uuid);
	assert_int_equal(nd_xdb_revision(db, &rev), ND_OK);
	assert_true(rev >= 1);
	uint64_t prefixed;
	assert_int_equal(nd_xdb_prefixed_wdf(db, &prefixed), ND_OK);
	assert_int_equal(prefixed, 1); /* the Z term */
	nd_xdb_close(db);
}

static void test_terms_and_postlists(void **state)
{
	(void)state;
	nd_xdb *db;
	nd_xdb_terms *it;
	const char *term;
	size_t len, n;
	uint32_t tf;
	int got, count = 0;
	assert_int_equal(nd_xdb_open(&db, dbpath, ND_XDB_READ), ND_OK);
	assert_int_equal(nd_xdb_terms_open(&it, db, "Q"), ND_OK);
	while ((got = nd_xdb_terms_next(it, &term, &len, &tf, NULL)) == 1) {
		assert_int_equal(term[0], 'Q');
		count++;
	}
	assert_int_equal(got, 0);
	assert_int_equal(count, 2);
	nd_xdb_terms_free(it);

	nd_xdb_postlist *pl;
	nd_posting buf[1];
	assert_int_equal(nd_xdb_postlist_open(&pl, db, "sat"), ND_OK);
	/* Batches of one, to exercise resumption between calls. */
	assert_int_equal(nd_xdb_postlist_next(pl, 0, buf, 1, &n), ND_OK);
	assert_int_equal(n, 1);
	assert_int_equal(buf[0].docid, 1);
	assert_int_equal(nd_xdb_postlist_next(pl, 2, buf, 1, &n), ND_OK);
	assert_int_equal(n, 0); /* docid 2 is past the limit */
	assert_int_equal(nd_xdb_postlist_next(pl, 0, buf, 1, &n), ND_OK);
	assert_int_equal(n, 1);
	assert_int_equal(buf[0].docid, 2);
	assert_int_equal(nd_xdb_postlist_next(pl, 0, buf, 1, &n), ND_OK);
	assert_int_equal(n, 0);
	nd_xdb_postlist_free(pl);
	assert_int_equal(nd_xdb_postlist_open(&pl, db, "the"), ND_OK);
	nd_posting two[4];
	assert_int_equal(nd_xdb_postlist_next(pl, 0, two, 4, &n), ND_OK);
	assert_int_equal(n, 2);
	assert_int_equal(two[1].wdf, 2);
	nd_xdb_postlist_free(pl);

	uint32_t lens[3], words[3];
	assert_int_equal(nd_xdb_lengths(db, 1, 4, lens, words), ND_OK);
	assert_int_equal(lens[0], 3);
	assert_int_equal(lens[1], 6);
	assert_int_equal(lens[2], 2); /* fish + Zfish */
	assert_int_equal(words[0], 3);
	assert_int_equal(words[2], 1); /* Zfish is not a word */
	nd_xdb_close(db);
}

static int collect(const char *term, size_t len, uint32_t wdf, void *ctx)
{
	char *out = ctx;
	(void)wdf;
	strncat(out, term, len);
	strcat(out, " ");
	return 0;
}

static void test_documents(void **state)
{
	(void)state;
	nd_xdb *db;
	char terms[256] = "", *data, *uid;
	uint32_t *pos;
	size_t n, len;
	nd_docid d;
	assert_int_equal(nd_xdb_open(&db, dbpath, ND_XDB_READ), ND_OK);
	assert_int_equal(nd_xdb_termlist(db, 1, collect, terms), ND_OK);
	assert_string_equal(terms, "Qdoc1 cat sat the ");
	assert_int_equal(nd_xdb_positions(db, 2, "the", &pos, &n), ND_OK);
	assert_int_equal(n, 2);
	assert_int_equal(pos[0], 1);
	assert_int_equal(pos[1], 5);
	free(pos);
	assert_int_equal(nd_xdb_doc_data(db, 2, &data, &len), ND_OK);
	assert_string_equal(data, "id=doc2\n");
	free(data);
	assert_int_equal(nd_xdb_doc_value(db, 2, 1, &data, &len), ND_OK);
	assert_string_equal(data, "v");
	free(data);
	assert_int_equal(nd_xdb_doc_uid(db, 2, &uid), ND_OK);
	assert_string_equal(uid, "doc2");
	free(uid);
	assert_int_equal(nd_xdb_doc_uid(db, 3, &uid), ND_OK); /* omindex-style U term */
	assert_string_equal(uid, "http://x/fish");
	free(uid);
	assert_int_equal(nd_xdb_find_uid(db, "doc1", &d), ND_OK);
	assert_int_equal(d, 1);
	assert_int_equal(nd_xdb_find_uid(db, "http://x/fish", &d), ND_OK);
	assert_int_equal(d, 3);
	assert_int_equal(nd_xdb_find_uid(db, "nope", &d), ND_ENOTFOUND);
	/* Missing documents. */
	assert_int_equal(nd_xdb_termlist(db, 99, collect, terms), ND_ENOTFOUND);
	assert_int_equal(nd_xdb_doc_data(db, 99, &data, &len), ND_ENOTFOUND);
	assert_null(data);
	assert_int_equal(nd_xdb_doc_uid(db, 99, &uid), ND_ENOTFOUND);
	nd_xdb_close(db);
}

static void test_replace_delete(void **state)
{
	(void)state;
	nd_xdb *db;
	nd_xdb_doc *doc;
	nd_docid id;
	uint32_t n;
	assert_int_equal(nd_xdb_open(&db, dbpath, ND_XDB_WRITE), ND_OK);
	assert_int_equal(nd_xdb_doc_new(&doc), ND_OK);
	assert_int_equal(nd_xdb_doc_add_posting(doc, "bird", 4, 1), ND_OK);
	assert_int_equal(nd_xdb_doc_add_boolean(doc, "Qdoc1"), ND_OK);
	assert_int_equal(nd_xdb_replace(db, "Qdoc1", doc, &id), ND_OK);
	nd_xdb_doc_free(doc);
	assert_int_equal(id, 1); /* replaced in place */
	assert_int_equal(nd_xdb_doccount(db, &n), ND_OK);
	assert_int_equal(n, 3);
	assert_int_equal(nd_xdb_delete(db, "Qdoc2"), ND_OK);
	assert_int_equal(nd_xdb_delete(db, "Qdoc2"), ND_ENOTFOUND);
	assert_int_equal(nd_xdb_commit(db), ND_OK);
	assert_int_equal(nd_xdb_doccount(db, &n), ND_OK);
	assert_int_equal(n, 2);
	nd_xdb_close(db);
}

static void test_errors(void **state)
{
	(void)state;
	nd_xdb *db, *db2;
	char *missing = tu_join(dir, "no-such-db");
	assert_int_equal(nd_xdb_open(&db, missing, ND_XDB_READ), ND_ENOTFOUND);
	assert_null(db);
	assert_non_null(strstr(nd_error_last(), missing)); /* names the input */
	free(missing);
	assert_int_equal(nd_xdb_open(&db, dbpath, ND_XDB_WRITE), ND_OK);
	assert_int_equal(nd_xdb_open(&db2, dbpath, ND_XDB_WRITE), ND_ELOCKED);
	assert_non_null(strstr(nd_error_last(), dbpath));
	nd_xdb_close(db);
	/* A read-only handle refuses writes. */
	assert_int_equal(nd_xdb_open(&db, dbpath, ND_XDB_READ), ND_OK);
	assert_int_equal(nd_xdb_commit(db), ND_EINVAL);
	nd_xdb_close(db);
	nd_xdb_close(NULL);
	/* A corrupt database: a file where the table should be. */
	char *bad = tu_join(dir, "bad");
	char *glass = tu_join(bad, "iamglass");
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s' && printf 'garbage' > '%s'", bad, glass);
	assert_int_equal(system(cmd), 0);
	int rc = nd_xdb_open(&db, bad, ND_XDB_READ);
	assert_true(rc == ND_ECORRUPT || rc == ND_EVERSION || rc == ND_ENOTFOUND);
	assert_non_null(strstr(nd_error_last(), bad));
	free(glass);
	free(bad);
}

static void test_reopen(void **state)
{
	(void)state;
	nd_xdb *r, *w;
	nd_xdb_doc *doc;
	uint32_t n;
	int changed;
	assert_int_equal(nd_xdb_open(&r, dbpath, ND_XDB_READ), ND_OK);
	assert_int_equal(nd_xdb_doccount(r, &n), ND_OK);
	uint32_t before = n;
	assert_int_equal(nd_xdb_open(&w, dbpath, ND_XDB_WRITE), ND_OK);
	assert_int_equal(nd_xdb_doc_new(&doc), ND_OK);
	assert_int_equal(nd_xdb_doc_add_posting(doc, "new", 3, 1), ND_OK);
	assert_int_equal(nd_xdb_replace(w, "Qnew", doc, NULL), ND_OK);
	nd_xdb_doc_free(doc);
	assert_int_equal(nd_xdb_commit(w), ND_OK);
	nd_xdb_close(w);
	assert_int_equal(nd_xdb_reopen(r, &changed), ND_OK);
	assert_true(changed);
	assert_int_equal(nd_xdb_doccount(r, &n), ND_OK);
	assert_int_equal(n, before + 1);
	nd_xdb_close(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stats),
		cmocka_unit_test(test_doc_site),
		cmocka_unit_test(test_terms_and_postlists),
		cmocka_unit_test(test_documents),
		cmocka_unit_test(test_replace_delete),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_reopen),
	};
	return cmocka_run_group_tests_name("xdb", tests, setup, teardown);
}
