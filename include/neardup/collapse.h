/* neardup: collapsing near-duplicates out of search results.
 *
 * A document's collapse id is the smallest docid of its cluster, or 0 when
 * no other document is its duplicate.  Clusters are the copy point's
 * (neardup/cluster.h): the store's links (neardup/store.h), pairs the
 * verdict accepted, kept by sign (nd_links_rebuild), hooks and update, so
 * a copy in another template folds with its original whatever their keys;
 * split where they chain, each cluster a centre and its copies.  While the links are pending (a store signed by the library
 * without nd_links_rebuild, a killed hook), clusters are the equal-key
 * groups verified at vo's point, as before links.  Over shards (filter
 * only), each shard's links fold its own documents, and a result folds
 * with a result of another shard when the verdict accepts the pair, the
 * candidates being each result's key and near neighbours in the other
 * shards' indexes: what one store's links would fold, but for two results
 * joined only through documents outside the list.  Equal signatures alone
 * never collapse anything.
 *
 * Two ways to use it, giving the same kept results:
 *   native: nd_collapse_write_slot keeps each document's collapse id in a
 *           Xapian value slot, and the search collapses on it inside the
 *           matcher (Enquire::set_collapse_key), so pages and counts are of
 *           collapsed results;
 *   filter: nd_collapse filters a ranked docid list through the store, for
 *           a read-only index or an engine that ranks elsewhere.
 *
 * Equal keys miss near-duplicates whose signatures differ in a bit or two,
 * as web pages' often do (on the SpotSigs gold set, verified equal keys
 * find 9,095 pairs within 8% Levenshtein, bit sets of Jaccard >= 0.5
 * 20,324).  nd_collapse_tolerant catches those, at query time, from the
 * ranked list alone. */
#ifndef ND_COLLAPSE_H
#define ND_COLLAPSE_H

#include "neardup/common.h"
#include "neardup/shards.h"
#include "neardup/store.h"
#include "neardup/verify.h"
#include "neardup/xdb.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ids[i] gets the collapse id of docs[i]: from the links, one walk per
 * link component, split as the copy point splits it; else one verification per distinct key, answered from the
 * store's cache when it holds one.  vo may be NULL. */
ND_EXTERN int nd_collapse_ids(nd_xdb *db, nd_store *st, const nd_verify_options *vo,
			      const nd_docid *docs, size_t n, nd_docid *ids);

typedef struct {
	nd_docid docid;
	uint32_t collapsed;  /* later documents of the list collapsed into this one */
} nd_collapsed;

/* Keep the first document of each collapse id in ranked[0..n) (documents
 * with id 0 are always kept): out (caller's array of n) gets the kept ones
 * in rank order, *nkept their count. */
ND_EXTERN int nd_collapse(nd_xdb *db, nd_store *st, const nd_verify_options *vo,
			  const nd_docid *ranked, size_t n, nd_collapsed *out, size_t *nkept);

/* Tolerant filter: everything nd_collapse folds is folded, and more.
 * Results are taken in rank order; one is collapsed into the best-ranked
 * kept result of its verified equal-key group (nd_collapse_ids), else into
 * the best-ranked kept result whose bit set has Jaccard >= min_jaccard (in
 * (0, 1]) with its own and that verification accepts (nd_verify_options:
 * word Levenshtein, or shingles for long pairs; nd_verify_tolerant).  Of
 * those kept results, the first vo->max_leaders are compared.  Documents
 * without a record or without words are kept.  Which of two duplicates is
 * kept depends on the ranking, not on docids; there is no collapse id, and
 * so no value slot or native mode for it.  Output as nd_collapse. */
ND_EXTERN int nd_collapse_tolerant(nd_xdb *db, nd_store *st, const nd_verify_options *vo,
				   double min_jaccard, const nd_docid *ranked, size_t n,
				   nd_collapsed *out, size_t *nkept);

/* The cluster an indexed document is in, the one collapsing folds it
 * with (`neardup clusters` at copy): *id its collapse id, docid itself
 * when it is alone, 0 (and *size 0) when the store holds no record of it
 * (not signed, or deleted); *size its documents; *members (caller frees;
 * NULL when *nmembers is 0) the first max of them, ascending (docid
 * among them when max is *size or more).  What a hook's caller asks after nd_hook_changed or nd_changed:
 * the hook reports the duplicates it compared, and a page copied a
 * thousand times has a cluster of a thousand.  While the store's links
 * are to be rebuilt, the document's verified equal-key group.  vo may be
 * NULL. */
ND_EXTERN int nd_collapse_cluster(nd_xdb *db, nd_store *st, const nd_verify_options *vo, nd_docid docid,
				  size_t max, nd_docid *id, size_t *size, nd_docid **members, size_t *nmembers);

/* Every document sharing a link component with one of seeds[0..n) (the
 * seeds included), ascending: those whose collapse id a change to the
 * seeds can move.  *out (caller frees) may be NULL when *nout is 0. */
ND_EXTERN int nd_collapse_members(nd_store *st, const nd_docid *seeds, size_t n, nd_docid **out,
				  size_t *nout);

/* Encoding of a collapse id in a value slot: 4 bytes, big-endian; no value
 * for id 0.  Xapian compares values as strings: any fixed width works. */
#define ND_COLLAPSE_VALUE_LEN 4

/* Bring value slot `slot` of docs[0..n) in line with their collapse ids
 * (db writable); documents whose value is already right are not rewritten.
 * *written (may be NULL) gets the number rewritten.  The caller commits db. */
ND_EXTERN int nd_collapse_write_slot(nd_xdb *db, nd_store *st, const nd_verify_options *vo,
				     unsigned slot, const nd_docid *docs, size_t n, size_t *written);

/* The whole slot against the store: every document whose collapse id is
 * missing, wrong or left over (a re-index that wrote a fresh document
 * without it, a run killed between the store's commit and the
 * database's).  *wrong gets their number; with fix (db writable) they are
 * rewritten, and the caller commits db.  Reads each cluster's verification
 * (cached) and the slot's value stream, not every document. */
ND_EXTERN int nd_collapse_slot_audit(nd_xdb *db, nd_store *st, const nd_verify_options *vo,
				     unsigned slot, int fix, size_t *wrong);

/* The slot the store keeps collapse ids in (meta "collapse.slot"), so hooks
 * and `neardup update` maintain it: -1 when none. */
ND_EXTERN int nd_collapse_slot_get(nd_store *st, int *slot);
ND_EXTERN int nd_collapse_slot_set(nd_store *st, int slot);
/* Keep collapse ids in slot instead (-1: nowhere): the old slot's values
 * are removed from the database and committed first (db writable), then
 * the store names the new slot; the caller writes its values
 * (nd_collapse_write_slot) and commits. */
ND_EXTERN int nd_collapse_slot_move(nd_xdb *db, nd_store *st, int slot);

typedef enum {
	ND_COLLAPSE_NONE = 0,
	ND_COLLAPSE_NATIVE = 1,  /* Xapian collapses on the store's slot */
	ND_COLLAPSE_FILTER = 2,  /* the ranked list is filtered through the store */
	ND_COLLAPSE_TOLERANT = 3, /* ... by nd_collapse_tolerant at ND_COLLAPSE_TOLERANT_JACCARD */
} nd_collapse_mode;

/* check --tolerant's recommended floor: on the gold set it confirms 24.4%
 * of the pairs at precision 0.996, equal keys 10.9%. */
#define ND_COLLAPSE_TOLERANT_JACCARD 0.5

/* One page of search results (see nd_xdb_search for the query syntax),
 * collapsed as asked: hits (caller's array of max) gets *n results from
 * offset on, each with the number of near-duplicates collapsed into it.
 * Counts and filtering look at the first `depth` matches (at least
 * offset + max): native and filter then keep the same results.
 * ND_ESTATE for native when the store keeps no slot (sign --value-slot). */
ND_EXTERN int nd_search(nd_xdb *db, nd_store *st, const char *query, nd_collapse_mode mode,
			uint32_t offset, uint32_t max, uint32_t depth, nd_xdb_hit *hits, size_t *n,
			uint32_t *estimated);

/* The same over a sharded database (db: the stub combining the shards of
 * sh's stores), collapsing by filter: a group may span shards, and a
 * value slot in each shard could only name its own documents. */
ND_EXTERN int nd_search_shards(nd_xdb *db, const nd_shards *sh, const char *query, uint32_t offset,
			       uint32_t max, uint32_t depth, nd_xdb_hit *hits, size_t *n, uint32_t *estimated);

#ifdef __cplusplus
}
#endif
#endif
