#!/usr/bin/env bash
# Shows that the work tree gives the same answers as BASE (a commit that has tools/regress): every
# narrow-phase plugin's answers on the benchmark's pose sets (narrow_phase_answers) and every
# shipped experiment's output (scene_answers.sh), compared bit for bit by compare_answers.py (pass
# --tolerance to allow a relative difference). BASE is built in a worktree under /tmp (kept, so a
# second check reuses it); the work tree's build is BUILD_DIR (default build).
# Usage: tools/regress/check_unchanged.sh BASE [BUILD_DIR] [--tolerance 1e-15]
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
base=$(git rev-parse --verify "$1^{commit}")
shift
build_dir=build
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then build_dir=$1; shift; fi
unset CONTACTLAB_PLUGIN_PATH
targets=(contactlab contactlab_plugins narrow_phase_answers)

out=/tmp/contactlab-answers
base_dump=$out/base-${base:0:12}
mkdir -p "$out"
# Benchmarks on: a build folder configured by tools/main.sh has them off (narrow_phase_answers).
build() { cmake -S "$1" -B "$2" -DCMAKE_BUILD_TYPE=Release -DCONTACTLAB_BUILD_BENCHMARKS=ON >/dev/null &&
          cmake --build "$2" -j"$(nproc)" --target "${targets[@]}" >/dev/null; }
# The base's answers are made once (in a worktree under /tmp) and kept.
if [ ! -f "$base_dump.txt.gz" ] || [ ! -d "$base_dump-scenes/answers" ]; then
  base_tree=/tmp/contactlab-base-${base:0:12}
  [ -d "$base_tree" ] || git worktree add --detach "$base_tree" "$base" >/dev/null
  [ -f "$base_tree/tools/regress/narrow_phase_answers.cpp" ] ||
    { echo "check_unchanged: $base has no tools/regress" >&2; exit 2; }
  build "$base_tree" "$base_tree/build"
  "$base_tree/build/bin/narrow_phase_answers" | gzip -1 > "$base_dump.txt.gz"
  "$base_tree/tools/regress/scene_answers.sh" "$base_tree/build" "$base_dump-scenes"
fi
build "$root" "$root/$build_dir"
# The work tree's answers, named after its build folder (several trees may check at once).
new=$out/new-$(realpath "$root/$build_dir" | md5sum | cut -c1-8)
"$root/$build_dir/bin/narrow_phase_answers" | gzip -1 > "$new.txt.gz"
tools/regress/scene_answers.sh "$root/$build_dir" "$new-scenes"

status=0
echo "narrow phase:"
tools/regress/compare_answers.py "$base_dump.txt.gz" "$new.txt.gz" "$@" || status=1
echo "scenes:"
tools/regress/compare_answers.py "$base_dump-scenes/answers" "$new-scenes/answers" \
  "$@" || status=1
for f in "$base_dump-scenes/failures.txt" "$new-scenes/failures.txt"; do
  [ -f "$f" ] && { echo "runs that failed ($f):"; cat "$f"; status=1; }
done
exit $status
