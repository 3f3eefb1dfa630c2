#!/usr/bin/env bash
# The main job on a fresh Debian machine: install what the CLI and the plugins need (only what is
# missing), build them alone (no tests, no benchmarks: tools/test.sh builds those in the same
# build/), run the default experiment (configs/bouncing_ball.yaml) into runs/.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh main build
build/bin/contactlab run configs/bouncing_ball.yaml "$@"
