/* Shared by the benchmark programs. */
#ifndef ND_BENCH_UTIL_H
#define ND_BENCH_UTIL_H

#include <stdint.h>
#include <time.h>

/* CPU seconds of this process: figures do not depend on machine load. */
static inline double bench_cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* splitmix64: seeded, the same corpus on every run. */
static inline uint64_t bench_rand(uint64_t *s)
{
	uint64_t x = (*s += 0x9e3779b97f4a7c15ULL);
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* Wall seconds (hooks and commits wait on the disk). */
static inline double bench_wall_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Word w of a synthetic vocabulary, spelled without digits ("w" and its
 * five decimal digits as letters a-j, then "a"): a word with a digit is a
 * value to the verdict, and a changed value is not an edit. */
static inline const char *bench_word(unsigned w, char out[8])
{
	out[0] = 'w';
	for (int k = 5; k >= 1; k--, w /= 10)
		out[k] = (char)('a' + w % 10);
	out[6] = 'a', out[7] = '\0';
	return out;
}

#endif
