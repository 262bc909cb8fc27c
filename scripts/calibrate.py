#!/usr/bin/env python3
"""Choose the verdict's thresholds by cross-validation, away from test data.

    scripts/calibrate.py --copy NAME=SCORES[:METHOD] ... [--guard SCORES[:METHOD]]
                         [--story SCORES[:METHOD]]

SCORES files come from `neardup eval --scores` (one per labeled set).

copy: the pair threshold.  Leave one set out: the threshold that maximizes
the mean F1 over the other sets is measured on the set left out, so each
set's figure is for a threshold it did not help choose (the hidden web-page
pairs are, to the method, one more set left out).  A set of labeled pairs
is judged pair by pair; a set of clusters by the clusters its accepted
candidate pairs form (connected components: a document joins the cluster
of its duplicates, as hooks and collapsing do), pairwise P and R over all
its duplicate pairs.  The threshold to ship is chosen on all sets.

--guard: an unlabeled corpus of distinct documents that share boilerplate
(the Debian copyright files of `make run`): clusters that are components
chain through it, which no labeled set shows.  Thresholds whose largest
component there holds more than --max-share (10%) of its documents are
not chosen.

story: the clusters' average-linkage cut.  Each of five halvings of the
clusters (seeds 1-5) chooses the cut on one half and is measured on the
other; the cut to ship is the median of the five choices.
"""
import argparse
import random
import statistics
import sys

GRID = [round(0.01 * i, 2) for i in range(1, 100)]


def load(spec, default_method):
    path, _, method = spec.partition(":")
    method = method or default_method
    docs, pairs, positives, cur = {}, [], None, None
    with open(path, encoding="utf-8") as f:
        for line in f:
            p = line.rstrip("\n").split("\t")
            if p[0] == "#doc":
                docs[p[1]] = p[2]
            elif p[0] == "#method":
                cur = p[1]
                if cur == method:
                    positives = int(p[3])
            elif cur == method:
                pairs.append((p[0], p[1], int(p[2]), float(p[3])))
    if positives is None:
        sys.exit("calibrate.py: no method %s in %s" % (method, path))
    return docs, pairs, positives


def prf(pairs, t, positives):
    tp = sum(1 for *_, lab, s in pairs if lab == 1 and s >= t)
    fp = sum(1 for *_, lab, s in pairs if lab == 0 and s >= t)
    p = tp / (tp + fp) if tp + fp else 1.0
    r = tp / positives if positives else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def roots(docs, pairs, t):
    """Each document's component root under the pairs scoring >= t."""
    parent = {d: d for d in docs}

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b, _lab, s in pairs:
        if s >= t and a in parent and b in parent:
            ra, rb = find(a), find(b)
            if ra != rb:
                parent[ra] = rb
    return {d: find(d) for d in docs}


def components(docs, pairs, t, positives):
    """P, R, F1 of the clusters formed by the pairs scoring >= t."""
    members = {}
    for d, r in roots(docs, pairs, t).items():
        members.setdefault(r, []).append(docs[d])
    tp = fp = 0
    for m in members.values():
        same = {}
        for g in m:
            same[g] = same.get(g, 0) + 1
        inside = sum(k * (k - 1) // 2 for k in same.values())
        tp += inside
        fp += len(m) * (len(m) - 1) // 2 - inside
    p = tp / (tp + fp) if tp + fp else 1.0
    r = tp / positives if positives else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def judge(entry, t):
    docs, pairs, positives = entry
    return components(docs, pairs, t, positives) if docs else prf(pairs, t, positives)


def best(score_of, grid=None):
    return max(grid or GRID, key=lambda t: (round(score_of(t), 6), -t))


def largest_share(docs, pairs, t):
    """The share of docs in the largest component of the pairs at >= t."""
    size = {}
    for r in roots(docs, pairs, t).values():
        size[r] = size.get(r, 0) + 1
    return max(size.values()) / len(docs) if docs else 0


def copy(sets, guard=None, max_share=0.1):
    grid = GRID
    if guard:
        docs, pairs, _ = guard
        grid = [t for t in GRID if largest_share(docs, pairs, t) <= max_share]
        print("guard: thresholds from %.2f keep the largest component within %.0f%% of the guard corpus"
              % (min(grid), 100 * max_share))
    print("copy: leave-one-set-out (pairs sets pair by pair, clusters sets by components)")
    print("%-12s %6s %6s %6s %6s" % ("held out", "t", "P", "R", "F1"))
    for held in sets:
        rest = [v for n, v in sets.items() if n != held]
        t = best(lambda t: statistics.mean(judge(v, t)[2] for v in rest), grid)
        print("%-12s %6.2f %6.3f %6.3f %6.3f" % ((held, t) + judge(sets[held], t)))
    t = best(lambda t: statistics.mean(judge(v, t)[2] for v in sets.values()), grid)
    print("copy threshold on all sets: %.2f" % t)
    for name, v in sets.items():
        print("  at %.2f %-12s P %.3f R %.3f F1 %.3f" % ((t, name) + judge(v, t)))
    return t


def story(docs, pairs, seeds=5):
    groups = sorted(set(docs.values()))
    print("story: clusters' cut by five halvings (chosen on one half, measured on the other)")
    print("%-5s %6s %6s %6s %6s" % ("seed", "cut", "P", "R", "F1"))
    cuts = []
    for seed in range(1, seeds + 1):
        rng = random.Random(seed)
        g = groups[:]
        rng.shuffle(g)
        test = set(g[: len(g) // 2])
        side = {d: (grp in test) for d, grp in docs.items()}
        size = {}
        for d, grp in docs.items():
            size.setdefault(side[d], {}).setdefault(grp, 0)
            size[side[d]][grp] += 1
        halves = {}
        for s in (False, True):
            pos = sum(n * (n - 1) // 2 for n in size.get(s, {}).values())
            halves[s] = ([x for x in pairs if side.get(x[0]) == s and side.get(x[1]) == s], pos)
        t = best(lambda t: prf(halves[False][0], t, halves[False][1])[2])
        p, r, f = prf(halves[True][0], t, halves[True][1])
        cuts.append(t)
        print("%-5d %6.2f %6.3f %6.3f %6.3f" % (seed, t, p, r, f))
    t = statistics.median(cuts)
    print("story cut (median of the choices): %.2f" % t)
    return t


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--copy", action="append", default=[], metavar="NAME=SCORES[:METHOD]",
                    help="a labeled set's scores (default method verdict-copy)")
    ap.add_argument("--guard", metavar="SCORES[:METHOD]",
                    help="unlabeled corpus whose largest component bounds the copy threshold")
    ap.add_argument("--max-share", type=float, default=0.1,
                    help="the guard's largest component, as a share of its documents (0.1)")
    ap.add_argument("--story", metavar="SCORES[:METHOD]",
                    help="clusters' scores under --linkage average (default method verdict-story)")
    a = ap.parse_args()
    if not a.copy and not a.story:
        ap.error("give --copy and/or --story")
    if a.copy:
        sets = {}
        for spec in a.copy:
            name, _, rest = spec.partition("=")
            sets[name] = load(rest, "verdict-copy")
        copy(sets, load(a.guard, "verdict-copy") if a.guard else None, a.max_share)
    if a.story:
        docs, pairs, _ = load(a.story, "verdict-story")
        story(docs, pairs)


if __name__ == "__main__":
    main()
