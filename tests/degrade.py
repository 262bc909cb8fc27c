#!/usr/bin/env python3
"""A database neardup can use only in part says so: built by another
indexer without positions, sign warns that words come from the document
data; with no text at all, that documents have no word sequence, and no
verdict can call them duplicates.  Either way signing succeeds, and a
database with positions gets neither warning.  Ghost documents (boolean
terms only, as notmuch keeps) are counted apart by fsck.

    degrade.py NEARDUP     (skips, 77, without python3-xapian)
"""
import os
import random
import shutil
import subprocess
import sys
import tempfile

try:
    import xapian
except ImportError:
    if os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3") and \
            os.path.exists("/usr/bin/python3"):  # Debian's, where python3-xapian lives
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    print("degrade: skipped, no xapian module (apt-get install python3-xapian)")
    sys.exit(77)


def make(path, positions, data, ghosts=0, ids=True):
    db = xapian.WritableDatabase(path, xapian.DB_CREATE_OR_OVERWRITE)
    tg = xapian.TermGenerator()
    r = random.Random(1)
    vocab = ["w%da" % i for i in range(2000)]
    for i in range(60):
        text = " ".join(r.choice(vocab) for _ in range(120))
        doc = xapian.Document()
        tg.set_document(doc)
        (tg.index_text if positions else tg.index_text_without_positions)(text)
        if ids:
            doc.add_boolean_term("Qd%d" % i)
        if data:
            doc.set_data(text)
        db.add_document(doc)
    for i in range(ghosts):  # as notmuch keeps for messages it has only heard of
        doc = xapian.Document()
        doc.add_boolean_term("Tghost")
        doc.add_boolean_term("Qghost%d" % i)
        db.add_document(doc)
    db.commit()
    db.close()


def sign(nd, tmp, name):
    db, st = os.path.join(tmp, name), os.path.join(tmp, name + ".nd")
    for cmd in (["build", "--db", db, "--store", st], ["sign", "--db", db, "--store", st]):
        p = subprocess.run([nd] + cmd, capture_output=True, text=True)
        if p.returncode:
            sys.exit("FAIL: %s on %s exited %d:\n%s" % (cmd[0], name, p.returncode, p.stderr))
    return p.stderr


def main():
    nd = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix="nd-degrade-")
    try:
        make(os.path.join(tmp, "pos"), True, True)
        make(os.path.join(tmp, "nopos"), False, True)
        make(os.path.join(tmp, "bare"), False, False)
        err = sign(nd, tmp, "pos")
        if "warning" in err:
            sys.exit("FAIL: a database with positions warned:\n" + err)
        err = sign(nd, tmp, "nopos")
        if "60 documents of" not in err or "have no positions" not in err:
            sys.exit("FAIL: no warning for a database without positions:\n" + err)
        err = sign(nd, tmp, "bare")
        if "60 documents of" not in err or "no word sequence" not in err:
            sys.exit("FAIL: no warning for documents without words:\n" + err)
        make(os.path.join(tmp, "noids"), True, True, ids=False)
        err = sign(nd, tmp, "noids")
        if "no unique-id term" not in err:
            sys.exit("FAIL: no warning for documents without ids:\n" + err)
        # Ghost documents: nothing to sign, and fsck says so once instead of
        # asking for a sign that would change nothing.
        make(os.path.join(tmp, "ghosts"), True, True, ghosts=10)
        sign(nd, tmp, "ghosts")
        p = subprocess.run([nd, "fsck", "--store", os.path.join(tmp, "ghosts.nd"), "--db",
                            os.path.join(tmp, "ghosts")], capture_output=True, text=True)
        if p.returncode or "10 documents of the database hold no words" not in p.stdout or \
                "run 'neardup sign'" in p.stdout:
            sys.exit("FAIL: fsck on a database with ghost documents (exit %d):\n%s%s" % (
                p.returncode, p.stdout, p.stderr))
        print("degrade: no positions, no text, no ids and ghost documents are each named")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
