#!/usr/bin/env bash
# Loader throughput against a local server, with the ceiling measured in the same run.
#
#   scripts/bench_load.sh timescale|influx|questdb [--scale N] [--timestamp-end T]
#                         [--batch-sizes 1000,5000] [--workers 1,2] [--out DIR]
#
# Generates one cpu-only dataset (seed 1, --scale hosts from 2016-01-01 to --timestamp-end at
# 10s), then prints a Markdown table of rows/s for each loader configuration and, as the
# ceiling, the same rows loaded without tsload:
#   timescale: the server's own COPY cpu FROM '<file>' (FORMAT binary) (one backend);
#   influx, questdb: the same batches posted by curl with xargs -P <workers> (no gzip).
# The loader's --do-load=false rate (read and split only) is printed too. Results files go to
# --out (default $TSLOAD_STATE/bench_load/<target>), with report.html (`report html`) of them. The server must be running
# (scripts/start_<server>.sh). Rates are rows acknowledged per second of wall time.
# TSLOAD_BENCH_SCALE and TSLOAD_BENCH_END set the defaults of --scale and --timestamp-end.
set -euo pipefail

usage() { sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
[ $# -ge 1 ] || usage
target=$1; shift
case "$target" in timescale|influx|questdb) ;; *) usage ;; esac

scale=${TSLOAD_BENCH_SCALE:-1000}
ts_end=${TSLOAD_BENCH_END:-2016-01-01T03:00:00Z}
batch_sizes=1000,5000,20000
workers_list=1,2
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --scale) scale=$2; shift 2 ;;
    --timestamp-end) ts_end=$2; shift 2 ;;
    --batch-sizes) batch_sizes=$2; shift 2 ;;
    --workers) workers_list=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) usage ;;
    *) echo "bench_load.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

root=$(cd "$(dirname "$0")/.." && pwd)
state=${TSLOAD_STATE:-/tmp/tsload}
out=${out:-$state/bench_load/$target}
data=$state/bench_load/data
mkdir -p "$out" "$data"
chmod 755 "$state" "$state/bench_load" "$data" 2>/dev/null || true
bin=$root/bin
(cd "$root" && go build -o "$bin/" ./cmd/...)

IFS=, read -r -a batch_sizes <<<"$batch_sizes"
IFS=, read -r -a workers_list <<<"$workers_list"

now() { date +%s.%N; }
# rate ROWS START END -> rows/s
rate() { python3 -c 'import sys; r,a,b=map(float,sys.argv[1:]); print(int(r/(b-a)))' "$1" "$2" "$3"; }
# field FILE KEY -> a top-level number from a results file
field() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); v=r.get(sys.argv[2]); print(int(v) if isinstance(v,(int,float)) else v)' "$1" "$2"; }
status() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["status"] + ("" if r.get("verify",{}) and r["verify"].get("ok") else " (unverified)"))' "$1"; }

# The dataset's files are named by its parameters, so a cached file is the same data.
ds=cpu-s${scale}-${ts_end//:/}
gen() { # FORMAT FILE
  [ -s "$2" ] || "$bin/generate_data" --use-case cpu-only --seed 1 --scale "$scale" \
    --timestamp-end "$ts_end" --format "$1" --file "$2"
}

# The ceiling that the rows after it are compared with (per cell for curl, one for COPY).
ceiling=0
pct() { python3 -c 'import sys; a,b=map(float,sys.argv[1:]); print(f"{100*a/b:.0f}%" if b>0 else "-")' "$1" "$2"; }

# load NAME FILE BATCH WORKERS [loader flags...] -> a table row (ceiling % filled in at the end)
declare -a pending=()
load() {
  local name=$1 file=$2 bs=$3 w=$4; shift 4
  local res=$out/${name}_b${bs}_w${w}.json
  rm -f "$res"
  if "$bin/load_$target" --file "$file" --batch-size "$bs" --workers "$w" \
      --results-file "$res" --reporting-period 1h "$@" >"$res.log" 2>&1; then :; fi
  if [ -s "$res" ]; then
    pending+=("$name|$bs|$w|$(field "$res" rows_per_sec)|$(status "$res")|$ceiling")
  else
    pending+=("$name|$bs|$w|0|failed (see $res.log)|$ceiling")
  fi
}

dry_run() { # FILE -> --do-load=false rate row
  local res=$out/do-load-false.json
  "$bin/load_$target" --file "$1" --do-load=false --batch-size 5000 --results-file "$res" \
    --reporting-period 1h >"$res.log" 2>&1 || true
  pending+=("--do-load=false (read+split only)|5000|2|$(field "$res" rows_per_sec)|$(field "$res" status)|0")
}

# curl_ceiling URL FILE BATCH WORKERS -> rows/s posting pre-split batches with curl
# (no "Expect: 100-continue": QuestDB does not answer it and curl would wait 1s per request)
curl_ceiling() {
  local url=$1 file=$2 bs=$3 w=$4 dir
  dir=$(mktemp -d "$data/split.XXXX")
  split -l "$bs" -a 6 "$file" "$dir/b."
  local rows start end bad
  rows=$(wc -l <"$file")
  start=$(now)
  bad=$(find "$dir" -name 'b.*' -print0 | xargs -0 -P "$w" -I{} \
    curl -s -o /dev/null -H 'Expect:' -w '%{http_code}\n' --data-binary @{} "$url" | grep -cvE '^20[04]$' || true)
  end=$(now)
  rm -rf "$dir"
  if [ "$bad" != 0 ]; then echo "curl ceiling: $bad requests failed" >&2; echo 0; return; fi
  rate "$rows" "$start" "$end"
}

case "$target" in
timescale)
  pg=${TSLOAD_POSTGRES_HOST:-127.0.0.1}
  gen pgcopy "$data/$ds.pgcopy"
  gen csv "$data/$ds.csv"
  rows=$(( $(wc -l <"$data/$ds.csv") - 1 ))
  # Ceiling: the server reads the file itself with one COPY into the same kind of table.
  "$bin/load_timescale" --file "$data/$ds.pgcopy" --db-name tsload_ceiling --drop-db \
    --limit 1 --verify=false --reporting-period 1h >/dev/null 2>&1
  psql -q -h "$pg" -U postgres -d tsload_ceiling -c 'TRUNCATE cpu' >/dev/null
  start=$(now)
  psql -q -h "$pg" -U postgres -d tsload_ceiling -c "COPY cpu FROM '$data/$ds.pgcopy' (FORMAT binary)" >/dev/null
  end=$(now)
  ceiling=$(rate "$rows" "$start" "$end")
  pending+=("ceiling: server-side COPY FROM file|-|1|$ceiling|ok|$ceiling")
  for bs in "${batch_sizes[@]}"; do
    for w in "${workers_list[@]}"; do
      load copy-binary "$data/$ds.pgcopy" "$bs" "$w" --db-name tsload_bench --drop-db --method copy-binary
      load copy-csv "$data/$ds.csv" "$bs" "$w" --db-name tsload_bench --drop-db --method copy-csv
      load insert-multi "$data/$ds.pgcopy" "$bs" "$w" --db-name tsload_bench --drop-db --method insert-multi
    done
  done
  # One row per statement is slow: a capped run shows its rate.
  load "insert (first 100000 rows)" "$data/$ds.pgcopy" 1000 2 --db-name tsload_bench --drop-db --method insert --limit 100000
  dry_run "$data/$ds.pgcopy"
  ;;
influx)
  url=${TSLOAD_INFLUX_URL:-http://127.0.0.1:8086}
  gen ilp "$data/$ds.ilp"
  for bs in "${batch_sizes[@]}"; do
    for w in "${workers_list[@]}"; do
      curl -s -XPOST "$url/query" --data-urlencode "q=DROP DATABASE tsload_ceiling" >/dev/null
      curl -s -XPOST "$url/query" --data-urlencode "q=CREATE DATABASE tsload_ceiling" >/dev/null
      ceiling=$(curl_ceiling "$url/write?db=tsload_ceiling&precision=n" "$data/$ds.ilp" "$bs" "$w")
      pending+=("ceiling: curl -P $w, no gzip|$bs|$w|$ceiling|ok|$ceiling")
      load "load_influx --gzip=false" "$data/$ds.ilp" "$bs" "$w" --db-name tsload_bench --drop-db --gzip=false
      load "load_influx (gzip)" "$data/$ds.ilp" "$bs" "$w" --db-name tsload_bench --drop-db
    done
  done
  dry_run "$data/$ds.ilp"
  ;;
questdb)
  http=${TSLOAD_QUESTDB_HTTP:-http://127.0.0.1:9000}
  gen ilp "$data/$ds.ilp"
  drop() { curl -s -G "$http/exec" --data-urlencode "query=DROP TABLE IF EXISTS cpu" >/dev/null; }
  for bs in "${batch_sizes[@]}"; do
    for w in "${workers_list[@]}"; do
      drop
      ceiling=$(curl_ceiling "$http/write?precision=n" "$data/$ds.ilp" "$bs" "$w")
      pending+=("ceiling: curl -P $w (HTTP)|$bs|$w|$ceiling|ok|$ceiling")
      drop
      load "http, --dedup=false" "$data/$ds.ilp" "$bs" "$w" --dedup=false
      drop
      load "http, dedup" "$data/$ds.ilp" "$bs" "$w" --use-case cpu-only
      drop
      load "tcp" "$data/$ds.ilp" "$bs" "$w" --transport tcp
    done
  done
  drop
  dry_run "$data/$ds.ilp"
  ;;
esac

echo
echo "## load_$target, cpu-only scale $scale to $ts_end ($(nproc) cores)"
echo
echo "| run | batch size | workers | rows/s | of ceiling | status |"
echo "|---|---:|---:|---:|---:|---|"
pages=()
for p in "${pending[@]}"; do
  IFS='|' read -r name bs w r st c <<<"$p"
  printf '| %s | %s | %s | %s | %s | %s |\n' "$name" "$bs" "$w" \
    "$(python3 -c 'import sys; print(f"{int(sys.argv[1]):,}")' "$r")" "$(pct "$r" "$c")" "$st"
  [ -s "$out/${name}_b${bs}_w${w}.json" ] && pages+=("$out/${name}_b${bs}_w${w}.json")
done
[ -s "$out/do-load-false.json" ] && pages+=("$out/do-load-false.json")
echo
echo "results files: $out"
if [ ${#pages[@]} -gt 0 ]; then
  "$bin/report" html --out "$out/report.html" --group name --title "load_$target: cpu-only scale $scale to $ts_end" "${pages[@]}" >/dev/null
  echo "report: $out/report.html"
fi
