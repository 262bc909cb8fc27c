/* Internal to the store and its tests. */
#ifndef ND_STORE_INTERNAL_H
#define ND_STORE_INTERNAL_H

#include "neardup/store.h"

/* Set the map size now (tests use a tiny map to exercise growth). */
int nd__store_set_mapsize(nd_store *st, size_t bytes);
size_t nd__store_mapsize(const nd_store *st);

/* Drop the store's mapped pages from this process's resident set (Linux;
 * elsewhere nothing): they stay in the page cache, and a later read maps
 * them again.  For a batch pass over a store of gigabytes, which would
 * otherwise keep all of it resident, once it has copied out or written
 * what it needs.  The store's own walks (records, near index, clusters,
 * links) do it every 1,024 entries (the near index every 65,536). */
void nd__store_release_pages(nd_store *st);
/* Give back the pages LMDB keeps for later writes: every page a write
 * transaction dirtied stays with the environment until it is closed (at
 * 1M documents signing and the index rebuild left 161 MB of heap and 114
 * MB of the map resident; 4 MB and 7 MB after).  The
 * environment is closed and opened again, the writer lock kept; nothing is
 * done while a transaction of this handle is open. */
int nd__store_give_back(nd_store *st);

/* How a database renumbered the store's documents: every docid `shift`
 * lower (xapian-compact renumbers one whose first documents were
 * deleted), or, when from is not NULL, the document under from[i] now
 * under to[i], both ascending (copydatabase numbers the documents it
 * copies 1, 2, ... in order). */
typedef struct {
	uint32_t shift;
	uint32_t *from, *to;
	size_t n;
} nd__renumbering;

/* A document's docid now (0: the database does not hold it). */
uint32_t nd__renumber(const nd__renumbering *r, uint32_t docid);
/* Nonzero when r moves any document. */
int nd__renumbering_moves(const nd__renumbering *r);
/* The most any document moved down. */
uint32_t nd__renumbering_most(const nd__renumbering *r);
void nd__renumbering_clear(nd__renumbering *r);

/* After nd_store_clear, for a renumbered database: what the clear keeps by
 * docid (dates, notes, groups' members) moved with the documents; a
 * document the database no longer holds dropped. */
int nd__store_move_kept(nd_store_txn *txn, const nd__renumbering *r);

/* Every record's docid, ascending, in *out (the caller frees it; NULL
 * when there are none). */
int nd__store_docids(nd_store_txn *txn, uint32_t **out, size_t *n);

/* The highest docid with a record (0: none). */
int nd__store_last_doc(nd_store_txn *txn, uint32_t *docid);

/* A document's note: 8 bytes a writer keeps beside its record (hooks: the
 * hash of its site), dropped with the record (nd_store_doc_del).
 * ND_ENOTFOUND, with no message, when it has none. */
int nd__store_note_put(nd_store_txn *txn, uint32_t docid, uint64_t note);
int nd__store_note_get(nd_store_txn *txn, uint32_t docid, uint64_t *note);
/* The note gone (none: nothing to do). */
int nd__store_note_del(nd_store_txn *txn, uint32_t docid);
/* docid's note set to group, and docid into the list of its members the
 * store keeps ("group/" and the group in the meta: the latest max,
 * ascending), which *members gets (n of them, caller frees).  A member
 * leaves the list when its note goes or names another. */
int nd__store_group_join(nd_store_txn *txn, uint32_t docid, uint64_t group, size_t max, uint32_t **members,
			 size_t *n);

/* nd_store_near_rebuild when the index is deferred, in transactions of a
 * few million entries (one when a transaction is held): what LMDB keeps
 * of a transaction's pages stays bounded. */
int nd__store_near_rebuild(nd_store *st);
/* Tests: entries a step (0: the default), and a write of their own run
 * between steps (NULL: none). */
void nd__store_set_rebuild_step(size_t step, int (*between)(nd_store *st, void *ctx), void *ctx);

/* What a structural check of a data file found (lmdb_store/pages.c). */
typedef struct {
	uint64_t txnid;      /* the snapshot checked */
	uint64_t pages;      /* pages in it, meta pages included */
	uint64_t page_size;
} nd__store_pages;

/* Check every page of the newest snapshot of LMDB data file `file`
 * before liblmdb follows any of it (walk 0: its meta pages only):
 * ND_ECORRUPT naming the first damaged page.  out->txnid is set once the
 * snapshot is known, even on failure. */
int nd__store_pages_check(const char *file, int walk, nd__store_pages *out);

/* Record the data file as it is now as checked, without checking it
 * (tests: that a known-good file is opened without its walk). */
int nd__store_mark_verified(const char *dir);

#endif
