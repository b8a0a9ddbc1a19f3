#!/usr/bin/env bash
# Checks the MCP server with the official TypeScript SDK (npm `@modelcontextprotocol/sdk`, pinned
# in scripts/mcp-ts/package.json): installs it with `npm ci`, builds the debug binary (or uses
# $LECTERN_BIN), starts `lectern serve` on a free loopback port with a temporary data dir, creates
# two team accounts and their API keys with `lectern admin`, and runs scripts/mcp-ts/check.mjs,
# which calls every tool once with good and once with bad input (results vs. output schemas).
set -euo pipefail
cd "$(dirname "$0")/.."
STARTED=$SECONDS
TS_DIR=scripts/mcp-ts
MCP_SDK_VERSION="$(node -p 'require("./'"$TS_DIR"'/package.json").dependencies["@modelcontextprotocol/sdk"]')"
INSTALLED="$(node -p 'try { require("./'"$TS_DIR"'/node_modules/@modelcontextprotocol/sdk/package.json").version } catch { "" }')"
if [ "$INSTALLED" != "$MCP_SDK_VERSION" ]; then
  (cd "$TS_DIR" && npm ci --no-audit --no-fund --loglevel=error)
fi

. scripts/lib-server.sh
"$BIN" admin create-user --username alice --email alice@example.org --name "Alice Smith" --team acme >/dev/null
"$BIN" admin create-user --username bob --email bob@example.org --name "Bob Builder" --team acme >/dev/null
ALICE_KEY="$("$BIN" admin create-api-key --username alice --label typescript)"
BOB_KEY="$("$BIN" admin create-api-key --username bob --label typescript)"

start_server
echo "== MCP TypeScript SDK $MCP_SDK_VERSION against $BASE/mcp =="
STATUS=0
node "$TS_DIR/check.mjs" "$BASE" "$ALICE_KEY" "$BOB_KEY" || STATUS=$?
if [ "$STATUS" -ne 0 ]; then
  echo "-- server log (last 40 lines) --"
  tail -n 40 "$DATA/server.log"
fi
echo "mcp-typescript-check: $((SECONDS - STARTED)) s"
exit "$STATUS"
