/* Set-similarity join by prefix filtering (Chaudhuri et al.; Bayardo et
 * al.): with tokens of every set ordered rarest first, two sets sharing
 * at least alpha tokens share a token among the first |X| - alpha + 1 of
 * each.  Only prefixes are indexed, so frequent tokens (page chrome,
 * common words) never pair documents up by themselves. */
#include "eval/eval_internal.h"

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

int ev_set_join(const ev_set *sets, size_t n, double t, ev_set_sim sim, ev_emit emit, void *ctx)
{
	uint64_t *tok = NULL;
	uint32_t *df = NULL, *rank = NULL, *post = NULL, *mark = NULL;
	size_t *off = NULL, *plen = NULL, *fill = NULL, total = 0, ntok = 0;
	int rc = ND_OK;

	if (t <= 0 || t > 1)
		return nd_error_set(ND_EINVAL, "set join threshold %g is not in (0, 1]", t);
	for (size_t i = 0; i < n; i++)
		total += sets[i].n;
	if (!total)
		return ND_OK;
	/* Distinct tokens and their document frequencies. */
	if (!(tok = malloc(total * sizeof(*tok))) || !(plen = calloc(n, sizeof(*plen))) ||
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
	if (!(df = malloc(total * sizeof(*df)))) {
		rc = nd_error_set(ND_ENOMEM, "out of memory");
		goto cleanup;
	}
	for (size_t i = 0; i < total; i++) {
		if (ntok && tok[ntok - 1] == tok[i]) {
			df[ntok - 1]++;
			continue;
		}
		tok[ntok] = tok[i];
		df[ntok++] = 1;
	}
	/* Each set's prefix as (df << 32 | token index), rarest first; the
	 * prefix tokens are posted, CSR style, by token index. */
	if (!(off = calloc(ntok + 1, sizeof(*off))) || !(fill = calloc(ntok + 1, sizeof(*fill))) ||
	    !(rank = malloc(total * sizeof(*rank)))) {
		rc = nd_error_set(ND_ENOMEM, "out of memory");
		goto cleanup;
	}
	size_t maxn = 0;
	for (size_t i = 0; i < n; i++)
		if (sets[i].n > maxn)
			maxn = sets[i].n;
	uint64_t *order = malloc((maxn + 1) * sizeof(*order));
	if (!order) {
		rc = nd_error_set(ND_ENOMEM, "out of memory");
		goto cleanup;
	}
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		const ev_set *s = &sets[i];
		for (size_t j = 0; j < s->n; j++) {
			uint64_t *p = bsearch(&s->v[j], tok, ntok, sizeof(*tok), cmp_u64);
			size_t ti = (size_t)(p - tok);
			order[j] = (uint64_t)df[ti] << 32 | ti;
		}
		qsort(order, s->n, sizeof(*order), cmp_u64);
		size_t alpha = (size_t)ceil(t * (double)s->n - 1e-9);
		plen[i] = s->n ? s->n - (alpha ? alpha : 1) + 1 : 0;
		for (size_t j = 0; j < plen[i]; j++) {
			rank[k + j] = (uint32_t)(order[j] & 0xffffffffu);
			off[rank[k + j] + 1]++;
		}
		k += plen[i];
	}
	free(order);
	for (size_t r = 0; r < ntok; r++)
		off[r + 1] += off[r];
	if (!(post = malloc((k + 1) * sizeof(*post)))) {
		rc = nd_error_set(ND_ENOMEM, "out of memory");
		goto cleanup;
	}
	/* Postings in ascending doc order. */
	k = 0;
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < plen[i]; j++) {
			uint32_t r = rank[k + j];
			post[off[r] + fill[r]++] = (uint32_t)i;
		}
		k += plen[i];
	}
	/* Probe: each document against earlier ones sharing a prefix token. */
	for (size_t i = 0; i < n; i++)
		mark[i] = UINT32_MAX;
	k = 0;
	for (size_t i = 0; i < n && rc == ND_OK; i++) {
		for (size_t j = 0; j < plen[i] && rc == ND_OK; j++) {
			uint32_t r = rank[k + j];
			for (size_t p = off[r]; p < off[r + 1]; p++) {
				uint32_t y = post[p];
				if (y >= i)
					break;
				if (mark[y] == i)
					continue;
				mark[y] = (uint32_t)i;
				/* Both measures need |A & B| >= t * max(|A|, |B|): a
				 * size filter, then a merge that stops once short. */
				size_t big = sets[y].n > sets[i].n ? sets[y].n : sets[i].n;
				size_t small = sets[y].n + sets[i].n - big;
				size_t need = (size_t)ceil(t * (double)big - 1e-9);
				if (small < need)
					continue;
				size_t both = common_at_least(&sets[y], &sets[i], need);
				if (both < need)
					continue;
				double s = sim == ev_jaccard
						   ? (double)both / (double)(sets[y].n + sets[i].n - both)
						   : (double)both / (double)big;
				if (s >= t && (rc = emit(y, i, s, ctx)) != 0)
					break;
			}
		}
		k += plen[i];
	}
cleanup:
	free(tok);
	free(df);
	free(rank);
	free(post);
	free(mark);
	free(off);
	free(plen);
	free(fill);
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
