/* The store's links as a function of its records.
 *
 * The rule: two documents are linked when they are within ND_NEAR_WINDOW
 * of each other in some tree of the near-neighbour index and the copy
 * verdict accepts their texts; no other pair is.  nd_links_rebuild applies
 * it to every record; settling applies it to what changed since the links
 * last held, so that hooks, update, sign, a rerun after a kill, and a
 * rebuild all end with the same links for the same records.
 *
 * What a change can do: a record's own links go with it (the store drops
 * them), so a changed document is linked again with its neighbours now.
 * Every other pair keeps its link unless its distance in a tree crossed
 * the window: an entry that left a tree brings the pairs around its old
 * place one closer, an entry that came in puts the pairs around its new
 * place one further apart.  Such pairs are within ND_NEAR_WINDOW of the
 * place in the index after the change (entries that left) or before it
 * (entries that came), so they are found by scanning a window each side of
 * each changed entry.  The index before the change is the index now with
 * the journaled records' entries taken out and their old ones put back (a
 * view).  A pair that came closer is near now, so its link is its verdict
 * whatever it was before: it is judged (a link it had stays).  A pair
 * pushed apart loses its link, if it has one, unless another tree of the
 * index now still holds it near, found by scanning each tree from the one
 * towards the other. */
#include "neardup/cluster.h"
#include "lmdb_store/store_internal.h"
#include "descriptor/cluster/cluster_internal.h"
#include "descriptor/verify/verify_internal.h"
#include "descriptor/verify/record.h"
#include "neardup/words.h"
#include "common/nd_buf.h"

#include <stdlib.h>
#include <string.h>

#define W ND_NEAR_WINDOW
#define T ND_NEAR_TREES
#define R ND_NEAR_ROWS

/* A tree's entry: the store orders them by sequence, then docid. */
typedef struct {
	uint16_t seq[R];
	uint32_t docid;
} nent;

static int nent_cmp(const nent *a, const nent *b)
{
	for (unsigned r = 0; r < R; r++)
		if (a->seq[r] != b->seq[r])
			return a->seq[r] < b->seq[r] ? -1 : 1;
	return a->docid < b->docid ? -1 : a->docid > b->docid;
}

static int nent_qcmp(const void *x, const void *y)
{
	return nent_cmp(x, y);
}

/* Index of the first of v[0..n) that is > e (after: 1) or >= e (0). */
static size_t nent_bound(const nent *v, size_t n, const nent *e, int after)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = nent_cmp(&v[mid], e);
		if (c < 0 || (after && c == 0))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Entries of v[0..n) strictly between x and y (x before y). */
static size_t nent_between(const nent *v, size_t n, const nent *x, const nent *y)
{
	size_t lo = nent_bound(v, n, x, 1), hi = nent_bound(v, n, y, 0);
	return hi > lo ? hi - lo : 0;
}

static int nent_in(const nent *v, size_t n, const nent *e)
{
	size_t at = nent_bound(v, n, e, 0);
	return at < n && nent_cmp(&v[at], e) == 0;
}

/* The index now (no additions or removals), or as it was when the links
 * were last settled: the journaled records' entries now removed, their
 * entries then added, each tree's sorted. */
typedef struct {
	nd_store_txn *txn;
	nent *add[T], *rem[T];
	size_t nadd[T], nrem[T];
} view;

/* Up to max (<= W) entries of tree t after (dir > 0) or before the place
 * of *from, that entry left out, nearest first. */
static int view_scan(const view *v, unsigned t, const nent *from, int dir, unsigned max, nent *out, size_t *nout)
{
	nent got[W];
	uint32_t ids[W];
	uint16_t seqs[W * R];
	size_t ng = 0;
	nent at = *from;
	int rc;

	*nout = 0;
	/* Stored entries, those this view removes skipped. */
	for (;;) {
		size_t k;
		if ((rc = nd_store_near_scan(v->txn, t, at.seq, R, at.docid, dir, max, ids, seqs, &k)) < 0)
			return rc;
		for (size_t i = 0; i < k && ng < max; i++) {
			nent e;
			memcpy(e.seq, seqs + i * R, sizeof(e.seq));
			e.docid = ids[i];
			at = e;
			if (!nent_in(v->rem[t], v->nrem[t], &e))
				got[ng++] = e;
		}
		if (k < max || ng == max)
			break;
	}
	/* Merged with those it adds, beyond *from in the same direction. */
	const nent *a = v->add[t];
	size_t na = v->nadd[t], ia = dir > 0 ? nent_bound(a, na, from, 1) : nent_bound(a, na, from, 0);
	size_t ig = 0;
	while (*nout < max) {
		int have_a = dir > 0 ? ia < na : ia > 0;
		const nent *ea = have_a ? (dir > 0 ? &a[ia] : &a[ia - 1]) : NULL;
		const nent *eg = ig < ng ? &got[ig] : NULL;
		if (!ea && !eg)
			break;
		if (eg && (!ea || (dir > 0 ? nent_cmp(eg, ea) < 0 : nent_cmp(eg, ea) > 0)))
			out[(*nout)++] = *eg, ig++;
		else {
			out[(*nout)++] = *ea;
			ia = dir > 0 ? ia + 1 : ia - 1;
		}
	}
	return ND_OK;
}

/* A record's tree entries (*has 0 when it has no record or no
 * near-neighbour keys). */
typedef struct {
	uint32_t docid;
	int has;
	nent e[T];
} rec_entries;

static int entries_of(const void *payload, size_t len, uint32_t docid, rec_entries *out)
{
	nd_sig s = ND_SIG_INIT;
	int rc = nd_sig_decode(&s, payload, len, (uint32_t)ND_MAX_WORDS + 1);
	out->docid = docid;
	out->has = rc == ND_OK && s.present;
	for (unsigned t = 0; out->has && t < T; t++) {
		memcpy(out->e[t].seq, s.near + t * R, sizeof(out->e[t].seq));
		out->e[t].docid = docid;
	}
	nd_sig_clear(&s);
	return rc;
}

/* Entries of records read now, by docid (open addressing). */
typedef struct {
	rec_entries *v;
	size_t cap, n;
} rec_cache;

/* docid's slot in a table of elements of size `size` that begin with
 * their docid (0: empty), open addressing, grown to keep it half full
 * (elements move, what they point to does not): NULL when out of memory. */
static uint32_t docid_at(const char *e)
{
	uint32_t d;
	memcpy(&d, e, sizeof(d));
	return d;
}

/* Where docid is, or goes, in v[0..cap) (cap a power of two). */
static char *docid_probe(char *v, size_t cap, size_t size, uint32_t docid)
{
	size_t h = (docid * 0x9e3779b1u) & (cap - 1);
	for (uint32_t d; (d = docid_at(v + h * size)) && d != docid;)
		h = (h + 1) & (cap - 1);
	return v + h * size;
}

static void *docid_slot(void **vp, size_t *cap, size_t n, size_t size, uint32_t docid)
{
	char *v = *vp;
	if (2 * (n + 1) > *cap) {
		size_t ncap = *cap ? 2 * *cap : 256; /* a hook reads about a hundred */
		char *nv = calloc(ncap, size);
		if (!nv) {
			nd_error_set(ND_ENOMEM, "out of memory");
			return NULL;
		}
		for (size_t i = 0; i < *cap; i++)
			if (docid_at(v + i * size))
				memcpy(docid_probe(nv, ncap, size, docid_at(v + i * size)), v + i * size, size);
		free(v);
		*vp = v = nv, *cap = ncap;
	}
	return docid_probe(v, *cap, size, docid);
}

static int record_now(nd_store_txn *txn, rec_cache *c, uint32_t docid, const rec_entries **out)
{
	void *v = c->v;
	rec_entries *e = docid_slot(&v, &c->cap, c->n, sizeof(*c->v), docid);
	c->v = v;
	if (!e)
		return ND_ENOMEM;
	if (!e->docid) {
		uint64_t key;
		const void *pay;
		size_t len;
		int rc = nd_store_doc_get(txn, docid, &key, &pay, &len);
		rec_entries r = {docid, 0, {{{0}, 0}}};
		if (rc == ND_OK)
			rc = entries_of(pay, len, docid, &r);
		if (rc < 0 && rc != ND_ENOTFOUND)
			return rc;
		*e = r;
		e->docid = docid;
		c->n++;
	}
	*out = e;
	return ND_OK;
}

/* Whether x and y (records with entries, in both views alike) are within
 * W of each other in some tree of view v: scan from the lesser towards
 * the greater. */
static int near_in(const view *v, const rec_entries *x, const rec_entries *y)
{
	nent got[W];
	size_t n;
	int rc;
	for (unsigned t = 0; t < T; t++) {
		const nent *a = &x->e[t], *b = &y->e[t];
		if (nent_cmp(a, b) > 0) {
			const nent *s = a;
			a = b, b = s;
		}
		if ((rc = view_scan(v, t, a, 1, W, got, &n)) < 0)
			return rc;
		for (size_t i = 0; i < n; i++)
			if (got[i].docid == b->docid)
				return 1;
	}
	return 0;
}

int nd__links_neighbours(nd_store_txn *txn, nd_docid docid, nd_docid **out, size_t *n)
{
	view now = {txn, {NULL}, {NULL}, {0}, {0}};
	rec_cache cache = {NULL, 0, 0};
	const rec_entries *is = NULL;
	nent got[W];
	size_t ng, m = 0;
	uint32_t *v = malloc(2 * T * W * sizeof(*v));
	int rc = v ? record_now(txn, &cache, docid, &is) : nd_error_set(ND_ENOMEM, "out of memory");
	*out = NULL, *n = 0;
	for (unsigned t = 0; rc == ND_OK && is && is->has && t < T; t++)
		for (int side = 0; side < 2 && rc == ND_OK; side++) {
			if ((rc = view_scan(&now, t, &is->e[t], side ? -1 : 1, W, got, &ng)) < 0)
				break;
			for (size_t k = 0; k < ng; k++)
				v[m++] = got[k].docid;
		}
	free(cache.v);
	if (rc < 0) {
		free(v);
		return rc;
	}
	*out = v, *n = nd__sort_unique_u32(v, m);
	return ND_OK;
}

/* The pair a, b (a link: lower docid first; none to itself) onto l. */
static int push(nd_u64s *l, uint32_t a, uint32_t b)
{
	return a == b ? ND_OK : nd_u64s_push(l, a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a);
}

static void sort_unique(nd_u64s *l)
{
	l->n = nd__sort_unique_u64(l->v, l->n);
}

static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	return a < b ? -1 : a > b;
}

/* The journal as read. */
typedef struct {
	uint32_t *changed;     /* records changed (D), ascending */
	rec_entries *before;   /* their entries then, parallel to changed */
	size_t n, cap;
	uint32_t *touched;     /* documents that only lost a link */
	size_t ntouched, tcap;
	int damaged;           /* an old record that does not decode: rebuild */
} journal;

static int on_journal(uint32_t docid, int state, const void *old, size_t len, void *vctx)
{
	journal *j = vctx;
	if (state == ND_JOURNAL_TOUCHED) {
		void *p = j->touched;
		if (nd_array_reserve(&p, &j->tcap, j->ntouched + 1, sizeof(uint32_t)) < 0)
			return nd_error_set(ND_ENOMEM, "out of memory");
		j->touched = p;
		j->touched[j->ntouched++] = docid;
		return 0;
	}
	if (j->n == j->cap) {
		size_t cap = j->cap ? 2 * j->cap : 256;
		uint32_t *c = realloc(j->changed, cap * sizeof(*c));
		if (c)
			j->changed = c;
		rec_entries *b = c ? realloc(j->before, cap * sizeof(*b)) : NULL;
		if (!b)
			return nd_error_set(ND_ENOMEM, "out of memory");
		j->before = b, j->cap = cap;
	}
	rec_entries *r = &j->before[j->n];
	memset(r, 0, sizeof(*r));
	r->docid = docid;
	if (old && entries_of(old, len, docid, r) < 0)
		j->damaged = 1; /* a record damaged on disk, rewritten by the change */
	j->changed[j->n++] = docid; /* the journal is read in docid order */
	return 0;
}

static int is_changed(const journal *j, uint32_t docid)
{
	return j->n && bsearch(&docid, j->changed, j->n, sizeof(uint32_t), cmp_u32) != NULL;
}

/* Records of documents, decoded once (by docid, open addressing). */
typedef struct {
	uint32_t docid;
	int have;         /* 1: a record with words */
	unsigned uses;    /* pairs it was asked for */
	nd__rec r;
} rec_ent;

typedef struct {
	nd_store_txn *txn;
	const nd__common *common; /* what records are weighed by (rec_of) */
	rec_ent *v;
	size_t cap, n;
} rec_table;

static void rec_table_free(rec_table *c)
{
	for (size_t i = 0; i < c->cap; i++)
		nd__rec_free(&c->v[i].r);
	free(c->v);
}

/* docid's record, decoded now if not held.  The entry may move when the
 * table grows, the arrays it points to do not. */
static int rec_of(rec_table *c, uint32_t docid, nd__rec *out, int *have)
{
	void *v = c->v;
	rec_ent *e = docid_slot(&v, &c->cap, c->n, sizeof(*c->v), docid);
	c->v = v;
	if (!e)
		return ND_ENOMEM;
	if (!e->docid) {
		int rc = nd__rec_of_doc(c->txn, docid, &e->r);
		e->docid = docid;
		c->n++;
		if (rc == ND_ENOTFOUND)
			rc = ND_OK; /* no record: never linked */
		if (rc < 0)
			return rc;
		e->have = e->r.nwords > 0;
	}
	/* Weighed for its second pair: most records are in one (the changed
	 * document is in all), and one comparison sums the weights itself. */
	if (++e->uses == 2 && e->have) {
		int rc = nd__rec_weigh(&e->r, c->common);
		if (rc < 0)
			return rc;
	}
	*out = e->r;
	*have = e->have;
	return ND_OK;
}

/* The rule's verdict on each pair (ascending), from the records and the
 * store's common shingles: accepted ones into *yes. */
static int judge(nd_store_txn *txn, const nd_u64s *pairs, nd_u64s *yes, nd_u64s *apart, uint64_t *asked)
{
	rec_table c = {txn, NULL, NULL, 0, 0};
	nd__common *common = NULL;
	nd__site_judge sj;
	int rc;
	nd__site_judge_init(&sj, txn);
	if ((rc = nd__common_load(c.txn, &common)) < 0)
		goto done;
	/* Each record weighed is ND_REC_SAMPLE lookups. */
	if ((rc = nd__common_index(common, 2 * pairs->n * ND_REC_SAMPLE)) < 0)
		goto done;
	c.common = common;
	for (size_t i = 0; i < pairs->n && rc == ND_OK; i++) {
		uint32_t a = (uint32_t)(pairs->v[i] >> 32), b = (uint32_t)pairs->v[i];
		nd__rec x, y;
		int hx, hy;
		if ((rc = rec_of(&c, a, &x, &hx)) < 0 || (rc = rec_of(&c, b, &y, &hy)) < 0)
			break;
		if (!hx || !hy)
			continue;
		(*asked)++;
		/* With the templates hooks counted for their sites (sites.c). */
		if ((rc = nd__site_pair(&sj, a, &x, b, &y, common)) == 1 && (rc = push(yes, a, b)) == ND_OK &&
		    nd__links_apart(&x, &y))
			rc = push(apart, a, b);
	}
done:
	nd__site_judge_free(&sj);
	nd__common_free(common);
	rec_table_free(&c);
	return rc < 0 ? rc : ND_OK;
}

typedef struct {
	const nd_u64s *yes, *gone;
	uint64_t apart; /* of yes, links between two texts */
} settle_write;

/* A uint64 of the store's meta into *out: 1, or 0 when absent or not
 * one (*out 0), or an error. */
static int meta_u64(nd_store_txn *txn, const char *key, uint64_t *out)
{
	const void *v;
	size_t len;
	int rc = nd_store_meta_get(txn, key, &v, &len);
	*out = 0;
	if (rc == ND_ENOTFOUND || (rc == ND_OK && len != sizeof(*out)))
		return 0;
	if (rc < 0)
		return rc;
	memcpy(out, v, sizeof(*out));
	return 1;
}

int nd__links_apart_add(nd_store_txn *txn, int64_t n)
{
	uint64_t now;
	int rc = meta_u64(txn, ND_META_COMMON_APART, &now);
	if (rc < 0)
		return rc;
	now = n < 0 && (uint64_t)-n > now ? 0 : now + (uint64_t)n;
	return nd_store_meta_put(txn, ND_META_COMMON_APART, &now, sizeof(now));
}

int nd__links_apart(const nd__rec *x, const nd__rec *y)
{
	return nd__rec_plain_floor(x, y, ND_GROUP_RESEMBLANCE) < ND_GROUP_RESEMBLANCE;
}

static int write_settled(nd_store_txn *txn, void *vctx)
{
	settle_write *w = vctx;
	int rc = w->apart ? nd__links_apart_add(txn, (int64_t)w->apart) : ND_OK;
	for (size_t i = 0; i < w->gone->n && rc == ND_OK; i++)
		rc = nd_store_link_del(txn, (uint32_t)(w->gone->v[i] >> 32), (uint32_t)w->gone->v[i]);
	for (size_t i = 0; i < w->yes->n && rc == ND_OK; i++)
		rc = nd_store_link_put(txn, (uint32_t)(w->yes->v[i] >> 32), (uint32_t)w->yes->v[i]);
	return rc < 0 ? rc : nd_store_links_settled(txn);
}

static void view_free(view *v)
{
	for (unsigned t = 0; t < T; t++) {
		free(v->add[t]);
		free(v->rem[t]);
	}
}

static int view_push(nent **v, size_t *n, const nent *e)
{
	nent *p = realloc(*v, (*n + 1) * sizeof(**v)); /* few: one a changed record and tree */
	if (!p)
		return nd_error_set(ND_ENOMEM, "out of memory");
	*v = p;
	(*v)[(*n)++] = *e;
	return ND_OK;
}

/* Whether a and b are linked (1), or not (0). */
static int is_linked(nd_store_txn *txn, uint32_t a, uint32_t b)
{
	uint32_t *v;
	size_t n;
	int rc = nd_store_links(txn, a, &v, &n);
	if (rc < 0)
		return rc;
	rc = 0;
	for (size_t i = 0; i < n && !rc; i++)
		rc = v[i] == b;
	free(v);
	return rc;
}

/* One changed record's neighbours in the index now, as settling scans
 * them (self 0: none wanted). */
typedef struct {
	uint32_t self;
	uint32_t *v; /* NULL until self is met among the changed */
	size_t n;
} near_of;

/* The settling proper, in snapshot txn of the index now: *asked the
 * pairs to judge, *gone those to unlink, mine->v self's neighbours. */
static int settle_journal(nd_store_txn *txn, const journal *j, nd_u64s *gone, nd_u64s *asked_pairs,
			  near_of *mine)
{
	view now = {txn, {NULL}, {NULL}, {0}, {0}}, then = now;
	rec_cache rc_now = {NULL, 0, 0};
	nd_u64s cand = {NULL, 0, 0};
	nent got[2][W];
	size_t ng[2];
	int rc = ND_OK;

	/* The index then: entries of changed records that moved, each way. */
	for (size_t i = 0; i < j->n && rc == ND_OK; i++) {
		const rec_entries *was = &j->before[i], *is;
		if ((rc = record_now(txn, &rc_now, j->changed[i], &is)) < 0)
			break;
		for (unsigned t = 0; t < T && rc == ND_OK; t++) {
			int same = was->has && is->has && nent_cmp(&was->e[t], &is->e[t]) == 0;
			if (was->has && !same)
				rc = view_push(&then.add[t], &then.nadd[t], &was->e[t]);
			if (rc == ND_OK && is->has && !same)
				rc = view_push(&then.rem[t], &then.nrem[t], &is->e[t]);
		}
	}
	for (unsigned t = 0; t < T; t++) {
		if (then.nadd[t] > 1)
			qsort(then.add[t], then.nadd[t], sizeof(nent), nent_qcmp);
		if (then.nrem[t] > 1)
			qsort(then.rem[t], then.nrem[t], sizeof(nent), nent_qcmp);
	}

	/* A changed record's pairs now, all judged: its links went with it. */
	for (size_t i = 0; i < j->n && rc == ND_OK; i++) {
		const rec_entries *is;
		int keep = j->changed[i] == mine->self && !mine->v;
		/* Room for as many as a window holds in every tree. */
		if (keep && !(mine->v = malloc(2 * T * W * sizeof(*mine->v)))) {
			rc = nd_error_set(ND_ENOMEM, "out of memory");
			break;
		}
		if ((rc = record_now(txn, &rc_now, j->changed[i], &is)) < 0 || !is->has)
			continue;
		for (unsigned t = 0; t < T && rc == ND_OK; t++)
			for (int side = 0; side < 2 && rc == ND_OK; side++) {
				size_t n;
				if ((rc = view_scan(&now, t, &is->e[t], side ? -1 : 1, W, got[0], &n)) < 0)
					break;
				for (size_t k = 0; k < n && rc == ND_OK; k++)
					rc = push(asked_pairs, is->docid, got[0][k].docid);
				for (size_t k = 0; keep && k < n; k++)
					mine->v[mine->n++] = got[0][k].docid;
			}
	}

	/* Pairs of unchanged records whose distance crossed the window: around
	 * each place an entry left (closer now) and each it came to (further
	 * apart now). */
	for (int dir = 0; dir < 2 && rc == ND_OK; dir++) {
		const view *v = dir == 0 ? &now : &then;
		for (unsigned t = 0; t < T && rc == ND_OK; t++) {
			const nent *at = dir == 0 ? then.add[t] : then.rem[t];
			size_t nat = dir == 0 ? then.nadd[t] : then.nrem[t];
			for (size_t e = 0; e < nat && rc == ND_OK; e++) {
				if ((rc = view_scan(v, t, &at[e], -1, W, got[0], &ng[0])) < 0 ||
				    (rc = view_scan(v, t, &at[e], 1, W, got[1], &ng[1])) < 0)
					break;
				/* Entries in one view and not the other, this tree's. */
				const nent *mine = dir == 0 ? then.rem[t] : then.add[t];
				const nent *theirs = dir == 0 ? then.add[t] : then.rem[t];
				size_t nmine = dir == 0 ? then.nrem[t] : then.nadd[t];
				size_t ntheirs = dir == 0 ? then.nadd[t] : then.nrem[t];
				cand.n = 0;
				for (size_t b = 0; b < ng[0] && rc == ND_OK; b++)
					for (size_t a = 0; a < ng[1] && b + a + 1 <= W && rc == ND_OK; a++) {
						const nent *x = &got[0][b], *y = &got[1][a];
						if (is_changed(j, x->docid) || is_changed(j, y->docid))
							continue;
						/* b + a entries lie between them in v; as
						 * many give or take the other view's own:
						 * near in this tree in both, the pair's
						 * verdict cannot have moved. */
						size_t other = b + a + nent_between(theirs, ntheirs, x, y) -
							       nent_between(mine, nmine, x, y);
						if (other + 1 <= W)
							continue;
						rc = push(&cand, x->docid, y->docid);
					}
				for (size_t c = 0; c < cand.n && rc == ND_OK; c++) {
					uint32_t xd = (uint32_t)(cand.v[c] >> 32), yd = (uint32_t)cand.v[c];
					const rec_entries *x, *y;
					/* Near now: the verdict, rather than asking
					 * sixteen trees whether it was near then (a
					 * pair near in both is judged again; a link
					 * it has stays, not_new). */
					if (dir == 0) {
						rc = push(asked_pairs, xd, yd);
						continue;
					}
					/* Near then, in this tree no longer: only a
					 * link can go, if no other tree holds them near. */
					if ((rc = is_linked(txn, xd, yd)) <= 0)
						continue;
					if ((rc = record_now(txn, &rc_now, xd, &x)) < 0)
						break;
					rec_entries xs = *x; /* the cache may move */
					if ((rc = record_now(txn, &rc_now, yd, &y)) < 0)
						break;
					if (!xs.has || !y->has)
						continue;
					int near = near_in(&now, &xs, y);
					rc = near < 0 ? near : near ? ND_OK : push(gone, xd, yd);
				}
			}
		}
	}
	free(cand.v);
	free(rc_now.v);
	view_free(&then);
	return rc;
}

/* Whose component may have changed: the changed, those that lost a link
 * to them, and both ends of every link made or unmade. */
static int seeds_of(const journal *j, const nd_u64s *yes, const nd_u64s *gone, nd_docid **seeds, size_t *nseeds)
{
	size_t n = j->n + j->ntouched + 2 * (yes->n + gone->n), k = 0;
	nd_docid *s = malloc((n + 1) * sizeof(*s));
	if (!s)
		return nd_error_set(ND_ENOMEM, "out of memory");
	if (j->n)
		memcpy(s, j->changed, j->n * sizeof(*s));
	k = j->n;
	if (j->ntouched)
		memcpy(s + k, j->touched, j->ntouched * sizeof(*s));
	k += j->ntouched;
	for (size_t i = 0; i < yes->n; i++)
		s[k++] = (nd_docid)(yes->v[i] >> 32), s[k++] = (nd_docid)yes->v[i];
	for (size_t i = 0; i < gone->n; i++)
		s[k++] = (nd_docid)(gone->v[i] >> 32), s[k++] = (nd_docid)gone->v[i];
	*seeds = s;
	*nseeds = nd__sort_unique_u32(s, k);
	return ND_OK;
}

/* The pairs to link (*yes, judged) and unlink (*gone) around the
 * journaled records, read in txn. */
static int settle_pairs(nd_store_txn *txn, const journal *j, nd_u64s *yes, nd_u64s *apart, nd_u64s *gone,
			nd_u64s *asked, nd_links_report *rep, near_of *mine)
{
	int rc = settle_journal(txn, j, gone, asked, mine);
	if (rc < 0)
		return rc;
	sort_unique(asked);
	sort_unique(gone);
	return judge(txn, asked, yes, apart, &rep->verified);
}

/* How many of yes (a subsequence of the pairs judged, as apart is) are
 * in apart. */
static uint64_t apart_in(const nd_u64s *yes, const nd_u64s *apart)
{
	uint64_t n = 0;
	for (size_t i = 0, k = 0; i < yes->n && k < apart->n;) {
		if (yes->v[i] == apart->v[k])
			n++, i++, k++;
		else if (yes->v[i] < apart->v[k])
			i++;
		else
			k++;
	}
	return n;
}

static void journal_free(journal *j)
{
	free(j->changed);
	free(j->before);
	free(j->touched);
}

/* The links in yes that are there already, taken out: pairs of unchanged
 * records judged again (their components have not moved). */
static int not_new(nd_store_txn *txn, const journal *j, nd_u64s *yes)
{
	size_t k = 0;
	for (size_t i = 0; i < yes->n; i++) {
		uint32_t a = (uint32_t)(yes->v[i] >> 32), b = (uint32_t)yes->v[i];
		int rc = is_changed(j, a) || is_changed(j, b) ? 0 : is_linked(txn, a, b);
		if (rc < 0)
			return rc;
		if (!rc)
			yes->v[k++] = yes->v[i];
	}
	yes->n = k;
	return ND_OK;
}

int nd__links_settle_txn(nd_store_txn *txn, nd_links_report *rep, nd_docid **seeds, size_t *nseeds, nd_docid self,
			 nd_docid **near, size_t *nnear)
{
	journal j = {NULL, NULL, 0, 0, NULL, 0, 0, 0};
	nd_u64s yes = {NULL, 0, 0}, apart = {NULL, 0, 0}, gone = {NULL, 0, 0}, asked = {NULL, 0, 0};
	near_of mine = {self, NULL, 0};
	int rc, state;

	memset(rep, 0, sizeof(*rep));
	*seeds = NULL, *nseeds = 0;
	*near = NULL, *nnear = 0;
	if ((rc = state = nd_store_links_state(txn)) < 0 || state == ND_LINKS_SETTLED)
		return rc < 0 ? rc : ND_OK;
	if (state == ND_LINKS_REBUILD)
		return 1;
	/* The index as it is now, this transaction's changes in it. */
	if ((rc = nd_store_flush(txn)) < 0 || (rc = nd_store_journal_each(txn, on_journal, &j)) < 0)
		goto done;
	if (j.damaged) {
		rc = 1;
		goto done;
	}
	if ((rc = settle_pairs(txn, &j, &yes, &apart, &gone, &asked, rep, &mine)) < 0 ||
	    (rc = not_new(txn, &j, &yes)) < 0)
		goto done;
	settle_write w = {&yes, &gone, apart_in(&yes, &apart)};
	if ((rc = write_settled(txn, &w)) < 0 || (rc = seeds_of(&j, &yes, &gone, seeds, nseeds)) < 0)
		goto done;
	rep->changed = j.n;
	rep->added = yes.n;
	rep->removed = gone.n;
	if (mine.v)
		*nnear = nd__sort_unique_u32(mine.v, mine.n), *near = mine.v, mine.v = NULL;
done:
	free(mine.v);
	journal_free(&j);
	free(yes.v);
	free(apart.v);
	free(gone.v);
	free(asked.v);
	return rc;
}

/* Whether the documents signed past the last one the common text was
 * counted over are a share of those it was counted over (docids only
 * grow: a replaced document keeps its own, a feed window's leave), or
 * the links made since between two texts (not one group of the count)
 * are that share of the links it made (of ND_RECOUNT_LINKS_MIN, when
 * fewer): documents that share text arriving together, a list's mails
 * or a story's write-ups, are linked by what the count would call
 * common long before the collection has grown by a share.  Copies
 * arriving (a family, a mirror) are one group and count nothing.  A
 * store whose count is not recorded, or not readable, is counted again
 * once (which records it): a statistic is no reason to stop a writer;
 * one from before the links were recorded waits for its documents.
 * *counted: what the last count was over.  1: due by the documents (or
 * not recorded), 2: by the links. */
#define ND_RECOUNT_LINKS_MIN 64
static int recount_due(nd_store_txn *txn, double share, uint64_t *counted)
{
	const void *v;
	size_t len;
	uint64_t c[2];
	uint32_t last;
	int rc = nd_store_meta_get(txn, ND_META_COMMON_COUNTED, &v, &len);
	*counted = 0;
	if (rc == ND_ENOTFOUND || (rc == ND_OK && len != sizeof(c)))
		return 1;
	if (rc < 0)
		return rc;
	memcpy(c, v, sizeof(c));
	*counted = c[0];
	if ((rc = nd__store_last_doc(txn, &last)) < 0)
		return rc;
	if (last > c[1] && (double)(last - c[1]) >= share * (double)(c[0] ? c[0] : 1))
		return 1;
	uint64_t then, since;
	if (meta_u64(txn, ND_META_COMMON_LINKS, &then) != 1 || meta_u64(txn, ND_META_COMMON_APART, &since) != 1)
		return 0;
	return (double)since >= share * (double)(then > ND_RECOUNT_LINKS_MIN ? then : ND_RECOUNT_LINKS_MIN) ? 2 : 0;
}

int nd_links_settle(nd_xdb *db, nd_store *st, const nd_near_options *o, nd_links_report *rep, nd_docid **seeds,
		    size_t *nseeds)
{
	nd_links_report local;
	journal j = {NULL, NULL, 0, 0, NULL, 0, 0, 0};
	nd_u64s yes = {NULL, 0, 0}, apart = {NULL, 0, 0}, gone = {NULL, 0, 0}, asked = {NULL, 0, 0};
	nd_store_txn *txn = NULL;
	int rc, state;

	if (!rep)
		rep = &local;
	memset(rep, 0, sizeof(*rep));
	if (seeds)
		*seeds = NULL, *nseeds = 0;
	if ((rc = nd_store_read_begin(st, &txn)) < 0)
		return rc;
	if ((rc = state = nd_store_links_state(txn)) < 0)
		goto done;
	if (state != ND_LINKS_REBUILD && o && o->recount > 0 &&
	    (rc = recount_due(txn, o->recount, &rep->counted)) != 0) {
		if (rc < 0)
			goto done;
		state = ND_LINKS_REBUILD;
		rep->recounted = rc;
	}
	if (state == ND_LINKS_SETTLED)
		goto done;
	if (state == ND_LINKS_REBUILD) {
		nd_store_txn_end(txn);
		txn = NULL;
		rep->rebuilt = 1;
		rc = nd__links_rebuild(db, st, o, &rep->links, rep);
		goto done;
	}
	if ((rc = nd_store_journal_each(txn, on_journal, &j)) < 0)
		goto done;
	if (j.damaged) {
		/* The index then is not known: every link is made again. */
		nd_store_txn_end(txn);
		txn = NULL;
		rep->rebuilt = 1;
		rc = nd_links_rebuild(db, st, o, &rep->links);
		goto done;
	}
	near_of none = {0, NULL, 0};
	if ((rc = settle_pairs(txn, &j, &yes, &apart, &gone, &asked, rep, &none)) < 0 ||
	    (rc = not_new(txn, &j, &yes)) < 0)
		goto done;
	nd_store_txn_end(txn);
	txn = NULL;
	settle_write w = {&yes, &gone, apart_in(&yes, &apart)};
	if ((rc = nd_store_write(st, write_settled, &w)) < 0)
		goto done;
	rep->changed = j.n;
	rep->added = yes.n;
	rep->removed = gone.n;
	if (seeds)
		rc = seeds_of(&j, &yes, &gone, seeds, nseeds);
done:
	nd_store_txn_end(txn);
	journal_free(&j);
	free(yes.v);
	free(apart.v);
	free(gone.v);
	free(asked.v);
	return rc;
}
