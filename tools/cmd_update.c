/* neardup update: apply every change since the store last saw the database. */
#include "tool.h"
#include "neardup/check.h"
#include "neardup/collapse.h"
#include "neardup/hook.h"

#include <getopt.h>
#include <unistd.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
	"usage: neardup update --db DIR --store DIR [OPTIONS]\n"
	"\n"
	"Find what changed in the database since the store last saw it (new\n"
	"documents, deleted ones, and re-indexed ones whose length or descriptive\n"
	"word counts differ) and apply it: each document's signature, its cluster\n"
	"membership and the verification caches of touched clusters change\n"
	"together.  Nothing else is re-clustered.  Prints each change with its\n"
	"verified near-duplicates and the cluster it is in (at copy, its documents\n"
	"not reported as duplicates too, by cluster).  For databases kept by omindex, scriptindex or\n"
	"any indexer that cannot call the library's nd_hook_changed, and to repair\n"
	"a store after a crash between a Xapian commit and a hook.  A database\n"
	"that xapian-compact renumbered (its first documents deleted) or\n"
	"copydatabase numbered from 1 (either without --no-renumber) is signed\n"
	"again under its new docids first.\n"
	"\n"
	"  --db DIR           Xapian database (opened writable only when the store\n"
	"                     keeps collapse ids in a value slot: sign --value-slot)\n"
	"  --store DIR        neardup store signed from it\n"
	"  --max-drift F      refuse once changes since 'neardup build' exceed this\n"
	"                     fraction of the documents it was built from (0.5;\n"
	"                     0 = no limit)\n"
	"  --point P          what counts as a duplicate (default copy), as 'neardup\n"
	"                     check --help' says; candidates are as check's: equal\n"
	"                     key and the near-neighbour index's\n"
	"  --tolerant J       candidates also among the documents whose descriptive\n"
	"                     bit sets have Jaccard >= J (0 < J <= 1) with the\n"
	"                     changed one's (0.5 as check)\n"
	"  --jobs N           threads reading postlists (default: the number of cores)\n"
	"  --block N          documents per store transaction (32768); each commits\n"
	"                     on its own, so a killed run keeps what it finished\n"
	"  --json             one JSON object per change\n"
	TOOL_WINDOW_HELP
	"  -q, --quiet        only the summary line\n"
	"  -h, --help         this text\n"
	"\n"
	"Exit status 1 with a 'stale' message when the drift limit stops it; the\n"
	"changes before that point are applied.  'neardup build' then re-signs.\n";

/* A cluster read for one change, kept for the next changes of its
 * members: an update that adds a thousand copies of a page reads their
 * cluster once, not a thousand times. */
typedef struct {
	nd_docid id;
	size_t size;
	nd_docid *members; /* all of them, ascending */
} upd_cluster;

/* Clusters kept at most (their members, summed): past it, forgotten. */
#define UPD_CACHED_MAX (1u << 20)

typedef struct {
	nd_xdb *db;
	nd_store *st;
	const nd_verify_options *vo;
	int json, quiet, rc;    /* rc: the first error reading a cluster */
	upd_cluster *cl;        /* clusters of two documents or more */
	size_t ncl, clcap, cached;
	uint32_t *slot;         /* open addressing: docid -> index into cl + 1 */
	size_t nslot;
} upd_ctx;

static void upd_forget(upd_ctx *c)
{
	for (size_t i = 0; i < c->ncl; i++)
		free(c->cl[i].members);
	free(c->cl), free(c->slot);
	c->cl = NULL, c->slot = NULL;
	c->ncl = c->clcap = c->cached = c->nslot = 0;
}

static size_t upd_hash(nd_docid d, size_t n)
{
	return (size_t)(d * 2654435761u) & (n - 1);
}

/* The kept cluster holding docid, or NULL. */
static const upd_cluster *upd_find(const upd_ctx *c, nd_docid docid)
{
	for (size_t h = c->nslot ? upd_hash(docid, c->nslot) : 0; c->nslot && c->slot[2 * h];
	     h = (h + 1) & (c->nslot - 1))
		if (c->slot[2 * h] == docid)
			return &c->cl[c->slot[2 * h + 1] - 1];
	return NULL;
}

/* Slot docid to kept cluster i (from 1) in slot[0..2 * nslot). */
static void upd_place(uint32_t *slot, size_t nslot, nd_docid docid, uint32_t i)
{
	size_t h = upd_hash(docid, nslot);
	while (slot[2 * h])
		h = (h + 1) & (nslot - 1);
	slot[2 * h] = docid, slot[2 * h + 1] = i;
}

/* Keep x (its members become the cache's); on no memory, only forgets. */
static void upd_keep(upd_ctx *c, upd_cluster *x)
{
	if (c->cached + x->size > UPD_CACHED_MAX)
		upd_forget(c);
	size_t need = 1;
	while (need < 2 * (c->cached + x->size))
		need <<= 1;
	if (c->ncl == c->clcap) {
		size_t cap = c->clcap ? 2 * c->clcap : 64;
		upd_cluster *p = realloc(c->cl, cap * sizeof(*p));
		if (!p) {
			free(x->members);
			return;
		}
		c->cl = p, c->clcap = cap;
	}
	if (need > c->nslot) { /* grow, and place every kept member again */
		uint32_t *s = calloc(2 * need, sizeof(*s));
		if (!s) {
			free(x->members);
			return;
		}
		free(c->slot);
		c->slot = s, c->nslot = need;
		for (size_t i = 0; i < c->ncl; i++)
			for (size_t k = 0; k < c->cl[i].size; k++)
				upd_place(s, need, c->cl[i].members[k], (uint32_t)i + 1);
	}
	c->cl[c->ncl++] = *x;
	c->cached += x->size;
	for (size_t k = 0; k < x->size; k++)
		upd_place(c->slot, c->nslot, x->members[k], (uint32_t)c->ncl);
}

/* The cluster of a changed document, kept or read; one of a single
 * document is not kept, and has no members. */
static int upd_cluster_of(upd_ctx *c, nd_docid docid, upd_cluster *x)
{
	const upd_cluster *k = upd_find(c, docid);
	size_t n;
	if (k) {
		*x = *k;
		return ND_OK;
	}
	*x = (upd_cluster){0, 0, NULL};
	int rc = nd_collapse_cluster(c->db, c->st, c->vo, docid, SIZE_MAX, &x->id, &x->size, &x->members, &n);
	if (rc < 0 || x->size < 2) {
		free(x->members);
		x->members = NULL;
		return rc;
	}
	x->size = n; /* all of them: SIZE_MAX asked */
	upd_keep(c, x);
	k = upd_find(c, docid);
	if (k)
		*x = *k;
	else
		*x = (upd_cluster){x->id, n, NULL}; /* forgotten at once: no memory */
	return ND_OK;
}

/* What r reported (its document and its duplicates), ascending, in *out
 * (caller frees); the count, or 0 without memory (then all is listed). */
static size_t reported_of(const nd_hook_result *r, nd_docid **out)
{
	if (!(*out = malloc((r->nduplicates + 1) * sizeof(**out))))
		return 0;
	(*out)[0] = r->docid;
	for (size_t i = 0; i < r->nduplicates; i++)
		(*out)[i + 1] = r->duplicates[i].docid;
	qsort(*out, r->nduplicates + 1, sizeof(**out), tool_cmp_docid);
	return r->nduplicates + 1;
}

static int reported(const nd_docid *rep, size_t n, nd_docid doc)
{
	return n && bsearch(&doc, rep, n, sizeof(*rep), tool_cmp_docid) != NULL;
}

static void on_walked(nd_docid done, nd_docid last, void *ctx)
{
	tool_progress *p = ctx;
	p->total = last;
	tool_progress_show(p, done, "compared documents up to docid %u of %u", done, last);
}

static void on_change(const nd_hook_result *r, void *vctx)
{
	upd_ctx *c = vctx;
	char key[17];
	upd_cluster x = {0, 0, NULL};
	if (c->quiet || c->rc < 0)
		return;
	/* The cluster it is in, and at copy those of it the hook did not report. */
	if (r->change != ND_CHANGE_DELETED && r->change != ND_CHANGE_EXPIRED &&
	    (c->rc = upd_cluster_of(c, r->docid, &x)) < 0) {
		tool_fail("update", c->rc, "a changed document's cluster");
		return;
	}
	int rest = c->vo->point == ND_POINT_COPY && x.members;
	nd_docid *rep = NULL;
	size_t nrep = rest ? reported_of(r, &rep) : 0, left = 0;
	/* Of the cluster, those not reported: its size less the reported in it. */
	for (size_t i = 0; rest && i < nrep; i++)
		left += bsearch(&rep[i], x.members, x.size, sizeof(*x.members), tool_cmp_docid) != NULL;
	left = rest ? x.size - left : 0;
	snprintf(key, sizeof(key), "%016llx", (unsigned long long)r->key);
	if (c->json) {
		json_t *jo = json_object(), *jd = json_array();
		json_object_set_new(jo, "docid", json_integer(r->docid));
		json_object_set_new(jo, "change", json_string(nd_change_name(r->change)));
		json_object_set_new(jo, "key", r->key ? json_string(key) : json_null());
		json_object_set_new(jo, "candidates", json_integer((json_int_t)r->candidates));
		json_object_set_new(jo, "cluster", x.id ? json_integer(x.id) : json_null());
		if (x.size)
			json_object_set_new(jo, "cluster_size", json_integer((json_int_t)x.size));
		for (size_t i = 0; i < r->nduplicates; i++) {
			json_t *m = json_object();
			json_object_set_new(m, "docid", json_integer(r->duplicates[i].docid));
			json_object_set_new(m, "distance", json_real(r->duplicates[i].distance));
			json_object_set_new(m, "by", json_string(tool_how_name(r->duplicates[i].how)));
			json_array_append_new(jd, m);
		}
		for (size_t i = 0, n = 0; rest && i < x.size && n < ND_CHECK_CLUSTER_LISTED; i++) {
			if (reported(rep, nrep, x.members[i]))
				continue;
			json_t *m = json_object();
			json_object_set_new(m, "docid", json_integer(x.members[i]));
			json_object_set_new(m, "distance", json_null());
			json_object_set_new(m, "by", json_string("cluster"));
			json_array_append_new(jd, m);
			n++;
		}
		json_object_set_new(jo, "duplicates", jd);
		json_dumpf(jo, stdout, JSON_COMPACT);
		putchar('\n');
		json_decref(jo);
		free(rep);
		return;
	}
	char *uid = NULL;
	if (r->change == ND_CHANGE_DELETED || nd_xdb_doc_uid(c->db, r->docid, &uid) < 0)
		uid = NULL;
	printf("%-9s %8u  %-40s", nd_change_name(r->change), r->docid, uid ? uid : "");
	if (r->change != ND_CHANGE_DELETED && r->change != ND_CHANGE_EXPIRED)
		printf(" key %s, %zu candidate%s, %zu duplicate%s", r->key ? key : "none", r->candidates,
		       r->candidates == 1 ? "" : "s", r->nduplicates, r->nduplicates == 1 ? "" : "s");
	if (x.size > 1)
		printf(", in cluster %u of %zu documents", x.id, x.size);
	putchar('\n');
	for (size_t i = 0; i < r->nduplicates; i++) {
		char *du = NULL;
		if (nd_xdb_doc_uid(c->db, r->duplicates[i].docid, &du) < 0)
			du = NULL;
		printf("          duplicate %8u  %-40s %.3f %s\n", r->duplicates[i].docid, du ? du : "",
		       r->duplicates[i].distance, tool_how_name(r->duplicates[i].how));
		free(du);
	}
	for (size_t i = 0, n = 0; rest && i < x.size; i++) {
		if (reported(rep, nrep, x.members[i]))
			continue;
		if (n == TOOL_CLUSTER_SHOWN && left > TOOL_CLUSTER_SHOWN + 1) {
			printf("          ... and %zu more of cluster %u\n", left - n, x.id);
			break;
		}
		char *du = NULL;
		if (nd_xdb_doc_uid(c->db, x.members[i], &du) < 0)
			du = NULL;
		printf("          duplicate %8u  %-40s -     cluster\n", x.members[i], du ? du : "");
		free(du);
		n++;
	}
	free(rep);
	free(uid);
}

int nd_cmd_update(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"db", required_argument, NULL, 'd'},
		{"store", required_argument, NULL, 's'},
		{"max-drift", required_argument, NULL, 'm'},
		{"block", required_argument, NULL, 'b'},
		{"jobs", required_argument, NULL, 'J'},
		{"tolerant", required_argument, NULL, 't'},
		{"point", required_argument, NULL, 'P'},
		{"json", no_argument, NULL, 'j'},
		{"window", required_argument, NULL, 'W'},
		{"date-slot", required_argument, NULL, 'D'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0}};
	nd_hook_options ho = ND_HOOK_OPTIONS_INIT;
	nd_sign_report rep = {0};
	const char *dbpath = NULL, *storepath = NULL;
	upd_ctx c = {NULL, NULL, NULL, 0, 0, ND_OK, NULL, 0, 0, 0, NULL, 0};
	nd_store *st = NULL;
	nd_hook *h = NULL;
	int opt, rc, slot, ret = EXIT_ERR;
	tool_window win = {0};

	ho.jobs = tool_default_jobs();
	optind = 1;
	while ((opt = getopt_long(argc, argv, "qh", longopts, NULL)) != -1) {
		int w = tool_window_option("update", opt, optarg, &win);
		if (w < 0)
			return EXIT_USAGE;
		if (w)
			continue;
		switch (opt) {
		case 'd': dbpath = optarg; break;
		case 's': storepath = optarg; break;
		case 'm': {
			if (tool_parse_finite(optarg, &ho.max_drift) || ho.max_drift < 0) {
				return tool_usage("update", "--max-drift needs a fraction >= 0, not '%s'", optarg);
			}
			break;
		}
		case 'b': {
			uint64_t v;
			if (tool_parse_u64(optarg, &v) || v == 0 || v > (1u << 24)) {
				return tool_usage("update", "--block needs 1..16777216, not '%s'", optarg);
			}
			ho.block_docs = (uint32_t)v;
			break;
		}
		case 'J':
			if (tool_parse_jobs("update", optarg, &ho.jobs))
				return EXIT_USAGE;
			break;
		case 't': {
			if (tool_parse_finite(optarg, &ho.tolerant) || !(ho.tolerant > 0 && ho.tolerant <= 1)) {
				return tool_usage("update", "--tolerant needs a bit-set Jaccard in (0, 1], not '%s'",
					optarg);
			}
			break;
		}
		case 'j': c.json = 1; break;
		case 'P':
			if (tool_parse_point("update", optarg, &ho.verify.point) < 0)
				return EXIT_USAGE;
			break;
		case 'q': c.quiet = 1; tool_quiet = 1; break;
		case 'h': fputs(usage_text, stdout); return EXIT_OK;
		default: return tool_usage("update", NULL);
		}
	}
	if (!dbpath || !storepath || optind < argc) {
		return tool_usage("update", "%s", optind < argc ? "unexpected argument" :
			"--db and --store are required");
	}
	if ((rc = nd_store_open(&st, storepath, ND_STORE_WRITE)) < 0 ||
	    (rc = nd_collapse_slot_get(st, &slot)) < 0) {
		tool_fail("update", rc, storepath);
		goto cleanup;
	}
	if ((rc = nd_xdb_open(&c.db, dbpath, slot >= 0 ? ND_XDB_WRITE : ND_XDB_READ)) < 0) {
		tool_fail("update", rc, dbpath);
		goto cleanup;
	}
	if ((opt = tool_window_apply("update", st, &win))) {
		ret = opt;
		goto cleanup;
	}
	tool_progress prog;
	tool_progress_init(&prog, 0);
	ho.progress = on_walked;
	ho.progress_ctx = &prog;
	if ((rc = nd_hook_open(&h, c.db, st, &ho)) == ND_EMISMATCH) {
		/* A database xapian-compact or copydatabase renumbered is
		 * signed again under its new docids; any other is refused as
		 * the hook refused it. */
		nd_sign_options so = ND_SIGN_OPTIONS_INIT;
		nd_sign_report sr = {0};
		so.restart = 1, so.jobs = ho.jobs, so.block_docs = ho.block_docs, so.max_drift = ho.max_drift;
		so.progress = tool_sign_progress, so.ctx = &prog;
		if ((rc = nd_sign_all(st, c.db, &so, &sr)) == ND_OK) {
			tool_progress_end(&prog);
			if (!c.quiet)
				fprintf(c.json ? stderr : stdout, "%s holds the store's documents under docids up "
					"to %u lower (renumbered): signed its %llu documents again under them\n", dbpath,
					sr.renumbered, (unsigned long long)sr.docs);
			rc = nd_hook_open(&h, c.db, st, &ho);
		}
	}
	if (rc < 0) {
		tool_fail("update", rc, storepath);
		goto cleanup;
	}
	c.st = st, c.vo = &ho.verify;
	rc = nd_hook_update(h, on_change, &c, &rep);
	tool_progress_end(&prog);
	if (rc == ND_OK && c.rc < 0)
		goto cleanup; /* reported: the changes are stored, their clusters not printed */
	if ((rc == ND_OK || rc == ND_ESTATE) && slot >= 0) {
		/* Slots of what was applied, even when the drift limit stopped it. */
		int crc = nd_xdb_commit(c.db);
		if (crc < 0)
			rc = crc;
	}
	if (rc < 0) {
		tool_fail("update", rc, storepath);
		goto cleanup;
	}
	fprintf(c.json ? stderr : stdout,
		"%llu added, %llu replaced, %llu deleted of %llu documents in %.3f s; "
		"drift since build %.1f%%",
		(unsigned long long)rep.added, (unsigned long long)rep.replaced,
		(unsigned long long)rep.deleted, (unsigned long long)rep.docs, rep.seconds,
		100 * rep.drift);
	if (rep.expired)
		fprintf(c.json ? stderr : stdout, "; %llu expired", (unsigned long long)rep.expired);
	if (rep.slot_repaired)
		fprintf(c.json ? stderr : stdout, "; %llu collapse values repaired in slot %d",
			(unsigned long long)rep.slot_repaired, slot);
	if (rep.recounted)
		fprintf(c.json ? stderr : stdout, "; the collection's common text counted again (grown by %.0f%% "
			"since%s), every link made again", 100 * ND_NEAR_RECOUNT,
			rep.recounted == 2 ? ", in links between distinct texts" : "");
	fputc('\n', c.json ? stderr : stdout);
	if (!c.json)
		tool_window_say("update", st, rep.expired, rep.undated);
	ret = EXIT_OK;
cleanup:
	upd_forget(&c);
	nd_hook_free(h);
	nd_store_close(st);
	nd_xdb_close(c.db);
	return ret;
}
