/* neardup: build or extend a Xapian database from a corpus.
 *
 * Each document gets unprefixed word terms with positions from the neardup
 * tokenizer, a boolean unique-id term "Q<id>" (as scriptindex does, so
 * re-indexing an id replaces the document) and omega-style document data
 * ("id=", "url=", "caption=" lines), and the word-id sequence in value
 * slot ND_SLOT_WORDS (neardup/words.h); for an HTML page indexed by its
 * main content, the whole page's word ids too, in ND_SLOT_FULL_WORDS.
 * No other term has a wdf, so Xapian's document length is exactly the word
 * count. */
#ifndef ND_INDEXER_H
#define ND_INDEXER_H

#include "neardup/common.h"
#include "neardup/xdb.h"

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* An nd_indexer owns its writable database handle (nd_indexer_db lends
 * it) from nd_indexer_open to nd_indexer_close; one thread at a time, and
 * one writer per database (Xapian's own lock). */
typedef struct nd_indexer nd_indexer;

typedef struct {
	uint64_t files;          /* input files read */
	uint64_t added;          /* documents new to the database */
	uint64_t replaced;       /* documents whose id was already there */
	uint64_t words;          /* tokens indexed */
	uint64_t bytes;          /* input bytes read */
	uint64_t skipped;        /* inputs not indexed, all reasons */
	uint64_t skipped_empty;  /* no words */
	uint64_t skipped_binary; /* NUL bytes in a text file */
	uint64_t skipped_large;  /* over max_doc_bytes or max_line_bytes */
	uint64_t skipped_bad;    /* unreadable file, malformed record */
	uint64_t skipped_type;   /* file name not .txt/.text/.html/.htm/.jsonl, nor without extension */
	uint64_t reencoded;      /* text files that were not UTF-8, read as windows-1252 */
	uint64_t invalid_utf8;   /* documents with invalid UTF-8 bytes (split as separators) */
	uint64_t duplicate_ids;  /* ids given twice through add_path on one indexer
				    (the later replaced the earlier; also in replaced) */
	uint64_t html_pages;     /* HTML files indexed */
	uint64_t html_whole;     /* of those, kept whole under ND_CONTENT_MAIN: no
				    block read as content (no stopword list for
				    the language, or no prose), or only a stub
				    of about thirty words on a page that marks
				    no main content (an index, a listing) and
				    no chrome to leave out around a line of its
				    own */
} nd_index_stats;

/* What of an HTML page is indexed. */
typedef enum {
	/* The article: text blocks that read as prose, without navigation,
	 * link lists and footers (indexer/boilerplate.h); a page whose prose
	 * is a stub above lists (an index) whole.  The default: the same
	 * article inside different sites' templates then indexes alike. */
	ND_CONTENT_MAIN = 0,
	ND_CONTENT_FULL = 1, /* all visible text */
} nd_content;

typedef struct {
	size_t batch_docs;       /* commit every this many documents */
	size_t max_doc_bytes;    /* larger files are skipped */
	size_t max_line_bytes;   /* larger JSONL lines are skipped */
	/* Called once per document with the running totals (may be NULL). */
	void (*progress)(const nd_index_stats *st, const char *current, void *ctx);
	/* Called for every skipped input and warning, naming it (may be NULL). */
	void (*warn)(const char *message, void *ctx);
	void *ctx;
	nd_content content;      /* for HTML (ND_CONTENT_MAIN) */
	/* A file's URL is this followed by its id (NULL: files have none;
	 * JSONL records give their own).  A URL's host is the page's site
	 * (a term "H" and the host, as omindex writes it): text that many
	 * pages of one site hold is its template, no evidence of a copy.
	 * Without one, a file under a directory named like a host has that
	 * host, and an HTML page the host most of its absolute links go to. */
	const char *url_base;
} nd_index_options;

/* 64 MiB: indexing a document takes about 11 bytes of memory per input byte
 * at peak (tokens and Xapian's in-memory postings), so ~700 MB for one at
 * the limit.  Raise it for corpora known to hold bigger documents. */
#define ND_INDEX_OPTIONS_INIT { 1000, (size_t)64 << 20, (size_t)64 << 20, NULL, NULL, NULL, ND_CONTENT_MAIN, NULL }

/* Open (creating if needed) the database at path for writing. opts may be NULL. */
ND_EXTERN int nd_indexer_open(nd_indexer **out, const char *path, const nd_index_options *opts);

/* Index one document given as UTF-8 text.  url and title may be NULL.
 * ND_OK also when the document was skipped (counted in the stats, warned). */
ND_EXTERN int nd_indexer_add_text(nd_indexer *ix, const char *id, const char *text, size_t len,
				  const char *url, const char *title);

/* Index a file or a directory tree (sorted, hidden entries and directory
 * symlinks skipped).  .txt/.text files and names without an extension are
 * text (unless a NUL byte says binary), .html/.htm are HTML and
 * .jsonl files hold one {"id","text","url","title"} record per line.  A
 * file's id is its path relative to the directory given (its base name when
 * path is a file).  Bad inputs are skipped, counted and warned; only errors
 * that stop everything (database write failure) are returned. */
ND_EXTERN int nd_indexer_add_path(nd_indexer *ix, const char *path);
/* The same, with the ids given: a directory's files are named id/rel, a
 * file is named id (NULL: as nd_indexer_add_path). */
ND_EXTERN int nd_indexer_add_path_as(nd_indexer *ix, const char *path, const char *id);

ND_EXTERN const nd_index_stats *nd_indexer_stats(const nd_indexer *ix);

/* The underlying database (borrowed; for the caller's own reads). */
ND_EXTERN nd_xdb *nd_indexer_db(nd_indexer *ix);

/* The docid of the document the last nd_indexer_add_text call indexed
 * (new or replaced), 0 when it skipped it: what nd_hook_changed wants. */
ND_EXTERN nd_docid nd_indexer_last_docid(const nd_indexer *ix);
/* Delete the document with this id; *docid (may be NULL) gets the docid it
 * had.  ND_ENOTFOUND when there is none. */
ND_EXTERN int nd_indexer_delete(nd_indexer *ix, const char *id, nd_docid *docid);
/* Commit pending documents. */
ND_EXTERN int nd_indexer_commit(nd_indexer *ix);

/* Commit and close; NULL is fine.  Returns the commit's result. */
ND_EXTERN int nd_indexer_close(nd_indexer *ix);

/* Text of an HTML page as UTF-8, as the indexer sees it under mode (charset
 * handling, script/style dropped; with ND_CONTENT_MAIN, boilerplate too).
 * *text (caller frees) is NUL-terminated; name is used in error messages. */
ND_EXTERN int nd_html_text(const char *html, size_t len, const char *name, nd_content mode,
			   char **text, size_t *text_len);

/* Reading inputs as the indexer does. */

/* Open path for reading only if it is a regular file (through a symlink
 * too): a FIFO, device, socket or directory is refused with ND_EINVAL,
 * naming it, before anything could wait on it or read it forever.  The
 * caller closes *fd. */
ND_EXTERN int nd_input_open(const char *path, int *fd);
/* Read fd to its end, but never more than max bytes (ND_ETOOBIG, the rest
 * unread); *data (caller frees) is NUL-terminated.  name is for messages. */
ND_EXTERN int nd_input_read(int fd, const char *name, size_t max, char **data, size_t *len);

/* JSON Lines records: {"id": string or integer, "text": string, "url",
 * "title"} a line, as `neardup index` reads them. */
typedef struct nd_jsonl nd_jsonl;

typedef struct {
	const char *id;     /* "id": string, or integer rendered as decimal */
	const char *text;   /* "text" (required; "" allowed) */
	size_t text_len;    /* may contain NUL bytes from \u0000 */
	const char *url;    /* "url" or NULL */
	const char *title;  /* "title" or NULL */
	size_t line;        /* 1-based line number */
} nd_jsonl_record;

/* A line longer than max_line bytes is rejected (ND_ETOOBIG) and skipped
 * without ever holding more than max_line bytes of it.  f stays the
 * caller's. */
ND_EXTERN int nd_jsonl_open(nd_jsonl **out, FILE *f, const char *name, size_t max_line);
/* 1 and a record (borrowed until the next call), 0 at the end, or an error
 * for the current line (ND_EPARSE, ND_ETOOBIG) naming file and line; the
 * reader stays usable, so the caller may log it and go on.  ND_EIO is final. */
ND_EXTERN int nd_jsonl_next(nd_jsonl *r, nd_jsonl_record *rec);
ND_EXTERN void nd_jsonl_close(nd_jsonl *r);

/* The unique-id term for id: "Q" + id, or for ids too long for a Xapian
 * term, "Q" + a prefix of id + a hash of it.  Caller frees. */
ND_EXTERN char *nd_uid_term(const char *id);

#ifdef __cplusplus
}
#endif
#endif
