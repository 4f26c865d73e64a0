#!/usr/bin/env bash
# VictoriaMetrics' write APIs on the same rows: /write (line protocol), /api/v1/import/csv and
# /api/v1/import (its JSON lines), in one run.
#
#   scripts/experiments/vm_import.sh [--scale N] [--timestamp-end T] [--batch-size N]
#                                    [--workers N] [--runs N] [--out DIR] [--tiny]
#
# generate_data writes one cpu-only ILP file (seed 1, --scale hosts, default 100, 10 s,
# 2016-01-01 to --timestamp-end, default 2016-01-01T12:00:00Z: 432,000 rows); the same rows
# are then written, once and kept (not timed), as
#   csv:  one line per row, "ns-timestamp,<10 tags>,<10 fields>", posted to
#         /api/v1/import/csv?format=1:time:unix_ns,2:label:arch,...,12:metric:cpu_usage_user,...
#   json: per batch, one line per series and field, {"metric":{"__name__":"cpu_<field>",
#         <tags>},"values":[...],"timestamps":[ms...]} (the format of /api/v1/export), posted to
#         /api/v1/import
#   ilp:  the file itself, posted to /write
# each cut into batches of --batch-size rows (default 5000) and posted by curl with
# xargs -P --workers (default 2), plain bodies, with extra_label=db=<run> (/write: db=<run>).
# Beside them load_victoriametrics --gzip=false --verify off on the ILP file (the loader as it
# is). Every step runs into a fresh private server (scripts/start_victoriametrics.sh with
# VM_NAME=vm_import, VM_PORT=TSLOAD_BENCH_VM_PORT or 8430, wiped before each step, stopped at
# the end), and counts what the server holds afterwards (/internal/force_flush, then
# count_over_time of cpu_usage_user: one sample per row); a step that lost or refused rows is
# reported as failed. Steps run in rounds, --runs times (default 3), the order turning each
# round; the table gives medians: rows/s (rows / wall seconds of the posting), the server's
# CPU seconds per million rows (/proc/<pid>/stat before and after), the client's CPU seconds
# per million rows (/usr/bin/time: curl processes for the three APIs, so only the loader's row
# says what a Go client pays), and the bytes sent per row. TSLOAD_LOCK=FILE runs each step
# under flock FILE. Files go to --out (default $TSLOAD_STATE/experiments/vm_import). --tiny:
# 5 hosts, one hour, one run (seconds; a check that the script works). It is no reproduction
# of a published figure: it chose load_victoriametrics' API (docs/loaders/victoriametrics.md).
set -euo pipefail
# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

scale=100
ts_end=2016-01-01T12:00:00Z
batch=5000
workers=2
runs=3
out=""
tiny() { scale=5; ts_end=2016-01-01T01:00:00Z; runs=1; }
# --quick: the defaults
parse_flags vm_import.sh "--scale=scale --timestamp-end=ts_end --batch-size=batch --workers=workers
  --runs=runs --out=out --tiny=@tiny --quick=@true" "$@"

bench_dirs experiments/vm_import
mkdir -p "$out/data"
bin=$out/bin
build_tools "$bin" ./cmd/generate_data ./cmd/load_victoriametrics
[ -x /usr/bin/time ] || { echo "vm_import.sh: GNU time (/usr/bin/time) is needed: apt-get install time" >&2; exit 1; }

ds=$(dataset)
ilp=$out/data/$ds.ilp
generate "$ilp" 2>/dev/null
rows=$(grep -c . "$ilp")

# The batches of each API, written once per dataset and batch size (a marker file says the
# directory is complete). The CSV column spec is written beside them.
batches=$out/data/$ds-b$batch
if [ ! -e "$batches/done" ]; then
  rm -rf "$batches"
  mkdir -p "$batches/ilp" "$batches/csv" "$batches/json"
  python3 - "$ilp" "$batches" "$batch" <<'PY'
import json, sys
src, dst, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
tags_order = None
fields_order = None

def parse(line):
    head, fields, ts = line.rstrip("\n").split(" ")
    parts = head.split(",")
    tags = [p.split("=", 1) for p in parts[1:]]
    fs = [p.split("=", 1) for p in fields.split(",")]
    return parts[0], tags, fs, int(ts)

def flush(n, lines):
    global tags_order, fields_order
    name = "b.%06d" % n
    with open(f"{dst}/ilp/{name}", "w") as f:
        f.writelines(lines)
    series = {}
    csv = []
    for line in lines:
        meas, tags, fs, ts = parse(line)
        if tags_order is None:
            tags_order = [k for k, _ in tags]
            fields_order = [k for k, _ in fs]
            with open(f"{dst}/csv.format", "w") as f:
                spec = ["1:time:unix_ns"]
                spec += [f"{i + 2}:label:{k}" for i, k in enumerate(tags_order)]
                spec += [f"{i + 2 + len(tags_order)}:metric:{meas}_{k}" for i, k in enumerate(fields_order)]
                f.write(",".join(spec))
        if [k for k, _ in tags] != tags_order or [k for k, _ in fs] != fields_order:
            sys.exit("vm_import.sh: rows with other tags or fields than the first: cpu-only only")
        csv.append(",".join([str(ts)] + [v for _, v in tags] + [v for _, v in fs]) + "\n")
        key = tuple(v for _, v in tags)
        for k, v in fs:
            s = series.setdefault((key, k), ([], []))
            s[0].append(float(v))
            s[1].append(ts // 1000000)
    with open(f"{dst}/csv/{name}", "w") as f:
        f.writelines(csv)
    with open(f"{dst}/json/{name}", "w") as f:
        for (key, k), (vals, tss) in series.items():
            metric = {"__name__": f"{meas}_{k}"}
            metric.update(zip(tags_order, key))
            f.write(json.dumps({"metric": metric, "values": vals, "timestamps": tss}, separators=(",", ":")) + "\n")

buf, n = [], 0
with open(src) as f:
    for line in f:
        buf.append(line)
        if len(buf) == size:
            flush(n, buf); buf = []; n += 1
if buf:
    flush(n, buf)
PY
  : >"$batches/done"
fi
csv_format=$(cat "$batches/csv.format")
bytes_of() { du -sb --apparent-size "$1" | cut -f1; }

private_vm vm_import "${TSLOAD_BENCH_VM_PORT:-8430}" "$out/start.log"
url=$vm_url
trap vm_purge EXIT

# post DIR ENDPOINT: every batch of DIR posted by curl, $workers at a time; fails when any
# answer is not 204.
post() {
  local bad
  bad=$(find "$1" -name 'b.*' -print0 | xargs -0 -P "$workers" -I{} \
    curl -s -o /dev/null -H 'Expect:' -w '%{http_code}\n' --data-binary @{} "$2" | grep -cv '^204$' || true)
  [ "$bad" = 0 ] || { echo "$bad requests not answered 204" >&2; return 1; }
}

names=("ilp, /write (curl)" "csv, /api/v1/import/csv (curl)" "json lines, /api/v1/import (curl)" "load_victoriametrics --gzip=false")
body_bytes=("$(bytes_of "$batches/ilp")" "$(bytes_of "$batches/csv")" "$(bytes_of "$batches/json")" "$(bytes_of "$batches/ilp")")
export -f post
export workers
# step I LABEL: step_cmd, the command of step I, loading under db=LABEL
# shellcheck disable=SC2016 # post's "$0" "$1" are the arguments of the bash that runs it
step() {
  case "$1" in
    0) step_cmd=(bash -c 'post "$0" "$1"' "$batches/ilp" "$url/write?db=$2") ;;
    1) step_cmd=(bash -c 'post "$0" "$1"' "$batches/csv" "$url/api/v1/import/csv?format=$csv_format&extra_label=db=$2") ;;
    2) step_cmd=(bash -c 'post "$0" "$1"' "$batches/json" "$url/api/v1/import?extra_label=db=$2") ;;
    3) step_cmd=("$bin/load_victoriametrics" --urls "$url" --db-name "$2" --file "$ilp" --batch-size "$batch"
         --workers "$workers" --gzip=false --verify off --reporting-period 1h) ;;
  esac
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
vm_rounds ${#names[@]} imp

echo
echo "cpu-only, scale $scale, 2016-01-01 to $ts_end at 10 s: $(python3 -c 'import sys; print(f"{int(sys.argv[1]):,}")' "$rows") rows; batch $batch, $workers workers; median of $runs runs in rounds, a fresh private server per step; $(nproc) cores; load average $load_before before, $(cut -d' ' -f1-3 /proc/loadavg) after"
echo
echo "| API | rows/s | vs /write (curl) | server CPU-s / M rows | vs /write (curl) | client CPU-s / M rows | bytes sent / row | runs (rows/s) | interference cores max |"
echo "|---|---:|---:|---:|---:|---:|---:|---|---:|"
r0="" c0=""
# shellcheck disable=SC2086 # lists of numbers
[ -n "${failed[0]:-}" ] || { r0=$(median ${rate[0]}); c0=$(median ${scpu[0]}); }
for i in "${!names[@]}"; do
  if [ -n "${failed[$i]:-}" ]; then
    echo "| ${names[$i]} | failed: ${failed[$i]} | | | | | | | $(interf_rows "$i") |"
    continue
  fi
  # shellcheck disable=SC2086 # lists of numbers
  python3 - "${names[$i]}" "$(median ${rate[$i]})" "${r0:-0}" "$(median ${scpu[$i]})" "${c0:-0}" "$(median ${ccpu[$i]})" "${body_bytes[$i]}" "$rows" "${rate[$i]% }" "$(interf_rows "$i")" <<'EOF'
import sys
n = sys.argv[1]
r, r0, c, c0, cc, b, rows = map(float, sys.argv[2:9])
ratio = lambda a, z: f"{a / z:.2f}x" if z > 0 else "-"
print(f"| {n} | {r:,.0f} | {ratio(r, r0)} | {c:.2f} | {ratio(c, c0)} | {cc:.2f} | {b / rows:.0f} | {sys.argv[9]} | {sys.argv[10]} |")
EOF
done
echo
echo "logs and batches: $out"
