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
# the ratios tsload / TSBS measured in this run, and the interference (other processes' CPU
# beside the command and the server, in cores; lib.sh interf_begin): the most any run saw,
# DISTURBED over 0.5 cores.
# The peer: tsbs_load_victoriametrics from TSLOAD_PEERS_BIN (a directory) or PATH, built from
# TSBS's public source (github.com/timescale/tsbs, cmd/tsbs_load_victoriametrics) outside this
# repository; without it its rows are left out with a message. TSLOAD_LOCK=FILE runs each load
# under flock FILE (a machine whose servers are shared with tests). Files go to --out (default
# $TSLOAD_STATE/bench_peers, TSLOAD_STATE defaults to /tmp/tsload). TSLOAD_BENCH_SCALE,
# TSLOAD_BENCH_END and TSLOAD_BENCH_ROUNDS set the defaults of --scale, --timestamp-end and
# --runs.
set -euo pipefail
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

scale=${TSLOAD_BENCH_SCALE:-100}
ts_end=${TSLOAD_BENCH_END:-2016-01-02T00:00:00Z}
batch=5000
workers=2
runs=${TSLOAD_BENCH_ROUNDS:-3}
url=""
out=""
parse_flags bench_peers.sh "--scale=scale --timestamp-end=ts_end --batch-size=batch --workers=workers
  --runs=runs --url=url --out=out" "$@"

bench_dirs bench_peers
bin=$out/bin
build_tools "$bin" ./cmd/generate_data ./cmd/load_victoriametrics
[ -x /usr/bin/time ] || { echo "bench_peers.sh: GNU time (/usr/bin/time) is needed: apt-get install time" >&2; exit 1; }

peer() {
  if [ -n "${TSLOAD_PEERS_BIN:-}" ] && [ -x "$TSLOAD_PEERS_BIN/$1" ]; then echo "$TSLOAD_PEERS_BIN/$1"; else command -v "$1" || true; fi
}
tsbs=$(peer tsbs_load_victoriametrics)
[ -n "$tsbs" ] || echo "bench_peers.sh: no tsbs_load_victoriametrics in TSLOAD_PEERS_BIN (${TSLOAD_PEERS_BIN:-unset}) or PATH; its rows are left out (build it from github.com/timescale/tsbs, cmd/tsbs_load_victoriametrics)" >&2

file=$out/$(dataset).ilp
generate "$file" 2>/dev/null
rows=$(grep -c . "$file")

# The server: private (wiped before each run) or --url.
if [ -z "$url" ]; then
  private_vm bench_peers "${TSLOAD_BENCH_VM_PORT:-8429}" "$out/start.log"
  url=$vm_url
  trap vm_purge EXIT
else
  vm_url=$url
fi

names=("load_victoriametrics --gzip=false" "load_victoriametrics (gzip)")
[ -z "$tsbs" ] || names+=("tsbs_load_victoriametrics")
# step I LABEL: step_cmd, the command of name I loading under db=LABEL
step() {
  case "$1" in
    0) step_cmd=("$bin/load_victoriametrics" --urls "$url" --db-name "$2" --file "$file" --batch-size "$batch" --workers "$workers" --gzip=false --verify off --reporting-period 1h) ;;
    1) step_cmd=("$bin/load_victoriametrics" --urls "$url" --db-name "$2" --file "$file" --batch-size "$batch" --workers "$workers" --verify off --reporting-period 1h) ;;
    2) step_cmd=("$tsbs" --urls "$url/write?db=$2" --file "$file" --batch-size "$batch" --workers "$workers" --reporting-period 0s) ;;
  esac
}
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
vm_rounds ${#names[@]} peers

echo
echo "cpu-only, scale $scale, 2016-01-01 to $ts_end at 10 s: $(python3 -c 'import sys; print(f"{int(sys.argv[1]):,}")' "$rows") rows; batch $batch, $workers workers; median of $runs runs in rounds; $(nproc) cores; load average $load_before before, $(cut -d' ' -f1-3 /proc/loadavg) after"
echo "server: $([ ${#vm_env[@]} -gt 0 ] && echo "private VictoriaMetrics at $url, wiped before each run" || echo "$url, a db label per run")"
echo
echo "| loader | rows/s | loader CPU-s / M rows | server CPU-s / M rows | runs (rows/s) | interference cores max |"
echo "|---|---:|---:|---:|---|---:|"
declare -A med_r=() med_c=()
for i in "${!names[@]}"; do
  if [ -n "${failed[$i]:-}" ]; then
    echo "| ${names[$i]} | failed: ${failed[$i]} | | | | $(interf_rows "$i") |"
    continue
  fi
  # shellcheck disable=SC2086 # lists of numbers
  { med_r[$i]=$(median ${rate[$i]}); med_c[$i]=$(median ${ccpu[$i]}); sc=$(median ${scpu[$i]}); }
  printf '| %s | %s | %.2f | %.2f | %s | %s |\n' "${names[$i]}" "$(python3 -c 'import sys; print(f"{float(sys.argv[1]):,.0f}")' "${med_r[$i]}")" "${med_c[$i]}" "$sc" "${rate[$i]% }" "$(interf_rows "$i")"
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
