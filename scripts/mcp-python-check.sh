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

. scripts/lib-server.sh
"$BIN" admin create-user --username alice --email alice@example.org --name "Alice Smith" --team acme >/dev/null
"$BIN" admin create-user --username bob --email bob@example.org --name "Bob Builder" --team acme >/dev/null
ALICE_KEY="$("$BIN" admin create-api-key --username alice --label python)"
BOB_KEY="$("$BIN" admin create-api-key --username bob --label python)"

start_server
echo "== MCP Python SDK $MCP_SDK_VERSION against $BASE/mcp =="
"$VENV/bin/python" scripts/mcp_python_check.py "$BASE" "$BIN" "$DATA" "$ALICE_KEY" "$BOB_KEY"
