#!/usr/bin/env python3
"""A markdown table of measure.py --json rows from sets made with several
seeds: per set and point, the lowest precision and recall over the seeds
(where a bar of 0.95 stands or falls) and the seed each is lowest at.

    eval/sets/measure.py --json --points strict,copy,story --sets DIR > seed29.json
    eval/sets/table.py seed29.json seed83.json ...

A file's seed is the number in its name.  Mail and the copyright guard
have no pairwise precision: their cell gives recall and the clusters
holding a pair below word-set Jaccard 0.3.
"""
import argparse
import json
import os
import re
import sys


def cell(rows):
    """'P / R' at their lowest over rows, each with its seed when the seeds
    disagree."""
    def low(key):
        got = [("%.3f" % r[key], r["_seed"]) for r in rows if r.get(key) is not None]
        if not got:
            return "-"
        v, seed = min(got)
        return v if len(set(x for x, _ in got)) == 1 else "%s (%s)" % (v, seed)
    if "clusters_below_jaccard_0.3" in rows[0]:
        return "R %s, %d below 0.3" % (low("R"), max(r["clusters_below_jaccard_0.3"] for r in rows))
    return "%s / %s" % (low("P"), low("R"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="+", metavar="FILE")
    a = ap.parse_args()
    by = {}
    points, sets = [], []
    for f in a.files:
        m = re.search(r"\d+", os.path.basename(f))
        if not m:
            sys.exit("table.py: %s: no seed in its name" % f)
        try:
            lines = open(f, encoding="utf-8").read().splitlines()
        except OSError as e:
            sys.exit("table.py: %s: %s" % (f, e.strerror))
        for line in lines:
            if not line.startswith("{"):
                continue
            r = json.loads(line)
            r["_seed"] = m.group(0)
            if r["point"] not in points:
                points.append(r["point"])
            if r["set"] not in sets:
                sets.append(r["set"])
            by.setdefault((r["set"], r["point"]), []).append(r)
    if not by:
        sys.exit("table.py: no rows in %s" % ", ".join(a.files))
    print("| set | " + " | ".join("%s P / R" % p for p in points) + " |")
    print("|---|" + "---|" * len(points))
    for s in sorted(sets):
        print("| %s | " % s + " | ".join(cell(by[(s, p)]) if (s, p) in by else "" for p in points) + " |")


if __name__ == "__main__":
    main()
