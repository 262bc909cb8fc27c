#!/usr/bin/env python3
"""Main-content extraction against page size, on pages of many short <p>
blocks (the shape that was quadratic: a run of short blocks made every
block look for its neighbours across the whole run).  For each size it
times `neardup text --content main` and, as the baseline in the same run,
`--content full` (no classification), and prints the ratio; per-block cost
that stays flat as blocks grow is linear.

    extract.py NEARDUP [--blocks 25000,50000,100000,200000]
"""
import os
import random
import subprocess
import sys
import tempfile
import time


def page(path, blocks, rnd):
    words = ["w%03d" % i for i in range(800)] + ["the", "of", "and", "to", "in", "is", "that"]
    with open(path, "w") as f:
        f.write("<html><body>\n")
        prose = " ".join(rnd.choice(words) for _ in range(60))
        f.write("<p>%s.</p>\n" % prose)
        # one run of short blocks between two paragraphs of prose
        for i in range(blocks):
            f.write("<p>%s %s</p>\n" % (rnd.choice(words), rnd.choice(words)))
        f.write("<p>%s.</p>\n" % prose)
        f.write("</body></html>\n")


def timed(nd, mode, path, runs=3):
    best = None
    for _ in range(runs):
        t0 = time.monotonic()
        p = subprocess.run([nd, "text", "--content", mode, path], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
        dt = time.monotonic() - t0
        if p.returncode:
            raise SystemExit("neardup text failed:\n" + p.stderr)
        best = dt if best is None else min(best, dt)
    return best


def main():
    nd = os.path.abspath(sys.argv[1])
    sizes = [25000, 50000, 100000, 200000]
    if sys.argv[2:4] and sys.argv[2] == "--blocks":
        sizes = [int(x) for x in sys.argv[3].split(",")]
    rnd = random.Random(1)
    with tempfile.TemporaryDirectory(prefix="nd-extract-") as tmp:
        print("%10s %10s %10s %8s %14s" % ("blocks", "main s", "full s", "main/full", "main us/block"))
        first = None
        for n in sizes:
            path = os.path.join(tmp, "p%d.html" % n)
            page(path, n, rnd)
            m, f = timed(nd, "main", path), timed(nd, "full", path)
            per = m / n * 1e6
            first = first or per
            print("%10d %10.3f %10.3f %8.2f %14.2f" % (n, m, f, m / f, per))
        print("per-block cost at the largest size / at the smallest: %.2f (1.0 = linear)" % (per / first))


if __name__ == "__main__":
    main()
