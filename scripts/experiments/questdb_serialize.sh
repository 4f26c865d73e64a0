#!/usr/bin/env bash
# QuestDB: rows/s serialised vs sent, 1 worker and N workers, over ILP/HTTP and ILP/TCP.
#
#   scripts/experiments/questdb_serialize.sh [--quick|--tiny] [--workers N] [--transports http,tcp]
#                                            [--out DIR] [--strict]
#
# Reproduces QuestDB's pandas ingestion benchmark, github.com/questdb/py-tsbs-benchmark
# (README at commit ecf2c02, 2023-03-02: "Re-ran benchmarks ... for QuestDB 7.0.1 with WAL
# tables"): the TSBS "cpu" table (10 SYMBOL tags, 10 DOUBLE fields, a timestamp), scale 4000,
# 10,000,000 rows, sent over ILP/TCP to a WAL table. Published on an AMD 5950X (16 cores, 64 GB
# DDR4-3600, Samsung 980 PRO, QuestDB with 6 shared workers on the same host): 1 thread
# 1.17M rows/s serialised, 0.56M sent; 8 threads 5.66M serialised, 1.81M sent.
#
# tsload's counterparts, on the same table layout (generate_data's cpu-only use case):
#   serialised  generate_data writing ILP to /dev/null (generation included: the original
#               excluded building its DataFrame), 1 and N workers; and load_questdb's
#               --serialization-pass (reading and cutting the ILP file into batches, no network);
#   sent        load_questdb over ILP/HTTP (acknowledged) and ILP/TCP (unacknowledged; the final
#               count decides), 1 and N workers, batches of 10,000 rows, no DEDUP (as the original).
# Every load is verified by counting the table once the WAL is applied.
#
# Sizes: full = 4000 hosts x 2500 epochs (10,000,000 rows, as the original); --quick = 4000 x 250
# (1,000,000); --tiny = 100 x 20 (2,000; the CI test). N = --workers (default: the cores).
# Starts QuestDB with scripts/start_questdb.sh (TSLOAD_QUESTDB_HTTP, default
# http://127.0.0.1:9000, for another server) and loads the table exp_cpu_r<pid> (dropped first and afterwards).
# Output: the Markdown table on stdout and in DIR/table.md (DIR default
# $TSLOAD_STATE/experiments/questdb_serialize-<size>), bars_rows.png/.svg (rows/s by transport
# and workers), plots/ (each run's rate over time), results/, logs/. Exit 0 once the table is
# written (3 with --strict if a step failed), 1 on a setup error.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
exp_init questdb_serialize "$@"
transports=(http tcp)
set -- "${EXP_ARGS[@]}"
while [[ $# -gt 0 ]]; do
	case "$1" in
	--transports) IFS=, read -r -a transports <<<"${2:?--transports needs http, tcp or http,tcp}"; shift 2 ;;
	*) exp_die "unknown argument $1 (see --help)" ;;
	esac
done
for t in "${transports[@]}"; do
	[[ $t == http || $t == tcp ]] || exp_die "--transports: '$t' is neither http nor tcp"
done

case "$EXP_SIZE" in
full) scale=4000 end=2016-01-01T06:56:40Z ;;
quick) scale=4000 end=2016-01-01T00:41:40Z ;;
tiny) scale=100 end=2016-01-01T00:03:20Z ;;
esac
n=$EXP_WORKERS
http=${TSLOAD_QUESTDB_HTTP:-http://127.0.0.1:9000}
table=exp_cpu_$EXP_RUN

if [[ -z ${TSLOAD_QUESTDB_HTTP:-} ]]; then
	exp_start questdb || exp_die "QuestDB did not start; nothing to measure"
fi
curl -fsS --max-time 5 "$http/ping" >/dev/null 2>&1 || curl -fsS --max-time 5 "$http/exec?query=select%201" >/dev/null ||
	exp_die "QuestDB does not answer at $http"
qdb_version=$(curl -sG "$http/exec" --data-urlencode 'query=select build()' |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["dataset"][0][0].split(",")[0].replace("Build Information: ",""))' 2>/dev/null || echo "QuestDB (version unknown)")
# drop: a shared server may be restarting (another test's): wait up to 60 s for it, then go on
# (the load's own verification decides whether its figure counts).
drop() {
	local i
	for ((i = 0; i < 60; i++)); do
		curl -fsSG --max-time 10 "$http/exec" --data-urlencode "query=DROP TABLE IF EXISTS $table" >/dev/null 2>&1 && return 0
		sleep 1
	done
	exp_log "could not drop table $table at $http"
}

gen=(--use-case cpu-only --seed 1 --scale "$scale" --timestamp-end "$end" --format ilp)
data=$EXP_OUT/data
hw="AMD 5950X, 16 cores"

# 1 worker and N workers (once when N is 1).
ws=(1)
if [[ $n != 1 ]]; then ws+=("$n"); fi

# Serialised: generation alone, to /dev/null, timed by wall clock.
declare -A gen_start gen_end gen_interf
for w in "${ws[@]}"; do
	interf_begin
	gen_start[$w]=$(exp_now)
	"$EXP_BIN/generate_data" "${gen[@]}" --workers "$w" >/dev/null 2>"$EXP_OUT/logs/generate_w$w.log" ||
		exp_die "generate_data failed: $(tail -n 1 "$EXP_OUT/logs/generate_w$w.log")"
	gen_end[$w]=$(exp_now)
	interf_end
	gen_interf[$w]=$(exp_interf)
done

# The file every load reads: the same bytes, the table renamed so that nothing else on a shared
# server (tests, other benchmarks) touches it.
exp_log "writing $data/cpu.ilp"
"$EXP_BIN/generate_data" "${gen[@]}" --workers "$n" 2>/dev/null | sed "s/^cpu,/$table,/" >"$data/cpu.ilp"
rows=$(wc -l <"$data/cpu.ilp")
# Each transport reads the file under its own name, so the charts tell them apart.
ln -sf cpu.ilp "$data/http.ilp"
ln -sf cpu.ilp "$data/tcp.ilp"

for w in "${ws[@]}"; do
	if [[ $w == 1 ]]; then pub="1.17M rows/s ($hw; 1 thread, pandas to ILP buffer)"; else pub="5.66M rows/s ($hw; 8 threads)"; fi
	exp_row "serialise: generate_data to ILP, $(exp_n_workers "$w")" "$pub" "$(exp_rate_cell "$(exp_rate "$rows" "${gen_start[$w]}" "${gen_end[$w]}")")" "-" \
		"$(python3 -c 'import sys; print("%.3f s" % (float(sys.argv[2]) - float(sys.argv[1])))' "${gen_start[$w]}" "${gen_end[$w]}"), load avg $(exp_loadavg "${gen_start[$w]}" "${gen_end[$w]}"), ${gen_interf[$w]}; generation included; $(exp_fmt "$rows") rows written"
done

# The loads' rows come after the serialisation rows their --serialization-pass yields.
exp_rows_later
pushd "$data" >/dev/null
for transport in "${transports[@]}"; do
	for w in "${ws[@]}"; do
		drop
		if [[ $w == 1 ]]; then pub="0.56M rows/s (ILP/TCP, 1 thread; QuestDB 7.0.1, $hw)"; else pub="1.81M rows/s (ILP/TCP, 8 threads; QuestDB 7.0.1, $hw)"; fi
		[[ $transport == http ]] && pub="none (the original sent over TCP)"
		exp_load "sent: load_questdb ILP/$transport, $(exp_n_workers "$w")" "$pub" load_questdb \
			--file "$transport.ilp" --transport "$transport" --dedup=false --batch-size 10000 --workers "$w" \
			--http-url "$http" --serialization-pass
		if [[ $transport == http ]]; then
			ser=$(exp_result "$EXP_LAST_RESULTS" serialized 2>/dev/null || echo 0)
			if [[ $w == 1 ]]; then pub="1.17M rows/s ($hw; 1 thread)"; else pub="5.66M rows/s ($hw; 8 threads)"; fi
			step="serialise: load_questdb --serialization-pass (read + split), $(exp_n_workers "$w")"
			if [[ $ser -gt 0 ]]; then
				EXP_ROWS="" exp_row "$step" "$pub" "$(exp_rate_cell "$ser")" "-" "no network; $(exp_interf) (the whole run)"
			else
				EXP_ROWS="" exp_fail_row "$step" "$pub" "no serialization figures in $EXP_LAST_RESULTS"
			fi
		fi
	done
done
popd >/dev/null
exp_rows_now
drop

exp_finish "QuestDB: serialise vs send (py-tsbs-benchmark)" inputs,workers \
	"Server: $qdb_version at $http, table $table (WAL, no DEDUP). Data: cpu-only, seed 1, scale $scale, to $end: $(exp_fmt "$rows") rows. N = $n workers." \
	"Published: github.com/questdb/py-tsbs-benchmark README (commit ecf2c02, QuestDB 7.0.1, AMD 5950X, 10,000,000 rows); the client and server shared that machine, as here."
