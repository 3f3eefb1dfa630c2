#!/usr/bin/env bash
# Runs every shipped experiment (configs/*.yaml: `run` for a single experiment, `compare` for a
# study) with the contactlab of BUILD_DIR, into OUT_DIR, and keeps of each run directory what a
# restructuring must leave unchanged: the CSV files and summary.json's counters (not its times,
# versions or paths). compare_answers.py compares two such folders.
# Usage: tools/regress/scene_answers.sh BUILD_DIR OUT_DIR
set -euo pipefail
build_dir=$(realpath "$1")
out_dir=$2
cd "$(dirname "$0")/../.."
unset CONTACTLAB_PLUGIN_PATH
rm -rf "$out_dir"
mkdir -p "$out_dir/runs"
for config in configs/*.yaml; do
  name=$(basename "$config" .yaml)
  [ "$name" = materials ] && continue
  if grep -q '^variants:' "$config"; then
    "$build_dir/bin/contactlab" compare "$config" -o "$out_dir/runs/$name" >/dev/null 2>&1 ||
      echo "$name: compare exited $?" >> "$out_dir/failures.txt"
  else
    "$build_dir/bin/contactlab" run "$config" -o "$out_dir/runs/$name" >/dev/null 2>&1 ||
      echo "$name: run exited $?" >> "$out_dir/failures.txt"
  fi
done
# Keep the answers: the CSVs, and summary.json's counters.
python3 - "$out_dir" <<'PY'
import json, pathlib, shutil, sys
out = pathlib.Path(sys.argv[1])
kept = out / "answers"
counters = ("status", "steps", "rejected_steps", "rhs_evaluations", "jacobian_evaluations",
            "jacobian_rhs_evaluations", "nonlinear_iterations", "narrow_phase_queries",
            "narrow_phase_queries_recording", "narrow_phase_statistics", "events", "impulses",
            "integrator_restarts", "located_events", "max_penetration_m", "energy_initial_J",
            "energy_final_J", "time_reached_s")
for run in sorted((out / "runs").rglob("summary.json")):
    rel = run.parent.relative_to(out / "runs")
    target = kept / rel
    target.mkdir(parents=True, exist_ok=True)
    for csv in sorted(run.parent.glob("*.csv")):
        shutil.copy(csv, target / csv.name)
    summary = json.loads(run.read_text())
    picked = {k: summary[k] for k in counters if k in summary}
    (target / "summary_counters.json").write_text(json.dumps(picked, indent=1, sort_keys=True))
PY
