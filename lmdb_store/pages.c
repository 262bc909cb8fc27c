/* A structural check of an LMDB data file, made by reading its pages
 * ourselves.  liblmdb trusts every page it follows: a truncated file
 * faults it (SIGBUS), a damaged node offset sends it outside its page
 * (SIGSEGV, or a heap overflow when a writer copies the page).  So before
 * liblmdb follows anything, every page of the snapshot is checked here:
 * inside the file, of the type its parent expects, its nodes inside it,
 * its keys in order, and every page reached exactly once (by a table or
 * by the free list, as LMDB keeps it).  The layout is LMDB 0.9's (mdb.c)
 * for 64-bit builds, frozen as MDB_DATA_VERSION 1. */
#include "lmdb_store/store_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lmdb.h>

_Static_assert(sizeof(size_t) == 8, "the page layout below is LMDB's on 64-bit builds");

#define HDR 16          /* page header: pgno u64, pad u16, flags u16, lower u16, upper u16 */
#define NODESZ 8        /* node header: lo u16, hi u16, flags u16, ksize u16 */
#define DBSZ 48         /* MDB_db */
#define P_BRANCH 0x01
#define P_LEAF 0x02
#define P_OVERFLOW 0x04
#define P_META 0x08
#define P_LEAF2 0x20
#define P_SUBP 0x40
#define F_BIGDATA 0x01
#define F_SUBDATA 0x02
#define F_DUPDATA 0x04
#define LMDB_MAGIC 0xBEEFC0DEu
#define MAX_DEPTH 32    /* LMDB's cursor stack */
#define MAX_KEY 511     /* LMDB's default key size limit */
#define NO_PAGE (~(uint64_t)0)

static uint16_t rd16(const unsigned char *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static uint32_t rd32(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t rd64(const unsigned char *p) { uint64_t v; memcpy(&v, p, 8); return v; }

typedef struct {
	uint32_t pad;       /* page size in the free table's record; LEAF2 key size */
	uint16_t flags, depth;
	uint64_t entries, root;
} dbrec;

static dbrec read_db(const unsigned char *p)
{
	return (dbrec){rd32(p), rd16(p + 4), rd16(p + 6), rd64(p + 32), rd64(p + 40)};
}

/* What a table holds, so its pages can be read as liblmdb will read them. */
typedef struct {
	const char *name;
	uint16_t flags;     /* MDB_INTEGERKEY, MDB_DUPSORT, ... as opened */
	unsigned ksize;     /* 0: any up to MAX_KEY */
	unsigned dsize;     /* MDB_DUPFIXED: each duplicate's size */
	int free_list;      /* values are page lists (LMDB's free table) */
	int main;           /* values are named tables */
} kind;

#define DUPS (MDB_INTEGERKEY | MDB_DUPSORT | MDB_DUPFIXED | MDB_INTEGERDUP)
/* The tables store.c opens, with their flags and key sizes. */
static const kind tables[] = {
	{"meta", 0, 0, 0, 0, 0},
	{"docs", MDB_INTEGERKEY, 4, 0, 0, 0},
	{"clusters", DUPS, 8, 4, 0, 0},
	{"verified", MDB_INTEGERKEY, 8, 0, 0, 0},
	{"words", MDB_INTEGERKEY, 4, 0, 0, 0},
	{"bits", DUPS, 4, 4, 0, 0},
	{"near", 0, 0, 0, 0, 0},
	{"links", DUPS, 4, 4, 0, 0},
	{"journal", MDB_INTEGERKEY, 4, 0, 0, 0},
	{"dates", MDB_INTEGERKEY, 4, 0, 0, 0},
	{"bydate", DUPS, 8, 4, 0, 0},
};
static const kind free_kind = {"(free pages)", MDB_INTEGERKEY, 8, 0, 1, 0};
static const kind main_kind = {"(table names)", 0, 0, 0, 0, 1};

typedef struct {
	const char *file;
	const unsigned char *map;
	uint64_t size, psize, npages;  /* npages: last_pg + 1 */
	uint8_t *seen;                 /* a bit a page */
	uint64_t used, read;           /* pages claimed; pages read */
	const char *table;             /* being walked, for messages */
	struct node_span *span;        /* room for a page's nodes */
} walker;

static int bad(walker *w, uint64_t pgno, const char *fmt, ...) ND_PRINTF(3, 4);

static int bad(walker *w, uint64_t pgno, const char *fmt, ...)
{
	char what[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return nd_error_set(ND_ECORRUPT, "store file %s is damaged: page %llu (table %s): %s; restore the "
			    "store from a copy, or remove it and run 'neardup build' and 'neardup sign'",
			    w->file, (unsigned long long)pgno, w->table, what);
}

/* Claim n pages from pgno: inside the snapshot, not reached before, and
 * (unless free: LMDB may leave free pages at the end unwritten) inside
 * the file. */
static int claim(walker *w, uint64_t pgno, uint64_t n, int free)
{
	if (pgno < 2 || pgno >= w->npages || n > w->npages - pgno)
		return bad(w, pgno, "page number out of range (the snapshot's last page is %llu)",
			   (unsigned long long)(w->npages - 1));
	if (!free && (pgno + n) * w->psize > w->size)
		return bad(w, pgno, "beyond the end of the file (%llu bytes): the file is truncated",
			   (unsigned long long)w->size);
	for (uint64_t p = pgno; p < pgno + n; p++) {
		if (w->seen[p >> 3] & (1u << (p & 7)))
			return bad(w, p, "reached twice");
		w->seen[p >> 3] |= (uint8_t)(1u << (p & 7));
	}
	w->used += n;
	return ND_OK;
}

/* Keys compare as liblmdb compares them: integers by value, others as
 * bytes then length.  0 when a < b as required. */
static int out_of_order(const kind *k, int integer, const unsigned char *a, unsigned al,
			const unsigned char *b, unsigned bl)
{
	if (integer && al == bl && (al == 4 || al == 8)) {
		uint64_t x = al == 4 ? rd32(a) : rd64(a), y = al == 4 ? rd32(b) : rd64(b);
		return x >= y;
	}
	(void)k;
	int c = memcmp(a, b, al < bl ? al : bl);
	return c > 0 || (c == 0 && al >= bl);
}

static int walk_tree(walker *w, const dbrec *db, const kind *k, int dup);

/* A free-list value: u64 count, then that many page numbers. */
static int free_list(walker *w, uint64_t pgno, const unsigned char *v, uint64_t len)
{
	uint64_t n = len >= 8 ? rd64(v) : 0;
	if (len < 8 || len % 8 || n != len / 8 - 1)
		return bad(w, pgno, "a free-page list of %llu bytes", (unsigned long long)len);
	for (uint64_t i = 1; i <= n; i++) {
		int rc = claim(w, rd64(v + 8 * i), 1, 1);
		if (rc < 0)
			return rc;
	}
	return ND_OK;
}

/* LMDB keeps a page's nodes packed from its upper bound to its end, each
 * NODESZ + key (+ value, or an overflow page number, on a leaf) rounded
 * to even: when one is deleted or resized, it moves the rest by that
 * size.  Nodes that overlap or leave gaps (a size field damaged, yet in
 * bounds) would have it move bytes across nodes, so each must start where
 * the one before ends.  size[i] and off[i] of n nodes; sorts them. */
typedef struct node_span {
	unsigned off, size;
} node_span;

static int cmp_span(const void *x, const void *y)
{
	const node_span *a = x, *b = y;
	return a->off < b->off ? -1 : a->off > b->off;
}

static int packed(node_span *s, unsigned n, unsigned upper, uint64_t end)
{
	uint64_t at = upper;
	qsort(s, n, sizeof(*s), cmp_span);
	for (unsigned i = 0; i < n; i++) {
		if (s[i].off != at)
			return 0;
		at += s[i].size + (s[i].size & 1);
	}
	return at == end;
}

static unsigned node_size(const unsigned char *node, int leaf)
{
	uint16_t nflags = rd16(node + 4), ksize = rd16(node + 6);
	uint64_t dsize = (uint64_t)rd16(node) | ((uint64_t)rd16(node + 2) << 16);
	uint64_t sz = NODESZ + (uint64_t)ksize;
	if (leaf)
		sz += (nflags & F_BIGDATA) ? 8 : dsize;
	return sz > 0xffffff ? 0xffffff : (unsigned)sz;
}

/* A sub-page: a small leaf of duplicates inside a node's value. */
static int sub_page(walker *w, uint64_t pgno, const unsigned char *p, uint64_t len, const kind *k,
		    uint64_t *entries)
{
	if (len < HDR)
		return bad(w, pgno, "a duplicate sub-page of %llu bytes", (unsigned long long)len);
	uint16_t flags = rd16(p + 10), lower = rd16(p + 12), upper = rd16(p + 14);
	unsigned n = lower >= HDR ? (unsigned)(lower - HDR) / 2 : 0;
	if (!(flags & P_SUBP) || !(flags & P_LEAF) || lower < HDR || lower > upper || upper > len)
		return bad(w, pgno, "a duplicate sub-page with a bad header");
	if (k->flags & MDB_DUPFIXED) {
		unsigned ks = rd16(p + 8);
		if (!(flags & P_LEAF2) || ks != k->dsize || HDR + (uint64_t)n * ks > len)
			return bad(w, pgno, "a fixed-size duplicate sub-page with a bad layout");
		for (unsigned i = 1; i < n; i++)
			if (out_of_order(k, k->flags & MDB_INTEGERDUP, p + HDR + (i - 1) * ks, ks, p + HDR + i * ks, ks))
				return bad(w, pgno, "duplicates out of order");
	} else {
		const unsigned char *prev = NULL;
		unsigned prevlen = 0;
		node_span span[2048];
		if (n > 2048)
			return bad(w, pgno, "a duplicate sub-page of %u nodes", n);
		for (unsigned i = 0; i < n; i++) {
			unsigned off = rd16(p + HDR + 2 * i);
			if (off < upper || off + NODESZ > len || off + NODESZ + rd16(p + off + 6) > len)
				return bad(w, pgno, "a duplicate outside its sub-page");
			const unsigned char *key = p + off + NODESZ;
			unsigned kl = rd16(p + off + 6);
			if (prev && out_of_order(k, k->flags & MDB_INTEGERDUP, prev, prevlen, key, kl))
				return bad(w, pgno, "duplicates out of order");
			prev = key, prevlen = kl;
			span[i] = (node_span){off, node_size(p + off, 1)};
		}
		if (!packed(span, n, upper, len))
			return bad(w, pgno, "a duplicate sub-page whose nodes overlap or leave gaps");
	}
	*entries += n;
	return ND_OK;
}

/* A leaf node's value: inline, on overflow pages, a sub-page or a table. */
static int leaf_value(walker *w, uint64_t pgno, const unsigned char *node, const unsigned char *v,
		      uint64_t avail, const kind *k, int dup, uint64_t *entries)
{
	uint16_t nflags = rd16(node + 4), ksize = rd16(node + 6);
	uint64_t dsize = (uint64_t)rd16(node) | ((uint64_t)rd16(node + 2) << 16);
	int rc;

	if (dup) { /* a leaf of a duplicates tree: keys only */
		if (nflags || dsize)
			return bad(w, pgno, "a duplicate with a value");
		(*entries)++;
		return ND_OK;
	}
	if (k->main) {
		char name[64];
		const kind *t = NULL;
		if (nflags != F_SUBDATA || dsize != DBSZ || avail < DBSZ)
			return bad(w, pgno, "a table record of %llu bytes", (unsigned long long)dsize);
		snprintf(name, sizeof(name), "%.*s", ksize < 63 ? (int)ksize : 63, (const char *)node + NODESZ);
		for (size_t i = 0; i < sizeof(tables) / sizeof(*tables); i++)
			if (strlen(tables[i].name) == ksize && !memcmp(tables[i].name, node + NODESZ, ksize))
				t = &tables[i];
		if (!t)
			return bad(w, pgno, "a table '%s' that no neardup store has", name);
		dbrec db = read_db(v);
		if (db.flags != t->flags)
			return bad(w, pgno, "table %s has flags %#x, not %#x", t->name, db.flags, t->flags);
		(*entries)++;
		const char *was = w->table;
		rc = walk_tree(w, &db, t, 0);
		w->table = was;
		return rc;
	}
	if (nflags & F_DUPDATA) {
		if (!(k->flags & MDB_DUPSORT) || (nflags & F_BIGDATA))
			return bad(w, pgno, "duplicates in a table without them");
		if (dsize > avail)
			return bad(w, pgno, "a value outside its page");
		if (!(nflags & F_SUBDATA))
			return sub_page(w, pgno, v, dsize, k, entries);
		if (dsize != DBSZ)
			return bad(w, pgno, "a duplicates tree record of %llu bytes", (unsigned long long)dsize);
		dbrec db = read_db(v);
		uint16_t want = (uint16_t)(k->flags & MDB_DUPFIXED ? MDB_DUPFIXED : 0) |
				(uint16_t)(k->flags & MDB_INTEGERDUP ? MDB_INTEGERKEY : 0);
		if ((db.flags & (MDB_DUPFIXED | MDB_INTEGERKEY)) != want || (db.flags & MDB_DUPSORT))
			return bad(w, pgno, "a duplicates tree with flags %#x", db.flags);
		if ((k->flags & MDB_DUPFIXED) && db.pad != k->dsize)
			return bad(w, pgno, "a duplicates tree of %u-byte values, not %u", db.pad, k->dsize);
		uint64_t before = *entries;
		if ((rc = walk_tree(w, &db, k, 1)) < 0)
			return rc;
		*entries = before + db.entries;
		return ND_OK;
	}
	if (nflags & F_SUBDATA)
		return bad(w, pgno, "a table inside table %s", k->name);
	if (nflags & ~F_BIGDATA)
		return bad(w, pgno, "a node with flags %#x", nflags);
	(*entries)++;
	if (nflags & F_BIGDATA) {
		if (avail < 8)
			return bad(w, pgno, "an overflow reference outside its page");
		uint64_t ov = rd64(v), need = (HDR - 1 + dsize) / w->psize + 1;
		if ((rc = claim(w, ov, 1, 0)) < 0)
			return rc;
		const unsigned char *op = w->map + ov * w->psize;
		uint32_t npages = rd32(op + 12);
		if (rd64(op) != ov || !(rd16(op + 10) & P_OVERFLOW) || npages < need)
			return bad(w, ov, "not the overflow page of %llu bytes its node says",
				   (unsigned long long)dsize);
		if (npages > 1 && (rc = claim(w, ov + 1, npages - 1, 0)) < 0)
			return rc;
		return k->free_list ? free_list(w, ov, op + HDR, dsize) : ND_OK;
	}
	if (dsize > avail)
		return bad(w, pgno, "a value outside its page");
	return k->free_list ? free_list(w, pgno, v, dsize) : ND_OK;
}

static int walk_page(walker *w, uint64_t pgno, unsigned depth, const dbrec *db, const kind *k, int dup,
		     uint64_t *entries)
{
	int rc;
	if (depth > MAX_DEPTH || depth > db->depth)
		return bad(w, pgno, "deeper than its table's depth %u", db->depth);
	if ((rc = claim(w, pgno, 1, 0)) < 0)
		return rc;
	/* A walk of the whole file would leave it resident, as far as it
	 * has read; released, the check of a 2.3 GB store (a million
	 * documents) kept at most 200 MB.  Read pages come back from the
	 * page cache when a parent is read again. */
	if (++w->read % 8192 == 0)
		(void)madvise((void *)w->map, w->size, MADV_DONTNEED);
	const unsigned char *p = w->map + pgno * w->psize;
	uint16_t flags = rd16(p + 10), lower = rd16(p + 12), upper = rd16(p + 14);
	int leaf = depth == db->depth, leaf2 = leaf && dup && (k->flags & MDB_DUPFIXED);
	unsigned want = leaf ? (leaf2 ? P_LEAF | P_LEAF2 : P_LEAF) : P_BRANCH;
	if (rd64(p) != pgno)
		return bad(w, pgno, "the page says it is page %llu", (unsigned long long)rd64(p));
	if ((flags & (P_BRANCH | P_LEAF | P_OVERFLOW | P_META | P_LEAF2 | P_SUBP)) != want)
		return bad(w, pgno, "a page of type %#x where a %s was expected", flags,
			   leaf ? "leaf" : "branch");
	if (lower < HDR || lower > upper || upper > w->psize || (lower - HDR) % 2)
		return bad(w, pgno, "free-space bounds %u..%u", lower, upper);
	unsigned n = (unsigned)(lower - HDR) / 2;
	int integer = dup ? (k->flags & MDB_INTEGERDUP) != 0 : (k->flags & MDB_INTEGERKEY) != 0;
	unsigned ks = dup ? k->dsize : k->ksize;

	if (leaf2) {
		if (rd16(p + 8) != k->dsize || HDR + (uint64_t)n * k->dsize > w->psize)
			return bad(w, pgno, "a fixed-size leaf with a bad layout");
		for (unsigned i = 1; i < n; i++)
			if (out_of_order(k, integer, p + HDR + (i - 1) * ks, ks, p + HDR + i * ks, ks))
				return bad(w, pgno, "keys out of order");
		*entries += n;
		return ND_OK;
	}
	if (!leaf && n == 0)
		return bad(w, pgno, "a branch without children");
	const unsigned char *prev = NULL;
	unsigned prevlen = 0;
	node_span *span = w->span;
	for (unsigned i = 0; i < n; i++) {
		unsigned off = rd16(p + HDR + 2 * i);
		if (off < upper || off + NODESZ > w->psize)
			return bad(w, pgno, "node %u at offset %u, outside the page", i, off);
		span[i] = (node_span){off, node_size(p + off, leaf)};
	}
	if (!packed(span, n, upper, w->psize))
		return bad(w, pgno, "nodes that overlap or leave gaps");
	for (unsigned i = 0; i < n; i++) {
		unsigned off = rd16(p + HDR + 2 * i);
		const unsigned char *node = p + off, *key = node + NODESZ;
		unsigned kl = rd16(node + 6);
		if (off + NODESZ + (uint64_t)kl > w->psize)
			return bad(w, pgno, "node %u's key runs off the page", i);
		/* A branch's first key is empty: everything below the second. */
		if (leaf || i > 0) {
			if (kl > MAX_KEY || (ks && kl != ks) || (!ks && k->main && kl == 0))
				return bad(w, pgno, "a key of %u bytes", kl);
			if (prev && out_of_order(k, integer, prev, prevlen, key, kl))
				return bad(w, pgno, "keys out of order");
			prev = key, prevlen = kl;
		}
		if (leaf) {
			if ((rc = leaf_value(w, pgno, node, key + kl, w->psize - (off + NODESZ + kl), k, dup,
					     entries)) < 0)
				return rc;
			continue;
		}
		uint64_t child = (uint64_t)rd16(node) | ((uint64_t)rd16(node + 2) << 16) |
				 ((uint64_t)rd16(node + 4) << 32);
		if ((rc = walk_page(w, child, depth + 1, db, k, dup, entries)) < 0)
			return rc;
	}
	return ND_OK;
}

static int walk_tree(walker *w, const dbrec *db, const kind *k, int dup)
{
	uint64_t entries = 0;
	int rc;
	w->table = k->name;
	if (db->root == NO_PAGE) {
		if (db->depth || db->entries)
			return bad(w, 0, "an empty table with depth %u and %llu entries", db->depth,
				   (unsigned long long)db->entries);
		return ND_OK;
	}
	if (db->depth == 0)
		return bad(w, db->root, "a table of depth 0 with a root page");
	if ((rc = walk_page(w, db->root, 1, db, k, dup, &entries)) < 0)
		return rc;
	if (entries != db->entries)
		return bad(w, db->root, "%llu entries found, %llu recorded", (unsigned long long)entries,
			   (unsigned long long)db->entries);
	return ND_OK;
}

/* Meta page i of the file, checked. */
static int read_meta(walker *w, const unsigned char *page, unsigned i, uint64_t *txnid, dbrec *dbs,
		     uint64_t *last)
{
	const unsigned char *m = page + HDR;
	w->table = "(meta)";
	if (rd64(page) != i || !(rd16(page + 10) & P_META) || rd32(m) != LMDB_MAGIC)
		return bad(w, i, "not an LMDB meta page: not a neardup store, or its start is overwritten");
	if (rd32(m + 4) != 1)
		return bad(w, i, "LMDB data format %u, not 1", rd32(m + 4));
	dbs[0] = read_db(m + 24);
	dbs[1] = read_db(m + 24 + DBSZ);
	*last = rd64(m + 24 + 2 * DBSZ);
	*txnid = rd64(m + 24 + 2 * DBSZ + 8);
	return ND_OK;
}

int nd__store_pages_check(const char *file, int walk, nd__store_pages *out)
{
	walker w = {file, NULL, 0, 0, 0, NULL, 0, 0, "(meta)", NULL};
	unsigned char head[HDR + 160];
	struct stat sb;
	int fd, rc;

	if (out)
		memset(out, 0, sizeof(*out));
	if ((fd = open(file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0)
		return nd_error_set(errno == ENOENT ? ND_ENOTFOUND : errno == EACCES ? ND_EIO : ND_EIO,
				    "store file %s: %s", file, strerror(errno));
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		close(fd);
		return nd_error_set(ND_ECORRUPT, "store file %s: not a regular file", file);
	}
	w.size = (uint64_t)sb.st_size;
	if (w.size < sizeof(head) || pread(fd, head, sizeof(head), 0) != (ssize_t)sizeof(head)) {
		close(fd);
		return nd_error_set(ND_ECORRUPT, "store file %s is %llu bytes, too short for an LMDB file "
				    "(truncated or emptied); restore the store from a copy, or remove it "
				    "and run 'neardup build' and 'neardup sign'", file,
				    (unsigned long long)w.size);
	}
	w.psize = rd32(head + HDR + 24); /* the free table's pad holds the page size */
	if (w.psize < 512 || w.psize > 65536 || (w.psize & (w.psize - 1))) {
		close(fd);
		w.psize = 1;
		return bad(&w, 0, "page size %u: not an LMDB meta page", rd32(head + HDR + 24));
	}
	if (w.size < 2 * w.psize) {
		close(fd);
		return nd_error_set(ND_ECORRUPT, "store file %s is %llu bytes, shorter than its two meta "
				    "pages (truncated); restore the store from a copy, or remove it and "
				    "run 'neardup build' and 'neardup sign'", file,
				    (unsigned long long)w.size);
	}
	void *map = mmap(NULL, w.size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return nd_error_set(errno == ENOMEM ? ND_ENOMEM : ND_EIO, "store file %s: cannot map: %s", file,
				    strerror(errno));
	w.map = map;

	uint64_t tx[2], last[2];
	dbrec dbs[2][2];
	for (unsigned i = 0; i < 2; i++)
		if ((rc = read_meta(&w, w.map + i * w.psize, i, &tx[i], dbs[i], &last[i])) < 0)
			goto done;
	if (rd32(w.map + w.psize + HDR + 24) != w.psize) {
		rc = bad(&w, 1, "its page size differs from meta page 0's");
		goto done;
	}
	/* LMDB writes the meta page of transaction t in slot t % 2 and picks
	 * the newer; a txnid in the wrong slot (or two far apart) makes its
	 * writer overwrite the snapshot it stands on. */
	for (unsigned i = 0; i < 2; i++)
		if (tx[i] && tx[i] % 2 != i) {
			rc = bad(&w, i, "transaction %llu in meta slot %u", (unsigned long long)tx[i], i);
			goto done;
		}
	if (tx[0] && tx[1] && tx[0] + 1 != tx[1] && tx[1] + 1 != tx[0]) {
		rc = bad(&w, 0, "the meta pages hold transactions %llu and %llu, not consecutive ones",
			 (unsigned long long)tx[0], (unsigned long long)tx[1]);
		goto done;
	}
	unsigned m = tx[1] > tx[0]; /* the newest snapshot */
	if (out)
		out->txnid = tx[m];
	w.npages = last[m] + 1;
	if (w.npages < 2 || w.npages > w.size / w.psize + (1u << 20)) {
		rc = bad(&w, m, "its last page is %llu, but the file holds %llu pages",
			 (unsigned long long)last[m], (unsigned long long)(w.size / w.psize));
		goto done;
	}
	if (!walk) {
		rc = ND_OK;
		goto done;
	}
	if (!(w.seen = calloc(w.npages / 8 + 1, 1)) || !(w.span = malloc(w.psize / 2 * sizeof(*w.span)))) {
		rc = nd_error_set(ND_ENOMEM, "out of memory");
		goto done;
	}
	w.seen[0] |= 3; /* the meta pages */
	if (dbs[m][0].flags != MDB_INTEGERKEY) {
		rc = bad(&w, m, "the free table has flags %#x", dbs[m][0].flags);
		goto done;
	}
	if ((rc = walk_tree(&w, &dbs[m][0], &free_kind, 0)) < 0 ||
	    (rc = walk_tree(&w, &dbs[m][1], &main_kind, 0)) < 0)
		goto done;
	w.table = "(all)";
	/* LMDB keeps each page up to the last reachable exactly once. */
	if (w.used + 2 != w.npages) {
		uint64_t p = 2;
		while (p < w.npages && (w.seen[p >> 3] & (1u << (p & 7))))
			p++;
		rc = bad(&w, p, "%llu pages belong to no table and are not free",
			 (unsigned long long)(w.npages - 2 - w.used));
		goto done;
	}
	if (out) {
		out->pages = w.npages;
		out->page_size = w.psize;
	}
	rc = ND_OK;
done:
	free(w.seen);
	free(w.span);
	munmap(map, w.size);
	return rc;
}
