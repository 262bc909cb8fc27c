# Shared by the tests of Xapian applications' databases (mu.sh, notmuch.sh,
# recoll.sh, scriptindex.sh): one corpus of copied families, and the checks
# each application's database must pass.  Sourced after setting nd (the
# neardup binary) and app (the test's name).

t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $app: $*" >&2; exit 1; }

# app_need TOOL... -- HINT: skip (77) unless every tool is installed.
app_need() {
	while [ "$1" != -- ]; do
		command -v "$1" > /dev/null || { shift; while [ "$1" != -- ]; do shift; done; shift
			echo "$app: skipped ($*)"; exit 77; }
		shift
	done
}

# app_corpus KIND: 15 families of 1, 2 and 3 texts of 120 words, each copy
# with another word or two, as KIND wants them: mail (Maildir $t/mail),
# records (scriptindex data $t/data), files ($t/docs).  Also $t/edited.txt,
# family 4's first text with one word changed, and $t/again, a record
# replacing f0.0 with other text.
app_corpus() {
	python3 - "$t" "$1" <<'PY'
import os, random, sys
t, kind = sys.argv[1:]
r = random.Random(4)
vocab = ["w%sa" % "".join(chr(97 + int(c)) for c in "%04d" % i) for i in range(3000)]
for d in ("mail/cur", "mail/new", "mail/tmp", "docs"):
    os.makedirs(os.path.join(t, d), exist_ok=True)
data, n = open(os.path.join(t, "data"), "w"), 0
for fam in range(15):
    base = [r.choice(vocab) for _ in range(120)]
    for c in range(1 + fam % 3):
        w = list(base)
        for _ in range(c):
            w[r.randrange(len(w))] = r.choice(vocab)
        n, text = n + 1, " ".join(w)
        if kind == "mail":
            open("%s/mail/cur/m%03d:2,S" % (t, n), "w").write(
                "From: a%d@example.org\nTo: b@example.org\nSubject: family %d copy %d\n"
                "Message-ID: <f%d.%d@example.org>\nDate: %s, %d Sep 2002 10:00:00 +0000\n\n%s\n"
                % (fam, fam, c, fam, c, ("Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat")[fam % 7],
                   1 + fam, text))
        elif kind == "records":
            data.write("id=f%d.%d\ntitle=family %d\ntext=%s\n\n" % (fam, c, fam, text))
        else:
            open("%s/docs/f%d.%d.txt" % (t, fam, c), "w").write(text + "\n")
        if fam == 4 and c == 0:
            w[7] = "zebra"
            open("%s/edited.txt" % t, "w").write(" ".join(w) + "\n")
open(os.path.join(t, "again"), "w").write(
    "id=f0.0\ntitle=family 0\ntext=%s\n" % " ".join(r.choice(vocab) for _ in range(120)))
PY
}

# app_sign DB [BUILD OPTION...]: build and sign the store $t/st.
app_sign() {
	db=$1
	shift
	"$nd" build --db "$db" --store "$t/st" "$@" > /dev/null 2> "$t/err" || fail "build: $(cat "$t/err")"
	"$nd" sign --db "$db" --store "$t/st" > /dev/null 2> "$t/err" || fail "sign: $(cat "$t/err")"
}

# app_families FORMAT: the copy clusters are exactly the families of 2 and 3,
# their documents named FORMAT % (family, copy).
app_families() {
	"$nd" clusters --db "$db" --store "$t/st" --json > "$t/c.json" 2> /dev/null
	python3 - "$t/c.json" "$1" <<'PY' || fail "clusters: $(head -c 600 "$t/c.json")"
import json, sys
c, form = json.load(open(sys.argv[1])), sys.argv[2]
fams = sorted(sorted(d["id"] for d in g["documents"]) for g in c["clusters"])
want = sorted(sorted(form % (f, k) for k in range(1 + f % 3)) for f in range(15) if f % 3)
assert fams == want, fams
PY
}

# app_check ID: the crawl-time check of $t/edited.txt calls ID a duplicate.
app_check() {
	"$nd" check --db "$db" --store "$t/st" --json "$t/edited.txt" > "$t/check.json" 2> "$t/err" ||
		fail "check: $(cat "$t/err")"
	grep -q "\"id\":\"$1\"[^}]*\"duplicate\":true" "$t/check.json" ||
		fail "check of an edited text: $(cat "$t/check.json")"
}

# app_count "SEARCH OPTIONS" "QUEST OPTIONS" QUERY: the same match count,
# more than none.
app_count() {
	# shellcheck disable=SC2086  # option lists
	a=$("$nd" search --db "$db" --store "$t/st" --collapse none --json $1 "$3" |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["estimated"])')
	# shellcheck disable=SC2086
	b=$(quest -c 1000 -m 1 -d "$db" $2 "$3" | sed -n 's/^Exactly \([0-9]*\) matches$/\1/p')
	[ "$a" = "$b" ] && [ "$a" -gt 0 ] || fail "'$3': neardup $a matches, quest $b"
	count_opts=$1 count_query=$3
}

# app_window SLOT FORMAT: a feed window of 3 days by the date in value
# SLOT (family f's mail is dated September 1 + f) keeps families 11-14 and
# their clusters; removing it brings every family back.
app_window() {
	"$nd" update --db "$db" --store "$t/st" --window 3d --date-slot "$1" > "$t/w.out" 2>&1 ||
		fail "update --window: $(cat "$t/w.out")"
	grep -q "^window 3d by value slot $1: 9 records" "$t/w.out" || fail "update --window: $(cat "$t/w.out")"
	"$nd" clusters --db "$db" --store "$t/st" --json > "$t/c.json" 2> /dev/null
	python3 - "$t/c.json" "$2" <<'PY' || fail "clusters in the window: $(head -c 600 "$t/c.json")"
import json, sys
c, form = json.load(open(sys.argv[1])), sys.argv[2]
fams = sorted(sorted(d["id"] for d in g["documents"]) for g in c["clusters"])
assert fams == sorted(sorted(form % (f, k) for k in range(1 + f % 3)) for f in (11, 13, 14)), fams
PY
	"$nd" fsck --store "$t/st" --db "$db" > "$t/fsck.out" || fail "fsck with a window: $(cat "$t/fsck.out")"
	"$nd" update --db "$db" --store "$t/st" --window none > "$t/w.out" 2>&1 || fail "update --window none"
	app_families "$2"
}

# app_replaced: after the application re-indexed one changed document,
# update calls it replaced.
app_replaced() {
	"$nd" update --db "$db" --store "$t/st" > "$t/update.out" 2>&1 || fail "update: $(cat "$t/update.out")"
	grep -q "^0 added, 1 replaced, 0 deleted" "$t/update.out" || fail "update after a change: $(cat "$t/update.out")"
}

# app_compacted: compaction keeps docids, so the compacted database has the
# same clusters and search results with the same store; and fsck is clean.
app_compacted() {
	"$nd" clusters --db "$db" --store "$t/st" --json > "$t/c.json" 2> /dev/null
	xapian-compact "$db" "$t/db-c" > /dev/null || fail "xapian-compact"
	"$nd" clusters --db "$t/db-c" --store "$t/st" --json > "$t/c2.json" 2> "$t/err" ||
		fail "clusters after compaction: $(cat "$t/err")"
	python3 -c 'import json, sys; a, b = (json.load(open(p))["clusters"] for p in sys.argv[1:]); assert a == b' \
		"$t/c.json" "$t/c2.json" || fail "clusters differ after compaction"
	"$nd" fsck --store "$t/st" --db "$db" > "$t/fsck.out" || fail "fsck: $(cat "$t/fsck.out")"
	# Search on the compacted database: app_count's query, the same results.
	[ -n "${count_query:-}" ] || return 0
	for d in "$db" "$t/db-c"; do
		# shellcheck disable=SC2086  # option list
		"$nd" search --db "$d" --store "$t/st" --limit 100 --json $count_opts "$count_query" |
			python3 -c 'import json, sys; j = json.load(sys.stdin); print(j["estimated"], [r["docid"] for r in j["results"]])'
	done > "$t/s.out" 2> "$t/err" || fail "search after compaction: $(cat "$t/err")"
	[ "$(sed -n 1p "$t/s.out")" = "$(sed -n 2p "$t/s.out")" ] && grep -q "^[1-9]" "$t/s.out" ||
		fail "search after compaction differs: $(cat "$t/s.out")"
}

# app_thread_mail: a thread in $t/mail: a mail, the reply that quotes it
# whole (a few lines of its own above), and the mail resent in the thread
# as it was (Message-IDs t0, t1, t2 @example.org).
app_thread_mail() {
	python3 - "$t/mail/cur" <<'PY'
import random, sys
r = random.Random(9)
words = ["t%sz" % "".join(chr(97 + int(c)) for c in "%04d" % i) for i in range(3000)]
body = "\n".join(" ".join(r.choice(words) for _ in range(12)) for _ in range(15))
own = "Thanks, that is what I was after: I will try it tomorrow and tell the list how it went."
def mail(n, text, reply):
    head = "From: c%d@example.org\nTo: list@example.org\nSubject: thread\nMessage-ID: <t%d@example.org>\n" % (n, n)
    if reply:
        head += "In-Reply-To: <t0@example.org>\nReferences: <t0@example.org>\n"
    open("%s/t%d:2,S" % (sys.argv[1], n), "w").write(head + "Date: Sat, 2%d Sep 2002 10:00:00 +0000\n\n%s\n" % (n, text))
mail(0, body, False)
mail(1, own + "\n\nOn Fri, 20 Sep 2002, c0 wrote:\n" + "\n".join("> " + l for l in body.split("\n")), True)
mail(2, body, True)
PY
}

# app_thread FORM [BUILD OPTION...]: signed into a new store, the thread's
# copy cluster is the mail and its resend (ids FORM % n), not the reply
# that quotes it; and fsck is clean.
app_thread() {
	form=$1
	shift
	"$nd" build --db "$db" --store "$t/st-thread" "$@" > /dev/null 2>&1 || fail "build (thread)"
	"$nd" sign --db "$db" --store "$t/st-thread" > /dev/null 2>&1 || fail "sign (thread)"
	"$nd" clusters --db "$db" --store "$t/st-thread" --json > "$t/c.json" 2> /dev/null
	python3 - "$t/c.json" "$form" <<'PY' || fail "a thread's clusters: $(head -c 600 "$t/c.json")"
import json, sys
form = sys.argv[2]
ids = [sorted(d["id"] for d in g["documents"]) for g in json.load(open(sys.argv[1]))["clusters"]]
thread = [g for g in ids if any(i in (form % 0, form % 1, form % 2) for i in g)]
assert thread == [[form % 0, form % 2]], thread
PY
	"$nd" fsck --store "$t/st-thread" --db "$db" > "$t/fsck.out" || fail "fsck (thread): $(cat "$t/fsck.out")"
}
