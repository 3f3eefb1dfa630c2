#!/usr/bin/env bash
# AddressSanitizer and UndefinedBehaviorSanitizer: builds contactlab with both in its own folder
# (default build-sanitize/, apart from build/) and runs the unit, loader, conformance and
# validation labels there. Any report fails the run (-fno-sanitize-recover; ASan aborts on its
# first error). Run it before resolving an issue.
# Usage: tools/sanitize.sh [build-dir] [ctest arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${1:-build-sanitize}"
shift $(( $# > 0 ? 1 : 0 ))
tools/setup.sh packages
flags="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g"
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCONTACTLAB_BUILD_TESTS=ON \
  -DCONTACTLAB_BUILD_BENCHMARKS=OFF -DCMAKE_CXX_FLAGS="$flags" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
  -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" \
  -DCMAKE_MODULE_LINKER_FLAGS="-fsanitize=address,undefined"
cmake --build "$build_dir" -j"$(nproc)"
# Plugins are never unloaded (leaks of their static objects are not ours to report); a report
# prints its stack and fails the test.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
ctest --test-dir "$build_dir" --output-on-failure -j"$(nproc)" -L "unit|loader|conformance|validation" "$@"
