/* A feed window (neardup/window.h): dating records, and expiring those
 * the clock has passed, inside the writers' own transactions. */
#include "neardup/window.h"
#include "neardup/xdb.h"
#include "descriptor/method/method.h"
#include "common/nd_buf.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WINDOW_META "window"        /* u64 seconds, i32 slot */
#define SEEN_META "window.seen"     /* u32: by arrival, the highest docid dated */

int nd__window_date_of(const void *val, size_t len, uint64_t *date)
{
	/* A date past tomorrow is a broken one: taken as the clock, it would
	 * let every record go. */
	return nd_date_of_value(val, len, date) == ND_OK && *date <= (uint64_t)time(NULL) + 86400;
}

int nd__window_read(nd_store_txn *txn, nd_window *w)
{
	const void *v;
	size_t n;
	int32_t slot;
	int rc = nd_store_meta_get(txn, WINDOW_META, &v, &n);
	*w = (nd_window)ND_WINDOW_INIT;
	if (rc == ND_ENOTFOUND)
		return ND_OK;
	if (rc < 0 || n == 0)
		return rc; /* removed */
	if (n != sizeof(uint64_t) + sizeof(int32_t))
		return nd_error_set(ND_ECORRUPT, "store: its window record is damaged (%zu bytes)", n);
	memcpy(&w->seconds, v, sizeof(uint64_t));
	memcpy(&slot, (const char *)v + sizeof(uint64_t), sizeof(slot));
	w->slot = slot;
	return ND_OK;
}

static int newest_fn(uint32_t docid, uint64_t date, void *ctx)
{
	(void)docid;
	*(uint64_t *)ctx = date;
	return 1;
}

int nd__window_load(nd_store_txn *txn, nd__window *out)
{
	const void *v;
	size_t n;
	int rc;
	memset(out, 0, sizeof(*out));
	if ((rc = nd__window_read(txn, &out->w)) < 0 || !out->w.seconds)
		return rc;
	if ((rc = nd_store_dates_each(txn, 1, newest_fn, &out->clock)) < 0)
		return rc;
	rc = nd_store_meta_get(txn, SEEN_META, &v, &n);
	if (rc == ND_OK && n == sizeof(out->seen))
		memcpy(&out->seen, v, n);
	else if (rc != ND_ENOTFOUND && rc < 0)
		return rc;
	if (out->w.slot == ND_WINDOW_ARRIVAL)
		nd__window_advance(out, (uint64_t)time(NULL));
	else
		nd__window_advance(out, out->clock);
	return ND_OK;
}

void nd__window_advance(nd__window *win, uint64_t date)
{
	if (date > win->clock)
		win->clock = date;
	win->cutoff = win->clock > win->w.seconds ? win->clock - win->w.seconds : 0;
}

typedef struct {
	nd_docid lo;
	const uint32_t *len; /* documents lo.. : their lengths */
	uint64_t newest;
} clock_ctx;

static int clock_fn(nd_docid docid, const char *val, size_t len, void *ctx)
{
	clock_ctx *c = ctx;
	uint64_t date;
	if (c->len[docid - c->lo] && nd__window_date_of(val, len, &date) && date > c->newest)
		c->newest = date;
	return 0;
}

/* The newest date of a document with words, as signing sees them: the
 * slot's upper bound may be another document's (notmuch keeps each
 * directory's mtime in slot 0, beside its mail's dates, so an archive's
 * clock would be the last `notmuch new` and every mail would expire). */
int nd__window_db_clock(nd__window *win, nd_xdb *db)
{
	const uint32_t step = 65536;
	clock_ctx c = {0, NULL, 0};
	uint32_t *len;
	nd_docid last;
	int rc;
	if (!win->w.seconds || win->w.slot == ND_WINDOW_ARRIVAL)
		return ND_OK;
	if ((rc = nd_xdb_lastdocid(db, &last)) < 0)
		return rc;
	if (!(len = malloc(step * sizeof(*len))))
		return nd_error_set(ND_ENOMEM, "out of memory");
	for (uint64_t lo = 1; lo <= last && rc == ND_OK; lo += step) {
		nd_docid hi = (nd_docid)(lo + step > (uint64_t)last + 1 ? (uint64_t)last + 1 : lo + step);
		c.lo = (nd_docid)lo, c.len = len;
		if ((rc = nd_xdb_lengths(db, (nd_docid)lo, hi, len, NULL)) == ND_OK)
			rc = nd_xdb_values_range(db, (unsigned)win->w.slot, (nd_docid)lo, hi, clock_fn, &c);
	}
	free(len);
	if (rc == ND_OK && c.newest)
		nd__window_advance(win, c.newest);
	return rc;
}

int nd__window_doc_date(const nd__window *win, nd_xdb *db, nd_docid docid, uint64_t *date, int *dated)
{
	char *v = NULL;
	size_t len = 0;
	int rc;
	*dated = 0;
	if (win->w.slot == ND_WINDOW_ARRIVAL) {
		*date = (uint64_t)time(NULL);
		*dated = 1;
		return ND_OK;
	}
	rc = nd_xdb_doc_value(db, docid, (unsigned)win->w.slot, &v, &len);
	if (rc == ND_ENOTFOUND)
		return ND_OK; /* deleted: no date needed */
	if (rc < 0)
		return rc;
	*dated = len && nd__window_date_of(v, len, date);
	free(v);
	return ND_OK;
}

int nd__window_date(nd_store_txn *txn, const nd__window *win, nd_docid docid, nd_change change, int dated,
		    uint64_t date)
{
	uint64_t had;
	int rc;
	if (!win->w.seconds)
		return ND_OK;
	rc = nd_store_date_get(txn, docid, &had);
	if (rc < 0 && rc != ND_ENOTFOUND)
		return rc;
	if (win->w.slot == ND_WINDOW_ARRIVAL) {
		/* First seen, or seen again with new content, is an arrival;
		 * signed again after a 'build' (dates kept) is not. */
		if (rc == ND_OK && change != ND_CHANGE_REPLACED)
			return ND_OK;
	} else if (!dated || (rc == ND_OK && had == date))
		return ND_OK;
	return nd_store_date_put(txn, docid, date);
}

int nd__window_seen(nd_store_txn *txn, nd__window *win, nd_docid docid)
{
	if (!win->w.seconds || win->w.slot != ND_WINDOW_ARRIVAL || docid <= win->seen)
		return ND_OK;
	win->seen = docid;
	return nd_store_meta_put(txn, SEEN_META, &win->seen, sizeof(win->seen));
}

int nd__window_outside(nd_store_txn *txn, const nd__window *win, nd_docid docid, int dated, uint64_t date)
{
	uint64_t had;
	if (!win->w.seconds)
		return 0;
	if (win->w.slot != ND_WINDOW_ARRIVAL)
		return dated && date < win->cutoff;
	/* By arrival, a docid the store dated before and no longer holds a
	 * date of expired (or was deleted): it is not new. */
	if (docid > win->seen)
		return 0;
	return nd_store_date_get(txn, docid, &had) == ND_ENOTFOUND;
}

typedef struct {
	uint64_t cutoff;
	nd_docid *v;
	size_t n, cap;
	int rc;
} old_ctx;

static int old_fn(uint32_t docid, uint64_t date, void *vctx)
{
	old_ctx *c = vctx;
	void *p = c->v;
	if (date >= c->cutoff)
		return 1;
	if ((c->rc = nd_array_reserve(&p, &c->cap, c->n + 1, sizeof(nd_docid))) < 0)
		return 1;
	c->v = p;
	c->v[c->n++] = docid;
	return 0;
}

int nd__window_expire(nd_store_txn *txn, const nd__window *win, nd__window_expired_fn fn, void *ctx, uint64_t *n)
{
	old_ctx c = {win->cutoff, NULL, 0, 0, ND_OK};
	int rc;
	*n = 0;
	if (!win->w.seconds || !win->cutoff)
		return ND_OK;
	if ((rc = nd_store_dates_each(txn, 0, old_fn, &c)) < 0 || (rc = c.rc) < 0)
		goto out;
	for (size_t i = 0; i < c.n; i++) {
		nd_change ch;
		uint64_t old_key;
		if ((rc = nd__sig_apply(txn, c.v[i], 0, NULL, 0, NULL, 0, NULL, 0, 0, &ch, &old_key)) < 0)
			goto out;
		if (ch == ND_CHANGE_DELETED) {
			(*n)++;
			if (fn && (rc = fn(c.v[i], old_key, ctx)) < 0)
				goto out;
		} else if ((rc = nd_store_date_del(txn, c.v[i])) < 0) {
			goto out; /* a date kept through 'build' of a record not signed since */
		}
	}
	rc = ND_OK;
out:
	free(c.v);
	return rc;
}

/* Public. */

int nd_window_get(nd_store *st, nd_window *w)
{
	nd_store_txn *txn;
	int rc = nd_store_read_begin(st, &txn);
	if (rc < 0)
		return rc;
	rc = nd__window_read(txn, w);
	nd_store_txn_end(txn);
	return rc;
}

static int arrive_fn(uint32_t docid, uint64_t key, const void *payload, size_t len, void *vctx)
{
	nd_store_txn *txn = vctx;
	uint64_t had;
	(void)key, (void)payload, (void)len;
	if (nd_store_date_get(txn, docid, &had) == ND_OK)
		return 0;
	return nd_store_date_put(txn, docid, (uint64_t)time(NULL));
}

static int set_fn(nd_store_txn *txn, void *vctx)
{
	const nd_window *w = vctx;
	nd_window old;
	int rc;
	if ((rc = nd__window_read(txn, &old)) < 0)
		return rc;
	/* Dates of another source (or of no window) mean nothing now. */
	if (!w->seconds || old.slot != w->slot || !old.seconds) {
		uint32_t zero = 0;
		if ((rc = nd_store_dates_clear(txn)) < 0 ||
		    (rc = nd_store_meta_put(txn, SEEN_META, &zero, sizeof(zero))) < 0)
			return rc;
	}
	/* By arrival, what the store holds arrives now: else it would never
	 * expire. */
	if (w->seconds && w->slot == ND_WINDOW_ARRIVAL && (rc = nd_store_docs_each(txn, arrive_fn, txn)) < 0)
		return rc;
	uint8_t rec[sizeof(uint64_t) + sizeof(int32_t)];
	int32_t slot = w->slot;
	memcpy(rec, &w->seconds, sizeof(uint64_t));
	memcpy(rec + sizeof(uint64_t), &slot, sizeof(slot));
	return nd_store_meta_put(txn, WINDOW_META, rec, w->seconds ? sizeof(rec) : 0);
}

int nd_window_set(nd_store *st, const nd_window *w)
{
	if (w->slot < ND_WINDOW_ARRIVAL || w->slot >= 0xffff)
		return nd_error_set(ND_EINVAL, "window: value slot %d is not one (0..65534, or arrival)", w->slot);
	return nd_store_write(st, set_fn, (void *)w);
}

int nd_window_clock(nd_store *st, uint64_t *clock, uint64_t *from)
{
	nd_store_txn *txn;
	nd__window win;
	int rc = nd_store_read_begin(st, &txn);
	*clock = *from = 0;
	if (rc < 0)
		return rc;
	if ((rc = nd__window_load(txn, &win)) == ND_OK) {
		*clock = win.clock;
		*from = win.w.seconds ? win.cutoff : 0;
	}
	nd_store_txn_end(txn);
	return rc;
}

int nd_duration_parse(const char *s, uint64_t *seconds)
{
	char *end;
	unsigned long long v;
	uint64_t unit = 1;
	if (!s || !isdigit((unsigned char)*s))
		return nd_error_set(ND_EINVAL, "duration '%s': a number, then s, m, h, d or w (24h, 7d)",
				    s ? s : "");
	v = strtoull(s, &end, 10);
	switch (*end) {
	case '\0': case 's': break;
	case 'm': unit = 60; break;
	case 'h': unit = 3600; break;
	case 'd': unit = 86400; break;
	case 'w': unit = 7 * 86400; break;
	default: end = NULL;
	}
	if (!end || (*end && end[1]) || v == 0 || v > (1ull << 40) / unit)
		return nd_error_set(ND_EINVAL, "duration '%s': a number > 0, then s, m, h, d or w (24h, 7d)", s);
	*seconds = v * unit;
	return ND_OK;
}
