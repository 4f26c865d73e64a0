#!/usr/bin/env bash
# stop_postgres.sh: stop the PostgreSQL server that start_postgres.sh started
# (data dir ${TSLOAD_STATE:-/tmp/tsload}/pg/data). A server this project did
# not start is left alone. Idempotent. With --clean the data dir is removed too.
set -euo pipefail

STATE="${TSLOAD_STATE:-/tmp/tsload}"
PGDATA="$STATE/pg/data"
BIN="/usr/lib/postgresql/15/bin"

if [ -s "$PGDATA/PG_VERSION" ] && [ -x "$BIN/pg_ctl" ]; then
	if runuser -u postgres -- "$BIN/pg_ctl" -D "$PGDATA" status >/dev/null 2>&1; then
		runuser -u postgres -- "$BIN/pg_ctl" -D "$PGDATA" -m fast -w -t 60 stop >/dev/null
		echo "stop_postgres: stopped ($PGDATA)" >&2
	else
		echo "stop_postgres: not running ($PGDATA)" >&2
	fi
else
	echo "stop_postgres: no data dir at $PGDATA" >&2
fi
if [ "${1:-}" = "--clean" ]; then
	rm -rf "$STATE/pg"
	echo "stop_postgres: removed $STATE/pg" >&2
fi
