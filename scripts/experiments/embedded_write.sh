#!/usr/bin/env bash
# The embedded-database write benchmark (tonbo's "add write benchmark", tonbo-io/tonbo#198) on
# SQLite and DuckDB: autocommit vs one transaction vs batches, and 1, 4 and 8 writers.
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
	*) echo "none" ;;
	esac
}

# step DB ROWS NAME KEY PUBKEY [flags...]: one load into a fresh file.
step() {
	local db=$1 rows=$2 name=$3 key=$4 pubkey=$5
	shift 5
	local pub=none file=$files/${db}_${key}_${rows}
	[[ $rows != 10000 ]] || pub=$(published "$db" "$pubkey")
	rm -f "$file" "$file.wal" "$file-wal" "$file-shm"
	exp_load "$db $name, $(exp_fmt "$rows") rows" "$pub" "load_$db" --db-path "$file" --db-name "ew_${db}_${key}_${rows}" \
		--file "$data" --limit "$rows" "$@"
	rm -f "$file" "$file.wal" "$file-wal" "$file-shm"
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
done

exp_finish "Embedded write benchmark (tonbo-io/tonbo#198) on SQLite and DuckDB" db_name \
	"SQLite (go-sqlite3) WAL, synchronous=full; DuckDB 2.0 (duckdb-go). The database runs inside the loader: the rows/s include decoding the input and the database's own work on the same cores. Data: cpu-only, seed 1 (10 tags and 10 doubles a row). The notes give each load's wall time and the machine's load average meanwhile." \
	"Published (10,000 records, its author's machine; tonbo beside them: no transaction 1.683 s, one transaction 0.893 s, write batch 0.753 s, 1/4/8 writers 1.228/0.828/0.772 s)."
