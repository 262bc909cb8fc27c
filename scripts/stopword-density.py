"""Share of prose paragraphs (70+ characters) below each stopword density.

usage: stopword-density.py
           English on Reuters-21578 and BBC News ($ND_DATA or ../shared/data)
       stopword-density.py LIST NEARDUP DIR [MIN_NON_ASCII]
           the lines `NEARDUP text --content full` shows of DIR's *.html
           read with indexer/stopwords/LIST.txt; with MIN_NON_ASCII, only
           lines over that share of non-ASCII characters (the language's
           own, not a translation's English left in)"""
import bisect, glob, html, os, re, subprocess, sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.environ.get("ND_DATA", os.path.join(HERE, "..", "shared", "data"))


def load(name):
    path = os.path.join(HERE, "indexer", "stopwords", name + ".txt")
    if not os.path.exists(path):
        sys.exit("%s: no such stopword list" % path)
    with open(path, encoding="utf-8") as f:
        words = (line.strip() for line in f)
        return set(w.lower() for w in words if w and w[0] not in "#|")  # as embed-stopwords.py reads them


def dens(p, sw, word=r"\w+"):
    w = re.findall(word, p.lower())
    return sum(x in sw for x in w) / len(w) if w else 0


def report(name, d):
    d.sort()
    for t in (0.18, 0.20, 0.22, 0.25, 0.30, 0.32):
        print(name, len(d), t, 'below: %.3f' % (bisect.bisect_left(d, t) / len(d) if d else 0))


ENGLISH = r"[a-z0-9']+"  # as the figures in indexer/boilerplate.c were read


def data_dir(*parts):
    root = os.path.join(DATA, *parts)
    if not os.path.isdir(root):
        sys.exit("%s: no such directory (set ND_DATA to the shared data directory)" % root)
    return root


def news():
    sw = load("english")
    R, B = [], []
    root = data_dir('reuters21578', 'sgm-data')
    for name in sorted(os.listdir(root)):
        if not name.endswith('.sgm'):
            continue
        s = open(os.path.join(root, name), encoding='latin-1').read()
        for b in re.findall(r'<BODY>(.*?)</BODY>', s, re.S):
            for p in re.split(r'\n\s{2,}', html.unescape(b)):
                p = ' '.join(p.split())
                if len(p) >= 70:
                    R.append(dens(p, sw, ENGLISH))
    root = data_dir('bbc-news', 'bbc')
    for cat in sorted(os.listdir(root)):
        for f in sorted(glob.glob(os.path.join(root, cat, '*.txt'))):
            for p in open(f, encoding='latin-1').read().split('\n')[1:]:
                if len(p) >= 70:
                    B.append(dens(p, sw, ENGLISH))
    report('reuters', R)
    report('bbc', B)


def pages(lst, neardup, d, min_non_ascii):
    sw, out = load(lst), []
    files = sorted(glob.glob(os.path.join(d, '*.html')))
    if not files:
        sys.exit("%s: no *.html pages" % d)
    for f in files:
        run = subprocess.run([neardup, 'text', '--content', 'full', f], capture_output=True, text=True)
        if run.returncode:
            sys.exit("%s text %s: %s" % (neardup, f, run.stderr.strip()))
        for p in run.stdout.split('\n'):
            if len(p) >= 70 and sum(ord(c) > 127 for c in p) > min_non_ascii * len(p):
                out.append(dens(p, sw))
    report(lst, out)


if __name__ == '__main__':
    if len(sys.argv) == 1:
        news()
    elif len(sys.argv) in (4, 5):
        pages(sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]) if len(sys.argv) == 5 else -1)
    else:
        sys.exit(__doc__)
