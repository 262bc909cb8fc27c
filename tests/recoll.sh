#!/bin/sh
# A Recoll index of a directory of files (recollindex, Debian's recollcmd)
# and the checks of app_lib.sh: copy clusters are the families named by
# their paths, the check of an edited text finds its file, search counts
# what quest counts, a changed file is replaced, and the compacted
# database has the same clusters.
#   recoll.sh NEARDUP
set -eu
nd=$1 app=recoll
. "$(dirname "$0")/app_lib.sh"
app_need recollindex quest xapian-compact -- apt-get install recollcmd xapian-tools
app_corpus files
mkdir -p "$t/conf"
printf 'topdirs = %s/docs\n' "$t" > "$t/conf/recoll.conf"
recollindex -c "$t/conf" > "$t/log" 2>&1 || fail "recollindex: $(tail -3 "$t/log")"
app_sign "$t/conf/xapiandb"
app_families "$t/docs/f%d.%d.txt"
app_check "$t/docs/f4.0.txt"
app_count "" "-s none" waaada
echo "words added to this file" >> "$t/docs/f0.0.txt"
recollindex -c "$t/conf" > "$t/log" 2>&1 || fail "recollindex again"
app_replaced
app_compacted
echo "recoll: families clustered by path; check, search, update, compaction"
