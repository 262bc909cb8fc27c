/* Benchmark: neardup inside a live index.  On a synthetic corpus of ~5 KB
 * documents in near-duplicate families:
 *   - crawl-time checks/s (nd_check_text, verifying against one member),
 *     against tokenizing the same pages alone;
 *   - hook updates/s (re-index a document + nd_hook_changed, collapse slot
 *     kept, Xapian commit every 100; the hook committing its own writes,
 *     or with group_commit, its store's commit with Xapian's), against
 *     re-indexing alone, the three taking turns a commit at a time in
 *     an order that rotates each round (the total's ratio, and the median
 *     of the rounds' ratios);
 *   - search latency with no collapsing, native, filter and tolerant
 *     collapsing.
 * Wall-clock figures (hooks include fsync); one core.
 *
 *   bench_live [--docs N] [--checks N] [--updates N] [--queries N]
 *              (defaults 20000, 3000, 2000, 300) */
#include "neardup/check.h"
#include "neardup/cluster.h"
#include "neardup/collapse.h"
#include "neardup/hook.h"
#include "neardup/indexer.h"

#include "bench/bench_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define VOCAB 30000

/* A ~5 KB page (about 800 words, Zipf-like) of family fam; copies > 0 have
 * copy * 2 words changed. */
static char *page(uint64_t fam, int copy, size_t *len)
{
	uint64_t rng = 77 + fam * 1000003;
	size_t n = 800, cap = n * 10 + 1, off = 0;
	char *t = malloc(cap);
	uint64_t erng = fam * 31 + (uint64_t)copy;
	for (size_t i = 0; i < n; i++) {
		uint64_t r = bench_rand(&rng);
		double u = (double)(r >> 11) / 9007199254740992.0;
		uint64_t w = (uint64_t)(VOCAB * u * u * u); /* skewed to small ids */
		if (copy && bench_rand(&erng) % 400 < (uint64_t)copy * 1)
			w = bench_rand(&erng) % VOCAB;
		char wd[8];
		off += (size_t)snprintf(t + off, cap - off, "%s ", bench_word((unsigned)w, wd));
	}
	*len = off;
	return t;
}

static int die(const char *what)
{
	fprintf(stderr, "bench_live: %s: %s\n", what, nd_error_last());
	return 1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	long docs = 20000, checks = 3000, updates = 2000, queries = 300;
	for (int i = 1; i + 1 < argc; i += 2) {
		long v = atol(argv[i + 1]);
		if (!strcmp(argv[i], "--docs")) docs = v;
		else if (!strcmp(argv[i], "--checks")) checks = v;
		else if (!strcmp(argv[i], "--updates")) updates = v;
		else if (!strcmp(argv[i], "--queries")) queries = v;
		else v = 0;
		if (v <= 0) {
			fprintf(stderr, "usage: bench_live [--docs N] [--checks N] [--updates N] [--queries N]\n");
			return 2;
		}
	}
	if (argc % 2 == 0) {
		fprintf(stderr, "usage: bench_live [--docs N] [--checks N] [--updates N] [--queries N]\n");
		return 2;
	}
	char tmpl[] = "/tmp/nd-bench-live-XXXXXX", path[512], spath[512];
	if (!mkdtemp(tmpl))
		return die("mkdtemp");
	snprintf(path, sizeof(path), "%s/db", tmpl);
	snprintf(spath, sizeof(spath), "%s/store", tmpl);

	/* Corpus: families of 1-3 pages. */
	nd_indexer *ix;
	nd_index_options io = ND_INDEX_OPTIONS_INIT;
	io.batch_docs = 5000;
	double t0 = bench_wall_now();
	if (nd_indexer_open(&ix, path, &io) < 0)
		return die(path);
	long fam = 0, n = 0, copy_pairs = 0;
	while (n < docs) {
		for (int c = 0; c <= fam % 3 && n < docs; c++, n++) {
			copy_pairs += c; /* page c pairs with the c before it */
			size_t len;
			char *t = page((uint64_t)fam, c, &len), id[32];
			snprintf(id, sizeof(id), "f%ld.%d", fam, c);
			if (nd_indexer_add_text(ix, id, t, len, NULL, NULL) < 0)
				return die("index");
			free(t);
		}
		fam++;
	}
	if (nd_indexer_commit(ix) < 0)
		return die("commit");
	nd_xdb *db = nd_indexer_db(ix);
	nd_store *st;
	nd_descriptor *d;
	uint64_t links = 0;
	if (nd_descriptor_build(&d, db, NULL, NULL) < 0 || nd_store_open(&st, spath, ND_STORE_WRITE) < 0 ||
	    nd_descriptor_save(d, st, db, NULL) < 0 || nd_sign_all(st, db, NULL, NULL) < 0 ||
	    nd_links_rebuild(db, st, NULL, &links) < 0) /* as 'neardup sign' does */
		return die("build/sign");
	/* Every copy differs from its family by under 1% of its words: a
	 * links pass that leaves many of them apart measures the wrong thing
	 * (as when these words held digits, and each edit was a changed value
	 * to the verdict), so the figures below would mislead. */
	if ((double)links < 0.9 * (double)copy_pairs) {
		fprintf(stderr, "bench_live: links join %llu pairs of %ld copy pairs\n", (unsigned long long)links,
			copy_pairs);
		return 1;
	}
	nd_docid last;
	nd_xdb_lastdocid(db, &last);
	nd_docid *all = malloc(last * sizeof(*all));
	for (nd_docid i = 0; i < last; i++)
		all[i] = i + 1;
	if (nd_collapse_slot_set(st, 9) < 0 || nd_collapse_write_slot(db, st, NULL, 9, all, last, NULL) < 0 ||
	    nd_indexer_commit(ix) < 0)
		return die("collapse slot");
	free(all);
	printf("corpus: %ld documents of ~5 KB in %ld families, %u descriptive words, %llu links for %ld copy "
	       "pairs; set up in %.1f s\n\n", docs, fam, nd_descriptor_size(d), (unsigned long long)links, copy_pairs,
	       bench_wall_now() - t0);

	/* 1. Crawl-time checks: half are copies of indexed pages, half new. */
	nd_tokenizer *tk;
	if (nd_tokenizer_new(&tk) < 0)
		return die("tokenizer");
	char **texts = malloc((size_t)checks * sizeof(char *));
	size_t *lens = malloc((size_t)checks * sizeof(size_t)), bytes = 0;
	for (long i = 0; i < checks; i++) {
		uint64_t f = i % 2 ? (uint64_t)(i % fam) : (uint64_t)(fam + i);
		texts[i] = page(f, 2, &lens[i]);
		bytes += lens[i];
	}
	double tok0 = bench_cpu_now();
	for (long i = 0; i < checks; i++) {
		const nd_token *toks;
		size_t nt;
		if (nd_tokenize(tk, texts[i], lens[i], 0, &toks, &nt, NULL) < 0)
			return die("tokenize");
	}
	double tok = bench_cpu_now() - tok0;
	size_t dups = 0, keyed = 0;
	double ch0 = bench_cpu_now();
	for (long i = 0; i < checks; i++) {
		nd_check_result r = ND_CHECK_RESULT_INIT;
		if (nd_check_text(tk, d, db, st, texts[i], lens[i], NULL, 1, &r) < 0)
			return die("check");
		dups += r.duplicates > 0;
		keyed += r.sig.key != 0;
		nd_check_result_clear(&r);
	}
	double ch = bench_cpu_now() - ch0;
	printf("%-44s %10s %10s\n", "crawl-time check (avg page bytes)", "pages/s", "vs tokenize");
	printf("  tokenize only (%5zu)                       %10.0f %9.2fx\n", bytes / (size_t)checks,
	       checks / tok, 1.0);
	printf("  nd_check_text, compare 1                   %10.0f %9.2fx   (%zu keyed, %zu duplicates found)\n\n",
	       checks / ch, tok / ch, keyed, dups);

	/* 2. Hooks: re-index an existing id with an edited copy, then the hook
	 * (committing its own store writes, or held until the indexer's commit
	 * with group_commit), against re-indexing alone.  The three take turns
	 * a commit (100 documents) at a time, so that the disk's moods, which
	 * moved the ratio by a third between runs done one after the other,
	 * fall on all three alike; the hook's own calls are timed too. */
	nd_hook *h, *hg;
	nd_hook_options ho = ND_HOOK_OPTIONS_INIT;
	ho.max_drift = 0;
	if (nd_hook_open(&h, db, st, &ho) < 0)
		return die("hook");
	ho.group_commit = 1;
	if (nd_hook_open(&hg, db, st, &ho) < 0)
		return die("hook");
	double took[3] = {0}, hooked[3] = {0}, hook_cpu[3] = {0};
	long blocks = (updates + 99) / 100;
	double *round = calloc(3 * (size_t)blocks + 1, sizeof(*round)); /* each turn's seconds */
	if (!round)
		return die("out of memory");
	for (long b = 0; b < 3 * blocks; b++) {
		/* Turns rotate, so that each is first in a third of the rounds:
		 * the first re-indexes pages not touched since they were
		 * indexed (a copy of an original), the next two pages the turn
		 * before re-indexed (one copy into the other: more words
		 * changed, more for Xapian to write). */
		int pos = (int)(b % 3), mode = (int)((pos + b / 3) % 3);
		nd_hook *use = mode == 1 ? h : mode == 2 ? hg : NULL;
		long from = b / 3 * 100, to = from + 100 < updates ? from + 100 : updates;
		double w0 = bench_wall_now(), t;
		for (long i = from; i < to; i++) {
			uint64_t f = (uint64_t)((i * 7919) % fam);
			size_t len;
			char *text = page(f, 1 + (int)((i + pos) % 2), &len), id[32];
			snprintf(id, sizeof(id), "f%llu.0", (unsigned long long)f);
			if (nd_indexer_add_text(ix, id, text, len, NULL, NULL) < 0)
				return die("re-index");
			free(text);
			t = bench_wall_now();
			double c = bench_cpu_now();
			if (use && nd_hook_changed(use, nd_indexer_last_docid(ix), NULL) < 0)
				return die("hook");
			hooked[mode] += bench_wall_now() - t;
			hook_cpu[mode] += bench_cpu_now() - c;
		}
		if (nd_indexer_commit(ix) < 0)
			return die("commit");
		t = bench_wall_now();
		double c = bench_cpu_now();
		if (use && nd_hook_commit(use) < 0)
			return die("commit");
		hooked[mode] += bench_wall_now() - t;
		hook_cpu[mode] += bench_cpu_now() - c;
		long at = 3 * (b / 3) + mode; /* round[] by round, then mode */
		round[at] = bench_wall_now() - w0;
		took[mode] += round[at];
	}
	/* Per round of three turns, each hooked turn against the turn alone
	 * in that round: the median says what a spike of one turn cannot
	 * move. */
	double med[3] = {1, 0, 0}, *ratio = calloc((size_t)blocks + 1, sizeof(*ratio));
	if (!ratio)
		return die("out of memory");
	for (int k = 1; k <= 2; k++) {
		for (long r = 0; r < blocks; r++)
			ratio[r] = round[3 * r + k] / round[3 * r];
		qsort(ratio, (size_t)blocks, sizeof(*ratio), cmp_double);
		med[k] = ratio[blocks / 2];
	}
	free(ratio);
	free(round);
	double base = took[0];
	printf("%-44s %10s %10s %8s\n", "re-index (commit every 100, taking turns)", "docs/s", "cost",
	       "median");
	printf("  indexer alone                              %10.0f %9.2fx %7.2fx\n", updates / base, 1.0, med[0]);
	for (int k = 1; k <= 2; k++)
		printf("  indexer + nd_hook_changed, %-16s%10.0f %9.2fx %7.2fx   (its hook calls: %.0f/s, "
		       "%.0f%% on the CPU)\n",
		       k == 1 ? "own commits" : "group commit", updates / took[k], took[k] / base, med[k],
		       updates / (hooked[k] > 0 ? hooked[k] : 1e-9),
		       100 * hook_cpu[k] / (hooked[k] > 0 ? hooked[k] : 1e-9));
	printf("\n");
	nd_hook_free(h);
	nd_hook_free(hg);

	/* 3. Search latency, one-word and two-word queries, page of 10. */
	nd_xdb *rdb;
	if (nd_xdb_open(&rdb, path, ND_XDB_READ) < 0)
		return die("reader");
	double *lat = malloc((size_t)queries * sizeof(double)), none_mean = 0;
	const char *names[] = {"none", "native", "filter (depth 1000)", "tolerant (depth 1000, Jaccard 0.5)"};
	printf("%-44s %10s %10s %10s\n", "search, 10 per page", "mean ms", "p95 ms", "vs none");
	for (int mode = ND_COLLAPSE_NONE; mode <= ND_COLLAPSE_TOLERANT; mode++) {
		uint64_t qr = 5;
		double sum = 0;
		for (long q = 0; q < queries; q++) {
			char query[64], wa[8], wb[8];
			unsigned a = (unsigned)(bench_rand(&qr) % 2000), b = (unsigned)(bench_rand(&qr) % 8000);
			if (q % 2)
				snprintf(query, sizeof(query), "%s", bench_word(a, wa));
			else
				snprintf(query, sizeof(query), "%s %s", bench_word(a, wa), bench_word(b, wb));
			nd_xdb_hit hits[10];
			size_t nh;
			double s0 = bench_wall_now();
			if (nd_search(rdb, st, query, (nd_collapse_mode)mode, 0, 10, 1000, hits, &nh, NULL) < 0)
				return die("search");
			lat[q] = (bench_wall_now() - s0) * 1e3;
			sum += lat[q];
		}
		qsort(lat, (size_t)queries, sizeof(double), cmp_double);
		double mean = sum / queries;
		if (mode == ND_COLLAPSE_NONE)
			none_mean = mean;
		printf("  %-42s %10.3f %10.3f %9.2fx\n", names[mode], mean, lat[(size_t)(queries * 95 / 100)],
		       mean / none_mean);
	}
	free(lat);
	nd_xdb_close(rdb);

	for (long i = 0; i < checks; i++)
		free(texts[i]);
	free(texts);
	free(lens);
	nd_tokenizer_free(tk);
	nd_descriptor_free(d);
	nd_store_close(st);
	nd_indexer_close(ix);
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpl);
	if (system(cmd) != 0)
		fprintf(stderr, "bench_live: could not remove %s\n", tmpl);
	return 0;
}
