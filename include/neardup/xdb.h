/* neardup: a plain-C view of a Xapian database.
 *
 * Nothing C++ crosses this header.  Every call catches Xapian exceptions and
 * turns them into nd_error codes, keeping Xapian's message in nd_error_last().
 * Handles are not thread-safe (neither are Xapian's): use one per thread.
 *
 * Terms follow omega's conventions: a term starting with an ASCII capital is
 * prefixed (Q = unique id, U = URL as omindex uses it, Z = stem, S = title);
 * anything else is an unprefixed word. */
#ifndef ND_XDB_H
#define ND_XDB_H

#include "neardup/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nd_xdb nd_xdb;
typedef struct nd_xdb_terms nd_xdb_terms;
typedef struct nd_xdb_postlist nd_xdb_postlist;
typedef struct nd_xdb_doc nd_xdb_doc;

typedef uint32_t nd_docid;

enum {
	ND_XDB_READ = 0,   /* read-only; database must exist */
	ND_XDB_WRITE = 1,  /* writable; created if missing */
};

/* Open the database at path (a directory, or a stub file listing shards).
 * Errors: ND_ENOTFOUND (no database there), ND_ELOCKED (another writer),
 * ND_EVERSION, ND_ECORRUPT, ND_EXAPIAN. */
ND_EXTERN int nd_xdb_open(nd_xdb **out, const char *path, int mode);
ND_EXTERN void nd_xdb_close(nd_xdb *db);

/* Move a reader to the latest committed revision.  *changed (may be NULL)
 * says whether it moved.  Readers also do this themselves once on
 * DatabaseModifiedError; ND_ERETRY means it kept failing. */
ND_EXTERN int nd_xdb_reopen(nd_xdb *db, int *changed);

ND_EXTERN const char *nd_xdb_path(const nd_xdb *db);
/* 1 when opened ND_XDB_WRITE. */
ND_EXTERN int nd_xdb_writable(const nd_xdb *db);
ND_EXTERN int nd_xdb_doccount(nd_xdb *db, uint32_t *out);
ND_EXTERN int nd_xdb_lastdocid(nd_xdb *db, nd_docid *out);
ND_EXTERN int nd_xdb_avglength(nd_xdb *db, double *out);
/* The database UUID (for a stub or multi-shard database, the shards' UUIDs
 * joined by ':'); "" when the backend has none.  Caller frees *out. */
ND_EXTERN int nd_xdb_uuid(nd_xdb *db, char **out);
/* The revision; 0 for a database of several shards, which has none. */
ND_EXTERN int nd_xdb_revision(nd_xdb *db, uint64_t *out);

/* Document frequency and collection frequency of a term (0, 0 if absent). */
ND_EXTERN int nd_xdb_termfreq(nd_xdb *db, const char *term, uint32_t *tf, uint64_t *cf);

/* All terms, in byte order, optionally only those starting with prefix. */
ND_EXTERN int nd_xdb_terms_open(nd_xdb_terms **out, nd_xdb *db, const char *prefix);
/* Next term: 1 and the fields, 0 at the end, or an error.  *term is borrowed
 * until the next call on the iterator.  tf and cf may be NULL (cf costs a
 * lookup per term; tf is free). */
ND_EXTERN int nd_xdb_terms_next(nd_xdb_terms *it, const char **term, size_t *len,
				uint32_t *tf, uint64_t *cf);
ND_EXTERN void nd_xdb_terms_free(nd_xdb_terms *it);

/* A term's postings, in docid order, handed out in batches (one call per
 * posting would cost more than the walk itself).  An absent term gives an
 * empty list.  On DatabaseModifiedError the list reopens and resumes after
 * the last docid it returned. */
typedef struct {
	nd_docid docid;
	uint32_t wdf;
} nd_posting;

ND_EXTERN int nd_xdb_postlist_open(nd_xdb_postlist **out, nd_xdb *db, const char *term);
/* Fill buf with up to cap postings whose docid < limit (0 = no limit).
 * *n is the count; *n < cap with no error means the list reached limit or
 * its end. */
ND_EXTERN int nd_xdb_postlist_next(nd_xdb_postlist *pl, nd_docid limit,
				   nd_posting *buf, size_t cap, size_t *n);
/* Skip to the first posting with docid >= target. */
ND_EXTERN int nd_xdb_postlist_skip(nd_xdb_postlist *pl, nd_docid target);
ND_EXTERN void nd_xdb_postlist_free(nd_xdb_postlist *pl);

/* Lengths of the documents with lo <= docid < hi, at [docid - lo], 0 for
 * absent documents, from one walk of the all-documents list (far cheaper
 * than a lookup per posting).  doclen (may be NULL) gets Xapian's length,
 * the sum of all wdf; words (may be NULL) gets the sum of wdf over
 * unprefixed terms, read from termlists: the word count for databases
 * whose length also counts prefixed terms (omindex adds a Z stem per word). */
ND_EXTERN int nd_xdb_lengths(nd_xdb *db, nd_docid lo, nd_docid hi, uint32_t *doclen, uint32_t *words);

/* Total wdf of prefixed terms in the collection: 0 means Xapian's document
 * length already is the word count. */
ND_EXTERN int nd_xdb_prefixed_wdf(nd_xdb *db, uint64_t *out);

/* A document's termlist: calls fn(term, len, wdf, ctx) for each term in
 * byte order; fn returning non-zero stops the walk and is returned.
 * ND_ENOTFOUND when the document does not exist. */
typedef int (*nd_xdb_term_fn)(const char *term, size_t len, uint32_t wdf, void *ctx);
ND_EXTERN int nd_xdb_termlist(nd_xdb *db, nd_docid docid, nd_xdb_term_fn fn, void *ctx);

/* Positions of term in document: *out (caller frees) gets *n positions. */
ND_EXTERN int nd_xdb_positions(nd_xdb *db, nd_docid docid, const char *term,
			       uint32_t **out, size_t *n);

/* Document data and value slot: *out is malloc'd, NUL-terminated, caller frees. */
ND_EXTERN int nd_xdb_doc_data(nd_xdb *db, nd_docid docid, char **out, size_t *len);
ND_EXTERN int nd_xdb_doc_value(nd_xdb *db, nd_docid docid, unsigned slot,
			       char **out, size_t *len);

/* Every document with a value in slot, in docid order: fn(docid, value,
 * len, ctx); non-zero from fn stops and is returned.  The values are read
 * (with a retry if the database changes) before fn is first called. */
typedef int (*nd_xdb_value_fn)(nd_docid docid, const char *val, size_t len, void *ctx);
ND_EXTERN int nd_xdb_values_each(nd_xdb *db, unsigned slot, nd_xdb_value_fn fn, void *ctx);
/* The same for docids in [lo, hi) only. */
ND_EXTERN int nd_xdb_values_range(nd_xdb *db, unsigned slot, nd_docid lo, nd_docid hi, nd_xdb_value_fn fn,
				  void *ctx);
/* The largest value in slot (Xapian's upper bound: a deleted document's
 * may linger), malloc'd, *len 0 when the slot is empty. */
ND_EXTERN int nd_xdb_value_upper(nd_xdb *db, unsigned slot, char **out, size_t *len);

/* The document's unique id: its Q term (ours, scriptindex) or else its U
 * term (omindex), without the prefix, as its application writes it: a
 * notmuch message's as "id:<message-id>", a Recoll file's without the '|'
 * that ends its udi.  Caller frees *out.  ND_ENOTFOUND when the document
 * is missing or has neither. */
ND_EXTERN int nd_xdb_doc_uid(nd_xdb *db, nd_docid docid, char **out);
/* The mail thread of a notmuch or mu database's document (notmuch's G
 * term, mu's W), as a hash that is never 0; *thread 0 for any other
 * database's, or a document without one. */
ND_EXTERN int nd_xdb_doc_thread(nd_xdb *db, nd_docid docid, uint32_t *thread);
/* The host of a document's H term (omindex's, and neardup index's for a
 * page with a URL), lower case as written; *out NULL when it has none, or
 * in a mu database (whose H terms are Bcc addresses).  Caller frees *out. */
ND_EXTERN int nd_xdb_doc_host(nd_xdb *db, nd_docid docid, char **out);
/* The term that names a document's site, with its prefix: its H term,
 * else omindex's J (the base URL of the run that indexed it, "J" alone for
 * "/": one run is one site); *out NULL when it has neither, or in a mu
 * database.  Caller frees *out. */
ND_EXTERN int nd_xdb_doc_site(nd_xdb *db, nd_docid docid, char **out);
/* *yes 1 when the database's H and J terms name sites (every
 * application's but mu's: there they are Bcc addresses and attachments'
 * file names). */
ND_EXTERN int nd_xdb_names_sites(nd_xdb *db, int *yes);
/* The docid holding unique id `uid` (as Q term, else as U term; either
 * form nd_xdb_doc_uid gives). */
ND_EXTERN int nd_xdb_find_uid(nd_xdb *db, const char *uid, nd_docid *out);

/* Building documents for a writable database. */
ND_EXTERN int nd_xdb_doc_new(nd_xdb_doc **out);
ND_EXTERN void nd_xdb_doc_free(nd_xdb_doc *doc);
ND_EXTERN int nd_xdb_doc_add_posting(nd_xdb_doc *doc, const char *term, size_t len, uint32_t pos);
ND_EXTERN int nd_xdb_doc_add_boolean(nd_xdb_doc *doc, const char *term);
ND_EXTERN int nd_xdb_doc_set_data(nd_xdb_doc *doc, const char *data, size_t len);
ND_EXTERN int nd_xdb_doc_set_value(nd_xdb_doc *doc, unsigned slot, const char *val, size_t len);

/* Add doc, replacing any document indexed by the unique term uid_term
 * (e.g. "Q" + id).  *docid (may be NULL) gets the document's id. */
ND_EXTERN int nd_xdb_replace(nd_xdb *db, const char *uid_term, nd_xdb_doc *doc, nd_docid *docid);
/* Delete the documents indexed by uid_term; ND_ENOTFOUND if none. */
ND_EXTERN int nd_xdb_delete(nd_xdb *db, const char *uid_term);
ND_EXTERN int nd_xdb_commit(nd_xdb *db);

/* Set value slot `slot` of an existing document (len 0 removes it); the
 * termlist is untouched.  Writable databases only. */
ND_EXTERN int nd_xdb_set_value(nd_xdb *db, nd_docid docid, unsigned slot,
			       const void *val, size_t len);

/* Search.  query uses Xapian's QueryParser syntax (AND, OR, NOT, "phrases",
 * prefix*), unstemmed terms, OR between bare words, BM25 ranking; ties go
 * to the lower docid.  With collapse_slot >= 0, Xapian keeps only the best
 * document per non-empty value in that slot (Enquire::set_collapse_key),
 * so pages and counts are of collapsed results. */
typedef struct {
	nd_docid docid;
	double weight;
	uint32_t collapsed;   /* documents collapsed into this one (native only) */
} nd_xdb_hit;

typedef struct {
	uint32_t offset, max;   /* the page: results [offset, offset + max) */
	int collapse_slot;      /* -1: no collapsing */
	uint32_t check_at_least;/* count at least this many matches (exact
				   collapse counts need the whole match set) */
} nd_xdb_query;

/* hits (caller's array of q->max) gets *n hits; *estimated (may be NULL)
 * Xapian's estimate of all matches.  ND_EINVAL for a query it cannot
 * parse, or of more terms than the handle allows (wildcards expand to at
 * most that many, the most frequent first). */
/* Queries through db may hold at most n terms (0: ND_XDB_MAX_QUERY_TERMS):
 * Xapian's matcher takes time quadratic in them. */
#define ND_XDB_MAX_QUERY_TERMS 1000
ND_EXTERN void nd_xdb_set_max_query_terms(nd_xdb *db, uint32_t n);
/* For an application that prefixes every word of the text and every id
 * (mu: words under B, ids under I): words are then the terms under
 * word_prefix, handed out and looked up without it (terms, postlists,
 * positions, lengths, bare query words), and ids the terms under
 * uid_prefix instead of Q or U.  A term or prefix these calls are given
 * that begins with a capital letter is a field's own (H, J, Q), read as
 * written.  NULL or "": none (the default).  Up to 8
 * capital letters; ND_EINVAL otherwise.  A store remembers the prefixes
 * its set was built with (neardup build --word-prefix, --uid-prefix) and
 * sets them on the database it is used with. */
ND_EXTERN int nd_xdb_set_prefixes(nd_xdb *db, const char *word_prefix, const char *uid_prefix);
ND_EXTERN void nd_xdb_get_prefixes(const nd_xdb *db, const char **word_prefix, const char **uid_prefix);
/* How db's queries are parsed, as quest's -s, -p and -b say it: stemmer
 * a Snowball language or "none" (stemming some terms, as quest does),
 * prefixes and boolean_prefixes "FIELD:PREFIX" strings.  stemmer NULL
 * (the default): what the database was indexed with where that is known
 * from its terms: a database with Z terms (omindex, scriptindex with
 * stemming) gets English and Omega's query template's fields (title:S,
 * author:A, topic:B); any other, no stemming and no fields.  ND_EINVAL
 * for a language Xapian lacks or a malformed prefix. */
ND_EXTERN int nd_xdb_set_query_parser(nd_xdb *db, const char *stemmer, const char *const *prefixes,
				      size_t nprefixes, const char *const *boolean_prefixes, size_t nboolean);
ND_EXTERN int nd_xdb_search(nd_xdb *db, const char *query, const nd_xdb_query *q,
			    nd_xdb_hit *hits, size_t *n, uint32_t *estimated);

#ifdef __cplusplus
}
#endif
#endif
