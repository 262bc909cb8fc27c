/* neardup fsck: check a store's consistency (and, with --db, that it
 * matches the database). */
#include "tool.h"
#include "neardup/window.h"
#include "neardup/cluster.h"
#include "neardup/collapse.h"
#include "neardup/descriptor.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
	"usage: neardup fsck --store DIR [--db DIR] [--dump]\n"
	"\n"
	"Check that every document record decodes, that doc -> signature and\n"
	"signature -> docs agree both ways, as do doc -> bits and bit -> docs and\n"
	"doc -> near-neighbour keys and the near-neighbour index, and\n"
	"that the links are settled; with --db also that every record equals\n"
	"signing the document afresh and belongs to a document still there, that\n"
	"the links are exactly those the copy verdict gives the records (every\n"
	"document's words are read), and that the collapse value slot (sign\n"
	"--value-slot) holds each document's collapse id.  It checks the store's\n"
	"file page by page (truncation, damage) first.\n"
	"Read-only; safe while a writer works (it checks one snapshot).\n"
	"\n"
	"  --store DIR   neardup store\n"
	"  --db DIR      Xapian database it was signed from\n"
	"  --dump        also print 'docid key' for every record and 'link a b' for\n"
	"                every link (a < b), for comparing stores\n"
	"  -q, --quiet   print problems only, no notes or summary\n"
	"  -h, --help    this text\n"
	"\n"
	"Exit status 0 when consistent, 1 when a problem was found (each printed).\n";

typedef struct {
	nd_store_txn *txn;
	const nd_descriptor *d;
	nd_xdb *db;
	int dump;
	int bits;             /* the store has bit postings (format 3) */
	int near_ok;          /* the near-neighbour index is complete (not deferred) */
	uint64_t records, problems, keyed, posted, near;
	tool_progress *prog;
} fsck_ctx;

static void problem(fsck_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

typedef struct {
	fsck_ctx *c;
	uint64_t links;
} link_ctx;

static int check_link(uint32_t a, uint32_t b, void *vctx)
{
	link_ctx *l = vctx;
	nd_docid *back = NULL;
	size_t n = 0;
	uint64_t key;
	int found = 0;
	l->links++;
	if (l->c->dump && a < b)
		printf("link %u %u\n", a, b);
	if (nd_store_doc_get(l->c->txn, a, &key, NULL, NULL) != ND_OK ||
	    nd_store_doc_get(l->c->txn, b, &key, NULL, NULL) != ND_OK)
		problem(l->c, "link %u-%u: a document without a record", a, b);
	if (nd_store_links(l->c->txn, b, &back, &n) == ND_OK)
		for (size_t i = 0; i < n && !found; i++)
			found = back[i] == a;
	free(back);
	if (!found)
		problem(l->c, "link %u-%u: not kept the other way", a, b);
	return 0;
}

typedef struct {
	fsck_ctx *c;
	uint64_t orphans;
} date_ctx;

static int check_date(uint32_t docid, uint64_t date, void *vctx)
{
	date_ctx *d = vctx;
	(void)date;
	uint64_t key;
	d->orphans += nd_store_doc_get(d->c->txn, docid, &key, NULL, NULL) == ND_ENOTFOUND;
	return 0;
}

/* Print the first 20 problems; count all. */
static void problem(fsck_ctx *c, const char *fmt, ...)
{
	va_list ap;
	if (c->problems++ >= 20)
		return;
	va_start(ap, fmt);
	printf("problem: ");
	vprintf(fmt, ap);
	putchar('\n');
	va_end(ap);
}

/* Documents that exist but hold no word (boolean terms only, as a
 * notmuch ghost document does): doccount less those with words, from one
 * walk of the lengths. */
static int count_wordless(nd_xdb *db, uint32_t doccount, uint64_t *out)
{
	enum { BLOCK = 65536 };
	nd_docid last;
	uint64_t with = 0;
	uint32_t *words = malloc(BLOCK * sizeof(*words));
	int rc = words ? nd_xdb_lastdocid(db, &last) : nd_error_set(ND_ENOMEM, "out of memory");
	for (uint64_t lo = 1; rc == ND_OK && lo <= last; lo += BLOCK) {
		uint64_t hi = lo + BLOCK > (uint64_t)last + 1 ? (uint64_t)last + 1 : lo + BLOCK;
		if ((rc = nd_xdb_lengths(db, (nd_docid)lo, (nd_docid)hi, NULL, words)) == ND_OK)
			for (uint64_t d = lo; d < hi; d++)
				with += words[d - lo] > 0;
	}
	free(words);
	*out = rc == ND_OK && doccount > with ? doccount - with : 0;
	return rc;
}

static int near_keyed(const uint16_t *seq)
{
	for (unsigned r = 0; r < ND_NEAR_ROWS; r++)
		if (seq[r] != UINT16_MAX)
			return 1;
	return 0;
}

static int on_record(uint32_t docid, uint64_t key, const void *payload, size_t len, void *vctx)
{
	fsck_ctx *c = vctx;
	nd_sig s = ND_SIG_INIT, fresh = ND_SIG_INIT;
	c->records++;
	tool_progress_show(c->prog, c->records, "%llu records checked", (unsigned long long)c->records);
	if (c->dump)
		printf("%u %016llx\n", docid, (unsigned long long)key);
	if (nd_sig_decode(&s, payload, len, nd_descriptor_size(c->d)) < 0)
		problem(c, "document %u: record does not decode (%zu bytes)", docid, len);
	else if (s.key != key)
		problem(c, "document %u: stored key %016llx is not its bits' key", docid, (unsigned long long)key);
	for (uint32_t i = 0; c->bits && i < s.nbits; i++) {
		if (nd_store_bit_has(c->txn, s.bits[i], docid) != 1)
			problem(c, "document %u: not posted under its bit %u", docid, s.bits[i]);
		c->posted++;
	}
	for (unsigned t = 0; c->near_ok && s.present && t < ND_NEAR_TREES; t++) {
		if (!near_keyed(s.near + t * ND_NEAR_ROWS))
			continue; /* a tree of words the document does not hold */
		if (nd_store_near_has(c->txn, t, s.near + t * ND_NEAR_ROWS, ND_NEAR_ROWS, docid) != 1)
			problem(c, "document %u: not in the near-neighbour index's tree %u", docid, t);
		c->near++;
	}
	if (key) {
		nd_docid *m = NULL;
		size_t n = 0, found = 0;
		c->keyed++;
		if (nd_store_key_docs(c->txn, key, &m, &n) == ND_OK)
			for (size_t i = 0; i < n; i++)
				found += m[i] == docid;
		free(m);
		if (found != 1)
			problem(c, "document %u: not in its cluster %016llx", docid, (unsigned long long)key);
	}
	if (c->db) {
		int rc = nd_sig_from_termlist(c->d, c->db, docid, &fresh);
		if (rc == ND_ENOTFOUND)
			problem(c, "document %u: recorded but not in the database", docid);
		else if (rc < 0)
			problem(c, "document %u: cannot sign it afresh: %s", docid, nd_error_last());
		else if (fresh.key != key || fresh.fingerprint != s.fingerprint || !!fresh.present != s.present ||
			 (s.present && memcmp(fresh.near, s.near, sizeof(s.near))))
			problem(c, "document %u: record differs from signing it afresh (key %016llx)", docid,
				(unsigned long long)fresh.key);
	}
	nd_sig_clear(&s);
	nd_sig_clear(&fresh);
	return 0;
}

int nd_cmd_fsck(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"db", required_argument, NULL, 'd'},
		{"store", required_argument, NULL, 's'},
		{"dump", no_argument, NULL, 'D'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0}};
	const char *dbpath = NULL, *storepath = NULL;
	nd_store *st = NULL;
	nd_descriptor *d = NULL;
	fsck_ctx c = {NULL, NULL, NULL, 0, 1, 1, 0, 0, 0, 0, 0, NULL};
	uint64_t postings = 0, near = 0;
	nd_store_keys *it = NULL;
	uint64_t key, members = 0;
	size_t count;
	int opt, rc, ret = EXIT_ERR;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "hq", longopts, NULL)) != -1) {
		switch (opt) {
		case 'd': dbpath = optarg; break;
		case 's': storepath = optarg; break;
		case 'D': c.dump = 1; break;
		case 'q': tool_quiet = 1; break;
		case 'h': fputs(usage_text, stdout); return EXIT_OK;
		default: return tool_usage("fsck", NULL);
		}
	}
	if (!storepath || optind < argc) {
		return tool_usage("fsck", "%s", optind < argc ? "unexpected argument" : "--store is required");
	}
	if (dbpath && (rc = nd_xdb_open(&c.db, dbpath, ND_XDB_READ)) < 0) {
		tool_fail("fsck", rc, dbpath);
		goto cleanup;
	}
	if ((rc = nd_store_open(&st, storepath, ND_STORE_READ | ND_STORE_CHECK)) < 0 ||
	    (rc = nd_descriptor_load(&d, st, c.db)) < 0 || (rc = nd_store_read_begin(st, &c.txn)) < 0) {
		tool_fail("fsck", rc, storepath);
		goto cleanup;
	}
	c.d = d;
	if ((rc = nd_store_bit_postings(c.txn, &postings)) == ND_EVERSION) {
		tool_say("note: %s\n", nd_error_last());
		c.bits = 0;
	} else if (rc < 0) {
		tool_fail("fsck", rc, storepath);
		goto cleanup;
	}
	if ((rc = nd_store_near_deferred(c.txn)) == 1) {
		tool_say("note: the near-neighbour index is made at the end of a first signing, which has not "
		       "finished: run 'neardup sign'\n");
		c.near_ok = 0;
	}
	uint64_t ndocs = 0;
	tool_progress prog;
	if (rc >= 0)
		rc = nd_store_counts(c.txn, &ndocs, NULL);
	tool_progress_init(&prog, ndocs);
	c.prog = &prog;
	if (rc < 0 || (rc = nd_store_near_count(c.txn, &near)) < 0 || (rc = nd_store_docs_each(c.txn, on_record, &c)) < 0 ||
	    (rc = nd_store_keys_open(c.txn, &it)) < 0) {
		tool_fail("fsck", rc, storepath);
		goto cleanup;
	}
	tool_progress_end(&prog);
	/* The other direction: every cluster member carries the cluster's key. */
	while ((rc = nd_store_keys_next(it, &key, &count)) == 1) {
		nd_docid *m = NULL;
		size_t n = 0;
		if (nd_store_key_docs(c.txn, key, &m, &n) < 0 || n != count || n == 0)
			problem(&c, "cluster %016llx: %zu members listed, %zu found", (unsigned long long)key, count, n);
		for (size_t i = 0; i < n; i++) {
			uint64_t k;
			if (nd_store_doc_get(c.txn, m[i], &k, NULL, NULL) != ND_OK || k != key)
				problem(&c, "document %u: in cluster %016llx without that key", m[i], (unsigned long long)key);
		}
		members += n;
		free(m);
	}
	if (rc < 0) {
		tool_fail("fsck", rc, storepath);
		goto cleanup;
	}
	/* Every record's bits are posted; equal totals: nothing else is. */
	if (c.bits && postings != c.posted)
		problem(&c, "bit postings hold %llu entries but records have %llu bits",
			(unsigned long long)postings, (unsigned long long)c.posted);
	if (c.near_ok && near != c.near)
		problem(&c, "the near-neighbour index holds %llu entries but records call for %llu",
			(unsigned long long)near, (unsigned long long)c.near);
	if (members != c.keyed)
		problem(&c, "clusters hold %llu members but %llu records have a key",
			(unsigned long long)members, (unsigned long long)c.keyed);
	/* A feed window: a date a record; by arrival, every record dated (an
	 * undated one would never leave).  Dates kept through a 'build' wait
	 * for the next 'sign'. */
	nd_window win = ND_WINDOW_INIT;
	if (nd_window_get(st, &win) == ND_OK && win.seconds) {
		date_ctx dc = {&c, 0};
		uint64_t dated = 0;
		if ((rc = nd_store_dates_each(c.txn, 0, check_date, &dc)) < 0 ||
		    (rc = nd_store_dates_count(c.txn, &dated)) < 0) {
			tool_fail("fsck", rc, storepath);
			goto cleanup;
		}
		if (dc.orphans)
			tool_say("note: %llu dates of documents without a record (kept through 'neardup build'; "
				 "'neardup sign' signs those still in the window)\n", (unsigned long long)dc.orphans);
		if (win.slot == ND_WINDOW_ARRIVAL && dated - dc.orphans != c.records)
			problem(&c, "feed window by arrival: %llu of %llu records have no date and would never "
				"leave ('neardup update' dates them)",
				(unsigned long long)(c.records - (dated - dc.orphans)), (unsigned long long)c.records);
	}
	/* Links: each kept both ways, between two documents with records. */
	link_ctx lc = {&c, 0};
	if ((rc = nd_store_links_each(c.txn, check_link, &lc)) < 0) {
		tool_fail("fsck", rc, storepath);
		goto cleanup;
	}
	/* Unsettled links are a problem, not a note: collapsing and clusters
	 * read them. */
	int state = nd_store_links_state(c.txn);
	uint64_t journaled = 0;
	if (state < 0 || (state == ND_LINKS_JOURNAL && (rc = nd_store_journal_count(c.txn, &journaled)) < 0)) {
		tool_fail("fsck", state < 0 ? state : rc, storepath);
		goto cleanup;
	}
	if (state == ND_LINKS_REBUILD)
		problem(&c, "links are to be made again (a signing ran with --no-links, or was killed "
			"before it linked): until then collapsing folds verified equal-key groups only; "
			"'neardup update' makes them");
	else if (state == ND_LINKS_JOURNAL)
		problem(&c, "the links of %llu changed documents are not settled (a writer was killed, "
			"or is at work): the next writer settles them, or 'neardup update'",
			(unsigned long long)journaled);
	else if (c.db) {
		/* Settled: the links must be the rule's for these records,
		 * whatever made them. */
		uint64_t missing, extra, have;
		nd_store_txn_end(c.txn);
		c.txn = NULL;
		if ((rc = nd_links_check(c.db, st, NULL, &missing, &extra, &have)) < 0 ||
		    (rc = nd_store_read_begin(st, &c.txn)) < 0) {
			tool_fail("fsck", rc, storepath);
			goto cleanup;
		}
		if (missing || extra)
			problem(&c, "links: %llu pairs the copy verdict links are missing and %llu are linked "
				"that it does not (of %llu); 'neardup sign --restart' makes them again",
				(unsigned long long)missing, (unsigned long long)extra, (unsigned long long)have);
	}
	if (c.db) {
		int slot;
		size_t wrong;
		/* The collapse slot is state too: Xapian's collapsing must fold
		 * what the store says. */
		if ((rc = nd_collapse_slot_get(st, &slot)) < 0 ||
		    (slot >= 0 && (rc = nd_collapse_slot_audit(c.db, st, NULL, (unsigned)slot, 0, &wrong)) < 0)) {
			tool_fail("fsck", rc, storepath);
			goto cleanup;
		}
		if (slot >= 0 && wrong)
			problem(&c, "value slot %d: %zu documents have a missing, wrong or left-over collapse "
				"id (run 'neardup update' to rewrite them)", slot, wrong);
	}
	if (c.db) {
		uint32_t doccount;
		uint64_t wordless = 0;
		if (nd_xdb_doccount(c.db, &doccount) == ND_OK && doccount != c.records &&
		    count_wordless(c.db, doccount, &wordless) == ND_OK) {
			nd_window w = ND_WINDOW_INIT;
			if (nd_window_get(st, &w) == ND_OK && w.seconds)
				tool_say("note: %u documents in the database, %llu records: the store keeps a "
					 "feed window ('neardup update' prints it)\n", doccount,
					 (unsigned long long)c.records);
			else if (doccount - wordless != c.records)
				tool_say("note: %u documents in the database, %llu records (run 'neardup sign' or "
					 "'update')\n", doccount, (unsigned long long)c.records);
			if (wordless)
				tool_say("note: %llu documents of the database hold no words (notmuch's ghost "
					 "documents, empty pages): nothing to sign\n", (unsigned long long)wordless);
		}
	}
	tool_say("%s: %llu records, %llu keyed, %llu problem%s\n", storepath, (unsigned long long)c.records,
	       (unsigned long long)c.keyed, (unsigned long long)c.problems, c.problems == 1 ? "" : "s");
	ret = c.problems ? EXIT_ERR : EXIT_OK;
cleanup:
	nd_store_keys_free(it);
	nd_store_txn_end(c.txn);
	nd_descriptor_free(d);
	nd_store_close(st);
	nd_xdb_close(c.db);
	return ret;
}
