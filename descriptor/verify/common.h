/* Internal to descriptor/verify/: the common table's layout, for the
 * verdict's loops that weigh every shingle (evidence.c) without a call
 * each.  The table is common.c's; what the rest of descriptor/ asks of
 * it is in record.h. */
#ifndef ND_DESC_COMMON_H
#define ND_DESC_COMMON_H

#include "descriptor/verify/record.h"
#include "descriptor/verify/verify_internal.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct nd__common {
	uint32_t n;
	const uint8_t *ent; /* n entries of 8 bytes, in the map or in owned */
	const uint8_t *pas; /* n entries of ND_PASSAGE_HASHES * 2 bytes; NULL: none */
	uint8_t *owned;
	const uint32_t *bucket; /* the index: entries of bucket b (of hash h *
				   nbuckets / 2^32) are [bucket[b], bucket[b + 1]) */
	uint32_t shift;         /* bucket of h: h >> shift */
	const uint64_t *filter; /* the index: bit h >> 16 set for every entry
				   (most shingles are not common: one bit says so) */
	void *index_owned;      /* the index when not read in place */
	const nd__u64u *kin;    /* the filter of own text (own.c): 2^kin_log2
				   bits; NULL: none */
	uint32_t kin_log2;
	void *kin_owned;        /* the filter when not read in place */
	nd__sites_seen sites;   /* what a fresh count found (zero when loaded) */
	const uint8_t *floors;  /* floors.c: nfloors entries of a text's hash
				   and its floor, ascending; in the map or owned */
	uint32_t nfloors;
	uint8_t *floors_owned;
	const uint32_t *extra;  /* a site counted apart from the table
				   (sites.c): nextra hashes, ascending, */
	const uint32_t *extra_groups; /* and their groups there; never owned */
	uint32_t nextra;
	const uint8_t *extra_floors; /* its pages' floors, as floors */
	uint32_t nextra_floors;
	const uint32_t *titles; /* titles.c: numbers two kin's titles hold or
				   more, ascending; in the map or owned */
	uint32_t ntitles;
	int titles_known;       /* counted (a store signed before has none) */
	uint32_t *titles_owned;
};

/* The filter of own text (own.c), made with the table (nd__common_build):
 * room for n entries, each shingle then added as held by two kin or more
 * (three: 0) and by three or more (1); kept beside the table, read in
 * place, copied when the table is (nd__common_own). */
int nd__kin_alloc(nd__common *c, size_t n);
void nd__kin_add(nd__common *c, uint32_t h, int three);
int nd__kin_load(nd_store_txn *txn, nd__common *c);
int nd__kin_store(nd_store_txn *txn, const nd__common *c);
int nd__kin_own(nd__common *c);

/* The numbers of titles (titles.c), counted with the table
 * (nd__common_build) and kept beside it: of the groups whose
 * representatives are rs's records reps[0..n) (ascending), each of kin
 * kin[0..n) (NULL: each group its own), those that two kin's titles hold
 * or more (record.h, ND_TITLE_PLACES). */
int nd__common_titles(nd__common *c, const nd__recset *rs, const uint32_t *reps, const uint32_t *kin, size_t n);
int nd__titles_load(nd_store_txn *txn, nd__common *c);
int nd__titles_store(nd_store_txn *txn, const nd__common *c);
int nd__titles_own(nd__common *c);

/* The floors of sites' pages (floors.c), kept beside the table. */
int nd__floors_load(nd_store_txn *txn, nd__common *c);
int nd__floors_store(nd_store_txn *txn, const nd__common *c);
int nd__floors_own(nd__common *c);

/* The weight of every groups count g a record keeps, copy's [0] and
 * story's [1]: 1, or the cap / g above the cap (filled when the first
 * table is made). */
extern double nd__common_quotient[2][UINT16_MAX + 1];

/* The filter's bit of h (c->filter set): 0 says h is not common. */
static inline uint64_t nd__common_filter_bit(const nd__common *c, uint32_t h)
{
	return c->filter[h >> 22] >> ((h >> 16) & 63) & 1;
}

static inline uint32_t nd__common_ent_hash(const nd__common *c, size_t i)
{
	uint32_t h;
	memcpy(&h, c->ent + 8 * i, 4);
	return h;
}

static inline uint32_t nd__common_ent_groups(const nd__common *c, size_t i)
{
	uint32_t g;
	memcpy(&g, c->ent + 8 * i + 4, 4);
	return g;
}

/* The entry of h, or c->n when h is not common. */
static inline size_t nd__common_find(const nd__common *c, uint32_t h)
{
	size_t lo = 0, hi = c->n;
	if (c->filter && !nd__common_filter_bit(c, h))
		return c->n;
	if (c->bucket) {
		lo = c->bucket[h >> c->shift], hi = c->bucket[(h >> c->shift) + 1];
		if (hi > c->n)
			hi = c->n; /* a damaged stored index misses, never reads past */
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (nd__common_ent_hash(c, mid) < h)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->n && nd__common_ent_hash(c, lo) == h ? lo : c->n;
}

/* h's groups in the site counted apart (0: none). */
static inline uint32_t nd__common_extra_of(const nd__common *c, uint32_t h)
{
	size_t i = nd__lower_bound_u32(c->extra, c->nextra, h);
	return i < c->nextra && c->extra[i] == h ? c->extra_groups[i] : 0;
}

/* nd__common_groups, inline in the verdict's loops (a lookup a shingle
 * not yet weighed). */
static inline uint32_t nd__common_lookup(const nd__common *c, uint32_t h)
{
	if (!c)
		return 0;
	size_t i = c->n ? nd__common_find(c, h) : 0;
	uint32_t g = i < c->n ? nd__common_ent_groups(c, i) : 0;
	if (c->nextra && g < ND_SITE_TEMPLATE) { /* the more groups of the two */
		uint32_t x = nd__common_extra_of(c, h);
		g = x > g ? x : g;
	}
	return g;
}

/* Whether h is surely not common (c->filter set): the filter says so,
 * and a site's template counted apart does not hold it. */
static inline int nd__common_rare(const nd__common *c, uint32_t h)
{
	return !nd__common_filter_bit(c, h) && !(c->nextra && nd__common_extra_of(c, h));
}

#endif
