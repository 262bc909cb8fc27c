/* Re-index hooks: one document's change, or every change since the store
 * last saw the database, applied without re-clustering anything else. */
#include "neardup/hook.h"
#include "neardup/collapse.h"
#include "neardup/cluster.h"
#include "neardup/words.h"
#include "descriptor/verify/verify_internal.h"
#include "descriptor/cluster/cluster_internal.h"
#include "lmdb_store/store_internal.h"
#include "common/nd_buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* nd_hook_update walks again this many times when the database changes
 * under it (an indexer committing beside it). */
#define ND_UPDATE_RETRIES 8

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
	/* Records of documents a crashed indexer hooked but never committed:
	 * Xapian hands their docids out again. */
	nd_docid last;
	nd_sign_options so = ND_SIGN_OPTIONS_INIT;
	nd_sign_report rep;
	memset(&rep, 0, sizeof(rep));
	so.max_drift = h->o.max_drift;
	if ((rc = nd_xdb_lastdocid(db, &last)) < 0 || (rc = nd__drop_beyond(st, last, &so, &rep)) < 0)
		goto fail;
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
	nd_store_commit(h->st); /* an error here is lost: nd_hook_commit first */
	nd_descriptor_free(h->d);
	free(h);
}

typedef struct {
	nd_docid docid;
	int present;
	const nd_sig *sig;
	const uint8_t *rec; /* the verdict record, reclen bytes (0: no words) */
	size_t reclen;
	double max_drift;
	const char *path;
	int dated;          /* a feed window: the document's date, when it has one */
	uint64_t date;
	nd_change change;   /* out */
	uint64_t old_key;   /* out */
	uint64_t expired;   /* out: records the window's clock passed */
	nd_docid *gone;     /* out: their docids (malloc'd) */
	size_t ngone, gone_cap;
	int kept;           /* out: it has a record now (present, and not before a window) */
	int settled;        /* out: the links were settled in the same transaction */
	nd_links_report lr; /* out, when settled */
	nd_docid *seeds;    /* out, when settled: whose components may have moved */
	size_t nseeds;
	nd_docid *near;     /* out, when settled and it changed: its neighbours, judged */
	size_t nnear;
	nd__site *site;     /* its site (key 0: none) */
} apply_ctx;

static int note_expired(nd_docid docid, uint64_t old_key, void *vctx)
{
	apply_ctx *a = vctx;
	void *p = a->gone;
	(void)old_key;
	if (nd_array_reserve(&p, &a->gone_cap, a->ngone + 1, sizeof(nd_docid)) < 0)
		return nd_error_set(ND_ENOMEM, "out of memory");
	a->gone = p;
	a->gone[a->ngone++] = docid;
	return ND_OK;
}

/* A page without a host: its site by its record's frame, when it has one
 * (again in a replayed write, whose frame list was not kept). */
static int frame_site(nd_store_txn *txn, nd_docid docid, const uint8_t *rec, size_t reclen, nd__site *site)
{
	nd__rec r;
	int rc;
	if ((site->key && !site->by_frame) || !reclen)
		return ND_OK;
	if ((rc = nd__rec_decode(rec, reclen, &r)) < 0 || !r.frame)
		return rc;
	nd__site_free(site);
	return nd__site_frame(txn, docid, r.frame, site);
}

static int apply_fn(nd_store_txn *txn, void *vctx)
{
	apply_ctx *a = vctx;
	nd__window win;
	int rc, present = a->present, gone = 0;
	a->ngone = 0; /* a replayed write starts again */
	free(a->seeds);
	free(a->near);
	a->seeds = NULL, a->nseeds = 0, a->settled = 0, a->near = NULL, a->nnear = 0;
	if ((rc = nd__window_load(txn, &win)) < 0)
		return rc;
	if (win.w.seconds) {
		if (a->dated && win.w.slot != ND_WINDOW_ARRIVAL)
			nd__window_advance(&win, a->date);
		/* A hook is an arrival: a docid let go before comes back. */
		if (present && win.w.slot != ND_WINDOW_ARRIVAL &&
		    (gone = nd__window_outside(txn, &win, a->docid, a->dated, a->date)) < 0)
			return gone;
		if (gone)
			present = 0;
	}
	a->kept = present;
	/* Unforced: a record that is the same is left alone and counts
	 * nothing, as 'update' would find it. */
	if ((rc = nd__sig_apply(txn, a->docid, present, a->sig->bits, a->sig->nbits,
				a->sig->present ? a->sig->near : NULL, a->sig->fingerprint, a->rec,
				a->reclen, 0, &a->change, &a->old_key)) < 0)
		return rc;
	if (gone && a->change == ND_CHANGE_DELETED)
		a->change = ND_CHANGE_EXPIRED;
	if (present && win.w.seconds &&
	    ((rc = nd__window_date(txn, &win, a->docid, a->change, a->dated, a->date)) < 0 ||
	     (rc = nd__window_seen(txn, &win, a->docid)) < 0))
		return rc;
	if ((rc = nd__window_expire(txn, &win, note_expired, a, &a->expired)) < 0 ||
	    (rc = nd__drift_add(txn, (uint64_t)nd__drift_counts(txn, a->docid, a->change), a->max_drift,
				 a->path)) < 0)
		return rc;
	/* Its site's template, counted when due: its pairs are judged with it
	 * (nd__site_pair), as are the links of the pages counted. */
	nd_docid *counted = NULL, *more = NULL, since = 0;
	size_t ncounted = 0, nmore = 0;
	if (present && (rc = frame_site(txn, a->docid, a->rec, a->reclen, a->site)) < 0)
		return rc;
	if (present && (rc = nd__site_count(txn, a->site, a->docid, &counted, &ncounted, &since)) < 0)
		return rc;
	/* The links around it in the same commit: one fsync a hook, not two. */
	rc = nd__links_settle_txn(txn, &a->lr, &a->seeds, &a->nseeds, a->docid, &a->near, &a->nnear);
	a->settled = rc == 0;
	if (rc >= 0 && a->settled && ncounted &&
	    (rc = nd__site_rejudge(txn, counted, ncounted, since, a->docid, &more, &nmore)) >= 0 && nmore)
		rc = nd__merge_docids(&a->seeds, &a->nseeds, more, nmore);
	free(counted);
	free(more);
	return rc < 0 ? rc : ND_OK;
}

/* The slot of every document whose collapse id the settled links may have
 * moved: the components the seeds are in now (every one after a rebuild),
 * and the hook's own document, whose value a re-index drops even when its
 * record is unchanged. */
static int settle_slot(nd_hook *h, const nd_links_report *lr, const nd_docid *seeds, size_t n, nd_docid self,
		       const nd_docid *gone, size_t ngone)
{
	nd_docid *all = NULL;
	size_t nall = 0, wrong;
	int rc;
	if (h->slot < 0)
		return ND_OK;
	if (lr->rebuilt)
		return nd_collapse_slot_audit(h->db, h->st, &h->o.verify, (unsigned)h->slot, 1, &wrong);
	if ((rc = nd_collapse_members(h->st, seeds, n, &all, &nall)) < 0)
		return rc;
	if (self && (!nall || !bsearch(&self, all, nall, sizeof(*all), nd_cmp_u32))) {
		nd_docid *more = realloc(all, (nall + 1) * sizeof(*all));
		if (!more) {
			free(all);
			return nd_error_set(ND_ENOMEM, "out of memory");
		}
		all = more;
		all[nall++] = self; /* alone in its component: id 0, no value */
	}
	rc = nall ? nd_collapse_write_slot(h->db, h->st, &h->o.verify, (unsigned)h->slot, all, nall, NULL) : ND_OK;
	free(all);
	/* Expired: no record, so no collapse id (ids ascend: the window
	 * walks dates, and a docid may come in any order). */
	for (size_t i = 0; rc == ND_OK && i < ngone; i++)
		rc = nd_collapse_write_slot(h->db, h->st, &h->o.verify, (unsigned)h->slot, &gone[i], 1, NULL);
	return rc;
}

/* The candidates of a document whose links are settled, to compare at
 * the copy point: its neighbours in the index are judged already (linked
 * or not), so of those only the linked, ranked from their records; then
 * the others (equal keys further off, tolerant's), ranked as check ranks
 * them.  near: its neighbours as the settling that judged them scanned
 * them (NULL: scanned here).  *all: candidates there are in all (after
 * since). */
static int settled_candidates(nd_hook *h, nd_store_txn *txn, const nd_sig *sig, nd_docid self,
			      const nd_docid *near, size_t nnear, nd__cand **out, size_t *nout, size_t *all)
{
	uint32_t *scanned = NULL, *linked = NULL, *keys = NULL;
	const uint32_t *win = near;
	size_t nwin = nnear, nlinked = 0, nkeys = 0, no = 0, n = 0;
	nd__cand *others = NULL, *c = NULL;
	int rc = ND_OK;

	*out = NULL, *nout = 0, *all = 0;
	if (!near)
		rc = nd_near_candidates(txn, sig, self, &scanned, &nwin), win = scanned;
	if (rc < 0 || (rc = nd_store_links(txn, self, &linked, &nlinked)) < 0)
		goto done;
	if (h->o.tolerant > 0)
		rc = nd__tolerant_candidates(txn, h->d, sig, h->o.tolerant, &others, &no);
	else if (sig->key && (rc = nd_store_key_docs(txn, sig->key, &keys, &nkeys)) == ND_OK && nkeys &&
		 !(others = malloc(nkeys * sizeof(*others))))
		rc = nd_error_set(ND_ENOMEM, "out of memory");
	for (size_t i = 0; rc == ND_OK && i < nkeys; i++)
		others[no++] = (nd__cand){keys[i], 1, 2}; /* equal keys: check's rank */
	if (rc < 0)
		goto done;
	/* In all: the neighbours, then the others beyond them. */
	if (!(c = malloc((nwin + no + 1) * sizeof(*c)))) {
		rc = nd_error_set(ND_ENOMEM, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < nwin; i++)
		c[n++] = (nd__cand){win[i], 0, 0};
	for (size_t i = 0; i < no; i++)
		if (others[i].docid != self && !nd__in_sorted_u32(win, nwin, others[i].docid))
			c[n++] = others[i];
	if ((rc = nd__cands_since(txn, c, &n, h->o.verify.since)) < 0)
		goto done;
	*all = n;
	/* To compare: the linked neighbours, ranked from their records ... */
	size_t k = 0;
	nlinked = nd__sort_unique_u32(linked, nlinked);
	for (size_t i = 0; i < n && rc == ND_OK; i++) {
		int near = nd__in_sorted_u32(win, nwin, c[i].docid);
		if (near && !nd__in_sorted_u32(linked, nlinked, c[i].docid))
			continue; /* its verdict refused it */
		if (near) {
			uint64_t key;
			const void *pay;
			size_t len;
			nd_sig b = ND_SIG_INIT;
			if ((rc = nd_store_doc_get(txn, c[i].docid, &key, &pay, &len)) == ND_OK &&
			    (rc = nd_sig_decode(&b, pay, len, h->d->n)) == ND_OK) {
				double j = nd__sig_jaccard(sig, &b);
				c[i].jaccard = j, c[i].rank = nd__cand_rank(sig, &b, j);
			}
			nd_sig_clear(&b);
		}
		c[k++] = c[i];
	}
	if (rc < 0)
		goto done;
	/* ... then the others in check's order, as many as max_compare. */
	qsort(c, k, sizeof(*c), nd__cmp_cand);
	size_t kept = 0, far = 0;
	for (size_t i = 0; i < k; i++)
		if (nd__in_sorted_u32(win, nwin, c[i].docid) || far++ < h->o.max_compare)
			c[kept++] = c[i];
	*out = c, c = NULL;
	*nout = kept;
done:
	free(scanned);
	free(linked);
	free(keys);
	free(others);
	free(c);
	return rc;
}

/* Its candidates (equal key and near-neighbour index; tolerant: and bit-set
 * Jaccard), compared with it as check compares a text, from the records
 * (strict: the words): res gets those passing the hook's point.  At the
 * copy point, with the links settled, only the linked of its neighbours
 * are read (settled_candidates; near, when this hook's settling judged
 * them: those neighbours, not scanned again). */
static int duplicates_of(nd_hook *h, nd_hook_result *res, const nd_docid *near, size_t nnear)
{
	nd_store_txn *txn;
	nd_sig sig = ND_SIG_INIT;
	nd__rec rec = ND_REC_INIT;
	nd__common *common = NULL;
	nd__cand *c = NULL;
	nd_check_member *m = NULL;
	uint32_t *mine = NULL;
	size_t nc = 0, nmine = 0, nm = 0, most = 0;
	const void *pay;
	size_t len;
	uint64_t key;
	int rc, settled = 0;
	nd_verify_options vo = h->o.verify;

	res->candidates = res->nduplicates = 0;
	if ((rc = nd_store_read_begin(h->st, &txn)) < 0)
		return rc;
	rc = nd_store_doc_get(txn, res->docid, &key, &pay, &len);
	if (rc == ND_OK && vo.point == ND_POINT_COPY && (rc = nd_store_links_state(txn)) >= 0)
		settled = rc == ND_LINKS_SETTLED, rc = ND_OK;
	if (rc == ND_OK && (rc = nd_sig_decode(&sig, pay, len, h->d->n)) == ND_OK && (sig.nbits || sig.present)) {
		if (settled)
			rc = settled_candidates(h, txn, &sig, res->docid, near, nnear, &c, &nc, &res->candidates);
		else if ((rc = nd__tolerant_candidates(txn, h->d, &sig, h->o.tolerant, &c, &nc)) == ND_OK && nc &&
			 (rc = nd__cands_since(txn, c, &nc, vo.since)) == ND_OK)
			for (size_t i = 0; i < nc; i++)
				res->candidates += c[i].docid != res->docid; /* itself is among them */
	}
	most = settled ? nc : h->o.max_compare < nc ? h->o.max_compare : nc;
	if (rc == ND_ENOTFOUND || (rc == ND_OK && !most)) {
		rc = ND_OK; /* deleted, or nothing similar */
		goto cleanup;
	}
	if (rc < 0 || (rc = nd__rec_of_doc(txn, res->docid, &rec)) < 0 || (rc = nd__common_load(txn, &common)) < 0)
		goto cleanup;
	/* Its record and each candidate's compared: ND_REC_SAMPLE lookups each. */
	if ((rc = nd__common_index(common, (most + 1) * ND_REC_SAMPLE)) < 0)
		goto cleanup;
	if (!(res->duplicates = malloc(most * sizeof(*res->duplicates))) || !(m = malloc(most * sizeof(*m)))) {
		rc = nd_error_set(ND_ENOMEM, "out of memory");
		goto cleanup;
	}
	if (vo.point == ND_POINT_STRICT) {
		rc = nd_words_get(h->db, res->docid, &mine, &nmine, NULL);
		if (rc == ND_ENOTFOUND) {
			rc = ND_OK; /* no words to verify by */
			goto cleanup;
		}
		if (rc < 0)
			goto cleanup;
	}
	/* With the templates hooks counted for its site and theirs. */
	nd__site_cands sc = {.self = res->docid};
	nd__site_judge_init(&sc.j, txn);
	rc = nd__compare_candidates(h->db, txn, common, &rec, mine, nmine, c, nc, res->docid, most, &vo,
				    nd__site_cand_templates, &sc, m, &nm);
	nd__site_judge_free(&sc.j);
	if (rc < 0)
		goto cleanup;
	for (size_t i = 0; i < nm; i++)
		if (m[i].duplicate)
			res->duplicates[res->nduplicates++] = (nd_verified){m[i].docid, 0, m[i].distance, m[i].how};
cleanup:
	nd_store_txn_end(txn);
	nd_sig_clear(&sig);
	nd__rec_free(&rec);
	nd__common_free(common);
	free(c);
	free(m);
	free(mine);
	return rc;
}

/* The links made those of the records (whatever left them unsettled:
 * this change, an earlier process killed mid-change, a first signing
 * without links), then the collapse slot of what they moved. */
static int settle(nd_hook *h, nd_docid self, const nd_docid *gone, size_t ngone)
{
	nd_links_report lr;
	nd_docid *seeds = NULL;
	size_t nseeds = 0;
	int rc = nd_links_settle(h->db, h->st, NULL, &lr, &seeds, &nseeds);
	if (rc == ND_OK)
		rc = settle_slot(h, &lr, seeds, nseeds, self, gone, ngone);
	free(seeds);
	return rc;
}

/* Its date, when the store keeps a window (read before the write: the
 * database is not read inside a store transaction). */
static int hook_date(nd_hook *h, nd_docid docid, uint64_t *date, int *dated)
{
	nd_store_txn *txn;
	nd__window win;
	int rc = nd_store_read_begin(h->st, &txn);
	*dated = 0;
	if (rc < 0)
		return rc;
	rc = nd__window_load(txn, &win);
	nd_store_txn_end(txn);
	if (rc < 0 || !win.w.seconds)
		return rc;
	return nd__window_doc_date(&win, h->db, docid, date, dated);
}

/* docid's site, with its pages the store has seen and docid (read before
 * the write: a crawl's hooks may follow a bulk index that holds many
 * more). */
static int hook_site(nd_hook *h, nd_docid docid, nd__site *site)
{
	nd_store_txn *txn;
	uint32_t last = 0;
	int rc = nd_store_read_begin(h->st, &txn);
	if (rc < 0)
		return rc;
	rc = nd__store_last_doc(txn, &last);
	nd_store_txn_end(txn);
	if (rc < 0)
		return rc;
	return nd__site_of(h->db, docid, last > docid ? last : docid, nd__site_pages_max, site);
}

/* The collection's common text counted again once it is due (see
 * nd_hook_options.recount_max), and the slot of every document then,
 * as any rebuild of the links moves collapse ids anywhere.  A store
 * that only hooks have filled would otherwise have no common text at
 * all, and count a template on every page as evidence.  1: the links
 * were made again. */
static int recount(nd_hook *h, nd_docid self)
{
	nd_store_txn *txn;
	uint64_t docs;
	nd_links_report lr;
	nd_near_options no = ND_NEAR_OPTIONS_INIT;
	int rc;
	if (!h->o.recount_max)
		return ND_OK;
	if ((rc = nd_store_read_begin(h->st, &txn)) < 0)
		return rc;
	rc = nd_store_counts(txn, &docs, NULL);
	nd_store_txn_end(txn);
	if (rc < 0 || docs > h->o.recount_max)
		return rc;
	no.recount = docs < ND_HOOK_RECOUNT_SMALL ? ND_NEAR_RECOUNT * (double)docs / ND_HOOK_RECOUNT_SMALL
						 : ND_NEAR_RECOUNT;
	no.jobs = h->o.jobs ? h->o.jobs : 1;
	if ((rc = nd_links_settle(h->db, h->st, &no, &lr, NULL, NULL)) < 0 || !lr.rebuilt)
		return rc;
	return (rc = settle_slot(h, &lr, NULL, 0, self, NULL, 0)) < 0 ? rc : 1;
}

int nd_hook_commit(nd_hook *h)
{
	int rc = nd_store_commit(h->st);
	if (rc == ND_OK && h->o.group_commit && (rc = recount(h, 0)) > 0)
		rc = ND_OK;
	return rc;
}

int nd_hook_changed(nd_hook *h, nd_docid docid, nd_hook_result *res)
{
	nd_hook_result local = ND_HOOK_RESULT_INIT;
	nd_sig sig = ND_SIG_INIT;
	apply_ctx a;
	nd__site site;
	memset(&a, 0, sizeof(a));
	memset(&site, 0, sizeof(site));
	a.docid = docid, a.present = 1, a.sig = &sig, a.max_drift = h->o.max_drift, a.path = nd_store_path(h->st);
	a.site = &site;
	uint8_t *recbuf = NULL;
	int rc;

	if (!res)
		res = &local;
	nd_hook_result_clear(res);
	res->docid = docid;
	rc = nd__sign_doc(h->d, h->db, docid, &sig, &recbuf, &a.reclen);
	if (rc == ND_ENOTFOUND)
		a.present = 0;
	else if (rc < 0)
		goto cleanup;
	a.rec = recbuf;
	if (h->o.group_commit && (rc = nd_store_hold(h->st)) < 0)
		goto cleanup;
	if (a.present && ((rc = hook_date(h, docid, &a.date, &a.dated)) < 0 || (rc = hook_site(h, docid, &site)) < 0))
		goto cleanup;
	if ((rc = nd_store_write(h->st, apply_fn, &a)) < 0)
		goto cleanup;
	res->change = a.change;
	res->old_key = a.old_key;
	res->key = a.kept ? sig.key : 0;
	/* Its own slot too when it is in the database: a record the window
	 * refused leaves no collapse id behind. */
	if (a.settled)
		rc = settle_slot(h, &a.lr, a.seeds, a.nseeds, a.present ? docid : 0, a.gone, a.ngone);
	else
		rc = settle(h, a.present ? docid : 0, a.gone, a.ngone);
	/* Held writes wait for nd_hook_commit: a recount reads every record. */
	int rebuilt = 0;
	if (rc == ND_OK && !h->o.group_commit)
		rc = rebuilt = recount(h, a.present ? docid : 0);
	/* Its neighbours as the rebuild judged them, not as the settling did. */
	if (rc < 0 || (rc = duplicates_of(h, res, rebuilt ? NULL : a.near, rebuilt ? 0 : a.nnear)) < 0)
		goto cleanup;
cleanup:
	nd__site_free(&site);
	nd_sig_clear(&sig);
	free(recbuf);
	free(a.gone);
	free(a.seeds);
	free(a.near);
	nd_hook_result_clear(&local);
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

/* One walk of the database against the store; ND_ERETRY when the
 * database changed under it (the changes before stay applied). */
static int update_once(nd_hook *h, unsigned jobs, collect_ctx *c, nd_sign_report *rep, char *stale,
		       size_t stale_len)
{
	nd_sign_options so = ND_SIGN_OPTIONS_INIT;
	int signrc;
	so.update = 1;
	so.max_drift = h->o.max_drift;
	if (h->o.block_docs)
		so.block_docs = h->o.block_docs;
	so.jobs = jobs;
	so.changed = collect;
	so.progress = walked;
	so.ctx = c;
	signrc = nd_sign_all(h->st, h->db, &so, rep);
	if (signrc == ND_ESTATE) {
		snprintf(stale, stale_len, "%s", nd_error_last());
		return ND_OK;
	}
	return signrc;
}

/* The sites of the pages an update added or replaced, each with its
 * pages among them. */
typedef struct {
	nd__site *v;
	nd_docid **docs;
	size_t *ndocs, n;
	nd_docid *hostless; /* pages without a host: sites by their frames */
	size_t nhostless;
} update_sites;

static void update_sites_free(update_sites *u)
{
	for (size_t i = 0; i < u->n; i++)
		nd__site_free(&u->v[i]), free(u->docs[i]);
	free(u->v), free(u->docs), free(u->ndocs), free(u->hostless);
}

static int sites_counted(nd_store_txn *txn, void *vctx)
{
	update_sites *u = vctx;
	int rc = ND_OK;
	for (size_t i = 0; i < u->n && rc == ND_OK; i++)
		rc = nd__site_arrived_all(txn, &u->v[i], u->docs[i], u->ndocs[i]);
	return rc == ND_OK ? nd__site_frames_arrived(txn, u->hostless, u->nhostless) : rc;
}

/* Each site that pages of the update arrived on counted, as hooks count
 * theirs (read from the database first: not inside the store's write). */
static int update_sites_count(nd_hook *h, const collect_ctx *c)
{
	update_sites u = {NULL, NULL, NULL, 0, NULL, 0};
	int rc = ND_OK;
	if (!c->n)
		return ND_OK;
	if (!(u.v = calloc(c->n, sizeof(*u.v))) || !(u.docs = calloc(c->n, sizeof(*u.docs))) ||
	    !(u.ndocs = calloc(c->n, sizeof(*u.ndocs))) || !(u.hostless = calloc(c->n, sizeof(*u.hostless)))) {
		update_sites_free(&u);
		return nd_error_set(ND_ENOMEM, "out of memory");
	}
	uint64_t *key = malloc((c->n + 1) * sizeof(*key));
	nd_docid *hosted = malloc((c->n + 1) * sizeof(*hosted));
	uint32_t *order = malloc((c->n + 1) * sizeof(*order));
	size_t *start = malloc((c->n + 2) * sizeof(*start)), m = 0, ng = 0;
	if (!key || !hosted || !order || !start)
		rc = nd_error_set(ND_ENOMEM, "out of memory");
	for (size_t i = 0; i < c->n && rc == ND_OK; i++) {
		const nd_hook_result *r = &c->changes[i];
		if (r->change != ND_CHANGE_ADDED && r->change != ND_CHANGE_REPLACED)
			continue;
		if ((rc = nd__site_key_of(h->db, r->docid, &key[m])) < 0)
			break;
		if (!key[m])
			u.hostless[u.nhostless++] = r->docid;
		else
			hosted[m++] = r->docid;
	}
	if (rc == ND_OK)
		rc = nd__group_by_key(key, m, order, start, &ng);
	/* Each site's pages read once, however many: a batch may bring a
	 * large site whole, and its latest pages are counted. */
	for (size_t g = 0; g < ng && rc == ND_OK; g++) {
		size_t k = start[g + 1] - start[g];
		if ((rc = nd__site_of(h->db, hosted[order[start[g]]], 0, SIZE_MAX, &u.v[g])) < 0)
			break;
		u.n = g + 1;
		if (!(u.docs[g] = malloc(k * sizeof(*u.docs[g])))) {
			rc = nd_error_set(ND_ENOMEM, "out of memory");
			break;
		}
		for (size_t j = 0; j < k; j++)
			u.docs[g][j] = hosted[order[start[g] + j]];
		u.ndocs[g] = k;
	}
	free(key), free(hosted), free(order), free(start);
	for (size_t k = 0; k < u.n && rc == ND_OK; k++)
		u.ndocs[k] = nd__sort_unique_u32(u.docs[k], u.ndocs[k]);
	u.nhostless = nd__sort_unique_u32(u.hostless, u.nhostless);
	if (rc == ND_OK && u.n + u.nhostless)
		rc = nd_store_write(h->st, sites_counted, &u);
	update_sites_free(&u);
	return rc;
}

int nd_hook_update(nd_hook *h, nd_hook_fn fn, void *ctx, nd_sign_report *rep)
{
	collect_ctx c = {NULL, 0, 0, ND_OK, &h->o};
	nd_sign_report local;
	char stale[512] = "";
	int rc;

	if (!rep)
		rep = &local;
	/* Held hooks land first; the walk commits block by block. */
	if ((rc = nd_store_commit(h->st)) < 0)
		return rc;
	/* An indexer that commits often changes the database under the walk;
	 * each attempt keeps what it applied, so a retry walks again and
	 * finds only the rest.  Retries read through one handle: several must
	 * start at one revision, which a busy indexer rarely leaves them; one
	 * resumes its postlists itself. */
	unsigned jobs = h->o.jobs;
	for (int attempt = 0;; attempt++) {
		nd_sign_report r;
		int changed;
		rc = update_once(h, jobs, &c, &r, stale, sizeof(stale));
		jobs = 1;
		if (attempt == 0)
			*rep = r;
		else {
			rep->added += r.added, rep->replaced += r.replaced, rep->deleted += r.deleted;
			rep->docs += r.docs, rep->postings += r.postings, rep->to = r.to;
			rep->seconds += r.seconds, rep->drift = r.drift;
		}
		if (rc != ND_ERETRY || attempt == ND_UPDATE_RETRIES)
			break;
		if ((rc = nd_xdb_reopen(h->db, &changed)) < 0)
			break;
	}
	if (rc < 0 || (rc = c.rc) < 0)
		goto cleanup;
	/* What was applied is linked, reported and its slot kept even when the
	 * drift limit stopped the walk. */
	nd_links_report lr;
	nd_near_options no = ND_NEAR_OPTIONS_INIT;
	no.recount = ND_NEAR_RECOUNT;
	if ((rc = nd_links_settle(h->db, h->st, &no, &lr, NULL, NULL)) < 0)
		goto cleanup;
	rep->recounted = (uint64_t)lr.recounted;
	/* Sites that arrived, counted as hooks count them, unless the
	 * collection was counted just now. */
	if (!lr.rebuilt && (rc = update_sites_count(h, &c)) < 0)
		goto cleanup;
	/* The links it made, judged with their sites' templates, may be what
	 * makes the count due (documents that share text arriving together). */
	if (!lr.rebuilt && (rc = nd_links_settle(h->db, h->st, &no, &lr, NULL, NULL)) < 0)
		goto cleanup;
	if (lr.recounted)
		rep->recounted = (uint64_t)lr.recounted;
	for (size_t i = 0; i < c.n; i++)
		if ((rc = duplicates_of(h, &c.changes[i], NULL, 0)) < 0)
			goto cleanup;
	/* The links are the records' now: the audit rewrites every collapse
	 * id that moved, and any a re-index or a killed run left wrong. */
	if (h->slot >= 0) {
		size_t wrong;
		if ((rc = nd_collapse_slot_audit(h->db, h->st, &h->o.verify, (unsigned)h->slot, 1, &wrong)) < 0)
			goto cleanup;
		rep->slot_repaired = wrong;
	}
	for (size_t i = 0; i < c.n; i++)
		if (fn)
			fn(&c.changes[i], ctx);
	rc = *stale ? nd_error_set(ND_ESTATE, "%s", stale) : ND_OK;
cleanup:
	for (size_t i = 0; i < c.n; i++)
		nd_hook_result_clear(&c.changes[i]);
	free(c.changes);
	return rc;
}
