#include "common/nd_join.h"
#include "common/nd_buf.h"
#include "neardup/common.h"

#include <stdlib.h>
#include <string.h>

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

int nd_prefix_probe(const uint32_t *rare, uint32_t pre, nd_postings_fn fn, void *ctx, nd_visit_fn visit,
		    void *vctx)
{
	int rc;
	for (uint32_t p = 0; p < pre; p++) {
		const uint32_t *ids;
		size_t n;
		if ((rc = fn(rare[p], ctx, &ids, &n)) != 0)
			return rc;
		for (size_t i = 0; i < n; i++)
			if ((rc = visit(ids[i], vctx)) != 0)
				return rc;
	}
	return ND_OK;
}

typedef struct {
	uint32_t **out;
	size_t *nout, *cap;
} collect_ctx;

static int collect(uint32_t id, void *vctx)
{
	collect_ctx *c = vctx;
	if (*c->nout == *c->cap) {
		void *v = *c->out;
		int rc = nd_array_reserve(&v, c->cap, *c->nout + 1, sizeof(**c->out));
		*c->out = v;
		if (rc < 0)
			return rc;
	}
	(*c->out)[(*c->nout)++] = id;
	return 0;
}

int nd_prefix_candidates(const uint32_t *rare, uint32_t pre, nd_postings_fn fn, void *ctx, uint32_t **out,
			 size_t *nout, size_t *cap)
{
	collect_ctx c = {out, nout, cap};
	int rc;
	*nout = 0;
	if ((rc = nd_prefix_probe(rare, pre, fn, ctx, collect, &c)) != 0)
		return rc;
	if (pre > 1 && *nout > 1) { /* one list is sorted and distinct already */
		qsort(*out, *nout, sizeof(**out), cmp_u32);
		size_t u = 0;
		for (size_t i = 0; i < *nout; i++)
			if (!u || (*out)[u - 1] != (*out)[i])
				(*out)[u++] = (*out)[i];
		*nout = u;
	}
	return ND_OK;
}

int nd_prefix_index_init(nd_prefix_index *x, uint32_t nelem)
{
	x->nelem = nelem;
	if (!(x->post = calloc((size_t)nelem + 1, sizeof(*x->post))))
		return nd_error_set(ND_ENOMEM, "out of memory for %u postings", nelem);
	return ND_OK;
}

int nd_prefix_index_add(nd_prefix_index *x, const uint32_t *rare, uint32_t pre, uint32_t id)
{
	for (uint32_t p = 0; p < pre; p++) {
		struct nd_posting *P = &x->post[rare[p]];
		void *v = P->ids;
		int rc = nd_array_reserve(&v, &P->cap, P->n + 1, sizeof(*P->ids));
		P->ids = v;
		if (rc < 0)
			return rc;
		P->ids[P->n++] = id;
	}
	return ND_OK;
}

int nd_prefix_index_postings(uint32_t elem, void *ctx, const uint32_t **ids, size_t *n)
{
	const nd_prefix_index *x = ctx;
	*ids = x->post[elem].ids;
	*n = x->post[elem].n;
	return ND_OK;
}

void nd_prefix_index_free(nd_prefix_index *x)
{
	for (uint32_t e = 0; x->post && e < x->nelem; e++)
		free(x->post[e].ids);
	free(x->post);
	x->post = NULL;
}
