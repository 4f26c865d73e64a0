#!/usr/bin/env bash
# Build the tonbo bridge (bridge/tonbo: a static library with a C ABI over tonbo 0.3.2) that
# load_tonbo links with cgo, then link it where the Go package finds it. Nothing else in the
# repository needs Rust: without this step, load_tonbo builds and says what to run.
#
#   scripts/build_tonbo.sh            # build (cached: a second run is a no-op), print the paths
#   go build -tags tonbo ./cmd/load_tonbo
#
# cargo fetches the crates from crates.io (bridge/tonbo/Cargo.lock pins them) and compiles into
# ${TSLOAD_CACHE:-$HOME/.cache/tsload}/tonbo-bridge/target (override with CARGO_TARGET_DIR), at
# low priority (nice): the machine is shared. From an empty target directory the build takes
# about 6.5 CPU-minutes and makes a 90 MB archive (docs/loaders/tonbo.md has the measurement).
# The archive is linked as bridge/tonbo/lib/libtsload_tonbo.a (a symbolic link, not committed),
# the path pkg/target/tonbo's cgo flags name.
#
# Environment:
#   TSLOAD_CACHE       cache root                   (default $HOME/.cache/tsload)
#   CARGO_TARGET_DIR   cargo's target directory     (default $TSLOAD_CACHE/tonbo-bridge/target)
#   CARGO              the cargo command            (default cargo, then ~/.cargo/bin/cargo)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cache=${TSLOAD_CACHE:-$HOME/.cache/tsload}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$cache/tonbo-bridge/target}

cargo=${CARGO:-}
if [[ -z $cargo ]]; then
	if command -v cargo >/dev/null 2>&1; then
		cargo=cargo
	elif [[ -x $HOME/.cargo/bin/cargo ]]; then
		cargo=$HOME/.cargo/bin/cargo
		export PATH=$HOME/.cargo/bin:$PATH
	fi
fi
if [[ -z $cargo ]] || ! "$cargo" --version >/dev/null 2>&1 || ! command -v rustc >/dev/null 2>&1; then
	echo "build_tonbo: no Rust toolchain (cargo and rustc): install it with rustup (https://rustup.rs), then run scripts/build_tonbo.sh again; only load_tonbo needs it" >&2
	exit 1
fi

manifest=$root/bridge/tonbo/Cargo.toml
log=$CARGO_TARGET_DIR/build.log
mkdir -p "$CARGO_TARGET_DIR"
if ! nice -n 10 "$cargo" build --release --locked --manifest-path "$manifest" >"$log" 2>&1; then
	tail -n 20 "$log" >&2
	echo "build_tonbo: cargo build failed (log: $log)" >&2
	exit 1
fi
lib=$CARGO_TARGET_DIR/release/libtsload_tonbo.a
[[ -f $lib ]] || { echo "build_tonbo: cargo built no $lib" >&2; exit 1; }
mkdir -p "$root/bridge/tonbo/lib"
ln -sfn "$lib" "$root/bridge/tonbo/lib/libtsload_tonbo.a"
echo "build_tonbo: $lib ($(du -h "$lib" | cut -f1))"
echo "build_tonbo: header $root/bridge/tonbo/tsload_tonbo.h; now: go build -tags tonbo ./cmd/load_tonbo"
