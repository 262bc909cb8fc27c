#!/bin/sh
# Run the Python package's tests (tests/python) with Debian's python3 and
# pytest; skip (77) with what to install when something is missing.
#   run.sh NEARDUP README
set -eu
py=/usr/bin/python3
missing=
for m in pytest cffi xapian; do
	"$py" -c "import $m" 2> /dev/null || missing="$missing python3-$m"
done
if [ -n "$missing" ]; then
	echo "python: skipped, missing:$missing (apt-get install$missing)"
	exit 77
fi
NEARDUP=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") README=$2 \
	exec "$py" -m pytest -q -p no:cacheprovider "$(dirname "$0")"
