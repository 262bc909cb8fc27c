/* Copy clusters that do not chain.
 *
 * Links are pairs the copy verdict accepts, and their components chain:
 * a page that shares a footer with one member and its text with another
 * joins two families into one.  A cluster is instead grown around a
 * centre, the most linked document not yet placed (the one that most
 * others are copies of): through the links, a document joins when the
 * verdict accepts it against the centre (a link to the centre is that
 * verdict already).  Members are then copies of one text, not the ends of
 * a chain.  A family copied a thousand times, whose members are linked to
 * their near neighbours only, is still one cluster: every member is a
 * copy of the centre.  Asking a newcomer to be a copy of the first members
 * too split the near-copies of one original, which are copies of it but
 * not always of each other.
 *
 * The split is a function of the links and the records, as the links are
 * of the records: hooks, update and sign give the same clusters. */
#include "descriptor/cluster/cluster_internal.h"

#include <stdlib.h>
#include <string.h>

static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	return a < b ? -1 : a > b;
}

typedef struct {
	const size_t *first; /* i's links: adj[first[i] .. first[i + 1]), ascending */
	const uint32_t *adj;
} graph;

static int linked(const graph *g, uint32_t a, uint32_t b)
{
	return bsearch(&b, g->adj + g->first[a], g->first[a + 1] - g->first[a], sizeof(*g->adj), cmp_u32) != NULL;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return a < b ? -1 : a > b;
}

int nd__split(size_t n, const uint64_t *pair, const uint8_t *yes, size_t np, nd__copy_fn copy, void *ctx,
	      uint32_t *lead)
{
	size_t *first = calloc(n + 2, sizeof(*first)), na = 0;
	uint32_t *adj = NULL, *queue = malloc((n + 1) * sizeof(*queue));
	uint32_t *cl = malloc((n + 1) * sizeof(*cl)), *tried = malloc((n + 1) * sizeof(*tried));
	uint64_t *order = malloc((n + 1) * sizeof(*order));
	int rc = ND_OK;

	if (!first || !order || !queue || !cl || !tried) {
		rc = nd_error_set(ND_ENOMEM, "out of memory splitting %zu documents", n);
		goto done;
	}
	for (size_t k = 0; k < np; k++)
		if (!yes || yes[k]) {
			first[(uint32_t)(pair[k] >> 32) + 2]++, first[(uint32_t)pair[k] + 2]++;
			na += 2;
		}
	for (size_t i = 2; i < n + 2; i++)
		first[i] += first[i - 1];
	if (!(adj = malloc((na + 1) * sizeof(*adj)))) {
		rc = nd_error_set(ND_ENOMEM, "out of memory for %zu links", na / 2);
		goto done;
	}
	for (size_t k = 0; k < np; k++)
		if (!yes || yes[k]) {
			uint32_t a = (uint32_t)(pair[k] >> 32), b = (uint32_t)pair[k];
			adj[first[a + 1]++] = b;
			adj[first[b + 1]++] = a;
		}
	graph g = {first, adj};
	for (size_t i = 0; i < n; i++) {
		qsort(adj + first[i], first[i + 1] - first[i], sizeof(*adj), cmp_u32);
		/* Centres first: most links, then the smaller docid. */
		order[i] = (uint64_t)(UINT32_MAX - (first[i + 1] - first[i])) << 32 | i;
		cl[i] = UINT32_MAX, tried[i] = UINT32_MAX;
	}
	qsort(order, n, sizeof(*order), cmp_u64);

	for (size_t o = 0; o < n && rc == ND_OK; o++) {
		uint32_t c = (uint32_t)order[o];
		size_t head = 0, tail = 0;
		if (cl[c] != UINT32_MAX)
			continue;
		cl[c] = c, queue[tail++] = c;
		/* Through the links, those that are copies of the centre. */
		while (head < tail && rc == ND_OK) {
			uint32_t u = queue[head++];
			for (size_t k = first[u]; k < first[u + 1] && rc == ND_OK; k++) {
				uint32_t v = adj[k];
				if (cl[v] != UINT32_MAX || tried[v] == c)
					continue;
				tried[v] = c;
				if (u != c && !linked(&g, v, c) && (rc = copy(c, v, ctx)) <= 0)
					continue; /* refused (0), or an error */
				rc = ND_OK;
				cl[v] = c, queue[tail++] = v;
			}
		}
		/* A cluster's representative is its smallest member. */
		uint32_t least = c;
		for (size_t q = 0; q < tail; q++)
			least = queue[q] < least ? queue[q] : least;
		for (size_t q = 0; q < tail; q++)
			lead[queue[q]] = least;
	}
done:
	free(first);
	free(adj);
	free(order);
	free(queue);
	free(cl);
	free(tried);
	return rc < 0 ? rc : ND_OK;
}
