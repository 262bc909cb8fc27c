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

#endif
