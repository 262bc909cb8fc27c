#!/bin/sh
# Build the bundled sample corpus from text every Debian system has: each
# package's /usr/share/doc/PKG/copyright file (heavily near-duplicated
# licence boilerplate: GPL, BSD and Apache texts pasted with small changes)
# and the licence texts in /usr/share/common-licenses.  Nothing is copied
# into the repository; the corpus is made at set-up time.
# usage: scripts/sample-corpus.sh OUTDIR
set -eu
out=${1:?usage: $0 OUTDIR}
mkdir -p "$out/copyright" "$out/common-licenses"
n=0
for f in /usr/share/doc/*/copyright; do
	[ -f "$f" ] || continue
	pkg=$(basename "$(dirname "$f")")
	cp "$f" "$out/copyright/$pkg.txt"
	n=$((n + 1))
done
for f in /usr/share/common-licenses/*; do
	[ -f "$f" ] && [ ! -L "$f" ] || continue
	cp "$f" "$out/common-licenses/$(basename "$f").txt"
	n=$((n + 1))
done
echo "sample corpus: $n files in $out" >&2
