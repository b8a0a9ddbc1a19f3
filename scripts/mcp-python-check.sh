#!/usr/bin/env bash
# Checks the MCP server with the official Python SDK (PyPI `mcp`, pinned): builds the debug
# binary, starts `lectern serve` on a free loopback port with a temporary data dir, creates two
# team accounts and their API keys with `lectern admin`, and runs scripts/mcp_python_check.py
# (Streamable HTTP in both protocol revisions, and `lectern mcp` over stdio). The venv lives
# under ~/.cache so repeated runs are fast.
set -euo pipefail
cd "$(dirname "$0")/.."
MCP_SDK_VERSION="2.3.0"
VENV="$HOME/.cache/lectern-mcp-python-$MCP_SDK_VERSION"
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c "import mcp" 2>/dev/null; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q "mcp==$MCP_SDK_VERSION"
fi

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
unset LECTERN_DATABASE_URL LECTERN_PUBLIC_URL LECTERN_MCP_TEST_API_KEY
"$BIN" admin create-user --username alice --email alice@example.org --name "Alice Smith" --team acme >/dev/null
"$BIN" admin create-user --username bob --email bob@example.org --name "Bob Builder" --team acme >/dev/null
ALICE_KEY="$("$BIN" admin create-api-key --username alice --label python)"
BOB_KEY="$("$BIN" admin create-api-key --username bob --label python)"

# The server prints its bound address; a fifo lets us read it without a sleep.
mkfifo "$DATA/out"
"$BIN" serve --listen 127.0.0.1:0 >"$DATA/out" 2>"$DATA/server.log" &
SERVER_PID=$!
exec 3<"$DATA/out"
BASE=""
while read -r line <&3; do
  case "$line" in
    "lectern: listening on "*) BASE="$(echo "$line" | awk '{print $4}')"; break ;;
  esac
done
# Keep draining the server's stdout so it never blocks.
cat <&3 >/dev/null &
[ -n "$BASE" ] || { echo "the server did not start:"; cat "$DATA/server.log"; exit 1; }
echo "== MCP Python SDK $MCP_SDK_VERSION against $BASE/mcp =="
"$VENV/bin/python" scripts/mcp_python_check.py "$BASE" "$BIN" "$DATA" "$ALICE_KEY" "$BOB_KEY"
