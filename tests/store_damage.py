#!/usr/bin/env python3
"""Damaged store files: every command that opens a store, run on copies of
a good store whose data.mdb is truncated (to 0 and 1 bytes, at each meta
page boundary, to half, one page short) or has 64 random bytes written at
a seeded offset.  Each command must exit 0 or 1, never die of a signal or
a sanitizer report; a failure must name the store; and nothing may change
the damaged file (no command re-initialises or writes into a store it
cannot trust).  Truncations that cut pages the snapshot uses must be
refused by every command.

    store_damage.py NEARDUP [--seeds N] [--from DB STORE]
                     (default 30 seeds, on a corpus it makes itself)
"""
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ndtest import corpus, run, sha  # noqa: E402



def commands(nd, db, store, page):
    return {
        "fsck": [nd, "fsck", "--store", store],
        "fsck --db": [nd, "fsck", "--store", store, "--db", db],
        "clusters --keys": [nd, "clusters", "--store", store, "--keys"],
        "clusters": [nd, "clusters", "--store", store, "--db", db],
        "check": [nd, "check", "--db", db, "--store", store, page],
        "search": [nd, "search", "--db", db, "--store", store, "--collapse", "filter", "w0003a"],
        "update": [nd, "update", "--db", db, "--store", store],
        "sign": [nd, "sign", "--db", db, "--store", store],
    }


def crashed(p):
    return p.returncode < 0 or p.returncode > 2 or "Sanitizer" in p.stderr or "runtime error" in p.stderr


def trial(nd, db, good, work, page, label, damage, must_refuse):
    """Apply damage to a fresh copy for every command; returns (refused, ran)."""
    refused = ran = 0
    for name, _ in commands(nd, db, "S", page).items():
        store = os.path.join(work, "s")
        shutil.rmtree(store, ignore_errors=True)
        shutil.copytree(good, store)
        damage(os.path.join(store, "data.mdb"))
        before = sha(os.path.join(store, "data.mdb"))
        cmd = commands(nd, db, store, page)[name]
        p = run(*cmd)
        if crashed(p):
            raise SystemExit("%s: '%s' crashed (exit %d):\n%s" % (label, name, p.returncode, p.stderr[-3000:]))
        if p.returncode == 0:
            ran += 1
            if must_refuse:
                raise SystemExit("%s: '%s' accepted a store it should refuse:\n%s%s" %
                                 (label, name, p.stdout[-1000:], p.stderr[-1000:]))
            continue
        refused += 1
        if store not in p.stderr and store not in p.stdout:
            raise SystemExit("%s: '%s' failed without naming the store:\n%s" % (label, name, p.stderr))
        if sha(os.path.join(store, "data.mdb")) != before:
            raise SystemExit("%s: '%s' failed and changed the damaged file" % (label, name))
    return refused, ran


def truncate_to(n):
    def f(path):
        os.truncate(path, n)
    return f


def scribble(seed):
    def f(path):
        r = random.Random(seed)
        size = os.path.getsize(path)
        off = r.randrange(0, size - 64)
        with open(path, "r+b") as fh:
            fh.seek(off)
            fh.write(bytes(r.randrange(256) for _ in range(64)))
    return f


def main():
    nd = os.path.abspath(sys.argv[1])
    seeds, source = 30, None
    args = sys.argv[2:]
    while args:
        if args[0] == "--seeds":
            seeds, args = int(args[1]), args[2:]
        elif args[0] == "--from":
            source, args = (os.path.abspath(args[1]), os.path.abspath(args[2])), args[3:]
        else:
            sys.exit(__doc__)
    tmp = tempfile.mkdtemp(prefix="nd-damage-")
    try:
        jl, db, good = (os.path.join(tmp, x) for x in ("c.jsonl", "db", "good"))
        page = os.path.join(tmp, "page.txt")
        if source:
            db = source[0]
            shutil.copytree(source[1], good)
            with open(page, "w") as out:
                out.write("the page of a crawler, checked against the store " * 20)
        else:
            corpus(jl, 400, 0)
            for cmd in (["index", "--quiet", "--db", db, jl], ["build", "--db", db, "--store", good],
                        ["sign", "--db", db, "--store", good]):
                p = run(nd, *cmd)
                if p.returncode:
                    raise SystemExit("setup: %s failed:\n%s" % (" ".join(cmd), p.stderr))
            with open(jl) as f, open(page, "w") as out:
                out.write(json.loads(f.readline())["text"])
        os.remove(os.path.join(good, "lock.mdb"))
        size = os.path.getsize(os.path.join(good, "data.mdb"))
        psize = os.sysconf("SC_PAGE_SIZE")
        work = os.path.join(tmp, "work")
        os.mkdir(work)
        refused = ran = 0
        # Truncations: everything past the cut is gone, so the newest
        # snapshot is unusable (its last page is the last one written).
        for n in (0, 1, psize, 2 * psize, size // 2, size - psize):
            r, a = trial(nd, db, good, work, page, "truncated to %d of %d bytes" % (n, size),
                         truncate_to(n), True)
            refused, ran = refused + r, ran + a
        for seed in range(1, seeds + 1):
            r, a = trial(nd, db, good, work, page, "64 bytes scribbled (seed %d)" % seed, scribble(seed), False)
            refused, ran = refused + r, ran + a
        print("%d damaged copies x %d commands: %d refused with a message, %d ran "
              "(damage where nothing reads), 0 crashed" % (6 + seeds, len(commands(nd, db, "", page)),
                                                          refused, ran))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
