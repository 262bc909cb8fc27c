#!/bin/sh
# Install what neardup needs on Debian 12 (bookworm).  As root it runs
# apt-get; otherwise it prints the exact command and stops.  The last
# line is data for the tests: two releases of two API references (the
# labeled set eval/sets/make.py versions, a few MB).
set -eu
pkgs="meson ninja-build pkg-config gcc g++ python3 libxapian-dev libicu-dev liblmdb-dev
lmdb-utils libcmocka-dev libxml2-dev libjansson-dev xapian-tools xapian-omega gnuplot-nox libsvm-dev liblbfgs-dev
python3-cffi python3-xapian python3-pytest notmuch maildir-utils recollcmd
clang-14-doc clang-15-doc libcairomm-1.0-doc libcairomm-1.16-doc"
missing=""
for p in $pkgs; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0
cmd="apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" -ne 0 ]; then
	echo "neardup needs these Debian packages:$missing" >&2
	echo "run as root:  apt-get update && $cmd" >&2
	exit 1
fi
echo "installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
$cmd >/dev/null
