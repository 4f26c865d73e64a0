#!/usr/bin/env bash
# Stop a VictoriaMetrics started by scripts/start_victoriametrics.sh (by its pid file; SIGTERM,
# then SIGKILL after 30 s).
#
# Environment: TSLOAD_STATE (default /tmp/tsload), VM_NAME (default main), VM_PURGE=1 also
# removes the instance's data directory.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

state=${TSLOAD_STATE:-/tmp/tsload}
name=${VM_NAME:-main}
dir=$state/victoriametrics/$name

say() { echo "stop_victoriametrics: $*" >&2; }

stop_pidfile "$dir/victoria-metrics.pid" "VictoriaMetrics $name"
if [[ ${VM_PURGE:-0} == 1 ]]; then
	rm -rf "$dir"
fi
