/* Internal to eval/: the corpus every method reads, the method interface
 * (document -> representation; candidate pairs from an index; pair ->
 * score), and the set-similarity join that the set methods share. */
#ifndef ND_EVAL_INTERNAL_H
#define ND_EVAL_INTERNAL_H

#include "neardup/eval.h"

typedef struct {
	nd_xdb *db;
	nd_store *st;
	const nd_truth *t;
	const nd_eval_options *o;
	size_t n;         /* labeled documents found in db */
	uint32_t **ids;   /* their word ids in order (nd_words_get) */
	size_t *len;
	/* The split, when options ask for one: side[i] 1 test, 0 train
	 * (NULL: no split, everything is measured), and the positives that
	 * the measured pairs hold. */
	uint8_t *side;
	uint64_t positives;
	uint64_t seed;    /* the split's seed (o->seed but under splits), for sampling */
	/* Document frequency of word ids over the n documents (ev_df). */
	uint32_t *df_ids, *df;
	size_t ndf;
} ev_corpus;

/* Load the labeled documents' word sequences (ev_corpus_free frees,
 * also after an error). */
int ev_corpus_load(ev_corpus *c, nd_xdb *db, nd_store *st, const nd_truth *t,
		   const nd_eval_options *o);
void ev_corpus_free(ev_corpus *c);

/* A candidate pair of doc indexes a < b with its score; return non-zero to stop. */
typedef int (*ev_emit)(size_t a, size_t b, double score, void *ctx);

/* A scored pair of doc indexes and its label (1 duplicate, 0 not). */
typedef struct {
	uint32_t a, b;
	double score;
	int label;
} ev_pair;

typedef struct {
	const char *name;
	const char *settings;
	int verdict;
	double threshold;
	double floor;     /* candidates below max(floor, --min-score) are not generated */
	int (*prepare)(void **state, ev_corpus *c);
	int (*candidates)(void *state, ev_corpus *c, double min_score, ev_emit emit, void *ctx);
	int (*score)(void *state, ev_corpus *c, size_t a, size_t b, double *out);
	void (*release)(void *state);
	int learned;      /* trains on the split's train side (ev_training pairs) */
} ev_method;

extern const ev_method *const ev_methods[];

/* Sorted, distinct 64-bit tokens of one document. */
typedef struct {
	uint64_t *v;
	size_t n;
} ev_set;

typedef double (*ev_set_sim)(const ev_set *a, const ev_set *b);

double ev_jaccard(const ev_set *a, const ev_set *b);
double ev_overlap_max(const ev_set *a, const ev_set *b); /* |A & B| / max(|A|, |B|) */

/* Every pair with sim >= t, t > 0, for sim = Jaccard or overlap/max (both
 * imply |A & B| >= t * max(|A|, |B|)): prefix filtering over tokens in
 * rarest-first order, so only pairs sharing a rare token are compared. */
int ev_set_join(const ev_set *sets, size_t n, double t, ev_set_sim sim, ev_emit emit, void *ctx);

/* Is the pair (a, b) measured: both on the test side, or no split. */
static inline int ev_measured(const ev_corpus *c, size_t a, size_t b)
{
	return !c->side || (c->side[a] && c->side[b]);
}
/* Is the pair (a, b) for training: both on the train side of a split. */
static inline int ev_training(const ev_corpus *c, size_t a, size_t b)
{
	return c->side && !c->side[a] && !c->side[b];
}

extern const ev_method ev_m_svm, ev_m_weights;

/* Learned term weights (Hajishirzi et al.): a term's weight is lambda . phi over
 * EV_NF features, so a pair's dot product is lambda' M lambda and a
 * document's squared norm lambda' Q lambda.  The cosine from the pair's M
 * and its documents' Q, and its gradient in lambda (what training follows). */
#define EV_NF 5
double ev_quad_cosine(const double m[EV_NF][EV_NF], const double qa[EV_NF][EV_NF],
		      const double qb[EV_NF][EV_NF], const double *lambda, double *grad);

/* Every pair of sets at Hamming distance <= k, found by probing the
 * postings of each set's k + 1 rarest elements; emits 1 / (1 + H). */
int ev_hamming_join(const ev_set *sets, size_t n, unsigned k, ev_emit emit, void *ctx);

/* Document frequency of word id w over the corpus (built on first use). */
int ev_df_build(ev_corpus *c);
uint32_t ev_df(const ev_corpus *c, uint32_t w);

#endif
