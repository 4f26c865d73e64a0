#!/usr/bin/env bash
# start_postgres.sh: install (Debian packages) and start PostgreSQL 15 with
# TimescaleDB on 127.0.0.1:${PGPORT:-5432} with a throwaway data directory, for
# load_timescale and its tests.
#
# TimescaleDB comes from, in this order: an earlier install; a TimescaleDB
# package in the apt sources (Debian has none); a cached build under
# ${TSLOAD_CACHE:-~/.cache/tsload}/timescaledb/<tarball sha256>-pg<minor>; a build
# of the source tarball ../shared/vendor/timescaledb-2.28.3.tar.gz (relative to
# the repository root, or $TSLOAD_TIMESCALEDB_SRC), which installs
# postgresql-server-dev-15, cmake, gcc and make first (a few minutes on 2 cores)
# and caches the installed files. Without a package and a tarball the server is
# plain PostgreSQL (one line says so) and load_timescale creates plain tables.
#
# Idempotent: a server this script started that already runs with TimescaleDB
# is left alone; one that runs without it (or whose binaries were upgraded
# underneath it, as installing the server-dev package does) is restarted once
# TimescaleDB is installed. A server someone else started is left alone.
#
# Environment:
#   PGPORT                        port (default 5432)
#   TSLOAD_STATE                  state root (default /tmp/tsload); data in $TSLOAD_STATE/pg
#   TSLOAD_CACHE                  cache root (default ~/.cache/tsload)
#   TSLOAD_TIMESCALEDB_SRC        TimescaleDB source tarball to build
#   TSLOAD_PG_SHARED_BUFFERS      shared_buffers (default 512MB)
#   TSLOAD_PG_SYNCHRONOUS_COMMIT  synchronous_commit (default off: a benchmark setting. A
#                                 COPY acknowledged in the last ~0.6 s can be lost if the
#                                 server CRASHES; a clean or fast shutdown loses nothing.
#                                 Set "on" for durable acknowledgements.)
#
# The server trusts every connection from 127.0.0.1 (no password) and listens on
# 127.0.0.1 only.
set -euo pipefail

PGVER=15
PGPORT="${PGPORT:-5432}"
STATE="${TSLOAD_STATE:-/tmp/tsload}"
PGROOT="$STATE/pg"
PGDATA="$PGROOT/data"
PGLOG="$PGROOT/postgres.log"
BIN="/usr/lib/postgresql/$PGVER/bin"
SHARED_BUFFERS="${TSLOAD_PG_SHARED_BUFFERS:-512MB}"
SYNC_COMMIT="${TSLOAD_PG_SYNCHRONOUS_COMMIT:-off}"
REPO="$(cd "$(dirname "$0")/.." && pwd)"
TS_TARBALL_NAME="timescaledb-2.28.3.tar.gz"
TS_CACHE="${TSLOAD_CACHE:-$HOME/.cache/tsload}/timescaledb"
PKGLIBDIR="/usr/lib/postgresql/$PGVER/lib"
SHAREDIR="/usr/share/postgresql/$PGVER"

log() { echo "start_postgres: $*" >&2; }

as_root() {
	if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

answers() { "$BIN/pg_isready" -q -h 127.0.0.1 -p "$PGPORT" >/dev/null 2>&1; }

apt_updated=0
apt_update_once() {
	if [ "$apt_updated" -eq 0 ]; then
		as_root apt-get -o DPkg::Lock::Timeout=900 update -qq
		apt_updated=1
	fi
}

install_postgres() {
	if [ -x "$BIN/pg_ctl" ] && [ -x "$BIN/initdb" ] && [ -x "$BIN/pg_isready" ]; then
		return
	fi
	log "installing postgresql-$PGVER"
	# Do not let the Debian package create and start its own "main" cluster on
	# our port: this script runs its own throwaway cluster.
	as_root mkdir -p /etc/postgresql-common/createcluster.d
	echo "create_main_cluster = false" | as_root tee /etc/postgresql-common/createcluster.d/tsload.conf >/dev/null
	apt_update_once
	apt_install "postgresql-$PGVER" postgresql-contrib
}

# timescaledb_installed: the loader library and the extension's control file
# are where this PostgreSQL looks for them.
timescaledb_installed() {
	[ -e "$PKGLIBDIR/timescaledb.so" ] && [ -e "$SHAREDIR/extension/timescaledb.control" ]
}

# server_minor prints the version of the PostgreSQL binaries on disk (15.20).
server_minor() { "$BIN/postgres" --version | awk '{print $3}'; }

# timescaledb_tarball prints the TimescaleDB source tarball to build, or nothing.
# A git worktree also looks beside its main checkout, where ../shared lives.
timescaledb_tarball() {
	if [ -n "${TSLOAD_TIMESCALEDB_SRC:-}" ]; then
		[ -f "$TSLOAD_TIMESCALEDB_SRC" ] && echo "$TSLOAD_TIMESCALEDB_SRC"
		return 0
	fi
	local cand="$REPO/../shared/vendor/$TS_TARBALL_NAME"
	if [ ! -f "$cand" ] && command -v git >/dev/null 2>&1; then
		local common
		common=$(git -C "$REPO" rev-parse --path-format=absolute --git-common-dir 2>/dev/null || true)
		[ -n "$common" ] && cand="$(dirname "$common")/../shared/vendor/$TS_TARBALL_NAME"
	fi
	[ -f "$cand" ] && echo "$cand"
	return 0
}

# apt_install installs packages, refreshing the package lists once if the
# first attempt cannot find them (a fresh machine's lists may be stale).
apt_install() {
	if ! as_root env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 install -y -q "$@"; then
		apt_updated=0
		apt_update_once
		as_root env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 install -y -q "$@"
	fi
}

# install_timescaledb_package installs a TimescaleDB package when the apt
# sources carry one (Debian bookworm does not; a timescale.com source does).
install_timescaledb_package() {
	local pkg
	for pkg in "timescaledb-2-postgresql-$PGVER" "postgresql-$PGVER-timescaledb"; do
		if apt-cache show "$pkg" >/dev/null 2>&1; then
			log "installing $pkg"
			apt_install "$pkg" && return 0
			log "could not install $pkg"
		fi
	done
	return 1
}

# install_timescaledb_from_cache unpacks a cached build made from the same
# tarball for the same PostgreSQL minor version. Returns 1 on a cache miss.
install_timescaledb_from_cache() {
	local key="$1"
	local art="$TS_CACHE/$key/install.tar.gz"
	[ -s "$art" ] || return 1
	log "installing TimescaleDB from the build cache ($art)"
	as_root tar -xzf "$art" -C / --no-same-owner --no-overwrite-dir
}

# build_timescaledb builds the tarball against the installed server headers,
# stores the installed files in the cache and installs them. Building needs
# postgresql-server-dev-$PGVER, whose installation moves postgresql-$PGVER to
# the same minor version (a running server is restarted later on).
build_timescaledb() {
	local tarball="$1" sha="$2"
	log "installing the TimescaleDB build dependencies (postgresql-server-dev-$PGVER, cmake, gcc, make)"
	apt_install "postgresql-server-dev-$PGVER" cmake gcc make
	local minor key
	minor=$(server_minor)
	key="${sha:0:16}-pg$minor"
	if install_timescaledb_from_cache "$key"; then
		return 0
	fi
	local work
	work=$(mktemp -d "${TMPDIR:-/tmp}/tsload-timescaledb.XXXXXX")
	local buildlog="$work/build.log"
	local t0=$SECONDS
	log "building TimescaleDB from $tarball for PostgreSQL $minor (a few minutes; log $buildlog)"
	if ! (
		set -e
		tar -xzf "$tarball" -C "$work"
		src=$(find "$work" -mindepth 1 -maxdepth 1 -type d | head -n 1)
		cmake -S "$src" -B "$work/build" -DPG_CONFIG="$BIN/pg_config" \
			-DREGRESS_CHECKS=OFF -DTAP_CHECKS=OFF -DWARNINGS_AS_ERRORS=OFF \
			-DCMAKE_BUILD_TYPE=Release -DLINTER=OFF
		make -C "$work/build" -j"$(nproc)"
		make -C "$work/build" install DESTDIR="$work/stage"
	) >"$buildlog" 2>&1; then
		tail -n 40 "$buildlog" >&2
		log "TimescaleDB build failed (log $buildlog)"
		exit 1
	fi
	mkdir -p "$TS_CACHE/$key"
	# Files only: unpacking directory entries over / would reset their modes.
	(cd "$work/stage" && find . -type f -o -type l) | sort >"$work/files"
	tar -czf "$TS_CACHE/$key/install.tar.gz.tmp" -C "$work/stage" -T "$work/files"
	mv "$TS_CACHE/$key/install.tar.gz.tmp" "$TS_CACHE/$key/install.tar.gz"
	rm -rf "$work"
	log "built TimescaleDB in $((SECONDS - t0)) s; cached as $TS_CACHE/$key"
	install_timescaledb_from_cache "$key"
}

# install_timescaledb: an installed TimescaleDB, else a package, else a cached
# build of the tarball, else a fresh build of it. Without a tarball and a
# package the server stays plain PostgreSQL.
install_timescaledb() {
	if timescaledb_installed; then
		return 0
	fi
	if install_timescaledb_package; then
		return 0
	fi
	local tarball
	tarball=$(timescaledb_tarball)
	if [ -z "$tarball" ]; then
		log "no TimescaleDB (no package, no source tarball at ${TSLOAD_TIMESCALEDB_SRC:-../shared/vendor/$TS_TARBALL_NAME}): plain PostgreSQL, load_timescale creates plain tables"
		return 0
	fi
	local sha
	sha=$(sha256sum "$tarball" | awk '{print $1}')
	if install_timescaledb_from_cache "${sha:0:16}-pg$(server_minor)"; then
		return 0
	fi
	build_timescaledb "$tarball" "$sha"
}

pg() { runuser -u postgres -- "$@"; }

# running_setting prints a setting of the server that answers on $PGPORT.
running_setting() {
	"$BIN/psql" -X -q -A -t -h 127.0.0.1 -p "$PGPORT" -U postgres -d postgres \
		-c "SELECT current_setting('$1')" 2>/dev/null || true
}

ours_running() {
	[ -s "$PGDATA/PG_VERSION" ] && pg "$BIN/pg_ctl" -D "$PGDATA" status >/dev/null 2>&1
}

restart=0
if [ -x "$BIN/pg_isready" ] && answers; then
	if ! ours_running; then
		log "a server already answers on 127.0.0.1:$PGPORT (not started by this script); leaving it alone"
		exit 0
	fi
	# Our own server: keep it unless TimescaleDB is missing from it or its
	# binaries moved to another minor version under it.
	if [ "$(running_setting shared_preload_libraries)" = "timescaledb" ] &&
		[ "$(running_setting server_version | awk '{print $1}')" = "$(server_minor)" ]; then
		log "PostgreSQL $(server_minor) with TimescaleDB already answers on 127.0.0.1:$PGPORT; leaving it alone"
		exit 0
	fi
	restart=1
fi

install_postgres
install_timescaledb
if [ "$restart" = 1 ] && ! timescaledb_installed &&
	[ "$(running_setting server_version | awk '{print $1}')" = "$(server_minor)" ]; then
	log "a plain PostgreSQL $(server_minor) started by this script already answers on 127.0.0.1:$PGPORT; leaving it alone"
	exit 0
fi

# The postgres OS user must be able to reach the state dir.
mkdir -p "$STATE"
chmod o+x "$STATE"
mkdir -p "$PGROOT"
chown postgres: "$PGROOT"
chmod 700 "$PGROOT"

if [ ! -s "$PGDATA/PG_VERSION" ]; then
	log "initdb $PGDATA"
	rm -rf "$PGDATA"
	pg "$BIN/initdb" -D "$PGDATA" -U postgres -E UTF8 --locale=C.UTF-8 \
		--auth-local=trust --auth-host=trust >"$PGROOT/initdb.log" 2>&1 || {
		cat "$PGROOT/initdb.log" >&2
		exit 1
	}
	cat >"$PGDATA/pg_hba.conf" <<HBA
# tsload throwaway cluster: trust local socket and 127.0.0.1 only.
local   all   all                 trust
host    all   all   127.0.0.1/32  trust
HBA
	chown postgres: "$PGDATA/pg_hba.conf"
fi

# Settings are rewritten on every start so a changed environment takes effect.
preload=""
if timescaledb_installed; then
	preload="timescaledb"
fi
cat >"$PGDATA/tsload.conf" <<CONF
# Written by scripts/start_postgres.sh. Sized for a small (2-core) machine.
listen_addresses = '127.0.0.1'
port = $PGPORT
unix_socket_directories = '$PGROOT'
max_connections = 200
shared_buffers = '$SHARED_BUFFERS'
work_mem = '16MB'
maintenance_work_mem = '256MB'
effective_cache_size = '2GB'
max_wal_size = '4GB'
min_wal_size = '512MB'
checkpoint_timeout = '15min'
wal_buffers = '16MB'
fsync = on
synchronous_commit = '$SYNC_COMMIT'
shared_preload_libraries = '$preload'
timescaledb.telemetry_level = off
timescaledb.max_background_workers = 4
log_min_messages = warning
CONF
if [ -z "$preload" ]; then
	sed -i '/^timescaledb\./d' "$PGDATA/tsload.conf"
fi
chown postgres: "$PGDATA/tsload.conf"
if ! grep -q "^include_if_exists = 'tsload.conf'" "$PGDATA/postgresql.conf"; then
	echo "include_if_exists = 'tsload.conf'" >>"$PGDATA/postgresql.conf"
fi

what="PostgreSQL $(server_minor)"
[ -n "$preload" ] && what="$what with TimescaleDB"
if [ "$restart" = 1 ]; then
	log "restarting our server as $what on 127.0.0.1:$PGPORT (data $PGDATA, log $PGLOG)"
	pg "$BIN/pg_ctl" -D "$PGDATA" -m fast -w -t 60 stop >/dev/null
else
	log "starting $what on 127.0.0.1:$PGPORT (data $PGDATA, log $PGLOG)"
fi
if ! pg "$BIN/pg_ctl" -D "$PGDATA" -l "$PGLOG" -w -t 60 start >/dev/null; then
	tail -n 30 "$PGLOG" >&2 || true
	exit 1
fi
for _ in $(seq 1 60); do
	if answers; then
		if [ -n "$preload" ] && [ "$(running_setting shared_preload_libraries)" != "timescaledb" ]; then
			log "the server started without TimescaleDB preloaded"
			exit 1
		fi
		log "ready: postgres://postgres@127.0.0.1:$PGPORT/postgres ($what)"
		exit 0
	fi
	sleep 0.5
done
log "server did not answer on 127.0.0.1:$PGPORT"
tail -n 30 "$PGLOG" >&2 || true
exit 1
