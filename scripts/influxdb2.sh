#!/usr/bin/env bash
# InfluxDB 2.7.12 for the tests and examples: build (once, cached) and start.
# Called by scripts/start_influxdb.sh --version 2 (see there for the environment); stop it with
# scripts/stop_influxdb.sh --version 2.
#
#   scripts/influxdb2.sh build   # only build and cache influxd
#   scripts/influxdb2.sh start   # build if needed, start on 127.0.0.1:8087, set up org/bucket/token
#
# Why a build: InfluxData ships 2.x as binaries and packages that cannot be fetched here, but the
# server is a Go module. Its Flux engine (the flux module) links libflux, a Rust library whose
# sources ride inside the flux module; InfluxData's pkg-config wrapper (a Go module too) answers
# cgo's pkg-config call for "flux" by building it with cargo. Two adjustments make that work with
# a current Rust: libflux pins a Rust release that is not installed, so the stable toolchain is
# forced; and flux-core denies warnings that newer Rust raises, as a build dependency that
# RUSTFLAGS does not reach, so a rustc wrapper caps lints at "warn" on every call without a cap.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

say() { echo "$*" >&2; }

influx_version=2.7.12
pkgconfig_version=v0.2.14
state=${TSLOAD_STATE:-/tmp/tsload}
name=${INFLUX_NAME:-v2}
port=${INFLUX_PORT:-8087}
org=${INFLUX2_ORG:-tsload}
bucket=${INFLUX2_BUCKET:-tsload}
token=${INFLUX2_TOKEN:-tsload-test-token}
wait_s=${INFLUX_WAIT:-60}
cache=${TSLOAD_CACHE:-$HOME/.cache/tsload}/influxd-$influx_version
bin=$cache/influxd
build_log=${INFLUX2_BUILD_LOG:-$cache/build.log}
dir=$state/influx/$name
url=http://127.0.0.1:$port

need_tools() {
	local missing=()
	command -v curl >/dev/null 2>&1 || missing+=(curl)
	command -v cc >/dev/null 2>&1 || missing+=(gcc)
	command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
	if ((${#missing[@]})); then
		apt_install "${missing[@]}"
	fi
	command -v go >/dev/null 2>&1 || { echo "go is needed to build influxd $influx_version" >&2; exit 1; }
	command -v cargo >/dev/null 2>&1 || { echo "cargo (Rust) is needed to build libflux for influxd $influx_version" >&2; exit 1; }
}

build() {
	[[ -x $bin ]] && return 0
	need_tools
	mkdir -p "$cache"
	# One build at a time, even when two test runs start together.
	exec 9>"$cache/build.lock"
	flock 9
	[[ -x $bin ]] && return 0

	local work start
	work=$(mktemp -d "$cache/build.XXXXXX")
	start=$(date +%s)
	echo "building influxd $influx_version (once; cached as $bin; log $build_log)" >&2
	bash "$0" _steps "$work" >"$build_log" 2>&1 || {
		echo "influxd $influx_version build failed after $(($(date +%s) - start))s; last log lines:" >&2
		tail -n 30 "$build_log" >&2
		rm -rf "$work"
		exit 1
	}
	mv "$work/influxd" "$bin"
	rm -rf "$work"
	echo "built influxd $influx_version in $(($(date +%s) - start))s" >&2
}

# build_steps builds influxd into $1/influxd. It runs as its own bash process
# (errexit holds there, unlike in a group on the left of ||).
build_steps() {
	local work=$1
	set -x
	GOBIN=$work/bin GOFLAGS= go install "github.com/influxdata/pkg-config@$pkgconfig_version"
	rustc_cap_lints "$work/bin"
	local src
	src=$(cd "$work" && GOFLAGS= go mod download -json "github.com/influxdata/influxdb/v2@v$influx_version" |
		sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
	[[ -n $src && -d $src ]]
	# The module cache is read-only and `go install module@version` refuses a go.mod
	# with replace directives: build inside a writable copy.
	cp -r "$src" "$work/src"
	chmod -R u+w "$work/src"
	cd "$work/src"
	PATH=$work/bin:$PATH \
		RUSTUP_TOOLCHAIN=stable \
		RUSTC_WRAPPER=$work/bin/rustc-cap-lints \
		GOFLAGS=-buildvcs=false \
		go build -o "$work/influxd" \
		-ldflags "-X main.version=v$influx_version -X main.commit=module-v$influx_version -X main.date=$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
		./cmd/influxd
	"$work/influxd" version
}

ping() {
	local code
	code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$url/ping" 2>/dev/null || true)
	[[ $code == 204 ]]
}

setup() {
	# POST /api/v2/setup answers 201 the first time and 422 "onboarding has already been
	# completed" afterwards; GET tells which, so reruns are quiet.
	local allowed
	allowed=$(curl -sS --max-time 10 "$url/api/v2/setup")
	if [[ $allowed == *'"allowed": false'* || $allowed == *'"allowed":false'* ]]; then
		return 0
	fi
	local code
	code=$(curl -sS -o "$dir/setup.json" -w '%{http_code}' --max-time 30 -X POST "$url/api/v2/setup" \
		-H 'Content-Type: application/json' \
		--data "{\"username\":\"tsload\",\"password\":\"tsload-password\",\"org\":\"$org\",\"bucket\":\"$bucket\",\"token\":\"$token\"}")
	if [[ $code != 201 ]]; then
		echo "influxdb $name: setup answered $code: $(cat "$dir/setup.json")" >&2
		exit 1
	fi
	rm -f "$dir/setup.json"
}

start() {
	build
	if [[ -f $dir/influxd.pid ]] && kill -0 "$(cat "$dir/influxd.pid")" 2>/dev/null && ping; then
		setup
		echo "influxdb $name ($influx_version) already running at $url (pid $(cat "$dir/influxd.pid"))" >&2
		return 0
	fi
	if ping; then
		echo "port $port already answers /ping but not from instance $name ($dir): refusing to start" >&2
		exit 1
	fi
	mkdir -p "$dir"
	local cache_flags=()
	[[ -n ${INFLUX_CACHE_MAX:-} ]] && cache_flags+=(--storage-cache-max-memory-size "$INFLUX_CACHE_MAX")
	[[ -n ${INFLUX_CACHE_SNAPSHOT:-} ]] && cache_flags+=(--storage-cache-snapshot-memory-size "$INFLUX_CACHE_SNAPSHOT")
	nohup "$bin" \
		--bolt-path "$dir/influxd.bolt" \
		--engine-path "$dir/engine" \
		--sqlite-path "$dir/influxd.sqlite" \
		--http-bind-address "127.0.0.1:$port" \
		--reporting-disabled \
		--log-level warn \
		"${cache_flags[@]}" \
		>"$dir/influxd.log" 2>&1 </dev/null &
	echo $! >"$dir/influxd.pid"
	wait_up "$(cat "$dir/influxd.pid")" "$wait_s" "$dir/influxd.log" "influxdb $name" ping || exit 1
	setup
	say "influxdb $name ($influx_version) started at $url (pid $(cat "$dir/influxd.pid"), log $dir/influxd.log)"
}

case ${1:-} in
build) build ;;
_steps) build_steps "$2" ;;
start) start ;;
*) echo "usage: $0 build|start" >&2; exit 2 ;;
esac
