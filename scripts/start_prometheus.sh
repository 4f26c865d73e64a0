#!/usr/bin/env bash
# Start a throwaway Prometheus on 127.0.0.1 for tsload (idempotent), taking remote writes.
#
#   scripts/start_prometheus.sh                      # Debian's 2.42.0: start (or confirm running)
#   scripts/start_prometheus.sh --version 3.16.0     # 3.16.0, built once from its Go module
#   scripts/start_prometheus.sh --build-only         # only install (or build) and cache the server
#   scripts/stop_prometheus.sh                       # stop it
#
# Two servers, one script:
#   2.42.0 (default, what CI uses)  Debian bookworm's package: `apt-get download prometheus` and
#                                   `dpkg-deb -x` into ${TSLOAD_CACHE:-$HOME/.cache/tsload}/prometheus-2.42.0
#                                   (seconds; nothing is installed system-wide).
#   3.16.0 (opt-in)                 go install -ldflags "-X github.com/prometheus/common/version.Version=3.16.0"
#                                   github.com/prometheus/prometheus/cmd/prometheus@v0.316.0, cached as
#                                   .../prometheus-3.16.0/prometheus: a cold build takes over 10 minutes
#                                   on 2 cores and ~800 MB of module cache, too slow for CI. Its web UI
#                                   is not built in; the API (all tsload uses) is.
# Both run with the same settings, written to $dir/prometheus.yml and the command line:
#   --web.enable-remote-write-receiver         POST /api/v1/write (remote write 1.0)
#   storage.tsdb.out_of_order_time_window 100y generated data starts in 2016: without a window a
#                                              sample older than the head block is refused
#                                              ("out of bounds"), and samples of one series must
#                                              come in time order
#   --storage.tsdb.retention.time=100y         the 15-day default would delete 2016's blocks
#   --web.enable-admin-api                     delete_series, for --drop-db and the tests' clean-up
# No scrape jobs: the server holds only what is written to it.
#
# Its data lives under $TSLOAD_STATE/prometheus/$PROM_NAME and survives a restart; PROM_FRESH=1
# wipes it first.
#
# Environment:
#   TSLOAD_CACHE   install cache                  (default $HOME/.cache/tsload)
#   TSLOAD_STATE   state root                     (default /tmp/tsload)
#   PROM_NAME      instance name                  (default main)
#   PROM_PORT      HTTP port                      (default 9090, Prometheus' own)
#   PROM_VERSION   2.42.0 or 3.16.0               (default 2.42.0; --version sets it)
#   PROM_WAIT      seconds to wait for /-/ready   (default 60)
#   PROM_FRESH=1   wipe the instance's data before starting
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

say() { echo "start_prometheus: $*" >&2; }

build_only=0
version=${PROM_VERSION:-2.42.0}
while [[ $# -gt 0 ]]; do
	case $1 in
	--build-only) build_only=1; shift ;;
	--version)
		[[ $# -ge 2 ]] || { echo "usage: $0 [--version 2.42.0|3.16.0] [--build-only]" >&2; exit 2; }
		version=$2
		shift 2
		;;
	*) echo "usage: $0 [--version 2.42.0|3.16.0] [--build-only]" >&2; exit 2 ;;
	esac
done
case $version in
2.42.0 | 3.16.0) ;;
*) say "version $version: this script runs 2.42.0 (Debian's) or 3.16.0 (built from its Go module)"; exit 2 ;;
esac

cache=${TSLOAD_CACHE:-$HOME/.cache/tsload}/prometheus-$version
bin=$cache/prometheus
state=${TSLOAD_STATE:-/tmp/tsload}
name=${PROM_NAME:-main}
port=${PROM_PORT:-9090}
wait_s=${PROM_WAIT:-60}
dir=$state/prometheus/$name
pidfile=$dir/prometheus.pid
log=$dir/prometheus.log
url=http://127.0.0.1:$port

# install: put the server of $version at $bin (once; a lock keeps two starts from doing it twice).
install() {
	[[ -x $bin ]] && return 0
	mkdir -p "$cache"
	exec 8>"$cache/install.lock"
	flock 8
	[[ -x $bin ]] && return 0
	local work start
	work=$(mktemp -d "$cache/install.XXXXXX")
	start=$(date +%s)
	if [[ $version == 2.42.0 ]]; then
		command -v dpkg-deb >/dev/null 2>&1 || { say "dpkg-deb is needed to unpack Debian's prometheus"; exit 1; }
		say "downloading Debian's prometheus package (once; unpacked into $cache)"
		if ! (cd "$work" && apt-get download prometheus >/dev/null 2>&1); then
			apt-get -o DPkg::Lock::Timeout=900 update -qq
			(cd "$work" && apt-get download prometheus >/dev/null)
		fi
		dpkg-deb -x "$work"/prometheus_*.deb "$work/x"
		if ! "$work/x/usr/bin/prometheus" --version 2>&1 | grep -q "version $version"; then
			say "the prometheus package apt offers is not $version: $("$work/x/usr/bin/prometheus" --version 2>&1 | head -n1)"
			rm -rf "$work"
			exit 1
		fi
		mv "$work/x/usr/bin/prometheus" "$bin"
	else
		command -v go >/dev/null 2>&1 || { say "go is needed to build Prometheus $version"; exit 1; }
		say "building Prometheus $version from its Go module (once, over 10 minutes on 2 cores; log $cache/build.log)"
		if ! GOBIN=$work GOFLAGS= go install -ldflags "-X github.com/prometheus/common/version.Version=$version" \
			"github.com/prometheus/prometheus/cmd/prometheus@v0.${version%%.*}${version#*.}" >"$cache/build.log" 2>&1; then
			say "Prometheus $version build failed after $(($(date +%s) - start))s; last log lines:"
			tail -n 30 "$cache/build.log" >&2
			rm -rf "$work"
			exit 1
		fi
		mv "$work/prometheus" "$bin"
	fi
	rm -rf "$work"
	say "installed Prometheus $version as $bin in $(($(date +%s) - start))s"
}

ready() {
	[[ $(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$url/-/ready" 2>/dev/null || true) == 200 ]]
}

command -v curl >/dev/null 2>&1 || apt_install curl
install
[[ $build_only == 1 ]] && exit 0

# Leave a running server alone (this script's, or whatever answers on the port).
if pid=$(running_pid "$pidfile"); then
	wait_up "$pid" "$wait_s" "$log" "Prometheus $name" ready || exit 1
	say "Prometheus $name already running at $url (pid $pid)"
	exit 0
fi
if foreign_server Prometheus "a server already answers $url/-/ready" PROM_PORT ready; then
	exit 0
fi

if [[ ${PROM_FRESH:-0} == 1 ]]; then
	rm -rf "$dir"
fi
mkdir -p "$dir/data"
cat >"$dir/prometheus.yml" <<'YAML'
# written by scripts/start_prometheus.sh: no scrape jobs; remote writes of any age are taken
storage:
  tsdb:
    out_of_order_time_window: 100y
YAML
nohup "$bin" \
	--config.file="$dir/prometheus.yml" \
	--storage.tsdb.path="$dir/data" \
	--storage.tsdb.retention.time=100y \
	--web.listen-address="127.0.0.1:$port" \
	--web.enable-remote-write-receiver \
	--web.enable-admin-api \
	--log.level=warn \
	>"$log" 2>&1 </dev/null &
echo $! >"$pidfile"
wait_up "$(cat "$pidfile")" "$wait_s" "$log" "Prometheus $name" ready || exit 1
say "Prometheus $version ($name) started at $url (pid $(cat "$pidfile"), data $dir/data)"
