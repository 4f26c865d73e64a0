#!/usr/bin/env bash
# What out-of-order and late rows cost each database, measured in one run.
#
#   scripts/bench_outoforder.sh [--scale N] [--timestamp-end T] [--batch-size N] [--workers N]
#                               [--runs N] [--servers questdb,questdb-nodedup,timescale,influx,cnosdb,victoriametrics,influx2,influx3]
#                               [--out DIR]
#
# Writes four cpu-only ILP files of the same rows (seed 1, --scale hosts, default 10, 10 s, 2016-01-01 to
# --timestamp-end, default 2016-01-03: two days): in order; 5% and 30% out of order
# (generate_data --out-of-order F --out-of-order-window 1h); 10% late by a day (--late 0.1
# --late-by 24h). Each server loads each file into a fresh database (or table prefix) of this
# run's own, --verify count, --footprint-settle 10s, and its results file gives:
#   rows/s: rows acknowledged per second of the load's wall time;
#   server CPU-s/Mrow: the server process tree's CPU seconds during the load per million rows
#     (the runner's /proc sampling; asynchronous work after the load, such as compaction, is
#     not in it);
#   bytes on disk: the tables' size once it stopped changing (up to 10 s), by the database's
#     own accounting (docs/results-file.md).
# The files of one server are loaded in rounds (in order, 5%, 30%, late; then again, starting
# at the next file), --runs times (default 2), and the fastest run of each counts, so that a
# slow spell of a shared machine falls on every file alike; the table also gives each figure as a ratio to the same
# server's in-order file. Servers: questdb (DEDUP, the default over http), questdb-nodedup,
# timescale (hypertables when the extension is there), influx (1.x on 8086), cnosdb,
# victoriametrics, and, when named in --servers (they are not by default), influx2 (InfluxDB 2,
# TSLOAD_INFLUX2_URL, default http://127.0.0.1:8087, org INFLUX2_ORG or tsload, token
# INFLUX2_TOKEN or the start script's) and influx3 (InfluxDB 3, TSLOAD_INFLUX3_URL, default
# http://127.0.0.1:8181, token INFLUX3_TOKEN or the start script's admin-token file; durable
# writes, each waiting for its 1 s WAL flush); each must be running (scripts/start_<server>.sh); one that does not answer is
# left out with a note. VictoriaMetrics accounts its size for the whole server only
# (vm_data_size_bytes, every db label together), so by default its loads go to a private
# server of this script (scripts/start_victoriametrics.sh with VM_NAME=bench_outoforder,
# VM_PORT=TSLOAD_BENCH_VM_PORT or 8431), wiped and restarted before each load and stopped at
# the end, and its bytes are that load's alone; TSLOAD_VM_URL=URL loads a running server
# instead (its bytes then include everything else it holds). TSLOAD_LOCK=FILE runs each load
# under flock FILE (servers shared with tests). At the defaults (172,800 rows a file, six
# servers, 48 loads) the size waits (up to 10 s a load) take most of the time: about a quarter
# of an hour on 2 cores, more while other work holds the lock.
# Files go to --out (default $TSLOAD_STATE/bench_outoforder, TSLOAD_STATE defaults to
# /tmp/tsload), named by their parameters so a later run reuses them.
set -euo pipefail
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

scale=10
ts_end=2016-01-03T00:00:00Z
batch=5000
workers=2
runs=2
servers=questdb,questdb-nodedup,timescale,influx,cnosdb,victoriametrics
out=""
parse_flags bench_outoforder.sh "--scale=scale --timestamp-end=ts_end --batch-size=batch --workers=workers
  --runs=runs --servers=servers --out=out" "$@"

bench_dirs bench_outoforder
bin=$out/bin
build_tools "$bin" ./cmd/generate_data ./cmd/load_questdb ./cmd/load_timescale ./cmd/load_influx ./cmd/load_cnosdb ./cmd/load_victoriametrics

# The data sets: name, generate_data flags.
kinds=(in-order ooo-5 ooo-30 late-10)
declare -A kind_flags=(
  [in-order]=""
  [ooo-5]="--out-of-order 0.05 --out-of-order-window 1h"
  [ooo-30]="--out-of-order 0.3 --out-of-order-window 1h"
  [late-10]="--late 0.1 --late-by 24h"
)
declare -A kind_label=(
  [in-order]="in order"
  [ooo-5]="5% out of order (1 h)"
  [ooo-30]="30% out of order (1 h)"
  [late-10]="10% late by 1 day"
)
ds=$(dataset)
for k in "${kinds[@]}"; do
  # shellcheck disable=SC2086 # the flags are words
  generate "$out/$ds-$k.ilp" --workers "$workers" ${kind_flags[$k]} 2>/dev/null
done
rows=$(grep -c . "$out/$ds-in-order.ilp")

# Names of this run only: other runs on the same servers must not drop them.
tag=ooo$$
qdb_http=${TSLOAD_QUESTDB_HTTP:-http://127.0.0.1:9000}
influx_url=${TSLOAD_INFLUX_URL:-http://127.0.0.1:8086}
cnosdb_url=${TSLOAD_CNOSDB_URL:-http://127.0.0.1:8902}
vm_private=0
if [ -z "${TSLOAD_VM_URL:-}" ]; then
  vm_private=1
  private_vm bench_outoforder "${TSLOAD_BENCH_VM_PORT:-8431}" "$out/vm-start.log"
else
  vm_url=$TSLOAD_VM_URL
fi
pg_url=${TSLOAD_POSTGRES:-postgres://postgres@127.0.0.1:5432/postgres}
influx2_url=${TSLOAD_INFLUX2_URL:-http://127.0.0.1:8087}
influx3_url=${TSLOAD_INFLUX3_URL:-http://127.0.0.1:8181}
influx2_token=${INFLUX2_TOKEN:-tsload-test-token}
influx3_token=${INFLUX3_TOKEN:-$(cat "$state/influx/v3/admin-token" 2>/dev/null || true)}
# token SERVER -> the INFLUX_TOKEN of its loads (never in argv)
token() {
  case "$1" in
    influx2) echo "$influx2_token" ;;
    influx3) echo "$influx3_token" ;;
  esac
}

# loader SERVER -> the loader and its flags
loader() {
  case "$1" in
    questdb) echo "load_questdb --http-url $qdb_http --table-prefix ${tag}_ --dedup" ;;
    questdb-nodedup) echo "load_questdb --http-url $qdb_http --table-prefix ${tag}n_ --dedup=false" ;;
    timescale) echo "load_timescale --postgres $pg_url --db-name ${tag}" ;;
    influx) echo "load_influx --urls $influx_url --api v1 --db-name ${tag}" ;;
    cnosdb) echo "load_cnosdb --urls $cnosdb_url --db-name ${tag}" ;;
    victoriametrics) echo "load_victoriametrics --urls $vm_url --db-name ${tag}" ;;
    influx2) echo "load_influx --urls $influx2_url --api v2 --org ${INFLUX2_ORG:-tsload} --db-name ${tag}" ;;
    influx3) echo "load_influx --urls $influx3_url --api v3 --db-name ${tag}" ;;
  esac
}
reachable() {
  case "$1" in
    questdb*) curl -sf -o /dev/null "$qdb_http/exec?query=SELECT%201" ;;
    timescale) pg_isready -q -d "$pg_url" ;;
    influx) curl -sf -o /dev/null "$influx_url/ping" ;;
    cnosdb) curl -sf -o /dev/null "$cnosdb_url/api/v1/ping" ;;
    victoriametrics) curl -sf -o /dev/null "$vm_url/health" ;;
    influx2) curl -sf -o /dev/null "$influx2_url/ping" ;;
    influx3) [ "$(curl -s --max-time 3 -H "Authorization: Bearer $influx3_token" "$influx3_url/health")" = OK ] ;;
  esac
}
cleanup() {
  local s
  for s in "${active[@]}"; do
    case "$s" in
      questdb|questdb-nodedup)
        local p=${tag}_; [ "$s" = questdb ] || p=${tag}n_
        curl -s -o /dev/null -G "$qdb_http/exec" --data-urlencode "query=DROP TABLE IF EXISTS ${p}cpu" || true ;;
      timescale) psql -X -q "$pg_url" -c "DROP DATABASE IF EXISTS ${tag}" >/dev/null 2>&1 || true ;;
      influx) curl -s -o /dev/null -XPOST "$influx_url/query" --data-urlencode "q=DROP DATABASE ${tag}" || true ;;
      influx2)
        local id
        id=$(curl -s -H "Authorization: Token $influx2_token" "$influx2_url/api/v2/buckets?name=${tag}&org=${INFLUX2_ORG:-tsload}" |
          python3 -c 'import json,sys; b=json.load(sys.stdin).get("buckets") or []; print(b[0]["id"] if b else "")' 2>/dev/null || true)
        [ -z "$id" ] || curl -s -o /dev/null -X DELETE -H "Authorization: Token $influx2_token" "$influx2_url/api/v2/buckets/$id" || true ;;
      influx3) curl -s -o /dev/null -X DELETE -H "Authorization: Bearer $influx3_token" "$influx3_url/api/v3/configure/database?db=${tag}&hard_delete_at=now" || true ;;
      cnosdb) curl -s -o /dev/null -u root: -XPOST "$cnosdb_url/api/v1/sql?tenant=cnosdb&db=public" -d "DROP DATABASE IF EXISTS ${tag}" || true ;;
      victoriametrics)
        if [ "$vm_private" = 1 ]; then
          vm_purge
        else
          curl -s -o /dev/null "$vm_url/api/v1/admin/tsdb/delete_series" --data-urlencode "match[]={db=\"${tag}\"}" || true
        fi ;;
    esac
  done
}
active=()
trap cleanup EXIT

IFS=, read -r -a want <<<"$servers"
notes=()
for s in "${want[@]}"; do
  if [ -z "$(loader "$s")" ]; then echo "bench_outoforder.sh: unknown server $s" >&2; exit 2; fi
  [ "$s" != victoriametrics ] || vm_fresh || true
  if reachable "$s"; then active+=("$s"); else notes+=("$s: not reachable, left out"); fi
done

# figures FILE -> "rows/s cpu-s/Mrow settled-bytes status" from a results file
figures() {
  python3 - "$1" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
c = r.get("cost") or {}
srv = c.get("server") or {}
fp = c.get("footprint") or {}
ok = r.get("status") == "ok" and (r.get("verify") or {}).get("ok")
# a size the database does not report (InfluxDB 3) is -1: "not measured", never 0 bytes
disk = -1 if fp.get("not_measured") or not fp.get("settled_bytes") else fp["settled_bytes"]
print(r.get("rows_per_sec", 0), srv.get("cpu_seconds_per_million_rows", 0), disk, "ok" if ok else r.get("status", "failed"))
EOF
}

declare -A rate=() cpu=() disk=() status=()
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for ((round = 0; round < runs; round++)); do
  for s in "${active[@]}"; do
    # each round starts the server's files at another one, so that none is always the first
    # load after another server's (whose background work may still run)
    for ((j = 0; j < ${#kinds[@]}; j++)); do
      k=${kinds[$(((j + round) % ${#kinds[@]}))]}
      res=$out/$s-$k-$round.json
      rm -f "$res" "$res.log"
      # shellcheck disable=SC2046 # the loader's flags are words
      set -- $(loader "$s")
      l=$1; shift
      bench_lock
      [ "$s" != victoriametrics ] || vm_fresh || echo "the private VictoriaMetrics did not start: $out/vm-start.log" >"$res.log"
      INFLUX_TOKEN=$(token "$s") "$bin/$l" "$@" --file "$out/$ds-$k.ilp" --batch-size "$batch" --workers "$workers" --drop-db \
        --footprint-settle 10s --results-file "$res" --reporting-period 1h >>"$res.log" 2>&1 || true
      bench_unlock
      if [ ! -s "$res" ]; then
        status[$s.$k]="failed (see $res.log)"
        continue
      fi
      interf_from_results "$res"
      interf_keep "$s.$k"
      read -r r c d st < <(figures "$res")
      status[$s.$k]=$st
      [ "$st" = ok ] || continue
      if python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) > float(sys.argv[2]) else 1)' "$r" "${rate[$s.$k]:-0}"; then
        rate[$s.$k]=$r cpu[$s.$k]=$c disk[$s.$k]=$d
      fi
    done
  done
done

echo "cpu-only, $scale hosts, 2016-01-01 to $ts_end at 10 s: $rows rows in order; batch $batch, $workers workers, fastest of $runs runs; load average $load_before before, $(cut -d' ' -f1-3 /proc/loadavg) after"
echo
echo "| server | data | rows/s | vs in order | server CPU-s / M rows | vs in order | bytes on disk | vs in order | interference cores max |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
for s in "${active[@]}"; do
  for k in "${kinds[@]}"; do
    if [ -z "${rate[$s.$k]:-}" ]; then
      echo "| $s | ${kind_label[$k]} | ${status[$s.$k]:-failed} | | | | | | $(interf_rows "$s.$k") |"
      continue
    fi
    python3 - "$s" "${kind_label[$k]}" "${rate[$s.$k]}" "${rate[$s.in-order]:-0}" "${cpu[$s.$k]}" "${cpu[$s.in-order]:-0}" "${disk[$s.$k]}" "${disk[$s.in-order]:-0}" "$(interf_rows "$s.$k")" <<'EOF'
import sys
s, k = sys.argv[1:3]
r, r0, c, c0, d, d0 = map(float, sys.argv[3:9])
ratio = lambda a, b: f"{a / b:.2f}x" if b > 0 else "-"
size = f"{d / 1e6:,.1f} MB" if d >= 0 else "not measured"
print(f"| {s} | {k} | {r:,.0f} | {ratio(r, r0)} | {c:.1f} | {ratio(c, c0)} | {size} | {ratio(d, d0) if d >= 0 else '-'} | {sys.argv[9]} |")
EOF
  done
done
for n in "${notes[@]+"${notes[@]}"}"; do echo; echo "$n"; done
echo
echo "results files: $out"
