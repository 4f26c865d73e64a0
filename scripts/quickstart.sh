#!/usr/bin/env bash
# quickstart.sh: from a fresh machine (Go and a C compiler) to a verified load and a plot.
#
#   scripts/quickstart.sh [--target duckdb|sqlite|timescale|questdb|influx|cnosdb] [--scale HOSTS] [--hours H] [--workers N]
#
# 1. builds every command into ./bin (go build -o bin/ ./cmd/...)
# 2. by default (duckdb; also sqlite) no server: the database is the file
#    quickstart.duckdb (quickstart.sqlite) under the state directory below,
#    opened inside the loader. A server target starts a local server on
#    127.0.0.1 with the project's script
#    (scripts/start_postgres.sh, start_questdb.sh, start_influxdb.sh or
#    start_cnosdb.sh; they install what is missing and leave a running server
#    alone; CnosDB needs its server binary, see docs/servers.md)
# 3. generates a small seeded cpu-only dataset (default 100 hosts, 6 hours at 10s:
#    216,000 rows): pgcopy for TimescaleDB, DuckDB and SQLite, line protocol for the others
# 4. loads it with 2 workers into the database "quickstart" (dropped and
#    re-created, so a second run starts clean), verifying the row count; QuestDB
#    has one namespace, so there into the table quickstart_cpu (--table-prefix),
#    never a "cpu" of someone else's
# 5. prints the summary table, the results file and the rate plot's files
#
# Everything it writes lives under ${TSLOAD_STATE:-/tmp/tsload}/quickstart/<target>.
set -euo pipefail

target=duckdb scale=100 hours=6 workers=2
where=(--db-name quickstart)
while [[ $# -gt 0 ]]; do
	case "$1" in
	--target) target=${2:?--target needs a value}; shift 2 ;;
	--scale) scale=${2:?--scale needs a value}; shift 2 ;;
	--hours) hours=${2:?--hours needs a value}; shift 2 ;;
	--workers) workers=${2:?--workers needs a value}; shift 2 ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "quickstart: unknown argument $1 (see --help)" >&2; exit 2 ;;
	esac
done
case "$target" in
duckdb | sqlite) start="" format=pgcopy ;;
timescale) start=start_postgres.sh format=pgcopy ;;
questdb) start=start_questdb.sh format=ilp where=(--table-prefix quickstart_) ;;
influx) start=start_influxdb.sh format=ilp ;;
cnosdb) start=start_cnosdb.sh format=ilp ;;
*) echo "quickstart: --target must be duckdb, sqlite, timescale, questdb, influx or cnosdb, not '$target'" >&2; exit 2 ;;
esac
for n in "$scale" "$hours" "$workers"; do
	[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "quickstart: --scale, --hours and --workers take positive integers, not '$n'" >&2; exit 2; }
done

cd "$(dirname "$0")/.."
step() { printf '\n== %s\n' "$*" >&2; }

command -v go >/dev/null || { echo "quickstart: Go is not installed (https://go.dev/dl/)" >&2; exit 1; }
step "building the commands into ./bin"
go build -o bin/ ./cmd/...

dir="${TSLOAD_STATE:-/tmp/tsload}/quickstart/$target"
mkdir -p "$dir"
if [[ -n $start ]]; then
	step "starting a local server: scripts/$start"
	bash "scripts/$start"
else
	where=(--db-path "$dir/quickstart.$target") # no server: a file (--drop-db drops its tables)
fi
# Named after its table: a single-table pgcopy file tells the loader its table by its name.
data="$dir/cpu.$format.gz"
results="$dir/results.json"
rm -f "$results"

start_ts=2026-01-01T00:00:00Z
end_ts=$(date -u -d "$start_ts + $hours hour" +%Y-%m-%dT%H:%M:%SZ)
step "generating cpu-only data: $scale hosts, $hours hour(s) at 10s -> $data"
bin/generate_data --use-case cpu-only --seed 123 --scale "$scale" \
	--timestamp-start "$start_ts" --timestamp-end "$end_ts" --log-interval 10s \
	--format "$format" --file "$data"

step "loading with bin/load_$target --workers $workers ${where[*]} (dropped first; the count is verified)"
status=0
"bin/load_$target" --file "$data" --workers "$workers" --batch-size 5000 \
	"${where[@]}" --drop-db --do-create-db=true --verify=count \
	--reporting-period 100ms --results-file "$results" || status=$?

if [[ ! -s $results ]]; then
	echo "quickstart: load_$target failed (status $status) and wrote no results file" >&2
	exit 1
fi
step "summary (bin/report table --group target $results)"
bin/report table --group target "$results"
step "rate plot (bin/report plot --out $dir/plots $results)"
bin/report plot --out "$dir/plots" "$results"
echo
echo "results file: $results"
if [[ $status -ne 0 ]]; then
	echo "quickstart: load_$target failed (status $status); see the table and $results" >&2
	exit 1
fi
echo "quickstart: loaded and verified into $target (${where[*]})"
