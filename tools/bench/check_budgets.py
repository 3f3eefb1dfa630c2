#!/usr/bin/env python3
"""The work budgets: how much work the algorithms may do on the tests' poses.

Tests assert what a user relies on (distances, normals, witnesses, depths, outcomes), never how
many iterations, supports or Newton steps an algorithm took: a correct algorithm that takes one
step more must pass them. Those figures are budgets of performance, checked here. The test cases
tagged [budget] measure them on their own poses and report them (tests/support/work_figures.hpp);
this script runs those test cases with CONTACTLAB_WORK_FIGURES set, checks every reported figure
against its budget in BUDGETS below, prints the table and exits
  0 every figure within its budget, 1 a figure over its budget or a budget nobody reported,
  2 a [budget] test case failed (an exactness assertion: see its output) or a binary is missing.

Usage: tools/bench/check_budgets.py [BUILD_DIR] [--markdown]      (BUILD_DIR defaults to build)
       cmake --build build --target check_budgets                 (builds the tests, then runs it)
--markdown prints one row per budget (the measured range over its cases), as in
tools/bench/README.md, instead of one row per figure. It takes as long as those test cases (a few
seconds). Figures are counts, not timings: the machine's load does not change them. Standard
library only.
"""
import argparse
import fnmatch
import operator
import os
import subprocess
import sys
import tempfile

# (key, where (a glob over the reported case), relation, budget, why). The first row whose key
# and glob match a reported figure holds its budget. Keys name the figure as the test reports it.
BUDGETS = [
    # gjk_epa (tests/unit/test_narrow_phase_gjk_epa.cpp)
    ("gjk_epa.iteration_limit_4.max_iterations_used", "*", "<=", 16,
     "max_iterations 4: at most one GJK, one EPA and two refining GJK runs of 4 iterations"),
    ("gjk_epa.warm_repeat_penetrating.warm_over_cold_iterations", "*", "<", 1.0,
     "after EPA the cache keeps the contact face: the repeat encloses the origin at once"),
    ("gjk_epa.vertex_pair_moving.warm_over_cold_iterations", "*", "<", 1.0,
     "vertex pairs kept after EPA; cold starts are seeded too, hence a small margin"),
    ("gjk_epa.separated_repeat.most_iterations", "*", "<=", 1,
     "the cached closest pair certifies the distance in GJK's first iteration"),
    ("gjk_epa.one_point_certificate.still_in_one_step", "*", ">=", 120,
     "every still polytope pose (3 pairs x 40) ends in one step"),
    ("gjk_epa.one_point_certificate.moved_in_one_step", "*", ">=", 108,
     "moved by 1e-3: the closest features stay the same on 90 % at least"),
    ("gjk_epa.deep_ellipsoids.iteration_limit_hit_percent", "*", "<=", 10,
     "flat depth minimum: a stop at the limit answers from the lowest support height"),
    ("gjk_epa.separated_moving.curved.warm_over_cold_iterations", "*", "<", 0.75,
     "the Newton polish starts from the step-old direction"),
    ("gjk_epa.separated_moving.cylinder_box.warm_over_cold_iterations", "*", "<=", 1.0,
     "the clamp certificate answers cold queries too"),
    ("gjk_epa.separated_moving.cylinder_box.cold_mean_iterations", "*", "<=", 1.3,
     "the clamp certificate on the cylinder's core"),
    ("gjk_epa.cylinder_face.mean_iterations", "*", "<=", 8.0,
     "face certificate; 12 (box) to 27 (cylinder) iterations before it"),
    ("gjk_epa.cylinder_clamp.mean_iterations", "*", "<=", 2.0,
     "clamp certificate; 15.1 before it"),
    ("gjk_epa.vertex_over_box_feature.mean_iterations", "*", "<=", 2.7,
     "box clamp into A and B in turn; 3.74 before it"),
    ("gjk_epa.vertex_over_box_feature.warm_mean_iterations", "*", "<=", 1.0,
     "the cached vertex answers at once"),
    ("gjk_epa.hull_vertex_over_hull_face.mean_iterations", "*", "<=", 3.2,
     "hull face certificate; 6.5 without it"),
    ("gjk_epa.hull_vertex_over_hull_face.warm_mean_iterations", "*", "<=", 1.01,
     "the face's corners cached as vertex pairs: one support"),
    ("gjk_epa.vertex_pressed_into_face.mean_iterations", "*", "<=", 4.0,
     "penetration_at_face certificate and EPA from its tetrahedra; 7.1 without them"),
    ("gjk_epa.cap_press.closed_form_most_iterations", "*", "<=", 1,
     "cap_penetration_step answers from the first support point"),
    # mpr (tests/unit/test_narrow_phase_mpr.cpp)
    ("mpr.parallel_cylinders.proven_separated_percent", "*", ">", 50,
     "completed from the portal once separation is proven"),
    ("mpr.warm_trajectories.polytope.warm_started_percent", "*", ">=", 80, "portal reused"),
    ("mpr.warm_trajectories.polytope.repeat_in_one_iteration_percent", "*", ">=", 90,
     "a repeated pose ends in one phase-3 iteration"),
    ("mpr.warm_trajectories.curved.penetrating_warm_started_percent", "*", ">=", 60,
     "Newton warm-starts penetrating curved pairs"),
    ("mpr.warm_trajectories.curved.both_newton_percent_of_penetrating", "*", ">=", 70,
     "warm and cold both end in Newton"),
    ("mpr.warm_trajectories.curved.repeats_in_one_newton_step_per_penetrating", "*", ">=", 0.7,
     "repeated poses end in one warm Newton step (counted over all repeats, per penetrating one, "
     "as the test always did)"),
    ("mpr.hull_climb_any_vertex.warm_started_percent", "*", ">=", 76,
     "warm starts from cached vertex numbers, in range or not (760 of 800 queries can)"),
    ("mpr.newton_finish.newton_ending_percent", "* cone-box", ">=", 50,
     "against a polytope, exit points on a corner where a rim meets an edge, or on a frustum's "
     "side, are refined"),
    ("mpr.newton_finish.newton_ending_percent", "*", ">=", 70, "Newton ends curved pairs"),
    ("mpr.separated_newton.newton_ending_percent", "*", ">=", 90,
     "Newton steps on the support function end separated curved pairs"),
    ("mpr.separated_newton.repeat_in_one_step_percent", "*", ">=", 95,
     "the cached normal: one warm Newton step"),
    ("mpr.face_certificate.separated_percent", "*", ">=", 95, "one support certifies the face"),
    ("mpr.face_certificate.penetrating_percent", "*", ">=", 90,
     "the ray may leave A - B through another face"),
    ("mpr.face_certificate.warm_again_percent", "*", ">=", 100,
     "the cached face answers again without refinement"),
    # mpr in a run (tests/validation/test_seed_scenes.cpp)
    ("mpr.four_cubes.warm_over_cold_mean_iterations", "*", "<", 1.0,
     "Engelson's four cubes: the warm-started run takes fewer MPR iterations"),
    # SUNDIALS (tests/unit/test_integrators_sundials.cpp, test_jacobian_colouring.cpp,
    # tests/validation/test_sparse_jacobian.cpp)
    ("sundials.stiff_scalar.erk_over_bdf_steps", "*", ">", 10,
     "stiff scalar problem: bdf in at least 10x fewer steps than erk"),
    ("sundials.coloured_preconditioner.linear_iterations_over_unpreconditioned", "*", "<", 1.0,
     "the coloured preconditioner lowers SPGMR's linear iterations"),
    ("sundials.sparse_towers.rhs_evaluations_over_dense", "*", "<", 1.0,
     "a coloured Jacobian costs fewer f than a dense one on three towers"),
]

RELATIONS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}

# The test programs whose [budget] test cases report figures, relative to the build folder.
PROGRAMS = ["bin/unit_tests", "bin/validation_tests"]


def budget_for(key, where):
    for row in BUDGETS:
        if row[0] == key and fnmatch.fnmatchcase(where, row[1]):
            return row
    return None


def run_budget_tests(build_dir, figures_file):
    environment = dict(os.environ, CONTACTLAB_WORK_FIGURES=figures_file)
    failed = []
    for program in PROGRAMS:
        path = os.path.join(build_dir, program)
        if not os.access(path, os.X_OK):
            print(f"check_budgets: {path} not found; build the tests first "
                  f"(cmake --build {build_dir} --target check_budgets)", file=sys.stderr)
            return [program]
        print(f"check_budgets: running {path} [budget] ...", file=sys.stderr, flush=True)
        result = subprocess.run([path, "[budget]"], env=environment, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)
        if result.returncode != 0:
            sys.stderr.write(result.stdout)
            failed.append(program)
    return failed


def read_figures(figures_file):
    figures = []
    with open(figures_file) as text:
        for line in text:
            key, where, value = line.rstrip("\n").split("\t")
            figures.append((key, where, float(value)))
    return figures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build_dir", nargs="?", default="build")
    parser.add_argument("--markdown", action="store_true", help="print the table in Markdown")
    arguments = parser.parse_args()

    with tempfile.TemporaryDirectory() as scratch:
        figures_file = os.path.join(scratch, "work_figures.tsv")
        open(figures_file, "w").close()
        failed_programs = run_budget_tests(arguments.build_dir, figures_file)
        figures = read_figures(figures_file)

    rows, over, unbudgeted, measured = [], 0, 0, {}
    for key, where, value in figures:
        budget = budget_for(key, where)
        if budget is None:
            unbudgeted += 1
            rows.append((key, where, value, "(no budget)", "FAIL"))
            continue
        ok = RELATIONS[budget[2]](value, budget[3])
        over += not ok
        measured.setdefault(budget[:2], []).append((value, ok))
        rows.append((key, where, value, f"{budget[2]} {budget[3]:g}", "ok" if ok else "OVER"))
    unreported = [b for b in BUDGETS if b[:2] not in measured]

    if arguments.markdown:
        print("| figure | cases | budget | measured | why |")
        print("|---|---|---|---|---|")
        for key, where, relation, limit, why in BUDGETS:
            values = measured.get((key, where), [])
            low = min((v for v, _ in values), default=float("nan"))
            high = max((v for v, _ in values), default=float("nan"))
            span = f"{low:.4g}" if low == high else f"{low:.4g} – {high:.4g}"
            verdict = "" if all(ok for _, ok in values) and values else " **over**"
            cases = f"{len(values)}" + ("" if where == "*" else f" (`{where}`)")
            print(f"| `{key}` | {cases} | {relation} {limit:g} | {span}{verdict} | {why} |")
    else:
        key_width = max((len(r[0]) for r in rows), default=10)
        where_width = max((len(r[1]) for r in rows), default=5)
        for key, where, value, budget, verdict in rows:
            print(f"{key:<{key_width}}  {where:<{where_width}}  {value:>10.4g}  {budget:<8}  "
                  f"{verdict}")
    for key, where, *_ in unreported:
        print(f"check_budgets: budget {key} [{where}] was not reported by any test",
              file=sys.stderr)
    print(f"check_budgets: {len(rows)} figures, {over} over budget, {unbudgeted} without a "
          f"budget, {len(unreported)} budgets unreported", file=sys.stderr)
    if failed_programs:
        print("check_budgets: [budget] test cases failed in " + ", ".join(failed_programs),
              file=sys.stderr)
        return 2
    return 1 if over or unbudgeted or unreported else 0


if __name__ == "__main__":
    sys.exit(main())
