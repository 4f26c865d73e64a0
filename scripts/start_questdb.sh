#!/usr/bin/env bash
# Start a throwaway QuestDB server on 127.0.0.1 for tsload (idempotent).
#
#   scripts/start_questdb.sh          # start (or confirm running), wait for /ping
#   scripts/stop_questdb.sh           # stop it
#
# Fetches org.questdb:questdb from Maven Central with mvn (the jar carries its
# native libraries), caches it under ${TSLOAD_CACHE:-$HOME/.cache/tsload}, and
# runs io.questdb.ServerMain with root ${TSLOAD_STATE:-/tmp/tsload}/questdb.
#
# Environment:
#   QUESTDB_VERSION   jar version (default 9.3.4: the latest 9.3.x, the last
#                     line built for Java 17; 9.4+ needs Java 25)
#   QUESTDB_JAVA      java binary (default: java on PATH)
#   QUESTDB_XMX       heap size (default 1g)
#   QUESTDB_WORKERS   shared worker count (default 2, for a 2-core machine)
#   QUESTDB_ROOT      server root (default $TSLOAD_STATE/questdb)
#   QUESTDB_START_TIMEOUT  seconds to wait for /ping (default 90)
#   QUESTDB_FRESH=1   wipe the root's data before starting
#   QUESTDB_HTTP_PORT, QUESTDB_PG_PORT, QUESTDB_ILP_PORT, QUESTDB_MIN_PORT
#                     ports (a second server beside the first, with its own
#                     QUESTDB_ROOT: the kill tests)
# Ports: HTTP 9000 (ILP/HTTP, /exec, /ping), PG wire 8812, ILP/TCP 9009,
# min-HTTP (health) 9003; all bound to 127.0.0.1.
set -euo pipefail

VERSION="${QUESTDB_VERSION:-9.3.4}"
CACHE="${TSLOAD_CACHE:-$HOME/.cache/tsload}"
STATE="${TSLOAD_STATE:-/tmp/tsload}"
ROOT="${QUESTDB_ROOT:-$STATE/questdb}"
JAVA="${QUESTDB_JAVA:-java}"
XMX="${QUESTDB_XMX:-1g}"
WORKERS="${QUESTDB_WORKERS:-2}"
TIMEOUT="${QUESTDB_START_TIMEOUT:-90}"
HTTP="127.0.0.1:${QUESTDB_HTTP_PORT:-9000}"
PIDFILE="$ROOT/questdb.pid"
LOG="$ROOT/log/stdout.log"
JAR="$CACHE/questdb-$VERSION.jar"

log() { echo "start_questdb: $*" >&2; }

ping_ok() { curl -fsS --max-time 2 "http://$HTTP/ping" >/dev/null 2>&1; }

# running_pid prints the pid of this root's server: the pid file's, or else
# (a pid file lost to an interrupted start or stop) the QuestDB JVM whose
# command line names this root, which it writes back to the pid file.
running_pid() {
	local pid=""
	[[ -f "$PIDFILE" ]] && pid="$(cat "$PIDFILE")"
	if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then
		echo "$pid"
		return 0
	fi
	pid="$(pgrep -f -- "io.questdb.ServerMain -d $ROOT\$" | head -n1 || true)"
	[[ -n "$pid" ]] || return 1
	echo "$pid" >"$PIDFILE"
	echo "$pid"
}

wait_ready() {
	local pid="$1" i
	for ((i = 0; i < TIMEOUT * 2; i++)); do
		if ping_ok; then
			log "QuestDB $VERSION ready on http://$HTTP (pid $pid, root $ROOT)"
			return 0
		fi
		if ! kill -0 "$pid" 2>/dev/null; then
			log "QuestDB (pid $pid) exited during start-up; last lines of $LOG:"
			tail -n 30 "$LOG" >&2 || true
			return 1
		fi
		sleep 0.5
	done
	log "QuestDB did not answer http://$HTTP/ping within ${TIMEOUT}s; last lines of $LOG:"
	tail -n 30 "$LOG" >&2 || true
	return 1
}

install_pkg() {
	command -v apt-get >/dev/null || { log "$1 missing and no apt-get to install it"; exit 1; }
	log "installing $2 with apt-get"
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >/dev/null
}

command -v curl >/dev/null || install_pkg curl curl

# One start or stop at a time per root: tests that restart the server run
# beside scripts that start it, and two JVMs racing for the port would leave
# the pid file naming the one that lost.
mkdir -p "$ROOT"
exec 8>"$ROOT/.lock"
flock 8

# Already up (this script's server or another on the same port)?
if pid="$(running_pid)"; then
	wait_ready "$pid"
	exit 0
fi
if ping_ok; then
	log "a server already answers on http://$HTTP; leaving it alone"
	exit 0
fi

command -v "$JAVA" >/dev/null || install_pkg java openjdk-17-jre-headless
java_major="$("$JAVA" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n1)"
if [[ -z "$java_major" || "$java_major" -lt 17 ]]; then
	log "QuestDB needs Java 17 or newer; $JAVA reports: $("$JAVA" -version 2>&1 | head -n1)"
	exit 1
fi
if [[ "$java_major" -lt 25 && "${VERSION%%.*}" -ge 9 ]] && [[ "$(printf '%s\n' "$VERSION" "9.4" | sort -V | head -n1)" == "9.4" ]]; then
	log "QuestDB $VERSION needs Java 25; $JAVA is Java $java_major (use QUESTDB_VERSION=9.3.4 or QUESTDB_JAVA=/path/to/java25)"
	exit 1
fi

if [[ ! -s "$JAR" ]]; then
	command -v mvn >/dev/null || install_pkg mvn maven
	mkdir -p "$CACHE"
	log "fetching org.questdb:questdb:$VERSION from Maven Central into $CACHE"
	mvn -q -B -Dstyle.color=never dependency:copy -Dartifact="org.questdb:questdb:$VERSION" -DoutputDirectory="$CACHE" >&2
	[[ -s "$JAR" ]] || { log "mvn did not produce $JAR"; exit 1; }
fi

if [[ "${QUESTDB_FRESH:-0}" == 1 ]]; then
	rm -rf "$ROOT/db" "$ROOT/.checkpoint" "$ROOT/snapshot"
fi
mkdir -p "$ROOT/conf" "$ROOT/log"
cat >"$ROOT/conf/server.conf" <<CONF
# Written by scripts/start_questdb.sh; rewritten on every start.
http.net.bind.to=$HTTP
http.min.enabled=true
http.min.net.bind.to=127.0.0.1:${QUESTDB_MIN_PORT:-9003}
pg.net.bind.to=127.0.0.1:${QUESTDB_PG_PORT:-8812}
line.tcp.net.bind.to=127.0.0.1:${QUESTDB_ILP_PORT:-9009}
line.udp.enabled=false
telemetry.enabled=false
shared.worker.count=$WORKERS
shared.network.worker.count=$WORKERS
shared.query.worker.count=$WORKERS
shared.write.worker.count=$WORKERS
pg.worker.count=1
wal.apply.worker.count=$WORKERS
CONF

log "starting QuestDB $VERSION (Java $java_major, -Xmx$XMX) with root $ROOT"
# setsid: the server survives this script and its caller's process group.
setsid nohup "$JAVA" -Xmx"$XMX" -Xms256m \
	--add-exports java.base/jdk.internal.math=io.questdb \
	-p "$JAR" -m io.questdb/io.questdb.ServerMain -d "$ROOT" \
	>>"$LOG" 2>&1 </dev/null 8>&- &
echo $! >"$PIDFILE"
wait_ready "$(cat "$PIDFILE")"
