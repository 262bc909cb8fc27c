#!/bin/sh
# Routine maintenance: xapian-compact gives a database a new UUID but
# keeps its docids, so the store follows it (the same documents under the
# same docids) with no build or sign: the same clusters, a crawl-time
# check, search, and an update that finds nothing to do.  When the first
# documents were deleted it renumbers them (unless --no-renumber), and
# copydatabase numbers the documents it copies from 1: the store says so,
# and 'sign --restart' or 'update' follows.  A backup with mdb_copy
# while a writer works is made whole by update.  A database that holds
# other documents is still refused, naming the mismatch.
#   compact.sh NEARDUP XAPIAN_DELETE
set -eu
nd=$1
xdel=$2
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

# The first three documents deleted (pages gone), then compacted: every
# docid moves down by 3, unless --no-renumber.
cp -r "$t/db" "$t/dr"
"$nd" build --db "$t/dr" --store "$t/sr" > /dev/null 2>&1
"$nd" sign --db "$t/dr" --store "$t/sr" --window 30d > /dev/null 2>&1
"$xdel" "$t/dr" 1 2 3
"$nd" update --db "$t/dr" --store "$t/sr" > "$t/update.out" 2>&1 ||
	fail "update after deleting: $(cat "$t/update.out")"
grep -q "^0 added, 0 replaced, 3 deleted" "$t/update.out" || fail "update: $(cat "$t/update.out")"
"$nd" clusters --db "$t/dr" --store "$t/sr" --json > "$t/r0.json" 2> /dev/null
xapian-compact "$t/dr" "$t/dr-c" > /dev/null
xapian-compact --no-renumber "$t/dr" "$t/dr-n" > /dev/null
"$nd" clusters --db "$t/dr-n" --store "$t/sr" --json > "$t/rn.json" 2> "$t/err" ||
	fail "clusters after compaction with --no-renumber: $(cat "$t/err")"
python3 -c 'import json, sys; a, b = (json.load(open(p))["clusters"] for p in sys.argv[1:]); assert a and a == b' \
	"$t/r0.json" "$t/rn.json" || fail "clusters differ after compaction with --no-renumber"
for cmd in clusters fsck check; do
	rc=0; file=; [ "$cmd" = check ] && file="$t/a/f14-1.txt"
	# shellcheck disable=SC2086  # no file but for check
	"$nd" "$cmd" --db "$t/dr-c" --store "$t/sr" $file > /dev/null 2> "$t/err" || rc=$?
	[ "$rc" = 1 ] && grep -q "docids 3 lower" "$t/err" && grep -q -- "--no-renumber" "$t/err" &&
		grep -q "sign --restart" "$t/err" || fail "$cmd on the renumbered database: exit $rc: $(cat "$t/err")"
done
"$nd" sign --db "$t/dr-c" --store "$t/sr" --restart > "$t/sign.out" 2>&1 ||
	fail "sign --restart on the renumbered database: $(cat "$t/sign.out")"
grep -q "docids up to 3 lower (renumbered)" "$t/sign.out" || fail "sign --restart: $(cat "$t/sign.out")"
"$nd" clusters --db "$t/dr-c" --store "$t/sr" --json > "$t/rc.json" 2> "$t/err" ||
	fail "clusters after sign --restart: $(cat "$t/err")"
python3 - "$t/r0.json" "$t/rc.json" <<'PY' || fail "sign --restart: other clusters"
import json, sys
a, b = (json.load(open(p))["clusters"] for p in sys.argv[1:3])
moved = [[(d["docid"] - 3, d["id"]) for d in c["documents"]] for c in a]
assert a and moved == [[(d["docid"], d["id"]) for d in c["documents"]] for c in b], (a[:2], b[:2])
PY
# The records' dates (a window by arrival) moved with them: none orphaned.
"$nd" fsck --store "$t/sr" --db "$t/dr-c" > "$t/fsck.out" 2>&1 || fail "fsck after sign --restart: $(cat "$t/fsck.out")"
grep -q "without a record" "$t/fsck.out" && fail "fsck after sign --restart: $(cat "$t/fsck.out")"
"$nd" update --db "$t/dr-c" --store "$t/sr" > "$t/update.out" 2>&1 ||
	fail "update after sign --restart: $(cat "$t/update.out")"
grep -q "^0 added, 0 replaced, 0 deleted" "$t/update.out" || fail "update: $(cat "$t/update.out")"
"$nd" check --db "$t/dr-c" --store "$t/sr" --json "$t/a/f14-1.txt" > "$t/check.json" 2> "$t/err" ||
	fail "check after sign --restart: $(cat "$t/err")"
grep -q '"duplicates":[1-9]' "$t/check.json" || fail "check found no duplicate: $(cat "$t/check.json")"

# Deleted and compacted before any update told the store (the deleted
# documents' records stale), with collapse ids in a value slot: update
# signs the renumbered database again, the slot's ids moved with it.
cp -r "$t/db" "$t/du"
cp -r "$t/st" "$t/su"
"$nd" sign --db "$t/du" --store "$t/su" --value-slot 20 > /dev/null 2>&1
"$xdel" "$t/du" 1 2
xapian-compact "$t/du" "$t/du-c" > /dev/null
"$nd" update --db "$t/du-c" --store "$t/su" > "$t/update.out" 2>&1 ||
	fail "update after a deletion no update saw: $(cat "$t/update.out")"
grep -q "docids up to 2 lower (renumbered): signed its 58 documents again" "$t/update.out" &&
	grep -q "^0 added, 0 replaced, 0 deleted" "$t/update.out" || fail "update: $(cat "$t/update.out")"
"$nd" fsck --store "$t/su" --db "$t/du-c" > "$t/fsck.out" 2>&1 || fail "fsck: $(cat "$t/fsck.out")"
"$nd" update --db "$t/du-c" --store "$t/su" > "$t/update.out" 2>&1 && grep -q "^0 added, 0 replaced, 0 deleted" "$t/update.out" ||
	fail "update again: $(cat "$t/update.out")"
# search --collapse native folds by the slot as the store's own links do
for how in native filter; do
	"$nd" search --db "$t/du-c" --store "$t/su" --collapse $how --limit 100 --json waaaha |
		python3 -c 'import json, sys; print(sorted(r["docid"] for r in json.load(sys.stdin)["results"]))'
done > "$t/s.out" 2> "$t/err" || fail "search after update: $(cat "$t/err")"
[ "$(sed -n 1p "$t/s.out")" = "$(sed -n 2p "$t/s.out")" ] && grep -q "[0-9]" "$t/s.out" ||
	fail "collapsed by the slot and by the store differ after renumbering: $(cat "$t/s.out")"

# Documents deleted here and there, then copied by copydatabase, which
# numbers what it copies 1, 2, ... in order (unless --no-renumber): every
# command names it, and sign --restart and update follow, the clusters and
# the window's dates moved document by document.
if command -v copydatabase > /dev/null; then
	cp -r "$t/db" "$t/dg"
	"$nd" build --db "$t/dg" --store "$t/sg" > /dev/null 2>&1
	"$nd" sign --db "$t/dg" --store "$t/sg" --window 30d > /dev/null 2>&1
	"$xdel" "$t/dg" 5 20 33
	cp -r "$t/sg" "$t/sg3" # not told of the deletions
	"$nd" update --db "$t/dg" --store "$t/sg" > /dev/null 2>&1 || fail "update after deleting 5 20 33"
	"$nd" clusters --db "$t/dg" --store "$t/sg" --json > "$t/g0.json" 2> /dev/null
	copydatabase "$t/dg" "$t/dg-c" > /dev/null
	cp -r "$t/sg" "$t/sg2"
	rc=0; "$nd" clusters --db "$t/dg-c" --store "$t/sg" > /dev/null 2> "$t/err" || rc=$?
	[ "$rc" = 1 ] && grep -q "renumbered in order" "$t/err" && grep -q "copydatabase" "$t/err" &&
		grep -q "sign --restart" "$t/err" || fail "clusters on the copied database: exit $rc: $(cat "$t/err")"
	# A store that missed the deletions cannot say which copy is which
	# document: refused, as another database's is, and left as it was.
	"$nd" clusters --db "$t/dg" --store "$t/sg3" --json > "$t/g3.json" 2> /dev/null
	rc=0; "$nd" sign --db "$t/dg-c" --store "$t/sg3" --restart > /dev/null 2> "$t/err" || rc=$?
	[ "$rc" = 1 ] && grep -q "holds other documents" "$t/err" ||
		fail "sign --restart of a store that missed deletions: exit $rc: $(cat "$t/err")"
	"$nd" clusters --db "$t/dg" --store "$t/sg3" --json > "$t/g3b.json" 2> /dev/null
	python3 -c 'import json, sys; a, b = (json.load(open(p))["clusters"] for p in sys.argv[1:]); assert a and a == b' \
		"$t/g3.json" "$t/g3b.json" || fail "the refused store was changed"
	"$nd" sign --db "$t/dg-c" --store "$t/sg" --restart > "$t/sign.out" 2>&1 ||
		fail "sign --restart on the copied database: $(cat "$t/sign.out")"
	grep -q "docids up to 3 lower (renumbered)" "$t/sign.out" || fail "sign --restart: $(cat "$t/sign.out")"
	"$nd" update --db "$t/dg-c" --store "$t/sg2" > "$t/update.out" 2>&1 ||
		fail "update on the copied database: $(cat "$t/update.out")"
	grep -q "docids up to 3 lower (renumbered): signed its 57 documents again" "$t/update.out" ||
		fail "update on the copied database: $(cat "$t/update.out")"
	for s in sg sg2; do
		"$nd" clusters --db "$t/dg-c" --store "$t/$s" --json > "$t/g1.json" 2> "$t/err" ||
			fail "clusters after following copydatabase: $(cat "$t/err")"
		python3 - "$t/g0.json" "$t/g1.json" <<'PY' || fail "$s: other clusters after following copydatabase"
import json, sys
a, b = (json.load(open(p))["clusters"] for p in sys.argv[1:3])
new = lambda d: d - sum(d > g for g in (5, 20, 33))  # copydatabase's numbering
moved = [[(new(d["docid"]), d["id"]) for d in c["documents"]] for c in a]
assert a and moved == [[(d["docid"], d["id"]) for d in c["documents"]] for c in b], (a[:2], b[:2])
PY
		"$nd" fsck --store "$t/$s" --db "$t/dg-c" > "$t/fsck.out" 2>&1 || fail "fsck: $(cat "$t/fsck.out")"
		grep -q "without a record" "$t/fsck.out" && fail "$s: dates orphaned: $(cat "$t/fsck.out")"
	done
	"$nd" update --db "$t/dg-c" --store "$t/sg" > "$t/update.out" 2>&1 &&
		grep -q "^0 added, 0 replaced, 0 deleted" "$t/update.out" || fail "update again: $(cat "$t/update.out")"
fi

# A backup of the store taken while a writer works (mdb_copy snapshots one
# committed transaction): update makes it the live store's equal.
if command -v mdb_copy > /dev/null; then
	"$nd" sign --db "$t/db" --store "$t/st" --restart > /dev/null 2>&1 &
	mkdir "$t/backup"
	mdb_copy -c "$t/st" "$t/backup" || fail "mdb_copy of a store being written"
	wait
	"$nd" update --db "$t/db" --store "$t/backup" > "$t/update.out" 2>&1 ||
		fail "update of the backup: $(cat "$t/update.out")"
	"$nd" clusters --db "$t/db" --store "$t/st" --json > "$t/live.json" 2> /dev/null
	"$nd" clusters --db "$t/db" --store "$t/backup" --json > "$t/back.json" 2> "$t/err" ||
		fail "clusters of the backup: $(cat "$t/err")"
	python3 -c 'import json, sys; a, b = (json.load(open(p))["clusters"] for p in sys.argv[1:]); assert a and a == b' \
		"$t/live.json" "$t/back.json" || fail "the backup's clusters differ from the live store's"
	"$nd" fsck --store "$t/backup" --db "$t/db" > "$t/fsck.out" || fail "fsck of the backup: $(cat "$t/fsck.out")"
fi

# Another database under the same docids: refused, and the store untouched.
"$nd" index --quiet --db "$t/other" "$t/b"
rc=0; "$nd" clusters --db "$t/other" --store "$t/st" > /dev/null 2> "$t/err" || rc=$?
[ "$rc" = 1 ] && grep -q "holds other documents" "$t/err" || fail "another database: exit $rc: $(cat "$t/err")"
"$nd" fsck --store "$t/st" --db "$t/db-c" > /dev/null || fail "fsck after all that"
echo "compact: the store followed xapian-compact, and sign --restart a renumbering; another database was refused"
