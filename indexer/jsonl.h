/* Internal: JSON Lines reader for corpus records. */
#ifndef ND_JSONL_H
#define ND_JSONL_H

#include <stdio.h>
#include <stddef.h>

typedef struct nd_jsonl nd_jsonl;

typedef struct {
	const char *id;     /* "id": string, or integer rendered as decimal */
	const char *text;   /* "text" (required; "" allowed) */
	size_t text_len;    /* may contain NUL bytes from \u0000 */
	const char *url;    /* "url" or NULL */
	const char *title;  /* "title" or NULL */
	size_t line;        /* 1-based line number */
} nd_jsonl_record;

/* Lines longer than max_line bytes are rejected (ND_ETOOBIG) and skipped. */
int nd_jsonl_open(nd_jsonl **out, FILE *f, const char *name, size_t max_line);
/* 1 and a record (borrowed until the next call), 0 at the end, or an error
 * for the current line (ND_EPARSE, ND_ETOOBIG) naming file and line; the
 * reader stays usable, so the caller may log it and go on. ND_EIO is final. */
int nd_jsonl_next(nd_jsonl *r, nd_jsonl_record *rec);
void nd_jsonl_close(nd_jsonl *r);

#endif
