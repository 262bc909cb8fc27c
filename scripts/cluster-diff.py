#!/usr/bin/env python3
"""Check candidate clusters against their texts, for eyeballing before the
cross-check exists.

usage: neardup clusters --store S --db D --json > c.json
       scripts/cluster-diff.py dir  c.json CORPUS_DIR [N]     # ids are file paths
       scripts/cluster-diff.py jsonl c.json CORPUS.jsonl [N]  # ids are JSONL ids

Compares each member with the cluster's first document: identical after
whitespace folding, or the word-level difference (1 - matched/longer, from
difflib; close to normalized Levenshtein), bucketed at 8% and 30%.
"""
import json, sys, difflib, re, itertools
import json, sys, difflib, re, itertools
kind, clusters, root = sys.argv[1], json.load(open(sys.argv[2])), sys.argv[3]
if kind == 'jsonl':
    texts = {}
    for line in open(root):
        r = json.loads(line); texts[r['id']] = r['text']
    get = lambda i: texts[i]
else:
    get = lambda i: open(f"{root}/{i}", encoding='latin-1').read()
def words(t): return re.findall(r"\w+", t.lower())
def ndiff(a, b):
    # normalized word Levenshtein via difflib opcodes (approximation: edits = max(len) - matched)
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    m = sum(bl.size for bl in sm.get_matching_blocks())
    return (max(len(a), len(b)) - m) / max(len(a), len(b), 1)
exact = near8 = near30 = far = 0
rows = []
for c in clusters['clusters']:
    ids = [d['id'] for d in c['documents']]
    ws = {i: words(get(i)) for i in ids}
    rep = ids[0]
    ds = [ndiff(ws[rep], ws[i]) for i in ids[1:]]
    for i, dd in zip(ids[1:], ds):
        if ' '.join(get(rep).split()) == ' '.join(get(i).split()): exact += 1
        elif dd <= 0.08: near8 += 1
        elif dd <= 0.30: near30 += 1
        else: far += 1
    rows.append((c['size'], max(ds), ids[:3], [len(ws[i]) for i in ids[:3]]))
print(f"{kind}: {len(clusters['clusters'])} clusters; member-vs-first pairs: {exact} identical, {near8} within 8%, {near30} 8-30%, {far} over 30%")
for r in rows[:int(sys.argv[4])]:
    print(f"  size {r[0]:3d} max diff {r[1]:.3f}  {r[2]} words {r[3]}")
