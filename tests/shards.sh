#!/bin/sh
# A sharded database: two shards, the second served by xapian-tcpsrv on
# 127.0.0.1 (Xapian's remote backend), one store per shard signed where
# the shard lives, one descriptive set chosen over a stub listing both and
# copied to each store.  check (exact and tolerant) and clusters over the
# stub must equal the same over one local database holding every document.
#   shards.sh NEARDUP
set -eu
nd=$1
command -v xapian-tcpsrv > /dev/null || { echo "shards: no xapian-tcpsrv (apt-get install xapian-tools)"; exit 77; }
t=${ND_SHARDS_TMP:-$(mktemp -d)}
srv=
# The server gets a session of its own: on SIGTERM it signals its whole
# process group, which would otherwise be this script and its caller.
cleanup() { [ -n "$srv" ] && kill -- "-$srv" 2> /dev/null; [ -n "${ND_SHARDS_TMP:-}" ] || rm -rf "$t"; }
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# 300 documents in families of 1-4; families split across the shards.
python3 - "$t" <<'EOF'
import json, random, sys
d = sys.argv[1]
vocab = ["w%sa" % "".join(chr(97 + int(c)) for c in "%04d" % i) for i in range(3000)]
out = [open(d + "/a.jsonl", "w"), open(d + "/b.jsonl", "w")]
r = random.Random(11)
n = 0
for fam in range(120):
    base = [r.choice(vocab) for _ in range(120 + fam % 7 * 20)]
    for c in range(1 + fam % 4):
        w = list(base)
        for _ in range(c):  # 0-3 one-word edits
            w[r.randrange(len(w))] = r.choice(vocab)
        out[n % 2].write(json.dumps({"id": "f%d-%d" % (fam, c), "text": " ".join(w)}) + "\n")
        n += 1
# Copies inside a site template (a header and footer of the site's own
# words): their word frequencies, and so their keys, move, but the copy
# verdict takes them (the original kept whole: containment).  Original
# and copy always in different shards.
sites = [[r.choice(vocab) for _ in range(40)] for _ in range(3)]
for fam in range(30):
    base = [r.choice(vocab) for _ in range(150)]
    site = sites[fam % 3]
    out[0].write(json.dumps({"id": "t%d-0" % fam, "text": " ".join(base)}) + "\n")
    out[1].write(json.dumps({"id": "t%d-1" % fam, "text": " ".join(site[:25] + base + site[25:])}) + "\n")
    if fam % 3 == 0:  # a query that finds ten of them
        open(d + "/q-templates", "a").write(("" if fam == 0 else " OR ") + base[0])
EOF
"$nd" index -q --db "$t/dba" "$t/a.jsonl" > /dev/null
"$nd" index -q --db "$t/dbb" "$t/b.jsonl" > /dev/null
"$nd" index -q --db "$t/all" "$t/a.jsonl" "$t/b.jsonl" > /dev/null

# Serve shard b on a free port.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
srv=$(python3 -c 'import subprocess, sys
p = subprocess.Popen(sys.argv[2:], start_new_session=True, stdout=open(sys.argv[1], "w"), stderr=subprocess.STDOUT)
print(p.pid)' "$t/srv.log" xapian-tcpsrv --quiet --interface 127.0.0.1 --port "$port" "$t/dbb")
for _ in 1 2 3 4 5 6 7 8 9 10; do
	python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 1)" 2> /dev/null && break
	sleep 0.3
done
printf 'auto %s\nremote 127.0.0.1:%s\n' "$t/dba" "$port" > "$t/stub"

# One set over both shards (global statistics summed by Xapian), copied
# to each shard's store and to the single database's; sign where each lives.
"$nd" build --db "$t/stub" --store "$t/set" --words 400 --show 400 | sed 1d > "$t/set-stub"
# The same documents give the same set however they are laid out: the
# sample and its simulated edits are drawn by unique id, not by docid
# (the stub interleaves the shards' docids).
"$nd" build --db "$t/all" --store "$t/set-all" --words 400 --show 400 | sed 1d > "$t/set-single"
cmp -s "$t/set-stub" "$t/set-single" || fail "build over the stub and over one database chose different sets: $(diff "$t/set-stub" "$t/set-single" | head -5)"
[ "$(wc -l < "$t/set-single")" -ge 100 ] || fail "set listing too short: $(head -3 "$t/set-single")"
for s in dba dbb all; do
	"$nd" build --db "$t/$s" --store "$t/st-$s" --from-store "$t/set" > /dev/null
	"$nd" sign --db "$t/$s" --store "$t/st-$s" > /dev/null
done
grep -q "^error" "$t/srv.log" && fail "tcpsrv: $(cat "$t/srv.log")"

# check: every family's first document, exact and tolerant.
ids() { awk '$3 == "duplicate" {print $2}' | sort; }
python3 - "$t" <<'EOF'
import json, sys
d = sys.argv[1]
docs = [json.loads(l) for f in ("a", "b") for l in open("%s/%s.jsonl" % (d, f))]
for doc in docs:
    if doc["id"].endswith("-0") and int(doc["id"][1:].split("-")[0]) % 10 == 0:
        open("%s/q-%s.txt" % (d, doc["id"]), "w").write(doc["text"])
EOF
n=0
for q in "$t"/q-*.txt; do
	for mode in "" "--tolerant 0.5"; do
		"$nd" check --db "$t/stub" --store "$t/st-dba" --store "$t/st-dbb" $mode --compare 50 "$q" | ids > "$t/sharded"
		"$nd" check --db "$t/all" --store "$t/st-all" $mode --compare 50 "$q" | ids > "$t/single"
		cmp -s "$t/sharded" "$t/single" || fail "check $mode $q: sharded $(cat "$t/sharded") single $(cat "$t/single")"
		[ -s "$t/single" ] || fail "check $mode $q found nothing"
		n=$((n + 1))
	done
done
[ "$n" -ge 10 ] || fail "only $n checks"

# clusters --keys (equal signatures, merged across shards): the same groups of ids.
canon() { # clusters --json on stdin -> one sorted line per group
	python3 -c '
import json, sys
print("\n".join(sorted(" ".join(sorted(m["id"] for m in c["documents"])) for c in json.load(sys.stdin)["clusters"])))'
}
"$nd" clusters --db "$t/stub" --store "$t/st-dba" --store "$t/st-dbb" --keys --json | canon > "$t/sharded"
"$nd" clusters --db "$t/all" --store "$t/st-all" --keys --json | canon > "$t/single"
cmp -s "$t/sharded" "$t/single" || fail "clusters --keys differ: $(diff "$t/sharded" "$t/single" | head -5)"
[ "$(wc -l < "$t/single")" -ge 50 ] || fail "clusters --keys: only $(wc -l < "$t/single") groups"
# Clusters do span the shards (families alternate between them).
grep -q "f1-0 f1-1" "$t/single" || fail "no cross-shard family: $(head -3 "$t/single")"

# Collapsed search (by filter): the same families, each folded as much.
# One store folds its links' components; over shards, each shard's links
# and, across shards, the results the verdict accepts among each result's
# candidates in the other shards' indexes.
fams() { # search --json on stdin -> "family folded" per kept result, sorted
	python3 -c '
import json, sys
r = json.load(sys.stdin)["results"]
print("\n".join(sorted("%s %d" % (h["label"].split("-")[0], h["collapsed"]) for h in r)))'
}
for q in "waaaba waaaca" "wabaaa OR wacaaa OR wadaaa" "waaeca" "$(cat "$t/q-templates")"; do
	"$nd" search --db "$t/stub" --store "$t/st-dba" --store "$t/st-dbb" --limit 50 --json $q | fams > "$t/sharded"
	"$nd" search --db "$t/all" --store "$t/st-all" --collapse filter --limit 50 --json $q | fams > "$t/single"
	cmp -s "$t/sharded" "$t/single" || fail "search '$q': $(diff "$t/sharded" "$t/single" | head -5)"
	grep -q " [1-9]" "$t/single" || fail "search '$q' folded nothing: $(head -3 "$t/single")"
done
# The templated copies fold across shards although their keys differ
# from their originals' (equal keys alone would keep them apart).
[ "$(grep -c '^t[0-9]* 1$' "$t/sharded")" -ge 8 ] || fail "templated copies not folded over shards: $(cat "$t/sharded")"
# A shard whose links are pending (signed --no-links) folds its own by
# verified equal keys, and the verdict across shards still holds.
"$nd" build --db "$t/dba" --store "$t/st-dba-nolinks" --from-store "$t/set" > /dev/null
"$nd" sign --db "$t/dba" --store "$t/st-dba-nolinks" --no-links > /dev/null
"$nd" search --db "$t/stub" --store "$t/st-dba-nolinks" --store "$t/st-dbb" --limit 50 --json "$(cat "$t/q-templates")" |
	fams > "$t/pending"
[ "$(grep -c '^t[0-9]* 1$' "$t/pending")" -ge 8 ] || fail "pending links: templated copies not folded: $(cat "$t/pending")"
if "$nd" search --db "$t/stub" --store "$t/st-dba" --store "$t/st-dbb" --collapse native x 2> "$t/err"; then
	fail "native collapse over shards accepted"
fi
if "$nd" search --db "$t/stub" --store "$t/st-dba" --store "$t/st-dbb" --collapse tolerant x 2> "$t/err"; then
	fail "tolerant collapse over shards accepted"
fi
grep -q "collapse tolerant needs one database" "$t/err" || fail "tolerant over shards: $(cat "$t/err")"
if "$nd" clusters --db "$t/stub" --store "$t/st-dba" --store "$t/st-dbb" --point copy 2> "$t/err"; then
	fail "a point's clusters over shards accepted"
fi
grep -q "need one store" "$t/err" || fail "clusters --point over shards: $(cat "$t/err")"

# A store of another database is refused by name.
if "$nd" check --db "$t/stub" --store "$t/st-dba" --store "$t/st-all" "$q" 2> "$t/err"; then
	fail "a store of another database was accepted"
fi
grep -q "not a shard" "$t/err" || fail "mismatch: $(cat "$t/err")"
echo "shards: $n checks, clusters by key and collapsed searches equal over a local + remote stub and one database"
