/* neardup: the common case in one call.  A database and its store, the
 * store's descriptive set and a tokenizer, opened together, for checking
 * pages before indexing them and telling neardup of changes after.  The
 * parts stay reachable for everything else (search, clusters, eval).
 *
 *   nd_handle *h;
 *   if (nd_open(&h, "site.db", "site.store", ND_OPEN_WRITE, NULL) < 0)
 *           fprintf(stderr, "%s\n", nd_error_last());
 *   nd_check_result cr = ND_CHECK_RESULT_INIT;
 *   nd_check(h, text, len, &cr);          // duplicates before indexing
 *   ... index the page with your indexer, commit ...
 *   nd_hook_result hr = ND_HOOK_RESULT_INIT;
 *   nd_changed(h, docid, &hr);            // sign it, link it, its duplicates
 *   nd_collapse_cluster(nd_handle_db(h), nd_handle_store(h), NULL, docid, max,
 *                       &id, &size, &members, &n);  // the cluster it is in
 *   nd_close(h);
 */
#ifndef ND_HANDLE_H
#define ND_HANDLE_H

#include "neardup/check.h"
#include "neardup/collapse.h"
#include "neardup/hook.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One thread at a time, from nd_open to nd_close. */
typedef struct nd_handle nd_handle;

enum {
	ND_OPEN_READ = 0,   /* check, search, clusters */
	ND_OPEN_WRITE = 1,  /* and nd_changed: the store opened for writing (one
			       writer at a time) */
};

typedef struct {
	nd_point point;           /* what nd_check and nd_changed report (copy) */
	size_t max_compare;       /* candidates compared a page (ND_CHECK_COMPARE) */
	double max_drift;         /* nd_changed refuses past this drift (0.5; 0 none) */
	uint32_t max_query_terms; /* searches through the handle's database
				     (ND_XDB_MAX_QUERY_TERMS) */
	int group_commit;         /* nd_changed's store writes held until nd_commit
				     (nd_hook_options.group_commit; 0) */
} nd_open_options;

#define ND_OPEN_OPTIONS_INIT { ND_POINT_COPY, ND_CHECK_COMPARE, 0.5, ND_XDB_MAX_QUERY_TERMS, 0 }

/* Open db (read-only: an indexer keeps its own writable handle) and store
 * (ND_STORE_WRITE with ND_OPEN_WRITE), load the store's set for db, make a
 * tokenizer.  o may be NULL.  Errors as nd_xdb_open, nd_store_open and
 * nd_descriptor_load give them (ND_ENOTFOUND, ND_EMISMATCH, ND_ELOCKED,
 * ...), naming the path. */
ND_EXTERN int nd_open(nd_handle **out, const char *db, const char *store, int flags, const nd_open_options *o);
/* h may be NULL. */
ND_EXTERN void nd_close(nd_handle *h);

/* nd_check_text at the handle's point: the verified duplicates of a text
 * not yet indexed.  out as nd_check_text fills it (nd_check_result_clear). */
ND_EXTERN int nd_check(nd_handle *h, const char *text, size_t len, nd_check_result *out);

/* nd_hook_changed for a change the indexer has committed: the handle first
 * sees the database's latest commit.  A store that keeps collapse ids in a
 * value slot has them written through a writable handle opened for this
 * call only, and committed (so the indexer may hold its own writer
 * between calls, not during them: ND_ELOCKED).  ND_ESTATE without
 * ND_OPEN_WRITE. */
ND_EXTERN int nd_changed(nd_handle *h, nd_docid docid, nd_hook_result *out);

/* With group_commit: store what nd_changed held since the last commit, in
 * one transaction (nd_hook_commit); nd_close commits too.  A store that
 * keeps collapse ids commits each change with its slot, holding nothing.
 * Nothing held: ND_OK. */
ND_EXTERN int nd_commit(nd_handle *h);

/* The parts, borrowed while h is open. */
ND_EXTERN nd_xdb *nd_handle_db(nd_handle *h);
ND_EXTERN nd_store *nd_handle_store(nd_handle *h);
ND_EXTERN const nd_descriptor *nd_handle_descriptor(nd_handle *h);
ND_EXTERN nd_tokenizer *nd_handle_tokenizer(nd_handle *h);

#ifdef __cplusplus
}
#endif
#endif
