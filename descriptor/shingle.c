/* Word shingles: each token is hashed once, each window's fingerprint
 * combines its w token hashes by position, so the cost is n*w multiplies
 * and no string is built. */
#include "neardup/shingle.h"
#include "descriptor/desc_internal.h"

#include <stdlib.h>

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

int nd_shingles(const nd_token *tokens, size_t n, unsigned w, unsigned m,
		uint64_t **out, size_t *nout)
{
	uint64_t *th = NULL, *fp = NULL;
	size_t k = 0, windows;

	*out = NULL;
	*nout = 0;
	if (w == 0 || m == 0)
		return nd_error_set(ND_EINVAL, "shingle width and modulus must be positive");
	if (n == 0)
		return ND_OK;
	windows = n >= w ? n - w + 1 : 1;
	if (!(th = malloc(n * sizeof(*th))) || !(fp = malloc(windows * sizeof(*fp)))) {
		free(th);
		return nd_error_set(ND_ENOMEM, "out of memory for %zu shingles", windows);
	}
	for (size_t i = 0; i < n; i++)
		th[i] = nd_hash_bytes(tokens[i].text, tokens[i].len, 0x73686e67ULL);
	for (size_t i = 0; i < windows; i++) {
		uint64_t h = 0x9e3779b97f4a7c15ULL;
		for (size_t j = i; j < i + w && j < n; j++)
			h = nd_mix64(h ^ th[j]) + j - i;
		if (h % m == 0)
			fp[k++] = h;
	}
	free(th);
	qsort(fp, k, sizeof(*fp), cmp_u64);
	size_t u = 0;
	for (size_t i = 0; i < k; i++)
		if (u == 0 || fp[i] != fp[u - 1])
			fp[u++] = fp[i];
	if (u == 0) {
		free(fp);
		fp = NULL;
	}
	*out = fp;
	*nout = u;
	return ND_OK;
}

double nd_shingle_resemblance(const uint64_t *a, size_t na, const uint64_t *b, size_t nb)
{
	size_t i = 0, j = 0, both = 0;
	if (na + nb == 0)
		return 0;
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
	return (double)both / (double)(na + nb - both);
}
