#!/usr/bin/env bash
# Link-ordered builds of the measured servers into target/order/: each server's functions that ran under
# every cell it serves, hottest first, laid out together at the front of its code, so
#
#   bench/load/order.sh && BIN_DIR=bench/load/target/order bench/load/run.sh
#
# compares them built the way a deployment that orders its link would be. The code is the default release
# build's; only where the linker puts each function changes. Needs valgrind (callgrind lists the functions
# that ran, callgrind_annotate comes with it) and rust-lld, Rust's default linker on x86_64 Linux, for its
# `--symbol-ordering-file`. See README.md ("Link-ordered builds").
#
# Knobs: SERVERS ("fastmcp bare"; rmcp too), TRAIN_DURATION (1 s a profiled run, under callgrind).
set -euo pipefail
cd "$(dirname "$0")"
SERVERS=${SERVERS-"fastmcp bare"}
TRAIN_DURATION=${TRAIN_DURATION:-1}
TRAIN_WARMUP=0

# shellcheck source=scenarios.sh
source scenarios.sh
for s in $SERVERS; do has "$s" "fastmcp rmcp bare" || die "SERVERS: unknown server $s (fastmcp, rmcp or bare)"; done
command -v valgrind > /dev/null || die "no valgrind: callgrind lists the functions each server runs"

T=$PWD/target
OUT=$T/order
RAW=$T/order-raw
mkdir -p "$OUT"
cargo build --release --quiet --bins
cp "$T/release/load" "$OUT/"
L=$OUT/load

server_env
trap 'kill $(jobs -p) 2> /dev/null || true' EXIT
# Mangled names: the symbols the linker orders.
CG="valgrind --quiet --tool=callgrind --demangle=no"

# ran BINARY DUMP...: the functions of BINARY (by its file name) that ran in the dumps, hottest first (their
# own instructions, summed over the dumps), one symbol a line: the linker's symbol ordering file. The README's
# recipe ("Link-ordered builds") is this for one dump.
ran() {
    local bin=$1 dump
    shift
    for dump in "$@"; do callgrind_annotate --inclusive=no --threshold=100 "$dump"; done |
        awk -v object="/$bin]" '
            # "12,345 (1.23%)  file:symbol [/path/to/object]"; a recursive frame is "symbol'"'"'2".
            substr($NF, length($NF) - length(object) + 1) == object {
                symbol = $(NF - 1); sub(/^.*:/, "", symbol); sub(/\047.*/, "", symbol)
                cost = $1; gsub(/,/, "", cost); own[symbol] += cost
            }
            END { for (symbol in own) print own[symbol], symbol }' |
        sort -k1,1nr -k2,2 | cut -d' ' -f2
}

# The copy of the server being profiled under callgrind, a dump a process in $RAW/SERVER, as each_cell starts
# it: start-up included, since its code is resident too.
profiled() { echo "$CG --callgrind-out-file=$RAW/$s/$1.out $RAW/$s/${s}_server"; }

for s in $SERVERS; do
    bin=${s}_server
    rm -rf "${RAW:?}/$s" "$RAW/$s"-*.order
    mkdir -p "$RAW/$s"
    echo "order.sh: $s: the cells under callgrind" >&2
    # A copy: the profiled code must be the code relinked, and target/release is relinked below.
    cp "$T/release/$bin" "$RAW/$s/$bin"
    each_cell "$s" profiled
    # A stdio server's dump may still be being written when the load has read its last answer.
    for _ in $(seq 50); do
        [[ -z $(find "$RAW/$s" -name '*.out' -empty) ]] && break
        sleep 0.1
    done
    ran "$bin" "$RAW/$s"/*.out > "$RAW/$s.order"
    # Cargo keeps a build for each set of arguments and links again only when they change: an order of other
    # content gets a file of another name.
    order=$RAW/$s-$(sha256sum < "$RAW/$s.order" | cut -c1-12).order
    mv "$RAW/$s.order" "$order"
    echo "order.sh: $s: $(wc -l < "$order") functions ran; relinking in their order" >&2
    # Only the binary's own crate is compiled again, its dependencies' objects reused: the same symbols.
    cargo rustc --release --quiet --bin "$bin" -- \
        -C link-arg=-Wl,--symbol-ordering-file="$order" -C link-arg=-Wl,--no-warn-symbol-ordering
    cp "$T/release/$bin" "$OUT/"
    # The hottest function must now open the code: otherwise the linker ignored the order.
    first=$(head -1 "$order")
    lowest=$(nm -n --defined-only "$OUT/$bin" |
        awk 'NR == FNR { ordered[$1]; next } !found && $3 in ordered { print $3; found = 1 }' "$order" -)
    [[ $lowest == "$first" ]] || die "$bin: the linker did not follow the order ($first is not first; rust-lld needed)"
done
# target/release back to the default build.
cargo build --release --quiet --bins
echo "order.sh: done; now BIN_DIR=bench/load/target/order SERVERS=\"$SERVERS\" bench/load/run.sh" >&2
