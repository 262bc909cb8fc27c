/* Benchmark: the cost of opening a store, against its size.
 *
 *   bench_open STORE [--runs N]
 *
 * Each run is a fresh process (fork), so that what one open pulls into
 * memory is not the next one's: it opens the store for reading and closes
 * it, and reports wall milliseconds and how much its peak resident set grew.
 * Trusted: the file is unchanged since its last check (the store's
 * marker), so only its meta pages are read; walked: every page is checked
 * (ND_STORE_CHECK, what fsck does, and what every open did before).  The
 * ratio of the two is printed, measured in the same run. */
#include "neardup/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Peak resident set so far, KiB: the walk maps the whole file and
 * unmaps it, so the peak is what it cost. */
static long rss_kb(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/* One open in a child: ms and KiB grown, through a pipe. */
static int one(const char *store, int mode, double *ms, long *kb)
{
	int fd[2];
	if (pipe(fd) < 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		nd_store *st;
		close(fd[0]);
		long before = rss_kb();
		double t0 = now_ms();
		int rc = nd_store_open(&st, store, mode);
		double t = now_ms() - t0;
		long grown = rss_kb() - before;
		nd_store_close(st);
		double out[2] = {rc == ND_OK ? t : -1, (double)grown};
		_exit(write(fd[1], out, sizeof(out)) == (ssize_t)sizeof(out) ? 0 : 1);
	}
	close(fd[1]);
	double in[2] = {-1, 0};
	ssize_t got = read(fd[0], in, sizeof(in));
	close(fd[0]);
	waitpid(pid, NULL, 0);
	if (got != (ssize_t)sizeof(in) || in[0] < 0)
		return -1;
	*ms = in[0], *kb = (long)in[1];
	return 0;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int runs = 7;
	if (argc < 2) {
		fprintf(stderr, "usage: bench_open STORE [--runs N]\n");
		return 2;
	}
	if (argc == 4 && !strcmp(argv[2], "--runs"))
		runs = atoi(argv[3]) > 0 ? atoi(argv[3]) : runs;
	const char *store = argv[1];
	char file[4096];
	struct stat sb;
	snprintf(file, sizeof(file), "%s/data.mdb", store);
	if (stat(file, &sb) < 0) {
		fprintf(stderr, "bench_open: %s: no store\n", store);
		return 1;
	}
	/* One walk first, which leaves the marker (and warms the cache alike for both). */
	double ms;
	long kb;
	if (one(store, ND_STORE_READ, &ms, &kb) < 0) {
		fprintf(stderr, "bench_open: %s: cannot open: %s\n", store, nd_error_last());
		return 1;
	}
	double t[2][64];
	long k[2] = {0, 0};
	runs = runs > 64 ? 64 : runs;
	for (int r = 0; r < runs; r++)
		for (int m = 0; m < 2; m++) {
			if (one(store, m ? ND_STORE_READ | ND_STORE_CHECK : ND_STORE_READ, &t[m][r], &kb) < 0) {
				fprintf(stderr, "bench_open: %s: cannot open\n", store);
				return 1;
			}
			k[m] = kb > k[m] ? kb : k[m];
		}
	qsort(t[0], (size_t)runs, sizeof(double), cmp_d);
	qsort(t[1], (size_t)runs, sizeof(double), cmp_d);
	printf("store %s: %.0f MiB\n", store, sb.st_size / 1048576.0);
	printf("  open, trusted snapshot: %8.2f ms median, resident +%ld KiB\n", t[0][runs / 2], k[0]);
	printf("  open, every page walked: %7.2f ms median, resident +%ld KiB\n", t[1][runs / 2], k[1]);
	printf("  walked / trusted: %.0fx the time, %.0fx the memory\n", t[1][runs / 2] / (t[0][runs / 2] > 0 ? t[0][runs / 2] : 1e-3),
	       (double)k[1] / (k[0] > 0 ? (double)k[0] : 1.0));
	return 0;
}
