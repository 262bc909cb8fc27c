#!/usr/bin/env python3
"""Crash safety: SIGKILL `neardup sign`, `update`, `index` and the
crawler example (check, index, commit, hook) at random moments, many
times.  After every kill the store must pass `neardup fsck` (doc -> sig
and sig -> docs agree; links unsettled at most), and rerunning the command
must end exactly where an uninterrupted run ends: the same records, keys
and links (and `fsck --db` finds the links to be those the copy verdict
gives the records).

    kill.py NEARDUP [--crawl CRAWL-EXAMPLE] [--kills N] [--families F] [--seed S]
                                                    (defaults 200, 1500, 1)
"""
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time


def run(*args, **kw):
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def main():
    nd = os.path.abspath(sys.argv[1])
    kills_wanted = 200
    families = 1500
    seed = 1
    crawl = None
    args = sys.argv[2:]
    while args:
        if args[0] == "--kills":
            kills_wanted = int(args[1])
        elif args[0] == "--families":
            families = int(args[1])
        elif args[0] == "--seed":
            seed = int(args[1])
        elif args[0] == "--crawl":
            crawl = os.path.abspath(args[1])
        else:
            sys.exit("usage: kill.py NEARDUP [--crawl CRAWL-EXAMPLE] [--kills N] [--families F] [--seed S]")
        args = args[2:]
    rnd = random.Random(seed)
    tmp = tempfile.mkdtemp(prefix="nd-kill-")
    try:
        return trial_all(nd, crawl, kills_wanted, families, rnd, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def corpus(path, fams, start, copies_of=None, seed=0):
    """Families of texts from a 3,000-word vocabulary; copies are 1-word edits."""
    vocab = ["w%sa" % "".join(chr(97 + int(c)) for c in "%04d" % i) for i in range(3000)]  # no digits: no values
    with open(path, "w") as f:
        for fam in range(start, start + fams):
            r = random.Random(fam * 7919 + seed)
            base = [vocab[min(int(r.paretovariate(1.2)) * 13 % 3000, 2999)] if r.random() < .5
                    else r.choice(vocab) for _ in range(80 + fam % 6 * 20)]
            for c in range(fam % 3 + 1):
                w = list(base)
                if c:
                    w[r.randrange(len(w))] = r.choice(vocab)
                f.write(json.dumps({"id": "f%d.%d" % (fam, c), "text": " ".join(w)}) + "\n")


def dump(nd, store, db):
    """Every record (docid key) and every link (link a b): fsck --db also
    checks that the links are those the copy verdict gives the records."""
    p = run(nd, "fsck", "--store", store, "--db", db, "--dump")
    if p.returncode != 0:
        raise SystemExit("fsck --db failed on %s:\n%s%s" % (store, p.stdout[-2000:], p.stderr))
    return [l for l in p.stdout.splitlines() if l[:1].isdigit() or l.startswith("link ")]


def fsck(nd, store):
    """Consistent after a kill: fsck's only problem may be links a writer
    did not get to settle (it exits 1 then, as collapsing is degraded)."""
    p = run(nd, "fsck", "--store", store)
    problems = [l for l in p.stdout.splitlines() if l.startswith("problem:")]
    unsettled = [l for l in problems if "links" in l and ("not settled" in l or "made again" in l)]
    if p.returncode not in (0, 1) or problems != unsettled or (p.returncode == 1) != bool(problems):
        raise SystemExit("store inconsistent after a kill: %s\n%s%s" % (store, p.stdout[-2000:], p.stderr))


def timed(cmd):
    t0 = time.monotonic()
    p = run(*cmd)
    if p.returncode != 0:
        raise SystemExit("%s failed:\n%s" % (" ".join(cmd), p.stderr))
    return time.monotonic() - t0


def kill_at_random(cmd, duration, rnd):
    """Start cmd, SIGKILL it after a random share of its usual duration.
    True when it was killed (not finished first)."""
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    time.sleep(rnd.uniform(0, duration))
    p.kill()
    _, err = p.communicate()
    if p.returncode not in (0, -9):
        raise SystemExit("%s failed (%d): %s" % (" ".join(cmd), p.returncode, err.decode()))
    return p.returncode == -9


def trial_all(nd, crawl, kills_wanted, families, rnd, tmp):
    j = lambda *a: os.path.join(tmp, *a)
    corpus(j("base.jsonl"), families, 0)
    # Changes: a tenth more families, 1 in 19 existing ones re-indexed with other text.
    corpus(j("more.jsonl"), families // 10, 5000)
    corpus(j("redo.jsonl"), families // 19, 0, seed=99)
    with open(j("changes.jsonl"), "w") as out:
        for f in ("more.jsonl", "redo.jsonl"):
            out.write(open(j(f)).read())
    # The crawler's pages: the new families' texts and copies of existing ones.
    os.mkdir(j("pages"))
    pages = []
    for n, line in enumerate(open(j("changes.jsonl"))):
        if n % 2 == 0:
            pages.append(j("pages", "p%03d.txt" % n))
            with open(pages[-1], "w") as f:
                f.write(json.loads(line)["text"])

    timed([nd, "index", "--quiet", "--db", j("db"), j("base.jsonl")])
    timed([nd, "build", "--db", j("db"), "--store", j("store0"), "--words", "500"])
    # Reference runs, uninterrupted.
    shutil.copytree(j("store0"), j("ref-sign"))
    t_sign = timed([nd, "sign", "--db", j("db"), "--store", j("ref-sign"), "--block", "48", "--max-drift", "0"])
    want_sign = dump(nd, j("ref-sign"), j("db"))
    shutil.copytree(j("db"), j("db2"))
    t_index = timed([nd, "index", "--quiet", "--batch", "60", "--db", j("db2"), j("changes.jsonl")])
    shutil.copytree(j("ref-sign"), j("ref-upd"))
    t_upd = timed([nd, "update", "--quiet", "--db", j("db2"), "--store", j("ref-upd"), "--block", "48",
                   "--max-drift", "0"])
    want_upd = dump(nd, j("ref-upd"), j("db2"))
    t_crawl, want_crawl = 0, None
    if crawl:
        shutil.copytree(j("db"), j("db3"))
        shutil.copytree(j("ref-sign"), j("ref-crawl"))
        t_crawl = timed([crawl, j("db3"), j("ref-crawl")] + pages)
        want_crawl = dump(nd, j("ref-crawl"), j("db3"))
    print("kill.py: uninterrupted sign %.2f s, index %.2f s, update %.2f s, crawl %.2f s"
          % (t_sign, t_index, t_upd, t_crawl))
    if want_upd == want_sign or (crawl and want_crawl == want_sign):
        raise SystemExit("the changes changed nothing: the test would prove nothing")
    if not any(l.startswith("link ") for l in want_upd):
        raise SystemExit("no links: the test would prove nothing of them")

    kills = {"sign": 0, "update": 0, "index": 0, "crawl": 0}
    share = {"sign": 0.3, "update": 0.25, "index": 0.2, "crawl": 0.25 if crawl else 0}
    attempts = 0
    while sum(kills.values()) < kills_wanted:
        attempts += 1
        if attempts > kills_wanted * 5:
            raise SystemExit("only %s kills in %d attempts: commands finish too fast" % (kills, attempts))
        which = rnd.choices(list(share), weights=list(share.values()))[0]
        s, d = j("s"), j("d")
        shutil.rmtree(s, ignore_errors=True)
        shutil.rmtree(d, ignore_errors=True)
        if which == "sign":
            shutil.copytree(j("store0"), s)
            cmd = [nd, "sign", "--db", j("db"), "--store", s, "--block", "48", "--max-drift", "0"]
            killed = kill_at_random(cmd, t_sign, rnd)
            fsck(nd, s)
            timed(cmd)
            got, want, db = dump(nd, s, j("db")), want_sign, j("db")
        elif which == "update":
            shutil.copytree(j("ref-sign"), s)
            cmd = [nd, "update", "--quiet", "--db", j("db2"), "--store", s, "--block", "48", "--max-drift", "0"]
            killed = kill_at_random(cmd, t_upd, rnd)
            fsck(nd, s)
            timed(cmd)
            got, want, db = dump(nd, s, j("db2")), want_upd, j("db2")
        elif which == "crawl":
            # Killed anywhere in check, index, commit, hook: the next run
            # catches up and ends where an uninterrupted one does.
            shutil.copytree(j("db"), d)
            shutil.copytree(j("ref-sign"), s)
            cmd = [crawl, d, s] + pages
            killed = kill_at_random(cmd, t_crawl, rnd)
            fsck(nd, s)
            timed(cmd)
            got, want, db = dump(nd, s, d), want_crawl, d
        else:
            shutil.copytree(j("db"), d)
            shutil.copytree(j("ref-sign"), s)
            cmd = [nd, "index", "--quiet", "--batch", "60", "--db", d, j("changes.jsonl")]
            killed = kill_at_random(cmd, t_index, rnd)
            # The database opens and the index rerun completes it.
            timed(cmd)
            timed([nd, "update", "--quiet", "--db", d, "--store", s, "--max-drift", "0"])
            got, want, db = dump(nd, s, d), want_upd, d
        if got != want:
            links = lambda v: sum(l.startswith("link ") for l in v)
            raise SystemExit("after killing %s, the rerun differs from an uninterrupted run (%d vs %d records, "
                             "%d vs %d links)" % (which, len(got) - links(got), len(want) - links(want),
                                                  links(got), links(want)))
        kills[which] += killed
    print("kill.py: %d kills (sign %d, update %d, index %d, crawl %d) in %d attempts; every store consistent "
          "after the kill and equal to an uninterrupted run (records and links) after the rerun"
          % (sum(kills.values()), kills["sign"], kills["update"], kills["index"], kills["crawl"], attempts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
