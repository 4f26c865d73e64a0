#!/usr/bin/env bash
# Stop a ClickHouse started by scripts/start_clickhouse.sh (by its pid file; SIGTERM, then
# SIGKILL after 30 s).
#
# Environment: TSLOAD_STATE (default /tmp/tsload), CLICKHOUSE_NAME (default main),
# CLICKHOUSE_PURGE=1 also removes the instance's data directory.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

state=${TSLOAD_STATE:-/tmp/tsload}
name=${CLICKHOUSE_NAME:-main}
dir=$state/clickhouse/$name

say() { echo "stop_clickhouse: $*" >&2; }

stop_pidfile "$dir/clickhouse.pid" "ClickHouse $name"
if [[ ${CLICKHOUSE_PURGE:-0} == 1 ]]; then
	rm -rf "$dir"
fi
