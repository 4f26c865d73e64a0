#!/usr/bin/env bash
# Content verification against a row count: how long each database takes to answer the
# content query (load.ContentCounter) of a loaded cpu-only table, beside SELECT count(*) (or
# the database's equivalent), at each row count given.
#
#   scripts/bench_content.sh [ROWS...]        (default: 1000000 10000000)
#
# For each ROWS: generate_data writes cpu-only ILP (seed 1, --scale 1000 hosts, 10 s
# interval, gzip) cut at ROWS rows; then, one database at a time, the content benchmark of
# each target package loads it into a fresh database (--workers 2, verified by count), times
# Count and Content and drops the database: TimescaleDB/PostgreSQL (pkg/target/timescale),
# InfluxDB 1.x, 2.x and 3.x (pkg/target/influx: v1, v2, v3) and CnosDB (pkg/target/cnosdb),
# on the servers the tests use (the start scripts' defaults, or the tests' environment
# variables). After each package, a line gives the interference measured around its
# benchmarks (lib.sh interf_begin: the machine's CPU beside the test process, its children and
# the servers, in cores; DISTURBED over 0.5). Prints the benchmark lines: ns/op and rows/s of count and of content per
# database.
#   TSLOAD_BENCH_CONTENT_TIMES  runs of each query (default 3)
#   TSLOAD_BENCH_CONTENT_PKGS   the packages (space-separated; default all three)
#   TSLOAD_BENCH_CONTENT_RUN    the benchmarks, a -bench pattern (e.g. BenchmarkContent/v3)
# Files go to TSLOAD_BENCH_CONTENT_DIR (default $TSLOAD_STATE/bench_content, TSLOAD_STATE
# defaulting to /tmp/tsload: the servers' state, where the tests find InfluxDB 3's token) and
# are reused by a later run.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=SCRIPTDIR/lib.sh
. scripts/lib.sh
rows=("$@")
[[ ${#rows[@]} -gt 0 ]] || rows=(1000000 10000000)
dir="${TSLOAD_BENCH_CONTENT_DIR:-${TSLOAD_STATE:-/tmp/tsload}/bench_content}"
mkdir -p "$dir"
pkgs=(${TSLOAD_BENCH_CONTENT_PKGS:-./pkg/target/timescale ./pkg/target/influx ./pkg/target/cnosdb})
for n in "${rows[@]}"; do
	f="$dir/cpu-only-s1000-$n.ilp.gz"
	if [[ ! -e $f.done ]]; then
		go run ./cmd/generate_data --use-case cpu-only --seed 1 --scale 1000 \
			--timestamp-end 2016-01-08 --max-rows "$n" --file "$f"
		touch "$f.done"
	fi
	echo "## $n rows ($f)"
	for p in "${pkgs[@]}"; do
		case $p in
		*timescale) urls=(127.0.0.1:"${PGPORT:-5432}") ;;
		*influx) urls=(127.0.0.1:8086 127.0.0.1:8087 127.0.0.1:8181) ;;
		*cnosdb) urls=(127.0.0.1:"${CNOSDB_PORT:-8902}") ;;
		*) urls=() ;;
		esac
		interf_begin "${urls[@]}"
		TSLOAD_BENCH_CONTENT_FILE="$f" go test -run '^$' -bench "${TSLOAD_BENCH_CONTENT_RUN:-^BenchmarkContent\$}" -benchtime "${TSLOAD_BENCH_CONTENT_TIMES:-3}x" \
			-timeout 0 -v "$p" | grep -E '^(Benchmark|ok|FAIL)|--- (FAIL|SKIP)|loaded|Error|error|skip'
		interf_end
		echo "$p beside its servers: $interf_note${interf_cell#"$interf_cores"}"
	done
done
