#!/usr/bin/env python3
"""Benchmark: how each neardup step's cost grows with the corpus, to a
million documents.  Prints a table; no pass/fail.

    scale.py NEARDUP [--sizes 100000,300000,1000000] [--data DIR] [--keep DIR [--reuse]]

For each size a JSONL corpus is made from real text by seeded
perturbation, with known duplicate groups:

  - Sentences are taken from Reuters-21578 bodies and BBC news articles in
    the shared data directory (--data, $ND_DATA or ../shared/data), or,
    when absent, from /usr/share/doc/*/copyright (every Debian system).
  - An original is 6-20 sentences drawn at random from the whole pool, so
    originals are distinct texts with real word statistics.
  - Each original has 1-4 versions (2.5 on average): the first as drawn,
    the others with 0-5% of the words substituted, inserted or deleted, and
    often inside one of 20 site templates (a header and footer block).

--keep DIR keeps each size's corpus, database and store under DIR; with
--reuse a later run measures a kept database again from build on (index
skipped), e.g. after a change to signing or clustering.

Every step runs as its own process (peak RSS from os.wait4): index, build,
sign --no-links (on a copy of the built store), sign, clusters --keys (equal signatures), and clusters at the strict, copy
(the default: components of the pairs sign's links accepted) and story
points (average linkage at 0.1 over the store's near-neighbour index).
Per step: wall seconds, documents/s, peak MiB, CPU seconds and the share
of its wall time the disk stalled every task (/proc/pressure/io "full":
a stalled disk slows signing's postlist reads more than deciding, so a
run whose sign steps met one says so); deciding's cost as a ratio
to signing's (sign, clusters --point copy and story over sign
--no-links, measured in the same run); then the store and database
sizes, and how well each recovers the known groups (pairs recalled / pairs
in the groups, and the share of reported pairs that are in a group), with
story's candidate pairs per document and the pairs its completed averages
added.
"""
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def sentences_from(data):
    """The sentence pool and a word vocabulary (for substitutions): of
    Reuters and BBC news under data, else (or with data None) of the
    Debian copyright files."""
    texts = []
    sgm = os.path.join(data or "", "reuters21578", "sgm-data")
    if data and os.path.isdir(sgm):
        body = re.compile(r"<BODY>(.*?)</BODY>", re.S)
        for name in sorted(os.listdir(sgm)):
            if name.endswith(".sgm"):
                raw = open(os.path.join(sgm, name), encoding="latin-1").read()
                texts += [b.replace("&lt;", "<").replace("&amp;", "&") for b in body.findall(raw)]
    bbc = os.path.join(data or "", "bbc-news", "bbc")
    if data and os.path.isdir(bbc):
        for cat in sorted(os.listdir(bbc)):
            d = os.path.join(bbc, cat)
            if os.path.isdir(d):
                for name in sorted(os.listdir(d)):
                    texts.append(open(os.path.join(d, name), encoding="latin-1").read())
    source = "Reuters-21578 and BBC news from %s" % data
    if not texts:
        root = "/usr/share/doc"
        for pkg in sorted(os.listdir(root)):
            p = os.path.join(root, pkg, "copyright")
            if os.path.isfile(p):
                texts.append(open(p, encoding="utf-8", errors="replace").read())
        source = "/usr/share/doc/*/copyright (no shared data found)"
    split = re.compile(r"(?<=[.!?])\s+")
    pool = []
    for t in texts:
        for s in split.split(" ".join(t.split())):
            if 20 <= len(s) <= 400:
                pool.append(s)
    vocab = sorted({w for s in pool[:50000] for w in s.split()})
    return pool, vocab, source


def perturb(rng, words, vocab, rate):
    out = []
    for w in words:
        r = rng.random()
        if r < rate / 3:
            continue                              # deletion
        if r < 2 * rate / 3:
            out.append(rng.choice(vocab))         # substitution
            continue
        out.append(w)
        if r < rate:
            out.append(rng.choice(vocab))         # insertion
    return out


def make_corpus(path, n, pool, vocab, seed):
    """n documents; returns the number of groups and of same-group pairs."""
    rng = random.Random(seed)
    templates = []
    for t in range(20):
        head = " ".join(rng.choice(vocab) for _ in range(rng.randint(15, 40)))
        foot = " ".join(rng.choice(vocab) for _ in range(rng.randint(15, 40)))
        templates.append(("Site %d. %s." % (t, head), "%s. Copyright site %d." % (foot, t)))
    docs = groups = pairs = 0
    with open(path, "w") as f:
        while docs < n:
            original = " ".join(rng.choice(pool) for _ in range(rng.randint(6, 20))).split()
            versions = min(rng.randint(1, 4), n - docs)
            for v in range(versions):
                words = original if v == 0 else perturb(rng, original, vocab, rng.uniform(0, 0.05))
                text = " ".join(words)
                if v and rng.random() < 0.6:
                    head, foot = rng.choice(templates)
                    text = head + "\n\n" + text + "\n\n" + foot
                f.write(json.dumps({"id": "g%d-%d" % (groups, v), "text": text}) + "\n")
                docs += 1
            pairs += versions * (versions - 1) // 2
            groups += 1
    return groups, pairs


def io_stalled():
    """Microseconds every task was stalled on IO since boot (the kernel's
    pressure stall "full" total), or None without /proc/pressure."""
    try:
        with open("/proc/pressure/io") as f:
            for line in f:
                if line.startswith("full"):
                    return int(line.rsplit("total=", 1)[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def measure(cmd, out=None):
    """A step in its own process: (wall seconds, peak MiB, CPU seconds,
    share of the wall time the disk stalled every task, or None).  A
    stalled disk slows signing's postlist reads more than deciding, so
    ratios of steps measured under different stalls are not comparable."""
    io0 = io_stalled()
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=out or subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    err = p.stderr.read().decode()
    p.stderr.close()
    if status != 0:
        raise SystemExit("%s failed:\n%s" % (" ".join(cmd), err[-2000:]))
    sec = time.monotonic() - t0
    io1 = io_stalled()
    stall = (io1 - io0) / 1e6 / sec if io0 is not None and io1 is not None and sec > 0 else None
    return sec, ru.ru_maxrss / 1024.0, ru.ru_utime + ru.ru_stime, stall


def stall_text(stall):
    return "%5.0f%%" % (100 * stall) if stall is not None else "     -"


def stall_warning(stalls):
    """The line to print when a sign step ({step name: stall share}) met
    a stalled disk, else None."""
    worst = max((v for k, v in stalls.items() if k.startswith("sign") and v is not None), default=None)
    if worst is None or worst <= 0.05:
        return None
    return ("the disk stalled %.0f%% of a sign step's time: its ratios are not comparable with a run on an "
            "idle disk" % (100 * worst))


def du(path):
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            total += os.path.getsize(os.path.join(root, name))
    return total / 2**20


def group_of(uid):
    return uid.split("-", 1)[0]


def pair_quality(clusters_json, true_pairs):
    """(recall of same-group pairs, precision of reported pairs, documents
    in the largest reported group)."""
    found = good = largest = 0
    j = json.load(open(clusters_json))
    for c in j["clusters"]:
        for members in [[group_of(m.get("id") or "") for m in c["documents"]]]:
            size = len(members)
            largest = max(largest, size)
            found += size * (size - 1) // 2
            known = {}
            for g in members:
                known[g] = known.get(g, 0) + 1
            good += sum(k * (k - 1) // 2 for k in known.values())
    return (good / true_pairs if true_pairs else 0.0), (good / found if found else 0.0), largest


def generate_main(args):
    """scale.py --generate PATH N DATA: write a corpus, print groups and pairs.
    A child process, so the sentence pool never counts in a step's peak RSS
    (a forked child starts with its parent's pages)."""
    path, n, data = args[0], int(args[1]), args[2]
    pool, vocab, source = sentences_from(data)
    groups, pairs = make_corpus(path, n, pool, vocab, seed=n)
    print(json.dumps({"groups": groups, "pairs": pairs, "sentences": len(pool), "source": source,
                      "vocabulary": len(vocab)}))


def main():
    args = sys.argv[1:]
    if args and args[0] == "--generate":
        return generate_main(args[1:])
    if not args or args[0] in ("-h", "--help"):
        sys.exit(__doc__)
    nd = os.path.abspath(args.pop(0))
    sizes = [100000, 300000, 1000000]
    data = os.environ.get("ND_DATA", os.path.join(HERE, "..", "..", "shared", "data"))
    keep = None
    reuse = False
    while args:
        if args[0] == "--reuse":
            reuse = True
            args = args[1:]
            continue
        if args[0] == "--sizes" and len(args) > 1:
            sizes = [int(x) for x in args[1].split(",")]
        elif args[0] == "--data" and len(args) > 1:
            data = args[1]
        elif args[0] == "--keep" and len(args) > 1:
            keep = args[1]
        else:
            sys.exit(__doc__)
        args = args[2:]
    tmp = keep or tempfile.mkdtemp(prefix="nd-scale-")
    os.makedirs(tmp, exist_ok=True)
    rows = []
    try:
        for n in sizes:
            d = os.path.join(tmp, str(n))
            # --reuse: a database kept by an earlier run (same seed, so the
            # same corpus) is measured again from build on; index is skipped.
            reused = reuse and os.path.isdir(os.path.join(d, "db"))
            if not reused:
                shutil.rmtree(d, ignore_errors=True)
                os.makedirs(d)
            for old in ("store", "store-nl"):  # build starts afresh; a run cut short left its copy
                shutil.rmtree(os.path.join(d, old), ignore_errors=True)
            src = os.path.join(d, "corpus.jsonl")
            t0 = time.monotonic()
            g = json.loads(subprocess.run([sys.executable, os.path.abspath(__file__), "--generate", src,
                                           str(n), data], check=True, capture_output=True,
                                          text=True).stdout)
            true_pairs = g["pairs"]
            if n == sizes[0]:
                print("sentences: %d from %s; vocabulary %d" % (g["sentences"], g["source"],
                                                              g["vocabulary"]))
                print("%9s %-24s %9s %10s %9s %8s %9s" % ("docs", "step", "seconds", "docs/s", "peak MiB",
                                                         "CPU s", "io stall"))
            print("%9d %-24s %9.1f %10s %9s  (%.0f MB, %d groups, %d same-group pairs)" % (
                n, "generate", time.monotonic() - t0, "", "", os.path.getsize(src) / 1e6, g["groups"],
                true_pairs), flush=True)
            db, st = os.path.join(d, "db"), os.path.join(d, "store")
            keys_json, strict_json = os.path.join(d, "keys.json"), os.path.join(d, "strict.json")
            link_json, copy_json = os.path.join(d, "linkage.json"), os.path.join(d, "copy.json")
            steps = [] if reused else [("index", [nd, "index", "-q", "--db", db, src], None)]
            if reused:
                print("%9d %-24s (database kept from an earlier run)" % (n, "index"), flush=True)
            steps += [
                ("build", [nd, "build", "--db", db, "--store", st], None),
                ("copy store", ["cp", "-r", st, st + "-nl"], None),
                ("sign --no-links", [nd, "sign", "--no-links", "--db", db, "--store", st + "-nl"], None),
                ("sign", [nd, "sign", "--db", db, "--store", st], None),
                ("clusters --keys", [nd, "clusters", "--store", st, "--db", db, "--keys", "--json"], keys_json),
                ("clusters --point strict", [nd, "clusters", "--store", st, "--db", db, "--point", "strict",
                                             "--json"], strict_json),
                ("clusters --point copy", [nd, "clusters", "--store", st, "--db", db, "--point", "copy",
                                           "--json"], copy_json),
                ("clusters --point story", [nd, "clusters", "--store", st, "--db", db, "--point", "story",
                                            "--cut", "0.1", "--json"], link_json),
            ]
            stalls = {}
            for name, cmd, out in steps:
                fh = open(out, "w") if out else None
                sec, peak, cpu, stall = measure(cmd, fh)
                if fh:
                    fh.close()
                print("%9d %-24s %9.1f %10.0f %9.1f %8.1f %9s" % (n, name, sec, n / sec if sec else 0, peak, cpu,
                                                                stall_text(stall)), flush=True)
                rows.append((n, name, sec, peak))
                stalls[name] = stall
            shutil.rmtree(st + "-nl", ignore_errors=True)
            t = {nm: (sec, peak) for m, nm, sec, peak in rows if m == n}
            base = t["sign --no-links"][0]
            if base > 0:
                print("%9d deciding against signing (sign --no-links = 1): sign with links x%.2f, "
                      "clusters --point strict x%.2f, copy x%.2f, story x%.2f; peak MiB of any step %.0f" % (
                          n, t["sign"][0] / base, t["clusters --point strict"][0] / base,
                          t["clusters --point copy"][0] / base, t["clusters --point story"][0] / base,
                          max(p for _, p in t.values())), flush=True)
            warning = stall_warning(stalls)
            if warning:
                print("%9d %s" % (n, warning), flush=True)
            rk, pk, _ = pair_quality(keys_json, true_pairs)
            rv, pv, _ = pair_quality(strict_json, true_pairs)
            rl, pl, _ = pair_quality(link_json, true_pairs)
            rc_, pc_, largest = pair_quality(copy_json, true_pairs)
            lj = json.load(open(link_json))
            cands, completed = lj["pairs"]["candidates"], lj["pairs"]["completed"]
            print("%9d store %.0f MiB, database %.0f MiB; same-group pairs recalled by equal keys "
                  "%.3f (precision %.3f), by the strict point %.3f (precision %.3f)" % (
                      n, du(st), du(db), rk, pk, rv, pv), flush=True)
            print("%9d linkage over the near-neighbour index: %.1f candidate pairs a document (and %.2f "
                  "completing ones), recall %.3f, precision %.3f" % (n, cands / n, completed / n, rl, pl),
                  flush=True)
            print("%9d copy point (sign's links): recall %.3f, precision %.3f, largest cluster %d" % (
                n, rc_, pc_, largest), flush=True)
            rows.append((n, "candidates/doc", cands / n, 0))
            if not keep:
                shutil.rmtree(d)
    finally:
        if not keep:
            shutil.rmtree(tmp, ignore_errors=True)
    # Growth: seconds per document of each step, largest size over smallest.
    if len(sizes) > 1:
        print("\ngrowth from %d to %d documents (x%.0f): ratio of each step's seconds, and of "
              "linkage's candidates a document" % (
            sizes[0], sizes[-1], sizes[-1] / sizes[0]))
        for name in ("index", "build", "sign", "clusters --keys", "clusters --point strict",
                     "clusters --point copy", "clusters --point story",
                     "candidates/doc"):
            t = {n: s for n, nm, s, _ in rows if nm == name}
            if sizes[0] in t and sizes[-1] in t and t[sizes[0]] > 0:
                print("  %-24s x%.1f" % (name, t[sizes[-1]] / t[sizes[0]]))


if __name__ == "__main__":
    main()
