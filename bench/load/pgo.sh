#!/usr/bin/env bash
# Profile-guided builds of the measured servers, each trained on the cells it serves, into target/pgo/, so
#
#   bench/load/pgo.sh && BIN_DIR=bench/load/target/pgo bench/load/run.sh
#
# compares them built the way a PGO deployment would be. Needs rustup's llvm-tools (for llvm-profdata, of
# rustc's own LLVM) and gdb. See README.md ("Profile-guided builds").
#
# Knobs: SERVERS ("fastmcp bare"; rmcp too), TRAIN_DURATION (1.5 s a training run).
set -euo pipefail
cd "$(dirname "$0")"
SERVERS=${SERVERS-"fastmcp bare"}
TRAIN_DURATION=${TRAIN_DURATION:-1.5}
TRAIN_WARMUP=0.3

# shellcheck source=scenarios.sh
source scenarios.sh
for s in $SERVERS; do has "$s" "fastmcp rmcp bare" || die "SERVERS: unknown server $s (fastmcp, rmcp or bare)"; done
PROFDATA=$(rustc --print sysroot)/lib/rustlib/$(rustc -vV | sed -n 's/^host: //p')/bin/llvm-profdata
[[ -x $PROFDATA ]] || die "no $PROFDATA: rustup component add llvm-tools"
command -v gdb > /dev/null || die "no gdb: it asks each HTTP server to write its profile (the floor dies on SIGTERM)"

T=$PWD/target
OUT=$T/pgo
mkdir -p "$OUT"
# The load generator itself is a plain release build: only the servers are trained.
cargo build --release --quiet --bin load
cp "$T/release/load" "$OUT/"
L=$OUT/load

server_env
# A server left running by a failed training run goes with the script.
trap 'kill $(jobs -p) 2> /dev/null || true' EXIT

# The instrumented build of the server being trained, as each_cell starts it (every process writes its own
# profile: LLVM_PROFILE_FILE names it by pid).
instrumented() { echo "$T/pgo-gen/release/${s}_server"; }
# The floor ends on SIGTERM without writing its profile: each HTTP server is asked to write it first.
write_profile() {
    gdb -p "$1" -batch -ex 'call (int)__llvm_profile_write_file()' > /dev/null 2>&1 ||
        die "gdb could not make $s write its profile (as root, or with kernel.yama.ptrace_scope 0, it can attach)"
}

bins=()
for s in $SERVERS; do bins+=(--bin "${s}_server"); done
echo "pgo.sh: instrumented build" >&2
# The path is only a default: each process's LLVM_PROFILE_FILE names its own file.
RUSTFLAGS="-Cprofile-generate=$T/pgo-raw" CARGO_TARGET_DIR=$T/pgo-gen cargo build --release --quiet "${bins[@]}"
for s in $SERVERS; do
    raw=$T/pgo-raw/$s
    rm -rf "$raw"
    mkdir -p "$raw"
    echo "pgo.sh: $s: training" >&2
    LLVM_PROFILE_FILE="$raw/%p.profraw" each_cell "$s" instrumented write_profile
    "$PROFDATA" merge -o "$T/pgo-raw/$s.profdata" "$raw"/*.profraw
    echo "pgo.sh: $s: optimized build" >&2
    # A target directory per server: each is built with its own profile only.
    RUSTFLAGS="-Cprofile-use=$T/pgo-raw/$s.profdata" CARGO_TARGET_DIR=$T/pgo-use-$s \
        cargo build --release --quiet --bin "${s}_server"
    cp "$T/pgo-use-$s/release/${s}_server" "$OUT/"
done
echo "pgo.sh: done; now BIN_DIR=bench/load/target/pgo SERVERS=\"$SERVERS\" bench/load/run.sh" >&2
