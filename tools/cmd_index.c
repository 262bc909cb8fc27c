/* neardup index: build or extend a Xapian database from a corpus. */
#include "tool.h"
#include "neardup/indexer.h"

#include <ftw.h>
#include <getopt.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>

static const char usage_text[] =
	"usage: neardup index --db DIR [OPTIONS] INPUT...\n"
	"\n"
	"Index text (.txt, .text, and names without an extension such as README\n"
	"or copyright), HTML (.html, .htm) and JSON Lines (.jsonl:\n"
	"{\"id\":..., \"text\":..., \"url\":..., \"title\":...} per line) into the Xapian\n"
	"database DIR, created if missing.  INPUT is a file or a directory walked\n"
	"recursively; a file's id is its path relative to the INPUT directory,\n"
	"under the directory's own name when several INPUTs are given (business/\n"
	"001.txt and politics/001.txt, which would otherwise be one id).\n"
	"Re-indexing an id replaces its document.\n"
	"\n"
	"  --db DIR          Xapian database (required)\n"
	"  --batch N         commit every N documents (default 1000); above 10000\n"
	"                    it gains nothing: Xapian flushes every 10000 changes\n"
	"                    by itself (XAPIAN_FLUSH_THRESHOLD)\n"
	"  --content MODE    of an HTML page: main (default; the article without\n"
	"                    navigation, link lists and footers; the whole page\n"
	"                    when that is a line above lists, as on an index)\n"
	"                    or full (all text)\n"
	"  --url-base URL    a file's URL is URL followed by its id.  Without\n"
	"                    it, an HTML page's own canonical link or og:url; a\n"
	"                    JSONL record's \"url\"; else a directory of the\n"
	"                    file's path named like a host (www.example.org/,\n"
	"                    as wget --mirror writes); else the host most of an\n"
	"                    HTML page's absolute links go to; else its menu\n"
	"                    (the first 8 paths its relative links go to) as\n"
	"                    the host menu-HASH.invalid.  The host (with or\n"
	"                    without www.) is the page's site, whose template\n"
	"                    is then no evidence of a copy\n"
	"  --max-doc-mb N    skip files and JSONL lines larger than N MiB\n"
	"                    (default 64; peak memory is about 11x the largest)\n"
	"  -q, --quiet       no warnings for skipped inputs, only the summary\n"
	"  -h, --help        this text\n";

typedef struct {
	tool_progress prog;
	int quiet;
	uint64_t warnings;
} ctx_t;

static void on_warn(const char *msg, void *vctx)
{
	ctx_t *c = vctx;
	c->warnings++;
	if (c->quiet)
		return;
	if (c->prog.tty && c->prog.last > 0)
		fprintf(stderr, "\r\033[K");
	if (c->warnings <= 100)
		fprintf(stderr, "warning: %s\n", msg);
	else if (c->warnings == 101)
		fprintf(stderr, "warning: more warnings follow; not shown (see the summary)\n");
}

static void on_progress(const nd_index_stats *st, const char *current, void *vctx)
{
	ctx_t *c = vctx;
	double el = tool_now() - c->prog.start;
	(void)current;
	tool_progress_show(&c->prog, st->bytes, "%llu docs, %.1f MB, %.0f docs/s",
			   (unsigned long long)(st->added + st->replaced), st->bytes / 1e6,
			   el > 0 ? (st->added + st->replaced) / el : 0.0);
}

static uint64_t total_bytes;
static int count_file(const char *path, const struct stat *sb, int type, struct FTW *f)
{
	(void)path;
	(void)f;
	if (type == FTW_F)
		total_bytes += (uint64_t)sb->st_size;
	return 0;
}

/* A directory's own name, trailing slashes left out ("" for / or .). */
static void dir_name(const char *path, char *out, size_t cap)
{
	size_t n = strlen(path);
	while (n > 1 && path[n - 1] == '/')
		n--;
	size_t b = n;
	while (b > 0 && path[b - 1] != '/')
		b--;
	size_t len = n - b;
	if (len == 0 || len >= cap || (len == 1 && path[b] == '.') || (len == 2 && !strncmp(path + b, "..", 2)))
		return;
	memcpy(out, path + b, len);
	out[len] = '\0';
}

int nd_cmd_index(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"db", required_argument, NULL, 'd'},
		{"batch", required_argument, NULL, 'b'},
		{"max-doc-mb", required_argument, NULL, 'm'},
		{"content", required_argument, NULL, 'C'},
		{"url-base", required_argument, NULL, 'U'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0}};
	nd_index_options opts = ND_INDEX_OPTIONS_INIT;
	const char *db = NULL;
	ctx_t ctx = {0};
	uint64_t v;
	int c, rc, bad_inputs = 0;
	nd_indexer *ix = NULL;

	optind = 1;
	while ((c = getopt_long(argc, argv, "qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': db = optarg; break;
		case 'b':
			if (tool_parse_u64(optarg, &v) || v == 0) {
				return tool_usage("index", "--batch needs a positive number, not '%s'", optarg);
			}
			opts.batch_docs = (size_t)v;
			break;
		case 'm':
			if (tool_parse_u64(optarg, &v) || v == 0 || v > 4096) {
				return tool_usage("index", "--max-doc-mb needs 1..4096, not '%s'", optarg);
			}
			opts.max_doc_bytes = opts.max_line_bytes = (size_t)v << 20;
			break;
		case 'C':
			if (tool_parse_content(optarg, &opts.content) < 0) {
				return tool_usage("index", "--content is main or full, not '%s'", optarg);
			}
			break;
		case 'U': opts.url_base = optarg; break;
		case 'q': ctx.quiet = 1; break;
		case 'h': fputs(usage_text, stdout); return EXIT_OK;
		default: return tool_usage("index", NULL);
		}
	}
	if (!db || optind >= argc) {
		return tool_usage("index", "%s", !db ? "--db DIR is required" : "no INPUT given");
	}
	total_bytes = 0;
	for (int i = optind; i < argc; i++)
		nftw(argv[i], count_file, 32, FTW_PHYS);
	tool_progress_init(&ctx.prog, total_bytes);
	opts.progress = on_progress;
	opts.warn = on_warn;
	opts.ctx = &ctx;
	if ((rc = nd_indexer_open(&ix, db, &opts)) < 0)
		return tool_fail("index", rc, db);
	for (int i = optind; i < argc; i++) {
		char name[4096] = "";
		struct stat sb;
		if (argc - optind > 1 && stat(argv[i], &sb) == 0 && S_ISDIR(sb.st_mode))
			dir_name(argv[i], name, sizeof(name));
		if ((rc = nd_indexer_add_path_as(ix, argv[i], *name ? name : NULL)) < 0) {
			tool_progress_end(&ctx.prog);
			tool_fail("index", rc, argv[i]);
			/* A missing or unreadable input does not stop the others,
			 * but the run did not do what was asked: exit 1. */
			bad_inputs++;
			if (rc == ND_ENOTFOUND || rc == ND_EINVAL)
				continue;
			nd_indexer_close(ix);
			return EXIT_ERR;
		}
	}
	nd_index_stats st = *nd_indexer_stats(ix);
	rc = nd_indexer_close(ix);
	tool_progress_end(&ctx.prog);
	if (rc < 0)
		return tool_fail("index", rc, "commit");
	double el = tool_now() - ctx.prog.start;
	uint64_t docs = st.added + st.replaced;
	printf("indexed %llu document%s (%llu new, %llu replaced), %llu words, %.1f MB in %.2f s: "
	       "%.0f docs/s, %.2f MB/s\n",
	       (unsigned long long)docs, docs == 1 ? "" : "s", (unsigned long long)st.added, (unsigned long long)st.replaced,
	       (unsigned long long)st.words, st.bytes / 1e6, el, el > 0 ? docs / el : 0.0,
	       el > 0 ? st.bytes / 1e6 / el : 0.0);
	if (st.skipped)
		printf("skipped %llu: %llu empty, %llu binary, %llu too large, %llu malformed or "
		       "unreadable, %llu unsupported type\n",
		       (unsigned long long)st.skipped, (unsigned long long)st.skipped_empty,
		       (unsigned long long)st.skipped_binary, (unsigned long long)st.skipped_large,
		       (unsigned long long)st.skipped_bad, (unsigned long long)st.skipped_type);
	if (st.html_whole)
		printf("main content: %llu of %llu HTML pages kept whole (no block, or under thirty "
		       "words, read as prose in a language with a stopword list)\n",
		       (unsigned long long)st.html_whole, (unsigned long long)st.html_pages);
	if (st.duplicate_ids)
		printf("duplicate ids: %llu document%s replaced one given earlier in the same input\n",
		       (unsigned long long)st.duplicate_ids, st.duplicate_ids == 1 ? "" : "s");
	if (st.reencoded || st.invalid_utf8)
		printf("encoding: %llu files read as windows-1252, %llu documents with invalid UTF-8\n",
		       (unsigned long long)st.reencoded, (unsigned long long)st.invalid_utf8);
	if (bad_inputs)
		fprintf(stderr, "neardup index: %d input%s not read (see above)\n", bad_inputs,
			bad_inputs == 1 ? " was" : "s were");
	return bad_inputs ? EXIT_ERR : EXIT_OK;
}
