#!/usr/bin/env bash
# Schema-driven fuzzing of the REST API: starts the `lectern` binary built by `cargo test`
# on a free port with a fresh data dir, validates /v1/openapi.json with
# openapi-spec-validator, then runs schemathesis against it with an API key of a team
# account. Checks: not_a_server_error, status_code_conformance, response_schema_conformance.
# Zero failures are required. Bounded by LECTERN_FUZZ_SECONDS (default 120).
#
# Python tools go into a virtualenv under $HOME/.cache (pinned versions), so a fresh machine
# needs only python3 with venv and pip.
set -euo pipefail
cd "$(dirname "$0")/.."

TARGET="${CARGO_TARGET_DIR:-target}"
BIN="$TARGET/debug/lectern"
[ -x "$BIN" ] || cargo build --locked --bin lectern
SECONDS_BUDGET="${LECTERN_FUZZ_SECONDS:-120}"

VENV="$HOME/.cache/lectern-py"
if [ ! -x "$VENV/bin/schemathesis" ] || [ ! -x "$VENV/bin/openapi-spec-validator" ]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check \
    schemathesis==4.32.5 openapi-spec-validator==0.7.2
fi

WORK="$(mktemp -d)"
SERVER_PID=""
cleanup() {
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT

export LECTERN_DATA_DIR="$WORK/data"
# Limiting would turn the fuzzer's burst into 429s; the limiter has its own tests.
export LECTERN_RATE_LIMIT=0
"$BIN" admin create-user --username fuzzer --email fuzzer@example.org --team fuzzers >/dev/null
KEY="$("$BIN" admin create-api-key --username fuzzer --label schemathesis)"
"$BIN" serve --listen 127.0.0.1:0 >"$WORK/serve.log" 2>"$WORK/serve.err" &
SERVER_PID=$!
BASE=""
for _ in $(seq 1 100); do
  BASE="$(sed -n 's/^lectern: listening on \(http:\/\/[^ ]*\).*/\1/p' "$WORK/serve.log")"
  [ -n "$BASE" ] && break
  kill -0 "$SERVER_PID" 2>/dev/null || { cat "$WORK/serve.err" >&2; exit 1; }
  sleep 0.1
done
[ -n "$BASE" ] || { echo "lectern serve did not start" >&2; exit 1; }
echo "== fuzzing $BASE for ${SECONDS_BUDGET}s =="

# A deck with a few slides, so generated ids sometimes hit real objects.
curl -sf -X POST "$BASE/v1/decks" -H "Authorization: Bearer $KEY" -H 'content-type: application/json' \
  -d '{"title":"Fuzz","visibility":"team","slides":[{"html":"<section>a</section>"},{"html":"<section>b</section>","notes":"n"}]}' >/dev/null

curl -sf "$BASE/v1/openapi.json" -o "$WORK/openapi.json"
"$VENV/bin/openapi-spec-validator" "$WORK/openapi.json"

# One worker: with two, hypothesis (inside schemathesis) parses lambdas with `ast` from two
# threads at once, which CPython 3.11 does not survive ("AST constructor recursion depth
# mismatch", seen here as a schemathesis runtime error, not a server failure).
set +e
# From the scratch dir: schemathesis and hypothesis keep caches in the working directory.
cd "$WORK"
# deck_events answers a stream that stays open (Server-Sent Events): schemathesis would wait
# for its end; tests/api/events.rs covers it.
"$VENV/bin/schemathesis" run "$BASE/v1/openapi.json" \
  --header "Authorization: Bearer $KEY" \
  --exclude-operation-id deck_events \
  --checks not_a_server_error,status_code_conformance,response_schema_conformance \
  --max-time "$SECONDS_BUDGET" \
  --request-timeout 10 \
  --workers 1 \
  --seed 20261122 \
  --generation-database none \
  --report junit --report-dir "$WORK/report"
status=$?
set -e
python3 - "$WORK/report" <<'EOF' || true
import glob, sys, xml.etree.ElementTree as ET
tests = failures = errors = 0
for f in glob.glob(sys.argv[1] + "/*.xml"):
    root = ET.parse(f).getroot()
    for s in root.iter("testsuite"):
        tests += int(s.get("tests", 0)); failures += int(s.get("failures", 0)); errors += int(s.get("errors", 0))
print(f"schemathesis: {tests} operations tested, {failures} failures, {errors} errors")
EOF
if grep -q "panicked" "$WORK/serve.err"; then
  echo "the server panicked during fuzzing:" >&2
  grep -A5 "panicked" "$WORK/serve.err" >&2
  exit 1
fi
exit $status
