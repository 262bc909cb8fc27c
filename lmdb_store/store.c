/* LMDB store.  Why LMDB: copy-on-write B+trees give atomic transactions
 * (a crash loses at most the unfinished write, never consistency) and
 * readers in other processes that never block the writer. */
#include "lmdb_store/store_internal.h"
#include "common/nd_buf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <lmdb.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <pthread.h>
#include "common/nd_buf.h"

#define INITIAL_MAP ((size_t)1 << 30)  /* sparse file: costs no disk */
#define MAX_MAP ((size_t)1 << 40)

struct nd_store {
	MDB_env *env;
	MDB_dbi meta, docs, clusters, verified, words, bits, near, links, journal;
	MDB_dbi dates, bydate; /* a feed window's (neardup/window.h) */
	int dated;      /* dates and bydate exist (a reader of a store never dated: 0) */
	char *path;
	int writable;
	int lockfd;     /* the writer lock (writer.lock), held while open for writing; else -1 */
	int nolock;     /* read-only store opened without LMDB's lock file */
	int map_full;   /* set when LMDB said MDB_MAP_FULL in the current write */
	int txn_full;   /* ... or MDB_TXN_FULL (too many dirty pages) */
	size_t mapsize;
	MDB_txn *held;   /* nd_store_hold's transaction, or NULL */
	pthread_t holder; /* the thread that holds it: the only one to use it */
	MDB_txn *active; /* the write nested in it while one runs (reads borrow it) */
	unsigned readers; /* read transactions open (atomic: a reader may end on another thread) */
};

/* A bit posting to add or remove, queued by a write transaction. */
typedef struct {
	uint32_t docid;
	uint16_t bit, add;
} bit_op;

#define NEAR_DEFERRED "near.deferred"
#define LINKS_REBUILD "links.rebuild"

/* A near-neighbour entry to add or remove: tree, sequence, docid (big
 * endian, so that memcmp orders them). */
#define NEAR_KEY_MAX (1 + 2 * ND_STORE_NEAR_MAX_ROWS + 4)
typedef struct {
	uint8_t key[NEAR_KEY_MAX];
	uint8_t len, add;
	uint32_t seq;      /* queue order: a removal before a re-addition */
} near_op;

struct nd_store_txn {
	nd_store *st;
	MDB_txn *txn;
	bit_op *ops;       /* applied, sorted by bit, just before commit */
	size_t nops, opcap;
	near_op *nops_v;   /* applied, sorted by key, just before commit */
	size_t nnear, nearcap;
	int near_deferred; /* "near.deferred" in meta: puts leave the index alone */
	int changed;       /* a record was put, deleted or cleared: bump records.gen */
	int links_rebuild; /* "links.rebuild" in meta: nothing is journaled */
	int borrowed;      /* a read of the held transaction: not ended with it */
	size_t gets;       /* records read by docid, for walked() */
};

/* Records a walk reads between releases of the mapped pages: 65,536 of
 * them kept some 800 MB of the map resident at 1M documents (measured
 * before records filled their pages); 8,192 cost no time measured, but
 * left fsck, which looks up each record's bits, near entries and cluster,
 * 700-1,050 MB (1,024: under 470 MB). */
#define RELEASE_EVERY 1024

/* At each entry a walk reads: the map released every `every`. */
static void walked(nd_store *st, size_t *seen, size_t every)
{
	if (++*seen % every == 0)
		nd__store_release_pages(st);
}

struct nd_store_keys {
	nd_store *st;
	MDB_cursor *cur;
	int started;
	size_t seen;
};

/* Why a write of st may have come up short: the disk holding it full,
 * or the data file at the process's file size limit; NULL for neither. */
static const char *io_cause(nd_store *st)
{
	struct statvfs fs;
	struct rlimit rl;
	struct stat sb;
	char file[4096];
	if (!st)
		return NULL;
	if (statvfs(st->path, &fs) == 0 && (uint64_t)fs.f_bavail * fs.f_frsize < ((uint64_t)4 << 20))
		return "the disk is full";
	snprintf(file, sizeof(file), "%s/data.mdb", st->path);
	if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && stat(file, &sb) == 0 &&
	    (uint64_t)sb.st_size + ((uint64_t)1 << 20) >= (uint64_t)rl.rlim_cur)
		return "the data file reached the process's file size limit";
	return NULL;
}

static int mdb_err(nd_store *st, int mrc, const char *what)
{
	int code;
	switch (mrc) {
	case MDB_NOTFOUND: code = ND_ENOTFOUND; break;
	case MDB_MAP_FULL:
		code = ND_EFULL;
		if (st)
			st->map_full = 1;
		break;
	case MDB_TXN_FULL:
		code = ND_EFULL;
		if (st)
			st->txn_full = 1;
		break;
	case ENOSPC: case EFBIG: case EDQUOT: code = ND_EFULL; break;
	case MDB_CORRUPTED: case MDB_INVALID: case MDB_PAGE_NOTFOUND: code = ND_ECORRUPT; break;
	case MDB_VERSION_MISMATCH: code = ND_EVERSION; break;
	case ENOMEM: code = ND_ENOMEM; break;
	case EAGAIN: code = ND_ELOCKED; break;
	case EACCES: case EPERM: case EROFS: code = ND_EIO; break;
	case ENOENT: code = ND_ENOTFOUND; break;
	case MDB_INCOMPATIBLE: code = ND_ECORRUPT; break;
	default: code = ND_EIO; break;
	}
	/* LMDB turns a short write (the disk or a file size limit reached
	 * mid-page) into EIO; the commit did not happen either way.  Which of
	 * them it was is told by the space left and the limit. */
	if (mrc == EIO) {
		const char *why = io_cause(st);
		if (why)
			return nd_error_set(ND_EFULL, "store %s: %s: %s; nothing of this transaction was stored",
					    st->path, what, why);
		return nd_error_set(code, "store %s: %s: %s (a device error; nothing of this transaction "
				    "was stored)", st ? st->path : "?", what, mdb_strerror(mrc));
	}
	return nd_error_set(code, "store %s: %s: %s", st ? st->path : "?", what, mdb_strerror(mrc));
}

/* A record's payload begins with its bit list: u16 count, then the bits
 * (u16, ascending).  Copies them to bits[] (room for 65,535) and returns
 * the count, or -1 when the payload does not hold one. */
static int payload_bits(const void *payload, size_t len, uint16_t *bits)
{
	uint16_t n;
	if (len < 2)
		return -1;
	memcpy(&n, payload, 2);
	if (len < 2 + 2 * (size_t)n)
		return -1;
	memcpy(bits, (const char *)payload + 2, 2 * (size_t)n);
	return n;
}

static int bits_change(nd_store *st, MDB_txn *txn, uint32_t docid, const uint16_t *bits, int n, int add)
{
	unsigned int id = docid;
	for (int i = 0; i < n; i++) {
		unsigned int b = bits[i];
		MDB_val k = {sizeof(b), &b}, v = {sizeof(id), &id};
		int mrc = add ? mdb_put(txn, st->bits, &k, &v, MDB_NODUPDATA) : mdb_del(txn, st->bits, &k, &v);
		if (mrc && mrc != MDB_KEYEXIST && mrc != MDB_NOTFOUND)
			return mdb_err(st, mrc, add ? "add bit posting" : "remove bit posting");
	}
	return ND_OK;
}

/* Queue a document's bit postings.  Applied at commit in bit order: four
 * or so random inserts per document into one table cost more than all
 * the rest of signing, and sorted they touch each page once. */
static int queue_bits(nd_store_txn *txn, uint32_t docid, const uint16_t *bits, int n, int add)
{
	if (txn->nops + (size_t)n > txn->opcap) {
		size_t cap = (txn->nops + (size_t)n) * 2 + 1024;
		bit_op *p = realloc(txn->ops, cap * sizeof(*p));
		if (!p)
			return nd_error_set(ND_ENOMEM, "out of memory");
		txn->ops = p, txn->opcap = cap;
	}
	for (int i = 0; i < n; i++, txn->nops++)
		txn->ops[txn->nops] = (bit_op){docid, bits[i], (uint16_t)add};
	return ND_OK;
}

/* The near-neighbour section that follows a payload's bit list: u8 trees,
 * u8 rows, then trees * rows u16.  *trees 0 when absent; -1 when
 * malformed. */
static int payload_near(const void *payload, size_t len, unsigned *trees, unsigned *rows,
			const uint8_t **seq)
{
	const uint8_t *p = payload;
	uint16_t n;
	*trees = *rows = 0;
	*seq = NULL;
	if (len < 2)
		return -1;
	memcpy(&n, p, 2);
	size_t at = 2 + 2 * (size_t)n;
	if (len < at + 2)
		return 0;
	*trees = p[at], *rows = p[at + 1];
	if (*rows > ND_STORE_NEAR_MAX_ROWS || (*trees && !*rows) || len < at + 2 + 2 * (size_t)*trees * *rows)
		return -1;
	*seq = p + at + 2;
	return 0;
}

/* Near-neighbour index: keys tree, sequence, docid in memcmp order. */
static int near_key(uint8_t *key, unsigned tree, const uint16_t *seq, unsigned rows, uint32_t docid)
{
	key[0] = (uint8_t)tree;
	for (unsigned r = 0; r < rows; r++)
		key[1 + 2 * r] = (uint8_t)(seq[r] >> 8), key[2 + 2 * r] = (uint8_t)seq[r];
	uint8_t *d = key + 1 + 2 * rows;
	d[0] = (uint8_t)(docid >> 24), d[1] = (uint8_t)(docid >> 16), d[2] = (uint8_t)(docid >> 8), d[3] = (uint8_t)docid;
	return (int)(1 + 2 * rows + 4);
}

static uint32_t near_docid(const MDB_val *k)
{
	const uint8_t *d = (const uint8_t *)k->mv_data + k->mv_size - 4;
	return (uint32_t)d[0] << 24 | (uint32_t)d[1] << 16 | (uint32_t)d[2] << 8 | d[3];
}

/* Whether tree t of a payload's packed sequences has a key: a sequence
 * of nothing but UINT16_MAX is "none" (a document without the words that
 * tree is made of) and is not indexed. */
static int near_has_key(const uint8_t *seq, unsigned t, unsigned rows)
{
	const uint8_t *p = seq + 2 * (size_t)t * rows;
	for (unsigned i = 0; i < 2 * rows; i++)
		if (p[i] != 0xff)
			return 1;
	return 0;
}

/* The key of tree t's entry for docid, from a payload's packed sequences
 * (u16 as stored, rows a tree). */
static int near_key_of(uint8_t *key, const uint8_t *seq, unsigned t, unsigned rows, uint32_t docid)
{
	uint16_t s16[ND_STORE_NEAR_MAX_ROWS];
	memcpy(s16, seq + 2 * (size_t)t * rows, 2 * (size_t)rows);
	return near_key(key, t, s16, rows, docid);
}

static int queue_near(nd_store_txn *txn, uint32_t docid, const void *payload, size_t len, int add)
{
	unsigned trees, rows;
	const uint8_t *seq;
	if (!payload || txn->near_deferred)
		return ND_OK;
	if (payload_near(payload, len, &trees, &rows, &seq) < 0)
		return nd_error_set(add ? ND_EINVAL : ND_ECORRUPT, "store %s: record of document %u has a "
				    "malformed near-neighbour section", txn->st->path, docid);
	if (nd_array_reserve((void **)&txn->nops_v, &txn->nearcap, txn->nnear + trees, sizeof(near_op)) < 0)
		return nd_error_set(ND_ENOMEM, "out of memory");
	for (unsigned t = 0; t < trees; t++) {
		near_op *o = &txn->nops_v[txn->nnear];
		if (!near_has_key(seq, t, rows))
			continue;
		o->len = (uint8_t)near_key_of(o->key, seq, t, rows, docid);
		o->add = (uint8_t)add;
		o->seq = (uint32_t)txn->nnear++;
	}
	return ND_OK;
}

static int cmp_near_op(const void *x, const void *y)
{
	const near_op *a = x, *b = y;
	int c = memcmp(a->key, b->key, a->len < b->len ? a->len : b->len);
	if (c)
		return c;
	if (a->len != b->len)
		return a->len < b->len ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int apply_near(nd_store_txn *txn)
{
	if (txn->nnear > 1)
		qsort(txn->nops_v, txn->nnear, sizeof(near_op), cmp_near_op);
	for (size_t i = 0; i < txn->nnear; i++) {
		near_op *o = &txn->nops_v[i];
		MDB_val k = {o->len, o->key}, v = {0, NULL};
		/* A replaced record's entry in a tree where its key did not move
		 * is removed, then added: it stays, and a put that finds it
		 * writes no page. */
		int keep = !o->add && i + 1 < txn->nnear && o[1].add && o[1].len == o->len &&
			   !memcmp(o[1].key, o->key, o->len);
		int mrc = keep ? mdb_put(txn->txn, txn->st->near, &k, &v, MDB_NOOVERWRITE)
		       : o->add ? mdb_put(txn->txn, txn->st->near, &k, &v, 0)
				: mdb_del(txn->txn, txn->st->near, &k, NULL);
		if (keep && mrc == MDB_KEYEXIST)
			mrc = 0;
		i += keep;
		if (mrc && mrc != MDB_NOTFOUND)
			return mdb_err(txn->st, mrc, o->add || keep ? "add near-neighbour entry" : "remove near-neighbour entry");
	}
	txn->nnear = 0;
	return ND_OK;
}

/* Stable radix sort by bit, two bytes: queue order survives within a bit,
 * so a document's removals still come before its additions, and signing,
 * which queues documents in docid order, appends each bit's postings in
 * order.  Linear, where qsort cost a tenth of signing. */
static int sort_bit_ops(nd_store_txn *txn)
{
	bit_op *tmp = malloc(txn->nops * sizeof(*tmp)), *from = txn->ops, *to = tmp;
	if (!tmp)
		return nd_error_set(ND_ENOMEM, "out of memory");
	for (int shift = 0; shift < 16; shift += 8) {
		size_t start[257] = {0};
		for (size_t i = 0; i < txn->nops; i++)
			start[((from[i].bit >> shift) & 0xff) + 1]++;
		for (int b = 0; b < 256; b++)
			start[b + 1] += start[b];
		for (size_t i = 0; i < txn->nops; i++)
			to[start[(from[i].bit >> shift) & 0xff]++] = from[i];
		bit_op *t = from;
		from = to, to = t;
	}
	free(tmp); /* two passes: the sorted ops are back in txn->ops */
	return ND_OK;
}

static int apply_bits(nd_store_txn *txn)
{
	int rc;
	if (txn->nops > 1 && (rc = sort_bit_ops(txn)) < 0)
		return rc;
	for (size_t i = 0; i < txn->nops; i++) {
		const bit_op *o = &txn->ops[i];
		uint16_t b = (uint16_t)o->bit;
		/* A replaced record that keeps a bit removes its posting, then
		 * adds it: one that is there stays, and asking writes no page. */
		if (!o->add && i + 1 < txn->nops && o[1].add && o[1].bit == o->bit && o[1].docid == o->docid) {
			if ((rc = nd_store_bit_has(txn, b, o->docid)) < 0)
				return rc;
			i++;
			if (rc)
				continue;
		}
		if ((rc = bits_change(txn->st, txn->txn, txn->ops[i].docid, &b, 1, (int)txn->ops[i].add)) < 0)
			return rc;
	}
	txn->nops = 0;
	return ND_OK;
}

static int open_dbis(nd_store *st)
{
	MDB_txn *txn;
	unsigned wflag = st->writable ? MDB_CREATE : 0;
	int mrc;

	if ((mrc = mdb_txn_begin(st->env, NULL, st->writable ? 0 : MDB_RDONLY, &txn)))
		return mdb_err(st, mrc, "begin");
	if ((mrc = mdb_dbi_open(txn, "meta", wflag, &st->meta))) {
		mdb_txn_abort(txn);
		if (mrc == MDB_NOTFOUND || mrc == MDB_INCOMPATIBLE)
			return nd_error_set(ND_ECORRUPT, "store %s: not a neardup store (%s)",
					    st->path, mdb_strerror(mrc));
		return mdb_err(st, mrc, "open tables");
	}
	if ((mrc = mdb_dbi_open(txn, "docs", wflag | MDB_INTEGERKEY, &st->docs)) ||
	    (mrc = mdb_dbi_open(txn, "clusters",
				wflag | MDB_INTEGERKEY | MDB_DUPSORT | MDB_DUPFIXED | MDB_INTEGERDUP,
				&st->clusters)) ||
	    (mrc = mdb_dbi_open(txn, "verified", wflag | MDB_INTEGERKEY, &st->verified)) ||
	    (mrc = mdb_dbi_open(txn, "words", wflag | MDB_INTEGERKEY, &st->words))) {
		mdb_txn_abort(txn);
		if (mrc == MDB_NOTFOUND)
			return nd_error_set(ND_EVERSION, "store %s: written by an older neardup (a table "
					    "is missing); open it for writing or run 'neardup build'",
					    st->path);
		if (mrc == MDB_INCOMPATIBLE)
			return nd_error_set(ND_ECORRUPT, "store %s: not a neardup store (%s)",
					    st->path, mdb_strerror(mrc));
		return mdb_err(st, mrc, "open tables");
	}

	/* Format version: written on creation, checked on every open. */
	MDB_val k = {6, "format"}, v;
	uint32_t fmt = ND_STORE_FORMAT, have = ND_STORE_FORMAT;
	mrc = mdb_get(txn, st->meta, &k, &v);
	if (mrc == MDB_NOTFOUND && st->writable) {
		v.mv_size = sizeof(fmt);
		v.mv_data = &fmt;
		mrc = mdb_put(txn, st->meta, &k, &v, 0);
	} else if (mrc == 0) {
		if (v.mv_size != sizeof(have)) {
			mdb_txn_abort(txn);
			return nd_error_set(ND_ECORRUPT, "store %s: format record is damaged", st->path);
		}
		memcpy(&have, v.mv_data, sizeof(have));
		if (have != ND_STORE_FORMAT) {
			mdb_txn_abort(txn);
			return nd_error_set(ND_EVERSION, "store %s: format %u, this neardup reads format %u"
					    " (it is derived from the database: remove it and run 'neardup "
					    "build' and 'neardup sign')", st->path, have, ND_STORE_FORMAT);
		}
	} else if (mrc == MDB_NOTFOUND) {
		mdb_txn_abort(txn);
		return nd_error_set(ND_ECORRUPT, "store %s: not a neardup store (no format record)",
				    st->path);
	}
	if (mrc) {
		mdb_txn_abort(txn);
		return mdb_err(st, mrc, "format record");
	}
	if (!mrc)
		mrc = mdb_dbi_open(txn, "bits", wflag | MDB_INTEGERKEY | MDB_DUPSORT | MDB_DUPFIXED | MDB_INTEGERDUP,
				   &st->bits);
	if (!mrc)
		mrc = mdb_dbi_open(txn, "near", wflag, &st->near);
	if (!mrc)
		mrc = mdb_dbi_open(txn, "links", wflag | MDB_INTEGERKEY | MDB_DUPSORT | MDB_DUPFIXED | MDB_INTEGERDUP,
				   &st->links);
	if (!mrc)
		mrc = mdb_dbi_open(txn, "journal", wflag | MDB_INTEGERKEY, &st->journal);
	if (mrc) {
		mdb_txn_abort(txn);
		return mdb_err(st, mrc, "open bit postings, near-neighbour index, links and journal");
	}
	/* Added after format 8 without a new format: a store that has none has
	 * no dates, which is what a store without a window means. */
	mrc = mdb_dbi_open(txn, "dates", wflag | MDB_INTEGERKEY, &st->dates);
	if (!mrc)
		mrc = mdb_dbi_open(txn, "bydate", wflag | MDB_INTEGERKEY | MDB_DUPSORT | MDB_DUPFIXED | MDB_INTEGERDUP,
				   &st->bydate);
	st->dated = mrc == 0;
	if (mrc && mrc != MDB_NOTFOUND) {
		mdb_txn_abort(txn);
		return mdb_err(st, mrc, "open dates");
	}
	/* Commit, even read-only: handles opened in an aborted txn are closed. */
	if ((mrc = mdb_txn_commit(txn)))
		return mdb_err(st, mrc, "commit");
	return ND_OK;
}

/* One writer at a time across processes, for the whole time a store is
 * open for writing: LMDB serialises transactions, not runs, and a build
 * interleaved with a sign leaves records of two sets.  flock: released by
 * the kernel when the holder dies. */
static int writer_lock(nd_store *st)
{
	char file[4096], who[64] = "";
	int n = snprintf(file, sizeof(file), "%s/writer.lock", st->path);
	if (n < 0 || (size_t)n >= sizeof(file))
		return nd_error_set(ND_EINVAL, "store %s: path too long", st->path);
	if ((st->lockfd = open(file, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0664)) < 0)
		return nd_error_set(errno == ENOSPC ? ND_EFULL : ND_EIO, "store %s: cannot open its writer "
				    "lock %s: %s", st->path, file, strerror(errno));
	if (flock(st->lockfd, LOCK_EX | LOCK_NB) < 0) {
		int err = errno;
		ssize_t got = pread(st->lockfd, who, sizeof(who) - 1, 0);
		who[got > 0 ? got : 0] = '\0';
		who[strcspn(who, "\n")] = '\0';
		if (err == EWOULDBLOCK)
			return nd_error_set(ND_ELOCKED, "store %s is being written by another process%s%s%s; "
					    "one writer at a time (build, sign, update, hooks): wait for it "
					    "to finish, then run this again", st->path, *who ? " (" : "",
					    who, *who ? ")" : "");
		return nd_error_set(ND_EIO, "store %s: cannot lock %s: %s", st->path, file, strerror(err));
	}
	n = snprintf(who, sizeof(who), "pid %ld\n", (long)getpid());
	/* The holder's pid is only for the message above: a failure to note
	 * it costs nothing. */
	if (ftruncate(st->lockfd, 0) == 0 && pwrite(st->lockfd, who, (size_t)n, 0) != n)
		errno = 0;
	return ND_OK;
}

/* Check the data file before liblmdb maps it: an existing file is never
 * initialised afresh, and a damaged one never followed.  A writer may
 * reuse pages of the newest snapshot while this reads it (this reader is
 * in no reader table yet), so a snapshot is called damaged only when it
 * fails twice.  *txnid gets the snapshot checked. */
static int check_file(const char *file, int walk, uint64_t *txnid)
{
	uint64_t failed = 0;
	for (int tries = 0; tries < 5; tries++) {
		nd__store_pages p;
		int rc = nd__store_pages_check(file, walk, &p);
		*txnid = p.txnid;
		if (rc != ND_ECORRUPT || (tries && p.txnid == failed))
			return rc;
		failed = p.txnid;
	}
	return ND_ECORRUPT;
}

/* The last snapshot known good (the file "verified" beside the data):
 * which data file (device, inode), its size and its modification and
 * change times as they were, and the transaction.  Walking every page
 * costs time and memory in proportion to the store (0.14 s and the whole
 * 533 MiB file resident at 1M documents, for a one-page check); a file
 * unchanged since a walk passed, or since the writer that had walked it
 * committed, is opened after checking its meta pages alone.  Any other
 * write to the file (another program's, a damaged disk's driver) changes
 * its change time, which only the kernel sets, and the next open walks
 * it.  fsck always walks (ND_STORE_CHECK). */
#define MARKER_MAGIC "ndverif1"
typedef struct {
	char magic[8];
	uint64_t dev, ino, size, mtime_s, mtime_ns, ctime_s, ctime_ns, txnid, sum;
} marker;

static uint64_t marker_sum(const marker *m)
{
	uint64_t h = 0x6e6476;
	const uint64_t *w = &m->dev;
	for (int i = 0; i < 8; i++)
		h = (h ^ w[i]) * 0x100000001b3ULL + (h >> 29);
	return h;
}

static void marker_of(marker *m, const struct stat *sb, uint64_t txnid)
{
	memset(m, 0, sizeof(*m));
	memcpy(m->magic, MARKER_MAGIC, 8);
	m->dev = (uint64_t)sb->st_dev, m->ino = (uint64_t)sb->st_ino, m->size = (uint64_t)sb->st_size;
	m->mtime_s = (uint64_t)sb->st_mtim.tv_sec, m->mtime_ns = (uint64_t)sb->st_mtim.tv_nsec;
	m->ctime_s = (uint64_t)sb->st_ctim.tv_sec, m->ctime_ns = (uint64_t)sb->st_ctim.tv_nsec;
	m->txnid = txnid;
	m->sum = marker_sum(m);
}

static int marker_matches(const char *dir, const struct stat *sb, uint64_t txnid)
{
	char file[4096];
	marker have, want;
	int fd, ok = 0;
	snprintf(file, sizeof(file), "%s/verified", dir);
	if ((fd = open(file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0)
		return 0;
	if (pread(fd, &have, sizeof(have), 0) == (ssize_t)sizeof(have)) {
		marker_of(&want, sb, txnid);
		ok = !memcmp(&have, &want, sizeof(have));
	}
	close(fd);
	return ok;
}

/* Best effort: a store this user cannot write keeps an older marker, and
 * opens walk until its writer writes one.  A torn write fails the sum. */
static void marker_write(const char *dir, const struct stat *sb, uint64_t txnid)
{
	char file[4096];
	marker m;
	int fd;
	snprintf(file, sizeof(file), "%s/verified", dir);
	if ((fd = open(file, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0664)) < 0)
		return;
	marker_of(&m, sb, txnid);
	if (pwrite(fd, &m, sizeof(m), 0) != (ssize_t)sizeof(m))
		errno = 0;
	close(fd);
}

int nd__store_mark_verified(const char *dir)
{
	char file[4096];
	struct stat sb;
	uint64_t txnid;
	int rc;
	snprintf(file, sizeof(file), "%s/data.mdb", dir);
	if ((rc = check_file(file, 0, &txnid)) < 0)
		return rc;
	if (stat(file, &sb) < 0)
		return nd_error_set(ND_EIO, "%s: %s", file, strerror(errno));
	marker_write(dir, &sb, txnid);
	return ND_OK;
}

/* After a commit of this store's writer, which opened a good snapshot and
 * let liblmdb write the next: that one is good too. */
static void marker_commit(nd_store *st)
{
	char file[4096];
	struct stat sb;
	MDB_envinfo info;
	snprintf(file, sizeof(file), "%s/data.mdb", st->path);
	if (stat(file, &sb) == 0 && mdb_env_info(st->env, &info) == 0)
		marker_write(st->path, &sb, (uint64_t)info.me_last_txnid);
}

/* Create st->env and open it (st->mapsize, for a writer). */
static int env_open(nd_store *st)
{
	int mrc = mdb_env_create(&st->env);
	if (mrc) {
		st->env = NULL;
		return mrc;
	}
	mdb_env_set_maxdbs(st->env, 11);
	mdb_env_set_maxreaders(st->env, 254);
	if (st->writable)
		mdb_env_set_mapsize(st->env, st->mapsize);
	/* NOTLS: read transactions are not tied to threads, so a reader may
	 * hold one across calls. */
	return mdb_env_open(st->env, st->path, MDB_NOTLS | (st->writable ? 0 : MDB_RDONLY), 0664);
}

int nd__store_give_back(nd_store *st)
{
	if (!st->writable || st->nolock || st->held || __atomic_load_n(&st->readers, __ATOMIC_RELAXED))
		return ND_OK; /* a transaction would outlive its environment */
	mdb_env_close(st->env);
	st->env = NULL;
	int mrc = env_open(st), rc;
	if (mrc) {
		rc = mdb_err(st, mrc, "open again");
		mdb_env_close(st->env); /* NULL-safe; every later use is refused */
		st->env = NULL;
		return rc;
	}
	if ((rc = open_dbis(st)) < 0)
		return rc;
#ifdef __GLIBC__
	malloc_trim(0); /* the pages LMDB kept are free now, most inside the heap */
#endif
	return ND_OK;
}

int nd_store_open(nd_store **out, const char *path, int mode)
{
	nd_store *st;
	struct stat sb;
	char file[4096];
	int mrc, rc, exists;

	*out = NULL;
	if (!(st = calloc(1, sizeof(*st))) || !(st->path = strdup(path))) {
		free(st);
		return nd_error_set(ND_ENOMEM, "out of memory");
	}
	st->lockfd = -1;
	st->writable = (mode & ND_STORE_WRITE) != 0;
	if (stat(path, &sb) < 0) {
		if (errno != ENOENT || !st->writable) {
			rc = nd_error_set(errno == ENOENT ? ND_ENOTFOUND : ND_EIO, "store %s: %s",
					  path, strerror(errno));
			goto fail;
		}
		if (mkdir(path, 0775) < 0) {
			rc = nd_error_set(errno == ENOSPC ? ND_EFULL : ND_EIO, "store %s: cannot create: %s",
					  path, strerror(errno));
			goto fail;
		}
	} else if (!S_ISDIR(sb.st_mode)) {
		rc = nd_error_set(ND_ECORRUPT, "store %s: not a directory", path);
		goto fail;
	}
	int n = snprintf(file, sizeof(file), "%s/data.mdb", path);
	if (n < 0 || (size_t)n >= sizeof(file)) {
		rc = nd_error_set(ND_EINVAL, "store %s: path too long", path);
		goto fail;
	}
	exists = lstat(file, &sb) == 0;
	if (!exists && !st->writable) {
		rc = nd_error_set(ND_ENOTFOUND, "store %s: no store here (run 'neardup build')", path);
		goto fail;
	}
	if (exists && !S_ISREG(sb.st_mode)) {
		rc = nd_error_set(ND_ECORRUPT, "store %s: %s is not a regular file", path, file);
		goto fail;
	}
	if (st->writable && (rc = writer_lock(st)) < 0)
		goto fail;
	if (exists) {
		uint64_t txnid;
		struct stat before, after;
		if ((rc = check_file(file, 0, &txnid)) < 0)
			goto fail;
		if ((mode & ND_STORE_CHECK) || stat(file, &before) < 0 || !marker_matches(path, &before, txnid)) {
			if ((rc = check_file(file, 1, &txnid)) < 0)
				goto fail;
			/* Remembered only when nothing wrote the file meanwhile. */
			if (stat(file, &after) == 0 && !memcmp(&before.st_ctim, &after.st_ctim, sizeof(after.st_ctim)) &&
			    before.st_size == after.st_size)
				marker_write(path, &after, txnid);
		}
	}
	st->mapsize = INITIAL_MAP;
	mrc = env_open(st);
	if (mrc == EACCES && !st->writable && access(file, R_OK) == 0) {
		/* A store this user may read but not write: LMDB cannot open its
		 * lock file, so read without one (no reader slot: a writer of
		 * the owner's may reuse pages under a long read). */
		mdb_env_close(st->env);
		st->env = NULL;
		if ((mrc = mdb_env_create(&st->env)) == 0) {
			mdb_env_set_maxdbs(st->env, 11);
			mrc = mdb_env_open(st->env, path, MDB_NOTLS | MDB_RDONLY | MDB_NOLOCK, 0664);
			st->nolock = mrc == 0;
		}
	}
	if (mrc) {
		if (mrc == ENOENT && !st->writable)
			rc = nd_error_set(ND_ENOTFOUND, "store %s: no store here (run 'neardup build')", path);
		else if (mrc == EACCES || mrc == EPERM)
			rc = nd_error_set(ND_EIO, "store %s: permission denied (%s)", path,
					  st->writable ? "writing needs write access to the directory and its files"
						       : "reading needs read access to data.mdb");
		else
			rc = mdb_err(st, mrc, "open");
		goto fail;
	}
	MDB_envinfo info;
	mdb_env_info(st->env, &info);
	if (info.me_mapsize > st->mapsize)
		st->mapsize = info.me_mapsize;
	if ((rc = open_dbis(st)) < 0)
		goto fail;
	if (st->writable)
		marker_commit(st); /* a new store's first commit */
	*out = st;
	return ND_OK;
fail:
	nd_store_close(st);
	return rc;
}

void nd_store_close(nd_store *st)
{
	if (!st)
		return;
	if (st->held)
		nd_store_commit(st);
	if (st->env)
		mdb_env_close(st->env);
	if (st->lockfd >= 0)
		close(st->lockfd); /* releases the writer lock */
	free(st->path);
	free(st);
}

const char *nd_store_path(const nd_store *st)
{
	return st->path;
}

static int txn_begin(nd_store *st, unsigned flags, MDB_txn **txn)
{
	if (!st->env)
		return nd_error_set(ND_EIO, "store %s: could not be opened again after a large write; "
				    "close it and open it anew", st->path);
	int mrc = mdb_txn_begin(st->env, NULL, flags, txn);
	if (mrc == MDB_MAP_RESIZED) {
		/* Another process grew the map: adopt its size. */
		mdb_env_set_mapsize(st->env, 0);
		mrc = mdb_txn_begin(st->env, NULL, flags, txn);
	}
	return mrc ? mdb_err(st, mrc, "begin transaction") : ND_OK;
}

int nd_store_read_begin(nd_store *st, nd_store_txn **out)
{
	nd_store_txn *t;
	int rc;
	*out = NULL;
	if (!(t = calloc(1, sizeof(*t))))
		return nd_error_set(ND_ENOMEM, "out of memory");
	t->st = st;
	if (st->held && pthread_equal(st->holder, pthread_self())) {
		/* What this handle holds is what it reads. */
		t->txn = st->active ? st->active : st->held;
		t->borrowed = 1;
		*out = t;
		return ND_OK;
	}
	if ((rc = txn_begin(st, MDB_RDONLY, &t->txn)) < 0) {
		free(t);
		return rc;
	}
	__atomic_add_fetch(&st->readers, 1, __ATOMIC_RELAXED);
	*out = t;
	return ND_OK;
}

void nd_store_txn_end(nd_store_txn *txn)
{
	if (!txn)
		return;
	if (!txn->borrowed) {
		mdb_txn_abort(txn->txn);
		__atomic_sub_fetch(&txn->st->readers, 1, __ATOMIC_RELAXED);
	}
	free(txn);
}

#define GEN_NAME "records.gen"

int nd_store_records_gen(nd_store_txn *txn, uint64_t *gen)
{
	const void *v;
	size_t n;
	int rc = nd_store_meta_get(txn, GEN_NAME, &v, &n);
	*gen = 0;
	if (rc == ND_ENOTFOUND)
		return ND_OK;
	if (rc < 0)
		return rc;
	if (n != sizeof(*gen))
		return nd_error_set(ND_ECORRUPT, "store %s: %s record is damaged", txn->st->path, GEN_NAME);
	memcpy(gen, v, n);
	return ND_OK;
}

static int bump_gen(nd_store_txn *txn)
{
	uint64_t gen;
	int rc = nd_store_records_gen(txn, &gen);
	if (rc < 0)
		return rc;
	gen++;
	return nd_store_meta_put(txn, GEN_NAME, &gen, sizeof(gen));
}

int nd_store_write(nd_store *st, nd_store_write_fn fn, void *ctx)
{
	nd_store_txn t = {.st = st};
	const void *mv;
	size_t ml;
	int rc, mrc;

	if (!st->writable)
		return nd_error_set(ND_EINVAL, "store %s: opened read-only", st->path);
	if (st->held && !pthread_equal(st->holder, pthread_self()))
		return nd_error_set(ND_EINVAL, "store %s: another thread holds its writes (nd_store_hold)", st->path);
	if (st->active)
		return nd_error_set(ND_EINVAL, "store %s: a write inside a write", st->path);
	for (;;) {
		int held = st->held != NULL;
		st->map_full = st->txn_full = 0;
		t.nops = 0;
		t.nnear = 0;
		t.changed = 0;
		if (held) {
			if ((mrc = mdb_txn_begin(st->env, st->held, 0, &t.txn)))
				rc = mdb_err(st, mrc, "begin nested transaction");
			else
				rc = ND_OK, st->active = t.txn;
		} else
			rc = txn_begin(st, 0, &t.txn);
		if (rc < 0)
			break;
		t.near_deferred = nd_store_meta_get(&t, NEAR_DEFERRED, &mv, &ml) == ND_OK;
		t.links_rebuild = nd_store_meta_get(&t, LINKS_REBUILD, &mv, &ml) == ND_OK;
		rc = fn(&t, ctx);
		if (rc >= 0)
			rc = apply_bits(&t);
		if (rc >= 0)
			rc = apply_near(&t);
		if (rc >= 0 && t.changed)
			rc = bump_gen(&t);
		if (rc >= 0) {
			mrc = mdb_txn_commit(t.txn); /* nested: into the held one, no sync */
			st->active = NULL;
			rc = mrc ? mdb_err(st, mrc, "commit") : ND_OK;
			if (!mrc) {
				if (!held)
					marker_commit(st);
				break;
			}
		} else {
			mdb_txn_abort(t.txn);
			st->active = NULL;
		}
		/* Run again: after a full map, or a held transaction grown past
		 * what LMDB lets one hold (mdb_err set which). */
		if (!st->map_full && !(held && st->txn_full))
			break;
		if (held) {
			/* What is held is kept, then this write runs again in a
			 * fresh transaction (after the map grows: LMDB resizes
			 * with none open). */
			if ((rc = nd_store_commit(st)) < 0)
				break;
			if (!st->map_full) {
				if ((rc = nd_store_hold(st)) < 0)
					break;
				continue;
			}
		}
		if (st->mapsize >= MAX_MAP) {
			rc = nd_error_set(ND_EFULL, "store %s: map reached %zu bytes", st->path, st->mapsize);
			break;
		}
		st->mapsize *= 2;
		if ((mrc = mdb_env_set_mapsize(st->env, st->mapsize))) {
			rc = mdb_err(st, mrc, "grow map");
			break;
		}
		if (held && (rc = nd_store_hold(st)) < 0)
			break;
	}
	free(t.ops);
	free(t.nops_v);
	return rc;
}

int nd_store_hold(nd_store *st)
{
	if (!st->writable)
		return nd_error_set(ND_EINVAL, "store %s: opened read-only", st->path);
	if (st->held)
		return pthread_equal(st->holder, pthread_self()) ? ND_OK :
			nd_error_set(ND_EINVAL, "store %s: another thread holds its writes", st->path);
	st->holder = pthread_self();
	return txn_begin(st, 0, &st->held);
}

int nd_store_commit(nd_store *st)
{
	MDB_txn *t = st->held;
	int mrc;
	if (!t)
		return ND_OK;
	if (!pthread_equal(st->holder, pthread_self()))
		return nd_error_set(ND_EINVAL, "store %s: another thread holds its writes", st->path);
	st->held = NULL;
	if ((mrc = mdb_txn_commit(t))) {
		char why[512];
		int rc = mdb_err(st, mrc, "commit");
		snprintf(why, sizeof(why), "%s", nd_error_last());
		return nd_error_set(rc, "%s; the writes held since the last commit were not stored ('neardup "
				    "update' applies their documents again)", why);
	}
	marker_commit(st);
	return ND_OK;
}

int nd_store_flush(nd_store_txn *txn)
{
	int rc = apply_bits(txn);
	return rc < 0 ? rc : apply_near(txn);
}

int nd_store_meta_get(nd_store_txn *txn, const char *name, const void **val, size_t *len)
{
	MDB_val k = {strlen(name), (void *)name}, v;
	int mrc = mdb_get(txn->txn, txn->st->meta, &k, &v);
	if (mrc == MDB_NOTFOUND)
		return nd_error_set(ND_ENOTFOUND, "store %s: no '%s' record", txn->st->path, name);
	if (mrc)
		return mdb_err(txn->st, mrc, name);
	*val = v.mv_data;
	*len = v.mv_size;
	return ND_OK;
}

int nd_store_meta_put(nd_store_txn *txn, const char *name, const void *val, size_t len)
{
	MDB_val k = {strlen(name), (void *)name}, v = {len, (void *)val};
	int mrc = mdb_put(txn->txn, txn->st->meta, &k, &v, 0);
	return mrc ? mdb_err(txn->st, mrc, name) : ND_OK;
}

int nd_store_doc_get(nd_store_txn *txn, uint32_t docid, uint64_t *key,
		     const void **payload, size_t *len)
{
	unsigned int id = docid;
	MDB_val k = {sizeof(id), &id}, v;
	/* Records read one by one add up too: a search collapsing 10,000
	 * matches left 689 MB of the map resident at 1M documents.  Read out
	 * of order, each fault maps the pages around its record (64 KB), so
	 * more often than a walk. */
	walked(txn->st, &txn->gets, RELEASE_EVERY / 4);
	int mrc = mdb_get(txn->txn, txn->st->docs, &k, &v);
	if (mrc == MDB_NOTFOUND)
		return nd_error_set(ND_ENOTFOUND, "store %s: no record for document %u",
				    txn->st->path, docid);
	if (mrc)
		return mdb_err(txn->st, mrc, "read document");
	if (v.mv_size < sizeof(uint64_t))
		return nd_error_set(ND_ECORRUPT, "store %s: record of document %u is %zu bytes",
				    txn->st->path, docid, v.mv_size);
	memcpy(key, v.mv_data, sizeof(uint64_t));
	if (payload)
		*payload = (const char *)v.mv_data + sizeof(uint64_t);
	if (len)
		*len = v.mv_size - sizeof(uint64_t);
	return ND_OK;
}

static int journal_note(nd_store_txn *txn, uint32_t docid, int state, const void *old, size_t len);

/* A record changes or goes: its links (both directions) are no longer
 * verdicts about it, and its partners are journaled as touched. */
static int links_drop(nd_store_txn *txn, uint32_t docid)
{
	uint32_t *other = NULL;
	size_t n = 0;
	MDB_stat ms;
	int rc, mrc = mdb_stat(txn->txn, txn->st->links, &ms);
	if (mrc == 0 && ms.ms_entries == 0)
		return ND_OK; /* signing a fresh store: no lookup */
	if ((rc = nd_store_links(txn, docid, &other, &n)) < 0)
		return rc;
	unsigned int id = docid;
	for (size_t i = 0; i < n; i++) {
		unsigned int o = other[i];
		MDB_val k = {sizeof(o), &o}, v = {sizeof(id), &id};
		mrc = mdb_del(txn->txn, txn->st->links, &k, &v);
		if (mrc && mrc != MDB_NOTFOUND) {
			free(other);
			return mdb_err(txn->st, mrc, "drop links");
		}
		if ((rc = journal_note(txn, o, ND_JOURNAL_TOUCHED, NULL, 0)) < 0) {
			free(other);
			return rc;
		}
	}
	free(other);
	MDB_val k = {sizeof(id), &id};
	mrc = n ? mdb_del(txn->txn, txn->st->links, &k, NULL) : 0;
	if (mrc && mrc != MDB_NOTFOUND)
		return mdb_err(txn->st, mrc, "drop links");
	return ND_OK;
}

static int cluster_del(nd_store_txn *txn, uint64_t key, uint32_t docid)
{
	size_t k64 = (size_t)key;
	unsigned int id = docid;
	MDB_val k = {sizeof(k64), &k64}, v = {sizeof(id), &id};
	int mrc = mdb_del(txn->txn, txn->st->clusters, &k, &v);
	if (mrc && mrc != MDB_NOTFOUND)
		return mdb_err(txn->st, mrc, "remove from cluster");
	return ND_OK;
}

static int drop(nd_store_txn *txn, MDB_dbi dbi, void *k, size_t klen)
{
	MDB_val mk = {klen, k};
	MDB_stat ms;
	int mrc = mdb_stat(txn->txn, dbi, &ms);
	if (mrc == 0 && ms.ms_entries == 0)
		return ND_OK; /* signing a fresh store: nothing cached, no lookup */
	mrc = mdb_del(txn->txn, dbi, &mk, NULL);
	if (mrc && mrc != MDB_NOTFOUND)
		return mdb_err(txn->st, mrc, "drop cached value");
	return ND_OK;
}

/* A document's record changes: its cached value and the cached results of
 * the clusters it leaves and joins are no longer true. */
static int invalidate(nd_store_txn *txn, uint32_t docid, uint64_t oldkey, uint64_t newkey)
{
	unsigned int id = docid;
	size_t k1 = (size_t)oldkey, k2 = (size_t)newkey;
	int rc;
	if ((rc = drop(txn, txn->st->words, &id, sizeof(id))) < 0)
		return rc;
	if (oldkey && (rc = drop(txn, txn->st->verified, &k1, sizeof(k1))) < 0)
		return rc;
	if (newkey && newkey != oldkey && (rc = drop(txn, txn->st->verified, &k2, sizeof(k2))) < 0)
		return rc;
	return ND_OK;
}

/* The links are to be made again from all the records (nd_store_links_clear,
 * a first signing, a journal grown too long): nothing is journaled. */
static int links_need_rebuild(nd_store_txn *txn)
{
	uint8_t one = 1;
	int mrc = mdb_drop(txn->txn, txn->st->journal, 0);
	if (mrc)
		return mdb_err(txn->st, mrc, "clear the links' journal");
	txn->links_rebuild = 1;
	return nd_store_meta_put(txn, LINKS_REBUILD, &one, 1);
}

/* The first change of a record since the links were last settled keeps the
 * record as it was (ND_JOURNAL_RECORD and its payload, or ND_JOURNAL_ABSENT),
 * so that settling can tell which pairs of near neighbours the change made
 * or unmade; a document that only lost a link to a changed one is noted
 * ND_JOURNAL_TOUCHED (its component may have split).  old (NULL: no
 * record) is a copy: the put may move pages. */
static int journal_note(nd_store_txn *txn, uint32_t docid, int state, const void *old, size_t len)
{
	unsigned int id = docid;
	MDB_val k = {sizeof(id), &id}, v;
	MDB_stat js, ds;
	int mrc;
	if (txn->links_rebuild)
		return ND_OK;
	mrc = mdb_get(txn->txn, txn->st->journal, &k, &v);
	if (mrc == 0 && !(state != ND_JOURNAL_TOUCHED && v.mv_size && ((uint8_t *)v.mv_data)[0] == ND_JOURNAL_TOUCHED))
		return ND_OK; /* changed before: the older record is the one settled against */
	if (mrc && mrc != MDB_NOTFOUND)
		return mdb_err(txn->st, mrc, "read the links' journal");
	if ((mrc = mdb_stat(txn->txn, txn->st->journal, &js)) || (mrc = mdb_stat(txn->txn, txn->st->docs, &ds)))
		return mdb_err(txn->st, mrc, "stat");
	if (js.ms_entries >= ND_STORE_JOURNAL_MIN && js.ms_entries >= ds.ms_entries / ND_STORE_JOURNAL_SHARE)
		return links_need_rebuild(txn);
	v.mv_size = 1 + len, v.mv_data = NULL;
	if ((mrc = mdb_put(txn->txn, txn->st->journal, &k, &v, MDB_RESERVE)))
		return mdb_err(txn->st, mrc, "write the links' journal");
	((uint8_t *)v.mv_data)[0] = (uint8_t)state;
	if (len)
		memcpy((uint8_t *)v.mv_data + 1, old, len);
	return ND_OK;
}

/* The bits of docid's current record into *bits (NULL, 0 if none; the
 * copy outlives the writes that follow), its near-neighbour entries
 * queued for removal, and the record journaled for the links. */
static int old_record(nd_store_txn *txn, uint32_t docid, uint64_t *key, uint16_t **bits, int *n)
{
	const void *pay;
	size_t len;
	int rc = nd_store_doc_get(txn, docid, key, &pay, &len);
	*bits = NULL;
	*n = 0;
	/* Its near-neighbour entries go too (copied into the queue before
	 * any write can move the record). */
	if (rc < 0 || (rc = queue_near(txn, docid, pay, len, 0)) < 0)
		return rc;
	uint8_t *copy = malloc(len + 1);
	if (!copy || !(*bits = malloc(len + 2))) {
		free(copy);
		return nd_error_set(ND_ENOMEM, "out of memory");
	}
	memcpy(copy, pay, len);
	if ((rc = journal_note(txn, docid, ND_JOURNAL_RECORD, copy, len)) == ND_OK && (*n = payload_bits(copy, len, *bits)) < 0)
		rc = nd_error_set(ND_ECORRUPT, "store %s: record of document %u has no bit list",
				  txn->st->path, docid);
	free(copy);
	if (rc < 0) {
		free(*bits);
		*bits = NULL;
		*n = 0;
	}
	return rc;
}

int nd_store_doc_put(nd_store_txn *txn, uint32_t docid, uint64_t key,
		     const void *payload, size_t len)
{
	uint64_t old;
	uint16_t *obits = NULL, *nbits = NULL;
	int on = 0, nn, rc, mrc, existed;

	txn->changed = 1;

	if (!(nbits = malloc(len + 2)))
		return nd_error_set(ND_ENOMEM, "out of memory");
	if ((nn = payload_bits(payload, len, nbits)) < 0) {
		free(nbits);
		return nd_error_set(ND_EINVAL, "store %s: record of document %u must begin with its bit list",
				    txn->st->path, docid);
	}
	rc = old_record(txn, docid, &old, &obits, &on);
	existed = rc == ND_OK;
	if (rc == ND_OK) {
		if (old && old != key && (rc = cluster_del(txn, old, docid)) < 0)
			goto out;
	} else if (rc == ND_ENOTFOUND) {
		old = 0;
		if ((rc = journal_note(txn, docid, ND_JOURNAL_ABSENT, NULL, 0)) < 0)
			goto out;
	} else
		goto out;
	if ((rc = queue_near(txn, docid, payload, len, 1)) < 0)
		goto out;
	if ((rc = links_drop(txn, docid)) < 0 || (rc = invalidate(txn, docid, old, key)) < 0 ||
	    (rc = queue_bits(txn, docid, obits, on, 0)) < 0 ||
	    (rc = queue_bits(txn, docid, nbits, nn, 1)) < 0)
		goto out;

	unsigned int id = docid;
	MDB_val k = {sizeof(id), &id}, v = {sizeof(uint64_t) + len, NULL};
	/* A new docid is most often past the last (signing in docid order, an
	 * indexer adding): appended, LMDB fills the last page before it starts
	 * the next, where an ordinary put splits it in half, which leaves
	 * records of 1-2 KB one to a 4 KB page.  A docid before the last is
	 * refused (MDB_KEYEXIST) and put the ordinary way. */
	mrc = existed ? MDB_KEYEXIST : mdb_put(txn->txn, txn->st->docs, &k, &v, MDB_RESERVE | MDB_APPEND);
	if (mrc == MDB_KEYEXIST)
		mrc = mdb_put(txn->txn, txn->st->docs, &k, &v, MDB_RESERVE);
	if (mrc) {
		rc = mdb_err(txn->st, mrc, "write document");
		goto out;
	}
	memcpy(v.mv_data, &key, sizeof(key));
	if (len)
		memcpy((char *)v.mv_data + sizeof(key), payload, len);
	if (key) {
		size_t k64 = (size_t)key;
		MDB_val ck = {sizeof(k64), &k64}, cv = {sizeof(id), &id};
		mrc = mdb_put(txn->txn, txn->st->clusters, &ck, &cv, MDB_NODUPDATA);
		if (mrc && mrc != MDB_KEYEXIST) {
			rc = mdb_err(txn->st, mrc, "add to cluster");
			goto out;
		}
	}
	rc = ND_OK;
out:
	free(obits);
	free(nbits);
	return rc;
}

/* A document's date, both ways: dates (docid -> date) and bydate (date ->
 * docids), which expiry walks from its oldest end. */
static int date_drop(nd_store_txn *txn, uint32_t docid)
{
	unsigned int id = docid;
	MDB_val k = {sizeof(id), &id}, v;
	size_t date;
	int mrc;
	if (!txn->st->dated)
		return ND_OK;
	if ((mrc = mdb_get(txn->txn, txn->st->dates, &k, &v)) == MDB_NOTFOUND)
		return ND_OK;
	if (mrc)
		return mdb_err(txn->st, mrc, "read date");
	if (v.mv_size != sizeof(date))
		return nd_error_set(ND_ECORRUPT, "store %s: date of document %u is damaged", txn->st->path, docid);
	memcpy(&date, v.mv_data, sizeof(date));
	MDB_val dk = {sizeof(date), &date}, dv = {sizeof(id), &id};
	if ((mrc = mdb_del(txn->txn, txn->st->dates, &k, NULL)) ||
	    ((mrc = mdb_del(txn->txn, txn->st->bydate, &dk, &dv)) && mrc != MDB_NOTFOUND))
		return mdb_err(txn->st, mrc, "delete date");
	return ND_OK;
}

int nd_store_date_put(nd_store_txn *txn, uint32_t docid, uint64_t date)
{
	unsigned int id = docid;
	size_t d = (size_t)date;
	int rc, mrc;
	if (!txn->st->dated)
		return nd_error_set(ND_EINVAL, "store %s: opened for reading; dates are written by a writer",
				    txn->st->path);
	if ((rc = date_drop(txn, docid)) < 0)
		return rc;
	MDB_val k = {sizeof(id), &id}, v = {sizeof(d), &d}, dk = {sizeof(d), &d}, dv = {sizeof(id), &id};
	if ((mrc = mdb_put(txn->txn, txn->st->dates, &k, &v, 0)) ||
	    (mrc = mdb_put(txn->txn, txn->st->bydate, &dk, &dv, 0)))
		return mdb_err(txn->st, mrc, "write date");
	return ND_OK;
}

int nd_store_date_del(nd_store_txn *txn, uint32_t docid)
{
	return date_drop(txn, docid);
}

int nd_store_date_get(nd_store_txn *txn, uint32_t docid, uint64_t *date)
{
	unsigned int id = docid;
	MDB_val k = {sizeof(id), &id}, v;
	size_t d;
	int mrc;
	if (!txn->st->dated)
		return ND_ENOTFOUND;
	if ((mrc = mdb_get(txn->txn, txn->st->dates, &k, &v)) == MDB_NOTFOUND)
		return ND_ENOTFOUND;
	if (mrc)
		return mdb_err(txn->st, mrc, "read date");
	if (v.mv_size != sizeof(d))
		return nd_error_set(ND_ECORRUPT, "store %s: date of document %u is damaged", txn->st->path, docid);
	memcpy(&d, v.mv_data, sizeof(d));
	*date = d;
	return ND_OK;
}

int nd_store_dates_each(nd_store_txn *txn, int newest_first, nd_store_date_fn fn, void *ctx)
{
	MDB_cursor *cur;
	MDB_val k, v;
	int mrc, rc = 0;
	if (!txn->st->dated)
		return ND_OK;
	if ((mrc = mdb_cursor_open(txn->txn, txn->st->bydate, &cur)))
		return mdb_err(txn->st, mrc, "cursor");
	MDB_cursor_op first = newest_first ? MDB_LAST : MDB_FIRST, next = newest_first ? MDB_PREV : MDB_NEXT;
	for (mrc = mdb_cursor_get(cur, &k, &v, first); !mrc && !rc; mrc = mdb_cursor_get(cur, &k, &v, next)) {
		size_t d;
		unsigned int id;
		if (k.mv_size != sizeof(d) || v.mv_size != sizeof(id)) {
			mrc = MDB_CORRUPTED;
			break;
		}
		memcpy(&d, k.mv_data, sizeof(d));
		memcpy(&id, v.mv_data, sizeof(id));
		rc = fn(id, d, ctx);
	}
	mdb_cursor_close(cur);
	if (mrc && mrc != MDB_NOTFOUND)
		return mdb_err(txn->st, mrc, "read dates");
	return rc;
}

int nd_store_dates_clear(nd_store_txn *txn)
{
	int mrc;
	if (!txn->st->dated)
		return ND_OK;
	if ((mrc = mdb_drop(txn->txn, txn->st->dates, 0)) || (mrc = mdb_drop(txn->txn, txn->st->bydate, 0)))
		return mdb_err(txn->st, mrc, "clear dates");
	return ND_OK;
}

int nd_store_dates_count(nd_store_txn *txn, uint64_t *n)
{
	MDB_stat s;
	int mrc;
	*n = 0;
	if (!txn->st->dated)
		return ND_OK;
	if ((mrc = mdb_stat(txn->txn, txn->st->dates, &s)))
		return mdb_err(txn->st, mrc, "stat");
	*n = s.ms_entries;
	return ND_OK;
}

/* Notes live in the meta table, one key a document. */
static void note_name(char *buf, size_t cap, uint32_t docid)
{
	snprintf(buf, cap, "note/%08x", (unsigned)docid);
}

static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	return (a > b) - (a < b);
}

/* A group's members live in the meta table too: u32 docids, ascending. */
static void group_name(char *buf, size_t cap, uint64_t group)
{
	snprintf(buf, cap, "group/%016llx", (unsigned long long)group);
}

/* docid out of group's list, when the store lists that group and it is
 * there; the list dropped with its last member. */
static int group_leave(nd_store_txn *txn, uint64_t group, uint32_t docid)
{
	char name[32];
	MDB_val k, v;
	group_name(name, sizeof(name), group);
	k.mv_size = strlen(name), k.mv_data = name;
	int mrc = mdb_get(txn->txn, txn->st->meta, &k, &v);
	if (mrc == MDB_NOTFOUND)
		return ND_OK; /* a site read from the database: no list */
	if (mrc)
		return mdb_err(txn->st, mrc, "read a group's members");
	size_t n = v.mv_size / 4, i = 0;
	uint32_t x;
	while (i < n && (memcpy(&x, (const uint8_t *)v.mv_data + 4 * i, 4), x != docid))
		i++;
	if (i == n)
		return ND_OK;
	if (n == 1) {
		mrc = mdb_del(txn->txn, txn->st->meta, &k, NULL);
		return mrc ? mdb_err(txn->st, mrc, "drop a group") : ND_OK;
	}
	uint8_t *rest = malloc(4 * (n - 1));
	if (!rest)
		return nd_error_set(ND_ENOMEM, "out of memory");
	memcpy(rest, v.mv_data, 4 * i);
	memcpy(rest + 4 * i, (const uint8_t *)v.mv_data + 4 * (i + 1), 4 * (n - i - 1));
	int rc = nd_store_meta_put(txn, name, rest, 4 * (n - 1));
	free(rest);
	return rc;
}

int nd__store_note_put(nd_store_txn *txn, uint32_t docid, uint64_t note)
{
	char name[24];
	uint64_t old = 0;
	int rc = nd__store_note_get(txn, docid, &old);
	if (rc == ND_OK && old == note)
		return ND_OK; /* as it was: a hook's page is noted more than once */
	if (rc == ND_OK && (rc = group_leave(txn, old, docid)) < 0)
		return rc;
	if (rc < 0 && rc != ND_ENOTFOUND)
		return rc;
	note_name(name, sizeof(name), docid);
	return nd_store_meta_put(txn, name, &note, sizeof(note));
}

int nd__store_note_get(nd_store_txn *txn, uint32_t docid, uint64_t *note)
{
	char name[24];
	MDB_val k, v;
	note_name(name, sizeof(name), docid);
	k.mv_size = strlen(name), k.mv_data = name;
	int mrc = mdb_get(txn->txn, txn->st->meta, &k, &v);
	if (mrc == MDB_NOTFOUND || (!mrc && v.mv_size != sizeof(*note)))
		return ND_ENOTFOUND; /* most documents have none: no message */
	if (mrc)
		return mdb_err(txn->st, mrc, "read a document's note");
	memcpy(note, v.mv_data, sizeof(*note));
	return ND_OK;
}

int nd__store_note_del(nd_store_txn *txn, uint32_t docid)
{
	char name[24];
	MDB_val k;
	uint64_t old = 0;
	int rc = nd__store_note_get(txn, docid, &old);
	if (rc == ND_ENOTFOUND)
		return ND_OK;
	if (rc < 0 || (rc = group_leave(txn, old, docid)) < 0)
		return rc;
	note_name(name, sizeof(name), docid);
	k.mv_size = strlen(name), k.mv_data = name;
	int mrc = mdb_del(txn->txn, txn->st->meta, &k, NULL);
	return mrc && mrc != MDB_NOTFOUND ? mdb_err(txn->st, mrc, "drop a document's note") : ND_OK;
}

int nd__store_group_join(nd_store_txn *txn, uint32_t docid, uint64_t group, size_t max, uint32_t **members,
			 size_t *n)
{
	char name[32];
	MDB_val k, v;
	int rc = nd__store_note_put(txn, docid, group);
	*members = NULL, *n = 0;
	if (rc < 0)
		return rc;
	group_name(name, sizeof(name), group);
	k.mv_size = strlen(name), k.mv_data = name;
	int mrc = mdb_get(txn->txn, txn->st->meta, &k, &v);
	if (mrc && mrc != MDB_NOTFOUND)
		return mdb_err(txn->st, mrc, "read a group's members");
	size_t had = mrc ? 0 : v.mv_size / 4, m = had;
	uint32_t *d = malloc((had + 1) * sizeof(*d));
	if (!d)
		return nd_error_set(ND_ENOMEM, "out of memory");
	if (had)
		memcpy(d, v.mv_data, 4 * had);
	int in = 0, sorted = 1;
	for (size_t i = 0; i < had; i++)
		in |= d[i] == docid, sorted &= !i || d[i] > d[i - 1];
	if (in && sorted && m <= max) { /* a member already: nothing to write */
		*members = d, *n = m;
		return ND_OK;
	}
	if (!in)
		d[m++] = docid;
	if (!sorted || (m > 1 && d[m - 1] < d[m - 2])) { /* ascending, once (a damaged list mended) */
		size_t u = 1;
		qsort(d, m, sizeof(*d), cmp_u32);
		for (size_t j = 1; j < m; j++)
			if (d[j] != d[u - 1])
				d[u++] = d[j];
		m = u;
	}
	if (m > max) { /* the latest */
		memmove(d, d + m - max, max * sizeof(*d));
		m = max;
	}
	if ((rc = nd_store_meta_put(txn, name, d, 4 * m)) < 0) {
		free(d);
		return rc;
	}
	*members = d, *n = m;
	return ND_OK;
}

int nd_store_doc_del(nd_store_txn *txn, uint32_t docid)
{
	uint64_t old;
	uint16_t *obits;
	int on, rc, mrc;
	txn->changed = 1;
	if ((rc = old_record(txn, docid, &old, &obits, &on)) < 0)
		return rc;
	if ((old && (rc = cluster_del(txn, old, docid)) < 0) || (rc = links_drop(txn, docid)) < 0 ||
	    (rc = invalidate(txn, docid, old, 0)) < 0 ||
	    (rc = queue_bits(txn, docid, obits, on, 0)) < 0) {
		free(obits);
		return rc;
	}
	free(obits);
	unsigned int id = docid;
	MDB_val k = {sizeof(id), &id};
	if ((mrc = mdb_del(txn->txn, txn->st->docs, &k, NULL)))
		return mdb_err(txn->st, mrc, "delete document");
	return (rc = date_drop(txn, docid)) < 0 ? rc : nd__store_note_del(txn, docid);
}

static int cache_get(nd_store_txn *txn, MDB_dbi dbi, void *k, size_t klen, const void **val, size_t *len)
{
	MDB_val mk = {klen, k}, v;
	int mrc = mdb_get(txn->txn, dbi, &mk, &v);
	if (mrc == MDB_NOTFOUND)
		return ND_ENOTFOUND; /* a cache miss is not an error worth a message */
	if (mrc)
		return mdb_err(txn->st, mrc, "read cached value");
	*val = v.mv_data;
	*len = v.mv_size;
	return ND_OK;
}

static int cache_put(nd_store_txn *txn, MDB_dbi dbi, void *k, size_t klen, const void *val, size_t len)
{
	MDB_val mk = {klen, k}, v = {len, (void *)val};
	int mrc = mdb_put(txn->txn, dbi, &mk, &v, 0);
	return mrc ? mdb_err(txn->st, mrc, "write cached value") : ND_OK;
}

int nd_store_cluster_cache_get(nd_store_txn *txn, uint64_t key, const void **val, size_t *len)
{
	size_t k = (size_t)key;
	return cache_get(txn, txn->st->verified, &k, sizeof(k), val, len);
}

int nd_store_cluster_cache_put(nd_store_txn *txn, uint64_t key, const void *val, size_t len)
{
	size_t k = (size_t)key;
	return cache_put(txn, txn->st->verified, &k, sizeof(k), val, len);
}

int nd_store_doc_cache_get(nd_store_txn *txn, uint32_t docid, const void **val, size_t *len)
{
	unsigned int k = docid;
	return cache_get(txn, txn->st->words, &k, sizeof(k), val, len);
}

int nd_store_doc_cache_put(nd_store_txn *txn, uint32_t docid, const void *val, size_t len)
{
	unsigned int k = docid;
	return cache_put(txn, txn->st->words, &k, sizeof(k), val, len);
}

/* A table with overflow pages (the records') is dropped by reading every
 * leaf page: at a million documents the drops left 1 GB of the map
 * resident.  A thread releases the map while they run. */
typedef struct {
	nd_store *st;
	int stop;
} map_releaser;

static void *release_map_loop(void *arg)
{
	map_releaser *r = arg;
	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		nd__store_release_pages(r->st);
		struct timespec ts = {0, 20 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	return NULL;
}

int nd_store_clear(nd_store_txn *txn)
{
	nd_store *st = txn->st;
	MDB_dbi all[] = {st->docs, st->clusters, st->verified, st->words, st->bits, st->near, st->links};
	map_releaser r = {st, 0};
	pthread_t tid;
	int mrc = 0, started = pthread_create(&tid, NULL, release_map_loop, &r) == 0; /* else: memory only */
	txn->changed = 1;
	for (size_t i = 0; i < sizeof(all) / sizeof(*all) && !mrc; i++)
		mrc = mdb_drop(txn->txn, all[i], 0);
	if (started) {
		__atomic_store_n(&r.stop, 1, __ATOMIC_RELEASE);
		pthread_join(tid, NULL);
	}
	if (mrc)
		return mdb_err(txn->st, mrc, "clear");
	txn->nops = txn->nnear = 0; /* queued for records just dropped */
	return nd_store_links_settled(txn); /* no records, no links */
}

typedef struct {
	uint32_t docid;
	uint64_t date;
} dated_doc;

typedef struct {
	dated_doc *v;
	size_t n, cap;
} dated_docs;

static int collect_date(uint32_t docid, uint64_t date, void *ctx)
{
	dated_docs *c = ctx;
	int rc = nd_array_reserve((void **)&c->v, &c->cap, c->n + 1, sizeof(*c->v));
	if (rc < 0)
		return rc;
	c->v[c->n++] = (dated_doc){docid, date};
	return 0;
}

uint32_t nd__renumber(const nd__renumbering *r, uint32_t docid)
{
	if (!r->from)
		return docid > r->shift ? docid - r->shift : 0;
	size_t lo = 0, hi = r->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r->from[mid] < docid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->n && r->from[lo] == docid ? r->to[lo] : 0;
}

int nd__renumbering_moves(const nd__renumbering *r)
{
	return r->shift || r->n;
}

uint32_t nd__renumbering_most(const nd__renumbering *r)
{
	uint32_t most = r->shift;
	for (size_t i = 0; i < r->n; i++)
		if (r->from[i] - r->to[i] > most)
			most = r->from[i] - r->to[i];
	return most;
}

void nd__renumbering_clear(nd__renumbering *r)
{
	free(r->from);
	free(r->to);
	memset(r, 0, sizeof(*r));
}

/* The meta entries under prefix read, dropped and written again moved
 * with the documents (all read before any is written: a moved key may be
 * one not yet moved): notes' keys (by_key, "note/DOCID"), or groups'
 * values (their members' docids). */
static int move_meta(nd_store_txn *txn, const char *prefix, int by_key, const nd__renumbering *r)
{
	nd_store *st = txn->st;
	size_t plen = strlen(prefix), n = 0, cap = 0;
	struct kept {
		char key[32];
		uint8_t *val;
		size_t len;
	} *v = NULL;
	MDB_cursor *cur;
	MDB_val k = {plen, (void *)prefix}, d;
	int mrc, rc = ND_OK;
	if ((mrc = mdb_cursor_open(txn->txn, st->meta, &cur)))
		return mdb_err(st, mrc, "cursor");
	for (mrc = mdb_cursor_get(cur, &k, &d, MDB_SET_RANGE); !mrc && rc == ND_OK;
	     mrc = mdb_cursor_get(cur, &k, &d, MDB_NEXT)) {
		if (k.mv_size < plen || memcmp(k.mv_data, prefix, plen))
			break;
		if (k.mv_size >= sizeof(v->key)) {
			rc = nd_error_set(ND_ECORRUPT, "store %s: a meta key of %zu bytes", st->path, k.mv_size);
			break;
		}
		if ((rc = nd_array_reserve((void **)&v, &cap, n + 1, sizeof(*v))) < 0)
			break;
		struct kept *e = &v[n];
		memcpy(e->key, k.mv_data, k.mv_size);
		e->key[k.mv_size] = '\0';
		e->len = d.mv_size;
		if (!(e->val = malloc(d.mv_size ? d.mv_size : 1))) {
			rc = nd_error_set(ND_ENOMEM, "out of memory");
			break;
		}
		memcpy(e->val, d.mv_data, d.mv_size);
		n++;
	}
	mdb_cursor_close(cur);
	if (rc == ND_OK && mrc && mrc != MDB_NOTFOUND)
		rc = mdb_err(st, mrc, "read notes");
	for (size_t i = 0; i < n && rc == ND_OK; i++) {
		MDB_val key = {strlen(v[i].key), v[i].key};
		if ((mrc = mdb_del(txn->txn, st->meta, &key, NULL)))
			rc = mdb_err(st, mrc, "drop a note");
	}
	for (size_t i = 0; i < n && rc == ND_OK; i++) {
		if (by_key) {
			uint32_t id = nd__renumber(r, (uint32_t)strtoul(v[i].key + plen, NULL, 16));
			if (id) {
				note_name(v[i].key, sizeof(v[i].key), id);
				rc = nd_store_meta_put(txn, v[i].key, v[i].val, v[i].len);
			}
			continue;
		}
		size_t m = 0;
		for (size_t j = 0; j + 4 <= v[i].len; j += 4) {
			uint32_t x;
			memcpy(&x, v[i].val + j, 4);
			if ((x = nd__renumber(r, x)))
				memcpy(v[i].val + 4 * m++, &x, 4);
		}
		if (m)
			rc = nd_store_meta_put(txn, v[i].key, v[i].val, 4 * m);
	}
	for (size_t i = 0; i < n; i++)
		free(v[i].val);
	free(v);
	return rc;
}

int nd__store_move_kept(nd_store_txn *txn, const nd__renumbering *r)
{
	dated_docs c = {NULL, 0, 0};
	int rc = ND_OK, moves = nd__renumbering_moves(r);
	txn->changed = 1;
	if (moves && (rc = nd_store_dates_each(txn, 0, collect_date, &c)) == ND_OK &&
	    (rc = nd_store_dates_clear(txn)) == ND_OK)
		for (size_t i = 0; i < c.n && rc == ND_OK; i++) {
			uint32_t id = nd__renumber(r, c.v[i].docid);
			if (id)
				rc = nd_store_date_put(txn, id, c.v[i].date);
		}
	free(c.v);
	if (moves && rc == ND_OK && (rc = move_meta(txn, "note/", 1, r)) == ND_OK)
		rc = move_meta(txn, "group/", 0, r);
	return rc;
}

typedef struct {
	uint32_t *v;
	size_t n, cap;
} docid_list;

static int add_docid(uint32_t docid, uint64_t key, const void *payload, size_t len, void *ctx)
{
	docid_list *l = ctx;
	void *p = l->v;
	(void)key, (void)payload, (void)len;
	if (nd_array_reserve(&p, &l->cap, l->n + 1, sizeof(*l->v)) < 0)
		return nd_error_set(ND_ENOMEM, "out of memory listing %zu documents", l->n);
	l->v = p;
	l->v[l->n++] = docid;
	return 0;
}

int nd__store_docids(nd_store_txn *txn, uint32_t **out, size_t *n)
{
	docid_list l = {NULL, 0, 0};
	int rc = nd_store_docs_each(txn, add_docid, &l);
	if (rc < 0) {
		free(l.v);
		l.v = NULL, l.n = 0;
	}
	*out = l.v, *n = l.n;
	return rc < 0 ? rc : ND_OK;
}

int nd__store_last_doc(nd_store_txn *txn, uint32_t *docid)
{
	MDB_cursor *cur;
	MDB_val k, v;
	int mrc;
	*docid = 0;
	if ((mrc = mdb_cursor_open(txn->txn, txn->st->docs, &cur)))
		return mdb_err(txn->st, mrc, "cursor");
	mrc = mdb_cursor_get(cur, &k, &v, MDB_LAST);
	mdb_cursor_close(cur);
	if (mrc == MDB_NOTFOUND)
		return ND_OK;
	if (mrc)
		return mdb_err(txn->st, mrc, "last document");
	if (k.mv_size != sizeof(unsigned int))
		return nd_error_set(ND_ECORRUPT, "store %s: a document key of %zu bytes", txn->st->path, k.mv_size);
	unsigned int id;
	memcpy(&id, k.mv_data, sizeof(id));
	*docid = id;
	return ND_OK;
}

int nd_store_counts(nd_store_txn *txn, uint64_t *docs, uint64_t *keys)
{
	MDB_stat s;
	int mrc;
	if (docs) {
		if ((mrc = mdb_stat(txn->txn, txn->st->docs, &s)))
			return mdb_err(txn->st, mrc, "stat");
		*docs = s.ms_entries;
	}
	if (keys) {
		/* ms_entries counts duplicates; count distinct keys with a cursor. */
		nd_store_keys *it;
		uint64_t key;
		size_t n;
		int rc, got;
		*keys = 0;
		if ((rc = nd_store_keys_open(txn, &it)) < 0)
			return rc;
		while ((got = nd_store_keys_next(it, &key, &n)) == 1)
			(*keys)++;
		nd_store_keys_free(it);
		if (got < 0)
			return got;
	}
	return ND_OK;
}

/* Every value under k in a DUPFIXED table of unsigned ints, ascending. */
static int dup_list(nd_store_txn *txn, MDB_dbi dbi, MDB_val *k, uint32_t **out, size_t *n, const char *what)
{
	MDB_cursor *cur;
	MDB_val v;
	size_t cnt = 0;
	uint32_t *ids = NULL;
	int mrc;

	*out = NULL;
	*n = 0;
	if ((mrc = mdb_cursor_open(txn->txn, dbi, &cur)))
		return mdb_err(txn->st, mrc, "cursor");
	mrc = mdb_cursor_get(cur, k, &v, MDB_SET);
	if (mrc == MDB_NOTFOUND) {
		mdb_cursor_close(cur);
		return ND_OK;
	}
	if (!mrc && !(mrc = mdb_cursor_count(cur, &cnt))) {
		if (!(ids = malloc(cnt * sizeof(*ids)))) {
			mdb_cursor_close(cur);
			return nd_error_set(ND_ENOMEM, "out of memory");
		}
		/* DUPFIXED: fetch the sorted docids a page at a time. */
		size_t got = 0;
		mrc = mdb_cursor_get(cur, k, &v, MDB_GET_MULTIPLE);
		while (!mrc) {
			size_t m = v.mv_size / sizeof(unsigned int);
			if (got + m > cnt) {
				mrc = MDB_CORRUPTED;
				break;
			}
			memcpy(ids + got, v.mv_data, m * sizeof(unsigned int));
			got += m;
			mrc = mdb_cursor_get(cur, k, &v, MDB_NEXT_MULTIPLE);
		}
		if (mrc == MDB_NOTFOUND && got == cnt)
			mrc = 0;
		else if (!mrc)
			mrc = MDB_CORRUPTED;
	}
	mdb_cursor_close(cur);
	if (mrc) {
		free(ids);
		return mdb_err(txn->st, mrc, what);
	}
	*out = ids;
	*n = cnt;
	return ND_OK;
}

int nd_store_key_docs(nd_store_txn *txn, uint64_t key, uint32_t **out, size_t *n)
{
	size_t k64 = (size_t)key;
	MDB_val k = {sizeof(k64), &k64};
	return dup_list(txn, txn->st->clusters, &k, out, n, "read cluster");
}


int nd_store_bit_docs(nd_store_txn *txn, uint16_t bit, uint32_t **out, size_t *n)
{
	unsigned int b = bit;
	MDB_val k = {sizeof(b), &b};
	*out = NULL;
	*n = 0;
	return dup_list(txn, txn->st->bits, &k, out, n, "read bit postings");
}

int nd_store_bit_count(nd_store_txn *txn, uint16_t bit, size_t *n)
{
	unsigned int b = bit;
	MDB_val k = {sizeof(b), &b}, v;
	MDB_cursor *cur;
	int mrc;
	*n = 0;
	if ((mrc = mdb_cursor_open(txn->txn, txn->st->bits, &cur)))
		return mdb_err(txn->st, mrc, "cursor");
	mrc = mdb_cursor_get(cur, &k, &v, MDB_SET);
	if (!mrc)
		mrc = mdb_cursor_count(cur, n);
	mdb_cursor_close(cur);
	return mrc && mrc != MDB_NOTFOUND ? mdb_err(txn->st, mrc, "count bit postings") : ND_OK;
}

int nd_store_bit_has(nd_store_txn *txn, uint16_t bit, uint32_t docid)
{
	unsigned int b = bit, id = docid;
	MDB_val k = {sizeof(b), &b}, v = {sizeof(id), &id};
	MDB_cursor *cur;
	int mrc;
	if ((mrc = mdb_cursor_open(txn->txn, txn->st->bits, &cur)))
		return mdb_err(txn->st, mrc, "cursor");
	mrc = mdb_cursor_get(cur, &k, &v, MDB_GET_BOTH);
	mdb_cursor_close(cur);
	if (mrc == MDB_NOTFOUND)
		return 0;
	return mrc ? mdb_err(txn->st, mrc, "read bit postings") : 1;
}

int nd_store_bit_postings(nd_store_txn *txn, uint64_t *n)
{
	MDB_stat s;
	int mrc;
	*n = 0;
	if ((mrc = mdb_stat(txn->txn, txn->st->bits, &s)))
		return mdb_err(txn->st, mrc, "stat");
	*n = s.ms_entries;
	return ND_OK;
}

int nd_store_keys_open(nd_store_txn *txn, nd_store_keys **out)
{
	nd_store_keys *it = calloc(1, sizeof(*it));
	int mrc;
	*out = NULL;
	if (!it)
		return nd_error_set(ND_ENOMEM, "out of memory");
	if ((mrc = mdb_cursor_open(txn->txn, txn->st->clusters, &it->cur))) {
		free(it);
		return mdb_err(txn->st, mrc, "cursor");
	}
	it->st = txn->st;
	*out = it;
	return ND_OK;
}

int nd_store_keys_next(nd_store_keys *it, uint64_t *key, size_t *count)
{
	MDB_val k, v;
	int mrc = mdb_cursor_get(it->cur, &k, &v, it->started ? MDB_NEXT_NODUP : MDB_FIRST);
	it->started = 1;
	/* A caller reads each cluster's members (fsck: 2.1 GB of the map
	 * resident by the end at 1M documents): released as for walks. */
	walked(it->st, &it->seen, RELEASE_EVERY);
	if (mrc == MDB_NOTFOUND)
		return 0;
	if (!mrc && k.mv_size != sizeof(size_t))
		mrc = MDB_CORRUPTED;
	if (!mrc) {
		size_t k64;
		memcpy(&k64, k.mv_data, sizeof(k64));
		*key = k64;
		mrc = mdb_cursor_count(it->cur, count);
	}
	return mrc ? mdb_err(it->st, mrc, "iterate clusters") : 1;
}

void nd_store_keys_free(nd_store_keys *it)
{
	if (!it)
		return;
	mdb_cursor_close(it->cur);
	free(it);
}


int nd_store_docs_each(nd_store_txn *txn, nd_store_doc_fn fn, void *ctx)
{
	return nd_store_docs_from(txn, 0, fn, ctx);
}

int nd_store_docs_from(nd_store_txn *txn, uint32_t first, nd_store_doc_fn fn, void *ctx)
{
	MDB_cursor *cur;
	unsigned int from = first;
	MDB_val k = {sizeof(from), &from}, v;
	int mrc, rc = 0;
	size_t seen = 0;
	if ((mrc = mdb_cursor_open(txn->txn, txn->st->docs, &cur)))
		return mdb_err(txn->st, mrc, "cursor");
	for (mrc = mdb_cursor_get(cur, &k, &v, first ? MDB_SET_RANGE : MDB_FIRST); !mrc;
	     mrc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		unsigned int id;
		uint64_t key;
		/* A walk of every record would leave the whole table resident. */
		walked(txn->st, &seen, RELEASE_EVERY);
		if (k.mv_size != sizeof(id) || v.mv_size < sizeof(key)) {
			mrc = MDB_CORRUPTED;
			break;
		}
		memcpy(&id, k.mv_data, sizeof(id));
		memcpy(&key, v.mv_data, sizeof(key));
		if ((rc = fn(id, key, (const char *)v.mv_data + sizeof(key),
			     v.mv_size - sizeof(key), ctx)) != 0)
			break;
	}
	mdb_cursor_close(cur);
	if (rc)
		return rc;
	return (mrc && mrc != MDB_NOTFOUND) ? mdb_err(txn->st, mrc, "iterate documents") : ND_OK;
}

int nd__store_set_mapsize(nd_store *st, size_t bytes)
{
	int mrc = mdb_env_set_mapsize(st->env, bytes);
	if (mrc)
		return mdb_err(st, mrc, "set map size");
	MDB_envinfo info;
	mdb_env_info(st->env, &info);
	st->mapsize = info.me_mapsize;
	return ND_OK;
}

size_t nd__store_mapsize(const nd_store *st)
{
	return st->mapsize;
}

void nd__store_release_pages(nd_store *st)
{
#ifdef __linux__
	/* LMDB does not say where it mapped the file (me_mapaddr is set for
	 * MDB_FIXEDMAP only): the mappings of its inode, from the kernel. */
	char file[4096], line[4096 + 128];
	struct stat sb;
	snprintf(file, sizeof(file), "%s/data.mdb", st->path);
	FILE *maps = stat(file, &sb) == 0 ? fopen("/proc/self/maps", "r") : NULL;
	if (!maps)
		return;
	while (fgets(line, sizeof(line), maps)) {
		unsigned long lo, hi, ino;
		char perms[8];
		if (sscanf(line, "%lx-%lx %7s %*s %*s %lu", &lo, &hi, perms, &ino) == 4 && ino == (unsigned long)sb.st_ino &&
		    perms[3] == 's' && perms[1] == '-')
			(void)madvise((void *)lo, hi - lo, MADV_DONTNEED); /* a hint: failing costs memory only */
	}
	fclose(maps);
#else
	(void)st;
#endif
}

int nd_store_near(nd_store_txn *txn, unsigned tree, const uint16_t *seq, unsigned rows, uint32_t self,
		  unsigned window, uint32_t *out, size_t *n)
{
	uint8_t key[NEAR_KEY_MAX];
	MDB_cursor *cur;
	int mrc;
	*n = 0;
	if (rows == 0 || rows > ND_STORE_NEAR_MAX_ROWS || tree > 255)
		return nd_error_set(ND_EINVAL, "near-neighbour probe of tree %u, %u rows", tree, rows);
	MDB_val k, v;
	if ((mrc = mdb_cursor_open(txn->txn, txn->st->near, &cur)))
		return mdb_err(txn->st, mrc, "cursor");
	/* window entries of this tree after the probe's place, then before it */
	for (int side = 0; side < 2; side++) {
		MDB_cursor_op step = side ? MDB_PREV : MDB_NEXT;
		k.mv_size = (size_t)near_key(key, tree, seq, rows, self), k.mv_data = key;
		mrc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE);
		if (side)
			mrc = mdb_cursor_get(cur, &k, &v, mrc == MDB_NOTFOUND ? MDB_LAST : MDB_PREV);
		for (unsigned got = 0; !mrc && got < window; mrc = mdb_cursor_get(cur, &k, &v, step)) {
			if (k.mv_size != (size_t)(1 + 2 * rows + 4) || ((uint8_t *)k.mv_data)[0] != tree)
				break;
			uint32_t d = near_docid(&k);
			if (d != self)
				out[(*n)++] = d, got++;
		}
		if (mrc && mrc != MDB_NOTFOUND)
			break;
	}
	mdb_cursor_close(cur);
	return mrc && mrc != MDB_NOTFOUND ? mdb_err(txn->st, mrc, "read near-neighbour index") : ND_OK;
}

int nd_store_near_scan(nd_store_txn *txn, unsigned tree, const uint16_t *seq, unsigned rows, uint32_t docid,
		       int dir, unsigned max, uint32_t *ids, uint16_t *seqs, size_t *n)
{
	uint8_t key[NEAR_KEY_MAX];
	MDB_cursor *cur;
	MDB_val k, v;
	int mrc;
	*n = 0;
	if (rows == 0 || rows > ND_STORE_NEAR_MAX_ROWS || tree > 255)
		return nd_error_set(ND_EINVAL, "near-neighbour scan of tree %u, %u rows", tree, rows);
	if ((mrc = mdb_cursor_open(txn->txn, txn->st->near, &cur)))
		return mdb_err(txn->st, mrc, "cursor");
	size_t klen = (size_t)near_key(key, tree, seq, rows, docid);
	k.mv_size = klen, k.mv_data = key;
	mrc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE);
	if (dir > 0 && !mrc && k.mv_size == klen && !memcmp(k.mv_data, key, klen))
		mrc = mdb_cursor_get(cur, &k, &v, MDB_NEXT); /* strictly after */
	else if (dir < 0)
		mrc = mdb_cursor_get(cur, &k, &v, mrc == MDB_NOTFOUND ? MDB_LAST : MDB_PREV);
	for (; !mrc && *n < max; mrc = mdb_cursor_get(cur, &k, &v, dir > 0 ? MDB_NEXT : MDB_PREV)) {
		const uint8_t *p = k.mv_data;
		if (k.mv_size != klen || p[0] != tree)
			break;
		ids[*n] = near_docid(&k);
		for (unsigned r = 0; seqs && r < rows; r++)
			seqs[*n * rows + r] = (uint16_t)(p[1 + 2 * r] << 8 | p[2 + 2 * r]);
		(*n)++;
	}
	mdb_cursor_close(cur);
	return mrc && mrc != MDB_NOTFOUND ? mdb_err(txn->st, mrc, "read near-neighbour index") : ND_OK;
}

int nd_store_near_each(nd_store_txn *txn, nd_store_near_fn fn, void *ctx)
{
	MDB_cursor *cur;
	MDB_val k, v;
	int mrc, rc = 0;
	size_t seen = 0;
	if ((mrc = mdb_cursor_open(txn->txn, txn->st->near, &cur)))
		return mdb_err(txn->st, mrc, "cursor");
	for (mrc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); !mrc && !rc; mrc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		/* The index of a million documents is 16M entries, 450 MB:
		 * released as walked (an entry is about 28 bytes). */
		walked(txn->st, &seen, RELEASE_EVERY * 64);
		if (k.mv_size < 5) {
			rc = nd_error_set(ND_ECORRUPT, "store %s: near-neighbour entry of %zu bytes",
					  txn->st->path, k.mv_size);
			break;
		}
		rc = fn(((uint8_t *)k.mv_data)[0], near_docid(&k), ctx);
	}
	mdb_cursor_close(cur);
	if (rc)
		return rc;
	return mrc && mrc != MDB_NOTFOUND ? mdb_err(txn->st, mrc, "read near-neighbour index") : ND_OK;
}

int nd_store_near_count(nd_store_txn *txn, uint64_t *n)
{
	MDB_stat s;
	int mrc = mdb_stat(txn->txn, txn->st->near, &s);
	if (mrc)
		return mdb_err(txn->st, mrc, "stat");
	*n = s.ms_entries;
	return ND_OK;
}

int nd_store_near_has(nd_store_txn *txn, unsigned tree, const uint16_t *seq, unsigned rows, uint32_t docid)
{
	uint8_t key[NEAR_KEY_MAX];
	if (rows == 0 || rows > ND_STORE_NEAR_MAX_ROWS || tree > 255)
		return nd_error_set(ND_EINVAL, "near-neighbour entry of tree %u, %u rows", tree, rows);
	MDB_val k = {(size_t)near_key(key, tree, seq, rows, docid), key}, v;
	int mrc = mdb_get(txn->txn, txn->st->near, &k, &v);
	if (mrc == MDB_NOTFOUND)
		return 0;
	return mrc ? mdb_err(txn->st, mrc, "read near-neighbour index") : 1;
}

int nd_store_near_defer(nd_store_txn *txn)
{
	uint8_t one = 1;
	int rc = nd_store_meta_put(txn, NEAR_DEFERRED, &one, 1);
	if (rc == ND_OK)
		rc = links_need_rebuild(txn); /* their pairs come from the index */
	if (rc == ND_OK) {
		txn->near_deferred = 1;
		txn->nnear = 0; /* queued before: the rebuild makes them anew */
	}
	return rc;
}

int nd_store_near_deferred(nd_store_txn *txn)
{
	const void *v;
	size_t len;
	int rc = nd_store_meta_get(txn, NEAR_DEFERRED, &v, &len);
	return rc == ND_OK ? 1 : rc == ND_ENOTFOUND ? 0 : rc;
}

/* Entries of one rebuild, packed at a fixed stride for sorting. */
static _Thread_local size_t rebuild_stride; /* qsort has no context argument */
static int cmp_packed(const void *x, const void *y)
{
	return memcmp(x, y, rebuild_stride);
}

/* v[0..n) (keys of stride bytes) in key order, in place: the keys moved
 * into runs by their first three bytes (the tree and its first value),
 * then each run, a few keys, by qsort.  Sorting the whole with qsort
 * called memcmp through a callback some 24 times a key; moving them into
 * a second array held the index twice (838 MB at a million documents). */
static int sort_packed(uint8_t *v, size_t n, size_t stride)
{
	size_t trees = 0;
	uint8_t tmp[NEAR_KEY_MAX]; /* payload_near bounds the rows */
	for (size_t i = 0; i < n; i++)
		if ((size_t)v[i * stride] + 1 > trees)
			trees = (size_t)v[i * stride] + 1;
	size_t nb = trees << 16;
	size_t *at = calloc(nb + 1, sizeof(*at)), *end = malloc((nb + 1) * sizeof(*end));
	if (!at || !end) {
		free(at);
		free(end);
		return nd_error_set(ND_ENOMEM, "out of memory for the near-neighbour index");
	}
#define RUN_OF(k) ((size_t)(k)[0] << 16 | (size_t)(k)[1] << 8 | (k)[2])
	for (size_t i = 0; i < n; i++)
		at[RUN_OF(v + i * stride) + 1]++;
	for (size_t b = 0; b < nb; b++)
		at[b + 1] += at[b];
	for (size_t b = 0; b < nb; b++)
		end[b] = at[b + 1];
	/* at[b]: the next place of run b still to fill.  A key at it that
	 * belongs elsewhere is swapped to its own run's next place. */
	for (size_t b = 0; b < nb; b++)
		while (at[b] < end[b]) {
			uint8_t *k = v + at[b] * stride;
			size_t to = RUN_OF(k);
			if (to == b) {
				at[b]++;
				continue;
			}
			uint8_t *o = v + at[to]++ * stride;
			memcpy(tmp, o, stride);
			memcpy(o, k, stride);
			memcpy(k, tmp, stride);
		}
#undef RUN_OF
	rebuild_stride = stride;
	for (size_t b = 0, from = 0; b < nb; from = end[b++])
		if (end[b] - from > 1)
			qsort(v + from * stride, end[b] - from, stride, cmp_packed);
	free(at);
	free(end);
	return ND_OK;
}

typedef struct {
	nd_store_txn *txn;
	uint8_t *v;
	size_t n, cap, stride;
	unsigned rows;
} rebuild_ctx;

static int rebuild_one(uint32_t docid, uint64_t key, const void *payload, size_t len, void *vctx)
{
	rebuild_ctx *r = vctx;
	unsigned trees, rows;
	const uint8_t *seq;
	(void)key;
	if (payload_near(payload, len, &trees, &rows, &seq) < 0)
		return nd_error_set(ND_ECORRUPT, "store %s: record of document %u has a malformed near-neighbour "
				    "section", r->txn->st->path, docid);
	if (!trees)
		return 0;
	if (!r->stride) {
		r->rows = rows;
		r->stride = 1 + 2 * (size_t)rows + 4;
	} else if (rows != r->rows)
		return nd_error_set(ND_ECORRUPT, "store %s: document %u has near-neighbour sequences of %u rows, "
				    "others of %u", r->txn->st->path, docid, rows, r->rows);
	if (nd_array_reserve((void **)&r->v, &r->cap, (r->n + trees) * r->stride, 1) < 0)
		return nd_error_set(ND_ENOMEM, "out of memory for the near-neighbour index");
	for (unsigned t = 0; t < trees; t++)
		if (near_has_key(seq, t, rows))
			near_key_of(r->v + r->n++ * r->stride, seq, t, rows, docid);
	return 0;
}

/* The sorted entries of every record, the index emptied (the first part
 * of a rebuild, in txn). */
static int rebuild_collect(nd_store_txn *txn, rebuild_ctx *r)
{
	int rc, mrc;
	free(r->v);
	*r = (rebuild_ctx){txn, NULL, 0, 0, 0, 0};
	txn->near_deferred = 0; /* records read below are the truth */
	txn->nnear = 0;
	if ((mrc = mdb_drop(txn->txn, txn->st->near, 0)))
		return mdb_err(txn->st, mrc, "clear the near-neighbour index");
	if ((rc = nd_store_docs_each(txn, rebuild_one, r)) != 0)
		return rc;
	if (r->n && r->n * r->stride < r->cap) { /* the doubling's slack */
		uint8_t *fit = realloc(r->v, r->n * r->stride);
		if (fit)
			r->v = fit, r->cap = r->n * r->stride;
	}
	return r->n > 1 ? sort_packed(r->v, r->n, r->stride) : ND_OK;
}

/* Entries [from, to) of r, appended after the index's last (in key order:
 * pages are filled, and nothing is copied); with last, the index is
 * whole. */
static int rebuild_append(nd_store_txn *txn, const rebuild_ctx *r, size_t from, size_t to, int last)
{
	MDB_cursor *cur = NULL;
	int rc = ND_OK, mrc;
	if ((mrc = mdb_cursor_open(txn->txn, txn->st->near, &cur)))
		return mdb_err(txn->st, mrc, "cursor");
	for (size_t i = from; i < to; i++) {
		MDB_val k = {r->stride, r->v + i * r->stride}, v = {0, NULL};
		if ((mrc = mdb_cursor_put(cur, &k, &v, MDB_APPEND))) {
			rc = mdb_err(txn->st, mrc, "write the near-neighbour index");
			break;
		}
	}
	mdb_cursor_close(cur);
	if (rc == ND_OK && last) {
		MDB_val dk = {strlen(NEAR_DEFERRED), NEAR_DEFERRED};
		mrc = mdb_del(txn->txn, txn->st->meta, &dk, NULL);
		rc = mrc && mrc != MDB_NOTFOUND ? mdb_err(txn->st, mrc, "meta") : ND_OK;
	}
	return rc;
}

int nd_store_near_rebuild(nd_store_txn *txn)
{
	rebuild_ctx r = {txn, NULL, 0, 0, 0, 0};
	int rc = rebuild_collect(txn, &r);
	if (rc == ND_OK)
		rc = rebuild_append(txn, &r, 0, r.n, 1);
	free(r.v);
	return rc;
}

/* A rebuild in transactions of REBUILD_STEP entries: LMDB keeps every page
 * a write transaction dirtied in memory until it commits, and keeps them
 * for its next transactions after (until the store is closed), so one
 * transaction rewriting the index of a million documents left some
 * 250 MB more with the process for the rest of its run.  The writer lock keeps other processes out
 * between the steps; a write of this handle's between them (the records'
 * generation moved) has the rebuild done again in one transaction. */
#define REBUILD_STEP ((size_t)1 << 22)

static size_t rebuild_step_size = REBUILD_STEP;
static int (*rebuild_between)(nd_store *, void *);
static void *rebuild_between_ctx;

void nd__store_set_rebuild_step(size_t step, int (*between)(nd_store *st, void *ctx), void *ctx)
{
	rebuild_step_size = step ? step : REBUILD_STEP;
	rebuild_between = between, rebuild_between_ctx = ctx;
}

typedef struct {
	rebuild_ctx r;
	size_t from, to;
	uint64_t gen;
	int stale;
} rebuild_step;

static int rebuild_first(nd_store_txn *txn, void *vctx)
{
	rebuild_step *s = vctx;
	int rc = nd_store_near_deferred(txn);
	if (rc <= 0) {
		s->from = s->to = s->r.n = 0; /* whole already */
		return rc;
	}
	if ((rc = nd_store_records_gen(txn, &s->gen)) < 0 || (rc = rebuild_collect(txn, &s->r)) < 0)
		return rc;
	s->from = 0, s->to = s->r.n < rebuild_step_size ? s->r.n : rebuild_step_size;
	return rebuild_append(txn, &s->r, s->from, s->to, s->to == s->r.n);
}

static int rebuild_next(nd_store_txn *txn, void *vctx)
{
	rebuild_step *s = vctx;
	uint64_t gen;
	int rc = nd_store_records_gen(txn, &gen);
	if (rc < 0)
		return rc;
	if (gen != s->gen || nd_store_near_deferred(txn) != 1) {
		s->stale = 1;
		return ND_OK;
	}
	s->to = s->r.n - s->from > rebuild_step_size ? s->from + rebuild_step_size : s->r.n;
	return rebuild_append(txn, &s->r, s->from, s->to, s->to == s->r.n);
}

static int rebuild_whole(nd_store_txn *txn, void *ctx)
{
	int rc = nd_store_near_deferred(txn);
	(void)ctx;
	return rc == 1 ? nd_store_near_rebuild(txn) : rc;
}

int nd__store_near_rebuild(nd_store *st)
{
	rebuild_step s = {{NULL, NULL, 0, 0, 0, 0}, 0, 0, 0, 0};
	int rc;
	if (st->held) /* one transaction anyway */
		return nd_store_write(st, rebuild_whole, NULL);
	rc = nd_store_write(st, rebuild_first, &s);
	while (rc == ND_OK && s.to < s.r.n && !s.stale) {
		s.from = s.to;
		if (rebuild_between && (rc = rebuild_between(st, rebuild_between_ctx)) < 0)
			break;
		rc = nd_store_write(st, rebuild_next, &s);
	}
	if (rc == ND_OK && s.stale)
		rc = nd_store_write(st, rebuild_whole, NULL);
	free(s.r.v);
	return rc;
}

/* ---- links: verified duplicate pairs (the copy point's clusters) ---- */

int nd_store_links(nd_store_txn *txn, uint32_t docid, uint32_t **out, size_t *n)
{
	unsigned int id = docid;
	MDB_val k = {sizeof(id), &id};
	return dup_list(txn, txn->st->links, &k, out, n, "read links");
}

int nd_store_link_put(nd_store_txn *txn, uint32_t a, uint32_t b)
{
	if (a == b || !a || !b)
		return nd_error_set(ND_EINVAL, "a link joins two documents, not %u and %u", a, b);
	for (int dir = 0; dir < 2; dir++) {
		unsigned int x = dir ? b : a, y = dir ? a : b;
		MDB_val k = {sizeof(x), &x}, v = {sizeof(y), &y};
		int mrc = mdb_put(txn->txn, txn->st->links, &k, &v, MDB_NODUPDATA);
		if (mrc && mrc != MDB_KEYEXIST)
			return mdb_err(txn->st, mrc, "write link");
	}
	return ND_OK;
}

int nd_store_links_clear(nd_store_txn *txn)
{
	int mrc = mdb_drop(txn->txn, txn->st->links, 0);
	return mrc ? mdb_err(txn->st, mrc, "clear links") : links_need_rebuild(txn);
}

int nd_store_link_del(nd_store_txn *txn, uint32_t a, uint32_t b)
{
	for (int dir = 0; dir < 2; dir++) {
		unsigned int x = dir ? b : a, y = dir ? a : b;
		MDB_val k = {sizeof(x), &x}, v = {sizeof(y), &y};
		int mrc = mdb_del(txn->txn, txn->st->links, &k, &v);
		if (mrc && mrc != MDB_NOTFOUND)
			return mdb_err(txn->st, mrc, "remove link");
	}
	return ND_OK;
}

int nd_store_links_each(nd_store_txn *txn, nd_store_link_fn fn, void *ctx)
{
	MDB_cursor *cur;
	MDB_val k, v;
	int mrc, rc = 0;
	size_t seen = 0;
	if ((mrc = mdb_cursor_open(txn->txn, txn->st->links, &cur)))
		return mdb_err(txn->st, mrc, "cursor");
	for (mrc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); !mrc && !rc;
	     mrc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		unsigned int a, b;
		/* fsck reads both ends' records: 1.9 GB of the map at 1M. */
		walked(txn->st, &seen, RELEASE_EVERY);
		if (k.mv_size != sizeof(a) || v.mv_size != sizeof(b)) {
			mrc = MDB_CORRUPTED;
			break;
		}
		memcpy(&a, k.mv_data, sizeof(a));
		memcpy(&b, v.mv_data, sizeof(b));
		rc = fn(a, b, ctx);
	}
	mdb_cursor_close(cur);
	if (mrc && mrc != MDB_NOTFOUND)
		return mdb_err(txn->st, mrc, "read links");
	return rc;
}

int nd_store_links_state(nd_store_txn *txn)
{
	const void *v;
	size_t n;
	MDB_stat js;
	int mrc, rc = nd_store_meta_get(txn, LINKS_REBUILD, &v, &n);
	if (rc == ND_OK)
		return ND_LINKS_REBUILD;
	if (rc != ND_ENOTFOUND)
		return rc;
	if ((mrc = mdb_stat(txn->txn, txn->st->journal, &js)))
		return mdb_err(txn->st, mrc, "stat");
	return js.ms_entries ? ND_LINKS_JOURNAL : ND_LINKS_SETTLED;
}

int nd_store_links_settled(nd_store_txn *txn)
{
	MDB_val k = {strlen(LINKS_REBUILD), LINKS_REBUILD};
	int mrc = mdb_drop(txn->txn, txn->st->journal, 0);
	if (mrc)
		return mdb_err(txn->st, mrc, "clear the links' journal");
	if ((mrc = mdb_del(txn->txn, txn->st->meta, &k, NULL)) && mrc != MDB_NOTFOUND)
		return mdb_err(txn->st, mrc, "meta");
	txn->links_rebuild = 0;
	return ND_OK;
}

int nd_store_journal_count(nd_store_txn *txn, uint64_t *n)
{
	MDB_stat js;
	int mrc = mdb_stat(txn->txn, txn->st->journal, &js);
	if (mrc)
		return mdb_err(txn->st, mrc, "stat");
	*n = js.ms_entries;
	return ND_OK;
}

int nd_store_journal_each(nd_store_txn *txn, nd_store_journal_fn fn, void *ctx)
{
	MDB_cursor *cur;
	MDB_val k, v;
	int mrc, rc = 0;
	if ((mrc = mdb_cursor_open(txn->txn, txn->st->journal, &cur)))
		return mdb_err(txn->st, mrc, "cursor");
	for (mrc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); !mrc && !rc;
	     mrc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		unsigned int id;
		const uint8_t *p = v.mv_data;
		if (k.mv_size != sizeof(id) || v.mv_size < 1 || p[0] > ND_JOURNAL_TOUCHED ||
		    (p[0] != ND_JOURNAL_RECORD && v.mv_size != 1)) {
			rc = nd_error_set(ND_ECORRUPT, "store %s: damaged entry in the links' journal",
					  txn->st->path);
			break;
		}
		memcpy(&id, k.mv_data, sizeof(id));
		rc = fn(id, p[0], p[0] == ND_JOURNAL_RECORD ? p + 1 : NULL, v.mv_size - 1, ctx);
	}
	mdb_cursor_close(cur);
	if (rc)
		return rc;
	return mrc && mrc != MDB_NOTFOUND ? mdb_err(txn->st, mrc, "read the links' journal") : ND_OK;
}
