#!/usr/bin/env bash
# Stop the QuestDB server started by scripts/start_questdb.sh (idempotent).
#   QUESTDB_KILL=1   kill -9 instead of a clean shutdown (tests use this to
#                    simulate a crash)
#   QUESTDB_WIPE=1   also delete the server root (data and logs)
set -euo pipefail

STATE="${TSLOAD_STATE:-/tmp/tsload}"
ROOT="${QUESTDB_ROOT:-$STATE/questdb}"
PIDFILE="$ROOT/questdb.pid"

log() { echo "stop_questdb: $*" >&2; }

# Serialised with start_questdb.sh on the same root (see there).
if [[ -d "$ROOT" ]]; then
	exec 8>"$ROOT/.lock"
	flock 8
fi

# A pid file that names no live process (lost to an interrupted start or
# stop) is replaced by the QuestDB JVM whose command line names this root.
if [[ -d "$ROOT" ]] && ! { [[ -f "$PIDFILE" ]] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; }; then
	found="$(pgrep -f -- "io.questdb.ServerMain -d $ROOT\$" | head -n1 || true)"
	[[ -n "$found" ]] && echo "$found" >"$PIDFILE"
fi

if [[ -f "$PIDFILE" ]]; then
	pid="$(cat "$PIDFILE")"
	if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then
		if [[ "${QUESTDB_KILL:-0}" == 1 ]]; then
			kill -9 "$pid"
			log "killed QuestDB (pid $pid) with SIGKILL"
		else
			kill "$pid"
			for ((i = 0; i < 60; i++)); do
				kill -0 "$pid" 2>/dev/null || break
				sleep 0.5
			done
			if kill -0 "$pid" 2>/dev/null; then
				log "QuestDB (pid $pid) ignored SIGTERM for 30s; sending SIGKILL"
				kill -9 "$pid"
			fi
			log "stopped QuestDB (pid $pid)"
		fi
		for ((i = 0; i < 40; i++)); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.25
		done
	else
		log "no running QuestDB for $PIDFILE"
	fi
	rm -f "$PIDFILE"
else
	log "QuestDB is not running (no $PIDFILE)"
fi
if [[ "${QUESTDB_WIPE:-0}" == 1 ]]; then
	rm -rf "$ROOT"
	log "removed $ROOT"
fi
