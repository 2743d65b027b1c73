# What the bench's scripts share about its scenarios and servers (sourced by run.sh, pgo.sh, order.sh and
# footprint.sh).

# die MESSAGE: the script's name and MESSAGE on stderr, and exit 2.
die() {
    echo "${0##*/}: $*" >&2
    exit 2
}

# has WORD "LIST": whether WORD is one of LIST's words.
has() { [[ " $2 " == *" $1 "* ]]; }

ALL_SCENARIOS="modern-call legacy-call legacy-stateless legacy-list modern-list mrtr"
# The scenarios that exist over stdio too (legacy-stateless is an HTTP mode).
ALL_STDIO_SCENARIOS="modern-call modern-list mrtr legacy-call legacy-list"

# serves IMPL SCENARIO: whether the server answers the scenario (the floors serve modern-call and modern-list).
serves() { [[ $1 != bare ]] || has "$2" "modern-call modern-list"; }

# Server flags per scenario: legacy sessions for the legacy session cells, else stateless (rmcp answers JSON
# only in its stateless mode; fastmcp answers modern requests the same in both, the floors ignore it).
mode_flags() { if has "$1" "legacy-call legacy-list"; then :; else echo --stateless; fi; }

# server_env: what every measured server runs with. The servers log at warn; fastmcp gets a fixed
# request-state key so it does not warn at every start that it made a random one (either way the flows are
# signed alike).
server_env() {
    export RUST_LOG=${RUST_LOG:-warn}
    export FASTMCP_STATE_KEYS=${FASTMCP_STATE_KEYS:-YmVuY2gvbG9hZCByZXF1ZXN0LXN0YXRlIGtleSwgMzIgYnl0ZXM}
}

# each_cell SERVER LAUNCH [BEFORE_STOP]: the load of every cell SERVER serves, for the scripts that run a server
# to learn from it (pgo.sh, order.sh): each HTTP scenario against a server of its own at 1 and 64 connections,
# then each stdio scenario at 1 and 64 in flight, $TRAIN_WARMUP and $TRAIN_DURATION seconds a run, with the load
# generator $L. `LAUNCH RUN` prints the command that starts the server, without its arguments, for the run
# named RUN (http-SCENARIO, or stdio-SCENARIO-N); `BEFORE_STOP PID` runs before an HTTP server gets SIGTERM.
each_cell() {
    local s=$1 launch=$2 before_stop=${3:-} scenario flags port pid c n
    for scenario in $ALL_SCENARIOS; do
        serves "$s" "$scenario" || continue
        flags=$(mode_flags "$scenario")
        port=$("$L" ports 1)
        # shellcheck disable=SC2046,SC2086 # a command line; $flags is zero or one word
        $("$launch" "http-$scenario") --port "$port" --workers 2 $flags &
        pid=$!
        "$L" wait "127.0.0.1:$port"
        for c in 1 64; do
            "$L" run --addr "127.0.0.1:$port" --pid "$pid" --scenario "$scenario" --conns "$c" --quickack \
                --warmup "$TRAIN_WARMUP" --duration "$TRAIN_DURATION" impl="$s" train="$scenario" > /dev/null
        done
        [[ -z $before_stop ]] || "$before_stop" "$pid"
        kill -TERM "$pid"
        wait "$pid" || true
    done
    for scenario in $ALL_STDIO_SCENARIOS; do
        serves "$s" "$scenario" || continue
        for n in 1 64; do
            "$L" run --stdio --server-cmd "$("$launch" "stdio-$scenario-$n") --stdio --workers 2" --scenario "$scenario" \
                --inflight "$n" --warmup "$TRAIN_WARMUP" --duration "$TRAIN_DURATION" impl="$s" train="$scenario" > /dev/null
        done
    done
}
