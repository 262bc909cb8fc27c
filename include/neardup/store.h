/* neardup: the LMDB store.
 *
 * One LMDB environment (a directory) with eleven named databases:
 *   meta      name -> bytes (format version, descriptive set, options, ...)
 *   docs      docid -> (64-bit key, payload bytes)
 *   clusters  key -> sorted docids (every document whose record has that key)
 *   verified  key -> bytes: a cached result about the cluster (verification)
 *   words     docid -> bytes: a cached per-document value (rebuilt words)
 *   bits      bit -> sorted docids (every document whose record has that bit)
 *   near      (tree, sequence, docid): each record's near-neighbour keys
 *   links     docid -> docids: the copy point's verified pairs
 *   journal   docid -> its record as it was when the links were settled
 *   dates, bydate  docid -> date and date -> docids, for a feed window
 * The store keeps clusters and bits in step with docs inside the same
 * transaction, and any write to a document's record drops the cached
 * values of the document and of its old and new cluster, so caches cannot
 * go stale.  It does not know what a key or cached value means; of a
 * payload it reads only the bit list it begins with (u16 count, then u16
 * bits, ascending) and the near-neighbour section after it (u8 trees, u8
 * rows, then trees * rows u16: one sequence a tree; trees may be 0; a
 * sequence of nothing but UINT16_MAX is no key, and is not indexed).  Key 0 means "no key": the document is recorded but
 * belongs to no cluster.
 *
 * One writer at a time: a handle opened for writing holds the store's
 * writer lock (writer.lock, flock) until it is closed, so build, sign,
 * update and hooks of different processes cannot interleave their
 * transactions.  Any number of readers, in other processes too, each
 * seeing the last committed state; a user who may read but not write a
 * store reads it without LMDB's lock file.
 *
 * Every open checks the data file before liblmdb maps it: a truncated,
 * emptied or damaged file is refused with ND_ECORRUPT naming the first bad
 * page, never mapped, and never initialised afresh.  A file unchanged
 * since its last check passed (or since its writer, which had checked it,
 * committed) has only its meta pages checked, so that opening costs the
 * same whatever the store's size; any other file is checked page by page
 * (about 2 us a 4 KiB page), and so is every file with ND_STORE_CHECK.
 * Every write runs through nd_store_write(), which grows the map and
 * replays the write when LMDB reports MDB_MAP_FULL. */
#ifndef ND_STORE_H
#define ND_STORE_H

#include "neardup/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 3 added the bit postings, 4 the near-neighbour index, 5 the links, 6 word
 * ids that mark digits (ND_WORD_DIGIT: cached sequences and links follow
 * the verdict that reads them), 7 the links' journal, 8 the verdict's
 * record in every payload and the text trees.  A store of
 * another format is refused (ND_EVERSION): it is derived from the
 * database, so build and sign make it again. */
#define ND_STORE_FORMAT 8
#define ND_STORE_NEAR_MAX_ROWS 16

/* Lifetimes and threads (as lmdb.h states its own):
 * - nd_store: open to close; any number of processes may open one store,
 *   but one process opens it once (an LMDB rule) and its threads share the
 *   handle: each reads in its own read transaction (opened MDB_NOTLS, so a
 *   thread may hold several), and one thread at a time calls
 *   nd_store_write.
 * - nd_store_txn: one thread's, from nd_store_read_begin to
 *   nd_store_txn_end (or inside an nd_store_write callback only); values
 *   it lends are valid until then.
 * - nd_store_keys: lives within its transaction. */
typedef struct nd_store nd_store;
typedef struct nd_store_txn nd_store_txn;
typedef struct nd_store_keys nd_store_keys;

enum {
	ND_STORE_READ = 0,   /* must exist */
	ND_STORE_WRITE = 1,  /* created if missing */
	ND_STORE_CHECK = 2,  /* with either: walk every page, even of a snapshot
				known good (fsck) */
};

/* Errors: ND_ENOTFOUND (no store at path, read mode), ND_ECORRUPT (not an
 * LMDB environment, not a neardup store, or damaged), ND_EVERSION (other
 * format version), ND_ELOCKED (write mode: another handle writes it),
 * ND_EIO (including permission denied). */
ND_EXTERN int nd_store_open(nd_store **out, const char *path, int mode);
ND_EXTERN void nd_store_close(nd_store *st);
ND_EXTERN const char *nd_store_path(const nd_store *st);

/* A read transaction: a consistent snapshot until nd_store_txn_end. */
ND_EXTERN int nd_store_read_begin(nd_store *st, nd_store_txn **out);
ND_EXTERN void nd_store_txn_end(nd_store_txn *txn);

/* Run fn in one write transaction and commit it.  If fn or the commit meets
 * a full map, the transaction is aborted, the map doubled and fn run again
 * from the start, so fn must depend only on its ctx, not on a previous
 * attempt.  fn's negative return aborts and is returned.  ND_EFULL when the
 * disk itself is full (nothing of this write is stored). */
typedef int (*nd_store_write_fn)(nd_store_txn *txn, void *ctx);
ND_EXTERN int nd_store_write(nd_store *st, nd_store_write_fn fn, void *ctx);

/* Group commit.  After nd_store_hold, writes go into one LMDB transaction
 * that nd_store_commit commits (one fsync for all of them); each write is
 * still all or nothing (a nested transaction).  Reads through st see them
 * at once, other handles and processes once committed; a crash before
 * the commit loses them all and nothing else.  A write that fills the map
 * or the transaction commits what is held first.  The holding thread alone
 * writes and commits (others get ND_EINVAL); other threads' reads see the
 * last commit.  nd_store_close commits
 * what is still held (an error there is lost: commit first to see it;
 * and close from the holding thread, as LMDB ends a write transaction
 * only on the thread that began it).
 * Commit with nothing held: ND_OK. */
ND_EXTERN int nd_store_hold(nd_store *st);
ND_EXTERN int nd_store_commit(nd_store *st);

/* In a write transaction: apply the bit postings and near-neighbour
 * entries its puts and deletes queued, now instead of at the commit, so
 * that reads later in it see them. */
ND_EXTERN int nd_store_flush(nd_store_txn *txn);

/* Meta values; *val is borrowed until the transaction ends. */
ND_EXTERN int nd_store_meta_get(nd_store_txn *txn, const char *name, const void **val, size_t *len);
ND_EXTERN int nd_store_meta_put(nd_store_txn *txn, const char *name, const void *val, size_t len);

/* Document records.  *payload is borrowed until the transaction ends. */
ND_EXTERN int nd_store_doc_get(nd_store_txn *txn, uint32_t docid, uint64_t *key,
			       const void **payload, size_t *len);
ND_EXTERN int nd_store_doc_put(nd_store_txn *txn, uint32_t docid, uint64_t key,
			       const void *payload, size_t len);
/* ND_ENOTFOUND if the document has no record. */
ND_EXTERN int nd_store_doc_del(nd_store_txn *txn, uint32_t docid);

/* Bit postings, for matching signatures that differ in a few bits.  Docids ascending;
 * the caller frees *out.  A write transaction applies the postings of its
 * own puts and deletes just before it commits (sorted: far fewer page
 * visits), so inside it these read the state before it. */
ND_EXTERN int nd_store_bit_docs(nd_store_txn *txn, uint16_t bit, uint32_t **out, size_t *n);
ND_EXTERN int nd_store_bit_count(nd_store_txn *txn, uint16_t bit, size_t *n);
/* 1 if docid is posted under bit, 0 if not. */
ND_EXTERN int nd_store_bit_has(nd_store_txn *txn, uint16_t bit, uint32_t docid);
/* Postings in all. */
ND_EXTERN int nd_store_bit_postings(nd_store_txn *txn, uint64_t *n);

/* Near neighbours: each record's sequences, one a tree, sorted (tree,
 * sequence, docid), so that documents whose sequences share long prefixes
 * sit together (an LSH forest).  nd_store_near gives the docids of up to
 * window entries of the tree after (tree, seq, self) and up to window
 * before, self left out: out needs room for 2 * window.  A write
 * transaction applies its own changes just before it commits. */
ND_EXTERN int nd_store_near(nd_store_txn *txn, unsigned tree, const uint16_t *seq, unsigned rows,
			    uint32_t self, unsigned window, uint32_t *out, size_t *n);
/* Every entry in order: fn(tree, docid, ctx); non-zero from fn stops and
 * is returned. */
typedef int (*nd_store_near_fn)(unsigned tree, uint32_t docid, void *ctx);
ND_EXTERN int nd_store_near_each(nd_store_txn *txn, nd_store_near_fn fn, void *ctx);
ND_EXTERN int nd_store_near_count(nd_store_txn *txn, uint64_t *n);
/* Building the index whole, for a first signing: after
 * nd_store_near_defer, puts and deletes (in this and later transactions,
 * by any handle) leave the index alone, and nd_store_near_rebuild makes it
 * from the records in one sorted pass.  Written piecemeal, each block of a
 * first signing rewrites most of the index's pages, and LMDB's
 * copy-on-write leaves as many free pages again; appended in order, its
 * pages are full and nothing is copied.  nd_store_near_deferred: 1 while
 * deferred (the index then lacks what was put since), else 0. */
ND_EXTERN int nd_store_near_defer(nd_store_txn *txn);
ND_EXTERN int nd_store_near_deferred(nd_store_txn *txn);
ND_EXTERN int nd_store_near_rebuild(nd_store_txn *txn);
/* Up to max entries of tree `tree` after (dir > 0) or before (dir < 0) the
 * place of (seq, docid), that entry itself left out, nearest first: their
 * docids into ids[] and, when seqs is not NULL, their sequences into seqs
 * (rows u16 each). */
ND_EXTERN int nd_store_near_scan(nd_store_txn *txn, unsigned tree, const uint16_t *seq, unsigned rows,
				 uint32_t docid, int dir, unsigned max, uint32_t *ids, uint16_t *seqs, size_t *n);
/* 1 if docid is entered under (tree, seq), 0 if not. */
ND_EXTERN int nd_store_near_has(nd_store_txn *txn, unsigned tree, const uint16_t *seq, unsigned rows,
				uint32_t docid);

/* Dates in seconds, for a feed window (neardup/window.h): at most one a
 * document, deleted with its record (not by nd_store_clear).  Put needs a writer; the others see
 * no dates in a store that never had one. */
ND_EXTERN int nd_store_date_put(nd_store_txn *txn, uint32_t docid, uint64_t date);
/* A date that is not there is no error. */
ND_EXTERN int nd_store_date_del(nd_store_txn *txn, uint32_t docid);
/* ND_ENOTFOUND when the document has no date. */
ND_EXTERN int nd_store_date_get(nd_store_txn *txn, uint32_t docid, uint64_t *date);
/* Dated documents oldest first (newest_first: newest first): fn(docid,
 * date, ctx); non-zero from fn stops and is returned. */
typedef int (*nd_store_date_fn)(uint32_t docid, uint64_t date, void *ctx);
ND_EXTERN int nd_store_dates_each(nd_store_txn *txn, int newest_first, nd_store_date_fn fn, void *ctx);
ND_EXTERN int nd_store_dates_count(nd_store_txn *txn, uint64_t *n);
ND_EXTERN int nd_store_dates_clear(nd_store_txn *txn);

/* Cached values (borrowed until the transaction ends; ND_ENOTFOUND when
 * absent).  Invalidated automatically, see above. */
ND_EXTERN int nd_store_cluster_cache_get(nd_store_txn *txn, uint64_t key, const void **val, size_t *len);
ND_EXTERN int nd_store_cluster_cache_put(nd_store_txn *txn, uint64_t key, const void *val, size_t len);
ND_EXTERN int nd_store_doc_cache_get(nd_store_txn *txn, uint32_t docid, const void **val, size_t *len);
ND_EXTERN int nd_store_doc_cache_put(nd_store_txn *txn, uint32_t docid, const void *val, size_t len);

/* A number that changes with every committed transaction that puts,
 * deletes or clears document records (0 before the first).  A value
 * computed from a snapshot may be cached later, in another transaction,
 * only if this number is still the snapshot's: invalidation only drops
 * what was already cached. */
ND_EXTERN int nd_store_records_gen(nd_store_txn *txn, uint64_t *gen);

/* Remove every document record, cluster and cached value (meta and dates
 * stay: a date by arrival is not derived from anything, and re-signing
 * keeps it). */
ND_EXTERN int nd_store_clear(nd_store_txn *txn);

/* Counts of document records and of distinct non-zero keys. */
ND_EXTERN int nd_store_counts(nd_store_txn *txn, uint64_t *docs, uint64_t *keys);

/* Docids with this key, ascending; *out (caller frees) may be NULL when *n is 0. */
ND_EXTERN int nd_store_key_docs(nd_store_txn *txn, uint64_t key, uint32_t **out, size_t *n);

/* Iterate the distinct keys with their document counts, in key order. */
ND_EXTERN int nd_store_keys_open(nd_store_txn *txn, nd_store_keys **out);
/* 1 and the fields, 0 at the end, or an error. */
ND_EXTERN int nd_store_keys_next(nd_store_keys *it, uint64_t *key, size_t *count);
ND_EXTERN void nd_store_keys_free(nd_store_keys *it);

/* Iterate document records in docid order: fn(docid, key, payload, len,
 * ctx); non-zero from fn stops and is returned. */
typedef int (*nd_store_doc_fn)(uint32_t docid, uint64_t key, const void *payload,
			       size_t len, void *ctx);
ND_EXTERN int nd_store_docs_each(nd_store_txn *txn, nd_store_doc_fn fn, void *ctx);
/* The same from docid first on. */
ND_EXTERN int nd_store_docs_from(nd_store_txn *txn, uint32_t first, nd_store_doc_fn fn, void *ctx);

/* Links: pairs of documents the verdict accepted at the copy point, kept
 * both ways, from which the store's clusters and collapse ids come
 * (neardup/collapse.h: components split where they chain).  Which pairs are linked is a function
 * of the records alone (nd_links_settle, neardup/cluster.h), whatever path
 * made them.  Putting or deleting a record drops its links in the same
 * transaction, and the first change of a record since the links were last
 * settled journals the record as it was, so that settling can redo only
 * what the changes touched.  A journal past ND_STORE_JOURNAL_MIN entries
 * and 1/ND_STORE_JOURNAL_SHARE of the records is dropped and the links
 * marked for a rebuild from every record, as are a first signing's (its
 * near-neighbour index is deferred) and nd_store_links_clear's. */
ND_EXTERN int nd_store_links(nd_store_txn *txn, uint32_t docid, uint32_t **out, size_t *n);
ND_EXTERN int nd_store_link_put(nd_store_txn *txn, uint32_t a, uint32_t b);
/* Both ways; a link that is not there is no error. */
ND_EXTERN int nd_store_link_del(nd_store_txn *txn, uint32_t a, uint32_t b);
/* Drops every link and marks them for a rebuild (ND_LINKS_REBUILD). */
ND_EXTERN int nd_store_links_clear(nd_store_txn *txn);
/* Every link, each way, in (a, b) order; non-zero from fn stops and is returned. */
typedef int (*nd_store_link_fn)(uint32_t a, uint32_t b, void *ctx);
ND_EXTERN int nd_store_links_each(nd_store_txn *txn, nd_store_link_fn fn, void *ctx);

#define ND_STORE_JOURNAL_MIN 4096
#define ND_STORE_JOURNAL_SHARE 16
enum {
	ND_LINKS_SETTLED = 0,  /* the links are those of the records */
	ND_LINKS_JOURNAL = 1,  /* but for the journaled records' (a writer is
				  settling them, or was killed before it did) */
	ND_LINKS_REBUILD = 2,  /* to be made again from every record: they cover
				  few or none of them */
};
/* One of the above, or an error. */
ND_EXTERN int nd_store_links_state(nd_store_txn *txn);
/* Journaled documents: fn(docid, state, old payload, its length, ctx),
 * where state is ND_JOURNAL_RECORD (its record changed; old is the record
 * as it was when the links were last settled, borrowed until the
 * transaction ends), ND_JOURNAL_ABSENT (it had no record then; old NULL)
 * or ND_JOURNAL_TOUCHED (its record is unchanged, but it lost a link to a
 * changed one; old NULL).  Non-zero from fn stops and is returned. */
enum { ND_JOURNAL_ABSENT = 0, ND_JOURNAL_RECORD = 1, ND_JOURNAL_TOUCHED = 2 };
typedef int (*nd_store_journal_fn)(uint32_t docid, int state, const void *old, size_t len, void *ctx);
ND_EXTERN int nd_store_journal_each(nd_store_txn *txn, nd_store_journal_fn fn, void *ctx);
ND_EXTERN int nd_store_journal_count(nd_store_txn *txn, uint64_t *n);
/* The caller has made the links those of the records in this
 * transaction: the journal is emptied and a rebuild mark cleared. */
ND_EXTERN int nd_store_links_settled(nd_store_txn *txn);

#ifdef __cplusplus
}
#endif
#endif
