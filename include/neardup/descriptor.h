/* neardup: the "descriptive words" method (Ilyinsky et al.).
 *
 * A descriptive set is N words w_i, each with a threshold b_i on relative
 * frequency f_i(d) = wdf(w_i, d) / len(d), where len(d) counts the
 * document's unprefixed word occurrences.  A document's signature is the set
 * {i : f_i(d) > b_i}; documents with at least ND_MIN_BITS bits get a 64-bit
 * cluster key (a hash of the set) and documents with equal keys form a
 * candidate duplicate cluster.
 *
 * The set is chosen from the database's statistics (nd_descriptor_build),
 * kept in the store, and every document is signed from the postlists of the
 * chosen words alone (nd_sign_all): no document text is read. */
#ifndef ND_DESCRIPTOR_H
#define ND_DESCRIPTOR_H

#include "neardup/common.h"
#include "neardup/store.h"
#include "neardup/xdb.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Documents with fewer bits than this get no key (Ilyinsky et al.: "vectors with
 * 3 or less words above threshold are removed"). */
#define ND_MIN_BITS 4
#define ND_MAX_WORDS 65535

/* An nd_descriptor is immutable once built or loaded: any number of
 * threads may use one at once.  It does not refer to the database or
 * store it came from. */
typedef struct nd_descriptor nd_descriptor;

typedef struct {
	uint32_t words;        /* N: descriptive words wanted (2000) */
	uint32_t target_bits;  /* greedy stops crediting a document past this many bits (6) */
	uint32_t min_df;       /* candidates: at least this many documents (3) */
	double min_df_frac;    /*   and at least this fraction of documents (0.0005) */
	double max_df_frac;    /*   and at most this fraction (0.2) */
	uint32_t max_candidates; /* keep the most frequent this many candidates (60000) */
	uint32_t sample_docs;  /* documents sampled for thresholds and coverage (5000) */
	uint32_t edits;        /* edited copies per sampled document (4) */
	double max_edit;       /* edits change up to this fraction of the words (0.08) */
	double max_above;      /* b_i sets the bit in at most this fraction of the
				  documents (0.5): a bit set everywhere says nothing */
	uint32_t min_sample_df;/* and in at least this many sampled documents (3) */
	uint64_t seed;         /* sampling and edit simulation (1) */
	double word_share;     /* candidates: keep this fraction of them, chosen by a
				  hash of the word and seed (1: all).  Sets built
				  with different seeds differ in their words, as
				  Kołcz's randomized lexicons for I-Match do. */
	unsigned jobs;         /* threads for the edit simulation and thresholds
				  (1; at most ND_SIGN_MAX_JOBS); the set is the
				  same for any number */
	/* Called as each of the build's steps begins (step of steps, and what
	 * it does), for progress on long builds; may be NULL. */
	void (*progress)(unsigned step, unsigned steps, const char *what, void *ctx);
	void *ctx;
} nd_build_options;

#define ND_BUILD_OPTIONS_INIT { 2000, 6, 3, 0.0005, 0.2, 60000, 5000, 4, 0.08, 0.5, 3, 1, 1.0, 1, NULL, NULL }

typedef struct {
	uint32_t doccount;       /* documents in the database */
	uint32_t candidates;     /* words that passed the frequency filters */
	uint32_t rated;          /* candidates with a feasible threshold */
	uint32_t chosen;         /* words in the set */
	uint32_t sample_docs;    /* documents in the sample */
	double coverage;         /* sample documents with >= ND_MIN_BITS bits */
	double mean_bits;        /* mean bits per sample document */
	double p_change;         /* 1 - prod(1 - lambda_i) */
	double key_change;       /* measured: covered sample documents whose key
				    changes under a simulated edit */
	int word_lengths;        /* 1 if lengths come from termlists (prefixed wdf present) */
	double seconds;
	uint32_t min_docs;       /* an empty set for too few documents: how many
				    the options need before any word can qualify
				    (0: there were enough) */
} nd_build_report;

/* Choose a descriptive set from db.  opts may be NULL (defaults); rep may be
 * NULL.  Deterministic for a given database and seed.  ND_ESTATE when the
 * database has fewer than 2 documents.  A database with too few documents
 * for any word to qualify (rep->min_docs says how many), or whose words
 * are all in too many of them (copies of one text), gets the empty set:
 * no document has a key, and each finds its duplicates by its text's
 * near-neighbour keys, until a build on the grown collection. */
ND_EXTERN int nd_descriptor_build(nd_descriptor **out, nd_xdb *db, const nd_build_options *opts,
				  nd_build_report *rep);
ND_EXTERN void nd_descriptor_free(nd_descriptor *d);

ND_EXTERN uint32_t nd_descriptor_size(const nd_descriptor *d);
/* Word i (borrowed, lives as long as d), its threshold and instability. */
ND_EXTERN const char *nd_descriptor_word(const nd_descriptor *d, uint32_t i);
ND_EXTERN double nd_descriptor_threshold(const nd_descriptor *d, uint32_t i);
ND_EXTERN double nd_descriptor_lambda(const nd_descriptor *d, uint32_t i);
/* Word i's weight in the near-neighbour keys, ln(1 + N/df) frozen when the
 * set was chosen; 0 when the set weighs every word alike (given as words,
 * or stored before weights were kept). */
ND_EXTERN double nd_descriptor_weight(const nd_descriptor *d, uint32_t i);
/* A hash of the words, thresholds and weights: stores signed with another
 * version are stale. */
ND_EXTERN uint64_t nd_descriptor_version(const nd_descriptor *d);

/* Make a set from given words and thresholds (sorted by the call; n may
 * be 0, the empty set); for tests and for shipping a set to another shard. */
ND_EXTERN int nd_descriptor_from_words(nd_descriptor **out, const char *const *words,
				       const double *thresholds, uint32_t n, int word_lengths);

/* Save the set into the store, bound to db (its UUID and revision).  Any
 * signatures of an older set are removed in the same transaction. */
ND_EXTERN int nd_descriptor_save(const nd_descriptor *d, nd_store *st, nd_xdb *db,
				 const nd_build_options *opts);
/* Load the set from the store and check that it was built for db (UUID):
 * ND_EMISMATCH otherwise, ND_ESTATE when the store has no set. db may be NULL
 * to skip the check. */
ND_EXTERN int nd_descriptor_load(nd_descriptor **out, nd_store *st, nd_xdb *db);

/* A signature: the set bits in increasing order and the cluster key (0 when
 * fewer than ND_MIN_BITS bits are set).  The fingerprint hashes everything
 * the signature is computed from (the length and the wdf of every
 * descriptive word present): `neardup update` finds replaced documents by
 * comparing it, without reading any text. */
/* Near-neighbour keys (the store's LSH forest): for each of ND_NEAR_TREES
 * trees, a sequence of ND_NEAR_ROWS MinHashes (16 bits each).  The first
 * ND_NEAR_WORD_TREES are of the descriptive words the document holds at
 * all (wdf > 0, above threshold or not), weighted by the set's frozen
 * ln(1 + N/df) when it has them, so that a row agrees with the chance of
 * the weighted Jaccard; the other ND_NEAR_TEXT_TREES are of its word
 * 3-shingles (one-permutation MinHash), so that a document gets
 * candidates whatever the descriptive set holds: a short text, a text
 * copied so often that its words are too common for the set, an
 * unsegmented script.  Documents with similar word sets or texts share
 * long prefixes in some tree, so each finds its likely duplicates among
 * its few neighbours in the sorted sequences, whatever the corpus's size.
 * A tree whose sequence is all UINT16_MAX has no key (a document holding
 * no descriptive word in the word trees) and is not indexed. */
#define ND_NEAR_WORD_TREES 10
#define ND_NEAR_TEXT_TREES 6
#define ND_NEAR_TREES (ND_NEAR_WORD_TREES + ND_NEAR_TEXT_TREES)
#define ND_NEAR_ROWS 6
#define ND_NEAR_WINDOW 4   /* neighbours each side in each tree */

typedef struct {
	uint64_t key;
	uint32_t nbits;
	uint16_t *bits;   /* owned; nd_sig_clear frees */
	uint32_t cap;
	uint64_t fingerprint;
	uint32_t present; /* descriptive words held; a decoded record keeps only
			     whether it has near-neighbour keys at all: 0 or 1 */
	uint16_t near[ND_NEAR_TREES * ND_NEAR_ROWS]; /* tree t's sequence at t * ND_NEAR_ROWS */
} nd_sig;

#define ND_SIG_INIT { 0, 0, NULL, 0, 0, 0, {0} }

ND_EXTERN void nd_sig_clear(nd_sig *s);
/* Key of a sorted bit set (0 below ND_MIN_BITS). */
ND_EXTERN uint64_t nd_sig_key(const uint16_t *bits, uint32_t nbits);
/* Decode a stored signature payload; ND_ECORRUPT if malformed. */
ND_EXTERN int nd_sig_decode(nd_sig *out, const void *payload, size_t len, uint32_t nwords);

/* Sign one document from its termlist (the incremental path). */
ND_EXTERN int nd_sig_from_termlist(const nd_descriptor *d, nd_xdb *db, nd_docid docid, nd_sig *out);

typedef enum {
	ND_CHANGE_NONE = 0,
	ND_CHANGE_ADDED = 1,     /* no record before */
	ND_CHANGE_REPLACED = 2,  /* record with another fingerprint */
	ND_CHANGE_DELETED = 3,   /* record of a document no longer in the database */
	ND_CHANGE_EXPIRED = 4,   /* record dated before the store's feed window
				    (neardup/window.h); the document stays in the database */
} nd_change;

ND_EXTERN const char *nd_change_name(nd_change c);

/* One changed record, reported after its transaction committed. */
typedef void (*nd_change_fn)(nd_docid docid, nd_change change, uint64_t old_key,
			     uint64_t new_key, void *ctx);

typedef struct {
	uint32_t block_docs;   /* docids per block and per write transaction (32768):
				  every commit rewrites the tree pages its block
				  touched, so larger blocks write less */
	int restart;           /* re-sign everything, not only docids past the last signed;
				  also for a database that holds the store's documents
				  renumbered (nd_sign_report.renumbered) */
	int update;            /* compare every document with its record: sign new and
				  changed ones, drop records of deleted ones */
	double max_drift;      /* update: refuse to go past this drift (0.5; 0 = no limit) */
	void (*progress)(nd_docid done, nd_docid last, void *ctx);
	nd_change_fn changed;  /* update: called for each change (may be NULL) */
	void *ctx;
	unsigned jobs;         /* threads reading postlists, each through its own
				  handle on the database (1; at most ND_SIGN_MAX_JOBS;
				  1 for a writable db, whose uncommitted changes
				  other handles cannot see).  The store has one
				  writer, and the records are the same for any number. */
} nd_sign_options;

#define ND_SIGN_MAX_JOBS 64
#define ND_SIGN_OPTIONS_INIT { 32768, 0, 0, 0.5, NULL, NULL, NULL, 1 }

typedef struct {
	uint64_t docs;       /* documents signed in this run */
	uint64_t keyed;      /* of which with a key */
	uint64_t unkeyed;    /* of which with <= 3 bits */
	uint64_t added, replaced, deleted; /* update: records changed */
	uint64_t postings;   /* postings read */
	nd_docid from, to;   /* docid range covered */
	double drift;        /* after the run, see nd_drift */
	double seconds;
	uint64_t slot_repaired; /* nd_hook_update: collapse values found wrong and
				   rewritten (a re-index that dropped one, a killed run) */
	uint64_t no_words;   /* signed documents with no word sequence: no record, so
				no verdict and no text candidates (a database without
				positions, word streams or text in its data) */
	uint64_t words_from_data; /* of those with one, tokenized from the document
				     data (no positions: possibly only its start) */
	uint64_t expired;    /* records that left a feed window (neardup/window.h) */
	uint64_t undated;    /* signed documents a window by slot found no date for:
				kept, never expiring */
	uint64_t recounted;  /* nd_hook_update: nonzero when the collection's
				common text was counted again, and every link
				made again, having grown by ND_NEAR_RECOUNT since
				(nd_links_report.recounted: 1 in documents, 2 in
				links; see nd_links_settle) */
	nd_docid renumbered; /* restart: the database holds the store's documents
				under docids up to this much lower and the store
				now follows it (xapian-compact moves every docid
				of a database whose first documents were deleted
				down by one amount; copydatabase numbers the
				documents it copies from 1, in order); 0 otherwise */
} nd_sign_report;

/* Sign every document (or those past the last signed docid) by walking the
 * postlist of each descriptive word once, in docid blocks; each block is
 * one store transaction, so an interrupted run resumes where it stopped.
 * With opts->update, every document is compared with its record instead
 * (the same walk: about as fast as signing everything) and only changes
 * are written; ND_ESTATE, with the drift in the message, when applying the
 * next block would take the drift past max_drift (the blocks before it stay
 * applied). */
ND_EXTERN int nd_sign_all(nd_store *st, nd_xdb *db, const nd_sign_options *opts, nd_sign_report *rep);

/* How stale the descriptive set is: records added past the database's last
 * document at build time, replaced or deleted since, over the documents the
 * set was built from.  0 right after `neardup build`; 1 when as many
 * documents have changed as there were. */
ND_EXTERN int nd_drift(nd_store *st, double *drift);

#ifdef __cplusplus
}
#endif
#endif
