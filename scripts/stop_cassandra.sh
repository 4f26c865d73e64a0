#!/usr/bin/env bash
# Stop a Cassandra started by scripts/start_cassandra.sh (by its pid file; SIGTERM, then SIGKILL
# after 30 s).
#
# Environment: TSLOAD_STATE (default /tmp/tsload), CASSANDRA_NAME (default main),
# CASSANDRA_PURGE=1 also removes the instance's data directory.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

state=${TSLOAD_STATE:-/tmp/tsload}
name=${CASSANDRA_NAME:-main}
dir=$state/cassandra/$name

say() { echo "stop_cassandra: $*" >&2; }

stop_pidfile "$dir/cassandra.pid" "Cassandra $name"
if [[ ${CASSANDRA_PURGE:-0} == 1 ]]; then
	rm -rf "$dir"
fi
