"""scripts/calibrate.py on synthetic score files whose answer is known:
positives score 0.6-0.9 and negatives 0.1-0.4, so every threshold above
the highest negative and up to 0.6 is perfect and the lowest of those is
chosen; a guard corpus whose pairs at 0.3-0.55 chain every document into
one component moves the choice to where its largest component holds at
most 10% of its documents; story's halvings
pick a cut at which the clusters hold.

    python3 tests/calibrate_test.py SCRIPT"""
import atexit
import os
import random
import re
import subprocess
import shutil
import sys
import tempfile

script = sys.argv[1]
t = tempfile.mkdtemp()
atexit.register(shutil.rmtree, t, True)
r = random.Random(1)
scores = {"neg": [], "chain": []}
GRID = [round(0.01 * i, 2) for i in range(1, 100)]
above = lambda x: min(g for g in GRID if g > x)


def clusters_file(path, ngroups, size, method="verdict-copy"):
    with open(path, "w") as f:
        docs = [("g%d/d%d" % (g, i), g) for g in range(ngroups) for i in range(size)]
        for d, g in docs:
            f.write("#doc\t%s\t%d\n" % (d, g))
        f.write("#method\t%s\tpositives\t%d\n" % (method, ngroups * size * (size - 1) // 2))
        for i, (a, ga) in enumerate(docs):
            for b, gb in docs[i + 1:]:
                if ga == gb:
                    f.write("%s\t%s\t1\t%.3f\n" % (a, b, r.uniform(0.6, 0.9)))
                elif r.random() < 0.05:
                    x = round(r.uniform(0.1, 0.4), 3)
                    scores["neg"].append(x)
                    f.write("%s\t%s\t0\t%.3f\n" % (a, b, x))


def pairs_file(path):
    with open(path, "w") as f:
        f.write("#method\tverdict-copy\tpositives\t40\n")
        for i in range(40):
            f.write("p%d\tq%d\t1\t%.3f\n" % (i, i, r.uniform(0.6, 0.9)))
            x = round(r.uniform(0.1, 0.4), 3)
            scores["neg"].append(x)
            f.write("n%d\tm%d\t0\t%.3f\n" % (i, i, x))


clusters_file(t + "/a.tsv", 10, 4)
clusters_file(t + "/b.tsv", 8, 3)
pairs_file(t + "/c.tsv")
with open(t + "/guard.tsv", "w") as f:  # a chain through 50 distinct documents
    f.write("".join("#doc\tx%d\t%d\n" % (i, i) for i in range(50)))
    f.write("#method\tverdict-copy\tpositives\t0\n")
    chain = [round(r.uniform(0.3, 0.55), 3) for i in range(49)]
    f.write("".join("x%d\tx%d\t0\t%.3f\n" % (i, i + 1, x) for i, x in enumerate(chain)))
clusters_file(t + "/story.tsv", 12, 4, "verdict-story")

run = lambda *a: subprocess.run([sys.executable, script] + list(a), capture_output=True, text=True, check=True).stdout
clean = above(max(scores["neg"]))
out = run("--copy", "a=" + t + "/a.tsv", "--copy", "b=" + t + "/b.tsv", "--copy", "c=" + t + "/c.tsv")
assert "copy threshold on all sets: %.2f" % clean in out, (clean, out)
held = re.findall(r"^[abc] +(\S+) +(\S+) +(\S+) +(\S+)$", out, re.M)
assert len(held) == 3 and all(float(f) == 1.0 for _t, _p, _r, f in held), out
def longest(t):  # documents in the chain's largest component at t
    best = run_ = 0
    for x in chain:
        run_ = run_ + 1 if x >= t else 0
        best = max(best, run_)
    return best + 1
guard_from = min(g for g in GRID if all(longest(h) <= 5 for h in GRID if h >= g))
guarded = max(guard_from, clean)
out = run("--copy", "a=" + t + "/a.tsv", "--copy", "c=" + t + "/c.tsv", "--guard", t + "/guard.tsv")
assert "guard: thresholds from %.2f" % guard_from in out and "copy threshold on all sets: %.2f" % guarded in out, out
out = run("--story", t + "/story.tsv")
cut = float(re.search(r"story cut \(median of the choices\): (\S+)", out).group(1))
assert 0.3 < cut <= 0.6, out  # above most negatives, below every positive
print("calibrate: chooses %.2f on clean sets, %.2f behind the guard, story cut %.2f" % (clean, guarded, cut))
