/* Internal: reading a whole input file (indexer/input.c). */
#ifndef ND_INPUT_H
#define ND_INPUT_H

#include <stddef.h>

/* A whole regular file of at most max_len bytes (refused unread when its
 * size says it is larger); caller frees *out.  Names the path in errors. */
int nd_read_file(char **out, size_t *len, const char *path, size_t max_len);

#endif
