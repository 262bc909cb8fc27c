/* neardup: the crawl-time check.  For a document not yet indexed, compute
 * its signature exactly as signing would after indexing it (same
 * tokenizer, same length rule, same bit test) and return the verified
 * members of the cluster it would join. */
#ifndef ND_CHECK_H
#define ND_CHECK_H

#include "neardup/descriptor.h"
#include "neardup/shards.h"
#include "neardup/tokenizer.h"
#include "neardup/verify.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Sign a token sequence as `neardup index` + `neardup sign` would sign the
 * document: len is the number of tokens. */
ND_EXTERN int nd_sig_from_tokens(const nd_descriptor *d, const nd_token *tokens, size_t n,
				 nd_sig *out);

typedef struct {
	nd_docid docid;
	double distance;   /* to the checked text: normalized word Levenshtein, or
			      1 - resemblance, as how says (nd_verify_pair) */
	int duplicate;     /* the verdict at the options' point */
	double jaccard;    /* of the two bit sets (1 for an equal key) */
	nd_verify_how how; /* what accepted it, or what last measured a refused one
			      (ND_VERIFY_NO_WORDS: no words to compare); a
			      refused Levenshtein distance is a lower bound */
} nd_check_member;

typedef struct {
	nd_sig sig;                /* the text's signature; key 0: no cluster */
	size_t cluster_size;       /* candidates: documents with the same key and the
				      text's neighbours in the near-neighbour index
				      (tolerant: and those with bit-set Jaccard >=
				      min_jaccard) */
	nd_check_member *members;  /* the first max_compare of them, compared */
	size_t nmembers;
	size_t duplicates;         /* of those, duplicates by the verdict */
} nd_check_result;

#define ND_CHECK_RESULT_INIT { ND_SIG_INIT, 0, NULL, 0, 0 }

ND_EXTERN void nd_check_result_clear(nd_check_result *r);

/* How many candidates check compares unless told (--compare): those past
 * the first 8 are still duplicates on small sites, whose pages share
 * their template's words and so outrank a copy in another template. */
#define ND_CHECK_COMPARE 16

/* Check UTF-8 text against the store.  The candidates are the documents
 * of its key and its neighbours in the store's near-neighbour index (at
 * most 80, see neardup/cluster.h), equal keys first, then the most similar
 * by bit-set Jaccard or by the share of the near-neighbour MinHashes of
 * their descriptive words that agree (a page in a site template keeps its
 * words while their frequencies, and so its bits, move); the text is compared
 * with at most max_compare of them (comparing a few bounds the cost on
 * huge clusters) by the one pair verdict (nd_verify_pair) under vo (NULL:
 * the defaults, the copy point).  tk is the caller's tokenizer (one per
 * thread). */
ND_EXTERN int nd_check_text(nd_tokenizer *tk, const nd_descriptor *d, nd_xdb *db, nd_store *st,
			    const char *text, size_t len, const nd_verify_options *vo, size_t max_compare,
			    nd_check_result *out);

/* The same, tolerant of a few changed bits: the candidates are the
 * documents whose bit sets have Jaccard >= min_jaccard (in (0, 1]) with the
 * text's, found through the store's bit postings, and the text's
 * neighbours in the store's near-neighbour index (at most 80, see
 * neardup/cluster.h), ranked as nd_check_text ranks them; the first max_compare
 * are compared.  Works for texts with 1-3 bits too (no
 * key).  The cross-check decides, as for exact keys.  A low min_jaccard
 * reads long postings: the rarest |A| - ceil(min_jaccard |A|) + 1 of the
 * text's bits are probed. */
ND_EXTERN int nd_check_text_tolerant(nd_tokenizer *tk, const nd_descriptor *d, nd_xdb *db,
				     nd_store *st, const char *text, size_t len, double min_jaccard,
				     const nd_verify_options *vo, size_t max_compare, nd_check_result *out);

/* Either check over a sharded database: the candidates of every shard's
 * store (min_jaccard 0: equal keys; else tolerant), compared through db,
 * the combined database (a stub; remote shards are read over the network),
 * whose docids the members carry. */
ND_EXTERN int nd_check_text_shards(nd_tokenizer *tk, const nd_shards *sh, nd_xdb *db, const char *text,
				   size_t len, double min_jaccard, const nd_verify_options *vo,
				   size_t max_compare, nd_check_result *out);

/* How many of the joined cluster's other documents `neardup check --json`
 * and the Python binding list (max_rest): a soft 404 page copied across a
 * crawl has a cluster of thousands, and a check of each such page must
 * not write them all. */
#define ND_CHECK_CLUSTER_LISTED 1000

/* The stored cluster that the text r checked would join, from the
 * store's links (nd_collapse_ids): *id the smallest collapse id of its
 * duplicates that are copies (at the strict point all, at story those of
 * resemblance the copy point's), a document of no cluster its own id, 0
 * when there are none; *size the cluster's documents.  At the copy point
 * (vo NULL: copy) they are all the text's duplicates, and *rest (caller
 * frees; NULL when *nrest is 0) gets up to max_rest of those r did not
 * verify as its duplicates, ascending: a text copied a thousand times is
 * compared with a window's worth, and one the verdict refused (another copy
 * of the cluster's centre, edited apart from the text) is in it still, as
 * `neardup clusters` and collapsing hold it and hooks report it.  db and
 * st are r's (one store, not shards). */
ND_EXTERN int nd_check_cluster(nd_xdb *db, nd_store *st, const nd_verify_options *vo, const nd_check_result *r,
			       size_t max_rest, nd_docid *id, size_t *size, nd_docid **rest, size_t *nrest);

#ifdef __cplusplus
}
#endif
#endif
