/* Internal to descriptor/: verification's pieces (the one pair verdict,
 * sorted fingerprint sets, candidates by bit-set Jaccard, linkage),
 * shared by clusters, check, hooks and collapsing. */
#ifndef ND_DESC_VERIFY_H
#define ND_DESC_VERIFY_H

#include "descriptor/method/method.h"
#include "neardup/check.h"
#include "neardup/verify.h"
#include "common/nd_join.h"
#include "descriptor/verify/record.h"

/* Number of values two sorted, distinct uint64_t arrays share. */
size_t nd__common_sorted(const uint64_t *a, size_t na, const uint64_t *b, size_t nb);

/* Sort-and-deduplicate for fingerprint sets; returns the new count. */
size_t nd__sort_unique_u64(uint64_t *v, size_t n);
/* Sorted, each value once; the new length. */
size_t nd__sort_unique_u32(uint32_t *v, size_t n);
/* Radix sorts (qsort for a few values, or when memory is short). */
void nd__sort_u64(uint64_t *v, size_t n);
/* By the high 32 bits alone (values equal there keep their order). */
void nd__sort_u64_high(uint64_t *v, size_t n);
void nd__sort_u32(uint32_t *v, size_t n);
/* 1 when x is in v[0..n) (sorted ascending). */
int nd__in_sorted_u64(const uint64_t *v, size_t n, uint64_t x);
int nd__in_sorted_u32(const uint32_t *v, size_t n, uint32_t x);
/* The first of v[0..n) (ascending) not below x (n: none). */
size_t nd__lower_bound_u32(const uint32_t *v, size_t n, uint32_t x);
size_t nd__lower_bound_u64(const uint64_t *v, size_t n, uint64_t x);
size_t nd__unique_sorted_u64(uint64_t *v, size_t n);

/* ND_EINVAL naming the option when o (may be NULL) is out of range or NaN. */
int nd__verify_options_check(const nd_verify_options *o);

/* Candidates sharing bits with sig: documents with bit-set Jaccard >= t
 * in the store, by prefix filtering over the bit postings (a document
 * with Jaccard >= t holds at least ceil(t |A|) of A's bits, so one of A's
 * |A| - ceil(t |A|) + 1 rarest), and the signature's neighbours in the
 * store's near-neighbour index whatever their Jaccard (documents holding
 * mostly the same descriptive words: bits can differ more than t allows
 * after a few edits).  t <= 0: the documents of sig's own key instead of
 * the bit postings' (equal keys, and the index's neighbours).  Sorted as
 * nd__cmp_cand; *out (caller frees) may be NULL when *nout is 0. */
typedef struct {
	uint32_t docid;
	double jaccard;   /* of the bit sets */
	double rank;      /* equal key 2, else the larger of jaccard and the share
			     of near-neighbour MinHashes that agree */
} nd__cand;
/* A candidate b's rank for a (jaccard: of their bit sets). */
double nd__cand_rank(const nd_sig *a, const nd_sig *b, double jaccard);
/* qsort order of candidates: equal keys, then most similar, then docid. */
int nd__cmp_cand(const void *x, const void *y);
int nd__tolerant_candidates(nd_store_txn *txn, const nd_descriptor *d, const nd_sig *sig, double t,
			    nd__cand **out, size_t *nout);
/* Keep the candidates dated at or after since (undated ones too), in order. */
int nd__cands_since(nd_store_txn *txn, nd__cand *c, size_t *nc, uint64_t since);

/* The template of a candidate's site that hooks counted apart from the
 * common table (*e empty: none; sites.c's nd__site_cand_templates). */
typedef int (*nd__template_fn)(void *ctx, nd_docid cand, nd__extra *e);

/* Compare a text (its record rec, weighed by common, and for the strict
 * point its words ids[0..n)) with the candidates c[0..nc) of the store
 * txn reads, in that order (most similar first), skipping docid self (0:
 * none), at most max_compare of them, by the verdict at vo->point (NULL:
 * copy): out (room for max_compare) gets *nout members.  Copy and story
 * read the candidates' records, strict their words (db), and weigh with
 * each candidate's site's template when tf gives one (tf may be NULL).
 * A candidate without words (deleted since signing) is a member at
 * distance 1.  check and hooks. */
int nd__compare_candidates(nd_xdb *db, nd_store_txn *txn, const nd__common *common,
			   const nd__rec *rec, const uint32_t *ids, size_t n, const nd__cand *c, size_t nc,
			   nd_docid self, size_t max_compare, const nd_verify_options *vo, nd__template_fn tf,
			   void *tctx, nd_check_member *out, size_t *nout);

#endif
