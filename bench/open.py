#!/usr/bin/env python3
"""Opening a store costs the same whatever its size.

For each size (default 100000,1000000 documents of 40 words, in families
of near-copies), index, build and sign, then:
  - bench_open: a read open in a fresh process, trusted snapshot (its
    meta pages checked) against every page walked (what every open did
    before, and fsck still does): median ms and resident growth;
  - `neardup check` of one page in a fresh process, wall seconds and
    peak RSS, with the store trusted and after a foreign write (the
    marker gone: the first open walks, and remembers).

    open.py NEARDUP BENCH_OPEN [--sizes N,N] [--keep DIR]
"""
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time


def corpus(path, n, seed=1):
    r = random.Random(seed)
    vocab = ["w%05d" % i for i in range(30000)]
    with open(path, "w") as f:
        fam = 0
        written = 0
        while written < n:
            base = [vocab[int(r.paretovariate(1.1) * 11) % 30000] if r.random() < .5 else r.choice(vocab)
                    for _ in range(40)]
            for c in range(1 + fam % 3):
                w = list(base)
                if c:
                    w[r.randrange(len(w))] = r.choice(vocab)
                f.write("{\"id\": \"f%d.%d\", \"text\": \"%s\"}\n" % (fam, c, " ".join(w)))
                written += 1
            fam += 1


def timed(cmd):
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    err = p.stderr.read().decode()
    if status:
        raise SystemExit("%s failed: %s" % (" ".join(cmd), err))
    return time.monotonic() - t0, ru.ru_maxrss / 1024


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        sys.exit(__doc__)
    nd, bo = os.path.abspath(args[0]), os.path.abspath(args[1])
    sizes, keep = [100000, 1000000], None
    args = args[2:]
    while args:
        if args[0] == "--sizes":
            sizes = [int(x) for x in args[1].split(",")]
        elif args[0] == "--keep":
            keep = args[1]
        else:
            sys.exit(__doc__)
        args = args[2:]
    tmp = keep or tempfile.mkdtemp(prefix="nd-open-")
    os.makedirs(tmp, exist_ok=True)
    try:
        for n in sizes:
            d = os.path.join(tmp, str(n))
            db, st, src = (os.path.join(d, x) for x in ("db", "store", "c.jsonl"))
            if not os.path.exists(st):
                os.makedirs(d, exist_ok=True)
                corpus(src, n)
                for cmd in ([nd, "index", "-q", "--db", db, src], [nd, "build", "-q", "--db", db, "--store", st],
                            [nd, "sign", "-q", "--db", db, "--store", st]):
                    timed(cmd)
            print("%d documents" % n, flush=True)
            out = subprocess.run([bo, st], capture_output=True, text=True)
            if out.returncode:
                raise SystemExit(out.stderr)
            print(out.stdout, end="", flush=True)
            page = os.path.join(d, "page.txt")
            with open(src) as f:
                first = f.readline()
            with open(page, "w") as f:
                f.write(first.split('"text": "')[1].rsplit('"', 1)[0] + " and one more line")
            check = [nd, "check", "--db", db, "--store", st, page]
            timed(check)  # warm
            t_trust, m_trust = min(timed(check) for _ in range(5))
            marks = []
            for _ in range(3):
                os.remove(os.path.join(st, "verified"))
                marks.append(timed(check))
            t_walk, m_walk = min(marks)
            print("  check of one page: %.3f s, peak %.0f MiB trusted; %.3f s, peak %.0f MiB after a foreign "
                  "write (walked once)" % (t_trust, m_trust, t_walk, m_walk), flush=True)
            if not keep:
                shutil.rmtree(d)
    finally:
        if not keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
