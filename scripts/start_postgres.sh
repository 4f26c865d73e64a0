#!/usr/bin/env bash
# start_postgres.sh: install (Debian packages) and start PostgreSQL 15 on
# 127.0.0.1:${PGPORT:-5432} with a throwaway data directory, for load_timescale
# and its tests. Idempotent: when something already answers on that address the
# script leaves it alone and exits 0.
#
# Environment:
#   PGPORT                        port (default 5432)
#   TSLOAD_STATE                  state root (default /tmp/tsload); data in $TSLOAD_STATE/pg
#   TSLOAD_PG_SHARED_BUFFERS      shared_buffers (default 512MB)
#   TSLOAD_PG_SYNCHRONOUS_COMMIT  synchronous_commit (default off: a benchmark setting. A
#                                 COPY acknowledged in the last ~0.6 s can be lost if the
#                                 server CRASHES; a clean or fast shutdown loses nothing.
#                                 Set "on" for durable acknowledgements.)
#
# The server trusts every connection from 127.0.0.1 (no password) and listens on
# 127.0.0.1 only. When a TimescaleDB package for PostgreSQL 15 is available from
# the configured apt sources it is installed and preloaded; otherwise the server
# is plain PostgreSQL and load_timescale creates plain tables.
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

log() { echo "start_postgres: $*" >&2; }

as_root() {
	if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

answers() { "$BIN/pg_isready" -q -h 127.0.0.1 -p "$PGPORT" >/dev/null 2>&1; }

apt_updated=0
apt_update_once() {
	if [ "$apt_updated" -eq 0 ]; then
		as_root apt-get update -qq
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
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "postgresql-$PGVER" postgresql-contrib
}

# install_timescaledb installs a TimescaleDB package when the apt sources carry
# one (Debian bookworm does not; a timescale.com apt source does). Failure to
# find one is not an error.
install_timescaledb() {
	if ls "/usr/lib/postgresql/$PGVER/lib/"timescaledb*.so >/dev/null 2>&1; then
		return
	fi
	apt_update_once
	local pkg
	for pkg in "timescaledb-2-postgresql-$PGVER" "postgresql-$PGVER-timescaledb"; do
		if apt-cache show "$pkg" >/dev/null 2>&1; then
			log "installing $pkg"
			as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$pkg" || log "could not install $pkg; continuing with plain PostgreSQL"
			return
		fi
	done
	log "no TimescaleDB package in the apt sources; plain PostgreSQL (load_timescale creates plain tables)"
}

pg() { runuser -u postgres -- "$@"; }

if [ -x "$BIN/pg_isready" ] && answers; then
	log "a server already answers on 127.0.0.1:$PGPORT; leaving it alone"
	exit 0
fi

install_postgres
# Look for TimescaleDB only once per state dir: apt-get update is slow and
# the answer does not change between runs.
if [ ! -e "$PGROOT/.timescaledb-checked" ]; then
	install_timescaledb
fi

# The postgres OS user must be able to reach the state dir.
mkdir -p "$STATE"
chmod o+x "$STATE"
mkdir -p "$PGROOT"
chown postgres: "$PGROOT"
chmod 700 "$PGROOT"
touch "$PGROOT/.timescaledb-checked"

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
if ls "/usr/lib/postgresql/$PGVER/lib/"timescaledb*.so >/dev/null 2>&1; then
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
log_min_messages = warning
CONF
if [ -z "$preload" ]; then
	sed -i '/^timescaledb\./d' "$PGDATA/tsload.conf"
fi
chown postgres: "$PGDATA/tsload.conf"
if ! grep -q "^include_if_exists = 'tsload.conf'" "$PGDATA/postgresql.conf"; then
	echo "include_if_exists = 'tsload.conf'" >>"$PGDATA/postgresql.conf"
fi

log "starting PostgreSQL $PGVER on 127.0.0.1:$PGPORT (data $PGDATA, log $PGLOG)"
if ! pg "$BIN/pg_ctl" -D "$PGDATA" -l "$PGLOG" -w -t 60 start >/dev/null; then
	tail -n 30 "$PGLOG" >&2 || true
	exit 1
fi
for _ in $(seq 1 60); do
	if answers; then
		log "ready: postgres://postgres@127.0.0.1:$PGPORT/postgres"
		exit 0
	fi
	sleep 0.5
done
log "server did not answer on 127.0.0.1:$PGPORT"
tail -n 30 "$PGLOG" >&2 || true
exit 1
