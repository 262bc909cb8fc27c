#!/bin/sh
# On an omindex database: the crawl-time check finds an edited copy of a
# page, and search parses queries as the application that indexed the
# database: on
# an omindex database, English stemming and Omega's fields by default, so
# its match count equals quest's with the same settings; --stemmer,
# --prefix and --boolean-prefix say it as quest's -s, -p and -b do, and a
# language Xapian lacks or a prefix without a colon is a usage error.
#   search_like.sh NEARDUP
set -eu
nd=$1
{ command -v omindex > /dev/null && command -v quest > /dev/null; } ||
	{ echo "search-like: no omindex or quest (apt-get install xapian-omega xapian-tools)"; exit 77; }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

mkdir "$t/site"
n=0
for f in /usr/share/doc/*/copyright; do
	[ -f "$f" ] || continue
	cp "$f" "$t/site/$(basename "$(dirname "$f")").txt"
	n=$((n + 1))
	[ $n -lt 150 ] || break
done
omindex --db "$t/db" --url / "$t/site" > /dev/null 2>&1
"$nd" build --db "$t/db" --store "$t/st" > /dev/null 2>&1
"$nd" sign --db "$t/db" --store "$t/st" > /dev/null 2>&1

count_nd() { "$nd" search --db "$t/db" --store "$t/st" --collapse none --depth 100000 --json "$@" |
	python3 -c 'import json, sys; print(json.load(sys.stdin)["estimated"])'; }
count_quest() { quest -c 100000 -m 1 -d "$t/db" "$@" | sed -n 's/^Exactly \([0-9]*\) matches$/\1/p'; }

for q in licensing "licensed software" "title:gnu" "gnu AND NOT bsd" "redistributions"; do
	a=$(count_nd "$q")
	b=$(count_quest -s english -p title:S -p author:A -p topic:B "$q")
	[ -n "$b" ] && [ "$a" = "$b" ] || fail "'$q': neardup $a matches, quest $b"
	[ "$q" != licensing ] || [ "$a" -gt 0 ] || fail "'licensing' matches nothing"
done
# Explicit settings, as quest spells them.
a=$(count_nd --stemmer none licensing)
b=$(count_quest -s none licensing)
[ "$a" = "$b" ] || fail "--stemmer none: neardup $a, quest $b"
a=$(count_nd --stemmer english --boolean-prefix type:T "license type:text/plain")
b=$(count_quest -s english -b type:T "license type:text/plain")
[ "$b" -gt 0 ] || fail "type:text/plain matches nothing"
[ "$a" = "$b" ] || fail "--boolean-prefix: neardup $a, quest $b"
rc=0; "$nd" search --db "$t/db" --store "$t/st" --stemmer klingon x > /dev/null 2> "$t/err" || rc=$?
[ "$rc" = 2 ] && grep -q "no stemmer for 'klingon'" "$t/err" || fail "--stemmer klingon: exit $rc: $(cat "$t/err")"
rc=0; "$nd" search --db "$t/db" --store "$t/st" --prefix title x > /dev/null 2> "$t/err" || rc=$?
[ "$rc" = 2 ] || fail "--prefix title: exit $rc"
# The crawl-time check on the same database: an edited copy of a page
# finds it (its text split as omindex split the page's).
f=$(ls "$t/site" | sed -n 20p)
python3 - "$t/site/$f" "$t/copy.txt" <<'PY'
import random, sys
w = open(sys.argv[1], encoding="utf-8", errors="replace").read().split(" ")
r = random.Random(2)
for _ in range(3):
    w[r.randrange(len(w))] = "zebra"
open(sys.argv[2], "w", encoding="utf-8").write(" ".join(w))
PY
"$nd" check --db "$t/db" --store "$t/st" --json "$t/copy.txt" > "$t/check.json" 2> "$t/err" ||
	fail "check on an omindex database: $(cat "$t/err")"
python3 - "$t/check.json" "${f%.txt}" <<'PY' || fail "check did not find the page it copies: $(cat "$t/check.json")"
import json, sys
r = json.load(open(sys.argv[1]))
assert any(m["duplicate"] and m["id"].endswith("/" + sys.argv[2] + ".txt") for m in r["members"]), r
PY
# A page changed and omindex run again: update calls it replaced; and the
# compacted database has the same clusters.
"$nd" clusters --db "$t/db" --store "$t/st" --json > "$t/c.json" 2> /dev/null
echo "words added to this page" >> "$t/site/$f"
omindex --db "$t/db" --url / "$t/site" > /dev/null 2>&1
"$nd" update --db "$t/db" --store "$t/st" > "$t/update.out" 2>&1 || fail "update: $(cat "$t/update.out")"
grep -q "^0 added, 1 replaced, 0 deleted" "$t/update.out" || fail "update after a change: $(cat "$t/update.out")"
"$nd" clusters --db "$t/db" --store "$t/st" --json > "$t/c.json" 2> /dev/null
xapian-compact "$t/db" "$t/db-c" > /dev/null || fail "xapian-compact"
"$nd" clusters --db "$t/db-c" --store "$t/st" --json > "$t/c2.json" 2> "$t/err" || fail "clusters after compaction: $(cat "$t/err")"
python3 -c 'import json, sys; a, b = (json.load(open(p))["clusters"] for p in sys.argv[1:]); assert a == b' \
	"$t/c.json" "$t/c2.json" || fail "clusters differ after compaction"
# Search on the compacted database: the same results, and quest's count.
for d in "$t/db" "$t/db-c"; do
	"$nd" search --db "$d" --store "$t/st" --collapse none --depth 100000 --limit 100 --json licensing |
		python3 -c 'import json, sys; j = json.load(sys.stdin); print(j["estimated"], [r["docid"] for r in j["results"]])'
done > "$t/s.out" 2> "$t/err" || fail "search after compaction: $(cat "$t/err")"
[ "$(sed -n 1p "$t/s.out")" = "$(sed -n 2p "$t/s.out")" ] || fail "search after compaction differs: $(cat "$t/s.out")"
b=$(quest -c 100000 -m 1 -d "$t/db-c" -s english -p title:S -p author:A -p topic:B licensing |
	sed -n 's/^Exactly \([0-9]*\) matches$/\1/p')
[ "$(sed -n '2s/ .*//p' "$t/s.out")" = "$b" ] || fail "after compaction: neardup $(cat "$t/s.out"), quest $b"
echo "search-like: match counts equal quest's on an omindex database; check finds an edited copy; update and compaction"
