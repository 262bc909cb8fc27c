#!/bin/sh
# A site's template on an omindex database: omindex writes each page's
# host (H) when its base URL has one, and its base URL (J) always, and
# sign counts text that the pages of one site hold as the site's
# template.  Three sites of 5 pages (a template as long as each article)
# and 12 other pages: only the article copied from one site onto another
# is a copy, in clusters and at crawl time, whether each site is indexed
# at https://SITE.example/ or at /SITE/; indexed as one site, the
# pages' frames (each template's first and last words) tell the three
# templates apart.  A site indexed later at /wiki/ and found by update is
# counted as sign counts it.
#   omindex_sites.sh NEARDUP
set -eu
nd=$1
command -v omindex > /dev/null || { echo "omindex-sites: no omindex (apt-get install xapian-omega)"; exit 77; }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

python3 - "$t/site" "$t" <<'PY'
import os, random, sys
r = random.Random(9)
vocab = ["w%sa" % "".join(chr(97 + int(c)) for c in "%03d" % i) for i in range(700)]
words = lambda n: " ".join(r.choice(vocab) for _ in range(n))
page = lambda title, *ps: "<html><head><title>%s</title></head><body>%s</body></html>" % (
    title, "".join("<p>%s</p>" % p for p in ps))
out, top = sys.argv[1], sys.argv[2]
arts = [words(120) for _ in range(40)]
tpl = {}
for k, site in enumerate(("shop", "news", "blog")):
    os.makedirs("%s/%s" % (out, site))
    tpl[site] = (words(60), words(60))
    for p in range(5):
        open("%s/%s/p%d.html" % (out, site, p), "w").write(page("%s %d" % (site, p), tpl[site][0],
                                                                arts[5 * k + p], tpl[site][1]))
copy = arts[0].split()
copy[7] = "wzzza"  # shop's first article, a word changed, in news's template
open("%s/news/copy.html" % out, "w").write(page("copy", tpl["news"][0], " ".join(copy), tpl["news"][1]))
os.makedirs("%s/other" % out)
for p in range(12):
    open("%s/other/o%d.html" % (out, p), "w").write(page("other %d" % p, arts[15 + p]))
# At crawl time: a new page of shop, and shop's second article in blog's template.
open("%s/new.txt" % top, "w").write("\n".join((tpl["shop"][0], arts[30], tpl["shop"][1])))
open("%s/moved.txt" % top, "w").write("\n".join((tpl["blog"][0], arts[1], tpl["blog"][1])))
# Indexed later: a site whose template is two thirds of each page, with
# shop's third article in it.
r = random.Random(11)
head, foot = words(120), words(120)
os.makedirs("%s/late/wiki" % top)
for p in range(5):
    open("%s/late/wiki/p%d.html" % (top, p), "w").write(page("wiki %d" % p, head, words(120), foot))
open("%s/late/wiki/copy.html" % top, "w").write(page("wiki copy", head, arts[2], foot))
PY

for v in host path one; do
	if [ $v = one ]; then
		omindex --db "$t/db_$v" --url / "$t/site" > "$t/omindex.log" 2>&1 ||
			fail "omindex: $(tail -3 "$t/omindex.log")"
	fi
	for s in shop news blog other; do
		[ $v != one ] || break
		if [ $v = host ]; then u=https://$s.example/; else u=/$s/; fi
		omindex -p --db "$t/db_$v" --url "$u" "$t/site/$s" > "$t/omindex.log" 2>&1 ||
			fail "omindex: $(tail -3 "$t/omindex.log")"
	done
	"$nd" build -q --db "$t/db_$v" --store "$t/st_$v" || fail "build ($v)"
	"$nd" sign -q --db "$t/db_$v" --store "$t/st_$v" || fail "sign ($v)"
	"$nd" clusters --db "$t/db_$v" --store "$t/st_$v" --point copy --json > "$t/clusters_$v.json" ||
		fail "clusters ($v)"
done
python3 - "$t/clusters_host.json" "$t/clusters_path.json" "$t/clusters_one.json" <<'PY' || fail "clusters"
import json, sys
ids = lambda f: sorted(sorted(d["id"] for d in c["documents"]) for c in json.load(open(f))["clusters"])
host, path, one = ids(sys.argv[1]), ids(sys.argv[2]), ids(sys.argv[3])
assert host == [["https://news.example/copy.html", "https://shop.example/p0.html"]], host
assert path == [["/news/copy.html", "/shop/p0.html"]], path
assert one == path, one  # one site, three frames: three templates
PY
for v in host path; do
	out=$("$nd" check --db "$t/db_$v" --store "$t/st_$v" "$t/new.txt" "$t/moved.txt") || fail "check"
	echo "$out" | grep -q "new.txt: .* 0 duplicates" || fail "$v: a new page of shop is a copy of its pages: $out"
	echo "$out" | grep -q "moved.txt: .* 1 duplicate" || fail "$v: shop's article in blog's template is no copy: $out"
done
# update, between two of the collection's counts, counts a site that
# came with a base URL and no host as sign does: its pages stay apart,
# and its copy of shop's article is a copy.
omindex -p --db "$t/db_path" --url /wiki/ "$t/late/wiki" > "$t/omindex.log" 2>&1 ||
	fail "omindex: $(tail -3 "$t/omindex.log")"
"$nd" update --db "$t/db_path" --store "$t/st_path" > "$t/update.out" || fail "update"
grep -q "6 added" "$t/update.out" && ! grep -q "counted again" "$t/update.out" ||
	fail "update: not 6 added between two counts: $(tail -1 "$t/update.out")"
"$nd" clusters --db "$t/db_path" --store "$t/st_path" --point copy --json > "$t/clusters_late.json" ||
	fail "clusters (late)"
python3 - "$t/clusters_late.json" <<'PY' || fail "clusters after update"
import json, sys
ids = sorted(sorted(d["id"] for d in c["documents"]) for c in json.load(open(sys.argv[1]))["clusters"])
assert ids == [["/news/copy.html", "/shop/p0.html"], ["/shop/p2.html", "/wiki/copy.html"]], ids
PY
echo "omindex-sites: the copy across sites found, the sites' templates no evidence, in sign and update"
