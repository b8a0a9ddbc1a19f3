#!/usr/bin/env bash
# Runs Lectern's whole test suite: unit and property tests of every crate, and the black-box
# tests that start the real server on ephemeral ports, first on SQLite, then again on
# PostgreSQL (each test in a database of its own, dropped afterwards). The build installs
# reveal.js with `npm ci` (build.rs); the browser test uses Chromium when it is installed
# (`apt-get install chromium`; .ci/run does it). Then scripts/api-fuzz.sh fuzzes a running
# server from its OpenAPI document with schemathesis (Python tools in a venv under ~/.cache),
# and the MCP server is checked with the official Python SDK (scripts/mcp-python-check.sh;
# LECTERN_SKIP_MCP_PYTHON=1 skips it), the official TypeScript SDK, which checks every result
# against the tool's output schema (scripts/mcp-typescript-check.sh, every tool with good and
# bad input; LECTERN_SKIP_MCP_TYPESCRIPT=1) and the MCP conformance suite
# (scripts/mcp-conformance.sh; LECTERN_SKIP_MCP_CONFORMANCE=1).
#
# PostgreSQL: LECTERN_TEST_POSTGRES_URL names a server and a database to connect to for
# creating the per-test databases; unset, it defaults to the local server
# (postgres://postgres@127.0.0.1:5432/test) when one answers there. Set it empty to skip.
set -euo pipefail
cd "$(dirname "$0")/.."

# The deck editor's model and actions and the slide drawing's code rules in Node (no
# browser), and their linter (ESLint, pinned in package-lock.json; npm ci installs it when
# build.rs has not yet).
[ -x node_modules/.bin/eslint ] || npm ci --no-audit --no-fund
node --test assets/editor/test/ assets/slides/test/
npx --no-install eslint assets/editor assets/slides

# The PowerPoint tests read their .pptx back with python-pptx and LibreOffice Impress; the
# shared-bucket tests run moto, an S3-compatible server (python-pptx and moto in a venv under
# ~/.cache). Under CI those tests fail without them.
PY_VENV="$HOME/.cache/lectern-test-venv"
if ! "$PY_VENV/bin/python" -c "import pptx, moto.server" 2>/dev/null; then
  (python3 -m venv "$PY_VENV" \
    && "$PY_VENV/bin/pip" install -q --disable-pip-version-check python-pptx==1.0.2 'moto[server]==5.2.1') >/dev/null 2>&1 \
    || echo "note: could not install python-pptx and moto; the PowerPoint and bucket tests will fail" >&2
fi
export LECTERN_PPTX_PYTHON="$PY_VENV/bin/python"
export LECTERN_TEST_MOTO="$PY_VENV/bin/moto_server"

if [ -z "${LECTERN_TEST_POSTGRES_URL+set}" ]; then
  if (exec 3<>/dev/tcp/127.0.0.1/5432) 2>/dev/null; then
    export LECTERN_TEST_POSTGRES_URL="postgres://postgres@127.0.0.1:5432/test"
  elif [ "${CI:-}" = "true" ]; then
    echo "error: CI=true and no PostgreSQL answers on 127.0.0.1:5432; the PostgreSQL half of" >&2
    echo "the suite must run in CI (start it: pg_ctlcluster --skip-systemctl-redirect" >&2
    echo "\$(ls /etc/postgresql) main start, as .ci/run does), or set LECTERN_TEST_POSTGRES_URL" >&2
    exit 1
  else
    echo "note: no PostgreSQL on 127.0.0.1:5432; the PostgreSQL run is skipped" >&2
  fi
fi

cargo test --workspace --locked "$@"
# A second cargo command on an unchanged tree must compile nothing (build.rs watches only
# files that its own `npm ci` does not write).
if cargo test --workspace --locked --no-run 2>&1 | grep -E '^ *(Compiling|Running `.*build-script)'; then
  echo "error: a second cargo command compiled again on an unchanged tree" >&2
  exit 1
fi

if [ -n "${LECTERN_TEST_POSTGRES_URL:-}" ]; then
  echo "== the black-box tests again, on PostgreSQL =="
  LECTERN_TEST_BACKEND=postgres cargo test --locked --test api "$@"
  # A real restart of the local PostgreSQL under load, alone (it would cut off the other
  # tests' connections); needs the cluster tools and the rights to use them.
  if [ "$(id -u)" = 0 ] && command -v pg_ctlcluster >/dev/null 2>&1 && [ -d /etc/postgresql ] \
     && [[ "$LECTERN_TEST_POSTGRES_URL" == *127.0.0.1:5432* ]]; then
    echo "== a real PostgreSQL restart under load =="
    LECTERN_TEST_BACKEND=postgres \
    LECTERN_TEST_PG_RESTART="pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql | head -1) main restart" \
      cargo test --locked --test api faults::the_server_recovers_when_postgresql_restarts_under_load -- --exact
  fi
fi

echo "== schema-driven fuzzing of the running server (schemathesis) =="
./scripts/api-fuzz.sh

if [ "${LECTERN_SKIP_MCP_PYTHON:-}" != "1" ]; then
  echo "== the MCP server with the official Python SDK =="
  ./scripts/mcp-python-check.sh
fi

if [ "${LECTERN_SKIP_MCP_TYPESCRIPT:-}" != "1" ]; then
  echo "== the MCP server with the official TypeScript SDK =="
  ./scripts/mcp-typescript-check.sh
fi

if [ "${LECTERN_SKIP_MCP_CONFORMANCE:-}" != "1" ]; then
  echo "== the MCP conformance suite against /mcp =="
  ./scripts/mcp-conformance.sh
fi
