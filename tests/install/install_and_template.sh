#!/usr/bin/env bash
# Install test: `cmake --install` into a prefix, move the prefix (installs must be relocatable),
# check the installed CLI finds its plugins relative to itself, then build the SDK's plugin
# template out of tree against the installed package, load it through CONTACTLAB_PLUGIN_PATH and
# run the installed conformance suite on it.
# Usage: install_and_template.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build_dir=$1
source_dir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cmake --install "$build_dir" --prefix "$work/prefix" > "$work/install.log"
mv "$work/prefix" "$work/moved"
cli="$work/moved/bin/contactlab"

unset CONTACTLAB_PLUGIN_PATH
"$cli" plugins --json > "$work/plugins.json"
grep -q "\"library\": \"$work/moved/lib/contactlab/plugins/forcelaw-basic.so\"" "$work/plugins.json" ||
  { echo "installed CLI did not find its plugins under the moved prefix"; cat "$work/plugins.json"; exit 1; }
"$cli" run "$source_dir/configs/bouncing_ball.yaml" --set duration_s=0.05 --out "$work/run" > /dev/null
grep -q '"status": "complete"' "$work/run/summary.json"

# The installed Python module (when built): imported from the moved prefix, it finds
# libcontactlab_core (its RPATH is relative), the plugins beside the core, and the CLI beside the
# prefix's bin/ (compare), with no help from the build tree.
if [ -d "$work/moved/lib/python3/dist-packages/contactlab" ]; then
  PYTHONPATH="$work/moved/lib/python3/dist-packages" /usr/bin/python3 -c '
import os, sys, contactlab
prefix, source = sys.argv[1], sys.argv[2]
assert contactlab.__file__.startswith(prefix), contactlab.__file__
run = contactlab.run(source + "/configs/bouncing_ball.yaml", set={"duration_s": 0.05},
                     out=prefix + "/../python-run")
assert run.status == "complete", run.status
assert len(run.trajectory.time_s) == 51, len(run.trajectory.time_s)
hertz = next(p for p in contactlab.plugins("force_law") if p["name"] == "hertz")
assert hertz["library"] == prefix + "/lib/contactlab/plugins/forcelaw-basic.so", hertz["library"]
assert contactlab._cli() == prefix + "/bin/contactlab", contactlab._cli()
' "$work/moved" "$source_dir" ||
    { echo "the installed Python module did not run from the moved prefix"; exit 1; }
fi

cmake -S "$source_dir/sdk/template" -B "$work/template" -DCMAKE_PREFIX_PATH="$work/moved" \
  -DCMAKE_BUILD_TYPE=Release > "$work/template.log"
cmake --build "$work/template" > "$work/template-build.log"
# (to a file first: `grep -q` on a pipe would stop reading early and, with pipefail, fail the CLI)
CONTACTLAB_PLUGIN_PATH="$work/template" "$cli" plugins > "$work/plugins.txt"
grep -q example_constant_stiffness "$work/plugins.txt" ||
  { echo "the template plugin was not listed"; cat "$work/plugins.txt"; exit 1; }
CONTACTLAB_PLUGIN_PATH="$work/template" "$cli" run "$source_dir/configs/bouncing_ball.yaml" \
  --set duration_s=0.5 --set contact.force_law.type=example_constant_stiffness \
  --set contact.force_law.params.stiffness_N_per_m=1e7 --out "$work/run-template" > /dev/null
grep -q '"name": "example_constant_stiffness"' "$work/run-template/summary.json"
grep -q '"status": "complete"' "$work/run-template/summary.json"

# The installed conformance suites, as a third party runs them: the force-law suite on the
# template's library, and the joint suite on the joints it finds under the moved prefix by itself.
"$work/moved/bin/contactlab-conformance-force-law" "$work/template/example-plugins.so" \
  > "$work/conformance-template.log" ||
  { echo "the installed force-law suite failed on the template plugin"; cat "$work/conformance-template.log"; exit 1; }
grep -q "force_law example_constant_stiffness (example-plugins.so" "$work/conformance-template.log"
"$work/moved/bin/contactlab-conformance-joint" > "$work/conformance-joints.log" ||
  { echo "the installed joint suite failed"; cat "$work/conformance-joints.log"; exit 1; }
grep -q "joint revolute (joints-basic.so" "$work/conformance-joints.log"
echo "install test: installed CLI (and Python module) relocatable, template plugin built, used and" \
  "checked by the installed conformance suite — 1 passed, 0 failed"
