/* Candidates from the store's near-neighbour index, and batch clusters
 * over them (see neardup/cluster.h).
 *
 * Batch: one walk of the index gives, per tree, the documents in sequence
 * order; each is paired with the ND_NEAR_WINDOW before it.  Pairs are
 * made distinct, every document's w-shingles are read once (u32
 * fingerprints, sorted: a multiset), and pairs are scored by bag
 * resemblance.  Pairs the index did not propose count 0: not being a
 * near neighbour is evidence too (scoring them before each join made
 * the gold set's clusters worse, 0.956 -> 0.941 max-F1), except between
 * large tentative clusters, whose averages are completed first
 * (nd_linkage_complete).  Then nd_linkage_sparse links only pairs inside
 * a component of pairs at or above the cut, and the shingles are freed
 * before it. */
#include "neardup/cluster.h"
#include "descriptor/cluster/cluster_internal.h"
#include "neardup/verify.h"
#include "descriptor/verify/verify_internal.h"
#include "neardup/similarity.h"
#include "neardup/words.h"
#include "common/nd_buf.h"
#include "common/nd_hash.h"
#include "common/nd_parallel.h"

#include <stdlib.h>
#include <string.h>

static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	return a < b ? -1 : a > b;
}

int nd_near_candidates(nd_store_txn *txn, const nd_sig *sig, nd_docid self, nd_docid **out, size_t *n)
{
	size_t cap = 2 * ND_NEAR_WINDOW * ND_NEAR_TREES, m = 0;
	uint32_t *v;
	int rc = ND_OK;
	*out = NULL;
	*n = 0;
	if (!sig->present)
		return ND_OK;
	if (!(v = malloc(cap * sizeof(*v))))
		return nd_error_set(ND_ENOMEM, "out of memory");
	for (unsigned t = 0; t < ND_NEAR_TREES && rc == ND_OK; t++) {
		size_t got = 0;
		rc = nd_store_near(txn, t, sig->near + t * ND_NEAR_ROWS, ND_NEAR_ROWS, self, ND_NEAR_WINDOW,
				   v + m, &got);
		m += got;
	}
	if (rc < 0) {
		free(v);
		return rc;
	}
	qsort(v, m, sizeof(*v), cmp_u32);
	size_t k = 0;
	for (size_t i = 0; i < m; i++)
		if (!k || v[i] != v[k - 1])
			v[k++] = v[i];
	*out = v;
	*n = k;
	return ND_OK;
}

/* ---- batch ---- */

typedef struct {
	const uint32_t *index;  /* docid -> index in docs + 1 (0: not among them) */
	uint32_t nindex;
	uint32_t ring[ND_NEAR_WINDOW];
	unsigned tree, held;
	uint64_t *pairs;
	size_t n, cap;
} walk_ctx;

static int on_entry(unsigned tree, uint32_t docid, void *vctx)
{
	walk_ctx *w = vctx;
	if (tree != w->tree)
		w->tree = tree, w->held = 0;
	if (docid >= w->nindex || !w->index[docid])
		return 0;
	uint32_t x = w->index[docid] - 1;
	if (nd_array_reserve((void **)&w->pairs, &w->cap, w->n + ND_NEAR_WINDOW, sizeof(uint64_t)) < 0)
		return nd_error_set(ND_ENOMEM, "out of memory for candidate pairs");
	unsigned have = w->held < ND_NEAR_WINDOW ? w->held : ND_NEAR_WINDOW;
	for (unsigned k = 0; k < have; k++) {
		uint32_t y = w->ring[k];
		if (y != x)
			w->pairs[w->n++] = x < y ? (uint64_t)x << 32 | y : (uint64_t)y << 32 | x;
	}
	w->ring[w->held++ % ND_NEAR_WINDOW] = x;
	return 0;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return a < b ? -1 : a > b;
}

/* Every document's shingles, sorted (a multiset), in chunks of CHUNK
 * fingerprints or more (no arena doubling: memory is what is held). */
#define CHUNK ((size_t)4 << 20)

typedef struct chunk {
	struct chunk *next;
	size_t used, cap;
	uint32_t v[];
} chunk;

typedef struct {
	nd_xdb *db;
	const char *path;
	const nd_docid *docs;
	unsigned width;
	chunk **chunks;         /* per share, newest first */
	const uint32_t **fp;    /* document i's shingles: fp[i][0..cnt[i]) */
	uint32_t *cnt;
	uint32_t nshare;
	const nd_near_options *o;
	size_t n;
} shingles;

static uint32_t *chunk_room(chunk **head, size_t k)
{
	chunk *c = *head;
	if (!c || c->cap - c->used < k) {
		size_t cap = k > CHUNK ? k : CHUNK;
		if (!(c = malloc(sizeof(chunk) + cap * sizeof(uint32_t))))
			return NULL;
		c->next = *head, c->used = 0, c->cap = cap;
		*head = c;
	}
	uint32_t *at = c->v + c->used;
	c->used += k;
	return at;
}

static int read_share(void *vctx, unsigned t, uint32_t from, uint32_t to)
{
	shingles *s = vctx;
	nd_xdb *db = s->db;
	int rc = ND_OK;
	if (t > 0 && (rc = nd_xdb_open(&db, s->path, ND_XDB_READ)) < 0)
		return rc;
	for (uint32_t i = from; i < to && rc == ND_OK; i++) {
		uint32_t *ids = NULL;
		size_t nw = 0;
		rc = nd_words_get(db, s->docs[i], &ids, &nw, NULL);
		if (rc == ND_ENOTFOUND)
			rc = ND_OK, nw = 0;
		size_t k = nd__shingles32_count(nw, s->width);
		uint32_t *fp = rc == ND_OK && k ? chunk_room(&s->chunks[t], k) : NULL;
		if (rc == ND_OK && k && !fp)
			rc = nd_error_set(ND_ENOMEM, "out of memory for the shingles of %zu documents", s->n);
		if (rc == ND_OK) {
			nd__shingles32(ids, nw, s->width, fp);
			s->fp[i] = fp;
			s->cnt[i] = (uint32_t)k;
		}
		free(ids);
		if (t == 0 && s->o->progress && (i - from) % 4096 == 4095)
			s->o->progress("words", (size_t)(i - from + 1) * s->nshare, s->n, s->o->ctx);
	}
	if (t > 0)
		nd_xdb_close(db);
	return rc;
}

static void free_shingles(shingles *s)
{
	for (unsigned t = 0; s->chunks && t < s->nshare; t++)
		for (chunk *c = s->chunks[t], *nx; c; c = nx) {
			nx = c->next;
			free(c);
		}
	free(s->chunks);
	free(s->fp);
	free(s->cnt);
	s->chunks = NULL, s->fp = NULL, s->cnt = NULL;
}

/* The shingles of docs[0..n), read in o->jobs shares (free_shingles). */
static int read_shingles(shingles *s, nd_xdb *db, const nd_docid *docs, size_t n, const nd_near_options *o)
{
	*s = (shingles){0};
	s->db = db, s->path = nd_xdb_path(db), s->docs = docs, s->width = o->shingle_width, s->o = o, s->n = n;
	s->nshare = o->jobs;
	if (!(s->chunks = calloc(o->jobs, sizeof(*s->chunks))) || !(s->fp = calloc(n + 1, sizeof(*s->fp))) ||
	    !(s->cnt = calloc(n + 1, sizeof(*s->cnt))))
		return nd_error_set(ND_ENOMEM, "out of memory");
	return n ? nd_parallel_shares(o->jobs, (uint32_t)n, read_share, s) : ND_OK;
}

size_t nd__shingles32_count(size_t nw, unsigned width)
{
	return nw ? (nw >= width ? nw - width + 1 : 1) : 0;
}

void nd__shingles32(const uint32_t *ids, size_t nw, unsigned width, uint32_t *fp)
{
	size_t k = nd__shingles32_count(nw, width);
	for (size_t j = 0; j < k; j++)
		fp[j] = (uint32_t)(nd_shingle_fp(ids, nw, j, width) >> 32);
	qsort(fp, k, sizeof(uint32_t), cmp_u32);
}

double nd__bag32(const uint32_t *x, size_t nx, const uint32_t *y, size_t ny)
{
	size_t both = 0;
	for (size_t i = 0, j = 0; i < nx && j < ny;) {
		if (x[i] == y[j])
			both++, i++, j++;
		else if (x[i] < y[j])
			i++;
		else
			j++;
	}
	return both ? (double)both / (double)(nx + ny - both) : 0;
}

/* Multiset resemblance of two documents' sorted shingle lists. */
static double bag(const shingles *s, uint32_t a, uint32_t b)
{
	return nd__bag32(s->fp[a], s->cnt[a], s->fp[b], s->cnt[b]);
}

/* Whether the copy verdict could accept the pair: its resemblance or the
 * shorter's containment near the point's (32-bit fingerprints here, 64
 * in the verdict: a margin keeps every pair it accepts). */
int nd__copy_possible(size_t nx, size_t ny, unsigned width, float score)
{
	const double margin = 0.02;
	size_t lo = nx < ny ? nx : ny, hi = nx < ny ? ny : nx;
	if (score <= 0)
		return 0;
	if (score >= ND_POINT_COPY_RESEMBLANCE - margin)
		return 1;
	if (!lo || lo + width - 1 < ND_CONTAIN_MIN_WORDS || hi > ND_CONTAIN_MAX_RATIO * (lo + width))
		return 0;
	/* score = both / (nx + ny - both), so the shared count is known
	 * without merging the lists again (that second merge was half of
	 * sign's time). */
	double both = (double)score * (double)(nx + ny) / (1.0 + (double)score);
	return both / (double)lo >= ND_POINT_COPY_CONTAINMENT - margin;
}

int nd__link_verdict(const uint32_t *x, size_t nx, const uint32_t *y, size_t ny)
{
	nd_verify_options vo = ND_VERIFY_OPTIONS_INIT;
	vo.point = ND_POINT_COPY;
	return nd__verify_decide(x, nx, y, ny, &vo);
}

typedef struct {
	shingles *s;
	const nd_docid *docs;
	const uint64_t *pairs;
	const size_t *which;     /* pairs to judge */
	float *score;            /* set to 1 (accepted) or 0 */
	nd_point point;
} judge_ctx;

/* The verdict at the point (copy: the links' own) on the pairs that could
 * pass, each share with its own database handle (Xapian's are not
 * thread-safe). */
static int judge_share(void *vctx, unsigned t, uint32_t from, uint32_t to)
{
	judge_ctx *c = vctx;
	nd_xdb *db = c->s->db;
	int rc = ND_OK;
	if (t > 0 && (rc = nd_xdb_open(&db, c->s->path, ND_XDB_READ)) < 0)
		return rc;
	for (uint32_t k = from; k < to && rc == ND_OK; k++) {
		size_t i = c->which[k];
		uint32_t *x = NULL, *y = NULL;
		size_t nx = 0, ny = 0;
		rc = nd_words_get(db, c->docs[c->pairs[i] >> 32], &x, &nx, NULL);
		if (rc == ND_OK)
			rc = nd_words_get(db, c->docs[(uint32_t)c->pairs[i]], &y, &ny, NULL);
		if (rc == ND_OK && c->point == ND_POINT_COPY)
			rc = nd__link_verdict(x, nx, y, ny);
		else if (rc == ND_OK) {
			nd_verify_options vo = ND_VERIFY_OPTIONS_INIT;
			vo.point = c->point;
			rc = nd__verify_decide(x, nx, y, ny, &vo);
		}
		c->score[i] = rc == 1 ? 1.0f : 0.0f;
		rc = rc == ND_ENOTFOUND || rc == 1 ? ND_OK : rc;
		free(x);
		free(y);
	}
	if (t > 0)
		nd_xdb_close(db);
	return rc;
}

/* Single linkage is the clusters of a point decided pair by pair (copy,
 * strict): each pair's score becomes the verdict's yes (1) or no (0), so
 * batch clusters and links are what hooks and check decide.  A pair strict
 * accepts copy accepts too, so the copy test leaves out only pairs that
 * neither can. */
static int judge(shingles *s, const nd_docid *docs, const uint64_t *pairs, size_t np, float *score,
		 unsigned jobs, nd_point point)
{
	size_t *which = malloc((np + 1) * sizeof(*which)), m = 0;
	if (!which)
		return nd_error_set(ND_ENOMEM, "out of memory");
	for (size_t i = 0; i < np; i++) {
		uint32_t a = (uint32_t)(pairs[i] >> 32), b = (uint32_t)pairs[i];
		if (nd__copy_possible(s->cnt[a], s->cnt[b], s->width, score[i]))
			which[m++] = i;
		score[i] = 0;
	}
	judge_ctx c = {s, docs, pairs, which, score, point};
	int rc = m ? nd_parallel_shares(jobs, (uint32_t)m, judge_share, &c) : ND_OK;
	free(which);
	return rc;
}

typedef struct {
	shingles *s;
	const uint64_t *pairs;
	float *score;
} score_ctx;

static int score_share(void *vctx, unsigned t, uint32_t from, uint32_t to)
{
	score_ctx *c = vctx;
	for (uint32_t i = from; i < to; i++) {
		c->score[i] = (float)bag(c->s, (uint32_t)(c->pairs[i] >> 32), (uint32_t)c->pairs[i]);
		if (t == 0 && c->s->o->progress && (i - from) % 262144 == 262143)
			c->s->o->progress("scoring", (size_t)(i - from + 1) * c->s->nshare, 0, c->s->o->ctx);
	}
	return ND_OK;
}

typedef struct {
	nd_xdb *db;
	const nd_docid *docs;
	const nd_near_options *o;
} fresh_ctx;

/* nd_score_pairs_fn for completed averages.  Every document's shingles
 * were freed before the first linkage (at 1M they are 1.3 GB, and the
 * linkage's peak); those of the pairs' documents, few, are read again. */
static int score_fresh(const uint64_t *pair, size_t n, float *out, void *vctx)
{
	fresh_ctx *f = vctx;
	uint32_t *at = NULL;
	nd_docid *sub = NULL;
	uint64_t *mapped = NULL;
	shingles s = {0};
	size_t k = 0;
	int rc;
	if (n >= UINT32_MAX / 2)
		rc = nd_error_set(ND_EINVAL, "too many pairs to score at once (%zu)", n);
	else if (!(at = malloc((2 * n + 1) * sizeof(*at))) || !(sub = malloc((2 * n + 1) * sizeof(*sub))) ||
		 !(mapped = malloc((n + 1) * sizeof(*mapped))))
		rc = nd_error_set(ND_ENOMEM, "out of memory for %zu completing pairs", n);
	else
		rc = ND_OK;
	for (size_t i = 0; i < n && rc == ND_OK; i++)
		at[2 * i] = (uint32_t)(pair[i] >> 32), at[2 * i + 1] = (uint32_t)pair[i];
	if (rc == ND_OK) {
		qsort(at, 2 * n, sizeof(*at), cmp_u32);
		for (size_t i = 0; i < 2 * n; i++)
			if (!k || at[i] != at[k - 1])
				at[k++] = at[i];
		for (size_t i = 0; i < k; i++)
			sub[i] = f->docs[at[i]]; /* ascending, as docs */
		for (size_t i = 0; i < n; i++) {
			uint32_t a = (uint32_t)(pair[i] >> 32), b = (uint32_t)pair[i];
			uint64_t x = (uint64_t)((uint32_t *)bsearch(&a, at, k, sizeof(*at), cmp_u32) - at);
			uint64_t y = (uint64_t)((uint32_t *)bsearch(&b, at, k, sizeof(*at), cmp_u32) - at);
			mapped[i] = x << 32 | y;
		}
		rc = read_shingles(&s, f->db, sub, k, f->o);
	}
	score_ctx sc = {&s, mapped, out};
	if (rc == ND_OK && n)
		rc = nd_parallel_shares(f->o->jobs, (uint32_t)n, score_share, &sc);
	free_shingles(&s);
	free(at);
	free(sub);
	free(mapped);
	return rc;
}

typedef int (*pair_fn)(nd_docid a, nd_docid b, void *ctx);

/* nd_cluster_near; with link (may be NULL; single only), also every pair linked. */
static int cluster_near(nd_xdb *db, nd_store *st, const nd_near_options *opts, nd_point point,
			const nd_docid *docs, size_t n, size_t *into, nd_near_stats *stats, pair_fn link,
			void *link_ctx)
{
	nd_near_options o = ND_NEAR_OPTIONS_INIT;
	walk_ctx w = {0};
	shingles s = {0};
	nd_store_txn *txn = NULL;
	uint32_t *index = NULL, *up = NULL;
	float *score = NULL;
	int rc = ND_OK;

	if (opts)
		o = *opts;
	if (!(o.cut > 0 && o.cut <= 1))
		return nd_error_set(ND_EINVAL, "the cut must be in (0, 1], not %g", o.cut);
	if (o.shingle_width == 0)
		return nd_error_set(ND_EINVAL, "the shingle width must be at least 1");
	if (o.jobs == 0 || o.jobs > 64)
		return nd_error_set(ND_EINVAL, "jobs must be 1..64, not %u", o.jobs);
	if (n >= UINT32_MAX)
		return nd_error_set(ND_EINVAL, "too many documents to cluster at once (%zu)", n);
	for (size_t i = 0; i < n; i++)
		into[i] = i;
	if (n == 0)
		return ND_OK;
	for (size_t i = 1; i < n; i++)
		if (docs[i] <= docs[i - 1])
			return nd_error_set(ND_EINVAL, "documents to cluster must be in ascending docid order");

	/* Candidate pairs, from one snapshot of the index. */
	w.nindex = docs[n - 1] + 1;
	if (!(index = calloc(w.nindex, sizeof(*index))))
		return nd_error_set(ND_ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++)
		index[docs[i]] = (uint32_t)i + 1;
	w.index = index;
	w.tree = UINT32_MAX;
	if ((rc = nd_store_read_begin(st, &txn)) < 0)
		goto done;
	rc = nd_store_near_each(txn, on_entry, &w);
	nd_store_txn_end(txn);
	free(index);
	index = NULL;
	if (rc < 0)
		goto done;
	if (w.n > 1)
		qsort(w.pairs, w.n, sizeof(uint64_t), cmp_u64);
	size_t np = 0;
	for (size_t i = 0; i < w.n; i++)
		if (!np || w.pairs[i] != w.pairs[np - 1])
			w.pairs[np++] = w.pairs[i];
	if (stats)
		stats->candidates += np;
	if (np && np < w.cap / 2) { /* give back the doubling's slack before the shingles come */
		uint64_t *shrunk = realloc(w.pairs, np * sizeof(uint64_t));
		if (shrunk)
			w.pairs = shrunk, w.cap = np;
	}

	/* Shingles of every document, read in o.jobs shares. */
	if ((rc = read_shingles(&s, db, docs, n, &o)) < 0)
		goto done;
	for (unsigned t = 0; t < o.jobs; t++)
		for (chunk *c = s.chunks[t]; c && stats; c = c->next)
			stats->words_bytes += c->cap * sizeof(uint32_t);

	/* Scores, then the components that can join. */
	if (np && !(score = malloc(np * sizeof(*score)))) {
		rc = nd_error_set(ND_ENOMEM, "out of memory for %zu candidate pairs", np);
		goto done;
	}
	score_ctx sc = {&s, w.pairs, score};
	if (np && (rc = nd_parallel_shares(o.jobs, (uint32_t)np, score_share, &sc)) < 0)
		goto done;
	/* Pairs sharing no shingle can neither join nor link: dropped, so
	 * that linkage has the room. */
	size_t kept = 0;
	for (size_t i = 0; i < np; i++)
		if (score[i] > 0)
			w.pairs[kept] = w.pairs[i], score[kept++] = score[i];
	if (stats)
		stats->pairs += kept;
	if (kept < np && kept) {
		uint64_t *p = realloc(w.pairs, kept * sizeof(*p));
		float *f = p ? realloc(score, kept * sizeof(*f)) : NULL;
		w.pairs = p ? p : w.pairs;
		score = f ? f : score;
	}
	np = kept;
	if (!o.single) {
		free_shingles(&s); /* scored: linkage needs the room */
		if (o.complete) {
			fresh_ctx f = {db, docs, &o};
			size_t added = 0;
			if ((rc = nd_linkage_complete(n, &w.pairs, &score, &np, o.cut, (size_t)o.complete * n,
						      ND_NEAR_COMPLETE_DOCS, score_fresh, &f, &added)) < 0)
				goto done;
			if (stats)
				stats->completed += added;
		}
		rc = nd_linkage_sparse(n, w.pairs, score, np, o.cut, into, stats ? &stats->linked : NULL);
		goto done;
	}

	/* Single linkage is the copy point's clusters: the components of the
	 * pairs its verdict accepts. */
	if ((rc = judge(&s, docs, w.pairs, np, score, o.jobs, point)) < 0)
		goto done;
	if ((rc = nd__components(n, w.pairs, score, np, 1, &up)) < 0)
		goto done;
	for (size_t i = 0; i < np && rc == ND_OK; i++)
		if (score[i] >= 1) {
			if (stats)
				stats->linked++;
			if (link)
				rc = link(docs[w.pairs[i] >> 32], docs[(uint32_t)w.pairs[i]], link_ctx);
		}
	for (size_t i = 0; i < n && rc == ND_OK; i++)
		into[i] = nd__root(up, (uint32_t)i);
done:
	free(index);
	free(up);
	free(score);
	free(w.pairs);
	free_shingles(&s);
	return rc;
}

int nd__cluster_near_at(nd_xdb *db, nd_store *st, const nd_near_options *opts, nd_point point,
			const nd_docid *docs, size_t n, size_t *into, nd_near_stats *stats)
{
	return cluster_near(db, st, opts, point, docs, n, into, stats, NULL, NULL);
}

int nd_cluster_near(nd_xdb *db, nd_store *st, const nd_near_options *opts, const nd_docid *docs, size_t n,
		    size_t *into, nd_near_stats *stats)
{
	return cluster_near(db, st, opts, ND_POINT_COPY, docs, n, into, stats, NULL, NULL);
}

/* ---- links: the copy point's verified pairs, kept in the store ---- */

typedef struct {
	uint64_t *v;
	size_t n, cap;
} pair_list;

static int add_link(nd_docid a, nd_docid b, void *ctx)
{
	pair_list *l = ctx;
	void *p = l->v;
	if (nd_array_reserve(&p, &l->cap, l->n + 1, sizeof(uint64_t)) < 0)
		return nd_error_set(ND_ENOMEM, "out of memory for links");
	l->v = p;
	l->v[l->n++] = (uint64_t)a << 32 | b;
	return ND_OK;
}

static int add_doc(uint32_t docid, uint64_t key, const void *payload, size_t len, void *ctx)
{
	(void)key, (void)payload, (void)len;
	pair_list *l = ctx; /* docids, one a slot */
	void *p = l->v;
	if (nd_array_reserve(&p, &l->cap, l->n + 1, sizeof(uint64_t)) < 0)
		return nd_error_set(ND_ENOMEM, "out of memory");
	l->v = p;
	l->v[l->n++] = docid;
	return 0;
}

typedef struct {
	const pair_list *links;
	size_t from, to;
	int last;
} write_ctx;

static int write_links(nd_store_txn *txn, void *vctx)
{
	write_ctx *w = vctx;
	int rc = w->from == 0 ? nd_store_links_clear(txn) : ND_OK;
	for (size_t i = w->from; i < w->to && rc == ND_OK; i++)
		rc = nd_store_link_put(txn, (uint32_t)(w->links->v[i] >> 32), (uint32_t)w->links->v[i]);
	if (rc == ND_OK && w->last)
		rc = nd_store_links_settled(txn);
	return rc;
}

/* The rule's links over every record now: *links (ascending, a < b). */
static int rule_links(nd_xdb *db, nd_store *st, const nd_near_options *opts, pair_list *links)
{
	nd_near_options o = opts ? *opts : (nd_near_options)ND_NEAR_OPTIONS_INIT;
	pair_list docs = {NULL, 0, 0};
	nd_docid *ids = NULL;
	size_t *into = NULL;
	nd_store_txn *txn;
	int rc;

	o.single = 1;
	o.shingle_width = ND_LINK_SHINGLE_WIDTH; /* the rule's, whatever the caller's */
	if ((rc = nd_store_read_begin(st, &txn)) < 0)
		return rc;
	rc = nd_store_docs_each(txn, add_doc, &docs);
	nd_store_txn_end(txn);
	if (rc < 0)
		goto done;
	if (!(ids = malloc((docs.n + 1) * sizeof(*ids))) || !(into = malloc((docs.n + 1) * sizeof(*into)))) {
		rc = nd_error_set(ND_ENOMEM, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < docs.n; i++)
		ids[i] = (nd_docid)docs.v[i];
	free(docs.v);
	docs.v = NULL;
	if ((rc = cluster_near(db, st, &o, ND_POINT_COPY, ids, docs.n, into, NULL, add_link, links)) < 0)
		goto done;
	if (links->n > 1)
		qsort(links->v, links->n, sizeof(uint64_t), cmp_u64);
done:
	free(docs.v);
	free(ids);
	free(into);
	return rc;
}

int nd_links_rebuild(nd_xdb *db, nd_store *st, const nd_near_options *opts, uint64_t *nlinks)
{
	pair_list links = {NULL, 0, 0};
	int rc;

	if (nlinks)
		*nlinks = 0;
	if ((rc = rule_links(db, st, opts, &links)) < 0)
		goto done;
	/* Written in transactions of a million, the first clearing the old
	 * ones (and marking them for a rebuild) and the last settling them:
	 * a killed run is redone by the next writer. */
	const size_t step = (size_t)1 << 20;
	size_t from = 0;
	do {
		size_t to = links.n - from > step ? from + step : links.n;
		write_ctx w = {&links, from, to, to == links.n};
		if ((rc = nd_store_write(st, write_links, &w)) < 0)
			goto done;
		from = to;
	} while (from < links.n);
	if (nlinks)
		*nlinks = links.n;
done:
	free(links.v);
	return rc;
}

typedef struct {
	pair_list *v;
} stored_ctx;

static int add_stored(uint32_t a, uint32_t b, void *ctx)
{
	return a < b ? add_link(a, b, ctx) : 0; /* kept both ways: once */
}

int nd_links_check(nd_xdb *db, nd_store *st, const nd_near_options *opts, uint64_t *missing, uint64_t *extra,
		   uint64_t *nlinks)
{
	pair_list rule = {NULL, 0, 0}, have = {NULL, 0, 0};
	nd_store_txn *txn = NULL;
	int rc;

	*missing = *extra = 0;
	if (nlinks)
		*nlinks = 0;
	if ((rc = rule_links(db, st, opts, &rule)) < 0 || (rc = nd_store_read_begin(st, &txn)) < 0)
		goto done;
	if ((rc = nd_store_links_each(txn, add_stored, &have)) < 0)
		goto done;
	if (have.n > 1)
		qsort(have.v, have.n, sizeof(uint64_t), cmp_u64);
	for (size_t i = 0, k = 0; i < rule.n || k < have.n;) {
		if (k == have.n || (i < rule.n && rule.v[i] < have.v[k]))
			(*missing)++, i++;
		else if (i == rule.n || have.v[k] < rule.v[i])
			(*extra)++, k++;
		else
			i++, k++;
	}
	if (nlinks)
		*nlinks = have.n;
done:
	nd_store_txn_end(txn);
	free(rule.v);
	free(have.v);
	return rc;
}
