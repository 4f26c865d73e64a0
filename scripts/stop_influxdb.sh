#!/usr/bin/env bash
# Stop an InfluxDB started by scripts/start_influxdb.sh (by its pid file).
#
#   scripts/stop_influxdb.sh               # the 1.x instance
#   scripts/stop_influxdb.sh --version 2   # the 2.x instance
#   scripts/stop_influxdb.sh --version 3   # the 3.x instance (scripts/influxdb3.sh stop)
#
# Environment: TSLOAD_STATE (default /tmp/tsload), INFLUX_NAME (default main,
# or v2 with --version 2), INFLUX_PURGE=1 also removes the instance's data
# directory.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

default_name=main
while [[ $# -gt 0 ]]; do
	case $1 in
	--version) [[ ${2:-} == 2 ]] && default_name=v2; [[ ${2:-} == 3 ]] && default_name=v3; shift 2 ;;
	--version=*) [[ ${1#--version=} == 2 ]] && default_name=v2; [[ ${1#--version=} == 3 ]] && default_name=v3; shift ;;
	*) echo "usage: $0 [--version 1|2|3]" >&2; exit 2 ;;
	esac
done
[[ $default_name == v3 ]] && exec bash "$(dirname "$0")/influxdb3.sh" stop

state=${TSLOAD_STATE:-/tmp/tsload}
name=${INFLUX_NAME:-$default_name}
dir=$state/influx/$name
pidfile=$dir/influxd.pid

say() { echo "$*" >&2; }

stop_pidfile "$pidfile" "influxdb $name"
if [[ ${INFLUX_PURGE:-0} == 1 ]]; then
	rm -rf "$dir"
fi
