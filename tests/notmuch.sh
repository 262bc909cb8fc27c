#!/bin/sh
# A notmuch database as its users have it: mail delivered to a Maildir and
# indexed by `notmuch new`.  On it: build, sign and copy clusters find the
# families of copied mails, ids print as notmuch writes them (id:...),
# the crawl-time check of an edited body finds its mail, search with
# notmuch's subject prefix counts what quest counts, a reindexed mail is
# 'replaced' by update, the compacted database has the same clusters, and
# fsck is clean.
#   notmuch.sh NEARDUP
set -eu
nd=$1
{ command -v notmuch > /dev/null && command -v quest > /dev/null; } ||
	{ echo "notmuch: no notmuch or quest (apt-get install notmuch xapian-tools)"; exit 77; }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

mkdir -p "$t/mail/cur" "$t/mail/new" "$t/mail/tmp"
python3 - "$t" <<'PY'
import random, sys
t = sys.argv[1]
r = random.Random(4)
vocab = ["w%sa" % "".join(chr(97 + int(c)) for c in "%04d" % i) for i in range(3000)]
n = 0
for fam in range(15):
    base = [r.choice(vocab) for _ in range(120)]
    for c in range(1 + fam % 3):  # families of 1, 2 and 3 mails
        w = list(base)
        for _ in range(c):
            w[r.randrange(len(w))] = r.choice(vocab)
        n += 1
        open("%s/mail/cur/m%03d:2,S" % (t, n), "w").write(
            "From: a%d@example.org\nTo: b@example.org\nSubject: family %d copy %d\n"
            "Message-ID: <f%d.%d@example.org>\nDate: Mon, 2 Sep 2002 10:00:00 +0000\n\n%s\n"
            % (fam, fam, c, fam, c, " ".join(w)))
        if fam == 4 and c == 0:
            w[7] = "zebra"
            open("%s/edited.txt" % t, "w").write(" ".join(w) + "\n")
PY
printf '[database]\npath=%s/mail\n[new]\ntags=inbox;\n' "$t" > "$t/config"
NOTMUCH_CONFIG="$t/config" notmuch new > /dev/null 2>&1 || fail "notmuch new"
db="$t/mail/.notmuch/xapian"
"$nd" build --db "$db" --store "$t/st" > /dev/null 2>&1 || fail "build on notmuch's database"
"$nd" sign --db "$db" --store "$t/st" > /dev/null 2>&1 || fail "sign on notmuch's database"
"$nd" clusters --db "$db" --store "$t/st" --json > "$t/c.json" 2> /dev/null
python3 - "$t/c.json" <<'PY' || fail "clusters: $(head -c 600 "$t/c.json")"
import json, re, sys
c = json.load(open(sys.argv[1]))
fams = sorted(sorted(d["id"] for d in g["documents"]) for g in c["clusters"])
want = sorted(sorted("id:f%d.%d@example.org" % (f, k) for k in range(1 + f % 3)) for f in range(15) if f % 3)
assert fams == want, fams
PY
"$nd" check --db "$db" --store "$t/st" --json "$t/edited.txt" > "$t/check.json" 2> "$t/err" ||
	fail "check: $(cat "$t/err")"
grep -q '"id":"id:f4.0@example.org"[^}]*"duplicate":true' "$t/check.json" ||
	fail "check of an edited body: $(cat "$t/check.json")"
a=$("$nd" search --db "$db" --store "$t/st" --collapse none --json --prefix subject:XSUBJECT "subject:family" |
	python3 -c 'import json, sys; print(json.load(sys.stdin)["estimated"])')
b=$(quest -c 1000 -m 1 -d "$db" -p subject:XSUBJECT "subject:family" | sed -n 's/^Exactly \([0-9]*\) matches$/\1/p')
[ "$a" = "$b" ] && [ "$a" -gt 0 ] || fail "subject:family: neardup $a matches, quest $b"
echo "words added to this mail" >> "$t/mail/cur/m001:2,S"
NOTMUCH_CONFIG="$t/config" notmuch reindex "id:f0.0@example.org" > /dev/null 2>&1 || fail "notmuch reindex"
"$nd" update --db "$db" --store "$t/st" > "$t/update.out" 2>&1 || fail "update: $(cat "$t/update.out")"
grep -q "^0 added, 1 replaced, 0 deleted" "$t/update.out" || fail "update after a change: $(cat "$t/update.out")"
"$nd" clusters --db "$db" --store "$t/st" --json > "$t/c.json" 2> /dev/null
# Compaction keeps docids: the same clusters on the compacted database.
xapian-compact "$db" "$t/db-c" > /dev/null || fail "xapian-compact"
"$nd" clusters --db "$t/db-c" --store "$t/st" --json > "$t/c2.json" 2> "$t/err" || fail "clusters after compaction: $(cat "$t/err")"
python3 -c 'import json, sys; a, b = (json.load(open(p))["clusters"] for p in sys.argv[1:]); assert a == b' \
	"$t/c.json" "$t/c2.json" || fail "clusters differ after compaction"
"$nd" fsck --store "$t/st" --db "$db" > "$t/fsck.out" || fail "fsck: $(cat "$t/fsck.out")"
echo "notmuch: families clustered with id: ids, an edited body checked, subject: searched"
