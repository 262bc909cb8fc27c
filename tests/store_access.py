#!/usr/bin/env python3
"""Who may open a store, and how: one writer at a time across commands,
readers of a store they may not write, and stores of another database.

- While a process holds the writer lock, build, sign and update each exit
  1 naming the store and saying another process writes it; the store is
  untouched, and they run once it is released.
- build started while sign runs (a real race, repeated): whichever wins,
  `fsck --db` is clean afterwards.
- A store owned by another user, without write permission: fsck,
  clusters, check and search read it; update is refused with a permission
  message (not "locked").  Needs root (to become another user); skipped
  otherwise.
- search, like every other command, refuses a store signed from another
  database.

    store_access.py NEARDUP
"""
import fcntl
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ndtest import corpus, expect, must, passed, run, sha  # noqa: E402









def writer_lock(nd, tmp, db, store, page):
    lock = open(os.path.join(store, "writer.lock"), "a+")
    fcntl.flock(lock, fcntl.LOCK_EX)
    lock.seek(0)
    lock.truncate()
    lock.write("pid %d\n" % os.getpid())
    lock.flush()
    before = sha(os.path.join(store, "data.mdb"))
    for cmd in (["build", "--db", db, "--store", store], ["sign", "--db", db, "--store", store],
                ["update", "--db", db, "--store", store]):
        p = run(nd, *cmd)
        expect(p.returncode == 1 and store in p.stderr and "another process" in p.stderr
               and "pid %d" % os.getpid() in p.stderr, "%s while the lock is held" % cmd[0], p)
    # readers are not writers: they go on
    for cmd in (["clusters", "--store", store, "--db", db], ["check", "--db", db, "--store", store, page],
                ["fsck", "--store", store, "--db", db]):
        p = run(nd, *cmd)
        expect(p.returncode == 0, "%s while a writer holds the lock" % cmd[0], p)
    expect(sha(os.path.join(store, "data.mdb")) == before, "refused writers left the store as it was")
    lock.close()
    must(nd, "update", "--db", db, "--store", store)


def race(nd, tmp, db, store):
    """build while sign runs, several times: consistent whoever wins."""
    for trial in range(4 if os.environ.get("ND_SLOW") == "1" else 2):  # make slow: 4
        must(nd, "build", "--db", db, "--store", store)
        signer = subprocess.Popen([nd, "sign", "--db", db, "--store", store, "--jobs", "1"],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(0.01 * trial)
        b = run(nd, "build", "--db", db, "--store", store)
        out, err = signer.communicate()
        expect(signer.returncode in (0, 1) and b.returncode in (0, 1), "race exits cleanly", b)
        expect(signer.returncode == 0 or b.returncode == 0, "one of the racers ran")
        if b.returncode:
            expect("another process" in b.stderr, "the losing build says why", b)
        if signer.returncode:
            expect("another process" in err, "the losing sign says why")
        must(nd, "sign", "--db", db, "--store", store)
        must(nd, "fsck", "--store", store, "--db", db)


def read_only(nd, tmp, db, store, page):
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        print("read-only store: skipped (needs root and setpriv to become another user)")
        return
    ro = os.path.join(tmp, "ro")
    shutil.copytree(store, ro)
    os.chmod(tmp, 0o755)
    for root, dirs, files in os.walk(tmp):
        for d in dirs:
            os.chmod(os.path.join(root, d), 0o755)
        for f in files:
            os.chmod(os.path.join(root, f), 0o644)
    nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    for cmd in (["fsck", "--store", ro, "--db", db], ["clusters", "--store", ro, "--db", db],
                ["check", "--db", db, "--store", ro, page],
                ["search", "--db", db, "--store", ro, "--collapse", "filter", "w0003a"]):
        p = run(*nobody, nd, *cmd)
        expect(p.returncode == 0, "another user reads a store it may not write: %s" % cmd[0], p)
    p = run(*nobody, nd, "update", "--db", db, "--store", ro)
    expect(p.returncode == 1 and ro in p.stderr and "ELOCKED" not in p.stderr, "update of a store "
           "it may not write is refused for what it is", p)


def foreign(nd, tmp, db, store):
    jl2, db2 = os.path.join(tmp, "other.jsonl"), os.path.join(tmp, "db2")
    corpus(jl2, 60, 5000, seed=9)
    must(nd, "index", "--quiet", "--db", db2, jl2)
    for mode in ("filter", "native", "tolerant"):
        p = run(nd, "search", "--db", db2, "--store", store, "--collapse", mode, "w0003a")
        expect(p.returncode == 1 and "does not belong to this database" in p.stderr, "search --collapse %s refuses a "
               "store of another database" % mode, p)


def main():
    nd = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix="nd-access-")
    try:
        jl, db, store = (os.path.join(tmp, x) for x in ("c.jsonl", "db", "st"))
        corpus(jl, 3000, 0)
        must(nd, "index", "--quiet", "--db", db, jl)
        must(nd, "build", "--db", db, "--store", store)
        must(nd, "sign", "--db", db, "--store", store, "--value-slot", "3")
        page = os.path.join(tmp, "page.txt")
        with open(page, "w") as f:
            f.write("w0001a w0002a w0003a " * 30)
        writer_lock(nd, tmp, db, store, page)
        foreign(nd, tmp, db, store)
        read_only(nd, tmp, db, store, page)
        race(nd, tmp, db, store)
        passed()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
