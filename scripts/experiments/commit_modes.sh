#!/usr/bin/env bash
# Commit modes on PostgreSQL: one commit per row vs one transaction per batch vs multi-row
# INSERT vs COPY binary, for 10,000 rows and a larger size.
#
#   scripts/experiments/commit_modes.sh [--quick|--tiny] [--out DIR] [--strict]
#
# The question the embedded-database write benchmarks ask (autocommit vs one transaction vs a
# write batch, 10,000 records), asked of PostgreSQL through load_timescale:
#   --method insert --commit row     one INSERT per row, each its own transaction (autocommit),
#                                    once with synchronous_commit=on (each commit waits for the
#                                    WAL flush, as SQLite's autocommit waits for its journal
#                                    sync) and once with the server's setting (start_postgres.sh
#                                    sets off: commits do not wait for the disk); the durable
#                                    one only at the first size (a flush per row takes hours at
#                                    a million rows)
#   --method insert --commit batch   one INSERT per row, one transaction per 10,000 rows
#   --method insert-multi            multi-row INSERTs, one transaction per 10,000 rows
#   --method copy-binary             COPY binary, 10,000 rows per COPY
# all with one worker, into a fresh database each, verified by count(*). As context only, the
# figures that benchmark published for 10,000 records, on its author's machine: SQLite
# autocommit 5.43819 s (1,839 rows/s), SQLite in one transaction 0.02475 s (404,040 rows/s),
# Tonbo 0.89315 s (11,196 rows/s), Tonbo without a transaction 1.68304 s (5,942 rows/s), Tonbo
# write batch 0.75287 s (13,283 rows/s), DuckDB 20.72643 s (482 rows/s). They are other
# (embedded) databases on other hardware, and the table marks them so.
#
# Data: generate_data --use-case cpu-only --seed 1 (10 tags, 10 doubles per row). Sizes: full =
# 10,000 and 1,000,000 rows; --quick = 10,000 and 100,000; --tiny = 500 and 1,000 (the CI
# test). Starts PostgreSQL with scripts/start_postgres.sh (TSLOAD_POSTGRES, a postgres:// URL,
# for another server). Output: the table on stdout and in DIR/table.md (DIR default
# $TSLOAD_STATE/experiments/commit_modes-<size>), bars_rows.png/.svg (the first size; bars
# named by database cm_<mode>_<rows>_r<pid>) and bars_rows_<rows>.png/.svg, plots/, results/, logs/.
# Exit 0 once the table is written (3 with --strict if a step failed), 1 on a setup error.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
exp_init commit_modes "$@"
[[ ${#EXP_ARGS[@]} -eq 0 ]] || exp_die "unknown argument ${EXP_ARGS[0]} (see --help)"

case "$EXP_SIZE" in
full) sizes=(10000 1000000) ;;
quick) sizes=(10000 100000) ;;
tiny) sizes=(500 1000) ;;
esac
batch=10000

pg_url=${TSLOAD_POSTGRES:-postgres://postgres@127.0.0.1:5432/postgres}
if [[ -z ${TSLOAD_POSTGRES:-} ]]; then
	exp_start postgres || exp_die "PostgreSQL did not start; nothing to measure"
fi
command -v psql >/dev/null || exp_die "psql not found (scripts/start_postgres.sh installs it with postgresql-15)"
q() { psql -X -q -At -v ON_ERROR_STOP=1 "$pg_url" -c "$1"; }
pg_version=$(q 'SHOW server_version') || exp_die "cannot query PostgreSQL at $pg_url"
sync_commit=$(q 'SHOW synchronous_commit')
# The same server with synchronous_commit=on for this client's sessions: PostgreSQL takes
# settings in the connection's start-up packet, and pgx sends unknown URL parameters there.
sep='?'
[[ $pg_url != *\?* ]] || sep='&'
pg_sync_on="${pg_url}${sep}synchronous_commit=on"

# One file with the largest size; each step loads its first N rows.
max=${sizes[-1]}
data=$EXP_OUT/data/cpu.pgcopy
exp_log "generating $data"
"$EXP_BIN/generate_data" --use-case cpu-only --seed 1 --scale 100 --timestamp-end 2016-02-01T00:00:00Z \
	--max-rows "$max" --format pgcopy --file "$data" 2>"$EXP_OUT/logs/generate.log" ||
	exp_die "generate_data failed: $(tail -n 1 "$EXP_OUT/logs/generate.log")"

# mode KEY NAME PUBLISHED URL ROWS [load_timescale flags...]: one load into database
# cm_KEY_ROWS_r<pid> (short: the charts label their bars with it).
mode() {
	local key=$1 name=$2 pub=$3 url=$4 rows=$5
	shift 5
	local db=cm_${key}_${rows}_$EXP_RUN
	exp_load "$name, $(exp_fmt "$rows") rows" "$pub" load_timescale --postgres "$url" --db-name "$db" --drop-db \
		--file "$data" --limit "$rows" --batch-size "$batch" --workers 1 "$@"
	q "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1 || exp_log "could not drop database $db"
}

for rows in "${sizes[@]}"; do
	if [[ $rows == 10000 ]]; then
		p_auto="context, other databases: SQLite autocommit 5.43819 s (1,839 rows/s); Tonbo without a transaction 1.68304 s (5,942 rows/s)"
		p_txn="context, other databases: SQLite one transaction 0.02475 s (404,040 rows/s); Tonbo 0.89315 s (11,196 rows/s)"
		p_multi="context, another database: Tonbo write batch 0.75287 s (13,283 rows/s)"
	else
		p_auto="none at this size"
		p_txn="none at this size"
		p_multi="none"
	fi
	# A durable commit per row costs a WAL flush each (milliseconds on a shared disk): only at
	# the first size, so the larger size does not take hours.
	if [[ $rows == "${sizes[0]}" ]]; then
		mode rowsync "insert --commit row, synchronous_commit=on" "$p_auto" "$pg_sync_on" "$rows" --method insert --commit row
	fi
	mode row "insert --commit row, synchronous_commit=$sync_commit (server)" "$p_auto" "$pg_url" "$rows" --method insert --commit row
	mode batch "insert --commit batch" "$p_txn" "$pg_url" "$rows" --method insert --commit batch
	mode multi "insert-multi" "$p_multi" "$pg_url" "$rows" --method insert-multi
	mode copy "copy-binary" "none" "$pg_url" "$rows" --method copy-binary
done

# One chart per size: bars_rows (the first), bars_rows_<rows> for the others.
for rows in "${sizes[@]}"; do
	name=bars_rows
	[[ $rows == "${sizes[0]}" ]] || name=bars_rows_$rows
	suffix=$(exp_fmt "$rows" | tr , _)_rows.json
	exp_bars "$name" db_name "$EXP_OUT"/results/*_"$suffix"
done
exp_finish "Commit modes on PostgreSQL (autocommit vs transaction vs batch)" - \
	"Server: PostgreSQL $pg_version, synchronous_commit=$sync_commit by default. Data: cpu-only, seed 1, 100 hosts; batches of $(exp_fmt "$batch") rows; 1 worker. The notes give each load's wall time and the machine's load average meanwhile." \
	"Context, other databases (the embedded-database write benchmark's own figures for 10,000 records, on its author's machine; not PostgreSQL, not this machine): SQLite autocommit 5.43819 s, SQLite one transaction 0.02475 s; Tonbo 0.89315 s, without a transaction 1.68304 s, write batch 0.75287 s; DuckDB 20.72643 s."
