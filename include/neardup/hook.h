/* neardup: keeping the store in step with a live index.
 *
 * An indexer calls nd_hook_changed after it adds, replaces or deletes a
 * document (on its own writable handle, before or after committing): the
 * document's record and cluster membership change in one store
 * transaction, the verification caches of the touched clusters are dropped
 * with it, and the call returns the document's verified duplicates.
 * Nothing else is re-clustered.  nd_hook_update does the same for every
 * change since the store last saw the database, found by walking the
 * descriptive words' postlists (new docids, deleted ones, and replaced ones
 * by record fingerprint), for indexers that cannot call a hook (omindex,
 * scriptindex) and to repair after a crash between the two commits.
 *
 * When the store keeps collapse ids in a value slot (nd_collapse_slot_set),
 * both keep the slot of every document in the touched clusters right; db
 * must then be writable and the caller commits it. */
#ifndef ND_HOOK_H
#define ND_HOOK_H

#include "neardup/descriptor.h"
#include "neardup/verify.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An nd_hook lives from nd_hook_open to nd_hook_free, no longer than the
 * db and store it was given; one thread at a time (it writes through the
 * store's one writer and the caller's database handle). */
typedef struct nd_hook nd_hook;

typedef struct {
	double max_drift;          /* refuse changes past this drift (0.5; 0 = no limit) */
	nd_verify_options verify;
	uint32_t block_docs;       /* nd_hook_update: docids per transaction (0: signing's default) */
	unsigned jobs;             /* nd_hook_update: threads reading postlists (nd_sign_options.jobs;
				      1); and a hook's recount (recount_max) */
	double tolerant;           /* > 0: candidates also among the documents whose bit sets
				      have Jaccard >= this with the document's (0) */
	size_t max_compare;        /* the most similar this many candidates are compared (0: 64);
				      at the copy point the document's neighbours in the
				      near-neighbour index are judged as its links settle,
				      so this bounds only the candidates beyond them */
	/* nd_hook_update: called after each block of docids walked (may be NULL). */
	void (*progress)(nd_docid done, nd_docid last, void *ctx);
	void *progress_ctx;
	/* 1: nd_hook_changed's store writes are held until nd_hook_commit,
	 * one fsync for all of them (call it when the database commits);
	 * 0: each hook commits its own (0). */
	int group_commit;
	/* Hooks count the collection's common text again (and make every
	 * link again, as sign and update do) once the documents since its
	 * last count are a quarter of those it was counted over, or the
	 * links between distinct texts made since a quarter of those it made
	 * (sooner in a small store: ND_HOOK_RECOUNT_SMALL), while the store holds at
	 * most this many documents (ND_HOOK_RECOUNT_MAX); the hook that
	 * finds it due, or nd_hook_commit with group_commit, waits for it.
	 * Past it, and with 0, 'neardup update' counts it. */
	uint64_t recount_max;
} nd_hook_options;

/* A recount at this size stalls its hook about 3 s (one thread, 2 cores,
 * bench/scale.py's corpus); all the counts below it, at every quarter's
 * growth, cost 4% of the hooks' time to 100,000 documents. */
#define ND_HOOK_RECOUNT_MAX 50000
/* Below this many documents a recount is due sooner, at N / this of a
 * quarter's growth (N documents in the store): a site's pages, or a
 * template's fillings, arrive together, and what arrived since the last
 * count is then a large share of a small store's pairs.  Such a recount
 * costs milliseconds to a few tenths of a second (0.16 s at 1,671
 * documents, bench_agree on eval/sets' fillings). */
#define ND_HOOK_RECOUNT_SMALL 5000

#define ND_HOOK_OPTIONS_INIT { 0.5, ND_VERIFY_OPTIONS_INIT, 0, 1, 0, 64, NULL, NULL, 0, ND_HOOK_RECOUNT_MAX }

typedef struct {
	nd_docid docid;
	nd_change change;
	uint64_t key, old_key;     /* cluster keys after and before (0: none) */
	size_t candidates;         /* other documents with the same key or near it in the
				      near-neighbour index (tolerant: and with bit-set
				      Jaccard >= tolerant) */
	nd_verified *duplicates;   /* of those, its duplicates by the verdict at
				      verify.point, judged against the document itself
				      as check judges a text (distance and how: to it;
				      group 0), ranked as check ranks them,
				      among the first max_compare (see there); the
				      whole cluster it is in: nd_collapse_cluster */
	size_t nduplicates;
} nd_hook_result;

#define ND_HOOK_RESULT_INIT { 0, ND_CHANGE_NONE, 0, 0, 0, NULL, 0 }

ND_EXTERN void nd_hook_result_clear(nd_hook_result *r);

/* Load the store's descriptive set for db.  ND_ESTATE when the set is
 * already stale past opts->max_drift (the message gives the drift).
 * opts may be NULL.  db and st stay the caller's and must outlive the hook. */
ND_EXTERN int nd_hook_open(nd_hook **out, nd_xdb *db, nd_store *st, const nd_hook_options *opts);
/* Commits what group_commit holds (nd_store_commit), as it frees too. */
ND_EXTERN void nd_hook_free(nd_hook *h);

/* With group_commit: store what the hooks since the last commit wrote, in
 * one transaction.  Call it right after the database's own commit: until
 * then other readers of the store do not see those documents (nor do
 * they the database's), and a crash loses both alike ('neardup update'
 * and nd_hook_update bring back a store that missed a database commit).
 * Without group_commit, or nothing held: ND_OK. */
ND_EXTERN int nd_hook_commit(nd_hook *h);

/* Document docid was added, replaced or deleted in db (a document no
 * longer in db is a deletion).  res (may be NULL) gets what changed and
 * the document's verified duplicates. */
ND_EXTERN int nd_hook_changed(nd_hook *h, nd_docid docid, nd_hook_result *res);

/* Every change since the store last saw db: fn gets each one, with its
 * duplicates, after it is stored (res is valid during the call only; fn
 * may read the store, nd_collapse_cluster for one: every change is
 * stored before the first call).  rep
 * (may be NULL) gets the counts.  On ND_ESTATE (drift limit) the changes
 * before the refused block stay applied and were reported.  A store that
 * keeps collapse ids then has the whole slot audited and repaired
 * (nd_collapse_slot_audit): a change the fingerprint cannot see, such as
 * a re-index that dropped the value, or a killed run, converges here. */
typedef void (*nd_hook_fn)(const nd_hook_result *res, void *ctx);
ND_EXTERN int nd_hook_update(nd_hook *h, nd_hook_fn fn, void *ctx, nd_sign_report *rep);

#ifdef __cplusplus
}
#endif
#endif
