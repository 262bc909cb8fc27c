/* neardup clusters: candidate duplicate clusters from the store. */
#include "tool.h"
#include "neardup/collapse.h"
#include "neardup/descriptor.h"
#include "neardup/shards.h"
#include "neardup/verify.h"
#include "neardup/cluster.h"

#include <getopt.h>
#include <unistd.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
	"usage: neardup clusters --store DIR [--db DIR] [OPTIONS]\n"
	"\n"
	"List documents with equal signatures (candidate near-duplicates), largest\n"
	"cluster first.  With --db, documents are shown by their unique id (the Q\n"
	"term, or omindex's U term) and the store is checked against the database.\n"
	"\n"
	"  --store DIR      neardup store (required); for a sharded database (a stub\n"
	"                   listing local and remote shards, given as --db) one\n"
	"                   --store per shard: clusters merge across shards by key\n"
	"  --db DIR         Xapian database, for document ids\n"
	"  --min-size N     smallest cluster shown (default 2)\n"
	"  --limit N        show at most N clusters (default all)\n"
	"  --verify         cross-check members by normalized word Levenshtein\n"
	"                   (needs --db) and split clusters into verified groups\n"
	"  --point P        what counts as a duplicate (default copy; see 'neardup\n"
	"                   check --help'): the verdict of --verify and --tolerant;\n"
	"                   alone, the point's clusters: strict, --verify; copy,\n"
	"                   the store's clusters, what collapsing folds: the\n"
	"                   connected components of its links (near-neighbour\n"
	"                   pairs at 3-shingle resemblance >= 0.46, linked by\n"
	"                   sign, hooks and update; recomputed from the index\n"
	"                   while links are pending); story, --linkage 0.08.\n"
	"                   With --linkage CUT, at CUT\n"
	"  --max-distance F strict's bound on normalized word Levenshtein (0.08)\n"
	"  --tolerant J     group by bit-set Jaccard >= J (0 < J <= 1) instead of\n"
	"                   equal keys, verified as with --verify (implies it; one\n"
	"                   store): documents in docid order each join the first\n"
	"                   earlier group leader they match.  For web pages, whose\n"
	"                   keys often differ in a bit; 0.5 is check's advice\n"
	"  --linkage CUT    cluster by average linkage instead (needs --db; one\n"
	"                   store): each document's neighbours in the store's\n"
	"                   near-neighbour index (80 at most, whatever the corpus's\n"
	"                   size) are scored by word 3-shingle resemblance, and\n"
	"                   clusters join while the mean over all their pairs is\n"
	"                   >= CUT (0.1 is the library's default).  For web pages:\n"
	"                   copies of one article in different templates, which\n"
	"                   Levenshtein within 8% would keep apart.  With --tolerant\n"
	"                   J, the candidates are instead every pair at bit-set\n"
	"                   Jaccard >= J (0.05 scores most pairs of a story, but\n"
	"                   their number grows with the square of the corpus)\n"
	"  --complete N     --linkage: completed averages: the missing pairs inside\n"
	"                   and across the clusters a first linkage finds, where\n"
	"                   both sides hold 16 documents or more, are scored too,\n"
	"                   at most N a document (default 64; 0: only the index's)\n"
	"  --jobs N         --linkage: threads reading words and scoring (default:\n"
	"                   the number of cores)\n"
	"  --json           one JSON object on stdout\n"
	"  -q, --quiet      no progress and no summary line, only the clusters\n"
	"  -h, --help       this text\n";

typedef struct {
	uint64_t key;
	size_t size;
} cl;

static int cmp_docid(const void *a, const void *b)
{
	nd_docid x = *(const nd_docid *)a, y = *(const nd_docid *)b;
	return x < y ? -1 : x > y;
}

static int cmp_key(const void *a, const void *b)
{
	const cl *x = a, *y = b;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* The members of key (sh NULL: of the one store, its own docids; else of
 * every shard's store, as the combined database's docids), ascending, each
 * store read in its own short transaction. */
static int members(nd_store *const *sts, size_t nst, const nd_shards *sh, uint64_t key, uint32_t **out,
		   size_t *nout)
{
	nd_store_txn *txn[ND_MAX_SHARD_STORES] = {NULL};
	int rc = ND_OK;
	for (size_t s = 0; s < nst && rc == ND_OK; s++)
		rc = nd_store_read_begin(sts[s], &txn[s]);
	if (rc == ND_OK)
		rc = sh ? nd_shards_key_docs(sh, txn, key, out, nout) : nd_store_key_docs(txn[0], key, out, nout);
	for (size_t s = 0; s < nst; s++)
		nd_store_txn_end(txn[s]);
	return rc;
}

typedef struct {
	nd_docid *docs;
	size_t n, cap;
} doc_list;

static int add_doc(uint32_t docid, uint64_t key, const void *payload, size_t len, void *ctx)
{
	(void)key, (void)payload, (void)len;
	doc_list *l = ctx;
	if (l->n == l->cap) {
		size_t cap = l->cap * 2 + 1024;
		nd_docid *p = realloc(l->docs, cap * sizeof(*p));
		if (!p)
			return nd_error_set(ND_ENOMEM, "out of memory listing %zu documents", cap);
		l->docs = p, l->cap = cap;
	}
	l->docs[l->n++] = docid;
	return 0;
}

typedef struct {
	size_t lead, size; /* index of the leader in the document list; members */
} tgroup;

static int cmp_tgroup(const void *a, const void *b)
{
	const tgroup *x = a, *y = b;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return x->lead < y->lead ? -1 : x->lead > y->lead;
}

static void on_linkage_progress(size_t done, size_t n, void *ctx)
{
	tool_progress *p = ctx;
	tool_progress_show(p, done, "pairs scored for %zu of %zu documents", done, n);
}

static void on_near_progress(const char *stage, size_t done, size_t n, void *ctx)
{
	tool_progress *p = ctx;
	if (n)
		tool_progress_show(p, done, "%s: %zu of %zu documents", stage, done, n);
	else
		tool_progress_show(p, done, "%s: %zu candidate pairs", stage, done);
}

/* --tolerant: every signed document, grouped by nd_verify_tolerant; or
 * with cut > 0 (--linkage), clustered by nd_cluster_linkage. */
static int tolerant_groups(nd_xdb *db, nd_store *st, const char *storepath, const nd_verify_options *vo,
			   double j, double cut, unsigned jobs, unsigned complete, uint64_t min_size, uint64_t limit,
			   int json, int single)
{
	nd_near_options no = ND_NEAR_OPTIONS_INIT;
	const char *how = single ? "components" : "average linkage";
	nd_near_stats ns = {0};
	doc_list l = {NULL, 0, 0};
	size_t *into = NULL, *order = NULL, *start = NULL, ng = 0, in_groups = 0;
	nd_docid *ids = NULL;
	double *dist = NULL;
	tgroup *g = NULL;
	nd_store_txn *txn = NULL;
	int rc, ret = EXIT_ERR;

	if ((rc = nd_store_read_begin(st, &txn)) == ND_OK)
		rc = nd_store_docs_each(txn, add_doc, &l);
	nd_store_txn_end(txn);
	if (rc != ND_OK) {
		tool_fail("clusters", rc < 0 ? rc : ND_ENOMEM, storepath);
		goto cleanup;
	}
	/* One more than the documents: a store with none (built, not yet
	 * signed; every document deleted) lists no clusters. */
	if (!(into = malloc((l.n + 1) * sizeof(*into))) || !(dist = malloc((l.n + 1) * sizeof(*dist))) ||
	    !(g = malloc((l.n + 1) * sizeof(*g))) || !(order = malloc((l.n + 1) * sizeof(*order))) ||
	    !(start = calloc(l.n + 1, sizeof(*start)))) {
		tool_fail("clusters", ND_ENOMEM, storepath);
		goto cleanup;
	}
	double t0 = tool_now();
	nd_linkage_options lo = ND_LINKAGE_OPTIONS_INIT;
	nd_linkage_stats ls = {0};
	tool_progress prog;
	tool_progress_init(&prog, l.n);
	lo.cut = cut;
	lo.progress = on_linkage_progress;
	lo.ctx = &prog;
	if (j > 0)
		lo.min_jaccard = j;
	no.cut = cut;
	no.single = single;
	no.jobs = jobs;
	no.complete = complete;
	no.progress = on_near_progress;
	no.ctx = &prog;
	int from_links = 0;
	if (single && j <= 0 && (rc = nd_store_read_begin(st, &txn)) == ND_OK) {
		from_links = nd_store_links_state(txn) != ND_LINKS_REBUILD;
		nd_store_txn_end(txn);
		txn = NULL;
	}
	if (from_links) {
		/* The store's clusters, as collapsing folds them: the components
		 * of its links (made by sign from these pairs, and by hooks). */
		if ((l.n && !(ids = malloc(l.n * sizeof(*ids)))) ||
		    (rc = nd_collapse_ids(db, st, vo, l.docs, l.n, ids)) < 0) {
			tool_fail("clusters", l.n && !ids ? ND_ENOMEM : rc, storepath);
			goto cleanup;
		}
		for (size_t i = 0; i < l.n; i++) {
			const nd_docid *at = ids[i] ? bsearch(&ids[i], l.docs, l.n, sizeof(nd_docid), cmp_docid) : NULL;
			into[i] = at ? (size_t)(at - l.docs) : i;
		}
		tool_progress_end(&prog);
	} else if (cut > 0) {
		if (j > 0)
			rc = nd_cluster_linkage(db, st, &lo, l.docs, l.n, into, &ls);
		else
			rc = nd_cluster_near(db, st, &no, l.docs, l.n, into, &ns);
		tool_progress_end(&prog);
		if (rc < 0) {
			tool_fail("clusters", rc, storepath);
			goto cleanup;
		}
	}
	/* Equal-key verified groups first (cached by --verify), so the result
	 * holds them all and Levenshtein runs only across keys. */
	else if ((l.n && !(ids = malloc(l.n * sizeof(*ids)))) ||
	    (rc = nd_collapse_ids(db, st, vo, l.docs, l.n, ids)) < 0 ||
	    (rc = nd_verify_tolerant(db, st, vo, j, l.docs, l.n, ids, into, dist)) < 0) {
		tool_fail("clusters", l.n && !ids ? ND_ENOMEM : rc, storepath);
		goto cleanup;
	}
	/* Members by leader (counting sort): start[L] is where leader L's
	 * begin in order, the leader first (a leader precedes its members). */
	for (size_t i = 0; i < l.n; i++)
		start[into[i] + 1]++;
	for (size_t i = 0; i < l.n; i++) {
		size_t size = start[i + 1];
		if (size >= min_size) {
			g[ng++] = (tgroup){i, size};
			in_groups += size;
		}
		start[i + 1] += start[i];
	}
	for (size_t i = 0; i < l.n; i++)
		order[start[into[i]]++] = i;
	for (size_t i = l.n; i > 0; i--) /* back to the beginnings */
		start[i] = start[i - 1];
	start[0] = 0;
	qsort(g, ng, sizeof(*g), cmp_tgroup);
	json_t *out = json ? json_object() : NULL, *arr = json ? json_array() : NULL;
	if (json) {
		json_object_set_new(out, "documents_signed", json_integer((json_int_t)l.n));
		if (cut > 0) {
			json_object_set_new(out, "linkage", json_real(cut));
			json_object_set_new(out, "clustering", json_string(from_links ? "links" : how));
			json_object_set_new(out, "candidates", json_string(j > 0 ? "bits" : "near"));
			if (j > 0)
				json_object_set_new(out, "min_jaccard", json_real(lo.min_jaccard));
			json_object_set_new(out, "pairs_compared",
					    json_integer((json_int_t)(j > 0 ? ls.compared : ns.candidates)));
			if (j <= 0) {
				json_object_set_new(out, "pairs_linked", json_integer((json_int_t)ns.linked));
				json_object_set_new(out, "pairs_completed", json_integer((json_int_t)ns.completed));
				json_object_set_new(out, "shingle_bytes", json_integer((json_int_t)ns.words_bytes));
			}
			json_object_set_new(out, "seconds", json_real(tool_now() - t0));
		} else
			json_object_set_new(out, "tolerant", json_real(j));
		json_object_set_new(out, "groups_total", json_integer((json_int_t)ng));
		json_object_set_new(out, "documents_in_groups", json_integer((json_int_t)in_groups));
		json_object_set_new(out, "min_size", json_integer((json_int_t)min_size));
	} else if (from_links)
		tool_say("%zu clusters of >= %llu documents from the store's links (copy point: 3-shingle "
			 "resemblance >= %g), holding %zu of %zu signed documents (%.1f s)\n",
			 ng, (unsigned long long)min_size, cut, in_groups, l.n, tool_now() - t0);
	else if (cut > 0 && j <= 0) {
		char added[64] = "";
		if (!single)
			snprintf(added, sizeof(added), ", and %llu completing", (unsigned long long)ns.completed);
		tool_say("%zu clusters of >= %llu documents by %s (%s3-shingle resemblance >= %g "
		       "over %llu near-neighbour pairs, %.1f a document%s), holding %zu of %zu signed documents "
		       "(%.1f s)\n",
		       ng, (unsigned long long)min_size, how, single ? "" : "mean ", cut, (unsigned long long)ns.candidates,
		       l.n ? (double)ns.candidates / (double)l.n : 0.0, added, in_groups, l.n, tool_now() - t0);
	}
	else if (cut > 0)
		tool_say("%zu clusters of >= %llu documents by average linkage (mean 3-shingle resemblance >= %g "
		       "over %llu pairs at bit-set Jaccard >= %g), holding %zu of %zu signed documents (%.1f s)\n",
		       ng, (unsigned long long)min_size, cut, (unsigned long long)ls.compared, lo.min_jaccard,
		       in_groups, l.n, tool_now() - t0);
	else
		tool_say("%zu verified groups of >= %llu documents at bit-set Jaccard >= %g, holding %zu of %zu "
		       "signed documents (%.1f s)\n", ng, (unsigned long long)min_size, j, in_groups, l.n,
		       tool_now() - t0);
	for (size_t k = 0; k < ng && k < limit; k++) {
		size_t m = g[k].size, lead = g[k].lead;
		const size_t *mem = order + start[lead];
		json_t *jdocs = json ? json_array() : NULL;
		if (!json)
			printf("\ngroup %zu: %zu documents\n", k + 1, m);
		for (size_t x = 0; x < m; x++) {
			size_t i = mem[x];
			char *uid = NULL;
			if (nd_xdb_doc_uid(db, l.docs[i], &uid) < 0)
				uid = NULL; /* deleted since signing, or no id term */
			if (json) {
				json_t *jd = json_object();
				json_object_set_new(jd, "docid", json_integer(l.docs[i]));
				if (uid)
					json_object_set_new(jd, "id", json_string(uid));
				if (cut <= 0)
					json_object_set_new(jd, "distance", dist[i] < 0 ? json_null() : json_real(dist[i]));
				json_array_append_new(jdocs, jd);
			} else if (i == lead)
				printf("  %8u  %-40s representative\n", l.docs[i], uid ? uid : "(no id)");
			else if (cut > 0)
				printf("  %8u  %s\n", l.docs[i], uid ? uid : "(no id)");
			else if (dist[i] < 0)
				printf("  %8u  %-40s with its key's verified group\n", l.docs[i], uid ? uid : "(no id)");
			else
				printf("  %8u  %-40s %.3f\n", l.docs[i], uid ? uid : "(no id)", dist[i]);
			free(uid);
		}
		if (json) {
			json_t *jg = json_object();
			json_object_set_new(jg, "size", json_integer((json_int_t)m));
			json_object_set_new(jg, "documents", jdocs);
			json_array_append_new(arr, jg);
		}
	}
	if (json) {
		json_object_set_new(out, "groups", arr);
		json_dumpf(out, stdout, JSON_INDENT(1));
		putchar('\n');
		json_decref(out);
	}
	ret = EXIT_OK;
cleanup:
	free(l.docs);
	free(into);
	free(dist);
	free(g);
	free(order);
	free(start);
	free(ids);
	return ret;
}

static int cmp_cl(const void *a, const void *b)
{
	const cl *x = a, *y = b;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* One run of `neardup clusters`: its options, what it opened, and the
 * verification's running totals. */
typedef struct {
	const char *dbpath, *storepath, *stores[ND_MAX_SHARD_STORES];
	size_t nst;
	uint64_t min_size, limit;
	int json, verify, point, complete_set;
	nd_verify_options vo;
	double tolerant, cut;
	unsigned jobs, complete;
	nd_xdb *db;
	nd_store *st, *sts[ND_MAX_SHARD_STORES];
	nd_shards *sh;
	nd_descriptor *d;
	nd_verify_stats vs;
	uint64_t verified_docs, verified_groups;
} run_t;

/* The options into r: -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, run_t *r)
{
	static const struct option longopts[] = {
		{"store", required_argument, NULL, 's'},
		{"db", required_argument, NULL, 'd'},
		{"min-size", required_argument, NULL, 'm'},
		{"limit", required_argument, NULL, 'l'},
		{"json", no_argument, NULL, 'j'},
		{"verify", no_argument, NULL, 'v'},
		{"max-distance", required_argument, NULL, 'D'},
		{"point", required_argument, NULL, 'P'},
		{"tolerant", required_argument, NULL, 't'},
		{"linkage", required_argument, NULL, 'L'},
		{"jobs", required_argument, NULL, 'J'},
		{"complete", required_argument, NULL, 'C'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0}};
	uint64_t v;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "hq", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (r->nst == ND_MAX_SHARD_STORES) {
				fprintf(stderr, "neardup clusters: at most %d --store\n", ND_MAX_SHARD_STORES);
				return EXIT_USAGE;
			}
			r->storepath = r->stores[r->nst++] = optarg;
			break;
		case 'd': r->dbpath = optarg; break;
		case 'm':
			if (tool_parse_u64(optarg, &r->min_size) || r->min_size < 1) {
				fprintf(stderr, "neardup clusters: --min-size needs a number >= 1, not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'l':
			if (tool_parse_u64(optarg, &v)) {
				fprintf(stderr, "neardup clusters: --limit needs a number, not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			r->limit = v;
			break;
		case 'j': r->json = 1; break;
		case 'v': r->verify = 1; break;
		case 'P':
			if (tool_parse_point("clusters", optarg, &r->vo.point) < 0)
				return EXIT_USAGE;
			r->point = 1;
			break;
		case 'D':
			if (tool_parse_finite(optarg, &r->vo.max_distance) || r->vo.max_distance < 0 ||
			    r->vo.max_distance >= 1) {
				fprintf(stderr, "neardup clusters: --max-distance needs a fraction in [0, 1), not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 't':
			if (tool_parse_finite(optarg, &r->tolerant) || !(r->tolerant > 0 && r->tolerant <= 1)) {
				fprintf(stderr, "neardup clusters: --tolerant needs a bit-set Jaccard in (0, 1], not '%s'\n",
					optarg);
				return EXIT_USAGE;
			}
			r->verify = 1;
			break;
		case 'L':
			if (tool_parse_finite(optarg, &r->cut) || !(r->cut > 0 && r->cut <= 1)) {
				fprintf(stderr, "neardup clusters: --linkage needs a mean resemblance in (0, 1], not '%s'\n",
					optarg);
				return EXIT_USAGE;
			}
			r->verify = 1;
			break;
		case 'J':
			if (tool_parse_jobs("clusters", optarg, &r->jobs))
				return EXIT_USAGE;
			break;
		case 'C':
			if (tool_parse_u64(optarg, &v) || v > 4096) {
				fprintf(stderr, "neardup clusters: --complete needs pairs a document, 0..4096, not '%s'\n",
					optarg);
				return EXIT_USAGE;
			}
			r->complete = (unsigned)v;
			r->complete_set = 1;
			break;
		case 'q': tool_quiet = 1; break;
		case 'h': fputs(usage_text, stdout); return EXIT_OK;
		default: fputs(usage_text, stderr); return EXIT_USAGE;
		}
	}
	if (r->point && !r->verify) {
		/* The point's own clusters. */
		r->verify = 1;
		if (r->vo.point != ND_POINT_STRICT)
			r->cut = nd_point_resemblance(r->vo.point);
	}
	if (r->complete_set && !(r->cut > 0 && r->tolerant <= 0 && !(r->point && r->vo.point == ND_POINT_COPY))) {
		fprintf(stderr, "neardup clusters: --complete needs average linkage over the index: --linkage "
			"CUT (without --tolerant) or --point story\n");
		return EXIT_USAGE;
	}
	if ((r->tolerant > 0 || r->cut > 0) && r->nst > 1) {
		fprintf(stderr, "neardup clusters: --%s needs one store (groups by equal key span shards; "
			"these do not yet)\n", r->cut > 0 ? "linkage" : "tolerant");
		return EXIT_USAGE;
	}
	if (r->verify && !r->dbpath) {
		fprintf(stderr, "neardup clusters: --%s needs --db (the words come from the database)\n",
			r->cut > 0 ? "linkage" : r->tolerant > 0 ? "tolerant" : "verify");
		return EXIT_USAGE;
	}
	if (!r->storepath || optind < argc) {
		fprintf(stderr, "neardup clusters: %s\n", optind < argc ? "unexpected argument" :
			"--store is required");
		fputs(usage_text, stderr);
		return EXIT_USAGE;
	}
	if (r->nst > 1 && !r->dbpath) {
		fprintf(stderr, "neardup clusters: several --store need --db, the database combining their shards\n");
		return EXIT_USAGE;
	}
	return -1;
}

/* The stores (shards: read-only, results not cached, as a cluster spans
 * stores), the database and the set; a failure is printed. */
static int open_inputs(run_t *r)
{
	int rc;
	if (r->nst > 1) {
		if ((rc = nd_xdb_open(&r->db, r->dbpath, ND_XDB_READ)) < 0 ||
		    (rc = nd_shards_open(&r->sh, r->db, r->stores, r->nst)) < 0)
			return tool_fail("clusters", rc, r->dbpath), rc;
		for (size_t i = 0; i < r->nst; i++)
			r->sts[i] = nd_shards_store(r->sh, i);
		return ND_OK;
	}
	/* The store must exist; --verify then caches its results in it when it
	 * may write there (a read-only store still verifies). */
	rc = nd_store_open(&r->st, r->storepath, ND_STORE_READ);
	if (rc == ND_OK && r->verify) {
		nd_store_close(r->st);
		if (nd_store_open(&r->st, r->storepath, ND_STORE_WRITE) < 0)
			rc = nd_store_open(&r->st, r->storepath, ND_STORE_READ);
	}
	if (rc < 0)
		return tool_fail("clusters", rc, r->storepath), rc;
	r->sts[0] = r->st;
	if (r->dbpath) {
		if ((rc = nd_xdb_open(&r->db, r->dbpath, ND_XDB_READ)) < 0)
			return tool_fail("clusters", rc, r->dbpath), rc;
		if ((rc = nd_descriptor_load(&r->d, r->st, r->db)) < 0)
			return tool_fail("clusters", rc, r->storepath), rc;
	}
	return ND_OK;
}

/* Every key of at least min_size documents over the stores, largest
 * first: *cls (caller frees), *docs signed, *in_clusters in them. */
static int list_clusters(run_t *r, cl **cls, size_t *ncl, uint64_t *docs, size_t *in_clusters)
{
	nd_store_txn *txn = NULL;
	nd_store_keys *it = NULL;
	size_t cap = 0;
	int rc = ND_OK, got;
	for (size_t s = 0; s < r->nst && rc == ND_OK; s++) {
		uint64_t sdocs, key;
		size_t size;
		if ((rc = nd_store_read_begin(r->sts[s], &txn)) < 0 || (rc = nd_store_keys_open(txn, &it)) < 0 ||
		    (rc = nd_store_counts(txn, &sdocs, NULL)) < 0) {
			tool_fail("clusters", rc, r->stores[s]);
			break;
		}
		*docs += sdocs;
		while ((got = nd_store_keys_next(it, &key, &size)) == 1) {
			if (*ncl == cap) {
				cap = cap ? cap * 2 : 256;
				cl *p = realloc(*cls, cap * sizeof(**cls));
				if (!p) {
					got = nd_error_set(ND_ENOMEM, "out of memory");
					break;
				}
				*cls = p;
			}
			(*cls)[(*ncl)++] = (cl){key, size};
		}
		if (got < 0) {
			tool_fail("clusters", got, r->stores[s]);
			rc = got;
		}
		nd_store_keys_free(it);
		it = NULL;
		nd_store_txn_end(txn);
		txn = NULL;
	}
	nd_store_keys_free(it);
	nd_store_txn_end(txn);
	if (rc < 0)
		return rc;
	/* One cluster per key across stores; then the size filter. */
	if (r->nst > 1 && *ncl) {
		size_t u = 0;
		qsort(*cls, *ncl, sizeof(**cls), cmp_key);
		for (size_t i = 0; i < *ncl; i++)
			if (u && (*cls)[u - 1].key == (*cls)[i].key)
				(*cls)[u - 1].size += (*cls)[i].size;
			else
				(*cls)[u++] = (*cls)[i];
		*ncl = u;
	}
	size_t u = 0;
	for (size_t i = 0; i < *ncl; i++)
		if ((*cls)[i].size >= r->min_size) {
			*in_clusters += (*cls)[i].size;
			(*cls)[u++] = (*cls)[i];
		}
	*ncl = u;
	if (*ncl)
		qsort(*cls, *ncl, sizeof(**cls), cmp_cl);
	return ND_OK;
}

/* Verify one cluster's members into *ver (grown; caller frees) and count
 * its verified groups of two or more. */
static int verify_members(run_t *r, uint64_t key, const uint32_t *ids, size_t n, nd_verified **ver,
			  uint32_t *ngroups)
{
	nd_verified *p = realloc(*ver, (n + 1) * sizeof(**ver));
	int rc;
	if (!p)
		return nd_error_set(ND_ENOMEM, "out of memory");
	*ver = p;
	if ((rc = nd_verify_cluster(r->db, r->sh ? NULL : r->st, key, ids, n, &r->vo, p, ngroups, &r->vs)) < 0)
		return rc;
	uint32_t *gsize = calloc(*ngroups + 1, sizeof(uint32_t));
	for (size_t k = 0; gsize && k < n; k++)
		gsize[p[k].group]++;
	for (uint32_t g = 0; gsize && g < *ngroups; g++)
		if (gsize[g] >= 2) {
			r->verified_groups++;
			r->verified_docs += gsize[g];
		}
	free(gsize);
	return ND_OK;
}

static const char *how_name(nd_verify_how how)
{
	return how == ND_VERIFY_NO_WORDS ? "no-words" : tool_how_name(how);
}

/* The unique id of a member, or NULL (no database, deleted since
 * signing, or no id term); caller frees. */
static char *member_uid(run_t *r, uint32_t docid)
{
	char *uid = NULL;
	if (r->db && nd_xdb_doc_uid(r->db, docid, &uid) < 0)
		uid = NULL;
	return uid;
}

static void print_cluster(run_t *r, size_t i, const char *keyhex, const uint32_t *ids, size_t n,
			  const nd_verified *ver, uint32_t ngroups)
{
	printf("\ncluster %zu: %zu documents (key %s)%s\n", i + 1, n, keyhex,
	       r->verify ? (ngroups == 1 ? ", verified as one group" : ", split by verification") : "");
	for (size_t k = 0; k < n; k++) {
		char *uid = member_uid(r, ids[k]);
		if (r->verify) {
			char dist[32];
			if (ver[k].how == ND_VERIFIED_REPRESENTATIVE)
				snprintf(dist, sizeof(dist), "representative");
			else if (ver[k].how == ND_VERIFY_NO_WORDS)
				snprintf(dist, sizeof(dist), "no word sequence");
			else
				snprintf(dist, sizeof(dist), "%.3f%s", ver[k].distance,
					 ver[k].how == ND_VERIFIED_SHINGLES ? " (1-shingle resemblance)" : "");
			printf("  group %-3u %8u  %-40s %s\n", ver[k].group + 1, ids[k], uid ? uid : "(no id)", dist);
		} else if (r->db)
			printf("  %8u  %s\n", ids[k], uid ? uid : "(no id: deleted since signing?)");
		else
			printf("  %8u\n", ids[k]);
		free(uid);
	}
}

static json_t *cluster_json(run_t *r, const char *keyhex, const uint32_t *ids, size_t n, const nd_verified *ver,
			    uint32_t ngroups)
{
	json_t *jc = json_object(), *jdocs = json_array();
	for (size_t k = 0; k < n; k++) {
		char *uid = member_uid(r, ids[k]);
		json_t *jd = json_object();
		json_object_set_new(jd, "docid", json_integer(ids[k]));
		if (uid)
			json_object_set_new(jd, "id", json_string(uid));
		if (r->verify) {
			json_object_set_new(jd, "group", json_integer(ver[k].group));
			json_object_set_new(jd, "distance", json_real(ver[k].distance));
			json_object_set_new(jd, "verified", json_string(how_name(ver[k].how)));
		}
		json_array_append_new(jdocs, jd);
		free(uid);
	}
	json_object_set_new(jc, "key", json_string(keyhex));
	json_object_set_new(jc, "size", json_integer((json_int_t)n));
	if (r->verify)
		json_object_set_new(jc, "verified_groups", json_integer(ngroups));
	json_object_set_new(jc, "documents", jdocs);
	return jc;
}

static void print_verification(run_t *r, json_t *out)
{
	const nd_verify_stats *vs = &r->vs;
	if (out) {
		json_t *jv = json_object();
		json_object_set_new(jv, "compared", json_integer((json_int_t)vs->compared));
		json_object_set_new(jv, "rejected", json_integer((json_int_t)vs->rejected));
		json_object_set_new(jv, "no_words", json_integer((json_int_t)vs->no_words));
		json_object_set_new(jv, "rebuilt_from_positions", json_integer((json_int_t)vs->rebuilt));
		json_object_set_new(jv, "from_document_data", json_integer((json_int_t)vs->from_data));
		json_object_set_new(jv, "clusters_from_cache", json_integer((json_int_t)vs->cached_clusters));
		json_object_set_new(jv, "verified_groups", json_integer((json_int_t)r->verified_groups));
		json_object_set_new(jv, "verified_documents", json_integer((json_int_t)r->verified_docs));
		json_object_set_new(out, "verification", jv);
	} else
		tool_say("\nverification (normalized word Levenshtein <= %.2f): %llu comparisons, "
		       "%llu rejected; %llu verified groups of >= 2 holding %llu documents; "
		       "%llu sequences rebuilt from positions, %llu taken from document data "
		       "(may be partial), %llu documents without words; "
		       "%llu clusters answered from the store's cache\n",
		       r->vo.max_distance, (unsigned long long)vs->compared, (unsigned long long)vs->rejected,
		       (unsigned long long)r->verified_groups, (unsigned long long)r->verified_docs,
		       (unsigned long long)vs->rebuilt, (unsigned long long)vs->from_data,
		       (unsigned long long)vs->no_words, (unsigned long long)vs->cached_clusters);
}

int nd_cmd_clusters(int argc, char **argv)
{
	run_t r = {0};
	nd_verified *ver = NULL;
	cl *cls = NULL;
	size_t ncl = 0, in_clusters = 0;
	uint64_t docs = 0;
	json_t *out = NULL, *arr = NULL;
	int rc, ret = EXIT_ERR;

	r.min_size = 2;
	r.limit = UINT64_MAX;
	r.vo = (nd_verify_options)ND_VERIFY_OPTIONS_INIT;
	r.jobs = tool_default_jobs();
	r.complete = ND_NEAR_COMPLETE;
	if ((ret = parse_args(argc, argv, &r)) >= 0)
		return ret;
	ret = EXIT_ERR;
	if (open_inputs(&r) < 0)
		goto cleanup;
	if (r.tolerant > 0 || r.cut > 0) {
		ret = tolerant_groups(r.db, r.st, r.storepath, &r.vo, r.tolerant, r.cut, r.jobs, r.complete, r.min_size,
				      r.limit,
				      r.json, r.point && r.vo.point == ND_POINT_COPY && r.tolerant <= 0);
		goto cleanup;
	}
	if (list_clusters(&r, &cls, &ncl, &docs, &in_clusters) < 0)
		goto cleanup;
	/* No snapshot is held from here: a long read transaction pins every
	 * page that later writes (the verification cache here, or another
	 * process's signing) free, so the file and its mapped pages would grow
	 * with each write.  Each cluster is read in its own short transaction. */
	if (r.json) {
		out = json_object();
		arr = json_array();
		json_object_set_new(out, "documents_signed", json_integer((json_int_t)docs));
		json_object_set_new(out, "clusters_total", json_integer((json_int_t)ncl));
		json_object_set_new(out, "documents_in_clusters", json_integer((json_int_t)in_clusters));
		json_object_set_new(out, "min_size", json_integer((json_int_t)r.min_size));
	} else
		tool_say("%zu clusters of >= %llu documents, holding %zu of %llu signed documents\n",
		       ncl, (unsigned long long)r.min_size, in_clusters, (unsigned long long)docs);
	/* Results are cached a few thousand clusters to a commit, not one. */
	if (r.verify && !r.sh && (rc = nd_verify_batch_new(&r.vo.batch, r.st, 0, 0)) < 0) {
		tool_fail("clusters", rc, r.storepath);
		goto cleanup;
	}
	/* Verifying a large store takes minutes: progress on the terminal,
	 * unless the clusters themselves are printed there. */
	tool_progress vprog;
	tool_progress_init(&vprog, ncl);
	if (!r.verify || (!r.json && isatty(STDOUT_FILENO)))
		vprog.tty = 0;
	for (size_t i = 0; i < ncl && (i < r.limit || r.verify); i++) {
		uint32_t *ids = NULL, ngroups = 0;
		tool_progress_show(&vprog, i, "verified %zu of %zu clusters", i, ncl);
		size_t n;
		char keyhex[17];
		snprintf(keyhex, sizeof(keyhex), "%016llx", (unsigned long long)cls[i].key);
		if ((rc = members(r.sts, r.nst, r.sh, cls[i].key, &ids, &n)) < 0) {
			tool_fail("clusters", rc, r.storepath);
			goto cleanup;
		}
		if (r.verify && (rc = verify_members(&r, cls[i].key, ids, n, &ver, &ngroups)) < 0) {
			free(ids);
			if (rc == ND_ENOMEM)
				fprintf(stderr, "neardup clusters: out of memory\n");
			else
				tool_fail("clusters", rc, r.dbpath);
			goto cleanup;
		}
		if (i < r.limit) {
			if (r.json)
				json_array_append_new(arr, cluster_json(&r, keyhex, ids, n, ver, ngroups));
			else
				print_cluster(&r, i, keyhex, ids, n, ver, ngroups);
		}
		free(ids);
	}
	tool_progress_end(&vprog);
	if (r.vo.batch && (rc = nd_verify_batch_flush(r.vo.batch)) < 0) {
		tool_fail("clusters", rc, r.storepath);
		goto cleanup;
	}
	if (r.verify)
		print_verification(&r, out);
	if (r.json) {
		json_object_set_new(out, "clusters", arr);
		arr = NULL;
		json_dumpf(out, stdout, JSON_INDENT(1));
		putchar('\n');
	}
	ret = EXIT_OK;
cleanup:
	json_decref(arr);
	json_decref(out);
	free(ver);
	free(cls);
	nd_descriptor_free(r.d);
	nd_verify_batch_free(r.vo.batch);
	nd_store_close(r.st);
	nd_shards_close(r.sh);
	nd_xdb_close(r.db);
	return ret;
}
