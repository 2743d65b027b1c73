#!/usr/bin/env bash
# fastmcp tried as a new user would: in a fresh directory outside this workspace, `cargo new` a crate, run
# the `cargo add` lines of the README's "Add it to your project", copy in examples/template's sources, build
# it, drive the binary with the MCP Inspector CLI (from npm) in both protocol eras, then add the client as a
# dev-dependency and run the template's own tests and clippy. Needs cargo, Node.js and npx; the first run
# fetches the Inspector and the crates. Exits non-zero, saying what failed, at the first failure.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
template=$root/examples/template
# The newest Inspector (its `latest`): it declares Node >= 22.19 and CI runs it on Node 22, but it also runs
# on Node 20. Its CLI speaks both eras (`--protocol-era legacy|modern`) and answers no elicitation.
inspector=@modelcontextprotocol/inspector@2.12.0

step() { printf '\n== template check: %s\n' "$*"; }
fail() {
  printf '\ntemplate check FAILED: %s\n' "$*" >&2
  exit 1
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/fastmcp-template-check.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
case "$tmp/" in "$root"/*) fail "the temporary directory $tmp is inside the checkout: set TMPDIR elsewhere" ;; esac
# Nothing built before is reused: the crate's own target directory, in the temporary directory.
export CARGO_TARGET_DIR=$tmp/target

step "the template is formatted as the repository formats (rustfmt.toml)"
rustfmt --edition 2024 --check "$template"/src/*.rs "$template"/tests/*.rs ||
  fail "examples/template is not formatted: run cargo fmt in examples/template"

step "the cargo add lines of README.md's \"## Add it to your project\""
section=$(sed -n '/^## Add it to your project$/,/^## /p' "$root/README.md")
[ -n "$section" ] || fail "README.md has no \"## Add it to your project\" section"
mapfile -t adds < <(printf '%s\n' "$section" | sed -n 's/^\(cargo add [^#]*[^# ]\).*$/\1/p')
[ "${#adds[@]}" -gt 0 ] || fail "no cargo add line in README.md's \"Add it to your project\""
printf '  %s\n' "${adds[@]}"
printf '%s\n' "${adds[@]}" | grep -Eq '^cargo add fast-mcp( |$)' ||
  fail "README.md's \"Add it to your project\" has no \`cargo add fast-mcp\`"

step "cargo new --bin my-mcp-server (in $tmp)"
(cd "$tmp" && cargo new --quiet --bin --vcs none my-mcp-server) || fail "cargo new failed"
crate=$tmp/my-mcp-server
cd "$crate"

# Runs a README `cargo add` line. fast-mcp is not on crates.io yet, so a line that adds it gets
# `--path <checkout>/fastmcp`: the same package from this checkout (once published, the line runs as written).
run_add() {
  local words
  read -ra words <<<"$1"
  if [[ " ${words[*]} " == *" fast-mcp "* ]]; then
    words+=(--path "$root/fastmcp")
  fi
  echo "\$ ${words[*]}"
  "${words[@]}" || fail "\`$1\` failed"
}

step "the README's cargo add lines, in the new crate"
dev_line=
for line in "${adds[@]}"; do
  if [[ " $line " == *" --dev "* ]]; then
    dev_line=$line # the client, for the tests: added after the Inspector has driven the plain build
  else
    run_add "$line"
  fi
done
cat Cargo.toml

step "copy examples/template/src/ (main.rs, lib.rs) in and build"
cp -R "$template/src/." src/
cargo build || fail "the new crate does not build with the README's dependencies"
bin=$CARGO_TARGET_DIR/debug/my-mcp-server
[ -x "$bin" ] || fail "no binary at $bin"

step "the MCP Inspector CLI ($inspector, Node.js $(node --version)) drives $bin"
out=$tmp/inspector.out
err=$tmp/inspector.err
# inspect <era> <exit status expected> <Inspector arguments…>: the Inspector's JSON (-q: the result on
# stdout, an error envelope on stderr) in $out and $err, each printed.
inspect() {
  local era=$1 want=$2 rc=0
  shift 2
  echo "\$ npx -y $inspector --cli <binary> --protocol-era $era $*"
  npx -y "$inspector" --cli "$bin" --protocol-era "$era" --format json -q "$@" >"$out" 2>"$err" || rc=$?
  [ -s "$out" ] && echo "  stdout: $(cat "$out")"
  [ -s "$err" ] && echo "  stderr: $(cat "$err")"
  [ "$rc" -eq "$want" ] || fail "the Inspector exited with $rc, not $want ($era: $*)"
}
# expect <file> <JS expression over `out`, the file's JSON> <the value it must equal, as JSON>
expect() {
  node -e '
    const [file, expr, want] = process.argv.slice(1);
    const got = Function("out", `return ${expr}`)(JSON.parse(require("fs").readFileSync(file, "utf8")));
    try { require("assert").deepStrictEqual(got, JSON.parse(want)); } catch {
      console.error(`  ${expr} is ${JSON.stringify(got)}, not ${want}`);
      process.exit(1);
    }
  ' "$1" "$2" "$3" || fail "the Inspector's output is not what the template serves"
}

for era in legacy modern; do
  inspect "$era" 0 --method tools/list
  expect "$out" 'out.result.tools.map(t => t.name)' '["add", "delete_note"]'

  inspect "$era" 0 --method tools/call --tool-name add --tool-arg a=2 b=40
  expect "$out" 'out.result.content' '[{"type": "text", "text": "{\"sum\":42}"}]'
  expect "$out" 'out.result.structuredContent' '{"sum": 42}'

  inspect "$era" 0 --method resources/read --uri my-mcp-server://about
  expect "$out" 'out.result.contents.map(c => [c.uri, c.mimeType, c.text])' \
    '[["my-mcp-server://about", "text/plain", "my-mcp-server: a fastmcp server made from its template."]]'
done

# The .ask() tool: the Inspector CLI declares no elicitation capability, so the server can't ask it. A
# legacy session gets a tool error saying so (exit status 5, the Inspector's "tool returned isError"); a
# modern request gets a JSON-RPC error saying so (exit status 1).
json_string() { node -e 'console.log(JSON.stringify(process.argv[1]))' "$1"; }
refused="Cannot request input 'ask1' (elicitation/create): the"
undeclared="client capabilities do not declare the required capability"
inspect legacy 5 --method tools/call --tool-name delete_note --tool-arg title=groceries
expect "$out" 'out.result.isError' 'true'
legacy_text="'tools/call' asked the client for input, which failed: $refused session's $undeclared"
expect "$out" 'out.result.content' "[{\"type\": \"text\", \"text\": $(json_string "$legacy_text")}]"
inspect modern 1 --method tools/call --tool-name delete_note --tool-arg title=groceries
expect "$err" 'out.error.message' "$(json_string "$refused request's $undeclared")"

step "the template's tests: the client as a dev-dependency, then cargo test"
[ -n "$dev_line" ] || fail "README.md's \"Add it to your project\" has no \`cargo add --dev\` line for the client"
run_add "$dev_line"
mkdir -p tests
cp "$template"/tests/*.rs tests/
cargo test || fail "the template's tests fail"

step "clippy, warnings denied"
cargo clippy --all-targets -- -D warnings || fail "clippy finds fault with the template"

printf '\n== template check: passed in %d s\n' "$SECONDS"
