#!/usr/bin/env bash
# The whole test suite on a fresh Debian machine: install what is missing (the main job's packages
# and those of the tests and benchmarks), build everything in build/, run every test (labels:
# unit, loader, validation, cli, conformance, install) through ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh test build
ctest --test-dir build --output-on-failure -j"$(nproc)" "$@"
