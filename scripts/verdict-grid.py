#!/usr/bin/env python3
"""How the copy point's parts were chosen: a prototype of the verdict over
every scored pair of `neardup eval --scores` files, with variants of its
rules side by side (README, "How containment and the veto were set").

    verdict-grid.py --set NAME=SCORES=TEXTS [--set ...] [--method M]

SCORES is an `eval --scores` file (a clusters set has '#doc' lines and is
judged by the components its accepted pairs form; a pairs set pair by
pair).  TEXTS gives each id's text: a directory (the id is a path under
it, with or without a '.txt' suffix) or a JSON Lines file ({"id", "text"}).
A set whose SCORES has no duplicates (a guard corpus such as `make run`'s
Debian files) reports its largest component instead.

Words are lowercased regex words, an approximation of the product's ICU
tokens, so figures come near the C verdict's, not to the digit.  A value
is a word with a digit; a name a capitalised word that does not start a
sentence.  Prints one line per rule variant and set.
"""
import argparse
import collections
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import calibrate  # noqa: E402  (the scores reader and the judges)

WORD = re.compile(r"\w+(?:[.,']\w+)*", re.U)


def words(text):
    """(lowercased word, is a name) per word."""
    out, end = [], None
    for m in WORD.finditer(text):
        w = m.group(0)
        gap = text[end:m.start()] if end is not None else "."
        initial = end is None or re.search(r"[.!?]\s*$|\n\s*\n", gap) is not None
        name = w[:1].isupper() and not w.isupper() and not initial and not isvalue(w)
        out.append((w.lower(), name))
        end = m.end()
    return out


def isvalue(w):
    return any(c.isdigit() for c in w)


def shingles(ws, width=3):
    if len(ws) < width:
        return collections.Counter([tuple(ws)]) if ws else collections.Counter()
    return collections.Counter(tuple(ws[i:i + width]) for i in range(len(ws) - width + 1))


def changed(a, b, kind):
    """Places (two words before, one after) where b holds another word of
    the kind than a, one that a lacks; counted once a place."""
    have = set(w for w, _ in a)
    ctx = collections.defaultdict(set)
    for j in range(2, len(b) - 1):
        if kind(b[j]):
            ctx[(b[j - 2][0], b[j - 1][0], b[j + 1][0])].add(b[j][0])
    seen = set()
    for i in range(2, len(a) - 1):
        if not kind(a[i]):
            continue
        k = (a[i - 2][0], a[i - 1][0], a[i + 1][0])
        other = ctx.get(k)
        if other and a[i][0] not in other and any(v not in have for v in other):
            seen.add(k)
    return len(seen)


def features(a, b, sa, sb):
    wa, wb = [w for w, _ in a], [w for w, _ in b]
    both = sum((sa & sb).values())
    na, nb = sum(sa.values()), sum(sb.values())
    lo_w, hi_w = (wa, wb) if len(wa) <= len(wb) else (wb, wa)
    hi_set = set(hi_w)
    value = lambda t: isvalue(t[0])
    name = lambda t: t[1]
    return dict(
        bag=both / (na + nb - both) if na and nb else 0.0,
        cont=both / min(na, nb) if na and nb else 0.0,
        lo=min(len(wa), len(wb)), hi=max(len(wa), len(wb)),
        values=max(changed(a, b, value), changed(b, a, value)),
        names=max(changed(a, b, name), changed(b, a, name)),
        lost=sum(1 for t in set(lo_w) if isvalue(t) and t not in hi_set))


def rule(res=0.46, cont=0.8, min_words=50, ratio=3, veto="rate", names=False):
    def accept(f):
        v = f["values"] + (f["names"] if names else 0)
        if veto == "rate" and v and v * 100 >= f["lo"]:
            return False
        if veto == "two" and (v >= 2 or (v and v * 100 >= f["lo"])):
            return False
        if f["bag"] >= res:
            return True
        return bool(cont) and f["cont"] >= cont and f["lo"] >= min_words and f["hi"] <= ratio * f["lo"] \
            and f["lost"] == 0
    return accept


VARIANTS = [
    ("resemblance >= 0.46, no veto", rule(cont=0, veto=None)),
    ("... + values veto, any two or 1 per 100 words", rule(cont=0, veto="two")),
    ("... + values veto, 1 per 100 words", rule(cont=0)),
    ("... + contained >= 0.9", rule(cont=0.9)),
    ("... + contained >= 0.8 (shipped)", rule()),
    ("... + contained >= 0.7", rule(cont=0.7)),
    ("contained >= 0.8, no length ratio", rule(ratio=1e9)),
    ("shipped + names counted with values", rule(names=True)),
]


def load(spec, method):
    """calibrate.py's reader of the scores file, then each pair's features."""
    name, scores, texts = spec.split("=", 2)
    if texts.endswith(".jsonl"):
        table = {}
        with open(texts, encoding="utf-8") as f:
            for line in f:
                r = json.loads(line)
                table[r["id"]] = r["text"]
        text = lambda i: table[i]
    else:
        def text(i):
            p = os.path.join(texts, i)
            p = p if os.path.exists(p) else p + ".txt"
            with open(p, encoding="utf-8", errors="replace") as f:
                return f.read()
    docs, scored, positives = calibrate.load(scores, method)
    if not scored:
        sys.exit("verdict-grid: %s: no pairs of method %s" % (scores, method))
    cache, pairs = {}, []
    for a, b, lab, _ in scored:
        for i in (a, b):
            if i not in cache:
                w = words(text(i))
                cache[i] = (w, shingles([t for t, _ in w]))
        pairs.append((a, b, lab, features(cache[a][0], cache[b][0], cache[a][1], cache[b][1])))
    return name, docs, pairs, positives


def measure(docs, pairs, positives, accept):
    """The variant's yes as a score of 1, judged as calibrate.py judges a
    threshold: components for clusters, pairs for pairs, and for an
    unlabeled guard corpus its largest component."""
    judged = [(a, b, lab, 1.0 if accept(f) else 0.0) for a, b, lab, f in pairs]
    if not positives:
        return "largest component %d of %d" % (round(calibrate.largest_share(docs, judged, 1.0) * len(docs)),
                                              len(docs))
    return "P %.3f R %.3f F1 %.3f" % calibrate.judge((docs, judged, positives), 1.0)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", action="append", required=True, metavar="NAME=SCORES=TEXTS")
    ap.add_argument("--method", default="verdict-copy", help="the scored pairs to judge (verdict-copy)")
    a = ap.parse_args()
    sets = [load(s, a.method) for s in a.set]
    for label, accept in VARIANTS:
        print(label)
        for name, docs, pairs, positives in sets:
            print("  %-10s %s" % (name, measure(docs, pairs, positives, accept)))


if __name__ == "__main__":
    main()
