#!/bin/sh
# The installed library, as an outside program finds it: `meson install`
# of this build into a temporary root, then a small C program that knows
# only `pkg-config --cflags --libs neardup` indexes two texts, builds a
# set, signs, and checks a copy; and every function the installed headers
# declare is exported by the installed library (tests/headers.py).
#   install.sh BUILD_ROOT SOURCE_ROOT SANITIZE(b_sanitize, or none)
set -eu
build=$1
src=$(cd "$2" && pwd)
san=$3
command -v pkg-config > /dev/null || { echo "install: no pkg-config"; exit 77; }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

meson install -C "$build" --no-rebuild --quiet --destdir "$t/root" > "$t/install.log" 2>&1 ||
	fail "meson install: $(tail -5 "$t/install.log")"
pc=$(find "$t/root" -name neardup.pc | head -1)
[ -n "$pc" ] || fail "no neardup.pc installed"
lib=$(find "$t/root" -name 'libneardup.so.0' | head -1)
[ -n "$lib" ] || fail "no libneardup.so.0 installed"
[ -x "$(find "$t/root" -path '*/bin/neardup' | head -1)" ] || fail "no neardup program installed"
man=$(find "$t/root" -path '*/man1/neardup.1' | head -1)
[ -n "$man" ] || fail "no neardup(1) installed"
MANWIDTH=80 man -l "$man" 2> "$t/man.err" | grep -q "neardup-sign" || fail "neardup(1) does not render: $(cat "$t/man.err")"
mandir=$(dirname "$(dirname "$man")")
for c in index build sign clusters check update search fsck text eval; do
	[ -f "$mandir/man1/neardup-$c.1" ] || fail "no neardup-$c(1) installed"
done
MANWIDTH=80 man -l "$mandir/man1/neardup-check.1" 2> "$t/man.err" | grep -q -- "--tolerant" ||
	fail "neardup-check(1) does not render: $(cat "$t/man.err")"
MANWIDTH=80 man -l "$mandir/man3/neardup.3" 2> "$t/man.err" | grep -q "nd_open" ||
	fail "neardup(3) does not render: $(cat "$t/man.err")"
examples=$(find "$t/root" -path '*/doc/neardup/examples' -type d | head -1)
[ -f "$examples/crawl_example.c" ] && [ -f "$examples/check_page.c" ] || fail "examples not installed"
[ -f "$(find "$t/root" -name neardup.h -path '*/include/neardup.h' | head -1)" ] || fail "no umbrella <neardup.h>"
export PKG_CONFIG_PATH="$(dirname "$pc")" PKG_CONFIG_SYSROOT_DIR="$t/root"
flags=$(pkg-config --cflags --libs neardup) || fail "pkg-config neardup"
case "$flags" in *"$src"*) fail "pkg-config points into the source tree: $flags" ;; esac
# The library's own dependencies stay private: no libxml2 or ICU paths
# in a consumer's flags, and no placeholder URL.
case "$(pkg-config --cflags neardup)" in *libxml2*|*icu*|*xapian*) fail "private Cflags leak: $(pkg-config --cflags neardup)" ;; esac
grep -q "example.invalid" "$pc" && fail "placeholder URL in neardup.pc"

cat > "$t/prog.c" <<'EOF'
/* An outside program: index, build, sign, check a copy. */
#include <neardup/check.h>
#include <neardup/descriptor.h>
#include <neardup/indexer.h>
#include <stdio.h>
#include <string.h>

#define TRY(x) do { int rc_ = (x); if (rc_ < 0) { fprintf(stderr, "%s: %s\n", #x, nd_error_last()); return 1; } } while (0)

int main(int argc, char **argv)
{
	char db_path[4096], st_path[4096], text[8192];
	nd_indexer *ix;
	nd_xdb *db;
	nd_store *st;
	nd_descriptor *d;
	nd_tokenizer *tk;
	nd_check_result r = ND_CHECK_RESULT_INIT;
	if (argc != 2)
		return 2;
	snprintf(db_path, sizeof(db_path), "%s/db", argv[1]);
	snprintf(st_path, sizeof(st_path), "%s/st", argv[1]);
	TRY(nd_indexer_open(&ix, db_path, NULL));
	for (int i = 0; i < 60; i++) { /* 60 random texts; 0 and 1 the same */
		size_t n = 0;
		unsigned long long x = (unsigned long long)(i < 2 ? 0 : i) + 1;
		for (int w = 0; w < 120; w++) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			n += (size_t)snprintf(text + n, sizeof(text) - n, "w%llu ", (x >> 33) % 2000);
		}
		char id[16];
		snprintf(id, sizeof(id), "d%d", i);
		TRY(nd_indexer_add_text(ix, id, text, n, NULL, NULL));
	}
	TRY(nd_indexer_close(ix));
	TRY(nd_xdb_open(&db, db_path, ND_XDB_READ));
	TRY(nd_store_open(&st, st_path, ND_STORE_WRITE));
	nd_build_options bo = ND_BUILD_OPTIONS_INIT;
	bo.words = 200;
	TRY(nd_descriptor_build(&d, db, &bo, NULL));
	TRY(nd_descriptor_save(d, st, db, &bo));
	TRY(nd_sign_all(st, db, NULL, NULL));
	TRY(nd_tokenizer_new(&tk));
	size_t n = 0; /* text 0 again, its fifth word changed */
	unsigned long long x = 1;
	for (int w = 0; w < 120; w++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		n += w == 4 ? (size_t)snprintf(text + n, sizeof(text) - n, "changed ")
			    : (size_t)snprintf(text + n, sizeof(text) - n, "w%llu ", (x >> 33) % 2000);
	}
	TRY(nd_check_text_tolerant(tk, d, db, st, text, n, 0.5, NULL, 8, &r));
	nd_docid id, *rest;
	size_t size, nrest;
	TRY(nd_check_cluster(db, st, NULL, &r, 10, &id, &size, &rest, &nrest));
	printf("%zu duplicates, cluster of %zu\n", r.duplicates, size);
	int ok = r.duplicates == 2 && size == 2 && nrest == 0 && id != 0;
	nd_check_result_clear(&r);
	nd_tokenizer_free(tk);
	nd_descriptor_free(d);
	nd_store_close(st);
	nd_xdb_close(db);
	return ok ? 0 : 1;
}
EOF
sanflags=
[ "$san" = none ] || sanflags="-fsanitize=$san"
# shellcheck disable=SC2086
cc -std=c11 -Wall -Wextra -Werror $sanflags -o "$t/prog" "$t/prog.c" $flags 2> "$t/cc.log" ||
	fail "compiling against the installed library: $(cat "$t/cc.log")"
mkdir "$t/work"
LD_LIBRARY_PATH="$(dirname "$lib")" "$t/prog" "$t/work" > "$t/out" 2>&1 || fail "the program: $(cat "$t/out")"
grep -q "^2 duplicates, cluster of 2" "$t/out" || fail "the program: $(cat "$t/out")"
# The installed example, through the umbrella header and the one-call open.
# shellcheck disable=SC2086
cc -std=c11 -Wall -Wextra -Werror $sanflags -o "$t/check_page" "$examples/check_page.c" $flags 2> "$t/cc.log" ||
	fail "compiling the installed example: $(cat "$t/cc.log")"
printf 'nothing like any indexed text at all\n' > "$t/page.txt"
LD_LIBRARY_PATH="$(dirname "$lib")" "$t/check_page" "$t/work/db" "$t/work/st" "$t/page.txt" > "$t/out" 2>&1 ||
	fail "check_page: $(cat "$t/out")"
grep -q "page.txt: 0 duplicate" "$t/out" || fail "check_page: $(cat "$t/out")"
# Every declared function is exported, and nothing internal.
inc=$(pkg-config --variable=includedir neardup) # sysroot included
python3 "$src/tests/headers.py" "$inc" "$lib" cc c++ || fail "installed headers and library disagree"
# The Python package beside it: importable from the documented
# PYTHONPATH, and it knows where its library was installed.
pkgdir=$(dirname "$(find "$t/root" -path '*/neardup/_installed.py' | head -1)")
[ "$pkgdir" != . ] || fail "no Python package installed"
grep -q "LIBRARY = \".*/libneardup.so.0\"" "$pkgdir/_installed.py" || fail "_installed.py: $(cat "$pkgdir/_installed.py")"
if /usr/bin/python3 -c "import cffi" 2> /dev/null; then
	preload=
	case "$san" in *address*) preload="$(cc -print-file-name=libasan.so)" ;; esac
	case "$san" in *undefined*) preload="$preload $(cc -print-file-name=libubsan.so)" ;; esac
	PYTHONPATH="$(dirname "$pkgdir")" NEARDUP_LIB="$lib" LD_PRELOAD="$preload" ASAN_OPTIONS=detect_leaks=0 \
		/usr/bin/python3 -c "import neardup; print(neardup.POINTS)" > "$t/py.out" 2>&1 ||
		fail "python3 -c 'import neardup': $(cat "$t/py.out")"
else
	echo "install: python3-cffi absent, import not tried"
fi
echo "install: pkg-config finds the installed library; an outside program indexes, signs and checks"
