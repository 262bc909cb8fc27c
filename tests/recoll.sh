#!/bin/sh
# A Recoll index of a directory of files (recollindex, Debian's recollcmd):
# build, sign and copy clusters find the families of copied files, named
# by their paths; the crawl-time check of an edited text finds its file;
# search counts what quest counts; a changed file is 'replaced' by update;
# and the compacted database has the same clusters.
#   recoll.sh NEARDUP
set -eu
nd=$1
{ command -v recollindex > /dev/null && command -v quest > /dev/null; } ||
	{ echo "recoll: no recollindex or quest (apt-get install recollcmd xapian-tools)"; exit 77; }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

mkdir -p "$t/docs" "$t/conf"
python3 - "$t" <<'PY'
import random, sys
t = sys.argv[1]
r = random.Random(4)
vocab = ["w%sa" % "".join(chr(97 + int(c)) for c in "%04d" % i) for i in range(3000)]
for fam in range(15):
    base = [r.choice(vocab) for _ in range(120)]
    for c in range(1 + fam % 3):
        w = list(base)
        for _ in range(c):
            w[r.randrange(len(w))] = r.choice(vocab)
        open("%s/docs/f%d.%d.txt" % (t, fam, c), "w").write(" ".join(w) + "\n")
        if fam == 4 and c == 0:
            w[7] = "zebra"
            open("%s/edited.txt" % t, "w").write(" ".join(w) + "\n")
PY
printf 'topdirs = %s/docs\n' "$t" > "$t/conf/recoll.conf"
recollindex -c "$t/conf" > "$t/log" 2>&1 || fail "recollindex: $(tail -3 "$t/log")"
db="$t/conf/xapiandb"
"$nd" build --db "$db" --store "$t/st" > /dev/null 2>&1 || fail "build"
"$nd" sign --db "$db" --store "$t/st" > /dev/null 2>&1 || fail "sign"
"$nd" clusters --db "$db" --store "$t/st" --json > "$t/c.json" 2> /dev/null
python3 - "$t/c.json" "$t/docs" <<'PY' || fail "clusters: $(head -c 600 "$t/c.json")"
import json, sys
c, docs = json.load(open(sys.argv[1])), sys.argv[2]
fams = sorted(sorted(d["id"] for d in g["documents"]) for g in c["clusters"])
want = sorted(sorted("%s/f%d.%d.txt" % (docs, f, k) for k in range(1 + f % 3)) for f in range(15) if f % 3)
assert fams == want, fams
PY
"$nd" check --db "$db" --store "$t/st" --json "$t/edited.txt" > "$t/check.json" 2> "$t/err" ||
	fail "check: $(cat "$t/err")"
grep -q "\"id\":\"$t/docs/f4.0.txt\"[^}]*\"duplicate\":true" "$t/check.json" ||
	fail "check of an edited text: $(cat "$t/check.json")"
a=$("$nd" search --db "$db" --store "$t/st" --collapse none --json waaada |
	python3 -c 'import json, sys; print(json.load(sys.stdin)["estimated"])')
b=$(quest -c 1000 -m 1 -d "$db" -s none waaada | sed -n 's/^Exactly \([0-9]*\) matches$/\1/p')
[ "$a" = "$b" ] && [ "$a" -gt 0 ] || fail "search: neardup $a matches, quest $b"
echo "words added to this file" >> "$t/docs/f0.0.txt"
recollindex -c "$t/conf" > "$t/log" 2>&1 || fail "recollindex again"
"$nd" update --db "$db" --store "$t/st" > "$t/update.out" 2>&1 || fail "update: $(cat "$t/update.out")"
grep -q "^0 added, 1 replaced, 0 deleted" "$t/update.out" || fail "update after a change: $(cat "$t/update.out")"
"$nd" clusters --db "$db" --store "$t/st" --json > "$t/c.json" 2> /dev/null
# Compaction keeps docids: the same clusters on the compacted database.
xapian-compact "$db" "$t/db-c" > /dev/null || fail "xapian-compact"
"$nd" clusters --db "$t/db-c" --store "$t/st" --json > "$t/c2.json" 2> "$t/err" || fail "clusters after compaction: $(cat "$t/err")"
python3 -c 'import json, sys; a, b = (json.load(open(p))["clusters"] for p in sys.argv[1:]); assert a == b' \
	"$t/c.json" "$t/c2.json" || fail "clusters differ after compaction"
"$nd" fsck --store "$t/st" --db "$db" > "$t/fsck.out" || fail "fsck: $(cat "$t/fsck.out")"
echo "recoll: families clustered by path, an edited text checked, search counted as quest does"
