/* Benchmark: verifying a candidate pair by word Levenshtein with the 8%
 * cut-off vs the full table, for typical (300 words) and long (5,000
 * words) documents, near-duplicates (4% edited) and unrelated pairs.
 *
 *   bench_verify [--pairs N]     (default 200) */
#include "neardup/similarity.h"

#include "bench/bench_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


static double run(size_t n, int related, double bound, int pairs, uint64_t *rng, int *accepted)
{
	uint32_t *a = malloc(n * 4), *b = malloc(n * 4);
	double total = 0;
	*accepted = 0;
	for (int p = 0; p < pairs; p++) {
		for (size_t i = 0; i < n; i++)
			a[i] = (uint32_t)(bench_rand(rng) % 20000);
		for (size_t i = 0; i < n; i++)
			b[i] = related ? (bench_rand(rng) % 25 == 0 ? (uint32_t)(bench_rand(rng) % 20000) : a[i])
				       : (uint32_t)(bench_rand(rng) % 20000);
		double d, t0 = bench_cpu_now();
		int exact;
		nd_levenshtein(a, n, b, n, bound, &d, &exact);
		total += bench_cpu_now() - t0;
		*accepted += exact && d <= 0.08;
	}
	free(a);
	free(b);
	return total / pairs;
}

int main(int argc, char **argv)
{
	int pairs = 200;
	if (argc == 3 && !strcmp(argv[1], "--pairs"))
		pairs = atoi(argv[2]);
	else if (argc != 1) {
		fprintf(stderr, "usage: bench_verify [--pairs N]\n");
		return 2;
	}
	uint64_t rng = 1;
	printf("%-34s %12s %12s %10s %8s\n", "pair (words, kind)", "cut-off ms", "full DP ms",
	       "speed-up", "pairs/s");
	size_t sizes[] = {300, 5000};
	for (int s = 0; s < 2; s++)
		for (int related = 1; related >= 0; related--) {
			int acc_cut, acc_full;
			int np = sizes[s] > 1000 ? (pairs / 10 ? pairs / 10 : 1) : pairs;
			double cut = run(sizes[s], related, 0.08, np, &rng, &acc_cut);
			double full = run(sizes[s], related, 1.0, np, &rng, &acc_full);
			char label[64];
			snprintf(label, sizeof(label), "%zu, %s", sizes[s],
				 related ? "near-duplicate (4% edited)" : "unrelated");
			printf("%-34s %12.3f %12.3f %9.1fx %8.0f\n", label, cut * 1e3, full * 1e3,
			       full / cut, 1 / cut);
			if (acc_cut != acc_full) {
				fprintf(stderr, "cut-off and full DP disagree on acceptance\n");
				return 1;
			}
		}
	return 0;
}
