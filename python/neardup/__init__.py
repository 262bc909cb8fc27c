"""neardup from Python: near-duplicate detection over a Xapian database.

    import neardup
    nd = neardup.Neardup("site.db", "site.store", writable=True)
    for dup in nd.check(text):             # before indexing a page
        print(dup.docid, dup.uid, dup.distance, dup.by)
    # ... index with python3-xapian, commit, then:
    result = nd.changed(docid)             # sign it, get its duplicates
    hits = nd.search("query", limit=10)    # duplicates folded
    groups = nd.clusters()                 # the copy point's clusters

A thin layer over the installed C library (libneardup.so.0) through cffi's
ABI mode: nothing is compiled.  Errors raise neardup.Error carrying the
library's message.  Not thread-safe: one Neardup per thread.
"""
import os

from cffi import FFI

__all__ = ["Neardup", "Error", "Duplicate", "Change", "Hit", "POINTS"]

POINTS = ("copy", "strict", "story")

_ffi = FFI()
# Must match include/neardup/*.h exactly (ABI mode sees no headers);
# tests/python_test.py checks every path against the C results.
_ffi.cdef("""
typedef uint32_t nd_docid;
typedef struct nd_xdb nd_xdb;
typedef struct nd_store nd_store;
typedef struct nd_store_txn nd_store_txn;
typedef struct nd_descriptor nd_descriptor;
typedef struct nd_tokenizer nd_tokenizer;
typedef struct nd_hook nd_hook;
typedef struct nd_verify_batch nd_verify_batch;

typedef enum { ND_POINT_COPY = 0, ND_POINT_STRICT = 1, ND_POINT_STORY = 2 } nd_point;
typedef enum { ND_VERIFIED_REPRESENTATIVE = 0, ND_VERIFIED_LEVENSHTEIN = 1, ND_VERIFIED_SHINGLES = 2,
               ND_VERIFY_NO_WORDS = 3, ND_VERIFIED_RESEMBLANCE = 4,
               ND_VERIFIED_CONTAINMENT = 5, ND_REFUSED_VALUES = 6 } nd_verify_how;
typedef enum { ND_CHANGE_NONE = 0, ND_CHANGE_ADDED = 1, ND_CHANGE_REPLACED = 2,
               ND_CHANGE_DELETED = 3 } nd_change;
typedef enum { ND_COLLAPSE_NONE = 0, ND_COLLAPSE_NATIVE = 1, ND_COLLAPSE_FILTER = 2,
               ND_COLLAPSE_TOLERANT = 3 } nd_collapse_mode;

typedef struct {
    double max_distance; size_t max_exact_words; double min_resemblance;
    unsigned shingle_width; unsigned max_leaders; nd_verify_batch *batch;
    size_t max_held_bytes; nd_point point;
} nd_verify_options;
typedef struct {
    uint64_t key; uint32_t nbits; uint16_t *bits; uint32_t cap; uint64_t fingerprint;
    uint32_t present; uint16_t near[60];
} nd_sig;
typedef struct {
    nd_docid docid; double distance; int duplicate; double jaccard; nd_verify_how how;
} nd_check_member;
typedef struct {
    nd_sig sig; size_t cluster_size; nd_check_member *members; size_t nmembers; size_t duplicates;
} nd_check_result;
typedef struct { nd_docid docid; uint32_t group; double distance; nd_verify_how how; } nd_verified;
typedef struct {
    double max_drift; nd_verify_options verify; uint32_t block_docs; unsigned jobs;
    double tolerant; size_t max_compare;
    void (*progress)(nd_docid, nd_docid, void *); void *progress_ctx;
} nd_hook_options;
typedef struct {
    nd_docid docid; nd_change change; uint64_t key, old_key; size_t candidates;
    nd_verified *duplicates; size_t nduplicates;
} nd_hook_result;
typedef struct { nd_docid docid; double weight; uint32_t collapsed; } nd_xdb_hit;
typedef struct {
    double cut; unsigned shingle_width; unsigned jobs;
    void (*progress)(const char *, size_t, size_t, void *); void *ctx; int single; unsigned complete;
} nd_near_options;
typedef struct { uint64_t candidates, pairs, linked, completed, words_bytes; } nd_near_stats;

const char *nd_strerror(int code);
const char *nd_error_last(void);
int nd_xdb_open(nd_xdb **out, const char *path, int mode);
void nd_xdb_close(nd_xdb *db);
int nd_xdb_reopen(nd_xdb *db, int *changed);
int nd_xdb_doc_uid(nd_xdb *db, nd_docid docid, char **out);
int nd_store_open(nd_store **out, const char *path, int mode);
void nd_store_close(nd_store *st);
int nd_store_read_begin(nd_store *st, nd_store_txn **out);
void nd_store_txn_end(nd_store_txn *txn);
int nd_store_docs_each(nd_store_txn *txn,
                       int (*fn)(uint32_t, uint64_t, const void *, size_t, void *), void *ctx);
int nd_descriptor_load(nd_descriptor **out, nd_store *st, nd_xdb *db);
void nd_descriptor_free(nd_descriptor *d);
int nd_tokenizer_new(nd_tokenizer **out);
void nd_tokenizer_free(nd_tokenizer *tk);
int nd_check_text(nd_tokenizer *tk, const nd_descriptor *d, nd_xdb *db, nd_store *st, const char *text,
                  size_t len, const nd_verify_options *vo, size_t max_compare, nd_check_result *out);
void nd_check_result_clear(nd_check_result *r);
int nd_hook_open(nd_hook **out, nd_xdb *db, nd_store *st, const nd_hook_options *opts);
void nd_hook_free(nd_hook *h);
int nd_hook_changed(nd_hook *h, nd_docid docid, nd_hook_result *res);
void nd_hook_result_clear(nd_hook_result *r);
int nd_search(nd_xdb *db, nd_store *st, const char *query, nd_collapse_mode mode, uint32_t offset,
              uint32_t max, uint32_t depth, nd_xdb_hit *hits, size_t *n, uint32_t *estimated);
int nd_cluster_near(nd_xdb *db, nd_store *st, const nd_near_options *o, const nd_docid *docs, size_t n,
                    size_t *into, nd_near_stats *stats);
const char *nd_point_name(nd_point p);
double nd_point_resemblance(nd_point p);
void free(void *);
""")


def _load():
    """The library: $NEARDUP_LIB, the one this package was installed with,
    or the system loader's libneardup.so.0."""
    tried = []
    want = os.environ.get("NEARDUP_LIB")
    candidates = [want] if want else []
    try:
        from neardup import _installed  # written by meson install
        candidates.append(_installed.LIBRARY)
    except ImportError:
        pass
    candidates.append("libneardup.so.0")
    for path in candidates:
        try:
            return _ffi.dlopen(path)
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
    raise ImportError("neardup: cannot load libneardup: tried " + "; ".join(tried) +
                      " (install neardup with meson, or set NEARDUP_LIB to libneardup.so)")


_lib = _load()
_libc = _ffi.dlopen(None)

_HOW = {0: "representative", 1: "levenshtein", 2: "shingles", 3: "none", 4: "resemblance", 5: "containment", 6: "values"}
_CHANGE = {0: "none", 1: "added", 2: "replaced", 3: "deleted"}
_MODES = {"none": 0, "native": 1, "filter": 2, "tolerant": 3}


class Error(Exception):
    """A neardup error: .code is the nd_error value (negative), .name its
    name (ND_ENOTFOUND, ...), str() the library's message."""

    def __init__(self, code, message):
        self.code = code
        self.name = _ffi.string(_lib.nd_strerror(code)).decode().split(":")[0]
        super().__init__("%s: %s" % (self.name, message))


def _check(rc):
    if rc < 0:
        raise Error(rc, _ffi.string(_lib.nd_error_last()).decode("utf-8", "replace"))
    return rc


class Duplicate:
    """One compared document: docid, uid (its unique id), distance (by
    `by`: Levenshtein, or 1 - resemblance), duplicate (the verdict), by."""
    __slots__ = ("docid", "uid", "distance", "duplicate", "by", "jaccard")

    def __init__(self, docid, uid, distance, duplicate, by, jaccard=None):
        self.docid, self.uid, self.distance = docid, uid, distance
        self.duplicate, self.by, self.jaccard = duplicate, by, jaccard

    def __repr__(self):
        return "Duplicate(docid=%d, uid=%r, distance=%.3f, duplicate=%s, by=%r)" % (
            self.docid, self.uid, self.distance, self.duplicate, self.by)


class Change:
    """What nd_hook_changed did: docid, change ("added", "replaced",
    "deleted", "none"), key, candidates, duplicates (list of Duplicate)."""
    __slots__ = ("docid", "change", "key", "candidates", "duplicates")

    def __init__(self, docid, change, key, candidates, duplicates):
        self.docid, self.change, self.key = docid, change, key
        self.candidates, self.duplicates = candidates, duplicates

    def __repr__(self):
        return "Change(docid=%d, change=%r, duplicates=%r)" % (self.docid, self.change, self.duplicates)


class Hit:
    """A search result: docid, uid, weight, collapsed (duplicates folded into it)."""
    __slots__ = ("docid", "uid", "weight", "collapsed")

    def __init__(self, docid, uid, weight, collapsed):
        self.docid, self.uid, self.weight, self.collapsed = docid, uid, weight, collapsed

    def __repr__(self):
        return "Hit(docid=%d, uid=%r, weight=%.3f, collapsed=%d)" % (
            self.docid, self.uid, self.weight, self.collapsed)


def _point(name):
    if name not in POINTS:
        raise ValueError("point is one of %s, not %r" % (", ".join(POINTS), name))
    return POINTS.index(name)


def _verify_options(point):
    vo = _ffi.new("nd_verify_options *")
    vo.max_distance, vo.max_exact_words, vo.min_resemblance = 0.08, 20000, 0.875
    vo.shingle_width, vo.max_leaders, vo.batch, vo.max_held_bytes = 10, 8, _ffi.NULL, 256 << 20
    vo.point = _point(point)
    return vo


class Neardup:
    """A Xapian database and its neardup store (made by `neardup build` and
    `neardup sign`).  writable: the store is opened for writing (hooks);
    only one writer at a time.  point: what counts as a duplicate
    ("copy", the default; "strict"; "story"; see README).  Close it, or
    use it as a context manager."""

    def __init__(self, db, store, writable=False, point="copy"):
        self._db = self._st = self._d = self._tk = self._hook = None
        self.point = point
        _point(point)
        p = _ffi.new("nd_xdb **")
        _check(_lib.nd_xdb_open(p, os.fsencode(db), 0))
        self._db = p[0]
        s = _ffi.new("nd_store **")
        try:
            _check(_lib.nd_store_open(s, os.fsencode(store), 1 if writable else 0))
            self._st = s[0]
            d = _ffi.new("nd_descriptor **")
            _check(_lib.nd_descriptor_load(d, self._st, self._db))
            self._d = d[0]
            t = _ffi.new("nd_tokenizer **")
            _check(_lib.nd_tokenizer_new(t))
            self._tk = t[0]
        except BaseException:
            self.close()
            raise
        self._writable = writable

    def close(self):
        if self._hook:
            _lib.nd_hook_free(self._hook)
        if self._tk:
            _lib.nd_tokenizer_free(self._tk)
        if self._d:
            _lib.nd_descriptor_free(self._d)
        if self._st:
            _lib.nd_store_close(self._st)
        if self._db:
            _lib.nd_xdb_close(self._db)
        self._db = self._st = self._d = self._tk = self._hook = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()

    def _open(self):
        if not self._db:
            raise Error(-15, "this Neardup is closed")

    def uid(self, docid):
        """The document's unique id (its Q or U term), or None."""
        self._open()
        out = _ffi.new("char **")
        if _lib.nd_xdb_doc_uid(self._db, docid, out) < 0 or out[0] == _ffi.NULL:
            return None
        try:
            return _ffi.string(out[0]).decode("utf-8", "replace")
        finally:
            _libc.free(out[0])

    def refresh(self):
        """See the database's latest commit (made by another handle, such as
        python3-xapian's WritableDatabase)."""
        self._open()
        _check(_lib.nd_xdb_reopen(self._db, _ffi.NULL))

    def check(self, text, compare=8, point=None):
        """The documents already indexed that `text` (not yet indexed)
        duplicates, at the point: a list of Duplicate, compared ones only
        (the first `compare` candidates); those with .duplicate True are
        the verdict's."""
        self._open()
        data = text.encode("utf-8") if isinstance(text, str) else bytes(text)
        r = _ffi.new("nd_check_result *")
        try:
            _check(_lib.nd_check_text(self._tk, self._d, self._db, self._st, data, len(data),
                                      _verify_options(point or self.point), compare, r))
            return [Duplicate(m.docid, self.uid(m.docid), m.distance, bool(m.duplicate),
                              _HOW[m.how] if m.duplicate else None, m.jaccard)
                    for m in (r.members[i] for i in range(r.nmembers))]
        finally:
            _lib.nd_check_result_clear(r)

    def changed(self, docid):
        """Document docid was added, replaced or deleted in the database
        (committed): sign it, store it, and return a Change with its
        duplicates.  Needs writable=True.  A docid no longer in the
        database is a deletion."""
        self._open()
        if not self._writable:
            raise Error(-15, "changed() needs Neardup(..., writable=True)")
        self.refresh()
        if not self._hook:
            opts = _ffi.new("nd_hook_options *")
            opts.max_drift = 0.5
            opts.verify = _verify_options(self.point)[0]
            opts.block_docs, opts.jobs, opts.tolerant, opts.max_compare = 0, 1, 0.0, 64
            h = _ffi.new("nd_hook **")
            _check(_lib.nd_hook_open(h, self._db, self._st, opts))
            self._hook = h[0]
        r = _ffi.new("nd_hook_result *")
        try:
            _check(_lib.nd_hook_changed(self._hook, docid, r))
            dups = [Duplicate(v.docid, self.uid(v.docid), v.distance, True, _HOW[v.how])
                    for v in (r.duplicates[i] for i in range(r.nduplicates))]
            return Change(r.docid, _CHANGE[r.change], r.key, r.candidates, dups)
        finally:
            _lib.nd_hook_result_clear(r)

    def deleted(self, docid):
        """Document docid was deleted (and the deletion committed)."""
        return self.changed(docid)

    def search(self, query, limit=10, offset=0, collapse="filter", depth=1000):
        """Ranked results for a Xapian QueryParser query, duplicates folded
        (collapse: "filter", "native" (needs `sign --value-slot`),
        "tolerant" or "none"): a list of Hit."""
        self._open()
        if collapse not in _MODES:
            raise ValueError("collapse is one of %s, not %r" % (", ".join(_MODES), collapse))
        hits = _ffi.new("nd_xdb_hit[]", max(limit, 1))
        n = _ffi.new("size_t *")
        _check(_lib.nd_search(self._db, self._st, query.encode("utf-8"), _MODES[collapse], offset, limit,
                              max(depth, offset + limit), hits, n, _ffi.NULL))
        return [Hit(hits[i].docid, self.uid(hits[i].docid), hits[i].weight, hits[i].collapsed)
                for i in range(n[0])]

    def clusters(self, point=None, min_size=2, jobs=1):
        """The clusters of the point's verdict over the store's
        near-neighbour index (as `neardup clusters --point`): a list of
        docid lists, largest first.  strict is not a resemblance: use the
        command's --verify."""
        self._open()
        point = point or self.point
        if point == "strict":
            raise ValueError("clusters() takes copy or story (strict: neardup clusters --verify)")
        docs = []

        @_ffi.callback("int(uint32_t, uint64_t, const void *, size_t, void *)")
        def each(docid, key, payload, length, ctx):
            docs.append(docid)
            return 0

        txn = _ffi.new("nd_store_txn **")
        _check(_lib.nd_store_read_begin(self._st, txn))
        try:
            _check(_lib.nd_store_docs_each(txn[0], each, _ffi.NULL))
        finally:
            _lib.nd_store_txn_end(txn[0])
        if not docs:
            return []
        o = _ffi.new("nd_near_options *")
        o.cut = _lib.nd_point_resemblance(_point(point))
        o.shingle_width, o.jobs, o.progress, o.ctx = 3, jobs, _ffi.NULL, _ffi.NULL
        o.single = 1 if point == "copy" else 0
        o.complete = 64  # ND_NEAR_COMPLETE: completed averages, as `neardup clusters`
        arr = _ffi.new("nd_docid[]", docs)
        into = _ffi.new("size_t[]", len(docs))
        _check(_lib.nd_cluster_near(self._db, self._st, o, arr, len(docs), into, _ffi.NULL))
        groups = {}
        for i, first in enumerate(into):
            groups.setdefault(first, []).append(docs[i])
        out = [g for g in groups.values() if len(g) >= min_size]
        out.sort(key=lambda g: (-len(g), g[0]))
        return out
