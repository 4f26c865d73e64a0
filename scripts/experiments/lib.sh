# shellcheck shell=bash
# shellcheck disable=SC2034 # EXP_* variables are read by the scripts that source this file
# lib.sh: what the experiment scripts in this directory share. Sourced, never run.
#
# An experiment script calls, in order:
#   exp_init NAME "$@"        parse --full|--quick|--tiny (or TSLOAD_EXP_SIZE), --out DIR,
#                             --workers N, --strict; build the tools into $EXP_OUT/bin (or
#                             use $TSLOAD_BIN's)
#   exp_start SERVER          scripts/start_SERVER.sh (fails loudly; the caller decides)
#   exp_load STEP PUBLISHED LOADER [flags...]   one loader run: a table row from its results
#   exp_row STEP PUBLISHED FIGURE VERIFIED [NOTES]   a row measured some other way; its
#                             notes give the interference measured around it (exp_interf)
#   exp_finish TITLE GROUP    print the Markdown table, write table.md, the plots and exit
#
# Rows go to $EXP_OUT/rows.tsv; the loaders' results to $EXP_OUT/results, their stderr to
# $EXP_OUT/logs. A step that fails is a row saying so; the script goes on and exits 0 once the
# table is written (3 with --strict when a step failed, as the CI test runs them).

EXP_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
EXP_STATE=${TSLOAD_STATE:-/tmp/tsload}

exp_die() {
	echo "${EXP_NAME:-experiment}: $*" >&2
	exit 1
}

exp_log() { echo "${EXP_NAME}: $*" >&2; }

# exp_usage prints the calling script's header comment (up to `set -euo pipefail`).
exp_usage() {
	sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
}

# exp_init NAME ARGS...: parse the common flags and build the tools.
# Sets EXP_NAME, EXP_SIZE (full, quick or tiny), EXP_OUT, EXP_BIN, EXP_WORKERS (the "N" of
# "N workers": --workers, default the number of cores), EXP_STRICT, EXP_STOP_AT (--stop-at
# TIME as epoch seconds: a time budget, see exp_load), EXP_ARGS (the rest).
exp_init() {
	EXP_NAME=$1
	shift
	EXP_SIZE=${TSLOAD_EXP_SIZE:-full}
	EXP_OUT=""
	EXP_WORKERS=$(nproc)
	EXP_STRICT=0
	EXP_STOP_AT=""
	EXP_ARGS=()
	while [[ $# -gt 0 ]]; do
		case "$1" in
		--full) EXP_SIZE=full; shift ;;
		--quick) EXP_SIZE=quick; shift ;;
		--tiny) EXP_SIZE=tiny; shift ;;
		--size) EXP_SIZE=${2:?--size needs full, quick or tiny}; shift 2 ;;
		--out) EXP_OUT=${2:?--out needs a directory}; shift 2 ;;
		--workers) EXP_WORKERS=${2:?--workers needs a number}; shift 2 ;;
		--strict) EXP_STRICT=1; shift ;;
		--stop-at) EXP_STOP_AT=$(date -d "${2:?--stop-at needs a time, e.g. 21:50 or 2026-12-01T21:50Z}" +%s) ||
			exp_die "--stop-at: '$2' is not a time date(1) reads"; shift 2 ;;
		-h | --help) exp_usage ;;
		*) EXP_ARGS+=("$1"); shift ;;
		esac
	done
	case "$EXP_SIZE" in full | quick | tiny) ;; *) exp_die "size must be full, quick or tiny, not '$EXP_SIZE'" ;; esac
	[[ $EXP_WORKERS =~ ^[1-9][0-9]*$ ]] || exp_die "--workers must be a positive integer, not '$EXP_WORKERS'"
	EXP_OUT=${EXP_OUT:-$EXP_STATE/experiments/$EXP_NAME-$EXP_SIZE}
	mkdir -p "$EXP_OUT/results" "$EXP_OUT/logs" "$EXP_OUT/data" "$EXP_OUT/bin"
	EXP_OUT=$(cd "$EXP_OUT" && pwd)
	# A previous run's rows and results would mix into this table and its plots.
	rm -f "$EXP_OUT"/results/*.json "$EXP_OUT"/logs/*.log "$EXP_OUT/rows.tsv" "$EXP_OUT/table.md"
	: >"$EXP_OUT/rows.tsv"
	command -v python3 >/dev/null || exp_die "python3 is not on PATH (used to read the loaders' JSON results)"
	# TSLOAD_BIN: tools built already (every one of them) instead of building them here.
	local tool
	if [[ -n ${TSLOAD_BIN:-} ]]; then
		EXP_BIN=$TSLOAD_BIN
		for tool in generate_data load_questdb load_timescale load_influx load_cnosdb report; do
			[[ -x $EXP_BIN/$tool ]] || exp_die "TSLOAD_BIN=$EXP_BIN has no $tool (build with: go build -o \$TSLOAD_BIN/ ./cmd/...)"
		done
	else
		EXP_BIN=$EXP_OUT/bin
		command -v go >/dev/null || exp_die "go is not on PATH (the tools are built from this repository)"
		exp_log "building the tools into $EXP_BIN"
		(cd "$EXP_ROOT" && go build -o "$EXP_BIN/" ./cmd/...) || exp_die "go build failed"
	fi
	EXP_FAILED=0
	EXP_STARTED=$(date +%s)
	# Names of databases and tables carry this, so two runs on one shared server (the CI test
	# beside a user's run) never drop each other's data.
	EXP_RUN=r$$
	trap 'echo "$EXP_NAME: interrupted; rows so far in $EXP_OUT/rows.tsv" >&2; exit 130' INT TERM
	# The machine's 1-minute load average every 5 s, so each row can say how busy the machine
	# was while it ran (a figure measured beside other work is not an idle machine's).
	EXP_LOADAVG=$EXP_OUT/loadavg.tsv
	: >"$EXP_LOADAVG"
	(while :; do
		printf '%s %s\n' "$(date +%s)" "$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo -)"
		sleep 5
	done) >>"$EXP_LOADAVG" 2>/dev/null &
	EXP_SAMPLER=$!
	trap 'kill "$EXP_SAMPLER" 2>/dev/null || true' EXIT
}

# exp_loadavg FROM TO: the mean of the 1-minute load averages sampled between the two epoch
# seconds (the latest sample when none falls in between), one decimal; "-" without samples.
exp_loadavg() {
	python3 - "$EXP_LOADAVG" "$1" "$2" <<'PY'
import sys
a, b = float(sys.argv[2]), float(sys.argv[3])
xs, last = [], None
for line in open(sys.argv[1]):
    p = line.split()
    if len(p) != 2 or p[1] == "-":
        continue
    t, v = float(p[0]), float(p[1])
    if t <= b:
        last = v
    if a <= t <= b:
        xs.append(v)
if not xs and last is not None:
    xs = [last]
print("%.1f" % (sum(xs) / len(xs)) if xs else "-")
PY
}

# exp_start SERVER: start (or find running) a local server with the project's script.
exp_start() {
	local script=$EXP_ROOT/scripts/start_$1.sh
	[[ -f $script ]] || { exp_log "no $script"; return 1; }
	exp_log "starting $1 ($script)"
	bash "$script" >"$EXP_OUT/logs/start_$1.log" 2>&1 || {
		exp_log "$script failed; last lines of $EXP_OUT/logs/start_$1.log:"
		tail -n 5 "$EXP_OUT/logs/start_$1.log" >&2
		return 1
	}
}

# The interference functions of the bench scripts (interf_begin, interf_end, interf_from_results).
# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

# exp_interf: after interf_end or interf_from_results, the words for a row's notes:
# "interference 0.12 cores", with " DISTURBED" when it was over 0.5 cores or steal over 10%
# ("interference not measured" when the loader recorded none).
exp_interf() {
	if [[ $interf_cores == - ]]; then echo "interference not measured"; else echo "interference $interf_cores cores${interf_cell#"$interf_cores"}"; fi
}

# exp_now: seconds since the epoch with nanoseconds.
exp_now() { date +%s.%N; }

# exp_rate ROWS START END: rows per second, an integer.
exp_rate() {
	python3 -c 'import sys; r,a,b=map(float,sys.argv[1:]); print(int(r/(b-a)) if b>a else 0)' "$1" "$2" "$3"
}

# exp_fmt N: 1234567 -> 1,234,567 (anything else unchanged).
exp_fmt() {
	python3 -c 'import sys
v=sys.argv[1]
try: print(f"{int(float(v)):,}")
except ValueError: print(v)' "$1"
}

# exp_rate_cell RATE: "1,234,567 rows/s".
exp_rate_cell() { echo "$(exp_fmt "$1") rows/s"; }

# exp_row STEP PUBLISHED FIGURE VERIFIED [NOTES]: one table row.
exp_row() {
	local step=$1 pub=$2 fig=$3 ver=$4 notes=${5:-}
	printf '%s\t%s\t%s\t%s\t%s\n' "$step" "$pub" "$fig" "$ver" "$notes" | tr -d '|' >>"${EXP_ROWS:-$EXP_OUT/rows.tsv}"
}

# exp_rows_later / exp_rows_now: rows added in between are held back and then appended, so a
# table can list steps in another order than they ran.
exp_rows_later() { EXP_ROWS=$EXP_OUT/rows.later.tsv; : >"$EXP_ROWS"; }
exp_rows_now() {
	if [[ -n ${EXP_ROWS:-} ]]; then
		cat "$EXP_ROWS" >>"$EXP_OUT/rows.tsv"
		rm -f "$EXP_ROWS"
		EXP_ROWS=""
	fi
}

# exp_n_workers N: "1 worker" or "N workers".
exp_n_workers() { if [[ $1 == 1 ]]; then echo "1 worker"; else echo "$1 workers"; fi; }

# exp_fail_row STEP PUBLISHED REASON: a row for a step that did not complete.
exp_fail_row() {
	EXP_FAILED=$((EXP_FAILED + 1))
	exp_row "$1" "$2" "failed" "-" "$3"
}

# exp_slug TEXT: a file-name-safe form of TEXT.
exp_slug() { printf '%s' "$1" | tr -c 'A-Za-z0-9._-' '_' | cut -c1-80; }

# exp_result FILE FIELD: one figure from a loader results file, as shell-safe text:
#   status, rate (rows/s), rows, verified (the database's count, summed over tables; "-" when
#   not verified), verify_ok (1/0), retries, error, serialized (rows/s of --serialization-pass).
exp_result() {
	python3 - "$1" "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
f = sys.argv[2]
v = r.get("verify") or {}
ser = r.get("serialization") or {}
out = {
    "status": r.get("status", ""),
    "rate": int(r.get("rows_per_sec") or 0),
    "rows": int(r.get("rows") or 0),
    # No count (the counting failed, or no verification): "-", never a 0 the database never said.
    "verified": sum(v["actual"].values()) if v.get("actual") else "-",
    "verify_ok": 1 if v.get("ok") else 0,
    "retries": int(r.get("retries") or 0),
    "error": " ".join(str(r.get("error", "")).split())[:300],
    "serialized": int(ser.get("serialized_rows_per_sec") or 0),
}[f]
print(out)
PY
}

# exp_load STEP PUBLISHED LOADER [FLAGS...]: run $EXP_BIN/LOADER with FLAGS plus
# --results-file and --reporting-period 1s, then add its row: rows/s (acknowledged rows over
# wall time), the verified count, and notes: the load's wall time, the machine's load
# average meanwhile (EXP_LAST_LOAD) and the interference the loader measured (its results
# file's cost.interference: other processes' CPU, in cores), then retries or the error. EXP_LAST_RESULTS names the
# results file and EXP_LAST_OK is 1 when the run was ok and verified.
exp_load() {
	local step=$1 pub=$2 loader=$3
	shift 3
	local slug res log st=0
	slug=$(exp_slug "$step")
	res=$EXP_OUT/results/$slug.json
	log=$EXP_OUT/logs/$slug.log
	rm -f "$res" "$log.stopped"
	if [[ -n $EXP_STOP_AT ]] && (($(date +%s) >= EXP_STOP_AT)); then
		EXP_FAILED=$((EXP_FAILED + 1))
		exp_row "$step" "$pub" "not run" "-" "the time budget (--stop-at $(date -u -d "@$EXP_STOP_AT" +%H:%MZ)) had run out"
		return 0
	fi
	exp_log "$step: $loader $*"
	local t0 t1 pid watch=""
	t0=$(date +%s)
	"$EXP_BIN/$loader" "$@" --results-file "$res" --reporting-period 1s 2>"$log" &
	pid=$!
	if [[ -n $EXP_STOP_AT ]]; then
		# At the budget's end the load is stopped by SIGTERM (as by ^C): the loader writes its
		# results (status interrupted, the rows acknowledged so far) and the row says so.
		(while kill -0 "$pid" 2>/dev/null; do
			if (($(date +%s) >= EXP_STOP_AT)); then
				: >"$log.stopped"
				kill -TERM "$pid" 2>/dev/null
				break
			fi
			sleep 5
		done) &
		watch=$!
	fi
	wait "$pid" || st=$?
	if [[ -n $watch ]]; then kill "$watch" 2>/dev/null || true; fi
	t1=$(date +%s)
	EXP_LAST_LOAD=$(exp_loadavg "$t0" "$t1")
	EXP_LAST_RESULTS=$res
	EXP_LAST_OK=0
	if [[ ! -s $res ]]; then
		exp_fail_row "$step" "$pub" "$loader exited $st without results: $(tail -n 1 "$log" 2>/dev/null)"
		return 0
	fi
	local status rate verified ok retries notes=""
	status=$(exp_result "$res" status)
	rate=$(exp_result "$res" rate)
	verified=$(exp_result "$res" verified)
	ok=$(exp_result "$res" verify_ok)
	retries=$(exp_result "$res" retries)
	if [[ $retries != 0 ]]; then
		# The runner logs "retrying <batch> in <delay> (...): <reason>": name the commonest reason.
		local why
		why=$(sed -n 's/^retrying .* in all): //p' "$log" | cut -c1-120 | sort | uniq -c | sort -rn | head -n 1 | sed 's/^ *[0-9]* //')
		notes="$retries retried batches${why:+ (server said: $why)}"
	fi
	# Every row says how long the load took and how busy the machine was meanwhile.
	local secs
	secs=$(python3 -c 'import json,sys; print("%.3f s" % json.load(open(sys.argv[1])).get("seconds", 0))' "$res")
	interf_from_results "$res"
	notes="$secs, load avg $EXP_LAST_LOAD, $(exp_interf)${notes:+; $notes}"
	if [[ -e $log.stopped ]]; then
		rm -f "$log.stopped"
		notes="$notes; stopped by the time budget (--stop-at $(date -u -d "@$EXP_STOP_AT" +%H:%MZ)) before the end of its input"
	fi
	if [[ $status == ok && $ok == 1 && $st == 0 ]]; then
		EXP_LAST_OK=1
		exp_row "$step" "$pub" "$(exp_rate_cell "$rate")" "$(exp_fmt "$verified")" "$notes"
	else
		EXP_FAILED=$((EXP_FAILED + 1))
		exp_row "$step" "$pub" "$status: $(exp_rate_cell "$rate") acknowledged" "$(exp_fmt "$verified")" \
			"${notes:+$notes; }$(exp_result "$res" error) (log: logs/$slug.log)"
	fi
}

# exp_machine: one line describing this machine.
exp_machine() {
	local cpu mem
	cpu=$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n1)
	mem=$(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo 2>/dev/null)
	echo "${cpu:-unknown CPU}, $(nproc) cores, ${mem:-? GiB} RAM, $(uname -sr)"
}

# exp_bars NAME GROUP FILES...: a bar chart DIR/NAME.png/.svg of the median rows/s per cell
# (report bars; GROUP's first key on the x axis, the rest as bars).
exp_bars() {
	local name=$1 group=$2
	shift 2
	[[ $# -gt 0 && -e $1 ]] || return 0
	"$EXP_BIN/report" bars --out "$EXP_OUT" --group "$group" --name "$name" "$@" >/dev/null 2>>"$EXP_OUT/logs/report.log" ||
		exp_log "report bars $name failed (see $EXP_OUT/logs/report.log)"
}

# exp_finish TITLE GROUP [CONTEXT...]: print the table (also to table.md), then the plots:
# bars_rows (exp_bars over every results file grouped by GROUP; "-" when the script drew its
# own with exp_bars), each run's rate over time (report plot), and report.html when this
# report has an html command. CONTEXT lines are printed under the title. Exits 0, or 3 with
# --strict when a step failed.
exp_finish() {
	local title=$1 group=$2
	shift 2
	local md=$EXP_OUT/table.md
	exp_rows_now
	{
		echo "## $title"
		echo
		echo "Size: $EXP_SIZE. This machine: $(exp_machine). Measured $(date -u +%Y-%m-%dT%H:%MZ)."
		local line
		for line in "$@"; do echo "$line"; done
		echo
		echo "| experiment step | published figure (hardware) | this machine | verified rows | notes |"
		echo "|---|---|---:|---:|---|"
		local step pub fig ver notes
		while IFS=$'\t' read -r step pub fig ver notes; do
			printf '| %s | %s | %s | %s | %s |\n' "$step" "$pub" "$fig" "$ver" "$notes"
		done <"$EXP_OUT/rows.tsv"
	} >"$md"
	echo
	cat "$md"
	echo
	local files=("$EXP_OUT"/results/*.json)
	if [[ -e ${files[0]} ]]; then
		[[ $group == - ]] || exp_bars bars_rows "$group" "${files[@]}"
		"$EXP_BIN/report" plot --out "$EXP_OUT/plots" "${files[@]}" >/dev/null 2>>"$EXP_OUT/logs/report.log" ||
			exp_log "report plot failed (see $EXP_OUT/logs/report.log)"
		if "$EXP_BIN/report" html --help >/dev/null 2>&1; then
			"$EXP_BIN/report" html --out "$EXP_OUT/report.html" "${files[@]}" >/dev/null 2>>"$EXP_OUT/logs/report.log" ||
				exp_log "report html failed (see $EXP_OUT/logs/report.log)"
		fi
	fi
	echo "table: $md; plots: $EXP_OUT/bars_rows.png, $EXP_OUT/plots/; results: $EXP_OUT/results ($(($(date +%s) - EXP_STARTED)) s)"
	if [[ $EXP_STRICT == 1 && $EXP_FAILED -gt 0 ]]; then
		exp_log "$EXP_FAILED step(s) failed (--strict)"
		exit 3
	fi
	exit 0
}
