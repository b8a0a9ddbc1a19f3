#!/usr/bin/env bash
# Runs Lectern's whole test suite: unit and property tests of every crate, and the black-box
# tests that start the real server on ephemeral ports, first on SQLite, then again on
# PostgreSQL (each test in a database of its own, dropped afterwards). The build installs
# reveal.js with `npm ci` (build.rs); the browser test uses Chromium when it is installed
# (`apt-get install chromium`; .ci/run does it). Then the MCP server is checked with the
# official Python SDK (scripts/mcp-python-check.sh; LECTERN_SKIP_MCP_PYTHON=1 skips it) and
# the MCP conformance suite (scripts/mcp-conformance.sh; LECTERN_SKIP_MCP_CONFORMANCE=1).
#
# PostgreSQL: LECTERN_TEST_POSTGRES_URL names a server and a database to connect to for
# creating the per-test databases; unset, it defaults to the local server
# (postgres://postgres@127.0.0.1:5432/test) when one answers there. Set it empty to skip.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -z "${LECTERN_TEST_POSTGRES_URL+set}" ]; then
  if (exec 3<>/dev/tcp/127.0.0.1/5432) 2>/dev/null; then
    export LECTERN_TEST_POSTGRES_URL="postgres://postgres@127.0.0.1:5432/test"
  else
    echo "note: no PostgreSQL on 127.0.0.1:5432; the PostgreSQL run is skipped" >&2
  fi
fi

cargo test --workspace --locked "$@"

if [ -n "${LECTERN_TEST_POSTGRES_URL:-}" ]; then
  echo "== the black-box tests again, on PostgreSQL =="
  LECTERN_TEST_BACKEND=postgres cargo test --locked --test api "$@"
fi

if [ "${LECTERN_SKIP_MCP_PYTHON:-}" != "1" ]; then
  echo "== the MCP server with the official Python SDK =="
  ./scripts/mcp-python-check.sh
fi

if [ "${LECTERN_SKIP_MCP_CONFORMANCE:-}" != "1" ]; then
  echo "== the MCP conformance suite against /mcp =="
  ./scripts/mcp-conformance.sh
fi
