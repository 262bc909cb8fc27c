/* neardup clusters: the clusters of every signed document at a point. */
#include "tool.h"
#include "neardup/cluster.h"
#include "neardup/collapse.h"
#include "neardup/shards.h"

#include <getopt.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
	"usage: neardup clusters --db DIR --store DIR [--point P] [OPTIONS]\n"
	"\n"
	"The clusters of every signed document at a point, largest first:\n"
	"  copy    (default) what collapsing folds: a document and those the copy\n"
	"          verdict calls copies of it (the same text with small edits, in\n"
	"          another template, cut short or with comments added), reached\n"
	"          through the links to near neighbours; links do not chain two\n"
	"          texts that are not copies into one cluster\n"
	"  strict  practically the same text (word Levenshtein <= 8%): documents\n"
	"          linked to a near neighbour at that point, and theirs in turn\n"
	"  story   the same story retold: average linkage over the near neighbours'\n"
	"          word 3-shingle resemblance, joined while the mean is >= 0.08\n"
	"\n"
	"  --db DIR         Xapian database the store was signed from (required)\n"
	"  --store DIR      neardup store (required)\n"
	"  --point P        copy, strict or story (default copy)\n"
	"  --min-size N     list clusters of at least N documents (default 2)\n"
	"  --limit N        list at most N clusters (default all)\n"
	"  --jobs N         threads reading words and scoring (default: the cores)\n"
	"  --of DOC         only the copy cluster DOC is in (a unique id, as index\n"
	"                   and omindex write it, or a docid), read from the store's\n"
	"                   links: a document's copies without clustering the rest\n"
	"  --json           one JSON object on stdout, each cluster on a line of its own\n"
	"  -q, --quiet      no progress and no summary line, only the clusters\n"
	"  -h, --help       this text\n"
	"\n"
	"Expert options:\n"
	"  --cut F          story: join while the mean resemblance is >= F (0.08)\n"
	"  --complete N     story: score the missing pairs of large tentative\n"
	"                   clusters, at most N a document (64; 0: the index's only)\n"
	"  --keys           the method's raw candidates instead: documents with equal\n"
	"                   signatures, unverified; with one --store per shard of a\n"
	"                   sharded --db (a stub), merged across shards\n";

typedef struct {
	const char *dbpath, *stores[ND_MAX_SHARD_STORES], *of;
	size_t nst;
	uint64_t min_size, limit;
	int json, keys, cut_set, complete_set;
	nd_point point;
	nd_clusters_options co;
} args_t;

/* The options into a: -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, args_t *a)
{
	static const struct option longopts[] = {
		{"db", required_argument, NULL, 'd'},
		{"store", required_argument, NULL, 's'},
		{"point", required_argument, NULL, 'P'},
		{"min-size", required_argument, NULL, 'm'},
		{"limit", required_argument, NULL, 'l'},
		{"jobs", required_argument, NULL, 'J'},
		{"cut", required_argument, NULL, 'c'},
		{"complete", required_argument, NULL, 'C'},
		{"keys", no_argument, NULL, 'k'},
		{"of", required_argument, NULL, 'o'},
		{"json", no_argument, NULL, 'j'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0}};
	uint64_t v;
	int c, point_set = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "hq", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': a->dbpath = optarg; break;
		case 's':
			if (a->nst == ND_MAX_SHARD_STORES)
				return tool_usage("clusters", "at most %d --store", ND_MAX_SHARD_STORES);
			a->stores[a->nst++] = optarg;
			break;
		case 'P':
			if (tool_parse_point("clusters", optarg, &a->point) < 0)
				return EXIT_USAGE;
			point_set = 1;
			break;
		case 'm':
			if (tool_parse_u64(optarg, &a->min_size) || a->min_size < 1)
				return tool_usage("clusters", "--min-size needs a number >= 1, not '%s'", optarg);
			break;
		case 'l':
			if (tool_parse_u64(optarg, &a->limit))
				return tool_usage("clusters", "--limit needs a number, not '%s'", optarg);
			break;
		case 'J':
			if (tool_parse_jobs("clusters", optarg, &a->co.jobs))
				return EXIT_USAGE;
			break;
		case 'c':
			if (tool_parse_finite(optarg, &a->co.cut) || !(a->co.cut > 0 && a->co.cut <= 1))
				return tool_usage("clusters", "--cut needs a mean resemblance in (0, 1], not '%s'", optarg);
			a->cut_set = 1;
			break;
		case 'C':
			if (tool_parse_u64(optarg, &v) || v > 4096)
				return tool_usage("clusters", "--complete needs pairs a document, 0..4096, not '%s'",
						  optarg);
			a->co.complete = (unsigned)v;
			a->complete_set = 1;
			break;
		case 'k': a->keys = 1; break;
		case 'o':
			if (!*optarg)
				return tool_usage("clusters", "--of needs a document's unique id or docid");
			a->of = optarg;
			break;
		case 'j': a->json = 1; break;
		case 'q': tool_quiet = 1; break;
		case 'h': fputs(usage_text, stdout); return EXIT_OK;
		default: return tool_usage("clusters", NULL);
		}
	}
	if (optind < argc)
		return tool_usage("clusters", "unexpected argument '%s'", argv[optind]);
	if (!a->nst || (!a->dbpath && !a->keys))
		return tool_usage("clusters", "--db and --store are required");
	if ((a->cut_set || a->complete_set) && (a->keys || a->point != ND_POINT_STORY))
		return tool_usage("clusters", "--%s is story's: add --point story", a->cut_set ? "cut" : "complete");
	if (a->keys && point_set)
		return tool_usage("clusters", "--keys lists candidates, not a point's clusters: give one or the other");
	if (a->of && (a->keys || a->point != ND_POINT_COPY || a->nst > 1))
		return tool_usage("clusters", "--of reads the copy point's clusters of one store: no --keys, "
			"--point or second --store");
	if (a->nst > 1 && !a->keys)
		return tool_usage("clusters", "a point's clusters need one store (over shards: --keys)");
	if (a->nst > 1 && !a->dbpath)
		return tool_usage("clusters", "several --store need --db, the stub combining their shards");
	return -1;
}

/* Groups as listed: each a run of order[] from start, largest first. */
typedef struct {
	size_t start, size;
} group;

static int cmp_group(const void *x, const void *y)
{
	const group *a = x, *b = y;
	if (a->size != b->size)
		return a->size > b->size ? -1 : 1;
	return a->start < b->start ? -1 : a->start > b->start;
}

typedef struct {
	nd_docid *docs;    /* docs[order[g.start + k]] is member k of group g */
	size_t *order, n;
	group *g;
	size_t ng, in_groups;
} listing;

static void listing_free(listing *l)
{
	free(l->docs);
	free(l->order);
	free(l->g);
}

/* From docs[0..n) and into[] (each document's first member): the groups
 * of at least min_size, each in docid order (a counting sort by first
 * member, stable), largest first. */
static int group_by(listing *l, nd_docid *docs, size_t *into, size_t n, uint64_t min_size)
{
	size_t *size = calloc(n + 1, sizeof(*size)), *at = malloc((n + 1) * sizeof(*at)), acc = 0;
	int rc = ND_OK;
	l->docs = docs, l->n = n;
	if (!size || !at || !(l->order = malloc((n + 1) * sizeof(*l->order))) ||
	    !(l->g = malloc((n + 1) * sizeof(*l->g)))) {
		rc = nd_error_set(ND_ENOMEM, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < n; i++)
		size[into[i]]++;
	for (size_t f = 0; f < n; f++) {
		at[f] = acc;
		if (size[f] >= min_size && size[f]) {
			l->g[l->ng++] = (group){acc, size[f]};
			l->in_groups += size[f];
		}
		acc += size[f];
	}
	for (size_t i = 0; i < n; i++)
		l->order[at[into[i]]++] = i;
	if (l->ng > 1)
		qsort(l->g, l->ng, sizeof(*l->g), cmp_group);
done:
	free(size);
	free(at);
	return rc;
}

/* --of: the cluster of one document, given by its unique id or docid, as
 * a listing of one group of any size. */
static int of_cluster(nd_xdb *db, nd_store *st, const args_t *a, listing *l, uint64_t *signed_docs)
{
	nd_docid doc = 0, id, *members = NULL;
	size_t size, n;
	uint64_t v;
	nd_store_txn *txn;
	int rc = nd_xdb_find_uid(db, a->of, &doc);
	if (rc == ND_ENOTFOUND && !tool_parse_u64(a->of, &v) && v && v <= UINT32_MAX)
		doc = (nd_docid)v, rc = ND_OK;
	if (rc == ND_ENOTFOUND)
		return nd_error_set(ND_ENOTFOUND, "no document with that unique id or docid in %s", a->dbpath);
	if (rc < 0 || (rc = nd_collapse_cluster(db, st, NULL, doc, SIZE_MAX, &id, &size, &members, &n)) < 0)
		return rc;
	if (!id)
		return nd_error_set(ND_ENOTFOUND, "docid %u has no record in store %s (not signed, or deleted)", doc,
				    a->stores[0]);
	size_t *into = calloc(n + 1, sizeof(*into));
	if (!into) {
		free(members);
		return nd_error_set(ND_ENOMEM, "out of memory");
	}
	rc = group_by(l, members, into, n, 1); /* the listing owns members */
	free(into);
	if (rc == ND_OK && (rc = nd_store_read_begin(st, &txn)) == ND_OK) {
		rc = nd_store_counts(txn, signed_docs, NULL);
		nd_store_txn_end(txn);
	}
	return rc;
}

/* Equal keys (--keys): every key of at least min_size documents, over the
 * stores (their docids the combined database's when sharded). */
static int key_groups(nd_xdb *db, args_t *a, nd_store *const *sts, const nd_shards *sh, listing *l,
		      uint64_t *signed_docs)
{
	nd_docid *docs = NULL;
	size_t *into = NULL, n = 0, cap = 0;
	int rc = ND_OK;
	(void)db;
	for (size_t s = 0; s < a->nst && rc == ND_OK; s++) {
		nd_store_txn *txn[ND_MAX_SHARD_STORES] = {NULL}, *own;
		nd_store_keys *it = NULL;
		uint64_t key, docs_here;
		size_t size;
		if ((rc = nd_store_read_begin(sts[s], &own)) < 0)
			break;
		if ((rc = nd_store_counts(own, &docs_here, NULL)) == ND_OK)
			rc = nd_store_keys_open(own, &it);
		*signed_docs += docs_here;
		while (rc == ND_OK && (rc = nd_store_keys_next(it, &key, &size)) == 1) {
			nd_docid *m = NULL;
			size_t nm = 0;
			rc = ND_OK;
			if (size < a->min_size && !sh)
				continue;
			/* A key spanning shards is listed once, from the first shard holding it. */
			int first = 1;
			for (size_t e = 0; e < s && first && sh; e++) {
				size_t sz;
				nd_docid *mm = NULL;
				nd_store_txn *t2;
				if ((rc = nd_store_read_begin(sts[e], &t2)) < 0)
					break;
				rc = nd_store_key_docs(t2, key, &mm, &sz);
				nd_store_txn_end(t2);
				first = rc == ND_OK && sz == 0;
				free(mm);
			}
			if (rc < 0 || !first)
				continue;
			for (size_t e = 0; e < a->nst && rc == ND_OK; e++)
				rc = nd_store_read_begin(sts[e], &txn[e]);
			if (rc == ND_OK)
				rc = sh ? nd_shards_key_docs(sh, txn, key, &m, &nm) : nd_store_key_docs(own, key, &m, &nm);
			for (size_t e = 0; e < a->nst; e++)
				nd_store_txn_end(txn[e]), txn[e] = NULL;
			if (rc == ND_OK && nm >= a->min_size) {
				if (n + nm > cap) {
					cap = 2 * (n + nm) + 1024;
					nd_docid *p = realloc(docs, cap * sizeof(*docs));
					docs = p ? p : docs;
					size_t *q = p ? realloc(into, cap * sizeof(*into)) : NULL;
					into = q ? q : into;
					if (!q)
						rc = nd_error_set(ND_ENOMEM, "out of memory");
				}
				for (size_t k = 0; rc == ND_OK && k < nm; k++)
					docs[n + k] = m[k], into[n + k] = n;
				n += rc == ND_OK ? nm : 0;
			}
			free(m);
		}
		if (rc == 0)
			rc = ND_OK;
		nd_store_keys_free(it);
		nd_store_txn_end(own);
	}
	if (rc == ND_OK)
		rc = group_by(l, docs, into, n, a->min_size);
	else
		free(docs);
	free(into);
	return rc;
}

static char *uid_of(nd_xdb *db, nd_docid docid)
{
	char *uid = NULL;
	if (!db || nd_xdb_doc_uid(db, docid, &uid) < 0)
		uid = NULL; /* deleted since signing, or no id term */
	return uid;
}

static void print(nd_xdb *db, const args_t *a, const listing *l, uint64_t signed_docs, const char *from, double s,
		  const nd_clusters_report *rep)
{
	const char *point = a->keys ? "keys" : nd_point_name(a->point);
	json_t *out = NULL;
	if (a->json) {
		out = json_object();
		json_object_set_new(out, "point", json_string(point));
		json_object_set_new(out, "documents_signed", json_integer((json_int_t)signed_docs));
		json_object_set_new(out, "clusters_total", json_integer((json_int_t)l->ng));
		json_object_set_new(out, "documents_in_clusters", json_integer((json_int_t)l->in_groups));
		json_object_set_new(out, "min_size", json_integer((json_int_t)a->min_size));
		json_object_set_new(out, "from", json_string(from));
		if (!a->keys && !rep->from_links) {
			json_t *p = json_object();
			json_object_set_new(p, "candidates", json_integer((json_int_t)rep->near.candidates));
			json_object_set_new(p, "scored", json_integer((json_int_t)rep->near.pairs));
			json_object_set_new(p, "linked", json_integer((json_int_t)rep->near.linked));
			json_object_set_new(p, "completed", json_integer((json_int_t)rep->near.completed));
			json_object_set_new(out, "pairs", p);
		}
		json_object_set_new(out, "seconds", json_real(s));
		if (a->of)
			json_object_set_new(out, "of", json_string(a->of));
	} else if (a->of)
		; /* the one cluster asked for: no summary */
	else if (a->keys)
		tool_say("%zu clusters of >= %llu documents with equal signatures (candidates, unverified), "
			 "holding %zu of %llu signed documents\n", l->ng, (unsigned long long)a->min_size,
			 l->in_groups, (unsigned long long)signed_docs);
	else
		tool_say("%zu clusters of >= %llu documents at the %s point, holding %zu of %llu signed documents "
			 "(%s, %.1f s)\n", l->ng, (unsigned long long)a->min_size, point, l->in_groups,
			 (unsigned long long)signed_docs, from, s);
	if (a->json) {
		/* Written a cluster at a time, one a line: a tree of every
		 * document first held 600 MB at a million documents. */
		char *head = json_dumps(out, JSON_INDENT(1));
		size_t len = head ? strlen(head) : 0;
		if (len && head[len - 1] == '}') /* the object left open */
			head[--len] = '\0';
		while (len && head[len - 1] == '\n')
			head[--len] = '\0';
		printf("%s%s\n \"clusters\": [", head ? head : "{", head ? "," : "");
		free(head);
		json_decref(out);
	}
	for (size_t k = 0; k < l->ng && k < a->limit; k++) {
		json_t *jdocs = a->json ? json_array() : NULL;
		/* Its id, its smallest docid (members are listed ascending): at
		 * copy the collapse id, which check names as the cluster a page
		 * joins. */
		nd_docid id = l->docs[l->order[l->g[k].start]];
		if (!a->json)
			printf("%scluster %u: %zu document%s\n", a->of ? "" : "\n", id, l->g[k].size,
			       l->g[k].size == 1 ? "" : "s");
		for (size_t m = 0; m < l->g[k].size; m++) {
			nd_docid d = l->docs[l->order[l->g[k].start + m]];
			char *uid = uid_of(db, d);
			if (a->json) {
				json_t *jd = json_object();
				json_object_set_new(jd, "docid", json_integer(d));
				json_object_set_new(jd, "id", uid ? json_string(uid) : json_null());
				json_array_append_new(jdocs, jd);
			} else
				printf("  %8u  %s\n", d, uid ? uid : db ? "(no id)" : "");
			free(uid);
		}
		if (a->json) {
			json_t *jc = json_object();
			json_object_set_new(jc, "id", json_integer(id));
			json_object_set_new(jc, "size", json_integer((json_int_t)l->g[k].size));
			json_object_set_new(jc, "documents", jdocs);
			printf("%s\n  ", k ? "," : "");
			json_dumpf(jc, stdout, JSON_COMPACT);
			json_decref(jc);
		}
	}
	if (a->json)
		printf("\n ]\n}\n");
}

static void on_progress(const char *stage, size_t done, size_t n, void *ctx)
{
	tool_progress *p = ctx;
	if (n)
		tool_progress_show(p, done, "%s: %zu of %zu documents", stage, done, n);
	else
		tool_progress_show(p, done, "%s: %zu pairs", stage, done);
}

int nd_cmd_clusters(int argc, char **argv)
{
	args_t a = {0};
	nd_xdb *db = NULL;
	nd_store *st = NULL;
	nd_shards *sh = NULL;
	nd_store *sts[ND_MAX_SHARD_STORES] = {NULL};
	listing l = {0};
	nd_clusters_report rep;
	uint64_t signed_docs = 0;
	const char *from;
	int rc, ret;

	memset(&rep, 0, sizeof(rep));
	a.min_size = 2;
	a.limit = UINT64_MAX;
	a.point = ND_POINT_COPY;
	a.co = (nd_clusters_options)ND_CLUSTERS_OPTIONS_INIT;
	a.co.jobs = tool_default_jobs();
	if ((ret = parse_args(argc, argv, &a)) >= 0)
		return ret;
	ret = EXIT_ERR;
	if (a.dbpath && (rc = nd_xdb_open(&db, a.dbpath, ND_XDB_READ)) < 0) {
		tool_fail("clusters", rc, a.dbpath);
		goto cleanup;
	}
	if (a.nst > 1) {
		if ((rc = nd_shards_open(&sh, db, a.stores, a.nst)) < 0) {
			tool_fail("clusters", rc, a.dbpath);
			goto cleanup;
		}
		for (size_t i = 0; i < a.nst; i++)
			sts[i] = nd_shards_store(sh, i);
	} else {
		if ((rc = nd_store_open(&st, a.stores[0], ND_STORE_READ)) < 0) {
			tool_fail("clusters", rc, a.stores[0]);
			goto cleanup;
		}
		sts[0] = st;
	}
	double t0 = tool_now();
	if (a.of) {
		rc = of_cluster(db, st, &a, &l, &signed_docs);
		rep.from_links = 1;
		from = "from the store's links";
	} else if (a.keys) {
		from = "keys";
		rc = key_groups(db, &a, sts, sh, &l, &signed_docs);
	} else {
		nd_docid *docs;
		size_t *into, n;
		tool_progress prog;
		tool_progress_init(&prog, 0);
		a.co.progress = on_progress;
		a.co.ctx = &prog;
		rc = nd_clusters(db, st, a.point, &a.co, &docs, &into, &n, &rep);
		tool_progress_end(&prog);
		if (rc == ND_OK) {
			signed_docs = n;
			rc = group_by(&l, docs, into, n, a.min_size);
			free(into);
		}
		from = rep.from_links ? "from the store's links" : "from the near-neighbour index";
	}
	if (rc < 0) {
		tool_fail("clusters", rc, a.of ? a.of : a.stores[0]);
		goto cleanup;
	}
	print(db, &a, &l, signed_docs, a.json ? (a.keys ? "keys" : rep.from_links ? "links" : "index") : from,
	      tool_now() - t0, &rep);
	ret = EXIT_OK;
cleanup:
	listing_free(&l);
	nd_store_close(st);
	nd_shards_close(sh);
	nd_xdb_close(db);
	return ret;
}
