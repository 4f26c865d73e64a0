#!/usr/bin/env bash
# Loader throughput against a local server, with the ceiling measured in the same run.
#
#   scripts/bench_load.sh timescale|influx|questdb|clickhouse|duckdb|sqlite|tonbo [--scale N] [--timestamp-end T]
#                         [--batch-sizes 1000,5000] [--workers 1,2] [--methods M,...] [--out DIR]
#                         [--rounds 3]
#
# Generates one cpu-only dataset (seed 1, --scale hosts from 2016-01-01 to --timestamp-end at
# 10s), then prints a Markdown table of rows/s for each loader configuration and, as the
# ceiling, the same rows loaded without tsload:
#   timescale: the server's own COPY cpu FROM '<file>' (FORMAT binary) into an empty hypertable
#     and an empty plain table, one stream (1 worker) and two concurrent streams (2 workers: the
#     rows as two halves by series); every method (--methods, default copy-binary,copy-csv,
#     insert-multi, plus a capped one-row insert run) x batch size x workers into both; and the
#     peers timescaledb-parallel-copy (on the CSV of the same rows) and tsbs_load_timescaledb
#     (on its own format from tsbs_generate_data, same scale and time range), taken from
#     TSLOAD_PEERS_BIN or PATH (a peer that fails is reported with its error);
#   influx, questdb: the same batches posted by curl with xargs -P <workers> (no gzip).
#   clickhouse: the server's own INSERT INTO cpu SELECT * FROM file('<csv>') (the CSV without
#     its header, in the server's user_files directory: $TSLOAD_STATE/clickhouse/main/user_files
#     or TSLOAD_CLICKHOUSE_USER_FILES) into an empty table as load_clickhouse makes it, a
#     ReplacingMergeTree (--dedup, the default) and a MergeTree (--dedup=false); load_clickhouse
#     on ILP and CSV into each; and the peer tsbs_load_clickhouse on its own format from
#     tsbs_generate_data when both are in TSLOAD_PEERS_BIN or on PATH (into a private server on
#     127.0.0.2:9000: the port it dials is QuestDB's on 127.0.0.1). HTTP at
#     TSLOAD_CLICKHOUSE_HTTP (default http://127.0.0.1:18123), native at --host's default.
#   influx also loads InfluxDB 2 and 3 when they answer (scripts/start_influxdb.sh --version 2
#     and 3; TSLOAD_INFLUX2_URL, default http://127.0.0.1:8087, org tsload and INFLUX2_TOKEN;
#     TSLOAD_INFLUX3_URL, default http://127.0.0.1:8181, and INFLUX3_TOKEN or the start script's
#     admin-token file): 2.x over the same matrix; 3.x, whose durable writes each wait for its
#     1 s WAL flush, at its own batch size and workers (TSLOAD_BENCH_V3_BATCH, default 20000;
#     TSLOAD_BENCH_V3_WORKERS, default 2: its best durable rate in a sweep on 2 shared cores), durable
#     and with --no-sync, each beside a curl ceiling of the same requests.
#   duckdb, sqlite (the database a file inside the loader's process): rounds (--rounds, default 3)
#     of every run interleaved, each row the median of its rounds and every share against the
#     median of the first ceiling: duckdb: DuckDB's own import (scripts/duckdb_import: CREATE
#     TABLE cpu AS SELECT * FROM read_csv, then read_parquet, of the same rows, one transaction,
#     then CHECKPOINT, as many DuckDB threads as loader workers, through the library load_duckdb
#     links); sqlite: the sqlite3 CLI's .import of the CSV in one transaction into the table as
#     load_sqlite creates it (WAL, synchronous=full, as load_sqlite's defaults; Debian's sqlite3,
#     installed when missing). Then the loader at its defaults (per-batch, batch size and workers
#     of --batch-sizes and --workers, last value of each) and with --commit one-transaction,
#     from pgcopy, CSV and ILP, each into a new file and verified (its count; the ceilings' count
#     is read back too).
#   tonbo (embedded too, through the Rust bridge of scripts/build_tonbo.sh): the same rounds, the
#     ceiling the bridge with no Go (bridge/tonbo's tonbo_ceiling, built with its feature
#     "ceiling": the CSV's rows encoded into the bridge's row buffers first, then timed: tt_write
#     of each batch, one transaction each, from as many threads as loader workers, and the
#     flush; its count read back), then load_tonbo at its defaults (per-batch) from pgcopy, CSV
#     and ILP. Its default size is smaller (--scale 100, --timestamp-end 2016-01-01T01:00:00Z,
#     36,000 rows): tonbo 0.3 writes some thousands of rows a second.
# The loader's --do-load=false rate (read and split only) is printed too. Results files go to
# --out (default $TSLOAD_STATE/bench_load/<target>), with report.html (`report html`) of them. The server must be running
# (scripts/start_<server>.sh). Rates are rows acknowledged per second of wall time. Every row
# gives the interference in cores (other processes' CPU beside the command and the server: the
# loader's results file, else measured around the command by lib.sh's interf_begin/interf_end),
# DISTURBED over 0.5 cores (docs/benchmarks.md).
# TSLOAD_BENCH_SCALE, TSLOAD_BENCH_END, TSLOAD_BENCH_BATCH_SIZES, TSLOAD_BENCH_WORKERS,
# TSLOAD_BENCH_METHODS and TSLOAD_BENCH_ROUNDS set the defaults of --scale, --timestamp-end,
# --batch-sizes, --workers, --methods and --rounds.
set -euo pipefail
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

[ $# -ge 1 ] || usage
target=$1; shift
case "$target" in timescale|influx|questdb|clickhouse|duckdb|sqlite|tonbo) ;; *) usage ;; esac

scale=${TSLOAD_BENCH_SCALE:-1000}
ts_end=${TSLOAD_BENCH_END:-2016-01-01T03:00:00Z}
batch_sizes=${TSLOAD_BENCH_BATCH_SIZES:-1000,5000,20000}
workers_list=${TSLOAD_BENCH_WORKERS:-1,2}
methods=${TSLOAD_BENCH_METHODS:-copy-binary,copy-csv,insert-multi}
out=""
rounds=${TSLOAD_BENCH_ROUNDS:-3}
if [[ $target == duckdb || $target == sqlite || $target == tonbo ]]; then # the loader's defaults
  batch_sizes=${TSLOAD_BENCH_BATCH_SIZES:-5000} workers_list=${TSLOAD_BENCH_WORKERS:-2}
fi
if [[ $target == tonbo ]]; then
  scale=${TSLOAD_BENCH_SCALE:-100} ts_end=${TSLOAD_BENCH_END:-2016-01-01T01:00:00Z}
fi
parse_flags bench_load.sh "--scale=scale --timestamp-end=ts_end --batch-sizes=batch_sizes --workers=workers_list
  --methods=methods --out=out --rounds=rounds" "$@"

bench_dirs "bench_load/$target"
data=$state/bench_load/data
mkdir -p "$data"
chmod 755 "$state" "$state/bench_load" "$data" 2>/dev/null || true
bin=$root/bin
build_tools "$bin" ./cmd/...

IFS=, read -r -a batch_sizes <<<"$batch_sizes"
IFS=, read -r -a workers_list <<<"$workers_list"
IFS=, read -r -a methods <<<"$methods"

now() { date +%s.%N; }
# rate ROWS START END -> rows/s
rate() { python3 -c 'import sys; r,a,b=map(float,sys.argv[1:]); print(int(r/(b-a)))' "$1" "$2" "$3"; }
# field FILE KEY -> a top-level number from a results file
field() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); v=r.get(sys.argv[2]); print(int(v) if isinstance(v,(int,float)) else v)' "$1" "$2"; }
status() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["status"] + ("" if r.get("verify",{}) and r["verify"].get("ok") else " (unverified)"))' "$1"; }

# The dataset's files are named by its parameters, so a cached file is the same data.
ds=$(dataset)

# The ceiling that the rows after it are compared with (per cell for curl, one for COPY).
ceiling=0
pct() { python3 -c 'import sys; a,b=map(float,sys.argv[1:]); print(f"{100*a/b:.0f}%" if b>0 else "-")' "$1" "$2"; }

# load NAME FILE BATCH WORKERS [loader flags...] -> a table row (ceiling % filled in at the end).
# A row of pending is NAME|BATCH|WORKERS|ROWS/S|STATUS|CEILING|INTERFERENCE; the interference is
# the loader's own (cost.interference of its results file) or, for a command without one, what
# interf_begin/interf_end (lib.sh) measured around it ("-" when not measured).
declare -a pending=()
load() {
  local name=$1 file=$2 bs=$3 w=$4; shift 4
  local res=$out/${name}_b${bs}_w${w}.json
  rm -f "$res"
  if "$bin/load_$target" --file "$file" --batch-size "$bs" --workers "$w" \
      --results-file "$res" --reporting-period 1h "$@" >"$res.log" 2>&1; then :; fi
  if [ -s "$res" ]; then
    interf_from_results "$res"
    pending+=("$name|$bs|$w|$(field "$res" rows_per_sec)|$(status "$res")|$ceiling|$interf_cell")
  else
    pending+=("$name|$bs|$w|0|failed (see $res.log)|$ceiling|-")
  fi
}

dry_run() { # FILE -> --do-load=false rate row
  local res=$out/do-load-false.json
  "$bin/load_$target" --file "$1" --do-load=false --batch-size 5000 --results-file "$res" \
    --reporting-period 1h >"$res.log" 2>&1 || true
  interf_from_results "$res"
  pending+=("--do-load=false (read+split only)|5000|2|$(field "$res" rows_per_sec)|$(field "$res" status)|0|$interf_cell")
}

# curl_extra: more curl arguments for every ceiling request (a token header).
curl_extra=()
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
    curl -s -o /dev/null -H 'Expect:' "${curl_extra[@]+"${curl_extra[@]}"}" -w '%{http_code}\n' --data-binary @{} "$url" | grep -cvE '^20[04]$' || true)
  end=$(now)
  rm -rf "$dir"
  if [ "$bad" != 0 ]; then echo "curl ceiling: $bad requests failed" >&2; echo 0; return; fi
  rate "$rows" "$start" "$end"
}

case "$target" in
timescale)
  pg=${TSLOAD_POSTGRES_HOST:-127.0.0.1}
  # Database names of this run only: other runs on the same server must not drop them.
  db=tsload_bench_$$
  psqlq() { psql -X -q -A -t -v ON_ERROR_STOP=1 -h "$pg" -U postgres "$@"; }
  generate "$data/$ds.pgcopy" --format pgcopy
  generate "$data/$ds.csv" --format csv
  rows=$(( $(wc -l <"$data/$ds.csv") - 1 ))
  # The same rows as two halves (by series) for two concurrent server-side streams.
  for s in 0 1; do
    generate "$data/$ds.half$s.pgcopy" --format pgcopy --shard "$s/2"
  done
  # empty_table DB KIND: the database DB with an empty cpu table as load_timescale makes it
  # (KIND true: a hypertable with 12h chunks; false: a plain table).
  empty_table() {
    "$bin/load_timescale" --file "$data/$ds.pgcopy" --db-name "$1" --drop-db --use-hypertable "$2" \
      --limit 1 --verify=off --reporting-period 1h >/dev/null 2>&1
    psqlq -d "$1" -c 'TRUNCATE cpu' >/dev/null
  }
  # server_ceiling KIND STREAMS: the server's own COPY cpu FROM '<file>' (FORMAT binary) into an
  # empty table, one stream (the whole file) or two concurrent ones (the two halves).
  server_ceiling() {
    local kind=$1 streams=$2 start end
    empty_table ${db}_ceiling "$kind"
    start=$(now)
    if [ "$streams" = 1 ]; then
      psqlq -d ${db}_ceiling -c "COPY cpu FROM '$data/$ds.pgcopy' (FORMAT binary)" >/dev/null
    else
      psqlq -d ${db}_ceiling -c "COPY cpu FROM '$data/$ds.half0.pgcopy' (FORMAT binary)" >/dev/null &
      psqlq -d ${db}_ceiling -c "COPY cpu FROM '$data/$ds.half1.pgcopy' (FORMAT binary)" >/dev/null
      wait
    fi
    end=$(now)
    local n
    n=$(psqlq -d ${db}_ceiling -c 'SELECT count(*) FROM cpu')
    [ "$n" = "$rows" ] || { echo "ceiling: $n rows in the table, want $rows" >&2; echo 0; return; }
    rate "$rows" "$start" "$end"
  }
  declare -A ceil
  for kind in true false; do
    for w in "${workers_list[@]}"; do
      streams=$(( w >= 2 ? 2 : 1 ))
      interf_begin "$pg:${PGPORT:-5432}"
      ceil[$kind$w]=$(server_ceiling "$kind" "$streams")
      interf_end
      label=hypertable; [ "$kind" = false ] && label=plain
      ceiling=${ceil[$kind$w]}
      pending+=("ceiling: server COPY FROM file, $streams stream(s), $label|-|$w|$ceiling|ok|$ceiling|$interf_cell")
    done
  done
  for kind in true false; do
    label=hypertable; [ "$kind" = false ] && label=plain
    for bs in "${batch_sizes[@]}"; do
      for w in "${workers_list[@]}"; do
        ceiling=${ceil[$kind$w]}
        for m in "${methods[@]}"; do
          f=$data/$ds.pgcopy; [ "$m" = copy-csv ] && f=$data/$ds.csv
          load "$m, $label" "$f" "$bs" "$w" --db-name "$db" --drop-db --method "$m" --use-hypertable "$kind"
        done
      done
    done
  done
  # One row per statement is slow: a capped run shows its rate.
  if [[ " ${methods[*]} " == *" insert-multi "* ]]; then
    ceiling=${ceil[true${workers_list[-1]}]}
    load "insert (first 100000 rows), hypertable" "$data/$ds.pgcopy" 1000 "${workers_list[-1]}" --db-name "$db" --drop-db --method insert --limit 100000
  fi

  # Peers, when their binaries are in TSLOAD_PEERS_BIN or on PATH (never part of the project).
  peer() {
    if [ -n "${TSLOAD_PEERS_BIN:-}" ] && [ -x "$TSLOAD_PEERS_BIN/$1" ]; then echo "$TSLOAD_PEERS_BIN/$1"; else command -v "$1" || true; fi
  }
  tpc=$(peer timescaledb-parallel-copy)
  if [ -n "$tpc" ]; then
    for bs in "${batch_sizes[@]}"; do
      for w in "${workers_list[@]}"; do
        ceiling=${ceil[true$w]}
        empty_table ${db}_peer true
        log=$out/timescaledb-parallel-copy_b${bs}_w${w}.log
        interf_begin "$pg:${PGPORT:-5432}"
        start=$(now)
        if "$tpc" --connection "host=$pg user=postgres sslmode=disable dbname=${db}_peer" --table cpu \
            --file "$data/$ds.csv" --skip-header --copy-options CSV --workers "$w" --batch-size "$bs" >"$log" 2>&1; then
          end=$(now)
          interf_end
          n=$(psqlq -d ${db}_peer -c 'SELECT count(*) FROM cpu')
          st=ok; [ "$n" = "$rows" ] || st="failed: $n rows in the table, want $rows"
          pending+=("timescaledb-parallel-copy (csv), hypertable|$bs|$w|$(rate "$rows" "$start" "$end")|$st|$ceiling|$interf_cell")
        else
          pending+=("timescaledb-parallel-copy (csv), hypertable|$bs|$w|0|failed: $(tail -n 1 "$log" | tr '|' '/' | cut -c1-150)|$ceiling|-")
        fi
      done
    done
  else
    echo "bench_load.sh: no timescaledb-parallel-copy in TSLOAD_PEERS_BIN or PATH; peer row left out" >&2
  fi
  tsbs_load=$(peer tsbs_load_timescaledb)
  tsbs_gen=$(peer tsbs_generate_data)
  if [ -n "$tsbs_load" ] && [ -n "$tsbs_gen" ]; then
    tsbs_file=$data/$ds.tsbs-timescaledb
    [ -s "$tsbs_file" ] || "$tsbs_gen" --use-case cpu-only --seed 1 --scale "$scale" --timestamp-start 2016-01-01T00:00:00Z \
      --timestamp-end "$ts_end" --log-interval 10s --format timescaledb --file "$tsbs_file" 2>/dev/null
    for bs in "${batch_sizes[@]}"; do
      for w in "${workers_list[@]}"; do
        ceiling=${ceil[true$w]}
        log=$out/tsbs_load_timescaledb_b${bs}_w${w}.log
        psqlq -d postgres -c "DROP DATABASE IF EXISTS ${db}_tsbs WITH (FORCE)" >/dev/null
        interf_begin "$pg:${PGPORT:-5432}"
        if "$tsbs_load" --file "$tsbs_file" --db-name ${db}_tsbs --host "$pg" --user postgres --postgres "sslmode=disable" \
            --workers "$w" --batch-size "$bs" --reporting-period 0s >"$log" 2>&1 &&
            r=$(grep -oE 'mean rate [0-9.]+ rows/sec' "$log" | tail -n 1 | grep -oE '[0-9.]+') && [ -n "$r" ]; then
          interf_end
          pending+=("tsbs_load_timescaledb (its own format), hypertable|$bs|$w|${r%.*}|ok|$ceiling|$interf_cell")
        else
          pending+=("tsbs_load_timescaledb (its own format), hypertable|$bs|$w|0|failed: $( (grep -m1 -oE 'ERROR: .*' "$log" || tail -n 1 "$log") | tr '|' '/' | cut -c1-200)|$ceiling|-")
        fi
      done
    done
  else
    echo "bench_load.sh: no tsbs_load_timescaledb/tsbs_generate_data in TSLOAD_PEERS_BIN or PATH; peer row left out" >&2
  fi
  for d in "$db" "${db}_ceiling" "${db}_peer" "${db}_tsbs"; do
    psqlq -d postgres -c "DROP DATABASE IF EXISTS $d WITH (FORCE)" >/dev/null 2>&1 || true
  done
  dry_run "$data/$ds.pgcopy"
  ;;
influx)
  url=${TSLOAD_INFLUX_URL:-http://127.0.0.1:8086}
  generate "$data/$ds.ilp" --format ilp
  for bs in "${batch_sizes[@]}"; do
    for w in "${workers_list[@]}"; do
      curl -s -XPOST "$url/query" --data-urlencode "q=DROP DATABASE tsload_ceiling" >/dev/null
      curl -s -XPOST "$url/query" --data-urlencode "q=CREATE DATABASE tsload_ceiling" >/dev/null
      interf_begin "$url"
      ceiling=$(curl_ceiling "$url/write?db=tsload_ceiling&precision=n" "$data/$ds.ilp" "$bs" "$w")
      interf_end
      pending+=("ceiling: curl -P $w, no gzip|$bs|$w|$ceiling|ok|$ceiling|$interf_cell")
      load "load_influx --gzip=false" "$data/$ds.ilp" "$bs" "$w" --db-name tsload_bench --drop-db --gzip=false
      load "load_influx (gzip)" "$data/$ds.ilp" "$bs" "$w" --db-name tsload_bench --drop-db
    done
  done
  url2=${TSLOAD_INFLUX2_URL:-http://127.0.0.1:8087}
  if curl -fs -o /dev/null --max-time 3 "$url2/ping"; then
    export INFLUX_TOKEN=${INFLUX2_TOKEN:-tsload-test-token}
    ceiling=0 # no 2.x ceiling measured: its rows show no share
    for bs in "${batch_sizes[@]}"; do
      for w in "${workers_list[@]}"; do
        load "2.x: load_influx --api v2 (gzip)" "$data/$ds.ilp" "$bs" "$w" --urls "$url2" --api v2 --org tsload --db-name tsload_bench --drop-db
      done
    done
  else
    echo "bench_load.sh: no InfluxDB 2 at $url2; its rows left out" >&2
  fi
  url3=${TSLOAD_INFLUX3_URL:-http://127.0.0.1:8181}
  token3=${INFLUX3_TOKEN:-$(cat "$state/influx/v3/admin-token" 2>/dev/null || true)}
  if [ "$(curl -s --max-time 3 -H "Authorization: Bearer $token3" "$url3/health")" = OK ]; then
    export INFLUX_TOKEN=$token3
    bs=${TSLOAD_BENCH_V3_BATCH:-20000} w=${TSLOAD_BENCH_V3_WORKERS:-2}
    v3db() { curl -s -o /dev/null -X "$1" -H "Authorization: Bearer $token3" "$url3/api/v3/configure/database?db=tsload_ceiling&hard_delete_at=now" \
      ${2:+-H 'Content-Type: application/json' -d '{"db":"tsload_ceiling"}'}; }
    curl_extra=(-H "Authorization: Bearer $token3")
    for sync in durable no_sync; do
      v3db DELETE; v3db POST create
      interf_begin "$url3"
      ceiling=$(curl_ceiling "$url3/api/v3/write_lp?db=tsload_ceiling&precision=nanosecond&no_sync=$([ $sync = no_sync ] && echo true || echo false)" "$data/$ds.ilp" "$bs" "$w")
      interf_end
      pending+=("3.x ceiling: curl -P $w, no gzip, $sync|$bs|$w|$ceiling|ok|$ceiling|$interf_cell")
      if [ $sync = durable ]; then
        load "3.x: load_influx --api v3 (gzip)" "$data/$ds.ilp" "$bs" "$w" --urls "$url3" --api v3 --db-name tsload_bench --drop-db
      else
        load "3.x: load_influx --api v3 --no-sync (gzip)" "$data/$ds.ilp" "$bs" "$w" --urls "$url3" --api v3 --no-sync --db-name tsload_bench --drop-db
      fi
    done
    v3db DELETE
    curl -s -o /dev/null -X DELETE -H "Authorization: Bearer $token3" "$url3/api/v3/configure/database?db=tsload_bench&hard_delete_at=now"
    curl_extra=()
  else
    echo "bench_load.sh: no InfluxDB 3 at $url3 (or no token); its rows left out" >&2
  fi
  dry_run "$data/$ds.ilp"
  ;;
duckdb|sqlite|tonbo)
  bs=${batch_sizes[-1]} w=${workers_list[-1]}
  generate "$data/$ds.pgcopy" --format pgcopy
  generate "$data/$ds.csv" --format csv
  generate "$data/$ds.ilp" --format ilp
  rows=$(( $(wc -l <"$data/$ds.csv") - 1 ))
  files=$out/files
  mkdir -p "$files"
  if [ "$target" = duckdb ]; then
    generate "$data/$ds.parquet" --format parquet
    build_tools "$bin" ./scripts/duckdb_import
  elif [ "$target" = tonbo ]; then
    bash "$scripts_dir/build_tonbo.sh" >/dev/null
    build_tools "$bin" -tags tonbo ./cmd/load_tonbo
    # The ceiling binary, in the bridge's cargo target directory (build_tonbo.sh's).
    tonbo_target=${CARGO_TARGET_DIR:-${TSLOAD_CACHE:-$HOME/.cache/tsload}/tonbo-bridge/target}
    PATH=$HOME/.cargo/bin:$PATH CARGO_TARGET_DIR=$tonbo_target nice -n 10 cargo build --release --locked -q \
      --features ceiling --bin tonbo_ceiling --manifest-path "$root/bridge/tonbo/Cargo.toml"
    tonbo_ceiling=$tonbo_target/release/tonbo_ceiling
  else
    command -v sqlite3 >/dev/null || apt_install sqlite3
    # The table as load_sqlite creates it, empty, for the CLI to import into.
    "$bin/load_sqlite" --file "$data/$ds.pgcopy" --db-path "$files/empty.sqlite" --drop-db --limit 1 --verify off \
      --reporting-period 1h >/dev/null 2>&1
    ddl=$(sqlite3 "$files/empty.sqlite" '.schema cpu')
    rm -f "$files"/empty.sqlite*
  fi
  # ceiling_run NAME -> "ROWS/S STATUS" of the database's own import into a new file
  ceiling_run() {
    local f=$files/ceiling n secs start end
    rm -rf "$f" "$f.wal" "$f-wal" "$f-shm"
    case "$1" in
    tonbo)
      if ! read -r n secs < <("$tonbo_ceiling" --dir "$f" --tags 10 --batch-size "$bs" --threads "$w" --mode 1 \
          "$data/$ds.csv" 2>"$out/ceiling.log"); then
        echo "0 failed:$(tail -n 1 "$out/ceiling.log" | tr ' |' '_/' | cut -c1-100)"; return
      fi
      [ "$n" = "$rows" ] || { echo "0 failed:$n/${rows}_rows"; return; }
      python3 -c 'import sys; print(int(float(sys.argv[1])/float(sys.argv[2])), "ok")' "$rows" "$secs" ;;
    read_csv|read_parquet)
      local in=$data/$ds.csv; [ "$1" = read_parquet ] && in=$data/$ds.parquet
      if ! read -r n secs < <("$bin/duckdb_import" --db "$f" --threads "$w" "$in" 2>"$out/ceiling.log"); then
        echo "0 failed:$(tail -n 1 "$out/ceiling.log" | tr ' |' '_/' | cut -c1-100)"; return
      fi
      [ "$n" = "$rows" ] || { echo "0 failed:$n/${rows}_rows"; return; }
      python3 -c 'import sys; print(int(float(sys.argv[1])/float(sys.argv[2])), "ok")' "$rows" "$secs" ;;
    sqlite3)
      start=$(now)
      if ! sqlite3 "$f" >/dev/null 2>"$out/ceiling.log" <<SQL
PRAGMA journal_mode=wal;
PRAGMA synchronous=full;
$ddl
BEGIN;
.import --csv --skip 1 $data/$ds.csv cpu
COMMIT;
SQL
      then echo "0 failed:$(tail -n 1 "$out/ceiling.log" | tr ' |' '_/' | cut -c1-100)"; return; fi
      end=$(now)
      n=$(sqlite3 "$f" 'SELECT count(*) FROM cpu')
      [ "$n" = "$rows" ] || { echo "0 failed:$n/${rows}_rows"; return; }
      echo "$(rate "$rows" "$start" "$end") ok" ;;
    esac
    rm -rf "$f" "$f.wal" "$f-wal" "$f-shm"
  }
  # loader_run FORMAT COMMIT -> "ROWS/S STATUS" of load_<target> into a new file
  loader_run() {
    local f=$files/loader res=$out/$1_$2.json
    rm -rf "$f" "$f.wal" "$f-wal" "$f-shm" "$res"
    "$bin/load_$target" --file "$data/$ds.$1" --db-path "$f" --commit "$2" --batch-size "$bs" --workers "$w" \
      --results-file "$res" --reporting-period 1h >"$res.log" 2>&1 || true
    if [ -s "$res" ]; then echo "$(field "$res" rows_per_sec) $(status "$res" | tr ' ' '_')"; else echo "0 failed"; fi
    rm -rf "$f" "$f.wal" "$f-wal" "$f-shm"
  }
  commits=(per-batch one-transaction)
  if [ "$target" = tonbo ]; then
    commits=(per-batch) # tonbo has no one-transaction mode (docs/loaders/tonbo.md)
    runs=("ceiling: the bridge alone (tonbo_ceiling: tt_write per batch, one transaction each, $w threads, flush)|ceiling tonbo")
  elif [ "$target" = duckdb ]; then
    runs=("ceiling: DuckDB's own import, CREATE TABLE AS read_csv + CHECKPOINT, $w threads|ceiling read_csv"
      "DuckDB's own import, CREATE TABLE AS read_parquet + CHECKPOINT, $w threads|ceiling read_parquet")
  else
    runs=("ceiling: sqlite3 CLI .import of the CSV, one transaction (WAL, synchronous=full)|ceiling sqlite3")
  fi
  for f in pgcopy csv ilp; do
    for c in "${commits[@]}"; do
      if [ "$c" = per-batch ]; then
        runs+=("load_$target --file $f (default: per-batch)|loader $f per-batch")
      else
        runs+=("load_$target --file $f --commit $c|loader $f $c")
      fi
    done
  done
  declare -A emb_rates=() emb_status=()
  for ((r = 1; r <= rounds; r++)); do # interleaved: each round runs everything once
    for run in "${runs[@]}"; do
      IFS='|' read -r name how <<<"$run"
      read -r kind a b <<<"$how"
      if [ "$kind" = ceiling ]; then
        interf_begin # the database runs in the command: the machine less the command's CPU
        res=$(ceiling_run "$a")
        interf_end
      else
        res=$(loader_run "$a" "$b")
        interf_from_results "$out/${a}_$b.json"
      fi
      interf_keep "$name"
      read -r v s <<<"$res"
      emb_rates[$name]+=" $v"
      [ "$s" = ok ] || emb_status[$name]="${s//_/ } (round $r)"
    done
  done
  ceiling=0
  for run in "${runs[@]}"; do
    IFS='|' read -r name how <<<"$run"
    # shellcheck disable=SC2086 # the rounds' rates, one word each
    m=$(median ${emb_rates[$name]}); m=${m%.*}
    [ "$ceiling" != 0 ] || ceiling=$m
    pending+=("$name (median of $rounds: ${emb_rates[$name]# })|$( [[ $how == ceiling* ]] && echo - || echo "$bs")|$w|$m|${emb_status[$name]:-ok}|$ceiling|$(interf_rows "$name")")
  done
  dry_run "$data/$ds.pgcopy"
  ;;
questdb)
  http=${TSLOAD_QUESTDB_HTTP:-http://127.0.0.1:9000}
  generate "$data/$ds.ilp" --format ilp
  drop() { curl -s -G "$http/exec" --data-urlencode "query=DROP TABLE IF EXISTS cpu" >/dev/null; }
  for bs in "${batch_sizes[@]}"; do
    for w in "${workers_list[@]}"; do
      drop
      interf_begin "$http"
      ceiling=$(curl_ceiling "$http/write?precision=n" "$data/$ds.ilp" "$bs" "$w")
      interf_end
      pending+=("ceiling: curl -P $w (HTTP)|$bs|$w|$ceiling|ok|$ceiling|$interf_cell")
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
clickhouse)
  chhttp=${TSLOAD_CLICKHOUSE_HTTP:-http://127.0.0.1:18123}
  user_files=${TSLOAD_CLICKHOUSE_USER_FILES:-$state/clickhouse/main/user_files}
  db=tsload_bench_$$
  chq() { curl -fsS "$chhttp/?date_time_input_format=best_effort" --data-binary "$1"; }
  generate "$data/$ds.ilp" --format ilp
  generate "$data/$ds.csv" --format csv
  rows=$(( $(wc -l <"$data/$ds.csv") - 1 ))
  # file() reads only under the server's user_files; 18.16 drops the first row of a
  # CSVWithNames file read by INSERT ... SELECT, so the rows go there without their header.
  mkdir -p "$user_files"
  tail -n +2 "$data/$ds.csv" >"$user_files/$ds.csv"
  # empty_table DEDUP: ${db}_ceiling.cpu as load_clickhouse makes it, empty.
  empty_table() {
    "$bin/load_clickhouse" --file "$data/$ds.csv" --db-name ${db}_ceiling --drop-db --dedup="$1" \
      --limit 1 --verify=off --reporting-period 1h >/dev/null 2>&1
    chq "TRUNCATE TABLE ${db}_ceiling.cpu"
  }
  server_ceiling() { # DEDUP -> rows/s of INSERT INTO cpu SELECT * FROM file(...)
    local st start end n
    empty_table "$1"
    st=$(chq "SELECT arrayStringConcat(groupArray(concat(name, ' ', type)), ', ') FROM system.columns WHERE database = '${db}_ceiling' AND table = 'cpu'")
    # TabSeparated output escapes a quote as \', as a string literal wants it
    start=$(now)
    chq "INSERT INTO ${db}_ceiling.cpu SELECT * FROM file('$ds.csv', 'CSV', '$st')" >/dev/null
    end=$(now)
    local final=""; [ "$1" = true ] && final=" FINAL" # a plain MergeTree has no FINAL
    n=$(chq "SELECT count() FROM ${db}_ceiling.cpu$final")
    [ "$n" = "$rows" ] || { echo "ceiling: $n rows in the table, want $rows" >&2; echo 0; return; }
    rate "$rows" "$start" "$end"
  }
  declare -A ceil
  for dedup in true false; do
    interf_begin "$chhttp"
    ceil[$dedup]=$(server_ceiling "$dedup")
    interf_end
    label=ReplacingMergeTree; [ "$dedup" = false ] && label=MergeTree
    ceiling=${ceil[$dedup]}
    st=ok; [ "$ceiling" = 0 ] && st=failed
    pending+=("ceiling: server INSERT SELECT FROM file (csv), $label|-|1|$ceiling|$st|$ceiling|$interf_cell")
  done
  for dedup in true false; do
    label=ReplacingMergeTree; [ "$dedup" = false ] && label=MergeTree
    ceiling=${ceil[$dedup]}
    for bs in "${batch_sizes[@]}"; do
      for w in "${workers_list[@]}"; do
        load "ilp, $label" "$data/$ds.ilp" "$bs" "$w" --db-name "$db" --drop-db --dedup="$dedup"
        load "csv, $label" "$data/$ds.csv" "$bs" "$w" --db-name "$db" --drop-db --dedup="$dedup"
      done
    done
  done
  peer() {
    if [ -n "${TSLOAD_PEERS_BIN:-}" ] && [ -x "$TSLOAD_PEERS_BIN/$1" ]; then echo "$TSLOAD_PEERS_BIN/$1"; else command -v "$1" || true; fi
  }
  tsbs_load=$(peer tsbs_load_clickhouse)
  tsbs_gen=$(peer tsbs_generate_data)
  if [ -n "$tsbs_load" ] && [ -n "$tsbs_gen" ]; then
    tsbs_file=$data/$ds.tsbs-clickhouse
    [ -s "$tsbs_file" ] || "$tsbs_gen" --use-case cpu-only --seed 1 --scale "$scale" --timestamp-start 2016-01-01T00:00:00Z \
      --timestamp-end "$ts_end" --log-interval 10s --format clickhouse --file "$tsbs_file" 2>/dev/null
    # TSBS's loader dials port 9000, which QuestDB holds on 127.0.0.1: a private server of
    # this bench on 127.0.0.2 takes its rows.
    tsbs_env=(env CLICKHOUSE_NAME=bench_tsbs CLICKHOUSE_LISTEN=127.0.0.2 CLICKHOUSE_PORT=9000 CLICKHOUSE_HTTP_PORT=18124 TSLOAD_STATE="$state")
    "${tsbs_env[@]}" CLICKHOUSE_FRESH=1 bash "$scripts_dir/start_clickhouse.sh" >"$out/tsbs-server.log" 2>&1 ||
      echo "bench_load.sh: the private ClickHouse on 127.0.0.2:9000 did not start (see $out/tsbs-server.log)" >&2
    tq() { curl -fsS "http://127.0.0.2:18124/" --data-binary "$1"; }
    ceiling=${ceil[false]}
    for bs in "${batch_sizes[@]}"; do
      for w in "${workers_list[@]}"; do
        log=$out/tsbs_load_clickhouse_b${bs}_w${w}.log
        tq "DROP DATABASE IF EXISTS ${db}_tsbs" >/dev/null || true
        interf_begin http://127.0.0.2:18124
        if "$tsbs_load" --file "$tsbs_file" --db-name ${db}_tsbs --host 127.0.0.2 --user default \
            --workers "$w" --batch-size "$bs" --reporting-period 0s >"$log" 2>&1 &&
            r=$(grep -oE 'mean rate [0-9.]+ rows/sec' "$log" | tail -n 1 | grep -oE '[0-9.]+') && [ -n "$r" ]; then
          interf_end
          n=$(tq "SELECT count() FROM ${db}_tsbs.cpu" 2>/dev/null || echo "?")
          st=ok; [ "$n" = "$rows" ] || st="$n rows in its cpu table, want $rows"
          pending+=("tsbs_load_clickhouse (its own format), MergeTree, private server|$bs|$w|${r%.*}|$st|$ceiling|$interf_cell")
        else
          pending+=("tsbs_load_clickhouse (its own format), MergeTree, private server|$bs|$w|0|failed: $(tail -n 1 "$log" | tr '|' '/' | cut -c1-200)|$ceiling|-")
        fi
      done
    done
    "${tsbs_env[@]}" CLICKHOUSE_PURGE=1 bash "$scripts_dir/stop_clickhouse.sh" >/dev/null 2>&1 || true
  else
    echo "bench_load.sh: no tsbs_load_clickhouse/tsbs_generate_data in TSLOAD_PEERS_BIN or PATH; peer row left out" >&2
  fi
  for d in "$db" "${db}_ceiling"; do
    chq "DROP DATABASE IF EXISTS $d" >/dev/null 2>&1 || true
  done
  rm -f "$user_files/$ds.csv"
  dry_run "$data/$ds.ilp"
  ;;
esac

echo
echo "## load_$target, cpu-only scale $scale to $ts_end ($(nproc) cores)"
echo
echo "| run | batch size | workers | rows/s | of ceiling | status | interference cores |"
echo "|---|---:|---:|---:|---:|---|---:|"
pages=()
for p in "${pending[@]}"; do
  IFS='|' read -r name bs w r st c itf <<<"$p"
  printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$name" "$bs" "$w" \
    "$(python3 -c 'import sys; print(f"{int(sys.argv[1]):,}")' "$r")" "$(pct "$r" "$c")" "$st" "${itf:--}"
  [ -s "$out/${name}_b${bs}_w${w}.json" ] && pages+=("$out/${name}_b${bs}_w${w}.json")
done
[ -s "$out/do-load-false.json" ] && pages+=("$out/do-load-false.json")
echo
echo "results files: $out"
if [ ${#pages[@]} -gt 0 ]; then
  "$bin/report" html --out "$out/report.html" --group name --title "load_$target: cpu-only scale $scale to $ts_end" "${pages[@]}" >/dev/null
  echo "report: $out/report.html"
fi
