# What the bench's scripts share about its scenarios and servers (sourced by run.sh, pgo.sh and footprint.sh).

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
