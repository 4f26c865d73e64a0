#!/usr/bin/env bash
# Start a throwaway InfluxDB bound to 127.0.0.1.
#
#   scripts/start_influxdb.sh               # 1.x: Debian's influxdb package, port 8086
#   scripts/start_influxdb.sh --version 2   # 2.7.12 built from its Go module, port 8087
#   scripts/start_influxdb.sh --version 3   # 3 Core 3.6.0 from ../shared/vendor, port 8181
#                                           # (scripts/influxdb3.sh has its environment)
#   scripts/start_influxdb.sh --source 1.13.2   # 1.x built from its Go module (1.13.2 or 1.8.3)
#                                             # instead of Debian's package, port 8086
#   scripts/start_influxdb.sh --build-only --source 1.8.3   # only build and cache it
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
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

say() { echo "$*" >&2; }

version=1
source_version=""
build_only=0
while [[ $# -gt 0 ]]; do
	case $1 in
	--source) source_version=${2:?--source needs a 1.x version, e.g. 1.13.2}; shift 2 ;;
	--build-only) build_only=1; shift ;;
	--version) version=${2:?--version needs 1, 2 or 3}; shift 2 ;;
	--version=*) version=${1#--version=}; shift ;;
	*) echo "usage: $0 [--version 1|2|3] [--source 1.x.y [--build-only]]" >&2; exit 2 ;;
	esac
done
if [[ -n $source_version && $version != 1 ]]; then
	echo "--source builds a 1.x server; it does not go with --version $version" >&2
	exit 2
fi
case $version in
1) ;;
2) exec bash "$(dirname "$0")/influxdb2.sh" start ;;
3) exec bash "$(dirname "$0")/influxdb3.sh" start ;;
*) echo "unknown InfluxDB version $version (1, 2 or 3)" >&2; exit 2 ;;
esac

# --- InfluxDB 1.x built from source (--source VERSION) ---
# The 1.x server is a Go module too (github.com/influxdata/influxdb, no /v2). 1.13.x links Flux
# through libflux (Rust, built by cargo behind InfluxData's pkg-config wrapper), as 2.7.12 does,
# with the same two adjustments (stable toolchain, lints capped at "warn"); 1.8.x's Flux (0.65)
# is pure Go. The binary is cached as ~/.cache/tsload/influxd-VERSION/influxd; the build log
# (INFLUX1_BUILD_LOG, default beside it) records each step.
influx1_source_build() {
	local v=$1
	local cache=${TSLOAD_CACHE:-$HOME/.cache/tsload}/influxd-$v
	INFLUX1_SOURCE_BIN=$cache/influxd
	[[ -x $INFLUX1_SOURCE_BIN ]] && return 0
	command -v go >/dev/null 2>&1 || { echo "go is needed to build influxd $v" >&2; exit 1; }
	mkdir -p "$cache"
	exec 8>"$cache/build.lock"
	flock 8
	[[ -x $INFLUX1_SOURCE_BIN ]] && return 0
	local work start log=${INFLUX1_BUILD_LOG:-$cache/build.log} rc
	work=$(mktemp -d "$cache/build.XXXXXX")
	start=$(date +%s)
	echo "building influxd $v from its Go module (once; cached as $INFLUX1_SOURCE_BIN; log $log)" >&2
	set +e
	(set -e; influx1_source_steps "$v" "$work") >"$log" 2>&1
	rc=$?
	set -e
	if [[ $rc != 0 ]]; then
		echo "influxd $v build failed after $(($(date +%s) - start))s; last log lines:" >&2
		tail -n 30 "$log" >&2
		rm -rf "$work"
		exit 1
	fi
	mv "$work/influxd" "$INFLUX1_SOURCE_BIN"
	rm -rf "$work"
	echo "built influxd $v in $(($(date +%s) - start))s" >&2
}

# influx1_source_steps VERSION WORK: build influxd VERSION into WORK/influxd (run in a subshell
# with errexit on).
influx1_source_steps() {
	local v=$1 work=$2 src pc
	set -x
	mkdir -p "$work/bin"
	src=$(cd "$work" && GOFLAGS= go mod download -json "github.com/influxdata/influxdb@v$v" |
		sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
	[[ -n $src && -d $src ]]
	# The module cache is read-only and `go install module@version` refuses replace directives.
	cp -r "$src" "$work/src"
	chmod -R u+w "$work/src"
	cd "$work/src"
	pc=$(sed -n 's/^[[:space:]]*github.com\/influxdata\/pkg-config \(v[^ ]*\).*/\1/p' go.mod | head -n 1)
	if [[ -n $pc ]]; then
		command -v cargo >/dev/null 2>&1 || { echo "cargo (Rust) is needed to build libflux for influxd $v" >&2; exit 1; }
		GOBIN=$work/bin GOFLAGS= go install "github.com/influxdata/pkg-config@$pc"
		rustc_cap_lints "$work/bin"
	fi
	PATH=$work/bin:$PATH \
		RUSTUP_TOOLCHAIN=stable \
		RUSTC_WRAPPER=$work/bin/rustc-cap-lints \
		GOFLAGS="-buildvcs=false -mod=mod" \
		go build -o "$work/influxd" \
		-ldflags "-X main.version=$v -X main.commit=module-v$v -X main.branch=module" \
		./cmd/influxd
	"$work/influxd" version
}

if [[ -n $source_version ]]; then
	[[ $source_version =~ ^1\.[0-9]+\.[0-9]+$ ]] || { echo "--source needs a 1.x version such as 1.13.2, not '$source_version'" >&2; exit 2; }
	influx1_source_build "$source_version"
	[[ $build_only == 1 ]] && exit 0
fi
# --- end of the 1.x source build ---

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

influxd=${INFLUX1_SOURCE_BIN:-influxd}
if [[ -z ${INFLUX1_SOURCE_BIN:-} ]] && ! command -v influxd >/dev/null 2>&1; then
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

nohup "$influxd" -config "$dir/influxdb.conf" >"$dir/influxd.log" 2>&1 </dev/null &
echo $! >"$dir/influxd.pid"

wait_up "$(cat "$dir/influxd.pid")" "$wait_s" "$dir/influxd.log" "influxdb $name" ping || exit 1
say "influxdb $name started at $url (pid $(cat "$dir/influxd.pid"), log $dir/influxd.log)"
