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
 * not always of each other.  Last, each member goes to the nearest centre
 * it is linked to: a hub that took a page first (a table every variant of
 * a charset's page shares) does not keep it from its own copies.
 *
 * The split is a function of the links and the records, as the links are
 * of the records: hooks, update and sign give the same clusters. */
#include "descriptor/cluster/cluster_internal.h"
#include "descriptor/verify/verify_internal.h"

#include <stdlib.h>
#include <string.h>

int nd__split(const nd__split_graph *g, uint32_t *lead)
{
	size_t n = g->n, ncl = 0, clcap = 0;
	uint32_t *queue = malloc((n + 1) * sizeof(*queue)), *cl = malloc((n + 1) * sizeof(*cl));
	uint32_t *tried = malloc((n + 1) * sizeof(*tried)), *centre = NULL;
	uint64_t *order = malloc((n + 1) * sizeof(*order));
	int rc = ND_OK;

	if (!order || !queue || !cl || !tried) {
		rc = nd_error_set(ND_ENOMEM, "out of memory splitting %zu documents", n);
		goto done;
	}
	/* Centres first: most links, then the smaller docid. */
	for (size_t i = 0; i < n; i++) {
		order[i] = (uint64_t)(UINT32_MAX - g->degree[i]) << 32 | i;
		cl[i] = UINT32_MAX, tried[i] = UINT32_MAX;
	}
	nd__sort_u64(order, n);

	for (size_t o = 0; o < n && rc == ND_OK; o++) {
		uint32_t c = (uint32_t)order[o];
		const uint32_t *nb;
		size_t head = 0, tail = 0, k;
		if (cl[c] != UINT32_MAX)
			continue;
		/* The centre's links, kept: the links of others come and go. */
		if ((rc = g->links(c, &nb, &k, g->ctx)) < 0)
			break;
		if (k > clcap) {
			uint32_t *p = realloc(centre, k * sizeof(*centre));
			if (!p) {
				rc = nd_error_set(ND_ENOMEM, "out of memory for %zu links", k);
				break;
			}
			centre = p, clcap = k;
		}
		if (k)
			memcpy(centre, nb, k * sizeof(*centre));
		ncl = k;
		nd__sort_u32(centre, ncl);
		cl[c] = c, queue[tail++] = c;
		/* Through the links, those that are copies of the centre. */
		while (head < tail && rc == ND_OK) {
			uint32_t u = queue[head++];
			if (u == c)
				nb = centre, k = ncl;
			else if ((rc = g->links(u, &nb, &k, g->ctx)) < 0)
				break;
			for (size_t j = 0; j < k && rc == ND_OK; j++) {
				uint32_t v = nb[j];
				if (cl[v] != UINT32_MAX || tried[v] == c)
					continue;
				tried[v] = c;
				if (u != c && !nd__in_sorted_u32(centre, ncl, v) &&
				    (rc = g->copy(c, v, g->ctx)) <= 0)
					continue; /* refused (0), or an error */
				rc = ND_OK;
				cl[v] = c, queue[tail++] = v;
			}
		}
	}
	/* Each member then goes to the nearest of the centres it is linked to
	 * (a link is the verdict already), its own when none is nearer: a page
	 * that a hub of its family (a table every variant of a charset's page
	 * shares) took first would otherwise stay apart from its own copies,
	 * which the hub refused.  Centres stay, so every member is still a
	 * copy of its centre; a centre that every member would leave keeps
	 * them, not to stand alone; and the pass does not depend on the
	 * members' order.  (queue, free now, holds where each would go.) */
	if (rc < 0)
		goto done;
	for (size_t i = 0; i < n; i++)
		queue[i] = cl[i], tried[i] = 0;
	for (size_t i = 0; i < n && g->dist; i++) {
		const uint32_t *nb;
		size_t k;
		uint32_t best = UINT32_MAX;
		double bd = 0, d = 0;
		if (cl[i] == i)
			continue;
		if ((rc = g->links((uint32_t)i, &nb, &k, g->ctx)) < 0)
			goto done;
		tried[cl[i]]++; /* a member of its centre's */
		for (size_t j = 0; j < k; j++) {
			uint32_t w = nb[j];
			if (cl[w] != w || w == cl[i])
				continue;
			if ((rc = g->dist((uint32_t)i, w, &d, g->ctx)) < 0)
				goto done;
			if (best == UINT32_MAX || d < bd || (d == bd && w < best))
				best = w, bd = d;
		}
		if (best != UINT32_MAX && (rc = g->dist((uint32_t)i, cl[i], &d, g->ctx)) < 0)
			goto done;
		if (best != UINT32_MAX && bd < d)
			queue[i] = best;
	}
	/* tried[c]: c's members, less those that would leave. */
	for (size_t i = 0; i < n; i++)
		if (queue[i] != cl[i])
			tried[cl[i]]--;
	for (size_t i = 0; i < n; i++)
		if (queue[i] != cl[i] && tried[cl[i]])
			cl[i] = queue[i];
	/* A cluster's representative is its smallest member (tried, free
	 * now, holds each centre's). */
	for (size_t i = 0; i < n; i++)
		tried[i] = UINT32_MAX;
	for (size_t i = 0; i < n; i++)
		if (i < tried[cl[i]])
			tried[cl[i]] = (uint32_t)i;
	for (size_t i = 0; i < n; i++)
		lead[i] = tried[cl[i]];
done:
	free(order);
	free(queue);
	free(cl);
	free(tried);
	free(centre);
	return rc < 0 ? rc : ND_OK;
}

/* ---- over pairs held in memory (a batch) ---- */

typedef struct {
	size_t *first; /* i's links: adj[first[i] .. first[i + 1]) */
	uint32_t *adj;
	nd__copy_fn copy;
	nd__dist_fn dist;
	void *ctx;
} pair_graph;

static int pair_links(uint32_t i, const uint32_t **out, size_t *n, void *ctx)
{
	const pair_graph *p = ctx;
	*out = p->adj + p->first[i], *n = p->first[i + 1] - p->first[i];
	return ND_OK;
}

static int pair_copy(uint32_t a, uint32_t b, void *ctx)
{
	const pair_graph *p = ctx;
	return p->copy(a, b, p->ctx);
}

static int pair_dist(uint32_t a, uint32_t b, double *d, void *ctx)
{
	const pair_graph *p = ctx;
	return p->dist(a, b, d, p->ctx);
}

int nd__split_pairs(size_t n, const uint64_t *pair, const uint8_t *yes, size_t np, nd__copy_fn copy,
		    nd__dist_fn dist, void *ctx, uint32_t *lead)
{
	pair_graph p = {calloc(n + 2, sizeof(size_t)), NULL, copy, dist, ctx};
	uint32_t *degree = malloc((n + 1) * sizeof(*degree));
	size_t na = 0;
	int rc;

	if (!p.first || !degree) {
		rc = nd_error_set(ND_ENOMEM, "out of memory splitting %zu documents", n);
		goto done;
	}
	for (size_t k = 0; k < np; k++)
		if (!yes || yes[k]) {
			p.first[(uint32_t)(pair[k] >> 32) + 2]++, p.first[(uint32_t)pair[k] + 2]++;
			na += 2;
		}
	for (size_t i = 2; i < n + 2; i++)
		p.first[i] += p.first[i - 1];
	if (!(p.adj = malloc((na + 1) * sizeof(*p.adj)))) {
		rc = nd_error_set(ND_ENOMEM, "out of memory for %zu links", na / 2);
		goto done;
	}
	for (size_t k = 0; k < np; k++)
		if (!yes || yes[k]) {
			uint32_t a = (uint32_t)(pair[k] >> 32), b = (uint32_t)pair[k];
			p.adj[p.first[a + 1]++] = b;
			p.adj[p.first[b + 1]++] = a;
		}
	for (size_t i = 0; i < n; i++)
		degree[i] = (uint32_t)(p.first[i + 1] - p.first[i]);
	nd__split_graph g = {n, degree, pair_links, pair_copy, dist ? pair_dist : NULL, &p};
	rc = nd__split(&g, lead);
done:
	free(p.first);
	free(p.adj);
	free(degree);
	return rc;
}
