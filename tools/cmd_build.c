/* neardup build: choose the descriptive set and save it in the store. */
#include "tool.h"
#include "neardup/descriptor.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
	"usage: neardup build --db DIR --store DIR [OPTIONS]\n"
	"\n"
	"Choose a descriptive set of words with thresholds from the Xapian database's\n"
	"statistics and save it in the store (created if missing).  Signatures of an\n"
	"earlier set are dropped; run 'neardup sign' next.  A database of fewer than\n"
	"15 documents, or of copies of one text, gets the empty set (with a warning):\n"
	"each document then finds its duplicates by its text alone, until a build on\n"
	"the grown collection.\n"
	"\n"
	"  --db DIR           Xapian database (required)\n"
	"  --store DIR        neardup store (required)\n"
	"  --words N          words in the set (default 2000)\n"
	"  --target-bits N    bits per document the selection aims at (default 6, >= 4)\n"
	"  --sample N         documents sampled for thresholds and coverage (default 5000)\n"
	"  --edits N          simulated edits per sampled document (default 4)\n"
	"  --max-edit F       an edit changes up to this fraction of words (default 0.08)\n"
	"  --seed N           random seed (default 1)\n"
	"  --word-share F     choose from this random fraction of the candidate words\n"
	"                     (by --seed; default 1: all), for several sets that differ\n"
	"                     (Kolcz's randomized lexicons)\n"
	"  --jobs N           threads for the edit simulation and thresholds (default:\n"
	"                     the number of cores); the set is the same for any N\n"
	"  --show N           print the N most stable chosen words\n"
	"  --word-prefix P    the database's words are its terms under P (mu: B);\n"
	"                     remembered in the store, as is --uid-prefix\n"
	"  --uid-prefix P     documents' ids are their terms under P (mu: I), not Q\n"
	"                     or U\n"
	"  --from-store DIR   do not choose: copy the set of the store DIR (for\n"
	"                     shards: choose once over a stub database listing them\n"
	"                     all, then copy the set to each shard's own store)\n"
	"  -q, --quiet        no progress and no summary, only errors\n"
	"  -h, --help         this text\n";

static int parse_u32(const char *opt, const char *s, uint32_t *out, uint32_t min)
{
	uint64_t v;
	if (tool_parse_u64(s, &v) || v < min || v > UINT32_MAX) {
		fprintf(stderr, "neardup build: %s needs a whole number >= %u, not '%s'\n", opt, min, s);
		return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

typedef struct {
	uint32_t i;
	double lambda;
} by_lambda;

static int cmp_lambda(const void *a, const void *b)
{
	const by_lambda *x = a, *y = b;
	if (x->lambda != y->lambda)
		return x->lambda < y->lambda ? -1 : 1;
	return x->i < y->i ? -1 : 1;
}

/* Ship a set: the same words and thresholds, so keys agree across shards;
 * the copy is bound to this shard's database. */
static int copy_set(const char *dbpath, const char *storepath, const char *from)
{
	nd_xdb *db = NULL;
	nd_store *src = NULL, *st = NULL;
	nd_descriptor *d = NULL;
	int rc, ret = EXIT_ERR;
	if (!strcmp(from, storepath)) {
		return tool_usage("build", "--from-store is the store itself");
	}
	if ((rc = nd_xdb_open(&db, dbpath, ND_XDB_READ)) < 0) {
		tool_fail("build", rc, dbpath);
		goto cleanup;
	}
	if ((rc = nd_store_open(&src, from, ND_STORE_READ)) < 0 || (rc = nd_descriptor_load(&d, src, NULL)) < 0) {
		tool_fail("build", rc, from);
		goto cleanup;
	}
	if ((rc = nd_store_open(&st, storepath, ND_STORE_WRITE)) < 0 ||
	    (rc = nd_descriptor_save(d, st, db, NULL)) < 0) {
		tool_fail("build", rc, storepath);
		goto cleanup;
	}
	tool_say("descriptive set: %u words copied from %s (version %016llx), bound to %s\n",
	       nd_descriptor_size(d), from, (unsigned long long)nd_descriptor_version(d), dbpath);
	ret = EXIT_OK;
cleanup:
	nd_descriptor_free(d);
	nd_store_close(src);
	nd_store_close(st);
	nd_xdb_close(db);
	return ret;
}

static void on_step(unsigned step, unsigned steps, const char *what, void *ctx)
{
	tool_progress *p = ctx;
	p->last = 0; /* every step shows, however soon */
	tool_progress_show(p, step, "step %u of %u: %s", step + 1, steps, what);
}

int nd_cmd_build(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"db", required_argument, NULL, 'd'},
		{"store", required_argument, NULL, 's'},
		{"words", required_argument, NULL, 'w'},
		{"target-bits", required_argument, NULL, 't'},
		{"sample", required_argument, NULL, 'n'},
		{"edits", required_argument, NULL, 'e'},
		{"max-edit", required_argument, NULL, 'm'},
		{"seed", required_argument, NULL, 'r'},
		{"word-share", required_argument, NULL, 'W'},
		{"show", required_argument, NULL, 'S'},
		{"jobs", required_argument, NULL, 'j'},
		{"from-store", required_argument, NULL, 'F'},
		{"word-prefix", required_argument, NULL, 'P'},
		{"uid-prefix", required_argument, NULL, 'U'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0}};
	nd_build_options o = ND_BUILD_OPTIONS_INIT;
	nd_build_report rep;
	const char *dbpath = NULL, *storepath = NULL, *from = NULL, *word_prefix = NULL, *uid_prefix = NULL;
	uint32_t show = 0;
	uint64_t seed;
	nd_xdb *db = NULL;
	nd_store *st = NULL;
	nd_descriptor *d = NULL;
	int c, rc, ret = EXIT_ERR;

	o.jobs = tool_default_jobs();
	optind = 1;
	while ((c = getopt_long(argc, argv, "hq", longopts, NULL)) != -1) {
		switch (c) {
		case 'j': if (tool_parse_jobs("build", optarg, &o.jobs)) return EXIT_USAGE; break;
		case 'd': dbpath = optarg; break;
		case 's': storepath = optarg; break;
		case 'w': if (parse_u32("--words", optarg, &o.words, 1)) return EXIT_USAGE; break;
		case 't': if (parse_u32("--target-bits", optarg, &o.target_bits, ND_MIN_BITS)) return EXIT_USAGE; break;
		case 'n': if (parse_u32("--sample", optarg, &o.sample_docs, 1)) return EXIT_USAGE; break;
		case 'e': if (parse_u32("--edits", optarg, &o.edits, 1)) return EXIT_USAGE; break;
		case 'S': if (parse_u32("--show", optarg, &show, 0)) return EXIT_USAGE; break;
		case 'm': {
			if (tool_parse_finite(optarg, &o.max_edit) || o.max_edit <= 0 || o.max_edit > 0.5) {
				return tool_usage("build", "--max-edit needs a fraction in (0, 0.5], not '%s'", optarg);
			}
			break;
		}
		case 'W': {
			if (tool_parse_finite(optarg, &o.word_share) || !(o.word_share > 0 && o.word_share <= 1)) {
				return tool_usage("build", "--word-share needs a fraction in (0, 1], not '%s'", optarg);
			}
			break;
		}
		case 'r':
			if (tool_parse_u64(optarg, &seed)) {
				return tool_usage("build", "--seed needs a whole number, not '%s'", optarg);
			}
			o.seed = seed;
			break;
		case 'F': from = optarg; break;
		case 'P': word_prefix = optarg; break;
		case 'U': uid_prefix = optarg; break;
		case 'q': tool_quiet = 1; break;
		case 'h': fputs(usage_text, stdout); return EXIT_OK;
		default: return tool_usage("build", NULL);
		}
	}
	if (from && dbpath && storepath && optind == argc)
		return copy_set(dbpath, storepath, from);
	if (!dbpath || !storepath || optind < argc) {
		return tool_usage("build", "%s", optind < argc ? "unexpected argument" :
			"--db and --store are required");
	}
	if (o.words > ND_MAX_WORDS) {
		return tool_usage("build", "--words is at most %d", ND_MAX_WORDS);
	}
	if ((rc = nd_xdb_open(&db, dbpath, ND_XDB_READ)) < 0) {
		tool_fail("build", rc, dbpath);
		goto cleanup;
	}
	if ((rc = nd_xdb_set_prefixes(db, word_prefix, uid_prefix)) < 0) {
		tool_fail("build", rc, word_prefix ? word_prefix : uid_prefix);
		ret = EXIT_USAGE;
		goto cleanup;
	}
	tool_progress prog;
	tool_progress_init(&prog, 5);
	o.progress = on_step;
	o.ctx = &prog;
	rc = nd_descriptor_build(&d, db, &o, &rep);
	tool_progress_end(&prog);
	if (rc < 0) {
		tool_fail("build", rc, dbpath);
		if (rc == ND_ESTATE && !word_prefix && rep.doccount >= 2)
			fprintf(stderr, "  if the database's words carry a prefix, say which (mu writes words "
				"under B and ids under I: --word-prefix B --uid-prefix I)\n");
		goto cleanup;
	}
	if ((rc = nd_store_open(&st, storepath, ND_STORE_WRITE)) < 0 ||
	    (rc = nd_descriptor_save(d, st, db, &o)) < 0) {
		tool_fail("build", rc, storepath);
		goto cleanup;
	}
	/* The empty set works (every document by its text's keys), but a
	 * collection that grows past it is better served by a chosen one. */
	if (rep.chosen == 0) {
		fprintf(stderr, "neardup build: warning: %s: the descriptive set is empty: ", dbpath);
		if (rep.min_docs)
			fprintf(stderr, "%u documents are too few to choose words from\n", rep.doccount);
		else if (rep.candidates)
			fprintf(stderr, "none of its %u candidate words has a usable threshold (documents "
				"too short?)\n", rep.candidates);
		else
			fprintf(stderr, "no word is in few enough of its %u documents to tell them apart "
				"(copies of one text?)\n", rep.doccount);
		fprintf(stderr, "  no document gets a key: each finds its duplicates by its text's "
			"near-neighbour keys alone\n");
		if (rep.min_docs)
			fprintf(stderr, "  run 'neardup build' again once the database holds %u documents or "
				"more (sign, update and hooks ask for it past --max-drift)\n", rep.min_docs);
	}
	tool_say("descriptive set: %u words (of %u candidates, %u with a usable threshold) "
	       "from %u documents in %.2f s\n",
	       rep.chosen, rep.candidates, rep.rated, rep.doccount, rep.seconds);
	tool_say("sample of %u documents: coverage %.1f%% (>= %d bits), mean %.2f bits per document\n",
	       rep.sample_docs, 100 * rep.coverage, ND_MIN_BITS, rep.mean_bits);
	if (rep.coverage < 1)
		tool_say("  the other %.1f%% get no key (short texts, words too common for the set, "
			 "unsegmented scripts): their text's near-neighbour keys find their duplicates\n",
			 100 * (1 - rep.coverage));
	tool_say("signature change under an edit of up to %.0f%% of words: expected %.1f%% "
	       "(1 - prod(1 - lambda_i)), measured %.1f%% of covered documents\n",
	       100 * o.max_edit, 100 * rep.p_change, 100 * rep.key_change);
	tool_say("document length: %s\n", rep.word_lengths ?
	       "word count from termlists (database has prefixed terms with wdf)" :
	       "Xapian document length (database has only word terms)");
	if (show) {
		uint32_t n = nd_descriptor_size(d);
		by_lambda *v = malloc(n * sizeof(*v));
		if (v) {
			for (uint32_t i = 0; i < n; i++)
				v[i] = (by_lambda){i, nd_descriptor_lambda(d, i)};
			qsort(v, n, sizeof(*v), cmp_lambda);
			printf("%-24s %12s %10s %8s\n", "word", "threshold", "lambda", "weight");
			for (uint32_t i = 0; i < n && i < show; i++)
				printf("%-24s %12.6f %10.6f %8.4f\n", nd_descriptor_word(d, v[i].i),
				       nd_descriptor_threshold(d, v[i].i), v[i].lambda, nd_descriptor_weight(d, v[i].i));
			free(v);
		}
	}
	ret = EXIT_OK;
cleanup:
	nd_descriptor_free(d);
	nd_store_close(st);
	nd_xdb_close(db);
	return ret;
}
