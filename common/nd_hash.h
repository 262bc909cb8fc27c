/* Internal: hashing and a reproducible random generator, shared by the
 * method, verification and the evaluation (not public API). */
#ifndef ND_HASH_H
#define ND_HASH_H

#include <stddef.h>
#include <stdint.h>

static inline uint64_t nd_mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

/* splitmix64: small, fast, and reproducible across platforms. */
typedef struct { uint64_t s; } nd_rng;

static inline uint64_t nd_rng_next(nd_rng *r)
{
	r->s += 0x9e3779b97f4a7c15ULL;
	return nd_mix64(r->s);
}

/* Uniform in [0, n), n > 0. */
static inline uint64_t nd_rng_below(nd_rng *r, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)nd_rng_next(r) * n) >> 64);
}

/* FNV-1a over the bytes, finished by nd_mix64. */
static inline uint64_t nd_hash_bytes(const void *p, size_t n, uint64_t seed)
{
	const unsigned char *s = (const unsigned char *)p; /* C++ includes it too */
	uint64_t h = seed ^ 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < n; i++) {
		h ^= s[i];
		h *= 0x100000001b3ULL;
	}
	return nd_mix64(h);
}

#endif
