#!/usr/bin/env bash
# The main job on a fresh Debian machine: install what is missing, build, run the default
# experiment (configs/bouncing_ball.yaml) into runs/.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh build
build/bin/contactlab run configs/bouncing_ball.yaml "$@"
