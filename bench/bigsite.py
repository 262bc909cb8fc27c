#!/usr/bin/env python3
"""A large new site hooked page by page: what counting its template costs.

A crawl past the hooks' recount cap meets a new host of N pages (default
6000), each the site's template (a header and a footer, two thirds of
the page) around an article of its own; one page in twenty is an edited
copy of an earlier one.  The pages are indexed, then each is hooked in
order (bench_agree --recount-max 0: the collection is never counted
again), three times in one run: with their URLs, so that hooks count
the site's template as it grows; without URLs, the site then told by
the pages' frame (their first and last words); and, as the baseline,
without URLs and with a word of each page's own at either end, so that
nothing tells the site and its template is evidence.  Prints hooks/s,
the slowest hook, and the pairwise precision and recall of the online
clusters against the known copies, for each, and the ratios to the
baseline.  No pass/fail.

    bigsite.py NEARDUP BENCH_AGREE [--pages N] [--keep DIR]
"""
import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile


def corpus(d, n, how, seed=5):
    r = random.Random(seed)
    vocab = ["".join(chr(97 + (i // 26 ** k) % 26) for k in range(4)) + "x" for i in range(20000)]
    words = lambda k: " ".join(r.choice(vocab) for _ in range(k))
    head, foot = words(120), words(120)
    arts, cls = [], []
    with open(os.path.join(d, "corpus.jsonl"), "w") as f, open(os.path.join(d, "truth.tsv"), "w") as t:
        for i in range(n):
            if i > 50 and r.random() < 0.05:  # an edited copy, two words changed
                j = r.randrange(len(arts))
                a = arts[j].split()
                for _ in range(2):
                    a[r.randrange(len(a))] = r.choice(vocab)
                art, c = " ".join(a), cls[j]
            else:
                art, c = words(120), i
            arts.append(art)
            cls.append(c)
            text = "%s\n\n%s\n\n%s" % (head, art, foot)
            if how == "none":  # its own first and last words: no frame in common
                text = "page%d %s page%d" % (i, text, i)
            rec = {"id": "p%05d" % i, "text": text}
            if how == "host":
                rec["url"] = "https://big.example/p%05d.html" % i
            f.write(json.dumps(rec) + "\n")
            t.write("p%05d\tc%05d\n" % (i, c))


def run(nd, agree, d):
    db, st = os.path.join(d, "db"), os.path.join(d, "st")
    subprocess.run([nd, "index", "--quiet", "--db", db, os.path.join(d, "corpus.jsonl")], check=True,
                   stdout=subprocess.DEVNULL)
    subprocess.run([nd, "build", "-q", "--db", db, "--store", st], check=True, stdout=subprocess.DEVNULL)
    out = subprocess.run([agree, db, st, "--truth", os.path.join(d, "truth.tsv"), "--recount-max", "0"],
                         check=True, capture_output=True, text=True).stdout
    rate = float(re.search(r"\((\d+) hooks/s", out).group(1))
    slow = float(re.search(r"slowest hook ([\d.]+) s", out).group(1))
    p, rec = re.search(r"online against the known clusters\s+P ([\d.]+)\s+R ([\d.]+)", out).groups()
    return rate, slow, float(p), float(rec)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("neardup")
    ap.add_argument("bench_agree")
    ap.add_argument("--pages", type=int, default=6000)
    ap.add_argument("--keep", help="keep the corpora, databases and stores here")
    a = ap.parse_args()
    top = a.keep or tempfile.mkdtemp(prefix="nd-bigsite-")
    try:
        res = {}
        for name, how in (("with its host", "host"), ("by its frame", "frame"), ("no site (baseline)", "none")):
            d = os.path.join(top, how)
            shutil.rmtree(d, ignore_errors=True)
            os.makedirs(d)
            corpus(d, a.pages, how)
            res[name] = run(a.neardup, a.bench_agree, d)
        print("%d pages of one new site, hooked past the recount cap" % a.pages)
        print("%-20s %9s %9s %7s %7s" % ("", "hooks/s", "slowest s", "P", "R"))
        for name, (rate, slow, p, rec) in res.items():
            print("%-20s %9.0f %9.3f %7.3f %7.3f" % (name, rate, slow, p, rec))
        base = res["no site (baseline)"][0]
        print("hooks/s with the site counted against without: by its host x%.2f, by its frame x%.2f"
              % (res["with its host"][0] / base, res["by its frame"][0] / base))
    finally:
        if not a.keep:
            shutil.rmtree(top, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
