/* Choosing the descriptive set (Ilyinsky et al., made concrete in DESIGN.md).
 *
 * 1. Candidates: mid-frequency unprefixed words (stats.c).
 * 2. Instability: sampled documents are edited at random, as bags of words
 *    (relative frequency depends only on the bag): up to max_edit of their
 *    length in deletions, insertions (words drawn in proportion to their
 *    frequency in the sample) and substitutions.  For word w, each edit
 *    gives the interval [min(f0,f1), max(f0,f1)) of thresholds at which the
 *    bit [f > b] flips; Lambda_w(b) is the share of edits whose interval
 *    holds b.
 * 3. Threshold: the midpoint between observed values (or half the
 *    smallest: "w occurs") that minimises Lambda while the bit is set in
 *    neither too few sampled documents (min_sample_df) nor too many
 *    (max_above).  Ilyinsky et al. asks that "both fractions (above and below
 *    threshold) are not too small"; counted over the collection, this lets
 *    a mid-frequency word that occurs once per document be a bit.
 * 4. Greedy selection: lazily, the word whose set bits help most sample
 *    documents still short of target_bits, per unit of Lambda. */
#include "descriptor/method/stats.h"
#include "descriptor/verify/record.h"
#include "common/nd_buf.h"
#include "common/nd_hash.h"
#include "common/nd_parallel.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
	uint32_t cand;
	float lo, hi;
} flip_iv;

/* One edited copy of a sampled document.  Its word counts live in a
 * Fenwick tree over the document's own candidates followed by those the
 * edit inserted, in order of insertion: a deletion finds the k-th
 * occurrence in log time where a scan took the document's length. */
typedef struct {
	uint32_t *w;        /* edited wdf: own candidates, then extra */
	uint32_t *fw;       /* Fenwick tree over w[0, n), 1-based */
	uint32_t *extra;    /* candidate of each extra slot */
	size_t cap;         /* of w, fw, extra */
	uint32_t n;         /* slots: own candidates and room for every edit */
	uint32_t m, nextra; /* own candidates; extra slots in use */
	uint32_t fw_top;    /* highest power of two <= n */
	uint64_t sumw;      /* sum of w */
	uint32_t len;       /* edited length */
} edit_ws;

static void fw_add(edit_ws *ws, uint32_t i, int32_t d)
{
	for (uint32_t k = i + 1; k <= ws->n; k += k & -k)
		ws->fw[k] += (uint32_t)d;
	ws->sumw += d;
}

/* Index of the occurrence t (0-based, t < sum of w): the first i whose
 * running sum exceeds t, exactly what a scan from the start finds. */
static uint32_t fw_find(const edit_ws *ws, uint64_t t)
{
	uint32_t pos = 0;
	for (uint32_t step = ws->fw_top; step; step >>= 1)
		if (pos + step <= ws->n && ws->fw[pos + step] <= t) {
			pos += step;
			t -= ws->fw[pos];
		}
	return pos;
}

static int extra_add(edit_ws *ws, uint32_t cand)
{
	for (uint32_t i = 0; i < ws->nextra; i++)
		if (ws->extra[i] == cand) {
			ws->w[ws->m + i]++;
			fw_add(ws, ws->m + i, 1);
			return ND_OK;
		}
	/* simulate() sized the slots for every edit being an insertion */
	ws->extra[ws->nextra] = cand;
	ws->w[ws->m + ws->nextra] = 1;
	fw_add(ws, ws->m + ws->nextra, 1);
	ws->nextra++;
	return ND_OK;
}

/* Remove one random word occurrence. */
static void edit_delete(edit_ws *ws, nd_rng *rng)
{
	if (ws->len == 0)
		return;
	/* own candidates, then extra, then the non-candidate words */
	uint64_t t = nd_rng_below(rng, ws->len);
	if (t < ws->sumw) {
		uint32_t i = fw_find(ws, t);
		ws->w[i]--;
		fw_add(ws, i, -1);
	}
	ws->len--;
}

/* Insert a word drawn from the sample's word distribution.  cum holds
 * each sampled document's running sums of its entries' wdf. */
static int edit_insert(edit_ws *ws, const nd_sample *s, const uint64_t *prefix, const uint32_t *cum,
		       const nd_sample_ent *own, nd_rng *rng)
{
	uint64_t g = nd_rng_below(rng, s->total_len);
	uint32_t lo = 0, hi = s->n; /* last j with prefix[j] <= g */
	while (hi - lo > 1) {
		uint32_t mid = (lo + hi) / 2;
		if (prefix[mid] <= g)
			lo = mid;
		else
			hi = mid;
	}
	uint64_t t = g - prefix[lo];
	const nd_sample_doc *src = &s->docs[lo];
	const uint32_t *c = cum + src->off;
	ws->len++;
	/* first entry whose running sum exceeds t */
	uint32_t a = 0, b = src->m;
	while (a < b) {
		uint32_t mid = (a + b) / 2;
		if (c[mid] <= t)
			a = mid + 1;
		else
			b = mid;
	}
	if (a == src->m)
		return ND_OK; /* a non-candidate word */
	uint32_t cand = s->ent[src->off + a].cand;
	/* Is it one of the document's own candidates? */
	a = 0, b = ws->m;
	while (a < b) {
		uint32_t mid = (a + b) / 2;
		if (own[mid].cand < cand)
			a = mid + 1;
		else
			b = mid;
	}
	if (a < ws->m && own[a].cand == cand) {
		ws->w[a]++;
		fw_add(ws, a, 1);
		return ND_OK;
	}
	return extra_add(ws, cand);
}

/* Apply edit r of sample document j, drawn from its id: the same
 * document gets the same edits however the database is laid out. */
static int simulate(edit_ws *ws, const nd_sample *s, const uint64_t *prefix, const uint32_t *cum, uint32_t j,
		    uint32_t r, const nd_build_options *o)
{
	const nd_sample_doc *doc = &s->docs[j];
	const nd_sample_ent *own = &s->ent[doc->off];
	nd_rng rng = {nd_mix64(o->seed * 0x9e3779b97f4a7c15ULL ^ nd_mix64(s->id[j] + r))};
	uint64_t maxk = (uint64_t)floor(o->max_edit * doc->len);
	uint64_t k = 1 + nd_rng_below(&rng, maxk ? maxk : 1);
	size_t need = (size_t)doc->m + (size_t)k;

	if (need > ws->cap) {
		size_t cap = ws->cap ? ws->cap : 64;
		while (cap < need)
			cap *= 2;
		uint32_t *w = realloc(ws->w, cap * sizeof(uint32_t));
		if (w)
			ws->w = w;
		uint32_t *fw = w ? realloc(ws->fw, (cap + 1) * sizeof(uint32_t)) : NULL;
		if (fw)
			ws->fw = fw;
		uint32_t *ex = fw ? realloc(ws->extra, cap * sizeof(uint32_t)) : NULL;
		if (!ex)
			return nd_error_set(ND_ENOMEM, "out of memory");
		ws->extra = ex;
		ws->cap = cap;
	}
	/* The tree over the own counts, in linear time. */
	ws->n = (uint32_t)need;
	for (ws->fw_top = 1; ws->fw_top * 2 <= ws->n; ws->fw_top *= 2)
		;
	ws->m = doc->m;
	ws->nextra = 0;
	ws->len = doc->len;
	ws->sumw = 0;
	memset(ws->w, 0, need * sizeof(uint32_t));
	memset(ws->fw, 0, (need + 1) * sizeof(uint32_t));
	for (uint32_t i = 0; i < doc->m; i++) {
		ws->w[i] = own[i].wdf;
		ws->fw[i + 1] += own[i].wdf;
		ws->sumw += own[i].wdf;
	}
	for (uint32_t i = 1; i <= ws->n; i++) {
		uint32_t up = i + (i & -i);
		if (up <= ws->n)
			ws->fw[up] += ws->fw[i];
	}
	for (uint64_t e = 0; e < k; e++) {
		int rc = ND_OK;
		switch (nd_rng_below(&rng, 3)) {
		case 0:
			edit_delete(ws, &rng);
			break;
		case 1:
			rc = edit_insert(ws, s, prefix, cum, own, &rng);
			break;
		default:
			edit_delete(ws, &rng);
			rc = edit_insert(ws, s, prefix, cum, own, &rng);
		}
		if (rc < 0)
			return rc;
	}
	return ND_OK;
}

static void edit_ws_free(edit_ws *ws)
{
	free(ws->w);
	free(ws->fw);
	free(ws->extra);
}

static int cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;
	return x < y ? -1 : x > y;
}

/* Number of sorted values <= x. */
static size_t count_le(const float *v, size_t n, float x)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (v[mid] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

typedef struct {
	double score;
	uint32_t cand;
} heap_ent;

static int heap_less(const heap_ent *a, const heap_ent *b)
{
	/* max-heap by score, ties to the lower candidate index: deterministic */
	return a->score < b->score || (a->score == b->score && a->cand > b->cand);
}

static void heap_push(heap_ent *h, size_t *n, heap_ent e)
{
	size_t i = (*n)++;
	h[i] = e;
	while (i > 0 && heap_less(&h[(i - 1) / 2], &h[i])) {
		heap_ent t = h[i];
		h[i] = h[(i - 1) / 2];
		h[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
}

static heap_ent heap_pop(heap_ent *h, size_t *n)
{
	heap_ent top = h[0];
	h[0] = h[--(*n)];
	size_t i = 0;
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < *n && heap_less(&h[m], &h[l]))
			m = l;
		if (r < *n && heap_less(&h[m], &h[r]))
			m = r;
		if (m == i)
			break;
		heap_ent t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
	return top;
}

typedef struct {
	char *word;
	double b, lambda;
	uint32_t df;
} chosen_word;

static int cmp_chosen(const void *a, const void *b)
{
	return strcmp(((const chosen_word *)a)->word, ((const chosen_word *)b)->word);
}

static uint64_t set_version(const nd_descriptor *d)
{
	uint64_t h = 0x6e64736574ULL; /* "ndset" */
	for (uint32_t i = 0; i < d->n; i++) {
		h = nd_hash_bytes(d->words[i], strlen(d->words[i]) + 1, h);
		h = nd_hash_bytes(&d->thresholds[i], sizeof(double), h);
		if (d->weights) /* a set with equal weights keeps its version */
			h = nd_hash_bytes(&d->weights[i], sizeof(double), h);
	}
	if (d->text_keys != ND_TEXT_KEYS_ROTATED) /* nor one from before */
		h = nd_hash_bytes(&d->text_keys, sizeof(int), h);
	return nd_hash_bytes(&d->word_lengths, sizeof(int), h);
}

/* Word's ND_NEAR_WORD_N values, one a (tree, row).  With equal weights, the top
 * 16 bits of a hash: a row's minimum is each held word with equal chance,
 * and two documents agree with probability their words' Jaccard.  With
 * weight w, an exponential clock -ln(u)/w, u uniform from the hash: the
 * minimum is word i with chance w_i / sum(w), so agreement follows the
 * weighted Jaccard and a shared rare word counts for more than a shared
 * common one (1M scale corpus: recall 0.961 -> 0.977 at the same candidates
 * a document).  The clock is kept as its log2 in 1/2048 octaves over
 * [2^-24, 2^8): a document's minimum lies well inside, and values outside
 * (one in millions) clamp to the ends. */
static void near_values(uint32_t word, double weight, uint16_t *out)
{
	uint64_t h = nd_mix64(0x6e656172ULL ^ ((uint64_t)word << 20));
	for (unsigned k = 0; k < ND_NEAR_WORD_N; k++) {
		uint64_t x = nd_mix64(h + k);
		/* UINT16_MAX is a tree's "no key": values stop one short. */
		if (weight <= 0) {
			out[k] = (uint16_t)(x >> 48) == UINT16_MAX ? UINT16_MAX - 1 : (uint16_t)(x >> 48);
			continue;
		}
		double u = ((double)(x >> 11) + 0.5) * 0x1p-53;
		double q = floor((log2(-log(u) / weight) + 24.0) * 2048.0);
		out[k] = q < 0 ? 0 : q > UINT16_MAX - 1 ? UINT16_MAX - 1 : (uint16_t)q;
	}
}

#define FIND_SEED 0x6e64 /* any: the table is rebuilt on every load */

int32_t nd__descriptor_find(const nd_descriptor *d, const char *term, size_t len)
{
	/* Most terms are not in the set, and the lookups come between reads
	 * of the database that leave the table out of the cache: a filter a
	 * sixteenth of its size refuses most of them (one in eight or fewer
	 * passes), and the slot's copy of the hash most of the rest without
	 * reading a word. */
	uint64_t h = nd_hash_bytes(term, len, FIND_SEED);
	uint32_t bit = (uint32_t)(h >> 20) & (4 * d->mask + 3);
	if (!(d->filter[bit / 64] >> (bit % 64) & 1))
		return -1;
	for (uint32_t i = (uint32_t)h & d->mask;; i = (i + 1) & d->mask) {
		uint64_t e = d->slot[i];
		if (!e)
			return -1;
		if (e >> 32 != h >> 32)
			continue;
		const char *word = d->words[(uint32_t)e - 1];
		if (strnlen(word, len + 1) == len && !memcmp(word, term, len))
			return (int32_t)((uint32_t)e - 1);
	}
}

/* The lookup table of d's words: at most half full. */
static int find_table(nd_descriptor *d)
{
	uint32_t cap = 16;
	while (cap < 2 * (uint64_t)d->n)
		cap *= 2;
	free(d->slot);
	if (!(d->slot = calloc(cap + cap / 16, sizeof(*d->slot))))
		return nd_error_set(ND_ENOMEM, "out of memory");
	d->mask = cap - 1;
	d->filter = d->slot + cap;
	for (uint32_t w = 0; w < d->n; w++) {
		uint64_t h = nd_hash_bytes(d->words[w], strlen(d->words[w]), FIND_SEED);
		uint32_t i = (uint32_t)h & d->mask;
		while (d->slot[i])
			i = (i + 1) & d->mask;
		d->slot[i] = (h >> 32) << 32 | (w + 1);
		uint32_t bit = (uint32_t)(h >> 20) & (4 * d->mask + 3);
		d->filter[bit / 64] |= (uint64_t)1 << (bit % 64);
	}
	return ND_OK;
}

int nd__descriptor_finish(nd_descriptor *d, const double *weights)
{
	free(d->weights);
	free(d->near_hash);
	d->weights = NULL;
	if (!(d->near_hash = malloc(((size_t)d->n + 1) * ND_NEAR_WORD_N * sizeof(uint16_t))) ||
	    (weights && !(d->weights = malloc(((size_t)d->n + 1) * sizeof(double)))))
		return nd_error_set(ND_ENOMEM, "out of memory");
	int rc = find_table(d);
	if (rc < 0)
		return rc;
	for (uint32_t i = 0; i < d->n; i++) {
		if (weights && !nd__weight_ok(weights[i]))
			return nd_error_set(ND_EINVAL, "word '%s' has near-key weight %g", d->words[i], weights[i]);
		if (weights)
			d->weights[i] = weights[i];
		near_values(i, weights ? weights[i] : 0, d->near_hash + (size_t)i * ND_NEAR_WORD_N);
	}
	d->version = set_version(d);
	return ND_OK;
}

static int descriptor_alloc(nd_descriptor **out, uint32_t n)
{
	nd_descriptor *d = calloc(1, sizeof(*d));
	*out = NULL;
	if (!d || !(d->words = calloc(n + 1, sizeof(char *))) ||
	    !(d->thresholds = calloc(n + 1, sizeof(double))) ||
	    !(d->lambdas = calloc(n + 1, sizeof(double)))) {
		nd_descriptor_free(d);
		return nd_error_set(ND_ENOMEM, "out of memory");
	}
	d->n = n;
	d->text_keys = ND_TEXT_KEYS_MIXED; /* a new set; a stored one says */
	*out = d;
	return ND_OK;
}

void nd_descriptor_free(nd_descriptor *d)
{
	if (!d)
		return;
	if (d->words)
		for (uint32_t i = 0; i < d->n; i++)
			free(d->words[i]);
	free(d->words);
	free(d->thresholds);
	free(d->lambdas);
	free(d->weights);
	free(d->near_hash);
	free(d->slot);
	free(d);
}

uint32_t nd_descriptor_size(const nd_descriptor *d) { return d->n; }
const char *nd_descriptor_word(const nd_descriptor *d, uint32_t i) { return i < d->n ? d->words[i] : NULL; }
double nd_descriptor_threshold(const nd_descriptor *d, uint32_t i) { return i < d->n ? d->thresholds[i] : 0; }
double nd_descriptor_lambda(const nd_descriptor *d, uint32_t i) { return i < d->n ? d->lambdas[i] : 0; }
double nd_descriptor_weight(const nd_descriptor *d, uint32_t i) { return d->weights && i < d->n ? d->weights[i] : 0; }
uint64_t nd_descriptor_version(const nd_descriptor *d) { return d->version; }

int nd_descriptor_from_words(nd_descriptor **out, const char *const *words,
			     const double *thresholds, uint32_t n, int word_lengths)
{
	nd_descriptor *d;
	chosen_word *v;
	int rc;
	*out = NULL;
	if (n > ND_MAX_WORDS)
		return nd_error_set(ND_EINVAL, "a descriptive set has at most %d words, not %u", ND_MAX_WORDS, n);
	if (!(v = calloc((size_t)n + 1, sizeof(*v))))
		return nd_error_set(ND_ENOMEM, "out of memory");
	for (uint32_t i = 0; i < n; i++)
		v[i] = (chosen_word){(char *)words[i], thresholds[i], 0, 0};
	qsort(v, n, sizeof(*v), cmp_chosen);
	for (uint32_t i = 1; i < n; i++)
		if (!strcmp(v[i].word, v[i - 1].word)) {
			rc = nd_error_set(ND_EINVAL, "word '%s' appears twice in the set", v[i].word);
			free(v);
			return rc;
		}
	if ((rc = descriptor_alloc(&d, n)) < 0) {
		free(v);
		return rc;
	}
	for (uint32_t i = 0; i < n; i++) {
		if (!(d->words[i] = strdup(v[i].word))) {
			free(v);
			nd_descriptor_free(d);
			return nd_error_set(ND_ENOMEM, "out of memory");
		}
		d->thresholds[i] = v[i].b;
	}
	free(v);
	d->word_lengths = word_lengths;
	if ((rc = nd__descriptor_finish(d, NULL)) < 0) {
		nd_descriptor_free(d);
		return rc;
	}
	*out = d;
	return ND_OK;
}

/* Simulated edits of sample documents [from, to): their flip intervals,
 * per share, concatenated in share order by the caller. */
typedef struct {
	flip_iv *iv;
	size_t n, cap;
} iv_list;

typedef struct {
	const nd_sample *s;
	const uint64_t *prefix;
	const uint32_t *cum;
	const nd_build_options *o;
	iv_list *out;       /* one per share */
} sim_ctx;

static int sim_share(void *vctx, unsigned t, uint32_t from, uint32_t to)
{
	sim_ctx *x = vctx;
	const nd_sample *s = x->s;
	iv_list *out = &x->out[t];
	edit_ws ws = {0};
	int rc = ND_OK;
	for (uint32_t j = from; j < to && rc == ND_OK; j++) {
		const nd_sample_doc *doc = &s->docs[j];
		if (!doc->len)
			continue;
		for (uint32_t rr = 0; rr < x->o->edits; rr++) {
			if ((rc = simulate(&ws, s, x->prefix, x->cum, j, rr, x->o)) < 0)
				break;
			void *p = out->iv;
			if ((rc = nd_array_reserve(&p, &out->cap, out->n + doc->m + ws.nextra, sizeof(flip_iv))) < 0)
				break;
			out->iv = p;
			for (uint32_t i = 0; i < doc->m; i++) {
				float a = (float)s->ent[doc->off + i].wdf / (float)doc->len;
				float c = ws.len ? (float)ws.w[i] / (float)ws.len : 0.0f;
				if (a != c)
					out->iv[out->n++] = (flip_iv){s->ent[doc->off + i].cand, a < c ? a : c, a < c ? c : a};
			}
			for (size_t i = 0; i < ws.nextra; i++)
				if (ws.w[ws.m + i] && ws.len)
					out->iv[out->n++] = (flip_iv){ws.extra[i], 0.0f,
								      (float)ws.w[ws.m + i] / (float)ws.len};
		}
	}
	edit_ws_free(&ws);
	return rc;
}

/* Threshold, Lambda (-1: no feasible threshold) and initial gain of
 * candidates [from, to).  Each sorts only its own slices of los and his. */
typedef struct {
	const nd_build_options *o;
	const uint32_t *ent_start, *iv_start;
	const float *f0;
	float *los, *his;
	double nonempty, trials;
	double *b, *lam;
	uint32_t *gain;
} thr_ctx;

static int thr_share(void *vctx, unsigned t, uint32_t from, uint32_t to)
{
	thr_ctx *x = vctx;
	const nd_build_options *o = x->o;
	float *vals = NULL;
	size_t vals_cap = 0;
	int rc = ND_OK;
	(void)t;
	for (uint32_t c = from; c < to; c++) {
		uint32_t e0 = x->ent_start[c], e1 = x->ent_start[c + 1], m = e1 - e0;
		x->lam[c] = -1;
		x->gain[c] = 0;
		if (m < o->min_sample_df)
			continue;
		void *p = vals;
		if ((rc = nd_array_reserve(&p, &vals_cap, m, sizeof(float))) < 0)
			break;
		vals = p;
		memcpy(vals, x->f0 + e0, m * sizeof(float));
		qsort(vals, m, sizeof(float), cmp_float);
		float *lo = x->los + x->iv_start[c], *hi = x->his + x->iv_start[c];
		size_t nv = x->iv_start[c + 1] - x->iv_start[c];
		qsort(lo, nv, sizeof(float), cmp_float);
		qsort(hi, nv, sizeof(float), cmp_float);
		double best = -1, best_above = 0, best_b = 0;
		/* i = -1: between 0 and the smallest value, i.e. "w occurs". */
		for (int64_t i = -1; i + 1 < (int64_t)m; i++) {
			if (i >= 0 && vals[i] == vals[i + 1])
				continue;
			double above = (double)(m - (i + 1));
			if (above < o->min_sample_df || above > o->max_above * x->nonempty)
				continue;
			float th = i < 0 ? vals[0] / 2 : (vals[i] + vals[i + 1]) / 2;
			double flips = (double)(count_le(lo, nv, th) - count_le(hi, nv, th));
			/* Ties go to the threshold that sets more bits: more coverage. */
			if (best < 0 || flips < best || (flips == best && above > best_above)) {
				best = flips;
				best_above = above;
				best_b = th;
			}
		}
		if (best < 0)
			continue;
		x->b[c] = best_b;
		x->lam[c] = best / x->trials;
		for (uint32_t i = e0; i < e1; i++)
			x->gain[c] += x->f0[i] > (float)x->b[c];
	}
	free(vals);
	return rc;
}

/* Coverage and key changes of the chosen set over sample documents
 * [from, to); sums, so the order of shares does not matter. */
typedef struct {
	uint64_t covered, bits, changed, edited;
} cov_counts;

typedef struct {
	const nd_sample *s;
	const uint64_t *prefix;
	const uint32_t *cum;
	const nd_build_options *o;
	const int32_t *chosen_of;
	const nd_descriptor *d;
	cov_counts *out;    /* one per share */
} cov_ctx;

static int cov_share(void *vctx, unsigned t, uint32_t from, uint32_t to)
{
	cov_ctx *x = vctx;
	const nd_sample *s = x->s;
	cov_counts *n = &x->out[t];
	nd_sig s0 = ND_SIG_INIT, s1 = ND_SIG_INIT;
	edit_ws ws = {0};
	int rc = ND_OK;
	for (uint32_t j = from; j < to; j++) {
		const nd_sample_doc *doc = &s->docs[j];
		s0.nbits = 0;
		for (uint32_t i = 0; i < doc->m; i++) {
			const nd_sample_ent *e = &s->ent[doc->off + i];
			int32_t w = x->chosen_of[e->cand];
			if (w >= 0 && nd_bit_above(e->wdf, doc->len, x->d->thresholds[w]) &&
			    (rc = nd_sig_push(&s0, (uint16_t)w)) < 0)
				goto out;
		}
		n->bits += s0.nbits;
		if (s0.nbits < ND_MIN_BITS)
			continue;
		n->covered++;
		/* Bits were pushed in candidate order = word order: sorted. */
		uint64_t key0 = nd_sig_key(s0.bits, s0.nbits);
		for (uint32_t rr = 0; rr < x->o->edits; rr++) {
			if ((rc = simulate(&ws, s, x->prefix, x->cum, j, rr, x->o)) < 0)
				goto out;
			s1.nbits = 0;
			for (uint32_t i = 0; i < doc->m; i++) {
				int32_t w = x->chosen_of[s->ent[doc->off + i].cand];
				if (w >= 0 && nd_bit_above(ws.w[i], ws.len, x->d->thresholds[w]) &&
				    (rc = nd_sig_push(&s1, (uint16_t)w)) < 0)
					goto out;
			}
			for (size_t i = 0; i < ws.nextra; i++) {
				int32_t w = x->chosen_of[ws.extra[i]];
				if (w >= 0 && nd_bit_above(ws.w[ws.m + i], ws.len, x->d->thresholds[w]) &&
				    (rc = nd_sig_push(&s1, (uint16_t)w)) < 0)
					goto out;
			}
			/* Extras are unsorted: the key must not depend on order. */
			qsort(s1.bits, s1.nbits, sizeof(uint16_t), nd__cmp_u16);
			n->edited++;
			n->changed += nd_sig_key(s1.bits, s1.nbits) != key0;
		}
	}
out:
	nd_sig_clear(&s0);
	nd_sig_clear(&s1);
	edit_ws_free(&ws);
	return rc;
}

/* What the phases of nd_descriptor_build share. */
typedef struct {
	nd_build_options o;
	unsigned jobs;
	nd_candidates cands;
	nd_sample s;
	uint64_t *prefix;      /* prefix sums of the sample's lengths */
	uint32_t *cum;         /* running wdf sums within each sampled document */
	/* Grouped by candidate (counting sort): flip intervals [los, his)
	 * from iv_start, and sample entries (document, relative frequency)
	 * from ent_start. */
	uint32_t *iv_start, *ent_start, *ent_doc;
	float *f0, *los, *his;
	double *b, *lam;       /* per candidate: threshold, Lambda */
	uint32_t *gains;       /* per candidate: sample documents its bit sets */
	double eps;            /* one edit's share: keeps scores finite */
} build_state;

static void build_state_free(build_state *bs)
{
	free(bs->prefix);
	free(bs->cum);
	free(bs->iv_start);
	free(bs->ent_start);
	free(bs->ent_doc);
	free(bs->f0);
	free(bs->los);
	free(bs->his);
	free(bs->b);
	free(bs->lam);
	free(bs->gains);
	nd_sample_free(&bs->s);
	nd_candidates_free(&bs->cands);
}

/* 1. Candidate words and the document sample. */
static int collect(build_state *bs, nd_xdb *db, nd_build_report *rep)
{
	uint64_t prefixed = 0;
	int rc;
	if ((rc = nd_xdb_doccount(db, &rep->doccount)) < 0 || (rc = nd_xdb_prefixed_wdf(db, &prefixed)) < 0)
		return rc;
	rep->word_lengths = prefixed > 0;
	/* The words it chooses from are in min_df documents or more and in at
	 * most max_df_frac of them: a small collection has none. */
	double lo_f = bs->o.min_df_frac * rep->doccount;
	double lo = bs->o.min_df > lo_f ? bs->o.min_df : lo_f;
	int too_few = bs->o.max_df_frac * rep->doccount < lo;
	if (too_few)
		rep->min_docs = (uint32_t)ceil(lo / bs->o.max_df_frac);
	if (rep->doccount < 2)
		return nd_error_set(ND_ESTATE, "%s: %u document%s; a descriptive set is chosen from the "
				    "statistics of a collection (index more documents first: neardup index "
				    "--db %s INPUT...)", nd_xdb_path(db), rep->doccount, rep->doccount == 1 ? "" : "s",
				    nd_xdb_path(db));
	if ((rc = nd_candidates_collect(&bs->cands, db, &bs->o, rep->doccount)) < 0)
		return rc;
	rep->candidates = bs->cands.n;
	if (bs->cands.n == 0 && bs->cands.words == 0)
		return nd_error_set(ND_ESTATE, "%s: no word terms (terms that start with no capital "
				    "letter): nothing to choose a descriptive set from", nd_xdb_path(db));
	if (bs->cands.n == 0)
		return ND_OK; /* the empty set (nd_descriptor_build) */
	if ((rc = nd_sample_collect(&bs->s, db, &bs->cands, rep->word_lengths, bs->o.sample_docs, bs->o.seed)) < 0)
		return rc;
	rep->sample_docs = bs->s.n;
	if (bs->s.total_len == 0)
		return nd_error_set(ND_ESTATE, "%s: sampled documents have no words", nd_xdb_path(db));
	/* Prefix sums of lengths: insertions draw words by frequency. */
	if (!(bs->prefix = malloc((bs->s.n + 1) * sizeof(*bs->prefix))))
		return nd_error_set(ND_ENOMEM, "out of memory");
	bs->prefix[0] = 0;
	for (uint32_t j = 0; j < bs->s.n; j++)
		bs->prefix[j + 1] = bs->prefix[j] + bs->s.docs[j].len;
	if (!(bs->cum = malloc((bs->s.nent + 1) * sizeof(*bs->cum))))
		return nd_error_set(ND_ENOMEM, "out of memory");
	for (uint32_t j = 0; j < bs->s.n; j++) {
		uint32_t sum = 0;
		for (uint32_t i = 0; i < bs->s.docs[j].m; i++) {
			sum += bs->s.ent[bs->s.docs[j].off + i].wdf;
			bs->cum[bs->s.docs[j].off + i] = sum;
		}
	}
	return ND_OK;
}

/* 2. Flip intervals from simulated edits, by shares of the sample, then
 * grouped with the sample's entries by candidate. */
static int simulate_edits(build_state *bs)
{
	const nd_sample *s = &bs->s;
	uint32_t nc = bs->cands.n;
	sim_ctx sim = {0};
	flip_iv *iv = NULL;
	size_t niv = 0;
	int rc;

	sim.s = s;
	sim.prefix = bs->prefix;
	sim.cum = bs->cum;
	sim.o = &bs->o;
	if (!(sim.out = calloc(bs->jobs, sizeof(*sim.out))))
		return nd_error_set(ND_ENOMEM, "out of memory");
	rc = nd_parallel_shares(bs->jobs, s->n, sim_share, &sim);
	for (unsigned t = 0; t < bs->jobs; t++)
		niv += sim.out[t].n;
	if (rc == ND_OK && !(iv = malloc((niv + 1) * sizeof(*iv))))
		rc = nd_error_set(ND_ENOMEM, "out of memory");
	for (size_t t = 0, at = 0; t < bs->jobs; t++) {
		if (rc == ND_OK)
			memcpy(iv + at, sim.out[t].iv, sim.out[t].n * sizeof(*iv));
		at += sim.out[t].n;
		free(sim.out[t].iv);
	}
	free(sim.out);
	if (rc < 0)
		return rc;

	uint32_t *fill = NULL;
	if (!(bs->iv_start = calloc(nc + 1, sizeof(uint32_t))) || !(bs->ent_start = calloc(nc + 1, sizeof(uint32_t))) ||
	    !(bs->ent_doc = malloc((s->nent + 1) * sizeof(uint32_t))) ||
	    !(bs->f0 = malloc((s->nent + 1) * sizeof(float))) || !(bs->los = malloc((niv + 1) * sizeof(float))) ||
	    !(bs->his = malloc((niv + 1) * sizeof(float))) || !(fill = calloc(nc + 1, sizeof(uint32_t)))) {
		free(iv);
		return nd_error_set(ND_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < niv; i++)
		bs->iv_start[iv[i].cand + 1]++;
	for (size_t i = 0; i < s->nent; i++)
		bs->ent_start[s->ent[i].cand + 1]++;
	for (uint32_t c = 0; c < nc; c++) {
		bs->iv_start[c + 1] += bs->iv_start[c];
		bs->ent_start[c + 1] += bs->ent_start[c];
	}
	for (size_t i = 0; i < niv; i++) {
		uint32_t at = bs->iv_start[iv[i].cand] + fill[iv[i].cand]++;
		bs->los[at] = iv[i].lo;
		bs->his[at] = iv[i].hi;
	}
	memset(fill, 0, (nc + 1) * sizeof(uint32_t));
	for (uint32_t j = 0; j < s->n; j++)
		for (uint32_t i = 0; i < s->docs[j].m; i++) {
			const nd_sample_ent *e = &s->ent[s->docs[j].off + i];
			uint32_t at = bs->ent_start[e->cand] + fill[e->cand]++;
			bs->ent_doc[at] = j;
			bs->f0[at] = (float)((double)e->wdf / s->docs[j].len);
		}
	free(fill);
	free(iv);
	return ND_OK;
}

/* 3. Threshold and Lambda per candidate, by shares of the candidates. */
static int rate(build_state *bs, nd_build_report *rep)
{
	uint32_t nc = bs->cands.n;
	double trials = 0, nonempty = 0;
	if (!(bs->b = calloc(nc, sizeof(double))) || !(bs->lam = calloc(nc, sizeof(double))) ||
	    !(bs->gains = calloc(nc, sizeof(uint32_t))))
		return nd_error_set(ND_ENOMEM, "out of memory");
	for (uint32_t j = 0; j < bs->s.n; j++)
		if (bs->s.docs[j].len) {
			trials += bs->o.edits;
			nonempty++;
		}
	bs->eps = 1.0 / trials;
	thr_ctx th = {&bs->o, bs->ent_start, bs->iv_start, bs->f0, bs->los, bs->his, nonempty, trials,
		      bs->b, bs->lam, bs->gains};
	int rc = nd_parallel_shares(bs->jobs, nc, thr_share, &th);
	for (uint32_t c = 0; rc == ND_OK && c < nc; c++)
		rep->rated += bs->lam[c] >= 0;
	return rc;
}

/* 4. Lazy greedy selection (gains only fall as documents fill up): the
 * words chosen, in the order chosen, into chosen[0..*nchosen). */
static int choose(build_state *bs, chosen_word *chosen, uint32_t *nchosen)
{
	uint32_t nc = bs->cands.n;
	heap_ent *heap = malloc((nc + 1) * sizeof(heap_ent));
	uint32_t *bitcount = calloc(bs->s.n + 1, sizeof(uint32_t));
	size_t nheap = 0;
	*nchosen = 0;
	if (!heap || !bitcount) {
		free(heap);
		free(bitcount);
		return nd_error_set(ND_ENOMEM, "out of memory");
	}
	for (uint32_t c = 0; c < nc; c++) /* seeded in candidate order */
		if (bs->gains[c])
			heap_push(heap, &nheap, (heap_ent){bs->gains[c] / (bs->lam[c] + bs->eps), c});
	while (nheap && *nchosen < bs->o.words) {
		heap_ent top = heap_pop(heap, &nheap);
		uint32_t c = top.cand, gain = 0;
		for (uint32_t i = bs->ent_start[c]; i < bs->ent_start[c + 1]; i++)
			if (bs->f0[i] > (float)bs->b[c] && bitcount[bs->ent_doc[i]] < bs->o.target_bits)
				gain++;
		if (!gain)
			continue;
		double score = gain / (bs->lam[c] + bs->eps);
		if (nheap && score < heap[0].score) {
			heap_push(heap, &nheap, (heap_ent){score, c});
			continue;
		}
		for (uint32_t i = bs->ent_start[c]; i < bs->ent_start[c + 1]; i++)
			if (bs->f0[i] > (float)bs->b[c])
				bitcount[bs->ent_doc[i]]++;
		chosen[(*nchosen)++] = (chosen_word){bs->cands.terms[c], bs->b[c], bs->lam[c], bs->cands.df[c]};
	}
	free(heap);
	free(bitcount);
	return ND_OK;
}

/* The set from the chosen words, sorted by word; chosen_of[candidate]
 * gets each chosen word's index in it. */
static int make_set(build_state *bs, chosen_word *chosen, uint32_t nchosen, int32_t *chosen_of,
		    nd_descriptor **out, nd_build_report *rep)
{
	nd_descriptor *d;
	double log_keep = 0, *weight;
	int rc;
	qsort(chosen, nchosen, sizeof(*chosen), cmp_chosen);
	if ((rc = descriptor_alloc(&d, nchosen)) < 0)
		return rc;
	if (!(weight = malloc(((size_t)nchosen + 1) * sizeof(double)))) {
		nd_descriptor_free(d);
		return nd_error_set(ND_ENOMEM, "out of memory");
	}
	for (uint32_t i = 0; i < nchosen; i++) {
		if (!(d->words[i] = strdup(chosen[i].word))) {
			free(weight);
			nd_descriptor_free(d);
			return nd_error_set(ND_ENOMEM, "out of memory");
		}
		d->thresholds[i] = chosen[i].b;
		d->lambdas[i] = chosen[i].lambda;
		/* Frozen with the set (the corpus's df moves on; keys must not). */
		weight[i] = log1p((double)rep->doccount / (chosen[i].df ? chosen[i].df : 1));
		log_keep += log1p(-fmin(chosen[i].lambda, 0.999999));
		chosen_of[nd_candidates_find(&bs->cands, chosen[i].word, strlen(chosen[i].word))] = (int32_t)i;
	}
	d->word_lengths = rep->word_lengths;
	rc = nd__descriptor_finish(d, weight);
	free(weight);
	if (rc < 0) {
		nd_descriptor_free(d);
		return rc;
	}
	rep->p_change = -expm1(log_keep);
	*out = d;
	return ND_OK;
}

/* Coverage, bits per document and the measured key change rate of the
 * set on the sample, with the same bit test as signing. */
static int measure(build_state *bs, const int32_t *chosen_of, const nd_descriptor *d, nd_build_report *rep)
{
	cov_ctx cv = {&bs->s, bs->prefix, bs->cum, &bs->o, chosen_of, d, NULL};
	uint64_t covered = 0, bits_total = 0, changed = 0, edited = 0;
	if (!(cv.out = calloc(bs->jobs, sizeof(*cv.out))))
		return nd_error_set(ND_ENOMEM, "out of memory");
	int rc = nd_parallel_shares(bs->jobs, bs->s.n, cov_share, &cv);
	for (unsigned t = 0; t < bs->jobs; t++) {
		covered += cv.out[t].covered;
		bits_total += cv.out[t].bits;
		changed += cv.out[t].changed;
		edited += cv.out[t].edited;
	}
	free(cv.out);
	if (rc < 0)
		return rc;
	rep->coverage = bs->s.n ? (double)covered / bs->s.n : 0;
	rep->mean_bits = bs->s.n ? (double)bits_total / bs->s.n : 0;
	rep->key_change = edited ? (double)changed / edited : 0;
	return ND_OK;
}

int nd_descriptor_build(nd_descriptor **out, nd_xdb *db, const nd_build_options *opts,
			nd_build_report *rep)
{
	build_state bs = {0};
	nd_build_report r;
	chosen_word *chosen = NULL;
	int32_t *chosen_of = NULL;
	uint32_t nchosen = 0;
	nd_descriptor *d = NULL;
	struct timespec t0, t1;
	int rc;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	*out = NULL;
	bs.o = opts ? *opts : (nd_build_options)ND_BUILD_OPTIONS_INIT;
	if (!rep)
		rep = &r;
	memset(rep, 0, sizeof(*rep));
	const nd_build_options *o = &bs.o;
	if (o->words == 0 || o->words > ND_MAX_WORDS || o->sample_docs == 0 || o->edits == 0 ||
	    !(o->max_edit > 0 && o->max_edit <= 0.5) || !(o->max_above > 0 && o->max_above <= 1) ||
	    o->target_bits < ND_MIN_BITS || !(o->word_share > 0 && o->word_share <= 1))
		return nd_error_set(ND_EINVAL, "descriptor options out of range");
	bs.jobs = o->jobs == 0 ? 1 : o->jobs > ND_SIGN_MAX_JOBS ? ND_SIGN_MAX_JOBS : o->jobs;

#define STEP(k, what) (o->progress ? o->progress((k), 5, (what), o->ctx) : (void)0)
	STEP(0, "candidate words and the sample");
	if ((rc = collect(&bs, db, rep)) < 0)
		goto cleanup;
	/* No word to choose from: too few documents, or every word in most of
	 * them (a collection of copies of one text).  The empty set keys no
	 * document, and every one finds its duplicates by its text's
	 * near-neighbour keys until a build on a grown collection. */
	if (bs.cands.n == 0) {
		if ((rc = descriptor_alloc(&d, 0)) < 0)
			goto cleanup;
		d->word_lengths = rep->word_lengths;
		if ((rc = nd__descriptor_finish(d, NULL)) < 0)
			goto cleanup;
		goto done;
	}
	STEP(1, "simulated edits");
	if ((rc = simulate_edits(&bs)) < 0)
		goto cleanup;
	STEP(2, "thresholds");
	if ((rc = rate(&bs, rep)) < 0)
		goto cleanup;
	STEP(3, "choosing words");
	if (!(chosen = calloc(o->words, sizeof(*chosen))) || !(chosen_of = malloc(bs.cands.n * sizeof(int32_t)))) {
		rc = nd_error_set(ND_ENOMEM, "out of memory");
		goto cleanup;
	}
	for (uint32_t c = 0; c < bs.cands.n; c++)
		chosen_of[c] = -1;
	if ((rc = choose(&bs, chosen, &nchosen)) < 0)
		goto cleanup;
	rep->chosen = nchosen;
	STEP(4, "measuring the set");
	if ((rc = make_set(&bs, chosen, nchosen, chosen_of, &d, rep)) < 0 ||
	    (rc = measure(&bs, chosen_of, d, rep)) < 0)
		goto cleanup;
#undef STEP
done:
	*out = d;
	d = NULL;
cleanup:
	clock_gettime(CLOCK_MONOTONIC, &t1);
	rep->seconds = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	nd_descriptor_free(d);
	free(chosen);
	free(chosen_of);
	build_state_free(&bs);
	return rc;
}
