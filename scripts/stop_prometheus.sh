#!/usr/bin/env bash
# Stop a Prometheus started by scripts/start_prometheus.sh (by its pid file; SIGTERM, then
# SIGKILL after 30 s).
#
# Environment: TSLOAD_STATE (default /tmp/tsload), PROM_NAME (default main), PROM_PURGE=1 also
# removes the instance's data directory.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

state=${TSLOAD_STATE:-/tmp/tsload}
name=${PROM_NAME:-main}
dir=$state/prometheus/$name

say() { echo "stop_prometheus: $*" >&2; }

stop_pidfile "$dir/prometheus.pid" "Prometheus $name"
if [[ ${PROM_PURGE:-0} == 1 ]]; then
	rm -rf "$dir"
fi
