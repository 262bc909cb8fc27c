#!/usr/bin/env python3
"""Precision and recall of neardup's clusters at each point on the
labeled sets of eval/sets/make.py.

    eval/sets/measure.py [--neardup PATH] [--sets DIR] [--points LIST]
                         [--reindex] [--json] [SET...]

For each set: index its corpus (once; --reindex to redo), build, sign,
then `clusters --point P --json` for each point, scored pair by pair
against the truth: every pair of documents in one cluster is a
predicted pair, every pair in one truth cluster a true one, and the
pairs of ignore.tsv (one text under two names), and every pair of
their truth clusters' members, count as neither.  How a set is scored is in its
about.json:
    pairs        all pairs
    pairs-with   only pairs with a document whose id starts with "with"
    mail         recall of identical bodies; and the clusters holding a
                 pair of word-set Jaccard below 0.3 (there should be none)
    guard        no labels beyond identical text: the largest cluster,
                 and the clusters holding a pair below Jaccard 0.3
With --check, each point is measured as a crawler meets it instead:
`check --point P --json` of every document against the set's store, one
predicted pair for each duplicate it reports (the document itself
aside), scored against the truth's ordered pairs (sets scored "pairs").
Prints one line per set and point; --json one object a line.  --errors N
also lists, for the clusters, up to N false pairs (one cluster, two truth
clusters) and N missed ones (one truth cluster, apart), each with the
cluster or truth cluster it is in: where to look when a figure moves.
"""
import argparse
import glob
import html
import json
import os
import re
import subprocess
import sys
import time
from collections import Counter, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
WORD = re.compile(r"\w+", re.UNICODE)


def run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        sys.exit("measure.py: %s failed (%d):\n%s%s" % (" ".join(cmd), p.returncode, p.stdout[-2000:],
                                                        p.stderr[-2000:]))
    return p.stdout


def c2(n):
    return n * (n - 1) // 2


def load(setdir):
    about = json.load(open(os.path.join(setdir, "about.json")))
    truth = {}
    for line in open(os.path.join(setdir, "truth.tsv"), encoding="utf-8"):
        a, b = line.rstrip("\n").split("\t")
        truth[a] = b
    # A pair of ignore.tsv is one text under two names: so is every copy
    # of the one with every copy of the other (their truth clusters).
    members = truth_groups(truth)
    ignore = set()
    path = os.path.join(setdir, "ignore.tsv")
    if os.path.exists(path):
        for line in open(path, encoding="utf-8"):
            a, b = line.rstrip("\n").split("\t")
            for x in members.get(truth.get(a), [a]):
                for y in members.get(truth.get(b), [b]):
                    if x != y:
                        ignore.add((min(x, y), max(x, y)))
    return about, truth, sorted(ignore)


def texts(setdir):
    out = {}
    path = os.path.join(setdir, "corpus.jsonl")
    if os.path.exists(path):
        for line in open(path, encoding="utf-8"):
            d = json.loads(line)
            out[d["id"]] = d["text"]
    return out


def truth_groups(truth):
    """Each truth cluster's documents, in truth's order."""
    groups = defaultdict(list)
    for d, t in truth.items():
        groups[t].append(d)
    return groups


def cluster_index(clusters):
    """Each clustered document's cluster index."""
    return {d: k for k, c in enumerate(clusters) for d in c}


def score_pairs(clusters, truth, ignore, only=None):
    """Pairwise P, R over clusters (lists of ids; documents in none are
    singletons).  only: a predicate on ids; then a pair counts when either
    of its documents passes it."""
    cl = cluster_index(clusters)
    pred = tp = 0
    for c in clusters:
        c = [d for d in c if d in truth]
        n = len(c)
        by = Counter(truth[d] for d in c)
        if only:
            f = sum(1 for d in c if only(d))
            pred += c2(n) - c2(n - f)
            byf = Counter(truth[d] for d in c if only(d))
            tp += sum(c2(m) - c2(m - byf.get(t, 0)) for t, m in by.items())
        else:
            pred += c2(n)
            tp += sum(c2(m) for m in by.values())
    true = 0
    for g in truth_groups(truth).values():
        if only:
            f = sum(1 for d in g if only(d))
            true += c2(len(g)) - c2(len(g) - f)
        else:
            true += c2(len(g))
    for a, b in ignore:
        if a not in truth or b not in truth or (only and not (only(a) or only(b))):
            continue
        same_pred = a in cl and b in cl and cl[a] == cl[b]
        same_true = truth[a] == truth[b]
        pred -= same_pred
        true -= same_true
        tp -= same_pred and same_true
    p = tp / pred if pred else 1.0
    r = tp / true if true else 1.0
    return {"P": round(p, 4), "R": round(r, 4), "F1": round(2 * p * r / (p + r), 4) if p + r else 0.0,
            "predicted_pairs": pred, "true_pairs": true}


def across(parts, skip, keep, n):
    """Up to n pairs (sorted) of members of two different parts (lists of
    ids), pairs in skip, and pairs neither of whose ids keep passes, left
    out."""
    out = []
    for i, p in enumerate(parts):
        for q in parts[i + 1:]:
            for x in p:
                for y in q:
                    pair = (min(x, y), max(x, y))
                    if pair not in skip and (keep(x) or keep(y)):
                        out.append(pair)
                        if len(out) >= n:
                            return out
    return out


def error_pairs(clusters, truth, ignore, n, only=None):
    """Up to n false pairs (in one cluster, in two truth clusters) and n
    missed ones (in one truth cluster, not in one cluster), as
    [a, b, where]: the cluster's index, or the truth cluster; pairs of
    ignore, and with only pairs neither of whose documents passes it, left
    out.  Documents in no cluster are each apart."""
    skip = set(ignore)
    keep = (lambda d: True) if only is None else only
    false, missed = [], []
    cl = cluster_index(clusters)
    for k, c in enumerate(clusters):
        by = defaultdict(list)
        for d in c:
            if d in truth:
                by[truth[d]].append(d)
        false += [[a, b, k] for a, b in across([sorted(v) for _, v in sorted(by.items())], skip, keep,
                                                n - len(false))]
        if len(false) >= n:
            break
    groups = truth_groups(truth)
    for t in sorted(groups):
        by = defaultdict(list)
        for d in sorted(groups[t]):
            by[cl.get(d, "apart:" + d)].append(d)
        if len(by) > 1:
            missed += [[a, b, t] for a, b in across([v for _, v in sorted(by.items(), key=lambda kv: str(kv[0]))],
                                                    skip, keep, n - len(missed))]
        if len(missed) >= n:
            break
    return false, missed


def low_jaccard(clusters, text, floor=0.3, cap=400):
    """Clusters holding a pair of word-set Jaccard below floor (clusters
    larger than cap: their first cap members), and such pairs."""
    bad_clusters = bad_pairs = 0
    for c in clusters:
        c = [d for d in c if d in text][:cap]
        sets = [set(w.lower() for w in WORD.findall(text[d])) for d in c]
        bad = 0
        for i in range(len(c)):
            for j in range(i + 1, len(c)):
                u = len(sets[i] | sets[j])
                if u and len(sets[i] & sets[j]) / u < floor:
                    bad += 1
        bad_pairs += bad
        bad_clusters += bad > 0
    return bad_clusters, bad_pairs


def check_pairs(nd, db, store, inp, pages, point, truth, ignore, ids=None, extra=(), errors=0):
    """P and R of `check` pair by pair: (document, duplicate reported)
    against every ordered pair of a truth cluster, with up to errors false
    and missed pairs.  inp: the JSONL corpus, or (pages, or ids given: a
    mirror's files) a directory."""
    base = ["check", "--db", db, "--store", store, "--point", point, "--json"] + list(extra)
    found = set()
    if pages or ids:
        files = sorted(f for f in glob.glob(os.path.join(inp, "**", "*"), recursive=True)
                       if os.path.isfile(f) and (ids or re.search(r"\.html?$", f)))
        outs = [run([nd] + base + files[k:k + 500]) for k in range(0, len(files), 500)]
        name = lambda j: (ids or {}).get(os.path.relpath(j["input"], inp), os.path.relpath(j["input"], inp))
    else:
        with open(inp, encoding="utf-8") as f:
            outs = [run([nd] + base + ["--format", "jsonl", "-"], stdin=f)]
        name = lambda j: j["input"].split(":", 2)[2]
    for out in outs:
        for line in out.splitlines():
            j = json.loads(line)
            a = name(j)
            dups = (ids.get(m["id"], m["id"]) if ids else m["id"] for m in j["members"] if m["duplicate"])
            found.update((a, b) for b in dups if b != a)
    skip = set(ignore) | {(b, a) for a, b in ignore}
    true = {(a, b) for g in truth_groups(truth).values() for a in g for b in g if a != b} - skip
    found -= skip
    tp = len(found & true)
    p = tp / len(found) if found else 1.0
    r = tp / len(true) if true else 1.0
    row = {"P": round(p, 4), "R": round(r, 4), "F1": round(2 * p * r / (p + r), 4) if p + r else 0.0,
           "predicted_pairs": len(found), "true_pairs": len(true)}
    if errors:
        row["false_pairs"] = [[x, y, "%s, %s" % (truth.get(x), truth.get(y))] for x, y in sorted(found - true)[:errors]]
        row["missed_pairs"] = [[x, y, truth[x]] for x, y in sorted(true - found)[:errors]]
    return row


def print_errors(row, false_in="cluster"):
    """Each false pair with where it is (false_in: what its third item
    names), each missed one with its truth cluster."""
    for what in ("false", "missed"):
        for x, y, where in row.get(what + "_pairs", []):
            print("    %-6s %s  %s  (%s %s)" % (what, x, y, false_in if what == "false" else "truth", where))


def mirror(setdir, layout):
    """The set's JSONL records written as files whose site only their
    place tells: dirs, text under a directory named for the URL's host
    (mirror-dirs/HOST/ID.txt); links, an HTML page of the paragraphs
    under a menu of six links to that host (mirror-links/ID.html); flat,
    text files in one directory (mirror-flat/ID.txt), whose site nothing
    but their own text can tell.  Returns the input and the map from the
    files' ids to the records'."""
    root = os.path.join(setdir, "mirror-" + layout)
    subprocess.run(["rm", "-rf", root])
    ids = {}
    for line in open(os.path.join(setdir, "corpus.jsonl"), encoding="utf-8"):
        d = json.loads(line)
        m = re.match(r"[a-z]+://([^/]+)", d.get("url") or "")
        host = m.group(1) if m else "nohost"
        name = d["id"].replace("/", "_")
        if layout in ("dirs", "flat"):
            rel, body = os.path.join(host if layout == "dirs" else "", name + ".txt"), d["text"]
        else:
            menu = "".join("<li><a href='https://%s/%s'>%s</a></li>" % (host, w, w)
                           for w in ("home", "news", "sport", "about", "contact", "help"))
            paras = "".join("<p>%s</p>" % html.escape(p) for p in re.split(r"\n\s*\n", d["text"]) if p.strip())
            rel, body = name + ".html", "<html><body><nav><ul>%s</ul></nav>%s</body></html>" % (menu, paras)
        os.makedirs(os.path.join(root, os.path.dirname(rel)), exist_ok=True)
        with open(os.path.join(root, rel), "w", encoding="utf-8") as f:
            f.write(body)
        ids[rel] = d["id"]
    return root, ids


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--neardup", default=os.path.join(ROOT, "build", "tools", "neardup"))
    ap.add_argument("--sets", default=os.path.join(ROOT, "build", "sets"))
    ap.add_argument("--points", default="strict,copy,story")
    ap.add_argument("--reindex", action="store_true")
    ap.add_argument("--build-args", default="")
    ap.add_argument("--sign-args", default="")
    ap.add_argument("--clusters-args", default="")
    ap.add_argument("--check-args", default="", help="more arguments of check (with --check)")
    ap.add_argument("--no-sign", action="store_true", help="measure the store as it is")
    ap.add_argument("--check", action="store_true",
                    help="measure `check` of every document pair by pair, not the clusters")
    ap.add_argument("--mirror", choices=("dirs", "links", "flat"),
                    help="index the set's records as files, each site told only by where it lies: dirs, "
                         "HOST/ID.txt (a mirror as wget writes one); links, ID.html, a page of the text's "
                         "paragraphs under a menu of links to its own host; flat, ID.txt, no site given")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--errors", type=int, default=0, metavar="N",
                    help="list up to N false and N missed pairs of each point's clusters")
    ap.add_argument("names", nargs="*", metavar="SET")
    a = ap.parse_args()
    nd = a.neardup
    names = a.names or sorted(d for d in os.listdir(a.sets) if os.path.exists(os.path.join(a.sets, d, "about.json")))
    if not a.json:
        print("%-10s %-6s %6s %6s %6s %8s %7s  %s" % ("set", "point", "P", "R", "F1", "clusters", "secs", "notes"))
    for name in names:
        d = os.path.join(a.sets, name)
        about, truth, ignore = load(d)
        db, store = os.path.join(d, "db"), os.path.join(d, "store")
        inp = (about.get("html_dir") or os.path.join(d, "html")) if about.get("input") == "html" \
            else os.path.join(d, "corpus.jsonl")
        ids = None
        if a.mirror:
            db, store = db + "-" + a.mirror, store + "-" + a.mirror
            inp, ids = mirror(d, a.mirror)
        if a.reindex or not os.path.isdir(db):
            subprocess.run(["rm", "-rf", db])
            run([nd, "index", "-q", "--db", db, inp])
        t0 = time.time()
        if not a.no_sign or not os.path.isdir(store):
            subprocess.run(["rm", "-rf", store])
            run([nd, "build", "--db", db, "--store", store] + a.build_args.split())
            run([nd, "sign", "--db", db, "--store", store] + a.sign_args.split())
        sign_s = time.time() - t0
        text = texts(d) if about["score"] in ("mail", "guard") else {}
        for point in a.points.split(","):
            t0 = time.time()
            if a.check:
                if about["score"] != "pairs":
                    continue
                row = {"set": name, "point": "check-" + point}
                row.update(check_pairs(nd, db, store, inp, about.get("input") == "html", point, truth,
                                       ignore, ids, a.check_args.split(), a.errors))
                row["seconds"] = round(time.time() - t0, 2)
                if a.json:
                    print(json.dumps(row))
                else:
                    print("%-10s %-6s %6.3f %6.3f %6.3f %8s %7.1f  %d pairs reported" % (
                        name, point, row["P"], row["R"], row["F1"], "-", row["seconds"], row["predicted_pairs"]))
                    print_errors(row, "reported by check; truths")
                sys.stdout.flush()
                continue
            out = json.loads(run([nd, "clusters", "--db", db, "--store", store, "--point", point, "--json"] +
                                 a.clusters_args.split()))
            secs = time.time() - t0
            clusters = [[ids[m["id"]] if ids else m["id"] for m in c["documents"]] for c in out["clusters"]]
            row = {"set": name, "point": point, "clusters": len(clusters), "seconds": round(secs, 2),
                   "sign_seconds": round(sign_s, 2)}
            notes = ""
            only = (lambda x, pre=about["with"]: x.startswith(pre)) if about["score"] == "pairs-with" else None
            row.update(score_pairs(clusters, truth, ignore, only=only))
            if a.errors and about["score"] not in ("mail", "guard"):  # truth: identical text only
                row["false_pairs"], row["missed_pairs"] = error_pairs(clusters, truth, ignore, a.errors, only)
            if about["score"] in ("mail", "guard"):
                bc, bp = low_jaccard(clusters, text)
                row["clusters_below_jaccard_0.3"] = bc
                row["pairs_below_jaccard_0.3"] = bp
                row["largest"] = max((len(c) for c in clusters), default=0)
                notes = "largest %d; %d clusters (%d pairs) below Jaccard 0.3" % (row["largest"], bc, bp)
                if about["score"] == "guard":
                    row["P"] = None  # identical text only: precision means nothing
            row["notes"] = notes
            if a.json:
                print(json.dumps(row))
            else:
                print("%-10s %-6s %6s %6.3f %6s %8d %7.1f  %s" % (
                    name, point, "-" if row["P"] is None else "%.3f" % row["P"], row["R"],
                    "-" if row["P"] is None else "%.3f" % row["F1"], len(clusters), secs, notes))
                print_errors(row)
            sys.stdout.flush()


if __name__ == "__main__":
    main()
