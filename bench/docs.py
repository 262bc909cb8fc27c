#!/usr/bin/env python3
"""Benchmark: what deciding costs against signing on real documentation.
Prints a table; no pass/fail.

    docs.py NEARDUP [--keep DIR] [--limit N]

The corpus is every English man page of sections 1, 5, 7 and 8 under
/usr/share/man, generated command references included (rendered by man
-l, as eval/sets/make.py renders them; --limit N takes a seeded sample),
and every /usr/share/doc/*/copyright:
documentation whose pages share flag tables, licence bodies and
boilerplate, the collection that made deciding cost 128 times signing.
--keep DIR keeps the rendered corpus and the database there, and a later
run with the same DIR measures from build on.

Every step is its own process (peak RSS and CPU seconds from os.wait4,
and the share of its time the disk stalled, with the same warning as
bench/scale.py): index, build,
sign --no-links (on a copy of the built store), sign, clusters --point
copy and --point story; then deciding's cost as ratios to sign
--no-links, measured in the same run.
"""
import glob
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "eval", "sets"))
import make  # noqa: E402  (eval/sets/make.py: the man page renderer)
from scale import measure, stall_text, stall_warning  # noqa: E402  (a step in its own process: seconds, peak MiB, CPU, stall)


def corpus(path, limit):
    """Every page, the generated command references too (the labeled sets
    leave those out; a user's collection has them)."""
    files = sorted(f for s in ("1", "5", "7", "8") for f in glob.glob("/usr/share/man/man%s/*" % s)
                   if os.path.isfile(f) and not os.path.islink(f))
    if limit and len(files) > limit:
        files = sorted(random.Random(1).sample(files, limit))
    with ProcessPoolExecutor() as ex:
        texts = dict(ex.map(make.render, files, chunksize=16))
    pages, n = 0, 0
    with open(path, "w") as f:
        for p in files:
            text = texts.get(p, "")
            if len(text.split()) < 30:
                continue  # a .so stub or an empty page
            f.write(json.dumps({"id": "man/" + os.path.relpath(p, "/usr/share/man"), "text": text}) + "\n")
            pages += 1
        n = pages
        for c in sorted(glob.glob("/usr/share/doc/*/copyright")):
            try:
                text = open(c, encoding="utf-8", errors="replace").read()
            except OSError:
                continue
            f.write(json.dumps({"id": c, "text": text}) + "\n")
            n += 1
    return pages, n - pages


def main():
    args = sys.argv[1:]
    if args and args[0] == "--render":
        # A child process, so the rendered pages never count in a step's
        # peak RSS (a forked child starts with its parent's pages).
        print(json.dumps(corpus(args[1], int(args[2]))))
        return 0
    if not args or args[0] in ("-h", "--help"):
        sys.exit(__doc__)
    nd = os.path.abspath(args[0])
    keep, limit = None, 0
    rest = args[1:]
    while rest:
        if rest[0] == "--keep" and len(rest) > 1:
            keep = rest[1]
        elif rest[0] == "--limit" and len(rest) > 1:
            limit = int(rest[1])
        else:
            sys.exit(__doc__)
        rest = rest[2:]
    if not os.path.isdir("/usr/share/man/man1"):
        print("docs: no /usr/share/man here: nothing to measure")
        return 0
    d = keep or tempfile.mkdtemp(prefix="nd-docs-")
    os.makedirs(d, exist_ok=True)
    src, db = os.path.join(d, "corpus.jsonl"), os.path.join(d, "db")
    try:
        print("%-28s %9s %10s %9s %8s %9s" % ("step", "seconds", "docs/s", "peak MiB", "CPU s", "io stall"))
        if not os.path.isdir(db):
            t0 = time.monotonic()
            man, copyright = json.loads(subprocess.run([sys.executable, os.path.abspath(__file__), "--render", src,
                                                        str(limit)], check=True, capture_output=True,
                                                       text=True).stdout)
            print("%-28s %9.1f %10s %9s   (%d man pages, %d copyright files)" %
                  ("render", time.monotonic() - t0, "", "", man, copyright))
            s, m, cpu, stall = measure([nd, "index", "-q", "--db", db, src])
            print("%-28s %9.1f %10s %9.1f %8.1f %9s" % ("index", s, "", m, cpu, stall_text(stall)))
        else:
            print("%-28s   (database kept from an earlier run)" % "index")
        n = sum(1 for _ in open(src))
        st, st0 = os.path.join(d, "store"), os.path.join(d, "store-nolinks")
        for p in (st, st0):
            shutil.rmtree(p, ignore_errors=True)
        t = {}
        steps = [("build", [nd, "build", "-q", "--db", db, "--store", st]),
                 ("copy store", ["cp", "-r", st, st0]),
                 ("sign --no-links", [nd, "sign", "-q", "--no-links", "--db", db, "--store", st0]),
                 ("sign", [nd, "sign", "-q", "--db", db, "--store", st]),
                 ("clusters --point copy", [nd, "clusters", "--db", db, "--store", st, "--point", "copy",
                                            "--json"]),
                 ("clusters --point story", [nd, "clusters", "--db", db, "--store", st, "--point", "story",
                                             "--json"])]
        peak, stalls = 0.0, {}
        for name, cmd in steps:
            s, m, cpu, stall = measure(cmd)
            t[name], stalls[name] = s, stall
            if name != "copy store":
                peak = max(peak, m)
            print("%-28s %9.1f %10.0f %9.1f %8.1f %9s" % (name, s, n / s if s > 0 else 0, m, cpu, stall_text(stall)))
        base = t["sign --no-links"]
        print("%d documents; deciding against signing (sign --no-links = 1): sign with links x%.2f, "
              "clusters --point copy x%.2f, --point story x%.2f; peak MiB of any step %.0f" %
              (n, t["sign"] / base, t["clusters --point copy"] / base, t["clusters --point story"] / base, peak))
        warning = stall_warning(stalls)
        if warning:
            print(warning)
    finally:
        if not keep:
            shutil.rmtree(d, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
