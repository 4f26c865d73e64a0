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

# alive: the process runs (a stopped server not yet reaped is a zombie: not alive).
alive() {
	kill -0 "$1" 2>/dev/null && [[ $(sed -E 's/.*\) (.).*/\1/' "/proc/$1/stat" 2>/dev/null) != Z ]]
}

if [[ ! -f $pidfile ]]; then
	echo "stop_cnosdb: CnosDB $name: no pid file $pidfile (not running)" >&2
else
	pid=$(cat "$pidfile")
	if alive "$pid"; then
		kill "$pid"
		for ((i = 0; i < 120; i++)); do
			alive "$pid" || break
			sleep 0.25
		done
		if alive "$pid"; then
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
