/* Cross-check measures: Levenshtein against brute force, Kupietz's
 * worked example, shingle sampling. */
#include "tests/test_util.h"
#include "neardup/shingle.h"
#include "neardup/similarity.h"
#include "neardup/tokenizer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static size_t brute(const uint32_t *a, size_t na, const uint32_t *b, size_t nb)
{
	size_t *d = malloc((na + 1) * (nb + 1) * sizeof(size_t));
#define D(i, j) d[(i) * (nb + 1) + (j)]
	for (size_t i = 0; i <= na; i++)
		D(i, 0) = i;
	for (size_t j = 0; j <= nb; j++)
		D(0, j) = j;
	for (size_t i = 1; i <= na; i++)
		for (size_t j = 1; j <= nb; j++) {
			size_t v = D(i - 1, j - 1) + (a[i - 1] != b[j - 1]);
			if (D(i - 1, j) + 1 < v)
				v = D(i - 1, j) + 1;
			if (D(i, j - 1) + 1 < v)
				v = D(i, j - 1) + 1;
			D(i, j) = v;
		}
	size_t r = D(na, nb);
#undef D
	free(d);
	return r;
}

/* Random pairs over small alphabets, half of them edited copies, so that
 * distances cover both sides of every cut-off. */
static void test_edit_distance_property(void **state)
{
	(void)state;
	uint64_t rng = 2024;
	uint32_t a[64], b[80];
	int agreed_below = 0, cut = 0;
	for (int trial = 0; trial < 3000; trial++) {
		size_t na = tu_rand(&rng) % 41, alpha = 1 + tu_rand(&rng) % 6, nb;
		for (size_t i = 0; i < na; i++)
			a[i] = (uint32_t)(tu_rand(&rng) % alpha);
		if (trial % 2) {
			nb = tu_rand(&rng) % 41;
			for (size_t i = 0; i < nb; i++)
				b[i] = (uint32_t)(tu_rand(&rng) % alpha);
		} else {
			nb = 0;
			for (size_t i = 0; i < na && nb < 78; i++) {
				uint64_t r = tu_rand(&rng) % 10;
				if (r == 0)
					continue;                        /* delete */
				if (r == 1)
					b[nb++] = 99;                    /* insert */
				b[nb++] = r == 2 ? 77 : a[i];        /* substitute or keep */
			}
		}
		size_t want = brute(a, na, b, nb), got;
		assert_int_equal(nd_edit_distance(a, na, b, nb, SIZE_MAX, &got), ND_OK);
		assert_int_equal(got, want);
		size_t ks[] = {0, 1, 2, 3, 5, 8, 13, tu_rand(&rng) % 45};
		for (size_t q = 0; q < sizeof(ks) / sizeof(ks[0]); q++) {
			assert_int_equal(nd_edit_distance(a, na, b, nb, ks[q], &got), ND_OK);
			if (want <= ks[q]) {
				assert_int_equal(got, want);
				agreed_below++;
			} else {
				assert_int_equal(got, ks[q] + 1);
				cut++;
			}
		}
	}
	/* Both branches were exercised many times. */
	assert_true(agreed_below > 2000);
	assert_true(cut > 2000);
}

/* Long documents, as verification sees them: edited copies (a few edits,
 * in runs, over large and two-word alphabets, the latter long slides along
 * repeats) and unrelated texts, at the 8% cut-off and exactly. */
static void test_edit_distance_long(void **state)
{
	(void)state;
	uint64_t rng = 77;
	enum { N = 1500 };
	uint32_t *a = malloc(N * sizeof(uint32_t)), *b = malloc((2 * N + 8) * sizeof(uint32_t));
	int near = 0, far = 0;
	for (int trial = 0; trial < 24; trial++) {
		size_t na = 200 + tu_rand(&rng) % (N - 200), nb = 0, alpha = trial % 3 == 0 ? 2 : 5000;
		for (size_t i = 0; i < na; i++)
			a[i] = (uint32_t)(tu_rand(&rng) % alpha);
		if (trial % 4 == 3) {
			nb = 200 + tu_rand(&rng) % (N - 200);
			for (size_t i = 0; i < nb; i++)
				b[i] = (uint32_t)(tu_rand(&rng) % alpha);
		} else {
			uint64_t rate = 10 + tu_rand(&rng) % 200; /* one edit run per `rate` words */
			for (size_t i = 0; i < na; i++) {
				if (tu_rand(&rng) % rate == 0) {
					size_t run = 1 + tu_rand(&rng) % 4;
					for (size_t r = 0; r < run && i < na; r++, i++)
						switch (tu_rand(&rng) % 3) {
						case 0: break;                                   /* delete */
						case 1: b[nb++] = 9000000; b[nb++] = a[i]; break; /* insert */
						default: b[nb++] = 8000000;                      /* substitute */
						}
					if (i >= na)
						break;
				}
				b[nb++] = a[i];
			}
		}
		size_t want = brute(a, na, b, nb), got, longer = na > nb ? na : nb, k = longer * 8 / 100;
		assert_int_equal(nd_edit_distance(a, na, b, nb, SIZE_MAX, &got), ND_OK);
		assert_int_equal(got, want);
		assert_int_equal(nd_edit_distance(a, na, b, nb, k, &got), ND_OK);
		assert_int_equal(got, want <= k ? want : k + 1);
		if (want <= k)
			near++;
		else
			far++;
	}
	assert_true(near >= 6 && far >= 6);
	free(a);
	free(b);
}

static void test_levenshtein_normalized(void **state)
{
	(void)state;
	uint32_t a[100], b[100];
	double d;
	int exact;
	for (uint32_t i = 0; i < 100; i++)
		a[i] = b[i] = i;
	b[10] = 1000;
	b[50] = 1001;           /* two substitutions in 100 words */
	assert_int_equal(nd_levenshtein(a, 100, b, 100, 0.08, &d, &exact), ND_OK);
	assert_true(exact);
	assert_true(fabs(d - 0.02) < 1e-12);
	for (uint32_t i = 0; i < 100; i += 5)
		b[i] = 2000 + i;    /* now 20+ substitutions: over the bound */
	assert_int_equal(nd_levenshtein(a, 100, b, 100, 0.08, &d, &exact), ND_OK);
	assert_false(exact);
	assert_true(d > 0.08);
	assert_int_equal(nd_levenshtein(a, 100, b, 100, 1.0, &d, &exact), ND_OK);
	assert_true(exact);
	assert_true(fabs(d - 0.20) < 1e-12); /* 20 positions differ (10 and 50 among them) */
	assert_int_equal(nd_levenshtein(a, 0, b, 0, 0.08, &d, &exact), ND_OK);
	assert_true(d == 0 && exact);
	assert_int_equal(nd_levenshtein(a, 0, b, 10, 0.08, &d, &exact), ND_OK);
	assert_false(exact);
}

/* Kupietz, example 1: two normalised newspaper texts, 5-shingles. */
static const char *text_a[] = {"DIETER", "RULFF", "FREIER", "JOURNALIST", "BERLIN", "LANGEN",
	"JAHREN", "TAZ", "ZULETZT", "LEITENDER", "REDAKTEUR", "WOCHENZEITUNG", "WOCHEN",
	"INTERESSE", "GILT", "SEIT", "LANGEM", "ENTWICKLUNG", "DEUTSCHEN", "INNEN", "UND",
	"PARTEIPOLITIK"};
static const char *text_b[] = {"DIETER", "RULFF", "FREIER", "JOURNALIST", "BERLIN", "VIELEN",
	"JAHREN", "TAZ", "ZULETZT", "LEITENDER", "REDAKTEUR", "ZEITUNG", "WOCHEN",
	"INTERESSE", "GILT", "SEIT", "LANGEM", "ENTWICKLUNG", "DEUTSCHEN", "INNEN", "UND",
	"PARTEIPOLITIK"};

static void test_seed004_example(void **state)
{
	(void)state;
	uint32_t a[22], b[22];
	nd_shingle_sim s;
	for (int i = 0; i < 22; i++) {
		a[i] = nd_word_id(text_a[i], strlen(text_a[i]));
		b[i] = nd_word_id(text_b[i], strlen(text_b[i]));
	}
	assert_int_equal(nd_shingle_similarity(a, 22, b, 22, 5, &s), ND_OK);
	assert_true(fabs(s.ssr - 8.0 / 28.0) < 1e-9);   /* 0.2857 */
	assert_true(fabs(s.sscr - 40.0 / 44.0) < 1e-9); /* 0.9091 */
	assert_true(s.sscr >= s.ssr);
	assert_true(fabs(s.containment - 8.0 / 18.0) < 1e-9);
	assert_true(fabs(s.bag - 8.0 / 28.0) < 1e-9); /* no repeats: bag == set */
	/* Repetition: "x" 1000 times against the same plus one word.  The sets
	 * are {x^5} and {x^5, x^4 y}: ssr 1/2; the bags share 996 of 997. */
	uint32_t *rep = calloc(1001, sizeof(uint32_t));
	rep[1000] = 7;
	assert_int_equal(nd_shingle_similarity(rep, 1000, rep, 1001, 5, &s), ND_OK);
	assert_true(fabs(s.ssr - 0.5) < 1e-12);
	assert_true(fabs(s.bag - 996.0 / 997.0) < 1e-12);
	free(rep);
	/* A text inside another is fully contained. */
	assert_int_equal(nd_shingle_similarity(a, 12, a, 22, 5, &s), ND_OK);
	assert_true(fabs(s.containment - 1.0) < 1e-12);
	assert_true(s.ssr < 0.5);
	/* Identical texts. */
	assert_int_equal(nd_shingle_similarity(a, 22, a, 22, 5, &s), ND_OK);
	assert_true(s.ssr == 1.0 && s.sscr == 1.0);
	/* Texts shorter than w are one shingle. */
	assert_int_equal(nd_shingle_similarity(a, 3, a, 3, 5, &s), ND_OK);
	assert_true(s.ssr == 1.0);
}

static void test_shingle_sampling(void **state)
{
	(void)state;
	nd_tokenizer *tk;
	const nd_token *t;
	size_t n, n1, n16, n16b;
	uint64_t *all, *s16, *s16b, rng = 5;
	char *doc = tu_random_doc(&rng, 2000, 500);
	assert_int_equal(nd_tokenizer_new(&tk), ND_OK);
	assert_int_equal(nd_tokenize(tk, doc, strlen(doc), 0, &t, &n, NULL), ND_OK);
	assert_int_equal(nd_shingles(t, n, 10, 1, &all, &n1), ND_OK);
	assert_int_equal(nd_shingles(t, n, 10, 16, &s16, &n16), ND_OK);
	assert_int_equal(nd_shingles(t, n, 10, 16, &s16b, &n16b), ND_OK);
	assert_int_equal(n16, n16b);                      /* deterministic */
	assert_memory_equal(s16, s16b, n16 * sizeof(uint64_t));
	assert_true(n1 > 1900);                           /* ~1991 windows, nearly all distinct */
	assert_true(n16 > n1 / 32 && n16 < n1 / 8);       /* about 1 in 16 kept */
	for (size_t i = 0; i < n16; i++) {
		assert_int_equal(s16[i] % 16, 0);
		assert_true(i == 0 || s16[i] > s16[i - 1]);   /* sorted, distinct */
	}
	assert_true(nd_shingle_resemblance(s16, n16, all, n1) > 0.04);
	free(all);
	free(s16);
	free(s16b);
	free(doc);
	nd_tokenizer_free(tk);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_edit_distance_property),
		cmocka_unit_test(test_edit_distance_long),
		cmocka_unit_test(test_levenshtein_normalized),
		cmocka_unit_test(test_seed004_example),
		cmocka_unit_test(test_shingle_sampling),
	};
	return cmocka_run_group_tests_name("similarity", tests, NULL, NULL);
}
