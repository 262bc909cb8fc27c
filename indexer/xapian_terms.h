/* Internal: text split into words the way Xapian's TermGenerator splits
 * it (omindex, scriptindex, notmuch and Recoll index with it), so that a
 * text checked against a database another indexer built gives the terms
 * that indexer gave its documents. */
#ifndef ND_INDEXER_XAPIAN_TERMS_H
#define ND_INDEXER_XAPIAN_TERMS_H

#include "neardup/tokenizer.h"
#include "neardup/xdb.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
	nd_token *tokens; /* in position order; text points into buf */
	size_t n;
	char *buf;
} nd__xapian_terms;

/* The unprefixed terms of text[0..len) with their positions, as
 * TermGenerator::index_text makes them (no stemming).  Free with
 * nd__xapian_terms_free. */
int nd__xapian_terms_of(const char *text, size_t len, nd__xapian_terms *out);
void nd__xapian_terms_free(nd__xapian_terms *t);

/* A second handle on a database reads it as the first does: its term
 * prefixes and query settings (sign's worker threads, a writable handle
 * for one change). */
void nd__xdb_copy_settings(nd_xdb *to, const nd_xdb *from);

#ifdef __cplusplus
}
#endif
#endif
