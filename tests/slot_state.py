#!/usr/bin/env python3
"""The collapse value slot is part of the state (sign --value-slot).

- Re-indexing a document with unchanged text writes a fresh Xapian
  document without the slot value; its record's fingerprint is unchanged.
  `fsck --db` must report the slot, `update` must repair it, and then
  native collapsing must fold exactly what filtering folds.
- SIGKILL during `update` on a store with a slot, at random moments: the
  rerun converges (fsck --db clean, native equal to filter).

    slot_state.py NEARDUP
"""
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ndtest import corpus, expect, must, passed, run  # noqa: E402

SLOT = "5"
QUERIES = ["waaada", "waaaha OR waabba", "waabda", "waaaca waaafa"]






def page(nd, db, store, mode, q):
    p = must(nd, "search", "--db", db, "--store", store, "--collapse", mode, "--limit", "40",
             "--depth", "100000", "--json", q)
    r = json.loads(p.stdout)
    return [(h["docid"], h["collapsed"]) for h in r["results"]], r


def native_equals_filter(nd, db, store, what):
    for q in QUERIES:
        a, _ = page(nd, db, store, "native", q)
        b, _ = page(nd, db, store, "filter", q)
        expect(a == b, "%s: native and filter collapsing differ for %r:\n native %s\n filter %s"
               % (what, q, a[:10], b[:10]))


def reindex_unchanged(nd, tmp, db, store, jl):
    """Re-index every second copy with its own text: only the slot changes."""
    lines = [json.loads(l) for l in open(jl)]
    same = [d for d in lines if d["id"].endswith(".1")][:40]
    again = os.path.join(tmp, "again.jsonl")
    with open(again, "w") as f:
        for d in same:
            f.write(json.dumps(d) + "\n")
    must(nd, "index", "--quiet", "--db", db, again)
    p = run(nd, "fsck", "--store", store, "--db", db)
    expect(p.returncode == 1 and "value slot " + SLOT in p.stdout, "fsck --db sees the dropped values", p)
    p = must(nd, "update", "--db", db, "--store", store)
    expect("collapse values repaired" in p.stdout, "update repairs the dropped values", p)
    must(nd, "fsck", "--store", store, "--db", db)
    native_equals_filter(nd, db, store, "after re-indexing unchanged documents")
    p = must(nd, "update", "--db", db, "--store", store)
    expect("repaired" not in p.stdout, "a second update finds nothing to repair", p)


def killed_updates(nd, tmp, db, store, rnd):
    for trial in range(6 if os.environ.get("ND_SLOW") == "1" else 3):  # make slow: 6
        more = os.path.join(tmp, "more%d.jsonl" % trial)
        corpus(more, 150, 20000 + trial * 1000, seed=trial)
        # copies of documents already there, so new members join old clusters
        with open(more, "a") as f:
            for fam in range(trial * 30, trial * 30 + 30):
                r = random.Random(fam * 7919)
                vocab = ["w%sa" % "".join(chr(97 + int(c)) for c in "%04d" % i) for i in range(3000)]
                base = [vocab[min(int(r.paretovariate(1.2)) * 13 % 3000, 2999)] if r.random() < .5
                        else r.choice(vocab) for _ in range(80 + fam % 6 * 20)]
                f.write(json.dumps({"id": "k%d.%d" % (trial, fam), "text": " ".join(base)}) + "\n")
        must(nd, "index", "--quiet", "--db", db, more)
        p = subprocess.Popen([nd, "update", "--db", db, "--store", store, "--jobs", "1", "--max-drift", "0"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        time.sleep(rnd.uniform(0.0, 0.15))
        p.send_signal(signal.SIGKILL)
        p.communicate()
        must(nd, "update", "--db", db, "--store", store, "--max-drift", "0")
        must(nd, "fsck", "--store", store, "--db", db)
        native_equals_filter(nd, db, store, "after a killed update (trial %d)" % trial)


def main():
    nd = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix="nd-slot-")
    try:
        jl, db, store = (os.path.join(tmp, x) for x in ("c.jsonl", "db", "st"))
        corpus(jl, 1500, 0)
        must(nd, "index", "--quiet", "--db", db, jl)
        must(nd, "build", "--db", db, "--store", store)
        must(nd, "sign", "--db", db, "--store", store, "--value-slot", SLOT)
        must(nd, "fsck", "--store", store, "--db", db)
        _, r = page(nd, db, store, "native", QUERIES[0])
        expect(any(h["collapsed"] for h in r["results"]), "the corpus has something to collapse")
        native_equals_filter(nd, db, store, "after sign")
        reindex_unchanged(nd, tmp, db, store, jl)
        killed_updates(nd, tmp, db, store, random.Random(7))
        passed()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
