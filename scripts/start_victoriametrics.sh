#!/usr/bin/env bash
# Start a throwaway single-node VictoriaMetrics on 127.0.0.1 for tsload (idempotent).
#
#   scripts/start_victoriametrics.sh                # start (or confirm running), wait for /health
#   scripts/start_victoriametrics.sh --build-only   # only build and cache the server
#   scripts/stop_victoriametrics.sh                 # stop it
#
# The server is built once from its Go module (go install
# github.com/VictoriaMetrics/VictoriaMetrics/app/victoria-metrics@v1.151.0, the newest release
# that builds with Go 1.26) and cached as
# ${TSLOAD_CACHE:-$HOME/.cache/tsload}/victoria-metrics-v1.151.0/victoria-metrics; a cold build
# (module download and compile, nothing cached) took 65 s here. Its data lives under
# $TSLOAD_STATE/victoriametrics/$VM_NAME and survives a restart; VM_FRESH=1 wipes it first.
#
# Settings the loader relies on (pkg/target/victoriametrics reads them back from /metrics and
# records them in the results' setup):
#   -dedup.minScrapeInterval=1ms   a series keeps one sample per millisecond, so a batch sent
#                                  again (a retry, a resumed load) overwrites the samples it
#                                  wrote instead of storing them twice; VictoriaMetrics keeps
#                                  millisecond timestamps anyway.
#   -retentionPeriod=100y          benchmark files start in 2016: the default (1 month) would
#                                  drop their rows silently.
#
# Environment:
#   TSLOAD_CACHE      build cache                  (default $HOME/.cache/tsload)
#   TSLOAD_STATE      state root                   (default /tmp/tsload)
#   VM_NAME           instance name                (default main)
#   VM_PORT           HTTP port                    (default 8428, VictoriaMetrics' own)
#   VM_DEDUP          -dedup.minScrapeInterval     (default 1ms; 0 turns deduplication off)
#   VM_MEMORY_PERCENT -memory.allowedPercent       (default 20: the machine is shared)
#   VM_WAIT           seconds to wait for /health  (default 60)
#   VM_FRESH=1        wipe the instance's data before starting
#   VM_BUILD_LOG      build log                    (default beside the cached binary)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

say() { echo "start_victoriametrics: $*" >&2; }

build_only=0
while [[ $# -gt 0 ]]; do
	case $1 in
	--build-only) build_only=1; shift ;;
	*) echo "usage: $0 [--build-only]" >&2; exit 2 ;;
	esac
done

version=v1.151.0
cache=${TSLOAD_CACHE:-$HOME/.cache/tsload}/victoria-metrics-$version
bin=$cache/victoria-metrics
state=${TSLOAD_STATE:-/tmp/tsload}
name=${VM_NAME:-main}
port=${VM_PORT:-8428}
dedup=${VM_DEDUP:-1ms}
mem_percent=${VM_MEMORY_PERCENT:-20}
wait_s=${VM_WAIT:-60}
dir=$state/victoriametrics/$name
pidfile=$dir/victoria-metrics.pid
log=$dir/victoria-metrics.log
url=http://127.0.0.1:$port

# build: go install the pinned release into $cache (once; a lock keeps two starts from building
# it twice).
build() {
	[[ -x $bin ]] && return 0
	command -v go >/dev/null 2>&1 || { say "go is needed to build VictoriaMetrics $version"; exit 1; }
	mkdir -p "$cache"
	exec 8>"$cache/build.lock"
	flock 8
	[[ -x $bin ]] && return 0
	local work start blog=${VM_BUILD_LOG:-$cache/build.log}
	work=$(mktemp -d "$cache/build.XXXXXX")
	start=$(date +%s)
	say "building VictoriaMetrics $version from its Go module (once; cached as $bin; log $blog)"
	if ! GOBIN=$work GOFLAGS= go install \
		-ldflags "-X github.com/VictoriaMetrics/VictoriaMetrics/lib/buildinfo.Version=victoria-metrics-$version" \
		"github.com/VictoriaMetrics/VictoriaMetrics/app/victoria-metrics@$version" >"$blog" 2>&1; then
		say "VictoriaMetrics $version build failed after $(($(date +%s) - start))s; last log lines:"
		tail -n 30 "$blog" >&2
		rm -rf "$work"
		exit 1
	fi
	mv "$work/victoria-metrics" "$bin"
	rm -rf "$work"
	say "built VictoriaMetrics $version in $(($(date +%s) - start))s"
}

health() {
	[[ $(curl -s --max-time 2 "$url/health" 2>/dev/null || true) == OK ]]
}

command -v curl >/dev/null 2>&1 || apt_install curl
build
[[ $build_only == 1 ]] && exit 0

# Leave a running server alone (this script's, or whatever answers on the port).
if pid=$(running_pid "$pidfile"); then
	wait_up "$pid" "$wait_s" "$log" "VictoriaMetrics $name" health || exit 1
	say "VictoriaMetrics $name already running at $url (pid $pid)"
	exit 0
fi
if foreign_server VictoriaMetrics "a server already answers $url/health" VM_PORT health; then
	exit 0
fi

if [[ ${VM_FRESH:-0} == 1 ]]; then
	rm -rf "$dir"
fi
mkdir -p "$dir/data"
nohup "$bin" \
	-httpListenAddr="127.0.0.1:$port" \
	-storageDataPath="$dir/data" \
	-retentionPeriod=100y \
	-dedup.minScrapeInterval="$dedup" \
	-memory.allowedPercent="$mem_percent" \
	-loggerLevel=WARN \
	>"$log" 2>&1 </dev/null &
echo $! >"$pidfile"
wait_up "$(cat "$pidfile")" "$wait_s" "$log" "VictoriaMetrics $name" health || exit 1
say "VictoriaMetrics $name started at $url (pid $(cat "$pidfile"), data $dir/data, dedup $dedup)"
