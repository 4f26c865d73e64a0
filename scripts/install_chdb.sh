#!/usr/bin/env bash
# Install chDB (ClickHouse's engine as a library) for load_clickhouse --db-path (idempotent).
#
#   scripts/install_chdb.sh     # prints the directory load_clickhouse --chdb-dir takes
#
# The chdb 3.7.2 wheel from PyPI (ClickHouse 25.8; 180 MB) is downloaded with pip and unpacked
# into ${TSLOAD_CACHE:-$HOME/.cache/tsload}/chdb-3.7.2/site (about 830 MB), which is
# load_clickhouse's default --chdb-dir; nothing is installed into a Python. The loader loads
# Python 3.11's library (Debian's libpython3.11, installed when missing) and imports the
# wheel's module into it: see pkg/target/clickhouse/chdb.go.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

say() { echo "install_chdb: $*" >&2; }

version=3.7.2
cache=${TSLOAD_CACHE:-$HOME/.cache/tsload}/chdb-$version
site=$cache/site

if [[ ! -f $site/chdb/_chdb.abi3.so ]]; then
	mkdir -p "$cache"
	exec 8>"$cache/install.lock"
	flock 8
	if [[ ! -f $site/chdb/_chdb.abi3.so ]]; then
		command -v python3 >/dev/null 2>&1 || apt_install python3 python3-pip
		python3 -m pip --version >/dev/null 2>&1 || apt_install python3-pip
		work=$(mktemp -d "$cache/install.XXXXXX")
		say "downloading the chdb $version wheel from PyPI into $cache"
		python3 -m pip download -q --no-deps --only-binary=:all: --platform manylinux2014_x86_64 \
			--python-version 3.11 -d "$work" "chdb==$version"
		python3 -m zipfile -e "$work"/chdb-"$version"-*.whl "$work/site"
		rm -rf "$site"
		mv "$work/site" "$site"
		rm -rf "$work"
		say "unpacked chdb $version into $site"
	fi
fi
if ! ldconfig -p 2>/dev/null | grep -q 'libpython3\.11\.so\.1\.0'; then
	apt_install libpython3.11
fi
echo "$site"
