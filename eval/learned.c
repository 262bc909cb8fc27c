/* The learned methods of `neardup eval`: trained on pairs within the train
 * side of a split by group (nd_truth_split: no cluster on both sides),
 * measured on pairs within the test side.
 *
 *   svm       the SVM method's discriminant: an SVM (libsvm, RBF kernel) over a
 *             pair's similarity vector: Jaccard, cosine, Dice and extended
 *             Jaccard of the two documents' top-32 tf-idf words, 3-word
 *             shingle resemblance, 1 - normalized word Levenshtein, and
 *             Kupietz's sscr (5-word shingles), the best single measure
 *             on the news gold set
 *   weights   Hajishirzi et al.'s learned term weights: each word's weight in a
 *             document is a linear function of its features (bias, log tf,
 *             idf, how early it first occurs, document length), fitted by
 *             L-BFGS (liblbfgs) to rank duplicate pairs above others by
 *             cosine (logistic loss over pair orderings, L2-regularized);
 *             the score is that cosine
 *
 * Both take candidates from the same index: the prefix-filtered join of
 * the documents' top-32 tf-idf word sets (Jaccard >= the floor).  Training
 * pairs are that join's pairs within the train side (hard negatives: they
 * share words) or, for labeled pairs, the train side's pairs. */
#include "eval/eval_internal.h"
#include "common/nd_buf.h"
#include "common/nd_hash.h"
#include "neardup/similarity.h"

#include <lbfgs.h>
#include <libsvm/svm.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TOPK 32
#define TRAIN_PAIRS 2000   /* per class for the SVM */
#define ORDERINGS 20000    /* (duplicate, non-duplicate) pairs for the weights */
#define NS 7               /* similarity features */

typedef struct {
	uint32_t id, tf, first;
} term;

typedef struct {
	term *t;
	size_t n;
	double *w;    /* weight per term (tf-idf, or learned) */
	double norm2; /* sum of squared weights */
	double *phi;  /* EV_NF features per term (weights method) */
} tvec;

typedef struct {
	ev_corpus *c;
	tvec *docs;   /* all words, by id */
	tvec *top;    /* TOPK highest tf-idf words, by id */
	ev_set *topset;
	double *idf;  /* per doc term of docs[] */
	/* svm */
	struct svm_model *model;
	struct svm_node *svm_nodes; /* the model's support vectors point here */
	double sign;
	/* weights */
	double lambda[EV_NF];
} lrn;

static int cmp_term(const void *x, const void *y)
{
	const term *a = x, *b = y;
	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	return a->first < b->first ? -1 : a->first > b->first;
}

typedef struct {
	double w;
	size_t j;
} ranked;

static int cmp_ranked(const void *x, const void *y)
{
	const ranked *a = x, *b = y;
	if (a->w != b->w)
		return a->w > b->w ? -1 : 1;
	return a->j < b->j ? -1 : a->j > b->j;
}

static int cmp_size(const void *x, const void *y)
{
	size_t a = *(const size_t *)x, b = *(const size_t *)y;
	return a < b ? -1 : a > b;
}

static void lrn_release(void *vs)
{
	lrn *s = vs;
	if (!s)
		return;
	for (size_t i = 0; s->c && i < s->c->n; i++) {
		if (s->docs) {
			free(s->docs[i].t);
			free(s->docs[i].w);
			free(s->docs[i].phi);
		}
		if (s->top) {
			free(s->top[i].t);
			free(s->top[i].w);
		}
		if (s->topset)
			free(s->topset[i].v);
	}
	free(s->docs);
	free(s->top);
	free(s->topset);
	free(s->idf);
	if (s->model)
		svm_free_and_destroy_model(&s->model);
	free(s->svm_nodes);
	free(s);
}

static double norm2(const tvec *v)
{
	double n = 0;
	for (size_t j = 0; j < v->n; j++)
		n += v->w[j] * v->w[j];
	return n;
}

/* Term vectors with tf-idf weights, and each document's top-k words. */
static int lrn_prepare(lrn **out, ev_corpus *c)
{
	lrn *s = calloc(1, sizeof(*s));
	ranked *rk = NULL;
	size_t *pick = NULL;
	int rc;
	if (!s)
		return nd_error_set(ND_ENOMEM, "out of memory");
	s->c = c;
	if ((rc = ev_df_build(c)) < 0) {
		free(s);
		return rc;
	}
	if (!(s->docs = calloc(c->n + 1, sizeof(tvec))) || !(s->top = calloc(c->n + 1, sizeof(tvec))) ||
	    !(s->topset = calloc(c->n + 1, sizeof(ev_set))))
		goto oom;
	for (size_t i = 0; i < c->n; i++) {
		size_t len = c->len[i], k = 0;
		tvec *d = &s->docs[i];
		if (!len)
			continue;
		if (!(d->t = malloc(len * sizeof(term))) || !(d->w = malloc(len * sizeof(double))))
			goto oom;
		for (size_t j = 0; j < len; j++)
			d->t[j] = (term){c->ids[i][j], 1, (uint32_t)j};
		qsort(d->t, len, sizeof(term), cmp_term);
		for (size_t j = 0; j < len; j++) {
			if (k && d->t[k - 1].id == d->t[j].id)
				d->t[k - 1].tf++;
			else
				d->t[k++] = d->t[j];
		}
		d->n = k;
		for (size_t j = 0; j < k; j++) {
			uint32_t df = ev_df(c, d->t[j].id);
			d->w[j] = (1.0 + log((double)d->t[j].tf)) * log((double)c->n / (double)(df ? df : 1));
		}
		d->norm2 = norm2(d);
		/* The k highest tf-idf words (ties by id), kept in id order. */
		size_t m = k < TOPK ? k : TOPK;
		if (!(rk = malloc(k * sizeof(*rk))) || !(pick = malloc(m * sizeof(*pick))))
			goto oom;
		for (size_t j = 0; j < k; j++)
			rk[j] = (ranked){d->w[j], j};
		qsort(rk, k, sizeof(*rk), cmp_ranked);
		for (size_t j = 0; j < m; j++)
			pick[j] = rk[j].j;
		qsort(pick, m, sizeof(*pick), cmp_size);
		tvec *t = &s->top[i];
		ev_set *ts = &s->topset[i];
		if (!(t->t = malloc(m * sizeof(term))) || !(t->w = malloc(m * sizeof(double))) ||
		    !(ts->v = malloc(m * sizeof(uint64_t))))
			goto oom;
		for (size_t j = 0; j < m; j++) {
			t->t[j] = d->t[pick[j]];
			t->w[j] = d->w[pick[j]];
			ts->v[j] = d->t[pick[j]].id;
		}
		t->n = ts->n = m;
		t->norm2 = norm2(t);
		free(rk);
		free(pick);
		rk = NULL;
		pick = NULL;
	}
	*out = s;
	return ND_OK;
oom:
	free(rk);
	free(pick);
	lrn_release(s);
	return nd_error_set(ND_ENOMEM, "out of memory");
}

/* Dot product and shared-term count of two id-sorted vectors. */
static double dot(const tvec *a, const tvec *b, size_t *shared)
{
	double d = 0;
	size_t i = 0, j = 0, n = 0;
	while (i < a->n && j < b->n) {
		if (a->t[i].id == b->t[j].id) {
			d += a->w[i++] * b->w[j++];
			n++;
		} else if (a->t[i].id < b->t[j].id)
			i++;
		else
			j++;
	}
	if (shared)
		*shared = n;
	return d;
}

/* ---- pairs to learn from ---- */

typedef struct {
	uint32_t a, b;
	int label;
} lpair;

typedef struct {
	ev_corpus *c;
	lpair *p;
	size_t n, cap;
	int test;     /* collect measured pairs instead of training pairs */
} pair_list;

static int keep_pair(size_t a, size_t b, double score, void *vctx)
{
	pair_list *l = vctx;
	(void)score;
	if (!(l->test ? ev_measured(l->c, a, b) : ev_training(l->c, a, b)))
		return 0;
	int label = nd_truth_label(l->c->t, a, b);
	if (label < 0)
		return 0;
	if (nd_array_reserve((void **)&l->p, &l->cap, l->n + 1, sizeof(lpair)) < 0)
		return nd_error_set(ND_ENOMEM, "out of memory");
	l->p[l->n++] = (lpair){(uint32_t)a, (uint32_t)b, label};
	return 0;
}

/* Labeled pairs on the train side: the candidate join's (clusters) or the
 * truth's own (pairs). */
static int training_pairs(lrn *s, double floor, pair_list *l)
{
	ev_corpus *c = s->c;
	memset(l, 0, sizeof(*l));
	l->c = c;
	if (nd_truth_kind_of(c->t) == ND_TRUTH_PAIRS) {
		for (size_t k = 0; k < nd_truth_npairs(c->t); k++) {
			size_t a, b;
			int label, rc;
			nd_truth_pair(c->t, k, &a, &b, &label);
			if ((rc = keep_pair(a, b, 0, l)) < 0)
				return rc;
		}
		return ND_OK;
	}
	int rc = ev_set_join(s->topset, c->n, floor, ev_jaccard, keep_pair, l);
	if (rc < 0)
		return rc;
	/* Too few non-duplicates share top words (distinct topics): add
	 * random pairs across train groups, as many as the duplicates. */
	size_t pos = 0, neg, tries = 0;
	for (size_t i = 0; i < l->n; i++)
		pos += l->p[i].label == 1;
	neg = l->n - pos;
	nd_rng rng = {c->seed * 0x9e3779b97f4a7c15ULL + 5};
	while (neg < pos && c->n > 1 && tries++ < 20 * pos) {
		size_t a = (size_t)nd_rng_below(&rng, c->n), b = (size_t)nd_rng_below(&rng, c->n);
		if (a == b || !ev_training(c, a, b) || nd_truth_label(c->t, a, b) != 0)
			continue;
		if ((rc = keep_pair(a < b ? a : b, a < b ? b : a, 0, l)) < 0)
			return rc;
		neg++;
	}
	return ND_OK;
}

/* Seeded sample of at most want pairs of one label, moved to the front. */
static size_t sample_label(lpair *p, size_t n, int label, size_t want, nd_rng *rng)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (p[i].label == label) {
			lpair x = p[k];
			p[k++] = p[i];
			p[i] = x;
		}
	for (size_t i = 0; i < k && i < want; i++) {
		size_t j = i + (size_t)nd_rng_below(rng, k - i);
		lpair x = p[i];
		p[i] = p[j];
		p[j] = x;
	}
	return k < want ? k : want;
}

/* ---- svm (the SVM method) ---- */

static int similarity_vector(const lrn *s, size_t a, size_t b, double *f)
{
	const ev_corpus *c = s->c;
	const tvec *x = &s->top[a], *y = &s->top[b];
	size_t shared;
	double xy = dot(x, y, &shared);
	size_t un = x->n + y->n - shared;
	nd_shingle_sim sim;
	double d;
	int exact, rc;
	f[0] = un ? (double)shared / (double)un : 0;                                  /* Jaccard */
	f[1] = x->norm2 > 0 && y->norm2 > 0 ? xy / sqrt(x->norm2 * y->norm2) : 0;       /* cosine */
	f[2] = x->n + y->n ? 2.0 * (double)shared / (double)(x->n + y->n) : 0;         /* Dice */
	f[3] = x->norm2 + y->norm2 - xy > 0 ? xy / (x->norm2 + y->norm2 - xy) : 0;      /* ext. Jaccard */
	if ((rc = nd_shingle_similarity(c->ids[a], c->len[a], c->ids[b], c->len[b], 3, &sim)) < 0)
		return rc;
	f[4] = sim.bag;
	if ((rc = nd_shingle_similarity(c->ids[a], c->len[a], c->ids[b], c->len[b], 5, &sim)) < 0)
		return rc;
	f[6] = sim.sscr;
	/* Exact up to 0.5; past it, the lower bound is enough to say "far". */
	if ((rc = nd_levenshtein(c->ids[a], c->len[a], c->ids[b], c->len[b], 0.5, &d, &exact)) < 0)
		return rc;
	f[5] = d < 1 ? 1 - d : 0;
	return ND_OK;
}

static void svm_quiet(const char *s)
{
	(void)s;
}

static int svm_score(void *vs, ev_corpus *c, size_t a, size_t b, double *out)
{
	lrn *s = vs;
	double f[NS], dec;
	struct svm_node x[NS + 1];
	int rc;
	(void)c;
	if ((rc = similarity_vector(s, a, b, f)) < 0)
		return rc;
	for (int k = 0; k < NS; k++)
		x[k] = (struct svm_node){k + 1, f[k]};
	x[NS].index = -1;
	svm_predict_values(s->model, x, &dec);
	*out = 1.0 / (1.0 + exp(-s->sign * dec));
	return ND_OK;
}

static int svm_prepare(void **state, ev_corpus *c)
{
	lrn *s;
	pair_list l;
	nd_rng rng = {c->seed * 0x9e3779b97f4a7c15ULL + 11};
	int rc = lrn_prepare(&s, c);
	if (rc < 0)
		return rc;
	if ((rc = training_pairs(s, c->o->min_score, &l)) < 0)
		goto fail;
	/* Balanced classes, as the SVM method trains. */
	size_t npos = sample_label(l.p, l.n, 1, TRAIN_PAIRS, &rng);
	size_t nneg = sample_label(l.p + npos, l.n - npos, 0, TRAIN_PAIRS, &rng);
	if (!npos || !nneg) {
		rc = nd_error_set(ND_EINVAL, "svm: the train side has %zu duplicate and %zu other "
				  "candidate pairs; it needs both", npos, nneg);
		goto fail;
	}
	size_t m = npos + nneg;
	struct svm_problem prob = {(int)m, malloc(m * sizeof(double)), malloc(m * sizeof(struct svm_node *))};
	struct svm_node *nodes = malloc(m * (NS + 1) * sizeof(struct svm_node));
	if (!prob.y || !prob.x || !nodes) {
		free(prob.y);
		free(prob.x);
		free(nodes);
		rc = nd_error_set(ND_ENOMEM, "out of memory");
		goto fail;
	}
	for (size_t i = 0; i < m && rc == ND_OK; i++) {
		double f[NS];
		rc = similarity_vector(s, l.p[i].a, l.p[i].b, f);
		prob.y[i] = l.p[i].label ? 1 : -1;
		prob.x[i] = nodes + i * (NS + 1);
		for (int k = 0; k < NS; k++)
			prob.x[i][k] = (struct svm_node){k + 1, f[k]};
		prob.x[i][NS].index = -1;
	}
	if (rc == ND_OK) {
		struct svm_parameter par = {0};
		par.svm_type = C_SVC;
		par.kernel_type = RBF;
		par.gamma = 1.0 / NS;
		par.C = 10;
		par.cache_size = 64;
		par.eps = 1e-3;
		par.shrinking = 1;
		const char *why = svm_check_parameter(&prob, &par);
		if (why)
			rc = nd_error_set(ND_EINVAL, "svm: %s", why);
		else {
			int labels[2];
			svm_set_print_string_function(svm_quiet);
			s->model = svm_train(&prob, &par);
			/* Decision values are positive for the model's first label. */
			svm_get_labels(s->model, labels);
			s->sign = labels[0] == 1 ? 1 : -1;
		}
	}
	free(prob.y);
	free(prob.x);
	free(l.p);
	if (rc < 0) {
		free(nodes);
		goto fail_nolist;
	}
	s->svm_nodes = nodes;
	*state = s;
	return ND_OK;
fail:
	free(l.p);
fail_nolist:
	lrn_release(s);
	return rc;
}

/* ---- learned term weights (Hajishirzi et al.) ---- */

/* Features of term j of document d: bias, log tf, idf (over log n, so in
 * [0, 1]), how early it first occurs, log length.  Hajishirzi et al.'s list less
 * what word ids cannot tell (capitals, title, URL, query log). */
static void term_features(const lrn *s, size_t d, size_t j, double *phi)
{
	const tvec *v = &s->docs[d];
	const term *t = &v->t[j];
	double n = (double)s->c->n, len = (double)s->c->len[d];
	uint32_t df = ev_df(s->c, t->id);
	phi[0] = 1;
	phi[1] = log(1.0 + t->tf);
	phi[2] = n > 1 ? log(n / (df ? df : 1)) / log(n) : 0;
	phi[3] = len > 0 ? 1.0 - t->first / len : 0;
	phi[4] = log(1.0 + len) / 10;
}

/* Weights w = lambda . phi for every term of document d. */
static void apply_weights(lrn *s, size_t d, const double *lambda)
{
	tvec *v = &s->docs[d];
	for (size_t j = 0; j < v->n; j++) {
		double w = 0;
		for (int k = 0; k < EV_NF; k++)
			w += lambda[k] * v->phi[j * EV_NF + k];
		v->w[j] = w;
	}
	v->norm2 = norm2(v);
}

/* Cosine of documents a and b under the current weights. */
static double weighted_cosine(const lrn *s, size_t a, size_t b)
{
	const tvec *x = &s->docs[a], *y = &s->docs[b];
	return x->norm2 > 0 && y->norm2 > 0 ? dot(x, y, NULL) / sqrt(x->norm2 * y->norm2) : 0;
}

/* Weights are linear in lambda (w = lambda . phi), so a pair's dot product
 * is lambda' M lambda with M summed over shared terms, and a document's
 * squared norm lambda' Q lambda.  Training computes M and Q once; each
 * step of the optimizer is then EV_NF x EV_NF work per pair, not a merge of two
 * documents' terms. */
typedef double quad[EV_NF][EV_NF];

static void quad_pair(const lrn *s, size_t a, size_t b, quad m)
{
	const tvec *x = &s->docs[a], *y = &s->docs[b];
	size_t i = 0, j = 0;
	memset(m, 0, sizeof(quad));
	while (i < x->n && j < y->n) {
		if (x->t[i].id == y->t[j].id) {
			const double *p = x->phi + i * EV_NF, *q = y->phi + j * EV_NF;
			for (int k = 0; k < EV_NF; k++)
				for (int l = 0; l < EV_NF; l++)
					m[k][l] += 0.5 * (p[k] * q[l] + q[k] * p[l]);
			i++, j++;
		} else if (x->t[i].id < y->t[j].id)
			i++;
		else
			j++;
	}
}

static void quad_doc(const lrn *s, size_t d, quad m)
{
	const tvec *v = &s->docs[d];
	memset(m, 0, sizeof(quad));
	for (size_t j = 0; j < v->n; j++) {
		const double *p = v->phi + j * EV_NF;
		for (int k = 0; k < EV_NF; k++)
			for (int l = 0; l < EV_NF; l++)
				m[k][l] += p[k] * p[l];
	}
}

/* lambda' m lambda, and its gradient 2 m lambda. */
static double quad_eval(const quad m, const double *lambda, double *grad)
{
	double v = 0;
	for (int k = 0; k < EV_NF; k++) {
		double r = 0;
		for (int l = 0; l < EV_NF; l++)
			r += m[k][l] * lambda[l];
		grad[k] = 2 * r;
		v += lambda[k] * r;
	}
	return v;
}

double ev_quad_cosine(const quad m, const quad qa, const quad qb, const double *lambda, double *grad)
{
	double dS[EV_NF], dA[EV_NF], dB[EV_NF];
	double S = quad_eval(m, lambda, dS), A = quad_eval(qa, lambda, dA), B = quad_eval(qb, lambda, dB);
	if (A <= 0 || B <= 0) {
		memset(grad, 0, EV_NF * sizeof(double));
		return 0;
	}
	double cos = S / sqrt(A * B);
	for (int k = 0; k < EV_NF; k++)
		grad[k] = dS[k] / sqrt(A * B) - 0.5 * cos * (dA[k] / A + dB[k] / B);
	return cos;
}

/* A training pair as the optimizer sees it: its shared-term form and the
 * slots of its documents' norm forms. */
typedef struct {
	quad m;
	uint32_t qa, qb;
} pair_form;

typedef struct {
	size_t n;             /* ORDERINGS couples: pos[k] should outrank neg[k] */
	pair_form *pos, *neg;
	quad *q;              /* norm forms of the documents the pairs touch */
} order_problem;

/* The forms of pair pr; a document's norm form is made the first time a
 * pair touches it (slot: document -> 1 + its index in op->q, 0 if none). */
static void form_pair(const lrn *s, const lpair *pr, uint32_t *slot, order_problem *op, size_t *nq,
		      pair_form *f)
{
	uint32_t d2[2] = {pr->a, pr->b}, *q2[2] = {&f->qa, &f->qb};
	quad_pair(s, pr->a, pr->b, f->m);
	for (int k = 0; k < 2; k++) {
		if (!slot[d2[k]]) {
			quad_doc(s, d2[k], op->q[*nq]);
			slot[d2[k]] = (uint32_t)++*nq;
		}
		*q2[k] = slot[d2[k]] - 1;
	}
}

static double pair_cosine(const order_problem *op, const pair_form *p, const double *lambda, double *grad)
{
	return ev_quad_cosine(p->m, op->q[p->qa], op->q[p->qb], lambda, grad);
}

#define L2 1e-3
/* Cosines differ by tenths: scaled so the logistic loss is not flat. */
#define ORDER_SCALE 10.0

static lbfgsfloatval_t order_loss(void *inst, const lbfgsfloatval_t *lambda, lbfgsfloatval_t *g,
				  const int n, const lbfgsfloatval_t step)
{
	order_problem *op = inst;
	double loss = 0, gp[EV_NF], gn[EV_NF];
	(void)n;
	(void)step;
	for (int k = 0; k < EV_NF; k++)
		g[k] = 0;
	for (size_t e = 0; e < op->n; e++) {
		double cp = pair_cosine(op, &op->pos[e], lambda, gp);
		double cn = pair_cosine(op, &op->neg[e], lambda, gn);
		double delta = ORDER_SCALE * (cp - cn);
		loss += log1p(exp(-delta));
		double sig = 1.0 / (1.0 + exp(delta)); /* -d loss / d delta */
		for (int k = 0; k < EV_NF; k++)
			g[k] -= sig * ORDER_SCALE * (gp[k] - gn[k]);
	}
	loss /= (double)op->n;
	for (int k = 0; k < EV_NF; k++) {
		g[k] = g[k] / (double)op->n + L2 * lambda[k];
		loss += 0.5 * L2 * lambda[k] * lambda[k];
	}
	return loss;
}

static int weights_prepare(void **state, ev_corpus *c)
{
	lrn *s;
	pair_list l;
	nd_rng rng = {c->seed * 0x9e3779b97f4a7c15ULL + 17};
	uint32_t *slot = NULL;
	size_t nq = 0;
	order_problem op = {0};
	int rc = lrn_prepare(&s, c);
	if (rc < 0)
		return rc;
	memset(&l, 0, sizeof(l));
	for (size_t i = 0; i < c->n && rc == ND_OK; i++) {
		tvec *v = &s->docs[i];
		if (v->n && !(v->phi = malloc(v->n * EV_NF * sizeof(double))))
			rc = nd_error_set(ND_ENOMEM, "out of memory");
		for (size_t j = 0; j < v->n && rc == ND_OK; j++)
			term_features(s, i, j, v->phi + j * EV_NF);
	}
	if (rc < 0 || (rc = training_pairs(s, c->o->min_score, &l)) < 0)
		goto done;
	size_t npos = sample_label(l.p, l.n, 1, l.n, &rng);
	size_t nneg = l.n - npos;
	if (!npos || !nneg) {
		rc = nd_error_set(ND_EINVAL, "weights: the train side has %zu duplicate and %zu other "
				  "candidate pairs; it needs both", npos, nneg);
		goto done;
	}
	/* ORDERINGS random (duplicate, other) couples. */
	op.n = ORDERINGS;
	size_t maxq = 4 * op.n < c->n ? 4 * op.n : c->n; /* the couples touch at most this many documents */
	if (!(op.pos = malloc(op.n * sizeof(pair_form))) || !(op.neg = malloc(op.n * sizeof(pair_form))) ||
	    !(slot = calloc(c->n + 1, sizeof(*slot))) || !(op.q = malloc((maxq + 1) * sizeof(quad)))) {
		rc = nd_error_set(ND_ENOMEM, "out of memory");
		goto done;
	}
	for (size_t e = 0; e < op.n; e++) {
		form_pair(s, &l.p[nd_rng_below(&rng, npos)], slot, &op, &nq, &op.pos[e]);
		form_pair(s, &l.p[npos + nd_rng_below(&rng, nneg)], slot, &op, &nq, &op.neg[e]);
	}
	/* Start from idf alone, near tf-idf. */
	lbfgsfloatval_t *x = lbfgs_malloc(EV_NF), fx;
	lbfgs_parameter_t par;
	if (!x) {
		rc = nd_error_set(ND_ENOMEM, "out of memory");
		goto done;
	}
	for (int k = 0; k < EV_NF; k++)
		x[k] = k == 2 ? 1 : 0;
	lbfgs_parameter_init(&par);
	par.max_iterations = 100;
	int lr = lbfgs(EV_NF, x, &fx, order_loss, NULL, &op, &par);
	if (lr < 0 && lr != LBFGSERR_MAXIMUMITERATION && lr != LBFGSERR_ROUNDING_ERROR &&
	    lr != LBFGSERR_MAXIMUMLINESEARCH && lr != LBFGSERR_MINIMUMSTEP && lr != LBFGSERR_MAXIMUMSTEP)
		rc = nd_error_set(ND_EINVAL, "weights: L-BFGS failed (liblbfgs status %d)", lr);
	for (int k = 0; k < EV_NF; k++)
		s->lambda[k] = x[k];
	lbfgs_free(x);
	/* Every document under the learned weights. */
	for (size_t i = 0; i < c->n && rc == ND_OK; i++)
		apply_weights(s, i, s->lambda);
done:
	free(l.p);
	free(op.pos);
	free(op.neg);
	free(slot);
	free(op.q);
	if (rc < 0) {
		lrn_release(s);
		return rc;
	}
	*state = s;
	return ND_OK;
}

static int weights_score(void *vs, ev_corpus *c, size_t a, size_t b, double *out)
{
	(void)c;
	*out = weighted_cosine(vs, a, b);
	return ND_OK;
}

/* ---- candidates, shared: the top-k join, measured pairs scored ---- */

typedef struct {
	lrn *s;
	int (*score)(void *, ev_corpus *, size_t, size_t, double *);
	ev_emit emit;
	void *ctx;
	int rc;
} score_ctx;

static int score_emit(size_t a, size_t b, double jac, void *vctx)
{
	score_ctx *x = vctx;
	double sc;
	(void)jac;
	if (!ev_measured(x->s->c, a, b))
		return 0;
	if ((x->rc = x->score(x->s, x->s->c, a, b, &sc)) < 0)
		return x->rc;
	return x->emit(a, b, sc, x->ctx);
}

static int svm_candidates(void *vs, ev_corpus *c, double min_score, ev_emit emit, void *ctx)
{
	score_ctx x = {vs, svm_score, emit, ctx, ND_OK};
	int rc = ev_set_join(((lrn *)vs)->topset, c->n, min_score, ev_jaccard, score_emit, &x);
	return x.rc < 0 ? x.rc : rc;
}

static int weights_candidates(void *vs, ev_corpus *c, double min_score, ev_emit emit, void *ctx)
{
	score_ctx x = {vs, weights_score, emit, ctx, ND_OK};
	int rc = ev_set_join(((lrn *)vs)->topset, c->n, min_score, ev_jaccard, score_emit, &x);
	return x.rc < 0 ? x.rc : rc;
}

const ev_method ev_m_svm = {"svm", "RBF SVM on 7 similarities (the SVM method), P(dup) >= 0.5", 0, 0.5, 0,
			    svm_prepare, svm_candidates, svm_score, lrn_release, 1};
const ev_method ev_m_weights = {"weights", "learned term weights, cosine (Hajishirzi et al.) >= 0.5", 0, 0.5, 0,
				weights_prepare, weights_candidates, weights_score, lrn_release, 1};
