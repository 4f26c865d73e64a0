#!/usr/bin/env bash
# The PostgreSQL/TimescaleDB insert ladder on weather data: INSERT, multi-row INSERT, COPY,
# parallel COPY; plain table vs hypertable; the server's own COPY FROM file as the ceiling.
#
#   scripts/experiments/timescale_ladder.sh [--quick|--tiny] [--workers N] [--out DIR] [--strict]
#   scripts/experiments/timescale_ladder.sh --long HOURS [--long-methods binary,csv] [--workers N] [--out DIR]
#
# Reproduces the ERA5 loading study, "Building a weather data warehouse part I: Loading a
# trillion rows of weather data into TimescaleDB" (Ali Ramadhan, 2024; source
# github.com/ali-ramadhan/ali-ramadhan.Github.io, _posts/2024-03-31-trillion-rows.md; code
# github.com/ali-ramadhan/timescaledb-insert-benchmarks): the table weather(time, location_id,
# latitude, longitude, temperature_2m, zonal_wind_10m, meridional_wind_10m, total_cloud_cover,
# total_precipitation, snowfall) on the 0.25-degree grid (1,038,240 locations per hour).
# Published on 2x 12-core Xeon Silver 4214, 256 GB, NVMe SSD, PostgreSQL 15.5, TimescaleDB
# 2.13.0, from Python: one row per INSERT ~3,000 rows/s (20,000 rows; hypertable a bit slower);
# one multi-row INSERT 25,000-30,000 (100,000 rows); COPY from a CSV file ready on disk
# ~400,000, ~100,000 when writing the CSV (or building the tuples) is included (1,038,240
# rows); parallel COPY ~250,000 sustained with many workers (plateau after 16; 128 hours,
# ~133M rows); no difference between plain table and hypertable for COPY.
#
# tsload's steps, each into a fresh database (dropped afterwards), verified by count(*):
#   load_timescale --method insert (one row per statement, one transaction per 1,000 rows),
#   --method insert-multi, --method copy-csv and --method copy-binary from files, 1 worker;
#   the server's own COPY weather FROM '<csv file>' (no client at all: the ceiling);
#   generate_data --format pgcopy | load_timescale --method copy-binary with 1..2N workers
#   (generation included, as the study's sustained figures include its client's work);
#   timescaledb-parallel-copy with N workers from the CSV file, when that peer is found in
#   $TSLOAD_PEERS_BIN or PATH (the study's choice for CSV files; never installed by this script).
# Each step runs on a plain table and, when the server has TimescaleDB, on a hypertable
# (--use-hypertable true); without TimescaleDB the hypertable rows say why they were skipped.
#
# Sizes: full = the study's row counts (insert 20,000, multi-row 100,000, COPY 1,038,240 = one
# hour of the whole grid, parallel 128 hours = 132,894,720 per worker count; 15 minutes on the idle 2-core VM);
# --quick = the same except parallel COPY over 4 hours (4,152,960 rows); --tiny = 2,000
# locations, 2 hours (the CI test). N = --workers (default: the cores).
# --long HOURS runs only the sustained COPY steps, the study's question of whether the rate
# holds: generate_data piped into copy-binary and into copy-csv, N workers, into a hypertable
# (a plain table without TimescaleDB), HOURS hours of the whole grid (1,038,240 rows an hour;
# 97 hours = 100,709,280 rows), each with its rate over time in plots/; --long-methods binary
# (or csv) runs one of the two.
# Starts PostgreSQL with scripts/start_postgres.sh (TSLOAD_POSTGRES, a postgres:// URL, for
# another local server; the ceiling needs the server to read a file on this machine). Output:
# the table on stdout and in DIR/table.md (DIR default
# $TSLOAD_STATE/experiments/timescale_ladder-<size>), bars_rows.png/.svg (plain table; bars
# named by database lp_<step>_r<pid>) and bars_rows_hypertable.png/.svg (lh_<step>_r<pid>), plots/,
# results/, logs/. Exit 0 once the table is written (3 with --strict if a step failed), 1 on a setup error.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
exp_init timescale_ladder "$@"
long_hours=""
long_methods=(binary csv)
set -- "${EXP_ARGS[@]}"
while [[ $# -gt 0 ]]; do
	case "$1" in
	--long) long_hours=${2:?--long needs a number of hours}; shift 2 ;;
	--long-methods) IFS=, read -r -a long_methods <<<"${2:?--long-methods needs binary, csv or binary,csv}"; shift 2 ;;
	*) exp_die "unknown argument $1 (see --help)" ;;
	esac
done
[[ -z $long_hours || $long_hours =~ ^[1-9][0-9]*$ ]] || exp_die "--long must be a positive number of hours, not '$long_hours'"

case "$EXP_SIZE" in
full) scale=1038240 insert_rows=20000 multi_rows=100000 copy_end=2016-01-01T01:00:00Z par_end=2016-01-06T08:00:00Z ;;
quick) scale=1038240 insert_rows=20000 multi_rows=100000 copy_end=2016-01-01T01:00:00Z par_end=2016-01-01T04:00:00Z ;;
tiny) scale=2000 insert_rows=500 multi_rows=2000 copy_end=2016-01-01T02:00:00Z par_end=2016-01-01T02:00:00Z ;;
esac
workers_list=(1)
for ((w = 2; w <= 2 * EXP_WORKERS; w *= 2)); do workers_list+=("$w"); done

pg_url=${TSLOAD_POSTGRES:-postgres://postgres@127.0.0.1:5432/postgres}
if [[ -z ${TSLOAD_POSTGRES:-} ]]; then
	exp_start postgres || exp_die "PostgreSQL did not start; nothing to measure"
fi
command -v psql >/dev/null || exp_die "psql not found (scripts/start_postgres.sh installs it with postgresql-15)"
# psql URL for database DB on the same server.
db_url() { python3 -c 'import sys,urllib.parse as u; p=u.urlsplit(sys.argv[1]); print(u.urlunsplit(p._replace(path="/"+sys.argv[2])))' "$pg_url" "$1"; }
q() { psql -X -q -At -v ON_ERROR_STOP=1 "$pg_url" -c "$1"; }
pg_version=$(q 'SHOW server_version') || exp_die "cannot query PostgreSQL at $pg_url"
sync_commit=$(q 'SHOW synchronous_commit')
ts_version=$(q "SELECT default_version FROM pg_available_extensions WHERE name = 'timescaledb'")
ts_skip=""
if [[ -z $ts_version ]]; then
	ts_skip="the server has no TimescaleDB extension (pg_available_extensions)"
elif [[ $(q 'SHOW shared_preload_libraries') != *timescaledb* ]]; then
	ts_skip="TimescaleDB $ts_version is installed but not in shared_preload_libraries"
fi
[[ -z $ts_skip ]] || exp_log "hypertable steps skipped: $ts_skip"
tables=(plain)
[[ -n $ts_skip ]] || tables+=(hypertable)

hw="2x Xeon Silver 4214"
# timescaledb-parallel-copy, from TSLOAD_PEERS_BIN or PATH (optional).
tpc=""
if [[ -n ${TSLOAD_PEERS_BIN:-} && -x $TSLOAD_PEERS_BIN/timescaledb-parallel-copy ]]; then
	tpc=$TSLOAD_PEERS_BIN/timescaledb-parallel-copy
elif command -v timescaledb-parallel-copy >/dev/null; then
	tpc=$(command -v timescaledb-parallel-copy)
fi
drop_db() { q "DROP DATABASE IF EXISTS $1" >/dev/null 2>&1 || exp_log "could not drop database $1"; }
ht_flag() { if [[ $1 == plain ]]; then echo false; else echo true; fi; }
tt_label() { if [[ $1 == plain ]]; then echo "plain table"; else echo hypertable; fi; }
ht_pub() { if [[ $1 == plain ]]; then echo "$2"; else echo "$3"; fi; }

# step KEY NAME TABLE PUBLISHED [load_timescale flags...]: one load into database
# l<p|h>_KEY_r<pid> (short: the charts label their bars with it).
step() {
	local key=$1 name=$2 tt=$3 pub=$4
	shift 4
	local db=l${tt:0:1}_${key}_$EXP_RUN
	exp_load "$name, $(tt_label "$tt")" "$pub" load_timescale --postgres "$pg_url" --db-name "$db" --drop-db \
		--use-hypertable "$(ht_flag "$tt")" "$@"
	drop_db "$db"
}

gen=(--use-case weather --seed 1 --scale "$scale")
data=$EXP_OUT/data

# --long: the sustained COPY steps alone, generated on the fly (no file of 100M rows on disk).
if [[ -n $long_hours ]]; then
	long_scale=1038240
	long_end=$(python3 -c 'import sys,datetime as d; print((d.datetime(2016,1,1)+d.timedelta(hours=int(sys.argv[1]))).strftime("%Y-%m-%dT%H:%M:%SZ"))' "$long_hours")
	long_rows=$((long_scale * long_hours))
	tt=${tables[-1]}
	lgen=(--use-case weather --seed 1 --scale "$long_scale" --timestamp-end "$long_end")
	for f in "${long_methods[@]}"; do
		[[ $f == binary || $f == csv ]] || exp_die "--long-methods: '$f' is neither binary nor csv"
		fmt=pgcopy
		[[ $f == binary ]] || fmt=csv
		if [[ $EXP_WORKERS == 1 ]]; then pub="~140,000 rows/s sustained, 1 worker, with the client's work ($hw)"; else pub="up to ~250,000 rows/s sustained with 4-32 workers; the rate fell before 100M rows and came back in waves ($hw)"; fi
		step "long_$f" "generate_data piped to copy-$f, $(exp_n_workers "$EXP_WORKERS"), $(exp_fmt "$long_rows") rows" "$tt" "$pub" \
			--file <("$EXP_BIN/generate_data" "${lgen[@]}" --format "$fmt" 2>/dev/null) \
			--method "copy-$f" --batch-size 20000 --workers "$EXP_WORKERS"
	done
	exp_finish "PostgreSQL/TimescaleDB sustained COPY (ERA5 weather study)" - \
		"Server: PostgreSQL $pg_version (synchronous_commit=$sync_commit)${ts_version:+, TimescaleDB $ts_version}${ts_skip:+; plain table: $ts_skip}. Data: weather, seed 1, $long_scale locations, hourly, $long_hours hours to $long_end: $(exp_fmt "$long_rows") rows per step, generated while loading." \
		"Published: aliramadhan.me, \"Loading a trillion rows of weather data into TimescaleDB\" (2024): 2x 12-core Xeon Silver 4214, 256 GB, NVMe SSD, PostgreSQL 15.5, TimescaleDB 2.13.0, Python clients (psycopg3)."
fi
exp_log "generating $data/weather.csv and weather.pgcopy"
for fmt in csv pgcopy; do
	"$EXP_BIN/generate_data" "${gen[@]}" --timestamp-end "$copy_end" --format "$fmt" --file "$data/weather.$fmt" \
		2>"$EXP_OUT/logs/generate_$fmt.log" || exp_die "generate_data failed: $(tail -n 1 "$EXP_OUT/logs/generate_$fmt.log")"
done
copy_rows=$(($(wc -l <"$data/weather.csv") - 1))

for tt in "${tables[@]}"; do
	step insert "insert, 1 worker" "$tt" "$(ht_pub "$tt" "~3,000 rows/s ($hw; psycopg3, 20,000 rows)" "a bit below 3,000 rows/s (hypertable)")" \
		--file "$data/weather.pgcopy" --method insert --commit batch --batch-size 1000 --workers 1 --limit "$insert_rows"
	step multi "insert-multi, 1 worker" "$tt" "25,000-30,000 rows/s ($hw; 100,000 rows)" \
		--file "$data/weather.pgcopy" --method insert-multi --batch-size "$multi_rows" --workers 1 --limit "$multi_rows"
	step csv "copy-csv from a file, 1 worker" "$tt" "~100,000 rows/s with the CSV writing; ~400,000 for COPY alone ($hw)" \
		--file "$data/weather.csv" --method copy-csv --batch-size 20000 --workers 1
	step binary "copy-binary from a file, 1 worker" "$tt" "none (the study did not try binary COPY)" \
		--file "$data/weather.pgcopy" --method copy-binary --batch-size 20000 --workers 1

	# The ceiling: the server reads the CSV file itself, no client. The file goes where the
	# server's OS user can read it.
	name="server's COPY weather FROM file (ceiling), $(tt_label "$tt")"
	db=l${tt:0:1}_server_copy_$EXP_RUN
	shared=$EXP_STATE/experiments/.server-copy-$EXP_RUN
	mkdir -p "$shared"
	chmod 755 "$EXP_STATE/experiments" "$shared" 2>/dev/null || true
	cp "$data/weather.csv" "$shared/weather.csv" && chmod 644 "$shared/weather.csv"
	pub="~400,000 rows/s (COPY from a ready CSV file; $hw)"
	if "$EXP_BIN/load_timescale" --postgres "$pg_url" --db-name "$db" --drop-db --use-hypertable "$(ht_flag "$tt")" \
		--file "$data/weather.csv" --limit 1 --verify=off --reporting-period 1h >"$EXP_OUT/logs/server_copy_$tt.log" 2>&1 &&
		psql -X -q -v ON_ERROR_STOP=1 "$(db_url "$db")" -c 'TRUNCATE weather' >>"$EXP_OUT/logs/server_copy_$tt.log" 2>&1; then
		# psql's own \timing: the statement's time, not psql's start-up.
		interf_begin "$pg_url"
		if out=$(psql -X -q -v ON_ERROR_STOP=1 "$(db_url "$db")" -c '\timing on' \
			-c "COPY weather FROM '$shared/weather.csv' (FORMAT csv, HEADER true)" 2>&1); then
			interf_end
			echo "$out" >>"$EXP_OUT/logs/server_copy_$tt.log"
			ms=$(sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' <<<"$out" | tail -n 1)
			n=$(psql -X -At "$(db_url "$db")" -c 'SELECT count(*) FROM weather')
			if [[ -z $ms ]]; then
				exp_fail_row "$name" "$pub" "no time in psql's output: $out"
			elif [[ $n == "$copy_rows" ]]; then
				exp_row "$name" "$pub" "$(exp_rate_cell "$(exp_rate "$n" 0 "$(python3 -c "print($ms/1000)")")")" "$(exp_fmt "$n")" "one backend, no client; $(exp_interf)"
			else
				exp_fail_row "$name" "$pub" "count(*) is $n, the file has $copy_rows rows"
			fi
		else
			echo "$out" >>"$EXP_OUT/logs/server_copy_$tt.log"
			exp_fail_row "$name" "$pub" "$(tail -n 1 <<<"$out")"
		fi
	else
		exp_fail_row "$name" "$pub" "could not create the table: $(tail -n 1 "$EXP_OUT/logs/server_copy_$tt.log")"
	fi
	rm -rf "$shared"
	drop_db "$db"

	# The peer the study recommends for CSV files, when it is installed (never in CI).
	if [[ -n $tpc ]]; then
		name="timescaledb-parallel-copy (peer) from the CSV file, $(exp_n_workers "$EXP_WORKERS"), $(tt_label "$tt")"
		db=l${tt:0:1}_tpc_$EXP_RUN
		pub="the study's recommendation for CSV files (chart only, no single figure)"
		if "$EXP_BIN/load_timescale" --postgres "$pg_url" --db-name "$db" --drop-db --use-hypertable "$(ht_flag "$tt")" \
			--file "$data/weather.csv" --limit 1 --verify=off --reporting-period 1h >"$EXP_OUT/logs/tpc_$tt.log" 2>&1 &&
			psql -X -q -v ON_ERROR_STOP=1 "$(db_url "$db")" -c 'TRUNCATE weather' >>"$EXP_OUT/logs/tpc_$tt.log" 2>&1; then
			interf_begin "$pg_url"
			start=$(exp_now)
			if "$tpc" -connection "$(db_url "$db")" -table weather -file "$data/weather.csv" -skip-header \
				-workers "$EXP_WORKERS" -batch-size 20000 -reporting-period 0s >>"$EXP_OUT/logs/tpc_$tt.log" 2>&1; then
				end_t=$(exp_now)
				interf_end
				n=$(psql -X -At "$(db_url "$db")" -c 'SELECT count(*) FROM weather')
				if [[ $n == "$copy_rows" ]]; then
					exp_row "$name" "$pub" "$(exp_rate_cell "$(exp_rate "$n" "$start" "$end_t")")" "$(exp_fmt "$n")" "$tpc; $(exp_interf)"
				else
					exp_fail_row "$name" "$pub" "count(*) is $n, the file has $copy_rows rows"
				fi
			else
				exp_fail_row "$name" "$pub" "$(tail -n 1 "$EXP_OUT/logs/tpc_$tt.log")"
			fi
		else
			exp_fail_row "$name" "$pub" "could not create the table: $(tail -n 1 "$EXP_OUT/logs/tpc_$tt.log")"
		fi
		drop_db "$db"
	fi

	for w in "${workers_list[@]}"; do
		if [[ $w == 1 ]]; then pub="~140,000 rows/s sustained, 1 worker, with the client's work ($hw)"; else pub="up to ~250,000 rows/s sustained with 4-32 workers ($hw)"; fi
		step "pipe_w$w" "generate_data piped to copy-binary, $(exp_n_workers "$w")" "$tt" "$pub" \
			--file <("$EXP_BIN/generate_data" "${gen[@]}" --timestamp-end "$par_end" --format pgcopy 2>/dev/null) \
			--method copy-binary --batch-size 20000 --workers "$w"
	done
done
if [[ -n $ts_skip ]]; then
	exp_row "every step on a hypertable" "no difference for COPY; INSERT a bit slower" "skipped" "-" "$ts_skip"
fi

# One chart per table type: bars_rows (plain), bars_rows_hypertable.
exp_bars bars_rows db_name "$EXP_OUT"/results/*_plain_table.json
exp_bars bars_rows_hypertable db_name "$EXP_OUT"/results/*_hypertable.json
exp_finish "PostgreSQL/TimescaleDB insert ladder (ERA5 weather study)" - \
	"Server: PostgreSQL $pg_version (synchronous_commit=$sync_commit)${ts_version:+, TimescaleDB $ts_version available}${ts_skip:+; hypertables skipped: $ts_skip}. Data: weather, seed 1, $scale locations, hourly; files of $(exp_fmt "$copy_rows") rows (to $copy_end), parallel COPY to $par_end." \
	"Published: aliramadhan.me, \"Loading a trillion rows of weather data into TimescaleDB\" (2024): 2x 12-core Xeon Silver 4214, 256 GB, NVMe SSD, PostgreSQL 15.5, TimescaleDB 2.13.0, Python clients (psycopg3)."
