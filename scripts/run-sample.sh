#!/bin/sh
# The main job on the bundled sample corpus: index it, choose the
# descriptive set, sign every document (collapse ids in value slot 20),
# list the largest clusters, run a collapsed search.
set -eu
build=${1:-build}
nd="$build/tools/neardup"
dir="$build/sample"
[ -d "$dir/corpus" ] || sh scripts/sample-corpus.sh "$dir/corpus"
rm -rf "$dir/db" "$dir/store"
echo "== neardup index --db $dir/db $dir/corpus"
"$nd" index --quiet --db "$dir/db" "$dir/corpus"
echo "== neardup build --db $dir/db --store $dir/store"
"$nd" build --db "$dir/db" --store "$dir/store"
echo "== neardup sign --db $dir/db --store $dir/store --value-slot 20"
"$nd" sign --db "$dir/db" --store "$dir/store" --value-slot 20
echo "== neardup clusters --store $dir/store --db $dir/db --limit 5"
"$nd" clusters --store "$dir/store" --db "$dir/db" --limit 5
echo "== neardup search --db $dir/db --store $dir/store --limit 5 gnu general public license"
"$nd" search --db "$dir/db" --store "$dir/store" --limit 5 gnu general public license
