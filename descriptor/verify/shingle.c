/* Word shingles.  One fingerprint function serves sketches (nd_shingles)
 * and exact measures (similarity.c): a window's fingerprint combines its w
 * word ids by position, so the cost is n*w multiplies and no string is
 * built, and a sketch and a full set of the same text agree. */
#include "neardup/shingle.h"
#include "neardup/similarity.h"
#include "descriptor/verify/verify_internal.h"

#include <stdlib.h>
#include <string.h>

uint64_t nd_shingle_fp(const uint32_t *ids, size_t n, size_t i, unsigned w)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL;
	for (size_t j = i; j < i + w && j < n; j++)
		h = nd_mix64(h ^ ids[j]) + (j - i);
	return h;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* lo: the first of v[0..n) (ascending) not below x. */
#define LOWER_BOUND(v, n, x, lo)                             \
	do {                                                 \
		size_t hi_ = (n);                            \
		for ((lo) = 0; (lo) < hi_;) {                \
			size_t mid_ = (lo) + (hi_ - (lo)) / 2; \
			if ((v)[mid_] < (x))                 \
				(lo) = mid_ + 1;             \
			else                                 \
				hi_ = mid_;                  \
		}                                            \
	} while (0)

size_t nd__lower_bound_u64(const uint64_t *v, size_t n, uint64_t x)
{
	size_t at;
	LOWER_BOUND(v, n, x, at);
	return at;
}

int nd__in_sorted_u64(const uint64_t *v, size_t n, uint64_t x)
{
	size_t at = nd__lower_bound_u64(v, n, x);
	return at < n && v[at] == x;
}

size_t nd__lower_bound_u32(const uint32_t *v, size_t n, uint32_t x)
{
	size_t at;
	LOWER_BOUND(v, n, x, at);
	return at;
}

int nd__in_sorted_u32(const uint32_t *v, size_t n, uint32_t x)
{
	size_t at = nd__lower_bound_u32(v, n, x);
	return at < n && v[at] == x;
}

/* LSD radix sort from bit `from` up, a digit a pass (passes where every
 * value has the same digit are skipped), stable, so the order below it
 * stays: shingle fingerprints are sorted once per compared pair, and
 * qsort's calls through a comparator were a third of a hook's time.
 * Digits of 11 bits for a large array (three passes over 32 bits, not
 * four), of 8 for a small one (fewer counts to add up).  Falls back to
 * qsort when there is no memory for the copy. */
static void radix_u64(uint64_t *v, size_t n, unsigned from)
{
	uint64_t *tmp;
	if (n < 2)
		return; /* in order; and v may be NULL */
	if (n < 64 || !(tmp = malloc(n * sizeof(*tmp)))) {
		qsort(v, n, sizeof(*v), cmp_u64); /* whole values: in order above `from` too */
		return;
	}
	unsigned bits = n >= ((size_t)1 << 16) ? 11 : 8;
	uint64_t mask = ((uint64_t)1 << bits) - 1;
	size_t count[(1u << 11) + 1];
	uint64_t *src = v, *dst = tmp;
	for (unsigned shift = from; shift < 64; shift += bits) {
		memset(count, 0, (mask + 2) * sizeof(*count));
		for (size_t i = 0; i < n; i++)
			count[((src[i] >> shift) & mask) + 1]++;
		if (count[((src[0] >> shift) & mask) + 1] == n)
			continue; /* one digit value: already in order for this digit */
		for (uint64_t b = 1; b <= mask + 1; b++)
			count[b] += count[b - 1];
		for (size_t i = 0; i < n; i++)
			dst[count[(src[i] >> shift) & mask]++] = src[i];
		uint64_t *x = src;
		src = dst, dst = x;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
	free(tmp);
}

void nd__sort_u64(uint64_t *v, size_t n)
{
	radix_u64(v, n, 0);
}

void nd__sort_u64_high(uint64_t *v, size_t n)
{
	radix_u64(v, n, 32);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

void nd__sort_u32(uint32_t *v, size_t n)
{
	uint32_t *tmp;
	if (n < 2)
		return; /* in order; and v may be NULL */
	if (n < 64 || !(tmp = malloc(n * sizeof(*tmp)))) {
		qsort(v, n, sizeof(*v), cmp_u32);
		return;
	}
	uint32_t *src = v, *dst = tmp;
	for (unsigned shift = 0; shift < 32; shift += 8) {
		size_t count[257] = {0};
		for (size_t i = 0; i < n; i++)
			count[((src[i] >> shift) & 0xff) + 1]++;
		if (count[((src[0] >> shift) & 0xff) + 1] == n)
			continue;
		for (unsigned b = 1; b < 257; b++)
			count[b] += count[b - 1];
		for (size_t i = 0; i < n; i++)
			dst[count[(src[i] >> shift) & 0xff]++] = src[i];
		uint32_t *x = src;
		src = dst, dst = x;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
	free(tmp);
}

size_t nd__unique_sorted_u64(uint64_t *v, size_t n)
{
	size_t u = 0;
	for (size_t i = 0; i < n; i++)
		if (u == 0 || v[i] != v[u - 1])
			v[u++] = v[i];
	return u;
}

size_t nd__sort_unique_u64(uint64_t *v, size_t n)
{
	nd__sort_u64(v, n);
	return nd__unique_sorted_u64(v, n);
}

size_t nd__sort_unique_u32(uint32_t *v, size_t n)
{
	size_t u = 0;
	nd__sort_u32(v, n);
	for (size_t i = 0; i < n; i++)
		if (u == 0 || v[i] != v[u - 1])
			v[u++] = v[i];
	return u;
}

int nd_shingles(const nd_token *tokens, size_t n, unsigned w, unsigned m,
		uint64_t **out, size_t *nout)
{
	uint32_t *ids = NULL;
	uint64_t *fp = NULL;
	size_t k = 0, windows;

	*out = NULL;
	*nout = 0;
	if (w == 0 || m == 0)
		return nd_error_set(ND_EINVAL, "shingle width and modulus must be positive");
	if (n == 0)
		return ND_OK;
	windows = n >= w ? n - w + 1 : 1;
	if (!(ids = malloc(n * sizeof(*ids))) || !(fp = malloc(windows * sizeof(*fp)))) {
		free(ids);
		return nd_error_set(ND_ENOMEM, "out of memory for %zu shingles", windows);
	}
	nd_word_ids(tokens, n, ids);
	for (size_t i = 0; i < windows; i++) {
		uint64_t h = nd_shingle_fp(ids, n, i, w);
		if (h % m == 0)
			fp[k++] = h;
	}
	free(ids);
	k = nd__sort_unique_u64(fp, k);
	if (k == 0) {
		free(fp);
		fp = NULL;
	}
	*out = fp;
	*nout = k;
	return ND_OK;
}

/* Also right for sorted multisets: equal runs pair off one for one. */
size_t nd__common_sorted(const uint64_t *a, size_t na, const uint64_t *b, size_t nb)
{
	size_t i = 0, j = 0, both = 0;
	while (i < na && j < nb) {
		if (a[i] == b[j]) {
			both++;
			i++;
			j++;
		} else if (a[i] < b[j])
			i++;
		else
			j++;
	}
	return both;
}

double nd_shingle_resemblance(const uint64_t *a, size_t na, const uint64_t *b, size_t nb)
{
	if (na + nb == 0)
		return 0;
	size_t both = nd__common_sorted(a, na, b, nb);
	return (double)both / (double)(na + nb - both);
}
