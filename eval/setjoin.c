/* Set-similarity join by prefix filtering (Chaudhuri et al.; Bayardo et
 * al.): with tokens of every set ordered rarest first, two sets sharing
 * at least alpha tokens share a token among the first |X| - alpha + 1 of
 * each.  Only prefixes are indexed, so frequent tokens (page chrome,
 * common words) never pair documents up by themselves. */
#include "eval/eval_internal.h"
#include "common/nd_join.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* |A & B|, or any value below `need` once `need` is out of reach. */
static size_t common_at_least(const ev_set *a, const ev_set *b, size_t need)
{
	size_t i = 0, j = 0, both = 0;
	while (i < a->n && j < b->n) {
		size_t left = a->n - i < b->n - j ? a->n - i : b->n - j;
		if (both + left < need)
			return both;
		if (a->v[i] == b->v[j]) {
			both++;
			i++;
			j++;
		} else if (a->v[i] < b->v[j])
			i++;
		else
			j++;
	}
	return both;
}

static size_t common(const ev_set *a, const ev_set *b)
{
	return common_at_least(a, b, 0);
}

double ev_jaccard(const ev_set *a, const ev_set *b)
{
	if (!a->n || !b->n)
		return 0;
	size_t both = common(a, b);
	return (double)both / (double)(a->n + b->n - both);
}

double ev_overlap_max(const ev_set *a, const ev_set *b)
{
	if (!a->n || !b->n)
		return 0;
	return (double)common(a, b) / (double)(a->n > b->n ? a->n : b->n);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* One set (i) against an earlier one (y) met in its prefix's postings,
 * each earlier set once, in the order first met. */
typedef struct {
	const ev_set *sets;
	size_t i;
	uint32_t *mark;     /* mark[y] == i: y seen for i */
	double t;
	ev_set_sim sim;
	ev_emit emit;
	void *ctx;
} join_ctx;

static int join_visit(uint32_t y, void *vctx)
{
	join_ctx *j = vctx;
	const ev_set *s = &j->sets[j->i], *o = &j->sets[y];
	if (j->mark[y] == j->i)
		return 0;
	j->mark[y] = (uint32_t)j->i;
	/* Both measures need |A & B| >= t * max(|A|, |B|): a size filter, then
	 * a merge that stops once short. */
	size_t big = o->n > s->n ? o->n : s->n, small = o->n + s->n - big;
	size_t need = (size_t)ceil(j->t * (double)big - 1e-9);
	if (small < need)
		return 0;
	size_t both = common_at_least(o, s, need);
	if (both < need)
		return 0;
	double sc = j->sim == ev_jaccard ? (double)both / (double)(o->n + s->n - both) : (double)both / (double)big;
	return sc >= j->t ? j->emit(y, j->i, sc, j->ctx) : 0;
}

int ev_set_join(const ev_set *sets, size_t n, double t, ev_set_sim sim, ev_emit emit, void *ctx)
{
	uint64_t *tok = NULL, *order = NULL;
	uint32_t *df = NULL, *rare = NULL, *mark = NULL;
	size_t total = 0, ntok = 0, maxn = 0;
	nd_prefix_index x = {NULL, 0};
	int rc = ND_OK;

	if (t <= 0 || t > 1)
		return nd_error_set(ND_EINVAL, "set join threshold %g is not in (0, 1]", t);
	for (size_t i = 0; i < n; i++) {
		total += sets[i].n;
		maxn = sets[i].n > maxn ? sets[i].n : maxn;
	}
	if (!total)
		return ND_OK;
	if (n >= UINT32_MAX)
		return nd_error_set(ND_EINVAL, "set join of %zu sets", n);
	/* Distinct tokens and their document frequencies. */
	if (!(tok = malloc(total * sizeof(*tok))) || !(df = malloc(total * sizeof(*df))) ||
	    !(order = malloc((maxn + 1) * sizeof(*order))) || !(rare = malloc((maxn + 1) * sizeof(*rare))) ||
	    !(mark = malloc(n * sizeof(*mark)))) {
		rc = nd_error_set(ND_ENOMEM, "out of memory for %zu tokens", total);
		goto cleanup;
	}
	for (size_t i = 0, k = 0; i < n; i++) {
		if (sets[i].n) /* an empty set may have no array */
			memcpy(tok + k, sets[i].v, sets[i].n * sizeof(*tok));
		k += sets[i].n;
	}
	qsort(tok, total, sizeof(*tok), cmp_u64);
	for (size_t i = 0; i < total; i++) {
		if (ntok && tok[ntok - 1] == tok[i]) {
			df[ntok - 1]++;
			continue;
		}
		tok[ntok] = tok[i];
		df[ntok++] = 1;
	}
	for (size_t i = 0; i < n; i++)
		mark[i] = UINT32_MAX;
	if ((rc = nd_prefix_index_init(&x, (uint32_t)ntok)) < 0)
		goto cleanup;
	/* Each set against the earlier ones sharing a token of its prefix
	 * (tokens by index, rarest first), then posted under its prefix. */
	join_ctx j = {sets, 0, mark, t, sim, emit, ctx};
	for (size_t i = 0; i < n && rc == ND_OK; i++) {
		const ev_set *s = &sets[i];
		for (size_t k = 0; k < s->n; k++) {
			uint64_t *p = bsearch(&s->v[k], tok, ntok, sizeof(*tok), cmp_u64);
			order[k] = (uint64_t)df[p - tok] << 32 | (uint64_t)(p - tok);
		}
		qsort(order, s->n, sizeof(*order), cmp_u64);
		for (size_t k = 0; k < s->n; k++)
			rare[k] = (uint32_t)(order[k] & 0xffffffffu);
		uint32_t pre = nd_jaccard_prefix((uint32_t)s->n, t);
		j.i = i;
		if ((rc = nd_prefix_probe(rare, pre, nd_prefix_index_postings, &x, join_visit, &j)) == ND_OK)
			rc = nd_prefix_index_add(&x, rare, pre, (uint32_t)i);
	}
cleanup:
	nd_prefix_index_free(&x);
	free(tok);
	free(df);
	free(order);
	free(rare);
	free(mark);
	return rc;
}

int ev_df_build(ev_corpus *c)
{
	size_t total = 0, k = 0;
	uint32_t *all;
	if (c->df_ids)
		return ND_OK;
	for (size_t i = 0; i < c->n; i++)
		total += c->len[i];
	if (!(all = malloc((total + 1) * sizeof(*all))))
		return nd_error_set(ND_ENOMEM, "out of memory for %zu words", total);
	/* Distinct ids per document, then counted across documents. */
	for (size_t i = 0; i < c->n; i++) {
		size_t start = k, u = k;
		if (c->len[i]) /* a document without words may have no array */
			memcpy(all + k, c->ids[i], c->len[i] * sizeof(*all));
		qsort(all + start, c->len[i], sizeof(*all), cmp_u32);
		for (size_t j = start; j < start + c->len[i]; j++)
			if (u == start || all[u - 1] != all[j])
				all[u++] = all[j];
		k = u;
	}
	qsort(all, k, sizeof(*all), cmp_u32);
	if (!(c->df_ids = malloc((k + 1) * sizeof(uint32_t))) || !(c->df = malloc((k + 1) * sizeof(uint32_t)))) {
		free(all);
		free(c->df_ids);
		c->df_ids = NULL;
		return nd_error_set(ND_ENOMEM, "out of memory");
	}
	c->ndf = 0;
	for (size_t i = 0; i < k; i++) {
		if (c->ndf && c->df_ids[c->ndf - 1] == all[i]) {
			c->df[c->ndf - 1]++;
			continue;
		}
		c->df_ids[c->ndf] = all[i];
		c->df[c->ndf++] = 1;
	}
	free(all);
	return ND_OK;
}

uint32_t ev_df(const ev_corpus *c, uint32_t w)
{
	size_t lo = 0, hi = c->ndf;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->df_ids[mid] < w)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->ndf && c->df_ids[lo] == w ? c->df[lo] : 0;
}
