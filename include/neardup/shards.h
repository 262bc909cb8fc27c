/* neardup: sharded databases.  A search index split into shards is one
 * Xapian database to its readers (a stub file listing local shards and
 * `remote HOST:PORT` ones); neardup keeps one store per shard, signed where
 * the shard lives (`neardup sign` on that machine), all with one
 * descriptive set (chosen once over the stub, then copied with `neardup
 * build --from-store`), so keys agree across shards.
 *
 * Stores hold each shard's own docids.  Xapian numbers the combined
 * database's documents (local - 1) * n + shard + 1, which changes when a
 * shard is added, so that number is computed when needed and never
 * stored. */
#ifndef ND_SHARDS_H
#define ND_SHARDS_H

#include "neardup/descriptor.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nd_shards nd_shards;

#define ND_MAX_SHARD_STORES 256

/* Open the stores (read-only) for db, matching each to its shard by the
 * database UUID it was bound to; ND_EMISMATCH when a store belongs to no
 * shard of db or the stores' sets differ.  One store and an unsharded db
 * is the ordinary case. */
ND_EXTERN int nd_shards_open(nd_shards **out, nd_xdb *db, const char *const *stores, size_t nstores);
ND_EXTERN void nd_shards_close(nd_shards *s);
ND_EXTERN size_t nd_shards_stores(const nd_shards *s);
ND_EXTERN nd_store *nd_shards_store(const nd_shards *s, size_t i);
ND_EXTERN const nd_descriptor *nd_shards_descriptor(const nd_shards *s);
/* The combined database's docid of store i's document local, and back
 * (*store = SIZE_MAX when no store holds that shard). */
ND_EXTERN nd_docid nd_shards_docid(const nd_shards *s, size_t i, nd_docid local);
ND_EXTERN nd_docid nd_shards_local(const nd_shards *s, nd_docid docid, size_t *store);
/* Every store's documents with key, as combined docids, ascending (caller
 * frees *out); txn[i] is a read transaction on store i. */
ND_EXTERN int nd_shards_key_docs(const nd_shards *s, nd_store_txn *const *txn, uint64_t key, nd_docid **out,
				 size_t *n);

#ifdef __cplusplus
}
#endif
#endif
