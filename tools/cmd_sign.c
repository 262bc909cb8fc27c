/* neardup sign: sign documents from the postlists into the store. */
#include "tool.h"
#include "neardup/cluster.h"
#include "neardup/collapse.h"
#include "neardup/descriptor.h"

#include <stdlib.h>
#include <string.h>

#include <getopt.h>
#include <unistd.h>

static const char usage_text[] =
	"usage: neardup sign --db DIR --store DIR [OPTIONS]\n"
	"\n"
	"Sign every document not yet signed (all, with --restart) by walking the\n"
	"postlists of the store's descriptive words; no document text is read.\n"
	"Then link the copies: near neighbours whose texts the copy verdict\n"
	"accepts are linked, and the links, split where they chain (each cluster\n"
	"a centre and its copies), are the store's clusters and collapse ids.\n"
	"An interrupted run resumes where it stopped,\n"
	"and the links come out the same whatever path made the records.\n"
	"\n"
	"  --db DIR           Xapian database the set was built from (required)\n"
	"  --store DIR        neardup store (required)\n"
	"  --restart          drop all signatures and sign from the first document;\n"
	"                     follows a database whose docids xapian-compact moved\n"
	"                     down (it renumbers when the first documents were\n"
	"                     deleted) or copydatabase numbered from 1 (either\n"
	"                     unless given --no-renumber)\n"
	"  --no-links         skip linking: collapsing then folds verified equal-key\n"
	"                     groups only, until the next writer (update, a hook, sign)\n"
	"                     makes the links\n"
	"  --block N          documents per block and per store transaction\n"
	"                     (default 32768)\n"
	"  --jobs N           threads reading postlists (default: the number of cores);\n"
	"                     one writer; the records are the same for any N\n"
	"  --max-drift F      refuse to sign past this drift since 'neardup build' (0.5;\n"
	"                     0 = no limit): documents added after it count\n"
	"  --value-slot N     keep each document's collapse id (smallest docid of its\n"
	"                     cluster) in Xapian value slot N, for 'neardup search\n"
	"                     --collapse native'; hooks and 'update' keep it from then\n"
	"                     on, and a later sign keeps the store's slot without this\n"
	"                     option.  Another N moves the ids (the old slot's values\n"
	"                     are removed); 'none' stops keeping them.  Keeping a slot\n"
	"                     opens the database writable\n"
	TOOL_WINDOW_HELP
	"  -q, --quiet        no progress and no summary, only errors\n"
	"  -h, --help         this text\n";

typedef struct {
	nd_docid *docs;
	size_t n, cap;
} doc_list;

static int add_doc(uint32_t docid, uint64_t key, const void *payload, size_t len, void *vctx)
{
	doc_list *l = vctx;
	(void)key;
	(void)payload;
	(void)len;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 1024;
		nd_docid *p = realloc(l->docs, cap * sizeof(*p));
		if (!p)
			return nd_error_set(ND_ENOMEM, "out of memory");
		l->docs = p;
		l->cap = cap;
	}
	l->docs[l->n++] = docid;
	return 0;
}

static void on_links_progress(const char *stage, size_t done, size_t n, void *ctx)
{
	tool_progress *p = ctx;
	if (n)
		tool_progress_show(p, done, "links, %s: %zu of %zu documents", stage, done, n);
	else
		tool_progress_show(p, done, "links, %s: %zu candidate pairs", stage, done);
}

/* What one settling of the links did, said. */
static void say_links(const nd_links_report *lr, double t0)
{
	if (lr->recounted == 2)
		tool_say("links: the links made between distinct texts since the collection's common text was "
			 "counted grew by %.0f%% of those it made: counted again, %llu verified pairs (copy "
			 "point) in %.3f s\n",
			 100 * ND_NEAR_RECOUNT, (unsigned long long)lr->links, tool_now() - t0);
	else if (lr->recounted && lr->counted)
		tool_say("links: the collection grew by %.0f%% of the %llu documents its common text was "
			 "counted over: counted again, %llu verified pairs (copy point) in %.3f s\n",
			 100 * ND_NEAR_RECOUNT, (unsigned long long)lr->counted, (unsigned long long)lr->links,
			 tool_now() - t0);
	else if (lr->recounted)
		tool_say("links: the collection's common text counted again (the store did not say what it "
			 "was counted over), %llu verified pairs (copy point) in %.3f s\n",
			 (unsigned long long)lr->links, tool_now() - t0);
	else if (lr->rebuilt)
		tool_say("links: %llu verified pairs (copy point) in %.3f s\n", (unsigned long long)lr->links,
			 tool_now() - t0);
	else if (lr->changed)
		tool_say("links: %llu changed documents settled, %llu links made, %llu unmade, in %.3f s\n",
			 (unsigned long long)lr->changed, (unsigned long long)lr->added,
			 (unsigned long long)lr->removed, tool_now() - t0);
	if (lr->rebuilt) /* the common text counted again, its sites with it */
		tool_say("sites: %llu by host, %llu by frame, %llu pages in them; %llu shingles their templates\n",
			 (unsigned long long)lr->sites, (unsigned long long)lr->frame_sites,
			 (unsigned long long)lr->site_pages, (unsigned long long)lr->template_shingles);
}

/* The copy point's links, those of the records now (nd_links_settle):
 * the store's clusters and collapse ids.  The links settling made may be
 * what makes the count due (documents that share text signed together),
 * so it asks again, as update does. */
static int link_all(nd_xdb *db, nd_store *st, unsigned jobs)
{
	nd_near_options no = ND_NEAR_OPTIONS_INIT;
	nd_links_report lr;
	tool_progress prog;
	double t0 = tool_now();
	tool_progress_init(&prog, 0);
	no.jobs = jobs;
	no.recount = ND_NEAR_RECOUNT;
	no.progress = on_links_progress;
	no.ctx = &prog;
	int rc = nd_links_settle(db, st, &no, &lr, NULL, NULL);
	if (rc == ND_OK && !lr.rebuilt && lr.changed) {
		say_links(&lr, t0);
		t0 = tool_now();
		rc = nd_links_settle(db, st, &no, &lr, NULL, NULL);
	}
	tool_progress_end(&prog);
	if (rc < 0) {
		tool_fail("sign", rc, nd_store_path(st));
		return rc;
	}
	say_links(&lr, t0);
	return ND_OK;
}

/* Collapse ids of every signed document into the slot, then commit. */
static int write_slot(nd_xdb *db, nd_store *st, int slot)
{
	doc_list l = {NULL, 0, 0};
	nd_store_txn *txn;
	size_t written = 0;
	double t0 = tool_now();
	int rc;
	if ((rc = nd_collapse_slot_move(db, st, slot)) < 0 || (rc = nd_store_read_begin(st, &txn)) < 0) {
		free(l.docs);
		tool_fail("sign", rc, "--value-slot");
		return rc;
	}
	rc = nd_store_docs_each(txn, add_doc, &l);
	nd_store_txn_end(txn);
	if (rc == ND_OK)
		rc = nd_collapse_write_slot(db, st, NULL, (unsigned)slot, l.docs, l.n, &written);
	if (rc == ND_OK)
		rc = nd_xdb_commit(db);
	free(l.docs);
	if (rc < 0) {
		tool_fail("sign", rc, nd_xdb_path(db));
		return rc;
	}
	tool_say("value slot %d: collapse ids of %zu documents checked, %zu rewritten, in %.3f s\n",
	       slot, l.n, written, tool_now() - t0);
	return ND_OK;
}

int nd_cmd_sign(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"db", required_argument, NULL, 'd'},
		{"store", required_argument, NULL, 's'},
		{"restart", no_argument, NULL, 'r'},
		{"no-links", no_argument, NULL, 'L'},
		{"block", required_argument, NULL, 'b'},
		{"jobs", required_argument, NULL, 'j'},
		{"max-drift", required_argument, NULL, 'm'},
		{"value-slot", required_argument, NULL, 'v'},
		{"window", required_argument, NULL, 'W'},
		{"date-slot", required_argument, NULL, 'D'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0}};
	nd_sign_options o = ND_SIGN_OPTIONS_INIT;
	nd_sign_report rep;
	const char *dbpath = NULL, *storepath = NULL;
	nd_xdb *db = NULL;
	nd_store *st = NULL;
	nd_store_txn *txn = NULL;
	tool_progress prog;
	uint64_t v, docs = 0, keys = 0;
	int no_links = 0;
	int c, rc, ret = EXIT_ERR, slot = -1, slot_req = -1, slot_given = 0, kept = -1;
	tool_window win = {0};

	o.jobs = tool_default_jobs();
	optind = 1;
	while ((c = getopt_long(argc, argv, "hq", longopts, NULL)) != -1) {
		int w = tool_window_option("sign", c, optarg, &win);
		if (w < 0)
			return EXIT_USAGE;
		if (w)
			continue;
		switch (c) {
		case 'd': dbpath = optarg; break;
		case 's': storepath = optarg; break;
		case 'r': o.restart = 1; break;
		case 'L': no_links = 1; break;
		case 'b':
			if (tool_parse_u64(optarg, &v) || v == 0 || v > (1u << 24)) {
				return tool_usage("sign", "--block needs 1..16777216, not '%s'", optarg);
			}
			o.block_docs = (uint32_t)v;
			break;
		case 'j':
			if (tool_parse_jobs("sign", optarg, &o.jobs))
				return EXIT_USAGE;
			break;
		case 'm': {
			if (tool_parse_finite(optarg, &o.max_drift) || o.max_drift < 0) {
				return tool_usage("sign", "--max-drift needs a fraction >= 0, not '%s'", optarg);
			}
			break;
		}
		case 'v':
			if (!strcmp(optarg, "none"))
				slot_req = -1;
			else if (tool_parse_u64(optarg, &v) || v >= 0x7fffffff) {
				return tool_usage("sign", "--value-slot needs a slot number or 'none', not '%s'",
					optarg);
			} else
				slot_req = (int)v;
			slot_given = 1;
			break;
		case 'q': tool_quiet = 1; break;
		case 'h': fputs(usage_text, stdout); return EXIT_OK;
		default: return tool_usage("sign", NULL);
		}
	}
	if (!dbpath || !storepath || optind < argc) {
		return tool_usage("sign", "%s", optind < argc ? "unexpected argument" :
			"--db and --store are required");
	}
	/* The store first: a slot it keeps is kept, so the database opens
	 * writable (and a sign beside another writer of it fails, as it must:
	 * the ids of new documents would be missing). */
	if ((rc = nd_store_open(&st, storepath, ND_STORE_WRITE)) < 0 || (rc = nd_collapse_slot_get(st, &kept)) < 0) {
		tool_fail("sign", rc, storepath);
		goto cleanup;
	}
	slot = slot_given ? slot_req : kept;
	if ((rc = nd_xdb_open(&db, dbpath, slot >= 0 || kept >= 0 ? ND_XDB_WRITE : ND_XDB_READ)) < 0) {
		tool_fail("sign", rc, dbpath);
		goto cleanup;
	}
	if ((c = tool_window_apply("sign", st, &win))) {
		ret = c;
		goto cleanup;
	}
	tool_progress_init(&prog, 0);
	o.progress = tool_sign_progress;
	o.ctx = &prog;
	rc = nd_sign_all(st, db, &o, &rep);
	tool_progress_end(&prog);
	if (rc < 0) {
		tool_fail("sign", rc, storepath);
		goto cleanup;
	}
	if (rep.renumbered)
		tool_say("%s holds the store's documents under docids up to %u lower (renumbered): the "
			 "store follows it now\n", dbpath, rep.renumbered);
	if (rep.docs == 0)
		tool_say("nothing to sign: every document up to docid %u is signed "
		       "(--restart signs all again)\n", rep.to);
	else
		tool_say("signed %llu documents (docids %u..%u) in %.3f s: %.0f docs/s, %.1fM postings/s; "
		       "%llu with a key, %llu with <= %d bits (no key)\n",
		       (unsigned long long)rep.docs, rep.from, rep.to, rep.seconds,
		       rep.seconds > 0 ? rep.docs / rep.seconds : 0.0,
		       rep.seconds > 0 ? rep.postings / rep.seconds / 1e6 : 0.0,
		       (unsigned long long)rep.keyed, (unsigned long long)rep.unkeyed, ND_MIN_BITS - 1);
	if (rep.unkeyed)
		tool_say("  the %llu without a key are found through their text's near-neighbour keys%s\n",
			 (unsigned long long)rep.unkeyed, rep.no_words ? " (those with a word sequence)" : "");
	/* What a database without positions or text costs: said every time. */
	if (rep.no_words)
		fprintf(stderr, "neardup sign: warning: %llu documents of %s have no word sequence (no "
			"positions, no text in their data): no verdict can call them duplicates, and "
			"those without a key have no candidates\n", (unsigned long long)rep.no_words, dbpath);
	if (rep.docs) {
		char *uid = NULL;
		if (nd_xdb_doc_uid(db, rep.from, &uid) == ND_ENOTFOUND && nd_xdb_doc_uid(db, rep.to, &uid) == ND_ENOTFOUND)
			fprintf(stderr, "neardup sign: warning: documents of %s have no unique-id term (Q or U, or the "
				"store's --uid-prefix): clusters and checks name them by docid, which compaction "
				"keeps but a rebuilt database does not\n", dbpath);
		free(uid);
	}
	if (rep.words_from_data)
		fprintf(stderr, "neardup sign: warning: %llu documents of %s have no positions: their "
			"words were read from their document data, which may hold only their start, so "
			"copies that differ further on can look alike (index with positions)\n",
			(unsigned long long)rep.words_from_data, dbpath);
	if ((rc = nd_store_read_begin(st, &txn)) < 0 || (rc = nd_store_counts(txn, &docs, &keys)) < 0) {
		tool_fail("sign", rc, storepath);
		goto cleanup;
	}
	tool_say("store: %llu documents signed, %llu distinct keys\n",
	       (unsigned long long)docs, (unsigned long long)keys);
	tool_window_say("sign", st, rep.expired, rep.undated);
	nd_store_txn_end(txn);
	txn = NULL;
	if (!no_links && link_all(db, st, o.jobs) < 0)
		goto cleanup;
	if (slot < 0 && kept >= 0) {
		if ((rc = nd_collapse_slot_move(db, st, -1)) < 0) {
			tool_fail("sign", rc, dbpath);
			goto cleanup;
		}
		tool_say("value slot %d: collapse ids removed; no slot is kept now\n", kept);
	}
	if (slot >= 0 && write_slot(db, st, slot) < 0)
		goto cleanup;
	ret = EXIT_OK;
cleanup:
	nd_store_txn_end(txn);
	nd_store_close(st);
	nd_xdb_close(db);
	return ret;
}
