#!/usr/bin/env bash
# Loopback Streamable HTTP load benchmark: fastmcp against rmcp, side by side. See README.md.
#
#   bench/http-load/run.sh            build (release), run every cell, print the tables
#
# Knobs (environment): ROUNDS (3), WARMUP (1 s), DURATION (2.5 s), CONNS ("1 16"), WORKERS (2, each server's
# tokio worker threads), SHIPPED_ROUNDS (1) and SHIPPED_DURATION (2 s) for the as-shipped TCP table
# (0 rounds skips it), RAW (where the raw result lines go; default target/http-load-raw.txt).
set -euo pipefail
cd "$(dirname "$0")"

ROUNDS=${ROUNDS:-3}
WARMUP=${WARMUP:-1}
DURATION=${DURATION:-2.5}
CONNS=${CONNS:-"1 16"}
WORKERS=${WORKERS:-2}
SHIPPED_ROUNDS=${SHIPPED_ROUNDS:-1}
SHIPPED_DURATION=${SHIPPED_DURATION:-2}
RAW=${RAW:-target/http-load-raw.txt}

cargo build --release --quiet --bins
B=target/release
mkdir -p "$(dirname "$RAW")"
: >"$RAW"

SERVER_PIDS=()
stop_servers() {
    local pid
    for pid in "${SERVER_PIDS[@]}"; do
        kill -TERM "$pid" 2>/dev/null || true
    done
    for pid in "${SERVER_PIDS[@]}"; do
        # Both shut down gracefully on SIGTERM; give them 3 s, then SIGKILL.
        for _ in $(seq 30); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    SERVER_PIDS=()
}
trap stop_servers EXIT INT TERM

vmhwm_kb() { awk '/^VmHWM:/ { print $2 }' "/proc/$1/status"; }

# cell TCP MODE SCENARIO CONNS ROUNDS DURATION: fresh fastmcp and rmcp servers on free loopback ports, ROUNDS
# alternating rounds against each (the order flips every round), then each server's peak RSS.
cell() {
    local tcp=$1 mode=$2 scenario=$3 conns=$4 rounds=$5 duration=$6
    local flags=() quick=()
    [[ $mode == stateless ]] && flags=(--stateless)
    [[ $tcp == quickack ]] && quick=(--quickack)
    local ports
    mapfile -t ports < <("$B/load" ports 2)
    local -A port pid
    port[fastmcp]=${ports[0]}
    port[rmcp]=${ports[1]}
    local imp
    for imp in fastmcp rmcp; do
        RUST_LOG=warn "$B/${imp}_server" --port "${port[$imp]}" --workers "$WORKERS" "${flags[@]}" &
        pid[$imp]=$!
        SERVER_PIDS+=("${pid[$imp]}")
    done
    for imp in fastmcp rmcp; do "$B/load" wait "127.0.0.1:${port[$imp]}"; done
    local round order
    for round in $(seq "$rounds"); do
        if ((round % 2)); then order="fastmcp rmcp"; else order="rmcp fastmcp"; fi
        for imp in $order; do
            "$B/load" run --addr "127.0.0.1:${port[$imp]}" --scenario "$scenario" --conns "$conns" \
                --warmup "$WARMUP" --duration "$duration" "${quick[@]}" \
                tcp="$tcp" mode="$mode" scenario="$scenario" conns="$conns" impl="$imp" round="$round" | tee -a "$RAW"
        done
    done
    for imp in fastmcp rmcp; do
        echo "kind=rss tcp=$tcp mode=$mode scenario=$scenario conns=$conns impl=$imp vmhwm_kb=$(vmhwm_kb "${pid[$imp]}")" |
            tee -a "$RAW"
    done
    stop_servers
}

# suite TCP ROUNDS DURATION
suite() {
    local tcp=$1 rounds=$2 duration=$3 conns scenario
    for conns in $CONNS; do
        for scenario in legacy-call modern-call legacy-list; do
            cell "$tcp" session "$scenario" "$conns" "$rounds" "$duration"
        done
        for scenario in legacy-call modern-call; do
            cell "$tcp" stateless "$scenario" "$conns" "$rounds" "$duration"
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
    echo "## Default TCP (delayed ACKs), both servers as shipped: what a client sees, $SHIPPED_ROUNDS round(s)"
    echo
    "$B/load" summarize "$RAW" tcp=default
fi
echo
echo "raw lines: $RAW"
