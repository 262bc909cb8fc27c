/* Benchmark: a feed window over an endless stream.  Articles arrive one a
 * minute, each indexed and hooked (nd_hook_changed), a quarter of them a
 * light copy of the article ten minutes before; the store keeps a window
 * of W minutes by a date value slot.  The same stream runs twice in one
 * process, without a window and with one, and at each tenth of it prints
 * the store's records, its file size, this process's resident memory and
 * the hook rate, then the ratios of the end to the first window's worth.
 *
 *   bench_window [--window W] [--times T] [--words N]
 *                (defaults 2000 articles, 10 windows, 1000 words) */
#include "neardup/descriptor.h"
#include "neardup/hook.h"
#include "neardup/indexer.h"
#include "neardup/window.h"

#include "bench/bench_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define VOCAB 30000
#define DATE_SLOT 5
#define T0 1764000000ull

/* A ~2 KB article n (about 300 words, Zipf-like); copy: 3 words changed. */
static char *article(uint64_t n, int copy, size_t *len)
{
	uint64_t rng = 91 + n * 1000003, erng = n * 7 + 1;
	size_t words = 300, cap = words * 10 + 1, off = 0;
	char *t = malloc(cap);
	for (size_t i = 0; i < words; i++) {
		uint64_t r = bench_rand(&rng);
		double u = (double)(r >> 11) / 9007199254740992.0;
		uint64_t w = (uint64_t)(VOCAB * u * u * u);
		if (copy && bench_rand(&erng) % 100 == 0)
			w = bench_rand(&erng) % VOCAB;
		char wd[8];
		off += (size_t)snprintf(t + off, cap - off, "%s ", bench_word((unsigned)w, wd));
	}
	*len = off;
	return t;
}

static double rss_mib(void)
{
	long pages = 0, resident = 0;
	FILE *f = fopen("/proc/self/statm", "r");
	if (f) {
		if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
			resident = 0;
		fclose(f);
	}
	return resident * (double)sysconf(_SC_PAGESIZE) / (1 << 20);
}

static double file_mib(const char *dir)
{
	char p[600];
	struct stat s;
	snprintf(p, sizeof(p), "%s/data.mdb", dir);
	return stat(p, &s) == 0 ? s.st_blocks * 512.0 / (1 << 20) : 0;
}

static int die(const char *what)
{
	fprintf(stderr, "bench_window: %s: %s\n", what, nd_error_last());
	return 1;
}

static int add(nd_indexer *ix, const char *id, uint64_t n, int copy, uint64_t minute)
{
	size_t len;
	char *t = article(n, copy, &len), v[32];
	int rc = nd_indexer_add_text(ix, id, t, len, NULL, NULL);
	free(t);
	snprintf(v, sizeof(v), "%llu", (unsigned long long)(T0 + minute * 60));
	if (rc == ND_OK)
		rc = nd_xdb_set_value(nd_indexer_db(ix), nd_indexer_last_docid(ix), DATE_SLOT, v, strlen(v));
	return rc;
}

typedef struct {
	double store_mib, rss, records;
} point;

/* One pass over the stream; at[k] gets the figures after k+1 tenths. */
static int pass(const char *root, int windowed, long window, long times, unsigned words, point *at,
		double *copies_found)
{
	char path[512], spath[512];
	snprintf(path, sizeof(path), "%s/db%d", root, windowed);
	snprintf(spath, sizeof(spath), "%s/store%d", root, windowed);
	nd_indexer *ix;
	nd_index_options io = ND_INDEX_OPTIONS_INIT;
	if (nd_indexer_open(&ix, path, &io) < 0)
		return die(path);
	/* The first window's worth builds the set, as a feed's first day would. */
	char id[32];
	long total = window * times, tenth = total / 10, tried = 0, found = 0;
	nd_docid *docid_of = malloc((size_t)(window + total) * sizeof(*docid_of)); /* article -> docid */
	if (!docid_of)
		return die("out of memory");
	for (long n = 0; n < window; n++) {
		snprintf(id, sizeof(id), "a%ld", n);
		if (add(ix, id, (uint64_t)n, 0, (uint64_t)n) < 0)
			return die("index");
		docid_of[n] = nd_indexer_last_docid(ix);
	}
	if (nd_indexer_commit(ix) < 0)
		return die("commit");
	nd_xdb *db = nd_indexer_db(ix);
	nd_store *st;
	nd_descriptor *d;
	nd_build_options bo = ND_BUILD_OPTIONS_INIT;
	bo.words = words;
	if (nd_descriptor_build(&d, db, &bo, NULL) < 0 || nd_store_open(&st, spath, ND_STORE_WRITE) < 0 ||
	    nd_descriptor_save(d, st, db, &bo) < 0)
		return die("build");
	nd_descriptor_free(d);
	nd_window w = {(uint64_t)window * 60, DATE_SLOT};
	if (windowed && nd_window_set(st, &w) < 0)
		return die("window");
	if (nd_sign_all(st, db, NULL, NULL) < 0)
		return die("sign");
	nd_hook *h;
	nd_hook_options ho = ND_HOOK_OPTIONS_INIT;
	ho.max_drift = 0;
	if (nd_hook_open(&h, db, st, &ho) < 0)
		return die("hook");
	double t = bench_wall_now();
	printf("%s\n  %-8s %10s %10s %10s %10s\n", windowed ? "with a window" : "without a window", "articles",
	       "records", "store MiB", "RSS MiB", "hooks/s");
	for (long n = window, k = 0; n < window + total; n++) {
		nd_hook_result r = ND_HOOK_RESULT_INIT;
		snprintf(id, sizeof(id), "a%ld", n);
		if (add(ix, id, (uint64_t)n, 0, (uint64_t)n) < 0 ||
		    nd_hook_changed(h, docid_of[n] = nd_indexer_last_docid(ix), NULL) < 0)
			return die("hook");
		if (n % 4 == 0) {
			/* Found: its original is among its duplicates. */
			snprintf(id, sizeof(id), "c%ld", n);
			if (add(ix, id, (uint64_t)(n - 10), 1, (uint64_t)n) < 0 ||
			    nd_hook_changed(h, nd_indexer_last_docid(ix), &r) < 0)
				return die("hook");
			tried++;
			for (size_t i = 0; i < r.nduplicates; i++)
				if (r.duplicates[i].docid == docid_of[n - 10]) {
					found++;
					break;
				}
			nd_hook_result_clear(&r);
		}
		if (n % 100 == 0 && nd_indexer_commit(ix) < 0)
			return die("commit");
		if ((n - window + 1) % tenth == 0) {
			nd_store_txn *txn;
			uint64_t recs = 0;
			if (nd_store_read_begin(st, &txn) == ND_OK) {
				nd_store_counts(txn, &recs, NULL);
				nd_store_txn_end(txn);
			}
			double now = bench_wall_now();
			at[k] = (point){file_mib(spath), rss_mib(), (double)recs};
			printf("  %-8ld %10llu %10.1f %10.1f %10.0f\n", n - window + 1, (unsigned long long)recs,
			       at[k].store_mib, at[k].rss, (tenth + tenth / 4) / (now - t));
			fflush(stdout);
			t = now;
			k++;
		}
	}
	*copies_found = tried ? (double)found / tried : 0;
	free(docid_of);
	nd_hook_free(h);
	nd_store_close(st);
	if (nd_indexer_close(ix) < 0)
		return die("close");
	return 0;
}

int main(int argc, char **argv)
{
	long window = 2000, times = 10, words = 1000;
	for (int i = 1; i + 1 < argc; i += 2) {
		long v = atol(argv[i + 1]);
		if (!strcmp(argv[i], "--window")) window = v;
		else if (!strcmp(argv[i], "--times")) times = v;
		else if (!strcmp(argv[i], "--words")) words = v;
		else v = 0;
		if (v <= 0 || (!strcmp(argv[i], "--times") && v < 2)) {
			fprintf(stderr, "usage: bench_window [--window W] [--times T >= 2] [--words N]\n");
			return 2;
		}
	}
	if (argc % 2 == 0) {
		fprintf(stderr, "usage: bench_window [--window W] [--times T >= 2] [--words N]\n");
		return 2;
	}
	if (window * times < 10) {
		fprintf(stderr, "bench_window: the stream needs at least 10 articles\n");
		return 2;
	}
	char root[] = "/tmp/nd-bench-window-XXXXXX";
	if (!mkdtemp(root))
		return die("mkdtemp");
	point off[10], on[10];
	double found_off, found_on;
	printf("a stream of %ld articles (%ld windows of %ld, one a minute) and a copy of every 4th, "
	       "hooked one by one\n\n", window * times, times, window);
	if (pass(root, 0, window, times, (unsigned)words, off, &found_off) ||
	    pass(root, 1, window, times, (unsigned)words, on, &found_on))
		return 1;
	/* From the first tenth that holds a whole window to the end. */
	int first = (int)(10 / times) - 1;
	if (first < 0)
		first = 0;
	printf("\nend / after %d%% of the stream      without   with a window\n", (first + 1) * 10);
	printf("  records                        %7.2fx   %7.2fx\n", off[9].records / off[first].records,
	       on[9].records / on[first].records);
	printf("  store file                     %7.2fx   %7.2fx\n", off[9].store_mib / off[first].store_mib,
	       on[9].store_mib / on[first].store_mib);
	printf("  resident memory                %7.2fx   %7.2fx\n", off[9].rss / off[first].rss,
	       on[9].rss / on[first].rss);
	printf("copies of an article 10 minutes older found: %.3f without, %.3f with a window\n", found_off,
	       found_on);
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : 1;
}
