# Sourced by the MCP check scripts: the debug binary as $BIN (built, or $LECTERN_BIN when that
# names one), a temporary data dir as $DATA and $LECTERN_DATA_DIR (removed on exit with the
# server), and `start_server [VAR=value ...]`, which starts `lectern serve` on a free loopback
# port with those variables set and sets $BASE to its URL (read from its first line of output
# through a fifo, without a sleep). The server's log is $DATA/server.log.

if [ -n "${LECTERN_BIN:-}" ] && [ -x "$LECTERN_BIN" ]; then
  BIN="$(cd "$(dirname "$LECTERN_BIN")" && pwd)/$(basename "$LECTERN_BIN")"
else
  cargo build --locked --bin lectern -q
  BIN="$(cd "${CARGO_TARGET_DIR:-target}/debug" && pwd)/lectern"
fi

DATA="$(mktemp -d)"
SERVER_PID=""
stop_server() {
  if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
  rm -rf "$DATA"
}
trap stop_server EXIT
export LECTERN_DATA_DIR="$DATA"
unset LECTERN_DATABASE_URL LECTERN_PUBLIC_URL LECTERN_MCP_TEST_API_KEY

start_server() {
  mkfifo "$DATA/out"
  env "$@" "$BIN" serve --listen 127.0.0.1:0 >"$DATA/out" 2>"$DATA/server.log" &
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
}
