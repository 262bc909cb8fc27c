/* neardup: word shingles (Broder et al.), the classic baseline. */
#ifndef ND_SHINGLE_H
#define ND_SHINGLE_H

#include "neardup/common.h"
#include "neardup/tokenizer.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 64-bit fingerprints of the w-word shingles of tokens[0..n), keeping only
 * those that are 0 modulo m (m = 1 keeps all; Ilyinsky et al. uses w = 10,
 * m = 16).  *out (caller frees) gets the sorted distinct fingerprints.  A
 * document shorter than w words has one shingle: all of it. */
ND_EXTERN int nd_shingles(const nd_token *tokens, size_t n, unsigned w, unsigned m,
			  uint64_t **out, size_t *nout);

/* |A & B| / |A | B| of two sorted fingerprint sets (0 when both are empty). */
ND_EXTERN double nd_shingle_resemblance(const uint64_t *a, size_t na, const uint64_t *b, size_t nb);

#ifdef __cplusplus
}
#endif
#endif
