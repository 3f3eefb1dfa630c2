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

base_tree=/tmp/contactlab-base-${base:0:12}
if [ ! -d "$base_tree" ]; then git worktree add --detach "$base_tree" "$base" >/dev/null; fi
[ -f "$base_tree/tools/regress/narrow_phase_answers.cpp" ] ||
  { echo "check_unchanged: $base has no tools/regress" >&2; exit 2; }
for tree in "$base_tree:$base_tree/build" "$root:$root/$build_dir"; do
  src=${tree%%:*}
  bin=${tree#*:}
  cmake -S "$src" -B "$bin" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$bin" -j"$(nproc)" --target "${targets[@]}" >/dev/null
done

out=/tmp/contactlab-answers
mkdir -p "$out"
if [ ! -f "$out/base-${base:0:12}.txt.gz" ]; then
  "$base_tree/build/bin/narrow_phase_answers" | gzip -1 > "$out/base-${base:0:12}.txt.gz"
  "$base_tree/tools/regress/scene_answers.sh" "$base_tree/build" "$out/base-${base:0:12}-scenes"
fi
"$root/$build_dir/bin/narrow_phase_answers" | gzip -1 > "$out/new.txt.gz"
tools/regress/scene_answers.sh "$root/$build_dir" "$out/new-scenes"

status=0
echo "narrow phase:"
tools/regress/compare_answers.py "$out/base-${base:0:12}.txt.gz" "$out/new.txt.gz" "$@" || status=1
echo "scenes:"
tools/regress/compare_answers.py "$out/base-${base:0:12}-scenes/answers" "$out/new-scenes/answers" \
  "$@" || status=1
for f in "$out/base-${base:0:12}-scenes/failures.txt" "$out/new-scenes/failures.txt"; do
  [ -f "$f" ] && { echo "runs that failed ($f):"; cat "$f"; status=1; }
done
exit $status
