#!/usr/bin/env python3
"""Print 'N passed, N failed, N skipped' from meson's testlog.json."""
import json
import sys

counts = {"OK": 0, "FAIL": 0, "SKIP": 0, "TIMEOUT": 0, "EXPECTEDFAIL": 0, "UNEXPECTEDPASS": 0, "ERROR": 0}
try:
    with open(sys.argv[1]) as f:
        for line in f:
            line = line.strip()
            if line:
                r = json.loads(line).get("result", "ERROR")
                counts[r] = counts.get(r, 0) + 1
except OSError as e:
    print(f"no test log: {e}", file=sys.stderr)
    print("0 passed, 1 failed")
    sys.exit(1)
passed = counts["OK"] + counts["EXPECTEDFAIL"]
failed = counts["FAIL"] + counts["TIMEOUT"] + counts["ERROR"] + counts["UNEXPECTEDPASS"]
print(f"{passed} passed, {failed} failed, {counts['SKIP']} skipped")
sys.exit(1 if failed or passed == 0 else 0)
