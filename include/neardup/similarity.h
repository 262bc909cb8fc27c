/* neardup: exact similarity of two word sequences, for the cross-check.
 *
 * Words are 32-bit ids (nd_word_id of the tokenizer's folded token): equal
 * words have equal ids, and two distinct words of one document pair share
 * an id with probability ~1e-4 at most for 1,000-word vocabularies, which
 * cannot move a verdict at the 8% bound by more than one word. */
#ifndef ND_SIMILARITY_H
#define ND_SIMILARITY_H

#include "neardup/common.h"
#include "neardup/tokenizer.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Id of a folded token. */
ND_EXTERN uint32_t nd_word_id(const char *word, size_t len);
/* Ids of tokens[0..n) into out[0..n). */
ND_EXTERN void nd_word_ids(const nd_token *tokens, size_t n, uint32_t *out);

/* Word-shingle measures with shingle width w (a sequence shorter than w is
 * one shingle: all of it).  Empty sequences give 0.
 *   ssr:  |S_A & S_B| / |S_A | S_B|  (Broder's resemblance; seed 004's "ssr")
 *   sscr: tokens of A and B covered by shared shingles / tokens of A and B
 *         (seed 004), which is kinder to short texts; sscr >= ssr
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

#ifdef __cplusplus
}
#endif
#endif
