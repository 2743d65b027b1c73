#!/usr/bin/env bash
# How much code one cell's request runs: the server under callgrind for one load run (in run.sh's
# environment, `server_env`), then `load footprint` on the dump (instructions a request, the request's hot
# code in 64-byte lines and 4 KiB pages, the functions holding most of it). See README.md, "Where the CPU
# goes".
#
#   bench/load/footprint.sh SERVER [TRANSPORT] [SCENARIO] [LEVEL]
#
# SERVER: fastmcp, rmcp, bare, or the path of a server binary taking the same arguments (another
# fastmcp_server build); TRANSPORT: http (default) or stdio; SCENARIO: modern-call (default), as run.sh
# names them; LEVEL: connections over HTTP, requests in flight over stdio (1). Knobs: DURATION (3 s of
# load), TOP (25 functions listed), WORKERS (2, as run.sh). Needs valgrind. The whole run is counted,
# start-up included: about 2M instructions, under 1 % of a request's share at the default duration.
set -euo pipefail
cd "$(dirname "$0")"

SERVER=${1:?usage: footprint.sh SERVER [TRANSPORT] [SCENARIO] [LEVEL]}
TRANSPORT=${2:-http}
SCENARIO=${3:-modern-call}
LEVEL=${4:-1}
DURATION=${DURATION:-3}
TOP=${TOP:-25}

# shellcheck source=scenarios.sh
source scenarios.sh
has "$SCENARIO" "$ALL_SCENARIOS" || { echo "footprint.sh: unknown scenario $SCENARIO ($ALL_SCENARIOS)" >&2; exit 2; }
serves "$SERVER" "$SCENARIO" || { echo "footprint.sh: $SERVER does not serve $SCENARIO" >&2; exit 2; }
server_env

cargo build --release --quiet --bins
B=target/release
case $SERVER in
    fastmcp | rmcp | bare) BIN=$B/${SERVER}_server ;;
    *) BIN=$(realpath "$SERVER") ;;
esac
read -ra FLAGS <<<"--workers ${WORKERS:-2} $(mode_flags "$SCENARIO")"

DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
OUT=$DIR/callgrind.out
CG="valgrind --tool=callgrind --dump-instr=yes --compress-pos=no --compress-strings=no --callgrind-out-file=$OUT"

case $TRANSPORT in
    http)
        PORT=$($B/load ports 1)
        $CG "$BIN" --port "$PORT" "${FLAGS[@]}" 2>/dev/null &
        PID=$!
        $B/load wait "127.0.0.1:$PORT"
        LINE=$($B/load run --addr "127.0.0.1:$PORT" --scenario "$SCENARIO" --conns "$LEVEL" --warmup 0 \
            --duration "$DURATION" --quickack)
        kill "$PID"
        wait "$PID" || true
        ;;
    stdio)
        LINE=$($B/load run --stdio --server-cmd "$CG $BIN --stdio ${FLAGS[*]}" --scenario "$SCENARIO" \
            --inflight "$LEVEL" --warmup 0 --duration "$DURATION" 2>/dev/null)
        ;;
    *)
        echo "footprint.sh: TRANSPORT is http or stdio, not $TRANSPORT" >&2
        exit 2
        ;;
esac

OK=$(tr ' ' '\n' <<<"$LINE" | sed -n 's/^ok=//p')
ERRORS=$(tr ' ' '\n' <<<"$LINE" | sed -n 's/^errors=//p')
if [[ -z $OK || $OK == 0 || $ERRORS != 0 ]]; then
    echo "footprint.sh: the load run failed: $LINE" >&2
    exit 1
fi
# stdio: the child has exited, but its dump may still be being written.
for _ in $(seq 50); do [[ -s $OUT ]] && break; sleep 0.1; done
echo "server=$SERVER transport=$TRANSPORT scenario=$SCENARIO level=$LEVEL"
$B/load footprint "$OUT" --requests "$OK" --top "$TOP"
