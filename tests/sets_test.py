#!/usr/bin/env python3
"""The labeled-set scripts end to end, small: eval/sets/make.py makes the
site, smallsites, pairsites, recrawl, notfound, redesign, versions, family and short sets at a fifth
of their size (templated pages; text pages of small sites, each with its URL, and
of sites of two or three pages; two releases of API references; one text copied into the copyright files
many times; texts of 1-5 words), and eval/sets/measure.py scores
neardup's copy clusters on them, `check` pair by pair on the site sets,
and smallsites again as a mirror's
files laid out as host/path, the site read from the directory, and
smallsites, pairsites and recrawl as flat text files, the site read
from the pages' frame (pairsites and recrawl, of sites of two or three
pages, R 0.83-0.86 at this size while a frame site needed three pages
whatever stood between their frames, 1.000 since with news, 0.963 and
0.968 with docstring prose).  Each
must keep precision and recall at 0.95 or more: the hard negatives
(pages of one template, distinct copyright files sharing licence text)
stay apart, and every copy is found.  A clean clone has no news
(../shared/data): the site sets' articles are then sentences of the
docstrings of Python's standard library, each in one article, and the
figures are as with news (with licence sentences, which many documents
hold, a copy was missed now and then and the bars were looser).  On
smallsites only the pages' sites tell the templates (1.000 at this
size; without hosts 0.58 and 0.48).  The fillings set is made at
full size (1,671 documents) and scored by clusters and by `check`: two
fillings of one template are no copies, though their shingles agree as
much as an edited version's, and every near-copy is found.  It is made
at a fifth of its size too (about 370 documents, a descriptive set that
holds the templates' own words, so only their own text tells them) and
scored by clusters.  edited is made at full size too (about 2,000
documents): texts copied 20, 60 and 200 times, each copy with 0.5-2% of
its words replaced in places of its own, inside the copyright files
(news when ../shared/data holds it); each family must be one cluster,
though its copies are many groups of near-identical text, their shared
text therefore common (recall 0.29, with news 0.50, before a kin of
many groups was counted as one).  oldsites is made too: pages of small sites without
landmarks, marked content or URLs, whose template prose extraction
keeps.  Its recall need only reach 0.9 (0.96-1.00 at this size):
a copy is missed where a site has too few pages to tell the template's
prose that extraction kept.  pairsites holds two or three pages a site,
as a set of judged page pairs does, the template two thirds of each
page: what two distinct pages of one host share is its template, and a
print version is a version of its page, and a template's rotating
teasers are its template, those no other page shows too, by where they
stand (1.000 at this size; 1.000 and 0.963 while
those were a page's own text, 0.83 and 0.78 while a template was half a
site's pages and unseen above its long pages' samples, 0.37 and 0.11
when the host's template needed three pages).  recrawl's sites have
pages crawled again under another address, teasers and time of update
changed, sometimes readers' comments below: a version of its page (plain
resemblance 0.61 or more), whose article is no template (1.000 at
this size; 0.943 with versions from 0.8).
notfound's sites each have a page that is their template and a line of
its own, which every page of its site holds: it must not make them one
page (before, P 0.744 and R 0.914 at this size, `check` 0.825 and
0.943).  redesign's pages are crawled again after their site's redesign:
the same article on the same host in another template is its copy, not
the template, even alone under the new template, which no other page
shows (1.000 at this size, `check` 1.000; 0.90 and 0.92, `check` 0.90 and
0.87, while the old page's rotating teasers counted against a
containment; 0.71 and 0.74 while containment was of
the text with fewer shingles and asked for every value, 0.48 and 0.44
while the host's pages counted its template together whatever their
frames).  versions holds two releases of real API references (clang's,
cairomm's; scripts/setup.sh installs them), real edits between a page
and its namesake: its indexes by letter and member lists mark no main
content but Doxygen's div.contents and hold a line of prose above their
lists of links, the same on every such page, so that line alone made
them one text (P 0.32 at this size before such a page was kept whole;
1.000 / 1.000 now, 0.991 / 1.000 with glibmm's and pangomm's too).  eval/sets/renames.py's rule is checked on
two pages of one template about two commands, and on an edited version.

    sets_test.py SOURCE_DIR NEARDUP
    sets_test.py SOURCE_DIR NEARDUP --short SCALE

With --short (the slow suite: 10, 200,000 texts of 1-5 words), only
the short set at that scale, every
group of exact copies one cluster and nothing else in it (P and R 1).
At 200,000, texts of one shingle that shared one of 65,536 text keys
split 334 of 14,076 groups (R 0.989) before an empty MinHash bin's key
was mixed.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

SETS = ("site", "smallsites", "pairsites", "recrawl", "notfound", "redesign", "oldsites", "versions", "family",
        "short")
CHECKED = ("site", "smallsites", "pairsites", "recrawl", "notfound", "redesign", "oldsites", "versions")
FULL = ("fillings",)  # made at --scale 1
# Made at --scale 1, scored by clusters only: `check` reports 8 copies of
# a family of 200.
WHOLE = ("edited",)
RECALL = {"oldsites": 0.9}  # else 0.95
# Measured again as flat text files (measure.py --mirror flat).
FLAT = ("smallsites", "pairsites", "recrawl")


def measure(src, nd, tmp, what, args, names):
    """measure.py's rows (--json) for names, or the test fails naming what."""
    p = subprocess.run([sys.executable, os.path.join(src, "eval", "sets", "measure.py"), "--neardup", nd,
                        "--sets", tmp, "--points", "copy", "--json"] + args + list(names),
                       capture_output=True, text=True)
    if p.returncode:
        sys.exit("FAIL: measure.py %s: %s" % (what, (p.stdout + p.stderr)[-2000:]))
    return [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]


def check_renames(src):
    """Two pages of one template about two commands are a rename; a version
    with a word edited in two places, or with one name kept, is not."""
    sys.path.insert(0, os.path.join(src, "eval", "sets"))
    from renames import rename
    page = ("NAME %s - show the ids SYNOPSIS %s [options] DESCRIPTION %s reads the file "
            "and prints each range it holds FILES etc %s").split()
    a, b = [w % "subgid" if "%" in w else w for w in page], [w % "subuid" if "%" in w else w for w in page]
    got = [rename(a, b, 2), rename(a, b, 5)]
    edited = [("lists" if w == "prints" else "range" if w == "file" else w) for w in a]
    kept = b + ["subgid"]
    got += [rename(a, edited, 2), rename(a, kept, 2)]
    want = [("subgid", "subuid", 4), None, None, None]
    if got != want:
        sys.exit("FAIL: renames.py's rule gave %s, not %s" % (got, want))


def check_one_text(src):
    """Pages each alike enough with a third to be one text under two names
    are one text under three, though the two are further apart; a pair
    alone stays a pair."""
    sys.path.insert(0, os.path.join(src, "eval", "sets"))
    from make import one_text
    got = sorted(one_text([("iso-1", "iso-15"), ("iso-1", "iso-9"), ("ls", "dir")]))
    want = [("dir", "ls"), ("iso-1", "iso-15"), ("iso-1", "iso-9"), ("iso-15", "iso-9")]
    if got != want:
        sys.exit("FAIL: make.py's one_text gave %s, not %s" % (got, want))


def check_edit_rate(src):
    """--edit-rate edits a near-copy at that rate in place of the drawn 1-5%."""
    sys.path.insert(0, os.path.join(src, "eval", "sets"))
    import random
    import make
    text = " ".join("w%d" % i for i in range(1000)) + "\nfooter 1.0 2024\n"
    pool = ["x%d" % i for i in range(50)]
    got = {}
    for rate in (None, 0.2):
        make.EDIT_RATE = rate
        got[rate] = make.word_distance(text.split(), make.release(text, random.Random(5), pool).split())
    make.EDIT_RATE = None
    if not (got[None] <= 0.06 and got[0.2] >= 0.15):
        sys.exit("FAIL: make.py --edit-rate: word distances %s" % got)


def check_copy_cluster(src):
    """A release with a few words edited is its page's copy; one that kept
    under half of its page's words is another document."""
    sys.path.insert(0, os.path.join(src, "eval", "sets"))
    from make import copy_cluster
    page = " ".join("w%d" % i for i in range(100))
    edited = page.replace("w5 ", "x5 ").replace("w50 ", "x50 ")
    cut = " ".join("w%d" % i for i in range(40))
    got = [copy_cluster("p", "p~1", page, edited), copy_cluster("p", "p~2", page, cut)]
    if got != ["p", "p~2"]:
        sys.exit("FAIL: make.py's copy_cluster gave %s, not ['p', 'p~2']" % got)


def check_repeated_block(src):
    """A long page that shows one block twice, copied with every 40th word
    edited but one showing of the block: difflib matches that showing to
    the other first and reads the copy 0.74 apart; the truth's distance
    reads what was edited."""
    sys.path.insert(0, os.path.join(src, "eval", "sets"))
    import random
    import make
    rng = random.Random(5)
    words = lambda n: ["w%d" % rng.randrange(3000) for _ in range(n)]
    block = words(300)
    page = words(1000) + block + words(1000) + block + words(1000)
    copy = list(page)
    for i in [i for i in range(0, len(copy), 40) if not 2300 <= i < 2600] + [2299, 2600]:
        copy[i] = "edited"
    got = make.word_distance(page, copy)
    if not 0.02 <= got <= 0.03:
        sys.exit("FAIL: make.py's word_distance of a copy 2.3%% edited: %.3f" % got)


def check_missing_text(src):
    """A set whose text the machine lacks is named, with what it needs, and
    the other sets asked for are made all the same; the exit says how many
    were not."""
    sys.path.insert(0, os.path.join(src, "eval", "sets"))
    import make
    tmp = tempfile.mkdtemp(prefix="nd-sets-")
    made = []

    def lacking(out, seed, scale):
        sys.exit("man-xx: only 0 man pages under /usr/share/man/xx (apt-get install manpages-xx)")

    saved, argv = dict(make.MAKERS), sys.argv
    try:
        make.MAKERS.clear()
        make.MAKERS.update({"one": lambda out, seed, scale: made.append(out), "man-xx": lacking,
                            "two": lambda out, seed, scale: made.append(out)})
        sys.argv = ["make.py", "--out", tmp, "all"]
        try:
            make.main()
            sys.exit("FAIL: make.py all with a set not made exited 0")
        except SystemExit as e:
            msg = e.code
        if [os.path.basename(m) for m in made] != ["one", "two"] or not isinstance(msg, str) \
                or "1 of 3 sets not made (man-xx)" not in msg:
            sys.exit("FAIL: make.py all with a set not made: made %s, exit %r" % (made, msg))
    finally:
        make.MAKERS.clear()
        make.MAKERS.update(saved)
        sys.argv = argv
        shutil.rmtree(tmp, ignore_errors=True)


def check_unnavigated(src):
    """A method's page and its virtual function's: one text beside two
    sidebars (<nav>, a role="navigation" list), which visible words count
    and the text less its navigation does not; an aside nested in the
    article goes, the article's own nested sections stay."""
    sys.path.insert(0, os.path.join(src, "eval", "sets"))
    from make import norm_words, unnavigated_words, visible_words
    body = "<main><h1>draw_trapezoid</h1><section><p>Draws a trapezoid.<br>Since 1.8</p></section>" \
           "<aside><p>See also draw_glyphs</p></aside><p>Parameters: y1, x11</p></main>"
    method = "<html><body><nav class=sidebar><ul><li>activate<li>deactivate</ul></nav>%s</body></html>" % body
    vfunc = "<html><body><div role=\"navigation\"><ul><li>begin<li>end</ul></div>%s</body></html>" % body
    got = [norm_words(unnavigated_words(method)), norm_words(unnavigated_words(vfunc))]
    want = "draw_trapezoid draws a trapezoid since 1 8 parameters y1 x11".split()
    if got != [want, want] or norm_words(visible_words(method)) == norm_words(visible_words(vfunc)):
        sys.exit("FAIL: make.py's unnavigated_words gave %s" % got)


def check_guide_pages(src):
    """A guide whose languages are directories a * matches (maint-guide,
    maint-guide-ja, ...) is one site: each page keeps its own name below
    the * (a copy on a mirror does not overwrite it), and its translations
    of one page are hard negatives unless one left the other's text as it
    was."""
    sys.path.insert(0, os.path.join(src, "eval", "sets"))
    import make
    tmp = tempfile.mkdtemp(prefix="nd-guides-")
    prose = {"en": "the package maintainer uploads the source to the archive after every fix that a user reports",
             "de": "der Betreuer des Pakets laedt die Quellen nach jeder gemeldeten Korrektur ins Archiv hoch",
             "ja": "the package maintainer uploads the source to the archive after every fix that a user reports"}
    # Japanese that left half of its page in English: neither one text nor distinct.
    half = {"ja": " ".join(["パッケージ 保守者 修正 ソース 報告"] * 4)}
    try:
        for lang, text in prose.items():
            d = os.path.join(tmp, "guide" + ("" if lang == "en" else "-" + lang), "html")
            os.makedirs(d)
            for page in ("upload", "build"):
                with open(os.path.join(d, "%s.%s.html" % (page, lang)), "w") as f:
                    f.write("<html><body><h1>%s %s</h1><p>%s</p><p>%s</p></body></html>"
                            % (page, lang, " ".join([text] * 4), half.get(lang, " ".join([text] * 4))))
        other = os.path.join(tmp, "other")
        os.makedirs(other)
        with open(os.path.join(other, "index.html"), "w") as f:
            f.write("<html><body><p>another site</p></body></html>")
        sites = [("g.example.org", "guide", os.path.join(tmp, "guide*", "html")), ("o.example.org", "other", other)]
        out = os.path.join(tmp, "set")
        make.make_docsites(out, 1, 1.0, sites, "guides", make.GUIDE_LANG)
        names = [line.split("\t")[0] for line in open(os.path.join(out, "truth.tsv"))]
        files = [os.path.relpath(os.path.join(r, f), os.path.join(out, "html"))
                 for r, _, fs in os.walk(os.path.join(out, "html")) for f in fs]
        skipped = {tuple(sorted(line.rstrip("\n").split("\t"))) for line in open(os.path.join(out, "ignore.tsv"))}
        if sorted(names) != sorted(files) or any(".." in n for n in names) \
                or "g.example.org/guide-ja/html/upload.ja.html" not in names:
            sys.exit("FAIL: guides' pages named %s, written %s" % (sorted(names), sorted(files)))
        en, de, ja = ("g.example.org/guide%s/html/upload.%s.html" % (d, l)
                      for d, l in (("", "en"), ("-de", "de"), ("-ja", "ja")))
        if tuple(sorted((en, ja))) not in skipped or tuple(sorted((en, de))) in skipped:
            sys.exit("FAIL: guides' translations left out of the score: %s" % sorted(skipped))
        # Another set of the same sites groups no translations it was not asked to.
        make.make_docsites(os.path.join(tmp, "plain"), 1, 1.0, sites, "docsites")
        plain = {tuple(sorted(line.rstrip("\n").split("\t"))) for line in open(os.path.join(tmp, "plain", "ignore.tsv"))}
        if tuple(sorted((en, ja))) in plain:
            sys.exit("FAIL: docsites left guides' translations out of the score")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def check_table(src):
    """table.py gives each set and point its lowest P and R over the seeds,
    naming the seed where they differ, and mail its recall and clusters
    below Jaccard 0.3."""
    tmp = tempfile.mkdtemp(prefix="nd-table-")
    try:
        rows = {"7": [{"set": "a", "point": "copy", "P": 0.99, "R": 1.0},
                      {"set": "mail", "point": "copy", "P": 0.2, "R": 1.0, "clusters_below_jaccard_0.3": 0}],
                "11": [{"set": "a", "point": "copy", "P": 0.95, "R": 1.0},
                       {"set": "mail", "point": "copy", "P": 0.3, "R": 0.9, "clusters_below_jaccard_0.3": 2}]}
        files = []
        for seed, rs in rows.items():
            files.append(os.path.join(tmp, "seed%s.json" % seed))
            with open(files[-1], "w") as f:
                f.write("".join(json.dumps(r) + "\n" for r in rs))
        out = subprocess.run([sys.executable, os.path.join(src, "eval", "sets", "table.py")] + files,
                             capture_output=True, text=True).stdout.splitlines()
        want = ["| set | copy P / R |", "|---|---|", "| a | 0.950 (11) / 1.000 |",
                "| mail | R 0.900 (11), 2 below 0.3 |"]
        if out != want:
            sys.exit("FAIL: table.py gave %s, not %s" % (out, want))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def check_packages(src):
    """eval/sets/packages.sh installs every package make.py reads: each
    site list's package and each man language's manpages-* (a set whose
    package it forgot is made on one machine and not on another)."""
    sys.path.insert(0, os.path.join(src, "eval", "sets"))
    import make
    script = open(os.path.join(src, "eval", "sets", "packages.sh")).read()
    listed = set(re.search(r'pkgs="([^"]*)"', script).group(1).split())
    wanted = {p for sites in (make.DOC_SITES, make.HELD_OUT_SITES, make.OTHER_SITES, make.FOURTH_SITES,
                              make.GUIDE_SITES) for _, p, _ in sites}
    wanted |= {p for _, rel in make.DOC_RELEASES + make.HELD_OUT_RELEASES for _, p, _ in rel}
    # Debian 12 has no manpages-ko or a package of zh_TW's own: their pages
    # come with manpages-zh and other packages when at all.
    wanted |= {"manpages-" + lang for lang in make.LANGS.values() if lang and lang not in ("ko", "zh_CN", "zh_TW")}
    wanted |= {"manpages-zh"}
    # A site list names a manual's English package; the translations are
    # the same name with a language after it.
    for base in ("maint-guide", "developers-reference", "debian-faq", "debian-reference"):
        if not any(p.startswith(base + "-") for p in listed):
            sys.exit("FAIL: packages.sh installs no translation of %s" % base)
    missing = sorted(p for p in wanted - listed if p not in ("debian-reference",))
    if missing:
        sys.exit("FAIL: packages.sh does not install %s, which make.py reads" % " ".join(missing))


def check_errors(src):
    """measure.py --errors lists the pairs the scores count: a false pair
    (one cluster, two truth clusters; not one of ignore), and missed ones
    (one truth cluster, apart, a document in no cluster apart from all)."""
    sys.path.insert(0, os.path.join(src, "eval", "sets"))
    from measure import error_pairs
    clusters = [["a1", "a2", "b1"], ["c1"], ["d1", "d2"]]
    truth = {"a1": "A", "a2": "A", "a3": "A", "b1": "B", "c1": "C", "c2": "C", "d1": "0", "d2": "0"}
    got = [error_pairs(clusters, truth, [("a1", "b1")], n) for n in (5, 1)]
    want = [([["a2", "b1", 0]], [["a1", "a3", "A"], ["a2", "a3", "A"], ["c1", "c2", "C"]]),
            ([["a2", "b1", 0]], [["a1", "a3", "A"]])]
    if got != want:
        sys.exit("FAIL: measure.py's error pairs %s, not %s" % (got, want))
    # Only pairs with a2 (a set scored on pairs with some documents): the
    # first of A's missed pairs has none, the second has.
    got = error_pairs(clusters, truth, [], 1, only=lambda d: d == "a2")
    if got != ([["a2", "b1", 0]], [["a2", "a3", "A"]]):
        sys.exit("FAIL: measure.py's error pairs with only a2: %s" % (got,))


def short_only(src, nd, scale):
    tmp = tempfile.mkdtemp(prefix="nd-sets-")
    try:
        p = subprocess.run([sys.executable, os.path.join(src, "eval", "sets", "make.py"), "--out", tmp,
                            "--scale", scale, "short"], capture_output=True, text=True)
        if p.returncode:
            sys.exit("FAIL: make.py: %s" % (p.stdout + p.stderr)[-2000:])
        rows = measure(src, nd, tmp, "short", ["--errors", "5"], ["short"])
        if len(rows) != 1:
            sys.exit("FAIL: measure.py short measured %d rows" % len(rows))
        r = rows[0]
        print("sets: short x%s: %d documents, P %.4f R %.4f (%d of %d pairs)"
              % (scale, json.load(open(os.path.join(tmp, "short", "about.json")))["documents"], r["P"], r["R"],
                 r["predicted_pairs"], r["true_pairs"]))
        if r["P"] < 1 or r["R"] < 1:
            for what in ("false", "missed"):
                for x, y, where in r.get(what + "_pairs", []):
                    print("sets:   %s: %s %s (in %s)" % (what, x, y, where))
            sys.exit("FAIL: short x%s: a group of exact copies split, or joined to another" % scale)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    src, nd = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    if sys.argv[3:4] == ["--short"]:
        return short_only(src, nd, sys.argv[4])
    check_renames(src)
    check_one_text(src)
    check_edit_rate(src)
    check_copy_cluster(src)
    check_repeated_block(src)
    check_missing_text(src)
    check_unnavigated(src)
    check_guide_pages(src)
    check_table(src)
    check_errors(src)
    check_packages(src)
    tmp = tempfile.mkdtemp(prefix="nd-sets-")
    try:
        p = subprocess.run([sys.executable, os.path.join(src, "eval", "sets", "make.py"), "--out", tmp,
                            "--scale", "0.2"] + list(SETS), capture_output=True, text=True)
        if p.returncode:
            sys.exit("FAIL: make.py: %s" % (p.stdout + p.stderr)[-2000:])
        p = subprocess.run([sys.executable, os.path.join(src, "eval", "sets", "make.py"), "--out", tmp,
                            "--scale", "1"] + list(FULL + WHOLE), capture_output=True, text=True)
        if p.returncode:
            sys.exit("FAIL: make.py: %s" % (p.stdout + p.stderr)[-2000:])
        bars = {x: (0.95, RECALL.get(x, 0.95)) for x in SETS + FULL + WHOLE}
        sets, checked_sets = SETS, CHECKED
        small = os.path.join(tmp, "small")
        p = subprocess.run([sys.executable, os.path.join(src, "eval", "sets", "make.py"), "--out", small,
                            "--scale", "0.2"] + list(FULL), capture_output=True, text=True)
        if p.returncode:
            sys.exit("FAIL: make.py: %s" % (p.stdout + p.stderr)[-2000:])
        rows = measure(src, nd, tmp, "", ["--errors", "5"], sets + FULL + WHOLE)
        smaller = [dict(r, point="copy-x0.2") for r in measure(src, nd, small, "(a fifth)", [], FULL)]
        if len(smaller) != len(FULL):
            sys.exit("FAIL: measure.py at a fifth measured %d rows" % len(smaller))
        checked = measure(src, nd, tmp, "--check", ["--no-sign", "--check"], checked_sets + FULL)
        # The same pages as a mirror's files (HOST/ID.txt), no URL given.
        mirrored = [dict(r, point="mirror-copy") for r in
                    measure(src, nd, tmp, "--mirror", ["--mirror", "dirs"], ["smallsites"])]
        # As text files in one directory: no site given, the frame tells it,
        # on sites of two pages too when their own text stands between it.
        mirrored += [dict(r, point="flat-copy") for r in
                     measure(src, nd, tmp, "--mirror flat", ["--mirror", "flat"], FLAT)]
        if len(mirrored) != 1 + len(FLAT):
            sys.exit("FAIL: measure.py --mirror measured %d rows" % len(mirrored))
        checked += mirrored + smaller
        failed = []
        for r in rows + checked:
            print("sets: %-10s %-10s P %.3f R %.3f" % (r["set"], r["point"], r["P"], r["R"]))
            p, r_ = bars[r["set"]]
            if not (r["P"] >= p and r["R"] >= r_):
                failed.append("%s %s (wanted P %.2f, R %.2f)" % (r["set"], r["point"], p, r_))
                for what in ("false", "missed"):
                    for x, y, where in r.get(what + "_pairs", []):
                        print("sets:   %s: %s %s (in %s)" % (what, x, y, where))
        if sorted(r["set"] for r in rows) != sorted(sets + FULL + WHOLE) or \
                sorted(r["set"] for r in checked) != sorted(checked_sets + FULL + ("smallsites",) + FLAT + FULL):
            sys.exit("FAIL: measured %s, wanted %s" % ([r["set"] for r in rows + checked],
                                                       sets + FULL + WHOLE + checked_sets + FULL))
        print("sets: the site sets' articles: %s"
              % json.load(open(os.path.join(tmp, "pairsites", "about.json"))).get("articles", "news"))
        if failed:
            sys.exit("FAIL: precision or recall below its bar on %s" % ", ".join(failed))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
