#!/usr/bin/env bash
# bench_generate.sh: how fast generate_data writes cpu-only data (default: scale 4000 over one
# day, 34,560,000 rows) in each format, raw and gzip'd, with one worker and with every core.
# Prints rows/s, MB/s (uncompressed bytes per second), the compressed size and the peak RSS
# (from /usr/bin/time -v). Output goes to /dev/null (gzip'd output is counted by wc -c), so
# disk speed does not enter. A last row shows the serial `generate_data | gzip -1` baseline.
#
# Environment:
#   SCALE     hosts (default 4000)
#   START     --timestamp-start (default 2016-01-01T00:00:00Z)
#   END       --timestamp-end (default 2016-01-02T00:00:00Z)
#   FORMATS   formats to run (default "ilp csv pgcopy")
#   WORKERS   worker counts (default "1 $(nproc)")
#   USE_CASE  use case (default cpu-only)
#   TSLOAD_STATE  where the binary is built (default /tmp/tsload)
#
#   scripts/bench_generate.sh                              # the full measurement
#   SCALE=100 END=2016-01-01T01:00:00Z scripts/bench_generate.sh   # a quick check
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=SCRIPTDIR/lib.sh
. scripts/lib.sh

SCALE=${SCALE:-4000}
START=${START:-2016-01-01T00:00:00Z}
END=${END:-2016-01-02T00:00:00Z}
FORMATS=${FORMATS:-ilp csv pgcopy}
WORKERS=${WORKERS:-"1 $(nproc)"}
USE_CASE=${USE_CASE:-cpu-only}
STATE=${TSLOAD_STATE:-/tmp/tsload}

if [ ! -x /usr/bin/time ]; then
  echo "installing GNU time" >&2
  apt-get update -qq && apt-get install -y -qq time >/dev/null
fi
if ! command -v gzip >/dev/null; then
  apt-get update -qq && apt-get install -y -qq gzip >/dev/null
fi

mkdir -p "$STATE/bin"
bin="$STATE/bin/generate_data"
go build -o "$bin" ./cmd/generate_data

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

common=(--use-case "$USE_CASE" --seed 1 --scale "$SCALE" --timestamp-start "$START" --timestamp-end "$END")

# rows and uncompressed bytes: from the summary line of one raw run to a file (identical
# for every worker count and with or without gzip, since the output is deterministic)
declare -A ROWS BYTES
for f in $FORMATS; do
  "$bin" "${common[@]}" --format "$f" --file /dev/null 2>"$tmp/summary"
  line=$(grep 'generate_data: [0-9]* rows' "$tmp/summary" | tail -1)
  ROWS[$f]=$(sed -E 's/^generate_data: ([0-9]+) rows.*/\1/' <<<"$line")
  BYTES[$f]=$(wc -c < <("$bin" "${common[@]}" --format "$f" --workers "$(nproc)"))
done

# peak RSS (MB) and elapsed seconds from a /usr/bin/time -v report
rss_mb() { awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2/1024}' "$1"; }
secs() {
  awk -F': ' '/Elapsed \(wall clock\)/ {
    n = split($2, p, ":"); s = 0
    for (i = 1; i <= n; i++) s = s * 60 + p[i]
    printf "%.3f", s }' "$1"
}

printf '%s scale %s, %s to %s, %s cores\n' "$USE_CASE" "$SCALE" "$START" "$END" "$(nproc)"
printf '%-7s %-5s %7s %10s %12s %9s %12s %8s  %s\n' format gzip workers seconds rows/s MB/s out_MB rss_MB interference
for f in $FORMATS; do
  for gz in no yes; do
    for w in $WORKERS; do
      args=("${common[@]}" --format "$f" --workers "$w")
      interf_begin
      if [ "$gz" = yes ]; then
        out=$( { /usr/bin/time -v -o "$tmp/time" "$bin" "${args[@]}" --gzip | wc -c; } )
      else
        /usr/bin/time -v -o "$tmp/time" "$bin" "${args[@]}" --file /dev/null 2>/dev/null
        out=${BYTES[$f]}
      fi
      interf_end
      s=$(secs "$tmp/time")
      awk -v f="$f" -v gz="$gz" -v w="$w" -v s="$s" -v rows="${ROWS[$f]}" -v b="${BYTES[$f]}" \
        -v out="$out" -v rss="$(rss_mb "$tmp/time")" -v itf="$interf_cell" 'BEGIN {
          if (s <= 0) s = 0.001
          printf "%-7s %-5s %7d %10.2f %12.0f %9.1f %12.1f %8d  %s\n", f, gz, w, s, rows / s, b / s / 1e6, out / 1e6, rss, itf }'
    done
  done
done

# the serial baseline: one generate_data worker piped into gzip -1
f=$(awk '{print $1}' <<<"$FORMATS")
interf_begin
start=$(date +%s.%N)
out=$("$bin" "${common[@]}" --format "$f" --workers 1 | gzip -1 | wc -c)
end=$(date +%s.%N)
interf_end
awk -v f="$f" -v s="$(awk -v a="$start" -v b="$end" 'BEGIN {print b - a}')" -v rows="${ROWS[$f]}" -v b="${BYTES[$f]}" -v out="$out" -v itf="$interf_cell" 'BEGIN {
  printf "%-7s %-5s %7s %10.2f %12.0f %9.1f %12.1f %8s  %s\n", f, "|gzip", "1", s, rows / s, b / s / 1e6, out / 1e6, "-", itf }'
