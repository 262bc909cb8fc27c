#!/bin/sh
# Omega, Xapian's own search front end, as a real client: pages indexed
# by omindex, signed by neardup into value slot 20, searched through
# Omega's CGI (run from the command line) with COLLAPSE=20.  Each query's
# collapsed hits must be exactly what neardup's clusters fold (`clusters
# --point copy`, the verdict's default point): the first-ranked page of
# each cluster that matches, carrying the number of its other matching
# members; and the same as `neardup search --collapse native` over the
# same database.  Some families have a copy inside a site template, whose
# key differs: it folds too.
#   omega.sh NEARDUP
set -eu
nd=$1
omega=/usr/lib/cgi-bin/omega/omega
{ [ -x "$omega" ] && command -v omindex > /dev/null; } ||
	{ echo "omega: no omindex or Omega CGI (apt-get install xapian-omega)"; exit 77; }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# 40 families of 1-4 pages, copies differing in 1-3 words; every fifth
# family also has its page inside a site template (40% more words).
mkdir "$t/site" "$t/templates" "$t/log"
python3 - "$t/site" <<'EOF'
import random, sys
r = random.Random(5)
vocab = ["w%sa" % "".join(chr(97 + int(c)) for c in "%04d" % i) for i in range(3000)]
for fam in range(40):
    base = [r.choice(vocab) for _ in range(150 + fam % 5 * 20)]
    for c in range(1 + fam % 4):
        w = list(base)
        for _ in range(c):
            w[r.randrange(len(w))] = r.choice(vocab)
        open("%s/f%d-%d.html" % (sys.argv[1], fam, c), "w").write(
            "<html><head><title>page %d %d</title></head><body><p>%s</p></body></html>" % (fam, c, " ".join(w)))
    if fam % 5 == 0:
        frame = " ".join("site%03d" % ((i * 7) % 90) for i in range(30))
        open("%s/t%d.html" % (sys.argv[1], fam), "w").write(
            "<html><head><title>mirror %d</title></head><body><p>%s %s %s</p></body></html>"
            % (fam, frame, " ".join(base), frame))
EOF
omindex --db "$t/db" --url / "$t/site" > "$t/omindex.log" 2>&1 || fail "omindex: $(tail -3 "$t/omindex.log")"
"$nd" build --db "$t/db" --store "$t/st" > /dev/null 2>&1 || fail "build"
"$nd" sign --db "$t/db" --store "$t/st" --value-slot 20 > /dev/null || fail "sign"
"$nd" clusters --db "$t/db" --store "$t/st" --point copy --json > "$t/groups.json" || fail "clusters --point copy"
python3 - "$t/groups.json" <<'EOF' || fail "templated copies are not in their families' clusters"
import json, sys
groups = json.load(open(sys.argv[1]))["clusters"]
with_mirror = [g for g in groups if any(d["id"].startswith("/t") for d in g["documents"])]
assert len(with_mirror) == 8, [[d["id"] for d in g["documents"]] for g in with_mirror]
EOF

# A template that lists docid and collapse count, one hit a line.
printf '$hitlist{$id $collapsed\n}' > "$t/templates/nd"
printf 'database_dir %s\ntemplate_dir %s\nlog_dir %s\n' "$t" "$t/templates" "$t/log" > "$t/omega.conf"
om() { OMEGA_CONFIG_FILE="$t/omega.conf" "$omega" DB=db FMT=nd HITSPERPAGE=1000 "$@" | sed '1,/^\r\{0,1\}$/d'; }

n=0
for q in waaaba waaaca waabaa wabaaa waaeca wafaaa; do
	om "P=$q" > "$t/all"
	om "P=$q" COLLAPSE=20 > "$t/folded"
	"$nd" search --db "$t/db" --store "$t/st" --collapse native --limit 1000 --json "$q" > "$t/native.json"
	python3 - "$t/groups.json" "$t/all" "$t/folded" "$t/native.json" "$q" <<'EOF' || fail "query $q"
import json, sys
groups, allf, foldedf, nativef, q = sys.argv[1:6]
group = {}
for i, c in enumerate(json.load(open(groups))["clusters"]):
    for m in c["documents"]:
        group[m["docid"]] = ("cluster", i)
ranked = [int(l.split()[0]) for l in open(allf) if l.strip()]
folded = [tuple(map(int, l.split())) for l in open(foldedf) if l.strip()]
want, seen = [], {}
for d in ranked:
    g = group.get(d, d)
    if g in seen:
        seen[g][1] += 1
    else:
        seen[g] = [d, 0]
        want.append(seen[g])
want = [tuple(x) for x in want]
assert folded == want, (q, "omega", folded, "neardup's groups", want)
native = [(h["docid"], h["collapsed"]) for h in json.load(open(nativef))["results"]]
assert sorted(native) == sorted(want), (q, "search --collapse native", native, want)
print(q, len(ranked), "hits,", len(folded), "after folding")
EOF
	[ "$(wc -l < "$t/all")" -gt "$(wc -l < "$t/folded")" ] && n=$((n + 1))
done
[ "$n" -ge 3 ] || fail "only $n queries folded anything"
echo "omega: COLLAPSE=20 folds exactly neardup's clusters ($n queries folded)"
