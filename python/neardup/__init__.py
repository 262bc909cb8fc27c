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
ABI mode: nothing is compiled.  Errors raise subclasses of neardup.Error
that are also Python's own where one fits (NotFound is a
FileNotFoundError, InvalidArgument a ValueError, ...).  A Neardup may be
shared by threads: its calls run one at a time, and close() waits for the
one running; a call after close() raises Closed.
"""
import os
import threading
import warnings

from cffi import FFI

__all__ = ["Neardup", "Error", "NotFound", "InvalidArgument", "Locked", "Corrupt", "Mismatch", "Full",
           "TooBig", "InvalidState", "Closed", "Retry", "DegradedWarning", "Duplicate", "Checked", "Change", "Hit",
           "POINTS", "__version__"]

POINTS = ("copy", "strict", "story")
CHECK_COMPARE = 16  # candidates check compares unless told: ND_CHECK_COMPARE
CHECK_CLUSTER_LISTED = 1000  # of the joined cluster not compared: ND_CHECK_CLUSTER_LISTED

_ffi = FFI()
# Must match include/neardup/*.h exactly (ABI mode sees no headers);
# tests/python checks every path against the C results.
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
               ND_VERIFIED_CONTAINMENT = 5, ND_REFUSED_VALUES = 6,
               ND_VERIFIED_PASSAGES = 7, ND_REFUSED_RENAMED = 8,
               ND_REFUSED_SIGNATURE = 9, ND_REFUSED_THREAD = 10,
               ND_REFUSED_FILLINGS = 11 } nd_verify_how;
typedef enum { ND_CHANGE_NONE = 0, ND_CHANGE_ADDED = 1, ND_CHANGE_REPLACED = 2,
               ND_CHANGE_DELETED = 3, ND_CHANGE_EXPIRED = 4 } nd_change;
typedef enum { ND_COLLAPSE_NONE = 0, ND_COLLAPSE_NATIVE = 1, ND_COLLAPSE_FILTER = 2,
               ND_COLLAPSE_TOLERANT = 3 } nd_collapse_mode;

typedef struct {
    double max_distance; size_t max_exact_words; double min_resemblance;
    unsigned shingle_width; unsigned max_leaders; nd_verify_batch *batch;
    size_t max_held_bytes; nd_point point; uint64_t since;
} nd_verify_options;
typedef struct {
    uint64_t key; uint32_t nbits; uint16_t *bits; uint32_t cap; uint64_t fingerprint;
    uint32_t present; uint16_t near[96];
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
    int group_commit; uint64_t recount_max;
} nd_hook_options;
typedef struct {
    nd_docid docid; nd_change change; uint64_t key, old_key; size_t candidates;
    nd_verified *duplicates; size_t nduplicates;
} nd_hook_result;
typedef struct { nd_docid docid; double weight; uint32_t collapsed; } nd_xdb_hit;
typedef struct { uint64_t candidates, pairs, linked, completed, words_bytes; } nd_near_stats;
typedef struct {
    unsigned jobs; double cut; unsigned complete;
    void (*progress)(const char *, size_t, size_t, void *); void *ctx;
} nd_clusters_options;
typedef struct { int from_links; nd_near_stats near; } nd_clusters_report;
typedef struct nd_handle nd_handle;
typedef struct {
    nd_point point; size_t max_compare; double max_drift; uint32_t max_query_terms; int group_commit;
} nd_open_options;

const char *nd_version(void);
const char *nd_strerror(int code);
const char *nd_error_last(void);
int nd_xdb_doc_uid(nd_xdb *db, nd_docid docid, char **out);
int nd_xdb_reopen(nd_xdb *db, int *changed);
const nd_descriptor *nd_handle_descriptor(nd_handle *h);
nd_tokenizer *nd_handle_tokenizer(nd_handle *h);
int nd_check_text(nd_tokenizer *tk, const nd_descriptor *d, nd_xdb *db, nd_store *st, const char *text,
                  size_t len, const nd_verify_options *vo, size_t max_compare, nd_check_result *out);
int nd_check_cluster(nd_xdb *db, nd_store *st, const nd_verify_options *vo, const nd_check_result *r,
                     size_t max_rest, nd_docid *id, size_t *size, nd_docid **rest, size_t *nrest);
int nd_collapse_cluster(nd_xdb *db, nd_store *st, const nd_verify_options *vo, nd_docid docid, size_t max,
                        nd_docid *id, size_t *size, nd_docid **members, size_t *nmembers);
int nd_store_read_begin(nd_store *st, nd_store_txn **out);
void nd_store_txn_end(nd_store_txn *txn);
int nd_store_links_state(nd_store_txn *txn);
void nd_check_result_clear(nd_check_result *r);
void nd_hook_result_clear(nd_hook_result *r);
int nd_xdb_set_query_parser(nd_xdb *db, const char *stemmer, const char *const *prefixes, size_t nprefixes,
                            const char *const *boolean_prefixes, size_t nboolean);
int nd_search(nd_xdb *db, nd_store *st, const char *query, nd_collapse_mode mode, uint32_t offset,
              uint32_t max, uint32_t depth, nd_xdb_hit *hits, size_t *n, uint32_t *estimated);
int nd_clusters(nd_xdb *db, nd_store *st, nd_point point, const nd_clusters_options *o,
                nd_docid **docs, size_t **into, size_t *n, nd_clusters_report *rep);
int nd_open(nd_handle **out, const char *db, const char *store, int flags, const nd_open_options *o);
void nd_close(nd_handle *h);
int nd_check(nd_handle *h, const char *text, size_t len, nd_check_result *out);
int nd_changed(nd_handle *h, nd_docid docid, nd_hook_result *out);
int nd_commit(nd_handle *h);
nd_xdb *nd_handle_db(nd_handle *h);
nd_store *nd_handle_store(nd_handle *h);
typedef struct { uint64_t seconds; int slot; } nd_window;
int nd_window_get(nd_store *st, nd_window *w);
int nd_window_set(nd_store *st, const nd_window *w);
int nd_duration_parse(const char *s, uint64_t *seconds);
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
__version__ = _ffi.string(_lib.nd_version()).decode()

_HOW = {0: "representative", 1: "levenshtein", 2: "shingles", 3: "none", 4: "resemblance", 5: "containment",
        6: "values", 7: "passages", 8: "renamed", 9: "signature", 10: "thread",
        11: "fillings"}
_CHANGE = {0: "none", 1: "added", 2: "replaced", 3: "deleted", 4: "expired"}
_MODES = {"none": 0, "native": 1, "filter": 2, "tolerant": 3}
_LINKS_REBUILD = 2


class Error(Exception):
    """A neardup error: .code is the library's nd_error value (negative),
    .name its name (ND_ENOTFOUND, ...), str() what happened, naming the
    input.  Subclasses say which kind, and are Python's own where one fits."""

    def __init__(self, code, message):
        self.code = code
        self.name = _ffi.string(_lib.nd_strerror(code)).decode().split(":")[0]
        super().__init__(message)


class NotFound(Error, FileNotFoundError):
    """A database, store, document or record that is not there."""


class InvalidArgument(Error, ValueError):
    """An argument or option out of range."""


class Locked(Error):
    """Another process writes the store (one writer at a time)."""


class Corrupt(Error):
    """Stored data fails its checks."""


class Mismatch(Error):
    """The store belongs to another database or descriptive set."""


class Full(Error, OSError):
    """The disk, or a file size limit, is full."""


class TooBig(Error, ValueError):
    """An input over a limit (a text over max_doc_mb, a query of too many terms)."""


class InvalidState(Error):
    """Not possible now (no descriptive set yet; the drift limit reached)."""


class Closed(InvalidState):
    """A call after close()."""


class Retry(Error):
    """The database changed under a read: refresh() and call again."""


class DegradedWarning(UserWarning):
    """The store's links are to be made again (signed with --no-links, or a
    signing killed before it linked): until a writer makes them, collapsing
    folds verified equal-key groups only."""


_KINDS = {-3: InvalidArgument, -4: NotFound, -6: Corrupt, -7: Locked, -8: Retry, -9: Full,
          -10: InvalidArgument, -11: Mismatch, -12: Mismatch, -14: InvalidArgument, -15: InvalidState,
          -16: TooBig}


def _check(rc):
    if rc < 0:
        message = _ffi.string(_lib.nd_error_last()).decode("utf-8", "replace") or \
            _ffi.string(_lib.nd_strerror(rc)).decode().split(": ", 1)[-1]
        if rc == -2:
            raise MemoryError(message)
        raise _KINDS.get(rc, Error)(rc, message)
    return rc


def _path(value, what):
    """A path as the library takes it: str, bytes or os.PathLike, no NUL."""
    try:
        raw = os.fsencode(value)
    except TypeError:
        raise TypeError("%s must be a path (str, bytes or os.PathLike), not %s" % (what, type(value).__name__))
    if b"\0" in raw:
        raise ValueError("%s: embedded NUL byte" % what)
    return raw


def _string(value, what):
    """A query: str or bytes (UTF-8), no NUL."""
    if isinstance(value, str):
        raw = value.encode("utf-8")
    elif isinstance(value, (bytes, bytearray, memoryview)):
        raw = bytes(value)
    else:
        raise TypeError("%s must be str or bytes, not %s" % (what, type(value).__name__))
    if b"\0" in raw:
        raise ValueError("%s: embedded NUL byte" % what)
    return raw


def _count(value, what, lo=0, hi=2 ** 32 - 1):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError("%s must be an int, not %s" % (what, type(value).__name__))
    if not lo <= value <= hi:
        raise ValueError("%s must be in %d..%d, not %d" % (what, lo, hi, value))
    return value


class Duplicate:
    """One compared document: docid, uid (its unique id), distance (by
    `by`: Levenshtein, or 1 - resemblance), duplicate (the verdict), by;
    or, by "cluster", one of the cluster a checked text joins: not
    compared with it (distance None), or compared and refused by the
    verdict (its distance), yet in the cluster."""
    __slots__ = ("docid", "uid", "distance", "duplicate", "by", "jaccard")

    def __init__(self, docid, uid, distance, duplicate, by, jaccard=None):
        self.docid, self.uid, self.distance = docid, uid, distance
        self.duplicate, self.by, self.jaccard = duplicate, by, jaccard

    def __repr__(self):
        return "Duplicate(docid=%d, uid=%r, distance=%s, duplicate=%s, by=%r)" % (
            self.docid, self.uid, "None" if self.distance is None else "%.3f" % self.distance, self.duplicate,
            self.by)


class Checked(list):
    """check()'s Duplicates, with cluster (the collapse id of the cluster
    the text would join, None for none) and cluster_size (its documents)."""
    __slots__ = ("cluster", "cluster_size")


class Change:
    """What nd_hook_changed did: docid, change ("added", "replaced",
    "deleted", "none"), key, candidates, duplicates (list of Duplicate:
    those the hook compared, then at the copy point up to
    CHECK_CLUSTER_LISTED other documents of its cluster, by "cluster"),
    cluster (the collapse id of the cluster it is in, its own docid when
    alone; None when deleted) and cluster_size."""
    __slots__ = ("docid", "change", "key", "candidates", "duplicates", "cluster", "cluster_size")

    def __init__(self, docid, change, key, candidates, duplicates, cluster=None, cluster_size=0):
        self.docid, self.change, self.key = docid, change, key
        self.candidates, self.duplicates = candidates, duplicates
        self.cluster, self.cluster_size = cluster, cluster_size

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
    if not isinstance(name, str):
        raise TypeError("point must be a str, not %s" % type(name).__name__)
    if name not in POINTS:
        raise ValueError("point is one of %s, not %r" % (", ".join(POINTS), name))
    return POINTS.index(name)


def _verify_options(point):
    vo = _ffi.new("nd_verify_options *")
    vo.max_distance, vo.max_exact_words, vo.min_resemblance = 0.08, 20000, 0.875
    vo.shingle_width, vo.max_leaders, vo.batch, vo.max_held_bytes = 10, 8, _ffi.NULL, 256 << 20
    vo.point = _point(point)
    return vo


def _serial(method):
    """One call at a time on a Neardup, and none after close()."""
    def run(self, *args, **kw):
        with self._lock:
            if not self._h:
                raise Closed(-15, "this Neardup is closed")
            return method(self, *args, **kw)
    run.__name__, run.__doc__ = method.__name__, method.__doc__
    return run


class Neardup:
    """A Xapian database and its neardup store (made by `neardup build` and
    `neardup sign`).  writable: the store is opened for writing (hooks);
    one writer at a time.  point: what counts as a duplicate ("copy", the
    default; "strict"; "story").  max_doc_mb: check() refuses longer
    texts; max_query_terms: search() refuses longer queries.
    group_commit: changed() holds its store writes until commit() (call it
    after your database's commit: one fsync a batch instead of one a
    document).  Close it, or use it as a context manager (both commit)."""

    def __init__(self, db, store, writable=False, point="copy", max_doc_mb=64, max_query_terms=1000,
                 group_commit=False):
        self._lock = threading.RLock()
        self._h = None
        dbpath, stpath = _path(db, "db"), _path(store, "store")
        self.point = point
        o = _ffi.new("nd_open_options *")
        o.point = _point(point)
        o.max_compare, o.max_drift = CHECK_COMPARE, 0.5
        o.max_query_terms = _count(max_query_terms, "max_query_terms", 1, 1000000)
        o.group_commit = 1 if group_commit else 0
        self._max_doc = _count(max_doc_mb, "max_doc_mb", 1, 4096) << 20
        self._writable = bool(writable)
        h = _ffi.new("nd_handle **")
        _check(_lib.nd_open(h, dbpath, stpath, 1 if writable else 0, o))
        self._h = h[0]
        self._db, self._st = _lib.nd_handle_db(self._h), _lib.nd_handle_store(self._h)

    def close(self):
        """Free everything; waits for a call running in another thread."""
        with self._lock:
            self._free()

    def _free(self):
        if self._h:
            _lib.nd_close(self._h)
        self._h = self._db = self._st = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        lock = getattr(self, "_lock", None)
        if lock is not None and lock.acquire(blocking=False):
            try:
                self._free()
            finally:
                lock.release()

    def _uid(self, docid):
        out = _ffi.new("char **")
        if _lib.nd_xdb_doc_uid(self._db, docid, out) < 0 or out[0] == _ffi.NULL:
            return None
        try:
            return _ffi.string(out[0]).decode("utf-8", "replace")
        finally:
            _libc.free(out[0])

    def _degraded(self):
        """Warn when the links are to be made again (collapsing folds less)."""
        txn = _ffi.new("nd_store_txn **")
        if _lib.nd_store_read_begin(self._st, txn) < 0:
            return
        state = _lib.nd_store_links_state(txn[0])
        _lib.nd_store_txn_end(txn[0])
        if state == _LINKS_REBUILD:
            warnings.warn(DegradedWarning("store's links are to be made again: until a writer makes them "
                                          "(neardup update, or a hook), only verified equal-key groups "
                                          "fold"), stacklevel=3)

    @_serial
    def uid(self, docid):
        """The document's unique id (its Q or U term), or None."""
        return self._uid(_count(docid, "docid", 1))

    @_serial
    def refresh(self):
        """See the database's latest commit (made by another handle, such as
        python3-xapian's WritableDatabase)."""
        _check(_lib.nd_xdb_reopen(self._db, _ffi.NULL))

    @_serial
    def check(self, text, compare=CHECK_COMPARE, point=None):
        """The documents already indexed that `text` (str or bytes, not yet
        indexed) duplicates, at the point: a Checked list of Duplicate, the
        first `compare` candidates (those with .duplicate True the
        verdict's, or by "cluster" refused by it but in the cluster the
        text would join), then at the copy point up to CHECK_CLUSTER_LISTED
        other documents of that cluster (by "cluster"), as `neardup check
        --json` lists them."""
        if isinstance(text, str):
            data = text.encode("utf-8", "surrogatepass")
        elif isinstance(text, (bytes, bytearray, memoryview)):
            data = bytes(text)
        else:
            raise TypeError("text must be str or bytes, not %s" % type(text).__name__)
        if len(data) > self._max_doc:
            raise TooBig(-16, "text of %d bytes is over max_doc_mb (%d MiB)" % (len(data), self._max_doc >> 20))
        compare = _count(compare, "compare", 1, 4096)
        vo = _verify_options(point or self.point)
        self._degraded()
        r = _ffi.new("nd_check_result *")
        try:
            _check(_lib.nd_check_text(_lib.nd_handle_tokenizer(self._h), _lib.nd_handle_descriptor(self._h),
                                      self._db, self._st, data, len(data), vo, compare, r))
            out = Checked(Duplicate(m.docid, self._uid(m.docid), m.distance, bool(m.duplicate),
                                    _HOW[m.how] if m.duplicate else None, m.jaccard)
                          for m in (r.members[i] for i in range(r.nmembers)))
            cid, size, rest, nrest = (_ffi.new("nd_docid *"), _ffi.new("size_t *"), _ffi.new("nd_docid **"),
                                      _ffi.new("size_t *"))
            _check(_lib.nd_check_cluster(self._db, self._st, vo, r, CHECK_CLUSTER_LISTED, cid, size, rest, nrest))
            try:
                # Of the cluster, those compared but refused are in it still
                # (as clusters, collapsing and changed() hold them).
                held = {rest[0][i] for i in range(nrest[0])}
                at = {d.docid: k for k, d in enumerate(out)}
                for x in sorted(held & set(at)):
                    d = out[at[x]]
                    out[at[x]] = Duplicate(d.docid, d.uid, d.distance, True, "cluster", d.jaccard)
                out.extend(Duplicate(x, self._uid(x), None, True, "cluster")
                           for x in (rest[0][i] for i in range(nrest[0])) if x not in at)
            finally:
                _libc.free(rest[0])
            out.cluster, out.cluster_size = cid[0] or None, size[0]
            return out
        finally:
            _lib.nd_check_result_clear(r)

    @_serial
    def changed(self, docid):
        """Document docid was added, replaced or deleted in the database
        (committed): sign it, store it, and return a Change with its
        duplicates.  Needs writable=True.  A docid no longer in the
        database is a deletion; an unchanged document is change "none".  A
        store that keeps collapse ids in a value slot writes them through a
        handle of its own: close your WritableDatabase first (else Locked)."""
        docid = _count(docid, "docid", 1)
        r = _ffi.new("nd_hook_result *")
        try:
            _check(_lib.nd_changed(self._h, docid, r))
            dups = [Duplicate(v.docid, self._uid(v.docid), v.distance, True, _HOW[v.how])
                    for v in (r.duplicates[i] for i in range(r.nduplicates))]
            # The cluster it is in: a page copied a thousand times is
            # compared with a window's worth of them.
            cid, size, mem, nmem = (_ffi.new("nd_docid *"), _ffi.new("size_t *"), _ffi.new("nd_docid **"),
                                    _ffi.new("size_t *"))
            vo = _verify_options(self.point)
            _check(_lib.nd_collapse_cluster(self._db, self._st, vo, docid, CHECK_CLUSTER_LISTED + len(dups) + 1,
                                            cid, size, mem, nmem))
            try:
                if self.point == "copy":
                    known = {d.docid for d in dups} | {r.docid}
                    dups.extend(Duplicate(x, self._uid(x), None, True, "cluster")
                                for x in (mem[0][i] for i in range(nmem[0])) if x not in known)
                    del dups[r.nduplicates + CHECK_CLUSTER_LISTED:]
            finally:
                _libc.free(mem[0])
            return Change(r.docid, _CHANGE[r.change], r.key, r.candidates, dups, cid[0] or None, size[0])
        finally:
            _lib.nd_hook_result_clear(r)

    def deleted(self, docid):
        """Document docid was deleted (and the deletion committed)."""
        return self.changed(docid)

    @_serial
    def commit(self):
        """With group_commit: store what changed() held since the last
        commit, in one transaction.  Nothing held: does nothing."""
        _check(_lib.nd_commit(self._h))

    @_serial
    def window(self):
        """The store's feed window: (seconds, date_slot) with date_slot
        None when documents are dated by arrival, or None without one."""
        w = _ffi.new("nd_window *")
        _check(_lib.nd_window_get(self._st, w))
        return (w.seconds, None if w.slot < 0 else w.slot) if w.seconds else None

    @_serial
    def set_window(self, duration, date_slot=None):
        """Keep only the documents dated within duration (seconds, or a
        string such as "24h" or "7d"; None removes the window) of the
        newest: older records leave the store (not the database) as later
        changes move its clock.  date_slot: the value slot holding each
        document's date, or None to date them by arrival.  Needs
        writable=True; neardup update --window is the same from the
        command line."""
        w = _ffi.new("nd_window *")
        w.slot = -1 if date_slot is None else _count(date_slot, "date_slot", 0, 65534)
        if duration is None:
            w.seconds = 0
        elif isinstance(duration, (str, bytes)):
            secs = _ffi.new("uint64_t *")
            _check(_lib.nd_duration_parse(_string(duration, "duration"), secs))
            w.seconds = secs[0]
        else:
            w.seconds = _count(duration, "duration", 1, 2 ** 40)
        _check(_lib.nd_window_set(self._st, w))

    @_serial
    def search(self, query, limit=10, offset=0, collapse="filter", depth=1000, stemmer=None, prefixes=(),
               boolean_prefixes=()):
        """Ranked results for a Xapian QueryParser query (str or bytes),
        duplicates folded (collapse: "filter", "native" (needs `sign
        --value-slot`), "tolerant" or "none"): a list of Hit.  stemmer (a
        Snowball language or "none"), prefixes and boolean_prefixes
        ("field:PREFIX" strings) parse it as quest's -s, -p and -b do;
        without any, as the database was indexed where its terms say so
        (an omindex database: English and Omega's fields)."""
        q = _string(query, "query")
        if stemmer is not None or prefixes or boolean_prefixes:
            keep = [_string(x, "prefix") for x in list(prefixes) + list(boolean_prefixes)]
            arr = [_ffi.new("char[]", x) for x in keep]
            p = _ffi.new("const char *[]", arr[:len(prefixes)] or [_ffi.NULL])
            b = _ffi.new("const char *[]", arr[len(prefixes):] or [_ffi.NULL])
            _check(_lib.nd_xdb_set_query_parser(self._db, _string(stemmer or "none", "stemmer"), p, len(prefixes),
                                                b, len(boolean_prefixes)))
        else:
            _lib.nd_xdb_set_query_parser(self._db, _ffi.NULL, _ffi.NULL, 0, _ffi.NULL, 0)
        limit = _count(limit, "limit", 1, 1000000)
        offset = _count(offset, "offset", 0, 1000000)
        depth = _count(depth, "depth", 1, 1000000)
        if collapse not in _MODES:
            raise ValueError("collapse is one of %s, not %r" % (", ".join(_MODES), collapse))
        if collapse != "none":
            self._degraded()
        hits = _ffi.new("nd_xdb_hit[]", limit)
        n = _ffi.new("size_t *")
        _check(_lib.nd_search(self._db, self._st, q, _MODES[collapse], offset, limit, max(depth, offset + limit),
                              hits, n, _ffi.NULL))
        return [Hit(hits[i].docid, self._uid(hits[i].docid), hits[i].weight, hits[i].collapsed)
                for i in range(n[0])]

    @_serial
    def clusters(self, point=None, min_size=2, jobs=1, of=None):
        """The point's clusters of every signed document (as `neardup
        clusters --point`): a list of docid lists, largest first.  With
        of (a docid), only the copy cluster that document is in, whatever
        its size (as `neardup clusters --of`), read from the store's
        links; [] when the store holds no record of it."""
        if of is not None:
            if (point or "copy") != "copy":
                raise ValueError("of= reads the copy point's clusters, not %r" % point)
            cid, size, mem, nmem = (_ffi.new("nd_docid *"), _ffi.new("size_t *"), _ffi.new("nd_docid **"),
                                    _ffi.new("size_t *"))
            _check(_lib.nd_collapse_cluster(self._db, self._st, _ffi.NULL, _count(of, "of", 1), 2 ** 32, cid, size,
                                            mem, nmem))
            try:
                return [[mem[0][i] for i in range(nmem[0])]] if cid[0] else []
            finally:
                _libc.free(mem[0])
        p = _point(point or self.point)
        min_size = _count(min_size, "min_size", 1)
        o = _ffi.new("nd_clusters_options *")
        o.jobs, o.cut, o.complete, o.progress, o.ctx = _count(jobs, "jobs", 1, 64), 0.0, 64, _ffi.NULL, _ffi.NULL
        docs, into, n = _ffi.new("nd_docid **"), _ffi.new("size_t **"), _ffi.new("size_t *")
        _check(_lib.nd_clusters(self._db, self._st, p, o, docs, into, n, _ffi.NULL))
        try:
            groups = {}
            for i in range(n[0]):
                groups.setdefault(into[0][i], []).append(docs[0][i])
        finally:
            _libc.free(docs[0])
            _libc.free(into[0])
        out = [g for g in groups.values() if len(g) >= min_size]
        out.sort(key=lambda g: (-len(g), g[0]))
        return out
