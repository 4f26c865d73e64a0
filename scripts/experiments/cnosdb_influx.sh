#!/usr/bin/env bash
# CnosDB vs InfluxDB 1.x writes: the same iot data, five batch size x workers settings.
#
#   scripts/experiments/cnosdb_influx.sh [--quick|--tiny] [--settings LIST] [--only influx|cnosdb]
#                                        [--out DIR] [--strict]
#
# Reproduces the write test CnosDB published with its tsdb-comparisons tool
# (github.com/cnosdb/tsdb-comparisons), "CnosDB 2.3.0 vs InfluxDB 1.8.10" in CnosDB's docs
# (github.com/cnosdb/docs, versioned_docs/version-2.3.x/reference/performance/
# cnosdb_vs_influxdb.md): TSBS iot use case, seed 123, 100 trucks, one reading every 50 s from
# 2023-01-01 to 2023-05-01 (37,342,964 rows), loaded by each database's loader with HTTP gzip
# off at batch size x workers = 1000x30, 3000x30, 3000x10, 5000x8 and 20000x8. Both servers ran
# in containers limited to 8 CPUs and 32 GB on a 32-core Intel Xeon Gold 5218 (256 GB, one SSD).
# Published rows/s, CnosDB / InfluxDB: 102,090 / 93,782; 137,468 / 106,207; 211,846 / 158,378;
# 176,883 / 162,338; 174,758 / 160,626. The English page also says InfluxDB answered
# `engine: cache-max-memory-size exceeded` at batch 20000 and was not measured there; that
# sentence comes from CnosDB's earlier test (100 workers), while the 2.3.0 table has a figure.
# This script shows what happens here: load_influx retries that answer with back-off and the
# row counts the retried batches; a step that still fails is a row saying so.
#
# Here: generate_data --use-case iot --seed 123 --scale 100 --log-interval 50s writes one ILP
# file; load_influx and load_cnosdb load it into a fresh database (tsload_exp, dropped first)
# with --gzip=false at each setting, and verify the count. Sizes: full = 2023-01-01 to
# 2023-05-01 (about 37M rows, as the original), --quick = two days (about 0.6M), --tiny = 30
# minutes (the CI test). generate_data's iot data drops, delays and nulls rows as TSBS's does,
# by its own rules and draws: 36,948,340 rows at full size, 1.06% fewer than the original's
# 37,342,964 (the README says why).
#
# --settings BATCHxWORKERS,... runs those settings instead of the five (e.g. 20000x8,5000x2: the
# full set is ten loads of ~37M rows, hours on a small machine); --only influx or cnosdb loads
# one database; --retry-timeout D gives both loaders that back-off budget per batch (their
# default is 1m; a starved InfluxDB answers "500 timeout" for longer). The generated file is kept in DIR/data and reused by the next run with the same
# size (its generation parameters are stored beside it), so a setting can be rerun alone.
#
# Servers: InfluxDB 1.x from scripts/start_influxdb.sh (TSLOAD_INFLUX_URL for another);
# CnosDB from scripts/start_cnosdb.sh when that script exists and the server starts
# (CNOSDB_URL, with CNOSDB_PASSWORD, for another); otherwise the CnosDB rows say why they
# were skipped. Output: the table on stdout and in DIR/table.md (DIR default
# $TSLOAD_STATE/experiments/cnosdb_influx-<size>), bars_rows.png/.svg, plots/, results/, logs/.
# Exit 0 once the table is written (3 with --strict if a step failed), 1 on a setup error.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
exp_init cnosdb_influx "$@"
settings=(1000x30 3000x30 3000x10 5000x8 20000x8)
only=""
retry=()
set -- "${EXP_ARGS[@]}"
while [[ $# -gt 0 ]]; do
	case "$1" in
	--settings) IFS=, read -r -a settings <<<"${2:?--settings needs BATCHxWORKERS,...}"; shift 2 ;;
	--only) only=${2:?--only needs influx or cnosdb}; shift 2 ;;
	--retry-timeout) retry=(--retry-timeout "${2:?--retry-timeout needs a duration, e.g. 10m}"); shift 2 ;;
	*) exp_die "unknown argument $1 (see --help)" ;;
	esac
done
for s in "${settings[@]}"; do
	[[ $s =~ ^[1-9][0-9]*x[1-9][0-9]*$ ]] || exp_die "--settings: '$s' is not BATCHxWORKERS (e.g. 5000x8)"
done
case "$only" in "" | influx | cnosdb) ;; *) exp_die "--only must be influx or cnosdb, not '$only'" ;; esac

case "$EXP_SIZE" in
full) end=2023-05-01T00:00:00Z ;;
quick) end=2023-01-03T00:00:00Z ;;
tiny) end=2023-01-01T00:30:00Z ;;
esac
# Published rows/s per setting: CnosDB 2.3.0, InfluxDB 1.8.10.
declare -A pub_cnosdb=([1000x30]='102,090' [3000x30]='137,468' [3000x10]='211,846' [5000x8]='176,883' [20000x8]='174,758')
declare -A pub_influx=([1000x30]='93,782' [3000x30]='106,207' [3000x10]='158,378' [5000x8]='162,338' [20000x8]='160,626')
hw="8-CPU container on a Xeon Gold 5218"
db=tsload_exp_$EXP_RUN

influx_url=${TSLOAD_INFLUX_URL:-http://127.0.0.1:8086}
if [[ -z ${TSLOAD_INFLUX_URL:-} ]]; then
	exp_start influxdb || exp_die "InfluxDB did not start; nothing to compare"
fi
influx_version=$(curl -sI --max-time 5 "$influx_url/ping" | sed -n 's/^[Xx]-[Ii]nflux[Dd][Bb]-[Vv]ersion: *//p' | tr -d '\r')
[[ -n $influx_version ]] || exp_die "InfluxDB does not answer $influx_url/ping"

# CnosDB: a server the user names, else the project's start script, else skipped (with why).
cnosdb_url=${CNOSDB_URL:-}
cnosdb_skip=""
if [[ -z $cnosdb_url ]]; then
	if [[ ! -f $EXP_ROOT/scripts/start_cnosdb.sh ]]; then
		cnosdb_skip="no scripts/start_cnosdb.sh in this checkout and CNOSDB_URL is not set"
	elif exp_start cnosdb; then
		cnosdb_url=http://127.0.0.1:8902
	else
		cnosdb_skip="scripts/start_cnosdb.sh failed: $(tail -n 1 "$EXP_OUT/logs/start_cnosdb.log")"
	fi
fi
cnosdb_version=""
if [[ -n $cnosdb_url ]]; then
	cnosdb_version=$(curl -s --max-time 5 "$cnosdb_url/api/v1/ping" |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["version"].split(",")[0])' 2>/dev/null || true)
	if [[ -z $cnosdb_version ]]; then
		cnosdb_skip="CnosDB does not answer $cnosdb_url/api/v1/ping"
		cnosdb_url=""
	fi
fi
[[ -z $cnosdb_skip ]] || exp_log "CnosDB column skipped: $cnosdb_skip"

data=$EXP_OUT/data/iot.ilp
gen=(--use-case iot --seed 123 --scale 100 --log-interval 50s --timestamp-start 2023-01-01T00:00:00Z --timestamp-end "$end")
# The file of an earlier run with the same parameters is reused: generate_data writes its
# description (.dataset.json) only once the file is complete, and the parameters are compared.
if [[ -s $data && -s $data.dataset.json && -s $data.args && $(cat "$data.args") == "${gen[*]}" ]]; then
	exp_log "reusing $data (generated earlier with the same parameters)"
else
	rm -f "$data" "$data.dataset.json" "$data.args"
	exp_log "generating $data"
	"$EXP_BIN/generate_data" "${gen[@]}" --file "$data" 2>"$EXP_OUT/logs/generate.log" ||
		exp_die "generate_data failed: $(tail -n 1 "$EXP_OUT/logs/generate.log")"
	echo "${gen[*]}" >"$data.args"
fi
rows=$(wc -l <"$data")

for s in "${settings[@]}"; do
	bs=${s%x*} w=${s#*x}
	if [[ $only != cnosdb ]]; then
		pub="${pub_influx[$s]:-} rows/s (InfluxDB 1.8.10; $hw)"
		[[ -n ${pub_influx[$s]:-} ]] || pub="none (not a published setting)"
		exp_load "InfluxDB $influx_version, batch $bs x $w workers" "$pub" load_influx \
			--file "$data" --urls "$influx_url" --db-name "$db" --drop-db --gzip=false --batch-size "$bs" --workers "$w" "${retry[@]}"
		# Each load leaves its database behind until the next drops it: drop it now (disk).
		curl -s -XPOST "$influx_url/query" --data-urlencode "q=DROP DATABASE $db" >/dev/null || true
	fi
	[[ $only != influx ]] || continue
	step="CnosDB, batch $bs x $w workers"
	pub="${pub_cnosdb[$s]:-} rows/s (CnosDB 2.3.0; $hw)"
	[[ -n ${pub_cnosdb[$s]:-} ]] || pub="none (not a published setting)"
	if [[ -n $cnosdb_url ]]; then
		exp_load "$step" "$pub" load_cnosdb \
			--file "$data" --urls "$cnosdb_url" --db-name "$db" --drop-db --gzip=false --batch-size "$bs" --workers "$w" "${retry[@]}"
		curl -s -u "root:${CNOSDB_PASSWORD:-}" -XPOST "$cnosdb_url/api/v1/sql?db=public" \
			--data-binary "DROP DATABASE IF EXISTS $db" >/dev/null || true
	else
		exp_row "$step" "$pub" "skipped" "-" "$cnosdb_skip"
	fi
done

# Leave no copy of the data in the servers.
curl -s -XPOST "$influx_url/query" --data-urlencode "q=DROP DATABASE $db" >/dev/null || true
if [[ -n $cnosdb_url ]]; then
	curl -s -u "root:${CNOSDB_PASSWORD:-}" -XPOST "$cnosdb_url/api/v1/sql?db=public" \
		--data-binary "DROP DATABASE IF EXISTS $db" >/dev/null || true
fi

exp_finish "CnosDB vs InfluxDB writes (tsdb-comparisons)" target,batch_size,workers \
	"Servers: InfluxDB $influx_version at $influx_url; ${cnosdb_version:+CnosDB $cnosdb_version at $cnosdb_url}${cnosdb_skip:+CnosDB skipped ($cnosdb_skip)}. Data: iot, seed 123, 100 trucks, 50 s, 2023-01-01 to $end: $(exp_fmt "$rows") rows (the original: 37,342,964)." \
	"Published: CnosDB docs, CnosDB 2.3.0 vs InfluxDB 1.8.10 (tsdb-comparisons; each server in a container limited to 8 CPUs and 32 GB on a 32-core Xeon Gold 5218, 256 GB, SSD)."
