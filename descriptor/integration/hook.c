/* Re-index hooks: one document's change, or every change since the store
 * last saw the database, applied without re-clustering anything else. */
#include "neardup/hook.h"
#include "neardup/collapse.h"
#include "neardup/cluster.h"
#include "neardup/words.h"
#include "descriptor/verify/verify_internal.h"
#include "common/nd_buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct nd_hook {
	nd_xdb *db;
	nd_store *st;
	nd_descriptor *d;
	nd_hook_options o;
	int slot;          /* collapse slot kept in step, or -1 */
};

void nd_hook_result_clear(nd_hook_result *r)
{
	free(r->duplicates);
	memset(r, 0, sizeof(*r));
}

int nd_hook_open(nd_hook **out, nd_xdb *db, nd_store *st, const nd_hook_options *opts)
{
	nd_hook *h;
	double drift;
	int rc;

	*out = NULL;
	if (!(h = calloc(1, sizeof(*h))))
		return nd_error_set(ND_ENOMEM, "out of memory");
	h->db = db;
	h->st = st;
	h->o = opts ? *opts : (nd_hook_options)ND_HOOK_OPTIONS_INIT;
	if (!(h->o.tolerant >= 0 && h->o.tolerant <= 1) || !(h->o.max_drift >= 0)) {
		rc = nd_error_set(ND_EINVAL, "tolerant must be in [0, 1] and max_drift >= 0, not %g and %g",
				  h->o.tolerant, h->o.max_drift);
		goto fail;
	}
	if ((rc = nd__verify_options_check(&h->o.verify)) < 0)
		goto fail;
	if (!h->o.max_compare)
		h->o.max_compare = 64;
	if ((rc = nd_descriptor_load(&h->d, st, db)) < 0 || (rc = nd_collapse_slot_get(st, &h->slot)) < 0 ||
	    (rc = nd_drift(st, &drift)) < 0)
		goto fail;
	if (h->o.max_drift > 0 && drift > h->o.max_drift) {
		rc = nd_error_set(ND_ESTATE, "store %s: the descriptive set is stale: %.0f%% of the "
				  "documents it was built from have changed since (limit %.0f%%); run "
				  "'neardup build' to choose a new set and sign again",
				  nd_store_path(st), 100 * drift, 100 * h->o.max_drift);
		goto fail;
	}
	if (h->slot >= 0 && !nd_xdb_writable(db)) {
		rc = nd_error_set(ND_EINVAL, "store %s keeps collapse ids in value slot %d of %s: "
				  "open the database writable to change it", nd_store_path(st),
				  h->slot, nd_xdb_path(db));
		goto fail;
	}
	*out = h;
	return ND_OK;
fail:
	nd_hook_free(h);
	return rc;
}

void nd_hook_free(nd_hook *h)
{
	if (!h)
		return;
	nd_descriptor_free(h->d);
	free(h);
}

typedef struct {
	nd_docid docid;
	int present;
	const nd_sig *sig;
	double max_drift;
	const char *path;
	nd_change change;   /* out */
	uint64_t old_key;   /* out */
} apply_ctx;

static int apply_fn(nd_store_txn *txn, void *vctx)
{
	apply_ctx *a = vctx;
	int rc;
	/* Forced: the caller says the document changed, so the record is
	 * rewritten (and its caches dropped) even if the fingerprint is equal. */
	if ((rc = nd__sig_apply(txn, a->docid, a->present, a->sig->bits, a->sig->nbits,
				a->sig->present ? a->sig->near : NULL, a->sig->fingerprint, 1, &a->change, &a->old_key)) < 0)
		return rc;
	return nd__drift_add(txn, (uint64_t)nd__drift_counts(txn, a->docid, a->change), a->max_drift,
			     a->path);
}

/* Rewrite the collapse slot of every member of the touched clusters and of
 * the changed documents themselves (which may have left every cluster). */
static int settle(nd_hook *h, const uint64_t *keys, size_t nkeys, const nd_docid *docs, size_t ndocs)
{
	nd_store_txn *txn = NULL;
	nd_docid *all = NULL;
	size_t n = 0, cap = 0;
	int rc;

	if (h->slot < 0)
		return ND_OK;
	void *p = NULL;
	if ((rc = nd_array_reserve(&p, &cap, ndocs + 1, sizeof(nd_docid))) < 0)
		return rc;
	all = p;
	memcpy(all, docs, ndocs * sizeof(nd_docid));
	n = ndocs;
	if ((rc = nd_store_read_begin(h->st, &txn)) < 0)
		goto cleanup;
	for (size_t k = 0; k < nkeys; k++) {
		nd_docid *m;
		size_t nm;
		if (!keys[k])
			continue;
		if ((rc = nd_store_key_docs(txn, keys[k], &m, &nm)) < 0)
			goto cleanup;
		p = all;
		if ((rc = nd_array_reserve(&p, &cap, n + nm, sizeof(nd_docid))) < 0) {
			free(m);
			goto cleanup;
		}
		all = p;
		if (nm)
			memcpy(all + n, m, nm * sizeof(nd_docid));
		n += nm;
		free(m);
	}
	nd_store_txn_end(txn);
	txn = NULL;
	rc = nd_collapse_write_slot(h->db, h->st, &h->o.verify, (unsigned)h->slot, all, n, NULL);
cleanup:
	nd_store_txn_end(txn);
	free(all);
	return rc;
}

/* Does a member compared at the story or copy point pass point p?  The
 * story comparison measures the resemblance whenever strict refuses, so
 * one comparison answers every point at or above it. */
static int passes(const nd_check_member *m, nd_point p)
{
	if (!m->duplicate)
		return 0;
	if (m->how == ND_VERIFIED_LEVENSHTEIN || m->how == ND_VERIFIED_SHINGLES)
		return 1; /* strict accepted it */
	if (m->how == ND_VERIFIED_CONTAINMENT)
		return p != ND_POINT_STRICT;
	return p != ND_POINT_STRICT && 1 - m->distance >= nd_point_resemblance(p) - 1e-12;
}

/* Its candidates (equal key and near-neighbour index; tolerant: and bit-set
 * Jaccard), compared with it as check compares a text: res gets those
 * passing the hook's point, *links (caller frees) those passing copy, the
 * point the store's links are made at. */
static int duplicates_of(nd_hook *h, nd_hook_result *res, nd_docid **links, size_t *nlinks)
{
	nd_store_txn *txn;
	nd_sig sig = ND_SIG_INIT;
	nd__cand *c = NULL;
	nd_check_member *m = NULL;
	uint32_t *mine = NULL;
	size_t nc = 0, nmine = 0, nm = 0;
	const void *pay;
	size_t len;
	uint64_t key;
	int rc;

	res->candidates = res->nduplicates = 0;
	*links = NULL;
	*nlinks = 0;
	if ((rc = nd_store_read_begin(h->st, &txn)) < 0)
		return rc;
	rc = nd_store_doc_get(txn, res->docid, &key, &pay, &len);
	if (rc == ND_OK && (rc = nd_sig_decode(&sig, pay, len, h->d->n)) == ND_OK &&
	    (sig.nbits || sig.present))
		rc = nd__tolerant_candidates(txn, h->d, &sig, h->o.tolerant, &c, &nc);
	nd_store_txn_end(txn); /* no snapshot held while words are read */
	if (rc == ND_ENOTFOUND || (rc == ND_OK && !nc)) {
		rc = ND_OK; /* deleted, or nothing similar */
		goto cleanup;
	}
	if (rc < 0)
		goto cleanup;
	for (size_t i = 0; i < nc; i++)
		res->candidates += c[i].docid != res->docid; /* itself is among them */
	size_t most = h->o.max_compare < nc ? h->o.max_compare : nc;
	if (!(res->duplicates = malloc(most * sizeof(*res->duplicates))) || !(m = malloc(most * sizeof(*m))) ||
	    !(*links = malloc(most * sizeof(**links)))) {
		rc = nd_error_set(ND_ENOMEM, "out of memory");
		goto cleanup;
	}
	rc = nd_words_get(h->db, res->docid, &mine, &nmine, NULL);
	if (rc == ND_ENOTFOUND) {
		rc = ND_OK; /* no words to verify by */
		goto cleanup;
	}
	nd_verify_options vo = h->o.verify;
	vo.point = vo.point == ND_POINT_STORY ? ND_POINT_STORY : ND_POINT_COPY;
	if (rc < 0 || (rc = nd__compare_candidates(h->db, mine, nmine, c, nc, res->docid, h->o.max_compare, &vo,
						   m, &nm)) < 0)
		goto cleanup;
	for (size_t i = 0; i < nm; i++) {
		if (passes(&m[i], h->o.verify.point))
			res->duplicates[res->nduplicates++] = (nd_verified){m[i].docid, 0, m[i].distance, m[i].how};
		if (passes(&m[i], ND_POINT_COPY))
			(*links)[(*nlinks)++] = m[i].docid;
	}
cleanup:
	nd_sig_clear(&sig);
	free(c);
	free(m);
	free(mine);
	if (rc < 0) {
		free(*links);
		*links = NULL;
		*nlinks = 0;
	}
	return rc;
}

/* Links to write, of one change (hooks) or many (update), and the links
 * marked as they were before: the changes are linked again. */
typedef struct {
	nd_docid *a, *b;
	size_t n, cap;
	int pending;    /* marked after writing them */
} link_batch;

static int batch_add(link_batch *lb, nd_docid docid, const nd_docid *to, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (to[i] == docid)
			continue;
		if (lb->n == lb->cap) {
			size_t cap = lb->cap ? 2 * lb->cap : 1024;
			nd_docid *a = realloc(lb->a, cap * sizeof(*a)), *b = a ? realloc(lb->b, cap * sizeof(*b)) : NULL;
			if (a)
				lb->a = a;
			if (!b)
				return nd_error_set(ND_ENOMEM, "out of memory for links");
			lb->b = b, lb->cap = cap;
		}
		lb->a[lb->n] = docid, lb->b[lb->n++] = to[i];
	}
	return ND_OK;
}

static int batch_fn(nd_store_txn *txn, void *vctx)
{
	link_batch *lb = vctx;
	int rc = ND_OK;
	for (size_t i = 0; i < lb->n && rc == ND_OK; i++)
		rc = nd_store_link_put(txn, lb->a[i], lb->b[i]);
	return rc < 0 ? rc : nd_store_links_mark(txn, lb->pending);
}

/* Whether the links cover every record (0), and docid's links now. */
static int links_before(nd_hook *h, nd_docid docid, int *pending, nd_docid **old, size_t *nold)
{
	nd_store_txn *txn;
	int rc = nd_store_read_begin(h->st, &txn);
	*old = NULL;
	*nold = 0;
	if (rc < 0)
		return rc;
	if ((rc = *pending = nd_store_links_pending(txn)) >= 0)
		rc = nd_store_links(txn, docid, old, nold);
	nd_store_txn_end(txn);
	return rc < 0 ? rc : ND_OK;
}

/* The slot of every document whose collapse id the change of docs may
 * have moved: with links, the components they and their old neighbours
 * are in now; while links are pending, the equal-key clusters. */
static int settle_links(nd_hook *h, const nd_docid *seeds, size_t n)
{
	nd_docid *all = NULL;
	size_t nall = 0;
	int rc;
	if (h->slot < 0)
		return ND_OK;
	if ((rc = nd_collapse_members(h->st, seeds, n, &all, &nall)) < 0)
		return rc;
	rc = nd_collapse_write_slot(h->db, h->st, &h->o.verify, (unsigned)h->slot, all, nall, NULL);
	free(all);
	return rc;
}

int nd_hook_changed(nd_hook *h, nd_docid docid, nd_hook_result *res)
{
	nd_hook_result local = ND_HOOK_RESULT_INIT;
	nd_sig sig = ND_SIG_INIT;
	apply_ctx a = {docid, 1, &sig, h->o.max_drift, nd_store_path(h->st), ND_CHANGE_NONE, 0};
	nd_docid *old = NULL, *links = NULL;
	size_t nold = 0, nlinks = 0;
	int rc, pending = 1;

	if (!res)
		res = &local;
	nd_hook_result_clear(res);
	res->docid = docid;
	rc = nd_sig_from_termlist(h->d, h->db, docid, &sig);
	if (rc == ND_ENOTFOUND)
		a.present = 0;
	else if (rc < 0)
		goto cleanup;
	if ((rc = links_before(h, docid, &pending, &old, &nold)) < 0 ||
	    (rc = nd_store_write(h->st, apply_fn, &a)) < 0)
		goto cleanup;
	res->change = a.change;
	res->old_key = a.old_key;
	res->key = a.present ? sig.key : 0;
	if ((rc = duplicates_of(h, res, &links, &nlinks)) < 0)
		goto cleanup;
	link_batch lb = {NULL, NULL, 0, 0, pending};
	if ((rc = batch_add(&lb, docid, links, nlinks)) == ND_OK)
		rc = nd_store_write(h->st, batch_fn, &lb);
	free(lb.a);
	free(lb.b);
	if (rc < 0)
		goto cleanup;
	if (!pending) {
		/* Its component now, and its old neighbours' (it may have split). */
		nd_docid *seeds = malloc((nold + 1) * sizeof(*seeds));
		if (!seeds) {
			rc = nd_error_set(ND_ENOMEM, "out of memory");
			goto cleanup;
		}
		seeds[0] = docid;
		if (nold)
			memcpy(seeds + 1, old, nold * sizeof(*seeds));
		rc = settle_links(h, seeds, nold + 1);
		free(seeds);
	} else {
		uint64_t keys[2] = {res->old_key, res->key};
		rc = settle(h, keys, 2, &docid, 1);
	}
cleanup:
	nd_sig_clear(&sig);
	nd_hook_result_clear(&local);
	free(old);
	free(links);
	return rc;
}

typedef struct {
	nd_hook_result *changes;
	size_t n, cap;
	int rc;
	const nd_hook_options *o;
} collect_ctx;

static void walked(nd_docid done, nd_docid last, void *vctx)
{
	collect_ctx *c = vctx;
	if (c->o->progress)
		c->o->progress(done, last, c->o->progress_ctx);
}

static void collect(nd_docid docid, nd_change change, uint64_t old_key, uint64_t new_key, void *vctx)
{
	collect_ctx *c = vctx;
	void *p = c->changes;
	if (c->rc < 0)
		return;
	if ((c->rc = nd_array_reserve(&p, &c->cap, c->n + 1, sizeof(nd_hook_result))) < 0)
		return;
	c->changes = p;
	c->changes[c->n++] = (nd_hook_result){docid, change, new_key, old_key, 0, NULL, 0};
}

int nd_hook_update(nd_hook *h, nd_hook_fn fn, void *ctx, nd_sign_report *rep)
{
	nd_sign_options so = ND_SIGN_OPTIONS_INIT;
	collect_ctx c = {NULL, 0, 0, ND_OK, &h->o};
	char stale[512] = "";
	int rc, signrc;

	so.update = 1;
	so.max_drift = h->o.max_drift;
	if (h->o.block_docs)
		so.block_docs = h->o.block_docs;
	so.jobs = h->o.jobs;
	so.changed = collect;
	so.progress = walked;
	so.ctx = &c;
	nd_docid *unused = NULL;
	size_t nunused = 0;
	int pending = 1;
	if ((rc = links_before(h, 0, &pending, &unused, &nunused)) < 0)
		goto cleanup;
	free(unused);
	signrc = nd_sign_all(h->st, h->db, &so, rep);
	if (signrc < 0 && signrc != ND_ESTATE) {
		rc = signrc;
		goto cleanup;
	}
	if (signrc == ND_ESTATE)
		snprintf(stale, sizeof(stale), "%s", nd_error_last());
	if ((rc = c.rc) < 0)
		goto cleanup;
	/* What was applied is linked, settled and reported even when the
	 * drift limit stopped the walk.  Each change is linked again (its
	 * record's links went with the old record); the last write marks the
	 * links as they were before, so a killed run leaves them pending. */
	link_batch lb = {NULL, NULL, 0, 0, 1};
	for (size_t i = 0; i < c.n; i++) {
		nd_docid *links = NULL;
		size_t nlinks = 0;
		if ((rc = duplicates_of(h, &c.changes[i], &links, &nlinks)) < 0)
			goto cleanup;
		rc = batch_add(&lb, c.changes[i].docid, links, nlinks);
		free(links);
		/* A transaction every few thousand changes, not one each. */
		if (rc == ND_OK && (i + 1 == c.n || (i + 1) % 4096 == 0)) {
			lb.pending = i + 1 == c.n ? pending : 1;
			rc = nd_store_write(h->st, batch_fn, &lb);
			lb.n = 0;
		}
		if (rc < 0) {
			free(lb.a);
			free(lb.b);
			goto cleanup;
		}
	}
	free(lb.a);
	free(lb.b);
	if (pending && (rc = nd_links_rebuild(h->db, h->st, NULL, NULL)) < 0)
		goto cleanup;
	/* The links cover every record now: the audit rewrites every
	 * collapse id that moved. */
	if (h->slot >= 0) {
		size_t wrong;
		if ((rc = nd_collapse_slot_audit(h->db, h->st, &h->o.verify, (unsigned)h->slot, 1, &wrong)) < 0)
			goto cleanup;
		if (rep)
			rep->slot_repaired = wrong;
	}
	for (size_t i = 0; i < c.n; i++) {
		if (fn)
			fn(&c.changes[i], ctx);
		nd_hook_result_clear(&c.changes[i]);
	}
	rc = signrc == ND_ESTATE ? nd_error_set(ND_ESTATE, "%s", stale) : ND_OK;
cleanup:
	for (size_t i = 0; i < c.n; i++)
		nd_hook_result_clear(&c.changes[i]);
	free(c.changes);
	return rc;
}
