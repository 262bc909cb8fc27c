#!/bin/sh
# Build BUILD with ninja as one line of progress: the log goes to
# BUILD/build.log, and on failure its last lines are printed.
#   quiet-build.sh BUILD
set -u
b=$1
if ninja -C "$b" > "$b/build.log" 2>&1; then
	n=$(grep -c '^\[' "$b/build.log")
	echo "build: $b up to date ($n steps; log in $b/build.log)"
else
	tail -n 40 "$b/build.log"
	echo "build: failed (whole log in $b/build.log)" >&2
	exit 1
fi
