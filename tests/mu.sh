#!/bin/sh
# A mu database, whose words are all under B and ids under I: without
# --word-prefix, build finds no words and says what to try; with
# --word-prefix B --uid-prefix I (remembered in the store), the checks of
# app_lib.sh: copy clusters are the families with mu's message ids, the
# check of an edited body finds its mail, search counts what quest counts
# with B as the default prefix, a changed message is replaced, and the
# compacted database has the same clusters; a feed window by mu's date slot.
#   mu.sh NEARDUP
set -eu
nd=$1 app=mu
. "$(dirname "$0")/app_lib.sh"
app_need mu quest xapian-compact -- apt-get install maildir-utils xapian-tools
app_corpus mail
mkdir -p "$t/home"
HOME="$t/home" mu init --maildir="$t/mail" --muhome="$t/mu" > /dev/null 2>&1 || fail "mu init"
HOME="$t/home" mu index --muhome="$t/mu" > /dev/null 2>&1 || fail "mu index"
rc=0; "$nd" build --db "$t/mu/xapian" --store "$t/st" > /dev/null 2> "$t/err" || rc=$?
[ "$rc" = 1 ] && grep -q -- "--word-prefix" "$t/err" || fail "build without prefixes: exit $rc: $(cat "$t/err")"
app_sign "$t/mu/xapian" --word-prefix B --uid-prefix I
app_families "f%d.%d@example.org"
app_check "f4.0@example.org"
app_count "" "-s none -p :B" waaada
app_window 4 "f%d.%d@example.org"
# mu re-reads a message whose mtime is past the second it indexed it in.
sleep 1
echo "words added to this mail" >> "$t/mail/cur/m001:2,S"
HOME="$t/home" mu index --muhome="$t/mu" > /dev/null 2>&1 || fail "mu index again"
app_replaced
app_compacted
app_thread_mail
sleep 1
HOME="$t/home" mu index --muhome="$t/mu" > /dev/null 2>&1 || fail "mu index (thread)"
app_thread "t%d@example.org" --word-prefix B --uid-prefix I
echo "mu: built with its prefixes; families clustered by message id; check, search, update, compaction; a reply is not its quote's copy"
