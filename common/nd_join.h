/* Internal: the one set-similarity join, by prefix filtering (Chaudhuri et
 * al.; Bayardo et al.), used by check (a text against the store's bit
 * postings), tolerant grouping (documents against leaders) and the
 * evaluation's joins (every set against the earlier ones).
 *
 * Order every set's elements rarest first (one global order).  Two sets
 * with Jaccard >= t share an element among the first
 * nd_jaccard_prefix(n, t) of each, n its size; two within Hamming
 * distance k among the first k + 1.  So a set's candidates are the ids
 * posted under its prefix, which for rare elements are short lists. */
#ifndef ND_JOIN_H
#define ND_JOIN_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

/* Prefix length for Jaccard >= t of a set of n elements (0 when empty). */
static inline uint32_t nd_jaccard_prefix(uint32_t n, double t)
{
	uint32_t need = (uint32_t)ceil(t * n - 1e-9);
	return n ? n - (need ? need : 1) + 1 : 0;
}

/* The ids posted under element elem: *ids stays valid until the next
 * call.  Non-zero (an nd_error) stops the probe and is returned. */
typedef int (*nd_postings_fn)(uint32_t elem, void *ctx, const uint32_t **ids, size_t *n);

/* Every id posted under rare[0..pre), element by element and each list in
 * its order, repeats included: visit(id, vctx).  Non-zero from fn or visit
 * stops and is returned.  (The evaluation's joins keep this first-seen
 * order: the pairs they sample follow it.) */
typedef int (*nd_visit_fn)(uint32_t id, void *vctx);
int nd_prefix_probe(const uint32_t *rare, uint32_t pre, nd_postings_fn fn, void *ctx, nd_visit_fn visit,
		    void *vctx);

/* The candidates of a set whose elements rare[0..pre) are the prefix:
 * every id posted under one of them, ascending, each once, into *out
 * (grown as needed; *cap its room). */
int nd_prefix_candidates(const uint32_t *rare, uint32_t pre, nd_postings_fn fn, void *ctx, uint32_t **out,
			 size_t *nout, size_t *cap);

/* Postings of prefixes held in memory, for joins of sets with each other:
 * elements are below nelem. */
typedef struct {
	struct nd_posting {
		uint32_t *ids;
		size_t n, cap;
	} *post;
	uint32_t nelem;
} nd_prefix_index;

int nd_prefix_index_init(nd_prefix_index *x, uint32_t nelem);
/* Post id under each of rare[0..pre). */
int nd_prefix_index_add(nd_prefix_index *x, const uint32_t *rare, uint32_t pre, uint32_t id);
/* The nd_postings_fn of an index (ctx: the index). */
int nd_prefix_index_postings(uint32_t elem, void *ctx, const uint32_t **ids, size_t *n);
void nd_prefix_index_free(nd_prefix_index *x);

#endif
