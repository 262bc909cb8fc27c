/* The one set join (common/nd_join): on seeded random sets, prefix
 * filtering finds exactly the pairs a scan of all pairs finds, for
 * Jaccard >= t (self-join through an in-memory prefix index) and for
 * Hamming <= k (probing k + 1 rarest elements against full postings). */
#include "tests/test_util.h"
#include "common/nd_join.h"

#include <stdlib.h>
#include <string.h>

#define NSETS 300
#define NELEM 60

typedef struct {
	uint32_t v[16]; /* ascending */
	uint32_t n;
	uint32_t rare[16];
} set_t;

static uint32_t df[NELEM];

static int cmp_rare(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	if (df[x] != df[y])
		return df[x] < df[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static void make_sets(set_t *s, uint64_t seed)
{
	uint64_t rng = seed;
	memset(df, 0, sizeof(df));
	for (int i = 0; i < NSETS; i++) {
		/* a third are copies of an earlier set, half of them edited: pairs to find */
		if (i > 10 && tu_rand(&rng) % 3 == 0) {
			s[i] = s[tu_rand(&rng) % (uint64_t)i];
			if (tu_rand(&rng) % 2) /* else an exact copy */
				s[i].v[tu_rand(&rng) % s[i].n] = (uint32_t)(tu_rand(&rng) % NELEM);
		} else {
			s[i].n = 3 + (uint32_t)(tu_rand(&rng) % 10);
			for (uint32_t j = 0; j < s[i].n; j++)
				s[i].v[j] = (uint32_t)(tu_rand(&rng) % NELEM);
		}
		qsort(s[i].v, s[i].n, sizeof(uint32_t), cmp_u32);
		uint32_t u = 0;
		for (uint32_t j = 0; j < s[i].n; j++)
			if (!u || s[i].v[u - 1] != s[i].v[j])
				s[i].v[u++] = s[i].v[j];
		s[i].n = u;
		for (uint32_t j = 0; j < u; j++)
			df[s[i].v[j]]++;
	}
	for (int i = 0; i < NSETS; i++) {
		memcpy(s[i].rare, s[i].v, s[i].n * sizeof(uint32_t));
		qsort(s[i].rare, s[i].n, sizeof(uint32_t), cmp_rare);
	}
}

static uint32_t common(const set_t *a, const set_t *b)
{
	uint32_t c = 0;
	for (uint32_t x = 0, y = 0; x < a->n && y < b->n;)
		if (a->v[x] == b->v[y])
			c++, x++, y++;
		else if (a->v[x] < b->v[y])
			x++;
		else
			y++;
	return c;
}

static double jaccard(const set_t *a, const set_t *b)
{
	uint32_t c = common(a, b);
	return (double)c / (double)(a->n + b->n - c);
}

static void test_jaccard_self_join(void **state)
{
	(void)state;
	static set_t s[NSETS];
	const double ts[] = {0.3, 0.5, 0.8, 1.0};
	for (uint64_t seed = 1; seed <= 5; seed++) {
		make_sets(s, seed);
		for (size_t ti = 0; ti < sizeof(ts) / sizeof(*ts); ti++) {
			double t = ts[ti];
			nd_prefix_index x;
			uint32_t *cands = NULL;
			size_t cap = 0, found = 0, want = 0;
			assert_int_equal(nd_prefix_index_init(&x, NELEM), ND_OK);
			for (uint32_t i = 0; i < NSETS; i++) {
				size_t nc;
				uint32_t pre = nd_jaccard_prefix(s[i].n, t);
				assert_int_equal(nd_prefix_candidates(s[i].rare, pre, nd_prefix_index_postings, &x, &cands,
								      &nc, &cap), ND_OK);
				for (size_t c = 0; c < nc; c++) {
					assert_true(cands[c] < i);
					assert_true(c == 0 || cands[c - 1] < cands[c]); /* ascending, once */
					found += jaccard(&s[i], &s[cands[c]]) >= t - 1e-12;
				}
				assert_int_equal(nd_prefix_index_add(&x, s[i].rare, pre, i), ND_OK);
				for (uint32_t y = 0; y < i; y++)
					want += jaccard(&s[i], &s[y]) >= t - 1e-12;
			}
			if (found != want)
				fail_msg("seed %llu, t %.1f: the join finds %zu pairs, a scan %zu",
					 (unsigned long long)seed, t, found, want);
			assert_true(want > 0);
			nd_prefix_index_free(&x);
			free(cands);
		}
	}
}

typedef struct {
	uint32_t self, *seen, hits;
	const set_t *s;
	unsigned k;
} hctx;

static int hamming_visit(uint32_t b, void *vctx)
{
	hctx *h = vctx;
	if (b <= h->self || h->seen[b] == h->self + 1)
		return 0;
	h->seen[b] = h->self + 1;
	const set_t *A = &h->s[h->self], *B = &h->s[b];
	h->hits += A->n + B->n - 2 * common(A, B) <= h->k;
	return 0;
}

static void test_hamming_probe(void **state)
{
	(void)state;
	static set_t s[NSETS];
	uint32_t seen[NSETS + 1];
	make_sets(s, 42);
	nd_prefix_index x;
	assert_int_equal(nd_prefix_index_init(&x, NELEM), ND_OK);
	for (uint32_t i = 0; i < NSETS; i++)
		assert_int_equal(nd_prefix_index_add(&x, s[i].v, s[i].n, i), ND_OK);
	for (unsigned k = 0; k <= 3; k++) {
		hctx h = {0, seen, 0, s, k};
		uint32_t want = 0;
		memset(seen, 0, sizeof(seen));
		for (uint32_t a = 0; a < NSETS; a++) {
			h.self = a;
			uint32_t pre = s[a].n < k + 1 ? s[a].n : k + 1;
			assert_int_equal(nd_prefix_probe(s[a].rare, pre, nd_prefix_index_postings, &x, hamming_visit, &h),
					 ND_OK);
			for (uint32_t b = a + 1; b < NSETS; b++)
				want += s[a].n + s[b].n - 2 * common(&s[a], &s[b]) <= k;
		}
		if (h.hits != want)
			fail_msg("Hamming <= %u: the probe finds %u pairs, a scan %u", k, h.hits, want);
		assert_true(want > 0);
	}
	nd_prefix_index_free(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_jaccard_self_join),
		cmocka_unit_test(test_hamming_probe),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
