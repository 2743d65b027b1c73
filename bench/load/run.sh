#!/usr/bin/env bash
# Loopback load benchmark over Streamable HTTP and stdio: fastmcp, rmcp 3.11 and hand-written floors side by
# side, in alternating rounds, every answer checked. See README.md.
#
#   bench/load/run.sh            build (release), run every cell, print the tables
#   bench/load/run.sh --check    (or CHECK=1) the short correctness run: every cell for a fraction of a second
#                                with every server; exits 1 if any cell had an error or no answer (no timings)
#
# Knobs (environment; README.md has the table):
#   ROUNDS (3), WARMUP (1 s), DURATION (2.5 s), CONNS ("1 64"), INFLIGHT ("1 64"), WORKERS (2), THREADS,
#   SCENARIOS ("modern-call legacy-call legacy-stateless modern-list mrtr"; legacy-list too),
#   STDIO_SCENARIOS ("modern-call modern-list"; mrtr, legacy-call and legacy-list too; empty: no stdio),
#   SERVERS ("fastmcp rmcp bare"; set but empty: only EXTRA), EXTRA ("NAME=PATH ..." more fastmcp_server builds),
#   RATES ("0.25 0.5"; check: "0.5"; empty: none) the open-loop modern-call cells at the largest C,
#   SESSIONS (10000; 0 skips the idle-session measurement), SHIPPED_ROUNDS (0) and SHIPPED_DURATION (2 s)
#   for the as-shipped TCP table, PROFILE (release; debug under --check), RAW (target/load-raw.txt),
#   BIN_DIR (unset: target/$PROFILE, built first) a directory of prebuilt binaries, run as they are.
set -euo pipefail
START_DIR=$PWD
cd "$(dirname "$0")"
T0=$SECONDS

# shellcheck source=scenarios.sh
source scenarios.sh

CHECK=${CHECK:-0}
case "${1:-}" in
    "") ;;
    --check) CHECK=1 ;;
    *) die "unknown argument $1 (only --check; the rest are environment knobs, see README.md)" ;;
esac
[[ $CHECK == 0 || $CHECK == 1 ]] || die "CHECK must be 0 or 1"

if ((CHECK)); then
    # Correctness only: every cell briefly; a debug build is the quicker one from clean (README.md).
    # It also covers the scenarios a default run leaves out (legacy-list; over stdio mrtr and the legacy era).
    ROUNDS=${ROUNDS:-1} WARMUP=${WARMUP:-0.2} DURATION=${DURATION:-0.3} SESSIONS=${SESSIONS:-200}
    SHIPPED_ROUNDS=${SHIPPED_ROUNDS:-0} PROFILE=${PROFILE:-debug} RATES=${RATES-0.5}
    SCENARIOS=${SCENARIOS-$ALL_SCENARIOS}
    STDIO_SCENARIOS=${STDIO_SCENARIOS-$ALL_STDIO_SCENARIOS}
fi
ROUNDS=${ROUNDS:-3}
WARMUP=${WARMUP:-1}
DURATION=${DURATION:-2.5}
CONNS=${CONNS:-"1 64"}
INFLIGHT=${INFLIGHT:-"1 64"}
WORKERS=${WORKERS:-2}
THREADS=${THREADS:-}
SCENARIOS=${SCENARIOS-"modern-call legacy-call legacy-stateless modern-list mrtr"}
STDIO_SCENARIOS=${STDIO_SCENARIOS-"modern-call modern-list"}
SERVERS=${SERVERS-"fastmcp rmcp bare"} # empty: only EXTRA
EXTRA=${EXTRA:-}
RATES=${RATES-"0.25 0.5"}
SESSIONS=${SESSIONS:-10000}
SHIPPED_ROUNDS=${SHIPPED_ROUNDS:-0}
SHIPPED_DURATION=${SHIPPED_DURATION:-2}
PROFILE=${PROFILE:-release}
RAW=${RAW:-target/load-raw.txt}

for s in $SCENARIOS; do has "$s" "$ALL_SCENARIOS" || die "SCENARIOS: unknown scenario $s ($ALL_SCENARIOS)"; done
for s in $STDIO_SCENARIOS; do
    has "$s" "$ALL_STDIO_SCENARIOS" || die "STDIO_SCENARIOS: unknown scenario $s ($ALL_STDIO_SCENARIOS)"
done
has "$PROFILE" "release debug" || die "PROFILE must be release or debug"
for f in $RATES; do [[ $f =~ ^(0?\.[0-9]+|1(\.0*)?)$ ]] || die "RATES: $f is not a fraction in (0, 1]"; done

BIN_DIR=${BIN_DIR:-}
if [[ -n $BIN_DIR ]]; then
    [[ $BIN_DIR == /* ]] || BIN_DIR=$START_DIR/$BIN_DIR
    [[ -x $BIN_DIR/load ]] || die "BIN_DIR: $BIN_DIR/load is not an executable"
fi
B=${BIN_DIR:-target/$PROFILE}
BUILT="a $PROFILE build"
[[ -z $BIN_DIR ]] || BUILT="the binaries in $BIN_DIR"
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
    [[ -z $BIN_DIR || -x $B/${imp}_server ]] || die "BIN_DIR: no $B/${imp}_server (SERVERS names the servers to run)"
    add_server "$imp" "$B/${imp}_server"
done
for spec in $EXTRA; do
    name=${spec%%=*} path=${spec#*=}
    [[ $spec == *=* && $name =~ ^[A-Za-z0-9_-]+$ ]] || die "EXTRA: expected NAME=PATH, not $spec"
    ! has "$name" "fastmcp rmcp bare" || die "EXTRA: $name names a built-in server; pick another name"
    [[ $path == /* ]] || path=$START_DIR/$path
    [[ -x $path ]] || die "EXTRA: $path is not an executable"
    [[ $path != *[[:space:]]* ]] || die "EXTRA: $path has a space (stdio cells split the command on spaces)"
    add_server "$name" "$path"
done
((${#IMPLS[@]})) || die "no servers: SERVERS and EXTRA are empty"

if ((CHECK)); then
    echo "run.sh: correctness check ($BUILT, $DURATION s per run)" >&2
fi
if [[ -n $BIN_DIR ]]; then
    echo "run.sh: $BUILT, as they are (nothing built)" >&2
elif [[ $PROFILE == release ]]; then
    cargo build --release --quiet --bins
else
    cargo build --quiet --bins
fi
T_BUILT=$SECONDS
mkdir -p "$(dirname "$RAW")"

# machine: what the figures were measured on, as one comment line (the summary reads only lines with a server).
# In a KVM guest, how long an idle vCPU polls before it halts (`guest_halt_poll_ns`, the kernel's default
# 200000) decides the one-in-flight cells: with 0, every wait halts the vCPU, and each request pays the wake-up.
machine() {
    local cpu idle poll
    cpu=$(sed -n '/^model name/{s/^model name[[:space:]]*: //;p;q}' /proc/cpuinfo)
    idle=$(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null || echo none)
    poll=$(cat /sys/module/haltpoll/parameters/guest_halt_poll_ns 2>/dev/null || echo -)
    echo "# machine: ${cpu:-unknown CPU}, $(nproc) cores, Linux $(uname -r), cpuidle $idle, guest_halt_poll_ns $poll"
}
machine | tee "$RAW"

server_env

SERVER_PIDS=()
stop_servers() {
    local pid
    for pid in "${SERVER_PIDS[@]}"; do
        kill -TERM "$pid" 2>/dev/null || true
    done
    for pid in "${SERVER_PIDS[@]}"; do
        # fastmcp and rmcp shut down gracefully on SIGTERM, the floor at once; give them 3 s, then SIGKILL.
        for _ in $(seq 30); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    SERVER_PIDS=()
}
trap stop_servers EXIT INT TERM

vmhwm_kb() { awk '/^VmHWM:/ { print $2 }' "/proc/$1/status"; }

# http_cell TCP SCENARIO CONNS ROUNDS DURATION [OFFERED RATE]: fresh servers (each of IMPLS that serves
# SCENARIO) on free loopback ports, ROUNDS rounds against each (the order rotated by one every round; an
# MRTR round is made just after plain calls to the same server, see below), then each one's peak RSS. With
# OFFERED (a fraction, the lines' label) and RATE (requests a second): open loop, every server but rmcp
# offered RATE (see rate_cells).
http_cell() {
    local tcp=$1 scenario=$2 conns=$3 rounds=$4 duration=$5 offered=${6:-} rate=${7:-}
    local quick=() threads=() impls=() open=() imp flags
    flags=$(mode_flags "$scenario")
    [[ $tcp == quickack ]] && quick=(--quickack)
    if [[ -n $THREADS ]]; then threads=(--threads "$THREADS"); fi
    [[ -n $offered ]] && open=(--rate "$rate" offered="$offered" rate="$rate")
    for imp in "${IMPLS[@]}"; do
        [[ -n $offered && $imp == rmcp ]] && continue
        if serves "$imp" "$scenario"; then impls+=("$imp"); fi
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
        # shellcheck disable=SC2086 # $flags is zero or one word
        "${BIN[$imp]}" --port "${port[$imp]}" --workers "$WORKERS" $flags &
        pid[$imp]=$!
        SERVER_PIDS+=("${pid[$imp]}")
    done
    for imp in "${impls[@]}"; do "$B/load" wait "127.0.0.1:${port[$imp]}"; done
    # The MRTR flow is read against plain calls: each of its rounds follows a modern-call run on the same
    # server, labelled beside=mrtr (the modern-call cell ran minutes before; see summary.rs, `flow_cost`).
    local runs=("$scenario") label round run
    [[ $scenario == mrtr ]] && runs=(modern-call mrtr)
    for round in $(seq "$rounds"); do
        for i in $(seq 0 $((n - 1))); do
            imp=${impls[$(((round - 1 + i) % n))]}
            for run in "${runs[@]}"; do
                label=()
                [[ $run == "$scenario" ]] || label=(beside="$scenario")
                "$B/load" run --addr "127.0.0.1:${port[$imp]}" --pid "${pid[$imp]}" --scenario "$run" \
                    --conns "$conns" --warmup "$WARMUP" --duration "$duration" "${quick[@]}" "${threads[@]}" \
                    "${open[@]}" "${label[@]}" transport=http tcp="$tcp" scenario="$run" level="$conns" impl="$imp" \
                    round="$round" | tee -a "$RAW"
            done
        done
    done
    for imp in "${impls[@]}"; do
        echo "kind=rss transport=http tcp=$tcp scenario=$scenario level=$conns ${offered:+offered=$offered }impl=$imp vmhwm_kb=$(vmhwm_kb "${pid[$imp]}")" |
            tee -a "$RAW"
    done
    stop_servers
}

# rate_cells: HTTP modern-call at the largest C again, open loop, once for each fraction in RATES of the
# slowest closed-loop req/s there among the servers but rmcp, all of them offered that rate: p99 at one load,
# where the closed loop compares each server at the rate it draws (README.md, "Latency at one load"). rmcp
# sits out: at a quarter of the others' rate, a fraction of theirs would overload it.
rate_cells() {
    local level=0 slowest= imp rps frac c rate
    for c in $CONNS; do if ((c > level)); then level=$c; fi; done
    has modern-call "$SCENARIOS" && [[ -n $RATES ]] || return 0
    for imp in "${IMPLS[@]}"; do
        [[ $imp == rmcp ]] && continue
        rps=$("$B/load" rps "$RAW" transport=http tcp=quickack scenario=modern-call level="$level" impl="$imp")
        if [[ -z $slowest ]] || ((rps < slowest)); then slowest=$rps; fi
    done
    [[ -n $slowest ]] || return 0
    for frac in $RATES; do
        rate=$(awk "BEGIN { printf \"%d\", $frac * $slowest }")
        ((rate > 0)) || die "RATES: $frac of $slowest req/s is no rate"
        http_cell quickack modern-call "$level" "$ROUNDS" "$DURATION" "$frac" "$rate"
    done
}

# stdio_cell SCENARIO INFLIGHT: ROUNDS rounds, each server once a round (rotated), each run a fresh child of
# the load generator, which reads its CPU and peak RSS.
stdio_cell() {
    local scenario=$1 inflight=$2 impls=() imp round i
    for imp in "${IMPLS[@]}"; do
        if serves "$imp" "$scenario"; then impls+=("$imp"); fi
    done
    local n=${#impls[@]}
    ((n)) || return 0
    for round in $(seq "$ROUNDS"); do
        for i in $(seq 0 $((n - 1))); do
            imp=${impls[$(((round - 1 + i) % n))]}
            "$B/load" run --stdio --server-cmd "${BIN[$imp]} --stdio --workers $WORKERS" --scenario "$scenario" \
                --inflight "$inflight" --warmup "$WARMUP" --duration "$DURATION" \
                transport=stdio scenario="$scenario" level="$inflight" impl="$imp" round="$round" | tee -a "$RAW"
        done
    done
}

# sessions_cell IMPL: a fresh server in session mode, SESSIONS idle legacy sessions, its RSS per session.
sessions_cell() {
    local imp=$1 port pid limits=()
    # fastmcp builds (not rmcp, which has no session limit) get room for them all from one client address.
    [[ $imp == rmcp ]] || limits=(--max-sessions $((SESSIONS + 1000)) --max-sessions-per-client $((SESSIONS + 1000)))
    port=$("$B/load" ports 1)
    "${BIN[$imp]}" --port "$port" --workers "$WORKERS" "${limits[@]}" &
    pid=$!
    SERVER_PIDS+=("$pid")
    "$B/load" wait "127.0.0.1:$port"
    "$B/load" sessions --addr "127.0.0.1:$port" --pid "$pid" --count "$SESSIONS" impl="$imp" | tee -a "$RAW"
    stop_servers
}

# http_suite TCP ROUNDS DURATION: every selected HTTP cell.
http_suite() {
    local tcp=$1 rounds=$2 duration=$3 conns scenario
    for conns in $CONNS; do
        for scenario in $ALL_SCENARIOS; do
            has "$scenario" "$SCENARIOS" || continue
            http_cell "$tcp" "$scenario" "$conns" "$rounds" "$duration"
        done
    done
}

http_suite quickack "$ROUNDS" "$DURATION"
rate_cells
for inflight in $INFLIGHT; do
    for scenario in $STDIO_SCENARIOS; do
        stdio_cell "$scenario" "$inflight"
    done
done
if ((SESSIONS > 0)); then
    for imp in "${IMPLS[@]}"; do
        [[ $imp == bare ]] || sessions_cell "$imp"
    done
fi
if ((SHIPPED_ROUNDS > 0)); then
    http_suite default "$SHIPPED_ROUNDS" "$SHIPPED_DURATION"
fi

echo
head -n 1 "$RAW"
echo
if ((CHECK)); then
    # The figures of a check mean nothing (a debug build, runs of a fraction of a second): only the cells.
    echo "## Every cell checked (figures from $BUILT over $DURATION s runs: not measurements)"
    echo
    "$B/load" summarize "$RAW" tcp=quickack --main
else
    echo "## HTTP (client acknowledges at once, TCP_QUICKACK) and stdio, median of $ROUNDS round(s)"
    echo
    "$B/load" summarize "$RAW" tcp=quickack
fi
if ((SHIPPED_ROUNDS > 0)); then
    echo
    echo "## HTTP with default TCP (delayed ACKs), the servers as shipped: what a client sees, $SHIPPED_ROUNDS round(s)"
    echo
    "$B/load" summarize "$RAW" tcp=default transport=http --main
fi
echo
[[ $RAW == /* ]] && raw_shown=$RAW || raw_shown=bench/load/$RAW
built="$((T_BUILT - T0)) s to build ($PROFILE), "
[[ -z $BIN_DIR ]] || built=
echo "raw lines: $raw_shown; $((SECONDS - T0)) s in all: $built$((SECONDS - T_BUILT)) s of runs"
if ((CHECK)); then
    "$B/load" check "$RAW"
fi
