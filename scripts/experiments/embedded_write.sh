#!/usr/bin/env bash
# The embedded-database write benchmark (tonbo's "add write benchmark", tonbo-io/tonbo#198) on
# SQLite, DuckDB and tonbo: autocommit vs one transaction vs batches, and 1, 4 and 8 writers.
#
#   scripts/experiments/embedded_write.sh [--quick|--tiny] [--out DIR] [--strict]
#
# The publication writes 10,000 records into SQLite, DuckDB and tonbo. Its steps, rerun with
# load_sqlite and load_duckdb (the database a file inside the loader's process, no server):
#   --commit per-row            a commit per row (the publication's autocommit); DuckDB and
#                               SQLite by a prepared INSERT per row. Only at the first size: a
#                               durable commit per row takes SQLite (synchronous=full) an fsync
#                               each, and DuckDB milliseconds each (hours at a million rows)
#   --commit one-transaction    every row in one transaction, committed at the end
#   --commit per-batch          a transaction per batch of 1,000 rows (10,000 at a million),
#                               with 1, 4 and 8 writers (the publication's async writers):
#                               DuckDB's writers append concurrently (the Appender, one
#                               connection each); SQLite's take its one write lock in turn
#                               (BEGIN IMMEDIATE, a busy timeout), decoding in parallel
# SQLite in WAL mode with synchronous=full (SQLite's default durability); DuckDB 2.0 as the
# driver brings it. Each load into a fresh file, verified by counting the rows in it.
#
# tonbo 0.3.2 with load_tonbo (the Rust bridge, built by scripts/build_tonbo.sh; this script
# builds load_tonbo -tags tonbo into the tools' directory as load_tonbo_bridge when the bridge is there, and says the tonbo rows were skipped
# when it is not): --commit per-row (tonbo's insert, no transaction), one transaction (--commit
# per-batch with the whole load as one batch: tonbo 0.3 keeps a transaction's rows in memory
# until it commits, so load_tonbo has no one-transaction mode), --commit write-batch (one
# insert_batch of the whole load), and per-batch of 1,000 rows with 1, 4 and 8 writers, with
# tonbo's WAL on and off (the publication's "WAL off" writers). The whole-load steps run at the
# first size only (the load's rows in memory at once). Every tonbo load ends with its tables
# flushed to their files and is verified by content read back from them.
#
# Data: generate_data --use-case cpu-only --seed 1 as pgcopy (10 tags, 10 doubles a row: the
# publication's records are smaller). Sizes: full = 10,000 and 1,000,000 rows; --quick =
# 10,000 and 100,000; --tiny = 500 and 1,000 (the CI test). Output: the table on stdout and in
# DIR/table.md (DIR default $TSLOAD_STATE/experiments/embedded_write-<size>), bars_rows.png,
# plots/, results/, logs/. Exit 0 once the table is written (3 with --strict if a step
# failed), 1 on a setup error.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
exp_init embedded_write "$@"
[[ ${#EXP_ARGS[@]} -eq 0 ]] || exp_die "unknown argument ${EXP_ARGS[0]} (see --help)"
for tool in load_duckdb load_sqlite; do
	[[ -x $EXP_BIN/$tool ]] || exp_die "$EXP_BIN has no $tool (go build -o $EXP_BIN/ ./cmd/...)"
done
# tonbo: load_tonbo with the bridge, built here (a build without it only says how to get it).
tonbo_skip=""
if [[ ! -e $EXP_ROOT/bridge/tonbo/lib/libtsload_tonbo.a ]]; then
	tonbo_skip="no tonbo bridge (scripts/build_tonbo.sh builds it; it needs cargo)"
else
	exp_log "building load_tonbo with the tonbo bridge"
	if ! (cd "$EXP_ROOT" && go build -tags tonbo -o "$EXP_BIN/load_tonbo_bridge" ./cmd/load_tonbo) >"$EXP_OUT/logs/build_tonbo.log" 2>&1; then
		tonbo_skip="go build -tags tonbo ./cmd/load_tonbo failed: $(tail -n 1 "$EXP_OUT/logs/build_tonbo.log")"
	fi
fi
[[ -z $tonbo_skip ]] || exp_log "tonbo rows skipped: $tonbo_skip"

case "$EXP_SIZE" in
full) sizes=(10000 1000000) ;;
quick) sizes=(10000 100000) ;;
tiny) sizes=(500 1000) ;;
esac

max=${sizes[-1]}
data=$EXP_OUT/data/cpu.pgcopy
exp_log "generating $data"
"$EXP_BIN/generate_data" --use-case cpu-only --seed 1 --scale 100 --timestamp-end 2016-02-01T00:00:00Z \
	--max-rows "$max" --format pgcopy --file "$data" 2>"$EXP_OUT/logs/generate.log" ||
	exp_die "generate_data failed: $(tail -n 1 "$EXP_OUT/logs/generate.log")"
files=$EXP_OUT/data/db
mkdir -p "$files"

# published DB MODE: the publication's figure for 10,000 records (its author's machine).
published() {
	case "$1 $2" in
	"sqlite per-row") echo "SQLite autocommit 5.438 s (1,839 rows/s; pytest min 5.547 s)" ;;
	"duckdb per-row") echo "DuckDB autocommit 20.726 s (482 rows/s; min 17.686 s)" ;;
	"sqlite one-transaction") echo "SQLite one transaction 0.02475 s (404,040 rows/s; min 0.209 s)" ;;
	"duckdb one-transaction") echo "DuckDB one transaction min 17.306 s (578 rows/s)" ;;
	"sqlite w1") echo "SQLite 1 async writer min 0.182 s (54,945 rows/s)" ;;
	"sqlite w4") echo "SQLite 4 async writers min 0.198 s (50,505 rows/s)" ;;
	"sqlite w8") echo "SQLite 8 async writers min 0.224 s (44,643 rows/s)" ;;
	"duckdb w1") echo "DuckDB 1 async writer min 16.31 s (613 rows/s)" ;;
	"duckdb w4") echo "DuckDB 4 async writers min 16.86 s (593 rows/s)" ;;
	"duckdb w8") echo "DuckDB 8 async writers min 17.29 s (578 rows/s)" ;;
	"tonbo per-row") echo "tonbo without a transaction 1.683 s (5,942 rows/s; min 2.715 s)" ;;
	"tonbo one-transaction") echo "tonbo one transaction 0.893 s (11,196 rows/s; min 1.186 s)" ;;
	"tonbo write-batch") echo "tonbo write batch 0.753 s (13,283 rows/s)" ;;
	"tonbo w1") echo "tonbo 1 async writer min 1.228 s (8,143 rows/s)" ;;
	"tonbo w4") echo "tonbo 4 async writers min 0.828 s (12,077 rows/s)" ;;
	"tonbo w8") echo "tonbo 8 async writers min 0.772 s (12,953 rows/s)" ;;
	"tonbo w1-waloff") echo "tonbo 1 async writer, WAL off, min 0.797 s (12,547 rows/s)" ;;
	"tonbo w4-waloff") echo "tonbo 4 async writers, WAL off, min 0.718 s (13,928 rows/s)" ;;
	"tonbo w8-waloff") echo "tonbo 8 async writers, WAL off, min 0.716 s (13,966 rows/s)" ;;
	*) echo "none" ;;
	esac
}

# step DB ROWS NAME KEY PUBKEY [flags...]: one load into a fresh file.
step() {
	local db=$1 rows=$2 name=$3 key=$4 pubkey=$5
	shift 5
	local pub=none file=$files/${db}_${key}_${rows} loader=load_$db
	[[ $rows != 10000 ]] || pub=$(published "$db" "$pubkey")
	if [[ $db == tonbo ]]; then
		loader=load_tonbo_bridge
		if [[ -n $tonbo_skip ]]; then
			exp_row "$db $name, $(exp_fmt "$rows") rows" "$pub" "skipped" "-" "$tonbo_skip"
			return 0
		fi
	fi
	rm -rf "$file" "$file.wal" "$file-wal" "$file-shm"
	exp_load "$db $name, $(exp_fmt "$rows") rows" "$pub" "$loader" --db-path "$file" --db-name "ew_${db}_${key}_${rows}" \
		--file "$data" --limit "$rows" "$@"
	rm -rf "$file" "$file.wal" "$file-wal" "$file-shm"
}

for rows in "${sizes[@]}"; do
	batch=1000
	((rows < 1000000)) || batch=10000
	for db in sqlite duckdb; do
		if [[ $rows == "${sizes[0]}" ]]; then
			step "$db" "$rows" "per-row (autocommit)" row per-row --commit per-row --workers 1 --batch-size "$batch"
		fi
		step "$db" "$rows" "one transaction" txn one-transaction --commit one-transaction --workers 1 --batch-size "$batch"
		for w in 1 4 8; do
			step "$db" "$rows" "per-batch of $(exp_fmt "$batch"), $(exp_n_workers "$w")" "batch_w$w" "w$w" \
				--commit per-batch --workers "$w" --batch-size "$batch"
		done
	done
	if [[ $rows == "${sizes[0]}" ]]; then
		step tonbo "$rows" "per-row (insert, no transaction)" row per-row --commit per-row --workers 1 --batch-size "$batch" --verify content
		step tonbo "$rows" "one transaction" txn one-transaction --commit per-batch --workers 1 --batch-size "$rows" --verify content
		step tonbo "$rows" "write batch (one insert_batch)" wb write-batch --commit write-batch --workers 1 --batch-size "$rows" --verify content
	fi
	for wal in on off; do
		for w in 1 4 8; do
			key=w$w
			[[ $wal == on ]] || key=w$w-waloff
			step tonbo "$rows" "per-batch of $(exp_fmt "$batch"), $(exp_n_workers "$w"), WAL $wal" "batch_$key" "$key" \
				--commit per-batch --workers "$w" --batch-size "$batch" --wal="$([[ $wal == on ]] && echo true || echo false)" --verify content
		done
	done
done

tonbo_note="tonbo 0.3.2 (load_tonbo through its Rust bridge), WAL on unless a row says off, each load flushed to files at its end and verified by content."
[[ -z $tonbo_skip ]] || tonbo_note="tonbo skipped: $tonbo_skip."
exp_finish "Embedded write benchmark (tonbo-io/tonbo#198) on SQLite, DuckDB and tonbo" db_name \
	"SQLite (go-sqlite3) WAL, synchronous=full; DuckDB 2.0 (duckdb-go); $tonbo_note The database runs inside the loader: the rows/s include decoding the input and the database's own work on the same cores. Data: cpu-only, seed 1 (10 tags and 10 doubles a row). The notes give each load's wall time and the machine's load average meanwhile." \
	"Published: 10,000 records on its author's machine (pytest; the min where it gave one)."
