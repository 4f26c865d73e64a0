#!/usr/bin/env bash
# run_matrix.sh: load one dataset with every batch size x workers combination,
# each run against a fresh database, and publish the table.
#
#   scripts/run_matrix.sh --loader load_influx --file data.ilp.gz \
#       --batch-sizes 1000,3000,5000,20000 --workers 8,10,30 --out results/influx \
#       [--repeat 3] [--db-name tsload_matrix] [-- extra loader flags, e.g. --urls http://host:8086]
#
# Binaries: the loader and `report` are taken from $TSLOAD_BIN, else ./bin, else
# PATH. Build them first with:  go build -o bin/ ./cmd/...
#
# Every run loads with --drop-db --do-create-db=true into --db-name (default
# tsload_matrix), so each cell starts from an empty database; the loader
# verifies the count unless the extra flags say --verify=off. Runs go
# repeat by repeat (every cell once, then again) so that a slow drift of the
# machine spreads over all cells. Unless the extra flags set
# --reporting-period, runs report every 1s so the rate plots have points.
#
# load_cnosdb without --urls in the extra flags loads into the local CnosDB,
# which scripts/start_cnosdb.sh starts first when it is not up.
#
# Output in DIR:
#   results/b<batch>_w<workers>_r<repeat>.json   one loader results file per run
#   logs/b<batch>_w<workers>_r<repeat>.log       the loader's stderr
#   table.md, table.csv                           the table (also printed on stdout)
#   bars_rows.png/.svg, bars_metrics.png/.svg     grouped bar charts (x = batch size, bars = workers)
#   plots/<run>.rate.png/.svg                     each run's insert rate over time
#   report.html                                   all of it on one self-contained page, with
#                                                 the environment (server, machine, dataset, flags)
#
# A run that fails is a "failed" cell in the table, never a number: the loader
# writes its results file with status failed; when it could not (it died
# before, or the flags were wrong), this script writes one with status failed
# and the end of the log as the error. Exit status: 0 when every run was ok,
# 3 when the table was written but some run failed, 1/2 on usage or setup errors.
set -euo pipefail

usage() {
	sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
}

die() {
	echo "run_matrix: $*" >&2
	exit 1
}

loader="" out="" repeat=1 db_name="tsload_matrix"
batch_sizes="" workers_list=""
files=()
extra=()
while [[ $# -gt 0 ]]; do
	case "$1" in
	--loader) loader=${2:?--loader needs a value}; shift 2 ;;
	--file) files+=("${2:?--file needs a value}"); shift 2 ;;
	--batch-sizes) batch_sizes=${2:?--batch-sizes needs a value}; shift 2 ;;
	--workers) workers_list=${2:?--workers needs a value}; shift 2 ;;
	--out) out=${2:?--out needs a value}; shift 2 ;;
	--repeat) repeat=${2:?--repeat needs a value}; shift 2 ;;
	--db-name) db_name=${2:?--db-name needs a value}; shift 2 ;;
	-h | --help) usage ;;
	--) shift; extra=("$@"); break ;;
	*) echo "run_matrix: unknown argument $1" >&2; usage ;;
	esac
done

[[ -n $loader ]] || { echo "run_matrix: --loader is required" >&2; usage; }
[[ ${#files[@]} -gt 0 ]] || { echo "run_matrix: --file is required" >&2; usage; }
[[ -n $batch_sizes ]] || { echo "run_matrix: --batch-sizes is required" >&2; usage; }
[[ -n $workers_list ]] || { echo "run_matrix: --workers is required" >&2; usage; }
[[ -n $out ]] || { echo "run_matrix: --out is required" >&2; usage; }
[[ $repeat =~ ^[1-9][0-9]*$ ]] || die "--repeat must be a positive integer, not '$repeat'"
IFS=, read -r -a sizes <<<"$batch_sizes"
IFS=, read -r -a workers <<<"$workers_list"
for n in "${sizes[@]}" "${workers[@]}"; do
	[[ $n =~ ^[1-9][0-9]*$ ]] || die "batch sizes and workers must be positive integers, not '$n'"
done
for f in "${files[@]}"; do
	[[ -r $f ]] || die "cannot read input file $f"
done

# find_bin NAME: $TSLOAD_BIN/NAME, ./bin/NAME, or NAME on PATH.
find_bin() {
	local name=$1 dir
	for dir in "${TSLOAD_BIN:-}" ./bin; do
		if [[ -n $dir && -x $dir/$name ]]; then
			echo "$dir/$name"
			return
		fi
	done
	command -v "$name" || die "$name not found in \$TSLOAD_BIN, ./bin or PATH (build with: go build -o bin/ ./cmd/...)"
}
loader_bin=$(find_bin "$loader")
report_bin=$(find_bin report)
target=${loader#load_}

has_flag() {
	local want=$1 a
	for a in "${extra[@]+"${extra[@]}"}"; do
		[[ $a == "$want" || $a == "$want="* ]] && return 0
	done
	return 1
}
period=()
has_flag --reporting-period || period=(--reporting-period 1s)

if [[ $target == cnosdb ]] && ! has_flag --urls; then
	bash "$(dirname "$0")/start_cnosdb.sh" || die "no CnosDB at 127.0.0.1:8902 and scripts/start_cnosdb.sh could not start one"
fi

mkdir -p "$out/results" "$out/logs" "$out/plots"
# Results of an earlier matrix in the same DIR would mix into the table.
rm -f "$out"/results/*.json

# json_string TEXT: TEXT as a JSON string literal (control characters dropped).
json_string() {
	printf '"%s"' "$(printf '%s' "$1" | tr '\n\t' '  ' | tr -d '\000-\037' | sed 's/\\/\\\\/g; s/"/\\"/g')"
}

# write_failed FILE BATCH WORKERS START END REASON: a results file with status failed.
write_failed() {
	local file=$1 bs=$2 w=$3 start=$4 end=$5 reason=$6
	cat >"$file" <<EOF
{
  "loader": $(json_string "$loader"),
  "target": $(json_string "$target"),
  "status": "failed",
  "error": $(json_string "$reason"),
  "flags": {"batch-size": "$bs", "workers": "$w", "db-name": $(json_string "$db_name")},
  "inputs": [],
  "start": "$start",
  "end": "$end",
  "batch_size": $bs,
  "workers": $w
}
EOF
}

now() { date -u +%Y-%m-%dT%H:%M:%S.%3NZ; }

# Ctrl-C stops the whole matrix, not just the run in progress (a loader that
# handles SIGINT itself exits normally, and bash would go on to the next run).
trap 'echo "run_matrix: interrupted; partial results in $out/results" >&2; exit 130' INT TERM

runs=0 failed=0
for ((r = 1; r <= repeat; r++)); do
	for bs in "${sizes[@]}"; do
		for w in "${workers[@]}"; do
			name="b${bs}_w${w}_r${r}"
			res="$out/results/$name.json" log="$out/logs/$name.log"
			args=()
			for f in "${files[@]}"; do args+=(--file "$f"); done
			args+=(--batch-size "$bs" --workers "$w" --db-name "$db_name" --drop-db --do-create-db=true
				--results-file "$res" "${period[@]+"${period[@]}"}" "${extra[@]+"${extra[@]}"}")
			echo "run_matrix: $name: $loader_bin ${args[*]}" >&2
			start=$(now)
			status=0
			"$loader_bin" "${args[@]}" 2>"$log" || status=$?
			end=$(now)
			runs=$((runs + 1))
			if [[ $status -eq 0 && -s $res ]]; then
				continue
			fi
			failed=$((failed + 1))
			reason="$loader exited with status $status: $(tail -n 3 "$log")"
			if [[ $status -eq 0 ]]; then
				reason="$loader exited 0 but wrote no results file"
			fi
			if [[ -s $res ]] && ! grep -q '"status": *"ok"' "$res"; then
				echo "run_matrix: $name failed (status $status); its results file says so" >&2
				continue
			fi
			# No results file, or one that claims ok although the loader failed.
			[[ -s $res ]] && mv "$res" "$out/logs/$name.claimed-ok.json"
			write_failed "$res" "$bs" "$w" "$start" "$end" "$reason"
			echo "run_matrix: $name failed (status $status); wrote $res with status failed" >&2
		done
	done
done

shopt -s nullglob
results=("$out"/results/*.json)
"$report_bin" table --format md "${results[@]}" >"$out/table.md"
"$report_bin" table --format csv "${results[@]}" >"$out/table.csv"
"$report_bin" bars --out "$out" --metric rows "${results[@]}" >/dev/null
"$report_bin" bars --out "$out" --metric metrics "${results[@]}" >/dev/null
"$report_bin" plot --out "$out/plots" "${results[@]}" >/dev/null
"$report_bin" html --out "$out/report.html" "${results[@]}" >/dev/null
cat "$out/table.md"
echo "run_matrix: $runs runs, $failed failed; table, CSV, charts and report.html in $out" >&2
[[ $failed -eq 0 ]] || exit 3
