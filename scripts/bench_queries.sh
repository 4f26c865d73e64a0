#!/usr/bin/env bash
# tsload's query benchmark beside TSBS's, per query type, on one QuestDB table loaded once.
#
#   scripts/bench_queries.sh [--scale N] [--timestamp-end T] [--queries N] [--workers N] [--out DIR]
#
# generate_data writes one cpu-only ILP file (seed 1, --scale hosts, default 100, 10 s, 2016-01-01
# to --timestamp-end, default 2016-01-02: TSBS draws a 24-hour window from it); load_questdb loads it into the local QuestDB
# (table cpu, --drop-db) and runs a generate_queries set of --queries queries per type (default
# 20) on --workers connections (default 2), every answer checked against the evaluator over the
# file. Then, for each devops type, TSBS's tsbs_generate_queries (same seed, scale and range,
# --format questdb) and tsbs_run_queries_questdb run the same number of queries against the same
# table over HTTP /exec. The table: per type, our p50 and p99 (ms, from load_questdb's results
# file, answers checked) and TSBS's (its --results-file), and the ratio of the p50s, all measured
# in this run. TSBS's answers are not checked (it prints them with --print-responses; it checks
# nothing itself), and its windows and hosts are its own draws, not ours: the two columns time
# the same question on the same data, not the same instances of it.
# The peers: tsbs_generate_queries and tsbs_run_queries_questdb from TSLOAD_PEERS_BIN (a
# directory) or PATH, built from TSBS's public source (github.com/timescale/tsbs) outside this
# repository; without them only our column is printed. TSLOAD_LOCK=FILE runs the load and the
# runs under flock FILE. Files go to --out (default $TSLOAD_STATE/bench_queries, TSLOAD_STATE
# defaults to /tmp/tsload).
set -euo pipefail
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

scale=${TSLOAD_BENCH_SCALE:-100}
ts_end=${TSLOAD_BENCH_END:-2016-01-02T00:00:00Z}
queries=20
workers=2
out=
while [[ $# -gt 0 ]]; do
	case $1 in
	--scale) scale=$2; shift 2 ;;
	--timestamp-end) ts_end=$2; shift 2 ;;
	--queries) queries=$2; shift 2 ;;
	--workers) workers=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	*) echo "bench_queries: unknown argument $1" >&2; exit 2 ;;
	esac
done
bench_dirs bench_queries
bin=$out/bin
build_tools "$bin" ./cmd/generate_data ./cmd/generate_queries ./cmd/load_questdb
data=$out/$(dataset).ilp.gz
generate "$data"
"$bin/generate_queries" --use-case cpu-only --seed 1 --scale "$scale" --timestamp-end "$ts_end" --queries "$queries" --file "$out/q.tsq"

peer() { local p=${TSLOAD_PEERS_BIN:+$TSLOAD_PEERS_BIN/}$1; command -v "$p" >/dev/null 2>&1 && echo "$p"; }
tsbs_gen=$(peer tsbs_generate_queries || true)
tsbs_run=$(peer tsbs_run_queries_questdb || true)

bench_lock
"$bin/load_questdb" --file "$data" --drop-db --queries "$out/q.tsq" --queries-workers "$workers" --results-file "$out/tsload.json"
if [[ -n $tsbs_gen && -n $tsbs_run ]]; then
	for t in $(python3 -c 'import json,sys; print(" ".join(json.load(open(sys.argv[1]))["query_bench"]["types"][i]["name"] for i in range(len(json.load(open(sys.argv[1]))["query_bench"]["types"]))))' "$out/tsload.json"); do
		rm -f "$out/tsbs-$t.json" "$out/tsbs-$t.interference"
		if ! "$tsbs_gen" --use-case cpu-only --seed 1 --scale "$scale" --timestamp-start 2016-01-01T00:00:00Z --timestamp-end "$ts_end" \
			--queries "$queries" --query-type "$t" --format questdb --file "$out/tsbs-$t.q" 2>"$out/tsbs-$t.log"; then
			echo "bench_queries: tsbs_generate_queries $t failed: $(grep -m1 panic "$out/tsbs-$t.log")" >&2
			continue
		fi
		interf_begin http://127.0.0.1:9000
		if ! "$tsbs_run" --file "$out/tsbs-$t.q" --workers "$workers" --print-interval 0 --results-file "$out/tsbs-$t.json" \
			>"$out/tsbs-$t.run.log" 2>&1; then
			echo "bench_queries: tsbs_run_queries_questdb $t failed: $(grep -m1 -E 'panic|error' "$out/tsbs-$t.run.log")" >&2
			rm -f "$out/tsbs-$t.json"
		fi
		interf_end
		echo "$interf_cell" >"$out/tsbs-$t.interference"
	done
else
	echo "bench_queries: tsbs_generate_queries or tsbs_run_queries_questdb not found (TSLOAD_PEERS_BIN or PATH): our column only" >&2
fi
bench_unlock

python3 - "$out" <<'PY'
import json, os, sys
out = sys.argv[1]
r = json.load(open(os.path.join(out, "tsload.json")))
qb = r["query_bench"]
# interference, in cores: tsload's from its results file (the whole run), TSBS's measured by
# lib.sh's interf_begin/interf_end around each of its runs
i = (r.get("cost") or {}).get("interference") or {}
ours = (f"{i['cores']:.2f}" + (" DISTURBED" if i.get("disturbed") else "")) if "cores" in i else "-"
print(f"{'type':24} {'tsload p50':>11} {'tsload p99':>11} {'checked':>8} {'TSBS p50':>9} {'TSBS p99':>9} {'p50 ratio':>10}"
      f"  {'interference tsload':>19}  {'interference TSBS':>17}")
for t in qb["types"]:
    name, lat = t["name"], t["latency_ms"]
    theirs, p50, p99, ratio = os.path.join(out, f"tsbs-{name}.json"), "-", "-", "-"
    f = os.path.join(out, f"tsbs-{name}.interference")
    itf = open(f).read().strip() if os.path.exists(theirs) and os.path.exists(f) else "-"
    if os.path.exists(theirs):
        q = json.load(open(theirs))["Totals"]["overallQuantiles"].get("all_queries", {})
        if q:
            p50, p99 = f"{q['q50']:.2f}", f"{q['q99']:.2f}"
            ratio = f"{lat['p50'] / q['q50']:.2f}" if q["q50"] else "-"
    checked = f"{t['checked'] - t['wrong']}/{t['count']}" if qb["checked"] else "no"
    print(f"{name:24} {lat['p50']:11.2f} {lat['p99']:11.2f} {checked:>8} {p50:>9} {p99:>9} {ratio:>10}  {ours:>19}  {itf:>17}")
PY
