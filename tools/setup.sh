#!/usr/bin/env bash
# Installs the Debian packages contactlab needs (only those missing) and builds it into build/.
# Usage: [CONTACTLAB_PEERS=1] tools/setup.sh [build-dir]   (default: build; CMAKE_BUILD_TYPE
# defaults to Release; CONTACTLAB_PEERS=1 also installs the benchmark peers libccd, FCL, Bullet)
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${1:-build}"

packages=(
  build-essential cmake g++ pkg-config
  libboost-dev libeigen3-dev libyaml-cpp-dev catch2 libsundials-dev
  libcli11-dev nlohmann-json3-dev libbenchmark-dev libqhull-dev libtinyobjloader-dev
  python3 python3-matplotlib libsuitesparse-dev
)
# The peers the benchmarks compare against (tools/bench): optional, CONTACTLAB_PEERS=1 adds them.
if [ "${CONTACTLAB_PEERS:-0}" = "1" ]; then
  packages+=(libccd-dev libfcl-dev libbullet-dev libmujoco-dev)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE="${CMAKE_BUILD_TYPE:-Release}"
cmake --build "$build_dir" -j"$(nproc)"
