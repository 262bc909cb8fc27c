#!/bin/sh
# A notmuch database as its users have it: mail delivered to a Maildir and
# indexed by `notmuch new`, and the checks of app_lib.sh: copy clusters are
# the families with ids as notmuch writes them (id:...), the check of an
# edited body finds its mail, search with notmuch's subject prefix counts
# what quest counts, a reindexed mail is replaced, and the compacted
# database has the same clusters; a feed window by notmuch's date slot.
#   notmuch.sh NEARDUP
set -eu
nd=$1 app=notmuch
. "$(dirname "$0")/app_lib.sh"
app_need notmuch quest xapian-compact -- apt-get install notmuch xapian-tools
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
# A thread: a mail, the reply that quotes it whole (a few lines of its own
# above), and the mail resent in the thread as it was.  The reply is not a
# copy of what it quotes; the resend is.
python3 - "$t/mail/cur" <<'PY'
import random, sys
r = random.Random(9)
words = ["t%sz" % "".join(chr(97 + int(c)) for c in "%04d" % i) for i in range(3000)]
body = "\n".join(" ".join(r.choice(words) for _ in range(12)) for _ in range(15))
own = "Thanks, that is what I was after: I will try it tomorrow and tell the list how it went."
def mail(n, mid, text, reply):
    head = "From: c%d@example.org\nTo: list@example.org\nSubject: thread\nMessage-ID: <%s@example.org>\n" % (n, mid)
    if reply:
        head += "In-Reply-To: <t0@example.org>\nReferences: <t0@example.org>\n"
    open("%s/t%d:2,S" % (sys.argv[1], n), "w").write(head + "Date: Sat, 2%d Sep 2002 10:00:00 +0000\n\n%s\n" % (n, text))
mail(0, "t0", body, False)
mail(1, "t1", own + "\n\nOn Fri, 20 Sep 2002, c0 wrote:\n" + "\n".join("> " + l for l in body.split("\n")), True)
mail(2, "t2", body, True)
PY
NOTMUCH_CONFIG="$t/config" notmuch new > /dev/null 2>&1 || fail "notmuch new (thread)"
"$nd" build --db "$db" --store "$t/st-thread" > /dev/null 2>&1 || fail "build (thread)"
"$nd" sign --db "$db" --store "$t/st-thread" > /dev/null 2>&1 || fail "sign (thread)"
"$nd" clusters --db "$db" --store "$t/st-thread" --json > "$t/c.json" 2> /dev/null
python3 - "$t/c.json" <<'PY' || fail "a thread's clusters: $(head -c 600 "$t/c.json")"
import json, sys
ids = [sorted(d["id"] for d in g["documents"]) for g in json.load(open(sys.argv[1]))["clusters"]]
thread = [g for g in ids if any(i.startswith("id:t") for i in g)]
assert thread == [["id:t0@example.org", "id:t2@example.org"]], thread
PY
"$nd" fsck --store "$t/st-thread" --db "$db" > "$t/fsck.out" || fail "fsck (thread): $(cat "$t/fsck.out")"
echo "notmuch: families clustered with id: ids; check, subject: search, reindex, compaction; a reply is not its quote's copy"
