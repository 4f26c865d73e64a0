#!/usr/bin/env bash
# InfluxDB 3 Core 3.6.0 for the tests and examples: unpack (once, cached), start, stop.
# Called by scripts/start_influxdb.sh --version 3 and scripts/stop_influxdb.sh --version 3.
#
#   scripts/influxdb3.sh start   # unpack if needed, start on 127.0.0.1:8181, create the admin token
#   scripts/influxdb3.sh stop    # SIGTERM (SIGKILL after 30 s)
#
# No package registry carries an InfluxDB 3 server, so this uses a binary built from InfluxData's
# v3.6.0 source, kept xz-compressed beside the repository in
# ../shared/vendor/influxdb3-3.6.0-linux-amd64.xz (see the README there: it needs AVX2 and
# libpython3.11, which is installed with apt-get when missing). It is unpacked once into
# ${TSLOAD_CACHE:-$HOME/.cache/tsload}/influxdb3-3.6.0. When the binary is absent the script says
# so in one line and exits 1.
#
# The server runs as a user gets it: authentication on. On the first start the script creates the
# admin token (influxdb3 create token --admin) and keeps it, readable by its owner only, in
# $TSLOAD_STATE/influx/$INFLUX_NAME/admin-token; tests and scripts read it from there
# (INFLUX3_TOKEN_FILE in the tests). The token lives in the server's catalog, so it survives a
# restart; INFLUX_PURGE=1 on stop removes data and token together.
#
# Environment:
#   TSLOAD_INFLUXDB3_BIN  the server: the .xz above or an unpacked executable
#   TSLOAD_CACHE          unpack directory                (default $HOME/.cache/tsload)
#   TSLOAD_STATE          state root                      (default /tmp/tsload)
#   INFLUX_NAME           instance name                   (default v3)
#   INFLUX_PORT           HTTP port                       (default 8181); the admin-token
#                         recovery listener takes INFLUX_PORT+1
#   INFLUX_WAIT           seconds to wait for the server  (default 60)
#   INFLUX3_MAX_REQUEST   --max-http-request-size in bytes (default: the server's 10485760)
#   INFLUX3_ARGS          more arguments of influxdb3 serve, split at spaces (e.g.
#                         "--wal-snapshot-size 1" to persist Parquet files at once)
#   INFLUX3_FRESH=1       wipe the instance's data (and token) before starting
#   INFLUXDB3_DELETE_GRACE_PERIOD  the server's own setting (default here 5s; the server's 24h):
#                         how long a hard-deleted database stays in the catalog. Core counts the
#                         tables of every database still in the catalog, deleted ones too, against
#                         its fixed limit of 2000 tables, so a server that drops and recreates
#                         databases between runs (load --drop-db, the tests) would reach it.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

version=3.6.0
root=$(cd "$(dirname "$0")/.." && pwd)
vendor=$(vendor_dir "$root")
bin_src=${TSLOAD_INFLUXDB3_BIN:-$vendor/influxdb3-$version-linux-amd64.xz}
cache=${TSLOAD_CACHE:-$HOME/.cache/tsload}/influxdb3-$version
state=${TSLOAD_STATE:-/tmp/tsload}
name=${INFLUX_NAME:-v3}
port=${INFLUX_PORT:-8181}
wait_s=${INFLUX_WAIT:-60}
dir=$state/influx/$name
pidfile=$dir/influxdb3.pid
log=$dir/influxdb3.log
tokenfile=$dir/admin-token
url=http://127.0.0.1:$port

say() { echo "influxdb3: $*" >&2; }

# is_v3: an InfluxDB 3 answers /ping on the port: 200 with x-influxdb-version 3.x, or (auth
# on) 401 with an empty body and no version header.
is_v3() {
	local out
	out=$(curl -s -o /dev/null -D - --max-time 2 "$url/ping" 2>/dev/null) || return 1
	grep -qi '^x-influxdb-version: 3\.' <<<"$out" || grep -q '^HTTP/1.1 401' <<<"$out"
}

# healthy: /health answers OK with the admin token.
healthy() {
	local auth=()
	[[ -s $tokenfile ]] && auth=(-H "Authorization: Bearer $(cat "$tokenfile")")
	[[ $(curl -s --max-time 2 "${auth[@]}" "$url/health" 2>/dev/null) == OK ]]
}

# up waits until the server of pid $1 answers as an InfluxDB 3.
up() { wait_up "$1" "$wait_s" "$log" "InfluxDB 3 $name" is_v3; }

# ensure_token creates the admin token once (a server accepts that only while it has none).
ensure_token() {
	[[ -s $tokenfile ]] && return 0
	local out tok
	if ! out=$("$bin" create token --admin --host "$url" --format json 2>&1); then
		say "could not create the admin token: $out"
		say "(a server whose token was lost: stop it with INFLUX_PURGE=1 and start again)"
		return 1
	fi
	tok=$(printf '%s\n' "$out" | sed -nE 's/.*"token"[[:space:]]*:[[:space:]]*"([^"]+)".*/\1/p' | head -n 1)
	if [[ -z $tok ]]; then
		say "no token in the answer of influxdb3 create token --admin"
		return 1
	fi
	(umask 077 && printf '%s\n' "$tok" >"$tokenfile.tmp" && mv -f "$tokenfile.tmp" "$tokenfile")
}

unpack() {
	if [[ ! -f $bin_src ]]; then
		say "no InfluxDB 3 server binary at $bin_src (set TSLOAD_INFLUXDB3_BIN): InfluxDB 3 not started"
		exit 1
	fi
	bin=$(unpacked "$bin_src" "$cache/influxdb3" "InfluxDB 3") || exit 1
}

runtime_deps() {
	if ! grep -qw avx2 /proc/cpuinfo; then
		say "this CPU has no AVX2, which the InfluxDB 3 binary ($bin) was built for: not started"
		exit 1
	fi
	# The processing engine embeds Python: the binary links libpython3.11.
	if ldd "$bin" 2>/dev/null | grep -q 'not found'; then
		apt_install libpython3.11
	fi
	if ldd "$bin" 2>/dev/null | grep 'not found' >&2; then
		say "$bin misses the libraries above: not started"
		exit 1
	fi
}

start() {
	command -v curl >/dev/null 2>&1 || apt_install curl
	local pid
	# Leave a running server alone (this script's, or an InfluxDB 3 on the port).
	if pid=$(running_pid "$pidfile"); then
		up "$pid"
		[[ -s $tokenfile ]] || { unpack; ensure_token; }
		say "InfluxDB 3 $name already running at $url (pid $pid)"
		return 0
	fi
	if foreign_server "InfluxDB 3" "an InfluxDB 3 already answers $url" INFLUX_PORT is_v3; then
		return 0
	fi
	unpack
	runtime_deps
	if [[ ${INFLUX3_FRESH:-0} == 1 ]]; then
		rm -rf "$dir"
	fi
	mkdir -p "$dir/data"
	local args=(serve --node-id "$name" --object-store file --data-dir "$dir/data"
		--http-bind "127.0.0.1:$port" --admin-token-recovery-http-bind "127.0.0.1:$((port + 1))"
		--disable-telemetry-upload)
	[[ -n ${INFLUX3_MAX_REQUEST:-} ]] && args+=(--max-http-request-size "$INFLUX3_MAX_REQUEST")
	# shellcheck disable=SC2206 # split at spaces on purpose
	[[ -n ${INFLUX3_ARGS:-} ]] && args+=($INFLUX3_ARGS)
	INFLUXDB3_DELETE_GRACE_PERIOD=${INFLUXDB3_DELETE_GRACE_PERIOD:-5s} LOG_FILTER=${LOG_FILTER:-warn} nohup "$bin" "${args[@]}" >"$log" 2>&1 </dev/null &
	pid=$!
	echo "$pid" >"$pidfile"
	up "$pid"
	ensure_token
	local i
	for ((i = 0; i < wait_s * 4; i++)); do
		if healthy; then
			say "InfluxDB 3 $name ready at $url (pid $pid, data $dir/data, admin token in $tokenfile)"
			return 0
		fi
		sleep 0.25
	done
	say "InfluxDB 3 $name: /health not OK within ${wait_s}s; log: $log"
	return 1
}

stop() {
	stop_pidfile "$pidfile" "InfluxDB 3 $name"
	if [[ ${INFLUX_PURGE:-0} == 1 ]]; then
		rm -rf "$dir"
	fi
}

case ${1:-} in
start) start ;;
stop) stop ;;
*) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
