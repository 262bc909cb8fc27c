/* Internal to descriptor/verify/: the common table's layout, for the
 * verdict's loops that weigh every shingle (evidence.c) without a call
 * each.  The table is common.c's; what the rest of descriptor/ asks of
 * it is in record.h. */
#ifndef ND_DESC_COMMON_H
#define ND_DESC_COMMON_H

#include "descriptor/verify/record.h"

#include <stdint.h>

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
};

/* The weight of every groups count g a record keeps, copy's [0] and
 * story's [1]: 1, or the cap / g above the cap (filled when the first
 * table is made). */
extern double nd__common_quotient[2][UINT16_MAX + 1];

/* The filter's bit of h (c->filter set): 0 says h is not common. */
static inline uint64_t nd__common_filter_bit(const nd__common *c, uint32_t h)
{
	return c->filter[h >> 22] >> ((h >> 16) & 63) & 1;
}

#endif
