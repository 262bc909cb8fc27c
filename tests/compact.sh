#!/bin/sh
# Routine maintenance: xapian-compact gives a database a new UUID but
# keeps its docids, so the store follows it (the same documents under the
# same docids) with no build or sign: the same clusters, a crawl-time
# check, search, and an update that finds nothing to do.  A database that
# holds other documents is still refused, naming the mismatch.
#   compact.sh NEARDUP
set -eu
nd=$1
command -v xapian-compact > /dev/null ||
	{ echo "compact: no xapian-compact (apt-get install xapian-tools)"; exit 77; }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# 30 families of 1-3 copies differing in a word or two, and other pages.
mkdir "$t/a" "$t/b"
python3 - "$t/a" "$t/b" <<'PY'
import random, sys
r = random.Random(3)
vocab = ["w%sa" % "".join(chr(97 + int(c)) for c in "%04d" % i) for i in range(3000)]
for fam in range(30):
    base = [r.choice(vocab) for _ in range(120 + fam * 3)]
    for c in range(1 + fam % 3):
        w = list(base)
        for _ in range(c):
            w[r.randrange(len(w))] = r.choice(vocab)
        open("%s/f%02d-%d.txt" % (sys.argv[1], fam, c), "w").write(" ".join(w) + "\n")
for i in range(60):
    open("%s/o%02d.txt" % (sys.argv[2], i), "w").write(" ".join(r.choice(vocab) for _ in range(150)) + "\n")
PY
"$nd" index --quiet --db "$t/db" "$t/a"
"$nd" build --db "$t/db" --store "$t/st" > /dev/null 2>&1
"$nd" sign --db "$t/db" --store "$t/st" > /dev/null 2>&1
"$nd" clusters --db "$t/db" --store "$t/st" --json > "$t/before.json" 2> /dev/null
xapian-compact "$t/db" "$t/db-c" > /dev/null

# The compacted database: the same store, no rebuild.
"$nd" clusters --db "$t/db-c" --store "$t/st" --json > "$t/after.json" 2> "$t/err" ||
	fail "clusters on the compacted database: $(cat "$t/err")"
python3 - "$t/before.json" "$t/after.json" <<'PY' || fail "clusters differ after compaction"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a["clusters_total"] > 0 and a["clusters"] == b["clusters"], (a["clusters_total"], b["clusters_total"])
PY
"$nd" check --db "$t/db-c" --store "$t/st" --json "$t/a/f04-1.txt" > "$t/check.json" 2> "$t/err" ||
	fail "check on the compacted database: $(cat "$t/err")"
grep -q '"duplicates":[1-9]' "$t/check.json" || fail "check found no duplicate: $(cat "$t/check.json")"
"$nd" search --db "$t/db-c" --store "$t/st" --limit 3 waaaha > /dev/null 2> "$t/err" ||
	fail "search on the compacted database: $(cat "$t/err")"
"$nd" update --db "$t/db-c" --store "$t/st" > "$t/update.out" 2>&1 ||
	fail "update on the compacted database: $(cat "$t/update.out")"
grep -q "^0 added, 0 replaced, 0 deleted" "$t/update.out" || fail "update: $(cat "$t/update.out")"

# Another database under the same docids: refused, and the store untouched.
"$nd" index --quiet --db "$t/other" "$t/b"
rc=0; "$nd" clusters --db "$t/other" --store "$t/st" > /dev/null 2> "$t/err" || rc=$?
[ "$rc" = 1 ] && grep -q "holds other documents" "$t/err" || fail "another database: exit $rc: $(cat "$t/err")"
"$nd" fsck --store "$t/st" --db "$t/db-c" > /dev/null || fail "fsck after all that"
echo "compact: the store followed xapian-compact; another database was refused"
