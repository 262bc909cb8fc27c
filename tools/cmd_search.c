/* neardup search: ranked search with near-duplicates collapsed. */
#include "tool.h"
#include "neardup/collapse.h"

#include <getopt.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
	"usage: neardup search --db DIR --store DIR [OPTIONS] QUERY...\n"
	"\n"
	"Search the database (Xapian query syntax: AND, OR, NOT, \"phrases\", prefix*;\n"
	"bare words are OR-ed, BM25 ranking) and collapse verified near-duplicates:\n"
	"each result shows how many were folded into it.\n"
	"\n"
	"  --db DIR          Xapian database\n"
	"  --store DIR       neardup store signed from it; for a sharded database (a\n"
	"                    stub listing local and remote shards) one per shard,\n"
	"                    and collapsing is by filter\n"
	"  --collapse MODE   native: Xapian collapses on the value slot written by\n"
	"                    'sign --value-slot' (exact pages and counts);\n"
	"                    filter: the ranked list is filtered through the store\n"
	"                    (works on a read-only index); tolerant: filtered\n"
	"                    too, but a result also folds into a better-ranked one\n"
	"                    whose bit set has Jaccard >= 0.5 with its own, when\n"
	"                    verified (for web pages, whose keys often differ in a\n"
	"                    bit; one store); none.  Default: native when the\n"
	"                    store keeps a slot, else filter\n"
	"  --limit N         results per page (10)\n"
	"  --offset N        skip this many (collapsed) results (0)\n"
	"  --depth N         matches looked at for collapsing and counts (1000)\n"
	"  --max-query-terms N  refuse queries of more terms (1000; wildcards expand\n"
	"                    to the most frequent this many): Xapian's matcher\n"
	"                    takes time quadratic in them\n"
	"  --stemmer LANG    stem query words in a Snowball language, or none, as\n"
	"                    quest's -s does (stemming some terms, under Z)\n"
	"  --prefix FIELD:PREFIX  FIELD:word searches PREFIXword (repeatable; quest -p)\n"
	"  --boolean-prefix FIELD:PREFIX  FIELD:value filters on PREFIXvalue\n"
	"                    (repeatable; quest -b)\n"
	"                    Without any of these: as the database was indexed where\n"
	"                    its terms say so (Z terms, as omindex writes: English\n"
	"                    and Omega's title:S author:A topic:B), else no\n"
	"                    stemming and no fields\n"
	"  --json            one JSON object for the page\n"
	"  -q, --quiet       no summary line, only the results\n"
	"  -h, --help        this text\n";

static int parse_mode(const char *s, nd_collapse_mode *m)
{
	if (!strcmp(s, "native"))
		*m = ND_COLLAPSE_NATIVE;
	else if (!strcmp(s, "filter"))
		*m = ND_COLLAPSE_FILTER;
	else if (!strcmp(s, "tolerant"))
		*m = ND_COLLAPSE_TOLERANT;
	else if (!strcmp(s, "none"))
		*m = ND_COLLAPSE_NONE;
	else
		return -1;
	return 0;
}

static const char *mode_name(nd_collapse_mode m)
{
	return m == ND_COLLAPSE_NATIVE ? "native" : m == ND_COLLAPSE_FILTER ? "filter" :
	       m == ND_COLLAPSE_TOLERANT ? "tolerant" : "none";
}

/* "caption=" from omega-style document data, else the unique id. */
static char *label_of(nd_xdb *db, nd_docid docid)
{
	char *data = NULL, *out = NULL;
	size_t len;
	if (nd_xdb_doc_data(db, docid, &data, &len) == ND_OK) {
		for (char *line = data; line && *line;) {
			char *nl = strchr(line, '\n');
			if (nl)
				*nl = '\0';
			if (!strncmp(line, "caption=", 8) && line[8]) {
				out = strdup(line + 8);
				break;
			}
			line = nl ? nl + 1 : NULL;
		}
		free(data);
	}
	if (!out && nd_xdb_doc_uid(db, docid, &out) < 0)
		out = NULL;
	return out;
}

/* One search's options. */
#define MAX_PREFIXES 64

typedef struct {
	const char *dbpath, *storepath, *stores[ND_MAX_SHARD_STORES];
	size_t nst;
	nd_collapse_mode mode;
	int mode_given, json;
	uint64_t limit, offset, depth, max_terms;
	const char *stemmer;
	const char *prefix[MAX_PREFIXES], *boolean_prefix[MAX_PREFIXES];
	size_t nprefix, nboolean;
} search_args;

/* The options into a: -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, search_args *a)
{
	static const struct option longopts[] = {
		{"db", required_argument, NULL, 'd'},
		{"store", required_argument, NULL, 's'},
		{"collapse", required_argument, NULL, 'c'},
		{"limit", required_argument, NULL, 'l'},
		{"offset", required_argument, NULL, 'o'},
		{"depth", required_argument, NULL, 'D'},
		{"max-query-terms", required_argument, NULL, 'T'},
		{"stemmer", required_argument, NULL, 'S'},
		{"prefix", required_argument, NULL, 'p'},
		{"boolean-prefix", required_argument, NULL, 'b'},
		{"json", no_argument, NULL, 'j'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0}};
	uint64_t *target;
	int opt;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "hq", longopts, NULL)) != -1) {
		switch (opt) {
		case 'd': a->dbpath = optarg; break;
		case 's':
			if (a->nst == ND_MAX_SHARD_STORES) {
				return tool_usage("search", "at most %d --store", ND_MAX_SHARD_STORES);
			}
			a->storepath = a->stores[a->nst++] = optarg;
			break;
		case 'c':
			if (parse_mode(optarg, &a->mode)) {
				return tool_usage("search", "--collapse is native, filter, tolerant or none, not '%s'", optarg);
			}
			a->mode_given = 1;
			break;
		case 'l': case 'o': case 'D':
			target = opt == 'l' ? &a->limit : opt == 'o' ? &a->offset : &a->depth;
			if (tool_parse_u64(optarg, target) || *target > 1000000 || (opt != 'o' && *target == 0)) {
				return tool_usage("search", "--%s needs a number up to 1000000%s, not '%s'",
					opt == 'l' ? "limit" : opt == 'o' ? "offset" : "depth",
					opt == 'o' ? "" : " (not 0)", optarg);
			}
			break;
		case 'T':
			if (tool_parse_u64(optarg, &a->max_terms) || a->max_terms == 0 || a->max_terms > 1000000) {
				return tool_usage("search", "--max-query-terms needs 1..1000000, not '%s'", optarg);
			}
			break;
		case 'S': a->stemmer = optarg; break;
		case 'p': case 'b':
			if (!strchr(optarg, ':'))
				return tool_usage("search", "--%s needs FIELD:PREFIX, not '%s'",
						  opt == 'p' ? "prefix" : "boolean-prefix", optarg);
			if ((opt == 'p' ? a->nprefix : a->nboolean) == MAX_PREFIXES)
				return tool_usage("search", "at most %d of each kind of prefix", MAX_PREFIXES);
			if (opt == 'p')
				a->prefix[a->nprefix++] = optarg;
			else
				a->boolean_prefix[a->nboolean++] = optarg;
			break;
		case 'j': a->json = 1; break;
		case 'q': tool_quiet = 1; break;
		case 'h': fputs(usage_text, stdout); return EXIT_OK;
		default: return tool_usage("search", NULL);
		}
	}
	if (!a->dbpath || !a->storepath || optind >= argc) {
		return tool_usage("search", "%s", optind >= argc ? "no QUERY given" :
			"--db and --store are required");
	}
	return -1;
}

/* The words after the options, joined by spaces (caller frees). */
static char *join_query(int argc, char **argv)
{
	size_t qlen = 0;
	for (int i = optind; i < argc; i++)
		qlen += strlen(argv[i]) + 1;
	char *query = calloc(qlen + 1, 1);
	for (int i = optind; query && i < argc; i++) {
		strcat(query, argv[i]);
		if (i + 1 < argc)
			strcat(query, " ");
	}
	return query;
}

/* The query as messages show it: its first 60 bytes. */
static const char *shown(const char *query, char *buf, size_t cap)
{
	if (strlen(query) <= 60)
		return query;
	snprintf(buf, cap, "%.60s...", query);
	return buf;
}

static void print_hits(nd_xdb *db, const search_args *a, const char *query, const nd_xdb_hit *hits, size_t n,
		       uint32_t estimated, double ms)
{
	json_t *jo = a->json ? json_object() : NULL, *jr = a->json ? json_array() : NULL;
	char buf[80];
	if (!a->json)
		tool_say("%zu results for '%s' (about %u matches, collapse %s, %.1f ms)\n"
		       "rank    docid  weight folded  document\n", n, shown(query, buf, sizeof(buf)), estimated,
		       mode_name(a->mode), ms);
	for (size_t i = 0; i < n; i++) {
		char *label = label_of(db, hits[i].docid);
		if (a->json) {
			json_t *h = json_object();
			json_object_set_new(h, "rank", json_integer((json_int_t)(a->offset + i + 1)));
			json_object_set_new(h, "docid", json_integer(hits[i].docid));
			json_object_set_new(h, "weight", json_real(hits[i].weight));
			json_object_set_new(h, "collapsed", json_integer(hits[i].collapsed));
			json_object_set_new(h, "label", label ? json_string(label) : json_null());
			json_array_append_new(jr, h);
		} else {
			char folded[16] = "";
			if (hits[i].collapsed)
				snprintf(folded, sizeof(folded), "+%u", hits[i].collapsed);
			printf("%4llu %8u %7.3f %6s  %s\n", (unsigned long long)(a->offset + i + 1),
			       hits[i].docid, hits[i].weight, folded, label ? label : "");
		}
		free(label);
	}
	if (a->json) {
		json_object_set_new(jo, "query", json_string(query));
		json_object_set_new(jo, "collapse", json_string(mode_name(a->mode)));
		json_object_set_new(jo, "estimated", json_integer(estimated));
		json_object_set_new(jo, "ms", json_real(ms));
		json_object_set_new(jo, "results", jr);
		json_dumpf(jo, stdout, JSON_COMPACT);
		putchar('\n');
		json_decref(jo);
	}
}

int nd_cmd_search(int argc, char **argv)
{
	search_args a = {NULL, NULL, {NULL}, 0, ND_COLLAPSE_NONE, 0, 0, 10, 0, 1000, ND_XDB_MAX_QUERY_TERMS, NULL, {NULL}, {NULL}, 0, 0};
	nd_shards *sh = NULL;
	nd_xdb *db = NULL;
	nd_store *st = NULL;
	nd_xdb_hit *hits = NULL;
	char *query = NULL;
	size_t n = 0;
	uint32_t estimated = 0;
	int rc, ret, slot;

	if ((ret = parse_args(argc, argv, &a)) >= 0)
		return ret;
	ret = EXIT_ERR;
	if (!(query = join_query(argc, argv)) || !(hits = malloc(a.limit * sizeof(*hits)))) {
		tool_fail("search", ND_ENOMEM, "query");
		goto cleanup;
	}
	if ((rc = nd_xdb_open(&db, a.dbpath, ND_XDB_READ)) < 0) {
		tool_fail("search", rc, a.dbpath);
		goto cleanup;
	}
	nd_xdb_set_max_query_terms(db, (uint32_t)a.max_terms);
	if ((a.stemmer || a.nprefix || a.nboolean) &&
	    (rc = nd_xdb_set_query_parser(db, a.stemmer ? a.stemmer : "none", a.prefix, a.nprefix,
					  a.boolean_prefix, a.nboolean)) < 0) {
		tool_fail("search", rc, a.dbpath);
		ret = rc == ND_EINVAL ? EXIT_USAGE : EXIT_ERR;
		goto cleanup;
	}
	if (a.nst > 1) {
		if (a.mode_given && (a.mode == ND_COLLAPSE_NATIVE || a.mode == ND_COLLAPSE_TOLERANT)) {
			fprintf(stderr, "neardup search: --collapse %s needs one database and store; "
				"over shards, collapsing is by filter\n", mode_name(a.mode));
			ret = EXIT_USAGE;
			goto cleanup;
		}
		if ((rc = nd_shards_open(&sh, db, a.stores, a.nst)) < 0) {
			tool_fail("search", rc, a.dbpath);
			goto cleanup;
		}
		if (!a.mode_given)
			a.mode = ND_COLLAPSE_FILTER;
		for (size_t i = 0; i < nd_shards_stores(sh); i++)
			tool_links_warn("search", nd_shards_store(sh, i));
	} else {
		if ((rc = nd_store_open(&st, a.storepath, ND_STORE_READ)) < 0 ||
		    (rc = nd_collapse_slot_get(st, &slot)) < 0) {
			tool_fail("search", rc, a.storepath);
			goto cleanup;
		}
		if (!a.mode_given)
			a.mode = slot >= 0 ? ND_COLLAPSE_NATIVE : ND_COLLAPSE_FILTER;
		if (a.mode != ND_COLLAPSE_NONE)
			tool_links_warn("search", st);
	}
	double t0 = tool_now();
	if (sh && a.mode == ND_COLLAPSE_FILTER)
		rc = nd_search_shards(db, sh, query, (uint32_t)a.offset, (uint32_t)a.limit, (uint32_t)a.depth, hits,
				      &n, &estimated);
	else
		rc = nd_search(db, st, query, a.mode, (uint32_t)a.offset, (uint32_t)a.limit, (uint32_t)a.depth, hits,
			       &n, &estimated);
	double ms = (tool_now() - t0) * 1000;
	if (rc < 0) {
		char buf[80];
		tool_fail("search", rc, shown(query, buf, sizeof(buf)));
		goto cleanup;
	}
	print_hits(db, &a, query, hits, n, estimated, ms);
	ret = EXIT_OK;
cleanup:
	free(query);
	free(hits);
	nd_store_close(st);
	nd_shards_close(sh);
	nd_xdb_close(db);
	return ret;
}
