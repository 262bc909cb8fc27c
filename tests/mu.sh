#!/bin/sh
# A mu database, whose words are all under B and ids under I: without
# --word-prefix, build finds no words and says what to try; with
# --word-prefix B --uid-prefix I (remembered in the store), sign, copy
# clusters find the families with mu's message ids, the crawl-time check
# of an edited body finds its mail, search counts what quest counts with
# B as the default prefix, and fsck is clean.
#   mu.sh NEARDUP
set -eu
nd=$1
{ command -v mu > /dev/null && command -v quest > /dev/null; } ||
	{ echo "mu: no mu or quest (apt-get install maildir-utils xapian-tools)"; exit 77; }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

mkdir -p "$t/Maildir/cur" "$t/Maildir/new" "$t/Maildir/tmp" "$t/home"
python3 - "$t" <<'PY'
import random, sys
t = sys.argv[1]
r = random.Random(4)
vocab = ["w%sa" % "".join(chr(97 + int(c)) for c in "%04d" % i) for i in range(3000)]
n = 0
for fam in range(15):
    base = [r.choice(vocab) for _ in range(120)]
    for c in range(1 + fam % 3):
        w = list(base)
        for _ in range(c):
            w[r.randrange(len(w))] = r.choice(vocab)
        n += 1
        open("%s/Maildir/cur/m%03d:2,S" % (t, n), "w").write(
            "From: a%d@example.org\nTo: b@example.org\nSubject: family %d copy %d\n"
            "Message-ID: <f%d.%d@example.org>\nDate: Mon, 2 Sep 2002 10:00:00 +0000\n\n%s\n"
            % (fam, fam, c, fam, c, " ".join(w)))
        if fam == 4 and c == 0:
            w[7] = "zebra"
            open("%s/edited.txt" % t, "w").write(" ".join(w) + "\n")
PY
HOME="$t/home" mu init --maildir="$t/Maildir" --muhome="$t/mu" > /dev/null 2>&1 || fail "mu init"
HOME="$t/home" mu index --muhome="$t/mu" > /dev/null 2>&1 || fail "mu index"
db="$t/mu/xapian"
rc=0; "$nd" build --db "$db" --store "$t/st" > /dev/null 2> "$t/err" || rc=$?
[ "$rc" = 1 ] && grep -q -- "--word-prefix" "$t/err" || fail "build without prefixes: exit $rc: $(cat "$t/err")"
"$nd" build --db "$db" --store "$t/st" --word-prefix B --uid-prefix I > /dev/null 2> "$t/err" ||
	fail "build --word-prefix B: $(cat "$t/err")"
"$nd" sign --db "$db" --store "$t/st" > /dev/null 2>&1 || fail "sign"
"$nd" clusters --db "$db" --store "$t/st" --json > "$t/c.json" 2> /dev/null
python3 - "$t/c.json" <<'PY' || fail "clusters: $(head -c 600 "$t/c.json")"
import json, sys
c = json.load(open(sys.argv[1]))
fams = sorted(sorted(d["id"] for d in g["documents"]) for g in c["clusters"])
want = sorted(sorted("f%d.%d@example.org" % (f, k) for k in range(1 + f % 3)) for f in range(15) if f % 3)
assert fams == want, fams
PY
"$nd" check --db "$db" --store "$t/st" --json "$t/edited.txt" > "$t/check.json" 2> "$t/err" ||
	fail "check: $(cat "$t/err")"
grep -q '"id":"f4.0@example.org"[^}]*"duplicate":true' "$t/check.json" ||
	fail "check of an edited body: $(cat "$t/check.json")"
a=$("$nd" search --db "$db" --store "$t/st" --collapse none --json waaada |
	python3 -c 'import json, sys; print(json.load(sys.stdin)["estimated"])')
b=$(quest -c 1000 -m 1 -d "$db" -s none -p :B waaada | sed -n 's/^Exactly \([0-9]*\) matches$/\1/p')
[ "$a" = "$b" ] && [ "$a" -gt 0 ] || fail "search: neardup $a matches, quest $b"
f=$(grep -l "f0.0@example.org" "$t/Maildir/cur/"*)
echo "words added to this mail" >> "$f"
HOME="$t/home" mu index --muhome="$t/mu" > /dev/null 2>&1 || fail "mu index again"
"$nd" update --db "$db" --store "$t/st" > "$t/update.out" 2>&1 || fail "update: $(cat "$t/update.out")"
grep -q "^0 added, 1 replaced, 0 deleted" "$t/update.out" || fail "update after a change: $(cat "$t/update.out")"
"$nd" clusters --db "$db" --store "$t/st" --json > "$t/c.json" 2> /dev/null
# Compaction keeps docids: the same clusters on the compacted database.
xapian-compact "$db" "$t/db-c" > /dev/null || fail "xapian-compact"
"$nd" clusters --db "$t/db-c" --store "$t/st" --json > "$t/c2.json" 2> "$t/err" || fail "clusters after compaction: $(cat "$t/err")"
python3 -c 'import json, sys; a, b = (json.load(open(p))["clusters"] for p in sys.argv[1:]); assert a == b' \
	"$t/c.json" "$t/c2.json" || fail "clusters differ after compaction"
"$nd" fsck --store "$t/st" --db "$db" > "$t/fsck.out" || fail "fsck: $(cat "$t/fsck.out")"
echo "mu: built with its prefixes; families clustered by message id; an edited body checked"
