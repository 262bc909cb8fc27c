/* Own text: which of a document's shingles other documents hold, for the
 * rule that tells two fillings of one template from two versions of one
 * text (record.h, "own text").
 *
 * A Bloom filter, not a table: the rule reads it only for the few pairs
 * resemblance barely accepts, and it must know of every shingle that two
 * kin hold, which at a million documents are tens of millions: a byte
 * each, where the common table keeps 16.  A false positive (about 2%)
 * calls a shingle held, which makes the rule refuse less, never more. */
#include "descriptor/verify/common.h"
#include "common/nd_hash.h"

#include <stdlib.h>
#include <string.h>

#define META_KIN "common-kin"
#define KIN_BITS 8   /* bits an entry */
#define KIN_PROBES 5 /* bits an entry sets: about 2% false positives at 8 */
#define KIN_LEAST 9  /* log2 of the fewest bits (a table of one page) */
#define KIN_MOST 40

/* The i-th bit h sets (three: as held by three kin or more), of a
 * filter of mask + 1 bits: double hashing of one 64-bit mix. */
static inline uint64_t kin_bit(uint32_t h, int three, int i, uint64_t mask)
{
	uint64_t x = nd_mix64((uint64_t)(three + 1) << 32 | h);
	return ((x & 0xffffffff) + (uint64_t)i * (x >> 32 | 1)) & mask;
}

int nd__kin_alloc(nd__common *c, size_t n)
{
	uint32_t log2 = KIN_LEAST;
	while (log2 < KIN_MOST && ((uint64_t)1 << log2) < (uint64_t)n * KIN_BITS)
		log2++;
	free(c->kin_owned);
	if (!(c->kin_owned = calloc(((size_t)1 << log2) / 64, 8)))
		return nd_error_set(ND_ENOMEM, "out of memory for the filter of %zu shingles", n);
	c->kin = c->kin_owned, c->kin_log2 = log2;
	return ND_OK;
}

void nd__kin_add(nd__common *c, uint32_t h, int three)
{
	uint64_t mask = ((uint64_t)1 << c->kin_log2) - 1, *w = c->kin_owned;
	for (int i = 0; i < KIN_PROBES; i++) {
		uint64_t bit = kin_bit(h, three, i, mask);
		w[bit >> 6] |= (uint64_t)1 << (bit & 63);
	}
}

static int kin_has(const nd__common *c, uint32_t h, int three)
{
	uint64_t mask = ((uint64_t)1 << c->kin_log2) - 1;
	for (int i = 0; i < KIN_PROBES; i++) {
		uint64_t bit = kin_bit(h, three, i, mask);
		if (!(c->kin[bit >> 6] >> (bit & 63) & 1))
			return 0;
	}
	return 1;
}

int nd__common_has_kin(const nd__common *c)
{
	return c && c->kin;
}

uint32_t nd__common_kin(const nd__common *c, uint32_t h)
{
	if (!c || !c->kin)
		return 0;
	return kin_has(c, h, 1) ? 3 : kin_has(c, h, 0) ? 2 : 1;
}

/* The filter as the store keeps it: log2 of its bits, then the bits (a
 * zero-length value: none). */
int nd__kin_store(nd_store_txn *txn, const nd__common *c)
{
	if (!c->kin)
		return nd_store_meta_put(txn, META_KIN, "", 0);
	size_t len = 4 + ((size_t)1 << c->kin_log2) / 8;
	uint8_t *buf = malloc(len);
	if (!buf)
		return nd_error_set(ND_ENOMEM, "out of memory");
	memcpy(buf, &c->kin_log2, 4);
	memcpy(buf + 4, (const void *)c->kin, len - 4);
	int rc = nd_store_meta_put(txn, META_KIN, buf, len);
	free(buf);
	return rc;
}

int nd__kin_load(nd_store_txn *txn, nd__common *c)
{
	const void *v;
	size_t len;
	uint32_t log2;
	int rc = nd_store_meta_get(txn, META_KIN, &v, &len);
	if (rc == ND_ENOTFOUND || (rc == ND_OK && len == 0))
		return ND_OK; /* signed before the filter, or without one */
	if (rc < 0)
		return rc;
	if (len < 4 || (memcpy(&log2, v, 4), log2 < KIN_LEAST || log2 > KIN_MOST || len != 4 + ((size_t)1 << log2) / 8))
		return nd_error_set(ND_ECORRUPT, "the store's filter of own text is damaged (%zu bytes); "
				    "`neardup sign --restart` makes it again", len);
	c->kin = (const nd__u64u *)((const uint8_t *)v + 4), c->kin_log2 = log2;
	return ND_OK;
}

int nd__kin_own(nd__common *c)
{
	if (!c->kin || c->kin_owned)
		return ND_OK;
	size_t bytes = ((size_t)1 << c->kin_log2) / 8;
	if (!(c->kin_owned = malloc(bytes)))
		return nd_error_set(ND_ENOMEM, "out of memory for the filter of own text");
	memcpy(c->kin_owned, (const void *)c->kin, bytes);
	c->kin = c->kin_owned;
	return ND_OK;
}

/* The samples a and b keep at their pair's cut, merged with the filter:
 * n[s] each keeps, both shared, common of those held by three kin or
 * more, held[s] of each one's own held by least kin or more. */
typedef struct {
	uint32_t n[2], both, common, held[2];
} kin_merge;

static void merge_kin(const nd__rec *a, const nd__rec *b, const nd__common *c, uint32_t least, kin_merge *m)
{
	uint32_t t = nd__rec_pair_cut(a, b, c), na = nd__rec_cut_at(a, t), nb = nd__rec_cut_at(b, t);
	memset(m, 0, sizeof(*m));
	m->n[0] = na, m->n[1] = nb;
	for (uint32_t i = 0, j = 0; i < na || j < nb;) {
		if (i < na && j < nb && a->sample[i] == b->sample[j])
			m->both++, m->common += nd__common_kin(c, a->sample[i]) >= 3, i++, j++;
		else if (j >= nb || (i < na && a->sample[i] < b->sample[j]))
			m->held[0] += nd__common_kin(c, a->sample[i++]) >= least;
		else
			m->held[1] += nd__common_kin(c, b->sample[j++]) >= least;
	}
}

int nd__rec_filled(const nd__rec *a, const nd__rec *b, const nd__common *c)
{
	if (!nd__common_has_kin(c))
		return 0;
	/* The samples both keep, first without the filter: most pairs have
	 * too little of their own. */
	uint32_t na, nb, both = nd__rec_shared(a, b, nd__rec_pair_cut(a, b, c), &na, &nb);
	if (!both || na - both < ND_OWN_SHARE * na || nb - both < ND_OWN_SHARE * nb)
		return 0;
	/* Then the filter: shared samples that fewer than three kin hold, own
	 * ones that two or more do. */
	kin_merge m;
	merge_kin(a, b, c, 2, &m);
	return m.both - m.common <= (1 - ND_OWN_COMMON) * m.both && m.held[0] < ND_OWN_HELD * (m.n[0] - m.both) &&
	       m.held[1] < ND_OWN_HELD * (m.n[1] - m.both);
}

int nd__rec_edited(const nd__rec *a, const nd__rec *b, const nd__common *c)
{
	uint32_t lo = a->nwords < b->nwords ? a->nwords : b->nwords, hi = a->nwords < b->nwords ? b->nwords : a->nwords;
	if (!nd__common_has_kin(c) || lo < ND_EDITED_LENGTH * hi)
		return 0;
	kin_merge m;
	merge_kin(a, b, c, 3, &m);
	uint32_t own_a = m.n[0] - m.both, own_b = m.n[1] - m.both;
	return m.both && own_a && own_b && m.common >= ND_OWN_COMMON * m.both && m.held[0] >= ND_OWN_HELD * own_a &&
	       m.held[1] >= ND_OWN_HELD * own_b;
}
