/* neardup: candidates and clustering at a cost linear in documents.
 *
 * Candidates come from the store's near-neighbour index (an LSH forest
 * over the descriptive words each document holds, see nd_sig): a document's
 * candidates are its ND_NEAR_WINDOW neighbours on each side in each of
 * ND_NEAR_TREES sorted orders, so their number per document does not grow
 * with the corpus.  The index is written with every record, by sign,
 * update and hooks alike, so batch clustering and the single-document
 * paths read the same one.
 *
 * Clusters: candidate pairs are scored by the multiset resemblance of
 * their word w-shingles, and joined by average linkage, a pair the index
 * did not propose counting 0, except between large tentative clusters
 * (completed averages, nd_linkage_complete). */
#ifndef ND_CLUSTER_H
#define ND_CLUSTER_H

#include "neardup/descriptor.h"
#include "neardup/point.h"
#include "neardup/store.h"
#include "neardup/xdb.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Average linkage (UPGMA) of n documents over scored pairs, a missing pair
 * counting 0 and a pair listed twice keeping its higher score: clusters
 * join, highest average similarity first, while it is >= floor, and each
 * join is reported with one member of each side (walk next[] from it to
 * UINT32_MAX for the rest).  Non-zero from join stops and is returned. */
typedef struct {
	uint32_t a, b;
	double score;
} nd_scored;
typedef struct {
	const uint32_t *next;
	uint32_t a, b;
	double level;
} nd_join;
typedef int (*nd_join_fn)(const nd_join *j, void *ctx);
ND_EXTERN int nd_average_linkage(size_t n, const nd_scored *p, size_t np, double floor, nd_join_fn join,
				 void *ctx);
/* The same, as clusters: into[i] gets the smallest index in i's cluster
 * (i for a document alone). */
ND_EXTERN int nd_average_linkage_clusters(size_t n, const nd_scored *p, size_t np, double floor, size_t *into);

/* Candidate pairs as clustering reads them: pair[i] = a << 32 | b, with
 * a < b indices of documents, ascending and distinct, and score[i] their
 * resemblance.  nd_linkage_sparse is nd_average_linkage_clusters over them,
 * holding only the pairs inside a component of pairs >= cut (the rest
 * cannot join); *linked (may be NULL) is added the number held. */
ND_EXTERN int nd_linkage_sparse(size_t n, const uint64_t *pair, const float *score, size_t np, double cut,
				size_t *into, uint64_t *linked);

/* Scores pair[0..n) into score[0..n); non-zero stops. */
typedef int (*nd_score_pairs_fn)(const uint64_t *pair, size_t n, float *score, void *ctx);

/* Completed averages: average linkage counts a pair the candidates lack as
 * 0, so a story larger than the index's windows, whose pages it links
 * only here and there, stays in pieces.  The candidates are clustered at
 * cut (tentative clusters).  Pairs of tentative clusters that a candidate
 * of score > 0 links, a cluster with itself included, whose two sides
 * hold at least min_docs documents (a cluster with itself: twice its
 * size), are taken highest mean first, and every pair between them that
 * is not a candidate is scored by fn and added, while the added pairs fit
 * in budget (a pair of clusters that does not fit is skipped).  Small
 * clusters are left as they are: the index proposes most of their pairs
 * already, so a pair it lacks is evidence.  *pair and *score (malloc'd)
 * are reallocated to hold the new pairs, still ascending; *np and *added
 * (may be NULL) are updated.  On an error the candidates are as they were
 * (the arrays may have moved). */
ND_EXTERN int nd_linkage_complete(size_t n, uint64_t **pair, float **score, size_t *np, double cut,
				  size_t budget, size_t min_docs, nd_score_pairs_fn fn, void *ctx,
				  size_t *added);

/* The candidates of a signature (sig->present > 0) in the store's
 * near-neighbour index: its neighbours in every tree, self (0: none) left
 * out, distinct, ascending.  *out (caller frees) may be NULL when *n is 0.
 * At most 2 * ND_NEAR_WINDOW * ND_NEAR_TREES. */
ND_EXTERN int nd_near_candidates(nd_store_txn *txn, const nd_sig *sig, nd_docid self, nd_docid **out,
				 size_t *n);

typedef struct {
	double cut;              /* clusters join while their mean resemblance is >= this (0.1) */
	unsigned shingle_width;  /* (3) */
	unsigned jobs;           /* threads reading words and scoring (1..64; 1) */
	/* Now and then: stage ("words", "scoring"), done of n. */
	void (*progress)(const char *stage, size_t done, size_t n, void *ctx);
	void *ctx;
	int single;              /* 1: clusters decided pair by pair: the pairs
				    the copy verdict accepts (the records' verdict,
				    text that the store's collection shares weighing
				    little; cut unused), split where they chain: each
				    cluster a centre and the documents that are
				    copies of it (what hooks and collapsing build);
				    0: average linkage (story) */
	unsigned complete;       /* average linkage: completed averages
				    (nd_linkage_complete) of tentative clusters
				    whose sides hold ND_NEAR_COMPLETE_DOCS
				    documents, at most this many added pairs a
				    document (ND_NEAR_COMPLETE); 0: off */
	double recount;          /* nd_links_settle: when documents past the last
				    one the collection's common text was counted
				    over number this share of those it was counted
				    over, or the links made since between texts
				    not near-identical (plain resemblance under
				    0.9) this share of those made with it (of 64,
				    when fewer), count it again and make every
				    link again
				    (ND_NEAR_RECOUNT for sign, update and hooks,
				    up to nd_hook_options.recount_max; 0: never) */
} nd_near_options;
#define ND_NEAR_RECOUNT 0.25
#define ND_NEAR_COMPLETE 64
/* Four windows: more documents than two members see in a tree, so that
 * most of the sides' pairs cannot be among the index's candidates. */
#define ND_NEAR_COMPLETE_DOCS (4 * ND_NEAR_WINDOW)
#define ND_NEAR_OPTIONS_INIT { 0.1, 3, 1, NULL, NULL, 0, ND_NEAR_COMPLETE, 0 }

typedef struct {
	uint64_t candidates;     /* distinct candidate pairs from the index */
	uint64_t pairs;          /* of which with some resemblance */
	uint64_t linked;         /* of which in a component that can join (>= cut) */
	uint64_t completed;      /* pairs added by completed averages */
	uint64_t words_bytes;    /* shingles held */
} nd_near_stats;

/* Clusters of docs[0..n) (docids ascending) from the store's
 * near-neighbour index, by average linkage or (o->single) pair by pair: into[i] gets the index in docs of the first member
 * of docs[i]'s cluster (i for a first member or a document alone).
 * Documents without a record, a held descriptive word or words stay
 * alone.  Memory: every document's shingles (4 bytes each) and the
 * candidate pairs (at most 8 * ND_NEAR_WINDOW * ND_NEAR_TREES bytes a
 * document), with average linkage and o->complete the pairs completion
 * adds (12 bytes each, o->complete a document at most); pairs that cannot
 * reach the cut are dropped before linking.
 * stats (may be NULL) is added to. */
ND_EXTERN int nd_cluster_near(nd_xdb *db, nd_store *st, const nd_near_options *o, const nd_docid *docs,
			      size_t n, size_t *into, nd_near_stats *stats);

/* Clusters at a point, of every signed document: the one way to ask.
 *   copy    the near-neighbour pairs the copy verdict accepts, split where
 *           they chain: around the most linked document, those linked to
 *           it or reached through the links and copies of it, and so on
 *           (a family copied a thousand times stays one cluster; a page
 *           that shares a footer with one member and its text with
 *           another does not join them).  What collapsing folds (read
 *           from the store's links when they are settled, which hold
 *           those pairs)
 *   strict  the same at the strict point
 *   story   average linkage over the pairs' 3-shingle resemblance at the
 *           point's cut (or o->cut), with completed averages
 * *docs gets every signed document, ascending, and (*into)[i] the index in
 * *docs of the first member of docs[i]'s cluster (i for a first member or
 * a document alone); the caller frees both.  rep may be NULL. */
typedef struct {
	unsigned jobs;       /* threads reading words and scoring (1..64; 1) */
	double cut;          /* story: the linkage cut (0: the point's, 0.08) */
	unsigned complete;   /* story: completed averages' budget, pairs a document
				(ND_NEAR_COMPLETE; 0: off) */
	void (*progress)(const char *stage, size_t done, size_t n, void *ctx);
	void *ctx;
} nd_clusters_options;
#define ND_CLUSTERS_OPTIONS_INIT { 1, 0, ND_NEAR_COMPLETE, NULL, NULL }

typedef struct {
	int from_links;      /* copy: read from the settled links */
	nd_near_stats near;  /* otherwise: what the index gave */
} nd_clusters_report;

ND_EXTERN int nd_clusters(nd_xdb *db, nd_store *st, nd_point point, const nd_clusters_options *o,
			  nd_docid **docs, size_t **into, size_t *n, nd_clusters_report *rep);

/* The store's links (neardup/store.h) are a function of its records:
 * every pair of documents within ND_NEAR_WINDOW of each other in some tree
 * of the near-neighbour index whose texts the copy verdict accepts
 * (nd_verify_pair at ND_POINT_COPY with the default options, asked only
 * of pairs whose 3-shingles could pass), and no other pair.  The copy
 * point's clusters are their components split where they chain (each a
 * centre and its copies), which is what nd_cluster_near with single
 * computes for a set of documents. */

/* Make the links again from every record (o may be NULL; its jobs and
 * progress are used).  The first write drops the old ones and marks the
 * links for a rebuild, the last settles them, so a killed rebuild is made
 * again by the next writer.  *nlinks (may be NULL) gets the pairs linked. */
ND_EXTERN int nd_links_rebuild(nd_xdb *db, nd_store *st, const nd_near_options *o, uint64_t *nlinks);

typedef struct {
	int rebuilt;         /* 1: made again from every record (nd_links_rebuild) */
	int recounted;       /* rebuilt because the collection grew (o->recount):
				1 in documents (or the count was not recorded),
				2 in links */
	uint64_t counted;    /* recounted: documents the last count was over (0:
				the store did not record it) */
	uint64_t links;      /* rebuilt: pairs linked */
	uint64_t changed;    /* settled from the journal: records changed since */
	uint64_t added;      /* links made */
	uint64_t removed;    /* links unmade between unchanged records */
	uint64_t verified;   /* pairs the verdict was asked about */
	uint64_t sites;      /* rebuilt: sites by host or base URL (H, J) of
				two pages or more */
	uint64_t frame_sites; /* rebuilt: sites by frame (three pages or more
				 without a host that begin and end alike) */
	uint64_t site_pages; /* rebuilt: pages in either */
	uint64_t template_shingles; /* rebuilt: shingles taken for a site's template */
} nd_links_report;

/* Make the links those of the records now, whatever wrote the records
 * (sign, update, hooks, a killed run of any of them): nothing when they
 * are settled; from the journal when they were settled before the last
 * changes (the changed records' pairs, and the pairs of others whose
 * distance in a tree crossed ND_NEAR_WINDOW); else nd_links_rebuild.  One
 * write: a killed settle leaves the journal, and the next settles it.
 * *seeds (may be NULL; caller frees) gets the documents whose link
 * component may have changed, ascending (after a rebuild none are listed:
 * any may have).  With o->recount, a collection grown that much since its
 * common text was counted is rebuilt, counting it again.  It asks before
 * settling: links that settling makes between distinct texts count at
 * the next call, so a writer that settles a batch calls it again after
 * (sign does; nd_hook_update does once it has counted the batch's sites).
 * rep may be NULL. */
ND_EXTERN int nd_links_settle(nd_xdb *db, nd_store *st, const nd_near_options *o, nd_links_report *rep,
			      nd_docid **seeds, size_t *nseeds);

/* The links the rule gives for the records now, against the store's:
 * *missing pairs it lacks, *extra pairs it should not have, *nlinks (may
 * be NULL) the pairs it has.  Reads every document's words (fsck --db). */
ND_EXTERN int nd_links_check(nd_xdb *db, nd_store *st, const nd_near_options *o, uint64_t *missing,
			     uint64_t *extra, uint64_t *nlinks);

#ifdef __cplusplus
}
#endif
#endif
