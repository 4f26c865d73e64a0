#!/usr/bin/env bash
# Input overhead: how fast each loader reads, decompresses, splits and checks its input when
# nothing is sent (--do-load=false), beside the TSBS loaders and the raw decompressors, in one
# run on the same rows.
#
#   scripts/bench_overhead.sh [--scale N] [--timestamp-end T] [--workers N] [--runs N] [--out DIR]
#
# One cpu-only dataset (seed 1, --scale hosts, 10s interval, 2016-01-01 to --timestamp-end)
# is written by generate_data as ILP (load_questdb, load_influx, load_cnosdb) and CSV
# (load_timescale), each uncompressed, --gzip (multi-member), gzip -1 of the plain file
# (one member) and --zstd. Every loader runs on the four with --do-load=false and --workers
# (default 2). A Parquet file of the same rows (generate_data --format parquet, row groups of
# 1Mi rows, Snappy) goes to load_questdb (turned into ILP) and load_timescale (into COPY
# tuples); its MB/s is of the Parquet file itself. Beside them, in the same run:
#   peers: tsbs_load_influx and tsbs_load_timescaledb (timescale/tsbs) and tsbs_load_questdb
#     (QuestDB's fork, questdb/tsbs) with --do-load=false --workers N on their own formats,
#     written by their tsbs_generate_data for the same use case, scale and time range.
#     TSLOAD_PEERS_BIN=DIR[:QDIR] names where they are: DIR holds the TSBS binaries, QDIR
#     (default DIR) QuestDB's fork; without it they are taken from PATH; missing ones are
#     left out.
#   floors: gunzip -c FILE | wc -l for both gzip files, zstd -dc FILE | wc -l (zstd is
#     installed with apt-get when missing).
#   one core: load_questdb again with GOMAXPROCS=1 on each input, so the table shows how the
#     reader scales from one core to all of them.
#   baseline: TSLOAD_BASELINE_BIN=DIR runs DIR's load_* as well (another build of tsload, e.g.
#     an earlier commit's `go build -o DIR/ ./cmd/...`), each as "<loader> (baseline)" in the
#     same rounds, so a change's effect on the reader is measured in one run.
#   fingerprint: load_questdb again with --verify content on each input: the workers also
#     compute the content fingerprint (docs/verify.md), so the table shows what it costs.
# Every command runs --runs times (default 3) and the fastest run counts: on a shared virtual
# machine the noise only ever slows a run down. The runs go in rounds (every command once, then
# again), so that a slow spell of the machine falls on every command alike.
# Prints a Markdown table: rows/s (rows / wall seconds of the whole command), decompressed
# MB/s, CPU seconds (user + system), peak RSS (GNU time; the largest process of a pipe), and
# the ratios the targets use.
# Files go to --out (default $TSLOAD_STATE/bench_overhead, TSLOAD_STATE defaults to
# /tmp/tsload), named by their parameters so a later run reuses them. TSLOAD_BENCH_SCALE,
# TSLOAD_BENCH_END and TSLOAD_BENCH_ROUNDS set the defaults of --scale (4000), --timestamp-end
# (03:00, 3 hours) and --runs (3).
set -euo pipefail
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

scale=${TSLOAD_BENCH_SCALE:-4000}
ts_end=${TSLOAD_BENCH_END:-2016-01-01T03:00:00Z}
workers=2
runs=${TSLOAD_BENCH_ROUNDS:-3}
out=""
parse_flags bench_overhead.sh "--scale=scale --timestamp-end=ts_end --workers=workers --runs=runs --out=out" "$@"

bench_dirs bench_overhead
bin=$root/bin
build_tools "$bin" ./cmd/...

# zstd (the floor) and GNU time (/usr/bin/time: wall, CPU, peak RSS) from Debian when missing.
missing=()
command -v zstd >/dev/null || missing+=(zstd)
[ -x /usr/bin/time ] || missing+=(time)
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get -o DPkg::Lock::Timeout=900 install -y "${missing[@]}" >/dev/null ||
    { $sudo apt-get -o DPkg::Lock::Timeout=900 update >/dev/null && $sudo apt-get -o DPkg::Lock::Timeout=900 install -y "${missing[@]}" >/dev/null; }
fi

# Peers: TSBS from the first directory of TSLOAD_PEERS_BIN, QuestDB's fork from the second.
tsbs_dir=""; qdb_dir=""
if [ -n "${TSLOAD_PEERS_BIN:-}" ]; then
  tsbs_dir=${TSLOAD_PEERS_BIN%%:*}
  qdb_dir=${TSLOAD_PEERS_BIN#*:}
fi
peer() { # DIR NAME -> path or nothing
  if [ -n "$1" ] && [ -x "$1/$2" ]; then echo "$1/$2"; elif [ -z "$1" ]; then command -v "$2" || true; fi
}
tsbs_gen=$(peer "$tsbs_dir" tsbs_generate_data)
qdb_gen=$(peer "$qdb_dir" tsbs_generate_data)

ds=$(dataset)
ilp=$out/$ds.ilp
csv=$out/$ds.csv
for f in ilp csv; do
  plain=$out/$ds.$f
  generate "$plain" --format "$f" 2>/dev/null
  generate "$plain.gz" --format "$f" 2>/dev/null
  generate "$plain.zst" --format "$f" 2>/dev/null
  [ -s "$plain.1.gz" ] || gzip -1 -c "$plain" >"$plain.1.gz"
done
parquet=$out/$ds.parquet
generate "$parquet" --format parquet 2>/dev/null
rows=$(grep -c . "$ilp")
mb=$(python3 -c 'import os,sys; print(os.path.getsize(sys.argv[1])/1e6)' "$ilp")
csv_mb=$(python3 -c 'import os,sys; print(os.path.getsize(sys.argv[1])/1e6)' "$csv")
pq_mb=$(python3 -c 'import os,sys; print(os.path.getsize(sys.argv[1])/1e6)' "$parquet")
tsbs_gen_file() { # GENERATOR FORMAT FILE
  [ -n "$1" ] || return 1
  [ -s "$3" ] || "$1" --use-case cpu-only --seed 1 --scale "$scale" --timestamp-start 2016-01-01T00:00:00Z \
    --timestamp-end "$ts_end" --log-interval 10s --format "$2" >"$3" 2>/dev/null
}

# add NAME INPUT MB CMD... queues a command; run_all then runs every queued command once per
# round, $runs rounds, so that each command's runs are spread over the whole benchmark (a slow
# spell of the machine then hits every command alike, not all runs of one); rate = rows / wall
# seconds of the command's fastest run; CPU = user + system seconds of that run (all processes
# of a pipe); peak RSS = the largest of any run.
declare -a c_name=() c_input=() c_size=() c_cmd=() table=()
declare -A rate_of=() cpu_of=()
add() {
  c_name+=("$1"); c_input+=("$2"); c_size+=("$3"); shift 3
  c_cmd+=("$(printf '%q ' "$@")")
}
run_all() {
  local tf=$out/time.txt log=$out/last.log round i s m u y
  local -A best=() cpu=() rss=() failed=()
  for ((round = 0; round < runs; round++)); do
    for i in "${!c_cmd[@]}"; do
      [ -z "${failed[$i]:-}" ] || continue
      # load_timescale asks the server its version even with --do-load=false: that is its work
      if [[ ${c_name[$i]} == load_timescale* ]]; then interf_begin 127.0.0.1:"${PGPORT:-5432}"; else interf_begin; fi
      if ! eval "/usr/bin/time -f '%e %M %U %S' -o \"\$tf\" ${c_cmd[$i]}" >"$log" 2>&1; then
        failed[$i]=$(tail -1 "$log" | cut -c1-80)
        continue
      fi
      interf_end
      interf_keep "$i"
      read -r s m u y <"$tf"
      if [ -z "${best[$i]:-}" ] || python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) < float(sys.argv[2]) else 1)' "$s" "${best[$i]}"; then
        best[$i]=$s
        cpu[$i]=$(python3 -c 'import sys; print(f"{float(sys.argv[1])+float(sys.argv[2]):.2f}")' "$u" "$y")
      fi
      (( m > ${rss[$i]:-0} )) && rss[$i]=$m
    done
  done
  local r name input
  for i in "${!c_cmd[@]}"; do
    name=${c_name[$i]} input=${c_input[$i]}
    if [ -n "${failed[$i]:-}" ]; then
      table+=("| $input | $name | failed: ${failed[$i]} | | | | |")
      continue
    fi
    r=$(python3 -c 'import sys; r,s=map(float,sys.argv[1:]); print(int(r/s) if s>0 else 0)' "$rows" "${best[$i]}")
    rate_of["$input|$name"]=$r
    cpu_of["$input|$name"]=${cpu[$i]}
    # /usr/bin/time counts hundredths: a tiny input can take "0.00" s.
    if [[ $r == 0 ]]; then
      table+=("| $input | $name | (under 0.01 s) | | ${cpu[$i]} | $(( ${rss[$i]} / 1024 )) | $(interf_rows "$i") |")
    else
      table+=("| $input | $name | $(printf "%'d" "$r") | $(python3 -c 'import sys; print(f"{float(sys.argv[1])/float(sys.argv[2]):.0f}")' "${c_size[$i]}" "${best[$i]}") | ${cpu[$i]} | $(( ${rss[$i]} / 1024 )) | $(interf_rows "$i") |")
    fi
  done
}
loaders=(load_questdb load_influx load_cnosdb load_timescale)
for kind in "uncompressed" "gzip, generate_data --gzip (members)" "gzip -1 (one member)" "zstd, generate_data --zstd"; do
  case "$kind" in
    uncompressed) sfx="" ;;
    "gzip, generate"*) sfx=".gz" ;;
    "gzip -1"*) sfx=".1.gz" ;;
    zstd*) sfx=".zst" ;;
  esac
  for l in "${loaders[@]}"; do
    file=$ilp$sfx; size=$mb
    if [ "$l" = load_timescale ]; then file=$csv$sfx; size=$csv_mb; fi
    add "$l" "$kind" "$size" "$bin/$l" --file "$file" --do-load=false --workers "$workers" \
      --batch-size 5000 --reporting-period 1h
    if [ -n "${TSLOAD_BASELINE_BIN:-}" ]; then
      add "$l (baseline)" "$kind" "$size" "$TSLOAD_BASELINE_BIN/$l" --file "$file" --do-load=false \
        --workers "$workers" --batch-size 5000 --reporting-period 1h
    fi
  done
  add "load_questdb, GOMAXPROCS=1" "$kind" "$mb" env GOMAXPROCS=1 "$bin/load_questdb" --file "$ilp$sfx" \
    --do-load=false --workers "$workers" --batch-size 5000 --reporting-period 1h
  add "load_questdb --verify content" "$kind" "$mb" "$bin/load_questdb" --file "$ilp$sfx" \
    --do-load=false --workers "$workers" --batch-size 5000 --reporting-period 1h --verify content
  case "$sfx" in
    .gz|.1.gz) add "gunzip -c \\| wc -l" "$kind" "$mb" bash -o pipefail -c "gunzip -c '$ilp$sfx' | wc -l" ;;
    .zst) add "zstd -dc \\| wc -l" "$kind" "$mb" bash -o pipefail -c "zstd -dc '$ilp$sfx' | wc -l" ;;
    "")
      if tsbs_gen_file "$qdb_gen" questdb "$out/$ds.tsbs-questdb"; then
        p=$(peer "${qdb_dir:-$tsbs_dir}" tsbs_load_questdb)
        [ -z "$p" ] || add "tsbs_load_questdb (QuestDB fork)" "$kind" \
          "$(python3 -c 'import os,sys; print(os.path.getsize(sys.argv[1])/1e6)' "$out/$ds.tsbs-questdb")" \
          "$p" --file "$out/$ds.tsbs-questdb" --do-load=false --workers "$workers" --batch-size 5000
      fi
      if tsbs_gen_file "$tsbs_gen" influx "$out/$ds.tsbs-influx"; then
        p=$(peer "$tsbs_dir" tsbs_load_influx)
        [ -z "$p" ] || add "tsbs_load_influx (TSBS)" "$kind" \
          "$(python3 -c 'import os,sys; print(os.path.getsize(sys.argv[1])/1e6)' "$out/$ds.tsbs-influx")" \
          "$p" --file "$out/$ds.tsbs-influx" --do-load=false --workers "$workers" --batch-size 5000
      fi
      if tsbs_gen_file "$tsbs_gen" timescaledb "$out/$ds.tsbs-timescaledb"; then
        p=$(peer "$tsbs_dir" tsbs_load_timescaledb)
        [ -z "$p" ] || add "tsbs_load_timescaledb (TSBS)" "$kind" \
          "$(python3 -c 'import os,sys; print(os.path.getsize(sys.argv[1])/1e6)' "$out/$ds.tsbs-timescaledb")" \
          "$p" --file "$out/$ds.tsbs-timescaledb" --do-load=false --workers "$workers" --batch-size 5000
      fi
      ;;
  esac
done
for l in load_questdb load_timescale; do
  add "$l" "parquet" "$pq_mb" "$bin/$l" --file "$parquet" --table cpu --do-load=false --workers "$workers" \
    --batch-size 5000 --reporting-period 1h
done
run_all

sizes=""
for f in "$ilp" "$ilp.gz" "$ilp.1.gz" "$ilp.zst" "$csv" "$parquet"; do
  sizes+="$(basename "$f"): $(python3 -c 'import os,sys; print(f"{os.path.getsize(sys.argv[1])/1e6:.0f} MB")' "$f"); "
done
ratio() { python3 -c 'import sys; a,b=map(float,sys.argv[1:]); print(f"{a/b:.2f}x" if b>0 else "-")' "${rate_of[$1]:-0}" "${rate_of[$2]:-0}"; }

echo
echo "cpu-only, scale $scale, 2016-01-01 to $ts_end: $(printf "%'d" "$rows") rows, $workers workers, --do-load=false; $(nproc) cores; fastest of $runs runs, in rounds"
echo "files: ${sizes%; }"
echo
echo "| input | tool | rows/s | MB/s (decompressed) | CPU s | peak RSS MB | interference cores max |"
echo "|---|---|---:|---:|---:|---:|---:|"
printf '%s\n' "${table[@]}"
echo
echo "- load_questdb uncompressed / tsbs_load_questdb (QuestDB fork): $(ratio "uncompressed|load_questdb" "uncompressed|tsbs_load_questdb (QuestDB fork)") in rows/s; CPU seconds ${cpu_of["uncompressed|load_questdb"]:-?} against ${cpu_of["uncompressed|tsbs_load_questdb (QuestDB fork)"]:-?} (tsload checks every line, the fork only the first of each batch)"
echo "- load_questdb on --gzip output / gunzip -c | wc -l: $(ratio "gzip, generate_data --gzip (members)|load_questdb" "gzip, generate_data --gzip (members)|gunzip -c \\| wc -l")"
echo "- load_questdb on --zstd output / zstd -dc | wc -l: $(ratio "zstd, generate_data --zstd|load_questdb" "zstd, generate_data --zstd|zstd -dc \\| wc -l")"
if [ -n "${TSLOAD_BASELINE_BIN:-}" ]; then
  for kind in "uncompressed" "gzip, generate_data --gzip (members)" "gzip -1 (one member)" "zstd, generate_data --zstd"; do
    line="- $kind, this build / baseline ($TSLOAD_BASELINE_BIN):"
    for l in "${loaders[@]}"; do line+=" $l $(ratio "$kind|$l" "$kind|$l (baseline)")"; done
    echo "$line"
  done
fi
echo "- Parquet / ILP, load_questdb: $(ratio "parquet|load_questdb" "uncompressed|load_questdb"); Parquet / CSV, load_timescale: $(ratio "parquet|load_timescale" "uncompressed|load_timescale") (rows/s)"
for kind in "uncompressed" "gzip, generate_data --gzip (members)" "gzip -1 (one member)" "zstd, generate_data --zstd"; do
  echo "- load_questdb on $kind, all cores / one core: $(ratio "$kind|load_questdb" "$kind|load_questdb, GOMAXPROCS=1")"
done
for kind in "uncompressed" "gzip, generate_data --gzip (members)" "gzip -1 (one member)" "zstd, generate_data --zstd"; do
  echo "- load_questdb on $kind, with fingerprints / without (--verify content / count): $(ratio "$kind|load_questdb --verify content" "$kind|load_questdb") in rows/s; CPU seconds ${cpu_of["$kind|load_questdb --verify content"]:-?} against ${cpu_of["$kind|load_questdb"]:-?}"
done
rm -f "$out/time.txt"
