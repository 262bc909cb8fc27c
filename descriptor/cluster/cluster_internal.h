/* Internal to descriptor/cluster/: the components of scored candidate
 * pairs, shared by average linkage's pruning (nd_linkage_sparse) and the
 * copy point's clusters (nd_cluster_near with single). */
#ifndef ND_DESC_CLUSTER_H
#define ND_DESC_CLUSTER_H

#include <stddef.h>
#include <stdint.h>

#include "neardup/cluster.h"
#include "neardup/verify.h"
#include "descriptor/verify/record.h"
#include "common/nd_hash.h"

/* nd_links_settle inside a writer's own transaction (a hook's, so that its
 * record and the links around it commit together): 0 and rep and *seeds
 * (caller frees) when the links were settled or are now; 1 when they need
 * a rebuild from every record (nd_links_settle does that, after).  When
 * self's record was among the changed, *near (caller frees; else NULL)
 * gets its neighbours in the near-neighbour index, as nd_near_candidates
 * gives them, ascending: every pair with them was judged. */
/* nd_links_rebuild, and (rep may be NULL) what its count found of sites
 * in rep's sites, frame_sites, site_pages and template_shingles. */
int nd__links_rebuild(nd_xdb *db, nd_store *st, const nd_near_options *opts, uint64_t *nlinks,
		      nd_links_report *rep);
int nd__links_settle_txn(nd_store_txn *txn, nd_links_report *rep, nd_docid **seeds, size_t *nseeds, nd_docid self,
			 nd_docid **near, size_t *nnear);

/* The neighbours of a stored document in the near-neighbour index now:
 * the pairs the links' rule asks of it (*out ascending, caller frees). */
int nd__links_neighbours(nd_store_txn *txn, nd_docid docid, nd_docid **out, size_t *n);

/* Store meta: the documents and the last docid the common text in the
 * store was counted over (two uint64). */
#define ND_META_COMMON_COUNTED "common-counted"
/* ... and the pairs the links held when made with that count (uint64),
 * and the links made since between two texts that count does not take
 * for one group (plain resemblance under ND_GROUP_RESEMBLANCE; uint64). */
#define ND_META_COMMON_LINKS "common-links"
#define ND_META_COMMON_APART "common-apart"
/* Whether a link between records x and y is between two texts, not one
 * group of the count (what ND_META_COMMON_APART counts). */
int nd__links_apart(const nd__rec *x, const nd__rec *y);
/* ND_META_COMMON_APART moved by n (not below 0), in a writer's txn. */
int nd__links_apart_add(nd_store_txn *txn, int64_t n);

/* A site's name as the collection's count and hooks key it: the hash of
 * its host without "www." (nd_host_bare). */
static inline uint64_t nd__site_hash(const char *bare, size_t n)
{
	return nd_hash_bytes(bare, n, 0x73697465ULL);
}

/* A site's template counted as its pages arrive (sites.c): the hashes
 * its count took for common and their groups, and its pages' floors,
 * owned (nd__extra reads them). */
typedef struct {
	uint32_t *h, *g;
	size_t n;
	uint8_t *floors;  /* ND_FLOOR_BYTES each, by text */
	size_t nfloors;
} nd__site_tpl;
void nd__site_tpl_free(nd__site_tpl *t);

typedef struct {
	uint64_t key;     /* the site's hash, as the collection's count names
			     it; 0: the page has no site */
	nd_docid *docs;   /* its pages, ascending */
	size_t ndocs;
	int by_frame;     /* a site that only its pages' frame tells */
} nd__site;
void nd__site_free(nd__site *s);
/* docid's site (its host, else its base URL: nd_xdb_doc_site) and its
 * pages up to docid seen (0: all), when at most max_pages, from the
 * database (read before the store's transaction); s->key 0 when it has
 * neither.  A larger site's pages are not read, nor is it counted, but
 * what its count took while smaller still weighs its pairs. */
int nd__site_of(nd_xdb *db, nd_docid docid, nd_docid seen, size_t max_pages, nd__site *s);
/* The most pages of a site a hook reads, and a count is over (its
 * latest): 4096; tests lower it. */
extern size_t nd__site_pages_max;
/* In a writer's transaction: docid's site by its record's frame (its
 * first and last words; a page without a host, as the collection's count
 * takes it), its pages those that hooks and update have seen with that
 * frame and the store still holds under it (a group the store lists:
 * nd__store_group_join), docid among them. */
int nd__site_frame(nd_store_txn *txn, nd_docid docid, uint64_t frame, nd__site *s);
/* Pages docs[0..n) (ascending) without a host that a pass signed together
 * (update): each with a frame into its frame's site, and those sites
 * counted when due and their pages judged again (nd__site_arrived_all). */
int nd__site_frames_arrived(nd_store_txn *txn, const nd_docid *docs, size_t n);
/* In a writer's transaction, docid's record written: the site counted
 * when it is due (nd__site_template over its pages; its entry, and docid's
 * site, in the store's meta), *counted (caller frees; NULL when not
 * counted, or counted as it was) the pages it was counted over, *since
 * the last page counted before (0: none). */
int nd__site_count(nd_store_txn *txn, nd__site *s, nd_docid docid, nd_docid **counted, size_t *ncounted,
		   nd_docid *since);
/* The pairs of docs[0..n) (ascending; a site just counted) judged again
 * with their sites' templates: the links of every one, and every pair the
 * links' rule asks of those after since (judged before with no template
 * or an older one), but self's (the page the settling judged with it);
 * links made or unmade, both ends into *seeds (caller frees; seeds and
 * nseeds NULL: not listed). */
int nd__site_rejudge(nd_store_txn *txn, const nd_docid *docs, size_t n, nd_docid since, nd_docid self,
		     nd_docid **seeds, size_t *nseeds);
/* Indexes 0..n) grouped by key[i]: order[0..n) gets them a group after
 * another, the groups in the order of their first index and each in
 * index order; start[0..*ngroups] (n + 1 room) where each begins.  A
 * pass's pages grouped by site, however many sites. */
int nd__group_by_key(const uint64_t *key, size_t n, uint32_t *order, size_t *start, size_t *ngroups);
/* more[0..nmore) added to *v[0..*n) (*v realloc'd), sorted, unique. */
int nd__merge_docids(nd_docid **v, size_t *n, const nd_docid *more, size_t nmore);
/* The same for pages docs[0..n) of s (ascending) that a pass signed
 * together (update), their links settled without their site: the site
 * counted when due, and its pages judged again as above, or these
 * pages with its template when it is not.  What moved is not listed:
 * update audits every collapse id after. */
int nd__site_arrived_all(nd_store_txn *txn, nd__site *s, const nd_docid *docs, size_t n);
/* Judging pairs with the templates hooks counted for their pages' sites:
 * the entries read, kept for the pass. */
#define ND_SITE_JUDGE_SITES 8
/* Records weighed with their site's template, kept for the pass: a
 * hook's page is judged with each of its neighbours, most of one site. */
#define ND_SITE_JUDGE_WEIGHED 16
typedef struct {
	nd_docid doc;
	uint64_t site;
	uint32_t uses;
	nd__rec r; /* its arrays the record's, read in place; weighed on its second use */
} nd__site_weighed;
typedef struct {
	nd_store_txn *txn;
	uint64_t counted[2];
	int none; /* no site counted since the collection was */
	uint64_t key[ND_SITE_JUDGE_SITES];
	nd__site_tpl tpl[ND_SITE_JUDGE_SITES];
	size_t nsites, next;
	nd__site_tpl both; /* two sites' templates merged */
	size_t cap, fcap;
	uint64_t ekey; /* the one site nd__site_templates' answer is of (0: none, or two) */
	nd__site_weighed w[ND_SITE_JUDGE_WEIGHED];
	size_t nw, wnext;
} nd__site_judge;
void nd__site_judge_init(nd__site_judge *j, nd_store_txn *txn);
void nd__site_judge_free(nd__site_judge *j);
/* The copy verdict on a and b (records x and y, common the collection's
 * table) with their sites' templates, as nd__rec_verdict answers; x and
 * y read in place from j's transaction, nothing written in it during the
 * pass (their weights are kept). */
int nd__site_pair(nd__site_judge *j, nd_docid a, const nd__rec *x, nd_docid b, const nd__rec *y,
		  nd__common *common);
/* The templates of a's site (a 0: none) and b's, merged into *e (empty:
 * none; read in j till its next call). */
int nd__site_templates(nd__site_judge *j, nd_docid a, nd_docid b, nd__extra *e);
/* Candidates of a text compared with their sites' templates, and with
 * those of self's site (a hook's page; 0: a text not in the store):
 * nd__compare_candidates' nd__template_fn. */
typedef struct {
	nd__site_judge j;
	nd_docid self;
} nd__site_cands;
int nd__site_cand_templates(void *ctx, nd_docid cand, nd__extra *e);
/* The same for fsck, records read from j's transaction; 2 when neither
 * site has a count. */
int nd__site_verdict(nd__site_judge *j, nd__common *common, nd_docid a, nd_docid b);
/* docid's site's name (nd__site_hash; 0: no host), from the database. */
int nd__site_key_of(nd_xdb *db, nd_docid docid, uint64_t *key);
/* The template the collection's count takes from docs[0..n), every one a
 * page of one site (a host's; by_frame, one that only the pages' frame
 * tells), over every pair of them, and the floors of those pages (*t's
 * arrays, caller frees: nd__site_tpl_free). */
int nd__site_template(nd_store_txn *txn, const nd_docid *docs, size_t n, int by_frame, nd__site_tpl *t);

/* nd_cluster_near with single linkage decided at point (copy or strict). */
int nd__cluster_near_at(nd_xdb *db, nd_store *st, const nd_near_options *opts, nd_point point,
			const nd_docid *docs, size_t n, size_t *into, nd_near_stats *stats);

/* Union-find over n documents joined by the pairs (a << 32 | b) whose
 * score is >= at_least (score NULL: whose yes has a bit of mask): *up
 * (caller frees) gets each one's parent, and nd__root walks it to the
 * smallest index of the component. */
int nd__components(size_t n, const uint64_t *pair, const float *score, const uint8_t *yes, uint8_t mask,
		   size_t np, double at_least, uint32_t **up);
uint32_t nd__root(uint32_t *up, uint32_t x);
/* Joins a's and b's components (the smaller root stays). */
void nd__join(uint32_t *up, uint32_t a, uint32_t b);

/* Whether the copy verdict accepts documents a and b (indices of the
 * caller's): 1 yes, 0 no, < 0 an error. */
typedef int (*nd__copy_fn)(uint32_t a, uint32_t b, void *ctx);
/* The copy verdict's distance from a to b, a centre, into *d (1 - the
 * measure that accepts them; asked as the centre is asked of its
 * members, centre first); < 0 an error. */
typedef int (*nd__dist_fn)(uint32_t a, uint32_t b, double *d, void *ctx);
/* Copy clusters that do not chain (split.c), over a component read where
 * it lies: n documents in docid order, each one's number of links, its
 * links (indices, in any order, valid until the next call), and the
 * verdict.
 * Each document's leader goes into lead[0..n): the smallest index of its
 * cluster (itself when alone). */
typedef struct {
	size_t n;
	const uint32_t *degree;
	int (*links)(uint32_t i, const uint32_t **out, size_t *n, void *ctx);
	nd__copy_fn copy;
	nd__dist_fn dist; /* NULL: each stays with the centre that took it */
	void *ctx;
} nd__split_graph;
int nd__split(const nd__split_graph *g, uint32_t *lead);
/* The same over pairs in memory (a << 32 | b of indices, those whose yes
 * is not 0; yes NULL: all). */
int nd__split_pairs(size_t n, const uint64_t *pair, const uint8_t *yes, size_t np, nd__copy_fn copy,
		    nd__dist_fn dist, void *ctx, uint32_t *lead);

#endif
