#!/usr/bin/env bash
# Installs the Debian packages contactlab needs (only those missing) and builds it into build/.
# Usage: [CONTACTLAB_PEERS=1] tools/setup.sh main|test [build-dir]   (default build-dir: build;
# CMAKE_BUILD_TYPE defaults to Release)
#   main  the CLI and the plugins only (tools/main.sh): a newcomer's first run builds nothing else
#   test  also the tests and benchmarks (tools/test.sh), and the packages they need: Catch2,
#         Google Benchmark, matplotlib for the plot tests; CONTACTLAB_PEERS=1 adds the benchmark
#         peers libccd, FCL, Bullet, MuJoCo, Siconos Numerics
#   packages  the packages of `test`, and no build (tools/sanitize.sh)
# Both use one build folder in either order: `main` keeps the folder's test and benchmark options
# as they are (off when it configures a fresh folder) and builds only its own targets; `test`
# turns them on.
set -euo pipefail
cd "$(dirname "$0")/.."
what="${1:-}"
build_dir="${2:-build}"
case "$what" in
  main | test | packages) ;;
  *) echo "usage: tools/setup.sh main|test|packages [build-dir]" >&2; exit 2 ;;
esac

# What the CLI and every plugin need (libsundials-dev and libsuitesparse-dev: the cvode/arkode
# integrators and their KLU linear solver).
packages=(
  build-essential cmake g++
  libboost-dev libeigen3-dev libyaml-cpp-dev libsundials-dev libsuitesparse-dev
  libcli11-dev nlohmann-json3-dev libqhull-dev libtinyobjloader-dev
)
# Node.js and npm build the replay page's script (three.js from the npm registry, pinned by
# core/app/replay/package-lock.json). A machine may already have a Node.js with its own npm (from
# NodeSource, say, which conflicts with Debian's npm package): then it is used as it is.
command -v npm > /dev/null 2>&1 || packages+=(nodejs npm)
if [ "$what" != main ]; then
  packages+=(catch2 libbenchmark-dev python3 python3-matplotlib pkg-config)
  # The Python module and its tests (pybind11, numpy, pytest), the ParaView export's reader test
  # (VTK's Python bindings), the replay page's browser test (chromium, driven by puppeteer-core),
  # the Slurm sweep test (a one-node cluster: slurmctld, slurmd, munge).
  packages+=(python3-dev pybind11-dev python3-numpy python3-pytest python3-vtk9 chromium
    slurm-wlm munge)
  # The peers the benchmarks compare against (tools/bench): optional.
  if [ "${CONTACTLAB_PEERS:-0}" = "1" ]; then
    packages+=(libccd-dev libfcl-dev libbullet-dev libmujoco-dev libsiconos-numerics-dev)
  fi
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

# The replay page's npm packages, as the lock file pins them (`main`: three.js and the bundler
# only; the others: the browser test's puppeteer-core too). Reinstalled when the lock file changes.
replay=core/app/replay
npm_mode=()
[ "$what" = main ] && npm_mode=(--omit=dev)
stamp="$replay/node_modules/.contactlab-${what/packages/test}"
if [ ! -f "$stamp" ] || [ "$replay/package-lock.json" -nt "$stamp" ]; then
  echo "setup: npm ci in $replay ${npm_mode[*]}"
  rm -f "$replay"/node_modules/.contactlab-*
  (cd "$replay" && npm ci --no-audit --no-fund --loglevel=error "${npm_mode[@]}")
  touch "$stamp"
fi

# packages: the test packages only, no build (tools/sanitize.sh builds its own folder).
[ "$what" = packages ] && exit 0

build_type=(-DCMAKE_BUILD_TYPE="${CMAKE_BUILD_TYPE:-Release}")
if [ "$what" = main ]; then
  if [ -f "$build_dir/CMakeCache.txt" ]; then
    cmake -S . -B "$build_dir" "${build_type[@]}"
  else
    cmake -S . -B "$build_dir" "${build_type[@]}" -DCONTACTLAB_BUILD_TESTS=OFF \
      -DCONTACTLAB_BUILD_BENCHMARKS=OFF
  fi
  cmake --build "$build_dir" -j"$(nproc)" --target contactlab contactlab_plugins
else
  cmake -S . -B "$build_dir" "${build_type[@]}" -DCONTACTLAB_BUILD_TESTS=ON \
    -DCONTACTLAB_BUILD_BENCHMARKS=ON
  cmake --build "$build_dir" -j"$(nproc)"
fi
