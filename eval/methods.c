/* The methods compared by `neardup eval`, each as representation +
 * candidate index + pair score over the same word sequences:
 *
 *   descriptive         equal descriptive-words keys from the store (Ilyinsky et al.)
 *   descriptive+xcheck  ... and word Levenshtein <= 8% (the cross-check)
 *   shingles            Broder resemblance of all 10-word shingles (Ilyinsky et al.: 7/8)
 *   shingles-mod16      ... of the sketch of shingles = 0 mod 16 (Ilyinsky et al.)
 *   sscr                Kupietz's shared-shingle coverage, 5-word shingles (0.9)
 *   docq4               the q-gram method's q-gram measure, q = 4 on the text without
 *                       spaces: |A & B| / max(|A|, |B|) (0.8).  Four-grams are
 *                       shared by nearly every pair of pages, so below 0.5 the
 *                       prefix filter would compare almost all pairs: its
 *                       candidates start at 0.5
 *   simhash             Charikar, 64 bits over tf-idf weighted words; Hamming <= 3
 *   minhash             128 min-hashes of 5-word shingles, LSH 32 bands x 4 rows
 *   imatch              I-Match (Chowdhury et al.): one hash of the document's
 *                       distinct mid-idf words
 *
 * Candidates come from each method's own index (signature groups, prefix-
 * filtered inverted index, LSH bands, permuted simhash blocks). */
#include "eval/eval_internal.h"
#include "neardup/cluster.h"
#include "common/nd_buf.h"
#include "common/nd_hash.h"
#include "common/nd_join.h"
#include "neardup/verify.h"
#include "neardup/descriptor.h"
#include "neardup/similarity.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- shared helpers ---- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static size_t unique_u64(uint64_t *v, size_t n)
{
	size_t u = 0;
	if (n < 2)
		return n; /* and v may be NULL */
	qsort(v, n, sizeof(*v), cmp_u64);
	for (size_t i = 0; i < n; i++)
		if (!u || v[u - 1] != v[i])
			v[u++] = v[i];
	return u;
}

static void free_sets(ev_set *s, size_t n)
{
	if (!s)
		return;
	for (size_t i = 0; i < n; i++)
		free(s[i].v);
	free(s);
}

/* Emit every pair within runs of equal nonzero keys (doc index order). */
typedef struct {
	uint64_t key;
	uint32_t doc;
} keyed;

static int cmp_keyed(const void *a, const void *b)
{
	const keyed *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->doc < y->doc ? -1 : x->doc > y->doc;
}

static int emit_groups(const uint64_t *key, size_t n, ev_emit emit, void *ctx,
		       int (*score)(void *, size_t, size_t, double *), void *sctx)
{
	keyed *k = malloc((n + 1) * sizeof(*k));
	int rc = ND_OK;
	if (!k)
		return nd_error_set(ND_ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++)
		k[i] = (keyed){key[i], (uint32_t)i};
	qsort(k, n, sizeof(*k), cmp_keyed);
	for (size_t i = 0; i < n && rc == ND_OK;) {
		size_t j = i;
		while (j < n && k[j].key == k[i].key)
			j++;
		if (k[i].key)
			for (size_t a = i; a < j && rc == ND_OK; a++)
				for (size_t b = a + 1; b < j && rc == ND_OK; b++) {
					double s = 1;
					if (score && (rc = score(sctx, k[a].doc, k[b].doc, &s)) < 0)
						break;
					rc = emit(k[a].doc, k[b].doc, s, ctx);
				}
		i = j;
	}
	free(k);
	return rc;
}

/* ---- descriptive words ---- */

typedef struct {
	uint64_t *key;
	ev_set *bits;    /* each document's set bits, however few */
	ev_set *present; /* the descriptive words it holds at all, as indexes */
	ev_corpus *c;
	int xcheck;
} desc_state;

static void desc_release(void *vs);

/* The stored signature's bits, as a set, for the tolerant methods. */
static int desc_bits(nd_store_txn *txn, uint32_t nwords, nd_docid d, ev_set *out)
{
	uint64_t key;
	const void *pay;
	size_t len;
	nd_sig sig = ND_SIG_INIT;
	int rc = nd_store_doc_get(txn, d, &key, &pay, &len);
	if (rc == ND_ENOTFOUND)
		return ND_OK;
	if (rc < 0 || (rc = nd_sig_decode(&sig, pay, len, nwords)) < 0)
		return rc;
	if (sig.nbits) {
		if (!(out->v = malloc(sig.nbits * sizeof(uint64_t)))) {
			nd_sig_clear(&sig);
			return nd_error_set(ND_ENOMEM, "out of memory");
		}
		for (uint32_t i = 0; i < sig.nbits; i++)
			out->v[i] = sig.bits[i];
		out->n = sig.nbits;
	}
	nd_sig_clear(&sig);
	return ND_OK;
}

/* Each document's descriptive words present at any frequency (indexes
 * into the set): the same words as the signature, without thresholds. */
static int desc_present(const nd_descriptor *d, const ev_corpus *c, ev_set *out)
{
	uint32_t nw = nd_descriptor_size(d);
	uint64_t *word = malloc((nw + 1) * sizeof(*word)); /* word id << 32 | index, sorted */
	if (!word)
		return nd_error_set(ND_ENOMEM, "out of memory");
	for (uint32_t i = 0; i < nw; i++) {
		const char *w = nd_descriptor_word(d, i);
		word[i] = (uint64_t)nd_word_id(w, strlen(w)) << 32 | i;
	}
	qsort(word, nw, sizeof(*word), cmp_u64);
	for (size_t i = 0; i < c->n; i++) {
		if (!(out[i].v = malloc((c->len[i] + 1) * sizeof(uint64_t)))) {
			free(word);
			return nd_error_set(ND_ENOMEM, "out of memory");
		}
		for (size_t k = 0; k < c->len[i]; k++) {
			/* First entry with this word id (ids of two words may collide). */
			uint64_t id = c->ids[i][k];
			size_t lo = 0, hi = nw;
			while (lo < hi) {
				size_t mid = (lo + hi) / 2;
				if (word[mid] >> 32 < id)
					lo = mid + 1;
				else
					hi = mid;
			}
			for (; lo < nw && word[lo] >> 32 == id; lo++)
				out[i].v[out[i].n++] = word[lo] & 0xffffffffu;
		}
		out[i].n = unique_u64(out[i].v, out[i].n);
	}
	free(word);
	return ND_OK;
}

static int desc_prepare(void **state, ev_corpus *c, int xcheck)
{
	desc_state *s;
	nd_store_txn *txn;
	int rc;
	if (!c->st)
		return nd_error_set(ND_EINVAL, "the descriptive methods need --store");
	nd_descriptor *d;
	if ((rc = nd_descriptor_load(&d, c->st, c->db)) < 0)
		return rc;
	uint32_t nwords = nd_descriptor_size(d);
	if (!(s = calloc(1, sizeof(*s))) || !(s->key = calloc(c->n + 1, sizeof(uint64_t))) ||
	    !(s->bits = calloc(c->n + 1, sizeof(ev_set))) || !(s->present = calloc(c->n + 1, sizeof(ev_set)))) {
		nd_descriptor_free(d);
		desc_release(s);
		return nd_error_set(ND_ENOMEM, "out of memory");
	}
	s->c = c;
	rc = desc_present(d, c, s->present);
	nd_descriptor_free(d);
	if (rc < 0) {
		desc_release(s);
		return rc;
	}
	s->xcheck = xcheck;
	if ((rc = nd_store_read_begin(c->st, &txn)) < 0) {
		desc_release(s);
		return rc;
	}
	for (size_t i = 0; i < c->n && rc == ND_OK; i++) {
		rc = nd_store_doc_get(txn, nd_truth_docid(c->t, i), &s->key[i], NULL, NULL);
		if (rc == ND_ENOTFOUND) {
			s->key[i] = 0; /* not signed: no key */
			rc = ND_OK;
		} else if (rc == ND_OK)
			rc = desc_bits(txn, nwords, nd_truth_docid(c->t, i), &s->bits[i]);
	}
	nd_store_txn_end(txn);
	if (rc < 0) {
		desc_release(s);
		return rc;
	}
	*state = s;
	return ND_OK;
}

static int desc_prepare_plain(void **state, ev_corpus *c) { return desc_prepare(state, c, 0); }
static int desc_prepare_x(void **state, ev_corpus *c) { return desc_prepare(state, c, 1); }

/* The classic cross-check these methods are named for: the verdict at the
 * strict point (Levenshtein <= 0.08), whatever the product's default. */
static const nd_verify_options strict_options = {0.08, 20000, 0.875, 10, 8, NULL, (size_t)256 << 20,
						  ND_POINT_STRICT, 0};

static int desc_score_pair(void *vs, size_t a, size_t b, double *out)
{
	desc_state *s = vs;
	*out = s->key[a] && s->key[a] == s->key[b];
	if (*out && s->xcheck) {
		double d;
		nd_verify_how how;
		int rc = nd_verify_pair(s->c->ids[a], s->c->len[a], s->c->ids[b], s->c->len[b], &strict_options,
					&how, &d);
		if (rc < 0)
			return rc;
		*out = rc;
	}
	return ND_OK;
}

static int desc_candidates(void *vs, ev_corpus *c, double min_score, ev_emit emit, void *ctx)
{
	desc_state *s = vs;
	(void)min_score;
	return emit_groups(s->key, c->n, emit, ctx, s->xcheck ? desc_score_pair : NULL, s);
}

static int desc_score(void *vs, ev_corpus *c, size_t a, size_t b, double *out)
{
	(void)c;
	return desc_score_pair(vs, a, b, out);
}

static void desc_release(void *vs)
{
	desc_state *s = vs;
	if (s) {
		free(s->key);
		if (s->bits)
			free_sets(s->bits, s->c ? s->c->n : 0);
		if (s->present)
			free_sets(s->present, s->c ? s->c->n : 0);
	}
	free(s);
}

/* ---- tolerant descriptive matching ----
 *
 * descriptive-jaccard: Jaccard of the two documents' bit sets; candidates
 * from the prefix-filtered inverted index over bits (ev_set_join).
 *
 * descriptive-hamming: Hamming distance H between the bit vectors, scored
 * 1 / (1 + H) so the sweep runs over H.  Candidates by prefix filtering:
 * H(A, B) <= k means at most k of A's bits are missing from B, so B holds
 * one of any k + 1 bits of A; each document probes the postings of its k + 1
 * rarest bits.  Exact, where Manku et al.'s block tables degenerate on
 * vectors this sparse (about 10 of 2,000 bits): most blocks are all zero,
 * and an all-zero block shared is no evidence.
 *
 * descriptive-tolerant+xcheck: neardup's pipeline for web pages: pairs of
 * bit-set Jaccard >= bits_floor, or whose sets of descriptive words present
 * at any frequency have Jaccard >= presence_floor, are candidates, scored
 * by the cross-check's word shingle resemblance (multiset, w = XCHECK_W).
 * On the news gold set 7% of duplicate pairs share no bit; the present
 * words lift the candidates' ceiling from 0.93 to 0.98 for 15% more pairs.
 *
 * All three use every set bit, also of documents with fewer than
 * ND_MIN_BITS: that minimum keeps short vectors from sharing an exact key by
 * accident, and here the score, not key equality, decides.  On the gold set
 * it lifts candidate recall from 0.78 to 0.93. */

#define HAMMING_MAX_K 8
#define XCHECK_W 3

static double hamming_score(const ev_set *a, const ev_set *b)
{
	size_t common = 0, i = 0, j = 0;
	while (i < a->n && j < b->n) {
		if (a->v[i] == b->v[j])
			common++, i++, j++;
		else if (a->v[i] < b->v[j])
			i++;
		else
			j++;
	}
	return 1.0 / (1.0 + (double)(a->n + b->n - 2 * common));
}

static int descj_candidates(void *vs, ev_corpus *c, double min_score, ev_emit emit, void *ctx)
{
	desc_state *s = vs;
	return ev_set_join(s->bits, c->n, min_score, ev_jaccard, emit, ctx);
}

static int descj_score(void *vs, ev_corpus *c, size_t a, size_t b, double *out)
{
	desc_state *s = vs;
	(void)c;
	*out = ev_jaccard(&s->bits[a], &s->bits[b]);
	return ND_OK;
}

static int desch_score(void *vs, ev_corpus *c, size_t a, size_t b, double *out)
{
	desc_state *s = vs;
	(void)c;
	*out = s->bits[a].n && s->bits[b].n ? hamming_score(&s->bits[a], &s->bits[b]) : 0;
	return ND_OK;
}

static const uint32_t *rarity_df;
static int cmp_rarer(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	if (rarity_df[a] != rarity_df[b])
		return rarity_df[a] < rarity_df[b] ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* Set a against a later set b met in its prefix's postings, each once. */
typedef struct {
	const ev_set *sets;
	size_t a;
	uint32_t *seen;     /* seen[b] == a + 1: b met for a */
	unsigned k;
	ev_emit emit;
	void *ctx;
} hamming_ctx;

static int hamming_visit(uint32_t b, void *vctx)
{
	hamming_ctx *h = vctx;
	if (b <= h->a || h->seen[b] == h->a + 1)
		return 0;
	h->seen[b] = (uint32_t)(h->a + 1);
	double sc = hamming_score(&h->sets[h->a], &h->sets[b]);
	return sc >= 1.0 / (1.0 + h->k) ? h->emit(h->a, b, sc, h->ctx) : 0;
}

int ev_hamming_join(const ev_set *sets, size_t n, unsigned k, ev_emit emit, void *ctx)
{
	uint64_t maxbit = 0;
	size_t maxn = 0;
	for (size_t i = 0; i < n; i++) {
		if (sets[i].n && sets[i].v[sets[i].n - 1] > maxbit)
			maxbit = sets[i].v[sets[i].n - 1];
		maxn = sets[i].n > maxn ? sets[i].n : maxn;
	}
	if (maxbit >= UINT32_MAX || n > UINT32_MAX)
		return nd_error_set(ND_EINVAL, "Hamming join of %zu sets of bits up to %llu", n,
				    (unsigned long long)maxbit);
	uint32_t nb = (uint32_t)maxbit + 1;
	uint32_t *df = calloc((size_t)nb + 1, sizeof(*df)), *rare = malloc((maxn + 1) * sizeof(*rare));
	uint32_t *seen = calloc(n + 1, sizeof(*seen));
	nd_prefix_index x = {NULL, 0};
	int rc = ND_OK;
	if (!df || !rare || !seen) {
		rc = nd_error_set(ND_ENOMEM, "out of memory");
		goto done;
	}
	/* Every set under every one of its bits: a pair within Hamming k
	 * shares one of A's k + 1 rarest bits, so probing those suffices. */
	if ((rc = nd_prefix_index_init(&x, nb)) < 0)
		goto done;
	for (size_t i = 0; i < n && rc == ND_OK; i++) {
		for (size_t j = 0; j < sets[i].n; j++)
			df[sets[i].v[j]]++, rare[j] = (uint32_t)sets[i].v[j];
		rc = nd_prefix_index_add(&x, rare, (uint32_t)sets[i].n, (uint32_t)i);
	}
	rarity_df = df;
	hamming_ctx h = {sets, 0, seen, k, emit, ctx};
	for (size_t a = 0; a < n && rc == ND_OK; a++) {
		size_t m = sets[a].n;
		if (!m)
			continue;
		for (size_t j = 0; j < m; j++)
			rare[j] = (uint32_t)sets[a].v[j];
		qsort(rare, m, sizeof(*rare), cmp_rarer);
		h.a = a;
		rc = nd_prefix_probe(rare, (uint32_t)(m < k + 1 ? m : k + 1), nd_prefix_index_postings, &x,
				     hamming_visit, &h);
	}
done:
	nd_prefix_index_free(&x);
	free(df);
	free(rare);
	free(seen);
	return rc;
}

static int desch_candidates(void *vs, ev_corpus *c, double min_score, ev_emit emit, void *ctx)
{
	desc_state *s = vs;
	double k = floor(1.0 / (min_score > 0 ? min_score : 1e-9) - 1.0 + 1e-9);
	return ev_hamming_join(s->bits, c->n, k > HAMMING_MAX_K ? HAMMING_MAX_K : (unsigned)k, emit, ctx);
}

typedef int (*pair_scorer)(ev_corpus *c, size_t a, size_t b, double *out);

typedef struct {
	ev_corpus *c;
	ev_emit emit;
	void *ctx;
	double min_score;
	pair_scorer of;
	int rc;
} xcheck_ctx;

static int xcheck_of(ev_corpus *c, size_t a, size_t b, double *out)
{
	nd_shingle_sim sim;
	int rc = nd_shingle_similarity(c->ids[a], c->len[a], c->ids[b], c->len[b], XCHECK_W, &sim);
	*out = sim.bag;
	return rc;
}

/* What check --tolerant 0.5 decided before the points: the strict verdict. */
static int lev_of(ev_corpus *c, size_t a, size_t b, double *out)
{
	double d;
	nd_verify_how how;
	int rc = nd_verify_pair(c->ids[a], c->len[a], c->ids[b], c->len[b], &strict_options, &how, &d);
	*out = rc > 0;
	return rc < 0 ? rc : ND_OK;
}

static int xcheck_emit(size_t a, size_t b, double jac, void *vctx)
{
	xcheck_ctx *x = vctx;
	double s;
	(void)jac;
	if ((x->rc = x->of(x->c, a, b, &s)) < 0)
		return x->rc;
	return s >= x->min_score ? x->emit(a, b, s, x->ctx) : 0;
}

typedef struct {
	uint64_t *v;
	size_t n, cap;
} pair_list;

static int add_pair(size_t a, size_t b, double sim, void *vctx)
{
	pair_list *l = vctx;
	(void)sim;
	if (nd_array_reserve((void **)&l->v, &l->cap, l->n + 1, sizeof(uint64_t)) < 0)
		return nd_error_set(ND_ENOMEM, "out of memory for candidate pairs");
	l->v[l->n++] = (uint64_t)a << 32 | b;
	return 0;
}

/* Candidate pairs collected (rc: how collecting ended), each scored once
 * by of and emitted when >= min_score; frees the list. */
static int score_pairs(pair_list *l, int rc, ev_corpus *c, pair_scorer of, double min_score, ev_emit emit,
		       void *ctx)
{
	if (rc == ND_OK)
		l->n = unique_u64(l->v, l->n);
	xcheck_ctx x = {c, emit, ctx, min_score, of, ND_OK};
	for (size_t i = 0; i < l->n && rc == ND_OK; i++)
		rc = xcheck_emit((size_t)(l->v[i] >> 32), (size_t)(l->v[i] & 0xffffffffu), 0, &x);
	free(l->v);
	return x.rc < 0 ? x.rc : rc;
}

/* Pairs of bit-set Jaccard >= floor, or (pfloor > 0) of present-word
 * Jaccard >= pfloor, each scored once by of. */
static int tolerant_join(desc_state *s, ev_corpus *c, double floor_, double pfloor, pair_scorer of,
			 double min_score, ev_emit emit, void *ctx)
{
	pair_list l = {NULL, 0, 0};
	int rc = ev_set_join(s->bits, c->n, floor_, ev_jaccard, add_pair, &l);
	if (rc == ND_OK && pfloor > 0)
		rc = ev_set_join(s->present, c->n, pfloor, ev_jaccard, add_pair, &l);
	return score_pairs(&l, rc, c, of, min_score, emit, ctx);
}

static int tolerant_score(desc_state *s, ev_corpus *c, double floor_, double pfloor, pair_scorer of,
			  size_t a, size_t b, double *out)
{
	if (ev_jaccard(&s->bits[a], &s->bits[b]) < floor_ &&
	    !(pfloor > 0 && ev_jaccard(&s->present[a], &s->present[b]) >= pfloor)) {
		*out = 0;
		return ND_OK;
	}
	return of(c, a, b, out);
}

static int desct_candidates(void *vs, ev_corpus *c, double min_score, ev_emit emit, void *ctx)
{
	return tolerant_join(vs, c, c->o->bits_floor, c->o->presence_floor, xcheck_of, min_score, emit, ctx);
}

static int desct_score(void *vs, ev_corpus *c, size_t a, size_t b, double *out)
{
	return tolerant_score(vs, c, c->o->bits_floor, c->o->presence_floor, xcheck_of, a, b, out);
}

/* descriptive-tolerant+lev: what `neardup check --tolerant 0.5` decides. */
#define CHECK_TOLERANT 0.5

static int desctl_candidates(void *vs, ev_corpus *c, double min_score, ev_emit emit, void *ctx)
{
	(void)min_score; /* a verdict: every candidate counts, refused ones too */
	return tolerant_join(vs, c, CHECK_TOLERANT, 0, lev_of, 0, emit, ctx);
}

static int desctl_score(void *vs, ev_corpus *c, size_t a, size_t b, double *out)
{
	return tolerant_score(vs, c, CHECK_TOLERANT, 0, lev_of, a, b, out);
}

/* ---- candidates by banded MinHash ----
 *
 * Bounded probing: each document gets BANDS keys, each a hash of ROWS
 * minimum hashes of a set of its words; documents sharing a key are
 * candidates (probability 1 - (1 - J^rows)^bands at Jaccard J).  A bucket
 * holds only documents that agree on a whole band, so its size does not
 * grow with the corpus the way a bit's posting list does. */

typedef struct {
	desc_state *d;
	unsigned bands, rows;
	int source;          /* ND_EVAL_LSH_PRESENT, _BITS, _WORDS or _RARE */
	uint64_t *keys;      /* n * bands */
	ev_set *rare;        /* _RARE: each document's LSH_RARE rarest present words */
} lsh_state;

#define LSH_RARE 12

static const uint32_t *rare_df;
static int cmp_rarer_word(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	if (rare_df[a] != rare_df[b])
		return rare_df[a] < rare_df[b] ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* Each document's LSH_RARE present descriptive words of lowest document
 * frequency in the corpus: words a site's template repeats are common. */
static int lsh_rare_sets(lsh_state *l, size_t n)
{
	uint32_t nw = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < l->d->present[i].n; k++)
			if (l->d->present[i].v[k] + 1 > nw)
				nw = (uint32_t)l->d->present[i].v[k] + 1;
	uint32_t *df = calloc(nw + 1, sizeof(*df));
	if (!df || !(l->rare = calloc(n + 1, sizeof(*l->rare)))) {
		free(df);
		return nd_error_set(ND_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < l->d->present[i].n; k++)
			df[l->d->present[i].v[k]]++;
	rare_df = df;
	for (size_t i = 0; i < n; i++) {
		const ev_set *p = &l->d->present[i];
		if (!p->n)
			continue;
		if (!(l->rare[i].v = malloc(p->n * sizeof(uint64_t)))) {
			free(df);
			return nd_error_set(ND_ENOMEM, "out of memory");
		}
		memcpy(l->rare[i].v, p->v, p->n * sizeof(uint64_t));
		qsort(l->rare[i].v, p->n, sizeof(uint64_t), cmp_rarer_word);
		l->rare[i].n = p->n < LSH_RARE ? p->n : LSH_RARE;
	}
	free(df);
	return ND_OK;
}

static void lsh_release(void *vs)
{
	lsh_state *l = vs;
	if (!l)
		return;
	for (size_t i = 0; l->rare && l->d && i < l->d->c->n; i++)
		free(l->rare[i].v);
	free(l->rare);
	desc_release(l->d);
	free(l->keys);
	free(l);
}

static const ev_set *lsh_set(lsh_state *l, ev_corpus *c, size_t i, ev_set *tmp)
{
	if (l->source == ND_EVAL_LSH_PRESENT)
		return &l->d->present[i];
	if (l->source == ND_EVAL_LSH_RARE)
		return &l->rare[i];
	if (l->source == ND_EVAL_LSH_BITS)
		return &l->d->bits[i];
	tmp->v = NULL;
	tmp->n = c->len[i];
	return tmp; /* words: read through c->ids */
}

/* The least hash under seed of a set's elements (set->v, or when NULL the
 * document's words ids[0..set->n)); UINT64_MAX for an empty set. */
static uint64_t min_hash(const ev_set *set, const uint32_t *ids, uint64_t seed)
{
	uint64_t m = UINT64_MAX;
	for (size_t k = 0; k < set->n; k++) {
		uint64_t x = nd_mix64((set->v ? set->v[k] : ids[k]) ^ seed);
		m = x < m ? x : m;
	}
	return m;
}

static int lsh_prepare(void **state, ev_corpus *c)
{
	lsh_state *l = calloc(1, sizeof(*l));
	int rc;
	if (!l)
		return nd_error_set(ND_ENOMEM, "out of memory");
	l->bands = c->o->lsh_bands, l->rows = c->o->lsh_rows, l->source = c->o->lsh_set;
	if (!l->bands || !l->rows || l->bands > 1000 || l->rows > 64) {
		free(l);
		return nd_error_set(ND_EINVAL, "LSH of %u bands of %u rows: 1..1000 bands of 1..64", c->o->lsh_bands,
				    c->o->lsh_rows);
	}
	if ((rc = desc_prepare((void **)&l->d, c, 0)) < 0) {
		free(l);
		return rc;
	}
	if (l->source == ND_EVAL_LSH_RARE && (rc = lsh_rare_sets(l, c->n)) < 0) {
		lsh_release(l);
		return rc;
	}
	if (!(l->keys = calloc(c->n * l->bands + 1, sizeof(uint64_t)))) {
		desc_release(l->d);
		free(l);
		return nd_error_set(ND_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < c->n; i++) {
		ev_set tmp;
		const ev_set *set = lsh_set(l, c, i, &tmp);
		if (!set->n)
			continue;
		for (unsigned b = 0; b < l->bands; b++) {
			uint64_t h = nd_mix64(0x6c7368ULL + b);
			for (unsigned r = 0; r < l->rows; r++) {
				h = nd_mix64(h ^ min_hash(set, c->ids[i], nd_mix64(((uint64_t)b << 32 | r) + 1)));
			}
			l->keys[i * l->bands + b] = h | 1; /* 0: no key */
		}
	}
	*state = l;
	return ND_OK;
}



#define LSH_BUCKET 64 /* pairs within a bucket's first members; the rest join its first */

static int cmp_key_doc(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;
	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

static int lsh_candidates(void *vs, ev_corpus *c, double min_score, ev_emit emit, void *ctx)
{
	lsh_state *l = vs;
	size_t nk = c->n * l->bands;
	uint64_t *k = malloc((nk + 1) * 2 * sizeof(uint64_t));
	pair_list pl = {NULL, 0, 0};
	int rc = ND_OK;
	if (!k)
		return nd_error_set(ND_ENOMEM, "out of memory");
	size_t m = 0;
	for (size_t i = 0; i < c->n; i++)
		for (unsigned b = 0; b < l->bands; b++)
			if (l->keys[i * l->bands + b]) {
				k[2 * m] = l->keys[i * l->bands + b];
				k[2 * m + 1] = i;
				m++;
			}
	qsort(k, m, 2 * sizeof(uint64_t), cmp_key_doc);
	for (size_t r = 0; r < m && rc == ND_OK;) {
		size_t e = r;
		while (e < m && k[2 * e] == k[2 * r])
			e++;
		/* Every pair among the bucket's first LSH_BUCKET members, and its
		 * first member with each of the rest. */
		for (size_t x = r; x < e && (x == r || x - r < LSH_BUCKET) && rc == ND_OK; x++)
			for (size_t y = x + 1; y < e && (x == r || y - r < LSH_BUCKET) && rc == ND_OK; y++)
				if (k[2 * x + 1] != k[2 * y + 1])
					rc = add_pair(k[2 * x + 1], k[2 * y + 1], 0, &pl);
		r = e;
	}
	free(k);
	return score_pairs(&pl, rc, c, xcheck_of, min_score, emit, ctx);
}

static int lsh_score(void *vs, ev_corpus *c, size_t a, size_t b, double *out)
{
	lsh_state *l = vs;
	for (unsigned x = 0; x < l->bands; x++)
		if (l->keys[a * l->bands + x] && l->keys[a * l->bands + x] == l->keys[b * l->bands + x])
			return xcheck_of(c, a, b, out);
	*out = 0;
	return ND_OK;
}

/* ---- the product's candidates: the store's near-neighbour index ----
 *
 * Each labeled document's neighbours in the store's LSH forest
 * (nd_near_candidates, what clusters --linkage, check and hooks read),
 * scored by shingle resemblance w=3; under --linkage the pairs it did not
 * propose count 0, as in nd_cluster_near. */

typedef struct {
	nd_docid docid;
	uint32_t index;
} doc_index;

static int cmp_doc_index(const void *x, const void *y)
{
	const doc_index *a = x, *b = y;
	return a->docid < b->docid ? -1 : a->docid > b->docid;
}

/* The index's pairs among the labeled documents, into pl. */
static int near_pairs(ev_corpus *c, pair_list *pl)
{
	doc_index *by = malloc((c->n + 1) * sizeof(*by));
	nd_store_txn *txn = NULL;
	nd_sig sig = ND_SIG_INIT;
	int rc;
	if (!by)
		return nd_error_set(ND_ENOMEM, "out of memory");
	for (size_t i = 0; i < c->n; i++)
		by[i] = (doc_index){nd_truth_docid(c->t, i), (uint32_t)i};
	qsort(by, c->n, sizeof(*by), cmp_doc_index);
	rc = nd_store_read_begin(c->st, &txn);
	for (size_t i = 0; i < c->n && rc == ND_OK; i++) {
		const void *pay;
		size_t len, nn = 0;
		uint64_t key;
		nd_docid *nb = NULL, self = nd_truth_docid(c->t, i);
		rc = nd_store_doc_get(txn, self, &key, &pay, &len);
		if (rc == ND_ENOTFOUND) {
			rc = ND_OK;
			continue;
		}
		if (rc == ND_OK && (rc = nd_sig_decode(&sig, pay, len, UINT16_MAX + 1u)) == ND_OK)
			rc = nd_near_candidates(txn, &sig, self, &nb, &nn);
		for (size_t k = 0; k < nn && rc == ND_OK; k++) {
			doc_index key_ = {nb[k], 0}, *at = bsearch(&key_, by, c->n, sizeof(*by), cmp_doc_index);
			if (at && at->index != i)
				rc = add_pair(i < at->index ? i : at->index, i < at->index ? at->index : i, 0, pl);
		}
		free(nb);
	}
	nd_store_txn_end(txn);
	nd_sig_clear(&sig);
	free(by);
	return rc;
}

typedef struct {
	ev_corpus *c;
	pair_scorer of;
} fresh_ctx;

/* nd_score_pairs_fn for completed averages: the method's own score. */
static int score_fresh(const uint64_t *pair, size_t n, float *out, void *vctx)
{
	fresh_ctx *f = vctx;
	int rc = ND_OK;
	for (size_t i = 0; i < n && rc == ND_OK; i++) {
		double s = 0;
		rc = f->of(f->c, (size_t)(pair[i] >> 32), (size_t)(uint32_t)pair[i], &s);
		out[i] = (float)s;
	}
	return rc;
}

/* score_pairs, but under --linkage average the pairs are completed first
 * as nd_cluster_near completes them at cut (nd_linkage_complete, the
 * library's budget).  Completing is part of clustering: a pair verdict,
 * as check's, sees the index's pairs only, so otherwise score_pairs. */
static int score_completed(pair_list *l, int rc, ev_corpus *c, pair_scorer of, double cut, double min_score,
			   ev_emit emit, void *ctx)
{
	fresh_ctx f = {c, of};
	float *score = NULL;
	if (c->o->linkage != ND_EVAL_LINK_AVERAGE)
		return score_pairs(l, rc, c, of, min_score, emit, ctx);
	if (rc == ND_OK)
		l->n = unique_u64(l->v, l->n);
	if (rc == ND_OK && l->n && !(score = malloc(l->n * sizeof(*score))))
		rc = nd_error_set(ND_ENOMEM, "out of memory");
	if (rc == ND_OK)
		rc = score_fresh(l->v, l->n, score, &f);
	if (rc == ND_OK)
		rc = nd_linkage_complete(c->n, &l->v, &score, &l->n, cut, (size_t)ND_NEAR_COMPLETE * c->n,
					 ND_NEAR_COMPLETE_DOCS, score_fresh, &f, NULL);
	for (size_t i = 0; i < l->n && rc == ND_OK; i++)
		if (score[i] >= min_score)
			rc = emit((size_t)(l->v[i] >> 32), (size_t)(uint32_t)l->v[i], score[i], ctx);
	free(score);
	free(l->v);
	return rc < 0 ? rc : ND_OK;
}

/* The index's pairs, completed at the library's default cut. */
static int near_candidates(void *vs, ev_corpus *c, double min_score, ev_emit emit, void *ctx)
{
	nd_near_options o = ND_NEAR_OPTIONS_INIT;
	pair_list pl = {NULL, 0, 0};
	(void)vs;
	return score_completed(&pl, near_pairs(c, &pl), c, xcheck_of, o.cut, min_score, emit, ctx);
}

static int near_prepare(void **state, ev_corpus *c)
{
	(void)c;
	*state = NULL;
	return ND_OK;
}

static int near_score(void *vs, ev_corpus *c, size_t a, size_t b, double *out)
{
	(void)vs; /* labeled pairs: every pair is scored */
	return xcheck_of(c, a, b, out);
}

static void near_release(void *vs)
{
	(void)vs;
}

/* ---- the product's verdict at its named points ----
 *
 * What check, hooks, update, collapsing and clusters decide: candidates
 * are equal keys and the near-neighbour index's, judged by nd_verify_pair.
 * verdict-strict says yes or no; verdict-copy and verdict-story score a
 * pair by the 3-shingle resemblance of the two records (1 for an equal
 * text or a contained one), so that their threshold (the point's
 * resemblance) is the verdict and P, R there are the point's, while the
 * sweep still shows the rest of the curve.  A labeled set has no
 * collection around it, so shared text weighs as any other here. */

static int verdict_of(ev_corpus *c, size_t a, size_t b, nd_point point, double *out)
{
	nd_verify_options o = ND_VERIFY_OPTIONS_INIT;
	nd_verify_how how;
	double d;
	o.point = point;
	int rc = nd_verify_pair(c->ids[a], c->len[a], c->ids[b], c->len[b], &o, &how, &d);
	if (rc < 0)
		return rc;
	*out = point == ND_POINT_STRICT ? rc : how == ND_VERIFIED_RESEMBLANCE ? 1 - d : rc;
	return ND_OK;
}

static int strict_of(ev_corpus *c, size_t a, size_t b, double *out)
{
	return verdict_of(c, a, b, ND_POINT_STRICT, out);
}

/* Copy and story share the score: story's verdict measures the
 * resemblance whatever it decides. */
static int resemblance_of(ev_corpus *c, size_t a, size_t b, double *out)
{
	return verdict_of(c, a, b, ND_POINT_STORY, out);
}

static int verdict_pairs(desc_state *s, ev_corpus *c, pair_list *pl)
{
	int rc = near_pairs(c, pl);
	return rc < 0 ? rc : emit_groups(s->key, c->n, add_pair, pl, NULL, NULL);
}

static int vstrict_candidates(void *vs, ev_corpus *c, double min_score, ev_emit emit, void *ctx)
{
	pair_list pl = {NULL, 0, 0};
	(void)min_score; /* a verdict: refused candidates count too */
	return score_pairs(&pl, verdict_pairs(vs, c, &pl), c, strict_of, 0, emit, ctx);
}

static int vcopy_candidates(void *vs, ev_corpus *c, double min_score, ev_emit emit, void *ctx)
{
	pair_list pl = {NULL, 0, 0};
	return score_pairs(&pl, verdict_pairs(vs, c, &pl), c, resemblance_of, min_score, emit, ctx);
}

/* Completed at story's cut, as clusters --point story completes them
 * (copy's clusters are components: nothing to complete). */
static int vstory_candidates(void *vs, ev_corpus *c, double min_score, ev_emit emit, void *ctx)
{
	pair_list pl = {NULL, 0, 0};
	return score_completed(&pl, verdict_pairs(vs, c, &pl), c, resemblance_of, ND_POINT_STORY_RESEMBLANCE,
			       min_score, emit, ctx);
}

static int vstrict_score(void *vs, ev_corpus *c, size_t a, size_t b, double *out)
{
	(void)vs; /* labeled pairs: every pair is judged */
	return strict_of(c, a, b, out);
}

static int vres_score(void *vs, ev_corpus *c, size_t a, size_t b, double *out)
{
	(void)vs;
	return resemblance_of(c, a, b, out);
}

/* ---- randomized descriptive sets ----
 *
 * Kołcz's lexicon randomization for I-Match, applied to descriptive sets:
 * MULTI_SETS sets, each chosen by nd_descriptor_build from its own seeded
 * MULTI_SHARE of the candidate words, and every labeled document signed by
 * each from its termlist.  A pair is a candidate when any set gives both
 * the same key.  descriptive-multi calls it a duplicate then;
 * descriptive-multi+xcheck scores it by the cross-check's shingle
 * resemblance, as descriptive-tolerant+xcheck does. */

#define MULTI_SETS 4
#define MULTI_SHARE 0.5

typedef struct {
	uint64_t *key[MULTI_SETS];
	int xcheck;
} multi_state;

static void multi_release(void *vs)
{
	multi_state *s = vs;
	if (s)
		for (int k = 0; k < MULTI_SETS; k++)
			free(s->key[k]);
	free(s);
}

static int multi_prepare(void **state, ev_corpus *c, int xcheck)
{
	multi_state *s = calloc(1, sizeof(*s));
	int rc = ND_OK;
	if (!s)
		return nd_error_set(ND_ENOMEM, "out of memory");
	s->xcheck = xcheck;
	for (int k = 0; k < MULTI_SETS && rc == ND_OK; k++) {
		nd_build_options bo = ND_BUILD_OPTIONS_INIT;
		nd_descriptor *d;
		bo.word_share = MULTI_SHARE;
		bo.seed = c->o->seed * 1000003 + (uint64_t)k;
		if (!(s->key[k] = calloc(c->n + 1, sizeof(uint64_t)))) {
			rc = nd_error_set(ND_ENOMEM, "out of memory");
			break;
		}
		if ((rc = nd_descriptor_build(&d, c->db, &bo, NULL)) < 0)
			break;
		for (size_t i = 0; i < c->n && rc == ND_OK; i++) {
			nd_sig sig = ND_SIG_INIT;
			if ((rc = nd_sig_from_termlist(d, c->db, nd_truth_docid(c->t, i), &sig)) == ND_OK)
				s->key[k][i] = sig.key;
			nd_sig_clear(&sig);
		}
		nd_descriptor_free(d);
	}
	if (rc < 0) {
		multi_release(s);
		return rc;
	}
	*state = s;
	return ND_OK;
}

static int multi_prepare_plain(void **state, ev_corpus *c) { return multi_prepare(state, c, 0); }
static int multi_prepare_x(void **state, ev_corpus *c) { return multi_prepare(state, c, 1); }

static int multi_score(void *vs, ev_corpus *c, size_t a, size_t b, double *out)
{
	multi_state *s = vs;
	*out = 0;
	for (int k = 0; k < MULTI_SETS; k++)
		if (s->key[k][a] && s->key[k][a] == s->key[k][b])
			return s->xcheck ? xcheck_of(c, a, b, out) : (*out = 1, ND_OK);
	return ND_OK;
}

/* Each set's groups, pooled and deduplicated, then scored once. */
typedef struct {
	uint64_t *v;
	size_t n, cap;
} pair_buf;

static int push_pair(size_t a, size_t b, double score, void *ctx)
{
	pair_buf *p = ctx;
	(void)score;
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 1024;
		uint64_t *v = realloc(p->v, cap * sizeof(*v));
		if (!v)
			return nd_error_set(ND_ENOMEM, "out of memory");
		p->v = v, p->cap = cap;
	}
	p->v[p->n++] = (uint64_t)a << 32 | (uint64_t)b;
	return ND_OK;
}

static int multi_candidates(void *vs, ev_corpus *c, double min_score, ev_emit emit, void *ctx)
{
	multi_state *s = vs;
	pair_buf p = {0};
	int rc = ND_OK;
	for (int k = 0; k < MULTI_SETS && rc == ND_OK; k++)
		rc = emit_groups(s->key[k], c->n, push_pair, &p, NULL, NULL);
	size_t n = rc == ND_OK && p.n ? unique_u64(p.v, p.n) : 0;
	for (size_t i = 0; i < n && rc == ND_OK; i++) {
		size_t a = (size_t)(p.v[i] >> 32), b = (size_t)(p.v[i] & 0xffffffffu);
		double score;
		if ((rc = multi_score(s, c, a, b, &score)) == ND_OK && score >= min_score)
			rc = emit(a, b, score, ctx);
	}
	free(p.v);
	return rc;
}

/* ---- shingle sets: full, mod-16 sketch, sscr ---- */

typedef struct {
	ev_set *sets;
	size_t n;
	unsigned w;
	int sscr;
} shingle_state;

static int shingle_prepare(void **state, ev_corpus *c, unsigned w, uint64_t mod, int sscr)
{
	shingle_state *s = calloc(1, sizeof(*s));
	if (!s || !(s->sets = calloc(c->n + 1, sizeof(ev_set)))) {
		free(s);
		return nd_error_set(ND_ENOMEM, "out of memory");
	}
	s->n = c->n;
	s->w = w;
	s->sscr = sscr;
	for (size_t i = 0; i < c->n; i++) {
		size_t len = c->len[i], win = len >= w ? len - w + 1 : (len ? 1 : 0), k = 0;
		if (!win)
			continue;
		if (!(s->sets[i].v = malloc(win * sizeof(uint64_t)))) {
			free_sets(s->sets, c->n);
			free(s);
			return nd_error_set(ND_ENOMEM, "out of memory");
		}
		for (size_t j = 0; j < win; j++) {
			uint64_t h = nd_shingle_fp(c->ids[i], len, j, w);
			if (h % mod == 0)
				s->sets[i].v[k++] = h;
		}
		s->sets[i].n = unique_u64(s->sets[i].v, k);
	}
	*state = s;
	return ND_OK;
}

static int shingles_prepare(void **state, ev_corpus *c) { return shingle_prepare(state, c, 10, 1, 0); }
static int mod16_prepare(void **state, ev_corpus *c) { return shingle_prepare(state, c, 10, 16, 0); }
static int sscr_prepare(void **state, ev_corpus *c) { return shingle_prepare(state, c, 5, 1, 1); }

typedef struct {
	shingle_state *s;
	ev_corpus *c;
	ev_emit emit;
	void *ctx;
	int rc;
} sscr_ctx;

static int sscr_of(ev_corpus *c, unsigned w, size_t a, size_t b, double *out)
{
	nd_shingle_sim sim;
	int rc = nd_shingle_similarity(c->ids[a], c->len[a], c->ids[b], c->len[b], w, &sim);
	*out = sim.sscr;
	return rc;
}

/* sscr >= ssr, so its candidates are the pairs of ssr >= min_score. */
static int sscr_emit(size_t a, size_t b, double ssr, void *vctx)
{
	sscr_ctx *x = vctx;
	double s;
	(void)ssr;
	if ((x->rc = sscr_of(x->c, x->s->w, a, b, &s)) < 0)
		return x->rc;
	return x->emit(a, b, s, x->ctx);
}

static int shingle_candidates(void *vs, ev_corpus *c, double min_score, ev_emit emit, void *ctx)
{
	shingle_state *s = vs;
	if (!s->sscr)
		return ev_set_join(s->sets, s->n, min_score, ev_jaccard, emit, ctx);
	sscr_ctx x = {s, c, emit, ctx, ND_OK};
	int rc = ev_set_join(s->sets, s->n, min_score, ev_jaccard, sscr_emit, &x);
	return x.rc < 0 ? x.rc : rc;
}

static int shingle_score(void *vs, ev_corpus *c, size_t a, size_t b, double *out)
{
	shingle_state *s = vs;
	if (s->sscr)
		return sscr_of(c, s->w, a, b, out);
	*out = ev_jaccard(&s->sets[a], &s->sets[b]);
	return ND_OK;
}

static void shingle_release(void *vs)
{
	shingle_state *s = vs;
	if (s)
		free_sets(s->sets, s->n);
	free(s);
}

/* ---- docq, q = 4 (the q-gram method) ---- */

typedef struct {
	char *term;
	uint32_t *pos;
	size_t npos;
} term_pos;

typedef struct {
	term_pos *t;
	size_t n, cap;
} term_list;

static int collect_term(const char *term, size_t len, uint32_t wdf, void *vctx)
{
	term_list *l = vctx;
	(void)wdf;
	if (!len || (term[0] >= 'A' && term[0] <= 'Z')) /* prefixed: ids, not words */
		return 0;
	if (nd_array_reserve((void **)&l->t, &l->cap, l->n + 1, sizeof(term_pos)) < 0)
		return ND_ENOMEM;
	if (!(l->t[l->n].term = strndup(term, len)))
		return ND_ENOMEM;
	l->t[l->n].pos = NULL;
	l->t[l->n].npos = 0;
	l->n++;
	return 0;
}

/* The document's words in position order, concatenated without spaces
 * (the q-gram method's normal form), rebuilt from the positional index. */
static int doc_text(nd_xdb *db, nd_docid d, char **out, size_t *outlen)
{
	term_list l = {NULL, 0, 0};
	uint64_t *order = NULL;
	size_t total = 0, bytes = 0;
	int rc = nd_xdb_termlist(db, d, collect_term, &l);
	*out = NULL;
	*outlen = 0;
	if (rc > 0)
		rc = nd_error_set(ND_ENOMEM, "out of memory");
	for (size_t i = 0; i < l.n && rc == ND_OK; i++) {
		rc = nd_xdb_positions(db, d, l.t[i].term, &l.t[i].pos, &l.t[i].npos);
		total += l.t[i].npos;
		bytes += l.t[i].npos * strlen(l.t[i].term);
	}
	if (rc == ND_OK && total) {
		if (!(order = malloc(total * sizeof(*order))) || !(*out = malloc(bytes + 1)))
			rc = nd_error_set(ND_ENOMEM, "out of memory");
		else {
			size_t k = 0;
			for (size_t i = 0; i < l.n; i++)
				for (size_t j = 0; j < l.t[i].npos; j++)
					order[k++] = (uint64_t)l.t[i].pos[j] << 32 | i;
			qsort(order, total, sizeof(*order), cmp_u64);
			for (size_t j = 0; j < total; j++) {
				const char *w = l.t[order[j] & 0xffffffffu].term;
				size_t wl = strlen(w);
				memcpy(*out + *outlen, w, wl);
				*outlen += wl;
			}
			(*out)[*outlen] = '\0';
		}
	}
	for (size_t i = 0; i < l.n; i++) {
		free(l.t[i].term);
		free(l.t[i].pos);
	}
	free(l.t);
	free(order);
	if (rc < 0) {
		free(*out);
		*out = NULL;
		*outlen = 0;
	}
	return rc;
}

/* Distinct q-grams of code points (UTF-8 sequences kept whole). */
static int qgrams(const char *s, size_t len, unsigned q, ev_set *out)
{
	size_t *start = malloc((len + 2) * sizeof(size_t)), ncp = 0;
	out->v = NULL;
	out->n = 0;
	if (!start)
		return nd_error_set(ND_ENOMEM, "out of memory");
	for (size_t i = 0; i < len; i++)
		if (((unsigned char)s[i] & 0xC0) != 0x80)
			start[ncp++] = i;
	start[ncp] = len;
	if (ncp >= q) {
		size_t n = ncp - q + 1;
		if (!(out->v = malloc(n * sizeof(uint64_t)))) {
			free(start);
			return nd_error_set(ND_ENOMEM, "out of memory");
		}
		for (size_t i = 0; i < n; i++)
			out->v[i] = nd_hash_bytes(s + start[i], start[i + q] - start[i], 0x71);
		out->n = unique_u64(out->v, n);
	}
	free(start);
	return ND_OK;
}

static int docq_prepare(void **state, ev_corpus *c)
{
	shingle_state *s = calloc(1, sizeof(*s));
	int rc = ND_OK;
	if (!s || !(s->sets = calloc(c->n + 1, sizeof(ev_set)))) {
		free(s);
		return nd_error_set(ND_ENOMEM, "out of memory");
	}
	s->n = c->n;
	for (size_t i = 0; i < c->n && rc == ND_OK; i++) {
		char *text;
		size_t len;
		if ((rc = doc_text(c->db, nd_truth_docid(c->t, i), &text, &len)) < 0)
			break;
		rc = qgrams(text ? text : "", len, 4, &s->sets[i]);
		free(text);
	}
	if (rc < 0) {
		shingle_release(s);
		return rc;
	}
	*state = s;
	return ND_OK;
}

static int docq_candidates(void *vs, ev_corpus *c, double min_score, ev_emit emit, void *ctx)
{
	shingle_state *s = vs;
	(void)c;
	return ev_set_join(s->sets, s->n, min_score, ev_overlap_max, emit, ctx);
}

static int docq_score(void *vs, ev_corpus *c, size_t a, size_t b, double *out)
{
	shingle_state *s = vs;
	(void)c;
	*out = ev_overlap_max(&s->sets[a], &s->sets[b]);
	return ND_OK;
}

/* ---- simhash ---- */

#define SIM_BLOCKS 8 /* 8-bit blocks: every pair within Hamming 7 shares one */

typedef struct {
	uint64_t *h;
	size_t n;
} simhash_state;

static int simhash_prepare(void **state, ev_corpus *c)
{
	simhash_state *s = calloc(1, sizeof(*s));
	uint32_t *tmp = NULL;
	size_t maxlen = 0;
	int rc;
	if (!s || !(s->h = calloc(c->n + 1, sizeof(uint64_t)))) {
		free(s);
		return nd_error_set(ND_ENOMEM, "out of memory");
	}
	s->n = c->n;
	if ((rc = ev_df_build(c)) < 0)
		goto fail;
	for (size_t i = 0; i < c->n; i++)
		if (c->len[i] > maxlen)
			maxlen = c->len[i];
	if (!(tmp = malloc((maxlen + 1) * sizeof(*tmp)))) {
		rc = nd_error_set(ND_ENOMEM, "out of memory");
		goto fail;
	}
	for (size_t i = 0; i < c->n; i++) {
		double acc[64] = {0};
		if (c->len[i]) /* a document without words may have no array */
			memcpy(tmp, c->ids[i], c->len[i] * sizeof(*tmp));
		qsort(tmp, c->len[i], sizeof(*tmp), cmp_u32);
		for (size_t j = 0; j < c->len[i];) {
			size_t k = j;
			while (k < c->len[i] && tmp[k] == tmp[j])
				k++;
			double wt = (1 + log((double)(k - j))) * log((double)c->n / (double)ev_df(c, tmp[j]) + 1);
			uint64_t f = nd_mix64(tmp[j] + 0x51ULL);
			for (int bit = 0; bit < 64; bit++)
				acc[bit] += (f >> bit & 1) ? wt : -wt;
			j = k;
		}
		uint64_t h = 0;
		for (int bit = 0; bit < 64; bit++)
			if (acc[bit] > 0)
				h |= 1ULL << bit;
		s->h[i] = h;
	}
	free(tmp);
	*state = s;
	return ND_OK;
fail:
	free(tmp);
	free(s->h);
	free(s);
	return rc;
}

static double simhash_sim(uint64_t a, uint64_t b)
{
	return 1.0 - (double)__builtin_popcountll(a ^ b) / 64.0;
}

static int simhash_candidates(void *vs, ev_corpus *c, double min_score, ev_emit emit, void *ctx)
{
	simhash_state *s = vs;
	keyed *k = malloc((s->n + 1) * sizeof(*k));
	int rc = ND_OK;
	(void)c;
	if (!k)
		return nd_error_set(ND_ENOMEM, "out of memory");
	for (int blk = 0; blk < SIM_BLOCKS && rc == ND_OK; blk++) {
		int shift = blk * (64 / SIM_BLOCKS);
		for (size_t i = 0; i < s->n; i++)
			k[i] = (keyed){s->h[i] >> shift & 0xff, (uint32_t)i};
		qsort(k, s->n, sizeof(*k), cmp_keyed);
		for (size_t i = 0; i < s->n && rc == ND_OK;) {
			size_t j = i;
			while (j < s->n && k[j].key == k[i].key)
				j++;
			for (size_t a = i; a < j && rc == ND_OK; a++)
				for (size_t b = a + 1; b < j && rc == ND_OK; b++) {
					uint64_t x = s->h[k[a].doc], y = s->h[k[b].doc];
					/* Reported at the first block the pair shares. */
					int earlier = 0;
					for (int e = 0; e < blk && !earlier; e++)
						earlier = ((x ^ y) >> (e * (64 / SIM_BLOCKS)) & 0xff) == 0;
					double sim = simhash_sim(x, y);
					if (!earlier && sim >= min_score)
						rc = emit(k[a].doc, k[b].doc, sim, ctx);
				}
			i = j;
		}
	}
	free(k);
	return rc;
}

static int simhash_score(void *vs, ev_corpus *c, size_t a, size_t b, double *out)
{
	simhash_state *s = vs;
	(void)c;
	*out = simhash_sim(s->h[a], s->h[b]);
	return ND_OK;
}

static void simhash_release(void *vs)
{
	simhash_state *s = vs;
	if (s)
		free(s->h);
	free(s);
}

/* ---- minhash + LSH ---- */

#define MH_K 128
#define MH_BANDS 32
#define MH_ROWS 4

typedef struct {
	uint64_t *mh; /* n * MH_K */
	uint8_t *empty;
	size_t n;
} minhash_state;

static int minhash_prepare(void **state, ev_corpus *c)
{
	shingle_state *sh;
	minhash_state *s = calloc(1, sizeof(*s));
	int rc;
	if (!s)
		return nd_error_set(ND_ENOMEM, "out of memory");
	if ((rc = shingle_prepare((void **)&sh, c, 5, 1, 0)) < 0) {
		free(s);
		return rc;
	}
	s->n = c->n;
	if (!(s->mh = malloc((c->n + 1) * MH_K * sizeof(uint64_t))) || !(s->empty = calloc(c->n + 1, 1))) {
		free(s->mh);
		free(s);
		shingle_release(sh);
		return nd_error_set(ND_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < c->n; i++) {
		uint64_t *m = s->mh + i * MH_K;
		for (int k = 0; k < MH_K; k++)
			m[k] = UINT64_MAX;
		s->empty[i] = sh->sets[i].n == 0;
		for (size_t j = 0; j < sh->sets[i].n; j++)
			for (int k = 0; k < MH_K; k++) {
				uint64_t h = nd_mix64(sh->sets[i].v[j] ^ (0x9e3779b97f4a7c15ULL * (uint64_t)(k + 1)));
				if (h < m[k])
					m[k] = h;
			}
	}
	shingle_release(sh);
	*state = s;
	return ND_OK;
}

static double minhash_sim(const minhash_state *s, size_t a, size_t b)
{
	const uint64_t *x = s->mh + a * MH_K, *y = s->mh + b * MH_K;
	int eq = 0;
	if (s->empty[a] || s->empty[b])
		return 0;
	for (int k = 0; k < MH_K; k++)
		eq += x[k] == y[k];
	return (double)eq / MH_K;
}

static int minhash_candidates(void *vs, ev_corpus *c, double min_score, ev_emit emit, void *ctx)
{
	minhash_state *s = vs;
	keyed *k = malloc((s->n + 1) * sizeof(*k));
	uint64_t *pairs = NULL;
	size_t np = 0, cap = 0;
	int rc = ND_OK;
	(void)c;
	if (!k)
		return nd_error_set(ND_ENOMEM, "out of memory");
	for (int band = 0; band < MH_BANDS && rc == ND_OK; band++) {
		size_t m = 0;
		for (size_t i = 0; i < s->n; i++)
			if (!s->empty[i])
				k[m++] = (keyed){nd_hash_bytes(s->mh + i * MH_K + band * MH_ROWS,
							       MH_ROWS * sizeof(uint64_t), (uint64_t)band),
						 (uint32_t)i};
		qsort(k, m, sizeof(*k), cmp_keyed);
		for (size_t i = 0; i < m && rc == ND_OK;) {
			size_t j = i;
			while (j < m && k[j].key == k[i].key)
				j++;
			for (size_t a = i; a < j && rc == ND_OK; a++)
				for (size_t b = a + 1; b < j; b++) {
					if (nd_array_reserve((void **)&pairs, &cap, np + 1, sizeof(uint64_t)) < 0) {
						rc = nd_error_set(ND_ENOMEM, "out of memory for LSH pairs");
						break;
					}
					pairs[np++] = (uint64_t)k[a].doc << 32 | k[b].doc;
				}
			i = j;
		}
	}
	if (rc == ND_OK)
		np = unique_u64(pairs, np);
	for (size_t i = 0; i < np && rc == ND_OK; i++) {
		size_t a = (size_t)(pairs[i] >> 32), b = (size_t)(pairs[i] & 0xffffffffu);
		double sim = minhash_sim(s, a, b);
		if (sim >= min_score)
			rc = emit(a, b, sim, ctx);
	}
	free(pairs);
	free(k);
	return rc;
}

static int minhash_score(void *vs, ev_corpus *c, size_t a, size_t b, double *out)
{
	(void)c;
	*out = minhash_sim(vs, a, b);
	return ND_OK;
}

static void minhash_release(void *vs)
{
	minhash_state *s = vs;
	if (s) {
		free(s->mh);
		free(s->empty);
	}
	free(s);
}

/* ---- I-Match ---- */

#define IMATCH_MIN_WORDS 5

typedef struct {
	uint64_t *key;
} imatch_state;

static int imatch_prepare(void **state, ev_corpus *c)
{
	imatch_state *s = calloc(1, sizeof(*s));
	uint32_t *tmp = NULL;
	size_t maxlen = 0;
	int rc;
	if (!s || !(s->key = calloc(c->n + 1, sizeof(uint64_t)))) {
		free(s);
		return nd_error_set(ND_ENOMEM, "out of memory");
	}
	if ((rc = ev_df_build(c)) < 0)
		goto fail;
	for (size_t i = 0; i < c->n; i++)
		if (c->len[i] > maxlen)
			maxlen = c->len[i];
	if (!(tmp = malloc((maxlen + 1) * sizeof(*tmp)))) {
		rc = nd_error_set(ND_ENOMEM, "out of memory");
		goto fail;
	}
	/* The lexicon: words of mid idf, between a quarter and 85% of log N
	 * (neither in nearly every document nor in only a handful). */
	double logn = log((double)(c->n > 1 ? c->n : 2)), lo = 0.25 * logn, hi = 0.85 * logn;
	for (size_t i = 0; i < c->n; i++) {
		size_t m = 0;
		if (c->len[i]) /* a document without words may have no array */
			memcpy(tmp, c->ids[i], c->len[i] * sizeof(*tmp));
		qsort(tmp, c->len[i], sizeof(*tmp), cmp_u32);
		uint64_t h = 0x696d61746368ULL;
		for (size_t j = 0; j < c->len[i]; j++) {
			if (j && tmp[j] == tmp[j - 1])
				continue;
			double idf = log((double)c->n / (double)ev_df(c, tmp[j]));
			if (idf < lo || idf > hi)
				continue;
			h = nd_mix64(h ^ tmp[j]) + 1;
			m++;
		}
		s->key[i] = m >= IMATCH_MIN_WORDS ? (h ? h : 1) : 0;
	}
	free(tmp);
	*state = s;
	return ND_OK;
fail:
	free(tmp);
	free(s->key);
	free(s);
	return rc;
}

static int imatch_candidates(void *vs, ev_corpus *c, double min_score, ev_emit emit, void *ctx)
{
	imatch_state *s = vs;
	(void)min_score;
	return emit_groups(s->key, c->n, emit, ctx, NULL, NULL);
}

static int imatch_score(void *vs, ev_corpus *c, size_t a, size_t b, double *out)
{
	imatch_state *s = vs;
	(void)c;
	*out = s->key[a] && s->key[a] == s->key[b];
	return ND_OK;
}

static void imatch_release(void *vs)
{
	imatch_state *s = vs;
	if (s)
		free(s->key);
	free(s);
}

/* ---- the table ---- */

static const ev_method m_desc = {"descriptive", "equal keys", 1, 1, 1, desc_prepare_plain,
				 desc_candidates, desc_score, desc_release, 0};
static const ev_method m_descx = {"descriptive+xcheck", "equal keys, Levenshtein <= 0.08", 1, 1, 1,
				  desc_prepare_x, desc_candidates, desc_score, desc_release, 0};
static const ev_method m_descj = {"descriptive-jaccard", "bit-set Jaccard >= 0.5", 0, 0.5, 0,
				  desc_prepare_plain, descj_candidates, descj_score, desc_release, 0};
static const ev_method m_desch = {"descriptive-hamming", "Hamming <= 2 (score 1/(1+H); pairs <= 8)", 0,
				  1.0 / 3.0, 1.0 / 9.0, desc_prepare_plain, desch_candidates, desch_score,
				  desc_release, 0};
static const ev_method m_desct = {"descriptive-tolerant+xcheck", "bits J >= floor or present words J >= floor, shingles w=3 >= 0.5", 0,
				  0.5, 0, desc_prepare_plain, desct_candidates, desct_score, desc_release, 0};
static const ev_method m_desctl = {"descriptive-tolerant+lev",
				   "bits Jaccard >= 0.5, Levenshtein <= 0.08 (check --tolerant 0.5 --point strict)", 1, 1, 1,
				   desc_prepare_plain, desctl_candidates, desctl_score, desc_release, 0};
static const ev_method m_descm = {"descriptive-multi", "4 sets of 50% of the words, any key equal", 1, 1,
				  1, multi_prepare_plain, multi_candidates, multi_score, multi_release, 0};
static const ev_method m_descmx = {"descriptive-multi+xcheck", "4 sets, any key equal, shingles w=3 >= 0.5",
				   0, 0.5, 0, multi_prepare_x, multi_candidates, multi_score, multi_release, 0};
static const ev_method m_shingles = {"shingles", "w=10, resemblance >= 7/8", 0, 0.875, 0,
				     shingles_prepare, shingle_candidates, shingle_score, shingle_release, 0};
static const ev_method m_mod16 = {"shingles-mod16", "w=10 mod 16, resemblance >= 7/8", 0, 0.875, 0,
				  mod16_prepare, shingle_candidates, shingle_score, shingle_release, 0};
static const ev_method m_sscr = {"sscr", "w=5, sscr >= 0.9", 0, 0.9, 0, sscr_prepare, shingle_candidates,
				 shingle_score, shingle_release, 0};
static const ev_method m_docq = {"docq4", "q=4, docq >= 0.8 (pairs >= 0.5)", 0, 0.8, 0.5, docq_prepare, docq_candidates,
				 docq_score, shingle_release, 0};
static const ev_method m_simhash = {"simhash", "64 bits, tf-idf, Hamming <= 3 (pairs <= 7)", 0, 1.0 - 3.0 / 64, 0,
				    simhash_prepare, simhash_candidates, simhash_score, simhash_release, 0};
static const ev_method m_minhash = {"minhash", "128 x w=5, LSH 32x4, estimate >= 0.8", 0, 0.8, 0,
				    minhash_prepare, minhash_candidates, minhash_score, minhash_release, 0};
static const ev_method m_imatch = {"imatch", "mid-idf lexicon, one hash", 1, 1, 1, imatch_prepare,
				   imatch_candidates, imatch_score, imatch_release, 0};

static const ev_method m_desclsh = {"descriptive-lsh+xcheck",
				    "LSH bands of MinHashes (--lsh), shingles w=3 >= 0.5", 0, 0.5, 0,
				    lsh_prepare, lsh_candidates, lsh_score, lsh_release, 0};

static const ev_method m_descnear = {"descriptive-near+xcheck",
				     "the store's near-neighbour index (clusters --linkage), shingles w=3", 0, 0.5, 0,
				     near_prepare, near_candidates, near_score, near_release, 0};

static const ev_method m_vstrict = {"verdict-strict", "equal keys and the index, Levenshtein <= 0.08, values kept (--point strict)",
				   1, 1, 1, desc_prepare_plain, vstrict_candidates, vstrict_score, desc_release, 0};
static const ev_method m_vcopy = {"verdict-copy", "the index, equal text, shingles w=3 >= 0.5 or contained >= 0.8, values kept (--point copy)",
				  0, ND_POINT_COPY_RESEMBLANCE, 0, desc_prepare_plain, vcopy_candidates, vres_score,
				  desc_release, 0};
static const ev_method m_vstory = {"verdict-story", "the index, equal text, contained or shingles w=3 >= 0.08, values kept (--point story)",
				   0, ND_POINT_STORY_RESEMBLANCE, 0, desc_prepare_plain, vstory_candidates, vres_score,
				   desc_release, 0};

const ev_method *const ev_methods[] = {&m_vstrict, &m_vcopy, &m_vstory, &m_desc, &m_descx, &m_descj, &m_desch,
				       &m_desct, &m_desctl, &m_desclsh, &m_descnear, &m_descm, &m_descmx, &m_shingles, &m_mod16, &m_sscr,
				       &m_docq, &m_simhash, &m_minhash, &m_imatch, &ev_m_svm, &ev_m_weights, NULL};
