#!/bin/sh
# A scriptindex database (Xapian's own indexer for records, with an index
# script) and the checks of app_lib.sh: copy clusters are the families of
# copied records, the check of an edited text finds its record, search
# counts what quest counts, a record re-indexed with other text is
# replaced, and the compacted database has the same clusters.
#   scriptindex.sh NEARDUP
set -eu
nd=$1 app=scriptindex
. "$(dirname "$0")/app_lib.sh"
app_need scriptindex quest xapian-compact -- apt-get install xapian-tools
app_corpus records
printf 'id : unique=Q boolean=Q\ntitle : field index=S\ntext : index field\n' > "$t/script"
scriptindex "$t/db" "$t/script" "$t/data" > /dev/null 2>&1 || fail "scriptindex"
app_sign "$t/db"
app_families "f%d.%d"
app_check "f4.0"
app_count "" "-s none" waaada
scriptindex "$t/db" "$t/script" "$t/again" > /dev/null 2>&1 || fail "scriptindex again"
app_replaced
app_compacted
echo "scriptindex: families clustered; check, search, a replaced record, compaction"
