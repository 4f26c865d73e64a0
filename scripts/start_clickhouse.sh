#!/usr/bin/env bash
# Start a throwaway ClickHouse server on 127.0.0.1 for tsload (idempotent).
#
#   scripts/start_clickhouse.sh                  # start (or confirm running), wait for /ping
#   scripts/start_clickhouse.sh --install-only   # only download and unpack the server
#   scripts/stop_clickhouse.sh                   # stop it
#
# The server is Debian's clickhouse-server 18.16.1, installed without touching the system:
# `apt-get download` fetches it, clickhouse-common and those of their libraries that are not
# installed (16 MB), `dpkg-deb -x` unpacks them into one root under
# ${TSLOAD_CACHE:-$HOME/.cache/tsload}/clickhouse-18.16.1 (about 100 MB), and the server runs
# from there with LD_LIBRARY_PATH pointing into it. The config is written here, not taken from
# the package: every listener on 127.0.0.1, its own ports, and data, logs and temporary files
# under $TSLOAD_STATE/clickhouse/$CLICKHOUSE_NAME (they survive a restart; CLICKHOUSE_FRESH=1
# wipes them first). User `default`, no password.
#
# Environment:
#   TSLOAD_CACHE              install directory             (default $HOME/.cache/tsload)
#   TSLOAD_STATE              state root                    (default /tmp/tsload)
#   CLICKHOUSE_NAME           instance name                 (default main)
#   CLICKHOUSE_PORT           native protocol port          (default 19000: QuestDB has 9000)
#   CLICKHOUSE_HTTP_PORT      HTTP port                     (default 18123)
#   CLICKHOUSE_LISTEN         listen address                (default 127.0.0.1; another loopback
#                             address such as 127.0.0.2 frees port 9000 for TSBS's loader,
#                             which cannot be told another port)
#   CLICKHOUSE_WAIT           seconds to wait for /ping     (default 60)
#   CLICKHOUSE_FRESH=1        wipe the instance's data before starting
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

say() { echo "start_clickhouse: $*" >&2; }

install_only=0
while [[ $# -gt 0 ]]; do
	case $1 in
	--install-only) install_only=1; shift ;;
	*) echo "usage: $0 [--install-only]" >&2; exit 2 ;;
	esac
done

version=18.16.1
cache=${TSLOAD_CACHE:-$HOME/.cache/tsload}/clickhouse-$version
inst=$cache/root
bin=$inst/usr/sbin/clickhouse-server
state=${TSLOAD_STATE:-/tmp/tsload}
name=${CLICKHOUSE_NAME:-main}
port=${CLICKHOUSE_PORT:-19000}
http_port=${CLICKHOUSE_HTTP_PORT:-18123}
listen=${CLICKHOUSE_LISTEN:-127.0.0.1}
wait_s=${CLICKHOUSE_WAIT:-60}
dir=$state/clickhouse/$name
pidfile=$dir/clickhouse.pid
log=$dir/clickhouse.out
url=http://$listen:$http_port

# install: the server and the libraries this machine lacks, unpacked into $inst (once; a lock
# keeps two starts from doing it twice). Packages already installed on the system are used
# from there; the rest of clickhouse-server's dependency closure is downloaded.
install() {
	[[ -x $bin ]] && return 0
	mkdir -p "$cache"
	exec 8>"$cache/install.lock"
	flock 8
	[[ -x $bin ]] && return 0
	local work pkgs=() p updated=0
	# One `apt-get update` at most: none when the package lists already know the server
	# (another start script updated them), and a stale list is updated when a download fails.
	if ! apt-cache show "clickhouse-server=$version*" >/dev/null 2>&1; then
		apt-get -o DPkg::Lock::Timeout=900 update -qq
		updated=1
	fi
	if ! apt-cache show "clickhouse-server=$version*" >/dev/null 2>&1; then
		say "apt has no clickhouse-server $version (Debian bookworm carries it): ClickHouse not installed"
		exit 1
	fi
	# Only shared libraries and ClickHouse itself: the closure also names debconf's
	# alternatives and config-only packages, which the server does not load.
	while read -r p; do
		case $p in clickhouse-* | lib*) ;; *) continue ;; esac
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || pkgs+=("$p")
	done < <(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
		--no-replaces --no-enhances clickhouse-server | grep -v '^[ <]' | sort -u)
	work=$(mktemp -d "$cache/install.XXXXXX")
	say "downloading ${#pkgs[@]} packages (clickhouse-server $version and the libraries missing here) into $cache"
	# apt's sandbox user cannot write into root's cache directory: download as root, quietly.
	if ! (cd "$work" && apt-get -o APT::Sandbox::User=root download -qq "${pkgs[@]}" >/dev/null); then
		[[ $updated == 0 ]] || exit 1
		say "download failed: updating the package lists and trying again"
		apt-get -o DPkg::Lock::Timeout=900 update -qq
		(cd "$work" && apt-get -o APT::Sandbox::User=root download -qq "${pkgs[@]}" >/dev/null)
	fi
	mkdir -p "$work/root"
	for p in "$work"/*.deb; do
		dpkg-deb -x "$p" "$work/root"
	done
	rm -f "$work"/*.deb
	rm -rf "$inst"
	mv "$work/root" "$inst"
	rm -rf "$work"
	say "unpacked ClickHouse $version into $inst"
}

ping_ok() {
	[[ $(curl -s --max-time 2 "$url/ping" 2>/dev/null || true) == Ok. ]]
}

command -v curl >/dev/null 2>&1 || apt_install curl
install
[[ $install_only == 1 ]] && exit 0

# Leave a running server alone (this script's, or whatever answers on the port).
if pid=$(running_pid "$pidfile"); then
	wait_up "$pid" "$wait_s" "$log" "ClickHouse $name" ping_ok || exit 1
	say "ClickHouse $name already running at $url (pid $pid)"
	exit 0
fi
if ping_ok; then
	say "a server already answers $url/ping (not started as instance $name): leaving it alone"
	exit 0
fi
for p in "$port:CLICKHOUSE_PORT" "$http_port:CLICKHOUSE_HTTP_PORT"; do
	if (exec 3<>"/dev/tcp/$listen/${p%%:*}") 2>/dev/null; then
		say "port $listen:${p%%:*} is taken by another program: ClickHouse not started (set ${p#*:})"
		exit 1
	fi
done

if [[ ${CLICKHOUSE_FRESH:-0} == 1 ]]; then
	rm -rf "$dir"
fi
mkdir -p "$dir/data" "$dir/tmp" "$dir/user_files" "$dir/format_schemas"
# Caches sized for a shared machine (the package's are 5 and 8 GB).
cat >"$dir/config.xml" <<EOF
<?xml version="1.0"?>
<yandex>
    <logger>
        <level>warning</level>
        <log>$dir/clickhouse-server.log</log>
        <errorlog>$dir/clickhouse-server.err.log</errorlog>
        <size>100M</size>
        <count>2</count>
    </logger>
    <listen_host>$listen</listen_host>
    <http_port>$http_port</http_port>
    <tcp_port>$port</tcp_port>
    <max_connections>1024</max_connections>
    <keep_alive_timeout>3</keep_alive_timeout>
    <max_concurrent_queries>100</max_concurrent_queries>
    <uncompressed_cache_size>268435456</uncompressed_cache_size>
    <mark_cache_size>268435456</mark_cache_size>
    <path>$dir/data/</path>
    <tmp_path>$dir/tmp/</tmp_path>
    <user_files_path>$dir/user_files/</user_files_path>
    <format_schema_path>$dir/format_schemas/</format_schema_path>
    <users_config>users.xml</users_config>
    <default_profile>default</default_profile>
    <default_database>default</default_database>
    <timezone>UTC</timezone>
    <mlock_executable>false</mlock_executable>
</yandex>
EOF
cat >"$dir/users.xml" <<'EOF'
<?xml version="1.0"?>
<yandex>
    <profiles>
        <default>
            <max_memory_usage>4000000000</max_memory_usage>
        </default>
    </profiles>
    <users>
        <default>
            <password></password>
            <networks><ip>127.0.0.0/8</ip><ip>::1</ip></networks>
            <profile>default</profile>
            <quota>default</quota>
        </default>
    </users>
    <quotas>
        <default>
            <interval><duration>3600</duration><queries>0</queries><errors>0</errors>
                <result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval>
        </default>
    </quotas>
</yandex>
EOF

libs=$inst/usr/lib/x86_64-linux-gnu:$inst/lib/x86_64-linux-gnu:$inst/usr/lib
LD_LIBRARY_PATH=$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
	nohup "$bin" --config-file="$dir/config.xml" >"$log" 2>&1 </dev/null &
echo $! >"$pidfile"
wait_up "$(cat "$pidfile")" "$wait_s" "$log" "ClickHouse $name" ping_ok || exit 1
say "ClickHouse $version $name started at $url, native $listen:$port (pid $(cat "$pidfile"), data $dir/data)"
