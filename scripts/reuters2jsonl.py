#!/usr/bin/env python3
"""Convert Reuters-21578 SGML files (reut2-*.sgm) to neardup JSONL.

usage: scripts/reuters2jsonl.py SGM_DIR > reuters.jsonl
Each <REUTERS> record with a <BODY> becomes {"id": "NEWID", "title", "text"}.
The files are 7-bit ASCII apart from a few bytes; they are read as Latin-1.
"""
import html
import json
import pathlib
import re
import sys

REC = re.compile(r'<REUTERS[^>]*NEWID="(\d+)"[^>]*>(.*?)</REUTERS>', re.S)
TITLE = re.compile(r"<TITLE>(.*?)</TITLE>", re.S)
BODY = re.compile(r"<BODY>(.*?)</BODY>", re.S)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    n = 0
    for f in sorted(pathlib.Path(sys.argv[1]).glob("reut2-*.sgm")):
        for newid, rec in REC.findall(f.read_text(encoding="latin-1")):
            body = BODY.search(rec)
            if not body:
                continue
            title = TITLE.search(rec)
            out = {"id": newid, "text": html.unescape(body.group(1)).replace("\x03", "").strip()}
            if title:
                out["title"] = html.unescape(title.group(1)).strip()
            print(json.dumps(out, ensure_ascii=False))
            n += 1
    print(f"{n} records", file=sys.stderr)


if __name__ == "__main__":
    main()
