/* Signing.  The bulk path walks the postlist of every descriptive word once,
 * in docid blocks: per block, lengths are read from the all-documents list
 * (one walk, not a lookup per posting, which DESIGN.md measured 8x slower),
 * each word's postings below the block end are tested against its threshold,
 * and the (document, bit) pairs are counting-sorted into rows.  A block is
 * one store transaction that also records how far signing got, so a killed
 * run resumes at the next block. */
#include "descriptor/method/method.h"
#include "descriptor/verify/record.h"
#include "lmdb_store/store_internal.h"
#include "neardup/words.h"
#include "indexer/xapian_terms.h"
#include "common/nd_buf.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void nd_sig_clear(nd_sig *s)
{
	free(s->bits);
	memset(s, 0, sizeof(*s));
}

int nd_sig_push(nd_sig *s, uint16_t bit)
{
	if (s->nbits == s->cap) {
		uint32_t cap = s->cap ? s->cap * 2 : 16;
		uint16_t *p = realloc(s->bits, cap * sizeof(uint16_t));
		if (!p)
			return nd_error_set(ND_ENOMEM, "out of memory");
		s->bits = p;
		s->cap = cap;
	}
	s->bits[s->nbits++] = bit;
	return ND_OK;
}

uint64_t nd_sig_key(const uint16_t *bits, uint32_t nbits)
{
	if (nbits < ND_MIN_BITS)
		return 0;
	uint64_t h = nd_mix64(0x6b6579ULL ^ nbits);
	for (uint32_t i = 0; i < nbits; i++)
		h = nd_mix64(h ^ ((uint64_t)bits[i] + 1) * 0x9e3779b97f4a7c15ULL);
	return h ? h : 1; /* 0 means "no key" */
}

/* Record payload: u16 count, the bits ascending; the store's
 * near-neighbour section (u8 trees, u8 rows, the sequences; 0 trees when
 * the document has neither a descriptive word nor any word); u64
 * fingerprint; then the verdict's record (descriptor/verify/record.h;
 * none for a document without words). */
static size_t sig_encode(uint8_t *out, const uint16_t *bits, uint32_t nbits, const uint16_t *near, uint64_t fp,
			 const void *rec, size_t reclen)
{
	uint16_t n = (uint16_t)nbits;
	size_t at = 2 + (size_t)nbits * 2;
	memcpy(out, &n, 2);
	if (nbits) /* a document with no bit set has no list at all (bits may be NULL) */
		memcpy(out + 2, bits, (size_t)nbits * 2);
	out[at] = near ? ND_NEAR_TREES : 0;
	out[at + 1] = near ? ND_NEAR_ROWS : 0;
	at += 2;
	if (near) {
		memcpy(out + at, near, ND_NEAR_N * 2);
		at += ND_NEAR_N * 2;
	}
	memcpy(out + at, &fp, 8);
	at += 8;
	if (reclen)
		memcpy(out + at, rec, reclen);
	return at + reclen;
}

/* Where the fingerprint sits: after the bits and the near section; 0
 * when the payload is malformed. */
static size_t fp_at(const uint8_t *p, size_t len)
{
	uint16_t n;
	if (len < 2)
		return 0;
	memcpy(&n, p, 2);
	size_t at = 2 + (size_t)n * 2;
	if (len < at + 2 + 8)
		return 0;
	if (p[at] == 0 && p[at + 1] == 0)
		return at + 2;
	if (p[at] != ND_NEAR_TREES || p[at + 1] != ND_NEAR_ROWS || len < at + 2 + ND_NEAR_N * 2 + 8)
		return 0;
	return at + 2 + ND_NEAR_N * 2;
}

int nd__payload_rec(const void *payload, size_t len, const void **rec, size_t *reclen, const uint16_t **bits,
		    uint32_t *nbits)
{
	size_t at = fp_at(payload, len);
	if (!at)
		return nd_error_set(ND_ECORRUPT, "signature record of %zu bytes is malformed", len);
	*rec = (const uint8_t *)payload + at + 8;
	*reclen = len - at - 8;
	if (bits) {
		uint16_t n;
		memcpy(&n, payload, 2);
		*bits = (const uint16_t *)(const void *)((const uint8_t *)payload + 2);
		*nbits = n;
	}
	return ND_OK;
}

int nd_sig_decode(nd_sig *out, const void *payload, size_t len, uint32_t nwords)
{
	uint16_t n;
	const uint8_t *p = payload;
	size_t at = fp_at(p, len);
	out->nbits = 0;
	out->present = 0;
	if (!at) {
		memcpy(&n, p, len >= 2 ? 2 : 0);
		return nd_error_set(ND_ECORRUPT, "signature record claims %u bits in %zu bytes", len >= 2 ? n : 0, len);
	}
	memcpy(&n, p, 2);
	if (p[2 + 2 * (size_t)n]) {
		memcpy(out->near, p + 2 + 2 * (size_t)n + 2, ND_NEAR_N * 2);
		out->present = 1; /* some word or text held; the count is not kept */
	}
	for (uint32_t i = 0; i < n; i++) {
		uint16_t b;
		int rc;
		memcpy(&b, p + 2 + 2 * i, 2);
		if (b >= nwords || (i && b <= out->bits[i - 1]))
			return nd_error_set(ND_ECORRUPT, "signature record has bit %u out of order or "
					    "past the set's %u words", b, nwords);
		if ((rc = nd_sig_push(out, b)) < 0)
			return rc;
	}
	memcpy(&out->fingerprint, p + at, 8);
	out->key = nd_sig_key(out->bits, out->nbits);
	return ND_OK;
}

const char *nd_change_name(nd_change c)
{
	switch (c) {
	case ND_CHANGE_NONE: return "unchanged";
	case ND_CHANGE_ADDED: return "added";
	case ND_CHANGE_REPLACED: return "replaced";
	case ND_CHANGE_DELETED: return "deleted";
	case ND_CHANGE_EXPIRED: return "expired";
	}
	return "?";
}

/* Drift bookkeeping (meta drift.changes, db.lastdocid, db.doccount). */
static int meta_u(nd_store_txn *txn, const char *name, void *out, size_t len)
{
	const void *v;
	size_t n;
	int rc = nd_store_meta_get(txn, name, &v, &n);
	if (rc == ND_ENOTFOUND) {
		memset(out, 0, len);
		return ND_OK;
	}
	if (rc < 0)
		return rc;
	if (n != len)
		return nd_error_set(ND_ECORRUPT, "store: '%s' record is %zu bytes, expected %zu",
				    name, n, len);
	memcpy(out, v, len);
	return ND_OK;
}

static int drift_add(nd_store_txn *txn, uint64_t changes)
{
	uint64_t have = 0;
	int rc;
	if (!changes)
		return ND_OK;
	if ((rc = meta_u(txn, "drift.changes", &have, sizeof(have))) < 0)
		return rc;
	have += changes;
	return nd_store_meta_put(txn, "drift.changes", &have, sizeof(have));
}

static int drift_of(nd_store_txn *txn, uint64_t extra, double *drift)
{
	uint64_t changes = 0;
	uint32_t built = 0;
	int rc;
	if ((rc = meta_u(txn, "drift.changes", &changes, sizeof(changes))) < 0 ||
	    (rc = meta_u(txn, "db.doccount", &built, sizeof(built))) < 0)
		return rc;
	*drift = (double)(changes + extra) / (built ? built : 1);
	return ND_OK;
}

int nd_drift(nd_store *st, double *drift)
{
	nd_store_txn *txn;
	int rc;
	*drift = 0;
	if ((rc = nd_store_read_begin(st, &txn)) < 0)
		return rc;
	rc = drift_of(txn, 0, drift);
	nd_store_txn_end(txn);
	return rc;
}

/* A change counts in the drift unless it only signs, for the first time, a
 * document the set was built from. */
int nd__drift_counts(nd_store_txn *txn, nd_docid docid, nd_change change)
{
	uint32_t built_last = 0;
	if (change != ND_CHANGE_ADDED)
		return change != ND_CHANGE_NONE && change != ND_CHANGE_EXPIRED; /* still in the database */
	if (meta_u(txn, "db.lastdocid", &built_last, sizeof(built_last)) < 0)
		return 1;
	return docid > built_last;
}

int nd__drift_add(nd_store_txn *txn, uint64_t changes, double max_drift, const char *path)
{
	double drift;
	int rc;
	if (!changes)
		return ND_OK;
	if ((rc = drift_of(txn, changes, &drift)) < 0)
		return rc;
	if (max_drift > 0 && drift > max_drift)
		return nd_error_set(ND_ESTATE, "store %s: the descriptive set is stale: changes since "
				    "it was built would reach %.0f%% of the documents it was built "
				    "from (limit %.0f%%); run 'neardup build' to choose a new set "
				    "and sign again", path, 100 * drift, 100 * max_drift);
	return drift_add(txn, changes);
}

int nd__sig_apply(nd_store_txn *txn, nd_docid docid, int present, const uint16_t *bits, uint32_t nbits,
		  const uint16_t *near, uint64_t fp, const void *rec, size_t reclen, int force, nd_change *change,
		  uint64_t *old_key)
{
	uint8_t stackbuf[4096], *buf = stackbuf;
	const void *payload;
	size_t len, need = 2 + 2 * (size_t)nbits + 2 + 2 * ND_NEAR_N + 8 + reclen;
	int rc = nd_store_doc_get(txn, docid, old_key, &payload, &len);
	int had = rc == ND_OK;
	*change = ND_CHANGE_NONE;
	if (rc == ND_ENOTFOUND)
		*old_key = 0;
	else if (rc < 0)
		return rc;
	if (!present) {
		if (!had)
			return ND_OK;
		if ((rc = nd_store_doc_del(txn, docid)) == ND_OK)
			*change = ND_CHANGE_DELETED;
		return rc;
	}
	if (need > sizeof(stackbuf) && !(buf = malloc(need)))
		return nd_error_set(ND_ENOMEM, "out of memory");
	size_t n = sig_encode(buf, bits, nbits, near, fp, rec, reclen);
	/* The same record is no change: what it holds is all it is. */
	if (!(had && !force && len == n && !memcmp(payload, buf, n)) &&
	    (rc = nd_store_doc_put(txn, docid, nd_sig_key(bits, nbits), buf, n)) == ND_OK)
		*change = had ? ND_CHANGE_REPLACED : ND_CHANGE_ADDED;
	if (buf != stackbuf)
		free(buf);
	return rc;
}

typedef struct {
	const nd_descriptor *d;
	uint32_t len;
	nd_sig *sig;
	uint64_t fp;
	int rc;
} tl_ctx;

static int on_term(const char *term, size_t len, uint32_t wdf, void *vctx)
{
	tl_ctx *t = vctx;
	int32_t w = nd__descriptor_find(t->d, term, len);
	if (w < 0)
		return 0;
	t->fp += nd_fp_word((uint32_t)w, wdf);
	t->sig->present++;
	nd__near_add(t->d, t->sig->near, (uint32_t)w);
	if (nd_bit_above(wdf, t->len, t->d->thresholds[w]) &&
	    (t->rc = nd_sig_push(t->sig, (uint16_t)w)) < 0)
		return 1;
	return 0;
}

int nd__cmp_u16(const void *a, const void *b)
{
	return (int)*(const uint16_t *)a - (int)*(const uint16_t *)b;
}

int nd_sig_from_termlist(const nd_descriptor *d, nd_xdb *db, nd_docid docid, nd_sig *out)
{
	uint8_t *rec = NULL;
	size_t reclen;
	int rc = nd__sign_doc(d, db, docid, out, &rec, &reclen);
	free(rec);
	return rc;
}

/* The termlist's part of a document's record: bits, word trees and
 * fingerprint. */
static int sig_of_terms(const nd_descriptor *d, nd_xdb *db, nd_docid docid, nd_sig *out)
{
	uint32_t len, present;
	int rc;
	tl_ctx t = {d, 0, out, 0, ND_OK};

	out->nbits = 0;
	out->key = 0;
	out->fingerprint = 0;
	out->present = 0;
	nd__near_reset(out->near);
	if ((rc = nd_desc_lengths(db, d->word_lengths, docid, docid + 1, &len, &present)) < 0)
		return rc;
	if (!present)
		return nd_error_set(ND_ENOTFOUND, "%s: no document %u", nd_xdb_path(db), docid);
	t.len = len;
	if ((rc = nd_xdb_termlist(db, docid, on_term, &t)) < 0)
		return rc;
	if (t.rc < 0)
		return t.rc;
	char *th = NULL;
	size_t thlen = 0;
	if ((rc = nd_xdb_doc_value(db, docid, ND_SLOT_TEXT_HASH, &th, &thlen)) < 0)
		return rc;
	if (thlen == sizeof(uint64_t)) {
		uint64_t h;
		memcpy(&h, th, sizeof(h));
		if (h)
			t.fp += nd_fp_text(h);
	}
	free(th);
	/* Termlists and the set are both in byte order, so bits come sorted. */
	for (uint32_t i = 1; i < out->nbits; i++)
		if (out->bits[i] <= out->bits[i - 1])
			return nd_error_set(ND_ECORRUPT, "%s: termlist of document %u is not sorted",
					    nd_xdb_path(db), docid);
	out->key = nd_sig_key(out->bits, out->nbits);
	out->fingerprint = nd_fp_final(t.fp, len);
	return ND_OK;
}

typedef struct {
	nd_docid docid;
	nd_change change;
	uint64_t old_key, new_key;
} change_rec;

typedef struct {
	const char *path;
	nd_docid lo, hi;
	const uint32_t *present;
	const uint32_t *row;      /* row[off]..row[off+1]: bits of document lo+off */
	const uint16_t *bits;
	const uint16_t *near;     /* ND_NEAR_N a document */
	const uint32_t *held;     /* descriptive words held */
	const uint64_t *fp;       /* fingerprint sums */
	const uint32_t *len;
	const uint8_t *rec;       /* verdict records: rec_off[off], rec_len[off] bytes */
	const size_t *rec_off;
	const uint32_t *rec_len;
	uint64_t revision;
	double max_drift;
	int keep_changes;
	const uint64_t *date;     /* a window by slot: dates, dated, and gone (too old) */
	const uint8_t *dated, *gone;
	nd__window win;           /* the window as the run began (seconds 0: none) */
	uint64_t now;
	/* out, reset by every attempt (nd_store_write may replay) */
	uint64_t keyed, unkeyed, docs, undated, counts[5];
	nd_docid seen;
	change_rec *changes;
	size_t nchanges, changes_cap;
} block_ctx;

static int expired_fn(nd_docid docid, uint64_t old_key, void *vctx)
{
	block_ctx *b = vctx;
	void *p = b->changes;
	int rc;
	if (!b->keep_changes)
		return ND_OK;
	if ((rc = nd_array_reserve(&p, &b->changes_cap, b->nchanges + 1, sizeof(change_rec))) < 0)
		return rc;
	b->changes = p;
	b->changes[b->nchanges++] = (change_rec){docid, ND_CHANGE_EXPIRED, old_key, 0};
	return ND_OK;
}

static int write_block(nd_store_txn *txn, void *vctx)
{
	block_ctx *b = vctx;
	uint64_t drift = 0;
	uint32_t through;
	int rc;
	nd__window win = b->win; /* the seen mark moves in this attempt only */
	b->keyed = b->unkeyed = b->docs = b->undated = 0;
	memset(b->counts, 0, sizeof(b->counts));
	b->nchanges = 0;
	for (nd_docid d = b->lo; d < b->hi; d++) {
		uint32_t off = d - b->lo;
		const uint16_t *bits = b->bits + b->row[off];
		uint32_t n = b->row[off + 1] - b->row[off];
		nd_change ch;
		uint64_t old_key, date = b->date[off];
		int present = b->present[off] != 0, gone = b->gone[off], dated = b->dated[off];
		int keyed = b->held[off] || b->rec_len[off]; /* a descriptive word or any word */
		if (win.w.seconds && win.w.slot == ND_WINDOW_ARRIVAL) {
			date = b->now, dated = 1;
			if (present && (rc = nd__window_outside(txn, &win, d, 1, date)) != 0) {
				if (rc < 0)
					return rc;
				present = 0, gone = 1;
			}
		}
		if ((rc = nd__sig_apply(txn, d, present, bits, n, keyed ? b->near + (size_t)off * ND_NEAR_N : NULL,
					nd_fp_final(b->fp[off], b->len[off]), b->rec + b->rec_off[off], b->rec_len[off],
					0, &ch, &old_key)) < 0)
			return rc;
		if (ch == ND_CHANGE_DELETED && gone)
			ch = ND_CHANGE_EXPIRED;
		if (present && win.w.seconds) {
			if ((rc = nd__window_date(txn, &win, d, ch, dated, date)) < 0 ||
			    (rc = nd__window_seen(txn, &win, d)) < 0)
				return rc;
			b->undated += !dated;
		}
		b->counts[ch]++;
		drift += (uint64_t)nd__drift_counts(txn, d, ch);
		if (present) {
			b->docs++;
			if (n >= ND_MIN_BITS)
				b->keyed++;
			else
				b->unkeyed++;
		}
		if (ch != ND_CHANGE_NONE && b->keep_changes) {
			void *p = b->changes;
			if ((rc = nd_array_reserve(&p, &b->changes_cap, b->nchanges + 1, sizeof(change_rec))) < 0)
				return rc;
			b->changes = p;
			b->changes[b->nchanges++] = (change_rec){d, ch, old_key, present ? nd_sig_key(bits, n) : 0};
		}
	}
	/* What the clock has passed leaves, wherever it is. */
	uint64_t expired;
	if ((rc = nd__window_expire(txn, &win, expired_fn, b, &expired)) < 0)
		return rc;
	b->counts[ND_CHANGE_EXPIRED] += expired;
	b->seen = win.seen;
	if ((rc = nd__drift_add(txn, drift, b->max_drift, b->path)) < 0 ||
	    (rc = meta_u(txn, "sign.through", &through, sizeof(through))) < 0)
		return rc;
	if (through < b->hi - 1)
		through = b->hi - 1;
	if ((rc = nd_store_meta_put(txn, "sign.through", &through, sizeof(through))) < 0 ||
	    (rc = nd_store_meta_put(txn, "sign.revision", &b->revision, sizeof(b->revision))) < 0)
		return rc;
	return ND_OK;
}

static int defer_fn(nd_store_txn *txn, void *ctx)
{
	(void)ctx;
	return nd_store_near_defer(txn);
}

/* A restart; for a renumbered database the store then names it (uuid)
 * and moves what it keeps by docid along with the documents. */
typedef struct {
	nd__renumbering r;
	const char *uuid;
} restart_ctx;

static int clear_fn(nd_store_txn *txn, void *vctx)
{
	const restart_ctx *c = vctx;
	uint32_t zero = 0;
	int rc;
	if ((rc = nd_store_clear(txn)) < 0 ||
	    (nd__renumbering_moves(&c->r) && ((rc = nd__store_move_kept(txn, &c->r)) < 0 ||
			  (rc = nd_store_meta_put(txn, "db.uuid", c->uuid, strlen(c->uuid))) < 0)))
		return rc;
	return nd_store_meta_put(txn, "sign.through", &zero, sizeof(zero));
}

static int read_through(nd_store *st, uint32_t *through)
{
	nd_store_txn *txn;
	const void *v;
	size_t n;
	int rc;
	*through = 0;
	if ((rc = nd_store_read_begin(st, &txn)) < 0)
		return rc;
	rc = nd_store_meta_get(txn, "sign.through", &v, &n);
	if (rc == ND_OK && n == sizeof(*through))
		memcpy(through, v, n);
	else if (rc == ND_OK)
		rc = nd_error_set(ND_ECORRUPT, "store %s: sign.through record is damaged",
				  nd_store_path(st));
	else if (rc == ND_ENOTFOUND)
		rc = ND_OK;
	nd_store_txn_end(txn);
	return rc;
}

/* One share of the descriptive words, scanned for a block of documents:
 * with --jobs N, N workers each walk the postlists of a contiguous range of
 * words through their own database handle (Xapian handles are not shared
 * between threads), and their outputs, concatenated in word order, give
 * exactly the single-threaded bits. */
typedef struct {
	const nd_descriptor *d;
	nd_xdb *db;
	int owns_db;              /* not the caller's handle */
	nd_xdb_postlist **pl;     /* words w0..w1 */
	uint32_t w0, w1;
	nd_posting *buf;
	uint32_t *pair_off;       /* (document offset, bit) pairs in word order */
	uint16_t *pair_bit;
	size_t npairs, off_cap, bit_cap;
	uint64_t *fp;             /* fingerprint sums of this share */
	uint16_t *near;           /* near-neighbour keys of this share (ND_NEAR_N a document) */
	uint32_t *held;           /* descriptive words held, of this share */
	uint64_t postings;
	/* the block */
	nd_docid lo, hi;
	const uint32_t *len;
	int rc;
	char err[512];
} sign_worker;

#define SIGN_BUFCAP 4096

static void *scan_words(void *vw)
{
	sign_worker *w = vw;
	uint32_t nb = w->hi - w->lo;
	w->npairs = 0;
	memset(w->fp, 0, nb * sizeof(uint64_t));
	memset(w->held, 0, nb * sizeof(uint32_t));
	for (uint32_t k = 0; k < nb; k++)
		nd__near_reset(w->near + (size_t)k * ND_NEAR_N);
	for (uint32_t i = w->w0; i < w->w1; i++) {
		size_t n;
		double b = w->d->thresholds[i];
		const uint16_t *wh = w->d->near_hash + (size_t)i * ND_NEAR_WORD_N;
		do {
			if ((w->rc = nd_xdb_postlist_next(w->pl[i - w->w0], w->hi, w->buf, SIGN_BUFCAP, &n)) < 0)
				goto fail;
			w->postings += n;
			void *p1 = w->pair_off, *p2 = w->pair_bit;
			if ((w->rc = nd_array_reserve(&p1, &w->off_cap, w->npairs + n, sizeof(uint32_t))) < 0)
				goto fail;
			w->pair_off = p1;
			if ((w->rc = nd_array_reserve(&p2, &w->bit_cap, w->npairs + n, sizeof(uint16_t))) < 0)
				goto fail;
			w->pair_bit = p2;
			for (size_t k = 0; k < n; k++) {
				uint32_t off = w->buf[k].docid - w->lo;
				w->fp[off] += nd_fp_word(i, w->buf[k].wdf);
				w->held[off]++;
				nd__near_min(w->near + (size_t)off * ND_NEAR_N, wh);
				if (nd_bit_above(w->buf[k].wdf, w->len[off], b)) {
					w->pair_off[w->npairs] = off;
					w->pair_bit[w->npairs++] = (uint16_t)i;
				}
			}
		} while (n == SIGN_BUFCAP);
	}
	w->rc = ND_OK;
	return NULL;
fail:
	snprintf(w->err, sizeof(w->err), "%s", nd_error_last());
	return NULL;
}

static void worker_free(sign_worker *w)
{
	for (uint32_t i = 0; w->pl && i < w->w1 - w->w0; i++)
		nd_xdb_postlist_free(w->pl[i]);
	free(w->pl);
	free(w->buf);
	free(w->pair_off);
	free(w->pair_bit);
	free(w->fp);
	free(w->near);
	free(w->held);
	if (w->owns_db)
		nd_xdb_close(w->db);
}

/* Worker t of jobs: its words, handle and postlists, skipped past through.
 * Worker 0 reads through the caller's handle unless own_db (a reader
 * thread then uses it while the caller's thread writes). */
static int worker_init(sign_worker *w, const nd_descriptor *d, nd_xdb *db, unsigned t, unsigned jobs,
		       int own_db, uint32_t block_docs, uint32_t through, uint64_t revision)
{
	int rc;
	memset(w, 0, sizeof(*w));
	w->d = d;
	w->w0 = (uint32_t)((uint64_t)d->n * t / jobs);
	w->w1 = (uint32_t)((uint64_t)d->n * (t + 1) / jobs);
	if (t == 0 && !own_db)
		w->db = db;
	else {
		uint64_t rev;
		if ((rc = nd_xdb_open(&w->db, nd_xdb_path(db), ND_XDB_READ)) < 0)
			return rc;
		nd__xdb_copy_settings(w->db, db);
		w->owns_db = 1;
		if ((rc = nd_xdb_revision(w->db, &rev)) < 0)
			return rc;
		if (rev != revision) /* a commit in between: the caller retries */
			return nd_error_set(ND_ERETRY, "%s changed while signing started", nd_xdb_path(db));
	}
	if (!(w->pl = calloc(w->w1 - w->w0 + 1, sizeof(*w->pl))) ||
	    !(w->buf = malloc(SIGN_BUFCAP * sizeof(nd_posting))) ||
	    !(w->fp = malloc(block_docs * sizeof(uint64_t))) ||
	    !(w->near = malloc((size_t)block_docs * ND_NEAR_N * sizeof(uint16_t))) ||
	    !(w->held = malloc(block_docs * sizeof(uint32_t))))
		return nd_error_set(ND_ENOMEM, "out of memory");
	for (uint32_t i = w->w0; i < w->w1; i++) {
		if ((rc = nd_xdb_postlist_open(&w->pl[i - w->w0], w->db, d->words[i])) < 0)
			return rc;
		if (through && (rc = nd_xdb_postlist_skip(w->pl[i - w->w0], through + 1)) < 0)
			return rc;
	}
	return ND_OK;
}

/* One block of documents as read: lengths, presence, and each document's
 * bits (row[off]..row[off+1] in bits) and fingerprint sum. */
typedef struct {
	nd_docid lo, hi;
	uint32_t *len, *present, *count, *row, *held;
	uint64_t *fp, *text;
	uint16_t *bits, *near;
	size_t bits_cap;
	uint8_t *rec;        /* the documents' verdict records, one after another */
	size_t rec_used, rec_cap;
	size_t *rec_off;
	uint32_t *rec_len;   /* 0: none (no words, or not read) */
	uint32_t *ids;       /* a document's words, aligned */
	size_t ids_cap;
	uint64_t no_words, from_data; /* documents without a word sequence, and
					 those whose words came from their data */
	uint64_t *date;      /* a feed window by slot: each document's date */
	uint8_t *dated;      /* 1: date is one (its slot held a date) */
	uint8_t *gone;       /* 1: present, but dated before the window */
	int text_keys;       /* the set's ND_TEXT_KEYS_* */
} sign_block;

static int block_alloc(sign_block *b, uint32_t block_docs)
{
	memset(b, 0, sizeof(*b));
	if (!(b->len = malloc(block_docs * sizeof(uint32_t))) ||
	    !(b->present = malloc(block_docs * sizeof(uint32_t))) ||
	    !(b->count = malloc((block_docs + 1) * sizeof(uint32_t))) ||
	    !(b->row = malloc((block_docs + 1) * sizeof(uint32_t))) ||
	    !(b->fp = malloc(block_docs * sizeof(uint64_t))) ||
	    !(b->text = malloc(block_docs * sizeof(uint64_t))) ||
	    !(b->held = malloc(block_docs * sizeof(uint32_t))) ||
	    !(b->near = malloc((size_t)block_docs * ND_NEAR_N * sizeof(uint16_t))) ||
	    !(b->rec_off = malloc(block_docs * sizeof(size_t))) ||
	    !(b->rec_len = malloc(block_docs * sizeof(uint32_t))) ||
	    !(b->date = calloc(block_docs, sizeof(uint64_t))) ||
	    !(b->dated = calloc(block_docs, 1)) || !(b->gone = calloc(block_docs, 1)))
		return nd_error_set(ND_ENOMEM, "out of memory");
	return ND_OK;
}

static void block_free(sign_block *b)
{
	free(b->len);
	free(b->present);
	free(b->count);
	free(b->row);
	free(b->fp);
	free(b->text);
	free(b->held);
	free(b->near);
	free(b->bits);
	free(b->rec);
	free(b->rec_off);
	free(b->rec_len);
	free(b->ids);
	free(b->date);
	free(b->dated);
	free(b->gone);
}

/* Reads blocks: the workers' shares of the words, then a counting sort by
 * document over their pairs in word order (stable, so bits stay
 * ascending).  With --jobs 2 or more it runs on a thread of its own, one
 * block ahead of the writer, whose commits it would otherwise wait for. */
typedef struct {
	sign_worker *w;
	unsigned jobs;
	sign_block *b;     /* to fill, lo and hi set */
	const nd__window *win;
	int rc;
	char err[512];
} block_reader;

static int on_date(nd_docid docid, const char *val, size_t len, void *ctx)
{
	sign_block *b = ctx;
	uint32_t off = docid - b->lo;
	if (docid >= b->lo && docid < b->hi && nd__window_date_of(val, len, &b->date[off]))
		b->dated[off] = 1;
	return 0;
}

/* A window by slot: the block's dates, and what is too old to sign. */
static int block_dates(nd_xdb *db, const nd__window *win, sign_block *b)
{
	uint32_t nb = b->hi - b->lo;
	int rc;
	memset(b->dated, 0, nb);
	memset(b->gone, 0, nb);
	if (!win->w.seconds || win->w.slot == ND_WINDOW_ARRIVAL)
		return ND_OK;
	if ((rc = nd_xdb_values_range(db, (unsigned)win->w.slot, b->lo, b->hi, on_date, b)) < 0)
		return rc;
	for (uint32_t off = 0; off < nb; off++)
		if (b->present[off] && b->dated[off] && b->date[off] < win->cutoff) {
			b->present[off] = 0;
			b->gone[off] = 1;
		}
	return ND_OK;
}

static int on_text_hash(nd_docid docid, const char *val, size_t len, void *ctx)
{
	sign_block *b = ctx;
	if (len == sizeof(uint64_t) && docid >= b->lo && docid < b->hi)
		memcpy(&b->text[docid - b->lo], val, len);
	return 0;
}

int nd__sign_doc(const nd_descriptor *d, nd_xdb *db, nd_docid docid, nd_sig *out, uint8_t **rec, size_t *reclen)
{
	uint32_t *ids = NULL;
	size_t n = 0;
	nd__rec r;
	int rc;
	*rec = NULL;
	*reclen = 0;
	if ((rc = sig_of_terms(d, db, docid, out)) < 0)
		return rc;
	if ((rc = nd_words_get(db, docid, &ids, &n, NULL)) == ND_ENOTFOUND)
		rc = ND_OK, n = 0; /* no words: no record, no text keys */
	if (rc < 0 || (rc = nd__rec_make(ids, n, &r, out->near + ND_NEAR_WORD_N, d->text_keys)) < 0) {
		free(ids);
		return rc;
	}
	free(ids);
	if (n && (rc = nd_xdb_doc_thread(db, docid, &r.thread)) < 0) {
		nd__rec_free(&r);
		return rc;
	}
	if (n && !(*rec = malloc(nd__rec_size(&r))))
		rc = nd_error_set(ND_ENOMEM, "out of memory");
	else if (n)
		*reclen = nd__rec_encode(&r, *rec);
	if (n && !out->present)
		out->present = 1; /* near-neighbour keys: the text's */
	nd__rec_free(&r);
	return rc;
}

/* Document lo + off's verdict record from its words and mail thread, and
 * its text trees' keys. */
static int block_add_record(sign_block *b, uint32_t off, const uint32_t *ids, size_t n, uint32_t thread)
{
	nd__rec rec;
	int rc = nd__rec_make(ids, n, &rec, b->near + (size_t)off * ND_NEAR_N + ND_NEAR_WORD_N, b->text_keys);
	if (rc < 0)
		return rc;
	rec.thread = thread;
	void *p = b->rec;
	if ((rc = nd_array_reserve(&p, &b->rec_cap, b->rec_used + nd__rec_size(&rec), 1)) == ND_OK) {
		b->rec = p;
		b->rec_off[off] = b->rec_used;
		b->rec_len[off] = n ? (uint32_t)nd__rec_encode(&rec, b->rec + b->rec_used) : 0;
		b->rec_used += b->rec_len[off];
	}
	nd__rec_free(&rec);
	return rc;
}

typedef struct {
	sign_block *b;
	int rc;
} words_ctx;

static int on_words(nd_docid docid, const char *val, size_t len, void *vctx)
{
	words_ctx *c = vctx;
	sign_block *b = c->b;
	uint32_t off = docid - b->lo;
	if (docid < b->lo || docid >= b->hi || !b->present[off] || len % 4 || !len)
		return 0; /* read as any other database's below */
	void *p = b->ids;
	if ((c->rc = nd_array_reserve(&p, &b->ids_cap, len / 4, sizeof(uint32_t))) < 0)
		return 1;
	b->ids = p;
	memcpy(b->ids, val, len);
	return (c->rc = block_add_record(b, off, b->ids, len / 4, 0)) < 0;
}

/* Every present document's verdict record: the words neardup index keeps
 * (ND_SLOT_WORDS, one stream for the block), else as nd_words_get finds
 * them (positions, or the document data). */
static int block_records(nd_xdb *db, sign_block *b)
{
	uint32_t nb = b->hi - b->lo;
	words_ctx c = {b, ND_OK};
	int rc;
	b->rec_used = 0;
	b->no_words = b->from_data = 0;
	memset(b->rec_len, 0, nb * sizeof(uint32_t));
	memset(b->rec_off, 0, nb * sizeof(size_t));
	if ((rc = nd_xdb_values_range(db, ND_SLOT_WORDS, b->lo, b->hi, on_words, &c)) < 0 || (rc = c.rc) < 0)
		return rc;
	for (uint32_t off = 0; off < nb; off++) {
		uint32_t *ids = NULL;
		size_t n = 0;
		if (!b->present[off] || b->rec_len[off])
			continue;
		nd_words_source src = ND_WORDS_STORED;
		rc = nd_words_get(db, b->lo + off, &ids, &n, &src);
		if (rc == ND_ENOTFOUND)
			rc = ND_OK, n = 0; /* no words: no record, no text keys */
		b->no_words += rc == ND_OK && !n;
		b->from_data += rc == ND_OK && n && src == ND_WORDS_DATA;
		uint32_t thread = 0;
		if (rc == ND_OK && n && (rc = nd_xdb_doc_thread(db, b->lo + off, &thread)) == ND_OK)
			rc = block_add_record(b, off, ids, n, thread);
		free(ids);
		if (rc < 0)
			return rc;
	}
	return ND_OK;
}

static int read_block(block_reader *r)
{
	sign_block *b = r->b;
	sign_worker *w = r->w;
	uint32_t nb = b->hi - b->lo;
	pthread_t tid[ND_SIGN_MAX_JOBS];
	unsigned nthreads = 0;
	size_t npairs = 0;
	int rc;
	if ((rc = nd_desc_lengths(w[0].db, w[0].d->word_lengths, b->lo, b->hi, b->len, b->present)) < 0 ||
	    (rc = block_dates(w[0].db, r->win, b)) < 0)
		return rc;
	memset(b->text, 0, nb * sizeof(uint64_t));
	if ((rc = nd_xdb_values_range(w[0].db, ND_SLOT_TEXT_HASH, b->lo, b->hi, on_text_hash, b)) < 0)
		return rc;
	for (unsigned t = 0; t < r->jobs; t++) {
		w[t].lo = b->lo, w[t].hi = b->hi, w[t].len = b->len;
	}
	/* Workers 1.. on threads, worker 0 here. */
	for (unsigned t = 1; t < r->jobs; t++) {
		if (pthread_create(&tid[t], NULL, scan_words, &w[t]) != 0) {
			w[t].rc = nd_error_set(ND_ENOMEM, "cannot start a signing thread");
			snprintf(w[t].err, sizeof(w[t].err), "%s", nd_error_last());
			break;
		}
		nthreads = t;
	}
	scan_words(&w[0]);
	for (unsigned t = 1; t <= nthreads; t++)
		pthread_join(tid[t], NULL);
	for (unsigned t = 0; t < r->jobs; t++)
		if (w[t].rc < 0)
			return nd_error_set(w[t].rc, "%s", w[t].err);
	memset(b->count, 0, (nb + 1) * sizeof(uint32_t));
	memset(b->fp, 0, nb * sizeof(uint64_t));
	memcpy(b->held, w[0].held, nb * sizeof(uint32_t));
	memcpy(b->near, w[0].near, (size_t)nb * ND_NEAR_N * sizeof(uint16_t));
	for (unsigned t = 1; t < r->jobs; t++)
		for (uint32_t k = 0; k < nb; k++) {
			b->held[k] += w[t].held[k];
			nd__near_min(b->near + (size_t)k * ND_NEAR_N, w[t].near + (size_t)k * ND_NEAR_N);
		}
	for (unsigned t = 0; t < r->jobs; t++) {
		for (size_t k = 0; k < w[t].npairs; k++)
			b->count[w[t].pair_off[k] + 1]++;
		for (uint32_t k = 0; k < nb; k++)
			b->fp[k] += w[t].fp[k];
		npairs += w[t].npairs;
	}
	for (uint32_t k = 0; k < nb; k++)
		if (b->text[k])
			b->fp[k] += nd_fp_text(b->text[k]);
	for (uint32_t k = 0; k < nb; k++)
		b->count[k + 1] += b->count[k];
	memcpy(b->row, b->count, (nb + 1) * sizeof(uint32_t));
	void *pb = b->bits;
	if ((rc = nd_array_reserve(&pb, &b->bits_cap, npairs + 1, sizeof(uint16_t))) < 0)
		return rc;
	b->bits = pb;
	for (unsigned t = 0; t < r->jobs; t++)
		for (size_t k = 0; k < w[t].npairs; k++)
			b->bits[b->count[w[t].pair_off[k]]++] = w[t].pair_bit[k];
	return block_records(w[0].db, b);
}

static void *read_block_thread(void *vr)
{
	block_reader *r = vr;
	if ((r->rc = read_block(r)) < 0)
		snprintf(r->err, sizeof(r->err), "%s", nd_error_last());
	return NULL;
}

/* Records past the database's last docid: documents a crashed indexer
 * added to the store but never committed to the database (a hook ran
 * before the commit).  Xapian will hand their docids out again. */
typedef struct {
	nd_docid *v;
	size_t n, cap;
	uint64_t *old_keys;
	double max_drift;
	const char *path;
} beyond_ctx;

static int add_beyond(uint32_t docid, uint64_t key, const void *payload, size_t len, void *vctx)
{
	beyond_ctx *b = vctx;
	void *p = b->v;
	(void)key, (void)payload, (void)len;
	if (nd_array_reserve(&p, &b->cap, b->n + 1, sizeof(nd_docid)) < 0)
		return nd_error_set(ND_ENOMEM, "out of memory");
	b->v = p;
	b->v[b->n++] = docid;
	return 0;
}

static int drop_beyond_fn(nd_store_txn *txn, void *vctx)
{
	beyond_ctx *b = vctx;
	uint64_t drift = 0;
	int rc = ND_OK;
	for (size_t i = 0; i < b->n && rc == ND_OK; i++) {
		nd_change ch;
		rc = nd__sig_apply(txn, b->v[i], 0, NULL, 0, NULL, 0, NULL, 0, 0, &ch, &b->old_keys[i]);
		drift += (uint64_t)nd__drift_counts(txn, b->v[i], ch);
	}
	return rc < 0 ? rc : nd__drift_add(txn, drift, b->max_drift, b->path);
}

int nd__drop_beyond(nd_store *st, nd_docid last, const nd_sign_options *o, nd_sign_report *rep)
{
	beyond_ctx b = {NULL, 0, 0, NULL, o->max_drift, nd_store_path(st)};
	nd_store_txn *txn;
	int rc = nd_store_read_begin(st, &txn);
	if (rc < 0)
		return rc;
	rc = last == UINT32_MAX ? ND_OK : nd_store_docs_from(txn, last + 1, add_beyond, &b);
	nd_store_txn_end(txn);
	if (rc == ND_OK && b.n && !(b.old_keys = calloc(b.n, sizeof(*b.old_keys))))
		rc = nd_error_set(ND_ENOMEM, "out of memory");
	if (rc == ND_OK && b.n && (rc = nd_store_write(st, drop_beyond_fn, &b)) == ND_OK) {
		rep->deleted += b.n;
		for (size_t i = 0; o->changed && i < b.n; i++)
			o->changed(b.v[i], ND_CHANGE_DELETED, b.old_keys[i], 0, o->ctx);
	}
	free(b.v);
	free(b.old_keys);
	return rc;
}

/* The store's window as a run begins; by slot, the clock moves to the
 * database's newest date, so that a first signing leaves out what is
 * already too old instead of signing it and expiring it later. */
static int window_begin(nd_store *st, nd_xdb *db, nd__window *win)
{
	nd_store_txn *txn;
	int rc = nd_store_read_begin(st, &txn);
	if (rc < 0)
		return rc;
	rc = nd__window_load(txn, win);
	nd_store_txn_end(txn);
	return rc < 0 ? rc : nd__window_db_clock(win, db);
}

static int expire_only_fn(nd_store_txn *txn, void *vctx)
{
	block_ctx *b = vctx;
	uint64_t n;
	int rc;
	b->nchanges = 0;
	memset(b->counts, 0, sizeof(b->counts));
	if ((rc = nd__window_expire(txn, &b->win, expired_fn, b, &n)) < 0)
		return rc;
	b->counts[ND_CHANGE_EXPIRED] = n;
	return ND_OK;
}

/* Nothing new to sign, but the clock (by arrival, time) moved. */
static int expire_only(nd_store *st, block_ctx *b, const nd_sign_options *o, nd_sign_report *rep)
{
	int rc;
	b->keep_changes = o->changed != NULL;
	if ((rc = nd_store_write(st, expire_only_fn, b)) < 0)
		return rc;
	rep->expired += b->counts[ND_CHANGE_EXPIRED];
	for (size_t k = 0; k < b->nchanges; k++)
		o->changed(b->changes[k].docid, b->changes[k].change, b->changes[k].old_key, 0, o->ctx);
	return ND_OK;
}

int nd_sign_all(nd_store *st, nd_xdb *db, const nd_sign_options *opts, nd_sign_report *rep)
{
	nd_sign_options o = ND_SIGN_OPTIONS_INIT;
	nd_sign_report r;
	nd_descriptor *d = NULL;
	block_ctx bc;
	sign_block blk[2];
	block_reader rd;
	sign_worker *w = NULL;
	unsigned jobs = 1, started = 0;
	int ahead;         /* reader one block ahead, on a thread */
	uint32_t through;
	nd_docid last;
	uint64_t revision, nblocks;
	struct timespec t0, t1;
	restart_ctx restart = {{0, NULL, NULL, 0}, NULL};
	char *uuid = NULL;
	int rc;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	memset(&bc, 0, sizeof(bc));
	memset(blk, 0, sizeof(blk));
	if (opts)
		o = *opts;
	if (!rep)
		rep = &r;
	memset(rep, 0, sizeof(*rep));
	if (o.block_docs == 0)
		o.block_docs = 32768;
	if (!(o.max_drift >= 0))
		return nd_error_set(ND_EINVAL, "max_drift must be >= 0 (0: no limit), not %g", o.max_drift);

	if ((rc = nd_descriptor_load(&d, st, db)) == ND_EMISMATCH && o.restart)
		rc = nd__descriptor_load_renumbered(&d, st, db, &restart.r);
	if (rc < 0 || (nd__renumbering_moves(&restart.r) && (rc = nd_xdb_uuid(db, &uuid)) < 0))
		goto cleanup;
	restart.uuid = uuid;
	rep->renumbered = nd__renumbering_most(&restart.r);
	if (o.restart && (rc = nd_store_write(st, clear_fn, &restart)) < 0)
		goto cleanup;
	if ((rc = window_begin(st, db, &bc.win)) < 0)
		goto cleanup;
	bc.now = (uint64_t)time(NULL);
	if ((rc = read_through(st, &through)) < 0 ||
	    (rc = nd_xdb_lastdocid(db, &last)) < 0 ||
	    (rc = nd_xdb_revision(db, &revision)) < 0)
		goto cleanup;
	if (o.update)
		through = 0; /* walk everything; records say what changed */
	rep->from = through + 1;
	rep->to = last;
	if (through >= last) {
		/* an empty database, or a first signing killed before its end
		 * (else an empty commit, which LMDB does not write) */
		if (o.update && (rc = nd__drop_beyond(st, last, &o, rep)) < 0)
			goto cleanup;
		if (bc.win.w.seconds && (rc = expire_only(st, &bc, &o, rep)) < 0)
			goto cleanup;
		rc = nd__store_near_rebuild(st); /* the index of a first signing, made whole at the end */
		goto cleanup;
	}
	/* A first signing writes the near-neighbour index once, at the end. */
	if (!through && !o.update && (rc = nd_store_write(st, defer_fn, NULL)) < 0)
		goto cleanup;

	jobs = o.jobs == 0 ? 1 : o.jobs > ND_SIGN_MAX_JOBS ? ND_SIGN_MAX_JOBS : o.jobs;
	if (jobs > d->n)
		jobs = d->n ? d->n : 1;
	if (nd_xdb_writable(db))
		jobs = 1; /* other handles would not see its uncommitted changes */
	nblocks = ((uint64_t)last - through + o.block_docs - 1) / o.block_docs;
	ahead = jobs > 1 && nblocks > 1;
	if (!(w = calloc(jobs, sizeof(*w)))) {
		rc = nd_error_set(ND_ENOMEM, "out of memory");
		goto cleanup;
	}
	if ((rc = block_alloc(&blk[0], o.block_docs)) < 0 ||
	    (ahead && (rc = block_alloc(&blk[1], o.block_docs)) < 0))
		goto cleanup;
	blk[0].text_keys = blk[1].text_keys = d->text_keys;
	for (; started < jobs; started++)
		if ((rc = worker_init(&w[started], d, db, started, jobs, ahead, o.block_docs, through,
				      revision)) < 0) {
			started++; /* partly set up: freed below */
			goto cleanup;
		}

	rd.w = w;
	rd.jobs = jobs;
	rd.win = &bc.win;
	for (uint64_t i = 0; i < nblocks; i++) {
		sign_block *b = &blk[ahead ? i & 1 : 0];
		pthread_t tid;
		int reading = 0, wrc;
		if (i == 0 || !ahead) {
			uint64_t lo64 = (uint64_t)through + 1 + i * o.block_docs;
			b->lo = (nd_docid)lo64;
			b->hi = (nd_docid)(lo64 + o.block_docs > (uint64_t)last + 1 ? (uint64_t)last + 1
										  : lo64 + o.block_docs);
			rd.b = b;
			if ((rc = read_block(&rd)) < 0)
				goto cleanup;
		}
		if (ahead && i + 1 < nblocks) {
			sign_block *nx = &blk[(i + 1) & 1];
			nx->lo = b->hi;
			nx->hi = (nd_docid)((uint64_t)nx->lo + o.block_docs > (uint64_t)last + 1
						    ? (uint64_t)last + 1 : (uint64_t)nx->lo + o.block_docs);
			rd.b = nx;
			if (pthread_create(&tid, NULL, read_block_thread, &rd) != 0) {
				rc = nd_error_set(ND_ENOMEM, "cannot start the reading thread");
				goto cleanup;
			}
			reading = 1;
		}

		bc.path = nd_store_path(st);
		bc.lo = b->lo;
		bc.hi = b->hi;
		bc.present = b->present;
		bc.row = b->row;
		bc.bits = b->bits;
		bc.fp = b->fp;
		bc.near = b->near;
		bc.held = b->held;
		bc.len = b->len;
		bc.rec = b->rec;
		bc.rec_off = b->rec_off;
		bc.rec_len = b->rec_len;
		bc.revision = revision;
		bc.max_drift = o.max_drift;
		bc.keep_changes = o.changed != NULL;
		bc.date = b->date;
		bc.dated = b->dated;
		bc.gone = b->gone;
		wrc = nd_store_write(st, write_block, &bc);
		if (wrc >= 0)
			bc.win.seen = bc.seen;
		nd__store_release_pages(st); /* the next block writes other pages */
		if (reading) {
			pthread_join(tid, NULL);
			if (wrc >= 0 && rd.rc < 0)
				wrc = nd_error_set(rd.rc, "%s", rd.err);
		}
		if ((rc = wrc) < 0)
			goto cleanup;
		rep->docs += bc.docs;
		rep->no_words += b->no_words;
		rep->words_from_data += b->from_data;
		rep->keyed += bc.keyed;
		rep->unkeyed += bc.unkeyed;
		rep->added += bc.counts[ND_CHANGE_ADDED];
		rep->replaced += bc.counts[ND_CHANGE_REPLACED];
		rep->deleted += bc.counts[ND_CHANGE_DELETED];
		rep->expired += bc.counts[ND_CHANGE_EXPIRED];
		rep->undated += bc.undated;
		for (size_t k = 0; k < bc.nchanges; k++)
			o.changed(bc.changes[k].docid, bc.changes[k].change, bc.changes[k].old_key,
				  bc.changes[k].new_key, o.ctx);
		if (o.progress)
			o.progress(b->hi - 1, last, o.ctx);
	}
	if (o.update && (rc = nd__drop_beyond(st, last, &o, rep)) < 0)
		goto cleanup;
	rc = nd__store_near_rebuild(st); /* the index of a first signing, made whole at the end */
	nd__store_release_pages(st);
cleanup:
	free(uuid);
	nd__renumbering_clear(&restart.r);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (rc == ND_OK)
		rc = nd_drift(st, &rep->drift);
	rep->seconds = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	for (unsigned t = 0; w && t < started; t++) {
		rep->postings += w[t].postings;
		worker_free(&w[t]);
	}
	free(w);
	block_free(&blk[0]);
	block_free(&blk[1]);
	free(bc.changes);
	nd_descriptor_free(d);
	return rc;
}
