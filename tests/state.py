#!/usr/bin/env python3
"""State that must not diverge silently, and stores with nothing in them.

- Empty stores (built and not signed; every document deleted; an empty
  shard, and a shard none of whose documents are near the results): every
  command exits 0 or 1 with a message, never a crash or a sanitizer report.
- A store that keeps a collapse slot keeps it: `sign` without
  --value-slot writes the new documents' ids, fails while another process
  holds the database's write lock, moves the ids to another slot (the old
  one emptied) and stops keeping them with 'none'.
- Links a writer did not make (`sign --no-links`) are reported by fsck
  (exit 1) and by search and check (a warning), and the next writer of any
  kind makes them: a hook of the crawler example, or update.
- The same page hooked again is unchanged: no change reported, no drift.
- update beside an indexer that commits every 10 ms succeeds, every time.

    state.py NEARDUP CRAWL-EXAMPLE
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ndtest import corpus, expect, must, passed, run  # noqa: E402


def ran_clean(p, what):
    """Exit 0, or 1 with a message; never a signal or a sanitizer report."""
    expect(p.returncode in (0, 1) and "Sanitizer" not in p.stderr and "runtime error" not in p.stderr,
           what + " ran without crashing", p)
    if p.returncode == 1:
        expect(p.stderr.strip() != "", what + " says why it failed", p)


def every_command(nd, db, store, page, label):
    for args in (["clusters", "--store", store, "--keys"],
                 ["clusters", "--store", store, "--db", db, "--point", "copy"],
                 ["clusters", "--store", store, "--db", db, "--point", "story"],
                 ["clusters", "--store", store, "--db", db, "--point", "strict", "--json"],
                 ["check", "--db", db, "--store", store, page],
                 ["search", "--db", db, "--store", store, "--collapse", "filter", "w0003a"],
                 ["search", "--db", db, "--store", store, "--collapse", "tolerant", "w0003a"],
                 ["fsck", "--store", store],
                 ["fsck", "--store", store, "--db", db],
                 ["update", "--db", db, "--store", store],
                 ["sign", "--db", db, "--store", store]):
        ran_clean(run(nd, *args), "%s: %s" % (label, " ".join(args[:1] + args[-2:])))


def empty_stores(nd, tmp):
    j = lambda *a: os.path.join(tmp, *a)
    corpus(j("c.jsonl"), 200, 0)
    must(nd, "index", "-q", "--db", j("db"), j("c.jsonl"))
    must(nd, "build", "-q", "--db", j("db"), "--store", j("built"))
    with open(j("page.txt"), "w") as f:
        f.write(json.loads(open(j("c.jsonl")).readline())["text"])
    # Built, not signed: no records at all.
    shutil.copytree(j("built"), j("b1"))
    for args in (["clusters", "--store", j("b1"), "--db", j("db"), "--point", "copy"],
                 ["clusters", "--store", j("b1"), "--db", j("db"), "--point", "story"],
                 ["clusters", "--store", j("b1"), "--keys"],
                 ["search", "--db", j("db"), "--store", j("b1"), "w0003a"]):
        p = run(nd, *args)
        expect(p.returncode == 0, "a store with no records: " + " ".join(args[:1] + args[-2:]), p)
    every_command(nd, j("db"), j("b1"), j("page.txt"), "built, not signed")
    # Every document deleted: the records go at the next update.
    must(nd, "sign", "-q", "--db", j("db"), "--store", j("built"))
    ids = [json.loads(l)["id"] for l in open(j("c.jsonl"))]
    import xapian
    w = xapian.WritableDatabase(j("db"), xapian.DB_OPEN)
    for i in ids:
        w.delete_document("Q" + i)
    w.commit()
    w.close()
    p = must(nd, "update", "--db", j("db"), "--store", j("built"), "--max-drift", "0")
    expect("%d deleted" % len(ids) in p.stdout, "update deletes every record", p)
    p = must(nd, "clusters", "--store", j("built"), "--db", j("db"), "--point", "copy", "--json")
    expect(json.loads(p.stdout)["documents_signed"] == 0, "no records are left", p)
    every_command(nd, j("db"), j("built"), j("page.txt"), "every document deleted")


def shards(nd, tmp):
    """A shard whose documents are no result's neighbours, and an empty one."""
    j = lambda *a: os.path.join(tmp, *a)
    corpus(j("a.jsonl"), 150, 0)
    corpus(j("b.jsonl"), 150, 7000)
    must(nd, "index", "-q", "--db", j("sa"), j("a.jsonl"))
    must(nd, "index", "-q", "--db", j("sb"), j("b.jsonl"))
    with open(j("stub"), "w") as f:
        f.write("auto %s\nauto %s\n" % (j("sa"), j("sb")))
    must(nd, "build", "-q", "--db", j("stub"), "--store", j("set"))
    for s in ("sa", "sb"):
        must(nd, "build", "-q", "--db", j(s), "--store", j("st-" + s), "--from-store", j("set"))
        must(nd, "sign", "-q", "--db", j(s), "--store", j("st-" + s))
    query = " OR ".join(json.loads(l)["text"].split()[0] for l in open(j("a.jsonl")))
    p = run(nd, "search", "--db", j("stub"), "--store", j("st-sa"), "--store", j("st-sb"), "--depth", "300",
            query)
    ran_clean(p, "search over a shard with no near neighbours")
    expect(p.returncode == 0, "search over shards", p)
    # An empty shard: built from the set, no documents signed.
    open(j("sc.jsonl"), "w").write(json.dumps({"id": "lonely", "text": "w0001a w0002a"}) + "\n")
    must(nd, "index", "-q", "--db", j("sc"), j("sc.jsonl"))
    must(nd, "build", "-q", "--db", j("sc"), "--store", j("st-sc"), "--from-store", j("set"))
    with open(j("stub2"), "w") as f:
        f.write("auto %s\nauto %s\n" % (j("sa"), j("sc")))
    p = run(nd, "search", "--db", j("stub2"), "--store", j("st-sa"), "--store", j("st-sc"), query)
    ran_clean(p, "search over an empty shard")
    p = run(nd, "check", "--db", j("stub2"), "--store", j("st-sa"), "--store", j("st-sc"), j("a.jsonl"))
    ran_clean(p, "check over an empty shard")


def values(db, slot):
    import xapian
    d = xapian.Database(db)
    return {it.docid: it.value for it in d.valuestream(slot)} if hasattr(d, "valuestream") else \
        {i: d.get_document(i).get_value(slot) for i in range(1, d.get_lastdocid() + 1)
         if _has(d, i) and d.get_document(i).get_value(slot)}


def _has(d, i):
    try:
        d.get_document(i)
        return True
    except Exception:
        return False


def kept_slot(nd, tmp):
    j = lambda *a: os.path.join(tmp, *a)
    corpus(j("c.jsonl"), 300, 0)
    corpus(j("more.jsonl"), 60, 3000)
    must(nd, "index", "-q", "--db", j("db"), j("c.jsonl"))
    must(nd, "build", "-q", "--db", j("db"), "--store", j("st"))
    must(nd, "sign", "-q", "--db", j("db"), "--store", j("st"), "--value-slot", "20")
    expect(len(values(j("db"), 20)) > 20, "sign --value-slot 20 wrote collapse ids")
    # New documents, then sign without --value-slot: the slot is kept.
    must(nd, "index", "-q", "--db", j("db"), j("more.jsonl"))
    must(nd, "sign", "-q", "--db", j("db"), "--store", j("st"))
    p = run(nd, "fsck", "--store", j("st"), "--db", j("db"))
    expect(p.returncode == 0, "sign without --value-slot kept slot 20 for the new documents", p)
    # Another writer holds the database: sign must not pretend it kept the slot.
    import xapian
    w = xapian.WritableDatabase(j("db"), xapian.DB_OPEN)
    p = run(nd, "sign", "--db", j("db"), "--store", j("st"))
    w.close()
    expect(p.returncode == 1 and "lock" in p.stderr.lower(), "sign refuses while the database is write-locked", p)
    # Moved: the old slot emptied, the new one holding every id.
    before = values(j("db"), 20)
    must(nd, "sign", "-q", "--db", j("db"), "--store", j("st"), "--value-slot", "21")
    expect(values(j("db"), 20) == {}, "moving the slot removes the old slot's values")
    expect(values(j("db"), 21) == before, "the new slot holds the same collapse ids")
    p = run(nd, "fsck", "--store", j("st"), "--db", j("db"))
    expect(p.returncode == 0, "fsck after the move", p)
    must(nd, "sign", "-q", "--db", j("db"), "--store", j("st"), "--value-slot", "none")
    expect(values(j("db"), 21) == {}, "--value-slot none removes the ids")
    p = must(nd, "search", "--db", j("db"), "--store", j("st"), "w0003a")
    expect("collapse filter" in p.stdout, "search collapses by filter without a slot", p)


def pending_links(nd, crawl, tmp):
    j = lambda *a: os.path.join(tmp, *a)
    corpus(j("c.jsonl"), 300, 0)
    must(nd, "index", "-q", "--db", j("db"), j("c.jsonl"))
    must(nd, "build", "-q", "--db", j("db"), "--store", j("st"))
    must(nd, "sign", "-q", "--db", j("db"), "--store", j("st"), "--no-links")
    p = run(nd, "fsck", "--store", j("st"))
    expect(p.returncode == 1 and "links are to be made again" in p.stdout, "fsck reports links not made", p)
    p = must(nd, "search", "--db", j("db"), "--store", j("st"), "w0003a")
    expect("warning" in p.stderr and "equal-key" in p.stderr, "search warns that it folds less", p)
    lines = open(j("c.jsonl")).readlines()
    with open(j("page.txt"), "w") as f:
        f.write(json.loads(lines[0])["text"] + " and a new ending")
    p = must(nd, "check", "--db", j("db"), "--store", j("st"), j("page.txt"))
    expect("warning" in p.stderr, "check warns too", p)
    # One hook, of the crawler loop: every link is made.
    p = must(crawl, j("db"), j("st"), j("page.txt"))
    expect("added" in p.stdout, "the crawler added the page", p)
    p = run(nd, "fsck", "--store", j("st"), "--db", j("db"))
    expect(p.returncode == 0, "after one hook the links are made, and are the rule's", p)
    p = must(nd, "search", "--db", j("db"), "--store", j("st"), "w0003a")
    expect("warning" not in p.stderr, "no warning once they are made", p)
    # The same page again: unchanged, no drift.
    p = must(crawl, j("db"), j("st"), j("page.txt"))
    expect("unchanged" in p.stdout, "the same page again is unchanged", p)
    p = must(nd, "update", "--db", j("db"), "--store", j("st"))
    expect("0 added, 0 replaced, 0 deleted" in p.stdout, "update agrees nothing changed", p)


WRITER = """
import sys, time, xapian
db = xapian.WritableDatabase(sys.argv[1], xapian.DB_OPEN)
end, i = time.time() + float(sys.argv[2]), 0
while time.time() < end:
    doc, tg = xapian.Document(), xapian.TermGenerator()
    tg.set_document(doc)
    tg.index_text("an indexer's document number %d waaaab waaaac" % i)
    doc.add_boolean_term("Qbusy%d" % (i % 50))
    db.replace_document("Qbusy%d" % (i % 50), doc)
    db.commit()
    i += 1
    time.sleep(0.01)
print(i)
"""


def busy_indexer(nd, tmp):
    """update beside an indexer committing every 10 ms: the database changes
    under its walk, and it walks again itself (14 of 20 runs failed)."""
    j = lambda *a: os.path.join(tmp, *a)
    corpus(j("c.jsonl"), 1500, 0)
    must(nd, "index", "-q", "--db", j("db"), j("c.jsonl"))
    must(nd, "build", "-q", "--db", j("db"), "--store", j("st"))
    must(nd, "sign", "-q", "--db", j("db"), "--store", j("st"))
    w = subprocess.Popen([sys.executable, "-c", WRITER, j("db"), "6"], stdout=subprocess.PIPE, text=True)
    try:
        import time
        time.sleep(0.3)
        for _ in range(15):
            p = run(nd, "update", "-q", "--db", j("db"), "--store", j("st"), "--max-drift", "0")
            expect(p.returncode == 0, "update beside a busy indexer", p)
    finally:
        out = w.communicate()[0]
    # Hundreds on an idle machine; 75 beside a benchmark's disk writes.
    expect(int(out or 0) > 25, "the indexer committed all along (%s times)" % out.strip())
    p = run(nd, "update", "-q", "--db", j("db"), "--store", j("st"), "--max-drift", "0")
    p = run(nd, "fsck", "--store", j("st"), "--db", j("db"))
    expect(p.returncode == 0, "and the store is the database's", p)


def main():
    nd, crawl = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    try:
        import xapian  # noqa: F401
    except ImportError:
        print("state.py: needs python3-xapian")
        return 77
    tmp = tempfile.mkdtemp(prefix="nd-state-")
    try:
        for name, f in (("empty", lambda t: empty_stores(nd, t)), ("shards", lambda t: shards(nd, t)),
                        ("slot", lambda t: kept_slot(nd, t)), ("links", lambda t: pending_links(nd, crawl, t)),
                        ("busy", lambda t: busy_indexer(nd, t))):
            os.mkdir(os.path.join(tmp, name))
            f(os.path.join(tmp, name))
        passed()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
