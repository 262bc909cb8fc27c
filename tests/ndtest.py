"""Helpers shared by the Python tests: running neardup, asserting with the
command's output in the message, and counting the checks made."""
import hashlib
import subprocess
import sys
from kill import corpus  # noqa: F401  (re-exported: the tests' synthetic corpus)

checks = 0


def run(*cmd, stdin=None, timeout=300):
    """Run cmd, capturing text output; a command that hangs fails the test."""
    try:
        return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              stdin=stdin, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise SystemExit("FAIL: hung: %s" % " ".join(cmd))


def expect(cond, what, p=None):
    """One check: fail with what (and p's output) unless cond."""
    global checks
    if not cond:
        raise SystemExit("FAIL: %s\n%s" % (what, (p.stdout + p.stderr)[-3000:] if p else ""))
    checks += 1


def must(*cmd):
    """Run cmd; it must exit 0."""
    p = run(*cmd)
    expect(p.returncode == 0, " ".join(cmd), p)
    return p


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def passed():
    print("%d checks passed" % checks)
    sys.stdout.flush()
