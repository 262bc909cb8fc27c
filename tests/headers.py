#!/usr/bin/env python3
"""The public headers, as an outside program sees them (libgit2's check):

- every header in include/neardup, and the umbrella neardup.h, compiles
  on its own, as C11 and as C++
  (-Wall -Wextra -Werror), with nothing but include/ on the path;
- every function a public header declares (ND_EXTERN name(...)) is
  exported by the shared library, and every exported function is
  declared in a public header (nothing internal leaks);
- the shared library needs neither libsvm nor liblbfgs (the evaluation
  is its own library).

    headers.py INCLUDE_DIR LIBNEARDUP_SO CC CXX
"""
import os
import re
import subprocess
import sys
import tempfile


def main():
    inc, so, cc, cxx = sys.argv[1:5]
    failures = []
    headers = sorted("neardup/" + f for f in os.listdir(os.path.join(inc, "neardup")) if f.endswith(".h"))
    headers.append("neardup.h")  # the umbrella: every module at once
    declared = set()
    with tempfile.TemporaryDirectory() as tmp:
        for h in headers:
            text = open(os.path.join(inc, h)).read()
            declared |= set(re.findall(r"ND_EXTERN[^;(]*?\b(nd_[a-z0-9_]+)\s*\(", text, re.S))
            for lang, comp, ext, std in (("C", cc, "c", "-std=c11"), ("C++", cxx, "cc", "-std=c++17")):
                src = os.path.join(tmp, "one.%s" % ext)
                with open(src, "w") as f:
                    f.write('#include "%s"\nint main(void) { return 0; }\n' % h)
                p = subprocess.run([comp, std, "-Wall", "-Wextra", "-Werror", "-fsyntax-only",
                                    "-I", inc, src], capture_output=True, text=True)
                if p.returncode:
                    failures.append("%s does not compile alone as %s:\n%s" % (h, lang, p.stderr[-1500:]))
    nm = subprocess.run(["nm", "-D", "--defined-only", so], capture_output=True, text=True, check=True)
    exported = set(re.findall(r" T (nd_[a-z0-9_]+)$", nm.stdout, re.M))
    for name in sorted(declared - exported):
        failures.append("%s is declared in a public header but not exported by %s" % (name, so))
    for name in sorted(exported - declared):
        failures.append("%s is exported by %s but declared in no public header" % (name, so))
    ldd = subprocess.run(["ldd", so], capture_output=True, text=True).stdout
    for lib in ("libsvm", "liblbfgs"):
        if lib in ldd:
            failures.append("%s links %s" % (so, lib))
    if failures:
        print("\n".join(failures))
        sys.exit(1)
    print("%d public headers compile alone as C and C++; %d functions declared, all exported, "
          "nothing else exported" % (len(headers), len(declared)))


if __name__ == "__main__":
    main()
