#!/usr/bin/env python3
"""Run one command and print its wall time, CPU time and peak RSS.

    peak.py COMMAND [ARG...]

The peak is the child's own (os.wait4), so this script's memory never
counts.  Used for the single-step figures in the README (e.g. sign
--jobs, clusters --verify at 1M documents)."""
import os
import subprocess
import sys
import time

if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
    sys.exit(__doc__)
t0 = time.monotonic()
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
_, status, ru = os.wait4(p.pid, 0)
print("status %d, %.1f s, user %.1f s, sys %.1f s, peak %.1f MiB" % (
    os.waitstatus_to_exitcode(status), time.monotonic() - t0, ru.ru_utime, ru.ru_stime,
    ru.ru_maxrss / 1024))
