#!/usr/bin/env bash
# Start a throwaway InfluxDB bound to 127.0.0.1.
#
#   scripts/start_influxdb.sh               # 1.x: Debian's influxdb package, port 8086
#   scripts/start_influxdb.sh --version 2   # 2.7.12 built from its Go module, port 8087
#   scripts/start_influxdb.sh --version 3   # 3 Core 3.6.0 from ../shared/vendor, port 8181
#                                           # (scripts/influxdb3.sh has its environment)
#
# Idempotent: if the instance named INFLUX_NAME already answers /ping, nothing
# is done.
#
# Version 1 installs the package with apt-get when influxd is missing.
#
# Version 2 builds influxd 2.7.12 once (its Flux engine links libflux, built from
# the Rust sources inside the flux module by cargo through the pkg-config wrapper
# InfluxData publishes as a Go module) and caches the binary as
# ~/.cache/tsload/influxd-2.7.12/influxd; later runs start it in seconds. It then
# runs the one-time setup (POST /api/v2/setup) with a fixed org, bucket and token,
# so the tests and examples can use:
#   --api v2 --org tsload --token tsload-test-token   (INFLUX2_ORG, INFLUX2_TOKEN)
# Version 2 environment: INFLUX_PORT (default 8087), INFLUX_NAME (default v2),
# INFLUX2_ORG (tsload), INFLUX2_BUCKET (tsload), INFLUX2_TOKEN (tsload-test-token),
# INFLUX2_BUILD_LOG (default ~/.cache/tsload/influxd-2.7.12/build.log),
# INFLUX_CACHE_MAX / INFLUX_CACHE_SNAPSHOT (bytes; a second tiny-cache instance:
#   INFLUX_NAME=v2tiny INFLUX_PORT=18087 INFLUX_CACHE_MAX=1048576 INFLUX_CACHE_SNAPSHOT=262144 \
#     scripts/start_influxdb.sh --version 2).
#
# Version 1 environment:
#   TSLOAD_STATE      state root                     (default /tmp/tsload)
#   INFLUX_NAME       instance name, its directory   (default main)
#                     is $TSLOAD_STATE/influx/$INFLUX_NAME
#   INFLUX_PORT       HTTP port                      (default 8086)
#   INFLUX_RPC_PORT   RPC (backup/restore) port      (default 8088)
#   INFLUX_CACHE_MAX  [data] cache-max-memory-size   (default 1g; e.g. 1m for a
#                     second instance that answers 500 cache-max-memory-size exceeded)
#   INFLUX_CACHE_SNAPSHOT [data] cache-snapshot-memory-size (default 25m; make it
#                     smaller than INFLUX_CACHE_MAX, e.g. 256k, or a full cache never drains)
#   INFLUX_WAIT       seconds to wait for /ping      (default 60)
#
# Second instance for the cache-full test (answers 500 "engine: cache-max-memory-size
# exceeded: (used/limit)" under load, then drains as snapshots are written):
#   INFLUX_PORT=18086 INFLUX_RPC_PORT=18088 INFLUX_NAME=tiny INFLUX_CACHE_MAX=1m \
#     INFLUX_CACHE_SNAPSHOT=256k scripts/start_influxdb.sh
set -euo pipefail

version=1
while [[ $# -gt 0 ]]; do
	case $1 in
	--version) version=${2:?--version needs 1, 2 or 3}; shift 2 ;;
	--version=*) version=${1#--version=}; shift ;;
	*) echo "usage: $0 [--version 1|2|3]" >&2; exit 2 ;;
	esac
done
case $version in
1) ;;
2) exec bash "$(dirname "$0")/influxdb2.sh" start ;;
3) exec bash "$(dirname "$0")/influxdb3.sh" start ;;
*) echo "unknown InfluxDB version $version (1, 2 or 3)" >&2; exit 2 ;;
esac

state=${TSLOAD_STATE:-/tmp/tsload}
name=${INFLUX_NAME:-main}
port=${INFLUX_PORT:-8086}
rpc_port=${INFLUX_RPC_PORT:-8088}
cache_max=${INFLUX_CACHE_MAX:-1g}
cache_snapshot=${INFLUX_CACHE_SNAPSHOT:-25m}
wait_s=${INFLUX_WAIT:-60}
dir=$state/influx/$name
url=http://127.0.0.1:$port

ping() {
	local code
	code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$url/ping" 2>/dev/null || true)
	[[ $code == 204 ]]
}

if ! command -v influxd >/dev/null 2>&1; then
	echo "influxd not found: installing Debian's influxdb package" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq influxdb curl >/dev/null
	# The package may start a service; this script runs its own instance.
	if command -v service >/dev/null 2>&1; then service influxdb stop >/dev/null 2>&1 || true; fi
fi
command -v curl >/dev/null 2>&1 || { apt-get update -qq; apt-get install -y -qq curl >/dev/null; }

if [[ -f $dir/influxd.pid ]] && kill -0 "$(cat "$dir/influxd.pid")" 2>/dev/null; then
	if ping; then
		echo "influxdb $name already running at $url (pid $(cat "$dir/influxd.pid"))" >&2
		exit 0
	fi
fi
if ping; then
	echo "port $port already answers /ping but not from instance $name ($dir): refusing to start" >&2
	exit 1
fi

mkdir -p "$dir/meta" "$dir/data" "$dir/wal"
cat >"$dir/influxdb.conf" <<CONF
reporting-disabled = true
bind-address = "127.0.0.1:$rpc_port"

[meta]
  dir = "$dir/meta"
  retention-autocreate = true
  logging-enabled = true

[data]
  dir = "$dir/data"
  wal-dir = "$dir/wal"
  wal-fsync-delay = "0s"
  query-log-enabled = false
  cache-max-memory-size = "$cache_max"
  cache-snapshot-memory-size = "$cache_snapshot"

[monitor]
  store-enabled = false

[http]
  enabled = true
  bind-address = "127.0.0.1:$port"
  auth-enabled = false
  log-enabled = false
  pprof-enabled = false
  unix-socket-enabled = false
  max-body-size = 25000000

[logging]
  level = "warn"
  suppress-logo = true
CONF

nohup influxd -config "$dir/influxdb.conf" >"$dir/influxd.log" 2>&1 </dev/null &
echo $! >"$dir/influxd.pid"

for ((i = 0; i < wait_s * 4; i++)); do
	if ping; then
		echo "influxdb $name started at $url (pid $(cat "$dir/influxd.pid"), log $dir/influxd.log)" >&2
		exit 0
	fi
	if ! kill -0 "$(cat "$dir/influxd.pid")" 2>/dev/null; then
		echo "influxd exited; last log lines:" >&2
		tail -n 20 "$dir/influxd.log" >&2 || true
		exit 1
	fi
	sleep 0.25
done
echo "influxdb $name did not answer $url/ping within ${wait_s}s; log: $dir/influxd.log" >&2
exit 1
