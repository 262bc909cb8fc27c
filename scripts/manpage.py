#!/usr/bin/env python3
"""The manual pages, from one source each, so that they cannot drift from
what they describe:

  neardup(1)            the commands, from `neardup --help`
  neardup-COMMAND(1)    each command, from `neardup COMMAND --help`
  neardup(3)            the library: docs/library.md's introduction, then
                        each public header's own comment and declarations

    manpage.py NEARDUP VERSION INCLUDE_DIR LIBRARY_MD OUTDIR   write them
    manpage.py --check NEARDUP INCLUDE_DIR OUTDIR              every option of
        every --help is in its command's page, every public function in
        neardup(3)
"""
import os
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


def body(text):
    """A --help text as man source: usage, prose, then options."""
    lines = text.rstrip("\n").split("\n")
    out = []
    opt = None
    para = []

    def flush():
        if para:
            out.append(esc(" ".join(para)))
            out.append(".PP")
            para.clear()

    for line in lines:
        m = re.match(r"^  (-[^ ].*?)(?:\s{2,}(.*))?$", line) or re.match(r"^  ([a-z][a-z-]*)\s{2,}(.*)$", line)
        if line.startswith("usage: "):
            out.append(".SH SYNOPSIS\n.B %s\n.SH DESCRIPTION" % esc(line[len("usage: "):]))
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
        elif line.endswith(":") and not line.startswith(" ") and len(line.split()) <= 3:
            flush()
            opt = None
            out.append(".SH %s" % esc(line[:-1].upper()))
        else:
            opt = None
            para.append(line.strip())
    flush()
    return "\n".join(out)


FOOT = [".SH \"EXIT STATUS\"", "0 success, 1 an error (named on standard error), 2 a usage mistake."]


def command_page(nd, version, name, what):
    return "\n".join([
        '.TH NEARDUP\\-%s 1 "" "neardup %s" "neardup manual"' % (esc(name.upper()), esc(version)),
        ".SH NAME", "neardup\\-%s \\- %s" % (esc(name), esc(what)),
        body(help_of(nd, name)), *FOOT,
        ".SH \"SEE ALSO\"", ".BR neardup (1),", ".BR neardup (3)"]) + "\n"


def overview_page(nd, version, cmds):
    parts = [
        '.TH NEARDUP 1 "" "neardup %s" "neardup manual"' % esc(version),
        ".SH NAME", "neardup \\- near\\-duplicate detection on a Xapian word index",
        ".SH SYNOPSIS", ".B neardup", ".I COMMAND", "[\\fIOPTIONS\\fR]", ".br",
        ".B neardup help", ".I COMMAND",
        ".SH DESCRIPTION",
        esc("neardup chooses a descriptive set of words from a Xapian database's statistics, signs every "
            "document from the postlists, keeps signatures, clusters and a near-neighbour index in an "
            "LMDB store, and decides which candidates are duplicates by a verdict over their words, at "
            "a named point: strict, copy (the default) or story.  Each command has a page of its own, "
            "and prints it with --help."),
        ".SH COMMANDS"]
    for name, what in cmds:
        parts.append(".TP\n.BR neardup\\-%s (1)\n%s" % (esc(name), esc(what)))
    parts += FOOT + [".SH \"SEE ALSO\"", ".BR neardup (3),", ".BR omindex (1),", ".BR scriptindex (1),",
                     ".BR xapian\\-delve (1)"]
    return "\n".join(parts) + "\n"


def header_sections(include):
    """(header, its leading comment, its declarations) of every public header."""
    out = []
    for h in ["neardup.h"] + sorted("neardup/" + f for f in os.listdir(os.path.join(include, "neardup"))
                                    if f.endswith(".h")):
        text = open(os.path.join(include, h)).read()
        m = re.match(r"\s*/\*(.*?)\*/", text, re.S)
        lead = re.sub(r"^\s*\* ?", "", m.group(1), flags=re.M).strip().split("\n\n")[0] if m else ""
        decls = [re.sub(r"\s+", " ", d).strip() for d in
                 re.findall(r"ND_EXTERN\s+([^;]*?\([^;]*?\));", text, re.S)]
        out.append((h, lead, decls))
    return out


def md_to_man(md):
    """docs/library.md's subset: # headings, paragraphs, ``` blocks, - items."""
    out, para, code = [], [], False
    inline = lambda s: re.sub(r"`([^`]+)`", r"\\fB\1\\fR", esc(s))

    def flush():
        if para:
            out.append(inline(" ".join(para)))
            out.append(".PP")
            para.clear()

    for line in md.split("\n"):
        if line.startswith("```"):
            flush()
            out.append(".EX" if not code else ".EE\n.PP")
            code = not code
        elif code:
            out.append(esc(line) if line else ".sp")
        elif line.startswith("#"):
            flush()
            out.append(".SH %s" % esc(line.lstrip("# ").upper()))
        elif line.startswith("- "):
            flush()
            out.append(".IP \\(bu 2\n" + inline(line[2:]))
        elif not line.strip():
            flush()
        else:
            para.append(line.strip())
    flush()
    return "\n".join(out)


def library_page(version, include, library_md):
    md = open(library_md).read()
    md = md.split("\n", 1)[1] if md.startswith("# ") else md  # the page has its own title
    parts = ['.TH NEARDUP 3 "" "neardup %s" "neardup manual"' % esc(version),
             ".SH NAME", "neardup \\- near\\-duplicate detection on a Xapian word index (C library)",
             ".SH SYNOPSIS", ".B #include <neardup.h>", ".PP",
             "cc prog.c $(pkg\\-config \\-\\-cflags \\-\\-libs neardup)",
             ".SH DESCRIPTION", md_to_man(md), ".SH \"THE HEADERS\""]
    for h, lead, decls in header_sections(include):
        parts.append(".SS <%s>" % esc(h))
        if lead:
            parts.append(".PP\n" + esc(" ".join(lead.split())))
        if decls:
            parts.append(".PP\n.nf")
            parts += [esc(d) for d in decls]
            parts.append(".fi")
    parts += [".SH \"SEE ALSO\"", ".BR neardup (1)"]
    return "\n".join(parts) + "\n"


def write(nd, version, include, library_md, outdir):
    cmds = commands(nd)
    pages = {"neardup.1": overview_page(nd, version, cmds), "neardup.3": library_page(version, include, library_md)}
    for name, what in cmds:
        pages["neardup-%s.1" % name] = command_page(nd, version, name, what)
    for f, text in pages.items():
        with open(os.path.join(outdir, f), "w") as out:
            out.write(text)


def check(nd, include, outdir):
    missing = []
    plain = lambda f: open(os.path.join(outdir, f)).read().replace("\\-", "-").replace("\\e", "\\")
    for name, _ in commands(nd):
        f = "neardup-%s.1" % name
        if not os.path.exists(os.path.join(outdir, f)):
            missing.append(f)
            continue
        text = plain(f)
        for opt in sorted(set(re.findall(r"^  (--[a-z][a-z-]*)", help_of(nd, name), re.M))):
            if opt not in text:
                missing.append("%s: %s" % (f, opt))
        if "neardup-%s(1)" % name not in plain("neardup.1").replace(" (1)", "(1)").replace("\\fR", ""):
            if "neardup-%s" % name not in plain("neardup.1"):
                missing.append("neardup.1: neardup-%s" % name)
    lib = plain("neardup.3")
    for h, _, decls in header_sections(include):
        for d in decls:
            fn = re.search(r"\b(nd_[a-z0-9_]+)\s*\(", d).group(1)
            if fn not in lib:
                missing.append("neardup.3: %s" % fn)
    if missing:
        sys.exit("missing from the pages: %s" % ", ".join(missing))
    print("%s: every command's options in its page, every public function in neardup(3)" % outdir)


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--check":
        check(*sys.argv[2:5])
    elif len(sys.argv) == 6:
        write(*sys.argv[1:6])
    else:
        sys.exit(__doc__)
