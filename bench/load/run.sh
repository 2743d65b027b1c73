#!/usr/bin/env bash
# Loopback Streamable HTTP load benchmark: fastmcp against rmcp side by side, optionally with a bare-hyper floor
# and other fastmcp builds in the same cells. See README.md.
#
#   bench/http-load/run.sh            build (release), run every cell, print the tables
#
# Knobs (environment):
#   ROUNDS (3), WARMUP (1 s), DURATION (2.5 s), CONNS ("1 16"), WORKERS (2, each server's tokio worker threads),
#   THREADS (the load generator's threads; unset: 1 at C = 1, else 2),
#   SCENARIOS ("legacy-call modern-call legacy-list") and MODES ("session stateless"): the cells to run
#     (legacy-list is measured in session mode only),
#   SERVERS ("fastmcp rmcp"; set but empty: none): the servers in every cell, from fastmcp, rmcp and bare (the
#     floor; it serves modern-call only and sits out the other cells),
#   EXTRA (""): more fastmcp server binaries, "NAME=PATH ...", e.g. "before=/work/bench-before/fastmcp_server";
#     each is started like fastmcp_server and listed as NAME after SERVERS,
#   SHIPPED_ROUNDS (1) and SHIPPED_DURATION (2 s) for the as-shipped TCP table (0 rounds skips it),
#   RAW (where the raw result lines go; default target/http-load-raw.txt).
set -euo pipefail
START_DIR=$PWD
cd "$(dirname "$0")"

ROUNDS=${ROUNDS:-3}
WARMUP=${WARMUP:-1}
DURATION=${DURATION:-2.5}
CONNS=${CONNS:-"1 16"}
WORKERS=${WORKERS:-2}
THREADS=${THREADS:-}
SCENARIOS=${SCENARIOS:-"legacy-call modern-call legacy-list"}
MODES=${MODES:-"session stateless"}
SERVERS=${SERVERS-"fastmcp rmcp"} # empty: only EXTRA
EXTRA=${EXTRA:-}
SHIPPED_ROUNDS=${SHIPPED_ROUNDS:-1}
SHIPPED_DURATION=${SHIPPED_DURATION:-2}
RAW=${RAW:-target/http-load-raw.txt}

die() {
    echo "run.sh: $*" >&2
    exit 2
}

# has WORD "LIST": whether WORD is one of LIST's words.
has() { [[ " $2 " == *" $1 "* ]]; }

for s in $SCENARIOS; do has "$s" "legacy-call modern-call legacy-list" || die "SCENARIOS: unknown scenario $s"; done
for m in $MODES; do has "$m" "session stateless" || die "MODES: unknown mode $m"; done

B=target/release
# The servers, in the order given: BIN[name] is the binary started for name.
declare -A BIN=()
IMPLS=()
add_server() {
    [[ -z ${BIN[$1]+set} ]] || die "server $1 is named twice"
    BIN[$1]=$2
    IMPLS+=("$1")
}
for imp in $SERVERS; do
    has "$imp" "fastmcp rmcp bare" || die "SERVERS: unknown server $imp (fastmcp, rmcp or bare; other binaries go in EXTRA)"
    add_server "$imp" "$B/${imp}_server"
done
for spec in $EXTRA; do
    name=${spec%%=*} path=${spec#*=}
    [[ $spec == *=* && $name =~ ^[A-Za-z0-9_-]+$ ]] || die "EXTRA: expected NAME=PATH, not $spec"
    ! has "$name" "fastmcp rmcp bare" || die "EXTRA: $name names a built-in server; pick another name"
    [[ $path == /* ]] || path=$START_DIR/$path
    [[ -x $path ]] || die "EXTRA: $path is not an executable"
    add_server "$name" "$path"
done
((${#IMPLS[@]})) || die "no servers: SERVERS and EXTRA are empty"
others=${SCENARIOS//modern-call/} # the selected scenarios but modern-call
if has bare "${IMPLS[*]}" && [[ -n ${others//[[:space:]]/} ]]; then
    echo "run.sh: note: bare serves modern-call only; it sits out the other scenarios' cells" >&2
fi

cargo build --release --quiet --bins
mkdir -p "$(dirname "$RAW")"
: >"$RAW"

SERVER_PIDS=()
stop_servers() {
    local pid
    for pid in "${SERVER_PIDS[@]}"; do
        kill -TERM "$pid" 2>/dev/null || true
    done
    for pid in "${SERVER_PIDS[@]}"; do
        # They shut down on SIGTERM (fastmcp and rmcp gracefully); give them 3 s, then SIGKILL.
        for _ in $(seq 30); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    SERVER_PIDS=()
}
trap stop_servers EXIT INT TERM

vmhwm_kb() { awk '/^VmHWM:/ { print $2 }' "/proc/$1/status"; }

# cell TCP MODE SCENARIO CONNS ROUNDS DURATION: fresh servers (each of IMPLS that serves SCENARIO) on free
# loopback ports, ROUNDS rounds against each (the order rotated by one every round: with two servers it flips),
# then each server's peak RSS.
cell() {
    local tcp=$1 mode=$2 scenario=$3 conns=$4 rounds=$5 duration=$6
    local flags=() quick=() threads=() impls=() imp
    [[ $mode == stateless ]] && flags=(--stateless)
    [[ $tcp == quickack ]] && quick=(--quickack)
    if [[ -n $THREADS ]]; then threads=(--threads "$THREADS"); fi
    for imp in "${IMPLS[@]}"; do
        if [[ $imp != bare || $scenario == modern-call ]]; then impls+=("$imp"); fi
    done
    local n=${#impls[@]}
    ((n)) || return 0
    local ports
    mapfile -t ports < <("$B/load" ports "$n")
    local -A port pid
    local i
    for i in "${!impls[@]}"; do
        imp=${impls[$i]}
        port[$imp]=${ports[$i]}
        RUST_LOG=warn "${BIN[$imp]}" --port "${port[$imp]}" --workers "$WORKERS" "${flags[@]}" &
        pid[$imp]=$!
        SERVER_PIDS+=("${pid[$imp]}")
    done
    for imp in "${impls[@]}"; do "$B/load" wait "127.0.0.1:${port[$imp]}"; done
    local round
    for round in $(seq "$rounds"); do
        for i in $(seq 0 $((n - 1))); do
            imp=${impls[$(((round - 1 + i) % n))]}
            "$B/load" run --addr "127.0.0.1:${port[$imp]}" --scenario "$scenario" --conns "$conns" \
                --warmup "$WARMUP" --duration "$duration" "${quick[@]}" "${threads[@]}" \
                tcp="$tcp" mode="$mode" scenario="$scenario" conns="$conns" impl="$imp" round="$round" | tee -a "$RAW"
        done
    done
    for imp in "${impls[@]}"; do
        echo "kind=rss tcp=$tcp mode=$mode scenario=$scenario conns=$conns impl=$imp vmhwm_kb=$(vmhwm_kb "${pid[$imp]}")" |
            tee -a "$RAW"
    done
    stop_servers
}

# suite TCP ROUNDS DURATION: every selected cell.
suite() {
    local tcp=$1 rounds=$2 duration=$3 conns mode scenario
    for conns in $CONNS; do
        for mode in session stateless; do
            has "$mode" "$MODES" || continue
            for scenario in legacy-call modern-call legacy-list; do
                has "$scenario" "$SCENARIOS" || continue
                [[ $mode == stateless && $scenario == legacy-list ]] && continue
                cell "$tcp" "$mode" "$scenario" "$conns" "$rounds" "$duration"
            done
        done
    done
}

suite quickack "$ROUNDS" "$DURATION"
if ((SHIPPED_ROUNDS > 0)); then
    suite default "$SHIPPED_ROUNDS" "$SHIPPED_DURATION"
fi

echo
echo "## Client acknowledges at once (TCP_QUICKACK): the frameworks' own cost, median of $ROUNDS rounds"
echo
"$B/load" summarize "$RAW" tcp=quickack
if ((SHIPPED_ROUNDS > 0)); then
    echo
    echo "## Default TCP (delayed ACKs), the servers as shipped: what a client sees, $SHIPPED_ROUNDS round(s)"
    echo
    "$B/load" summarize "$RAW" tcp=default
fi
echo
echo "raw lines: $RAW"
