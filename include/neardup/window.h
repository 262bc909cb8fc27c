/* neardup: a feed window.
 *
 * A crawler of an endless feed (news, mail, a forum) wants each arriving
 * document compared with the recent ones only, and the store's size and
 * memory bounded by the window, not by the stream.  A store with a window
 * dates every record (from a value slot of the database, or by arrival:
 * the time a hook, 'sign' or 'update' first saw it) and keeps only the
 * records dated within `seconds` of its clock: the newest date it has
 * seen (by arrival: now).  Older records leave the store (records,
 * clusters, near-neighbour index, links) in the same transaction that
 * brings the clock past them, so check, hooks, update and clusters see
 * the window only.  The database keeps its documents; 'update' does not
 * sign them again (by slot: their date says so; by arrival: docids the
 * store has seen are not new).
 *
 * Dates in a slot are read as Xapian::sortable_serialise'd seconds
 * (notmuch's slot 0, scriptindex's valuenumeric), a 4-byte big-endian
 * unsigned (omindex's last-modified slot 0), mu's hexadecimal form (slot
 * 4: 'f' + the number of digits, then the digits), decimal seconds, or
 * YYYYMMDD[hhmm[ss]] digits (UTC).  A document whose slot is empty,
 * unreadable or later than tomorrow (a broken date would move the clock
 * past every record) has no date: it is kept, never expires, and is
 * counted (nd_sign_report.undated). */
#ifndef ND_WINDOW_H
#define ND_WINDOW_H

#include "neardup/store.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ND_WINDOW_ARRIVAL (-1)

typedef struct {
	uint64_t seconds;  /* 0: no window */
	int slot;          /* value slot with each document's date, or ND_WINDOW_ARRIVAL */
} nd_window;

#define ND_WINDOW_INIT { 0, ND_WINDOW_ARRIVAL }

/* The store's window ({0, ND_WINDOW_ARRIVAL} when it has none). */
ND_EXTERN int nd_window_get(nd_store *st, nd_window *w);
/* Set or change it (seconds 0 removes it and its dates); the next
 * writer (hook, sign, update) dates and expires by it.  Changing the slot
 * drops the dates the old one gave. */
ND_EXTERN int nd_window_set(nd_store *st, const nd_window *w);
/* The store's clock (the newest date it holds; 0: none) and the first date
 * inside its window (0: no window or no dates). */
ND_EXTERN int nd_window_clock(nd_store *st, uint64_t *clock, uint64_t *from);

/* "90", "90s", "15m", "24h", "7d", "2w" -> seconds (> 0).  ND_EINVAL
 * otherwise. */
ND_EXTERN int nd_duration_parse(const char *s, uint64_t *seconds);
/* A date value as described above -> seconds; ND_ENOTFOUND when it is not
 * one. */
ND_EXTERN int nd_date_of_value(const void *val, size_t len, uint64_t *seconds);

#ifdef __cplusplus
}
#endif
#endif
