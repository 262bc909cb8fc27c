import sys
import neardup

db, store, pages = sys.argv[1], sys.argv[2], sys.argv[3:]
with neardup.Neardup(db, store) as nd:
    for path in pages:
        text = open(path).read()
        dups = [d for d in nd.check(text) if d.duplicate]
        print("%s: %d duplicates %s" % (path, len(dups), sorted(d.uid for d in dups)))
