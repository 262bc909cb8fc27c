/* Leader clustering inside a candidate cluster: bounded comparisons, exact
 * distances where they matter (<= the bound), cut-off elsewhere. */
#include "neardup/verify.h"
#include "descriptor/verify/verify_internal.h"
#include "neardup/similarity.h"
#include "neardup/words.h"
#include "common/nd_buf.h"
#include "common/nd_join.h"
#include "common/nd_hash.h"
#include "neardup/tokenizer.h"

#include <stdlib.h>
#include <string.h>

/* Cached result: a header that must match, then one entry per member. */
typedef struct {
	uint32_t magic, n, ngroups, shingle_width, max_leaders, point;
	uint64_t max_exact_words;
	double max_distance, min_resemblance;
} cache_head;

typedef struct {
	uint32_t docid, group, how, pad;
	double distance;
} cache_ent;

#define CACHE_MAGIC 0x6e647632u /* "ndv2": with the operating point */

static cache_head head_for(const nd_verify_options *o, size_t n, uint32_t ngroups)
{
	cache_head h;
	memset(&h, 0, sizeof(h)); /* no uninitialised padding in the store */
	h.magic = CACHE_MAGIC;
	h.n = (uint32_t)n;
	h.ngroups = ngroups;
	h.shingle_width = o->shingle_width;
	h.max_leaders = o->max_leaders;
	h.point = (uint32_t)o->point;
	h.max_exact_words = o->max_exact_words;
	h.max_distance = o->max_distance;
	h.min_resemblance = o->min_resemblance;
	return h;
}

/* 1 and the result when the store holds one for these members and options. */
static int cache_lookup(nd_store_txn *txn, uint64_t key, const nd_docid *docs, size_t n,
			const nd_verify_options *o, nd_verified *out, uint32_t *ngroups)
{
	const void *val;
	size_t len;
	cache_head h, want = head_for(o, n, 0);
	if (nd_store_cluster_cache_get(txn, key, &val, &len) != ND_OK ||
	    len != sizeof(cache_head) + n * sizeof(cache_ent))
		return 0;
	memcpy(&h, val, sizeof(h));
	want.ngroups = h.ngroups;
	if (memcmp(&h, &want, sizeof(h)))
		return 0;
	for (size_t i = 0; i < n; i++) {
		cache_ent e;
		memcpy(&e, (const char *)val + sizeof(h) + i * sizeof(e), sizeof(e));
		if (e.docid != docs[i] || e.group >= h.ngroups || (e.how > ND_VERIFIED_CONTAINMENT && e.how != ND_VERIFIED_PASSAGES))
			return 0;
		out[i] = (nd_verified){e.docid, e.group, e.distance, (nd_verify_how)e.how};
	}
	*ngroups = h.ngroups;
	return 1;
}

typedef struct {
	nd_docid docid;
	uint32_t *ids;
	size_t n;
} rebuilt_seq;

/* One cluster's cache writes: its result and the sequences rebuilt from
 * positions, computed from a snapshot at records generation gen. */
typedef struct {
	uint64_t gen, key;
	char *val;
	size_t len;
	rebuilt_seq *rebuilt;
	size_t nrebuilt, rebuilt_cap;
} cache_write;

static void cache_write_clear(cache_write *c)
{
	free(c->val);
	for (size_t i = 0; i < c->nrebuilt; i++)
		free(c->rebuilt[i].ids);
	free(c->rebuilt);
	memset(c, 0, sizeof(*c));
}

static int cache_encode(cache_write *c, const cache_head *head, const nd_verified *res, size_t n)
{
	c->len = sizeof(cache_head) + n * sizeof(cache_ent);
	if (!(c->val = malloc(c->len)))
		return nd_error_set(ND_ENOMEM, "out of memory");
	memcpy(c->val, head, sizeof(*head));
	for (size_t i = 0; i < n; i++) {
		cache_ent e = {res[i].docid, res[i].group, (uint32_t)res[i].how, 0, res[i].distance};
		memcpy(c->val + sizeof(cache_head) + i * sizeof(e), &e, sizeof(e));
	}
	return ND_OK;
}

typedef struct {
	const cache_write *w;
	size_t n;
} cache_set;

/* Writes those computed at the current generation; the others may hold
 * what a record change since would have dropped. */
static int cache_write_fn(nd_store_txn *txn, void *vctx)
{
	const cache_set *cs = vctx;
	uint64_t gen;
	int rc = nd_store_records_gen(txn, &gen);
	for (size_t k = 0; rc == ND_OK && k < cs->n; k++) {
		const cache_write *c = &cs->w[k];
		if (c->gen != gen)
			continue;
		rc = nd_store_cluster_cache_put(txn, c->key, c->val, c->len);
		for (size_t i = 0; rc == ND_OK && i < c->nrebuilt; i++)
			rc = nd_store_doc_cache_put(txn, c->rebuilt[i].docid, c->rebuilt[i].ids,
						    c->rebuilt[i].n * sizeof(uint32_t));
	}
	return rc;
}

/* Caching is best effort: a read-only store (ND_EINVAL) still verifies. */
static int cache_commit(nd_store *st, const cache_write *w, size_t n)
{
	cache_set cs = {w, n};
	int rc = n ? nd_store_write(st, cache_write_fn, &cs) : ND_OK;
	return rc == ND_EINVAL ? ND_OK : rc;
}

struct nd_verify_batch {
	nd_store *st;
	cache_write *w;
	size_t n, cap, max;
	size_t bytes, max_bytes;   /* held results and rebuilt sequences */
};

int nd_verify_batch_new(nd_verify_batch **out, nd_store *st, size_t max_clusters, size_t max_bytes)
{
	nd_verify_batch *b = calloc(1, sizeof(*b));
	*out = NULL;
	if (!b)
		return nd_error_set(ND_ENOMEM, "out of memory");
	b->st = st;
	b->max = max_clusters ? max_clusters : 4096;
	b->max_bytes = max_bytes ? max_bytes : (size_t)64 << 20;
	*out = b;
	return ND_OK;
}

int nd_verify_batch_flush(nd_verify_batch *b)
{
	int rc = cache_commit(b->st, b->w, b->n);
	for (size_t i = 0; i < b->n; i++)
		cache_write_clear(&b->w[i]);
	b->n = 0;
	b->bytes = 0;
	return rc;
}

void nd_verify_batch_free(nd_verify_batch *b)
{
	if (!b)
		return;
	(void)nd_verify_batch_flush(b);
	free(b->w);
	free(b);
}

/* Hand c to the batch (which then owns it), flushing when full. */
static int batch_add(nd_verify_batch *b, cache_write *c)
{
	void *p = b->w;
	int rc = nd_array_reserve(&p, &b->cap, b->n + 1, sizeof(*b->w));
	if (rc < 0)
		return rc;
	b->w = p;
	b->bytes += c->len;
	for (size_t i = 0; i < c->nrebuilt; i++)
		b->bytes += c->rebuilt[i].n * sizeof(uint32_t);
	b->w[b->n++] = *c;
	memset(c, 0, sizeof(*c));
	return b->n >= b->max || b->bytes >= b->max_bytes ? nd_verify_batch_flush(b) : ND_OK;
}

/* Words from the store's cache (txn may be NULL), else from the database. */
static int get_words(nd_xdb *db, nd_store_txn *txn, nd_docid docid, uint32_t **ids, size_t *n,
		     nd_words_source *src, nd_verify_stats *stats)
{
	const void *val;
	size_t len;
	if (txn && nd_store_doc_cache_get(txn, docid, &val, &len) == ND_OK && len && len % 4 == 0) {
		if (!(*ids = malloc(len)))
			return nd_error_set(ND_ENOMEM, "out of memory");
		memcpy(*ids, val, len);
		*n = len / 4;
		*src = ND_WORDS_STORED;
		stats->cached_words++;
		return ND_OK;
	}
	return nd_words_get(db, docid, ids, n, src);
}

static const char *const point_names[] = {"copy", "strict", "story"};

const char *nd_point_name(nd_point p)
{
	return (unsigned)p < 3 ? point_names[p] : NULL;
}

int nd_point_parse(const char *name, nd_point *out)
{
	for (unsigned i = 0; i < 3; i++)
		if (!strcmp(name, point_names[i])) {
			*out = (nd_point)i;
			return ND_OK;
		}
	return nd_error_set(ND_EINVAL, "no operating point '%s' (strict, copy or story)", name);
}

double nd_point_resemblance(nd_point p)
{
	return p == ND_POINT_COPY ? ND_POINT_COPY_RESEMBLANCE : p == ND_POINT_STORY ? ND_POINT_STORY_RESEMBLANCE : 1.0;
}

/* The records of two word sequences (record.h), both or neither. */
static int make_records(const uint32_t *a, size_t na, const uint32_t *b, size_t nb, nd__rec *ra, nd__rec *rb)
{
	int rc = nd__rec_make(a, na, ra, NULL, 0);
	if (rc == ND_OK && (rc = nd__rec_make(b, nb, rb, NULL, 0)) < 0)
		nd__rec_free(ra);
	return rc;
}

/* The verdict on two word sequences.  Copy and story: their records
 * (record.h) compared with every shingle weighing 1, as for two texts
 * outside a collection; the store's paths weigh them by the collection
 * (nd__rec_verdict with its common shingles).  Strict: word Levenshtein
 * within the bound (long pairs: 10-shingle resemblance), and the records'
 * vetoes (nd__rec_refused). */
int nd_verify_pair(const uint32_t *a, size_t na, const uint32_t *b, size_t nb, const nd_verify_options *o,
		   nd_verify_how *how, double *distance)
{
	static const nd_verify_options defaults = ND_VERIFY_OPTIONS_INIT;
	nd__rec ra, rb;
	int rc, yes = 0;
	if (!o)
		o = &defaults;
	memset(&ra, 0, sizeof(ra));
	memset(&rb, 0, sizeof(rb));
	if (o->point != ND_POINT_STRICT) {
		if ((rc = make_records(a, na, b, nb, &ra, &rb)) == ND_OK)
			rc = nd__rec_verdict(o->point, &ra, &rb, NULL, how, distance);
		goto done;
	}
	size_t longer = na > nb ? na : nb;
	if (longer > o->max_exact_words) {
		nd_shingle_sim s;
		if ((rc = nd_shingle_similarity(a, na, b, nb, o->shingle_width, &s)) < 0)
			goto done;
		*how = ND_VERIFIED_SHINGLES;
		*distance = 1 - s.bag;
		yes = s.bag >= o->min_resemblance;
	} else {
		int exact;
		if ((rc = nd_levenshtein(a, na, b, nb, o->max_distance, distance, &exact)) < 0)
			goto done;
		*how = ND_VERIFIED_LEVENSHTEIN;
		yes = exact && *distance <= o->max_distance;
	}
	/* The records only for the vetoes: most pairs strict is asked about
	 * are refused by the distance, and making two records (shingling and
	 * sorting both texts) cost more than the distance. */
	if (yes && na && nb) {
		if ((rc = make_records(a, na, b, nb, &ra, &rb)) < 0)
			goto done;
		if (nd__rec_refused(ND_POINT_STRICT, &ra, &rb, how))
			yes = 0; /* two fillings of one template, or of one about two names */
	}
	rc = yes;
done:
	nd__rec_free(&ra);
	nd__rec_free(&rb);
	return rc;
}

typedef struct {
	uint32_t *ids;
	size_t n;
	uint32_t group;
} leader;

int nd__verify_options_check(const nd_verify_options *o)
{
	/* Written so that NaN fails: it passes every "x < lo || x > hi". */
	if (o && !(o->max_distance >= 0 && o->max_distance < 1))
		return nd_error_set(ND_EINVAL, "max_distance must be in [0, 1), not %g", o->max_distance);
	if (o && !(o->min_resemblance >= 0 && o->min_resemblance <= 1))
		return nd_error_set(ND_EINVAL, "min_resemblance must be in [0, 1], not %g", o->min_resemblance);
	if (o && !nd_point_name(o->point))
		return nd_error_set(ND_EINVAL, "no operating point %d", (int)o->point);
	return ND_OK;
}

int nd_verify_cluster(nd_xdb *db, nd_store *st, uint64_t key, const nd_docid *docs, size_t n,
		      const nd_verify_options *opts, nd_verified *out, uint32_t *ngroups,
		      nd_verify_stats *stats)
{
	cache_write cw = {0};
	nd_store_txn *txn = NULL;
	nd_verify_options o = ND_VERIFY_OPTIONS_INIT;
	nd_verify_stats local = {0};
	leader *leaders = NULL;
	size_t nleaders = 0;
	uint32_t groups = 0;
	int rc = ND_OK;

	if ((rc = nd__verify_options_check(opts)) < 0)
		return rc;
	if (opts)
		o = *opts;
	if (!stats)
		stats = &local;
	if (o.max_leaders == 0)
		o.max_leaders = 1;
	/* One snapshot for every cache read of this cluster; its records
	 * generation decides whether the result may still be cached. */
	if (st && (nd_store_read_begin(st, &txn) < 0 || nd_store_records_gen(txn, &cw.gen) < 0)) {
		nd_store_txn_end(txn);
		txn = NULL; /* caches are an optimisation: verify without them */
		st = NULL;
	}
	if (txn && cache_lookup(txn, key, docs, n, &o, out, &groups)) {
		nd_store_txn_end(txn);
		stats->cached_clusters++;
		if (ngroups)
			*ngroups = groups;
		return ND_OK;
	}
	if (!(leaders = calloc(o.max_leaders, sizeof(*leaders)))) {
		nd_store_txn_end(txn);
		return nd_error_set(ND_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t *ids = NULL;
		size_t nw = 0;
		nd_words_source src;
		out[i] = (nd_verified){docs[i], 0, 0, ND_VERIFIED_REPRESENTATIVE};
		rc = get_words(db, txn, docs[i], &ids, &nw, &src, stats);
		if (rc == ND_ENOTFOUND) {
			out[i].group = groups++;
			out[i].how = ND_VERIFY_NO_WORDS;
			stats->no_words++;
			rc = ND_OK;
			continue;
		}
		if (rc < 0)
			goto cleanup;
		if (src == ND_WORDS_DATA)
			stats->from_data++;
		if (src == ND_WORDS_POSITIONS) {
			stats->rebuilt++;
			/* Keep a copy to cache: rebuilding costs a lookup per word. */
			void *p = cw.rebuilt;
			uint32_t *copy = NULL;
			if (st && nd_array_reserve(&p, &cw.rebuilt_cap, cw.nrebuilt + 1, sizeof(rebuilt_seq)) == ND_OK &&
			    (copy = malloc(nw * sizeof(uint32_t) + 1))) {
				cw.rebuilt = p;
				memcpy(copy, ids, nw * sizeof(uint32_t));
				cw.rebuilt[cw.nrebuilt++] = (rebuilt_seq){docs[i], copy, nw};
			} else
				cw.rebuilt = p;
		}
		int joined = 0;
		for (size_t l = 0; l < nleaders && !joined; l++) {
			const leader *L = &leaders[l];
			nd_verify_how how;
			double d;
			stats->compared++;
			if ((rc = nd_verify_pair(L->ids, L->n, ids, nw, &o, &how, &d)) < 0) {
				free(ids);
				goto cleanup;
			}
			if (rc) {
				out[i] = (nd_verified){docs[i], L->group, d, how};
				joined = 1;
			} else
				stats->rejected++;
			rc = ND_OK;
		}
		if (joined) {
			free(ids);
			continue;
		}
		out[i].group = groups++;
		if (nleaders < o.max_leaders)
			leaders[nleaders++] = (leader){ids, nw, out[i].group};
		else
			free(ids); /* past max_leaders: a group of its own, never compared again */
	}
	nd_store_txn_end(txn); /* a held snapshot would pin pages the write could reuse */
	txn = NULL;
	if (st) {
		cache_head head = head_for(&o, n, groups);
		cw.key = key;
		if ((rc = cache_encode(&cw, &head, out, n)) < 0)
			goto cleanup;
		if (o.batch && o.batch->st == st)
			rc = batch_add(o.batch, &cw);
		else
			rc = cache_commit(st, &cw, 1);
	}
cleanup:
	for (size_t l = 0; l < nleaders; l++)
		free(leaders[l].ids);
	free(leaders);
	nd_store_txn_end(txn);
	cache_write_clear(&cw);
	if (ngroups)
		*ngroups = groups;
	return rc;
}

/* ---- tolerant groups: candidates by bit-set Jaccard, not by key ---- */

/* One document of a tolerant grouping: its bits, and its words once read. */
typedef struct {
	nd_sig sig;
	uint32_t *rare;   /* its bits, rarest in the list first: the prefix order */
	uint32_t *words;
	size_t nwords;
	uint64_t *fp;     /* nd_cluster_linkage: its shingles, sorted, in place of words */
	size_t nfp;
	int read;         /* 0 not yet, 1 words (or shingles), -1 none (deleted, or no words) */
} tol_doc;

static int tol_words(nd_xdb *db, nd_docid docid, tol_doc *t)
{
	int rc;
	if (t->read)
		return ND_OK;
	rc = nd_words_get(db, docid, &t->words, &t->nwords, NULL);
	t->read = rc == ND_OK ? 1 : -1;
	return rc == ND_ENOTFOUND ? ND_OK : rc;
}

/* Keep t's words (or shingles) just read while those held stay within
 * budget; else drop them, to be read again when next compared. */
static void hold_words(tol_doc *t, size_t *held, size_t budget)
{
	size_t bytes = t->nwords * sizeof(uint32_t) + t->nfp * sizeof(uint64_t);
	if (t->read <= 0)
		return;
	if (*held + bytes > budget) {
		free(t->words);
		free(t->fp);
		t->words = NULL;
		t->fp = NULL;
		t->read = 0;
	} else
		*held += bytes;
}

/* t's w-shingles as a sorted multiset (what nd_shingle_similarity's bag
 * resemblance compares), made once per document rather than per pair. */
static int tol_shingles(nd_xdb *db, nd_docid docid, unsigned w, tol_doc *t)
{
	int rc;
	if (t->read)
		return ND_OK;
	if ((rc = tol_words(db, docid, t)) < 0 || t->read < 0)
		return rc;
	size_t n = t->nwords ? (t->nwords >= w ? t->nwords - w + 1 : 1) : 0;
	if (n && !(t->fp = malloc(n * sizeof(*t->fp))))
		return nd_error_set(ND_ENOMEM, "out of memory for %zu shingles", n);
	for (size_t i = 0; i < n; i++)
		t->fp[i] = nd_shingle_fp(t->words, t->nwords, i, w);
	nd__sort_u64(t->fp, n);
	t->nfp = n;
	free(t->words);
	t->words = NULL;
	t->nwords = 0;
	if (!n)
		t->read = -1; /* no words: nothing to compare */
	return ND_OK;
}

/* Every document's bits, from one snapshot (no words are read inside it),
 * and each one's bits rarest first in the list (ties by bit): the order
 * of prefix filtering, so that the postings probed are short; and an
 * empty prefix index over every bit.  tol_free frees. */
static int tol_load(nd_store *st, const nd_docid *docs, size_t n, tol_doc **out, nd_prefix_index *post)
{
	nd_store_txn *txn = NULL;
	tol_doc *t = calloc(n + 1, sizeof(*t));
	size_t *df = NULL;
	uint32_t nbitv = 0;
	int rc = ND_OK;

	*out = t;
	post->post = NULL;
	post->nelem = 0;
	if (!t)
		return nd_error_set(ND_ENOMEM, "out of memory");
	if ((rc = nd_store_read_begin(st, &txn)) < 0)
		return rc;
	for (size_t i = 0; i < n; i++) {
		const void *pay;
		size_t len;
		uint64_t key;
		rc = nd_store_doc_get(txn, docs[i], &key, &pay, &len);
		if (rc == ND_ENOTFOUND)
			continue; /* not signed: a group of its own */
		if (rc < 0 || (rc = nd_sig_decode(&t[i].sig, pay, len, UINT16_MAX + 1u)) < 0)
			break;
	}
	nd_store_txn_end(txn);
	if (rc == ND_ENOTFOUND)
		rc = ND_OK;
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < n; i++)
		if (t[i].sig.nbits && t[i].sig.bits[t[i].sig.nbits - 1] >= nbitv)
			nbitv = t[i].sig.bits[t[i].sig.nbits - 1] + 1u;
	if ((rc = nd_prefix_index_init(post, nbitv)) < 0)
		return rc;
	if (!(df = calloc(nbitv + 1, sizeof(*df))))
		return nd_error_set(ND_ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++)
		for (uint32_t b = 0; b < t[i].sig.nbits; b++)
			df[t[i].sig.bits[b]]++;
	for (size_t i = 0; i < n && rc == ND_OK; i++) {
		uint32_t nb = t[i].sig.nbits;
		if (nb && !(t[i].rare = malloc(nb * sizeof(*t[i].rare)))) {
			rc = nd_error_set(ND_ENOMEM, "out of memory");
			break;
		}
		for (uint32_t b = 0; b < nb; b++) { /* insertion sort by (count, bit) */
			uint32_t x = t[i].sig.bits[b];
			uint32_t k = b;
			for (; k > 0 && df[t[i].rare[k - 1]] > df[x]; k--)
				t[i].rare[k] = t[i].rare[k - 1];
			t[i].rare[k] = x;
		}
	}
	free(df);
	return rc;
}

static void tol_free(tol_doc *t, size_t n, nd_prefix_index *post)
{
	for (size_t i = 0; t && i < n; i++) {
		nd_sig_clear(&t[i].sig);
		free(t[i].rare);
		free(t[i].words);
		free(t[i].fp);
	}
	free(t);
	nd_prefix_index_free(post);
}

typedef struct {
	nd_docid id;
	size_t i;
} id_ref;

static int cmp_id_ref(const void *a, const void *b)
{
	const id_ref *x = a, *y = b;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

int nd_verify_tolerant(nd_xdb *db, nd_store *st, const nd_verify_options *vo, double min_jaccard,
		       const nd_docid *docs, size_t n, const nd_docid *groups, size_t *into, double *distance)
{
	nd_verify_options o = ND_VERIFY_OPTIONS_INIT;
	tol_doc *t = NULL;
	uint32_t *cands = NULL;
	size_t ccap = 0;
	nd_prefix_index post = {NULL, 0}; /* bit -> leaders with it in their prefix */
	size_t *first = NULL; /* groups: index of the first document with the same id */
	id_ref *refs = NULL;
	size_t held = 0;      /* bytes of leaders' words held */
	int rc = ND_OK;

	if (!(min_jaccard > 0 && min_jaccard <= 1))
		return nd_error_set(ND_EINVAL, "min_jaccard must be in (0, 1], not %g", min_jaccard);
	if (vo)
		o = *vo;
	if (o.max_leaders == 0)
		o.max_leaders = 1;
	if (o.max_held_bytes == 0)
		o.max_held_bytes = (size_t)256 << 20;
	if (n == 0)
		return ND_OK;
	/* In order: a document joins the first leader it matches.  Of the
	 * leaders whose bit sets are similar enough, the first max_leaders
	 * are compared, so a document costs a bounded number of comparisons
	 * however many share its bits.  Leaders are found by prefix filtering
	 * (as tolerant_candidates in check.c), not by a scan of all of them:
	 * n may be in the millions. */
	if ((rc = tol_load(st, docs, n, &t, &post)) < 0)
		goto cleanup;
	if (groups) {
		size_t m = 0;
		if (!(first = malloc(n * sizeof(*first))) || !(refs = malloc(n * sizeof(*refs)))) {
			rc = nd_error_set(ND_ENOMEM, "out of memory");
			goto cleanup;
		}
		for (size_t i = 0; i < n; i++) {
			first[i] = i;
			if (groups[i])
				refs[m++] = (id_ref){groups[i], i};
		}
		qsort(refs, m, sizeof(*refs), cmp_id_ref);
		for (size_t r = 1; r < m; r++)
			if (refs[r].id == refs[r - 1].id)
				first[refs[r].i] = first[refs[r - 1].i];
	}
	for (size_t i = 0; i < n; i++) {
		size_t compared = 0, nc = 0;
		if (first && first[i] != i) {
			into[i] = into[first[i]]; /* verified with it already, by key */
			if (distance)
				distance[i] = -1;
			continue;
		}
		into[i] = i;
		if (distance)
			distance[i] = 0;
		uint32_t nb = t[i].sig.nbits, pre = nd_jaccard_prefix(nb, min_jaccard);
		if ((rc = nd_prefix_candidates(t[i].rare, pre, nd_prefix_index_postings, &post, &cands, &nc,
					       &ccap)) < 0)
			goto cleanup;
		for (size_t c = 0; c < nc && compared < o.max_leaders; c++) {
			size_t k = cands[c];
			tol_doc *K = &t[k];
			if (nd__sig_jaccard(&t[i].sig, &K->sig) < min_jaccard - 1e-12)
				continue;
			if ((rc = tol_words(db, docs[i], &t[i])) < 0)
				goto cleanup;
			if (t[i].read < 0)
				break; /* no words: nothing to verify it by */
			int was_read = K->read;
			if ((rc = tol_words(db, docs[k], K)) < 0)
				goto cleanup;
			if (K->read < 0)
				continue;
			compared++;
			nd_verify_how how;
			double d;
			rc = nd_verify_pair(K->words, K->nwords, t[i].words, t[i].nwords, &o, &how, &d);
			if (!was_read)
				hold_words(K, &held, o.max_held_bytes);
			if (rc < 0)
				goto cleanup;
			if (rc) {
				into[i] = k;
				if (distance)
					distance[i] = d;
				break;
			}
		}
		rc = ND_OK;
		if (into[i] == i) {
			if ((rc = nd_prefix_index_add(&post, t[i].rare, pre, (uint32_t)i)) < 0)
				goto cleanup;
			hold_words(&t[i], &held, o.max_held_bytes);
		} else {
			free(t[i].words); /* never compared again */
			t[i].words = NULL;
		}
	}
cleanup:
	tol_free(t, n, &post);
	free(first);
	free(refs);
	free(cands);
	return rc;
}

/* ---- clusters by average linkage over shingle resemblance ---- */

typedef struct {
	nd_scored *p;
	size_t n, cap;
} scored_list;

int nd_cluster_linkage(nd_xdb *db, nd_store *st, const nd_linkage_options *lo, const nd_docid *docs,
		       size_t n, size_t *into, nd_linkage_stats *stats)
{
	nd_linkage_options o = ND_LINKAGE_OPTIONS_INIT;
	nd_verify_options vo = ND_VERIFY_OPTIONS_INIT;
	tol_doc *t = NULL;
	nd_prefix_index post = {NULL, 0}; /* bit -> documents with it in their prefix */
	uint32_t *cands = NULL;
	size_t ccap = 0, held = 0;
	scored_list pairs = {0};
	int rc = ND_OK;

	if (lo)
		o = *lo;
	if (!(o.min_jaccard > 0 && o.min_jaccard <= 1))
		return nd_error_set(ND_EINVAL, "min_jaccard must be in (0, 1], not %g", o.min_jaccard);
	if (!(o.cut > 0 && o.cut <= 1))
		return nd_error_set(ND_EINVAL, "the cut must be in (0, 1], not %g", o.cut);
	if (o.shingle_width == 0)
		return nd_error_set(ND_EINVAL, "the shingle width must be at least 1");
	if (n >= UINT32_MAX)
		return nd_error_set(ND_EINVAL, "too many documents to cluster at once (%zu)", n);
	for (size_t i = 0; i < n; i++)
		into[i] = i;
	if (n == 0)
		return ND_OK;
	/* Candidates: every earlier document whose bit set has Jaccard >=
	 * min_jaccard with this one's, by prefix filtering; each pair is
	 * scored by its words' shingle resemblance. */
	if ((rc = tol_load(st, docs, n, &t, &post)) < 0)
		goto cleanup;
	for (size_t i = 0; i < n; i++) {
		uint32_t pre = nd_jaccard_prefix(t[i].sig.nbits, o.min_jaccard);
		size_t nc = 0;
		if ((rc = nd_prefix_candidates(t[i].rare, pre, nd_prefix_index_postings, &post, &cands, &nc,
					       &ccap)) < 0)
			goto cleanup;
		for (size_t c = 0; c < nc; c++) {
			size_t k = cands[c];
			if (nd__sig_jaccard(&t[i].sig, &t[k].sig) < o.min_jaccard - 1e-12)
				continue;
			if ((rc = tol_shingles(db, docs[i], o.shingle_width, &t[i])) < 0)
				goto cleanup;
			if (t[i].read < 0)
				break;
			int was_read = t[k].read;
			if ((rc = tol_shingles(db, docs[k], o.shingle_width, &t[k])) < 0)
				goto cleanup;
			if (t[k].read < 0)
				continue;
			size_t both = nd__common_sorted(t[k].fp, t[k].nfp, t[i].fp, t[i].nfp);
			double bag = (double)both / (double)(t[k].nfp + t[i].nfp - both);
			if (!was_read)
				hold_words(&t[k], &held, vo.max_held_bytes);
			if (stats)
				stats->compared++;
			if (bag <= 0)
				continue;
			void *v = pairs.p;
			rc = nd_array_reserve(&v, &pairs.cap, pairs.n + 1, sizeof(*pairs.p));
			pairs.p = v;
			if (rc < 0)
				goto cleanup;
			pairs.p[pairs.n++] = (nd_scored){(uint32_t)k, (uint32_t)i, bag};
		}
		if ((rc = nd_prefix_index_add(&post, t[i].rare, pre, (uint32_t)i)) < 0)
			goto cleanup;
		hold_words(&t[i], &held, vo.max_held_bytes);
		if (o.progress && (i % 1024 == 1023 || i + 1 == n))
			o.progress(i + 1, n, o.ctx);
	}
	if (stats)
		stats->pairs += pairs.n;
	rc = nd_average_linkage_clusters(n, pairs.p, pairs.n, o.cut, into);
cleanup:
	tol_free(t, n, &post);
	free(cands);
	free(pairs.p);
	return rc;
}
