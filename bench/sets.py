#!/usr/bin/env python3
"""Benchmark: every labeled set of eval/sets/make.py this machine can make,
measured at copy and story (eval/sets/measure.py): one line per set and
point with precision, recall, clusters, and the seconds signing and
clustering took.  A set whose sources are missing (manpages-ja, the npm
mail corpus, ../shared/data) is listed as skipped with the reason.

    sets.py NEARDUP [--out DIR] [--scale F] [SET...]
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "eval", "sets"))
from make import MAKERS  # noqa: E402

SETS = list(MAKERS)  # every set make.py knows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("neardup")
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "sets"))
    ap.add_argument("--scale", default="1")
    ap.add_argument("sets", nargs="*", default=SETS)
    a = ap.parse_intermixed_args()
    made = []
    for s in a.sets:
        p = subprocess.run([sys.executable, os.path.join(ROOT, "eval", "sets", "make.py"), "--out", a.out,
                            "--scale", a.scale, s], capture_output=True, text=True)
        if p.returncode or not os.path.exists(os.path.join(a.out, s, "truth.tsv")):
            why = (p.stderr.strip().splitlines() or ["no truth written"])[-1]
            print("%-10s skipped: %s" % (s, why[:120]), flush=True)
        else:
            made.append(s)
    if not made:
        sys.exit("sets: no set could be made")
    p = subprocess.run([sys.executable, os.path.join(ROOT, "eval", "sets", "measure.py"), "--neardup",
                        os.path.abspath(a.neardup), "--sets", a.out, "--points", "copy,story", "--reindex",
                        "--json"] + made, capture_output=True, text=True)
    if p.returncode:
        sys.exit("sets: measure.py failed:\n" + p.stderr[-2000:])
    print("%-10s %-6s %6s %6s %9s %8s %8s  %s" % ("set", "point", "P", "R", "clusters", "sign s", "clust s",
                                                 "notes"))
    for line in p.stdout.splitlines():
        if not line.startswith("{"):
            continue
        r = json.loads(line)
        fmt = lambda k: "%6.3f" % r[k] if isinstance(r.get(k), (int, float)) else "%6s" % "-"
        print("%-10s %-6s %s %s %9d %8.1f %8.1f  %s" % (r["set"], r["point"], fmt("P"), fmt("R"), r["clusters"],
                                                        r.get("sign_seconds", 0), r["seconds"],
                                                        r.get("notes", "")), flush=True)


if __name__ == "__main__":
    main()
