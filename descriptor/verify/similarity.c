/* Exact similarity measures for verifying candidate pairs. */
#include "neardup/similarity.h"
#include "descriptor/verify/verify_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Tokens of x covered by shingles that are in the other text's set. */
static size_t covered(const uint64_t *fp, size_t nwin, size_t n, unsigned w,
		      const uint64_t *other, size_t nother)
{
	size_t count = 0, reach = 0; /* tokens [0, reach) already counted */
	for (size_t i = 0; i < nwin; i++) {
		if (!nd__in_sorted_u64(other, nother, fp[i]))
			continue;
		size_t end = i + w < n ? i + w : n;
		size_t start = i > reach ? i : reach;
		if (end > start)
			count += end - start;
		if (end > reach)
			reach = end;
	}
	return count;
}

int nd_shingle_similarity(const uint32_t *a, size_t na, const uint32_t *b, size_t nb,
			  unsigned w, nd_shingle_sim *out)
{
	uint64_t *fa = NULL, *fb = NULL, *sa = NULL, *sb = NULL;
	memset(out, 0, sizeof(*out));
	if (w == 0)
		return nd_error_set(ND_EINVAL, "shingle width must be positive");
	if (na == 0 || nb == 0)
		return ND_OK;
	size_t wa = na >= w ? na - w + 1 : 1, wb = nb >= w ? nb - w + 1 : 1;
	if (!(fa = malloc(wa * 8)) || !(fb = malloc(wb * 8)) || !(sa = malloc(wa * 8)) ||
	    !(sb = malloc(wb * 8))) {
		free(fa);
		free(fb);
		free(sa);
		return nd_error_set(ND_ENOMEM, "out of memory for %zu + %zu shingles", wa, wb);
	}
	for (size_t i = 0; i < wa; i++)
		sa[i] = fa[i] = nd_shingle_fp(a, na, i, w);
	for (size_t i = 0; i < wb; i++)
		sb[i] = fb[i] = nd_shingle_fp(b, nb, i, w);
	nd__sort_u64(sa, wa);
	nd__sort_u64(sb, wb);
	size_t bag = nd__common_sorted(sa, wa, sb, wb);
	out->bag = (double)bag / (double)(wa + wb - bag);
	size_t ua = nd__unique_sorted_u64(sa, wa), ub = nd__unique_sorted_u64(sb, wb);
	size_t both = nd__common_sorted(sa, ua, sb, ub);
	out->ssr = (double)both / (double)(ua + ub - both);
	out->containment = (double)both / (double)(ua < ub ? ua : ub);
	out->sscr = (double)(covered(fa, wa, na, w, sb, ub) + covered(fb, wb, nb, w, sa, ua)) /
		    (double)(na + nb);
	free(fa);
	free(fb);
	free(sa);
	free(sb);
	return ND_OK;
}

int nd_edit_distance(const uint32_t *a, size_t na, const uint32_t *b, size_t nb,
		     size_t k, size_t *out)
{
	/* Band of diagonals |i - j| <= k over rows of a; cells outside the
	 * band are "infinite".  A row whose band minimum exceeds k proves the
	 * distance does. */
	const uint32_t INF = UINT32_MAX / 2;
	size_t longer = na > nb ? na : nb;
	uint32_t *prev, *cur;

	if (k >= longer)
		k = longer;
	if (longer > INF - 1)
		return nd_error_set(ND_ETOOBIG, "sequences of %zu words", longer);
	if ((na > nb ? na - nb : nb - na) > k) {
		*out = k + 1;
		return ND_OK;
	}
	if (!(prev = malloc((nb + 2) * sizeof(uint32_t))) ||
	    !(cur = malloc((nb + 2) * sizeof(uint32_t)))) {
		free(prev);
		return nd_error_set(ND_ENOMEM, "out of memory for a %zu-word row", nb);
	}
	for (size_t j = 0; j <= nb + 1; j++)
		prev[j] = j <= k ? (uint32_t)j : INF;
	for (size_t i = 1; i <= na; i++) {
		size_t lo = i > k ? i - k : 1, hi = i + k < nb ? i + k : nb;
		uint32_t rowmin;
		cur[lo - 1] = lo == 1 ? (uint32_t)i : INF;
		rowmin = cur[lo - 1];
		for (size_t j = lo; j <= hi; j++) {
			uint32_t v = prev[j - 1] + (a[i - 1] != b[j - 1]);
			if (prev[j] + 1 < v)
				v = prev[j] + 1;
			if (cur[j - 1] + 1 < v)
				v = cur[j - 1] + 1;
			cur[j] = v;
			if (v < rowmin)
				rowmin = v;
		}
		if (hi + 1 <= nb)
			cur[hi + 1] = INF; /* the next row's band reaches one further */
		uint32_t *t = prev;
		prev = cur;
		cur = t;
		if (rowmin > k) {
			*out = k + 1;
			goto done;
		}
	}
	*out = prev[nb] <= k ? prev[nb] : k + 1;
done:
	free(prev);
	free(cur);
	return ND_OK;
}

int nd_levenshtein(const uint32_t *a, size_t na, const uint32_t *b, size_t nb,
		   double bound, double *out, int *exact)
{
	size_t longer = na > nb ? na : nb, k, d;
	int rc;
	*out = 0;
	*exact = 1;
	if (longer == 0)
		return ND_OK;
	k = bound >= 1 ? SIZE_MAX : (size_t)floor(bound * (double)longer);
	if ((rc = nd_edit_distance(a, na, b, nb, k, &d)) < 0)
		return rc;
	*out = (double)d / (double)longer;
	*exact = d <= k;
	return ND_OK;
}
