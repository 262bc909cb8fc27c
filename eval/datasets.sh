#!/bin/sh
# Run `neardup eval` on every labeled set found in the shared data
# directory (never copied here: their licences are research-only).
#
#   eval/datasets.sh [NEARDUP] [OUT]        (make eval)
#
# NEARDUP defaults to build/tools/neardup, OUT to build/eval; the data
# directory is $ND_DATA or ../shared/data next to this repository.  For
# each set: index, build, sign, the ground truth as neardup reads it, then
# OUT/<set>/table.txt, eval.json and plots/*.svg; for the human-labeled sets
# also table-split.txt (learned methods, measured on a held-out half) and
# table-splits.txt (every method's max-F1 over five such halvings, the
# protocol of Hajishirzi et al.'s published figures).
#
#   spotsigs   68 human-made clusters of news pages (directory per cluster)
#   clough     graded plagiarism answers: each answer paired with its task's
#              source; cut and light revision = duplicate, heavy and
#              independent = not (pairs TSV written here)
#   bbc        no labels ship: clusters of exact duplicates (same words
#              after whitespace folding), so recall is of exact copies and
#              "false" pairs may be unlabeled near-duplicates
#   reuters    the same derived truth over Reuters-21578 bodies (SGML
#              converted to JSONL here)
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
nd=${1:-$here/build/tools/neardup}
out=${2:-$here/build/eval}
data=${ND_DATA:-$here/../shared/data}
[ -x "$nd" ] || { echo "eval/datasets.sh: no neardup at $nd (make build first)" >&2; exit 1; }
[ -d "$data" ] || { echo "eval/datasets.sh: no data directory $data (set ND_DATA)" >&2; exit 77; }
mkdir -p "$out"
ran=0

prepare() { # name input... : index, build, sign into $out/name
	name=$1; shift
	rm -rf "$out/$name"
	mkdir -p "$out/$name"
	echo "== $name: indexing" >&2
	"$nd" index -q --db "$out/$name/db" "$@" | tail -n 1 >&2
	"$nd" build --db "$out/$name/db" --store "$out/$name/store" >/dev/null
	"$nd" sign --db "$out/$name/db" --store "$out/$name/store" | head -n 1 >&2
}

evaluate() { # name --clusters|--pairs truth [learn]
	name=$1
	"$nd" eval -q --db "$out/$name/db" --store "$out/$name/store" "$2" "$3" \
		--plots "$out/$name/plots" --json > "$out/$name/eval.json"
	"$nd" eval -q --db "$out/$name/db" --store "$out/$name/store" "$2" "$3" \
		> "$out/$name/table.txt"
	cat "$out/$name/table.txt"
	if [ "${4:-}" = learn ]; then
		# Human labels: also train the learned methods on half of the
		# groups and measure every method on the other half.
		"$nd" eval -q --db "$out/$name/db" --store "$out/$name/store" "$2" "$3" \
			--test-share 0.5 > "$out/$name/table-split.txt"
		cat "$out/$name/table-split.txt"
		# Hajishirzi et al.'s protocol: max-F1 averaged over five halvings.
		"$nd" eval -q --db "$out/$name/db" --store "$out/$name/store" "$2" "$3" \
			--splits 5 > "$out/$name/table-splits.txt"
		cat "$out/$name/table-splits.txt"
	fi
	ran=$((ran + 1))
}

# Exact-duplicate clusters of a JSONL corpus: a cluster per distinct text.
exact_clusters() { # jsonl -> tsv on stdout
	python3 - "$1" <<'EOF'
import json, sys, hashlib
seen = {}
print("id\tcluster")
for line in open(sys.argv[1], encoding="utf-8"):
    r = json.loads(line)
    key = hashlib.sha1(" ".join(r["text"].split()).encode()).hexdigest()[:16]
    print("%s\t%s" % (r["id"], key))
EOF
}

if [ -d "$data/spotsigs-goldset/GoldSetOfDuplicates" ]; then
	prepare spotsigs "$data/spotsigs-goldset/GoldSetOfDuplicates"
	evaluate spotsigs --clusters "$data/spotsigs-goldset/GoldSetOfDuplicates" learn
fi

if [ -f "$data/clough-stevenson/file_information.csv" ]; then
	prepare clough "$data/clough-stevenson"
	awk -F, '{ gsub(/\r/, "") } NR > 1 && $3 != "orig" {
		print $1 "\torig_task" $2 ".txt\t" (($3 == "cut" || $3 == "light") ? 1 : 0) }' \
		"$data/clough-stevenson/file_information.csv" > "$out/clough/pairs.tsv"
	evaluate clough --pairs "$out/clough/pairs.tsv" learn
fi

if [ -d "$data/bbc-news/bbc" ]; then
	mkdir -p "$out/bbc-src"
	python3 - "$data/bbc-news/bbc" "$out/bbc-src/bbc.jsonl" <<'EOF'
import json, os, sys
root, dst = sys.argv[1], sys.argv[2]
with open(dst, "w") as f:
    for cat in sorted(os.listdir(root)):
        d = os.path.join(root, cat)
        if not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            text = open(os.path.join(d, name), encoding="latin-1").read()
            f.write(json.dumps({"id": cat + "/" + name, "text": text}) + "\n")
EOF
	prepare bbc "$out/bbc-src/bbc.jsonl"
	exact_clusters "$out/bbc-src/bbc.jsonl" > "$out/bbc/clusters.tsv"
	evaluate bbc --clusters "$out/bbc/clusters.tsv"
fi

if [ -d "$data/reuters21578/sgm-data" ]; then
	mkdir -p "$out/reuters-src"
	python3 - "$data/reuters21578/sgm-data" "$out/reuters-src/reuters.jsonl" <<'EOF'
import html, json, os, re, sys
root, dst = sys.argv[1], sys.argv[2]
rec = re.compile(r'<REUTERS[^>]*NEWID="(\d+)"[^>]*>(.*?)</REUTERS>', re.S)
body = re.compile(r'<BODY>(.*?)</BODY>', re.S)
with open(dst, "w") as f:
    for name in sorted(os.listdir(root)):
        if not name.endswith(".sgm"):
            continue
        sgm = open(os.path.join(root, name), encoding="latin-1").read()
        for newid, inner in rec.findall(sgm):
            b = body.search(inner)
            if b:
                text = html.unescape(b.group(1)).replace("\x03", "")
                f.write(json.dumps({"id": newid, "text": text}) + "\n")
EOF
	prepare reuters "$out/reuters-src/reuters.jsonl"
	exact_clusters "$out/reuters-src/reuters.jsonl" > "$out/reuters/clusters.tsv"
	evaluate reuters --clusters "$out/reuters/clusters.tsv"
fi

[ "$ran" -gt 0 ] || { echo "eval/datasets.sh: no labeled set under $data" >&2; exit 77; }
echo "tables, JSON and plots under $out" >&2
