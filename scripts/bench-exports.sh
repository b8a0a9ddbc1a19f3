#!/usr/bin/env bash
# The export benchmark: Lectern's PDF export of a 50-slide deck (cold and warm) beside
# decktape 3 printing the same deck page with the same Chromium, in one run. Installs
# decktape from bench/package-lock.json (without its bundled browser) the first time.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x bench/node_modules/.bin/decktape ]; then
  PUPPETEER_SKIP_DOWNLOAD=1 npm ci --prefix bench --no-audit --no-fund
fi
cargo run --release -p lectern-bench -- export_pdf_50 --decktape "$PWD/bench/node_modules/.bin/decktape" "$@"
