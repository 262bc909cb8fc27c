#!/usr/bin/env python3
"""neardup(1) from the program's own --help texts, so the page and the
program cannot drift apart: one section a command, each option as a
tagged paragraph.

    manpage.py NEARDUP VERSION OUT      write the page
    manpage.py --check NEARDUP PAGE     every option of every --help is in the page
"""
import re
import subprocess
import sys


def help_of(nd, *args):
    return subprocess.run([nd, *args, "--help"], capture_output=True, text=True, check=True).stdout


def commands(nd):
    out = help_of(nd)
    return [(m.group(1), m.group(2)) for m in re.finditer(r"^  ([a-z]+)\s{2,}(.+)$", out, re.M)]


def esc(s):
    s = s.replace("\\", "\\e").replace("-", "\\-")
    return re.sub(r"^([.'])", r"\\&\1", s)


def section(name, text):
    """A command's --help as man source: usage, prose, then options."""
    lines = text.rstrip("\n").split("\n")
    out = [".SH %s" % esc(name.upper()) if name == "neardup" else ".SS \"neardup %s\"" % name]
    opt = None
    para = []

    def flush():
        if para:
            out.append(esc(" ".join(para)))
            out.append(".PP")
            para.clear()

    for line in lines:
        m = re.match(r"^  (-[^ ].*?)(?:\s{2,}(.*))?$", line)
        if line.startswith("usage: "):
            out.append(".PP\n.B %s\n.PP" % esc(line[len("usage: "):]))
        elif m:
            flush()
            opt = m.group(1)
            out.append(".TP\n.B %s" % esc(opt))
            if m.group(2):
                out.append(esc(m.group(2)))
        elif opt and re.match(r"^\s{4,}\S", line):
            out.append(esc(line.strip()))
        elif not line.strip():
            flush()
            opt = None
        else:
            opt = None
            para.append(line.strip())
    flush()
    return "\n".join(out)


def write(nd, version, path):
    cmds = commands(nd)
    parts = [
        '.TH NEARDUP 1 "" "neardup %s" "User Commands"' % esc(version),
        ".SH NAME",
        "neardup \\- near\\-duplicate detection on a Xapian word index",
        ".SH SYNOPSIS",
        ".B neardup",
        ".I COMMAND",
        "[\\fIOPTIONS\\fR]",
        ".SH DESCRIPTION",
        esc("neardup chooses a descriptive set of words from a Xapian database's statistics, signs every "
            "document from the postlists, keeps signatures, clusters and a near-neighbour index in an "
            "LMDB store, and cross-checks candidates by word shingles and normalized Levenshtein. "
            "Each command below prints this text with --help."),
        ".SH COMMANDS",
    ]
    for name, what in cmds:
        parts.append(".TP\n.B %s\n%s" % (name, esc(what)))
    parts.append(".SH \"COMMAND OPTIONS\"")
    for name, _ in cmds:
        parts.append(section(name, help_of(nd, name)))
    parts += [".SH \"EXIT STATUS\"", "0 success, 1 error, 2 usage mistake.",
              ".SH \"SEE ALSO\"", ".BR omindex (1),", ".BR scriptindex (1),", ".BR xapian\\-delve (1)"]
    with open(path, "w") as f:
        f.write("\n".join(parts) + "\n")


def check(nd, page):
    text = open(page).read().replace("\\-", "-").replace("\\e", "\\")
    missing = []
    for name, _ in commands(nd):
        if ".SS \"neardup %s\"" % name not in text:
            missing.append("command %s" % name)
        for opt in sorted(set(re.findall(r"^  (--[a-z][a-z-]*)", help_of(nd, name), re.M))):
            section = text.split(".SS \"neardup %s\"" % name, 1)[-1].split(".SS ", 1)[0]
            if opt not in section:
                missing.append("neardup %s %s" % (name, opt))
    if missing:
        sys.exit("options missing from %s: %s" % (page, ", ".join(missing)))
    print("%s: every command and every --help option is in the page" % page)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--check":
        check(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4:
        write(*sys.argv[1:4])
    else:
        sys.exit(__doc__)
