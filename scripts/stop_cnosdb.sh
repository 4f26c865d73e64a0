#!/usr/bin/env bash
# Stop a CnosDB started by scripts/start_cnosdb.sh (by its pid file; SIGTERM, then SIGKILL
# after 30 s).
#
# Environment: TSLOAD_STATE (default /tmp/tsload), CNOSDB_NAME (default main),
# CNOSDB_PURGE=1 also removes the instance's data directory.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

state=${TSLOAD_STATE:-/tmp/tsload}
name=${CNOSDB_NAME:-main}
dir=$state/cnosdb/$name
pidfile=$dir/cnosdb.pid

say() { echo "stop_cnosdb: $*" >&2; }

stop_pidfile "$pidfile" "CnosDB $name"
if [[ ${CNOSDB_PURGE:-0} == 1 ]]; then
	rm -rf "$dir"
fi
