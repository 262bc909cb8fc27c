/* The evaluation harness: load the labeled documents' word sequences
 * once, then per method build representations, take its candidate pairs
 * (clusters) or score the labeled pairs (pairs), compute the metrics, and
 * measure a sample of the suggested pairs by word Levenshtein. */
#include "eval/eval_internal.h"
#include "common/nd_buf.h"
#include "common/nd_hash.h"
#include "neardup/verify.h"
#include "neardup/similarity.h"
#include "neardup/words.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

const char *const *nd_eval_methods(void)
{
	static const char *names[32];
	if (!names[0])
		for (size_t i = 0; ev_methods[i]; i++)
			names[i] = ev_methods[i]->name;
	return names;
}

int nd_eval_method_learned(const char *name)
{
	for (size_t i = 0; ev_methods[i]; i++)
		if (!strcmp(ev_methods[i]->name, name))
			return ev_methods[i]->learned;
	return 0;
}

typedef struct {
	const ev_corpus *c;
	const nd_truth *t;
	ev_pair *p;
	size_t n, cap;
} collect_ctx;

static int collect(size_t a, size_t b, double score, void *vctx)
{
	collect_ctx *c = vctx;
	if (!ev_measured(c->c, a, b))
		return 0;
	int label = nd_truth_label(c->t, a, b);
	if (label < 0)
		return 0;
	if (nd_array_reserve((void **)&c->p, &c->cap, c->n + 1, sizeof(ev_pair)) < 0)
		return nd_error_set(ND_ENOMEM, "out of memory for candidate pairs");
	c->p[c->n++] = (ev_pair){(uint32_t)a, (uint32_t)b, score, label};
	return 0;
}

/* Levenshtein buckets of a seeded sample of pairs scoring >= threshold. */
static int measure_suggested(const ev_corpus *c, const ev_pair *p, size_t n, double threshold,
			     nd_eval_result *r)
{
	size_t want = c->o->lev_sample, kept = 0, seen = 0;
	size_t *sample = want ? malloc(want * sizeof(*sample)) : NULL;
	nd_rng rng = {c->seed * 0x2545f4914f6cdd1dULL + 3};
	uint64_t within[3] = {0, 0, 0};
	int rc = ND_OK;
	if (want && !sample)
		return nd_error_set(ND_ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		if (p[i].score < threshold)
			continue;
		seen++;
		if (kept < want)
			sample[kept++] = i;
		else {
			uint64_t j = nd_rng_below(&rng, seen);
			if (j < want)
				sample[j] = i;
		}
	}
	for (size_t k = 0; k < kept && rc == ND_OK; k++) {
		const ev_pair *x = &p[sample[k]];
		double d;
		int exact;
		rc = nd_levenshtein(c->ids[x->a], c->len[x->a], c->ids[x->b], c->len[x->b], 0.30, &d, &exact);
		if (rc < 0)
			break;
		if (!exact || d > 0.30) {
			r->lev_hist[ND_EVAL_LEV_BINS]++;
			continue;
		}
		size_t bin = (size_t)(d / 0.02);
		r->lev_hist[bin < ND_EVAL_LEV_BINS ? bin : ND_EVAL_LEV_BINS - 1]++;
		within[0] += d <= 0.08;
		within[1] += d <= 0.15;
		within[2] += 1;
	}
	r->lev_measured = kept;
	for (int i = 0; i < 3; i++)
		r->within[i] = kept ? (double)within[i] / (double)kept : 0;
	free(sample);
	return rc;
}

/* The method's scored pairs among the measured documents (all of them
 * when c has no split), with the result's name and timing filled. */
static int score_pairs(ev_corpus *c, const ev_method *m, nd_eval_result *r, collect_ctx *cc)
{
	void *state = NULL;
	double t0 = now();
	int rc;

	r->method = m->name;
	r->settings = m->settings;
	r->verdict = m->verdict;
	r->learned = m->learned;
	r->threshold = m->threshold;
	if (m->learned && !c->side)
		return nd_error_set(ND_EINVAL, "%s is trained on labeled data: it needs a train/test split "
				    "(--test-share, e.g. 0.5)", m->name);
	if (c->o->progress)
		c->o->progress(m->name, "representations", c->o->ctx);
	if ((rc = m->prepare(&state, c)) < 0)
		return rc;
	if (c->o->progress)
		c->o->progress(m->name, "pairs", c->o->ctx);
	if (nd_truth_kind_of(c->t) == ND_TRUTH_CLUSTERS) {
		r->floor = m->floor > c->o->min_score ? m->floor : c->o->min_score;
		rc = m->candidates(state, c, r->floor, collect, cc);
	} else {
		size_t np = nd_truth_npairs(c->t);
		for (size_t k = 0; k < np && rc == ND_OK; k++) {
			size_t a, b;
			int label;
			double s;
			nd_truth_pair(c->t, k, &a, &b, &label);
			if (!ev_measured(c, a, b))
				continue;
			if ((rc = m->score(state, c, a, b, &s)) == ND_OK)
				rc = collect(a, b, s, cc);
		}
	}
	m->release(state);
	r->seconds = now() - t0;
	r->docs_per_s = r->seconds > 0 ? (double)c->n / r->seconds : 0;
	return rc;
}

/* Every pair across a join, at its level. */
static int collect_join(const nd_join *j, void *ctx)
{
	for (uint32_t x = j->a; x != UINT32_MAX; x = j->next[x])
		for (uint32_t y = j->b; y != UINT32_MAX; y = j->next[y]) {
			int rc = collect(x < y ? x : y, x < y ? y : x, j->level, ctx);
			if (rc)
				return rc;
		}
	return 0;
}

static int cmp_score_desc(const void *x, const void *y)
{
	const nd_scored *a = x, *b = y;
	return a->score > b->score ? -1 : a->score < b->score;
}

/* Single linkage (Kruskal): pairs by falling score, each join of two
 * clusters reported at that score, as nd_average_linkage reports its. */
static int single_linkage(size_t n, nd_scored *p, size_t np, double floor_, nd_join_fn join, void *ctx)
{
	uint32_t *up = malloc((n + 1) * sizeof(*up)), *next = malloc((n + 1) * sizeof(*next)),
		 *last = malloc((n + 1) * sizeof(*last));
	int rc = ND_OK;
	if (!up || !next || !last) {
		rc = nd_error_set(ND_ENOMEM, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < n; i++)
		up[i] = last[i] = (uint32_t)i, next[i] = UINT32_MAX;
	qsort(p, np, sizeof(*p), cmp_score_desc);
	for (size_t i = 0; i < np && rc == ND_OK && p[i].score >= floor_; i++) {
		uint32_t a = p[i].a, b = p[i].b;
		while (up[a] != a)
			a = up[a] = up[up[a]];
		while (up[b] != b)
			b = up[b] = up[up[b]];
		if (a == b)
			continue;
		nd_join j = {next, a, b, p[i].score};
		if ((rc = join(&j, ctx)) != 0)
			break;
		up[b] = a; /* b's members follow a's */
		next[last[a]] = b;
		last[a] = last[b];
	}
done:
	free(up);
	free(next);
	free(last);
	return rc;
}

/* Replace the pairs by their linkage levels (c's options ask for it):
 * what cutting the clusters at a threshold says of each pair. */
static int link_pairs(ev_corpus *c, double floor_, ev_pair **p, size_t *n)
{
	collect_ctx cc = {c, c->t, NULL, 0, 0};
	nd_scored *sc = malloc((*n + 1) * sizeof(*sc));
	int rc;
	if (!sc)
		return nd_error_set(ND_ENOMEM, "out of memory");
	for (size_t i = 0; i < *n; i++)
		sc[i] = (nd_scored){(*p)[i].a, (*p)[i].b, (*p)[i].score};
	rc = c->o->linkage == ND_EVAL_LINK_SINGLE ? single_linkage(c->n, sc, *n, floor_, collect_join, &cc)
						  : nd_average_linkage(c->n, sc, *n, floor_, collect_join, &cc);
	free(sc);
	if (rc < 0) {
		free(cc.p);
		return rc;
	}
	free(*p);
	*p = cc.p;
	*n = cc.n;
	return ND_OK;
}

/* Metrics of the scored pairs that c measures (c's split, if any). */
static int measure(ev_corpus *c, const ev_method *m, const ev_pair *p, size_t n, nd_eval_result *r)
{
	nd_scored_pair *sp = NULL;
	ev_pair *kept = malloc((n + 1) * sizeof(*kept));
	size_t nk = 0;
	int rc;
	if (!kept)
		return nd_error_set(ND_ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++)
		if (ev_measured(c, p[i].a, p[i].b))
			kept[nk++] = p[i];
	r->candidates = nk;
	r->candidate_tp = 0;
	for (size_t i = 0; i < nk; i++)
		r->candidate_tp += kept[i].label == 1;
	if (c->o->linkage != ND_EVAL_LINK_NONE && (rc = link_pairs(c, r->floor, &kept, &nk)) < 0)
		goto done;
	if (!(sp = malloc((nk + 1) * sizeof(*sp)))) {
		rc = nd_error_set(ND_ENOMEM, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < nk; i++)
		sp[i] = (nd_scored_pair){kept[i].score, kept[i].label};
	/* A verdict method has one operating point: pairs it rejects (score 0,
	 * e.g. failed cross-checks) are not a lower threshold to sweep. */
	free(r->curve);
	r->curve = NULL;
	if ((rc = nd_eval_metrics(sp, nk, c->positives, m->threshold, r)) < 0)
		goto done;
	if (m->verdict) {
		r->best = (nd_eval_point){m->threshold, r->precision, r->recall, r->f1, 0};
		if (r->curve)
			r->curve[0] = r->best;
		r->ncurve = r->curve ? 1 : 0;
	}
	if (c->o->scores && !c->side) {
		FILE *f = c->o->scores;
		fprintf(f, "#method\t%s\tpositives\t%llu\n", m->name, (unsigned long long)c->positives);
		for (size_t i = 0; i < nk; i++)
			fprintf(f, "%s\t%s\t%d\t%.6f\n", nd_truth_id(c->t, kept[i].a), nd_truth_id(c->t, kept[i].b),
				kept[i].label, kept[i].score);
		if (ferror(f)) {
			rc = nd_error_set(ND_EIO, "cannot write the scores file");
			goto done;
		}
	}
	if (c->o->progress)
		c->o->progress(m->name, "Levenshtein", c->o->ctx);
	rc = measure_suggested(c, kept, nk, m->threshold, r);
done:
	free(sp);
	free(kept);
	return rc;
}

static int run_method(ev_corpus *c, const ev_method *m, nd_eval_result *r)
{
	collect_ctx cc = {c, c->t, NULL, 0, 0};
	int rc = score_pairs(c, m, r, &cc);
	if (rc == ND_OK)
		rc = measure(c, m, cc.p, cc.n, r);
	free(cc.p);
	return rc;
}

void ev_corpus_free(ev_corpus *c)
{
	for (size_t i = 0; c->ids && i < c->n; i++)
		free(c->ids[i]);
	free(c->ids);
	free(c->len);
	free(c->df_ids);
	free(c->df);
	free(c->side);
}

/* The split of this seed and the positives it leaves to measure. */
static int split(ev_corpus *c, uint64_t seed)
{
	const nd_truth *t = c->t;
	int rc;
	c->seed = seed;
	c->positives = nd_truth_positives(t);
	if (c->o->test_share <= 0)
		return ND_OK;
	if (!c->side && !(c->side = calloc(c->n + 1, 1)))
		return nd_error_set(ND_ENOMEM, "out of memory");
	if ((rc = nd_truth_split(t, c->o->test_share, seed, c->side)) < 0)
		return rc;
	c->positives = 0;
	if (nd_truth_kind_of(t) == ND_TRUTH_PAIRS) {
		for (size_t k = 0; k < nd_truth_npairs(t); k++) {
			size_t a, b;
			int label;
			nd_truth_pair(t, k, &a, &b, &label);
			c->positives += label == 1 && ev_measured(c, a, b);
		}
		return ND_OK;
	}
	uint32_t g = nd_truth_ngroups(t);
	uint64_t *size = calloc(g + 1, sizeof(*size));
	if (!size)
		return nd_error_set(ND_ENOMEM, "out of memory");
	for (size_t i = 0; i < c->n; i++)
		size[nd_truth_group(t, i)] += c->side[i];
	for (uint32_t k = 0; k < g; k++)
		c->positives += size[k] * (size[k] ? size[k] - 1 : 0) / 2;
	free(size);
	return ND_OK;
}

/* Every split of opts->splits, seeds seed.. seed + splits - 1; r keeps
 * the first split's figures.  A method that does not learn is scored once,
 * over all pairs, and each split measures its share of them; a learned one
 * is trained again on each split's other side. */
static int run_splits(ev_corpus *c, const ev_method *m, nd_eval_result *r)
{
	size_t k = c->o->splits;
	int rc = ND_OK;
	if (!(r->split_best = calloc(k, sizeof(*r->split_best))) ||
	    !(r->split_point = calloc(k, sizeof(*r->split_point))))
		return nd_error_set(ND_ENOMEM, "out of memory");
	r->nsplits = k;
	collect_ctx cc = {c, c->t, NULL, 0, 0};
	if (!m->learned) {
		uint8_t *side = c->side;
		c->side = NULL;
		rc = score_pairs(c, m, r, &cc);
		c->side = side;
	}
	/* Last split first, so c is left on the first one for the next method. */
	while (k-- > 0 && rc == ND_OK) {
		if (c->o->progress)
			c->o->progress(m->name, "split", c->o->ctx);
		if ((rc = split(c, c->o->seed + k)) < 0)
			break;
		rc = m->learned ? run_method(c, m, r) : measure(c, m, cc.p, cc.n, r);
		r->split_best[k] = r->best;
		r->split_point[k] = (nd_eval_point){m->threshold, r->precision, r->recall, r->f1, 0};
	}
	free(cc.p);
	return rc;
}

int ev_corpus_load(ev_corpus *c, nd_xdb *db, nd_store *st, const nd_truth *t,
		   const nd_eval_options *o)
{
	int rc = ND_OK;
	memset(c, 0, sizeof(*c));
	c->db = db;
	c->st = st;
	c->t = t;
	c->o = o;
	c->seed = o->seed;
	c->n = nd_truth_ndocs(t);
	if (!(c->ids = calloc(c->n + 1, sizeof(*c->ids))) || !(c->len = calloc(c->n + 1, sizeof(*c->len))))
		return nd_error_set(ND_ENOMEM, "out of memory");
	for (size_t i = 0; i < c->n && rc == ND_OK; i++) {
		rc = nd_words_get(db, nd_truth_docid(t, i), &c->ids[i], &c->len[i], NULL);
		if (rc == ND_ENOTFOUND) { /* no words: every measure sees it empty */
			c->len[i] = 0;
			rc = ND_OK;
		}
	}
	return rc;
}

int nd_eval_run(nd_xdb *db, nd_store *st, const nd_truth *t, const char *const *names,
		const nd_eval_options *opts, nd_eval_result **out, size_t *nout)
{
	nd_eval_options defaults = ND_EVAL_OPTIONS_INIT;
	ev_corpus c = {0};
	nd_eval_result *res = NULL;
	size_t nm = 0;
	int rc = ND_OK;

	*out = NULL;
	*nout = 0;
	if (!opts)
		opts = &defaults;
	const ev_method **ms = calloc(32, sizeof(*ms));
	if (!ms)
		return nd_error_set(ND_ENOMEM, "out of memory");
	if (!names) {
		/* All methods; the learned ones only when there is a split to learn on. */
		for (size_t k = 0; ev_methods[k] && nm < 31; k++)
			if (!ev_methods[k]->learned || opts->test_share > 0)
				ms[nm++] = ev_methods[k];
	} else {
		for (; names[nm]; nm++) {
			const ev_method *m = NULL;
			for (size_t k = 0; ev_methods[k]; k++)
				if (!strcmp(ev_methods[k]->name, names[nm]))
					m = ev_methods[k];
			if (!m || nm >= 31) {
				free(ms);
				return m ? nd_error_set(ND_EINVAL, "too many methods")
					 : nd_error_set(ND_EINVAL, "no method '%s' (see neardup eval --help)",
							names[nm]);
			}
			ms[nm] = m;
		}
	}
	if (!(res = calloc(nm, sizeof(*res)))) {
		free(ms);
		return nd_error_set(ND_ENOMEM, "out of memory");
	}
	if (opts && opts->progress)
		opts->progress("all", "word sequences", opts->ctx);
	if (opts->splits && opts->test_share <= 0)
		rc = nd_error_set(ND_EINVAL, "%zu splits need a test share in (0, 1)", opts->splits);
	if (opts->linkage && nd_truth_kind_of(t) != ND_TRUTH_CLUSTERS)
		rc = nd_error_set(ND_EINVAL, "linkage needs clusters as ground truth: with labeled pairs "
				  "there are no clusters to cut");
	if (rc == ND_OK)
		rc = ev_corpus_load(&c, db, st, t, opts);
	if (rc == ND_OK)
		rc = split(&c, opts->seed);
	if (rc == ND_OK && opts->scores && nd_truth_kind_of(t) == ND_TRUTH_CLUSTERS)
		for (size_t i = 0; i < c.n; i++)
			fprintf(opts->scores, "#doc\t%s\t%u\n", nd_truth_id(t, i), nd_truth_group(t, i));
	for (size_t i = 0; i < nm && rc == ND_OK; i++)
		rc = opts->splits ? run_splits(&c, ms[i], &res[i]) : run_method(&c, ms[i], &res[i]);
	ev_corpus_free(&c);
	free(ms);
	if (rc < 0) {
		nd_eval_results_free(res, nm);
		return rc;
	}
	*out = res;
	*nout = nm;
	return ND_OK;
}

void nd_eval_results_free(nd_eval_result *r, size_t n)
{
	if (!r)
		return;
	for (size_t i = 0; i < n; i++) {
		free(r[i].curve);
		free(r[i].split_best);
		free(r[i].split_point);
	}
	free(r);
}
