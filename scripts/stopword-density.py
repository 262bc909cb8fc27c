import os,re,glob,html,sys
sw=set(w.strip() for w in open('indexer/stopwords/english.txt') if w.strip())
def dens(p):
    w=re.findall(r"[a-z0-9']+",p.lower()); return sum(x in sw for x in w)/len(w) if w else 0
R=[];B=[]
root='/work/shared/data/reuters21578/sgm-data'
for name in sorted(os.listdir(root)):
    if not name.endswith('.sgm'): continue
    s=open(os.path.join(root,name),encoding='latin-1').read()
    for b in re.findall(r'<BODY>(.*?)</BODY>',s,re.S):
        for p in re.split(r'\n\s{2,}',html.unescape(b)):
            p=' '.join(p.split())
            if len(p)>=70: R.append(dens(p))
root='/work/shared/data/bbc-news/bbc'
for cat in sorted(os.listdir(root)):
    for f in sorted(glob.glob(os.path.join(root,cat,'*.txt'))):
        for p in open(f,encoding='latin-1').read().split('\n')[1:]:
            if len(p)>=70: B.append(dens(p))
for name,d in (('reuters',R),('bbc',B)):
    d.sort(); n=len(d)
    for t in (0.18,0.20,0.22,0.25,0.30,0.32):
        import bisect
        print(name, n, t, 'below: %.3f' % (bisect.bisect_left(d,t)/n))
