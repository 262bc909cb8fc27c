#!/bin/sh
# Build BUILD with ninja as one line of progress ([done/total], redrawn on
# a terminal): the log goes to BUILD/build.log, and on failure its last
# lines are printed.
#   quiet-build.sh BUILD
set -u
b=$1
if [ -t 1 ]; then
	{ ninja -C "$b" 2>&1; echo $? > "$b/build.rc"; } | tee "$b/build.log" |
		awk '/^\[[0-9]+\/[0-9]+\]/ { printf "\rbuild: %s %s", b, $1; fflush() }' b="$b"
	printf '\r\033[K'
	rc=$(cat "$b/build.rc")
	rm -f "$b/build.rc"
else
	ninja -C "$b" > "$b/build.log" 2>&1
	rc=$?
fi
if [ "$rc" -eq 0 ]; then
	n=$(grep -c '^\[' "$b/build.log")
	if [ "$n" -eq 0 ]; then
		echo "build: $b up to date"
	else
		echo "build: $b built ($n steps; log in $b/build.log)"
	fi
else
	tail -n 40 "$b/build.log"
	echo "build: failed (whole log in $b/build.log)" >&2
	exit 1
fi
