"""The Python package (python/neardup) end to end, with Debian's
python3-xapian as the indexer: check before indexing, index with Xapian,
changed() after the commit, search with collapsing, clusters, deletion,
errors as exceptions, and the README's crawler loop as written there.

    NEARDUP=path/to/neardup README=README.md python3 -m pytest tests/python

tests/python/run.sh runs it from meson, and skips (exit 77) with a clear
message when pytest, cffi or the xapian bindings are missing
(apt-get install python3-pytest python3-cffi python3-xapian)."""
import json
import os
import random
import re
import subprocess
import sys

import pytest

xapian = pytest.importorskip("xapian")
neardup = pytest.importorskip("neardup")

VOCAB = ["w%sa" % "".join(chr(97 + int(c)) for c in "%04d" % i) for i in range(2000)]


def text(fam, n=200):
    r = random.Random(fam)
    return [VOCAB[min(int(r.paretovariate(1.1)) * 7 % 2000, 1999)] if r.random() < .5
            else r.choice(VOCAB) for _ in range(n)]


def edit(words, seed, k):
    r = random.Random(seed)
    w = list(words)
    for _ in range(k):
        w[r.randrange(len(w))] = r.choice(VOCAB)
    return " ".join(w)


@pytest.fixture
def corpus(tmp_path):
    """80 families of 1-3 near-identical documents, indexed, built and
    signed by the neardup command: (db, store) paths."""
    nd = os.environ["NEARDUP"]
    with open(tmp_path / "corpus.jsonl", "w") as f:
        for fam in range(80):
            for c in range(fam % 3 + 1):
                f.write(json.dumps({"id": "f%d.%d" % (fam, c), "text": edit(text(fam), fam * 10 + c, c)}) + "\n")
    db, st = str(tmp_path / "db"), str(tmp_path / "store")
    for args in (["index", "-q", "--db", db, str(tmp_path / "corpus.jsonl")],
                 ["build", "-q", "--db", db, "--store", st, "--words", "300"],
                 ["sign", "-q", "--db", db, "--store", st]):
        subprocess.run([nd] + args, check=True, stdout=subprocess.DEVNULL)
    return db, st


def index_with_xapian(db_path, uid, body):
    wdb = xapian.WritableDatabase(db_path, xapian.DB_OPEN)
    tg = xapian.TermGenerator()
    doc = xapian.Document()
    tg.set_document(doc)
    tg.index_text(body)
    doc.add_boolean_term("Q" + uid)
    docid = wdb.replace_document("Q" + uid, doc)
    wdb.commit()
    wdb.close()
    return docid


def signed_elsewhere(db, st):
    """Documents the store holds as another process reads it."""
    out = subprocess.run([os.environ["NEARDUP"], "clusters", "--db", db, "--store", st, "--json"],
                         check=True, stdout=subprocess.PIPE, text=True).stdout
    return json.loads(out)["documents_signed"]


def test_check_compare_is_the_libraries(corpus):
    """The binding compares as many candidates as the C library unless
    told, and a check lists that many of a text with more candidates."""
    header = os.path.join(os.path.dirname(neardup.__file__), "..", "..", "include", "neardup", "check.h")
    want = int(re.search(r"#define ND_CHECK_COMPARE (\d+)", open(header).read()).group(1))
    assert neardup.CHECK_COMPARE == want
    listed = int(re.search(r"#define ND_CHECK_CLUSTER_LISTED (\d+)", open(header).read()).group(1))
    assert neardup.CHECK_CLUSTER_LISTED == listed
    db, store = corpus
    with neardup.Neardup(db, store) as nd:
        compared = lambda found: [d for d in found if d.by != "cluster"]
        assert len(compared(nd.check(" ".join(text(3))))) == want  # of more candidates
        assert len(compared(nd.check(" ".join(text(3)), compare=2))) == 2


def test_group_commit(corpus):
    """changed() holds its store writes until commit(): other processes
    see the batch then; its duplicates are found meanwhile."""
    db, st = corpus
    before = signed_elsewhere(db, st)
    with neardup.Neardup(db, st, writable=True, group_commit=True) as nd:
        for k in range(3):
            docid = index_with_xapian(db, "batch%d" % k, edit(text(7), 70 + k, 2))
            r = nd.changed(docid)
            assert r.change == "added" and "f7.0" in {d.uid for d in r.duplicates}, r
        assert signed_elsewhere(db, st) == before
        nd.commit()
        assert signed_elsewhere(db, st) == before + 3
        docid = index_with_xapian(db, "batch3", edit(text(7), 73, 2))
        assert nd.changed(docid).change == "added"
    assert signed_elsewhere(db, st) == before + 4  # closing commits


def test_errors_are_exceptions(corpus, tmp_path):
    db, st = corpus
    with pytest.raises(neardup.Error) as e:
        neardup.Neardup(db, str(tmp_path / "nostore"))
    assert e.value.name == "ND_ENOTFOUND" and "nostore" in str(e.value)
    with pytest.raises(ValueError):
        neardup.Neardup(db, st, point="loose")
    with neardup.Neardup(db, st) as nd:
        with pytest.raises(neardup.Error):
            nd.changed(1)  # read-only


def test_check_names_a_refused_member_of_its_cluster(tmp_path):
    """Two copies of one original, each edited in its own half, are copies
    of it and not of each other; the clusters hold the three together, so
    check of the one names the other a duplicate by "cluster", with the
    distance the verdict refused it at, as changed() and clusters do."""
    nd_cmd = os.environ["NEARDUP"]
    r = random.Random(8)
    orig = [r.choice(VOCAB) for _ in range(300)]

    def half(lo):
        w = list(orig)
        for i in r.sample(range(lo, lo + 150), 25):
            w[i] = r.choice(VOCAB)
        return " ".join(w)
    a, b = half(0), half(150)
    with open(tmp_path / "c.jsonl", "w") as f:
        for uid, t in (("orig", " ".join(orig)), ("a", a), ("b", b)):
            f.write(json.dumps({"id": uid, "text": t}) + "\n")
        for i in range(60):
            f.write(json.dumps({"id": "o%d" % i, "text": " ".join(r.choice(VOCAB) for _ in range(250))}) + "\n")
    db, st = str(tmp_path / "db"), str(tmp_path / "store")
    for args in (["index", "-q", "--db", db, str(tmp_path / "c.jsonl")], ["build", "-q", "--db", db, "--store", st],
                 ["sign", "-q", "--db", db, "--store", st]):
        subprocess.run([nd_cmd] + args, check=True, stdout=subprocess.DEVNULL)
    with neardup.Neardup(db, st) as nd:
        found = nd.check(a)
        by = {d.uid: d for d in found}
        assert by["orig"].duplicate and by["orig"].by == "resemblance", found
        assert by["b"].duplicate and by["b"].by == "cluster" and by["b"].distance > 0.5, by["b"]
        assert found.cluster_size == 3 and len(by) == len(found), found
        assert sorted(nd.uid(x) for x in nd.clusters(of=by["b"].docid)[0]) == ["a", "b", "orig"]


def test_check_then_index_then_changed(corpus):
    db, st = corpus
    with neardup.Neardup(db, st, writable=True) as nd:
        page = edit(text(5), 999, 2)  # a copy of family 5 (3 members)
        found = nd.check(page)
        dups = {d.uid for d in found if d.duplicate}
        assert dups == {"f5.0", "f5.1", "f5.2"}, found
        # a few words of 200 changed: most of the texts' shingles agree
        assert all(d.by == "resemblance" and d.distance <= 0.2 for d in found if d.duplicate), [d for d in found if d.duplicate]
        assert not any(d.duplicate for d in nd.check(edit(text(5000), 1, 0)))
        # The cluster it would join, as `neardup check` names it; compared
        # with one candidate, the rest of the cluster comes from the store.
        assert found.cluster == min(d.docid for d in found if d.duplicate) and found.cluster_size == 3, found
        one = nd.check(page, compare=1)
        assert (one.cluster, one.cluster_size) == (found.cluster, 3), one
        assert [d.by for d in one[1:]] == ["cluster", "cluster"] and {d.uid for d in one if d.duplicate} == dups, one
        strict = nd.check(page, compare=1, point="strict")  # the cluster named, its rest not listed
        assert strict.cluster == found.cluster and [d.by for d in strict] == ["levenshtein"], strict

        docid = index_with_xapian(db, "copy5", page)
        r = nd.changed(docid)
        assert r.change == "added" and {d.uid for d in r.duplicates} == dups, r
        assert (r.cluster, r.cluster_size) == (found.cluster, 4), (r.cluster, r.cluster_size)
        assert nd.uid(docid) == "copy5"

        # Search: the copy and its family fold into one result.
        plain = nd.search("waabea OR waaaha", limit=500, collapse="none")
        folded = nd.search("waabea OR waaaha", limit=500, collapse="filter")
        fam5 = {h.docid for h in plain if h.uid in dups | {"copy5"}}
        kept5 = [h for h in folded if h.docid in fam5]
        assert len(folded) < len(plain)
        assert len(fam5) == 4 and len(kept5) == 1 and kept5[0].collapsed == 3, (fam5, kept5)

        # The copy point's clusters: family 5 with the copy.
        groups = [{nd.uid(d) for d in g} for g in nd.clusters()]
        assert dups | {"copy5"} in groups

        # Deleted in Xapian, then told.
        wdb = xapian.WritableDatabase(db, xapian.DB_OPEN)
        wdb.delete_document(docid)
        wdb.commit()
        wdb.close()
        gone = nd.deleted(docid)
        assert gone.change == "deleted" and (gone.cluster, gone.cluster_size) == (None, 0), gone
        after = {h.docid for h in nd.search("waabea OR waaaha", limit=500, collapse="none")}
        assert after == {h.docid for h in plain} - {docid}


def test_changed_names_its_cluster(tmp_path):
    """A page copied many times: changed() reports the copies it compared,
    then the rest of the cluster it is in, each document once."""
    page = "Sorry, the page you asked for could not be found. Try the search box or go back."
    r = random.Random(7)
    with open(tmp_path / "c.jsonl", "w") as f:
        for i in range(150):
            f.write(json.dumps({"id": "gone%d" % i, "text": page}) + "\n")
        for i in range(40):
            f.write(json.dumps({"id": "p%d" % i, "text": " ".join(r.choice(VOCAB) for _ in range(150))}) + "\n")
    db, st = str(tmp_path / "db"), str(tmp_path / "store")
    for args in (["index", "-q", "--db", db, str(tmp_path / "c.jsonl")], ["build", "-q", "--db", db, "--store", st],
                 ["sign", "-q", "--db", db, "--store", st]):
        subprocess.run([os.environ["NEARDUP"]] + args, check=True, stdout=subprocess.DEVNULL)
    with neardup.Neardup(db, st, writable=True) as nd:
        docid = index_with_xapian(db, "gone-again", page)
        c = nd.changed(docid)
        ids = [d.docid for d in c.duplicates]
        compared = [d for d in c.duplicates if d.by != "cluster"]
        assert c.change == "added" and c.cluster == 1 and c.cluster_size == 151, (c.cluster, c.cluster_size)
        assert len(ids) == len(set(ids)) == 150 and docid not in ids, len(ids)
        assert 0 < len(compared) < 150 and all(d.duplicate and d.distance is None for d in c.duplicates[len(compared):])
        lone = nd.changed(index_with_xapian(db, "lone", " ".join(r.choice(VOCAB) for _ in range(150))))
        assert (lone.cluster, lone.cluster_size, lone.duplicates) == (lone.docid, 1, []), lone
        # The same clusters asked of the store afterwards, as `clusters --of`.
        (members,) = nd.clusters(of=docid)
        assert members == sorted(ids + [docid]) and members[0] == c.cluster, members[:3]
        assert nd.clusters(of=lone.docid) == [[lone.docid]] and nd.clusters(of=10 ** 6) == []
        with pytest.raises(ValueError):
            nd.clusters(point="story", of=docid)


def test_points(corpus):
    """A page in a template: copy names its family, strict does not."""
    db, st = corpus
    frame = " ".join(VOCAB[1999 - (i * 37) % 300] for i in range(40))
    page = frame + " " + edit(text(11), 997, 1) + " " + frame  # family 11: 3 members
    with neardup.Neardup(db, st) as nd:
        copy = {d.uid for d in nd.check(page, compare=16) if d.duplicate}
        strict = {d.uid for d in nd.check(page, compare=16, point="strict") if d.duplicate}
    assert copy == {"f11.0", "f11.1", "f11.2"} and strict == set(), (copy, strict)


def test_readme_crawler_loop(corpus, tmp_path):
    db, st = corpus
    readme = open(os.environ["README"]).read()
    loop = re.search(r"<!-- python-loop -->\n```python\n(.*?)```", readme, re.S)
    assert loop, "docs/python.md has no python crawler loop"
    (tmp_path / "a.txt").write_text(edit(text(7), 5, 1))      # family 7: 2 members
    (tmp_path / "b.txt").write_text(edit(text(7000), 5, 0))   # new
    out = subprocess.run([sys.executable, "-c", loop.group(1), db, st, str(tmp_path / "a.txt"),
                          str(tmp_path / "b.txt")], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert re.search(r"a\.txt: docid \d+, 2 duplicates \(2 seen", out.stdout), out.stdout
    assert re.search(r"b\.txt: docid \d+, 0 duplicates \(0 seen", out.stdout), out.stdout


def test_errors_by_kind(corpus, tmp_path):
    db, st = corpus
    with pytest.raises(neardup.NotFound) as e:
        neardup.Neardup(db, str(tmp_path / "nostore"))
    assert isinstance(e.value, FileNotFoundError) and isinstance(e.value, neardup.Error)
    assert "nostore" in str(e.value) and e.value.name == "ND_ENOTFOUND"
    with pytest.raises(ValueError):
        neardup.Neardup(db, st + "\0x")          # a NUL cuts no path short
    with pytest.raises(TypeError):
        neardup.Neardup(42, st)
    with neardup.Neardup(db, st) as nd:
        with pytest.raises(TypeError):
            nd.check(42)                          # not 42 NUL bytes
        with pytest.raises(TypeError):
            nd.search(None)
        with pytest.raises(ValueError):
            nd.search("a\0b")
        assert [h.docid for h in nd.search(b"waabea")] == [h.docid for h in nd.search("waabea")]
        with pytest.raises(ValueError):
            nd.search("waabea", limit=-1)         # not cffi's OverflowError
        with pytest.raises(ValueError):
            nd.uid(0)
        with pytest.raises(neardup.InvalidState):
            nd.changed(1)                         # read-only
        with pytest.raises(neardup.TooBig):
            nd.search(" ".join(VOCAB[:1500]))     # more terms than max_query_terms
    with neardup.Neardup(db, st, max_doc_mb=1) as nd:
        with pytest.raises(neardup.TooBig):
            nd.check("word " * 300000)
    assert re.match(r"\d+\.\d+\.\d+$", neardup.__version__)


def test_every_point_clusters(corpus):
    db, st = corpus
    nd_cmd = os.environ["NEARDUP"]
    with neardup.Neardup(db, st) as nd:
        for point in neardup.POINTS:
            mine = sorted(sorted(g) for g in nd.clusters(point))
            out = subprocess.run([nd_cmd, "clusters", "--db", db, "--store", st, "--point", point, "--json"],
                                 capture_output=True, text=True, check=True)
            theirs = sorted(sorted(d["docid"] for d in c["documents"]) for c in json.loads(out.stdout)["clusters"])
            assert mine == theirs, point
            assert len(mine) >= 20, point


def test_one_handle_many_threads(corpus):
    """Calls from threads run one at a time; close() from another thread
    waits for the running call, and calls after it raise Closed."""
    import threading
    db, st = corpus
    nd = neardup.Neardup(db, st)
    errors, done = [], []

    def work(i):
        try:
            for k in range(30):
                nd.check(edit(text(i), k, 1))
                nd.search("waabea OR waaaha", limit=20)
            done.append(i)
        except neardup.Closed:
            done.append(i)
        except Exception as e:  # noqa: BLE001 -- any other is a failure
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    nd.close()  # while they run
    for t in threads:
        t.join()
    assert not errors and len(done) == 6, errors
    with pytest.raises(neardup.Closed):
        nd.check("anything")


def test_degraded_links_warn(corpus):
    db, st = corpus
    subprocess.run([os.environ["NEARDUP"], "sign", "-q", "--db", db, "--store", st, "--restart", "--no-links"],
                   check=True)
    with neardup.Neardup(db, st) as nd:
        with pytest.warns(neardup.DegradedWarning):
            nd.search("waabea")
    with neardup.Neardup(db, st, writable=True) as nd:
        docid = index_with_xapian(db, "late", edit(text(9), 3, 1))
        assert nd.changed(docid).change == "added"   # the writer makes every link
    with neardup.Neardup(db, st) as nd:
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            nd.search("waabea")


def test_kept_slot_loop(corpus):
    """A store that keeps collapse ids: changed() writes them through a
    handle of its own, between the indexer's commits."""
    db, st = corpus
    subprocess.run([os.environ["NEARDUP"], "sign", "-q", "--db", db, "--store", st, "--value-slot", "20"],
                   check=True)
    with neardup.Neardup(db, st, writable=True) as nd:
        docid = index_with_xapian(db, "copy3", edit(text(3), 77, 1))   # family 3: 1 member
        r = nd.changed(docid)
        assert r.change == "added" and len(r.duplicates) == 1, r
        value = xapian.Database(db).get_document(docid).get_value(20)
        assert len(value) == 4 and int.from_bytes(value, "big") == min(docid, r.duplicates[0].docid)
        assert nd.changed(docid).change == "none"          # the same document again
        wdb = xapian.WritableDatabase(db, xapian.DB_OPEN)
        try:
            with pytest.raises(neardup.Locked):
                nd.changed(docid)
        finally:
            wdb.close()


def test_struct_layouts_match_the_headers(tmp_path):
    """The package's cdef repeats the public structs; a field or an array
    size changed in a header without it would corrupt memory, not fail."""
    from neardup import _ffi
    src = os.path.join(os.path.dirname(__file__), "..", "..", "python", "neardup", "__init__.py")
    names = sorted(set(re.findall(r"}\s*(nd_[a-z_]+)\s*;", open(src).read())))
    assert "nd_sig" in names and "nd_check_result" in names
    prog = tmp_path / "sizes.c"
    prog.write_text('#include <stdio.h>\n#include "neardup.h"\nint main(void) {\n' +
                    "".join('printf("%%s %%zu\\n", "%s", sizeof(%s));\n' % (n, n) for n in names) + "return 0; }\n")
    inc = os.path.join(os.path.dirname(__file__), "..", "..", "include")
    subprocess.run(["cc", "-std=c11", "-I", inc, "-o", str(tmp_path / "sizes"), str(prog)], check=True)
    out = subprocess.run([str(tmp_path / "sizes")], capture_output=True, text=True, check=True).stdout
    for line in out.split("\n"):
        if line:
            name, size = line.split()
            assert _ffi.sizeof(name) == int(size), "%s: %d bytes in the package, %s in the headers" % (
                name, _ffi.sizeof(name), size)


def test_search_parser_settings(corpus):
    """stemmer and prefixes parse as quest's -s, -p and -b; a database
    without Z terms gets no stemming by default."""
    db, st = corpus
    ids = lambda hits: [h.docid for h in hits]
    with neardup.Neardup(db, st) as nd:
        plain = ids(nd.search("waabea", limit=500, collapse="none"))
        assert plain
        # English stems search Z terms, which neardup's database lacks.
        assert nd.search("waabea", limit=500, collapse="none", stemmer="english") == []
        assert ids(nd.search("waabea", limit=500, collapse="none", stemmer="none")) == plain
        assert ids(nd.search("w:aabea", limit=500, collapse="none", prefixes=["w:w"])) == plain
        assert ids(nd.search("waabea", limit=500, collapse="none")) == plain  # the default again
        with pytest.raises(ValueError):
            nd.search("x", stemmer="klingon")
        with pytest.raises(ValueError):
            nd.search("x", prefixes=["title"])


def test_feed_window_by_arrival(corpus):
    """A window of one second by arrival: a second later, the next change
    lets everything older go, so a copy of family 5 finds no duplicate."""
    import time
    db, st = corpus
    with neardup.Neardup(db, st, writable=True) as nd:
        assert nd.window() is None
        with pytest.raises(ValueError):
            nd.set_window("5x")
        nd.set_window("1s")
        assert nd.window() == (1, None)
        assert {d.uid for d in nd.check(edit(text(5), 999, 2)) if d.duplicate} == {"f5.0", "f5.1", "f5.2"}
        time.sleep(2)
        r = nd.changed(index_with_xapian(db, "late5", edit(text(5), 998, 1)))
        assert r.change == "added" and r.duplicates == [], r
        assert not any(d.duplicate for d in nd.check(edit(text(5), 999, 2)) if d.uid != "late5")
        nd.set_window(None)
        assert nd.window() is None
    with neardup.Neardup(db, st) as nd:
        with pytest.raises(neardup.Error):
            nd.set_window(60)  # read-only
