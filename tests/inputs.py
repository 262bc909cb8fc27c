#!/usr/bin/env python3
"""Inputs that could hang, balloon or slip through silently.

- A FIFO given to index (as .txt, .jsonl, .html), check and text is
  refused at once, naming it; inside a walked directory it is skipped
  with a warning.  Nothing waits on it (every command runs under a
  timeout).
- A JSONL line far over --max-doc-mb, and standard input far over it for
  check, are refused without being held in memory (peak RSS compared with
  a small input in the same run).
- NaN and infinities are refused by every floating-point option.
- eval with a truth file of one cluster, one document or unknown ids
  ends with a result or a message (it hit a qsort on NULL under UBSan).
- HTML that libxml2 would take minutes or gigabytes over (a tag of
  200,000 attributes, 1.1M elements), truth files that are FIFOs or
  /dev/zero, and queries of 2,000 terms: read, or refused at once.
- A binary file named .html is skipped as binary; an HTML page that is
  not UTF-8 and declares no other charset is warned about; an empty
  subdirectory is fine; a missing input makes index exit 1 after indexing
  the rest.

    inputs.py NEARDUP
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ndtest import corpus, expect, must, passed, run  # noqa: E402









def peak_kb(cmd, stdin_path=None):
    """Peak RSS (KiB) of cmd, measured in a fresh process so earlier
    children do not count."""
    prog = ("import resource,subprocess,sys\n"
            "f=open(sys.argv[1],'rb') if sys.argv[1] else None\n"
            "p=subprocess.run(sys.argv[2:],stdin=f,stdout=subprocess.DEVNULL,stderr=subprocess.PIPE)\n"
            "print(p.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
            "sys.stderr.write(p.stderr.decode(errors='replace'))\n")
    p = subprocess.run([sys.executable, "-c", prog, stdin_path or ""] + cmd, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=300)
    rc, kb = p.stdout.split()
    return int(rc), int(kb), p.stderr


def fifos(nd, tmp, db, store):
    for name in ("f.txt", "f.jsonl", "f.html"):
        fifo = os.path.join(tmp, name)
        os.mkfifo(fifo)
        p = run(nd, "index", "--db", db, fifo, timeout=20)
        expect(p.returncode == 1 and fifo in p.stderr and "not a regular file" in p.stderr,
               "index refuses FIFO " + name, p)
        p = run(nd, "check", "--db", db, "--store", store, fifo, timeout=20)
        expect(p.returncode == 1 and fifo in p.stderr and "not a regular file" in p.stderr,
               "check refuses FIFO " + name, p)
        os.remove(fifo)
    fifo = os.path.join(tmp, "g.html")
    os.mkfifo(fifo)
    p = run(nd, "text", fifo, timeout=20)
    expect(p.returncode == 1 and "not a regular file" in p.stderr, "text refuses a FIFO", p)
    os.remove(fifo)
    d = os.path.join(tmp, "walk")
    os.makedirs(os.path.join(d, "empty"))
    with open(os.path.join(d, "a.txt"), "w") as f:
        f.write("a plain page of words that is fine to index " * 5)
    os.mkfifo(os.path.join(d, "pipe.txt"))
    p = run(nd, "index", "--db", os.path.join(tmp, "dbw"), d, timeout=20)
    expect(p.returncode == 0 and "pipe.txt" in p.stderr and "not a regular file" in p.stderr
           and "indexed 1 document" in p.stdout, "a FIFO in a walked directory is skipped, named", p)


def bounded(nd, tmp, db, store):
    small, big = os.path.join(tmp, "small.jsonl"), os.path.join(tmp, "big.jsonl")
    with open(small, "w") as f:
        f.write(json.dumps({"id": "s", "text": "short text " * 10}) + "\n")
    with open(big, "w") as f:
        f.write('{"id": "big", "text": "' + "x" * (120 << 20) + '"}\n')
        f.write(json.dumps({"id": "after", "text": "the line after the long one is read"}) + "\n")
    base = peak_kb([nd, "index", "--db", os.path.join(tmp, "dbs"), "--max-doc-mb", "1", small])[1]
    rc, kb, err = peak_kb([nd, "index", "--db", os.path.join(tmp, "dbb"), "--max-doc-mb", "1", big])
    expect(rc == 0 and "over the limit" in err, "a JSONL line over the limit is skipped, said")
    expect(kb - base < 40 << 10, "a 120 MB JSONL line is not held in memory (peak %d KiB over a "
           "small input's %d KiB)" % (kb - base, base))
    p = must(nd, "index", "--db", os.path.join(tmp, "dbc"), "--max-doc-mb", "1", big)
    expect("indexed 1 document" in p.stdout, "the line after the long one is indexed", p)
    raw = os.path.join(tmp, "raw.txt")
    with open(raw, "wb") as f:
        f.write(b"word " * (24 << 20))
    rc, kb, err = peak_kb([nd, "check", "--db", db, "--store", store, "--max-doc-mb", "1", "-"], raw)
    expect(rc == 1 and "over the limit" in err and "standard input" in err,
           "check - refuses standard input over --max-doc-mb:\n" + err)
    expect(kb - base < 40 << 10, "check - holds at most the limit (peak %d KiB over %d)" % (kb - base, base))
    os.remove(big)
    os.remove(raw)


def nan_options(nd, tmp, db, store):
    s = ["--db", db, "--store", store]
    cases = [["build", *s, "--max-edit"], ["build", *s, "--word-share"],
             ["sign", *s, "--max-drift"], ["update", *s, "--max-drift"], ["update", *s, "--tolerant"],
             ["check", *s, "--max-distance"], ["check", *s, "--tolerant"],
             ["clusters", *s, "--point", "story", "--cut"]]
    for c in cases:
        for bad in ("nan", "NaN", "inf", "-inf", "1e999"):
            extra = [os.devnull] if c[0] == "check" else []
            p = run(nd, *c, bad, *extra, timeout=20)
            expect(p.returncode == 2 and c[-1] in p.stderr, "%s %s %s is a usage error" % (c[0], c[-1], bad), p)


def files(nd, tmp):
    d = os.path.join(tmp, "files")
    os.makedirs(d)
    shutil.copy("/bin/ls", os.path.join(d, "ls.html"))
    with open(os.path.join(d, "latin.html"), "wb") as f:
        f.write(b"<html><body><p>" + "caf\u00e9 cr\u00e8me br\u00fbl\u00e9e ".encode("latin-1") * 30 +
                b"</p></body></html>")
    p = run(nd, "index", "--db", os.path.join(tmp, "dbf"), d)
    expect(p.returncode == 0 and "ls.html" in p.stderr and "binary" in p.stderr, "binary .html skipped", p)
    expect("latin.html" in p.stderr and "not UTF-8" in p.stderr and "indexed 1 document" in p.stdout,
           "HTML that is not UTF-8 is warned about and indexed", p)
    # Names without an extension (README, copyright) are text; a binary
    # one is still skipped as binary, and other extensions by type.
    e = os.path.join(tmp, "noext")
    os.makedirs(e)
    with open(os.path.join(e, "copyright"), "w") as f:
        f.write("Copyright the authors. Permission is granted to copy this text. " * 20)
    shutil.copy("/bin/ls", os.path.join(e, "lsbin"))
    with open(os.path.join(e, "notes.gz"), "w") as f:
        f.write("not really compressed")
    p = run(nd, "index", "--db", os.path.join(tmp, "dbe"), e)
    expect(p.returncode == 0 and "indexed 1 document" in p.stdout and "lsbin" in p.stderr and
           "binary" in p.stderr and "notes.gz" in p.stderr, "an extensionless text file is indexed", p)
    # An empty database: build says so, and what to do.
    empty = os.path.join(tmp, "empty")
    os.makedirs(empty)
    run(nd, "index", "-q", "--db", os.path.join(tmp, "dbz"), empty)
    p = run(nd, "build", "--db", os.path.join(tmp, "dbz"), "--store", os.path.join(tmp, "stz"))
    expect(p.returncode == 1 and "0 documents" in p.stderr and "neardup index" in p.stderr,
           "build on an empty database says it is empty and what to do", p)
    p = run(nd, "index", "--db", os.path.join(tmp, "dbm"), os.path.join(d, "latin.html"),
            os.path.join(tmp, "no-such-file.txt"))
    expect(p.returncode == 1 and "no-such-file.txt" in p.stderr and "indexed 1 document" in p.stdout,
           "a missing input: the rest indexed, exit 1", p)


def eval_truths(nd, tmp, db, store):
    """Truth files with one cluster, one document or only unknown ids."""
    cases = {"one-cluster": "f1.0\t1\nf1.1\t1\n", "one-document": "f0.0\t1\n",
             "unknown-ids": "nope1\t1\nnope2\t1\n", "mixed": "f0.0\t1\nnope\t1\n"}
    for name, text in cases.items():
        t = os.path.join(tmp, name + ".tsv")
        with open(t, "w") as f:
            f.write(text)
        p = run(nd, "eval", "-q", "--db", db, "--store", store, "--clusters", t, "--methods",
                "descriptive,shingles,descriptive-tolerant+xcheck", timeout=120)
        expect(p.returncode in (0, 1) and "Sanitizer" not in p.stderr and "runtime error" not in p.stderr,
               "eval with a %s truth file ends cleanly" % name, p)
        if name == "unknown-ids":
            expect(p.returncode == 1 and "none of its ids" in p.stderr, "eval says no id is known", p)


def bombs(nd, tmp, db, store):
    """Inputs quadratic or huge in what they cost, refused or bounded."""
    attrs = os.path.join(tmp, "attrs.html")
    with open(attrs, "w") as f:  # 2.4 MB in one tag: libxml2 alone took minutes
        f.write("<html><body><p>the words before</p><div " + " ".join('a%d="x"' % i for i in range(200000)) +
                ">the words inside</div></body></html>")
    p = run(nd, "text", "--content", "full", attrs, timeout=60)
    expect(p.returncode == 0 and "the words inside" in p.stdout, "a tag of 200,000 attributes is read", p)
    elems = os.path.join(tmp, "elems.html")
    with open(elems, "w") as f:
        f.write("<html><body>" + "<p>w</p>" * 1100000 + "</body></html>")
    p = run(nd, "text", elems, timeout=60)
    expect(p.returncode == 1 and "elems.html" in p.stderr and "1000000 elements" in p.stderr,
           "a page of 1.1M elements is refused, named", p)
    fifo = os.path.join(tmp, "truth.fifo")
    os.mkfifo(fifo)
    for kind in ("--pairs", "--clusters"):
        for src in (fifo, "/dev/zero"):
            p = run(nd, "eval", "-q", "--db", db, "--store", store, kind, src, timeout=20)
            expect(p.returncode == 1 and src in p.stderr and "not a regular file" in p.stderr,
                   "eval %s %s is refused at once" % (kind, src), p)
    os.remove(fifo)
    many = " ".join("w%04da" % i for i in range(2000))
    p = run(nd, "search", "--db", db, "--store", store, many, timeout=60)
    expect(p.returncode == 1 and "at most 1000" in p.stderr and len(p.stderr) < 1000,
           "a query of 2,000 terms is refused, briefly", p)
    p = run(nd, "search", "--db", db, "--store", store, "--max-query-terms", "3000", many, timeout=60)
    expect(p.returncode == 0, "--max-query-terms lifts the cap", p)


def main():
    nd = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix="nd-inputs-")
    try:
        jl, db, store = (os.path.join(tmp, x) for x in ("c.jsonl", "db", "st"))
        corpus(jl, 300, 0)
        must(nd, "index", "--quiet", "--db", db, jl)
        must(nd, "build", "--db", db, "--store", store)
        must(nd, "sign", "--db", db, "--store", store)
        fifos(nd, tmp, db, store)
        nan_options(nd, tmp, db, store)
        files(nd, tmp)
        eval_truths(nd, tmp, db, store)
        bounded(nd, tmp, db, store)
        bombs(nd, tmp, db, store)
        passed()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
