#!/bin/sh
# A notmuch database as its users have it: mail delivered to a Maildir and
# indexed by `notmuch new`, and the checks of app_lib.sh: copy clusters are
# the families with ids as notmuch writes them (id:...), the check of an
# edited body finds its mail, search with notmuch's subject prefix counts
# what quest counts, a reindexed mail is replaced, and the compacted
# database has the same clusters (also after `notmuch compact` of a
# database whose first mail was deleted); a feed window by notmuch's date
# slot.
#   notmuch.sh NEARDUP
set -eu
nd=$1 app=notmuch
. "$(dirname "$0")/app_lib.sh"
app_need notmuch quest xapian-compact xapian-delve -- apt-get install notmuch xapian-tools
app_corpus mail
printf '[database]\npath=%s/mail\n[new]\ntags=inbox;\n' "$t" > "$t/config"
# notmuch keeps a directory's mtime in slot 0 beside its mail's dates, but
# not an mtime of this very second: made an hour old, as a busy machine
# leaves it, the window's clock must still be the newest mail's.
touch -d '1 hour ago' "$t/mail" "$t/mail/cur" "$t/mail/new" "$t/mail/tmp"
NOTMUCH_CONFIG="$t/config" notmuch new > /dev/null 2>&1 || fail "notmuch new"
app_sign "$t/mail/.notmuch/xapian"
app_families "id:f%d.%d@example.org"
app_check "id:f4.0@example.org"
app_count "--prefix subject:XSUBJECT" "-p subject:XSUBJECT" "subject:family"
app_window 0 "id:f%d.%d@example.org"
echo "words added to this mail" >> "$t/mail/cur/m001:2,S"
NOTMUCH_CONFIG="$t/config" notmuch reindex "id:f0.0@example.org" > /dev/null 2>&1 || fail "notmuch reindex"
app_replaced
app_compacted
app_thread_mail
NOTMUCH_CONFIG="$t/config" notmuch new > /dev/null 2>&1 || fail "notmuch new (thread)"
app_thread "id:t%d@example.org"
# The first mail deleted (docid 1), then compacted: xapian-compact would
# move every docid down, which the store names; `notmuch compact` keeps
# them, and the store follows it as it was.
# notmuch adds a directory's mail in inode order, which is the files'
# order only when no other process freed inodes meanwhile: the mail of
# docid 1 is asked of the database.
mid=$(xapian-delve -r 1 -1 "$db" | sed -n 's/^Q//p')
first=$(NOTMUCH_CONFIG="$t/config" notmuch search --output=files "id:$mid")
[ -n "$mid" ] && [ -f "$first" ] || fail "the mail of docid 1: '$mid' in '$first'"
rm "$first"
NOTMUCH_CONFIG="$t/config" notmuch new > /dev/null 2>&1 || fail "notmuch new (deleted)"
"$nd" update --db "$db" --store "$t/st" > "$t/update.out" 2>&1 || fail "update: $(cat "$t/update.out")"
grep -q ", 1 deleted of" "$t/update.out" || fail "update after a deletion: $(cat "$t/update.out")"
"$nd" clusters --db "$db" --store "$t/st" --json > "$t/k1.json" 2> /dev/null
rm -rf "$t/db-r"
xapian-compact "$db" "$t/db-r" > /dev/null || fail "xapian-compact"
rc=0; "$nd" clusters --db "$t/db-r" --store "$t/st" > /dev/null 2> "$t/err" || rc=$?
[ "$rc" = 1 ] && grep -q "docids 1 lower" "$t/err" || fail "xapian-compact's renumbering: exit $rc: $(cat "$t/err")"
NOTMUCH_CONFIG="$t/config" notmuch compact > /dev/null 2>&1 || fail "notmuch compact"
"$nd" clusters --db "$db" --store "$t/st" --json > "$t/k2.json" 2> "$t/err" ||
	fail "clusters after notmuch compact: $(cat "$t/err")"
python3 -c 'import json, sys; a, b = (json.load(open(p))["clusters"] for p in sys.argv[1:]); assert a and a == b' \
	"$t/k1.json" "$t/k2.json" || fail "clusters differ after notmuch compact"
echo "notmuch: families clustered with id: ids; check, subject: search, reindex, compaction (notmuch's keeps docids); a reply is not its quote's copy"
