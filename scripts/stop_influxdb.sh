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

if [[ ! -f $pidfile ]]; then
	echo "influxdb $name: no pid file $pidfile (not running)" >&2
else
	pid=$(cat "$pidfile")
	if kill -0 "$pid" 2>/dev/null; then
		kill "$pid"
		for ((i = 0; i < 120; i++)); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.25
		done
		if kill -0 "$pid" 2>/dev/null; then
			echo "influxdb $name (pid $pid) did not stop in 30s: sending SIGKILL" >&2
			kill -9 "$pid" 2>/dev/null || true
		fi
		echo "influxdb $name stopped (pid $pid)" >&2
	else
		echo "influxdb $name: pid $pid not running" >&2
	fi
	rm -f "$pidfile"
fi
if [[ ${INFLUX_PURGE:-0} == 1 ]]; then
	rm -rf "$dir"
fi
