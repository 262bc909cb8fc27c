/* Average linkage (UPGMA) over a sparse similarity graph.
 *
 * Clusters start as single documents and the two with the highest average
 * similarity over all their cross pairs merge first; pairs the graph lacks
 * count as 0, so a cluster joins another only as far as most of its
 * members agree.  Each merge of A and B at level s gives every pair across
 * them the score s (the dendrogram's cophenetic similarity), which is what
 * a duplicate cluster cut at threshold s says of that pair.  Used by
 * nd_cluster_linkage (clusters --linkage) and by eval --linkage.
 *
 * The summed similarity between live clusters is kept in a hash on the
 * cluster pair; a merge moves the absorbed cluster's sums onto the
 * survivor.  The heap is lazy: an entry carries both clusters' merge
 * counts, and a popped entry whose clusters merged since is pushed again
 * at its current value.  That is enough because a merge pushes every pair
 * whose average may have risen (the absorbed cluster's neighbours); the
 * survivor's other pairs can only have fallen, so their old entries come
 * out early and are corrected then.  Levels below the floor are never
 * pushed (worth). */
#include "neardup/cluster.h"
#include "common/nd_hash.h"
#include "common/nd_buf.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#define EMPTY UINT64_MAX
#define GONE (UINT64_MAX - 1)

/* A pair's key and summed similarity side by side: a probe that finds
 * the key has the sum in the same cache line. */
typedef struct {
	uint64_t key;
	double sum;
} cell;

typedef struct {
	cell *c;
	size_t cap, used; /* used counts GONE slots too */
} sums;

static uint64_t pair_key(uint32_t x, uint32_t y)
{
	return x < y ? (uint64_t)x << 32 | y : (uint64_t)y << 32 | x;
}

static size_t slot(const sums *h, uint64_t k)
{
	size_t i = (size_t)nd_mix64(k) & (h->cap - 1);
	while (h->c[i].key != EMPTY && h->c[i].key != k)
		i = (i + 1) & (h->cap - 1);
	return i;
}

static int grow(sums *h)
{
	sums g = {NULL, h->cap ? h->cap * 2 : 1024, 0};
	while (g.cap < 2 * h->used)
		g.cap *= 2;
	if (!(g.c = malloc(g.cap * sizeof(*g.c))))
		return nd_error_set(ND_ENOMEM, "out of memory for average linkage");
	for (size_t i = 0; i < g.cap; i++)
		g.c[i].key = EMPTY;
	for (size_t i = 0; i < h->cap; i++)
		if (h->c[i].key < GONE) {
			g.c[slot(&g, h->c[i].key)] = h->c[i];
			g.used++;
		}
	free(h->c);
	*h = g;
	return ND_OK;
}

/* The sum's slot for (x, y), or NULL. */
static double *find(const sums *h, uint32_t x, uint32_t y)
{
	if (!h->cap)
		return NULL;
	size_t i = slot(h, pair_key(x, y));
	return h->c[i].key == EMPTY ? NULL : &h->c[i].sum;
}

/* The sum's slot for (x, y), made (0) if there was none (*made 1). */
static int get(sums *h, uint32_t x, uint32_t y, double **sum, int *made)
{
	if (4 * (h->used + 1) > 3 * h->cap && grow(h) < 0)
		return ND_ENOMEM;
	size_t i = slot(h, pair_key(x, y));
	*made = h->c[i].key == EMPTY;
	if (*made) {
		h->c[i].key = pair_key(x, y);
		h->c[i].sum = 0;
		h->used++;
	}
	*sum = &h->c[i].sum;
	return ND_OK;
}

/* The slot of a found sum, emptied (a GONE key keeps the probes going). */
static void drop_at(double *sum)
{
	cell *c = (cell *)((char *)sum - offsetof(cell, sum));
	c->key = GONE;
}

typedef struct {
	double v;
	uint32_t x, y, vx, vy;
} entry;

typedef struct {
	entry *e;
	size_t n, cap;
} heap;

/* Higher level first; ties by cluster ids, so the order is reproducible. */
static int above(const entry *a, const entry *b)
{
	if (a->v != b->v)
		return a->v > b->v;
	if (a->x != b->x)
		return a->x < b->x;
	return a->y < b->y;
}

static int push(heap *h, entry e)
{
	if (nd_array_reserve((void **)&h->e, &h->cap, h->n + 1, sizeof(entry)) < 0)
		return nd_error_set(ND_ENOMEM, "out of memory for average linkage");
	size_t i = h->n++;
	for (; i && above(&e, &h->e[(i - 1) / 2]); i = (i - 1) / 2)
		h->e[i] = h->e[(i - 1) / 2];
	h->e[i] = e;
	return ND_OK;
}

/* Entry e put at i and moved down to its place among i's children. */
static void sift_down(heap *h, size_t i, entry e)
{
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && above(&h->e[c + 1], &h->e[c]))
			c++;
		if (!above(&h->e[c], &e))
			break;
		h->e[i] = h->e[c];
		i = c;
	}
	h->e[i] = e;
}

static entry pop(heap *h)
{
	entry top = h->e[0], last = h->e[--h->n];
	if (h->n)
		sift_down(h, 0, last);
	return top;
}

/* A level at or above the floor can still make a merge; one below it
 * never will: the first valid one popped ends the linkage, and a pair's
 * level only rises through a merge, which pushes it again.  Keeping those
 * out keeps the heap small: on documentation whose story candidates are
 * mostly below the cut, 89% of a linkage's pairs. */
static int worth(double v, double floor_)
{
	return v > 0 && v >= floor_;
}

typedef struct {
	uint32_t *v;
	size_t n, cap;
} ids;

static int append(ids *l, uint32_t x)
{
	if (nd_array_reserve((void **)&l->v, &l->cap, l->n + 1, sizeof(uint32_t)) < 0)
		return nd_error_set(ND_ENOMEM, "out of memory for average linkage");
	l->v[l->n++] = x;
	return ND_OK;
}

int nd_average_linkage(size_t n, const nd_scored *p, size_t np, double floor_, nd_join_fn join, void *ctx)
{
	sums h = {0};
	heap q = {0};
	ids *adj = calloc(n + 1, sizeof(*adj));
	/* Cluster c (named by one member) holds size[c] documents, linked from
	 * head[c] through next[] to tail[c]; merges[c] counts its merges, and
	 * 0 size marks an absorbed cluster. */
	uint32_t *size = malloc((n + 1) * sizeof(*size)), *merges = calloc(n + 1, sizeof(*merges));
	uint32_t *head = malloc((n + 1) * sizeof(*head)), *tail = malloc((n + 1) * sizeof(*tail));
	uint32_t *next = malloc((n + 1) * sizeof(*next));
	int rc = ND_OK;

	if (n >= UINT32_MAX)
		rc = nd_error_set(ND_EINVAL, "too many documents for average linkage");
	else if (!adj || !size || !merges || !head || !tail || !next)
		rc = nd_error_set(ND_ENOMEM, "out of memory for average linkage");
	for (size_t i = 0; i < n && rc == ND_OK; i++) {
		size[i] = 1;
		head[i] = tail[i] = (uint32_t)i;
		next[i] = UINT32_MAX;
	}
	for (size_t i = 0; i < np && rc == ND_OK; i++) {
		uint32_t x = p[i].a, y = p[i].b;
		if (x >= n || y >= n) {
			rc = nd_error_set(ND_EINVAL, "pair (%u, %u) of %zu documents", x, y, n);
			break;
		}
		if (p[i].score <= 0 || x == y)
			continue;
		double *s;
		int made;
		if ((rc = get(&h, x, y, &s, &made)) < 0)
			break;
		if (!made) { /* listed twice: one similarity per pair */
			if (p[i].score > *s)
				*s = p[i].score;
			continue;
		}
		*s = p[i].score;
		if ((rc = append(&adj[x], y)) < 0 || (rc = append(&adj[y], x)) < 0)
			break;
	}
	/* The first levels in one array, then made a heap bottom up. */
	size_t first = 0;
	for (size_t i = 0; i < h.cap && rc == ND_OK; i++)
		first += h.c[i].key < GONE && worth(h.c[i].sum, floor_);
	if (rc == ND_OK && first && nd_array_reserve((void **)&q.e, &q.cap, first, sizeof(entry)) < 0)
		rc = nd_error_set(ND_ENOMEM, "out of memory for average linkage");
	for (size_t i = 0; i < h.cap && rc == ND_OK; i++)
		if (h.c[i].key < GONE && worth(h.c[i].sum, floor_))
			q.e[q.n++] = (entry){h.c[i].sum, (uint32_t)(h.c[i].key >> 32), (uint32_t)h.c[i].key, 0, 0};
	for (size_t i = q.n / 2; i-- > 0;)
		sift_down(&q, i, q.e[i]);

	while (q.n && rc == ND_OK) {
		entry e = pop(&q);
		uint32_t a = e.x, b = e.y;
		if (!size[a] || !size[b])
			continue;
		double *s = find(&h, a, b);
		double level = s ? *s / ((double)size[a] * size[b]) : 0;
		if (e.vx != merges[a] || e.vy != merges[b]) {
			if (worth(level, floor_))
				rc = push(&q, (entry){level, a, b, merges[a], merges[b]});
			continue;
		}
		if (level < floor_)
			break;
		if ((rc = join(&(nd_join){next, head[a], head[b], level}, ctx)) != ND_OK)
			break;
		if (size[a] < size[b]) { /* absorb the smaller: fewer sums to move */
			uint32_t t = a;
			a = b;
			b = t;
		}
		if (s)
			drop_at(s);
		next[tail[a]] = head[b];
		tail[a] = tail[b];
		size[a] += size[b];
		size[b] = 0;
		merges[a]++;
		for (size_t k = 0; k < adj[b].n && rc == ND_OK; k++) {
			uint32_t c = adj[b].v[k];
			double *bc = c != a && size[c] ? find(&h, b, c) : NULL, *ac;
			int made;
			if (!bc)
				continue; /* absorbed, a itself, or listed twice */
			double v = *bc;
			drop_at(bc); /* before get, which may move the sums */
			if ((rc = get(&h, a, c, &ac, &made)) < 0)
				break;
			if (made && ((rc = append(&adj[a], c)) < 0 || (rc = append(&adj[c], a)) < 0))
				break;
			*ac += v;
			double lv = *ac / ((double)size[a] * size[c]);
			if (worth(lv, floor_))
				rc = push(&q, (entry){lv, a < c ? a : c, a < c ? c : a, merges[a < c ? a : c],
						      merges[a < c ? c : a]});
		}
		free(adj[b].v);
		adj[b] = (ids){0};
	}

	for (size_t i = 0; adj && i < n; i++)
		free(adj[i].v);
	free(adj);
	free(size);
	free(merges);
	free(head);
	free(tail);
	free(next);
	free(h.c);
	free(q.e);
	return rc;
}

/* Union the two sides of a join: each member points at the cluster's
 * smallest index. */
static int join_into(const nd_join *j, void *ctx)
{
	size_t *into = ctx;
	uint32_t from = into[j->a] < into[j->b] ? j->b : j->a;
	size_t to = into[j->a] < into[j->b] ? into[j->a] : into[j->b];
	for (uint32_t x = from; x != UINT32_MAX; x = j->next[x])
		into[x] = to;
	return 0;
}

int nd_average_linkage_clusters(size_t n, const nd_scored *p, size_t np, double floor_, size_t *into)
{
	for (size_t i = 0; i < n; i++)
		into[i] = i;
	return nd_average_linkage(n, p, np, floor_, join_into, into);
}
