/* neardup: offline evaluation against labeled pairs or clusters, with
 * every method in one harness, on one tokenization (the index's words).
 *
 * Ground truth names documents by their unique id in the Xapian database
 * (for `neardup index DIR`, the path relative to DIR).  With labeled
 * clusters every pair of labeled documents is judged (same cluster =
 * duplicate) and each method proposes candidate pairs from an index of
 * its own (inverted index, LSH tables, signature groups), never by
 * comparing all pairs.  With labeled pairs each listed pair is scored. */
#ifndef ND_EVAL_H
#define ND_EVAL_H

#include "neardup/common.h"

#include <stdio.h>
#include "neardup/store.h"
#include "neardup/xdb.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- ground truth ---- */

typedef struct nd_truth nd_truth;

typedef enum {
	ND_TRUTH_AUTO = 0,     /* a directory: clusters; a file: by its column count */
	ND_TRUTH_PAIRS = 1,    /* TSV "id_a id_b label", label 1 or 0 */
	ND_TRUTH_CLUSTERS = 2, /* TSV "id cluster", or a directory of cluster directories */
} nd_truth_kind;

/* Load ground truth from path and resolve its ids in db.  An optional
 * header line is skipped.  Ids not in db are kept in a list
 * (nd_truth_unknown), not silently dropped; ND_EPARSE names the file and
 * line of a malformed row.  With a directory, each subdirectory is a
 * cluster and each file in it a document whose id is "subdir/file". */
ND_EXTERN int nd_truth_load(nd_truth **out, nd_xdb *db, const char *path, nd_truth_kind kind);
ND_EXTERN void nd_truth_free(nd_truth *t);
ND_EXTERN nd_truth_kind nd_truth_kind_of(const nd_truth *t);

/* Labeled documents found in db, as doc indexes 0..n-1 (docids ascending). */
ND_EXTERN size_t nd_truth_ndocs(const nd_truth *t);
ND_EXTERN nd_docid nd_truth_docid(const nd_truth *t, size_t doc);
ND_EXTERN const char *nd_truth_id(const nd_truth *t, size_t doc);
/* Ids of the ground truth that db does not hold. */
ND_EXTERN size_t nd_truth_unknown(const nd_truth *t, const char *const **ids);
/* Labeled pairs: positives and all pairs judged. */
ND_EXTERN uint64_t nd_truth_positives(const nd_truth *t);
ND_EXTERN uint64_t nd_truth_judged(const nd_truth *t);
/* Label of the pair of doc indexes (a, b): 1 duplicate, 0 not, -1 unjudged. */
ND_EXTERN int nd_truth_label(const nd_truth *t, size_t a, size_t b);
/* Labeled pairs (pairs kind): pair k is (a, b) with label; ND_EINVAL for clusters. */
ND_EXTERN size_t nd_truth_npairs(const nd_truth *t);
ND_EXTERN void nd_truth_pair(const nd_truth *t, size_t k, size_t *a, size_t *b, int *label);
/* Group of a document: its cluster, or for pairs its connected component
 * of positive pairs.  Groups are numbered 0..ngroups-1. */
ND_EXTERN uint32_t nd_truth_group(const nd_truth *t, size_t doc);
ND_EXTERN uint32_t nd_truth_ngroups(const nd_truth *t);

/* Split for learned methods, by group, never by pair: side[doc] = 1 for
 * test, 0 for train; round(test_share * groups) of the groups go to test
 * (a seeded shuffle, so each seed gives another split of the same sizes).
 * A group is never on both sides, so no duplicate pair straddles. */
ND_EXTERN int nd_truth_split(const nd_truth *t, double test_share, uint64_t seed, uint8_t *side);

/* ---- methods and the harness ---- */

typedef enum {
	ND_EVAL_LINK_NONE = 0,  /* each pair by its own score */
	ND_EVAL_LINK_AVERAGE,   /* each pair by its documents' average-linkage level */
	ND_EVAL_LINK_SINGLE     /* ... single-linkage level: the clusters a threshold's
				   accepted pairs form by joining (the copy point's) */
} nd_eval_linkage;

typedef struct {
	/* Candidate pairs below this score are not generated (0.01).  The cost
	 * of the sets' joins grows below it; above it the sweep is cut short:
	 * at 0.05, in 20 of 50 news gold-set halvings the pipeline's best
	 * threshold was within 0.005 of the floor (nd_eval_cut flags the
	 * plain case, a best at the lowest score swept). */
	double min_score;
	size_t lev_sample;     /* suggested pairs per method measured by Levenshtein (1000) */
	uint64_t seed;         /* sampling, hashing (1) */
	void (*progress)(const char *method, const char *stage, void *ctx);
	void *ctx;
	/* With test_share > 0 the groups are split (nd_truth_split, seeded):
	 * learned methods train on pairs within the train side, and every
	 * method is measured on pairs within the test side only.  Learned
	 * methods need it (ND_EINVAL without). */
	double test_share;     /* (0) */
	/* descriptive-tolerant+xcheck's candidates: bit-set Jaccard at least
	 * this (0.05).  Lower finds more pairs whose few bits barely overlap;
	 * on a large corpus the candidate count grows fast below about 0.1. */
	double bits_floor;
	/* ... or present-word Jaccard at least this (0.2; 0: bits only): the
	 * Jaccard of the sets of descriptive words two documents hold at any
	 * frequency.  Pairs whose few thresholded bits miss each other (7% of
	 * the news gold set's duplicates) still share most of those words. */
	double presence_floor;
	/* With splits = K > 0 (and test_share > 0): K splits, seeds seed ..
	 * seed + K - 1, each method's best point on each (split_best) and
	 * its figures at its own threshold (split_point: the operating
	 * point a verdict ships, measured on unseen halves); the
	 * rest of a result is the first split's.  Methods that do not learn
	 * are scored once and measured on each split. */
	size_t splits;         /* (0) */
	/* ND_EVAL_LINK_AVERAGE: measure clusters instead of pairs.  Each
	 * method's measured pairs are clustered by average linkage (a missing
	 * pair counts 0) and a pair is scored by the level at which its two
	 * documents join, so the sweep cuts the clusters.  ND_EVAL_LINK_SINGLE
	 * the same by single linkage: at a threshold, the connected components
	 * of the pairs scoring at least it.  Clusters as ground
	 * truth only; pairs below the candidate floor never join. */
	nd_eval_linkage linkage; /* (ND_EVAL_LINK_NONE) */
	/* descriptive-lsh+xcheck's candidates: documents that agree on all
	 * lsh_rows MinHashes of one of lsh_bands bands (50 and 3) of a set of
	 * their words: ND_EVAL_LSH_PRESENT, the descriptive words they hold;
	 * ND_EVAL_LSH_WORDS, all their words; ND_EVAL_LSH_BITS, their bits. */
	unsigned lsh_bands, lsh_rows;
	int lsh_set;
	/* Every scored pair of every method written here (NULL: none), for
	 * calibrating thresholds away from the run (scripts/calibrate.py):
	 * "#doc id group" per labeled document (clusters), "#method name
	 * positives N", then "id_a id_b label score" per pair, tab-separated;
	 * scores are linkage levels under --linkage.  Not with splits. */
	FILE *scores;
} nd_eval_options;

enum { ND_EVAL_LSH_PRESENT = 0, ND_EVAL_LSH_BITS = 1, ND_EVAL_LSH_WORDS = 2, ND_EVAL_LSH_RARE = 3 };

#define ND_EVAL_OPTIONS_INIT { 0.01, 1000, 1, NULL, NULL, 0, 0.05, 0.2, 0, ND_EVAL_LINK_NONE, 50, 3, \
			       ND_EVAL_LSH_PRESENT, NULL }

typedef struct {
	double threshold, precision, recall, f1;
	int lowest;              /* the sweep's last point: no pair scored lower */
} nd_eval_point;

#define ND_EVAL_LEV_BINS 16 /* 0.00-0.02, ..., 0.28-0.30, then > 0.30 */

typedef struct {
	const char *method;      /* name, as given to nd_eval_run */
	const char *settings;    /* parameters, e.g. "w=10, 7/8" */
	int verdict;             /* 1: yes/no method (one operating point) */
	double threshold;        /* the method's default operating threshold */
	int learned;             /* 1: trained on the train side (seeds 002, 003) */
	uint64_t candidates;     /* pairs its index proposed (among labeled documents) */
	uint64_t candidate_tp;   /* of which duplicates: recall's ceiling is this / positives */
	/* At the default threshold: */
	uint64_t suggested, tp, fp, fn;
	double precision, recall, f1;
	double alpha;            /* Ilyinsky et al.: duplicates missed, fn / (tp + fn) */
	double beta;             /* Ilyinsky et al.: false duplicates offered, fp / (tp + fp) */
	/* Threshold sweep (scored methods; verdict methods repeat the point): */
	nd_eval_point best;      /* max F1 */
	nd_eval_point *curve;    /* descending thresholds, at most ~200 points */
	size_t ncurve;
	/* Normalized word Levenshtein of suggested pairs (a seeded sample): */
	uint64_t lev_measured;
	double within[3];        /* share within 8%, 15%, 30% */
	uint64_t lev_hist[ND_EVAL_LEV_BINS + 1];
	double floor;            /* pairs scoring below this were never generated (the method's
				    own floor or min_score; 0 with labeled pairs: all scored) */
	nd_eval_point *split_best; /* max F1 of each split (options' splits) */
	nd_eval_point *split_point; /* ... and the figures at the default threshold
				       (a verdict's point) on each */
	size_t nsplits;
	double seconds;          /* representations + candidates + scoring */
	double docs_per_s;
} nd_eval_result;

/* The methods, by name: descriptive, descriptive+xcheck, shingles,
 * shingles-mod16, sscr, docq4, simhash, minhash, imatch.  names[i] == NULL
 * ends the list; NULL for all.  st may be NULL when no descriptive method
 * is asked for.  *out (nd_eval_results_free) gets one result per method. */
ND_EXTERN const char *const *nd_eval_methods(void);
ND_EXTERN int nd_eval_run(nd_xdb *db, nd_store *st, const nd_truth *t, const char *const *names,
			  const nd_eval_options *opts, nd_eval_result **out, size_t *nout);
ND_EXTERN void nd_eval_results_free(nd_eval_result *r, size_t n);
/* Is the named method trained on labeled data (needs test_share > 0)? */
ND_EXTERN int nd_eval_method_learned(const char *name);

/* ---- metrics (exposed for tests and other harnesses) ---- */

typedef struct {
	double score;
	int label; /* 1 duplicate, 0 not */
} nd_scored_pair;

/* Fill r's operating point, sweep and best F1 from scored pairs (any
 * order; reordered) and the number of positives in the whole truth
 * (positives never scored count as missed).  threshold is the operating
 * point: pairs with score >= threshold are suggested. */
ND_EXTERN int nd_eval_metrics(nd_scored_pair *pairs, size_t n, uint64_t positives,
			      double threshold, nd_eval_result *r);

/* Is p (r's best, or one split's) cut by the candidate floor: a scored
 * method's sweep that ends at p with duplicates still missed, because
 * pairs below r->floor were never generated?  A lower floor may then
 * give a better max-F1. */
ND_EXTERN int nd_eval_cut(const nd_eval_result *r, const nd_eval_point *p);

#ifdef __cplusplus
}
#endif
#endif
