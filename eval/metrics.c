/* Precision, recall, F1, Ilyinsky et al.'s alpha and beta errors, and the
 * threshold sweep, from scored pairs. */
#include "neardup/eval.h"

#include <stdlib.h>
#include <string.h>

#define CURVE_MAX 200

static int by_score_desc(const void *a, const void *b)
{
	double x = ((const nd_scored_pair *)a)->score, y = ((const nd_scored_pair *)b)->score;
	return x > y ? -1 : x < y;
}

static nd_eval_point point(double threshold, uint64_t tp, uint64_t fp, uint64_t positives)
{
	nd_eval_point p = {threshold, 0, 0, 0, 0};
	if (tp + fp)
		p.precision = (double)tp / (double)(tp + fp);
	if (positives)
		p.recall = (double)tp / (double)positives;
	if (p.precision + p.recall > 0)
		p.f1 = 2 * p.precision * p.recall / (p.precision + p.recall);
	return p;
}

int nd_eval_metrics(nd_scored_pair *pairs, size_t n, uint64_t positives, double threshold,
		    nd_eval_result *r)
{
	nd_eval_point *all = NULL;
	size_t nall = 0;
	uint64_t tp = 0, fp = 0;

	free(r->curve);
	r->curve = NULL;
	r->ncurve = 0;
	memset(&r->best, 0, sizeof(r->best));
	if (n && !(all = malloc(n * sizeof(*all))))
		return nd_error_set(ND_ENOMEM, "out of memory for a %zu-point sweep", n);
	qsort(pairs, n, sizeof(*pairs), by_score_desc);
	r->suggested = r->tp = r->fp = 0;
	for (size_t i = 0; i < n;) {
		double s = pairs[i].score;
		for (; i < n && pairs[i].score == s; i++) {
			if (pairs[i].label == 1)
				tp++;
			else
				fp++;
		}
		all[nall++] = point(s, tp, fp, positives);
		if (s >= threshold) {
			r->suggested = tp + fp;
			r->tp = tp;
			r->fp = fp;
		}
	}
	r->fn = positives > r->tp ? positives - r->tp : 0;
	nd_eval_point op = point(threshold, r->tp, r->fp, positives);
	r->precision = op.precision;
	r->recall = op.recall;
	r->f1 = op.f1;
	r->alpha = positives ? (double)r->fn / (double)positives : 0;
	r->beta = r->suggested ? (double)r->fp / (double)r->suggested : 0;
	if (nall)
		all[nall - 1].lowest = 1;
	for (size_t i = 0; i < nall; i++)
		if (all[i].f1 > r->best.f1)
			r->best = all[i];
	/* Keep at most CURVE_MAX points, evenly spaced, always the last. */
	size_t step = nall > CURVE_MAX ? (nall + CURVE_MAX - 1) / CURVE_MAX : 1, k = 0;
	for (size_t i = 0; i < nall; i++)
		if (i % step == 0 || i == nall - 1)
			all[k++] = all[i];
	r->curve = all;
	r->ncurve = k;
	return ND_OK;
}

int nd_eval_cut(const nd_eval_result *r, const nd_eval_point *p)
{
	return !r->verdict && r->floor > 0 && p->lowest && p->recall < 1;
}
