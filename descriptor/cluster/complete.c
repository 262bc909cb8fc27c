/* Average linkage over sparse candidates, and completed averages (see
 * neardup/cluster.h).
 *
 * Average linkage counts a pair the candidates lack as 0.  The
 * near-neighbour index gives a document a few dozen partners, so a
 * 30-page story is linked only here and there, and its pieces' average
 * falls below the cut although most of their cross pairs are above it.
 * A first linkage gives tentative clusters; the pairs inside and across
 * those that a candidate links, where the two sides are too large for the
 * index to have proposed most of their pairs, are scored too (within a
 * budget of pairs a document), and the caller links again.  One round
 * only: on the 1M scale corpus a second and later rounds joined the
 * clusters of the first into ever larger ones of unrelated pages
 * (precision 0.977 -> 0.914, 5M pairs added). */
#include "neardup/cluster.h"
#include "descriptor/cluster/cluster_internal.h"
#include "descriptor/verify/verify_internal.h"

#include <stdlib.h>

uint32_t nd__root(uint32_t *up, uint32_t x)
{
	while (up[x] != x)
		x = up[x] = up[up[x]];
	return x;
}

void nd__join(uint32_t *up, uint32_t a, uint32_t b)
{
	a = nd__root(up, a);
	b = nd__root(up, b);
	if (a != b)
		up[a < b ? b : a] = a < b ? a : b;
}

int nd__components(size_t n, const uint64_t *pair, const float *score, const uint8_t *yes, uint8_t mask,
		   size_t np, double at_least, uint32_t **upp)
{
	uint32_t *up = malloc((n + 1) * sizeof(*up));
	if (!(*upp = up))
		return nd_error_set(ND_ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++)
		up[i] = (uint32_t)i;
	for (size_t i = 0; i < np; i++)
		if (score ? score[i] >= at_least : (yes[i] & mask) != 0)
			nd__join(up, (uint32_t)(pair[i] >> 32), (uint32_t)pair[i]);
	return ND_OK;
}

int nd_linkage_sparse(size_t n, const uint64_t *pair, const float *score, size_t np, double cut, size_t *into,
		      uint64_t *linked)
{
	uint32_t *up = NULL;
	nd_scored *kept = NULL;
	size_t nkept = 0;
	int rc = ND_OK;

	if (n >= UINT32_MAX)
		return nd_error_set(ND_EINVAL, "too many documents for average linkage (%zu)", n);
	for (size_t i = 0; i < np; i++)
		if ((uint32_t)(pair[i] >> 32) >= n || (uint32_t)pair[i] >= n)
			return nd_error_set(ND_EINVAL, "pair (%u, %u) of %zu documents", (unsigned)(pair[i] >> 32),
					    (unsigned)(uint32_t)pair[i], n);
	/* Average linkage never joins across a gap where every cross pair is
	 * below the cut: only pairs inside a component of pairs >= cut count. */
	if ((rc = nd__components(n, pair, score, NULL, 0, np, cut, &up)) < 0)
		return rc;
	for (size_t i = 0; i < np; i++)
		nkept += score[i] > 0 && nd__root(up, (uint32_t)(pair[i] >> 32)) == nd__root(up, (uint32_t)pair[i]);
	if (!(kept = malloc((nkept + 1) * sizeof(*kept)))) {
		rc = nd_error_set(ND_ENOMEM, "out of memory for %zu linked pairs", nkept);
		goto done;
	}
	nkept = 0;
	for (size_t i = 0; i < np; i++) {
		uint32_t a = (uint32_t)(pair[i] >> 32), b = (uint32_t)pair[i];
		if (score[i] > 0 && nd__root(up, a) == nd__root(up, b))
			kept[nkept++] = (nd_scored){a, b, score[i]};
	}
	free(up);
	up = NULL;
	if (linked)
		*linked += nkept;
	rc = nd_average_linkage_clusters(n, kept, nkept, cut, into);
done:
	free(up);
	free(kept);
	return rc;
}

/* Tentative clusters c < d (c == d: within c) that a candidate links. */
typedef struct {
	uint64_t key;   /* c << 32 | d */
	double sum;     /* of the candidates' scores between them */
	uint64_t known; /* candidates between them */
	double mean;    /* sum over every pair between them */
	uint64_t add;   /* pairs completion would add */
} cluster_link;

static int by_key(const void *x, const void *y)
{
	const cluster_link *a = x, *b = y;
	return a->key < b->key ? -1 : a->key > b->key;
}

/* Highest mean first; ties by key, so the choice is reproducible. */
static int by_mean(const void *x, const void *y)
{
	const cluster_link *a = x, *b = y;
	if (a->mean != b->mean)
		return a->mean > b->mean ? -1 : 1;
	return by_key(x, y);
}

/* Whether candidate p (score v) links tentative clusters whose two sides
 * hold min_docs documents (a cluster with itself: twice its size); two
 * lone documents never do, having no pair beyond their candidate. */
static int linkable(const size_t *into, const uint32_t *size, uint64_t p, float v, size_t min_docs)
{
	size_t c = into[p >> 32], d = into[(uint32_t)p], docs = (size_t)size[c] + size[d];
	return v > 0 && docs > 2 && docs >= min_docs;
}

int nd_linkage_complete(size_t n, uint64_t **pairp, float **scorep, size_t *np, double cut, size_t budget,
			size_t min_docs, nd_score_pairs_fn fn, void *ctx, size_t *added)
{
	uint64_t *pair = *pairp, *fresh = NULL;
	float *score = *scorep, *fsc = NULL;
	size_t m = *np, nl = 0, nfresh = 0, *into = NULL;
	uint32_t *size = NULL, *start = NULL, *member = NULL;
	cluster_link *l = NULL;
	int rc;

	if (added)
		*added = 0;
	if (n < 2 || m == 0 || budget == 0)
		return ND_OK;
	if (!(into = malloc(n * sizeof(*into))) || !(size = calloc(n + 1, sizeof(*size))))
		return free(into), nd_error_set(ND_ENOMEM, "out of memory");
	if ((rc = nd_linkage_sparse(n, pair, score, m, cut, into, NULL)) < 0)
		goto done;
	for (size_t i = 0; i < n; i++)
		size[into[i]]++;

	/* Links between tentative clusters that completion may take. */
	for (size_t i = 0; i < m; i++)
		nl += linkable(into, size, pair[i], score[i], min_docs);
	if (!nl)
		goto done;
	if (!(l = malloc(nl * sizeof(*l)))) {
		rc = nd_error_set(ND_ENOMEM, "out of memory for %zu cluster links", nl);
		goto done;
	}
	nl = 0;
	for (size_t i = 0; i < m; i++) {
		size_t c = into[pair[i] >> 32], d = into[(uint32_t)pair[i]];
		if (!linkable(into, size, pair[i], score[i], min_docs))
			continue;
		l[nl++] = (cluster_link){c < d ? (uint64_t)c << 32 | d : (uint64_t)d << 32 | c, score[i], 1, 0, 0};
	}
	qsort(l, nl, sizeof(*l), by_key);
	size_t k = 0;
	for (size_t i = 0; i < nl; i++) {
		if (k && l[k - 1].key == l[i].key) {
			l[k - 1].sum += l[i].sum;
			l[k - 1].known++;
		} else
			l[k++] = l[i];
	}
	nl = k;
	for (size_t i = 0; i < nl; i++) {
		uint64_t c = l[i].key >> 32, d = (uint32_t)l[i].key;
		uint64_t all = c == d ? (uint64_t)size[c] * (size[c] - 1) / 2 : (uint64_t)size[c] * size[d];
		l[i].mean = l[i].sum / (double)all;
		l[i].add = all > l[i].known ? all - l[i].known : 0;
	}
	qsort(l, nl, sizeof(*l), by_mean);

	/* Members of each tentative cluster: start[c] .. start[c + 1). */
	if (!(start = calloc(n + 1, sizeof(*start))) || !(member = malloc(n * sizeof(*member)))) {
		rc = nd_error_set(ND_ENOMEM, "out of memory");
		goto done;
	}
	for (size_t c = 0, at = 0; c < n; c++)
		start[c] = (uint32_t)at, at += size[c];
	start[n] = (uint32_t)n;
	for (size_t i = 0; i < n; i++)
		member[start[into[i]] + --size[into[i]]] = (uint32_t)i; /* size[] counts down to 0 */
	size_t want = 0;
	for (size_t i = 0; i < nl; i++)
		if (l[i].add && want + l[i].add <= budget)
			want += l[i].add;
		else
			l[i].add = 0;
	if (!want)
		goto done;
	if (!(fresh = malloc(want * sizeof(*fresh)))) {
		rc = nd_error_set(ND_ENOMEM, "out of memory for %zu completing pairs", want);
		goto done;
	}
	for (size_t i = 0; i < nl; i++) {
		if (!l[i].add)
			continue;
		uint32_t c = (uint32_t)(l[i].key >> 32), d = (uint32_t)l[i].key;
		for (uint32_t x = start[c]; x < start[c + 1]; x++)
			for (uint32_t y = c == d ? x + 1 : start[d]; y < start[d + 1]; y++) {
				uint32_t a = member[x], b = member[y];
				uint64_t key = a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a;
				/* want bounds them for distinct candidates; the check
				 * keeps a caller's repeated pair from overrunning fresh */
				if (!nd__in_sorted_u64(pair, m, key) && nfresh < want)
					fresh[nfresh++] = key;
			}
	}
	nd__sort_u64(fresh, nfresh);

	/* Scored, then merged into the candidates from the end, in place. */
	uint64_t *p2 = realloc(pair, (m + nfresh) * sizeof(*pair));
	if (p2)
		*pairp = pair = p2;
	float *s2 = p2 ? realloc(score, (m + nfresh) * sizeof(*score)) : NULL;
	if (s2)
		*scorep = score = s2;
	if (!p2 || !s2) { /* the candidates are kept as they were */
		rc = nd_error_set(ND_ENOMEM, "out of memory for %zu completing pairs", nfresh);
		goto done;
	}
	if (!(fsc = malloc((nfresh + 1) * sizeof(*fsc)))) {
		rc = nd_error_set(ND_ENOMEM, "out of memory");
		goto done;
	}
	if ((rc = fn(fresh, nfresh, fsc, ctx)) < 0)
		goto done;
	for (size_t i = m, j = nfresh, o = m + nfresh; j > 0; ) {
		if (i > 0 && pair[i - 1] > fresh[j - 1])
			--o, --i, pair[o] = pair[i], score[o] = score[i];
		else
			--o, --j, pair[o] = fresh[j], score[o] = fsc[j];
	}
	*np = m + nfresh;
	if (added)
		*added = nfresh;
done:
	free(into);
	free(size);
	free(start);
	free(member);
	free(l);
	free(fresh);
	free(fsc);
	return rc;
}
