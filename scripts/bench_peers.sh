#!/usr/bin/env bash
# load_victoriametrics beside TSBS's VictoriaMetrics loader, in one run on the same file.
#
#   scripts/bench_peers.sh [--scale N] [--timestamp-end T] [--batch-size N] [--workers N]
#                          [--runs N] [--url URL] [--out DIR]
#
# generate_data writes one cpu-only ILP file (seed 1, --scale hosts, default 100, 10 s,
# 2016-01-01 to --timestamp-end, default 2016-01-02: 864,000 rows). TSBS's loader reads its
# "influx" format, which is this line protocol: it takes the file as it is. Each run loads the
# whole file with the same --batch-size (default 5000) and --workers (default 2):
#   load_victoriametrics --gzip=false --verify off   plain bodies, as TSBS sends them
#   load_victoriametrics --verify off                its default gzip (level 1) bodies
#   tsbs_load_victoriametrics                        TSBS, plain bodies to /write
# every one into a fresh server, then counts what the server holds itself (after
# /internal/force_flush: count_over_time of cpu_usage_user, one sample per row), so a run that
# lost rows is reported as failed, never as a rate. The server: by default a private
# VictoriaMetrics of this script (scripts/start_victoriametrics.sh with VM_NAME=bench_peers,
# VM_PORT=TSLOAD_BENCH_VM_PORT or 8429), wiped and restarted before every run and stopped at
# the end; --url URL uses a running server instead, each run under a db label of its own
# (nothing wiped: later runs find a larger index).
# The commands run in rounds (each once, then again, the order turning by one each round),
# --runs times (default 3); the table gives the median of each: rows/s (rows / wall seconds of
# the whole command), loader CPU seconds (user + system, /usr/bin/time) per million rows, the
# server's CPU seconds per million rows (/proc/<pid>/stat of the server before and after), and
# the ratios tsload / TSBS measured in this run.
# The peer: tsbs_load_victoriametrics from TSLOAD_PEERS_BIN (a directory) or PATH, built from
# TSBS's public source (github.com/timescale/tsbs, cmd/tsbs_load_victoriametrics) outside this
# repository; without it its rows are left out with a message. TSLOAD_LOCK=FILE runs each load
# under flock FILE (a machine whose servers are shared with tests). Files go to --out (default
# $TSLOAD_STATE/bench_peers, TSLOAD_STATE defaults to /tmp/tsload). TSLOAD_BENCH_SCALE and
# TSLOAD_BENCH_END set the defaults of --scale and --timestamp-end.
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 2; }

scale=${TSLOAD_BENCH_SCALE:-100}
ts_end=${TSLOAD_BENCH_END:-2016-01-02T00:00:00Z}
batch=5000
workers=2
runs=3
url=""
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --scale) scale=$2; shift 2 ;;
    --timestamp-end) ts_end=$2; shift 2 ;;
    --batch-size) batch=$2; shift 2 ;;
    --workers) workers=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --url) url=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) usage ;;
    *) echo "bench_peers.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

root=$(cd "$(dirname "$0")/.." && pwd)
state=${TSLOAD_STATE:-/tmp/tsload}
out=${out:-$state/bench_peers}
mkdir -p "$out"
bin=$out/bin
(cd "$root" && go build -o "$bin/" ./cmd/generate_data ./cmd/load_victoriametrics)
[ -x /usr/bin/time ] || { echo "bench_peers.sh: GNU time (/usr/bin/time) is needed: apt-get install time" >&2; exit 1; }

peer() {
  if [ -n "${TSLOAD_PEERS_BIN:-}" ] && [ -x "$TSLOAD_PEERS_BIN/$1" ]; then echo "$TSLOAD_PEERS_BIN/$1"; else command -v "$1" || true; fi
}
tsbs=$(peer tsbs_load_victoriametrics)
[ -n "$tsbs" ] || echo "bench_peers.sh: no tsbs_load_victoriametrics in TSLOAD_PEERS_BIN (${TSLOAD_PEERS_BIN:-unset}) or PATH; its rows are left out (build it from github.com/timescale/tsbs, cmd/tsbs_load_victoriametrics)" >&2

ds=cpu-s${scale}-${ts_end//:/}
file=$out/$ds.ilp
[ -s "$file" ] || "$bin/generate_data" --use-case cpu-only --seed 1 --scale "$scale" \
  --timestamp-end "$ts_end" --file "$file" 2>/dev/null
rows=$(grep -c . "$file")
t0=$(date -u -d 2016-01-01T00:00:00Z +%s)
t1=$(date -u -d "$ts_end" +%s)

# The server: private (wiped before each run) or --url.
private=0
if [ -z "$url" ]; then
  private=1
  port=${TSLOAD_BENCH_VM_PORT:-8429}
  url=http://127.0.0.1:$port
  vm_env=(env VM_NAME=bench_peers VM_PORT="$port" TSLOAD_STATE="$state")
  trap '"${vm_env[@]}" VM_PURGE=1 bash "$root/scripts/stop_victoriametrics.sh" >/dev/null 2>&1 || true' EXIT
fi
fresh() {
  [ "$private" = 1 ] || return 0
  "${vm_env[@]}" bash "$root/scripts/stop_victoriametrics.sh" >/dev/null 2>&1
  "${vm_env[@]}" VM_FRESH=1 bash "$root/scripts/start_victoriametrics.sh" >"$out/start.log" 2>&1 ||
    { echo "bench_peers.sh: the private VictoriaMetrics did not start (see $out/start.log)" >&2; exit 1; }
}
server_pid() { # the process listening on the URL's port
  local p=${url##*:}; p=${p%%/*}
  ss -Hltnp "sport = :$p" 2>/dev/null | grep -oE 'pid=[0-9]+' | head -n1 | cut -d= -f2
}
server_ticks() { # utime+stime of PID in clock ticks
  awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0
}
# held LABEL -> the rows the server holds under db=LABEL (one cpu_usage_user sample per row)
held() {
  curl -s -o /dev/null "$url/internal/force_flush"
  curl -s "$url/api/v1/query" --data-urlencode "query=sum(count_over_time(cpu_usage_user{db=\"$1\"}[$((t1 - t0 + 3600))s]))" \
    --data-urlencode "time=$t1" --data-urlencode nocache=1 |
    python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(int(float(r[0]["value"][1])) if r else 0)'
}
# lock/unlock: around each load with TSLOAD_LOCK (fd 9).
lock() { [ -z "${TSLOAD_LOCK:-}" ] || { exec 9>>"$TSLOAD_LOCK"; flock 9; }; }
unlock() { [ -z "${TSLOAD_LOCK:-}" ] || flock -u 9; }

names=("load_victoriametrics --gzip=false" "load_victoriametrics (gzip)")
[ -z "$tsbs" ] || names+=("tsbs_load_victoriametrics")
# cmd I LABEL -> the command of name I loading under db=LABEL
cmd() {
  case "$1" in
    0) echo "$bin/load_victoriametrics --urls $url --db-name $2 --file $file --batch-size $batch --workers $workers --gzip=false --verify off --reporting-period 1h" ;;
    1) echo "$bin/load_victoriametrics --urls $url --db-name $2 --file $file --batch-size $batch --workers $workers --verify off --reporting-period 1h" ;;
    2) echo "$tsbs --urls $url/write?db=$2 --file $file --batch-size $batch --workers $workers --reporting-period 0s" ;;
  esac
}
declare -A rate=() lcpu=() scpu=() failed=()
hz=$(getconf CLK_TCK)
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for ((round = 0; round < runs; round++)); do
  for ((j = 0; j < ${#names[@]}; j++)); do
    i=$(((j + round) % ${#names[@]}))
    label=peers$$_${i}_$round
    log=$out/run-$i-$round.log
    lock
    fresh
    pid=$(server_pid)
    s0=$(server_ticks "$pid")
    st=ok
    set -f # the command's words, no globbing (a URL has a "?")
    # shellcheck disable=SC2046
    /usr/bin/time -f '%e %U %S' -o "$out/time.txt" $(cmd "$i" "$label") >"$log" 2>&1 || st=exit
    set +f
    s1=$(server_ticks "$pid")
    n=$(held "$label")
    unlock
    read -r wall u s <"$out/time.txt" || true
    sc=$(python3 -c 'import sys; print((int(sys.argv[1])-int(sys.argv[2]))/int(sys.argv[3]))' "$s1" "$s0" "$hz")
    if [ "$st" != ok ]; then
      failed[$i]="exited non-zero: $(tail -n 1 "$log" | cut -c1-120)"
      continue
    fi
    if [ "$n" != "$rows" ]; then
      failed[$i]="the server holds $n rows, $rows were loaded (round $round)"
      continue
    fi
    rate[$i]+="$(python3 -c 'import sys; print(int(int(sys.argv[1])/float(sys.argv[2])))' "$rows" "$wall") "
    lcpu[$i]+="$(python3 -c 'import sys; print(f"{(float(sys.argv[1])+float(sys.argv[2]))*1e6/int(sys.argv[3]):.2f}")' "$u" "$s" "$rows") "
    scpu[$i]+="$(python3 -c 'import sys; print(f"{float(sys.argv[1])*1e6/int(sys.argv[2]):.2f}")' "$sc" "$rows") "
  done
done

median() { python3 -c 'import statistics,sys; xs=[float(x) for x in sys.argv[1:]]; print(statistics.median(xs) if xs else 0)' "$@"; }
echo
echo "cpu-only, scale $scale, 2016-01-01 to $ts_end at 10 s: $(python3 -c 'import sys; print(f"{int(sys.argv[1]):,}")' "$rows") rows; batch $batch, $workers workers; median of $runs runs in rounds; $(nproc) cores; load average $load_before before, $(cut -d' ' -f1-3 /proc/loadavg) after"
echo "server: $([ "$private" = 1 ] && echo "private VictoriaMetrics at $url, wiped before each run" || echo "$url, a db label per run")"
echo
echo "| loader | rows/s | loader CPU-s / M rows | server CPU-s / M rows | runs (rows/s) |"
echo "|---|---:|---:|---:|---|"
declare -A med_r=() med_c=()
for i in "${!names[@]}"; do
  if [ -n "${failed[$i]:-}" ]; then
    echo "| ${names[$i]} | failed: ${failed[$i]} | | | |"
    continue
  fi
  # shellcheck disable=SC2086 # lists of numbers
  { med_r[$i]=$(median ${rate[$i]}); med_c[$i]=$(median ${lcpu[$i]}); sc=$(median ${scpu[$i]}); }
  printf '| %s | %s | %.2f | %.2f | %s |\n' "${names[$i]}" "$(python3 -c 'import sys; print(f"{float(sys.argv[1]):,.0f}")' "${med_r[$i]}")" "${med_c[$i]}" "$sc" "${rate[$i]% }"
done
if [ -n "$tsbs" ] && [ -n "${med_r[2]:-}" ]; then
  echo
  for i in 0 1; do
    [ -n "${med_r[$i]:-}" ] || continue
    python3 - "${names[$i]}" "${med_r[$i]}" "${med_r[2]}" "${med_c[$i]}" "${med_c[2]}" <<'EOF'
import sys
n = sys.argv[1]
r, r0, c, c0 = map(float, sys.argv[2:])
ratio = lambda a, b: f"{a / b:.2f}x" if b > 0 else "- (under /usr/bin/time's 0.01 s)"
print(f"- {n} / tsbs_load_victoriametrics: rows/s {ratio(r, r0)}, loader CPU per row {ratio(c, c0)}")
EOF
  done
fi
echo
echo "logs: $out"
