#!/usr/bin/env bash
# Stop a CnosDB started by scripts/start_cnosdb.sh (by its pid file; SIGTERM, then SIGKILL
# after 30 s).
#
# Environment: TSLOAD_STATE (default /tmp/tsload), CNOSDB_NAME (default main),
# CNOSDB_PURGE=1 also removes the instance's data directory.
set -euo pipefail

state=${TSLOAD_STATE:-/tmp/tsload}
name=${CNOSDB_NAME:-main}
dir=$state/cnosdb/$name
pidfile=$dir/cnosdb.pid

if [[ ! -f $pidfile ]]; then
	echo "stop_cnosdb: CnosDB $name: no pid file $pidfile (not running)" >&2
else
	pid=$(cat "$pidfile")
	if kill -0 "$pid" 2>/dev/null; then
		kill "$pid"
		for ((i = 0; i < 120; i++)); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.25
		done
		if kill -0 "$pid" 2>/dev/null; then
			echo "stop_cnosdb: CnosDB $name (pid $pid) did not stop in 30s: sending SIGKILL" >&2
			kill -9 "$pid" 2>/dev/null || true
		fi
		echo "stop_cnosdb: CnosDB $name stopped (pid $pid)" >&2
	else
		echo "stop_cnosdb: CnosDB $name: pid $pid not running" >&2
	fi
	rm -f "$pidfile"
fi
if [[ ${CNOSDB_PURGE:-0} == 1 ]]; then
	rm -rf "$dir"
fi
