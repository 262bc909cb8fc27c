#!/bin/sh
# A scriptindex database (Xapian's own indexer for records, with an index
# script): build, sign and copy clusters find the families of copied
# records; the crawl-time check of an edited text finds its record;
# search counts what quest counts with the same settings; a record
# re-indexed with other text is 'replaced' by update.
#   scriptindex.sh NEARDUP
set -eu
nd=$1
{ command -v scriptindex > /dev/null && command -v quest > /dev/null; } ||
	{ echo "scriptindex: no scriptindex or quest (apt-get install xapian-tools)"; exit 77; }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

printf 'id : unique=Q boolean=Q\ntitle : field index=S\ntext : index field\n' > "$t/script"
python3 - "$t" <<'PY'
import random, sys
t = sys.argv[1]
r = random.Random(4)
vocab = ["w%sa" % "".join(chr(97 + int(c)) for c in "%04d" % i) for i in range(3000)]
with open("%s/data" % t, "w") as f:
    for fam in range(15):
        base = [r.choice(vocab) for _ in range(120)]
        for c in range(1 + fam % 3):
            w = list(base)
            for _ in range(c):
                w[r.randrange(len(w))] = r.choice(vocab)
            f.write("id=f%d.%d\ntitle=family %d\ntext=%s\n\n" % (fam, c, fam, " ".join(w)))
            if fam == 4 and c == 0:
                w[7] = "zebra"
                open("%s/edited.txt" % t, "w").write(" ".join(w) + "\n")
    open("%s/again" % t, "w").write("id=f0.0\ntitle=family 0\ntext=%s\n" % " ".join(
        r.choice(vocab) for _ in range(120)))
PY
scriptindex "$t/db" "$t/script" "$t/data" > /dev/null 2>&1 || fail "scriptindex"
"$nd" build --db "$t/db" --store "$t/st" > /dev/null 2>&1 || fail "build"
"$nd" sign --db "$t/db" --store "$t/st" > /dev/null 2>&1 || fail "sign"
"$nd" clusters --db "$t/db" --store "$t/st" --json > "$t/c.json" 2> /dev/null
python3 - "$t/c.json" <<'PY' || fail "clusters: $(head -c 600 "$t/c.json")"
import json, sys
c = json.load(open(sys.argv[1]))
fams = sorted(sorted(d["id"] for d in g["documents"]) for g in c["clusters"])
want = sorted(sorted("f%d.%d" % (f, k) for k in range(1 + f % 3)) for f in range(15) if f % 3)
assert fams == want, fams
PY
"$nd" check --db "$t/db" --store "$t/st" --json "$t/edited.txt" > "$t/check.json" 2> "$t/err" ||
	fail "check: $(cat "$t/err")"
grep -q '"id":"f4.0"[^}]*"duplicate":true' "$t/check.json" || fail "check of an edited text: $(cat "$t/check.json")"
a=$("$nd" search --db "$t/db" --store "$t/st" --collapse none --json waaada |
	python3 -c 'import json, sys; print(json.load(sys.stdin)["estimated"])')
b=$(quest -c 1000 -m 1 -d "$t/db" -s none waaada | sed -n 's/^Exactly \([0-9]*\) matches$/\1/p')
[ "$a" = "$b" ] && [ "$a" -gt 0 ] || fail "search: neardup $a matches, quest $b"
scriptindex "$t/db" "$t/script" "$t/again" > /dev/null 2>&1 || fail "scriptindex again"
"$nd" update --db "$t/db" --store "$t/st" > "$t/update.out" 2>&1 || fail "update: $(cat "$t/update.out")"
grep -q "^0 added, 1 replaced, 0 deleted" "$t/update.out" || fail "update: $(cat "$t/update.out")"
"$nd" fsck --store "$t/st" --db "$t/db" > "$t/fsck.out" || fail "fsck: $(cat "$t/fsck.out")"
echo "scriptindex: families clustered, an edited text checked, a replaced record updated"
