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
	/* Diagonal transitions (Ukkonen; Landau and Vishkin): for e = 0, 1,
	 * ..., the furthest row each diagonal j - i reaches with e edits,
	 * sliding along equal words for free.  Near copies, the pairs worth
	 * verifying, cost about n + d^2 rather than the band's n * k; a pair
	 * further apart than k stops after level k. */
	size_t longer = na > nb ? na : nb, *prev, *cur;
	const size_t NONE = SIZE_MAX; /* diagonal not reached at that level */

	if (k >= longer)
		k = longer;
	if ((na > nb ? na - nb : nb - na) > k) {
		*out = k + 1;
		return ND_OK;
	}
	if (k > (SIZE_MAX / sizeof(size_t) - 3) / 2 || !(prev = malloc((2 * k + 3) * sizeof(size_t))) ||
	    !(cur = malloc((2 * k + 3) * sizeof(size_t)))) {
		if (k <= (SIZE_MAX / sizeof(size_t) - 3) / 2)
			free(prev);
		return nd_error_set(ND_ENOMEM, "out of memory for %zu diagonals", 2 * k + 1);
	}
	/* Diagonal d = j - i is at index d + k + 1; the ends are sentinels. */
	size_t goal = nb + k + 1 - na, e;
	for (size_t x = 0; x < 2 * k + 3; x++)
		prev[x] = cur[x] = NONE;
	*out = k + 1;
	for (e = 0; e <= k; e++) {
		size_t lo = k + 1 - (e < na ? e : na), hi = k + 1 + (e < nb ? e : nb);
		cur[lo - 1] = cur[hi + 1] = NONE;
		for (size_t x = lo; x <= hi; x++) {
			/* Row 0 or column 0 of this diagonal: |d| <= e edits away. */
			size_t i = x < k + 1 ? k + 1 - x : 0;
			if (e > 0) {
				/* substitute (same diagonal), delete a word of a (from the
				 * diagonal above), insert a word of b (from the one below) */
				if (prev[x] != NONE && prev[x] + 1 > i)
					i = prev[x] + 1;
				if (prev[x + 1] != NONE && prev[x + 1] + 1 > i)
					i = prev[x + 1] + 1;
				if (prev[x - 1] != NONE && prev[x - 1] > i)
					i = prev[x - 1];
			}
			/* on diagonal x: j = i + x - (k + 1); row i <= na, column j <= nb */
			if (i > na)
				i = na;
			if (i + x > nb + k + 1)
				i = nb + k + 1 - x;
			size_t j = i + x - (k + 1);
			while (i < na && j < nb && a[i] == b[j]) {
				i++;
				j++;
			}
			cur[x] = i;
		}
		if (goal >= lo && goal <= hi && cur[goal] == na) {
			*out = e;
			break;
		}
		size_t *t = prev;
		prev = cur;
		cur = t;
	}
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
