#!/usr/bin/env bash
# The whole test suite on a fresh Debian machine: install what is missing, build, run every test
# (labels: unit, loader, validation, cli) through ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh build
ctest --test-dir build --output-on-failure -j"$(nproc)" "$@"
