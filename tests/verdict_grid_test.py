#!/usr/bin/env python3
"""scripts/verdict-grid.py on hand-made pairs whose verdicts are known:
two fillings of one template (other prices in the same places), a copy
with a comment thread (contained), a text and a cut of it too short to
say, and a labeled clusters set judged by its components."""
import os
import random
import subprocess
import sys
import tempfile

script = sys.argv[1]


def text(n, seed):
    """n random lowercase words (no digits: no values), the same for a seed."""
    r = random.Random(seed)
    return " ".join("".join(r.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(r.randint(4, 8)))
                    for _ in range(n))


with tempfile.TemporaryDirectory() as d:
    t = os.path.join(d, "texts")
    os.mkdir(t)
    base = text(120, 1)
    w = base.split()
    fill_a, fill_b = list(w), list(w)
    for k, (x, y) in enumerate([("12.99", "14.50"), ("2024", "2025")]):
        fill_a[30 + 50 * k], fill_b[30 + 50 * k] = x, y
    docs = {
        "fill-a": " ".join(fill_a), "fill-b": " ".join(fill_b),
        "art": text(100, 2), "art-thread": text(100, 2) + " " + text(150, 3),
        "short": text(30, 4), "short-more": text(30, 4) + " " + text(60, 5),
    }
    for k, v in docs.items():
        with open(os.path.join(t, k + ".txt"), "w") as f:
            f.write(v + "\n")
    # A clusters set: the fillings are one cluster in the labels (so the
    # veto costs recall there), the article and its thread another.
    scores = os.path.join(d, "scores.tsv")
    with open(scores, "w") as f:
        for k, g in [("fill-a", "F"), ("fill-b", "F"), ("art", "A"), ("art-thread", "A"),
                     ("short", "S"), ("short-more", "T")]:
            f.write("#doc\t%s\t%s\n" % (k, g))
        f.write("#method\tverdict-copy\tpositives\t2\n")
        for a, b, lab in [("fill-a", "fill-b", 1), ("art", "art-thread", 1), ("short", "short-more", 0)]:
            f.write("%s\t%s\t%d\t0.5\n" % (a, b, lab))
    out = subprocess.run([sys.executable, script, "--set", "hand=%s=%s" % (scores, t)],
                         capture_output=True, text=True, check=True).stdout
    blocks = {}
    for line in out.splitlines():
        if not line.startswith("  "):
            head = line
        else:
            blocks[head] = line.split()
    def fig(head, what):
        return float(blocks[head][blocks[head].index(what) + 1])
    recall = lambda head: fig(head, "R")
    # Without the veto the fillings join (resemblance ~0.9), the thread does
    # not (resemblance 0.4): one of two pairs.
    assert recall("resemblance >= 0.46, no veto") == 0.5, out
    # The veto refuses the fillings (2 changed values in 120 words).
    assert recall("... + values veto, 1 per 100 words") == 0.0, out
    # Containment joins the article and its thread; the 30-word text stays
    # apart (too short to say), so precision is 1.
    assert fig("... + contained >= 0.8 (shipped)", "P") == 1.0, out
    assert recall("... + contained >= 0.8 (shipped)") == 0.5, out
    # Without the length ratio the same.
    assert recall("contained >= 0.8, no length ratio") == 0.5, out

    # An unlabeled guard corpus reports its largest component: the
    # article and its thread chain at the shipped point, not without
    # containment.
    guard = os.path.join(d, "guard.tsv")
    with open(guard, "w") as f:
        for k in ("art", "art-thread", "short"):
            f.write("#doc\t%s\t%s\n" % (k, k))
        f.write("#method\tverdict-copy\tpositives\t0\n")
        f.write("art\tart-thread\t0\t0.4\nart\tshort\t0\t0.1\n")
    out = subprocess.run([sys.executable, script, "--set", "guard=%s=%s" % (guard, t)],
                         capture_output=True, text=True, check=True).stdout
    lines = out.splitlines()
    at = lambda head: lines[lines.index(head) + 1].split()
    assert at("... + contained >= 0.8 (shipped)")[1:] == ["largest", "component", "2", "of", "3"], out
    assert at("... + values veto, 1 per 100 words")[1:] == ["largest", "component", "1", "of", "3"], out
print("verdict-grid: ok")
