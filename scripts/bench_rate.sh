#!/usr/bin/env bash
# The sustainable ingest rate of a local database: the highest offered rate (rows/s) that it
# takes with the latency from each batch's due time under a bound and a bounded backlog.
#
#   scripts/bench_rate.sh questdb|timescale|influx|cnosdb [--steps START,STEP,EVERY,MAX]
#       [--slo p99=100ms] [--batch-size 1000] [--workers 2] [--out DIR]
#       [--query-rate Q [--query-workers N]] [-- loader flags...]
#
# Streams a cpu-only ILP dataset (generate_data, seed 1, 1000 hosts, 10 s interval; no file) of
# as many rows as the staircase needs into a fresh database with
#   load_<target> --rate-steps START,STEP,EVERY,MAX --slo p99=100ms
# (default steps 10k,10k,5s,100k: ten steps, 50 s; docs/rate.md says how steps are judged) and
# prints a Markdown table row: the sustainable rate, why the step above it failed, then
# one line per step. The results file, its log and `report plot` charts (offered vs achieved,
# latency percentiles over time) go to --out (default $TSLOAD_STATE/bench_rate/<target>).
# The server must be running (scripts/start_<server>.sh); the loaders' default addresses are
# used, other flags follow `--`. A sustainable rate shown "≥ X" means every step held: raise
# MAX. Figures from a shared or loaded machine are noisy: run it more than once.
# TSLOAD_RATE_STEPS, TSLOAD_RATE_SLO, TSLOAD_RATE_BATCH and TSLOAD_RATE_WORKERS set the defaults;
# TSLOAD_RATE_EVERY and TSLOAD_RATE_MAX override the step length and MAX of any --steps.
# With --query-rate Q, Q queries per second run beside the load at every step (TSM-Bench's
# online mode; load_x --query-rate, docs/query-load.md): the data is then written to a file
# first (its description says what the queries ask and check), and each step's line adds the
# queries answered in it and their p99 latency from due.
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2; }
[ $# -ge 1 ] || usage
target=$1; shift
case "$target" in questdb|timescale|influx|cnosdb) ;; *) usage ;; esac

steps=${TSLOAD_RATE_STEPS:-10k,10k,5s,100k}
slo=${TSLOAD_RATE_SLO:-p99=100ms}
batch=${TSLOAD_RATE_BATCH:-1000}
workers=${TSLOAD_RATE_WORKERS:-2}
out=""
query_rate="" query_workers=1
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --steps) steps=$2; shift 2 ;;
    --slo) slo=$2; shift 2 ;;
    --batch-size) batch=$2; shift 2 ;;
    --workers) workers=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --query-rate) query_rate=$2; shift 2 ;;
    --query-workers) query_workers=$2; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) usage ;;
    *) echo "bench_rate.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
IFS=, read -r -a parts <<<"$steps"
if [ ${#parts[@]} -ne 4 ]; then
  echo "bench_rate.sh: --steps wants START,STEP,EVERY,MAX (a staircase that ends), got $steps" >&2
  exit 2
fi
# TSLOAD_RATE_EVERY and TSLOAD_RATE_MAX replace the staircase's step length and MAX whatever
# --steps says (the README test runs the documented examples short with them).
if [ -n "${TSLOAD_RATE_EVERY:-}" ]; then parts[2]=$TSLOAD_RATE_EVERY; fi
if [ -n "${TSLOAD_RATE_MAX:-}" ]; then parts[3]=$TSLOAD_RATE_MAX; fi
steps=$(IFS=,; echo "${parts[*]}")

root=$(cd "$(dirname "$0")/.." && pwd)
state=${TSLOAD_STATE:-/tmp/tsload}
out=${out:-$state/bench_rate/$target}
mkdir -p "$out"
bin=$root/bin
(cd "$root" && go build -o "$bin/" ./cmd/...)

# The rows the staircase sends (EVERY x the sum of the steps' rates), plus a batch.
rows=$(python3 - "$steps" "$batch" <<'PY'
import math, re, sys
def rate(s):
    m = {"k": 1e3, "K": 1e3, "M": 1e6}.get(s[-1], 1)
    return float(s[:-1] if m != 1 else s) * m
def secs(s):
    units = {"ms": 1e-3, "s": 1, "m": 60, "h": 3600}
    return sum(float(n) * units[u] for n, u in re.findall(r"([0-9.]+)(ms|s|m|h)", s))
start, step, every, top = sys.argv[1].split(",")
start, step, top, every = rate(start), rate(step), rate(top), secs(every)
n = math.ceil((top - start) / step)
total = sum(min(start + k * step, top) for k in range(n + 1)) * every
print(int(total) + int(sys.argv[2]))
PY
)

# A database (a table in QuestDB, which has one database) of this run only: other runs on the
# same server may load their own "cpu".
db=tsload_rate_$(date +%s)
flags=(--db-name "$db" --drop-db)
rename=(cat)
if [ "$target" = questdb ] && [ -n "$query_rate" ]; then
  # The queries name the tables as the data does: the table is ${db}_cpu.
  flags=(--table-prefix "${db}_" --drop-db)
  trap 'curl -s -G --data-urlencode "query=DROP TABLE IF EXISTS ${db}_cpu" http://127.0.0.1:9000/exec >/dev/null || true' EXIT
elif [ "$target" = questdb ]; then
  flags=()
  rename=(sed "s/^cpu,/${db},/")
  trap 'curl -s -G --data-urlencode "query=DROP TABLE IF EXISTS $db" http://127.0.0.1:9000/exec >/dev/null || true' EXIT
fi
res=$out/steps.json
rm -f "$res"
echo "bench_rate.sh: $target, --rate-steps $steps --slo $slo, batch $batch, workers $workers, $rows rows" >&2
# The loader stops reading when the staircase ends: generate_data's broken pipe is no failure.
if [ -n "$query_rate" ]; then
  # A file with its description: the queries ask about its hosts and are checked against it.
  data=$out/data.ilp
  "$bin/generate_data" --use-case cpu-only --seed 1 --scale 1000 --timestamp-end 2017-01-01T00:00:00Z \
    --max-rows "$rows" --file "$data" 2>/dev/null
  status=0
  "$bin/load_$target" --file "$data" --batch-size "$batch" --workers "$workers" \
    --rate-steps "$steps" --slo "$slo" --reporting-period 1s --results-file "$res" \
    --query-rate "$query_rate" --query-workers "$query_workers" \
    "${flags[@]}" "${extra[@]}" >"$res.log" 2>&1 || status=$?
  rm -f "$data" "$data.dataset.json"
else
  set +e
  "$bin/generate_data" --use-case cpu-only --seed 1 --scale 1000 --timestamp-end 2017-01-01T00:00:00Z \
    --max-rows "$rows" 2>/dev/null | "${rename[@]}" | "$bin/load_$target" --batch-size "$batch" --workers "$workers" \
    --rate-steps "$steps" --slo "$slo" --reporting-period 1s --results-file "$res" \
    "${flags[@]}" "${extra[@]}" >"$res.log" 2>&1
  status=${PIPESTATUS[2]}
  set -e
fi
if [ "$status" -ne 0 ]; then
  echo "bench_rate.sh: the load failed (see $res.log):" >&2; tail -3 "$res.log" >&2; exit 1
fi
"$bin/report" plot --out "$out" "$res" >/dev/null

python3 - "$res" "$target" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
pc = r["pace"]
steps = pc["steps"]
sus = pc.get("sustainable_rows_per_sec", 0)
fail = next((s for s in steps if not s["ok"] and s["complete"] and s["rows_per_sec"] > sus), None)
why = f"none (the staircase ended ({pc.get('ended_by', '?')}) before a step failed: the rate is a lower bound; raise MAX or give more rows)"
if fail:
    reasons = []
    if not fail["complete"]: reasons.append("partial")
    if not fail["bounded"]: reasons.append(f"backlog {fail['backlog_rows']:,} rows")
    q = fail.get("slo_quantile_ms", 0)
    if q >= pc.get("slo_ms", 0): reasons.append(f"p{pc.get('slo_quantile', 99):g} {q:.0f} ms")
    why = f"{fail['rows_per_sec']:,.0f} rows/s: " + ", ".join(reasons or ["no batch acknowledged"])
if pc.get("failed_below"):
    why += "; but a lower step failed: " + ", ".join(f"{v:,.0f}" for v in pc["failed_below"])
print(f"| target | sustainable rows/s (p{pc.get('slo_quantile', 99):g} from due < {pc.get('slo_ms', 0):g} ms) | the next step failed | peak achieved rows/s | interference cores |")
print("| --- | ---: | --- | ---: | ---: |")
peak = max(s["achieved_rows_per_sec"] for s in steps)
shown = ("≥ " if pc.get("sustainable_at_least") else "") + f"{sus:,.0f}" if sus else "none"
# the loader's own measure of the other work on the machine over the whole staircase
itf = (r.get("cost") or {}).get("interference") or {}
itf = (f"{itf['cores']:.2f}" + (" DISTURBED" if itf.get("disturbed") else "")) if "cores" in itf else "-"
print(f"| {sys.argv[2]} | {shown} | {why} | {peak:,.0f} | {itf} |")
print()
q = r.get("queries")
for s in steps:
    l = s["latency_from_due_ms"]
    line = (f"- {s['rows_per_sec']:,.0f} rows/s: achieved {s['achieved_rows_per_sec']:,.0f}, from due p50 {l['p50']:.1f} p99 {l['p99']:.1f} ms, "
            f"backlog {s['backlog_rows']:,} rows at its end, {'ok' if s['ok'] else 'FAILED' if s['complete'] else 'partial (not judged)'}")
    if q:
        # The periods that ended within the step: queries answered, the largest per-type p99.
        ps = [p for p in r["periods"] if s["at"] < p["at"] <= s["at"] + s["seconds"] + 1e-6]
        n = sum(t["count"] for p in ps for t in p.get("queries", []))
        p99 = max((t["latency_from_due_ms"]["p99"] for p in ps for t in p.get("queries", []) if t["count"]), default=0)
        line += f"; {n} queries, p99 from due up to {p99:.1f} ms"
    print(line)
if q:
    a = q["all"]
    print()
    print(f"queries beside the load: {q['rate']:g}/s on {q['workers']} connections, {a['count']} answered, {a['errors']} errors, "
          f"{a['checked']} checked, {a['wrong']} wrong; from due p50 {a['latency_from_due_ms']['p50']:.1f} p99 {a['latency_from_due_ms']['p99']:.1f} ms")
PY
echo "bench_rate.sh: results $res, plots in $out" >&2
