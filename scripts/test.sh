#!/usr/bin/env bash
# Runs Lectern's whole test suite: unit and property tests of every crate, and the black-box
# tests that start the real server on ephemeral ports with temporary SQLite databases.
# Everything the tests need is built by cargo; nothing else is installed yet.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --workspace --locked "$@"
