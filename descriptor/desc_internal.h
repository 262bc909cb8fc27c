/* Internal to descriptor/: the set's layout and helpers shared by
 * selection and signing. */
#ifndef ND_DESC_INTERNAL_H
#define ND_DESC_INTERNAL_H

#include "neardup/descriptor.h"
#include "neardup/check.h"
#include "neardup/verify.h"

#include <math.h>

struct nd_descriptor {
	uint32_t n;
	char **words;        /* sorted in byte order: a termlist merge-joins with them */
	double *thresholds;
	double *lambdas;
	int word_lengths;    /* 1: len(d) from termlists; 0: Xapian's doclength */
	uint64_t version;
};

/* The one bit test used by every signing path, so that signing from
 * postlists and from a termlist agree bit for bit: f = wdf/len > b, written
 * without the division. */
static inline int nd_bit_above(uint32_t wdf, uint32_t len, double b)
{
	return len > 0 && (double)wdf > b * (double)len;
}

static inline uint64_t nd_mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

/* splitmix64: small, fast, and reproducible across platforms. */
typedef struct { uint64_t s; } nd_rng;

static inline uint64_t nd_rng_next(nd_rng *r)
{
	r->s += 0x9e3779b97f4a7c15ULL;
	return nd_mix64(r->s);
}

/* Uniform in [0, n), n > 0. */
static inline uint64_t nd_rng_below(nd_rng *r, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)nd_rng_next(r) * n) >> 64);
}

static inline uint64_t nd_hash_bytes(const void *p, size_t n, uint64_t seed)
{
	const unsigned char *s = p;
	uint64_t h = seed ^ 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < n; i++) {
		h ^= s[i];
		h *= 0x100000001b3ULL;
	}
	return nd_mix64(h);
}

/* Word lengths for documents [lo, hi) under the set's length rule, and
 * presence (Xapian doclength > 0).  len and present have hi - lo entries. */
int nd_desc_lengths(nd_xdb *db, int word_lengths, nd_docid lo, nd_docid hi,
		    uint32_t *len, uint32_t *present);

/* Index of term[0..len) in the byte-ordered array words[0..n), or -1. */
int32_t nd__find_sorted(char *const *words, uint32_t n, const char *term, size_t len);

/* qsort comparator for uint16_t. */
int nd__cmp_u16(const void *a, const void *b);

/* Number of values two sorted, distinct uint64_t arrays share. */
size_t nd__common_sorted(const uint64_t *a, size_t na, const uint64_t *b, size_t nb);

/* Fingerprint of the w-word shingle of ids starting at i (shingle.c), and
 * sort-and-deduplicate for fingerprint sets; returns the new count. */
uint64_t nd__shingle_fp(const uint32_t *ids, size_t n, size_t i, unsigned w);
size_t nd__sort_unique_u64(uint64_t *v, size_t n);
void nd__sort_u64(uint64_t *v, size_t n);
size_t nd__unique_sorted_u64(uint64_t *v, size_t n);

/* The record fingerprint (see nd_sig): a sum, so postings may arrive in
 * any order, of one hash per descriptive word present, mixed with len. */
static inline uint64_t nd_fp_word(uint32_t word, uint32_t wdf)
{
	return nd_mix64(((uint64_t)(word + 1) << 32) | wdf);
}

static inline uint64_t nd_fp_final(uint64_t sum, uint32_t len)
{
	return nd_mix64(sum ^ nd_mix64(0x6670000000000000ULL | len));
}

/* ND_EINVAL naming the option when o (may be NULL) is out of range or NaN. */
int nd__verify_options_check(const nd_verify_options *o);

/* ND_EMISMATCH unless st was signed from db (ND_ESTATE: it has no set). */
int nd__store_matches_db(nd_store *st, nd_xdb *db);

/* Bring a document's record in line with the database: absent, or present
 * with these bits and fingerprint (nd_fp_final).  An equal
 * record is left alone unless force.  *change says what happened. */
int nd__sig_apply(nd_store_txn *txn, nd_docid docid, int present, const uint16_t *bits,
		  uint32_t nbits, uint64_t fp, int force, nd_change *change, uint64_t *old_key);
/* 1 when a change counts in the drift (see nd_drift). */
int nd__drift_counts(nd_store_txn *txn, nd_docid docid, nd_change change);
/* Add changes to the drift; ND_ESTATE when that would pass max_drift (> 0). */
int nd__drift_add(nd_store_txn *txn, uint64_t changes, double max_drift, const char *path);

/* The cross-check of one pair, as nd_verify_cluster decides it: word
 * Levenshtein within o->max_distance, or for a pair longer than
 * o->max_exact_words, shingle resemblance of at least o->min_resemblance.
 * 1 duplicate, 0 not (how and distance say by what), or an error. */
int nd__verify_pair(const uint32_t *a, size_t na, const uint32_t *b, size_t nb,
		    const nd_verify_options *o, nd_verify_how *how, double *distance);

/* Jaccard of two signatures' bit sets (sorted, as nd_sig keeps them). */
static inline double nd__sig_jaccard(const nd_sig *a, const nd_sig *b)
{
	uint32_t common = 0;
	for (uint32_t x = 0, y = 0; x < a->nbits && y < b->nbits;) {
		if (a->bits[x] == b->bits[y])
			common++, x++, y++;
		else if (a->bits[x] < b->bits[y])
			x++;
		else
			y++;
	}
	return a->nbits + b->nbits ? (double)common / (double)(a->nbits + b->nbits - common) : 0;
}

/* Prefix filtering for Jaccard >= t: two sets that similar share an
 * element among the first n - ceil(t n) + 1 of each (n its size), in any
 * one order of the elements (the "probe" prefix; 0 for an empty set). */
static inline uint32_t nd__jaccard_prefix(uint32_t n, double t)
{
	uint32_t need = (uint32_t)ceil(t * n - 1e-9);
	return n ? n - (need ? need : 1) + 1 : 0;
}

/* Candidates sharing bits with sig: documents with bit-set Jaccard >= t
 * in the store, by prefix filtering over the bit postings (a document
 * with Jaccard >= t holds at least ceil(t |A|) of A's bits, so one of A's
 * |A| - ceil(t |A|) + 1 rarest).  Sorted by Jaccard, then docid; *out
 * (caller frees) may be NULL when *nout is 0. */
typedef struct {
	uint32_t docid;
	double jaccard;
} nd__cand;
int nd__tolerant_candidates(nd_store_txn *txn, const nd_descriptor *d, const nd_sig *sig, double t,
			    nd__cand **out, size_t *nout);

/* Compare word ids[0..n) with the words of c[0..nc) in that order (most
 * similar first), skipping docid self (0: none), at most max_compare of
 * them, by word Levenshtein with the cut-off max_distance: out (room for
 * max_compare) gets *nout members.  A candidate without words (deleted
 * since signing) is a member at distance 1.  check and tolerant hooks. */
int nd__compare_candidates(nd_xdb *db, const uint32_t *ids, size_t n, const nd__cand *c, size_t nc,
			   nd_docid self, size_t max_compare, double max_distance, nd_check_member *out,
			   size_t *nout);

/* Append bit to a signature. */
int nd_sig_push(nd_sig *s, uint16_t bit);

/* Average linkage (UPGMA) of n documents over scored pairs, a missing pair
 * counting 0 and a pair listed twice keeping its higher score: clusters
 * join, highest average similarity first, while it is >= floor, and each
 * join is reported with one member of each side (walk next[] from it to
 * UINT32_MAX for the rest).  Non-zero from join stops and is returned. */
typedef struct {
	uint32_t a, b;
	double score;
} nd__scored;
typedef struct {
	const uint32_t *next;
	uint32_t a, b;
	double level;
} nd__join;
typedef int (*nd__join_fn)(const nd__join *j, void *ctx);
int nd__average_linkage(size_t n, const nd__scored *p, size_t np, double floor, nd__join_fn join, void *ctx);

#endif
