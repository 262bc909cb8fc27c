#!/usr/bin/env python3
"""Every command example in README.md and docs/*.md runs as written.

In a scratch directory, as a new user would after `make run` (the sample
corpus indexed and signed into build/sample) and the README's install
step (`make install PREFIX=$HOME/.local`, HOME the scratch's): each
```sh block of each file runs in order, all in one shell, README first
(so its exports carry on).  A block of `$ ` lines is commands with their output shown
below each: the command must exit 0, and its first line of output must
read as the first line shown, numbers and keys aside (the sample corpus
depends on the machine's packages).  A block without `$ ` is a script
that must exit 0.  ```python blocks must be a file of docs/examples (the
README's is check_pages.py, which a command runs); ```text blocks are
not run.  The two first-screen commands (make run, make test) are CI's.

    examples.py SOURCE_ROOT BUILD_ROOT SANITIZE
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time


def blocks(path):
    """(language, lines) of every fenced block."""
    out, lang, cur = [], None, []
    for line in open(path).read().split("\n"):
        m = re.match(r"^```(\w*)\s*$", line)
        if m and lang is None:
            lang, cur = m.group(1) or "text", []
        elif line.startswith("```") and lang is not None:
            out.append((lang, cur))
            lang = None
        elif lang is not None:
            cur.append(line)
    return out


def norm(line):
    line = re.sub(r"\d+\.\d+", "N", line)
    line = re.sub(r"\b[0-9a-f]{16}\b", "K", line)
    line = re.sub(r"\d+(\.\d+)?", "N", line)
    return " ".join(line.split())


def same_shape(a, b):
    """JSON output: the same keys and kinds of values; how many records a
    list holds and the numbers in it depend on the machine's corpus."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_shape(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return not a or not b or all(same_shape(x, b[0]) for x in a)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return True
    return type(a) is type(b)


def same_line(got, shown):
    try:
        return same_shape(json.loads(got), json.loads(shown))
    except ValueError:
        return norm(got) == norm(shown)


def commands(lines):
    """A `$ ` block as (command, first line shown or None)."""
    out, cmd = [], None
    for line in lines:
        if line.startswith("$ "):
            if cmd is not None:
                out.append((cmd, None))
            cmd = line[2:]
        elif cmd is not None and line.startswith("  ") and cmd.endswith("\\"):
            cmd = cmd[:-1] + " " + line.strip()
        elif cmd is not None:
            out.append((cmd, line if line.strip() else None))
            cmd = None
    if cmd is not None:
        out.append((cmd, None))
    return out


def main():
    src, build, san = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3]
    files = [os.path.join(src, "README.md")] + sorted(
        os.path.join(src, "docs", f) for f in os.listdir(os.path.join(src, "docs")) if f.endswith(".md"))
    tmp = tempfile.mkdtemp(prefix="nd-examples-")
    prefix_before = None
    checks = 0
    try:
        # python3 is Debian's, as the README means.  The shim outlives the
        # test: `make install` reconfigures the build under this PATH, and
        # meson keeps the python3 it found for later tests.
        home, shim = os.path.join(tmp, "home"), os.path.join(build, "examples-shim")
        os.makedirs(home)
        os.makedirs(shim, exist_ok=True)
        if not os.path.lexists(os.path.join(shim, "python3")):
            os.symlink("/usr/bin/python3", os.path.join(shim, "python3"))
        os.makedirs(os.path.join(tmp, "build"))
        os.symlink(os.path.join(build, "tools"), os.path.join(tmp, "build", "tools"))
        t0 = time.monotonic()
        p = subprocess.run(["sh", "scripts/run-sample.sh", os.path.join(tmp, "build")], cwd=src,
                           capture_output=True, text=True)
        print("examples: the sample job in %.1f s" % (time.monotonic() - t0))
        if p.returncode:
            sys.exit("FAIL: the sample job: %s" % (p.stdout + p.stderr)[-2000:])
        shutil.copytree(os.path.join(src, "docs"), os.path.join(tmp, "docs"))
        os.symlink(os.path.join(src, "tools"), os.path.join(tmp, "tools"))
        conf = subprocess.run(["meson", "introspect", "--buildoptions", build], capture_output=True, text=True)
        m = re.search(r'"name": "prefix", "value": "([^"]*)"', conf.stdout)
        prefix_before = m.group(1) if m else "/usr/local"
        env = {"HOME": home, "PATH": "%s:/usr/local/bin:/usr/bin:/bin" % shim, "LANG": "C.UTF-8",
               "TERM": "dumb"}
        if san != "none":
            cc = lambda lib: subprocess.run(["cc", "-print-file-name=" + lib], capture_output=True,
                                            text=True).stdout.strip()
            env["LD_PRELOAD"] = " ".join(cc("lib%s.so" % s) for s in ("asan", "ubsan") if s in san.replace(
                "address", "asan").replace("undefined", "ubsan"))
            env["ASAN_OPTIONS"] = "detect_leaks=0"
        # One shell for every file, README first: its install step's exports carry on.
        script, expect = ["make() { command make -s -C '%s' BUILD='%s' \"$@\"; }" % (src, build)], []
        for path in files:
            name = os.path.relpath(path, src)
            for lang, lines in blocks(path):
                if lang == "python":
                    text = "\n".join(lines).strip()
                    shipped = [f for f in os.listdir(os.path.join(src, "docs", "examples")) if f.endswith(".py")
                               and open(os.path.join(src, "docs", "examples", f)).read().strip() == text]
                    if not shipped:
                        sys.exit("FAIL: %s: a Python example that is not a file of docs/examples:\n%s" %
                                 (name, text[:300]))
                    checks += 1
                    continue
                if lang != "sh":
                    continue
                if any(l.startswith("$ ") for l in lines):
                    for cmd, first in commands(lines):
                        k = len(expect)
                        script.append("date +%%s.%%N > %s/t.%d; ( %s ) > %s/out.%d 2> %s/err.%d; echo $? > %s/rc.%d" %
                                      (tmp, k, cmd, tmp, k, tmp, k, tmp, k))
                        expect.append((name, cmd, first))
                else:
                    k = len(expect)
                    body = "\n".join(lines)
                    script.append("date +%%s.%%N > %s/t.%d; {\n%s\n} > %s/out.%d 2> %s/err.%d; echo $? > %s/rc.%d" %
                                  (tmp, k, body, tmp, k, tmp, k, tmp, k))
                    expect.append((name, body, None))
        script.append("date +%%s.%%N > %s/t.%d" % (tmp, len(expect)))
        subprocess.run(["bash", "-c", "\n".join(script)], cwd=tmp, env=env, capture_output=True, text=True)
        t = [float(open(os.path.join(tmp, "t.%d" % k)).read()) for k in range(len(expect) + 1)]
        slow = sorted(range(len(expect)), key=lambda k: t[k] - t[k + 1])[:3]
        print("examples: slowest %s" % "; ".join("%.1f s %s: %s" % (t[k + 1] - t[k], expect[k][0],
                                                                    expect[k][1].split("\n")[0][:60]) for k in slow))
        failed = []
        for k, (name, cmd, first) in enumerate(expect):
            rc = open(os.path.join(tmp, "rc.%d" % k)).read().strip()
            out = open(os.path.join(tmp, "out.%d" % k)).read()
            err = open(os.path.join(tmp, "err.%d" % k)).read()
            if rc != "0":
                failed.append("%s: `%s` exited %s:\n%s%s" % (name, cmd, rc, out[-1500:], err[-1500:]))
            elif first and not first.startswith("..."):
                got = (out.split("\n") + [""])[0]
                if not same_line(got, first):
                    failed.append("%s: `%s` printed\n  %s\nwhere the example shows\n  %s" %
                                  (name, cmd, got, first))
            checks += 1
        if failed:  # every failure at once: one CI run shows them all
            sys.exit("".join("FAIL: %s\n" % f for f in failed) + "%d of %d examples failed" % (len(failed), checks))
        print("examples: %d examples of README.md and docs/ ran as written" % checks)
    finally:
        if prefix_before is not None:  # make install reconfigured the build's prefix
            subprocess.run(["meson", "configure", build, "-Dprefix=" + prefix_before], capture_output=True)
        if not os.environ.get("ND_EXAMPLES_KEEP"):
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print("kept", tmp)


if __name__ == "__main__":
    main()
