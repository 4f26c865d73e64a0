#!/usr/bin/env bash
# compare.sh: one dataset, generated once, loaded into every database whose
# server is up, with the same batch size and workers; one table side by side
# with each database's verified row count.
#
#   scripts/compare.sh --out DIR [--targets questdb,influx,influx2,influx3,timescale,cnosdb,victoriametrics,prometheus,duckdb,sqlite,cassandra]
#       [--use-case cpu-only] [--seed 123] [--scale 100]
#       [--timestamp-start 2016-01-01T00:00:00Z] [--timestamp-end 2016-01-02T00:00:00Z]
#       [--log-interval 10s] [--file existing.ilp.gz]
#       [--batch-size 5000] [--workers 2] [--repeat 1] [--db-name tsload_compare]
#       [--footprint-settle 30s] [--gzip] [--dedup] [--request-timeout 60s]
#       [--table-prefix P] [--query-rate Q [--query-workers N] [--query-mix M]]
#       [-- extra flags for every loader]
#
# Fair by default: every loader runs with the same comparison settings, whatever
# its own defaults (which suit loading one database alone): request bodies not
# compressed (load_influx gzips by default), no QuestDB DEDUP tables (its
# default; InfluxDB and CnosDB always replace a point with the series and
# timestamp of one they hold, which they cannot turn off, and so does
# VictoriaMetrics as scripts/start_victoriametrics.sh runs it, with
# -dedup.minScrapeInterval=1ms), and one request
# timeout (default 60s; the loaders' own are 10s, 60s and 5m). --gzip
# compresses every HTTP loader's bodies (PostgreSQL's COPY cannot), --dedup
# creates QuestDB's tables with DEDUP. table.md says what was aligned, and
# report adds a "differs between runs" line for any setting the runs of
# different databases did not share (a TSLOAD_COMPARE_FLAGS_<TARGET> or an
# extra flag can override the policy; the line then says so).
#
# QuestDB has one namespace and no database to drop: its tables are loaded as
# <db-name>_<table> (load_questdb --table-prefix), so --drop-db drops only
# compare.sh's own tables, never a "cpu" another user loaded. --table-prefix P
# loads every database's tables as P<table> instead.
#
# The dataset is InfluxDB line protocol (every loader reads it; load_timescale
# decodes it and sends COPY), written to DIR/data.ilp.gz unless --file names
# one. The time range defaults to generate_data's own (2016-01-01 to 2016-01-02,
# end exclusive), so a lone --timestamp-end within that day works. Binaries come from $TSLOAD_BIN, ./bin or PATH (go build -o bin/ ./cmd/...).
#
# A database takes part when its loader binary exists and its server answers:
#   timescale  $TSLOAD_POSTGRES (default postgres://postgres@127.0.0.1:5432/postgres)
#   influx     $TSLOAD_INFLUX_URL (default http://127.0.0.1:8086), GET /ping
#   influx2    InfluxDB 2 with load_influx --api v2: $TSLOAD_INFLUX2_URL (default
#              http://127.0.0.1:8087), org $INFLUX2_ORG (tsload), token $INFLUX2_TOKEN
#              (tsload-test-token: scripts/start_influxdb.sh --version 2)
#   influx3    InfluxDB 3 with load_influx --api v3: $TSLOAD_INFLUX3_URL (default
#              http://127.0.0.1:8181), token $INFLUX3_TOKEN or the admin token that
#              scripts/start_influxdb.sh --version 3 keeps ($TSLOAD_STATE/influx/v3/admin-token),
#              GET /health with it. The results files of influx2/influx3 say target
#              "influx2"/"influx3" (load_influx writes "influx" for every version), so
#              the table has a row per version. Tokens go by INFLUX_TOKEN, never argv.
#   questdb    $TSLOAD_QUESTDB_HTTP (default http://127.0.0.1:9000), GET /ping
#   cnosdb     $CNOSDB_URL (default http://127.0.0.1:8902), GET /api/v1/ping; with
#              CNOSDB_URL unset and no server up, scripts/start_cnosdb.sh starts the
#              local one (it needs the server binary: see docs/servers.md, CnosDB)
#   victoriametrics $TSLOAD_VM_URL (default http://127.0.0.1:8428), GET /health; with
#              TSLOAD_VM_URL unset and no server up, scripts/start_victoriametrics.sh starts
#              the local one (building it once from its Go module)
#   cassandra  $TSLOAD_CASSANDRA (default 127.0.0.1:9042), TCP; with TSLOAD_CASSANDRA unset
#              and no server up, scripts/start_cassandra.sh starts the local one. Not in the
#              default --targets: on a 2-core machine it loads a few thousand rows/s, so the
#              default day of 864,000 rows would add minutes per repeat; name it to compare it.
#   prometheus $TSLOAD_PROM_URL (default http://127.0.0.1:9090), GET /-/ready; with
#              TSLOAD_PROM_URL unset and no server up, scripts/start_prometheus.sh starts
#              the local one (Debian's 2.42.0). Each run writes a db label of its own
#              (<db-name>_<nanoseconds>): Prometheus keeps a dropped series' newest samples
#              in its head, so the same rows under a dropped label would verify short
#   duckdb     no server: the file DIR/<db-name>.duckdb, opened inside load_duckdb
#   sqlite     no server: the file DIR/<db-name>.sqlite, opened inside load_sqlite
#              (their server CPU and memory are the loader's own: the database runs in it)
# Per-database loader flags: TSLOAD_COMPARE_FLAGS_<TARGET> (e.g.
# TSLOAD_COMPARE_FLAGS_TIMESCALE="--method copy-binary"), split on spaces.
#
# Every run drops and re-creates --db-name and verifies the count, and records
# what the load cost: the tables' bytes on disk once settled (each loader waits
# up to --footprint-settle for the size to stop changing), and, for a server on
# this machine, its CPU seconds, peak RSS and bytes written (from /proc). Output
# in DIR: results/<target>_r<n>.json, logs/<target>_r<n>.log, table.md and
# table.csv, cost.md (rows/s, MB on disk, bytes/row, server CPU-s per million
# rows, server peak RSS, loader CPU: printed with table.md), bars_rows.png/.svg, plots/<target>_r<n>.rate.png/.svg, and
# report.html: one self-contained page with the table, the charts and the
# environment of every run (server versions, machine, dataset, flags).
# With --query-rate Q, each database is loaded twice per repeat: without
# queries (<target>_r<n>) and with Q queries per second beside the load
# (<target>_q_r<n>, its results' target "<target>+queries", a row of its own
# in the table; load_x --query-rate, --query-workers, --query-mix:
# docs/query-load.md); queries.md then puts, per database, the ingest rate
# without and with queries, its change, and the queries' latency from due
# (p50, p99), answers and wrong answers side by side (medians across
# repeats). A loader whose target has no querier fails its runs with
# queries (the table says so).
# Exit status 0 when every run was ok, 3 when some failed (the table says
# which), 1/2 on setup or usage errors.
set -euo pipefail

usage() {
	sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
}
die() {
	echo "compare: $*" >&2
	exit 1
}

out="" targets="timescale,influx,influx2,influx3,questdb,cnosdb,victoriametrics,prometheus,duckdb,sqlite" file=""
use_case=cpu-only seed=123 scale=100 ts_start=2016-01-01T00:00:00Z ts_end=2016-01-02T00:00:00Z interval=10s
batch=5000 workers=2 repeat=1 db_name=tsload_compare settle=30s
gzip=false dedup=false request_timeout=60s table_prefix=""
query_rate="" query_workers=1 query_mix=""
extra=()
while [[ $# -gt 0 ]]; do
	case "$1" in
	--out) out=${2:?}; shift 2 ;;
	--targets) targets=${2:?}; shift 2 ;;
	--file) file=${2:?}; shift 2 ;;
	--use-case) use_case=${2:?}; shift 2 ;;
	--seed) seed=${2:?}; shift 2 ;;
	--scale) scale=${2:?}; shift 2 ;;
	--timestamp-start) ts_start=${2:?}; shift 2 ;;
	--timestamp-end) ts_end=${2:?}; shift 2 ;;
	--log-interval) interval=${2:?}; shift 2 ;;
	--batch-size) batch=${2:?}; shift 2 ;;
	--workers) workers=${2:?}; shift 2 ;;
	--repeat) repeat=${2:?}; shift 2 ;;
	--db-name) db_name=${2:?}; shift 2 ;;
	--footprint-settle) settle=${2:?}; shift 2 ;;
	--gzip) gzip=true; shift ;;
	--dedup) dedup=true; shift ;;
	--request-timeout) request_timeout=${2:?}; shift 2 ;;
	--table-prefix) table_prefix=${2:?}; shift 2 ;;
	--query-rate) query_rate=${2:?}; shift 2 ;;
	--query-workers) query_workers=${2:?}; shift 2 ;;
	--query-mix) query_mix=${2:?}; shift 2 ;;
	-h | --help) usage ;;
	--) shift; extra=("$@"); break ;;
	*) echo "compare: unknown argument $1" >&2; usage ;;
	esac
done
[[ -n $out ]] || { echo "compare: --out is required" >&2; usage; }
for n in "$batch" "$workers" "$repeat" "$query_workers"; do
	[[ $n =~ ^[1-9][0-9]*$ ]] || die "--batch-size, --workers, --repeat and --query-workers take positive integers, not '$n'"
done
if [[ -n $query_rate ]]; then
	[[ $query_rate =~ ^[0-9]+(\.[0-9]+)?$ && ! $query_rate =~ ^0+(\.0+)?$ ]] || die "--query-rate takes a positive number of queries per second, not '$query_rate'"
fi
# modes: "" (no queries) and, with --query-rate, "q" (queries beside the load).
modes=("")
[[ -n $query_rate ]] && modes+=(q)

find_bin() {
	local name=$1 dir
	for dir in "${TSLOAD_BIN:-}" ./bin; do
		if [[ -n $dir && -x $dir/$name ]]; then
			echo "$dir/$name"
			return 0
		fi
	done
	command -v "$name"
}
report_bin=$(find_bin report) || die "report not found in \$TSLOAD_BIN, ./bin or PATH (go build -o bin/ ./cmd/...)"

# tcp_up HOST PORT: something accepts connections there within 2 seconds.
tcp_up() {
	# shellcheck disable=SC2016 # $1 and $2 expand in the inner shell
	timeout 2 bash -c 'exec 3<>"/dev/tcp/$1/$2"' _ "$1" "$2" 2>/dev/null
}
# host_port URL DEFAULT_PORT: "host port" of an http(s):// or postgres:// URL.
host_port() {
	local rest=${1#*://} port=$2
	rest=${rest#*@}
	rest=${rest%%/*}
	rest=${rest%%,*}
	if [[ $rest == *:* ]]; then port=${rest##*:}; rest=${rest%:*}; fi
	echo "${rest:-127.0.0.1} $port"
}
# http_up URL PATH: the server answers PATH with a 2xx/3xx (TCP when curl is missing).
http_up() {
	local hp
	if command -v curl >/dev/null; then
		curl -fsS -o /dev/null --max-time 3 "${1%/}$2" 2>/dev/null
		return
	fi
	read -r -a hp <<<"$(host_port "$1" 80)"
	tcp_up "${hp[0]}" "${hp[1]}"
}

server_up() {
	local hp
	case "$1" in
	timescale)
		read -r -a hp <<<"$(host_port "${TSLOAD_POSTGRES:-postgres://postgres@127.0.0.1:5432/postgres}" 5432)"
		if command -v pg_isready >/dev/null; then
			pg_isready -q -h "${hp[0]}" -p "${hp[1]}"
		else
			tcp_up "${hp[0]}" "${hp[1]}"
		fi
		;;
	influx) http_up "${TSLOAD_INFLUX_URL:-http://127.0.0.1:8086}" /ping ;;
	influx2) http_up "${TSLOAD_INFLUX2_URL:-http://127.0.0.1:8087}" /ping ;;
	influx3)
		command -v curl >/dev/null || return 1
		[[ $(curl -s --max-time 3 -H "Authorization: Bearer $(influx3_token)" "${TSLOAD_INFLUX3_URL:-http://127.0.0.1:8181}/health") == OK ]]
		;;
	questdb) http_up "${TSLOAD_QUESTDB_HTTP:-http://127.0.0.1:9000}" /ping ;;
	cnosdb)
		http_up "${CNOSDB_URL:-http://127.0.0.1:8902}" /api/v1/ping && return 0
		[[ -z ${CNOSDB_URL:-} ]] && bash "$(dirname "$0")/start_cnosdb.sh"
		;;
	victoriametrics)
		http_up "${TSLOAD_VM_URL:-http://127.0.0.1:8428}" /health && return 0
		[[ -z ${TSLOAD_VM_URL:-} ]] && bash "$(dirname "$0")/start_victoriametrics.sh"
		;;
	cassandra)
		read -r -a hp <<<"$(host_port "${TSLOAD_CASSANDRA:-127.0.0.1:9042}" 9042)"
		tcp_up "${hp[0]}" "${hp[1]}" && return 0
		[[ -z ${TSLOAD_CASSANDRA:-} ]] && bash "$(dirname "$0")/start_cassandra.sh"
		;;
	prometheus)
		http_up "${TSLOAD_PROM_URL:-http://127.0.0.1:9090}" /-/ready && return 0
		[[ -z ${TSLOAD_PROM_URL:-} ]] && bash "$(dirname "$0")/start_prometheus.sh"
		;;
	duckdb | sqlite) return 0 ;; # embedded: no server
	*) return 1 ;;
	esac
}

# Address flags from the environment, where a loader's flag has no env var of its own.
target_flags() {
	case "$1" in
	timescale) [[ -n ${TSLOAD_POSTGRES:-} ]] && echo "--postgres $TSLOAD_POSTGRES" ;;
	cnosdb) [[ -n ${CNOSDB_URL:-} ]] && echo "--urls $CNOSDB_URL" ;;
	influx2) echo "--urls ${TSLOAD_INFLUX2_URL:-http://127.0.0.1:8087} --api v2 --org ${INFLUX2_ORG:-tsload}" ;;
	influx3) echo "--urls ${TSLOAD_INFLUX3_URL:-http://127.0.0.1:8181} --api v3" ;;
	duckdb | sqlite) echo "--db-path $out/$db_name.$1" ;;
	prometheus) echo "--db-name ${db_name}_$(date +%s%N)" ;; # after the common --db-name: it wins
	esac
	local var="TSLOAD_COMPARE_FLAGS_${1^^}"
	echo "${!var:-}"
}

# fair_flags TARGET: the comparison policy as the target's loader flags (before
# TSLOAD_COMPARE_FLAGS_<TARGET> and the extra flags, which may override it).
fair_flags() {
	case "$1" in
	duckdb | sqlite) ;; # no requests to time out, no bodies to compress
	*) echo "--request-timeout $request_timeout" ;;
	esac
	case "$1" in
	timescale | duckdb | sqlite | prometheus) ;; # prometheus: remote write bodies are snappy's
	questdb) echo "--gzip=$gzip --dedup=$dedup" ;;
	cassandra) ;; # CQL frames are not compressed here
	*) echo "--gzip=$gzip" ;;
	esac
	if [[ -n $table_prefix ]]; then
		echo "--table-prefix $table_prefix"
	elif [[ $1 == questdb ]]; then
		echo "--table-prefix ${db_name}_"
	fi
}
# aligned: what the policy made the same, for table.md.
aligned() {
	local body="request bodies not compressed" dd="no DEDUP tables in QuestDB (InfluxDB, CnosDB and VictoriaMetrics with -dedup.minScrapeInterval=1ms always replace a point with the series and timestamp of one they hold)"
	[[ $gzip == true ]] && body="request bodies gzipped (every HTTP loader; PostgreSQL COPY is not compressed)"
	[[ $dedup == true ]] && dd="QuestDB tables with DEDUP (as InfluxDB, CnosDB and VictoriaMetrics with -dedup.minScrapeInterval=1ms, which always replace a point with the series and timestamp of one they hold)"
	echo "Settings aligned by compare.sh for every database: batch size $batch, workers $workers, request timeout $request_timeout, $body, $dd."
}

# influx3_token: INFLUX3_TOKEN, else the token file of scripts/start_influxdb.sh --version 3.
influx3_token() {
	if [[ -n ${INFLUX3_TOKEN:-} ]]; then
		echo "$INFLUX3_TOKEN"
	else
		cat "${TSLOAD_STATE:-/tmp/tsload}/influx/v3/admin-token" 2>/dev/null || true
	fi
}
# loader_of TARGET: the loader binary's name (every InfluxDB version is load_influx).
loader_of() {
	case "$1" in
	influx2 | influx3) echo load_influx ;;
	*) echo "load_$1" ;;
	esac
}
# token_env TARGET: the INFLUX_TOKEN=... assignment the loader runs with.
token_env() {
	case "$1" in
	influx2) echo "INFLUX_TOKEN=${INFLUX2_TOKEN:-tsload-test-token}" ;;
	influx3) echo "INFLUX_TOKEN=$(influx3_token)" ;;
	*) echo "TSLOAD_COMPARE=1" ;;
	esac
}

IFS=, read -r -a wanted <<<"$targets"
up=()
for t in "${wanted[@]}"; do
	if ! find_bin "$(loader_of "$t")" >/dev/null; then
		echo "compare: $t: no $(loader_of "$t") binary; skipped" >&2
	elif ! server_up "$t"; then
		echo "compare: $t: server not reachable; skipped" >&2
	else
		up+=("$t")
	fi
done
[[ ${#up[@]} -gt 0 ]] || die "no database is up (start one with scripts/start_postgres.sh, start_influxdb.sh, start_questdb.sh, start_cnosdb.sh or start_victoriametrics.sh)"
echo "compare: loading into ${up[*]}" >&2

mkdir -p "$out/results" "$out/logs" "$out/plots"
rm -f "$out"/results/*.json
if [[ -z $file ]]; then
	gen_bin=$(find_bin generate_data) || die "generate_data not found (go build -o bin/ ./cmd/...)"
	file="$out/data.ilp.gz"
	echo "compare: generating $use_case (scale $scale, $ts_start .. $ts_end every $interval, seed $seed) into $file" >&2
	"$gen_bin" --use-case "$use_case" --seed "$seed" --scale "$scale" \
		--timestamp-start "$ts_start" --timestamp-end "$ts_end" --log-interval "$interval" \
		--format ilp --file "$file"
fi
[[ -r $file ]] || die "cannot read $file"

json_string() {
	printf '"%s"' "$(printf '%s' "$1" | tr '\n\t' '  ' | tr -d '\000-\037' | sed 's/\\/\\\\/g; s/"/\\"/g')"
}
now() { date -u +%Y-%m-%dT%H:%M:%S.%3NZ; }

# Ctrl-C stops the whole matrix, not just the run in progress (a loader that
# handles SIGINT itself exits normally, and bash would go on to the next run).
trap 'echo "compare: interrupted; partial results in $out/results" >&2; exit 130' INT TERM

runs=0 failed=0
for ((r = 1; r <= repeat; r++)); do
	for t in "${up[@]}"; do
		for mode in "${modes[@]}"; do
			qflags=() tname=$t name="${t}_r${r}"
			if [[ $mode == q ]]; then
				qflags=(--query-rate "$query_rate" --query-workers "$query_workers")
				[[ -n $query_mix ]] && qflags+=(--query-mix "$query_mix")
				tname="$t+queries" name="${t}_q_r${r}"
			fi
			res="$out/results/$name.json" log="$out/logs/$name.log"
			read -r -a tflags <<<"$(target_flags "$t" | tr '\n' ' ')"
			read -r -a fflags <<<"$(fair_flags "$t" | tr '\n' ' ')"
			args=(--file "$file" --batch-size "$batch" --workers "$workers" --db-name "$db_name"
				--drop-db --do-create-db=true --verify=count --reporting-period 1s --results-file "$res"
				--footprint-settle "$settle" "${fflags[@]}" "${qflags[@]+"${qflags[@]}"}"
				"${tflags[@]+"${tflags[@]}"}" "${extra[@]+"${extra[@]}"}")
			loader=$(find_bin "$(loader_of "$t")")
			echo "compare: $name: $loader ${args[*]}" >&2
			start=$(now)
			status=0
			env "$(token_env "$t")" "$loader" "${args[@]}" 2>"$log" || status=$?
			end=$(now)
			runs=$((runs + 1))
			if [[ $tname != "$t" || $t == influx2 || $t == influx3 ]] && [[ -s $res ]]; then
				# One row per InfluxDB version, and per database with queries, in
				# the table: the target says which.
				python3 -c 'import json,sys; p,t=sys.argv[1:]; r=json.load(open(p)); r["target"]=t; json.dump(r,open(p,"w"),indent=2)' "$res" "$tname"
			fi
			[[ $status -eq 0 && -s $res ]] && continue
			failed=$((failed + 1))
			if [[ -s $res ]] && ! grep -q '"status": *"ok"' "$res"; then
				echo "compare: $name failed (status $status); its results file says so" >&2
				continue
			fi
			[[ -s $res ]] && mv "$res" "$out/logs/$name.claimed-ok.json"
			reason="$(loader_of "$t") exited with status $status: $(tail -n 3 "$log")"
			cat >"$res" <<EOF
{"loader": "$(loader_of "$t")", "target": "$tname", "status": "failed", "error": $(json_string "$reason"),
 "flags": {"db-name": $(json_string "$db_name")}, "inputs": [$(json_string "$file")],
 "start": "$start", "end": "$end", "batch_size": $batch, "workers": $workers}
EOF
			echo "compare: $name failed (status $status); wrote $res with status failed" >&2
		done
	done
done

results=("$out"/results/*.json)
# report's default grouping: a row per target, server version and API (and per
# setting that splits one target's runs), the same rows in the table and the page.
"$report_bin" table --format md "${results[@]}" >"$out/table.md"
{ echo; aligned; } >>"$out/table.md"
"$report_bin" table --format csv "${results[@]}" >"$out/table.csv"
"$report_bin" table --format cost "${results[@]}" >"$out/cost.md"
"$report_bin" bars --out "$out" --metric rows "${results[@]}" >/dev/null
"$report_bin" plot --out "$out/plots" "${results[@]}" >/dev/null
"$report_bin" html --out "$out/report.html" "${results[@]}" >/dev/null
cat "$out/table.md"
echo
cat "$out/cost.md"
if [[ -n $query_rate ]]; then
	# Per database: the ingest rate without and with queries, and the queries' figures.
	python3 - "$query_rate" "${results[@]}" >"$out/queries.md" <<'PY'
import json, statistics, sys
rate, files = sys.argv[1], sys.argv[2:]
runs = {}
for f in files:
    r = json.load(open(f))
    t = r.get("target", "?")
    base, q = (t[: -len("+queries")], True) if t.endswith("+queries") else (t, False)
    runs.setdefault(base, {True: [], False: []})[q].append(r)
def med(xs):
    return statistics.median(xs) if xs else None
def fmt(v, f="{:,.0f}"):
    return "–" if v is None else f.format(v)
print(f"Ingest with and without {rate} queries/s beside the load (medians across ok runs; latency from each query's due time, every type):")
print()
print("| database | rows/s without | rows/s with queries | change | queries answered | query p50 ms | query p99 ms | checked | wrong |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for t in sorted(runs):
    ok = lambda rs: [r for r in rs if r.get("status") == "ok"]
    without = med([r["rows_per_sec"] for r in ok(runs[t][False])])
    withq = med([r["rows_per_sec"] for r in ok(runs[t][True])])
    qs = [r["queries"] for r in runs[t][True] if r.get("queries")]
    change = None if not without or withq is None else 100 * (withq - without) / without
    failed = [r for r in runs[t][True] if r.get("status") != "ok"]
    wrong = sum(q["all"]["wrong"] for q in qs)
    row = [t, fmt(without), fmt(withq) if withq is not None else ("failed" if failed else "–"), fmt(change, "{:+.1f}%"),
           fmt(med([q["all"]["count"] for q in qs])), fmt(med([q["all"]["latency_from_due_ms"]["p50"] for q in qs if q["all"]["count"]]), "{:.1f}"),
           fmt(med([q["all"]["latency_from_due_ms"]["p99"] for q in qs if q["all"]["count"]]), "{:.1f}"),
           fmt(med([q["all"]["checked"] for q in qs])), str(wrong) if qs else "–"]
    print("| " + " | ".join(row) + " |")
    for r in failed:
        print(f"\n{t} with queries: {r.get('status')}: {r.get('error', '')[:300]}")
PY
	echo
	cat "$out/queries.md"
fi
echo "compare: $runs runs, $failed failed; table, CSV, charts and report.html in $out" >&2
[[ $failed -eq 0 ]] || exit 3
