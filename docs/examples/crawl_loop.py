import sys
import xapian
import neardup

db_path, store_path, *pages = sys.argv[1:]
with neardup.Neardup(db_path, store_path, writable=True) as nd:
    tg = xapian.TermGenerator()
    for path in pages:
        text = open(path, encoding="utf-8").read()                 # fetch
        seen = [d for d in nd.check(text) if d.duplicate]          # before indexing
        db = xapian.WritableDatabase(db_path, xapian.DB_OPEN)      # index, commit
        doc = xapian.Document()
        tg.set_document(doc)
        tg.index_text(text)
        doc.add_boolean_term("Q" + path)
        docid = db.replace_document("Q" + path, doc)
        db.commit()
        db.close()                   # a store with a collapse slot writes it itself
        change = nd.changed(docid)                                 # sign; its duplicates
        print("%s: docid %d, %d duplicates (%d seen before indexing)"
              % (path.rsplit("/", 1)[-1], docid, len(change.duplicates), len(seen)))
    for hit in nd.search("lzma compression library", limit=3):  # duplicates folded
        print(hit.docid, hit.uid, hit.collapsed)
