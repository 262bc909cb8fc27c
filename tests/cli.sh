#!/bin/sh
# The command-line integration path on a generated corpus: index, build,
# sign --value-slot, search (native == filter), check, the crawler example
# (check -> index -> hook), update after re-indexing, and clear errors.
#   cli.sh NEARDUP CRAWL_EXAMPLE
set -eu
nd=$1
crawl=$2
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# 240 documents in families of 1-4 (an original and 1-word edits).
python3 - "$t" <<'EOF'
import json, random, sys
d = sys.argv[1]
vocab = ["w%sa" % "".join(chr(97 + int(c)) for c in "%04d" % i) for i in range(2000)]
def text(fam):
    r = random.Random(fam)
    return [vocab[min(int(r.paretovariate(1.1)) * 7 % 2000, 1999)] if r.random() < .5
            else r.choice(vocab) for _ in range(150 + fam % 5 * 30)]
def edit(words, seed, k):
    r = random.Random(seed); w = list(words)
    for _ in range(k):
        w[r.randrange(len(w))] = r.choice(vocab)
    return " ".join(w)
with open(d + "/corpus.jsonl", "w") as f:
    n = 0
    for fam in range(100):
        base = text(fam)
        for c in range(fam % 4 + 1):
            f.write(json.dumps({"id": "f%d.%d" % (fam, c), "text": edit(base, fam * 10 + c, c)}) + "\n")
# pages arriving later: a copy of family 3, a new text, a re-fetched f5.0 that changed
open(d + "/copy3.txt", "w").write(edit(text(3), 999, 1))
open(d + "/new.txt", "w").write(edit(text(5000), 1, 0))
open(d + "/f5.0.jsonl", "w").write(json.dumps({"id": "f5.0", "text": edit(text(6000), 2, 0)}) + "\n")
open(d + "/copy7.jsonl", "w").write(json.dumps({"id": "copy7", "text": edit(text(7), 998, 1)}) + "\n")
# family 11 in a site template: 40% more words, so strict (8%) refuses it and copy accepts
frame = lambda n: " ".join(vocab[1999 - (i * 37) % 300] for i in range(n))
open(d + "/tmpl11.jsonl", "w").write(json.dumps({"id": "tmpl11", "text": frame(40) + " " + edit(text(11), 997, 1) + " " + frame(35)}) + "\n")
EOF

"$nd" index --quiet --db "$t/db" "$t/corpus.jsonl"
"$nd" build --db "$t/db" --store "$t/store" --words 300 >/dev/null
"$nd" sign --db "$t/db" --store "$t/store" --value-slot 20 > "$t/sign.out"
grep -q "value slot 20: collapse ids of 250 documents checked" "$t/sign.out" || fail "sign --value-slot: $(cat "$t/sign.out")"
# The records have no URL; a family of three or four that begin and end
# alike is a site by its frame, and sign says how many.
grep -Eq "^sites: 0 by host, [1-9][0-9]* by frame, [1-9][0-9]* pages in them" "$t/sign.out" ||
	fail "sign's sites: $(cat "$t/sign.out")"

# Native and filter collapsing keep the same results; none keeps more.
for m in native filter none; do
	"$nd" search --db "$t/db" --store "$t/store" --collapse $m --limit 1000 waaaha waabea | tail -n +3 > "$t/$m.out"
done
cmp -s "$t/native.out" "$t/filter.out" || fail "native and filter differ: $(diff "$t/native.out" "$t/filter.out" | head)"
grep -Eq " \+[0-9]+  " "$t/native.out" || fail "nothing collapsed"
[ "$(wc -l < "$t/none.out")" -gt "$(wc -l < "$t/native.out")" ] || fail "collapsing removed nothing"
# Tolerant folds what equal keys do here (1-2 word edits), and more when a bit moved.
"$nd" search --db "$t/db" --store "$t/store" --collapse tolerant --limit 1000 waaaha waabea | tail -n +3 > "$t/tolerant.out"
grep -Eq " \+[0-9]+  " "$t/tolerant.out" || fail "tolerant collapsed nothing"
[ "$(wc -l < "$t/tolerant.out")" -le "$(wc -l < "$t/filter.out")" ] || fail "tolerant kept more than filter"

# clusters: one interface, one JSON layout, at every point.  The corpus's
# families are copies with 0-3 words changed: at copy and story each
# cluster is one family and every family with copies is found; strict's
# clusters lie within copy's.
for p in copy strict story; do
	"$nd" clusters --db "$t/db" --store "$t/store" --point $p --json > "$t/c-$p.json" || fail "clusters --point $p"
done
"$nd" clusters --db "$t/db" --store "$t/store" --json > "$t/c-default.json" || fail "clusters"
python3 - "$t" <<'EOF' || fail "clusters --point: $(head -c 600 "$t/c-copy.json")"
import json, sys
d = sys.argv[1]
j = {p: json.load(open("%s/c-%s.json" % (d, p))) for p in ("copy", "strict", "story", "default")}
keys = {"point", "documents_signed", "clusters_total", "documents_in_clusters", "min_size", "from", "seconds",
        "clusters"}
for p, v in j.items():
    assert keys <= set(v) and v["point"] == ("copy" if p == "default" else p), (p, sorted(v))
    assert v["clusters_total"] == len(v["clusters"]) and v["documents_signed"] == 250, p
    assert sum(c["size"] for c in v["clusters"]) == v["documents_in_clusters"], p
    for c in v["clusters"]:
        ids = [x["docid"] for x in c["documents"]]
        assert ids == sorted(ids) and c["size"] == len(ids) and all(x["id"] for x in c["documents"]), c
        assert c["id"] == ids[0], c  # named by its smallest docid
groups = lambda v: sorted(sorted(x["docid"] for x in c["documents"]) for c in v["clusters"])
assert groups(j["default"]) == groups(j["copy"])            # copy is the default
assert j["copy"]["from"] == "links" and j["story"]["from"] == "index"
assert j["story"]["pairs"]["candidates"] <= 40 * 250       # at most 80 neighbours, fewer once shared
for p in ("copy", "story"):
    fams = [{x["id"].split(".")[0] for x in c["documents"]} for c in j[p]["clusters"]]
    fams = [f for f in fams if not any(i.startswith("tmpl") or i.startswith("sig") for i in f)]
    assert all(len(f) == 1 for f in fams), (p, [f for f in fams if len(f) > 1][:3])
copy = [set(g) for g in groups(j["copy"])]
assert all(any(set(g) <= c for c in copy) for g in groups(j["strict"]))
assert j["strict"]["documents_in_clusters"] <= j["copy"]["documents_in_clusters"]
# Written a cluster at a time: one a line, each a JSON object of its own.
lines = [l.strip().rstrip(",") for l in open("%s/c-copy.json" % d) if l.strip().startswith('{"id"')]
assert lines and [json.loads(l) for l in lines] == j["copy"]["clusters"], len(lines)
EOF
# No cluster at all is still one JSON object, its list empty.
"$nd" clusters --db "$t/db" --store "$t/store" --min-size 100000 --json > "$t/c-none.json" ||
	fail "clusters --min-size 100000"
python3 -c 'import json, sys; v = json.load(open(sys.argv[1])); assert v["clusters"] == [] and v["clusters_total"] == 0, v' \
	"$t/c-none.json" || fail "clusters with none: $(cat "$t/c-none.json")"
# A listing that cannot be written (standard output on a full disk) is an
# error that says so, not a cut-short listing with status 0.
if [ -w /dev/full ]; then
	"$nd" clusters --db "$t/db" --store "$t/store" --json > /dev/full 2> "$t/full.err" &&
		fail "clusters onto a full disk exited 0"
	grep -q "writing standard output" "$t/full.err" || fail "clusters onto a full disk: $(cat "$t/full.err")"
fi
# Completed averages leave small clusters as they are: families of 2-4
# add no pair, and --complete 0 (off) gives the same clusters.
"$nd" clusters --db "$t/db" --store "$t/store" --point story --complete 0 --json > "$t/c-story0.json" ||
	fail "clusters --point story --complete 0"
python3 - "$t/c-story.json" "$t/c-story0.json" <<'EOF' || fail "clusters --complete: small families changed"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert a["pairs"]["completed"] == 0 and b["pairs"]["completed"] == 0
groups = lambda j: sorted(sorted(d["docid"] for d in g["documents"]) for g in j["clusters"])
assert groups(a) == groups(b)
EOF
# Usage errors are one line and a hint, exit 2.
for opts in "--point loose" "--complete 5000 --point story" "--cut 0 --point story" "--cut 0.5" \
	    "--point copy --complete 8" "--keys --point copy" "--verify" "--tolerant 0.5"; do
	rc=0; "$nd" clusters --db "$t/db" --store "$t/store" $opts 2> "$t/err" || rc=$?
	[ "$rc" = 2 ] && [ "$(wc -l < "$t/err")" -le 2 ] && grep -q "Try 'neardup clusters --help'" "$t/err" ||
		fail "clusters $opts: exit $rc, $(cat "$t/err")"
done
rc=0; "$nd" clusters --store "$t/store" 2> "$t/err" || rc=$?
[ "$rc" = 2 ] && grep -q "db and --store are required" "$t/err" || fail "clusters without --db: exit $rc"
# --keys: the raw candidates, equal signatures.
"$nd" clusters --store "$t/store" --keys --json > "$t/keys.json" || fail "clusters --keys"
python3 - "$t/keys.json" <<'EOF' || fail "clusters --keys: $(head -c 300 "$t/keys.json")"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["point"] == "keys" and j["clusters_total"] > 20 and j["clusters"][0]["documents"][0]["id"] is None
EOF

# Crawl-time check of a 1-word edit of family 3 (4 members): duplicates found.
"$nd" check --db "$t/db" --store "$t/store" "$t/copy3.txt" > "$t/check.out"
grep -Eq "[1-9][0-9]* duplicates? \(copy\)" "$t/check.out" || fail "check: $(cat "$t/check.out")"
# check compares 16 candidates unless told: more than 8, for a copy that
# pages sharing a template's words outrank.
"$nd" check --db "$t/db" --store "$t/store" --json "$t/copy3.txt" > "$t/check16.json"
"$nd" check --db "$t/db" --store "$t/store" --json --compare 3 "$t/copy3.txt" > "$t/check3.json"
python3 - "$t/check16.json" "$t/check3.json" <<'EOF' || fail "check --compare: $(head -c 300 "$t/check16.json")"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
compared = lambda j: [m for m in j["members"] if m["measure"] != "cluster"]
assert a["candidates"] > 16 and len(compared(a)) == 16, (a["candidates"], len(a["members"]))
assert len(compared(b)) == 3 and compared(b) == a["members"][:3], b
# What three comparisons left out of family 3's cluster is reported from it.
fam = {m["id"] for m in a["members"] if m["duplicate"]}
assert len(fam) == 4 and a["cluster_size"] == b["cluster_size"] == 4, (a, b)
assert {m["id"] for m in b["members"] if m["duplicate"]} == fam, b
assert [m["by"] for m in b["members"] if m not in compared(b)] == ["cluster"], b
EOF
# Tolerant of changed bits: the same copy, found through the bit postings
# and the near-neighbour index.
"$nd" check --db "$t/db" --store "$t/store" --tolerant 0.5 "$t/copy3.txt" > "$t/check.out"
grep -Eq "candidates?, [1-9][0-9]* duplicates? \(copy\)" "$t/check.out" ||
	fail "check --tolerant: $(cat "$t/check.out")"
rc=0; "$nd" check --db "$t/db" --store "$t/store" --tolerant 0 "$t/copy3.txt" 2> "$t/err" || rc=$?
[ "$rc" = 2 ] && grep -q "tolerant needs" "$t/err" || fail "check --tolerant 0: exit $rc"

# The crawler loop: the copy is checked, indexed and hooked; its duplicates come back.
"$crawl" "$t/db" "$t/store" "$t/copy3.txt" "$t/new.txt" > "$t/crawl.out"
grep -Eq "copy3.txt: docid [0-9]+ added, [1-9][0-9]* duplicate.*, in cluster [0-9]+ of [2-9][0-9]* documents$" "$t/crawl.out" || fail "crawl: $(cat "$t/crawl.out")"
grep -q "new.txt: docid [0-9]* added, 0 duplicate(s):$" "$t/crawl.out" || fail "crawl: $(cat "$t/crawl.out")"
# The hook kept the slot: native == filter still.
for m in native filter; do
	"$nd" search --db "$t/db" --store "$t/store" --collapse $m --limit 1000 waaaha waabea | tail -n +3 > "$t/$m.out"
done
cmp -s "$t/native.out" "$t/filter.out" || fail "native and filter differ after the hook"

# Nothing left for update; then re-index f5.0 with other text and delete nothing.
"$nd" update --db "$t/db" --store "$t/store" > "$t/upd0.out"
grep -q "^0 added, 0 replaced, 0 deleted" "$t/upd0.out" || fail "update after hooks: $(cat "$t/upd0.out")"
"$nd" index --quiet --db "$t/db" "$t/f5.0.jsonl"
"$nd" update --db "$t/db" --store "$t/store" --json > "$t/upd1.out" 2> "$t/upd1.err"
grep -q '"change":"replaced"' "$t/upd1.out" || fail "update: $(cat "$t/upd1.out")"
grep -q "^0 added, 1 replaced, 0 deleted" "$t/upd1.err" || fail "update: $(cat "$t/upd1.err")"
# A copy of family 7 (4 members) indexed behind neardup's back: update
# --tolerant reports it with verified duplicates among its candidates.
"$nd" index --quiet --db "$t/db" "$t/copy7.jsonl"
"$nd" update --db "$t/db" --store "$t/store" --tolerant 0.5 --json > "$t/upd2.out" 2>/dev/null
python3 - "$t/upd2.out" <<'EOF' || fail "update --tolerant: $(cat "$t/upd2.out")"
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
assert len(r) == 1 and r[0]["change"] == "added", r
assert 1 <= len(r[0]["duplicates"]) <= r[0]["candidates"], r
assert all(0 <= x["distance"] <= 0.5 and x["by"] == "resemblance" for x in r[0]["duplicates"]), r
EOF
# One verdict: for the templated page, check (before indexing) and update
# (after) name the same duplicates, family 11's members, and clusters
# --point copy puts it with them; --point strict names none of them.
"$nd" check --db "$t/db" --store "$t/store" --format jsonl --json - < "$t/tmpl11.jsonl" > "$t/chk11.json"
"$nd" check --db "$t/db" --store "$t/store" --format jsonl --json --point strict - < "$t/tmpl11.jsonl" > "$t/chk11s.json"
"$nd" index --quiet --db "$t/db" "$t/tmpl11.jsonl"
"$nd" update --db "$t/db" --store "$t/store" --json > "$t/upd11.json" 2>/dev/null
"$nd" clusters --db "$t/db" --store "$t/store" --point copy --json > "$t/pc.json" 2>/dev/null
python3 - "$t/chk11.json" "$t/chk11s.json" "$t/upd11.json" "$t/pc.json" <<'EOF' || fail "check and update disagree"
import json, sys
chk, strict = (json.loads(open(p).readline()) for p in sys.argv[1:3])
upd = [json.loads(l) for l in open(sys.argv[3])]
pc = json.load(open(sys.argv[4]))
by_check = {m["id"] for m in chk["members"] if m["duplicate"]}
assert chk["point"] == "copy" and by_check == {"f11.0", "f11.1", "f11.2", "f11.3"}, chk
assert all(m["by"] in ("resemblance", "containment") for m in chk["members"] if m["duplicate"]), chk
assert strict["point"] == "strict" and strict["duplicates"] == 0 and strict["cluster"] is None, strict
# the cluster it would join: family 11's, whose collapse id is its smallest docid
assert chk["cluster"] == min(m["docid"] for m in chk["members"] if m["duplicate"]), chk
assert len(upd) == 1 and upd[0]["change"] == "added", upd
ids = {m["docid"]: m["id"] for m in chk["members"]}
assert {ids.get(x["docid"]) for x in upd[0]["duplicates"]} == by_check, (upd, by_check)
fam = [g for g in pc["clusters"] if any(d["id"] == "tmpl11" for d in g["documents"])]
assert fam and {d["id"] for d in fam[0]["documents"]} == by_check | {"tmpl11"}, fam
# clusters names it by the id check gave: its smallest docid
assert fam[0]["id"] == chk["cluster"] == min(d["docid"] for d in fam[0]["documents"]), (fam[0]["id"], chk["cluster"])
EOF
rc=0; "$nd" update --db "$t/db" --store "$t/store" --tolerant 0 2> "$t/err" || rc=$?
[ "$rc" = 2 ] && grep -q "tolerant needs" "$t/err" || fail "update --tolerant 0: exit $rc"

# Clear errors naming the input.
if "$nd" search --db "$t/nope" --store "$t/store" x 2> "$t/err"; then fail "missing db accepted"; fi
grep -q "$t/nope" "$t/err" || fail "error does not name the database: $(cat "$t/err")"
# A collection too small to choose words from says so, without the hint
# about word prefixes (which is for a database whose words it cannot read).
printf 'one text\n' > "$t/few.txt"
"$nd" index -q --db "$t/fewdb" "$t/few.txt" >/dev/null
if "$nd" build --db "$t/fewdb" --store "$t/fewst" > "$t/few.out" 2>&1; then fail "build on 1 document succeeded"; fi
grep -q "index at least" "$t/few.out" || grep -q "1 document;" "$t/few.out" || fail "build on 1 document: $(cat "$t/few.out")"
grep -q "word-prefix" "$t/few.out" && fail "build on 1 document gave the prefix hint: $(cat "$t/few.out")"
# A crawl's first pages: too few to choose words from, so the set is empty
# and says so, yet every feature works on the texts' near-neighbour keys
# (a copy is found by clusters, check and the crawler's hook), until the
# collection has grown past --max-drift and sign asks for a build.
python3 - "$t" <<'EOF'
import sys
d = sys.argv[1]
texts = ["%s %s" % (" ".join("w%d" % (k * 37 + i) for i in range(30)), "and so on") for k in range(5)]
for k, t in enumerate(texts + [texts[0]]):
    open("%s/first%d.txt" % (d, k), "w").write(t + "\n")
open(d + "/first-copy.txt", "w").write(texts[1] + "\n")
EOF
"$nd" index -q --db "$t/firstdb" "$t"/first[0-5].txt > /dev/null
"$nd" build -q --db "$t/firstdb" --store "$t/firstst" 2> "$t/first.err" || fail "build on 6 documents: $(cat "$t/first.err")"
grep -q "descriptive set is empty: 6 documents are too few" "$t/first.err" || fail "build on 6: $(cat "$t/first.err")"
grep -q "holds 15 documents or more" "$t/first.err" || fail "build on 6: $(cat "$t/first.err")"
grep -q "word-prefix" "$t/first.err" && fail "build on 6 documents gave the prefix hint"
"$nd" sign -q --db "$t/firstdb" --store "$t/firstst"
"$nd" clusters --db "$t/firstdb" --store "$t/firstst" --json > "$t/first.json"
python3 -c "
import json, sys
c = json.load(open(sys.argv[1]))['clusters']
got = sorted(sorted(d['id'].rsplit('/', 1)[-1] for d in g['documents']) for g in c)
assert got == [['first0.txt', 'first5.txt']], got" "$t/first.json" || fail "clusters on the empty set"
"$nd" check --db "$t/firstdb" --store "$t/firstst" "$t/first-copy.txt" > "$t/check.out"
grep -Eq "1 duplicate \(copy\)" "$t/check.out" || fail "check on the empty set: $(cat "$t/check.out")"
"$crawl" "$t/firstdb" "$t/firstst" "$t/first-copy.txt" > "$t/crawl.out"
grep -Eq "first-copy.txt: docid 7 added, 1 duplicate" "$t/crawl.out" || fail "crawl on the empty set: $(cat "$t/crawl.out")"
for k in 1 2 3 4; do cp "$t/first$k.txt" "$t/more$k.txt"; done
"$nd" index -q --db "$t/firstdb" "$t"/more*.txt > /dev/null
if "$nd" sign -q --db "$t/firstdb" --store "$t/firstst" 2> "$t/first.err"; then fail "sign past the drift"; fi
grep -q "run 'neardup build'" "$t/first.err" || fail "sign past the drift: $(cat "$t/first.err")"
# -q: build and sign say nothing; clusters lists clusters without its summary.
"$nd" build -q --db "$t/db" --store "$t/store2" --words 300 > "$t/q.out" 2>&1
"$nd" sign -q --db "$t/db" --store "$t/store2" >> "$t/q.out" 2>&1
[ ! -s "$t/q.out" ] || fail "build -q / sign -q printed: $(head -3 "$t/q.out")"
"$nd" clusters -q --db "$t/db" --store "$t/store2" --limit 1 > "$t/q.out"
head -1 "$t/q.out" | grep -q "clusters of" && fail "clusters -q printed its summary"
grep -Eq "^cluster [1-9][0-9]*: [0-9]+ documents" "$t/q.out" || fail "clusters -q: $(head -3 "$t/q.out")"
for c in index build sign clusters check update search fsck text eval; do
	"$nd" $c --help | grep -q -- "-q, --quiet" || fail "$c has no -q"
done
"$nd" fsck -q --store "$t/store2" > "$t/q.out" || fail "fsck -q: exit $?"
[ ! -s "$t/q.out" ] || fail "fsck -q on a clean store printed: $(head -3 "$t/q.out")"
if "$nd" search --db "$t/db" --store "$t/store2" --collapse native x 2> "$t/err"; then fail "native without a slot"; fi
grep -q -- "--value-slot" "$t/err" || fail "native without slot: $(cat "$t/err")"
if "$nd" update --db "$t/db" --store "$t/store" --max-drift x 2>/dev/null; then fail "bad --max-drift accepted"; fi

# fsck: clean after all of the above, and it notices a stray bit posting
# (bit 999 -> docid 12345, written behind neardup's back with mdb_load).
"$nd" fsck --store "$t/store" --db "$t/db" > "$t/fsck.out" || fail "fsck: $(cat "$t/fsck.out")"
if command -v mdb_load > /dev/null; then
	printf 'VERSION=3\nformat=bytevalue\ntype=btree\ndupsort=1\nintegerkey=1\ndupfixed=1\nintegerdup=1\nHEADER=END\n e7030000\n 39300000\nDATA=END\n' |
		mdb_load -s bits "$t/store2"
	if "$nd" fsck --store "$t/store2" > "$t/fsck.out"; then fail "fsck missed a stray bit posting"; fi
	grep -q "bit postings hold" "$t/fsck.out" || fail "fsck: $(cat "$t/fsck.out")"
fi
# eval --splits: Hajishirzi et al.'s protocol (halves of the families, K times);
# the JSON's mean is the mean of the per-split bests it lists.
python3 - "$t/corpus.jsonl" > "$t/families.tsv" <<'EOF'
import json, sys
for line in open(sys.argv[1]):
    i = json.loads(line)["id"]
    print("%s\t%s" % (i, i.split(".")[0]))
EOF
"$nd" eval -q --db "$t/db" --store "$t/store" --clusters "$t/families.tsv" --splits 3 \
	--methods shingles,descriptive-jaccard --json > "$t/splits.json" || fail "eval --splits"
python3 - "$t/splits.json" <<'EOF' || fail "eval --splits: $(head -c 600 "$t/splits.json")"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["splits"]["count"] == 3 and j["splits"]["test_share"] == 0.5, j["splits"]
assert [m["method"] for m in j["methods"]] == ["shingles", "descriptive-jaccard"]
for m in j["methods"]:
    f1 = [p["f1"] for p in m["max_f1"]]
    assert len(f1) == 3 and all(0 < x <= 1 for x in f1), m
    assert abs(m["max_f1_mean"] - sum(f1) / 3) < 1e-9, m
    assert m["max_f1_min"] == min(f1) and m["max_f1_max"] == max(f1), m
    # cut: the splits whose best is the sweep's last point, duplicates missed
    assert m["candidate_floor"] == 0.01, m
    cut = sum(1 for p in m["max_f1"] if p["lowest"] and p["recall"] < 1)
    assert m["cut_splits"] == cut, m
    # at the method's own threshold, fixed before the splits: never above
    # each split's best, and its mean is the mean of what it lists
    at = m["at_threshold"]
    assert len(at) == 3 and all(p["threshold"] == m["threshold"] for p in at), m
    assert all(a["f1"] <= b["f1"] + 1e-12 for a, b in zip(at, m["max_f1"])), m
    assert abs(m["f1_at_threshold_mean"] - sum(p["f1"] for p in at) / 3) < 1e-9, m
EOF
rc=0
"$nd" eval -q --db "$t/db" --clusters "$t/families.tsv" --splits 2 --plots "$t/p" 2>/dev/null || rc=$?
[ "$rc" = 2 ] || fail "eval --splits with --plots: exit $rc, not a usage error"
# eval --linkage average: the same candidates, each pair scored by the level
# at which its documents' clusters join; clusters as truth only.
"$nd" eval -q --db "$t/db" --clusters "$t/families.tsv" --methods shingles --json > "$t/nolink.json" ||
	fail "eval --methods shingles"
"$nd" eval -q --db "$t/db" --clusters "$t/families.tsv" --methods shingles --linkage average --json \
	> "$t/link.json" || fail "eval --linkage average"
# --linkage single: the clusters of the pairs at a threshold (components),
# which join no later than average linkage's, so recall at the method's
# threshold is at least average's and at least the pairs' own.
"$nd" eval -q --db "$t/db" --clusters "$t/families.tsv" --methods shingles --linkage single --json \
	> "$t/single.json" || fail "eval --linkage single"
python3 - "$t/nolink.json" "$t/link.json" "$t/single.json" <<'EOF' || fail "eval --linkage: $(head -c 600 "$t/link.json")"
import json, sys
a, b, c = (json.load(open(f)) for f in sys.argv[1:4])
assert (a["linkage"], b["linkage"], c["linkage"]) == ("none", "average", "single"), a["linkage"]
ma, mb, mc = a["methods"][0], b["methods"][0], c["methods"][0]
assert ma["candidates"] == mb["candidates"] == mc["candidates"] > 0, (ma["candidates"], mb["candidates"])
assert 0 < mb["max_f1"]["f1"] <= 1, mb["max_f1"]
assert mc["recall"] >= mb["recall"] and mc["recall"] >= ma["recall"], (ma["recall"], mb["recall"], mc["recall"])
EOF
printf 'x\ty\t1\n' > "$t/pairs.tsv"
rc=0
"$nd" eval -q --db "$t/db" --pairs "$t/pairs.tsv" --linkage average 2> "$t/link.err" || rc=$?
[ "$rc" = 2 ] && grep -q "clusters" "$t/link.err" || fail "eval --linkage with --pairs: exit $rc, $(cat "$t/link.err")"
rc=0
"$nd" eval -q --db "$t/db" --clusters "$t/families.tsv" --linkage complete 2> "$t/link.err" || rc=$?
[ "$rc" = 2 ] && grep -q "none, average or single" "$t/link.err" || fail "eval --linkage complete: exit $rc"
# Several INPUT directories whose files share names: each file keeps its
# own id (under its directory's name), none replaces another.
mkdir -p "$t/multi/one" "$t/multi/two"
echo "alpha beta gamma delta" > "$t/multi/one/001.txt"
echo "epsilon zeta eta theta" > "$t/multi/two/001.txt"
"$nd" index --db "$t/multidb" "$t/multi/one" "$t/multi/two/" > "$t/multi.out" 2>&1
grep -q "^indexed 2 documents (2 new, 0 replaced)" "$t/multi.out" || fail "index of two directories: $(cat "$t/multi.out")"
"$nd" index --db "$t/singledb" "$t/multi/one" > "$t/single.out" 2>&1
python3 - "$t/multidb" "$t/singledb" <<'EOF2' || fail "ids of several inputs"
import sys
sys.path.insert(0, "/usr/lib/python3/dist-packages")
try:
    import xapian
except ImportError:
    sys.exit(0)  # the counts above already tell
ids = lambda p: sorted(t.term.decode() for t in xapian.Database(p).allterms("Q"))
assert ids(sys.argv[1]) == ["Qone/001.txt", "Qtwo/001.txt"], ids(sys.argv[1])
assert ids(sys.argv[2]) == ["Q001.txt"], ids(sys.argv[2])
EOF2
# A feed window by arrival: a store whose window is 2 s keeps its documents
# until a writer runs after they are older; the database keeps them, and
# update neither signs them back nor calls them deleted.
cp -r "$t/db" "$t/wdb"
"$nd" build --db "$t/wdb" --store "$t/wstore" --words 300 > /dev/null
"$nd" sign --db "$t/wdb" --store "$t/wstore" --window 2s > "$t/wsign.out" || fail "sign --window"
n=$(sed -n 's/^window 2s by arrival: \([0-9]*\) records dated .*/\1/p' "$t/wsign.out")
[ -n "$n" ] && [ "$n" -ge 250 ] || fail "sign --window: $(cat "$t/wsign.out")"
"$nd" check --db "$t/wdb" --store "$t/wstore" --window 1h "$t/copy3.txt" > "$t/wcheck.out"
grep -Eq "[1-9][0-9]* duplicates? \(copy\)" "$t/wcheck.out" || fail "check --window: $(cat "$t/wcheck.out")"
sleep 3
"$nd" index --quiet --db "$t/wdb" "$t/new.txt"
"$nd" update --db "$t/wdb" --store "$t/wstore" > "$t/wupdate.out" || fail "update with a window"
grep -q "^1 added, 0 replaced, 0 deleted of [0-9]* documents.*; $n expired" "$t/wupdate.out" ||
	fail "update with a window: $(cat "$t/wupdate.out")"
grep -q "^window 2s by arrival: 1 records dated" "$t/wupdate.out" || fail "update: $(cat "$t/wupdate.out")"
"$nd" update --db "$t/wdb" --store "$t/wstore" > "$t/wupdate.out"
grep -q "^0 added, 0 replaced, 0 deleted" "$t/wupdate.out" || fail "update after expiry: $(cat "$t/wupdate.out")"
"$nd" check --db "$t/wdb" --store "$t/wstore" "$t/copy3.txt" > "$t/wcheck.out"
grep -q " 0 duplicates" "$t/wcheck.out" || fail "check after expiry: $(cat "$t/wcheck.out")"
"$nd" fsck --db "$t/wdb" --store "$t/wstore" > "$t/wfsck.out" || fail "fsck of a windowed store: $(cat "$t/wfsck.out")"
grep -q "feed window" "$t/wfsck.out" || fail "fsck: $(cat "$t/wfsck.out")"
# A new set keeps the window and its dates: fsck notes the dates waiting
# for 'sign', which signs the window's document back and nothing older.
"$nd" build --db "$t/wdb" --store "$t/wstore" --words 300 > /dev/null
"$nd" fsck --store "$t/wstore" > "$t/wfsck.out" 2>&1 || true
grep -q "note: 1 dates of documents without a record" "$t/wfsck.out" || fail "fsck after build: $(cat "$t/wfsck.out")"
"$nd" sign --db "$t/wdb" --store "$t/wstore" > "$t/wsign.out" || fail "sign after build: $(cat "$t/wsign.out")"
grep -q "^store: 1 documents signed" "$t/wsign.out" || fail "sign of a windowed store: $(cat "$t/wsign.out")"
"$nd" fsck --db "$t/wdb" --store "$t/wstore" > "$t/wfsck.out" || fail "fsck after sign: $(cat "$t/wfsck.out")"
# --window none: the store holds everything again.
"$nd" update --db "$t/wdb" --store "$t/wstore" --window none > "$t/wupdate.out"
grep -q "^$n added" "$t/wupdate.out" || fail "update --window none: $(cat "$t/wupdate.out")"
rc=0; "$nd" update --db "$t/wdb" --store "$t/wstore" --window 5x 2> "$t/err" || rc=$?
[ "$rc" = 2 ] && grep -q "window needs a duration" "$t/err" || fail "update --window 5x: exit $rc"
rc=0; "$nd" update --db "$t/db" --store "$t/store" --date-slot 3 2> "$t/err" || rc=$?
[ "$rc" = 2 ] && grep -q "date-slot needs --window" "$t/err" || fail "update --date-slot without a window: exit $rc"
rc=0; "$nd" check --db "$t/db" --store "$t/store" --window 1h "$t/copy3.txt" 2> "$t/err" || rc=$?
[ "$rc" = 1 ] && grep -q "needs dated documents" "$t/err" || fail "check --window on an undated store: exit $rc"

# Documents that share text arriving together, signed by 'sign': 30 pages
# of 60 own words and one 160-word footer added to 200 texts.  Settling
# links them through the footer; those links are what makes the count
# due, so sign counts the collection again and none of them is a copy.
python3 - "$t" <<'EOF2'
import json, random, sys
r = random.Random(23)
vocab = ["v%sx" % "".join(chr(97 + int(c)) for c in "%04d" % i) for i in range(3000)]
words = lambda n: " ".join(r.choice(vocab) for _ in range(n))
footer = words(160)
with open(sys.argv[1] + "/old.jsonl", "w") as f:
    for i in range(200):
        f.write(json.dumps({"id": "old%d" % i, "text": words(220)}) + "\n")
with open(sys.argv[1] + "/burst.jsonl", "w") as f:
    for i in range(30):
        f.write(json.dumps({"id": "burst%d" % i, "text": words(60) + " " + footer}) + "\n")
EOF2
"$nd" index --quiet --db "$t/bdb" "$t/old.jsonl"
"$nd" build --db "$t/bdb" --store "$t/bstore" > /dev/null
"$nd" sign --db "$t/bdb" --store "$t/bstore" > /dev/null
"$nd" index --quiet --db "$t/bdb" "$t/burst.jsonl"
"$nd" sign --db "$t/bdb" --store "$t/bstore" > "$t/bsign.out" || fail "sign of a burst: $(cat "$t/bsign.out")"
grep -q "^links: the links made between distinct texts .*: counted again" "$t/bsign.out" ||
	fail "sign did not count a burst again: $(cat "$t/bsign.out")"
"$nd" clusters --db "$t/bdb" --store "$t/bstore" --point copy > "$t/bclusters.out"
! grep -q burst "$t/bclusters.out" || fail "pages joined by their footer: $(head "$t/bclusters.out")"

# A soft 404 page copied across a crawl: check of one more copy is a copy
# of all of them, compared with a window's worth and the rest read from
# the cluster; JSON lists 1,000 of those and counts them all.
python3 - "$t/soft404.jsonl" <<'EOF2'
import json, random, sys
r = random.Random(404)
page = "Sorry, the page you asked for could not be found. Try the search box or go back to the front page."
with open(sys.argv[1], "w") as f:
    for i in range(1100):
        f.write(json.dumps({"id": "gone%d" % i, "text": page}) + "\n")
    for i in range(40):
        f.write(json.dumps({"id": "page%d" % i, "text": " ".join("w%d" % r.randrange(3000) for _ in range(120))}) + "\n")
EOF2
"$nd" index --quiet --db "$t/sdb" "$t/soft404.jsonl"
"$nd" build --db "$t/sdb" --store "$t/sstore" > /dev/null 2>&1
"$nd" sign --db "$t/sdb" --store "$t/sstore" > /dev/null
head -n 1 "$t/soft404.jsonl" | "$nd" check --db "$t/sdb" --store "$t/sstore" --json --format jsonl - > "$t/s404.json"
head -n 1 "$t/soft404.jsonl" | "$nd" check --db "$t/sdb" --store "$t/sstore" --format jsonl - > "$t/s404.out"
python3 - "$t/s404.json" "$t/s404.out" <<'EOF2' || fail "check of a page copied 1,100 times: $(head -c 300 "$t/s404.json")"
import json, sys
j = json.load(open(sys.argv[1]))
lines = open(sys.argv[2]).read().splitlines()
compared = [m for m in j["members"] if m["measure"] != "cluster"]
held = [m for m in j["members"] if m["measure"] == "cluster"]
assert j["cluster_size"] == 1100 and len(held) == 1000, (j["cluster_size"], len(held))
assert all(m["duplicate"] and m["id"].startswith("gone") for m in held), held[:3]
assert len({m["id"] for m in j["members"]}) == len(j["members"]), "a document listed twice"
assert 0 < len(compared) <= 16 and all(m["id"].startswith("gone") for m in compared if m["duplicate"]), compared
assert "joins cluster %d of 1100 documents" % j["cluster"] in lines[0], lines[0]
seen = sum(m["id"].startswith("gone") for m in compared)
assert lines[-1].strip() == "... and %d more of cluster %d" % (1100 - seen - 16, j["cluster"]), lines[-1]
EOF2

# The same page indexed 30 times more behind neardup's back: update names
# the cluster each copy is in and lists the rest of it, as check does;
# a page of its own is its own cluster of one.
python3 - "$t/soft404.jsonl" "$t/more404.jsonl" <<'EOF2'
import json, sys
page = json.loads(open(sys.argv[1]).readline())["text"]
with open(sys.argv[2], "w") as f:
    for i in range(30):
        f.write(json.dumps({"id": "again%d" % i, "text": page}) + "\n")
    f.write(json.dumps({"id": "own", "text": " ".join("u%d" % i for i in range(120))}) + "\n")
EOF2
cp -r "$t/sdb" "$t/sdb2" && cp -r "$t/sstore" "$t/sstore2"
"$nd" index --quiet --db "$t/sdb" "$t/more404.jsonl"
"$nd" index --quiet --db "$t/sdb2" "$t/more404.jsonl"
"$nd" update --db "$t/sdb" --store "$t/sstore" --json > "$t/u404.json" 2> /dev/null || fail "update of 30 copies"
"$nd" update --db "$t/sdb2" --store "$t/sstore2" > "$t/u404.out" || fail "update of 30 copies (text)"
python3 - "$t/s404.json" "$t/u404.json" "$t/u404.out" <<'EOF2' || fail "update's clusters: $(head -c 400 "$t/u404.json")"
import json, sys
cluster = json.load(open(sys.argv[1]))["cluster"]
changes = [json.loads(l) for l in open(sys.argv[2])]
assert len(changes) == 31, len(changes)
*copies, own = changes
for c in copies:
    ids = [d["docid"] for d in c["duplicates"]]
    compared = sum(d["by"] != "cluster" for d in c["duplicates"])
    assert c["cluster"] == cluster and c["cluster_size"] == 1130, (c["cluster"], c["cluster_size"])
    assert len(ids) == len(set(ids)) == min(1129, compared + 1000) and c["docid"] not in ids, len(ids)
    assert all(d["distance"] is None for d in c["duplicates"][compared:]), c["duplicates"][compared]
assert (own["cluster"], own["cluster_size"], own["duplicates"]) == (own["docid"], 1, []), own
blocks = []
for line in open(sys.argv[3]).read().splitlines():
    if line.startswith("added"):
        blocks.append([line])
    elif blocks and line.startswith(" "):
        blocks[-1].append(line)
heads = [b[0] for b in blocks]
assert len(blocks) == 31 and sum(("in cluster %d of 1130 documents" % cluster) in h for h in heads) == 30, heads[:2]
first = blocks[0]
n = sum(1 for l in first[1:] if l.split()[-1] != "cluster" and l.split()[0] == "duplicate")
assert first[-1].strip() == "... and %d more of cluster %d" % (1129 - n - 16, cluster), first[-3:]
assert "in cluster" not in heads[-1], heads[-1]
EOF2
# One document's cluster, by unique id or docid, without clustering the rest.
"$nd" clusters --db "$t/sdb" --store "$t/sstore" --of again0 > "$t/of.out" || fail "clusters --of"
"$nd" clusters --db "$t/sdb" --store "$t/sstore" --of own --json > "$t/of.json" || fail "clusters --of --json"
python3 - "$t/s404.json" "$t/of.out" "$t/of.json" <<'EOF2' || fail "clusters --of: $(head -3 "$t/of.out")"
import json, sys
cluster = json.load(open(sys.argv[1]))["cluster"]
lines = open(sys.argv[2]).read().split("\n")
assert lines[0] == "cluster %d: 1130 documents" % cluster, lines[:2]
ids = [l.split()[1] for l in lines[1:] if l.strip()]
assert len(ids) == len(set(ids)) == 1130 and "again0" in ids and "own" not in ids, len(ids)
own = json.load(open(sys.argv[3]))["clusters"]
assert len(own) == 1 and own[0]["size"] == 1 and own[0]["documents"][0]["id"] == "own", own
EOF2
docid=$(sed -n '2p' "$t/of.out" | awk '{print $1}')
"$nd" clusters --db "$t/sdb" --store "$t/sstore" --of "$docid" | cmp -s - "$t/of.out" || fail "clusters --of DOCID differs from --of UID"
rc=0; "$nd" clusters --db "$t/sdb" --store "$t/sstore" --of nosuch 2> "$t/err" || rc=$?
[ "$rc" = 1 ] && grep -q "nosuch: not found" "$t/err" || fail "clusters --of nosuch: exit $rc, $(cat "$t/err")"
rc=0; "$nd" clusters --db "$t/sdb" --store "$t/sstore" --of again0 --point story 2> "$t/err" || rc=$?
[ "$rc" = 2 ] || fail "clusters --of --point story: exit $rc"
rc=0; "$nd" clusters --db "$t/sdb" --store "$t/sstore" --of "" 2> "$t/err" || rc=$?
[ "$rc" = 2 ] && grep -q "needs a document" "$t/err" || fail "clusters --of '': exit $rc, $(cat "$t/err")"
rc=0; "$nd" clusters --db "$t/sdb" --store "$t/sstore" --of "+$docid" 2> "$t/err" || rc=$?
[ "$rc" = 1 ] || fail "clusters --of +DOCID read as a docid: exit $rc"
# Every decimal option reads digits only, as --of does (strtoull took " 5" and "+5").
for v in "+5" " 5"; do
	rc=0; "$nd" clusters --db "$t/sdb" --store "$t/sstore" --limit "$v" > /dev/null 2> "$t/err" || rc=$?
	[ "$rc" = 2 ] || fail "clusters --limit '$v': exit $rc"
done

# Two copies of one original, each edited in its own half: each is a copy
# of the original and not of the other, and the clusters hold the three
# together.  check of the one (its text) names the other, which the
# verdict refused, a duplicate by cluster with its distance, as update
# and the clusters have it; text and JSON alike.
python3 - "$t/apart.jsonl" "$t/apart-a.txt" <<'EOF2'
import json, random, sys
r = random.Random(8)
vocab = ["e%sq" % "".join(chr(97 + int(c)) for c in "%04d" % i) for i in range(3000)]
orig = [r.choice(vocab) for _ in range(300)]
def edit(lo, hi):
    w = list(orig)
    for i in r.sample(range(lo, hi), (hi - lo) // 6):
        w[i] = r.choice(vocab)
    return " ".join(w)
a, b = edit(0, 150), edit(150, 300)
with open(sys.argv[1], "w") as f:
    for i, t in enumerate([" ".join(orig), a, b]):
        f.write(json.dumps({"id": "apart%d" % i, "text": t}) + "\n")
    for i in range(60):
        f.write(json.dumps({"id": "other%d" % i, "text": " ".join(r.choice(vocab) for _ in range(250))}) + "\n")
open(sys.argv[2], "w").write(a + "\n")
EOF2
"$nd" index --quiet --db "$t/adb" "$t/apart.jsonl"
"$nd" build --db "$t/adb" --store "$t/astore" > /dev/null 2>&1
"$nd" sign --db "$t/adb" --store "$t/astore" > /dev/null
"$nd" clusters --db "$t/adb" --store "$t/astore" --of apart1 --json > "$t/apart-of.json"
"$nd" check --db "$t/adb" --store "$t/astore" --json "$t/apart-a.txt" > "$t/apart.json"
"$nd" check --db "$t/adb" --store "$t/astore" "$t/apart-a.txt" > "$t/apart.out"
python3 - "$t/apart-of.json" "$t/apart.json" "$t/apart.out" <<'EOF2' || fail "check of a copy edited apart from another: $(cat "$t/apart.out")"
import json, sys
of = [m["id"] for m in json.load(open(sys.argv[1]))["clusters"][0]["documents"]]
assert sorted(of) == ["apart0", "apart1", "apart2"], of
j = json.load(open(sys.argv[2]))
by = {m["id"]: m for m in j["members"]}
assert by["apart0"]["duplicate"] and by["apart0"]["by"] != "cluster", by["apart0"]
b = by["apart2"]
assert b["duplicate"] and b["by"] == "cluster" and b["measure"] == "resemblance" and b["distance"] > 0.5, b
assert j["cluster_size"] == 3 and len(j["members"]) == len(by), j
line = [l for l in open(sys.argv[3]) if "apart2" in l]
assert len(line) == 1 and " duplicate " in line[0] and line[0].split()[-3] == "cluster", line
EOF2

echo "cli: all checks passed"
