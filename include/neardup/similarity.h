/* neardup: exact similarity of two word sequences, for the cross-check.
 *
 * Words are 32-bit ids (nd_word_id, neardup/tokenizer.h). */
#ifndef ND_SIMILARITY_H
#define ND_SIMILARITY_H

#include "neardup/common.h"
#include "neardup/tokenizer.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Word-shingle measures with shingle width w (a sequence shorter than w is
 * one shingle: all of it).  Empty sequences give 0.
 *   ssr:  |S_A & S_B| / |S_A | S_B|  (Broder's resemblance; Kupietz's "ssr")
 *   sscr: tokens of A and B covered by shared shingles / tokens of A and B
 *         (Kupietz), which is kinder to short texts; sscr >= ssr
 *   containment: |S_A & S_B| / min(|S_A|, |S_B|)
 *   bag:  ssr over multisets (each shingle counted as often as it occurs):
 *         a new shingle in text repeated a million times moves it by 1e-6,
 *         where it halves ssr; the cross-check's measure for long pairs */
typedef struct {
	double ssr, sscr, containment, bag;
} nd_shingle_sim;

ND_EXTERN int nd_shingle_similarity(const uint32_t *a, size_t na, const uint32_t *b, size_t nb,
				    unsigned w, nd_shingle_sim *out);

/* Word edit distance (insert, delete, substitute, each 1) between a and b,
 * computed within a band of width 2k+1 (Ukkonen): the exact distance when
 * it is <= k, otherwise k + 1, found as soon as every cell of a row
 * exceeds k.  Cost O(k * min(na, nb)) time, O(nb) memory.  k = SIZE_MAX
 * gives the exact distance with the full table. */
ND_EXTERN int nd_edit_distance(const uint32_t *a, size_t na, const uint32_t *b, size_t nb,
			       size_t k, size_t *out);

/* Normalized distance d / max(na, nb) with a cut-off: *out is exact and
 * *exact = 1 when it is <= bound; otherwise *exact = 0 and *out is a lower
 * bound above `bound`.  bound >= 1 asks for the exact value.  Two empty
 * sequences are at distance 0. */
ND_EXTERN int nd_levenshtein(const uint32_t *a, size_t na, const uint32_t *b, size_t nb,
			     double bound, double *out, int *exact);

/* 64-bit fingerprint of the w-word shingle of ids[0..n) that starts at i
 * (fewer than w words left: the rest of the sequence). */
ND_EXTERN uint64_t nd_shingle_fp(const uint32_t *ids, size_t n, size_t i, unsigned w);

#ifdef __cplusplus
}
#endif
#endif
