/* Internal to descriptor/: the method's pieces (the set's layout, the bit
 * test, records, drift), shared by selection, signing and the paths
 * that sign a text or a document on their own. */
#ifndef ND_DESC_METHOD_H
#define ND_DESC_METHOD_H

#include "neardup/descriptor.h"
#include "neardup/window.h"
#include "neardup/xdb.h"
#include "lmdb_store/store_internal.h"
#include "common/nd_hash.h"

#include <math.h>

struct nd_descriptor {
	uint32_t n;
	char **words;        /* sorted in byte order: a termlist merge-joins with them */
	double *thresholds;
	double *lambdas;
	double *weights;     /* near-key weight of each word, ln(1 + N/df) when the
				set was chosen; NULL: all equal (a set given as
				words, or stored before weights were kept) */
	uint16_t *near_hash; /* each word's ND_NEAR_WORD_N near values (near_values in select.c) */
	int word_lengths;    /* 1: len(d) from termlists; 0: Xapian's doclength */
	int text_keys;       /* ND_TEXT_KEYS_* of the text trees (record.h) */
	uint64_t version;
	uint64_t *slot;      /* nd__descriptor_find's table: the word's hash's high
				half << 32 | word index + 1, 0 empty */
	uint32_t mask;       /* its size - 1 */
	uint64_t *filter;    /* a bit a word's hash sets, 4 a slot (in slot's room) */
};

/* Take weights (n of them, copied; NULL: all equal) and derive what the set
 * computes from its words: the near hashes, the version and the lookup
 * table.  A weight that
 * is not nd__weight_ok is ND_EINVAL. */
int nd__descriptor_finish(nd_descriptor *d, const double *weights);

/* The index of term[0..len) in d->words, or -1: a hash lookup, for every
 * term of every document signed from its termlist or checked. */
int32_t nd__descriptor_find(const nd_descriptor *d, const char *term, size_t len);

/* A near-key weight: positive and finite (written so that NaN fails). */
static inline int nd__weight_ok(double w)
{
	return w > 0 && w < 1e6;
}

/* The one bit test used by every signing path, so that signing from
 * postlists and from a termlist agree bit for bit: f = wdf/len > b, written
 * without the division. */
static inline int nd_bit_above(uint32_t wdf, uint32_t len, double b)
{
	return len > 0 && (double)wdf > b * (double)len;
}

/* Word lengths for documents [lo, hi) under the set's length rule, and
 * presence (Xapian doclength > 0).  len and present have hi - lo entries. */
int nd_desc_lengths(nd_xdb *db, int word_lengths, nd_docid lo, nd_docid hi,
		    uint32_t *len, uint32_t *present);

/* Index of term[0..len) in the byte-ordered array words[0..n), or -1. */
int32_t nd__find_sorted(char *const *words, uint32_t n, const char *term, size_t len);

/* qsort comparator for uint16_t. */
int nd__cmp_u16(const void *a, const void *b);

/* The record fingerprint (see nd_sig): a sum, so postings may arrive in
 * any order, of one hash per descriptive word present, mixed with len. */
static inline uint64_t nd_fp_word(uint32_t word, uint32_t wdf)
{
	return nd_mix64(((uint64_t)(word + 1) << 32) | wdf);
}

/* The text hash (ND_SLOT_TEXT_HASH) of a document that has one. */
static inline uint64_t nd_fp_text(uint64_t hash)
{
	return nd_mix64(hash ^ 0x7465787468617368ULL);
}

static inline uint64_t nd_fp_final(uint64_t sum, uint32_t len)
{
	return nd_mix64(sum ^ nd_mix64(0x6670000000000000ULL | len));
}

/* ND_EMISMATCH unless st was signed from db (ND_ESTATE: it has no set). */
int nd__store_matches_db(nd_store *st, nd_xdb *db);
/* The set, for a database that holds the store's documents under other
 * docids (xapian-compact or copydatabase renumbered them: *r, which the
 * caller clears); when it does not, *r moves nothing and the result is
 * nd_descriptor_load's. */
int nd__descriptor_load_renumbered(nd_descriptor **out, nd_store *st, nd_xdb *db, nd__renumbering *r);

/* Bring a document's record in line with the database: absent, or present
 * with these bits, near-neighbour keys (NULL: none, neither a descriptive
 * word nor any word held), fingerprint (nd_fp_final) and verdict record
 * (rec[0..reclen), nd__rec_encode; none for a text without words).  An
 * equal record is left alone unless force.  *change says what happened. */
int nd__sig_apply(nd_store_txn *txn, nd_docid docid, int present, const uint16_t *bits, uint32_t nbits,
		  const uint16_t *near, uint64_t fp, const void *rec, size_t reclen, int force, nd_change *change,
		  uint64_t *old_key);
/* Sign one document from its termlist and its words: the signature (with
 * the text trees' keys; present when it has any near-neighbour key) and
 * the verdict record (*rec malloc'd, *reclen 0: no words). */
int nd__sign_doc(const nd_descriptor *d, nd_xdb *db, nd_docid docid, nd_sig *out, uint8_t **rec, size_t *reclen);
/* The verdict record in a stored payload (*reclen 0: none), and (bits not
 * NULL) its descriptive bits in place, *nbits of them, ascending (2-aligned
 * as LMDB aligns a value). */
int nd__payload_rec(const void *payload, size_t len, const void **rec, size_t *reclen, const uint16_t **bits,
		    uint32_t *nbits);
/* Delete the records of docids past last (documents a crashed indexer
 * hooked but never committed), each a change reported through o->changed
 * and counted in rep->deleted. */
int nd__drop_beyond(nd_store *st, nd_docid last, const nd_sign_options *o, nd_sign_report *rep);
/* A feed window at work in one write transaction (neardup/window.h). */
typedef struct {
	nd_window w;       /* seconds 0: none, and the rest does nothing */
	uint64_t clock;    /* the newest date known */
	uint64_t cutoff;   /* records dated before it leave */
	nd_docid seen;     /* by arrival: the highest docid dated */
} nd__window;
int nd__window_read(nd_store_txn *txn, nd_window *w);
/* 1 when val is a date (nd_date_of_value) no later than tomorrow. */
int nd__window_date_of(const void *val, size_t len, uint64_t *date);
/* The store's window and clock (by arrival: now). */
int nd__window_load(nd_store_txn *txn, nd__window *out);
void nd__window_advance(nd__window *win, uint64_t date);
/* By slot: move the clock to the newest date of a document with words. */
int nd__window_db_clock(nd__window *win, nd_xdb *db);
/* The date docid gets: its slot's (*dated 0: none), or now. */
int nd__window_doc_date(const nd__window *win, nd_xdb *db, nd_docid docid, uint64_t *date, int *dated);
/* 1 when a present document stays out: dated before the cutoff, or (by
 * arrival) a docid the store dated before and has since let go. */
int nd__window_outside(nd_store_txn *txn, const nd__window *win, nd_docid docid, int dated, uint64_t date);
/* Date a document's record after nd__sig_apply made it change. */
int nd__window_date(nd_store_txn *txn, const nd__window *win, nd_docid docid, nd_change change, int dated,
		    uint64_t date);
int nd__window_seen(nd_store_txn *txn, nd__window *win, nd_docid docid);
/* Delete the records dated before the cutoff; fn(docid, old key, ctx) for
 * each (negative stops). */
typedef int (*nd__window_expired_fn)(nd_docid docid, uint64_t old_key, void *ctx);
int nd__window_expire(nd_store_txn *txn, const nd__window *win, nd__window_expired_fn fn, void *ctx, uint64_t *n);

/* 1 when a change counts in the drift (see nd_drift). */
int nd__drift_counts(nd_store_txn *txn, nd_docid docid, nd_change change);
/* Add changes to the drift; ND_ESTATE when that would pass max_drift (> 0). */
int nd__drift_add(nd_store_txn *txn, uint64_t changes, double max_drift, const char *path);

/* Near-neighbour keys (see nd_sig): start every MinHash at its maximum,
 * then lower it by each word held.  Keys are 16 bits and a minimum of
 * 16-bit values is the 16-bit value of the minimum, because each word's
 * value is an order-keeping truncation of its hash (or clock). */
#define ND_NEAR_N (ND_NEAR_TREES * ND_NEAR_ROWS)
#define ND_NEAR_WORD_N (ND_NEAR_WORD_TREES * ND_NEAR_ROWS)
#define ND_NEAR_TEXT_N (ND_NEAR_TEXT_TREES * ND_NEAR_ROWS)
/* Every tree "no key"; the word trees' are lowered by the words held
 * (nd__near_add), the text trees' come from the text (nd__rec_make). */
static inline void nd__near_reset(uint16_t *near)
{
	for (unsigned k = 0; k < ND_NEAR_N; k++)
		near[k] = UINT16_MAX;
}

/* Lower the word trees of near by a word's values (d->near_hash). */
static inline void nd__near_min(uint16_t *near, const uint16_t *hashes)
{
	for (unsigned k = 0; k < ND_NEAR_WORD_N; k++)
		near[k] = hashes[k] < near[k] ? hashes[k] : near[k];
}

/* Lower near by word of d. */
static inline void nd__near_add(const nd_descriptor *d, uint16_t *near, uint32_t word)
{
	nd__near_min(near, d->near_hash + (size_t)word * ND_NEAR_WORD_N);
}

/* Append bit to a signature. */
int nd_sig_push(nd_sig *s, uint16_t bit);

/* Bits two ascending bit lists have in common. */
static inline uint32_t nd__bits_common(const uint16_t *a, uint32_t na, const uint16_t *b, uint32_t nb)
{
	uint32_t common = 0;
	for (uint32_t x = 0, y = 0; x < na && y < nb;) {
		if (a[x] == b[y])
			common++, x++, y++;
		else if (a[x] < b[y])
			x++;
		else
			y++;
	}
	return common;
}

/* Jaccard of two signatures' bit sets (sorted, as nd_sig keeps them). */
static inline double nd__sig_jaccard(const nd_sig *a, const nd_sig *b)
{
	uint32_t common = nd__bits_common(a->bits, a->nbits, b->bits, b->nbits);
	return a->nbits + b->nbits ? (double)common / (double)(a->nbits + b->nbits - common) : 0;
}

#endif
