/* The verdict over records: what two documents share, each shingle
 * weighed by how much of the collection holds it (common.c, record.h).
 * A weight of min(1, ND_COMMON_CAP / groups) held one threshold across
 * documentation with shared sections, a copied family and the scale
 * corpus, where document frequency, own-text cut-offs and uncapped
 * weights did not (DESIGN.md, "Third stage"); then what refuses a pair
 * all the same (values, renames, signatures). */
#include "descriptor/verify/common.h"
#include "descriptor/verify/verify_internal.h"

#include <stdlib.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) || defined(__i386__)
#include <tmmintrin.h>
#define HAVE_SSSE3_TARGET 1
#endif
#include <math.h>
#include <string.h>

/* ---- two records ---- */

/* Clamped as a weighed record keeps it, so that a pass over weighed
 * records and a hook over one record weigh alike. */
static inline uint32_t groups_of(const nd__rec *r, uint32_t k, const nd__common *common)
{
	if (r->groups)
		return r->groups[k];
	uint32_t g = nd__common_lookup(common, r->sample[k]);
	return g > UINT16_MAX ? UINT16_MAX : g;
}

/* g at most UINT16_MAX (groups_of's), cap one of the two; only with a
 * table (common_new). */
static inline double weight(uint32_t g, uint32_t cap)
{
	return nd__common_quotient[cap != ND_COMMON_CAP][g];
}

void nd__rec_weights(const nd__rec *r, uint32_t n, const nd__common *common, double *w, double *ws)
{
	uint32_t k = 0;
	*w = *ws = n;
	if (!nd__common_size(common))
		return;
	/* Not weighed, and the filter says of every shingle that it is not
	 * common (most records, against a small table): one a shingle, as
	 * the loop would sum them, without a lookup each. */
	if (!r->groups && common->filter) {
		uint64_t hit = 0;
		for (uint32_t i = 0; i < n; i++)
			hit |= !nd__common_rare(common, r->sample[i]);
		if (!hit)
			return;
	}
	*w = *ws = 0;
	if (r->cum && n >= ND_REC_CUM_STEP) {
		/* The sums as the loop below had them there: the same result. */
		k = n / ND_REC_CUM_STEP * ND_REC_CUM_STEP;
		*w = r->cum[2 * (k / ND_REC_CUM_STEP - 1)], *ws = r->cum[2 * (k / ND_REC_CUM_STEP - 1) + 1];
	}
	for (; k < n; k++) {
		if (!r->groups) /* looked up, not kept: asked for ahead */
			nd__common_prefetch(common, r->sample, k, n);
		uint32_t g = groups_of(r, k, common);
		*w += weight(g, ND_COMMON_CAP), *ws += weight(g, ND_STORY_COMMON_CAP);
	}
}

void nd__rec_cum(nd__rec *r, const nd__common *common, double *cum)
{
	double w = 0, ws = 0;
	for (uint32_t k = 0; k < r->nsample; k++) {
		uint32_t g = groups_of(r, k, common);
		w += weight(g, ND_COMMON_CAP), ws += weight(g, ND_STORY_COMMON_CAP);
		if ((k + 1) % ND_REC_CUM_STEP == 0)
			cum[2 * (k / ND_REC_CUM_STEP)] = w, cum[2 * (k / ND_REC_CUM_STEP) + 1] = ws;
	}
	r->wsum = w, r->ssum = ws;
}

/* Sums of r's weights over its first n samples (copy's, story's). */
static void weights_of(const nd__rec *r, uint32_t n, const nd__common *common, double *w, double *ws)
{
	if (r->groups && n == r->nsample && nd__common_size(common))
		*w = r->wsum, *ws = r->ssum; /* weighed once for the pass, summed alike */
	else
		nd__rec_weights(r, n, common, w, ws);
}

/* ---- bounds by bucket ----
 *
 * Most candidate pairs share little, yet a bounded merge reads about half
 * of both samples before its floors are out of reach (the passages rule's
 * plain floor keeps it going), and the second record is a cache miss.
 * The buckets bound what a merge could find from 448 bytes a record: the
 * levels round a bucket's weight up, and what the top levels leave out is
 * added back as the smaller of the two records' totals.  A pair whose
 * bound misses every floor is refused as the merge would refuse it. */

#define WLEVELS 16
/* Copy weight levels, hundredths (a shingle weighs 1, or 3/groups). */
static const uint8_t wlevel[WLEVELS] = {0, 2, 4, 7, 10, 15, 20, 30, 45, 60, 80, 100, 125, 160, 200, 200};
#define WTOP 2.0 /* wlevel[WLEVELS - 1] / 100 */
#define NTOP 3   /* two bits of count */
#define CUTS_AT (ND_REC_BUCKETS / 2 + ND_REC_BUCKETS / 4)
#define CUT_SCALE 65536.0 /* a cut's weight in fixed point */

int nd__rec_buckets_simd = 1;

void nd__rec_buckets(nd__rec *r, const nd__common *common, uint8_t *out)
{
	double w[ND_REC_BUCKETS];
	uint16_t n[ND_REC_BUCKETS];
	/* Only the buckets the sample reaches are read or written. */
	for (uint32_t k = 0; k < r->nsample; k++)
		w[r->sample[k] % ND_REC_BUCKETS] = 0, n[r->sample[k] % ND_REC_BUCKETS] = 0;
	for (uint32_t k = 0; k < r->nsample; k++) {
		uint32_t b = r->sample[k] % ND_REC_BUCKETS;
		w[b] += weight(groups_of(r, k, common), ND_COMMON_CAP);
		n[b]++;
	}
	memset(out, 0, ND_REC_BUCKET_BYTES);
	r->bucket_wx = 0, r->bucket_nx = 0;
	for (uint32_t k = 0; k < r->nsample; k++) {
		uint32_t b = r->sample[k] % ND_REC_BUCKETS;
		if (!n[b])
			continue; /* done */
		uint8_t c = 0; /* the first level at or above: the levels under it, counted without a branch */
		for (int l = 0; l < WLEVELS - 1; l++)
			c += w[b] * 100 > wlevel[l];
		if (w[b] > WTOP)
			r->bucket_wx += w[b] - WTOP;
		out[b % (ND_REC_BUCKETS / 2)] |= (uint8_t)(c << 4 * (b / (ND_REC_BUCKETS / 2)));
		uint32_t m = n[b] < NTOP ? n[b] : NTOP;
		r->bucket_nx += n[b] - m;
		out[ND_REC_BUCKETS / 2 + b % (ND_REC_BUCKETS / 4)] |= (uint8_t)(m << 2 * (b / (ND_REC_BUCKETS / 4)));
		n[b] = 0;
	}
	/* The cuts: the checkpoints' copy weights (nd__rec_cum), with the
	 * hash each ends at. */
	uint8_t *cuts = out + CUTS_AT;
	for (uint32_t c = 0; c < ND_REC_BUCKET_CUTS; c++) {
		uint32_t end = ND_REC_CUM_STEP * (c + 1), q = UINT32_MAX, fixed = 0;
		if (end <= r->nsample) {
			q = r->sample[end - 1];
			double f = r->cum[2 * c] * CUT_SCALE; /* truncated: rounded down */
			fixed = f < UINT32_MAX ? (uint32_t)f : UINT32_MAX;
		}
		memcpy(cuts + 4 * c, &q, 4);
		memcpy(cuts + 4 * (ND_REC_BUCKET_CUTS + c), &fixed, 4);
	}
}

void nd__rec_cut_least(const nd__rec *r, uint32_t t, uint32_t *n, double *w)
{
	const uint8_t *cuts = r->buckets + CUTS_AT;
	*n = 0, *w = 0;
	if (r->thr <= t) {
		*n = r->nsample, *w = r->wsum; /* not cut */
		return;
	}
	for (uint32_t c = 0; c < ND_REC_BUCKET_CUTS; c++) {
		uint32_t q, fixed;
		memcpy(&q, cuts + 4 * c, 4);
		if (q > t)
			break;
		memcpy(&fixed, cuts + 4 * (ND_REC_BUCKET_CUTS + c), 4);
		*n = ND_REC_CUM_STEP * (c + 1), *w = fixed / CUT_SCALE;
	}
}

/* Sums over buckets of the smaller level, weight (hundredths) and count. */
static void bucket_sums_portable(const uint8_t *a, const uint8_t *b, uint32_t *w, uint32_t *n)
{
	*w = *n = 0;
	for (uint32_t k = 0; k < ND_REC_BUCKETS / 2; k++)
		for (int h = 0; h < 8; h += 4) {
			uint32_t x = a[k] >> h & 15, y = b[k] >> h & 15;
			*w += wlevel[x < y ? x : y];
		}
	for (uint32_t k = ND_REC_BUCKETS / 2; k < CUTS_AT; k++)
		for (int h = 0; h < 8; h += 2) {
			uint32_t x = a[k] >> h & 3, y = b[k] >> h & 3;
			*n += x < y ? x : y;
		}
}

#if defined(HAVE_SSSE3_TARGET)
__attribute__((target("ssse3"))) static void bucket_sums_ssse3(const uint8_t *a, const uint8_t *b, uint32_t *w,
							       uint32_t *n)
{
	const __m128i lut = _mm_loadu_si128((const __m128i *)wlevel), zero = _mm_setzero_si128();
	const __m128i m4 = _mm_set1_epi8(15), m2 = _mm_set1_epi8(3);
	__m128i sw = zero, sn = zero;
	for (int k = 0; k < ND_REC_BUCKETS / 2; k += 16) {
		__m128i x = _mm_loadu_si128((const __m128i *)(a + k)), y = _mm_loadu_si128((const __m128i *)(b + k));
		__m128i lo = _mm_min_epu8(_mm_and_si128(x, m4), _mm_and_si128(y, m4));
		__m128i hi = _mm_min_epu8(_mm_and_si128(_mm_srli_epi16(x, 4), m4), _mm_and_si128(_mm_srli_epi16(y, 4), m4));
		sw = _mm_add_epi64(sw, _mm_sad_epu8(_mm_shuffle_epi8(lut, lo), zero));
		sw = _mm_add_epi64(sw, _mm_sad_epu8(_mm_shuffle_epi8(lut, hi), zero));
	}
	for (int k = ND_REC_BUCKETS / 2; k < CUTS_AT; k += 16) {
		__m128i x = _mm_loadu_si128((const __m128i *)(a + k)), y = _mm_loadu_si128((const __m128i *)(b + k));
		__m128i m = _mm_min_epu8(_mm_and_si128(x, m2), _mm_and_si128(y, m2));
		m = _mm_add_epi8(m, _mm_min_epu8(_mm_and_si128(_mm_srli_epi16(x, 2), m2), _mm_and_si128(_mm_srli_epi16(y, 2), m2)));
		m = _mm_add_epi8(m, _mm_min_epu8(_mm_and_si128(_mm_srli_epi16(x, 4), m2), _mm_and_si128(_mm_srli_epi16(y, 4), m2)));
		m = _mm_add_epi8(m, _mm_min_epu8(_mm_and_si128(_mm_srli_epi16(x, 6), m2), _mm_and_si128(_mm_srli_epi16(y, 6), m2)));
		sn = _mm_add_epi64(sn, _mm_sad_epu8(m, zero));
	}
	*w = (uint32_t)(_mm_cvtsi128_si64(sw) + _mm_cvtsi128_si64(_mm_unpackhi_epi64(sw, sw)));
	*n = (uint32_t)(_mm_cvtsi128_si64(sn) + _mm_cvtsi128_si64(_mm_unpackhi_epi64(sn, sn)));
}
#endif

void nd__rec_bucket_bounds(const nd__rec *a, const nd__rec *b, double *weight, uint32_t *count)
{
	uint32_t w, n;
#if defined(HAVE_SSSE3_TARGET)
	static int ssse3 = -1; /* read and written atomically: threads may ask at once */
	int have = __atomic_load_n(&ssse3, __ATOMIC_RELAXED);
	if (have < 0) {
		have = __builtin_cpu_supports("ssse3") != 0;
		__atomic_store_n(&ssse3, have, __ATOMIC_RELAXED);
	}
	if (have && nd__rec_buckets_simd)
		bucket_sums_ssse3(a->buckets, b->buckets, &w, &n);
	else
#endif
		bucket_sums_portable(a->buckets, b->buckets, &w, &n);
	/* Rounding slack: the levels are compared with sums in another order. */
	*weight = w / 100.0 + (a->bucket_wx < b->bucket_wx ? a->bucket_wx : b->bucket_wx) + 1e-6;
	*count = n + (a->bucket_nx < b->bucket_nx ? a->bucket_nx : b->bucket_nx);
}

/* The copy weight of r's first samples, rounded down to a checkpoint
 * (a lower bound of the first i's; 0 without checkpoints). */
static inline double weight_before(const nd__rec *r, uint32_t i)
{
	return r->cum && i >= ND_REC_CUM_STEP ? r->cum[2 * (i / ND_REC_CUM_STEP - 1)] : 0;
}

/* Merge steps between checks of whether a bounded merge can still reach
 * its floor. */
#define BOUND_EVERY 16

/* A bounded merge's state, and whether its floors are out of reach:
 * what is left to share is at most one a shingle, and at most the weight
 * either side has left.  A side not weighed yet (lazy) is summed as the
 * merge passes it: it weighs at least that, or what the pair shares so
 * far if more, and every shingle the pair may still share besides (those
 * lie beyond what was passed). */
typedef struct {
	uint32_t na, nb;
	double wsa, wsb;
	int lazy_a, lazy_b; /* wsa, wsb only summed so far */
	uint32_t done_a, done_b; /* a lazy side's samples summed in wsa, wsb */
	double res_floor, cont_floor;
	int passages;
	const nd__common *common;
} merge_bound;

/* Whether a pair that shares at most weight most, rest of it still to
 * come, and nmost samples misses every floor (each test only more likely
 * as a side's weight grows, and the shares still to come weigh on a lazy
 * side too: so a lazy side's partial sum, or what is shared so far, plus
 * rest, is a bound). */
static int floors_missed(const merge_bound *m, double most, double rest, double nmost)
{
	double wsa = m->lazy_a ? fmax(m->wsa + rest, most) : m->wsa;
	double wsb = m->lazy_b ? fmax(m->wsb + rest, most) : m->wsb;
	/* Containment's base is the lighter side: the lesser of two lower
	 * bounds bounds it. */
	double wu_least = wsa + wsb - most, lighter = fmin(wsa, wsb);
	/* The passages rule: both its floors in reach. */
	return (m->res_floor <= 0 || (wu_least > 0 && most < m->res_floor * wu_least)) &&
	       (m->cont_floor <= 0 || most < m->cont_floor * lighter) &&
	       (!m->passages || (wu_least > 0 && most < ND_PASSAGE_RESEMBLANCE * wu_least) ||
		nmost < ND_PASSAGE_PLAIN * (m->na + m->nb - nmost));
}

/* A lazy side's samples [*done, to) added to *w: those the filter says
 * are not common weigh 1; the others at least 0, for a lookup each would
 * cost more than the merge steps it saves. */
static void lazy_pass(const nd__rec *r, uint32_t to, const nd__common *common, uint32_t *done, double *w)
{
	if (common->filter)
		for (uint32_t k = *done; k < to; k++)
			*w += nd__common_rare(common, r->sample[k]);
	*done = to > *done ? to : *done;
}

static int out_of_reach(merge_bound *m, const nd__rec *a, const nd__rec *b, uint32_t i, uint32_t j, double wi,
			uint32_t ni)
{
	double rest = m->na - i < m->nb - j ? m->na - i : m->nb - j;
	double ra = m->wsa - weight_before(a, i), rb = m->wsb - weight_before(b, j);
	if (m->lazy_a)
		lazy_pass(a, i, m->common, &m->done_a, &m->wsa);
	else if (ra < rest)
		rest = ra;
	if (m->lazy_b)
		lazy_pass(b, j, m->common, &m->done_b, &m->wsb);
	else if (rb < rest)
		rest = rb;
	/* Plain: every shingle left a match at most.  A hair over, as in
	 * lazy_weights: a bound that ends on a floor is left to the scores. */
	double most = wi + rest;
	return floors_missed(m, most + 1e-9 * (1 + most), rest, ni + (m->na - i < m->nb - j ? m->na - i : m->nb - j));
}

/* A lazy side's weights over its first n samples, summed as
 * nd__rec_weights sums them, stopping (0) once the pair, sharing wi and
 * ni, misses every floor; else 1, *w and *ws whole and the side weighed. */
static int lazy_weights(merge_bound *m, int side_b, const nd__rec *r, uint32_t n, const nd__common *common,
			double wi, uint32_t ni, double *w, double *ws)
{
	double *low = side_b ? &m->wsb : &m->wsa;
	/* A hair over what is shared: a sum that ends on a floor is left to
	 * the scores, which divide where this multiplies. */
	double most = wi + 1e-9 * (1 + wi);
	*w = *ws = 0;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t g = groups_of(r, k, common);
		*w += weight(g, ND_COMMON_CAP), *ws += weight(g, ND_STORY_COMMON_CAP);
		if ((k + 1) % BOUND_EVERY == 0) {
			*low = *w;
			if (floors_missed(m, most, 0, ni))
				return 0;
		}
	}
	*low = *w;
	if (side_b)
		m->lazy_b = 0;
	else
		m->lazy_a = 0;
	return 1;
}

/* The floors: where each one's site's template is known. */
uint32_t nd__rec_pair_cut(const nd__rec *a, const nd__rec *b, const nd__common *common)
{
	uint32_t t = a->thr < b->thr ? a->thr : b->thr;
	if (nd__common_size(common) && (common->nfloors || common->nextra_floors)) {
		uint32_t fa = a->floor ? a->floor : nd__common_floor(common, a->text);
		uint32_t fb = b->floor ? b->floor : nd__common_floor(common, b->text);
		t = t < fa ? t : fa;
		t = t < fb ? t : fb;
	}
	return t;
}

/* The resemblance of a pair as edits would have made it (ND_EDIT_FROM):
 * shared weight ws of ns samples, each side's weight and samples at the
 * cut; 0 when neither side lost its samples as edits lose them. */
static double edited_resemblance(double ws, uint32_t ns, double wa, uint32_t na, double wb, uint32_t nb, int *side_b)
{
	double best = 0;
	for (int side = 0; side < 2; side++) {
		double wl = side ? wb : wa, wo = side ? wa : wb;
		uint32_t nl = side ? nb : na, no = side ? na : nb;
		if (nl < ns + ND_EDIT_MIN_LOST || no < ns)
			continue;
		double mean = wl / nl, lost = (wl - ws) / (nl - ns);
		/* Edits lose samples three at a time (a word is in three
		 * shingles): the lost are about (nl - ns) / 3 draws of weights
		 * in [0, 1], whose variance is at most mean * (1 - mean). */
		double slack = ND_EDIT_SLACK * sqrt(mean * (1 - mean) * 3 / (nl - ns));
		if (mean > ND_EDIT_COMMON || lost > mean + slack)
			continue;
		double u = ws + (wl - ws) + fmin(wo - ws, (no - ns) * mean);
		if (u > 0 && ws / u > best)
			best = ws / u, *side_b = side;
	}
	return best;
}

/* Whether lost's samples that other lacks (at their pair's cut t) stand
 * through its text as its samples do (ND_EDIT_SPREAD). */
static int edits_spread(const nd__rec *lost, const nd__rec *other, uint32_t t)
{
	enum { PARTS = 8 };
	if (!lost->pos)
		return 0;
	uint32_t nl = nd__rec_cut_at(lost, t), no = nd__rec_cut_at(other, t);
	double all[PARTS] = {0}, gone[PARTS] = {0}, nall = 0, ngone = 0;
	for (uint32_t i = 0, j = 0; i < nl; i++) {
		while (j < no && other->sample[j] < lost->sample[i])
			j++;
		uint8_t p = lost->pos[i];
		if (p == ND_REC_POS_UNKNOWN)
			continue;
		int part = p * PARTS / ND_REC_POS_UNKNOWN, kept = j < no && other->sample[j] == lost->sample[i];
		all[part]++, nall++;
		if (!kept)
			gone[part]++, ngone++;
	}
	if (ngone < ND_EDIT_MIN_LOST)
		return 0;
	double chi = 0;
	for (int k = 0; k < PARTS; k++) {
		double e = ngone * all[k] / nall;
		if (e > 0)
			chi += (gone[k] - e) * (gone[k] - e) / e;
	}
	return chi / 3 <= ND_EDIT_SPREAD;
}

/* The shingle part of nd__rec_compare: over the union's sample (every
 * shingle of either at or below the lower threshold), the shared weight
 * by a merge that adds only at matches, and each side's weight by a sum,
 * so that union = side + side - shared.  With floors (> 0), a merge that
 * can no longer bring resemblance to res_floor nor containment to
 * cont_floor stops and returns 0, s incomplete (each shingle still to
 * merge adds at most 1 to the shared weight, and no more than either side
 * has left); else 1, s as without.  With passages, it goes on while the
 * passages rule's two floors are both in reach. */
static int shingle_scores(const nd__rec *a, const nd__rec *b, const nd__common *common, nd__rec_scores *s,
			  double res_floor, double cont_floor, int passages)
{
	uint32_t t = nd__rec_pair_cut(a, b, common);
	const nd__u32u *sa = a->sample, *sb = b->sample;
	uint32_t i = 0, j = 0, ni = 0, steps = 0;
	double wi = 0, si = 0, ssa, ssb;
	int weighed = nd__common_size(common) > 0;
	merge_bound m = {0, 0, 0, 0, 0, 0, 0, 0, res_floor, cont_floor, passages, common};

	memset(s, 0, sizeof(*s));
	s->equal = a->text == b->text && a->nwords == b->nwords;
	if (s->equal) { /* the same words: nothing to weigh or merge */
		s->resemblance = s->story = s->plain = s->containment = 1;
		return 1;
	}
	int bounded = res_floor > 0 || cont_floor > 0;
	/* Most pairs are refused by their buckets, before the cut is read
	 * (the sizes at the cut bounded from below by the buckets' cuts). */
	int bucketed = bounded && weighed && a->buckets && b->buckets;
	double bw = 0;
	uint32_t bn = 0;
	if (bucketed) {
		/* A cut shares at most what either whole sample holds. */
		nd__rec_bucket_bounds(a, b, &bw, &bn);
		bw = fmin(bw, fmin(a->wsum, b->wsum));
		bn = bn < a->nsample ? bn : a->nsample;
		bn = bn < b->nsample ? bn : b->nsample;
		nd__rec_cut_least(a, t, &m.na, &m.wsa);
		nd__rec_cut_least(b, t, &m.nb, &m.wsb);
		if (floors_missed(&m, bw, 0, bn))
			return 0;
	}
	m.na = nd__rec_cut_at(a, t), m.nb = nd__rec_cut_at(b, t);
	/* A record not weighed (a hook's neighbour, met once) is summed as the
	 * merge passes it, and after the merge only as far as the floors need:
	 * most such pairs share nearly nothing, and its weights so far refuse
	 * them. */
	m.lazy_a = bounded && weighed && !a->groups, m.lazy_b = bounded && weighed && !b->groups;
	if (m.lazy_a)
		m.wsa = 0;
	else
		weights_of(a, m.na, common, &m.wsa, &ssa);
	if (m.lazy_b)
		m.wsb = 0;
	else
		weights_of(b, m.nb, common, &m.wsb, &ssb);
	if (bucketed) { /* again with the sizes at the cut */
		uint32_t nmost = bn < m.na ? bn : m.na;
		if (floors_missed(&m, fmin(bw, fmin(m.wsa, m.wsb)), 0, nmost < m.nb ? nmost : m.nb))
			return 0;
	}
#define MATCH(k)                                                                              \
	do {                                                                                  \
		if (weighed) {                                                                \
			uint32_t g_ = groups_of(a, (k), common);                              \
			wi += weight(g_, ND_COMMON_CAP), si += weight(g_, ND_STORY_COMMON_CAP); \
		} else                                                                        \
			wi += 1.0, si += 1.0;                                                 \
		ni++;                                                                         \
	} while (0)
#if defined(__SSE2__)
	/* Four of each side at a time: each of a's four against every one of
	 * b's, matches taken in a's order (the sums come out as one at a
	 * time gives them), then the side with the lower last moves on. */
	while (i + 4 <= m.na && j + 4 <= m.nb) {
		__m128i va = _mm_loadu_si128((const __m128i *)(sa + i));
		__m128i vb = _mm_loadu_si128((const __m128i *)(sb + j));
		__m128i eq = _mm_or_si128(
			_mm_or_si128(_mm_cmpeq_epi32(va, vb), _mm_cmpeq_epi32(va, _mm_shuffle_epi32(vb, 0x39))),
			_mm_or_si128(_mm_cmpeq_epi32(va, _mm_shuffle_epi32(vb, 0x4e)),
				     _mm_cmpeq_epi32(va, _mm_shuffle_epi32(vb, 0x93))));
		unsigned hit = (unsigned)_mm_movemask_ps(_mm_castsi128_ps(eq));
		while (hit) {
			MATCH(i + (uint32_t)__builtin_ctz(hit));
			hit &= hit - 1;
		}
		uint32_t x = sa[i + 3], y = sb[j + 3];
		i += x <= y ? 4 : 0, j += y <= x ? 4 : 0;
		if (bounded && ++steps % (BOUND_EVERY / 4) == 0 && out_of_reach(&m, a, b, i, j, wi, ni))
			return 0;
	}
#endif
	while (i < m.na && j < m.nb) {
		uint32_t x = sa[i], y = sb[j];
		if (x == y)
			MATCH(i);
		i += x <= y, j += y <= x;
		if (bounded && ++steps % BOUND_EVERY == 0 && out_of_reach(&m, a, b, i, j, wi, ni))
			return 0;
	}
#undef MATCH
	if ((m.lazy_a && !lazy_weights(&m, 0, a, m.na, common, wi, ni, &m.wsa, &ssa)) ||
	    (m.lazy_b && !lazy_weights(&m, 1, b, m.nb, common, wi, ni, &m.wsb, &ssb)))
		return 0;
	double wu = m.wsa + m.wsb - wi, su = ssa + ssb - si;
	uint32_t nu = m.na + m.nb - ni;
	s->resemblance = wu > 0 ? wi / wu : 0;
	s->story = su > 0 ? si / su : 0;
	s->plain = nu ? (double)ni / nu : 0;
	s->base_a = m.wsa <= m.wsb;
	double base = s->base_a ? m.wsa : m.wsb;
	s->containment = base > 0 ? wi / base : 0;
	s->edited = weighed ? edited_resemblance(wi, ni, m.wsa, m.na, m.wsb, m.nb, &s->edited_b) : 0;
	return 1;
}

/* Whether word bits w (NAME_WORD_BITS of a name) are among the n of v. */
static int holds_word(const nd__u32u *v, uint32_t n, uint32_t w)
{
	for (uint32_t i = 0; i < n; i++)
		if ((v[i] & ~ND_NAME_PLACE_MASK) == w)
			return 1;
	return 0;
}

/* Whether x (a name) is among the n of v, ascending. */
static int holds_name(const nd__u32u *v, uint32_t n, uint32_t x)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo] == x;
}

/* Whether other holds the word w that one renames only where one holds
 * it too: in none of the places other samples (names at or below t) where
 * one's sample lacks it (a sampled place is sampled in both), and not
 * among other's leads (a word both titles hold names what both are
 * about). */
static int held_only_shared(const nd__rec *one, const nd__rec *other, uint32_t w, uint32_t t)
{
	if (holds_word(other->leads, other->nleads, w))
		return 0;
	for (uint32_t i = 0; i < other->nnames && other->names[i] <= t; i++)
		if ((other->names[i] & ~ND_NAME_PLACE_MASK) == w && !holds_name(one->names, one->nnames, other->names[i]))
			return 0;
	return 1;
}

/* Whether a and b begin alike: the same words lead both, as far as both
 * records know them (a record made before records kept them knows none). */
static int same_lead(const nd__rec *a, const nd__rec *b)
{
	return nd__rec_has_lead(a) && a->lead[0] == b->lead[0] && a->lead[1] == b->lead[1];
}

/* The places of x[0..nx) and y[0..ny) at or below t (each entry's place
 * its bits of mask) where each has one word and the words differ, not
 * both numbers (leads), into out (room for most) from n: each the two
 * words' bits, then the place's.  The new count. */
static uint32_t renamed_places(const nd__u32u *x, uint32_t nx, const nd__u32u *y, uint32_t ny, uint32_t t,
			       uint32_t mask, uint64_t *out, uint32_t n, uint32_t most)
{
	const uint32_t word = ~ND_NAME_PLACE_MASK, bits = ND_NAME_WORD_BITS;
	uint32_t i = 0, j = 0;
	while (i < nx && j < ny && n < most) {
		uint32_t pa = x[i] & mask, pb = y[j] & mask;
		if (x[i] > t || y[j] > t)
			break;
		uint32_t ie = i, je = j;
		while (ie < nx && (x[ie] & mask) == pa)
			ie++;
		while (je < ny && (y[je] & mask) == pb)
			je++;
		if (pa == pb && ie - i == 1 && je - j == 1 && (x[i] & word) != (y[j] & word) &&
		    !(x[i] & y[j] & ND_LEAD_DIGIT & ~mask))
			out[n++] = (uint64_t)((x[i] & word) << bits | (y[j] & word)) << 32 | pa;
		if (pa <= pb)
			i = ie;
		if (pb <= pa)
			j = je;
	}
	return n;
}

/* How many of r's leads at or below t are of word bits w. */
static uint32_t leads_of(const nd__rec *r, uint32_t w, uint32_t t)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < r->nleads && r->leads[i] <= t; i++)
		n += (r->leads[i] & ~ND_NAME_PLACE_MASK) == w;
	return n;
}

/* Whether k lead places where a says one word and b another (pair's bits:
 * a's, then b's) are ND_RENAME_LED_SHARE of the places either says its
 * word at. */
static int led_most(const nd__rec *a, const nd__rec *b, uint32_t pair, uint32_t t, uint32_t k)
{
	uint32_t na = leads_of(a, pair >> ND_NAME_WORD_BITS, t), nb = leads_of(b, pair & ~ND_NAME_PLACE_MASK, t);
	return k >= ND_RENAME_LED_SHARE * (na < nb ? na : nb);
}

/* A rename: the same template about another named thing (two man pages of
 * two commands, a product page for another product, two rustdoc pages of
 * two iterator types).  Places both sample (the lower threshold), or
 * both keep as their titles' words' places (leads: there a quarter of
 * the places either says its word at, or more), where each text has one
 * word of those it repeats and the words differ, the same two words in
 * ND_RENAME_PLACES places or more; neither word among the other text's
 * repeated words but where its own text has it too (llvm-tblgen(1)
 * renamed from clang-tblgen(1), which says "LLVM" itself).  An edited
 * version keeps its words: its edits are words it does not repeat, or
 * ones still elsewhere in the other; and two texts that begin with the
 * same ND_LEAD_WORDS words (a title, a NAME line) are about one thing, so
 * a word renamed all through them names something else (a parameter, a
 * contributor's name spelled another way): an edit. */
static int renamed(const nd__rec *a, const nd__rec *b)
{
	enum { MOST = 4 * ND_REC_NAMES + 2 * ND_REC_LEADS };
	const uint32_t word = ~ND_NAME_PLACE_MASK, bits = ND_NAME_WORD_BITS;
	uint64_t pair[MOST];
	uint32_t t = a->nthr < b->nthr ? a->nthr : b->nthr, lt = a->lthr < b->lthr ? a->lthr : b->lthr;
	if (same_lead(a, b))
		return 0;
	uint32_t n = renamed_places(a->names, a->nnames, b->names, b->nnames, t, ND_NAME_PLACE_MASK, pair, 0, MOST);
	for (uint32_t k = 0; k < n; k++)
		pair[k] |= 1; /* a sampled place: told from a lead's (places are even) */
	n = renamed_places(a->leads, a->nleads, b->leads, b->nleads, lt, ND_LEAD_PLACE_MASK, pair, n, MOST);
	/* Most pairs have no such place twice: the other's words are read
	 * only for one that has. */
	if (n < ND_RENAME_PLACES)
		return 0;
	nd__sort_u64(pair, n);
	for (uint32_t i = 0, j; i + ND_RENAME_PLACES <= n; i = j) {
		uint32_t w = (uint32_t)(pair[i] >> 32), sampled = 0, led = 0;
		for (j = i; j < n && (uint32_t)(pair[j] >> 32) == w; j++)
			sampled += pair[j] & 1, led += !(pair[j] & 1);
		if ((sampled >= ND_RENAME_PLACES || (led >= ND_RENAME_PLACES && led_most(a, b, w, lt, led))) &&
		    held_only_shared(a, b, w >> bits, t) && held_only_shared(b, a, w & word, t))
			return 1;
	}
	return 0;
}

/* Whether a value among v[0..n) is one many titles hold (c's count). */
static int title_many(const nd__common *c, const nd__u64u *v, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (nd__common_title_many(c, (uint32_t)v[i]))
			return 1;
	return 0;
}

/* The values part: other values in the same places (the veto).  counted
 * (may be NULL: not counted) says which numbers of titles are many
 * texts'. */
static void value_scores(const nd__rec *a, const nd__rec *b, const nd__common *counted, nd__rec_scores *s)
{
	uint32_t i, j;
	/* Values in the same places: a place both sample (the lower
	 * threshold) whose value sets have nothing in common changed. */
	uint32_t pt = a->pthr < b->pthr ? a->pthr : b->pthr;
	uint32_t changed = 0, titled = 0;
	i = j = 0;
	while (i < a->nplaces && j < b->nplaces) {
		uint32_t pa = (uint32_t)(a->places[i] >> 32), pb = (uint32_t)(b->places[j] >> 32);
		if (pa > pt || pb > pt)
			break;
		if (pa != pb) {
			if (pa < pb)
				i++;
			else
				j++;
			continue;
		}
		uint32_t ie = i, je = j;
		while (ie < a->nplaces && (uint32_t)(a->places[ie] >> 32) == pa)
			ie++;
		while (je < b->nplaces && (uint32_t)(b->places[je] >> 32) == pb)
			je++;
		int common = 0;
		for (uint32_t x = i, y = j; x < ie && y < je && !common;) {
			uint32_t va = (uint32_t)a->places[x], vb = (uint32_t)b->places[y];
			if (va == vb)
				common = 1;
			else if (va < vb)
				x++;
			else
				y++;
		}
		changed += !common;
		/* A number of both titles that no two kin's titles hold:
		 * what each text is about, not its site's. */
		titled += !common && pa < ND_TITLE_PLACES && !title_many(counted, a->places + i, ie - i) &&
			  !title_many(counted, b->places + j, je - j);
		i = ie, j = je;
	}
	/* Scaled from the sample to the text: the veto's count, and per 100
	 * words of the shorter text (a text kept whole counts exactly), or
	 * a number of the title among them: another release's notes, not
	 * the next release of one text. */
	uint32_t shorter_words = a->nwords < b->nwords ? a->nwords : b->nwords;
	double est = changed * (4294967296.0 / ((double)pt + 1));
	s->values_differ = changed && est > ND_VALUES_MIN - 0.5 &&
			   (titled || est * 100 >= (double)shorter_words * ND_VALUES_PER_100);
}

/* Whether two documents' descriptive signatures say they are other texts:
 * both keyed, and fewer than ND_SIGNATURE_JACCARD of their bits in common;
 * 0 when either is not known (a record made from words alone). */
static int signature_differs(const nd__rec *a, const nd__rec *b)
{
	if (!a->bits || !b->bits || a->nbits < ND_MIN_BITS || b->nbits < ND_MIN_BITS)
		return 0;
	uint32_t both = nd__bits_common(a->bits, a->nbits, b->bits, b->nbits);
	return both < ND_SIGNATURE_JACCARD * (a->nbits + b->nbits - both);
}

/* Why a pair that a rule accepts at point is refused all the same, or 0:
 * other values in the same places (ND_REFUSED_VALUES, at every point; s's
 * values read here), a rename (ND_REFUSED_RENAMED, not at
 * story: a story retold says "said" where it said "says"), or, for a pair
 * whose resemblance alone barely accepts it at copy, signatures that
 * disagree (ND_REFUSED_SIGNATURE).  Two mails of one thread (not at story)
 * are two messages unless their words are the same: a reply quotes what
 * it answers, and adds its own (ND_REFUSED_THREAD).  filled: a pair that
 * resemblance alone accepts at copy under ND_OWN_BAND, refused when it is
 * two fillings of one template (ND_REFUSED_FILLINGS).  common (may be
 * NULL): the collection's count, of own text and of titles' numbers. */
static nd_verify_how refusal(nd_point point, const nd__rec *a, const nd__rec *b, nd__rec_scores *s, int barely,
			     const nd__common *common, int filled)
{
	if (point != ND_POINT_STORY && a->thread && a->thread == b->thread &&
	    !(a->text == b->text && a->nwords == b->nwords))
		return ND_REFUSED_THREAD;
	value_scores(a, b, common, s);
	if (s->values_differ)
		return ND_REFUSED_VALUES;
	if (point != ND_POINT_STORY && renamed(a, b))
		return ND_REFUSED_RENAMED;
	if (barely && signature_differs(a, b))
		return ND_REFUSED_SIGNATURE;
	if (filled && nd__rec_filled(a, b, common))
		return ND_REFUSED_FILLINGS;
	return 0;
}

int nd__rec_refused(nd_point point, const nd__rec *a, const nd__rec *b, nd_verify_how *how)
{
	nd__rec_scores s;
	nd_verify_how h = refusal(point, a, b, &s, 0, NULL, 0);
	if (h && how)
		*how = h;
	return h != 0;
}

void nd__rec_compare(const nd__rec *a, const nd__rec *b, const nd__common *common, nd__rec_scores *s)
{
	shingle_scores(a, b, common, s, 0, 0, 0);
	value_scores(a, b, common, s);
}

/* The samples a and b share among their first na and nb; 0 once fewer
 * than need are within reach (at the start too: the smaller cannot hold
 * them).  The group pass asks it of every candidate pair. */
static uint32_t shared_within(const nd__rec *a, const nd__rec *b, uint32_t na, uint32_t nb, double need)
{
	const nd__u32u *sa = a->sample, *sb = b->sample;
	uint32_t i = 0, j = 0, ni = 0, steps = 0;
	need -= 1e-6; /* a count is whole: a floor met exactly (9 of 10 at 0.9) is met however need rounds */
	if ((na < nb ? na : nb) < need)
		return 0;
	while (i < na && j < nb) {
		uint32_t x = sa[i], y = sb[j];
		ni += x == y;
		i += x <= y, j += y <= x;
		if (++steps % BOUND_EVERY == 0 && ni + (na - i < nb - j ? na - i : nb - j) < need)
			return 0;
	}
	return ni;
}

double nd__rec_plain_floor(const nd__rec *a, const nd__rec *b, double floor)
{
	uint32_t t = a->thr < b->thr ? a->thr : b->thr;
	uint32_t na = nd__rec_cut_at(a, t), nb = nd__rec_cut_at(b, t);
	/* ni / (na + nb - ni) >= floor needs ni >= need. */
	uint32_t ni = shared_within(a, b, na, nb, floor * (na + nb) / (1 + floor));
	uint32_t nu = na + nb - ni;
	return nu ? (double)ni / nu : (a->text == b->text && a->nwords == b->nwords);
}

/* The samples a and b share at or below t, *na and *nb how many each
 * keeps there; some count below floor of the smaller (0: none) once that
 * is out of reach. */
static uint32_t shared_at_least(const nd__rec *a, const nd__rec *b, uint32_t t, uint32_t *na, uint32_t *nb,
				double floor)
{
	*na = nd__rec_cut_at(a, t), *nb = nd__rec_cut_at(b, t);
	return shared_within(a, b, *na, *nb, floor * (*na < *nb ? *na : *nb));
}

uint32_t nd__rec_shared(const nd__rec *a, const nd__rec *b, uint32_t t, uint32_t *na, uint32_t *nb)
{
	return shared_at_least(a, b, t, na, nb, 0);
}

double nd__rec_contained_floor(const nd__rec *a, const nd__rec *b, double floor)
{
	uint32_t na, nb, ni = shared_at_least(a, b, nd__rec_pair_cut(a, b, NULL), &na, &nb, floor);
	uint32_t least = na < nb ? na : nb;
	return least ? (double)ni / least : 0;
}

/* Whether neither of a pair has more than ND_PASSAGE_OWN of its samples
 * to itself outside the collection's common text: the passages rule's
 * test of a text assembled from common passages, which two pages of one
 * site (each its own article around a template of common phrases) fail. */
static int little_own_rare(const nd__rec *a, const nd__rec *b, const nd__common *common)
{
	uint32_t t = a->thr < b->thr ? a->thr : b->thr;
	uint32_t na = nd__rec_cut_at(a, t), nb = nd__rec_cut_at(b, t), i = 0, j = 0, ua = 0, ub = 0;
	double most_a = ND_PASSAGE_OWN * na, most_b = ND_PASSAGE_OWN * nb;
	while (i < na || j < nb) {
		if (i < na && j < nb && a->sample[i] == b->sample[j])
			i++, j++;
		else if (j >= nb || (i < na && a->sample[i] < b->sample[j])) {
			if (weight(groups_of(a, i++, common), ND_COMMON_CAP) >= 1 && ++ua > most_a)
				return 0;
		} else if (weight(groups_of(b, j++, common), ND_COMMON_CAP) >= 1 && ++ub > most_b)
			return 0;
	}
	return 1;
}

/* The words of containment's base (sh) that are not a site's template
 * (nor text as many groups hold), estimated from its samples at the
 * pair's cut: a page that is its site's template and a line of its own is
 * held by every page of its site, and says nothing by being held. */
static double own_words(const nd__rec *sh, const nd__rec *a, const nd__rec *b, const nd__common *common)
{
	if (!nd__common_size(common))
		return sh->nwords;
	uint32_t n = nd__rec_cut_at(sh, nd__rec_pair_cut(a, b, common)), own = 0;
	for (uint32_t k = 0; k < n; k++)
		own += groups_of(sh, k, common) < ND_SITE_TEMPLATE;
	return n ? (double)own / n * sh->nwords : 0;
}

enum { PLACED_MOST = 2 * ND_REC_SAMPLE };

/* r's samples of a known place, in the order they stand (order: room for
 * PLACED_MOST): how many; 0 without places, or with more samples than a
 * record is made with. */
static uint32_t by_place(const nd__rec *r, uint32_t *order)
{
	uint32_t n = r->nsample, count[ND_REC_POS_UNKNOWN + 1] = {0}, m = 0;
	if (!r->pos || n > PLACED_MOST)
		return 0;
	for (uint32_t k = 0; k < n; k++) /* a counting sort */
		count[r->pos[k]]++;
	for (uint32_t p = 0, at = 0; p <= ND_REC_POS_UNKNOWN; p++) {
		uint32_t c = count[p];
		count[p] = at, at += c;
	}
	for (uint32_t k = 0; k < n; k++)
		if (r->pos[k] != ND_REC_POS_UNKNOWN)
			order[count[r->pos[k]]++] = k, m++;
	return m;
}

int nd__rec_rotating(const nd__rec *r, const nd__common *common, uint8_t *rot)
{
	enum { MOST = PLACED_MOST };
	uint32_t order[MOST], m;
	uint8_t own[MOST];
	int marked = 0;
	if (rot)
		memset(rot, 0, r->nsample);
	if (!(m = by_place(r, order))) /* no places: none told */
		return 0;
	/* Runs of own samples: the longest, then those between two of the
	 * template's and short against it. */
	uint32_t longest = 0, end[MOST];
	for (uint32_t i = 0; i < m; i++)
		own[i] = groups_of(r, order[i], common) < ND_SITE_TEMPLATE;
	for (uint32_t i = 0; i < m; i = end[i]) {
		for (end[i] = i + 1; end[i] < m && own[end[i]] == own[i]; end[i]++)
			;
		if (own[i] && end[i] - i > longest)
			longest = end[i] - i;
	}
	for (uint32_t i = 0; i < m; i = end[i])
		if (own[i] && i > 0 && end[i] < m && (end[i] - i) * ND_ROTATING_SHARE < longest)
			for (uint32_t x = i; x < end[i]; x++, marked++)
				if (rot)
					rot[order[x]] = 1;
	return marked;
}

/* The weighted resemblance of a and b at their cut with each one's
 * rotating parts weighed as its template (shared: the lesser weight, the
 * union the greater), and in *cont the containment of the lighter so
 * weighed; 0 when neither has any. */
static double rotating_resemblance(const nd__rec *a, const nd__rec *b, const nd__common *common, double *cont)
{
	uint8_t ra[2 * ND_REC_SAMPLE], rb[2 * ND_REC_SAMPLE];
	double shared = 0, all = 0, wsa = 0, wsb = 0;
	*cont = 0;
	if (a->nsample > sizeof(ra) || b->nsample > sizeof(rb) ||
	    nd__rec_rotating(a, common, ra) + nd__rec_rotating(b, common, rb) == 0)
		return 0; /* nothing rotates: the pair as it was */
	uint32_t t = nd__rec_pair_cut(a, b, common), na = nd__rec_cut_at(a, t), nb = nd__rec_cut_at(b, t);
	for (uint32_t i = 0, j = 0; i < na || j < nb;) {
		int in_a = i < na && (j >= nb || a->sample[i] <= b->sample[j]);
		int in_b = j < nb && (i >= na || b->sample[j] <= a->sample[i]);
		double wa = in_a && !ra[i] ? weight(groups_of(a, i, common), ND_COMMON_CAP) : 0;
		double wb = in_b && !rb[j] ? weight(groups_of(b, j, common), ND_COMMON_CAP) : 0;
		if (in_a && in_b)
			shared += fmin(wa, wb);
		all += fmax(wa, wb), wsa += wa, wsb += wb;
		i += in_a, j += in_b;
	}
	*cont = fmin(wsa, wsb) > 0 ? shared / fmin(wsa, wsb) : 0;
	return all > 0 ? shared / all : 0;
}

/* Whether the rotating rule may accept a and b: the collection's common
 * text is known, each record knows where its samples stand, and, where
 * both were weighed (their counts taken), one has rotating parts; a
 * record not weighed (a hook's neighbour, met once) is told by
 * rotating_resemblance, which finds none as it marks them. */
static int rotating_may(const nd__rec *a, const nd__rec *b, const nd__common *common)
{
	if (!nd__common_size(common) || !a->pos || !b->pos)
		return 0;
	return !a->groups || !b->groups || a->rotating + b->rotating > 0;
}

/* Whether containment's base has ND_CONTAIN_MIN_WORDS words of its own:
 * own_words once a pair (*own < 0 until asked), for plain containment and
 * the rotating one both. */
static int base_own_enough(const nd__rec *a, const nd__rec *b, const nd__common *common, const nd__rec_scores *s,
			   double *own)
{
	if (*own < 0)
		*own = own_words(s->base_a ? a : b, a, b, common);
	return *own >= ND_CONTAIN_MIN_WORDS;
}

/* Whether the longer of a and b has more than ND_CONTAIN_MAX_RATIO times
 * the shorter's words: containment's bound on length. */
static int too_long(const nd__rec *a, const nd__rec *b)
{
	uint32_t ns = a->nwords < b->nwords ? a->nwords : b->nwords;
	uint32_t nl = a->nwords < b->nwords ? b->nwords : a->nwords;
	return (double)nl > ND_CONTAIN_MAX_RATIO * ns;
}

/* Whether containment's base (the lighter of a and b, s->base_a) holds
 * its own text in the other (ND_OWN_CONTAINED). */
static int own_contained(const nd__rec *a, const nd__rec *b, const nd__common *common, const nd__rec_scores *s)
{
	const nd__rec *base = s->base_a ? a : b, *other = s->base_a ? b : a;
	if (!nd__common_size(common))
		return 1;
	uint32_t t = nd__rec_pair_cut(a, b, common), nb = nd__rec_cut_at(base, t), no = nd__rec_cut_at(other, t);
	uint32_t rare = 0, held = 0, few = 0, many = 0;
	for (uint32_t i = 0, j = 0; i < nb; i++) {
		while (j < no && other->sample[j] < base->sample[i])
			j++;
		uint32_t g = groups_of(base, i, common);
		if (g > ND_COMMON_CAP) {
			few += g <= ND_KIN_FAMILY, many += g > ND_KIN_FAMILY && g < ND_SITE_TEMPLATE;
			continue;
		}
		rare++;
		held += j < no && other->sample[j] == base->sample[i];
	}
	if (rare < ND_EDIT_MIN_LOST) /* too few to judge by, unless the base is a few pages' section */
		return ND_OWN_LEAST * rare >= nb || few <= many;
	return held >= ND_OWN_CONTAINED * rare;
}

/* Whether a and b, at resemblance r and containment c, are a text and a
 * short part of it: the lighter held as containment holds a copy, with
 * fewer than ND_CONTAIN_MIN_WORDS words of its own, the other more than
 * ND_CONTAIN_MAX_RATIO times as long by its words and by its shingles'
 * weight (c / r + c - 1: the union is both sides less what they share).
 * Containment's bounds, kept where resemblance would accept the pair (a
 * letter's functions and its members, one list held in the other); a
 * base with words enough of its own keeps resemblance's answer (a page
 * and its print version, teasers and all). */
static int part_of(const nd__rec *a, const nd__rec *b, const nd__common *common, const nd__rec_scores *s,
		   double r, double c, double *own)
{
	return c >= ND_POINT_COPY_CONTAINMENT && r > 0 && c / r + c - 1 > ND_CONTAIN_MAX_RATIO && too_long(a, b) &&
	       !base_own_enough(a, b, common, s, own);
}

/* The verdict at point from a pair's complete shingle scores (values read
 * only for a pair it would accept). */
static int decide(nd_point point, const nd__rec *a, const nd__rec *b, const nd__common *common,
		  nd__rec_scores *s, int can_contain, nd_verify_how *how, double *distance)
{
	nd_verify_how h = ND_VERIFIED_RESEMBLANCE;
	double d = 1, base_own = -1;
	int yes = 0;
	if (s->equal) {
		yes = 1, d = 0;
		goto done;
	}
	if (a->nwords < ND_REC_SHORT_WORDS || b->nwords < ND_REC_SHORT_WORDS)
		goto done; /* a short text is a copy only of the same words */
	d = 1 - s->resemblance;
	/* Each rule on its own: a rule that refuses does not hide the next
	 * (a cut that containment refuses may still share its passages). */
	if (s->resemblance >= nd_point_resemblance(point) &&
	    !(point == ND_POINT_COPY && part_of(a, b, common, s, s->resemblance, s->containment, &base_own)))
		yes = 1;
	int held = -1; /* own_contained, once asked */
	if (!yes && can_contain && s->containment >= ND_POINT_COPY_CONTAINMENT &&
	    base_own_enough(a, b, common, s, &base_own) && (held = own_contained(a, b, common, s)))
		yes = 1, h = ND_VERIFIED_CONTAINMENT, d = 1 - s->containment;
	if (!yes && point == ND_POINT_COPY && s->resemblance >= ND_PASSAGE_RESEMBLANCE && s->plain >= ND_PASSAGE_PLAIN &&
	    nd__common_has_passages(common) && little_own_rare(a, b, common) &&
	    nd__common_shared_passages(a, b, common) >= ND_PASSAGES)
		yes = 1, h = ND_VERIFIED_PASSAGES, d = 1 - s->plain;
	if (!yes && point == ND_POINT_COPY && s->resemblance >= ND_EDIT_FROM &&
	    s->edited >= nd_point_resemblance(point) && !part_of(a, b, common, s, s->edited, s->containment, &base_own) &&
	    edits_spread(s->edited_b ? b : a, s->edited_b ? a : b, nd__rec_pair_cut(a, b, common)))
		yes = 1, d = 1 - s->edited;
	/* The same two measures with each page's rotating parts weighed as
	 * its template, each from its own floor. */
	int rot_res = s->resemblance >= ND_ROTATING_FROM;
	int rot_cont = can_contain && s->containment >= ND_ROTATING_CONTAINED_FROM;
	if (!yes && point == ND_POINT_COPY && (rot_res || rot_cont) && rotating_may(a, b, common)) {
		double c, r = rotating_resemblance(a, b, common, &c);
		if (rot_res && r >= nd_point_resemblance(point) && !part_of(a, b, common, s, r, c, &base_own))
			yes = 1, s->resemblance = r, d = 1 - r;
		else if (rot_cont && c >= ND_POINT_COPY_CONTAINMENT && base_own_enough(a, b, common, s, &base_own))
			yes = 1, h = ND_VERIFIED_CONTAINMENT, d = 1 - c;
	}
	if (!yes)
		goto done; /* most pairs: the values are never read */
	/* The signature reads the whole text's relative frequencies: not
	 * for a pair that containment could accept (a thread added), nor one
	 * that common text discounted brought up (another site's template). */
	int barely = point == ND_POINT_COPY && h == ND_VERIFIED_RESEMBLANCE && s->resemblance < ND_SIGNATURE_BAND &&
		     s->resemblance <= s->plain &&
		     !(can_contain && s->containment >= ND_POINT_COPY_CONTAINMENT &&
		       (held >= 0 ? held : own_contained(a, b, common, s)));
	int own = point == ND_POINT_COPY && h == ND_VERIFIED_RESEMBLANCE && s->resemblance < ND_OWN_BAND;
	nd_verify_how no = refusal(point, a, b, s, barely, common, own);
	if (no)
		yes = 0, h = no;
done:
	if (how)
		*how = h;
	if (distance)
		*distance = d;
	return yes;
}

static int can_contain(const nd__rec *a, const nd__rec *b)
{
	return (a->nwords < b->nwords ? a->nwords : b->nwords) >= ND_CONTAIN_MIN_WORDS && !too_long(a, b);
}

int nd__rec_verdict(nd_point point, const nd__rec *a, const nd__rec *b, const nd__common *common,
		    nd_verify_how *how, double *distance)
{
	nd__rec_scores s;
	if (point == ND_POINT_STRICT)
		return nd_error_set(ND_EINVAL, "the strict point reads words, not records");
	int contain = a->nwords && b->nwords && can_contain(a, b);
	/* A caller that wants only yes or no lets the merge stop once
	 * neither measure can reach its point. */
	double res_floor = 0, cont_floor = 0;
	int passages = 0;
	if (!how && !distance) {
		int rotating = point == ND_POINT_COPY && rotating_may(a, b, common);
		res_floor = rotating ? ND_ROTATING_FROM : nd_point_resemblance(point);
		if (point == ND_POINT_COPY && res_floor > ND_EDIT_FROM)
			res_floor = ND_EDIT_FROM;
		cont_floor = !contain ? 0 : rotating ? ND_ROTATING_CONTAINED_FROM : ND_POINT_COPY_CONTAINMENT;
		passages = point == ND_POINT_COPY && nd__common_has_passages(common);
		if (a->nwords < ND_REC_SHORT_WORDS || b->nwords < ND_REC_SHORT_WORDS)
			res_floor = 1.01, cont_floor = 0, passages = 0; /* equal text only: the first check stops it */
	}
	if (!a->nwords || !b->nwords || !shingle_scores(a, b, common, &s, res_floor, cont_floor, passages)) {
		/* no text: nothing to call a copy; or the merge stopped */
		if (how)
			*how = ND_VERIFIED_RESEMBLANCE;
		if (distance)
			*distance = 1;
		return 0;
	}
	return decide(point, a, b, common, &s, contain, how, distance);
}

float nd__rec_story_score(const nd__rec *a, const nd__rec *b, const nd__common *common)
{
	nd__rec_scores s;
	shingle_scores(a, b, common, &s, 0, 0, 0);
	return (float)s.story;
}

void nd__rec_story(const nd__rec *a, const nd__rec *b, const nd__common *common, float *story, int *copy)
{
	nd__rec_scores s;
	shingle_scores(a, b, common, &s, 0, 0, 0);
	*story = (float)s.story;
	*copy = a->nwords && b->nwords && decide(ND_POINT_COPY, a, b, common, &s, can_contain(a, b), NULL, NULL) == 1;
}

/* Whether r, at or below cut, holds a run of text that o does not (in the
 * order r's samples stand) between text both hold, a quarter of those
 * samples or more: its own article inside a frame the two share. */
static int own_between(const nd__rec *r, const nd__rec *o, uint32_t cut)
{
	uint32_t order[PLACED_MOST], m = by_place(r, order), kept = 0, run = 0, longest = 0;
	uint8_t shared[PLACED_MOST];
	int framed = 0;
	if (!m)
		return 0;
	for (uint32_t k = 0, j = 0; k < r->nsample; k++) { /* both ascending: a merge */
		while (j < o->nsample && o->sample[j] < r->sample[k])
			j++;
		shared[k] = j < o->nsample && o->sample[j] == r->sample[k];
	}
	for (uint32_t i = 0; i < m; i++) {
		uint32_t k = order[i];
		if (r->sample[k] > cut)
			continue;
		kept++;
		if (shared[k]) {
			longest = framed && run > longest ? run : longest;
			framed = 1, run = 0;
		} else
			run += framed;
	}
	return kept && 4 * longest >= kept;
}

int nd__rec_framed_apart(const nd__rec *a, const nd__rec *b)
{
	uint32_t cut = a->thr < b->thr ? a->thr : b->thr;
	return own_between(a, b, cut) && own_between(b, a, cut);
}
