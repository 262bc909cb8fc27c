/* Internal growable byte buffer and array helpers (not public API). */
#ifndef ND_BUF_H
#define ND_BUF_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
	char *ptr;
	size_t len;
	size_t cap;
} nd_buf;

#define ND_BUF_INIT { NULL, 0, 0 }

/* Ensure room for `extra` more bytes plus a NUL; ND_OK or ND_ENOMEM. */
int nd_buf_grow(nd_buf *b, size_t extra);
int nd_buf_put(nd_buf *b, const void *data, size_t len);
int nd_buf_putc(nd_buf *b, char c);
void nd_buf_free(nd_buf *b);

/* Grow an array of elements of size `elem` so it holds at least `need`. */
int nd_array_reserve(void **ptr, size_t *cap, size_t need, size_t elem);

/* A growable list of 64-bit values (pairs, docids with an id); zeroed is
 * empty; the owner frees v. */
typedef struct {
	uint64_t *v;
	size_t n, cap;
} nd_u64s;

/* Append x; ND_OK or ND_ENOMEM. */
int nd_u64s_push(nd_u64s *l, uint64_t x);

/* qsort and bsearch order of 32-bit unsigned values (docids). */
int nd_cmp_u32(const void *a, const void *b);

/* Decode windows-1252 (bytes undefined there become U+FFFD) into out as
 * UTF-8, replacing its contents. */
int nd_cp1252_to_utf8(nd_buf *out, const char *in, size_t len);

#endif
