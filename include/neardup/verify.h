/* neardup: verify a candidate cluster.  Equal signatures are candidates,
 * not verdicts: members are compared by normalized word Levenshtein (with
 * the cut-off) and the cluster splits into verified groups. */
#ifndef ND_VERIFY_H
#define ND_VERIFY_H

#include "neardup/common.h"
#include "neardup/store.h"
#include "neardup/xdb.h"
#include "neardup/cluster.h"
#include "neardup/point.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Cache writes of many clusters gathered into few transactions (see
 * nd_verify_batch_new). */
typedef struct nd_verify_batch nd_verify_batch;

typedef struct {
	double max_distance;     /* accept at normalized Levenshtein <= this (0.08, Ilyinsky et al.) */
	size_t max_exact_words;  /* longer pairs are judged by shingle resemblance (20000) */
	double min_resemblance;  /* ... accepted at resemblance >= this (7/8, Ilyinsky et al.) */
	unsigned shingle_width;  /* (10) */
	unsigned max_leaders;    /* a member is compared with at most this many group
				    representatives, so cost is linear in cluster size (8) */
	nd_verify_batch *batch;  /* gather cache writes here (NULL: each cluster's
				    in a transaction of its own) */
	size_t max_held_bytes;   /* nd_verify_tolerant: leaders' words held in memory
				    up to this, then read again when compared
				    (256 MiB; 0 too) */
	nd_point point;          /* what counts as a duplicate (ND_POINT_COPY) */
	uint64_t since;          /* check and hooks: only candidates the store dates at
				    or after this (a feed window's seconds,
				    neardup/window.h; undated ones stay; 0: all) */
} nd_verify_options;

#define ND_VERIFY_OPTIONS_INIT { 0.08, 20000, 0.875, 10, 8, NULL, (size_t)256 << 20, ND_POINT_COPY, 0 }

typedef enum {
	ND_VERIFIED_REPRESENTATIVE = 0, /* first member of its group */
	ND_VERIFIED_LEVENSHTEIN = 1,    /* distance to the representative is exact, <= max */
	ND_VERIFIED_SHINGLES = 2,       /* long pair: multiset shingle resemblance
					   (nd_shingle_sim.bag) >= min_resemblance */
	ND_VERIFY_NO_WORDS = 3,         /* no word sequence: left alone in its group */
	ND_VERIFIED_RESEMBLANCE = 4,    /* copy and story points: 3-shingle bag resemblance
					   >= the point's (nd_point_resemblance) */
	ND_VERIFIED_CONTAINMENT = 5,    /* copy and story points: the shorter text contained
					   (distance: 1 - its share of shingles kept) */
	ND_REFUSED_VALUES = 6,          /* refused at every point: other values in the same
					   places (distance: the measure that would have accepted) */
	ND_VERIFIED_PASSAGES = 7,       /* copy point: the shared text is common, but in several
					   passages that other documents hold each on its own
					   (distance: 1 - unweighted resemblance) */
	ND_REFUSED_RENAMED = 8,         /* refused at strict and copy: one template about another
					   named thing, a word of the one where the other has
					   another, in several places (distance: as values) */
	ND_REFUSED_SIGNATURE = 9,       /* refused at copy, both documents signed: resemblance
					   alone accepts the pair, barely, and their descriptive
					   signatures share under half their bits (distance: as
					   values) */
	ND_REFUSED_THREAD = 10,         /* refused at strict and copy: two mails of one thread
					   (notmuch's, mu's) whose words are not the same,
					   as a reply and the mail it quotes (distance: as
					   values) */
	ND_REFUSED_FILLINGS = 11,       /* refused at copy: resemblance alone accepts the
					   pair, barely, and it is two fillings of one
					   template: what they share, other documents hold
					   too, and each has text of its own that no other
					   document holds (distance: as values) */
} nd_verify_how;

typedef struct {
	nd_docid docid;
	uint32_t group;   /* verified group, numbered from 0 in order of first member */
	double distance;  /* to the representative: Levenshtein, or 1 - resemblance (by how) */
	nd_verify_how how;
} nd_verified;

typedef struct {
	uint64_t compared;           /* pairs compared */
	uint64_t rejected;           /* comparisons over the bound */
	uint64_t no_words;           /* members without a word sequence */
	uint64_t rebuilt;            /* sequences rebuilt from positions */
	uint64_t from_data;          /* sequences from document data (may be partial) */
	uint64_t cached_clusters;    /* clusters answered from the store's cache */
	uint64_t cached_words;       /* sequences read from the store's cache */
} nd_verify_stats;

/* The pair verdict on two word sequences, at o->point.  strict: word
 * Levenshtein within o->max_distance, or for a pair longer than
 * o->max_exact_words, multiset 10-shingle resemblance of at least
 * o->min_resemblance.  copy and story: the comparison the store makes
 * between two documents' records (the same text; or word 3-shingle
 * resemblance of at least the point's, estimated from samples of about
 * 256 shingles; or containment), here with every shingle weighing 1: two
 * sequences alone carry no collection, so text that many documents share
 * counts as any other (inside a store it weighs little; see
 * docs/verdict.md).  At every point, other values in the same places
 * refuse the pair, and at strict and copy so does a rename
 * (ND_REFUSED_RENAMED).  o NULL: the defaults.  1 duplicate, 0 not (*how and
 * *distance say by what and how far), or an error. */
ND_EXTERN int nd_verify_pair(const uint32_t *a, size_t na, const uint32_t *b, size_t nb,
			     const nd_verify_options *o, nd_verify_how *how, double *distance);

/* Verify the candidate cluster docs[0..n) (docids ascending) with key
 * `key`: out[i] gets docs[i]'s group and distance.  Members are taken in
 * docid order; each joins the first of the first max_leaders groups whose
 * representative it is close enough to, or starts a group.
 *
 * With a store (st may be NULL), a result cached for exactly these members
 * and options is returned without comparing anything; otherwise the result
 * and any sequences rebuilt from positions are cached (when the store is
 * writable).  The store drops them when a member's record changes.
 * stats (may be NULL) is added to. */
ND_EXTERN int nd_verify_cluster(nd_xdb *db, nd_store *st, uint64_t key, const nd_docid *docs,
				size_t n, const nd_verify_options *opts, nd_verified *out,
				uint32_t *ngroups, nd_verify_stats *stats);

/* Tolerant grouping, for documents whose signatures differ in a bit or two
 * (web pages' often do): docs[0..n) are taken in the order given (rank
 * order for collapsing results, docid order for a listing), and each joins
 * the first earlier leader whose bit set has Jaccard >= min_jaccard (in
 * (0, 1]) with its own and that verification accepts (as in a cluster:
 * Levenshtein, or shingles for long pairs; of the similar leaders the
 * first opts->max_leaders are compared), or leads a group itself.  into[i]
 * gets the index in docs of docs[i]'s leader (i for a leader), distance
 * (may be NULL) the distance to it (0 for a leader).  Documents without a
 * record, a set bit or words lead groups of their own.
 *
 * groups (may be NULL) gives what is already known, as nd_collapse_ids
 * does: docs with the same non-zero id are verified near-duplicates of
 * one equal-key group.  A document whose id an earlier one has joins that
 * one's leader without a comparison (distance -1), so the result holds
 * every equal-key verified group, and the Levenshtein runs only across
 * keys (most of the cost saved where copies keep their key). */
ND_EXTERN int nd_verify_tolerant(nd_xdb *db, nd_store *st, const nd_verify_options *opts,
				 double min_jaccard, const nd_docid *docs, size_t n, const nd_docid *groups,
				 size_t *into, double *distance);

/* Duplicate clusters for pages whose copies differ in more than a few
 * words (web pages: one article in many templates).  Candidate pairs are
 * the documents whose bit sets have Jaccard >= min_jaccard (found by
 * prefix filtering over the store's bits), each scored by the multiset
 * resemblance of their word w-shingles (nd_shingle_sim.bag).  Clusters
 * then form by average linkage: the two with the highest mean resemblance
 * over all their cross pairs join first (a pair that is not a candidate
 * counts 0), while that mean is >= cut.  A cluster joins another only
 * when most of its pairs agree, so one close pair does not chain two
 * stories together as single linkage (transitive pairs) would.
 *
 * into[i] gets the index in docs of the first member of docs[i]'s cluster
 * (i for a first member or a document alone).  Documents without a
 * record, a set bit or words stay alone.  Words are held in memory up to
 * 256 MiB, then read again when compared.  On the news gold set (main
 * content) the defaults give pairs at precision 0.97, recall 0.90; see
 * README.  stats (may be NULL) is added to. */
typedef struct {
	double min_jaccard;      /* candidate pairs' bit-set Jaccard (0.05) */
	double cut;              /* clusters join while their mean resemblance is >= this (0.1) */
	unsigned shingle_width;  /* (3) */
	/* Called now and then while candidate pairs are scored (the long
	 * part): done of n documents. */
	void (*progress)(size_t done, size_t n, void *ctx);
	void *ctx;
} nd_linkage_options;
#define ND_LINKAGE_OPTIONS_INIT { 0.05, 0.1, 3, NULL, NULL }

typedef struct {
	uint64_t compared;       /* candidate pairs scored */
	uint64_t pairs;          /* of which with some resemblance */
} nd_linkage_stats;

ND_EXTERN int nd_cluster_linkage(nd_xdb *db, nd_store *st, const nd_linkage_options *o,
				 const nd_docid *docs, size_t n, size_t *into, nd_linkage_stats *stats);

/* For verifying many clusters: one commit, and its sync, per cluster is
 * most of the time of 'clusters --verify' on a large store.  A batch
 * holds cache writes for st and commits them together when it holds
 * max_clusters (0: 4096) clusters' results or max_bytes (0: 64 MiB) of
 * them and of sequences rebuilt from positions, on nd_verify_batch_flush
 * and on nd_verify_batch_free.  Results computed before a record changed are
 * dropped, not written (nd_store_records_gen).  Until written they are not
 * found by lookups, which only costs recomputation. */
ND_EXTERN int nd_verify_batch_new(nd_verify_batch **out, nd_store *st, size_t max_clusters,
				 size_t max_bytes);
ND_EXTERN int nd_verify_batch_flush(nd_verify_batch *b);
/* Flushes (errors ignored: it is a cache) and frees; b may be NULL. */
ND_EXTERN void nd_verify_batch_free(nd_verify_batch *b);

#ifdef __cplusplus
}
#endif
#endif
