/* neardup check: the cluster an unindexed document would join. */
#include "tool.h"
#include "neardup/window.h"
#include "neardup/check.h"
#include "neardup/indexer.h"

#include <getopt.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static const char usage_text[] =
	"usage: neardup check --db DIR --store DIR [OPTIONS] FILE... | -\n"
	"\n"
	"For documents not yet indexed, compute the signature indexing would give\n"
	"them and list the verified near-duplicates already in the database; at\n"
	"copy, also the rest of the cluster they would join.\n"
	"FILE is .txt, .html/.htm or .jsonl (one {\"id\",\"text\"} per line); '-' reads\n"
	"standard input in the --format given.\n"
	"\n"
	"  --db DIR           Xapian database (built by 'neardup index')\n"
	"  --store DIR        neardup store signed from it; for a sharded database\n"
	"                     (a stub listing local and remote shards) one --store\n"
	"                     per shard, each matched to its shard by database UUID\n"
	"  --format F         text, html or jsonl, for standard input (default text)\n"
	"  --content MODE     of HTML: main or full, as the database was indexed\n"
	"                     (default main, as 'neardup index')\n"
	TOOL_POINT_HELP
	"  --max-distance F   strict's bound on normalized word Levenshtein (0.08)\n"
	"  --compare N        compare with at most N candidates (default 16)\n"
	"  --tolerant J       candidates are the documents with an equal key and the\n"
	"                     input's neighbours in the store's near-neighbour index\n"
	"                     (at most 80); with J also those whose descriptive bit\n"
	"                     sets have Jaccard >= J with the input's (e.g. 0.5);\n"
	"                     equal keys first, then the most similar by bits or by\n"
	"                     the descriptive words held (MinHash agreement)\n"
	"  --max-doc-mb N     refuse a file, standard input or JSONL line larger\n"
	"                     than N MiB (default 64, as 'neardup index')\n"
	"  --window D         compare only with documents dated within D (24h, 90m,\n"
	"                     7d) of the newest the store holds (a store with a feed\n"
	"                     window: 'neardup update --window')\n"
	"  --json             one JSON object per input document (\"cluster\": the\n"
	"                     collapse id of the cluster the page would join;\n"
	"                     \"cluster_size\": its documents; at copy those the\n"
	"                     verdict refused or did not compare are members\n"
	"                     \"by\": \"cluster\", up to 1000 of them)\n"
	"  -q, --quiet        accepted for uniformity: check prints only results\n"
	"  -h, --help         this text\n"
	"\n"
	"Exit status 0 also when duplicates are found; 1 on errors.\n";

typedef struct {
	nd_tokenizer *tk;
	nd_descriptor *d;
	nd_xdb *db;
	nd_store *st;
	nd_verify_options vo;
	size_t compare;
	int json;
	nd_content content;
	double tolerant;   /* 0: exact key */
	nd_shards *sh;     /* several stores: one per shard of a combined db */
	size_t max_bytes;  /* --max-doc-mb: of a file, of standard input, of a JSONL line */
} ctx_t;

/* Whether r compared doc (a few dozen members: a scan). */
static int compared(const nd_check_result *r, nd_docid doc)
{
	for (size_t i = 0; i < r->nmembers; i++)
		if (r->members[i].docid == doc)
			return 1;
	return 0;
}

static int check_one(ctx_t *c, const char *name, const char *text, size_t len)
{
	nd_check_result r = ND_CHECK_RESULT_INIT;
	int rc = c->sh ? nd_check_text_shards(c->tk, c->sh, c->db, text, len, c->tolerant, &c->vo, c->compare, &r)
		 : c->tolerant > 0 ? nd_check_text_tolerant(c->tk, c->d, c->db, c->st, text, len, c->tolerant,
							   &c->vo, c->compare, &r)
				   : nd_check_text(c->tk, c->d, c->db, c->st, text, len, &c->vo, c->compare, &r);
	if (rc < 0) {
		tool_fail("check", rc, name);
		nd_check_result_clear(&r);
		return rc;
	}
	/* The cluster the page would join (one store; over shards clusters
	 * are per shard), and at copy the rest of it. */
	nd_docid cluster = 0, *held = NULL;
	size_t nheld = 0, csize = 0;
	if (!c->sh &&
	    (rc = nd_check_cluster(c->db, c->st, &c->vo, &r, c->json ? ND_CHECK_CLUSTER_LISTED : SIZE_MAX, &cluster, &csize,
				   &held, &nheld)) < 0) {
		tool_fail("check", rc, name);
		nd_check_result_clear(&r);
		return rc;
	}
	json_t *jo = c->json ? json_object() : NULL, *jm = c->json ? json_array() : NULL;
	char key[17];
	snprintf(key, sizeof(key), "%016llx", (unsigned long long)r.sig.key);
	if (c->json) {
		json_object_set_new(jo, "input", json_string(name));
		json_object_set_new(jo, "bits", json_integer(r.sig.nbits));
		json_object_set_new(jo, "key", r.sig.key ? json_string(key) : json_null());
		json_object_set_new(jo, "point", json_string(nd_point_name(c->vo.point)));
		json_object_set_new(jo, "candidates", json_integer((json_int_t)r.cluster_size));
		json_object_set_new(jo, "duplicates", json_integer((json_int_t)r.duplicates));
		json_object_set_new(jo, "cluster", cluster ? json_integer(cluster) : json_null());
		if (csize)
			json_object_set_new(jo, "cluster_size", json_integer((json_int_t)csize));
	} else {
		printf("%s: %u bits, key %s, %zu candidate%s, %zu duplicate%s (%s)", name, r.sig.nbits,
		       r.sig.key ? key : "none", r.cluster_size, r.cluster_size == 1 ? "" : "s", r.duplicates,
		       r.duplicates == 1 ? "" : "s", nd_point_name(c->vo.point));
		if (cluster)
			printf(", joins cluster %u", cluster);
		if (csize)
			printf(" of %zu document%s", csize, csize == 1 ? "" : "s");
		putchar('\n');
	}
	for (size_t i = 0; i < r.nmembers; i++) {
		char *uid = NULL;
		const nd_check_member *x = &r.members[i];
		/* Refused, yet in the cluster the text joins: a duplicate by it,
		 * as clusters, collapsing and hooks hold it. */
		int by_cluster = !x->duplicate && nheld && bsearch(&x->docid, held, nheld, sizeof(*held), tool_cmp_docid);
		if (nd_xdb_doc_uid(c->db, x->docid, &uid) < 0)
			uid = NULL;
		if (c->json) {
			json_t *m = json_object();
			json_object_set_new(m, "docid", json_integer(x->docid));
			if (uid)
				json_object_set_new(m, "id", json_string(uid));
			json_object_set_new(m, "distance", json_real(x->distance));
			json_object_set_new(m, "measure", json_string(tool_how_name(x->how)));
			json_object_set_new(m, "duplicate", json_boolean(x->duplicate || by_cluster));
			if (x->duplicate || by_cluster)
				json_object_set_new(m, "by", json_string(by_cluster ? "cluster" : tool_how_name(x->how)));
			json_object_set_new(m, "jaccard", json_real(x->jaccard));
			json_array_append_new(jm, m);
		} else
		{
			/* A refused Levenshtein stopped at the bound: a lower bound. */
			int over = !x->duplicate && x->how == ND_VERIFIED_LEVENSHTEIN;
			printf("  %8u  %-40s %s %s%.3f %-11s bits %.2f\n", x->docid, uid ? uid : "(no id)",
			       x->duplicate || by_cluster ? "duplicate" : "differs  ", over ? ">" : " ", x->distance,
			       by_cluster ? "cluster" : x->duplicate ? tool_how_name(x->how) : "", x->jaccard);
		}
		free(uid);
	}
	/* The rest of the cluster: those not compared. */
	for (size_t i = 0, shown = 0; i < nheld; i++) {
		char *uid = NULL;
		if (compared(&r, held[i]))
			continue;
		if (!c->json && shown++ == TOOL_CLUSTER_SHOWN) {
			size_t more = 0;
			for (size_t j = i; j < nheld; j++)
				more += !compared(&r, held[j]);
			if (more > 1) {
				printf("  ... and %zu more of cluster %u\n", more, cluster);
				break;
			}
		}
		if (nd_xdb_doc_uid(c->db, held[i], &uid) < 0)
			uid = NULL;
		if (c->json) {
			json_t *m = json_object();
			json_object_set_new(m, "docid", json_integer(held[i]));
			if (uid)
				json_object_set_new(m, "id", json_string(uid));
			json_object_set_new(m, "distance", json_null());
			json_object_set_new(m, "measure", json_string("cluster"));
			json_object_set_new(m, "duplicate", json_true());
			json_object_set_new(m, "by", json_string("cluster"));
			json_object_set_new(m, "jaccard", json_null());
			json_array_append_new(jm, m);
		} else
			printf("  %8u  %-40s duplicate  -     cluster\n", held[i], uid ? uid : "(no id)");
		free(uid);
	}
	free(held);
	if (c->json) {
		json_object_set_new(jo, "members", jm);
		json_dumpf(jo, stdout, JSON_COMPACT);
		putchar('\n');
		json_decref(jo);
	}
	nd_check_result_clear(&r);
	return ND_OK;
}

/* JSONL as `neardup index` reads it, each line bounded by --max-doc-mb. */
static int check_jsonl(ctx_t *c, FILE *f, const char *name)
{
	nd_jsonl *r;
	nd_jsonl_record rec;
	int failed = 0, got, rc;
	if ((rc = nd_jsonl_open(&r, f, name, c->max_bytes)) < 0)
		return tool_fail("check", rc, name), -1;
	while ((got = nd_jsonl_next(r, &rec)) != 0) {
		char label[512];
		if (got < 0) {
			tool_fail("check", got, name);
			failed = 1;
			if (got == ND_EIO || got == ND_ENOMEM)
				break;
			continue;
		}
		snprintf(label, sizeof(label), "%s:%zu:%s", name, rec.line, rec.id);
		failed |= check_one(c, label, rec.text, rec.text_len) < 0;
	}
	nd_jsonl_close(r);
	return failed ? -1 : 0;
}

static int check_input(ctx_t *c, const char *path, const char *format)
{
	const char *n = strrchr(path, '.');
	int rc, fd = 0;
	if (strcmp(path, "-"))
		format = n && !strcasecmp(n, ".jsonl") ? "jsonl" :
			 n && (!strcasecmp(n, ".html") || !strcasecmp(n, ".htm")) ? "html" : "text";
	if (!strcmp(format, "jsonl")) {
		FILE *f = stdin;
		if (strcmp(path, "-") && ((rc = nd_input_open(path, &fd)) < 0 || !(f = fdopen(fd, "rb")))) {
			if (rc == ND_OK)
				close(fd);
			return tool_fail("check", rc < 0 ? rc : ND_EIO, path), -1;
		}
		rc = check_jsonl(c, f, path);
		if (f != stdin)
			fclose(f);
		return rc;
	}
	char *data = NULL, *text = NULL;
	size_t len = 0, tlen;
	if ((rc = tool_read_input(path, c->max_bytes, &data, &len)) < 0)
		return tool_fail("check", rc, path), -1;
	if (!strcmp(format, "html")) {
		if ((rc = nd_html_text(data, len, path, c->content, &text, &tlen)) < 0)
			tool_fail("check", rc, path);
		else
			rc = check_one(c, path, text, tlen);
		free(text);
	} else
		rc = check_one(c, path, data, len);
	free(data);
	return rc < 0 ? -1 : 0;
}

/* --window D: candidates dated within D of the newest date any store
 * holds; a store without dates cannot say. */
static int within(ctx_t *c, uint64_t window, const char *storepath)
{
	uint64_t newest = 0;
	size_t n = c->sh ? nd_shards_stores(c->sh) : 1;
	for (size_t i = 0; i < n; i++) {
		nd_store *st = c->sh ? nd_shards_store(c->sh, i) : c->st;
		uint64_t clock, from;
		int rc = nd_window_clock(st, &clock, &from);
		if (rc < 0)
			return tool_fail("check", rc, nd_store_path(st)), -1;
		if (clock > newest)
			newest = clock;
	}
	if (!newest) {
		fprintf(stderr, "neardup check: %s: --window needs dated documents, and the store has none: "
			"give it a feed window first ('neardup update --window D [--date-slot N]')\n", storepath);
		return -1;
	}
	c->vo.since = newest > window ? newest - window : 0;
	return 0;
}

int nd_cmd_check(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"db", required_argument, NULL, 'd'},
		{"store", required_argument, NULL, 's'},
		{"format", required_argument, NULL, 'f'},
		{"content", required_argument, NULL, 'C'},
		{"max-distance", required_argument, NULL, 'D'},
		{"point", required_argument, NULL, 'P'},
		{"compare", required_argument, NULL, 'c'},
		{"json", no_argument, NULL, 'j'},
		{"tolerant", required_argument, NULL, 't'},
		{"max-doc-mb", required_argument, NULL, 'M'},
		{"window", required_argument, NULL, 'W'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0}};
	const char *dbpath = NULL, *storepath = NULL, *format = "text", *stores[ND_MAX_SHARD_STORES];
	size_t nstores = 0;
	ctx_t c = {NULL, NULL, NULL, NULL, ND_VERIFY_OPTIONS_INIT, ND_CHECK_COMPARE, 0, ND_CONTENT_MAIN, 0, NULL, (size_t)64 << 20};
	uint64_t v, window = 0;
	int opt, rc, ret = EXIT_ERR, failed = 0;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "hq", longopts, NULL)) != -1) {
		switch (opt) {
		case 'd': dbpath = optarg; break;
		case 's':
			if (nstores == ND_MAX_SHARD_STORES) {
				return tool_usage("check", "at most %d --store", ND_MAX_SHARD_STORES);
			}
			storepath = stores[nstores++] = optarg;
			break;
		case 'C':
			if (tool_parse_content(optarg, &c.content) < 0) {
				return tool_usage("check", "--content is main or full, not '%s'", optarg);
			}
			break;
		case 'f':
			if (strcmp(optarg, "text") && strcmp(optarg, "html") && strcmp(optarg, "jsonl")) {
				return tool_usage("check", "--format is text, html or jsonl, not '%s'", optarg);
			}
			format = optarg;
			break;
		case 'D': {
			if (tool_parse_finite(optarg, &c.vo.max_distance) || c.vo.max_distance < 0 ||
			    c.vo.max_distance >= 1) {
				return tool_usage("check", "--max-distance needs a fraction in [0, 1)");
			}
			break;
		}
		case 'P':
			if (tool_parse_point("check", optarg, &c.vo.point) < 0)
				return EXIT_USAGE;
			break;
		case 'c':
			if (tool_parse_u64(optarg, &v) || v == 0) {
				return tool_usage("check", "--compare needs a positive number");
			}
			c.compare = (size_t)v;
			break;
		case 'j': c.json = 1; break;
		case 'M':
			if (tool_parse_u64(optarg, &v) || v == 0 || v > 4096) {
				return tool_usage("check", "--max-doc-mb needs 1..4096, not '%s'", optarg);
			}
			c.max_bytes = (size_t)v << 20;
			break;
		case 't': {
			if (tool_parse_finite(optarg, &c.tolerant) || !(c.tolerant > 0 && c.tolerant <= 1)) {
				return tool_usage("check", "--tolerant needs a bit-set Jaccard in (0, 1], not '%s'",
					optarg);
			}
			break;
		}
		case 'W':
			if (nd_duration_parse(optarg, &window) < 0)
				return tool_usage("check", "--window needs a duration such as 24h, 90m or 7d, not '%s'",
						  optarg);
			break;
		case 'q': tool_quiet = 1; break;
		case 'h': fputs(usage_text, stdout); return EXIT_OK;
		default: return tool_usage("check", NULL);
		}
	}
	if (!dbpath || !storepath || optind >= argc) {
		return tool_usage("check", "%s", optind >= argc ? "no FILE or '-' given" :
			"--db and --store are required");
	}
	if ((rc = nd_xdb_open(&c.db, dbpath, ND_XDB_READ)) < 0) {
		tool_fail("check", rc, dbpath);
		goto cleanup;
	}
	if (nstores > 1) {
		if ((rc = nd_shards_open(&c.sh, c.db, stores, nstores)) < 0) {
			tool_fail("check", rc, dbpath);
			goto cleanup;
		}
	} else if ((rc = nd_store_open(&c.st, storepath, ND_STORE_READ)) < 0 ||
		   (rc = nd_descriptor_load(&c.d, c.st, c.db)) < 0) {
		tool_fail("check", rc, storepath);
		goto cleanup;
	}
	if ((rc = nd_tokenizer_new(&c.tk)) < 0) {
		tool_fail("check", rc, "tokenizer");
		goto cleanup;
	}
	if (window && within(&c, window, storepath) < 0)
		goto cleanup;
	tool_links_warn("check", c.st); /* the cluster a page joins is read from the links */
	for (size_t i = 0; c.sh && i < nd_shards_stores(c.sh); i++)
		tool_links_warn("check", nd_shards_store(c.sh, i));
	for (int i = optind; i < argc; i++)
		failed |= check_input(&c, argv[i], format) < 0;
	ret = failed ? EXIT_ERR : EXIT_OK;
cleanup:
	nd_tokenizer_free(c.tk);
	nd_shards_close(c.sh);
	nd_descriptor_free(c.d);
	nd_store_close(c.st);
	nd_xdb_close(c.db);
	return ret;
}
