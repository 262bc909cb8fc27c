/* Collapse ids from the store's links (the copy point's clusters) or,
 * while links are pending, from verified equal-key groups; over shards,
 * each shard's links and the verdict between results of different shards;
 * for filtering ranked lists and for Xapian's collapse key. */
#include "neardup/collapse.h"
#include "neardup/check.h"
#include "neardup/point.h"
#include "descriptor/verify/verify_internal.h"
#include "descriptor/verify/record.h"
#include "common/nd_buf.h"
#include "common/nd_hash.h"
#include "neardup/shards.h"
#include "neardup/words.h"
#include "neardup/cluster.h"
#include "descriptor/cluster/cluster_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	uint64_t key;
	size_t i;         /* index into the caller's docs */
} key_ref;

static int cmp_key_ref(const void *a, const void *b)
{
	const key_ref *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

static int cmp_key_only(const void *a, const void *b)
{
	const key_ref *x = a, *y = b;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* Collapse ids for refs[0..m) (all with one key), given the cluster. */
static int ids_for_cluster(nd_xdb *db, nd_store *st, const nd_verify_options *vo, uint64_t key,
			   const nd_docid *members, size_t nm, const nd_docid *docs,
			   const key_ref *refs, size_t m, nd_docid *ids)
{
	nd_verified *v = NULL;
	nd_docid *first = NULL;
	uint32_t *size = NULL, ngroups = 0;
	int rc;

	if (nm < 2)
		return ND_OK; /* ids stay 0 */
	if (!(v = malloc(nm * sizeof(*v))))
		return nd_error_set(ND_ENOMEM, "out of memory");
	if ((rc = nd_verify_cluster(db, st, key, members, nm, vo, v, &ngroups, NULL)) < 0)
		goto cleanup;
	if (!(first = calloc(ngroups + 1, sizeof(*first))) || !(size = calloc(ngroups + 1, sizeof(*size)))) {
		rc = nd_error_set(ND_ENOMEM, "out of memory");
		goto cleanup;
	}
	/* Members are in docid order, so a group's first member is its lowest docid. */
	for (size_t j = 0; j < nm; j++) {
		if (!size[v[j].group]++)
			first[v[j].group] = v[j].docid;
	}
	for (size_t r = 0; r < m; r++) {
		const nd_docid *hit = bsearch(&docs[refs[r].i], members, nm, sizeof(nd_docid), nd_cmp_u32);
		if (hit) {
			uint32_t g = v[hit - members].group;
			ids[refs[r].i] = size[g] > 1 ? first[g] : 0;
		}
	}
	rc = ND_OK;
cleanup:
	free(v);
	free(first);
	free(size);
	return rc;
}

/* The stores that hold the documents: one store and the database's own
 * docids (sh NULL), or one store per shard of a combined database, whose
 * docids are computed from each store's (nd_shards). */
typedef struct {
	nd_store *const *st;
	const nd_shards *sh;
	size_t n;
} store_set;

/* The record's key of a (combined) docid: 0 when unsigned. */
static int key_of(const store_set *ss, nd_store_txn *const *txn, nd_docid docid, uint64_t *key)
{
	size_t s = 0;
	nd_docid local = docid;
	int rc;
	*key = 0;
	if (ss->sh && (local = nd_shards_local(ss->sh, docid, &s), s == SIZE_MAX))
		return ND_OK; /* a shard without a store: never collapsed */
	rc = nd_store_doc_get(txn[s], local, key, NULL, NULL);
	if (rc == ND_ENOTFOUND) {
		*key = 0; /* not signed: never collapsed */
		return ND_OK;
	}
	return rc;
}

/* Every store's members of key, as combined docids, ascending. */
static int key_members(const store_set *ss, nd_store_txn *const *txn, uint64_t key, nd_docid **out, size_t *nout)
{
	return ss->sh ? nd_shards_key_docs(ss->sh, txn, key, out, nout) : nd_store_key_docs(txn[0], key, out, nout);
}

/* A set of docids, or of pairs (open addressing; 0 is the empty slot).
 * id_set_add: 1 when x was added, 0 when it was there. */
typedef struct {
	uint64_t *v;
	size_t cap, n;
} id_set;

static int id_set_add(id_set *s, uint64_t x)
{
	if (2 * (s->n + 1) > s->cap) {
		id_set t = {NULL, s->cap ? 2 * s->cap : 64, 0};
		if (!(t.v = calloc(t.cap, sizeof(*t.v))))
			return nd_error_set(ND_ENOMEM, "out of memory");
		for (size_t i = 0; i < s->cap; i++)
			if (s->v[i])
				id_set_add(&t, s->v[i]);
		free(s->v);
		*s = t;
	}
	size_t h = nd_mix64(x) & (s->cap - 1);
	while (s->v[h] && s->v[h] != x)
		h = (h + 1) & (s->cap - 1);
	if (s->v[h])
		return 0;
	s->v[h] = x;
	s->n++;
	return 1;
}

/* One link component as the split reads it: its members' links from the
 * store, and the copy verdict between two members from their records and
 * the store's common shingles (loaded when first needed).  The split asks
 * a centre about member after member: its record is weighed once. */
typedef struct {
	nd_store_txn *txn;
	const uint32_t *member; /* the component, ascending */
	size_t n;
	uint64_t *at;           /* docid << 32 | index, open addressing */
	size_t cap, atcap;
	uint32_t *nb;           /* the links last asked for, as indices */
	nd__common *common;
	int loaded;
	uint32_t centre;        /* docid of the record in c (0: none) */
	nd__rec c;
	int have;               /* c has words */
} component;

/* The component's members by docid, for member_links. */
static int component_index(component *m)
{
	size_t cap = 16;
	while (cap < 2 * m->n)
		cap *= 2;
	if (cap > m->atcap) {
		free(m->at);
		if (!(m->at = malloc(cap * sizeof(*m->at))))
			return m->atcap = 0, nd_error_set(ND_ENOMEM, "out of memory");
		m->atcap = cap;
	}
	m->cap = cap;
	memset(m->at, 0, cap * sizeof(*m->at)); /* docids are never 0 */
	for (size_t i = 0; i < m->n; i++) {
		size_t h = (m->member[i] * 0x9e3779b1u) & (cap - 1);
		while (m->at[h])
			h = (h + 1) & (cap - 1);
		m->at[h] = (uint64_t)m->member[i] << 32 | i;
	}
	return ND_OK;
}

static int member_links(uint32_t i, const uint32_t **out, size_t *n, void *ctx)
{
	component *m = ctx;
	size_t k = 0;
	free(m->nb);
	m->nb = NULL;
	int rc = nd_store_links(m->txn, m->member[i], &m->nb, n);
	if (rc < 0)
		return rc;
	for (size_t j = 0; j < *n; j++) {
		size_t h = (m->nb[j] * 0x9e3779b1u) & (m->cap - 1);
		while (m->at[h] && (uint32_t)(m->at[h] >> 32) != m->nb[j])
			h = (h + 1) & (m->cap - 1);
		if (m->at[h]) /* always: links go both ways */
			m->nb[k++] = (uint32_t)m->at[h];
	}
	*out = m->nb, *n = k;
	return ND_OK;
}

/* Member c as the centre, its record in m->c (weighed once), and
 * member i's record into *y: 1, or 0 when either has no words (never a
 * copy), < 0 an error. */
static int centre_and(component *m, uint32_t c, uint32_t i, nd__rec *y)
{
	int rc;
	if (!m->loaded) {
		if ((rc = nd__common_load(m->txn, &m->common)) < 0)
			return rc;
		m->loaded = 1;
	}
	if (m->centre != m->member[c]) {
		nd__rec_free(&m->c);
		m->centre = m->member[c];
		if ((rc = nd__rec_of_doc(m->txn, m->centre, &m->c)) < 0 && rc != ND_ENOTFOUND)
			return m->centre = 0, rc;
		m->have = rc == ND_OK && m->c.nwords > 0;
		if (m->have && (rc = nd__rec_weigh(&m->c, m->common)) < 0)
			return m->centre = 0, rc;
	}
	if ((rc = nd__rec_of_doc(m->txn, m->member[i], y)) == ND_ENOTFOUND)
		return 0; /* no record */
	return rc < 0 ? rc : m->have && y->nwords;
}

static int member_copy(uint32_t a, uint32_t b, void *ctx)
{
	component *m = ctx;
	nd__rec y;
	int rc = centre_and(m, a, b, &y);
	return rc <= 0 ? rc : nd__rec_verdict(ND_POINT_COPY, &m->c, &y, m->common, NULL, NULL) == 1;
}

/* The verdict's distance from member a to b, a centre (the split's last
 * pass: a member against the centres it is linked to). */
static int member_dist(uint32_t a, uint32_t b, double *d, void *ctx)
{
	component *m = ctx;
	nd__rec y;
	nd_verify_how how;
	int rc = centre_and(m, b, a, &y);
	*d = 1;
	return rc <= 0 ? rc : (rc = nd__rec_verdict(ND_POINT_COPY, &m->c, &y, m->common, &how, d)) < 0 ? rc : ND_OK;
}

/* A member link_ids walked, as its walked list holds it: docid << 32 |
 * collapse id (0: alone). */
static int walked_add(nd_u64s *w, uint32_t doc, nd_docid id)
{
	return nd_u64s_push(w, (uint64_t)doc << 32 | id);
}

/* Collapse ids from the store's links: each document's is its copy
 * cluster's leader (the smallest docid of the cluster, nd__split), 0 when
 * it is alone.  Each component is walked, then split reading its links
 * again, so that what is held grows with its members, not its links.
 * *used 0 (ids untouched) when the links are to be rebuilt.  With w, every
 * member of the components walked goes there too, with its id. */
static int link_ids(nd_store *st, const nd_docid *docs, size_t n, nd_docid *ids, int *used, nd_u64s *w)
{
	nd_store_txn *txn;
	id_set seen = {NULL, 0, 0};
	uint32_t *queue = NULL, *nb = NULL, *lead = NULL, *degree = NULL;
	uint64_t *md = NULL;
	size_t qcap = 0, lcap = 0, mcap = 0, dcap = 0, scap = 0, *size = NULL;
	key_ref *order = NULL;
	component mv = {NULL, NULL, 0, NULL, 0, 0, NULL, NULL, 0, 0, ND_REC_INIT, 0};
	int rc;

	*used = 0;
	if ((rc = nd_store_read_begin(st, &txn)) < 0)
		return rc;
	mv.txn = txn;
	/* Journaled changes (a writer settling them, or killed before it did)
	 * leave every other link right: only a rebuild's absence falls back. */
	if ((rc = nd_store_links_state(txn)) == ND_LINKS_REBUILD || rc < 0) {
		rc = rc < 0 ? rc : ND_OK; /* the caller falls back */
		goto cleanup;
	}
	*used = 1;
	/* docs by docid, to give a cluster's id to those asked about. */
	if (!(order = malloc((n + 1) * sizeof(*order)))) {
		rc = nd_error_set(ND_ENOMEM, "out of memory");
		goto cleanup;
	}
	for (size_t i = 0; i < n; i++)
		order[i] = (key_ref){docs[i], i};
	qsort(order, n, sizeof(*order), cmp_key_ref);
	for (size_t i = 0; i < n; i++)
		ids[i] = 0;
	for (size_t r = 0; r < n; r++) {
		uint32_t start = (uint32_t)order[r].key;
		if (!start || (rc = id_set_add(&seen, start)) == 0)
			continue; /* in a component already walked */
		if (rc < 0)
			goto cleanup;
		size_t head = 0, tail = 0;
		void *p = queue;
		if ((rc = nd_array_reserve(&p, &qcap, 1, sizeof(*queue))) < 0)
			goto cleanup;
		queue = p;
		queue[tail++] = start;
		/* Each member with its number of links, for the split. */
		while (head < tail) {
			size_t m;
			uint32_t at = queue[head];
			if ((rc = nd_store_links(txn, at, &nb, &m)) < 0)
				goto cleanup;
			p = md;
			if ((rc = nd_array_reserve(&p, &mcap, head + 1, sizeof(*md))) < 0)
				goto cleanup;
			md = p;
			md[head++] = (uint64_t)at << 32 | (uint32_t)m;
			for (size_t k = 0; k < m; k++) {
				int added = id_set_add(&seen, nb[k]);
				if (added < 0) {
					rc = added;
					goto cleanup;
				}
				if (!added)
					continue;
				p = queue;
				if ((rc = nd_array_reserve(&p, &qcap, tail + 1, sizeof(*queue))) < 0)
					goto cleanup;
				queue = p;
				queue[tail++] = nb[k];
			}
			free(nb);
			nb = NULL;
		}
		if (tail < 2) {
			if (w && (rc = walked_add(w, start, 0)) < 0)
				goto cleanup;
			continue;
		}
		/* The component's clusters: each member's leader, and how many
		 * each leader leads (alone: id 0). */
		nd__sort_u64(md, tail);
		p = degree;
		if ((rc = nd_array_reserve(&p, &dcap, tail, sizeof(*degree))) < 0)
			goto cleanup;
		degree = p;
		for (size_t q = 0; q < tail; q++)
			queue[q] = (uint32_t)(md[q] >> 32), degree[q] = (uint32_t)md[q];
		p = lead;
		if ((rc = nd_array_reserve(&p, &lcap, tail, sizeof(*lead))) < 0)
			goto cleanup;
		lead = p;
		p = size;
		if ((rc = nd_array_reserve(&p, &scap, tail, sizeof(*size))) < 0)
			goto cleanup;
		size = p;
		memset(size, 0, tail * sizeof(*size));
		mv.member = queue, mv.n = tail;
		if ((rc = component_index(&mv)) < 0)
			goto cleanup;
		nd__split_graph g = {tail, degree, member_links, member_copy, member_dist, &mv};
		if ((rc = nd__split(&g, lead)) < 0)
			goto cleanup;
		for (size_t q = 0; q < tail; q++)
			size[lead[q]]++;
		/* Members asked about get the id. */
		for (size_t q = 0; q < tail; q++) {
			key_ref want = {queue[q], 0};
			const key_ref *hit = bsearch(&want, order, n, sizeof(*order), cmp_key_only);
			nd_docid id = size[lead[q]] > 1 ? queue[lead[q]] : 0;
			for (; hit && hit > order && hit[-1].key == want.key; hit--)
				;
			for (; hit && hit < order + n && hit->key == want.key; hit++)
				ids[hit->i] = id;
			if (w && (rc = walked_add(w, queue[q], id)) < 0)
				goto cleanup;
		}
	}
	rc = ND_OK;
cleanup:
	nd__rec_free(&mv.c);
	nd__common_free(mv.common); /* read in place: before the txn ends */
	nd_store_txn_end(txn);
	free(seen.v);
	free(queue);
	free(nb);
	free(order);
	free(md);
	free(degree);
	free(mv.nb);
	free(mv.at);
	free(lead);
	free(size);
	return rc;
}

int nd_collapse_members(nd_store *st, const nd_docid *seeds, size_t n, nd_docid **out, size_t *nout)
{
	nd_store_txn *txn;
	id_set seen = {NULL, 0, 0};
	nd_docid *all = NULL;
	uint32_t *nb = NULL;
	size_t cap = 0, m = 0;
	int rc;

	*out = NULL;
	*nout = 0;
	if ((rc = nd_store_read_begin(st, &txn)) < 0)
		return rc;
	for (size_t i = 0; i < n; i++) {
		if (!seeds[i] || (rc = id_set_add(&seen, seeds[i])) == 0)
			continue;
		void *p = all;
		if (rc < 0 || (rc = nd_array_reserve(&p, &cap, m + 1, sizeof(*all))) < 0)
			goto cleanup;
		all = p;
		all[m++] = seeds[i];
	}
	/* all[] is the queue: every member found is walked once. */
	for (size_t head = 0; head < m; head++) {
		size_t k;
		if ((rc = nd_store_links(txn, all[head], &nb, &k)) < 0)
			goto cleanup;
		for (size_t j = 0; j < k; j++) {
			if ((rc = id_set_add(&seen, nb[j])) == 0)
				continue;
			void *p = all;
			if (rc < 0 || (rc = nd_array_reserve(&p, &cap, m + 1, sizeof(*all))) < 0)
				goto cleanup;
			all = p;
			all[m++] = nb[j];
		}
		free(nb);
		nb = NULL;
	}
	if (m > 1)
		qsort(all, m, sizeof(*all), nd_cmp_u32);
	*out = all;
	*nout = m;
	all = NULL;
	rc = ND_OK;
cleanup:
	nd_store_txn_end(txn);
	free(seen.v);
	free(nb);
	free(all);
	return rc;
}

/* Verified equal-key groups over every store: what collapses while links
 * are pending. */
static int key_ids(nd_xdb *db, const store_set *ss, const nd_verify_options *vo, const nd_docid *docs, size_t n,
		   nd_docid *ids)
{
	nd_store_txn **txn = NULL;
	key_ref *refs = NULL;
	nd_docid **members = NULL;
	size_t *nmembers = NULL, m = 0, nkeys = 0;
	int rc = ND_OK;

	memset(ids, 0, n * sizeof(*ids));
	if (n == 0)
		return ND_OK;
	if (!(refs = malloc((n + 1) * sizeof(*refs))) || !(txn = calloc(ss->n, sizeof(*txn)))) {
		rc = nd_error_set(ND_ENOMEM, "out of memory");
		goto cleanup;
	}
	for (size_t s = 0; s < ss->n; s++)
		if ((rc = nd_store_read_begin(ss->st[s], &txn[s])) < 0)
			goto cleanup;
	for (size_t i = 0; i < n; i++) {
		uint64_t key;
		if ((rc = key_of(ss, txn, docs[i], &key)) < 0)
			goto cleanup;
		if (key)
			refs[m++] = (key_ref){key, i};
	}
	qsort(refs, m, sizeof(*refs), cmp_key_ref);
	for (size_t r = 0; r < m; r++)
		nkeys += r == 0 || refs[r].key != refs[r - 1].key;
	if (!(members = calloc(nkeys + 1, sizeof(*members))) ||
	    !(nmembers = calloc(nkeys + 1, sizeof(*nmembers)))) {
		rc = nd_error_set(ND_ENOMEM, "out of memory");
		goto cleanup;
	}
	/* Every cluster from one snapshot (per store), then verify outside it. */
	for (size_t r = 0, k = 0; r < m; r++) {
		if (r > 0 && refs[r].key == refs[r - 1].key)
			continue;
		if ((rc = key_members(ss, txn, refs[r].key, &members[k], &nmembers[k])) < 0)
			goto cleanup;
		k++;
	}
	for (size_t s = 0; s < ss->n; s++) {
		nd_store_txn_end(txn[s]);
		txn[s] = NULL;
	}
	/* Results are cached in a store only when it holds the whole cluster. */
	for (size_t r = 0, k = 0; r < m; k++) {
		size_t e = r;
		while (e < m && refs[e].key == refs[r].key)
			e++;
		if ((rc = ids_for_cluster(db, ss->sh ? NULL : ss->st[0], vo, refs[r].key, members[k], nmembers[k],
					  docs, refs + r, e - r, ids)) < 0)
			goto cleanup;
		r = e;
	}
	rc = ND_OK;
cleanup:
	for (size_t s = 0; txn && s < ss->n; s++)
		nd_store_txn_end(txn[s]);
	free(txn);
	for (size_t k = 0; members && k < nkeys; k++)
		free(members[k]);
	free(members);
	free(nmembers);
	free(refs);
	return rc;
}

/* Results of another shard compared with one result, at most: its
 * candidates there are only the results not yet joined to it, so few. */
#define SHARD_COMPARE 8

/* What join_across reads about the results: each one's shard and
 * signature (decoded once; key 0 and no near keys when unsigned), and the
 * results by combined docid and by key. */
typedef struct {
	const store_set *ss;
	const nd_docid *docs;
	size_t n;
	const size_t *shard;
	const nd_sig *sig;
	const key_ref *byid, *bykey;
	uint32_t *up;      /* union-find over the results */
} result_set;

static int add_cand(const result_set *r, size_t i, size_t j, nd__cand **c, size_t *nc, size_t *cap)
{
	void *p = *c;
	if (nd__root(r->up, (uint32_t)i) == nd__root(r->up, (uint32_t)j))
		return ND_OK; /* joined already */
	if (nd_array_reserve(&p, cap, *nc + 1, sizeof(**c)) < 0)
		return nd_error_set(ND_ENOMEM, "out of memory");
	*c = p;
	double jac = nd__sig_jaccard(&r->sig[i], &r->sig[j]);
	(*c)[(*nc)++] = (nd__cand){(uint32_t)j, jac, nd__cand_rank(&r->sig[i], &r->sig[j], jac)};
	return ND_OK;
}

/* Result i's candidates among the results of the other shards, as its
 * hook would have found them had every shard been one store: those with
 * its key, and its neighbours in each other shard's near-neighbour index;
 * ranked as check ranks them.  c[].docid is a result's index here. */
static int shard_candidates(const result_set *r, nd_store_txn *const *txn, size_t i, nd__cand **c, size_t *nc,
			    size_t *cap)
{
	const nd_sig *sig = &r->sig[i];
	int rc = ND_OK;

	if (sig->key) {
		key_ref want = {sig->key, 0};
		const key_ref *k = bsearch(&want, r->bykey, r->n, sizeof(*r->bykey), cmp_key_only);
		while (k && k > r->bykey && k[-1].key == sig->key)
			k--;
		for (; k && k < r->bykey + r->n && k->key == sig->key && rc == ND_OK; k++)
			if (r->shard[k->i] != r->shard[i])
				rc = add_cand(r, i, k->i, c, nc, cap);
	}
	for (size_t t = 0; sig->present && t < r->ss->n && rc == ND_OK; t++) {
		uint32_t *near = NULL;
		size_t nnear = 0;
		if (t == r->shard[i] || (rc = nd_near_candidates(txn[t], sig, 0, &near, &nnear)) < 0)
			continue;
		for (size_t k = 0; k < nnear && rc == ND_OK; k++) {
			key_ref want = {nd_shards_docid(r->ss->sh, t, near[k]), 0};
			const key_ref *hit = bsearch(&want, r->byid, r->n, sizeof(*r->byid), cmp_key_only);
			if (hit && !(sig->key && r->sig[hit->i].key == sig->key)) /* the key's are in */
				rc = add_cand(r, i, hit->i, c, nc, cap);
		}
		free(near);
	}
	return rc;
}

/* A result's words, read at most once a search: results are compared
 * with each other (across shards: two stores, two collections, so the
 * pair verdict on words, every shingle weighing 1). */
typedef struct {
	uint32_t *w;
	size_t nw;
	int state; /* 0 not read yet, 1 read, -1 no words */
} result_text;

static int text_of(nd_xdb *db, nd_docid docid, result_text *t)
{
	if (t->state)
		return ND_OK;
	int rc = nd_words_get(db, docid, &t->w, &t->nw, NULL);
	t->state = rc == ND_ENOTFOUND ? -1 : 1; /* deleted since signing, or no words */
	return rc == ND_ENOTFOUND ? ND_OK : rc;
}

/* One result against its candidates in every other shard, the most
 * similar first, at most SHARD_COMPARE of them and no pair twice
 * (compared): the verdict's duplicates join it. */
static int join_across(nd_xdb *db, const result_set *r, nd_store_txn *const *txn, const nd_verify_options *vo,
		       result_text *text, id_set *compared, size_t i)
{
	nd__cand *c = NULL;
	size_t nc = 0, cap = 0;
	int rc = shard_candidates(r, txn, i, &c, &nc, &cap);

	if (rc < 0)
		goto cleanup;
	if (nc > 1) /* c is NULL when there are none */
		qsort(c, nc, sizeof(*c), nd__cmp_cand); /* equal keys first, then the most similar */
	for (size_t k = 0, m = 0; k < nc && m < SHARD_COMPARE; k++) {
		size_t j = c[k].docid;
		uint64_t pair = i < j ? (uint64_t)i << 32 | j : (uint64_t)j << 32 | i;
		if (nd__root(r->up, (uint32_t)i) == nd__root(r->up, (uint32_t)j) || (rc = id_set_add(compared, pair)) == 0)
			continue;
		if (rc < 0 || (rc = text_of(db, r->docs[i], &text[i])) < 0 ||
		    (rc = text_of(db, r->docs[j], &text[j])) < 0)
			goto cleanup;
		m++;
		if (text[i].state < 0)
			break; /* nothing to verify with */
		nd_verify_how how;
		double dist;
		if (text[j].state > 0 &&
		    (rc = nd_verify_pair(text[i].w, text[i].nw, text[j].w, text[j].nw, vo, &how, &dist)) > 0)
			nd__join(r->up, (uint32_t)i, (uint32_t)j);
		if (rc < 0)
			goto cleanup;
	}
	rc = ND_OK;
cleanup:
	free(c);
	return rc;
}

/* Join the results (at[k].i) that share a nonzero id (at[k].key). */
static void join_equal(key_ref *at, size_t m, uint32_t *up)
{
	qsort(at, m, sizeof(*at), cmp_key_ref);
	for (size_t k = 1; k < m; k++)
		if (at[k].key && at[k].key == at[k - 1].key)
			nd__join(up, (uint32_t)at[k - 1].i, (uint32_t)at[k].i);
}

/* Over shards, what one store's links fold: each shard's own links, and
 * across shards the pairs of results the verdict accepts, each result
 * compared with the results among its candidates in the other shards
 * (join_across).  A shard whose links are pending adds verified equal-key
 * groups over every store, as one store falls back to.  A document that
 * joins two results only through others outside the list does not fold
 * them across shards: results are compared with results. */
static int shard_ids(nd_xdb *db, const store_set *ss, const nd_verify_options *vo, const nd_docid *docs, size_t n,
		     nd_docid *ids)
{
	uint32_t *up = malloc((n + 1) * sizeof(*up));
	size_t *shard = malloc((n + 1) * sizeof(*shard));
	nd_docid *local = malloc((n + 1) * sizeof(*local)), *sel = malloc((n + 1) * sizeof(*sel));
	nd_docid *lid = malloc((n + 1) * sizeof(*lid));
	key_ref *byid = malloc((n + 1) * sizeof(*byid)), *at = malloc((n + 1) * sizeof(*at));
	key_ref *bykey = malloc((n + 1) * sizeof(*bykey));
	nd_store_txn **txn = calloc(ss->n + 1, sizeof(*txn));
	result_text *text = calloc(n + 1, sizeof(*text));
	nd_sig *sig = calloc(n + 1, sizeof(*sig));
	id_set compared = {NULL, 0, 0};
	int rc = ND_OK, pending = 0;

	if (!up || !shard || !local || !sel || !lid || !byid || !at || !bykey || !txn || !text || !sig) {
		rc = nd_error_set(ND_ENOMEM, "out of memory");
		goto cleanup;
	}
	for (size_t i = 0; i < n; i++) {
		up[i] = (uint32_t)i;
		local[i] = nd_shards_local(ss->sh, docs[i], &shard[i]);
		byid[i] = (key_ref){docs[i], i};
	}
	qsort(byid, n, sizeof(*byid), cmp_key_ref);
	/* Each shard's links: results of one component share its id. */
	for (size_t s = 0; s < ss->n; s++) {
		size_t m = 0;
		int used;
		for (size_t i = 0; i < n; i++)
			if (shard[i] == s) {
				at[m] = (key_ref){0, i};
				sel[m++] = local[i];
			}
		if (m == 0)
			continue;
		if ((rc = link_ids(ss->st[s], sel, m, lid, &used, NULL)) < 0)
			goto cleanup;
		pending |= !used;
		for (size_t k = 0; k < m; k++)
			at[k].key = used ? lid[k] : 0;
		join_equal(at, m, up);
	}
	if (pending) {
		if ((rc = key_ids(db, ss, vo, docs, n, lid)) < 0)
			goto cleanup;
		for (size_t i = 0; i < n; i++)
			at[i] = (key_ref){lid[i], i};
		join_equal(at, n, up);
	}
	/* Across shards: every result's signature once, then each result
	 * against the others'. */
	for (size_t s = 0; s < ss->n; s++)
		if ((rc = nd_store_read_begin(ss->st[s], &txn[s])) < 0)
			goto cleanup;
	for (size_t i = 0; i < n; i++) {
		uint64_t key;
		const void *pay;
		size_t len;
		if (shard[i] != SIZE_MAX && (rc = nd_store_doc_get(txn[shard[i]], local[i], &key, &pay, &len)) == ND_OK)
			rc = nd_sig_decode(&sig[i], pay, len, nd_shards_descriptor(ss->sh)->n);
		if (rc < 0 && rc != ND_ENOTFOUND)
			goto cleanup; /* ND_ENOTFOUND: not signed, never collapsed */
		bykey[i] = (key_ref){sig[i].key, i};
	}
	qsort(bykey, n, sizeof(*bykey), cmp_key_ref);
	result_set r = {ss, docs, n, shard, sig, byid, bykey, up};
	for (size_t i = 0; i < n; i++)
		if ((rc = join_across(db, &r, txn, vo, text, &compared, i)) < 0)
			goto cleanup;
	/* A group's id is its smallest docid (lid, at its root; sel counts
	 * its results); a result alone gets 0. */
	memset(lid, 0, n * sizeof(*lid));
	memset(sel, 0, n * sizeof(*sel));
	for (size_t i = 0; i < n; i++) {
		uint32_t r = nd__root(up, (uint32_t)i);
		sel[r]++;
		lid[r] = lid[r] && lid[r] < docs[i] ? lid[r] : docs[i];
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t r = nd__root(up, (uint32_t)i);
		ids[i] = sel[r] > 1 ? lid[r] : 0;
	}
cleanup:
	for (size_t s = 0; txn && s < ss->n; s++)
		nd_store_txn_end(txn[s]);
	free(txn);
	for (size_t i = 0; text && i < n; i++) {
		free(text[i].w);
	}
	free(text);
	for (size_t i = 0; sig && i < n; i++)
		nd_sig_clear(&sig[i]);
	free(sig);
	free(bykey);
	free(compared.v);
	free(up);
	free(shard);
	free(local);
	free(sel);
	free(lid);
	free(byid);
	free(at);
	return rc;
}

static int collapse_ids(nd_xdb *db, const store_set *ss, const nd_verify_options *vo, const nd_docid *docs,
			size_t n, nd_docid *ids)
{
	int used, rc;

	if (n == 0)
		return ND_OK; /* ids may be NULL */
	memset(ids, 0, n * sizeof(*ids));
	if (ss->sh)
		return shard_ids(db, ss, vo, docs, n, ids);
	/* One store: its links, when they cover every record. */
	if ((rc = link_ids(ss->st[0], docs, n, ids, &used, NULL)) < 0 || used)
		return rc;
	return key_ids(db, ss, vo, docs, n, ids);
}

int nd_collapse_ids(nd_xdb *db, nd_store *st, const nd_verify_options *vo, const nd_docid *docs,
		    size_t n, nd_docid *ids)
{
	store_set ss = {&st, NULL, 1};
	int rc = nd__store_matches_db(st, db);
	return rc < 0 ? rc : collapse_ids(db, &ss, vo, docs, n, ids);
}

/* Of the members w walked (sorted), those of cluster id: *size counts
 * them, and out (room for max) gets up to max of them ascending, but for
 * those of skip[0..nskip) (ascending). */
static size_t walked_cluster(const nd_u64s *w, nd_docid id, const nd_docid *skip, size_t nskip, size_t max,
			     nd_docid *out, size_t *size)
{
	size_t n = 0;
	*size = 0;
	for (size_t i = 0; i < w->n; i++) {
		nd_docid doc = (nd_docid)(w->v[i] >> 32), x = (nd_docid)w->v[i] ? (nd_docid)w->v[i] : doc;
		if (x != id)
			continue;
		++*size;
		if (n < max && !(nskip && bsearch(&doc, skip, nskip, sizeof(*skip), nd_cmp_u32)))
			out[n++] = doc;
	}
	return n;
}

int nd_check_cluster(nd_xdb *db, nd_store *st, const nd_verify_options *vo, const nd_check_result *r,
		     size_t max_rest, nd_docid *id, size_t *size, nd_docid **rest, size_t *nrest)
{
	nd_docid *dups = NULL, *ids = NULL, *out = NULL;
	nd_u64s w = {NULL, 0, 0};
	size_t k = 0, n = 0;
	int rc = ND_OK, used = 0;

	*id = 0, *size = 0, *rest = NULL, *nrest = 0;
	if (!r->duplicates || !r->nmembers)
		return ND_OK;
	if (!(dups = malloc(r->nmembers * sizeof(*dups))) || !(ids = malloc(r->nmembers * sizeof(*ids)))) {
		rc = nd_error_set(ND_ENOMEM, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < r->nmembers; i++) {
		const nd_check_member *x = &r->members[i];
		if (x->duplicate && (x->how != ND_VERIFIED_RESEMBLANCE ||
				     1 - x->distance >= nd_point_resemblance(ND_POINT_COPY) - 1e-12))
			dups[k++] = x->docid;
	}
	/* One walk of the duplicates' link components gives their ids and
	 * every member's; while the links are to be rebuilt, verified
	 * equal-key groups give the ids, and the cluster is the duplicates. */
	store_set ss = {&st, NULL, 1};
	if (!k || (rc = nd__store_matches_db(st, db)) < 0 || (rc = link_ids(st, dups, k, ids, &used, &w)) < 0 ||
	    (!used && (rc = key_ids(db, &ss, vo, dups, k, ids)) < 0))
		goto done;
	for (size_t i = 0; i < k; i++) {
		nd_docid x = ids[i] ? ids[i] : dups[i];
		*id = !*id || x < *id ? x : *id;
	}
	for (size_t i = 0; !used && i < k; i++)
		if ((rc = walked_add(&w, dups[i], ids[i])) < 0)
			goto done;
	if (w.n)
		nd__sort_u64(w.v, w.n);
	if (vo && vo->point != ND_POINT_COPY)
		max_rest = 0;
	if (!(out = malloc(((w.n < max_rest ? w.n : max_rest) + 1) * sizeof(*out)))) {
		rc = nd_error_set(ND_ENOMEM, "out of memory");
		goto done;
	}
	/* The rest: all but the duplicates the check verified (at copy, dups
	 * holds them all). */
	qsort(dups, k, sizeof(*dups), nd_cmp_u32);
	if ((n = walked_cluster(&w, *id, dups, k, max_rest, out, size)))
		*rest = out, *nrest = n, out = NULL;
done:
	free(out);
	free(dups);
	free(ids);
	free(w.v);
	return rc;
}

int nd_collapse_cluster(nd_xdb *db, nd_store *st, const nd_verify_options *vo, nd_docid docid, size_t max,
			nd_docid *id, size_t *size, nd_docid **members, size_t *nmembers)
{
	nd_store_txn *txn = NULL;
	nd_docid got = 0, *out = NULL, *ids = NULL;
	uint32_t *keyed = NULL;
	size_t nkeyed = 0, n;
	nd_u64s w = {NULL, 0, 0};
	uint64_t key = 0;
	int rc, used = 0;

	*id = 0, *size = 0, *members = NULL, *nmembers = 0;
	if ((rc = nd__store_matches_db(st, db)) < 0 || (rc = nd_store_read_begin(st, &txn)) < 0)
		return rc;
	rc = nd_store_doc_get(txn, docid, &key, NULL, NULL);
	nd_store_txn_end(txn);
	if (rc == ND_ENOTFOUND)
		return ND_OK; /* not signed, or deleted: in no cluster */
	if (rc < 0 || (rc = link_ids(st, &docid, 1, &got, &used, &w)) < 0)
		goto done;
	if (!used) {
		/* Links to be rebuilt: the document's verified equal-key group
		 * (itself, without a key). */
		store_set ss = {&st, NULL, 1};
		const nd_docid *group = &docid;
		size_t ng = 1;
		if (key) {
			if ((rc = nd_store_read_begin(st, &txn)) < 0)
				goto done;
			rc = nd_store_key_docs(txn, key, &keyed, &nkeyed);
			nd_store_txn_end(txn);
			if (rc < 0)
				goto done;
			if (nkeyed)
				group = keyed, ng = nkeyed;
		}
		if (!(ids = malloc(ng * sizeof(*ids)))) {
			rc = nd_error_set(ND_ENOMEM, "out of memory");
			goto done;
		}
		if ((rc = key_ids(db, &ss, vo, group, ng, ids)) < 0)
			goto done;
		int in = 0;
		for (size_t i = 0; i < ng; i++) {
			if (group[i] == docid)
				got = ids[i], in = 1;
			if ((rc = walked_add(&w, group[i], ids[i])) < 0)
				goto done;
		}
		/* Re-signed under another key since it was read: alone. */
		if (!in && (rc = walked_add(&w, docid, 0)) < 0)
			goto done;
	}
	/* Either way docid was walked, so its cluster holds it. */
	*id = got ? got : docid;
	nd__sort_u64(w.v, w.n);
	if (!(out = malloc(((w.n < max ? w.n : max) + 1) * sizeof(*out)))) {
		rc = nd_error_set(ND_ENOMEM, "out of memory");
		goto done;
	}
	if ((n = walked_cluster(&w, *id, NULL, 0, max, out, size)))
		*members = out, *nmembers = n, out = NULL;
done:
	if (rc < 0)
		*id = 0, *size = 0;
	free(out);
	free(ids);
	free(keyed);
	free(w.v);
	return rc;
}

static int collapse(nd_xdb *db, const store_set *ss, const nd_verify_options *vo, const nd_docid *ranked,
		    size_t n, nd_collapsed *out, size_t *nkept)
{
	nd_docid *ids = NULL;
	key_ref *byid = NULL;
	uint32_t *count = NULL;
	size_t m = 0;
	int rc;

	*nkept = 0;
	if (n == 0)
		return ND_OK;
	if (!(ids = malloc(n * sizeof(*ids))) || !(byid = malloc(n * sizeof(*byid))) ||
	    !(count = calloc(n, sizeof(*count)))) {
		rc = nd_error_set(ND_ENOMEM, "out of memory");
		goto cleanup;
	}
	if ((rc = collapse_ids(db, ss, vo, ranked, n, ids)) < 0)
		goto cleanup;
	/* Group positions by id; the best-ranked position of each id keeps it. */
	for (size_t i = 0; i < n; i++)
		if (ids[i])
			byid[m++] = (key_ref){ids[i], i};
	qsort(byid, m, sizeof(*byid), cmp_key_ref);
	for (size_t r = 0; r < m;) {
		size_t e = r + 1;
		while (e < m && byid[e].key == byid[r].key) {
			count[byid[e].i] = UINT32_MAX; /* collapsed */
			e++;
		}
		count[byid[r].i] = (uint32_t)(e - r - 1);
		r = e;
	}
	for (size_t i = 0; i < n; i++)
		if (count[i] != UINT32_MAX)
			out[(*nkept)++] = (nd_collapsed){ranked[i], count[i]};
	rc = ND_OK;
cleanup:
	free(ids);
	free(byid);
	free(count);
	return rc;
}

int nd_collapse(nd_xdb *db, nd_store *st, const nd_verify_options *vo, const nd_docid *ranked,
		size_t n, nd_collapsed *out, size_t *nkept)
{
	store_set ss = {&st, NULL, 1};
	int rc = nd__store_matches_db(st, db);
	return rc < 0 ? rc : collapse(db, &ss, vo, ranked, n, out, nkept);
}

int nd_collapse_tolerant(nd_xdb *db, nd_store *st, const nd_verify_options *vo, double min_jaccard,
			 const nd_docid *ranked, size_t n, nd_collapsed *out, size_t *nkept)
{
	size_t *into = n ? malloc(n * sizeof(*into)) : NULL, *pos = n ? malloc(n * sizeof(*pos)) : NULL;
	nd_docid *ids = n ? malloc(n * sizeof(*ids)) : NULL;
	int rc;

	*nkept = 0;
	if (n && (!into || !pos || !ids)) {
		free(into);
		free(pos);
		free(ids);
		return nd_error_set(ND_ENOMEM, "out of memory");
	}
	/* What filtering folds (cached verifications of equal keys) is folded
	 * without comparing again; the Levenshtein runs across keys only. */
	if ((rc = nd_collapse_ids(db, st, vo, ranked, n, ids)) == ND_OK &&
	    (rc = nd_verify_tolerant(db, st, vo, min_jaccard, ranked, n, ids, into, NULL)) == ND_OK)
		/* A result folds into a better-ranked one: that one is out already. */
		for (size_t i = 0; i < n; i++) {
			if (into[i] == i) {
				pos[i] = *nkept;
				out[(*nkept)++] = (nd_collapsed){ranked[i], 0};
			} else
				out[pos[into[i]]].collapsed++;
		}
	free(into);
	free(pos);
	free(ids);
	return rc;
}

/* A collapse id as its slot value: *len 0 (no value) for id 0. */
static void encode_id(nd_docid id, unsigned char v[ND_COLLAPSE_VALUE_LEN], size_t *len)
{
	v[0] = (unsigned char)(id >> 24), v[1] = (unsigned char)(id >> 16);
	v[2] = (unsigned char)(id >> 8), v[3] = (unsigned char)id;
	*len = id ? ND_COLLAPSE_VALUE_LEN : 0;
}

/* Set docs[i]'s slot to ids[i]'s value; a deleted document is passed over. */
static int put_ids(nd_xdb *db, unsigned slot, const nd_docid *docs, const nd_docid *ids, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char v[ND_COLLAPSE_VALUE_LEN];
		size_t len;
		encode_id(ids[i], v, &len);
		int rc = nd_xdb_set_value(db, docs[i], slot, v, len);
		if (rc < 0 && rc != ND_ENOTFOUND)
			return rc;
	}
	return ND_OK;
}

int nd_collapse_write_slot(nd_xdb *db, nd_store *st, const nd_verify_options *vo, unsigned slot,
			   const nd_docid *docs, size_t n, size_t *written)
{
	nd_docid *ids = NULL;
	size_t w = 0;
	int rc;

	if (written)
		*written = 0;
	if (n == 0)
		return ND_OK;
	if (!(ids = malloc(n * sizeof(*ids))))
		return nd_error_set(ND_ENOMEM, "out of memory");
	if ((rc = nd_collapse_ids(db, st, vo, docs, n, ids)) < 0)
		goto cleanup;
	for (size_t i = 0; i < n; i++) {
		unsigned char want[ND_COLLAPSE_VALUE_LEN];
		size_t wlen;
		char *have = NULL;
		size_t hlen;
		encode_id(ids[i], want, &wlen);
		rc = nd_xdb_doc_value(db, docs[i], slot, &have, &hlen);
		if (rc == ND_ENOTFOUND)
			continue; /* deleted: nothing to keep in step */
		if (rc < 0)
			goto cleanup;
		int same = hlen == wlen && !memcmp(have, want, wlen);
		free(have);
		if (same)
			continue;
		if ((rc = put_ids(db, slot, docs + i, ids + i, 1)) < 0)
			goto cleanup;
		w++;
	}
	rc = ND_OK;
cleanup:
	if (written)
		*written = w;
	free(ids);
	return rc;
}

/* The audit's merge of the slot's value stream with the expected ids. */
typedef struct {
	const nd_docid *docs, *ids;  /* expected: docids ascending, their ids */
	size_t n, next;
	nd_docid *bad, *want;        /* documents to rewrite, and their ids */
	size_t nbad, cap;
	int rc;
} audit_ctx;

static int audit_wrong(audit_ctx *a, nd_docid docid, nd_docid id)
{
	if (a->nbad == a->cap) {
		size_t cap = a->cap * 2 + 256;
		nd_docid *b = realloc(a->bad, cap * sizeof(*b)), *w = b ? realloc(a->want, cap * sizeof(*w)) : NULL;
		if (b)
			a->bad = b;
		if (!w)
			return a->rc = nd_error_set(ND_ENOMEM, "out of memory");
		a->want = w, a->cap = cap;
	}
	a->bad[a->nbad] = docid, a->want[a->nbad++] = id;
	return ND_OK;
}

/* Expected documents before docid (all: every one left) have no value. */
static int audit_missing(audit_ctx *a, nd_docid docid, int all)
{
	for (; a->next < a->n && (all || a->docs[a->next] < docid); a->next++)
		if (a->ids[a->next] && audit_wrong(a, a->docs[a->next], a->ids[a->next]) < 0)
			return a->rc;
	return ND_OK;
}

static int audit_value(nd_docid docid, const char *val, size_t len, void *vctx)
{
	audit_ctx *a = vctx;
	nd_docid id = 0;
	unsigned char want[ND_COLLAPSE_VALUE_LEN];
	size_t wlen;
	if (audit_missing(a, docid, 0) < 0)
		return 1;
	if (a->next < a->n && a->docs[a->next] == docid)
		id = a->ids[a->next++];
	encode_id(id, want, &wlen);
	if ((len != wlen || (wlen && memcmp(val, want, wlen))) && audit_wrong(a, docid, id) < 0)
		return 1;
	return 0;
}

typedef struct {
	nd_docid *v;
	size_t n, cap;
} doc_list;

static int add_linked(uint32_t a, uint32_t b, void *ctx)
{
	doc_list *l = ctx;
	(void)b;
	if (l->n && l->v[l->n - 1] == a)
		return 0; /* links come in (a, b) order */
	void *p = l->v;
	if (nd_array_reserve(&p, &l->cap, l->n + 1, sizeof(nd_docid)) < 0)
		return nd_error_set(ND_ENOMEM, "out of memory");
	l->v = p;
	l->v[l->n++] = a;
	return 0;
}

/* Every document that can have an id: with links covering every record,
 * those with a link; else the members of equal-key clusters of two or
 * more.  Ascending. */
static int clustered_docs(nd_store *st, nd_docid **out, size_t *n)
{
	nd_store_txn *txn;
	nd_store_keys *it = NULL;
	nd_docid *all = NULL;
	size_t cap = 0, count;
	uint64_t key;
	int rc, got;

	*out = NULL;
	*n = 0;
	if ((rc = nd_store_read_begin(st, &txn)) < 0)
		return rc;
	if ((rc = nd_store_links_state(txn)) >= 0 && rc != ND_LINKS_REBUILD) {
		doc_list l = {NULL, 0, 0};
		rc = nd_store_links_each(txn, add_linked, &l);
		nd_store_txn_end(txn);
		if (rc < 0) {
			free(l.v);
			return rc;
		}
		*out = l.v;
		*n = l.n;
		return ND_OK;
	}
	if (rc < 0)
		goto cleanup;
	if ((rc = nd_store_keys_open(txn, &it)) < 0)
		goto cleanup;
	while ((got = nd_store_keys_next(it, &key, &count)) == 1) {
		nd_docid *m;
		size_t nm;
		void *p = all;
		if (count < 2)
			continue;
		if ((rc = nd_store_key_docs(txn, key, &m, &nm)) < 0)
			goto cleanup;
		if ((rc = nd_array_reserve(&p, &cap, *n + nm, sizeof(nd_docid))) < 0) {
			free(m);
			goto cleanup;
		}
		all = p;
		memcpy(all + *n, m, nm * sizeof(*m));
		*n += nm;
		free(m);
	}
	rc = got < 0 ? got : ND_OK;
cleanup:
	nd_store_keys_free(it);
	nd_store_txn_end(txn);
	if (rc == ND_OK && *n)
		qsort(all, *n, sizeof(*all), nd_cmp_u32);
	if (rc < 0) {
		free(all);
		all = NULL, *n = 0;
	}
	*out = all;
	return rc;
}

int nd_collapse_slot_audit(nd_xdb *db, nd_store *st, const nd_verify_options *vo, unsigned slot, int fix,
			   size_t *wrong)
{
	audit_ctx a = {NULL, NULL, 0, 0, NULL, NULL, 0, 0, ND_OK};
	nd_docid *docs = NULL, *ids = NULL;
	size_t n = 0;
	int rc;

	*wrong = 0;
	if ((rc = clustered_docs(st, &docs, &n)) < 0)
		return rc;
	if (n && !(ids = malloc(n * sizeof(*ids)))) {
		free(docs);
		return nd_error_set(ND_ENOMEM, "out of memory");
	}
	if ((rc = nd_collapse_ids(db, st, vo, docs, n, ids)) < 0)
		goto cleanup;
	a.docs = docs, a.ids = ids, a.n = n;
	rc = nd_xdb_values_each(db, slot, audit_value, &a);
	if (rc > 0 || a.rc < 0) {
		rc = a.rc;
		goto cleanup;
	}
	if (rc < 0)
		goto cleanup;
	if ((rc = audit_missing(&a, 0, 1)) < 0)
		goto cleanup;
	*wrong = a.nbad;
	if (fix)
		rc = put_ids(db, slot, a.bad, a.want, a.nbad);
cleanup:
	free(a.bad);
	free(a.want);
	free(docs);
	free(ids);
	return rc;
}

int nd_collapse_slot_get(nd_store *st, int *slot)
{
	nd_store_txn *txn;
	const void *v;
	size_t len;
	int32_t s;
	int rc;
	*slot = -1;
	if ((rc = nd_store_read_begin(st, &txn)) < 0)
		return rc;
	rc = nd_store_meta_get(txn, "collapse.slot", &v, &len);
	if (rc == ND_OK && len == sizeof(s)) {
		memcpy(&s, v, sizeof(s));
		*slot = s;
	} else if (rc == ND_OK) {
		rc = nd_error_set(ND_ECORRUPT, "store %s: collapse.slot record is damaged",
				  nd_store_path(st));
	} else if (rc == ND_ENOTFOUND) {
		rc = ND_OK;
	}
	nd_store_txn_end(txn);
	return rc;
}

static int slot_put(nd_store_txn *txn, void *ctx)
{
	return nd_store_meta_put(txn, "collapse.slot", ctx, sizeof(int32_t));
}

int nd_collapse_slot_set(nd_store *st, int slot)
{
	int32_t s = slot;
	if (slot < -1 || (unsigned)slot == ND_SLOT_WORDS || (unsigned)slot == ND_SLOT_FULL_WORDS ||
	    (unsigned)slot == ND_SLOT_TEXT_HASH ||
	    (unsigned)slot == ND_SLOT_WORDS_V1 || (unsigned)slot == ND_SLOT_FULL_WORDS_V1)
		return nd_error_set(ND_EINVAL, "value slot %d cannot hold collapse ids%s", slot,
				    slot >= 0 ? " (neardup keeps word sequences there)" : "");
	return nd_store_write(st, slot_put, &s);
}

typedef struct {
	nd_docid *v;
	size_t n, cap;
} slot_docs;

static int slot_doc(nd_docid docid, const char *val, size_t len, void *ctx)
{
	slot_docs *l = ctx;
	void *p = l->v;
	(void)val, (void)len;
	if (nd_array_reserve(&p, &l->cap, l->n + 1, sizeof(nd_docid)) < 0)
		return nd_error_set(ND_ENOMEM, "out of memory");
	l->v = p;
	l->v[l->n++] = docid;
	return 0;
}

int nd_collapse_slot_move(nd_xdb *db, nd_store *st, int slot)
{
	slot_docs l = {NULL, 0, 0};
	int old, rc;
	if ((rc = nd_collapse_slot_get(st, &old)) < 0 || old == slot)
		return rc;
	if (old >= 0) {
		/* The old values go first, committed: killed before the store
		 * names the new slot, the store still names the old one, whose
		 * values 'update' writes again. */
		if (!nd_xdb_writable(db))
			return nd_error_set(ND_EINVAL, "moving collapse ids out of value slot %d of %s needs "
					    "the database writable", old, nd_xdb_path(db));
		rc = nd_xdb_values_each(db, (unsigned)old, slot_doc, &l);
		for (size_t i = 0; i < l.n && rc == ND_OK; i++)
			rc = nd_xdb_set_value(db, l.v[i], (unsigned)old, NULL, 0);
		free(l.v);
		if (rc == ND_OK)
			rc = nd_xdb_commit(db);
		if (rc < 0)
			return rc;
	}
	return nd_collapse_slot_set(st, slot);
}

/* Filter: rank `depth` results uncollapsed, keep the first of each group
 * (tolerant > 0: nd_collapse_tolerant at that Jaccard, one store only). */
static int search_filter(nd_xdb *db, const store_set *ss, double tolerant, const char *query, uint32_t offset,
			 uint32_t max, uint32_t depth, nd_xdb_hit *hits, size_t *n, uint32_t *estimated)
{
	nd_xdb_query q = {0, depth, -1, depth};
	nd_xdb_hit *all = NULL;
	nd_docid *ranked = NULL;
	nd_collapsed *kept = NULL;
	size_t nall = 0, nkept = 0;
	int rc;

	if (!(all = malloc((size_t)depth * sizeof(*all))) || !(ranked = malloc((size_t)depth * sizeof(*ranked))) ||
	    !(kept = malloc((size_t)depth * sizeof(*kept)))) {
		rc = nd_error_set(ND_ENOMEM, "out of memory");
		goto cleanup;
	}
	if ((rc = nd_xdb_search(db, query, &q, all, &nall, estimated)) < 0)
		goto cleanup;
	for (size_t i = 0; i < nall; i++)
		ranked[i] = all[i].docid;
	rc = tolerant > 0 ? nd_collapse_tolerant(db, ss->st[0], NULL, tolerant, ranked, nall, kept, &nkept)
			  : collapse(db, ss, NULL, ranked, nall, kept, &nkept);
	if (rc < 0)
		goto cleanup;
	/* kept is in rank order, a subsequence of all: weights follow along. */
	for (size_t i = offset, j = 0; i < nkept && *n < max; i++) {
		while (all[j].docid != kept[i].docid)
			j++;
		hits[*n] = (nd_xdb_hit){kept[i].docid, all[j].weight, kept[i].collapsed};
		++*n;
	}
	if (estimated && nall < depth)
		*estimated = (uint32_t)nkept; /* every match was seen: exact */
cleanup:
	free(all);
	free(ranked);
	free(kept);
	return rc;
}

int nd_search(nd_xdb *db, nd_store *st, const char *query, nd_collapse_mode mode, uint32_t offset,
	      uint32_t max, uint32_t depth, nd_xdb_hit *hits, size_t *n, uint32_t *estimated)
{
	nd_xdb_query q = {offset, max, -1, 0};
	store_set ss = {&st, NULL, 1};
	int rc;

	*n = 0;
	if (depth < offset + max)
		depth = offset + max;
	q.check_at_least = depth;
	/* Even when nothing is folded, the database is read through the
	 * prefixes the store's set was built with (mu's words under B); a
	 * store without a set has none. */
	if (mode == ND_COLLAPSE_NONE) {
		if ((rc = nd__store_matches_db(st, db)) < 0 && rc != ND_ESTATE)
			return rc;
		return nd_xdb_search(db, query, &q, hits, n, estimated);
	}
	if (mode == ND_COLLAPSE_NATIVE) {
		if ((rc = nd_collapse_slot_get(st, &q.collapse_slot)) < 0)
			return rc;
		if (q.collapse_slot < 0)
			return nd_error_set(ND_ESTATE, "store %s keeps no collapse ids in a value slot: "
					    "run 'neardup sign --value-slot N', or collapse by filter",
					    nd_store_path(st));
		if ((rc = nd__store_matches_db(st, db)) < 0)
			return rc;
		return nd_xdb_search(db, query, &q, hits, n, estimated);
	}
	if ((rc = nd__store_matches_db(st, db)) < 0)
		return rc;
	return search_filter(db, &ss, mode == ND_COLLAPSE_TOLERANT ? ND_COLLAPSE_TOLERANT_JACCARD : 0, query,
			     offset, max, depth, hits, n, estimated);
}

int nd_search_shards(nd_xdb *db, const nd_shards *sh, const char *query, uint32_t offset, uint32_t max,
		     uint32_t depth, nd_xdb_hit *hits, size_t *n, uint32_t *estimated)
{
	size_t ns = nd_shards_stores(sh);
	nd_store **st = malloc((ns + 1) * sizeof(*st));
	int rc;
	*n = 0;
	if (!st)
		return nd_error_set(ND_ENOMEM, "out of memory");
	for (size_t i = 0; i < ns; i++)
		st[i] = nd_shards_store(sh, i);
	store_set ss = {st, sh, ns};
	rc = search_filter(db, &ss, 0, query, offset, max, depth < offset + max ? offset + max : depth, hits, n,
			   estimated);
	free(st);
	return rc;
}
