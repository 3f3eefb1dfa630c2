#!/usr/bin/env python3
"""Runs build/bin/bench_narrow_phase and prints a Markdown table of median ns per query.

Rows are pair x pose kind, columns each method's median ns/query over the repetitions, then the
ratios FCL signed distance / gjk_epa, libccd MPR / mpr and best general plugin / primitive. The
benchmark's sanity-check warnings (sign disagreements, failures) follow the table.

Usage: tools/bench/narrow_phase_table.py [--binary PATH] [--repetitions 5] [--details]
                                        [extra benchmark flags]
e.g.   tools/bench/narrow_phase_table.py --benchmark_min_time=0.05
Standard library only.
"""
import argparse
import json
import os
import re
import subprocess
import sys

# Column order; methods absent from the run (plugin not built, peer not found) are left out.
METHODS = [
    "primitive",
    "primitive_1pt",
    "gjk_epa",
    "mpr",
    "mpr_long_double",
    "mpr_double_double",
    "mpr_tol1e-4",
    "fcl_signed_distance",
    "fcl_intersect",
    "libccd_gjk",
    "libccd_mpr",
]
GENERAL = ["gjk_epa", "mpr"]  # the general-purpose plugins (double precision)

# libccd's MPR answers separated pairs with a boolean (no distance), so its ratio is given for
# overlapping rows only.
def overlapping_only(row, value):
    return value if row.get("overlapping") else None


RATIOS = [
    ("FCL-SD / gjk_epa", lambda row: ratio(row.get("fcl_signed_distance"), row.get("gjk_epa"))),
    (
        "libccd-MPR / mpr",
        lambda row: overlapping_only(row, ratio(row.get("libccd_mpr"), row.get("mpr"))),
    ),
    (
        "libccd-MPR / mpr (tol 1e-4)",
        lambda row: overlapping_only(row, ratio(row.get("libccd_mpr"), row.get("mpr_tol1e-4"))),
    ),
    (
        "best general / primitive",
        lambda row: ratio(best(row.get(m) for m in GENERAL), row.get("primitive")),
    ),
    (
        "best general / primitive_1pt",
        lambda row: ratio(best(row.get(m) for m in GENERAL), row.get("primitive_1pt")),
    ),
]
TO_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


def ratio(numerator, denominator):
    if numerator is None or denominator is None or denominator <= 0.0:
        return None
    return numerator / denominator


def best(values):
    present = [v for v in values if v is not None]
    return min(present) if present else None


def format_ns(value):
    if value is None:
        return "—"
    if value >= 1000.0:
        return f"{value:,.0f}"
    return f"{value:.3g}" if value < 10.0 else f"{value:.1f}" if value < 100.0 else f"{value:.0f}"


def format_ratio(value):
    return "—" if value is None else f"{value:.2f}"


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default=os.path.join(root, "build", "bin", "bench_narrow_phase"))
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument(
        "--statistic", default="median", help="aggregate to tabulate (median, mean, stddev, cv)"
    )
    parser.add_argument(
        "--details",
        action="store_true",
        help="also list the sanity pass's accuracy and plugin-statistics lines",
    )
    args, extra = parser.parse_known_args()

    command = [
        args.binary,
        "--benchmark_format=json",
        f"--benchmark_repetitions={args.repetitions}",
        "--benchmark_report_aggregates_only=true",
    ] + extra
    print("Running: " + " ".join(command), file=sys.stderr)
    run = subprocess.run(command, capture_output=True, text=True)
    if run.returncode != 0:
        sys.stderr.write(run.stderr)
        sys.exit(f"bench_narrow_phase exited with status {run.returncode}")
    report = json.loads(run.stdout)

    rows = {}  # "pair/kind" -> {method: ns}
    order = []
    for entry in report.get("benchmarks", []):
        if entry.get("run_type") != "aggregate" or entry.get("aggregate_name") != args.statistic:
            continue
        name = re.sub(r"/(repeats|min_time|iterations):[^/]*", "", entry["run_name"])
        case, _, method = name.rpartition("/")
        if case not in rows:
            rows[case] = {"overlapping": case.endswith("/overlapping")}
            order.append(case)
        rows[case][method] = entry["cpu_time"] * TO_NS[entry.get("time_unit", "ns")]

    present = [m for m in METHODS if any(m in row for row in rows.values())]
    present += sorted({m for row in rows.values() for m in row} - set(present) - {"overlapping"})
    header = ["pair / poses"] + present + [label for label, _ in RATIOS]
    print(f"{args.statistic} ns per query ({args.repetitions} repetitions, CPU time)\n")
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join([":---"] + ["---:"] * (len(header) - 1)) + "|")
    for case in order:
        row = rows[case]
        cells = [case] + [format_ns(row.get(m)) for m in present]
        cells += [format_ratio(compute(row)) for _, compute in RATIOS]
        print("| " + " | ".join(cells) + " |")

    context = report.get("context", {})
    print(
        f"\n{context.get('num_cpus', '?')} CPUs at {context.get('mhz_per_cpu', '?')} MHz, "
        f"load average {context.get('load_avg', '?')}, {context.get('date', '')}."
    )
    kinds = ("warning", "note", "check", "stats") if args.details else ("warning", "note")
    warnings = [line for line in run.stderr.splitlines() if line.startswith(kinds)]
    if warnings:
        print("\nSanity check (before timing):\n")
        for line in warnings:
            print(f"- {line}")
    else:
        print("\nSanity check (before timing): every method agreed with every pose's sign.")


if __name__ == "__main__":
    main()
