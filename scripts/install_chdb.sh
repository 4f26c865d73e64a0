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
		need=()
		command -v python3 >/dev/null 2>&1 || need+=(python3)
		python3 -m pip --version >/dev/null 2>&1 || need+=(python3-pip)
		ldconfig -p 2>/dev/null | grep -q 'libpython3\.11\.so\.1\.0' || need+=(libpython3.11)
		if [[ ${#need[@]} -gt 0 ]]; then
			# One apt-get update and one install; without pip's recommends (build-essential,
			# python3-dev: hundreds of MB that a download does not use).
			say "installing ${need[*]} with apt-get"
			apt-get -o DPkg::Lock::Timeout=900 update -qq
			DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends \
				"${need[@]}" >/dev/null
		fi
		work=$(mktemp -d "$cache/install.XXXXXX")
		say "downloading the chdb $version wheel from PyPI into $cache"
		# The wheel alone (no dependencies: the loader imports only its extension), not kept
		# in pip's cache as well.
		python3 -m pip download -q --no-cache-dir --no-deps --only-binary=:all: --platform manylinux2014_x86_64 \
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
