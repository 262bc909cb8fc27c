/* neardup index: fixture directory, JSONL, re-indexing, bad inputs, and a
 * database written by Debian's scriptindex. */
#include "tests/test_util.h"
#include "neardup/indexer.h"
#include "neardup/xdb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

static int warnings;
static char last_warning[2048];
static void on_warn(const char *msg, void *ctx)
{
	(void)ctx;
	warnings++;
	snprintf(last_warning, sizeof(last_warning), "%s", msg);
}

static char *fixtures(void)
{
	const char *f = getenv("ND_FIXTURES");
	assert_non_null(f);
	return tu_join(f, "corpus");
}

static nd_docid must_find(nd_xdb *db, const char *uid)
{
	nd_docid d = 0;
	assert_int_equal(nd_xdb_find_uid(db, uid, &d), ND_OK);
	return d;
}

static int has_term(const char *term, size_t len, uint32_t wdf, void *ctx)
{
	(void)wdf;
	return strlen(ctx) == len && !memcmp(term, ctx, len);
}

static void test_fixture_dir(void **state)
{
	(void)state;
	nd_index_options o = ND_INDEX_OPTIONS_INIT;
	nd_indexer *ix;
	char *db = tu_join(dir, "db1"), *corpus = fixtures(), *data;
	size_t len;
	o.warn = on_warn;
	warnings = 0;
	assert_int_equal(nd_indexer_open(&ix, db, &o), ND_OK);
	assert_int_equal(nd_indexer_add_path(ix, corpus), ND_OK);
	nd_index_stats st = *nd_indexer_stats(ix);
	assert_int_equal(nd_indexer_close(ix), ND_OK);
	/* a.txt, sub/b.html, 3 good JSONL records; bad JSON, missing id, notes.md skipped. */
	assert_int_equal(st.added, 5);
	assert_int_equal(st.skipped_bad, 2);
	assert_int_equal(st.skipped_type, 1);
	assert_int_equal(warnings, 3);

	nd_xdb *x;
	assert_int_equal(nd_xdb_open(&x, db, ND_XDB_READ), ND_OK);
	nd_docid html = must_find(x, "sub/b.html");
	assert_int_equal(nd_xdb_termlist(x, html, has_term, "paragraph"), 1);
	assert_int_equal(nd_xdb_termlist(x, html, has_term, "strasse"), 1);   /* folded */
	assert_int_equal(nd_xdb_termlist(x, html, has_term, "scriptwordonly"), 0);
	assert_int_equal(nd_xdb_termlist(x, html, has_term, "stylewordonly"), 0);
	assert_int_equal(nd_xdb_termlist(x, html, has_term, "noscriptwordonly"), 0);
	assert_int_equal(nd_xdb_doc_data(x, html, &data, &len), ND_OK);
	assert_non_null(strstr(data, "caption=Fixture Page\n"));
	free(data);
	nd_docid j = must_find(x, "rec-1");
	assert_int_equal(nd_xdb_doc_data(x, j, &data, &len), ND_OK);
	assert_string_equal(data, "id=rec-1\nurl=http://example.com/1\ncaption=Apples\n");
	free(data);
	assert_int_equal(nd_xdb_termlist(x, j, has_term, "Hexample.com"), 1); /* its site */
	assert_int_equal(nd_xdb_termlist(x, html, has_term, "H"), 0);
	must_find(x, "2"); /* integer id */
	must_find(x, "a.txt");
	/* Positions are kept. */
	uint32_t *pos;
	size_t n;
	assert_int_equal(nd_xdb_positions(x, must_find(x, "a.txt"), "fox", &pos, &n), ND_OK);
	assert_int_equal(n, 1);
	assert_int_equal(pos[0], 4);
	free(pos);
	/* Xapian's length is the word count: no other term has a wdf. */
	uint64_t prefixed;
	assert_int_equal(nd_xdb_prefixed_wdf(x, &prefixed), ND_OK);
	assert_int_equal(prefixed, 0);
	nd_xdb_close(x);
	free(db);
	free(corpus);
}

/* A page's site is its URL's host, as omindex writes it: files get a URL
 * from url_base, JSONL records keep their own, and a URL without a host
 * gives no site. */
static int host_of(const char *term, size_t len, uint32_t wdf, void *ctx)
{
	(void)wdf;
	if (len && term[0] == 'H') {
		snprintf(ctx, 64, "%.*s", (int)len, term);
		return 1;
	}
	return 0;
}

/* pages indexed into db with url_base; the database, open to read. */
static nd_xdb *index_pages(const char *db, const char *pages, const char *url_base)
{
	nd_index_options o = ND_INDEX_OPTIONS_INIT;
	nd_indexer *ix;
	nd_xdb *x;
	o.url_base = url_base;
	assert_int_equal(nd_indexer_open(&ix, db, &o), ND_OK);
	assert_int_equal(nd_indexer_add_path(ix, pages), ND_OK);
	assert_int_equal(nd_indexer_close(ix), ND_OK);
	assert_int_equal(nd_xdb_open(&x, db, ND_XDB_READ), ND_OK);
	return x;
}

/* The document id has the host term want, or none (NULL). */
static void assert_host(nd_xdb *x, const char *id, const char *want)
{
	char host[64];
	assert_int_equal(nd_xdb_termlist(x, must_find(x, id), host_of, host), want != NULL);
	if (want)
		assert_string_equal(host, want);
}

static void test_url_sites(void **state)
{
	(void)state;
	nd_index_options o = ND_INDEX_OPTIONS_INIT;
	nd_indexer *ix;
	char *db = tu_join(dir, "db-sites"), *corpus = fixtures(), *data, host[64];
	size_t len;
	o.url_base = "https://User@Mirror.Example:8080/";
	assert_int_equal(nd_indexer_open(&ix, db, &o), ND_OK);
	assert_int_equal(nd_indexer_add_path(ix, corpus), ND_OK);
	const char *plain[][2] = {{"file", "file:///srv/a.txt"}, {"bare", "a.txt"}, {"empty", "https:///a"},
				  {"query", "http://Q.example?x=1"}, {"ipv6", "http://[::1]:8080/x"},
				  {"dot", "https://Dot.Example.:443/"}};
	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
		assert_int_equal(nd_indexer_add_text(ix, plain[i][0], "some words here", 15, plain[i][1], NULL), ND_OK);
	assert_int_equal(nd_indexer_close(ix), ND_OK);
	nd_xdb *x;
	assert_int_equal(nd_xdb_open(&x, db, ND_XDB_READ), ND_OK);
	nd_docid a = must_find(x, "a.txt");
	assert_int_equal(nd_xdb_doc_data(x, a, &data, &len), ND_OK);
	assert_string_equal(data, "id=a.txt\nurl=https://User@Mirror.Example:8080/a.txt\n");
	free(data);
	assert_int_equal(nd_xdb_termlist(x, a, host_of, host), 1);
	assert_string_equal(host, "Hmirror.example");
	assert_int_equal(nd_xdb_termlist(x, must_find(x, "sub/b.html"), host_of, host), 1);
	assert_string_equal(host, "Hmirror.example");
	assert_int_equal(nd_xdb_termlist(x, must_find(x, "rec-1"), host_of, host), 1);
	assert_string_equal(host, "Hexample.com"); /* the record's own */
	assert_int_equal(nd_xdb_termlist(x, must_find(x, "query"), host_of, host), 1);
	assert_string_equal(host, "Hq.example");
	assert_int_equal(nd_xdb_termlist(x, must_find(x, "ipv6"), host_of, host), 1);
	assert_string_equal(host, "H[::1]");
	assert_int_equal(nd_xdb_termlist(x, must_find(x, "dot"), host_of, host), 1);
	assert_string_equal(host, "Hdot.example");
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(nd_xdb_termlist(x, must_find(x, plain[i][0]), host_of, host), 0);
	nd_xdb_close(x);
	tu_rmtree(db);

	/* A page that gives its own address has that site, unless url_base
	 * gives one: its canonical link, else its og:url, when absolute. */
	char *pages = tu_join(dir, "pages"), *p;
	const char *html[][2] = {
		{"canon.html", "<html><head><title>T</title><meta property='og:url' content='https://og.example/x'>"
			       "<link rel='canonical' href='https://WWW.Canon.example/a'></head><body><p>words here"},
		{"og.html", "<html><head><meta property='og:url' content='http://og.example/y'></head><body><p>more words"},
		{"relative.html", "<html><head><link rel='canonical' href='/a'></head><body><p>other words"},
		{"inbody.html", "<html><body><p>words <link rel='canonical' href='https://body.example/'>"}};
	assert_int_equal(mkdir(pages, 0755), 0);
	for (size_t i = 0; i < 4; i++) {
		p = tu_join(pages, html[i][0]);
		tu_write_file(p, html[i][1], strlen(html[i][1]));
		free(p);
	}
	const char *want[4] = {"Hwww.canon.example", "Hog.example", NULL, NULL};
	for (int base = 0; base < 2; base++) {
		x = index_pages(db, pages, base ? "https://mirror.example/" : NULL);
		for (size_t i = 0; i < 4; i++)
			assert_host(x, html[i][0], base ? "Hmirror.example" : want[i]);
		assert_int_equal(nd_xdb_doc_data(x, must_find(x, "canon.html"), &data, &len), ND_OK);
		assert_non_null(strstr(data, base ? "url=https://mirror.example/canon.html\n"
						  : "url=https://WWW.Canon.example/a\n"));
		free(data);
		nd_xdb_close(x);
		tu_rmtree(db);
	}
	tu_rmtree(pages);

	/* A page that gives no address has the host most of its absolute
	 * links go to, when they are 5 or more and at least half. */
	const char *linked[][2] = {{"own.html", "Hnews.example.org"},
				   {"few.html", NULL},
				   {"split.html", NULL},
				   {"canon.html", "Hwww.canon.example"},
				   {"www.html", "Hwww.news.example.org"}};
	const char *own = "<a href='https://News.Example.org/a'>a</a><a href='http://news.example.org:80/b'>b</a>"
			  "<a href='https://news.example.org/c'>c</a><a href='https://x@news.example.org/d'>d</a>"
			  "<a href='https://news.example.org'>e</a><a href='/relative'>f</a>"
			  "<a href='https://social.example/share'>g</a><a href='https://ads.example/'>h</a>";
	const char *few = "<a href='https://news.example.org/a'>a</a><a href='https://news.example.org/b'>b</a>"
			  "<a href='https://news.example.org/c'>c</a><a href='https://news.example.org/d'>d</a>";
	/* 3 links with www. and 3 without are 6 of 7 to one host, named as
	 * first met. */
	const char *www = "<a href='https://www.news.example.org/a'>a</a><a href='https://news.example.org/b'>b</a>"
			  "<a href='https://www.news.example.org/c'>c</a><a href='https://news.example.org/d'>d</a>"
			  "<a href='https://www.news.example.org/e'>e</a><a href='https://news.example.org/f'>f</a>"
			  "<a href='https://other.example/1'>1</a>";
	assert_int_equal(mkdir(pages, 0755), 0);
	for (size_t i = 0; i < 5; i++) {
		char body[4096];
		snprintf(body, sizeof(body), "%s<p>words of a page %s%s", i == 3 ? html[0][1] : "<html><body>",
			 i == 1 ? few : own, i == 2 ? few : "");
		if (i == 2) /* 4 + 5 own links against 3 others and 4 of another host */
			snprintf(body, sizeof(body), "<p>words %s%s%s", own, few,
				 "<a href='https://other.example/1'>1</a><a href='https://other.example/2'>2</a>"
				 "<a href='https://other.example/3'>3</a><a href='https://other.example/4'>4</a>"
				 "<a href='https://other.example/5'>5</a><a href='https://other.example/6'>6</a>"
				 "<a href='https://other.example/7'>7</a><a href='https://other.example/8'>8</a>");
		if (i == 4)
			snprintf(body, sizeof(body), "<p>words %s", www);
		p = tu_join(pages, linked[i][0]);
		tu_write_file(p, body, strlen(body));
		free(p);
	}
	x = index_pages(db, pages, NULL);
	for (size_t i = 0; i < 5; i++)
		assert_host(x, linked[i][0], linked[i][1]);
	assert_int_equal(nd_xdb_doc_data(x, must_find(x, "own.html"), &data, &len), ND_OK);
	assert_null(strstr(data, "url=")); /* a site, not an address */
	free(data);
	nd_xdb_close(x);
	tu_rmtree(db);
	tu_rmtree(pages);

	/* A page that links to its own site by relative addresses only has
	 * its menu as its site: the first 8 distinct paths it links to (a
	 * query, a fragment and "./" left out; "#here", "mailto:" and
	 * "//host" are no paths), what every page under one menu shares.
	 * Another menu is another site; 7 paths are no menu; a host that
	 * most absolute links go to comes first. */
	const char *menu = "<a href='/'>h</a><a href='news.html'>n</a><a href='#top'>t</a>"
			   "<a href='./news.html?p=2'>n2</a><a href='mailto:ed@example.org'>m</a>"
			   "<a href='//cdn.example/x.js'>c</a><a href='/sport/'>s</a><a href='world.html#x'>w</a>"
			   "<a href='../about.html'>a</a><a href='contact.html'>c</a><a href='help.html'>h</a>";
	const char *menus[][3] = {
		{"m1.html", "<a href='terms.html'>t</a><a href='a1.html'>more</a>", "words of one page"},
		{"m2.html", "<a href='terms.html'>t</a><a href='b7.html'>other</a><a href='b8.html'>x</a>", "another page"},
		{"m3.html", "<a href='privacy.html'>p</a><a href='a1.html'>more</a>", "a third page"},
		{"m4.html", "", "a page of seven paths"},
		{"m5.html", "<a href='terms.html'>t</a>", "a page with its host"}};
	char mhost[5][64];
	assert_int_equal(mkdir(pages, 0755), 0);
	for (size_t i = 0; i < 5; i++) {
		char body[4096];
		snprintf(body, sizeof(body), "<html><body>%s%s<p>%s %s", menu, menus[i][1], menus[i][2],
			 i == 4 ? own : "");
		p = tu_join(pages, menus[i][0]);
		tu_write_file(p, body, strlen(body));
		free(p);
	}
	x = index_pages(db, pages, NULL);
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(nd_xdb_termlist(x, must_find(x, menus[i][0]), host_of, mhost[i]), i != 3);
	assert_string_equal(mhost[0], mhost[1]);
	assert_true(!strncmp(mhost[0], "Hmenu-", 6) && strstr(mhost[0], ".invalid"));
	assert_true(!strncmp(mhost[2], "Hmenu-", 6) && strcmp(mhost[0], mhost[2]));
	assert_string_equal(mhost[4], "Hnews.example.org");
	nd_xdb_close(x);
	tu_rmtree(db);
	tu_rmtree(pages);

	/* A mirror laid out as host/path (wget -r, httrack): the deepest
	 * directory named like a host is the site; a page's own address
	 * and url_base come first; names of packages and versions are no
	 * hosts. */
	const char *tree[][2] = {
		{"www.Example.org/a/page.html", "Hwww.example.org"},
		{"www.Example.org/a/canon.html", "Hwww.canon.example"},
		{"shop.example.de:8080/x.txt", "Hshop.example.de"},
		{"192.168.1.10/x.txt", "H192.168.1.10"}, {"site3.example/x.txt", "Hsite3.example"},
		{"news.example.com/v1.2/x.txt", "Hnews.example.com"},
		{"lazr.uri/x.txt", NULL}, {"python3.11/x.txt", NULL}, {"conf.d/x.txt", NULL},
		{"a.b-/x.txt", NULL}, {"host.example.com:x/x.txt", NULL}, {"1.2.3/x.txt", NULL},
		{"www.example.net.txt", NULL}};
	size_t ntree = sizeof(tree) / sizeof(tree[0]);
	assert_int_equal(mkdir(pages, 0755), 0);
	for (size_t i = 0; i < ntree; i++) {
		char *q = tu_join(pages, tree[i][0]);
		for (char *slash = q + strlen(pages) + 1; (slash = strchr(slash, '/')); slash++) {
			*slash = 0;
			mkdir(q, 0755);
			*slash = '/';
		}
		const char *body = strstr(tree[i][0], "canon") ? html[0][1] : "<p>words in a mirror";
		tu_write_file(q, body, strlen(body));
		free(q);
	}
	for (int base = 0; base < 2; base++) {
		x = index_pages(db, pages, base ? "https://mirror.example/" : NULL);
		for (size_t i = 0; i < ntree; i++)
			assert_host(x, tree[i][0], base ? "Hmirror.example" : tree[i][1]);
		/* The directory gives a site, not an address. */
		assert_int_equal(nd_xdb_doc_data(x, must_find(x, tree[0][0]), &data, &len), ND_OK);
		assert_null(base ? NULL : strstr(data, "url="));
		free(data);
		nd_xdb_close(x);
		tu_rmtree(db);
	}
	tu_rmtree(pages);
	free(pages);
	free(db);
	free(corpus);
}

static void test_reindex_replaces(void **state)
{
	(void)state;
	nd_indexer *ix;
	char *db = tu_join(dir, "db2");
	uint32_t n;
	nd_xdb *x;
	assert_int_equal(nd_indexer_open(&ix, db, NULL), ND_OK);
	assert_int_equal(nd_indexer_add_text(ix, "same", "old words here", 14, NULL, NULL), ND_OK);
	assert_int_equal(nd_indexer_add_text(ix, "other", "other text", 10, NULL, NULL), ND_OK);
	assert_int_equal(nd_indexer_close(ix), ND_OK);
	assert_int_equal(nd_indexer_open(&ix, db, NULL), ND_OK);
	assert_int_equal(nd_indexer_add_text(ix, "same", "new words now", 13, NULL, NULL), ND_OK);
	assert_int_equal(nd_indexer_stats(ix)->replaced, 1);
	assert_int_equal(nd_indexer_stats(ix)->added, 0);
	assert_int_equal(nd_indexer_close(ix), ND_OK);
	assert_int_equal(nd_xdb_open(&x, db, ND_XDB_READ), ND_OK);
	assert_int_equal(nd_xdb_doccount(x, &n), ND_OK);
	assert_int_equal(n, 2);
	nd_docid d = must_find(x, "same");
	assert_int_equal(nd_xdb_termlist(x, d, has_term, "new"), 1);
	assert_int_equal(nd_xdb_termlist(x, d, has_term, "old"), 0);
	uint32_t tf;
	assert_int_equal(nd_xdb_termfreq(x, "old", &tf, NULL), ND_OK);
	assert_int_equal(tf, 0);
	nd_xdb_close(x);
	free(db);
}

static void test_bad_inputs(void **state)
{
	(void)state;
	nd_index_options o = ND_INDEX_OPTIONS_INIT;
	nd_indexer *ix;
	char *in = tu_join(dir, "bad-in"), *db = tu_join(dir, "db3");
	char cmd[1024];
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", in);
	assert_int_equal(system(cmd), 0);
	char *p;
	p = tu_join(in, "empty.txt");
	tu_write_file(p, "", 0);
	free(p);
	p = tu_join(in, "spaces.txt");
	tu_write_file(p, " \n\t \n", 5);
	free(p);
	p = tu_join(in, "binary.txt");
	tu_write_file(p, "ELF\0\0\1\2binary", 14);
	free(p);
	p = tu_join(in, "latin1.txt");
	tu_write_file(p, "Caf\xE9 cr\xE8me na\xEFve", strlen("Caf\xE9 cr\xE8me na\xEFve")); /* ISO-8859-1 */
	free(p);
	p = tu_join(in, "unclosed.html");
	const char *unclosed = "<html><body><div><div><p>unterminated <b>markup";
	tu_write_file(p, unclosed, strlen(unclosed));
	free(p);
	/* Labelled windows-1252 with a byte it leaves undefined (0x9D): the
	 * text after it must not be lost. */
	p = tu_join(in, "cp1252.html");
	const char *cp = "<html><head><meta charset=\"windows-1252\"></head><body><p>caf\xE9 "
			 "before \x9D after the bad byte</p><p>last paragraph</p></body></html>";
	tu_write_file(p, cp, strlen(cp));
	free(p);
	o.warn = on_warn;
	warnings = 0;
	assert_int_equal(nd_indexer_open(&ix, db, &o), ND_OK);
	assert_int_equal(nd_indexer_add_path(ix, in), ND_OK);
	const nd_index_stats *st = nd_indexer_stats(ix);
	assert_int_equal(st->skipped_empty, 2);
	assert_int_equal(st->skipped_binary, 1);
	assert_int_equal(st->reencoded, 1);
	assert_int_equal(st->added, 3);
	assert_int_equal(nd_indexer_close(ix), ND_OK);
	nd_xdb *x;
	assert_int_equal(nd_xdb_open(&x, db, ND_XDB_READ), ND_OK);
	nd_docid d = must_find(x, "latin1.txt");
	assert_int_equal(nd_xdb_termlist(x, d, has_term, "café"), 1);
	assert_int_equal(nd_xdb_termlist(x, must_find(x, "unclosed.html"), has_term, "markup"), 1);
	d = must_find(x, "cp1252.html");
	assert_int_equal(nd_xdb_termlist(x, d, has_term, "café"), 1);
	assert_int_equal(nd_xdb_termlist(x, d, has_term, "after"), 1);
	assert_int_equal(nd_xdb_termlist(x, d, has_term, "paragraph"), 1);
	nd_xdb_close(x);
	/* A missing input is an error naming it. */
	assert_int_equal(nd_indexer_open(&ix, db, NULL), ND_OK);
	assert_int_equal(nd_indexer_add_path(ix, "/nonexistent/input"), ND_ENOTFOUND);
	assert_non_null(strstr(nd_error_last(), "/nonexistent/input"));
	nd_indexer_close(ix);
	free(in);
	free(db);
}

static void test_long_id(void **state)
{
	(void)state;
	char id[400];
	memset(id, 'a', sizeof(id) - 1);
	id[sizeof(id) - 1] = '\0';
	char *t = nd_uid_term(id);
	assert_true(strlen(t) <= 241);
	id[5] = 'b';
	char *t2 = nd_uid_term(id);
	assert_string_not_equal(t, t2); /* the hash keeps long ids apart */
	free(t);
	free(t2);
}

/* Count documents in db that hold `word`. */
static uint32_t docs_with(const char *db, const char *word)
{
	nd_xdb *x;
	uint32_t tf = 0;
	assert_int_equal(nd_xdb_open(&x, db, ND_XDB_READ), ND_OK);
	assert_int_equal(nd_xdb_termfreq(x, word, &tf, NULL), ND_OK);
	nd_xdb_close(x);
	return tf;
}

/* Big inputs: a 100 MB document is refused by the default 64 MiB limit
 * with a warning naming it and the limit; a 10 MB JSONL line is indexed
 * whole, and with a 1 MiB limit it is skipped by file:line while the
 * records around it are kept. */
static void test_large_inputs(void **state)
{
	(void)state;
	nd_index_options o = ND_INDEX_OPTIONS_INIT;
	nd_indexer *ix;
	char *big = tu_join(dir, "big.txt"), *db = tu_join(dir, "db-large");
	FILE *f = fopen(big, "wb");
	assert_non_null(f);
	/* Sparse: the size check must come before reading a byte. */
	assert_int_equal(fseeko(f, (off_t)100 << 20, SEEK_SET), 0);
	fputs("end\n", f);
	fclose(f);
	o.warn = on_warn;
	warnings = 0;
	assert_int_equal(nd_indexer_open(&ix, db, &o), ND_OK);
	assert_int_equal(nd_indexer_add_path(ix, big), ND_OK);
	assert_int_equal(nd_indexer_stats(ix)->skipped_large, 1);
	assert_int_equal(warnings, 1);
	assert_non_null(strstr(last_warning, "big.txt"));
	assert_non_null(strstr(last_warning, "over the limit of 67108864"));
	assert_int_equal(nd_indexer_close(ix), ND_OK);

	/* A JSONL file with a 10 MB line of 1.5M words between two small records. */
	char *jl = tu_join(dir, "huge-line.jsonl");
	size_t words = 1500000, cap = words * 7 + 256, n = 0;
	char *buf = malloc(cap);
	n += (size_t)sprintf(buf + n, "{\"id\":\"before\",\"text\":\"small first record\"}\n"
				       "{\"id\":\"huge\",\"text\":\"");
	for (size_t i = 0; i < words; i++) {
		memcpy(buf + n, i % 2 ? "bulk " : "hulk ", 5);
		n += 5;
	}
	n += (size_t)sprintf(buf + n, "last\"}\n{\"id\":\"after\",\"text\":\"small trailing record\"}\n");
	assert_true(n > (size_t)7 << 20);
	tu_write_file(jl, buf, n);
	free(buf);
	assert_int_equal(nd_indexer_open(&ix, db, &o), ND_OK);
	assert_int_equal(nd_indexer_add_path(ix, jl), ND_OK);
	assert_int_equal(nd_indexer_stats(ix)->added, 3);
	assert_int_equal(nd_indexer_stats(ix)->words, 3 + words + 1 + 3);
	assert_int_equal(nd_indexer_close(ix), ND_OK);
	assert_int_equal(docs_with(db, "last"), 1); /* the end of the long line */
	assert_int_equal(docs_with(db, "trailing"), 1);

	char *db2 = tu_join(dir, "db-line-limit");
	o.max_line_bytes = 1 << 20;
	warnings = 0;
	assert_int_equal(nd_indexer_open(&ix, db2, &o), ND_OK);
	assert_int_equal(nd_indexer_add_path(ix, jl), ND_OK);
	assert_int_equal(nd_indexer_stats(ix)->added, 2);
	assert_int_equal(nd_indexer_stats(ix)->skipped_large, 1);
	assert_int_equal(warnings, 1);
	assert_non_null(strstr(last_warning, "huge-line.jsonl:2"));
	assert_non_null(strstr(last_warning, "1048576"));
	assert_int_equal(nd_indexer_close(ix), ND_OK);
	assert_int_equal(docs_with(db2, "trailing"), 1);
	assert_int_equal(docs_with(db2, "hulk"), 0);
	free(big);
	free(db);
	free(db2);
	free(jl);
}

/* HTML nested 100,000 elements deep, never closed: libxml2 alone stops at
 * depth 256 and silently drops the rest of the page. */
static void test_deep_html(void **state)
{
	(void)state;
	char *p = tu_join(dir, "deep.html"), *db = tu_join(dir, "db-deep");
	size_t depth = 100000, n = 0;
	char *html = malloc(depth * 5 + 256);
	n += (size_t)sprintf(html, "<html><body><p>surface words");
	for (size_t i = 0; i < depth; i++) {
		memcpy(html + n, "<div>", 5);
		n += 5;
	}
	n += (size_t)sprintf(html + n, "abyssal text<p>bottom <b>unclosed");
	tu_write_file(p, html, n);
	free(html);
	nd_indexer *ix;
	assert_int_equal(nd_indexer_open(&ix, db, NULL), ND_OK);
	assert_int_equal(nd_indexer_add_path(ix, p), ND_OK);
	assert_int_equal(nd_indexer_stats(ix)->added, 1);
	assert_int_equal(nd_indexer_close(ix), ND_OK);
	assert_int_equal(docs_with(db, "surface"), 1);
	assert_int_equal(docs_with(db, "abyssal"), 1);
	assert_int_equal(docs_with(db, "unclosed"), 1);
	free(p);
	free(db);
}

/* An id given twice in one input: the later document wins, and the
 * warning names the id, also when the id was already in the database. */
static void test_duplicate_ids(void **state)
{
	(void)state;
	char *p = tu_join(dir, "dup.jsonl"), *db = tu_join(dir, "db-dup");
	const char *jl = "{\"id\":\"x\",\"text\":\"earlier version\"}\n"
			 "{\"id\":\"y\",\"text\":\"another record\"}\n"
			 "{\"id\":\"x\",\"text\":\"later version\"}\n";
	tu_write_file(p, jl, strlen(jl));
	nd_index_options o = ND_INDEX_OPTIONS_INIT;
	nd_indexer *ix;
	o.warn = on_warn;
	for (int run = 0; run < 2; run++) {
		warnings = 0;
		assert_int_equal(nd_indexer_open(&ix, db, &o), ND_OK);
		assert_int_equal(nd_indexer_add_path(ix, p), ND_OK);
		const nd_index_stats *st = nd_indexer_stats(ix);
		assert_int_equal(st->duplicate_ids, 1);
		assert_int_equal(st->added + st->replaced, 3);
		assert_int_equal(st->added, run ? 0 : 2);
		assert_int_equal(warnings, 1);
		assert_non_null(strstr(last_warning, "x: id given twice"));
		assert_int_equal(nd_indexer_close(ix), ND_OK);
		assert_int_equal(docs_with(db, "later"), 1);
		assert_int_equal(docs_with(db, "earlier"), 0);
	}
	/* A crawler re-fetching through add_text replaces without a warning. */
	warnings = 0;
	assert_int_equal(nd_indexer_open(&ix, db, &o), ND_OK);
	assert_int_equal(nd_indexer_add_text(ix, "x", "fetched once", 12, NULL, NULL), ND_OK);
	assert_int_equal(nd_indexer_add_text(ix, "x", "fetched twice", 13, NULL, NULL), ND_OK);
	assert_int_equal(nd_indexer_stats(ix)->duplicate_ids, 0);
	assert_int_equal(warnings, 0);
	assert_int_equal(nd_indexer_close(ix), ND_OK);
	free(p);
	free(db);
}

/* A database written by Debian's scriptindex (xapian-omega) must be
 * readable: unique ids through Q terms, word terms unprefixed. */
static void test_scriptindex_db(void **state)
{
	(void)state;
	if (system("command -v scriptindex >/dev/null 2>&1") != 0)
		skip();
	char *db = tu_join(dir, "omega-db"), *idx = tu_join(dir, "rules.idx"),
	     *input = tu_join(dir, "input.txt"), cmd[2048];
	const char *rules = "id : boolean=Q unique=Q\ntext : index\n";
	tu_write_file(idx, rules, strlen(rules));
	const char *recs = "id=one\ntext=the cat sat on the mat\n\nid=two\ntext=a dog barked\n\n";
	tu_write_file(input, recs, strlen(recs));
	snprintf(cmd, sizeof(cmd), "scriptindex '%s' '%s' '%s' >/dev/null", db, idx, input);
	assert_int_equal(system(cmd), 0);
	nd_xdb *x;
	assert_int_equal(nd_xdb_open(&x, db, ND_XDB_READ), ND_OK);
	uint32_t n;
	assert_int_equal(nd_xdb_doccount(x, &n), ND_OK);
	assert_int_equal(n, 2);
	nd_docid d = must_find(x, "two");
	char *uid;
	assert_int_equal(nd_xdb_doc_uid(x, d, &uid), ND_OK);
	assert_string_equal(uid, "two");
	free(uid);
	assert_int_equal(nd_xdb_termlist(x, d, has_term, "dog"), 1);
	/* scriptindex's "index" also adds Z stems: lengths then count them. */
	uint32_t words[2], lens[2];
	assert_int_equal(nd_xdb_lengths(x, 1, 3, lens, words), ND_OK);
	assert_int_equal(words[0], 6);
	assert_true(lens[0] >= words[0]);
	nd_xdb_close(x);
	free(db);
	free(idx);
	free(input);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture_dir),
		cmocka_unit_test(test_url_sites),
		cmocka_unit_test(test_reindex_replaces),
		cmocka_unit_test(test_bad_inputs),
		cmocka_unit_test(test_long_id),
		cmocka_unit_test(test_large_inputs),
		cmocka_unit_test(test_deep_html),
		cmocka_unit_test(test_duplicate_ids),
		cmocka_unit_test(test_scriptindex_db),
	};
	return cmocka_run_group_tests_name("indexer", tests, setup, teardown);
}
