#!/usr/bin/env python3
"""Replay a rename veto over a labeled set's copy clusters, from the texts.

    python3 eval/sets/renames.py [--sets DIR] [--neardup PATH] [--min N] SET...

The same template about another named thing is another document: two man
pages that differ in the command they describe (subgid/subuid,
clang-tblgen/lldb-tblgen, EVP_MAC-CMAC/GMAC), a product page for another
product.  Such a pair is a *rename*: one word w of the one text stands,
in N or more places of both (the two words before and the one after the
same, each place once in each text), where the other has one word v, and
w is nowhere in the other text, nor v in the first.  A text's next
version, edited, keeps its words somewhere.

For every pair inside a copy cluster of the set's store (as `measure.py
--no-sign` scores them, ignored pairs left out), this prints how many true
and false pairs a rename veto would refuse, and the pairwise precision
before and after (pairs only: the clusters are not made again), with the
texts tokenized as \\w+ words, lower case (not neardup's tokenizer).  The
verdict applies the rule at strict and copy from its records' samples of
places (docs/verdict.md); run against a store signed without it, this
says what reading every place would refuse.
"""
import argparse
import itertools
import json
import os
import re
import subprocess
import sys
from collections import Counter, defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure import ROOT, load, texts  # noqa: E402

WORD = re.compile(r"\w+", re.UNICODE)


def places(words):
    """Each place (two words before, one after) with the words at it."""
    at = defaultdict(list)
    for i, w in enumerate(words):
        at[(words[i - 2] if i > 1 else "", words[i - 1] if i else "",
            words[i + 1] if i + 1 < len(words) else "")].append(w)
    return at


def rename(a, b, least):
    """(w, v, places) of a rename of a's word w into b's v, or None."""
    pa, pb = places(a), places(b)
    wa, wb = set(a), set(b)
    count = Counter()
    for k, x in pa.items():
        y = pb.get(k)
        if len(x) == 1 and y and len(y) == 1 and x[0] != y[0] and x[0] not in wb and y[0] not in wa:
            count[(x[0], y[0])] += 1
    for (w, v), n in count.most_common(1):
        if n >= least:
            return w, v, n
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sets", nargs="+", metavar="SET")
    ap.add_argument("--sets", dest="root", default=os.path.join(ROOT, "build", "sets"))
    ap.add_argument("--neardup", default=os.path.join(ROOT, "build", "tools", "neardup"))
    ap.add_argument("--min", type=int, default=2, help="places a rename needs (2)")
    ap.add_argument("--show", type=int, default=3, help="vetoed pairs to print a set (3)")
    args = ap.parse_args()
    print("%-11s %6s %7s %6s %7s %7s %7s" % ("set", "true", "vetoed", "false", "vetoed", "P", "after"))
    for name in args.sets:
        setdir = os.path.join(args.root, name)
        _, truth, ignore = load(setdir)
        text = texts(setdir)
        if not text:
            print("%-11s no corpus.jsonl: texts are in its database only" % name)
            continue
        words = {d: [w.lower() for w in WORD.findall(t)] for d, t in text.items()}
        out = subprocess.run([args.neardup, "clusters", "--db", os.path.join(setdir, "db"), "--store",
                              os.path.join(setdir, "store"), "--json", "-q"], capture_output=True, text=True)
        if out.returncode:
            sys.exit("renames.py: clusters of %s failed:\n%s" % (name, out.stderr[-2000:]))
        skip = set(ignore)
        n = Counter()
        shown = []
        for c in json.loads(out.stdout)["clusters"]:
            ids = [m["id"] for m in c["documents"] if m["id"] in truth]
            for a, b in itertools.combinations(ids, 2):
                if (min(a, b), max(a, b)) in skip:
                    continue
                same = truth[a] == truth[b]
                r = rename(words[a], words[b], args.min)
                n[same, r is not None] += 1
                if r and len(shown) < args.show:
                    shown.append("  %s %s / %s: %s -> %s in %d places" %
                                 ("TRUE" if same else "false", a, b, r[0], r[1], r[2]))
        tp, fp = n[True, False] + n[True, True], n[False, False] + n[False, True]
        kept_t, kept_f = n[True, False], n[False, False]
        print("%-11s %6d %7d %6d %7d %7.3f %7.3f" % (name, tp, n[True, True], fp, n[False, True],
                                                    tp / max(1, tp + fp), kept_t / max(1, kept_t + kept_f)))
        for s in shown:
            print(s)


if __name__ == "__main__":
    main()
