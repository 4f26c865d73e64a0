#!/usr/bin/env bash
# Start a throwaway single-node CnosDB 2.4.2 on 127.0.0.1 for tsload (idempotent).
#
#   scripts/start_cnosdb.sh           # start (or confirm running), wait for /api/v1/ping
#   scripts/stop_cnosdb.sh            # stop it
#
# No package registry carries a CnosDB server, so this uses a server binary built from
# CnosDB's v2.4.2.1 source and kept, xz-compressed, beside the repository in
# ../shared/vendor/cnosdb-2.4.2.1-linux-amd64.xz with its single-node config template
# cnosdb-2.4.2.1.toml (built with every listener bound to 127.0.0.1). The binary is unpacked
# once into ${TSLOAD_CACHE:-$HOME/.cache/tsload}; the config is written from the template with
# the data, WAL and log directories under $TSLOAD_STATE/cnosdb/$CNOSDB_NAME and the ports
# below. Data survives a restart; CNOSDB_FRESH=1 wipes it first.
#
# When the binary is absent the script says so in one line and exits 1.
#
# Environment:
#   TSLOAD_CNOSDB_BIN   the server: the .xz above or an unpacked executable
#                       (default <repo>/../shared/vendor/cnosdb-2.4.2.1-linux-amd64.xz)
#   TSLOAD_CNOSDB_CONF  config template with @DATA@ for the data directory
#                       (default cnosdb-2.4.2.1.toml beside the default binary)
#   TSLOAD_CACHE        unpack directory             (default $HOME/.cache/tsload)
#   TSLOAD_STATE        state root                   (default /tmp/tsload)
#   CNOSDB_NAME         instance name                (default main)
#   CNOSDB_PORT         HTTP port (default 8902); the instance also takes PORT-1 (meta) and
#                       PORT+1..PORT+4 (gRPC, Flight, TCP, vector), so a second instance
#                       needs a port 6 or more away, e.g. CNOSDB_PORT=18902 CNOSDB_NAME=kill
#   CNOSDB_WAIT         seconds to wait for /api/v1/ping (default 60)
#   CNOSDB_FRESH=1      wipe the instance's data before starting
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

root=$(cd "$(dirname "$0")/.." && pwd)
vendor=$(vendor_dir "$root")
bin_src=${TSLOAD_CNOSDB_BIN:-$vendor/cnosdb-2.4.2.1-linux-amd64.xz}
conf_src=${TSLOAD_CNOSDB_CONF:-$vendor/cnosdb-2.4.2.1.toml}
cache=${TSLOAD_CACHE:-$HOME/.cache/tsload}
state=${TSLOAD_STATE:-/tmp/tsload}
name=${CNOSDB_NAME:-main}
port=${CNOSDB_PORT:-8902}
wait_s=${CNOSDB_WAIT:-60}
dir=$state/cnosdb/$name
pidfile=$dir/cnosdb.pid
log=$dir/cnosdb.out
url=http://127.0.0.1:$port

say() { echo "start_cnosdb: $*" >&2; }

ping_ok() {
	curl -fsS --max-time 2 "$url/api/v1/ping" 2>/dev/null | grep -q '"status":"healthy"'
}

wait_ready() {
	wait_up "$1" "$wait_s" "$log" "CnosDB $name" ping_ok || return 1
	say "CnosDB $name ready at $url (pid $1, data $dir)"
}

command -v curl >/dev/null 2>&1 || apt_install curl

# Leave a running server alone (this script's, or whatever answers on the port).
if pid=$(running_pid "$pidfile"); then
	say "CnosDB $name already running (pid $pid)"
	wait_ready "$pid"
	exit
fi
if ping_ok; then
	say "a CnosDB already answers $url/api/v1/ping (not started as instance $name): leaving it alone"
	exit 0
fi

if [[ ! -f $bin_src ]]; then
	say "no CnosDB server binary at $bin_src (set TSLOAD_CNOSDB_BIN): CnosDB not started"
	exit 1
fi
if [[ ! -f $conf_src ]]; then
	say "no CnosDB config template at $conf_src (set TSLOAD_CNOSDB_CONF): CnosDB not started"
	exit 1
fi

# Unpack once (again only when the source is newer than the unpacked copy).
bin=$(unpacked "$bin_src" "$cache/$(basename "$bin_src" .xz)/cnosdb" CnosDB) || exit 1

if [[ ${CNOSDB_FRESH:-0} == 1 ]]; then
	rm -rf "$dir"
fi
mkdir -p "$dir"

# The template's ports are 8901-8906; move them all with the HTTP port.
conf=$dir/cnosdb.toml
sed -e "s|@DATA@|$dir|g" \
	-e "s|127\.0\.0\.1:8901|127.0.0.1:$((port - 1))|" \
	-e "s|^http_listen_port = .*|http_listen_port = $port|" \
	-e "s|^grpc_listen_port = .*|grpc_listen_port = $((port + 1))|" \
	-e "s|^flight_rpc_listen_port = .*|flight_rpc_listen_port = $((port + 2))|" \
	-e "s|^tcp_listen_port = .*|tcp_listen_port = $((port + 3))|" \
	-e "s|^vector_listen_port = .*|vector_listen_port = $((port + 4))|" \
	"$conf_src" >"$conf"
for want in "127.0.0.1:$((port - 1))" "http_listen_port = $port" "vector_listen_port = $((port + 4))" "path = '$dir/db'"; do
	if ! grep -qF "$want" "$conf"; then
		say "config template $conf_src has no line to set \"$want\": CnosDB not started"
		exit 1
	fi
done

# A port taken by another program would end the server with a panic trace: say which one.
for p in $((port - 1)) $port $((port + 1)) $((port + 2)) $((port + 3)) $((port + 4)); do
	if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
		say "port $p (of $((port - 1))-$((port + 4))) is taken by another program: CnosDB not started (set CNOSDB_PORT)"
		exit 1
	fi
done

nohup "$bin" run --deployment-mode singleton --config "$conf" >"$log" 2>&1 </dev/null &
echo $! >"$pidfile"
wait_ready "$!"
