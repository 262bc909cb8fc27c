#!/usr/bin/env python3
"""Full disk: run `neardup sign`, `update` and `index` out of space, at
several points, and check that each fails with an error naming what it
could not write, that the store still passes `neardup fsck`, and that a
rerun with space ends exactly where a run that never ran out ends.

Space runs out two ways: a file size limit (RLIMIT_FSIZE, which any user
can set; writes past it fail with EFBIG) and, when run as root where
mounting is allowed, a real full tmpfs (ENOSPC).

    diskfull.py NEARDUP
"""
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kill import corpus, dump, fsck, run  # noqa: E402

checks = 0


def limited(kbytes):
    """preexec_fn: files may grow to kbytes KiB; writes past it fail (no signal)."""
    def f():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (kbytes * 1024, kbytes * 1024))
    return f


def must(*cmd):
    p = run(*cmd)
    if p.returncode != 0:
        raise SystemExit("%s failed:\n%s" % (" ".join(cmd), p.stderr))
    return p


def must_fail_naming(cmd, name, preexec=None):
    """cmd must fail, with an error naming `name` and saying why."""
    global checks
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       preexec_fn=preexec)
    if p.returncode == 0:
        return False  # it fit after all
    if p.returncode < 0:
        raise SystemExit("%s died of signal %d" % (" ".join(cmd), -p.returncode))
    if name not in p.stderr or not any(w in p.stderr for w in ("full", "space", "too large", "File too large")):
        raise SystemExit("%s: unclear error (want %s and the reason):\n%s" % (" ".join(cmd), name, p.stderr))
    if "disk or store map is full" not in p.stderr:
        raise SystemExit("%s: out of space is ND_EFULL (disk or store map is full), not:\n%s" %
                         (" ".join(cmd), p.stderr))
    checks += 1
    return True


def size_kb(path):
    return sum(os.path.getsize(os.path.join(path, f)) for f in os.listdir(path)) // 1024


def main():
    nd = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix="nd-full-")
    mnt = os.path.join(tmp, "mnt")
    try:
        trials(nd, tmp)
        if os.geteuid() == 0:
            os.mkdir(mnt)
            if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", mnt],
                              stderr=subprocess.DEVNULL).returncode == 0:
                try:
                    tmpfs_trials(nd, tmp, mnt)
                finally:
                    subprocess.run(["umount", mnt])
            else:
                print("diskfull: mounting a tmpfs is not allowed here; file size limits only")
        print("diskfull: %d out-of-space failures, each named its target, left the store "
              "consistent, and a rerun matched the uninterrupted result" % checks)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def trials(nd, tmp):
    j = lambda *a: os.path.join(tmp, *a)
    corpus(j("base.jsonl"), 600, 0)
    corpus(j("more.jsonl"), 100, 5000)
    must(nd, "index", "-q", "--db", j("db"), j("base.jsonl"))
    must(nd, "build", "--db", j("db"), "--store", j("built"), "--words", "300")
    shutil.copytree(j("built"), j("ref"))
    must(nd, "sign", "--db", j("db"), "--store", j("ref"))
    want = dump(nd, j("ref"), j("db"))

    # sign: the store may grow only a little past its built size.
    base_kb = size_kb(j("built"))
    for extra in (4, 12, 24, 40):
        st = j("sign-%d" % extra)
        shutil.copytree(j("built"), st)
        if not must_fail_naming([nd, "sign", "--db", j("db"), "--store", st, "--block", "48"], st,
                                limited(base_kb + extra)) and extra == 4:
            raise SystemExit("sign fitted in 4 KiB more than the built store")
        fsck(nd, st)
        must(nd, "sign", "--db", j("db"), "--store", st)
        if dump(nd, st, j("db")) != want:
            raise SystemExit("sign after a full disk differs from an uninterrupted run")

    # update: 100 new families indexed after signing.
    shutil.copytree(j("db"), j("db2"))
    must(nd, "index", "-q", "--db", j("db2"), j("more.jsonl"))
    shutil.copytree(j("ref"), j("ref-upd"))
    must(nd, "update", "-q", "--db", j("db2"), "--store", j("ref-upd"), "--max-drift", "0")
    want_upd = dump(nd, j("ref-upd"), j("db2"))
    ref_kb = size_kb(j("ref"))
    for extra in (4, 16):
        st = j("upd-%d" % extra)
        shutil.copytree(j("ref"), st)
        if not must_fail_naming([nd, "update", "-q", "--db", j("db2"), "--store", st, "--block",
                                 "48", "--max-drift", "0"], st, limited(ref_kb + extra)) and extra == 4:
            raise SystemExit("update fitted in 4 KiB more than the signed store")
        fsck(nd, st)
        must(nd, "update", "-q", "--db", j("db2"), "--store", st, "--max-drift", "0")
        if dump(nd, st, j("db2")) != want_upd:
            raise SystemExit("update after a full disk differs from an uninterrupted run")

    # index: the Xapian database runs out at a third of its size; what it
    # committed stays readable, and the rerun ends as the uninterrupted one.
    db_kb = size_kb(j("db"))
    db3 = j("db3")
    if not must_fail_naming([nd, "index", "-q", "--batch", "50", "--db", db3, j("base.jsonl")], db3,
                            limited(db_kb // 3)):
        raise SystemExit("index fitted in a third of its size")
    must(nd, "index", "-q", "--db", db3, j("base.jsonl"))
    must(nd, "build", "--db", db3, "--store", j("st3"), "--words", "300")
    must(nd, "sign", "--db", db3, "--store", j("st3"))
    if dump(nd, j("st3"), db3) != want:
        raise SystemExit("index after a full disk: signing it differs from the uninterrupted run")


def tmpfs_trials(nd, tmp, mnt):
    """A real ENOSPC: the store on an 8 MiB tmpfs that a filler file has nearly filled."""
    j = lambda *a: os.path.join(tmp, *a)
    want = dump(nd, j("ref"), j("db"))
    st = os.path.join(mnt, "store")
    shutil.copytree(j("built"), st)
    st_kb = size_kb(st)
    free_kb = os.statvfs(mnt).f_bavail * os.statvfs(mnt).f_frsize // 1024
    with open(os.path.join(mnt, "filler"), "wb") as f:
        f.write(b"\0" * max(0, (free_kb - 8) * 1024))
    if not must_fail_naming([nd, "sign", "--db", j("db"), "--store", st, "--block", "48"], st):
        raise SystemExit("sign fitted in 8 KiB of free space? store was %d KiB" % st_kb)
    fsck(nd, st)
    os.unlink(os.path.join(mnt, "filler"))
    must(nd, "sign", "--db", j("db"), "--store", st)
    if dump(nd, st, j("db")) != want:
        raise SystemExit("sign after ENOSPC differs from an uninterrupted run")
    shutil.rmtree(st)
    # The Xapian database on the nearly full tmpfs.
    db = os.path.join(mnt, "db")
    free_kb = os.statvfs(mnt).f_bavail * os.statvfs(mnt).f_frsize // 1024
    with open(os.path.join(mnt, "filler"), "wb") as f:
        f.write(b"\0" * max(0, (free_kb - 256) * 1024))
    if not must_fail_naming([nd, "index", "-q", "--db", db, j("base.jsonl"), j("more.jsonl")], db):
        raise SystemExit("the database fitted in 256 KiB")
    shutil.rmtree(db)
    os.unlink(os.path.join(mnt, "filler"))


if __name__ == "__main__":
    main()
