# shellcheck shell=bash
# shellcheck disable=SC2034,SC2154 # variables shared with the sourcing script, both ways
# Shell functions shared by the server scripts and the bench scripts (sourced, not run):
#   . "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# A server script defines say (one line to stderr, with its own prefix); the bench functions
# (after wait_up) do not use it.

# scripts_dir: this directory (the start and stop scripts beside this file).
scripts_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# vendor_dir ROOT prints ../shared/vendor beside the repository ROOT; a git worktree also looks
# beside its main checkout, where ../shared lives.
vendor_dir() {
	local root=$1 vendor common
	vendor=$(realpath -m "$root/../shared/vendor")
	if [[ ! -d $vendor ]] && command -v git >/dev/null 2>&1; then
		common=$(git -C "$root" rev-parse --path-format=absolute --git-common-dir 2>/dev/null || true)
		if [[ -n $common && -d $(dirname "$common")/../shared/vendor ]]; then
			vendor=$(realpath -m "$(dirname "$common")/../shared/vendor")
		fi
	fi
	echo "$vendor"
}

# apt_install PACKAGE... installs with apt-get, waiting for another apt's lock.
apt_install() {
	say "installing $* with apt-get"
	apt-get -o DPkg::Lock::Timeout=900 update -qq
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 install -y -qq "$@" >/dev/null
}

# alive PID: the process runs (a killed server not yet reaped is a zombie: not alive).
alive() {
	kill -0 "$1" 2>/dev/null && [[ $(sed -E 's/.*\) (.).*/\1/' "/proc/$1/stat" 2>/dev/null) != Z ]]
}

# running_pid PIDFILE prints the pid in PIDFILE when that process is alive, else fails.
running_pid() {
	[[ -f $1 ]] || return 1
	local pid
	pid=$(cat "$1")
	[[ -n $pid ]] && alive "$pid" && echo "$pid"
}

# stop_pidfile PIDFILE WHAT stops the process of PIDFILE (SIGTERM, SIGKILL after 30 s) and
# removes PIDFILE; WHAT names the server in the messages.
stop_pidfile() {
	local pidfile=$1 what=$2 pid i
	if [[ ! -f $pidfile ]]; then
		say "$what: no pid file $pidfile (not running)"
		return 0
	fi
	pid=$(cat "$pidfile")
	if alive "$pid"; then
		kill "$pid"
		for ((i = 0; i < 120; i++)); do
			alive "$pid" || break
			sleep 0.25
		done
		if alive "$pid"; then
			say "$what (pid $pid) did not stop in 30s: sending SIGKILL"
			kill -9 "$pid" 2>/dev/null || true
		fi
		say "$what stopped (pid $pid)"
	else
		say "$what: pid $pid not running"
	fi
	rm -f "$pidfile"
}

# rustc_cap_lints DIR writes DIR/rustc-cap-lints, a RUSTC_WRAPPER that caps lints at "warn":
# the libflux crates of InfluxDB 1.x/2.x deny lints that newer toolchains raise.
rustc_cap_lints() {
	cat >"$1/rustc-cap-lints" <<'WRAP'
#!/bin/sh
# RUSTC_WRAPPER: $1 is rustc; add --cap-lints warn unless the call already caps lints.
rustc=$1
shift
for a in "$@"; do
	case $a in --cap-lints | --cap-lints=*) exec "$rustc" "$@" ;; esac
done
exec "$rustc" "$@" --cap-lints warn
WRAP
	chmod +x "$1/rustc-cap-lints"
}

# unpacked SRC DEST WHAT prints the server executable of SRC: SRC itself when it is an executable,
# or DEST, unpacked from the .xz file SRC once (again only when SRC is newer than DEST). WHAT
# names the server in the messages; it fails when SRC is neither.
unpacked() {
	local src=$1 dest=$2 what=$3 tmp
	if [[ $(head -c 6 "$src" | od -An -tx1 | tr -d ' \n') != fd377a585a00 ]]; then
		[[ -x $src ]] || { say "$src is neither an .xz file nor executable: $what not started"; return 1; }
		echo "$src"
		return 0
	fi
	if [[ ! -x $dest || $src -nt $dest ]]; then
		command -v xz >/dev/null 2>&1 || apt_install xz-utils >&2
		mkdir -p "$(dirname "$dest")"
		tmp=$(mktemp "$dest.XXXXXX")
		xz -dc "$src" >"$tmp"
		chmod +x "$tmp"
		mv -f "$tmp" "$dest"
		say "unpacked $src into $dest"
	fi
	echo "$dest"
}

# wait_up PID SECONDS LOG WHAT PROBE... runs PROBE every 0.25 s until it succeeds; it fails when
# the process PID exits first (showing the last lines of LOG) or SECONDS pass. WHAT names the
# server in the messages.
wait_up() {
	local pid=$1 secs=$2 log=$3 what=$4 i
	shift 4
	for ((i = 0; i < secs * 4; i++)); do
		"$@" && return 0
		if ! alive "$pid"; then
			say "$what (pid $pid) exited during start-up; last lines of $log:"
			tail -n 20 "$log" >&2 || true
			return 1
		fi
		sleep 0.25
	done
	say "$what did not answer within ${secs}s; log: $log"
	return 1
}

# foreign_server WHAT ANSWERS PORTVAR PROBE...: what holds the caller's $port before a start
# script starts its server WHAT there (it has none of its own running). When PROBE succeeds, a
# server the script did not start answers: it says "ANSWERS (not started as instance $name):
# leaving it alone" and succeeds. When another program holds the port it says so (PORTVAR moves
# the server) and exits 1. It fails when the port is free: start the server.
foreign_server() {
	local what=$1 answers=$2 portvar=$3
	shift 3
	if "$@"; then
		say "$answers (not started as instance $name): leaving it alone"
		return 0
	fi
	if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
		say "port $port is taken by another program: $what not started (set $portvar)"
		exit 1
	fi
	return 1
}

# ---- The bench scripts (scripts/bench_*.sh, scripts/experiments/vm_import.sh) ----

# usage: the calling script's header comment (its lines from the second to `set -euo pipefail`
# that start with #), then exit 2.
usage() { sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 2; }

# parse_flags SCRIPT SPEC ARGS...: a bench script's flags. SPEC is words FLAG=VAR (FLAG takes
# a value, stored in the caller's variable VAR) and FLAG=@FUNC (FLAG alone: it calls FUNC);
# -h and --help call the script's usage; any other argument, or a FLAG without its value, is
# an error naming SCRIPT (exit 2).
parse_flags() {
	local pf_script=$1 pf_spec=$2 pf_word pf_to
	shift 2
	while [[ $# -gt 0 ]]; do
		pf_to=""
		for pf_word in $pf_spec; do
			if [[ ${pf_word%%=*} == "$1" ]]; then
				pf_to=${pf_word#*=}
				break
			fi
		done
		if [[ -z $pf_to ]]; then
			if [[ $1 == -h || $1 == --help ]]; then usage; fi
			echo "$pf_script: unknown argument $1" >&2
			exit 2
		elif [[ $pf_to == @* ]]; then
			"${pf_to#@}"
			shift
		else
			[[ $# -ge 2 ]] || { echo "$pf_script: $1 needs a value" >&2; exit 2; }
			printf -v "$pf_to" %s "$2"
			shift 2
		fi
	done
}

# bench_dirs OUT: sets root (the repository), state ($TSLOAD_STATE, default /tmp/tsload) and,
# unless --out set it, out ($state/OUT); makes out.
bench_dirs() {
	root=$(dirname "$scripts_dir")
	state=${TSLOAD_STATE:-/tmp/tsload}
	out=${out:-$state/$1}
	mkdir -p "$out"
}

# build_tools DIR PACKAGE...: the repository's commands PACKAGE... (./cmd/generate_data, or
# ./cmd/... for all) built into DIR.
build_tools() {
	local dir=$1
	shift
	(cd "$(dirname "$scripts_dir")" && go build -o "$dir/" "$@")
}

# dataset: the name of the caller's dataset, cpu-only rows of $scale hosts from 2016-01-01 to
# $ts_end at 10 s (cpu-s<scale>-<end without colons>). Its files are named by it, so a file
# found under that name is the same data.
dataset() { echo "cpu-s${scale}-${ts_end//:/}"; }

# generate FILE [FLAGS...]: FILE written by $bin/generate_data with the rows of dataset (seed 1)
# and FLAGS (--format, --shard, ...; gzip or zstd by FILE's ending), unless FILE is there
# already. It is written under a temporary name of the same ending and then renamed with its
# description (FILE.dataset.json), so a run that is stopped leaves no partial file that a later
# run would take for the dataset.
generate() {
	local file=$1 tmp
	shift
	[[ -s $file ]] && return 0
	tmp=$(dirname "$file")/partial$$-$(basename "$file")
	if ! "$bin/generate_data" --use-case cpu-only --seed 1 --scale "$scale" --timestamp-end "$ts_end" \
		--file "$tmp" "$@"; then
		rm -f "$tmp" "$tmp.dataset.json"
		return 1
	fi
	[[ ! -e $tmp.dataset.json ]] || mv -f "$tmp.dataset.json" "$file.dataset.json"
	mv -f "$tmp" "$file"
}

# bench_lock / bench_unlock: around each load when TSLOAD_LOCK names a lock file (flock on fd 9),
# so that a bench shares its servers with tests that take the same lock.
bench_lock() { [[ -z ${TSLOAD_LOCK:-} ]] || { exec 9>>"$TSLOAD_LOCK"; flock 9; }; }
bench_unlock() { [[ -z ${TSLOAD_LOCK:-} ]] || flock -u 9; }

# median NUMBER...: their median (0 for none).
median() { python3 -c 'import statistics,sys; xs=[float(x) for x in sys.argv[1:]]; print(statistics.median(xs) if xs else 0)' "$@"; }

# private_vm NAME PORT LOG: a VictoriaMetrics of the bench's own (scripts/start_victoriametrics.sh
# with VM_NAME=NAME, VM_PORT=PORT) at vm_url. vm_fresh wipes and (re)starts it (its messages to
# LOG; it fails when the server does not start) and vm_purge stops it and removes its data;
# without private_vm (a bench given a running server) both do nothing.
vm_env=()
private_vm() {
	vm_env=(env VM_NAME="$1" VM_PORT="$2" TSLOAD_STATE="${TSLOAD_STATE:-/tmp/tsload}")
	vm_url=http://127.0.0.1:$2
	vm_log=$3
}
vm_fresh() {
	[[ ${#vm_env[@]} -gt 0 ]] || return 0
	"${vm_env[@]}" bash "$scripts_dir/stop_victoriametrics.sh" >/dev/null 2>&1
	"${vm_env[@]}" VM_FRESH=1 bash "$scripts_dir/start_victoriametrics.sh" >"$vm_log" 2>&1
}
vm_purge() {
	[[ ${#vm_env[@]} -gt 0 ]] || return 0
	"${vm_env[@]}" VM_PURGE=1 bash "$scripts_dir/stop_victoriametrics.sh" >/dev/null 2>&1 || true
}

# vm_held LABEL: the rows the VictoriaMetrics at $vm_url holds under db=LABEL (after
# /internal/force_flush: count_over_time of cpu_usage_user, one sample a row of the dataset);
# it fails when the server gives no answer.
vm_held() {
	local t0 t1
	t0=$(date -u -d 2016-01-01T00:00:00Z +%s)
	t1=$(date -u -d "$ts_end" +%s)
	curl -s -o /dev/null "$vm_url/internal/force_flush"
	curl -s "$vm_url/api/v1/query" --data-urlencode "query=sum(count_over_time(cpu_usage_user{db=\"$1\"}[$((t1 - t0 + 3600))s]))" \
		--data-urlencode "time=$t1" --data-urlencode nocache=1 |
		python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(int(float(r[0]["value"][1])) if r else 0)' 2>/dev/null
}

# server_ticks URL: the CPU time (utime + stime, clock ticks) of the process listening on URL's
# port so far; 0 when there is none.
server_ticks() {
	local port=${1##*:} pid
	port=${port%%/*}
	pid=$(ss -Hltnp "sport = :$port" 2>/dev/null | grep -oE 'pid=[0-9]+' | head -n1 | cut -d= -f2)
	awk '{print $14 + $15}' "/proc/${pid:-0}/stat" 2>/dev/null || echo 0
}

# vm_rounds COUNT PREFIX: the steps 0..COUNT-1 of a VictoriaMetrics bench, $runs times in rounds
# (every step once, then again, each round starting one step later, so that a slow spell of a
# shared machine falls on every step alike). The caller's function step I LABEL sets step_cmd,
# the command of step I writing $rows rows under db=LABEL. Each run: under bench_lock, a fresh
# private server (vm_fresh, when private_vm set one up), step_cmd under /usr/bin/time (its
# output to $out/PREFIX-I-ROUND.log), the server's CPU time before and after, then the rows it
# holds (vm_held). A run that exits non-zero or leaves other than $rows rows sets failed[I]; the
# others add their rows/s, the command's CPU seconds per million rows and the server's to the
# lists rate[I], ccpu[I] and scpu[I]. Every run's interference (interf_begin/interf_end around
# the command, beside the server) is kept under I: interf_rows I is the step's cell.
vm_rounds() {
	local count=$1 prefix=$2 round j i label log s0 s1 st n wall u s hz
	declare -gA rate=() ccpu=() scpu=() failed=()
	hz=$(getconf CLK_TCK)
	for ((round = 0; round < runs; round++)); do
		for ((j = 0; j < count; j++)); do
			i=$(((j + round) % count))
			label=$prefix$$_${i}_$round
			log=$out/$prefix-$i-$round.log
			step "$i" "$label"
			bench_lock
			vm_fresh || { echo "the private VictoriaMetrics did not start (see $vm_log)" >&2; exit 1; }
			s0=$(server_ticks "$vm_url")
			interf_begin "$vm_url"
			st=0
			/usr/bin/time -f '%e %U %S' -o "$out/time.txt" "${step_cmd[@]}" >"$log" 2>&1 || st=$?
			interf_end
			interf_keep "$i"
			s1=$(server_ticks "$vm_url")
			n=$(vm_held "$label") || n=""
			bench_unlock
			if [[ $st != 0 ]]; then
				failed[$i]="exited $st: $(tail -n 1 "$log" | cut -c1-150)"
				continue
			fi
			if [[ -z $n ]]; then
				failed[$i]="the server did not answer the count query (round $round)"
				continue
			fi
			if [[ $n != "$rows" ]]; then
				failed[$i]="the server holds $n rows, $rows were sent (round $round)"
				continue
			fi
			# /usr/bin/time's last line: a failed command's has a line before it
			read -r wall u s < <(tail -n 1 "$out/time.txt")
			rate[$i]+="$(python3 -c 'import sys; r,w=int(sys.argv[1]),float(sys.argv[2]); print(int(r/w) if w>0 else 0)' "$rows" "$wall") "
			ccpu[$i]+="$(python3 -c 'import sys; print(f"{(float(sys.argv[1])+float(sys.argv[2]))*1e6/int(sys.argv[3]):.2f}")' "$u" "$s" "$rows") "
			scpu[$i]+="$(python3 -c 'import sys; print(f"{(int(sys.argv[1])-int(sys.argv[2]))/int(sys.argv[3])*1e6/int(sys.argv[4]):.2f}")' "$s1" "$s0" "$hz" "$rows") "
		done
	done
	rm -f "$out/time.txt"
}

# ---- Interference: what else ran on the machine beside a row of a bench table ----
#
# Every table row carries the interference measured while its figure was: the CPU that other
# processes took, in cores, beside the command measured and the server it loaded. A row whose
# loader wrote a results file takes it from there (interf_from_results: cost.interference, which
# the loader measured itself). Any other command (a server's own import run by psql, curl or
# clickhouse-client, a peer loader, generate_data, the sqlite3 or duckdb CLI) is measured here:
#
#   interf_begin [URL...]    before the command: the machine's busy ticks (/proc/stat: user + nice
#                            + system + irq + softirq + steal) and all of its ticks, the CPU of
#                            each process listening on a URL's port and of its children, the CPU
#                            of this shell's finished children (bash times), the load average.
#   CMD                      in the foreground (a child of the shell, or in $(...), so that its
#                            CPU is counted when it ends)
#   interf_end [SECONDS]     after it: interference = (machine busy - servers - command) / wall
#                            seconds, in cores; the command's CPU is SECONDS if given, else what
#                            the shell's children used in between (the command's, and that of
#                            any small helper such as a count query, which is ours too).
#
# Both interf_end and interf_from_results set interf_cores, interf_steal (a fraction),
# interf_disturbed (0 or 1), interf_cell (the table cell: "0.12", or "0.85 DISTURBED" when the
# interference is over 0.5 cores (pkg/interference.Cores) or the hypervisor stole over 10% of
# the processor time (pkg/interference.Steal)), interf_note ("interference 0.12 cores, steal 0%,
# load average 1.20->1.35"). interf_keep KEY files that run under KEY (a row), and interf_rows
# KEY gives the row's cell over its runs. The samples are taken by small python3 helpers inside
# the window (tens of milliseconds each): a command of a fraction of a second reads high.
interf_urls=()
interf_begin() {
	interf_urls=("$@")
	interf_load0=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo -)
	interf_s0=$(interf_sample)
	interf_children interf_c0
}

interf_end() {
	local c1 s1
	s1=$(interf_sample)
	interf_children c1
	interf_judge "$interf_s0" "$s1" "${1:-$(python3 -c 'import sys; print(float(sys.argv[2]) - float(sys.argv[1]))' "$interf_c0" "$c1")}" \
		"$interf_load0" "$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo -)"
}

# interf_children VAR: VAR set to the CPU seconds (user + system) of the shell's finished
# children so far. `times` runs in this shell (in a subshell it would see only its own children).
interf_children() {
	local f=${TMPDIR:-/tmp}/tsload-times.$$ line
	times >"$f"
	line=$(tail -n 1 "$f")
	rm -f "$f"
	printf -v "$1" %s "$(python3 -c 'import re,sys; print(sum(int(m)*60+float(s) for m,s in re.findall(r"(\d+)m([\d.]+)s", sys.argv[1])))' "$line")"
}

# interf_sample: "WALL BUSY TOTAL STEAL SERVERS": the time (s), the machine's busy, all and
# stolen ticks, and the ticks of the processes listening on interf_urls' ports and of their
# descendants (a process gone since has its ticks in its parent's cutime and cstime).
interf_sample() {
	local url port pids=()
	for url in "${interf_urls[@]}"; do
		port=${url##*:}
		port=${port%%/*}
		pids+=($(ss -Hltnp "sport = :$port" 2>/dev/null | grep -oE 'pid=[0-9]+' | head -n1 | cut -d= -f2))
	done
	python3 - "${pids[@]}" <<'PY'
import os, sys, time
procs = {}
for d in os.listdir("/proc"):
    if not d.isdigit():
        continue
    try:
        s = open(f"/proc/{d}/stat").read()
    except OSError:
        continue
    f = s[s.rfind(")") + 2:].split()
    procs[int(d)] = (int(f[1]), sum(int(x) for x in f[11:15]))
seen, todo = set(), [int(p) for p in sys.argv[1:]]
while todo:
    p = todo.pop()
    if p in seen or p not in procs:
        continue
    seen.add(p)
    todo += [c for c, (pp, _) in procs.items() if pp == p]
# The machine last: this helper's own work before it then falls on the same side of both
# samples as of the shell's children count (before the window at the start, in the command's
# share at the end).
t = time.time()
cpu = [int(x) for x in open("/proc/stat").readline().split()[1:9]]
user, nice, system, idle, iowait, irq, softirq, steal = cpu + [0] * (8 - len(cpu))
busy = user + nice + system + irq + softirq + steal
print(t, busy, sum(cpu), steal, sum(procs[p][1] for p in seen))
PY
}

# interf_judge SAMPLE0 SAMPLE1 COMMAND_SECONDS LOAD0 LOAD1: the interference between two samples.
interf_judge() {
	local out
	out=$(python3 - "$@" "$(getconf CLK_TCK)" <<'PY'
import sys
a, b = [list(map(float, s.split())) for s in sys.argv[1:3]]
cmd, load0, load1, hz = float(sys.argv[3]), sys.argv[4], sys.argv[5], float(sys.argv[6])
wall = b[0] - a[0]
busy, total, steal, server = (b[i] - a[i] for i in range(1, 5))
cores = max(0.0, (busy - server) / hz - cmd) / wall if wall > 0 else 0.0
stolen = steal / total if total > 0 else 0.0
print(f"{cores:.2f}", f"{stolen:.3f}", 1 if cores > 0.5 or stolen > 0.10 else 0, load0, load1)
PY
)
	interf_set $out
}

# interf_set CORES STEAL DISTURBED LOAD0 LOAD1: the interf_* variables of one run.
interf_set() {
	interf_cores=$1 interf_steal=$2 interf_disturbed=$3
	interf_cell=$1
	[[ $3 == 0 ]] || interf_cell+=" DISTURBED"
	interf_note="interference $1 cores, steal $(python3 -c 'import sys; print(f"{100*float(sys.argv[1]):.0f}%")' "$2"), load average $4->$5"
	interf_last="$1:$3"
}

# interf_from_results FILE: the interference a loader recorded in its results file
# (cost.interference); "-" cells when it has none (an older loader, or no /proc).
interf_from_results() {
	local out
	out=$(python3 - "$1" <<'PY' 2>/dev/null
import json, sys
i = ((json.load(open(sys.argv[1])).get("cost") or {}).get("interference")) or {}
if "cores" in i:
    fmt = lambda v: "-" if v is None else f"{v:.2f}"
    print(f"{i['cores']:.2f}", f"{i.get('steal_fraction') or 0:.3f}", 1 if i.get("disturbed") else 0,
          fmt(i.get("load_avg_start")), fmt(i.get("load_avg_end")))
PY
)
	if [[ -n $out ]]; then
		interf_set $out
	else
		interf_cores=- interf_steal=- interf_disturbed=0 interf_cell=- interf_note="interference not measured" interf_last=""
	fi
}

# interf_keep KEY: files the last run's interference under KEY (a row); interf_rows KEY: the
# row's cell over its runs: the most interference of any run, and "DISTURBED N of M" when N of
# its M runs were ("-" for a row none of whose runs measured it).
declare -A interf_runs=()
interf_keep() { [[ -z ${interf_last:-} ]] || interf_runs[$1]+="$interf_last "; }
interf_rows() {
	local r max=- n=0 m=0
	for r in ${interf_runs[$1]:-}; do
		m=$((m + 1))
		[[ ${r#*:} == 0 ]] || n=$((n + 1))
		if [[ $max == - ]] || python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) > float(sys.argv[2]) else 1)' "${r%:*}" "$max"; then
			max=${r%:*}
		fi
	done
	if ((n > 0)); then echo "$max DISTURBED $n of $m"; else echo "$max"; fi
}
