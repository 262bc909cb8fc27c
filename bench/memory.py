#!/usr/bin/env python3
"""Benchmark: peak memory (RSS) of each neardup step against corpus size,
and of indexing one very large document.  Prints a table; no pass/fail.

    memory.py NEARDUP [--sizes 10000,40000,160000] [--big-mb 100]

Each size is a JSONL corpus of families of near-duplicate texts (the kill
test's generator: 80-180 words from a 3,000-word vocabulary, 1-3 copies a
family).  Every step runs as its own process, so its peak is its own
(os.wait4 rusage).  The last column is the peak over the corpus bytes.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
from kill import corpus  # noqa: E402


def measure(cmd):
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    err = p.stderr.read().decode()
    p.stderr.close()
    if status != 0:
        raise SystemExit("%s failed:\n%s" % (" ".join(cmd), err))
    return time.monotonic() - t0, ru.ru_maxrss / 1024.0  # MiB


def families_for(docs):
    return docs // 2  # 1-3 copies a family, 2 on average


def main():
    nd = os.path.abspath(sys.argv[1])
    sizes, big_mb = [10000, 40000, 160000], 100
    args = sys.argv[2:]
    while args:
        if args[0] == "--sizes":
            sizes = [int(x) for x in args[1].split(",")]
        elif args[0] == "--big-mb":
            big_mb = int(args[1])
        else:
            sys.exit(__doc__)
        args = args[2:]
    tmp = tempfile.mkdtemp(prefix="nd-mem-")
    try:
        print("%8s %9s  %-22s %8s %9s %9s" % ("docs", "corpus", "step", "seconds", "peak MiB",
                                             "MiB/MB"))
        for n in sizes:
            d = os.path.join(tmp, str(n))
            os.mkdir(d)
            src = os.path.join(d, "corpus.jsonl")
            corpus(src, families_for(n), 0)
            mb = os.path.getsize(src) / 1e6
            db, st = os.path.join(d, "db"), os.path.join(d, "store")
            steps = [
                ("index", [nd, "index", "-q", "--db", db, src]),
                ("build", [nd, "build", "--db", db, "--store", st]),
                ("sign", [nd, "sign", "--db", db, "--store", st]),
                ("clusters --keys", [nd, "clusters", "--store", st, "--keys", "--json"]),
                ("clusters", [nd, "clusters", "--store", st, "--db", db, "--json"]),
            ]
            for name, cmd in steps:
                sec, peak = measure(cmd)
                print("%8d %7.1f MB  %-22s %8.2f %9.1f %9.2f" % (n, mb, name, sec, peak, peak / mb),
                      flush=True)
            shutil.rmtree(d)
        if big_mb:
            d = os.path.join(tmp, "big")
            os.mkdir(d)
            src = os.path.join(d, "big.txt")
            words = [("w%04da" % (i * 7919 % 3000)) for i in range(3000)]
            with open(src, "w") as f:
                line = " ".join(words) + "\n"
                for _ in range(big_mb * 1000000 // len(line) + 1):
                    f.write(line)
            mb = os.path.getsize(src) / 1e6
            sec, peak = measure([nd, "index", "-q", "--max-doc-mb", str(big_mb + 8), "--db",
                                 os.path.join(d, "db"), src])
            print("%8d %7.1f MB  %-22s %8.2f %9.1f %9.2f" % (1, mb, "index one document", sec,
                                                          peak, peak / mb))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
