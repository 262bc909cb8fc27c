/* The descriptive set in the store's meta table, bound to one Xapian
 * database by its UUID. */
#include "descriptor/method/method.h"
#include "descriptor/verify/record.h"
#include "lmdb_store/store_internal.h"
#include "common/nd_buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	const nd_descriptor *d;
	const char *uuid;
	uint64_t revision;
	uint32_t doccount, lastdocid;
	const nd_build_options *opts;
	nd_buf words;
	const char *word_prefix, *uid_prefix;
} save_ctx;

static int save_fn(nd_store_txn *txn, void *vctx)
{
	save_ctx *c = vctx;
	const nd_descriptor *d = c->d;
	uint32_t wl = (uint32_t)d->word_lengths, tk = (uint32_t)d->text_keys, zero = 0;
	uint64_t changes = 0;
	char opt[512] = "";
	int rc;

	if (c->opts)
		snprintf(opt, sizeof(opt),
			 "words=%u\ntarget_bits=%u\nmin_df=%u\nmin_df_frac=%g\nmax_df_frac=%g\n"
			 "max_candidates=%u\nsample_docs=%u\nedits=%u\nmax_edit=%g\nmax_above=%g\n"
			 "min_sample_df=%u\nseed=%llu\nword_share=%g\n",
			 c->opts->words, c->opts->target_bits, c->opts->min_df, c->opts->min_df_frac,
			 c->opts->max_df_frac, c->opts->max_candidates, c->opts->sample_docs,
			 c->opts->edits, c->opts->max_edit, c->opts->max_above, c->opts->min_sample_df,
			 (unsigned long long)c->opts->seed, c->opts->word_share);
	if ((rc = nd_store_clear(txn)) < 0 ||
	    (rc = nd_store_meta_put(txn, "set.words", c->words.len ? (const void *)c->words.ptr : "",
					 c->words.len)) < 0 ||
	    (rc = nd_store_meta_put(txn, "set.thresholds", d->thresholds, d->n * sizeof(double))) < 0 ||
	    (rc = nd_store_meta_put(txn, "set.lambdas", d->lambdas, d->n * sizeof(double))) < 0 ||
	    /* empty: equal weights (and no stale weights of an earlier set) */
	    (rc = nd_store_meta_put(txn, "set.weights", d->weights ? (const void *)d->weights : "",
				    d->weights ? d->n * sizeof(double) : 0)) < 0 ||
	    (rc = nd_store_meta_put(txn, "set.version", &d->version, sizeof(d->version))) < 0 ||
	    (rc = nd_store_meta_put(txn, "set.word_lengths", &wl, sizeof(wl))) < 0 ||
	    (rc = nd_store_meta_put(txn, "set.text_keys", &tk, sizeof(tk))) < 0 ||
	    (rc = nd_store_meta_put(txn, "set.options", opt, strlen(opt))) < 0 ||
	    (rc = nd_store_meta_put(txn, "db.uuid", c->uuid, strlen(c->uuid))) < 0 ||
	    (rc = nd_store_meta_put(txn, "db.word_prefix", c->word_prefix, strlen(c->word_prefix))) < 0 ||
	    (rc = nd_store_meta_put(txn, "db.uid_prefix", c->uid_prefix, strlen(c->uid_prefix))) < 0 ||
	    (rc = nd_store_meta_put(txn, "db.revision", &c->revision, sizeof(c->revision))) < 0 ||
	    (rc = nd_store_meta_put(txn, "db.doccount", &c->doccount, sizeof(c->doccount))) < 0 ||
	    (rc = nd_store_meta_put(txn, "db.lastdocid", &c->lastdocid, sizeof(c->lastdocid))) < 0 ||
	    (rc = nd_store_meta_put(txn, "drift.changes", &changes, sizeof(changes))) < 0 ||
	    (rc = nd_store_meta_put(txn, "sign.through", &zero, sizeof(zero))) < 0)
		return rc;
	return ND_OK;
}

int nd_descriptor_save(const nd_descriptor *d, nd_store *st, nd_xdb *db, const nd_build_options *opts)
{
	save_ctx c = {d, NULL, 0, 0, 0, opts, ND_BUF_INIT, NULL, NULL};
	nd_xdb_get_prefixes(db, &c.word_prefix, &c.uid_prefix);
	char *uuid = NULL;
	int rc;

	if ((rc = nd_xdb_uuid(db, &uuid)) < 0 || (rc = nd_xdb_revision(db, &c.revision)) < 0 ||
	    (rc = nd_xdb_doccount(db, &c.doccount)) < 0 || (rc = nd_xdb_lastdocid(db, &c.lastdocid)) < 0)
		goto cleanup;
	c.uuid = uuid;
	for (uint32_t i = 0; i < d->n; i++)
		if ((rc = nd_buf_put(&c.words, d->words[i], strlen(d->words[i]) + 1)) < 0)
			goto cleanup;
	rc = nd_store_write(st, save_fn, &c);
cleanup:
	free(uuid);
	nd_buf_free(&c.words);
	return rc;
}

static int get_exact(nd_store_txn *txn, const char *name, void *out, size_t len, const char *path)
{
	const void *v;
	size_t n;
	int rc = nd_store_meta_get(txn, name, &v, &n);
	if (rc < 0)
		return rc;
	if (n != len)
		return nd_error_set(ND_ECORRUPT, "store %s: '%s' record is %zu bytes, expected %zu",
				    path, name, n, len);
	memcpy(out, v, len);
	return ND_OK;
}

/* The term prefixes the set was built with (mu's B and I), set on db:
 * every later read of its words and ids goes through them. */
static int follow_prefixes(nd_store_txn *txn, nd_xdb *db, const char *path)
{
	const void *w = NULL, *u = NULL;
	size_t wl = 0, ul = 0;
	char word[16] = "", uid[16] = "";
	int rc = nd_store_meta_get(txn, "db.word_prefix", &w, &wl);
	if (rc == ND_ENOTFOUND)
		return ND_OK; /* a set built before prefixes were kept: none */
	if (rc < 0 || (rc = nd_store_meta_get(txn, "db.uid_prefix", &u, &ul)) < 0)
		return rc;
	if (wl >= sizeof(word) || ul >= sizeof(uid))
		return nd_error_set(ND_ECORRUPT, "store %s: its term prefixes are damaged", path);
	memcpy(word, w, wl);
	memcpy(uid, u, ul);
	return nd_xdb_set_prefixes(db, word, uid);
}

/* A database with another UUID holds the store's documents when it was
 * made from the store's database keeping docids (xapian-compact, a
 * replica): the first SAME_CHECK records' fingerprints (the length and
 * every descriptive word's wdf, and the text's hash) are those of the
 * documents under the same docids, or under the docids a renumbering
 * gives them. */
#define SAME_CHECK 64

typedef struct {
	const nd_descriptor *d;
	nd_xdb *db;
	const nd__renumbering *r;
	uint32_t seen, differ, missing;
} same_ctx;

static int same_doc(same_ctx *c, uint32_t docid, const void *payload, size_t len)
{
	nd_sig stored = ND_SIG_INIT, now = ND_SIG_INIT;
	uint32_t to = nd__renumber(c->r, docid);
	int rc = nd_sig_decode(&stored, payload, len, c->d->n);
	if (rc == ND_OK && !to)
		rc = ND_ENOTFOUND;
	if (rc == ND_OK) {
		rc = nd_sig_from_termlist(c->d, c->db, to, &now);
		if (rc == ND_OK && now.fingerprint != stored.fingerprint)
			c->differ++;
	}
	if (rc == ND_ENOTFOUND)
		c->missing++, rc = ND_OK;
	nd_sig_clear(&stored);
	nd_sig_clear(&now);
	c->seen++;
	return rc;
}

static int same_one(uint32_t docid, uint64_t key, const void *payload, size_t len, void *vctx)
{
	same_ctx *c = vctx;
	(void)key;
	int rc = same_doc(c, docid, payload, len);
	if (rc < 0)
		return rc;
	return c->seen >= SAME_CHECK || c->differ || c->missing ? 1 : 0;
}

static int same_documents(nd_store_txn *txn, const nd_descriptor *d, nd_xdb *db, const nd__renumbering *r,
			  int *same)
{
	same_ctx c = {d, db, r, 0, 0, 0};
	/* Records under shift are of documents deleted before a renumbering
	 * that no update has told the store of. */
	int rc = nd_store_docs_from(txn, r->shift + 1, same_one, &c);
	if (rc < 0)
		return rc;
	*same = c.seen > 0 && !c.differ && !c.missing;
	return ND_OK;
}

static int first_record(uint32_t docid, uint64_t key, const void *payload, size_t len, void *ctx)
{
	(void)key, (void)payload, (void)len;
	*(uint32_t *)ctx = docid;
	return 1;
}

/* copydatabase (no --no-renumber) numbers the documents it copies 1, 2,
 * ... in docid order: when the database holds as many documents as the
 * store has records, each under a docid no higher, the store's i-th
 * record is its i-th document.
 * Checked like same_documents on the first, last and evenly spread
 * records (a store that missed a deletion and an addition would be off
 * by one from there on).  r->from is NULL when it does not hold. */
static int in_order(nd_store_txn *txn, const nd_descriptor *d, nd_xdb *db, nd__renumbering *r)
{
	uint32_t *rec = NULL, *now = NULL, count = 0;
	nd_xdb_postlist *pl = NULL;
	uint64_t records = 0;
	size_t nrec = 0, nnow = 0;
	int rc, moves = 0, down = 1;

	if ((rc = nd_store_counts(txn, &records, NULL)) < 0 || (rc = nd_xdb_doccount(db, &count)) < 0)
		return rc;
	if (!records || records != count)
		return ND_OK;
	if (!(now = malloc(count * sizeof(*now)))) {
		rc = nd_error_set(ND_ENOMEM, "out of memory");
		goto done;
	}
	if ((rc = nd__store_docids(txn, &rec, &nrec)) < 0 || (rc = nd_xdb_postlist_open(&pl, db, "")) < 0)
		goto done;
	while (nnow < count) {
		nd_posting buf[1024];
		size_t got = 0;
		if ((rc = nd_xdb_postlist_next(pl, 0, buf, 1024, &got)) < 0)
			goto done;
		if (!got)
			break;
		for (size_t i = 0; i < got && nnow < count; i++)
			now[nnow++] = buf[i].docid;
	}
	/* Renumbered down, as copydatabase does: a document moved up is
	 * no copy's numbering. */
	for (size_t i = 0; i < nrec && i < nnow; i++)
		moves |= rec[i] != now[i], down &= now[i] <= rec[i];
	if (nrec != count || nnow != count || !moves || !down)
		goto done;
	nd__renumbering map = {0, rec, now, count};
	same_ctx c = {d, db, &map, 0, 0, 0};
	size_t step = count / SAME_CHECK + 1;
	for (size_t i = 0; i < count && !c.differ && !c.missing && rc == ND_OK; i++) {
		uint64_t key;
		const void *pay;
		size_t len;
		if (i >= SAME_CHECK && i + SAME_CHECK < count && i % step)
			continue;
		if ((rc = nd_store_doc_get(txn, rec[i], &key, &pay, &len)) == ND_OK)
			rc = same_doc(&c, rec[i], pay, len);
	}
	if (rc == ND_OK && c.seen && !c.differ && !c.missing) {
		*r = map;
		rec = now = NULL;
	}
done:
	nd_xdb_postlist_free(pl);
	free(rec);
	free(now);
	return rc;
}

/* xapian-compact without --no-renumber moves every docid of a database
 * whose first documents were deleted down by one amount.  Two guesses at
 * it, the first records' and the last's, each checked like same_documents
 * (a window may have expired the first documents' records; the deleted
 * ones may still have theirs, when no update ran before the compaction);
 * then copydatabase's numbering (in_order).  *r moves nothing when none
 * holds. */
static int renumbered(nd_store_txn *txn, const nd_descriptor *d, nd_xdb *db, nd__renumbering *r)
{
	uint32_t sfirst = 0, slast = 0, guess[2] = {0, 0};
	nd_docid dlast = 0;
	nd_xdb_postlist *pl = NULL;
	nd_posting first = {0, 0};
	size_t n = 0;
	int rc;

	memset(r, 0, sizeof(*r));
	if ((rc = nd_store_docs_from(txn, 1, first_record, &sfirst)) < 0 ||
	    (rc = nd__store_last_doc(txn, &slast)) < 0 || (rc = nd_xdb_lastdocid(db, &dlast)) < 0 ||
	    (rc = nd_xdb_postlist_open(&pl, db, "")) < 0 || (rc = nd_xdb_postlist_next(pl, 0, &first, 1, &n)) < 0) {
		nd_xdb_postlist_free(pl);
		return rc;
	}
	nd_xdb_postlist_free(pl);
	if (!n)
		return ND_OK; /* an empty database holds nothing of the store's */
	if (sfirst > first.docid)
		guess[0] = sfirst - first.docid;
	if (slast > dlast && slast - dlast != guess[0])
		guess[1] = slast - dlast;
	for (int i = 0; i < 2; i++) {
		nd__renumbering g = {guess[i], NULL, NULL, 0};
		int same = 0;
		if (guess[i] && (rc = same_documents(txn, d, db, &g, &same)) < 0)
			return rc;
		if (guess[i] && same) {
			r->shift = guess[i];
			return ND_OK;
		}
	}
	return in_order(txn, d, db, r);
}

/* The store was signed from db: a store of another database would name
 * unrelated documents by the same docids.  d (may be NULL: loaded here
 * when needed) checks a database whose UUID differs. */
static int db_matches(nd_store_txn *txn, nd_xdb *db, const char *path, const nd_descriptor *d);

int nd__store_matches_db(nd_store *st, nd_xdb *db)
{
	nd_store_txn *txn;
	int rc = nd_store_read_begin(st, &txn);
	if (rc < 0)
		return rc;
	rc = db_matches(txn, db, nd_store_path(st), NULL);
	nd_store_txn_end(txn);
	if (rc == ND_EMISMATCH) {
		/* Another UUID: the descriptive set tells whether the documents
		 * are the same (nd_descriptor_load checks, and names the
		 * mismatch when they are not). */
		nd_descriptor *d = NULL;
		rc = nd_descriptor_load(&d, st, db);
		nd_descriptor_free(d);
	}
	return rc;
}

static int db_matches(nd_store_txn *txn, nd_xdb *db, const char *path, const nd_descriptor *d)
{
	int prc = follow_prefixes(txn, db, path);
	if (prc < 0)
		return prc;
	const void *uuidv;
	size_t ulen;
	char *uuid = NULL;
	int rc = nd_store_meta_get(txn, "db.uuid", &uuidv, &ulen);
	if (rc == ND_ENOTFOUND)
		return nd_error_set(ND_ESTATE, "store %s has no descriptive set (run 'neardup build')", path);
	if (rc < 0 || (rc = nd_xdb_uuid(db, &uuid)) < 0)
		return rc;
	if (ulen != strlen(uuid) || memcmp(uuidv, uuid, ulen)) {
		/* Compacted or replicated keeps docids: the same documents
		 * under them are the same database to the store. */
		int same = 0;
		nd__renumbering none = {0, NULL, NULL, 0}, r = none;
		if (!d)
			rc = ND_EMISMATCH; /* the caller loads the set and asks again */
		else if ((rc = same_documents(txn, d, db, &none, &same)) == ND_OK && !same &&
			 (rc = renumbered(txn, d, db, &r)) == ND_OK && r.shift)
			rc = nd_error_set(ND_EMISMATCH, "%s holds the documents store %s was signed from, under "
					  "docids %u lower: xapian-compact renumbers a database whose first documents "
					  "were deleted, unless given --no-renumber (run 'neardup update' or 'neardup "
					  "sign --restart' to sign them under their new docids)", nd_xdb_path(db), path,
					  r.shift);
		else if (rc == ND_OK && r.from)
			rc = nd_error_set(ND_EMISMATCH, "%s holds the documents store %s was signed from, "
					  "renumbered in order (up to %u lower): copydatabase numbers the documents "
					  "it copies from 1, unless given --no-renumber (run 'neardup update' or "
					  "'neardup sign --restart' to sign them under their new docids)",
					  nd_xdb_path(db), path, nd__renumbering_most(&r));
		else if (rc == ND_OK && !same)
			rc = nd_error_set(ND_EMISMATCH, "store %s was built for Xapian database %.*s, but %s is "
					  "%s and holds other documents under the store's docids (run 'neardup "
					  "build' for it, or use its own store)", path, (int)ulen,
					  (const char *)uuidv, nd_xdb_path(db), uuid);
		nd__renumbering_clear(&r);
	}
	free(uuid);
	return rc;
}

int nd_descriptor_load(nd_descriptor **out, nd_store *st, nd_xdb *db)
{
	nd_store_txn *txn = NULL;
	nd_descriptor *d = NULL;
	const void *words;
	size_t wlen;
	uint32_t n = 0, wl = 0;
	int rc;
	const char *path = nd_store_path(st);

	*out = NULL;
	if ((rc = nd_store_read_begin(st, &txn)) < 0)
		return rc;
	rc = nd_store_meta_get(txn, "set.words", &words, &wlen);
	if (rc == ND_ENOTFOUND) {
		rc = nd_error_set(ND_ESTATE, "store %s has no descriptive set (run 'neardup build')", path);
		goto cleanup;
	}
	if (rc < 0)
		goto cleanup;
	if (wlen && ((const char *)words)[wlen - 1] != '\0') { /* empty: the empty set */
		rc = nd_error_set(ND_ECORRUPT, "store %s: word list is damaged", path);
		goto cleanup;
	}
	for (size_t i = 0; i < wlen; i++)
		n += ((const char *)words)[i] == '\0';
	if (n > ND_MAX_WORDS) {
		rc = nd_error_set(ND_ECORRUPT, "store %s: %u words in the set", path, n);
		goto cleanup;
	}
	{
		const char **wv = malloc((n + 1) * sizeof(char *));
		double *th = malloc((n + 1) * sizeof(double)), *lam = malloc((n + 1) * sizeof(double));
		double *weight = malloc((n + 1) * sizeof(double));
		const char *p = words;
		if (!wv || !th || !lam || !weight) {
			free(wv); free(th); free(lam); free(weight);
			rc = nd_error_set(ND_ENOMEM, "out of memory");
			goto cleanup;
		}
		for (uint32_t i = 0; i < n; i++) {
			wv[i] = p;
			p += strlen(p) + 1;
		}
		if ((rc = get_exact(txn, "set.thresholds", th, n * sizeof(double), path)) == ND_OK &&
		    (rc = get_exact(txn, "set.lambdas", lam, n * sizeof(double), path)) == ND_OK &&
		    (rc = get_exact(txn, "set.word_lengths", &wl, sizeof(wl), path)) == ND_OK)
			rc = nd_descriptor_from_words(&d, wv, th, n, (int)wl);
		if (rc == ND_OK) {
			/* Words were stored sorted, so lambdas line up. */
			memcpy(d->lambdas, lam, n * sizeof(double));
			/* Absent: a set from before the mixed text keys. */
			uint32_t tk = ND_TEXT_KEYS_ROTATED;
			rc = get_exact(txn, "set.text_keys", &tk, sizeof(tk), path);
			if (rc == ND_ENOTFOUND)
				rc = ND_OK, tk = ND_TEXT_KEYS_ROTATED;
			if (rc == ND_OK && tk > ND_TEXT_KEYS_MIXED)
				rc = nd_error_set(ND_EVERSION, "store %s: text keys of kind %u, this neardup "
						  "makes kinds 0 and 1 (a newer neardup built it)", path, tk);
			d->text_keys = (int)tk;
			/* Empty, or absent in a store from before weights: the
			 * keys were made with equal weights, and stay so. */
			const void *wraw;
			size_t wbytes = 0;
			rc = nd_store_meta_get(txn, "set.weights", &wraw, &wbytes);
			if (rc == ND_ENOTFOUND)
				rc = ND_OK, wbytes = 0;
			if (rc == ND_OK && wbytes && wbytes != n * sizeof(double))
				rc = nd_error_set(ND_ECORRUPT, "store %s: 'set.weights' record is %zu bytes, "
						  "expected %zu", path, wbytes, n * sizeof(double));
			if (rc == ND_OK && wbytes)
				memcpy(weight, wraw, wbytes);
			for (uint32_t i = 0; rc == ND_OK && wbytes && i < n; i++)
				if (!nd__weight_ok(weight[i]))
					rc = nd_error_set(ND_ECORRUPT, "store %s: word %u's near-key weight is %g",
							  path, i, weight[i]);
			if (rc == ND_OK)
				rc = nd__descriptor_finish(d, wbytes ? weight : NULL);
		}
		if (rc == ND_OK) {
			uint64_t version = 0;
			if ((rc = get_exact(txn, "set.version", &version, sizeof(version), path)) == ND_OK &&
			    version != d->version)
				rc = nd_error_set(ND_ECORRUPT, "store %s: descriptive set fails its version check",
						  path);
		}
		free(wv); free(th); free(lam); free(weight);
		if (rc < 0)
			goto cleanup;
	}
	if (db && (rc = db_matches(txn, db, path, d)) < 0)
		goto cleanup;
	*out = d;
	d = NULL;
	rc = ND_OK;
cleanup:
	nd_descriptor_free(d);
	nd_store_txn_end(txn);
	return rc;
}

int nd__descriptor_load_renumbered(nd_descriptor **out, nd_store *st, nd_xdb *db, nd__renumbering *r)
{
	nd_descriptor *d = NULL;
	nd_store_txn *txn = NULL;
	int rc;
	*out = NULL;
	memset(r, 0, sizeof(*r));
	if ((rc = nd_descriptor_load(&d, st, NULL)) < 0 || (rc = nd_store_read_begin(st, &txn)) < 0) {
		nd_descriptor_free(d);
		return rc;
	}
	if ((rc = follow_prefixes(txn, db, nd_store_path(st))) == ND_OK)
		rc = renumbered(txn, d, db, r);
	nd_store_txn_end(txn);
	if (rc == ND_OK && !nd__renumbering_moves(r)) { /* not renumbered: the usual refusal, named */
		nd_descriptor_free(d);
		return nd_descriptor_load(out, st, db);
	}
	if (rc < 0) {
		nd__renumbering_clear(r);
		nd_descriptor_free(d);
		return rc;
	}
	*out = d;
	return ND_OK;
}
