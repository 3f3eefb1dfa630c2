#!/usr/bin/env python3
"""Plots of contactlab runs and comparisons (PNG and SVG, matplotlib).

    plot.py run RUN_DIR        energy, penetration and normal force against penetration of one run
                               directory, into RUN_DIR/plots/
    plot.py compare DIR        one bar chart per numeric column of DIR/comparison.json (a
                               `contactlab compare` directory), into DIR/plots/
    plot.py --check            exit 0 when matplotlib can be imported

`contactlab plot RUN_DIR` and `contactlab compare` run this script. Exit codes: 0 done, 2 bad
input (a missing directory or file), 3 matplotlib is not available to this python.

Files read:
    energy.csv     time_s, energy_J (one row per output time)
    contacts.csv   time_s, geometry_a, geometry_b, distance_m, ..., normal_force_N, ... (one row
                   per output time and penetrating pair)
"""

import csv
import json
import math
import os
import re
import sys

EXIT_BAD_INPUT = 2
EXIT_NO_MATPLOTLIB = 3
FORMATS = ("png", "svg")
MAX_PAIRS = 10  # the pairs with the largest normal force get their own curve


def fail(message, code=EXIT_BAD_INPUT):
    print("plot.py: error: " + message, file=sys.stderr)
    sys.exit(code)


def import_pyplot():
    try:
        import matplotlib
    except ImportError as error:
        fail(
            "matplotlib is not available to %s (%s); install it, e.g. `apt-get install "
            "python3-matplotlib` or `pip install matplotlib`, or point CONTACTLAB_PYTHON at a "
            "python that has it" % (sys.executable, error),
            EXIT_NO_MATPLOTLIB,
        )
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "contactlab"  # reproducible SVG ids
    import matplotlib.pyplot as pyplot

    return pyplot


def read_csv(path):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def save(pyplot, figure, directory, stem):
    os.makedirs(directory, exist_ok=True)
    written = []
    for extension in FORMATS:
        path = os.path.join(directory, stem + "." + extension)
        metadata = {"Date": None} if extension == "svg" else {}
        figure.savefig(path, dpi=120, bbox_inches="tight", metadata=metadata)
        written.append(path)
    pyplot.close(figure)
    return written


def segments(times, values, output_index):
    """Splits a pair's samples where it was not in contact at the output time in between."""
    xs, ys, last = [], [], None
    for t, v in zip(times, values):
        k = output_index.get(t)
        if last is not None and (k is None or k != last + 1):
            xs.append(math.nan)
            ys.append(math.nan)
        xs.append(t)
        ys.append(v)
        last = k
    return xs, ys


def plot_run(directory):
    if not os.path.isdir(directory):
        fail("'%s' is not a directory" % directory)
    energy_file = os.path.join(directory, "energy.csv")
    contacts_file = os.path.join(directory, "contacts.csv")
    for path in (energy_file, contacts_file):
        if not os.path.isfile(path):
            fail("'%s' is missing: is '%s' a contactlab run directory?" % (path, directory))
    pyplot = import_pyplot()
    out = os.path.join(directory, "plots")
    title = os.path.basename(os.path.normpath(directory))
    written = []

    # Energy against time, and its deviation from the initial value.
    energy = read_csv(energy_file)
    times = [float(row["time_s"]) for row in energy]
    values = [float(row["energy_J"]) for row in energy]
    figure, (top, bottom) = pyplot.subplots(2, 1, sharex=True, figsize=(7, 5.5))
    top.plot(times, values, color="tab:blue")
    top.set_ylabel("total energy E [J]")
    top.set_title(title + ": energy")
    if values:
        bottom.plot(times, [v - values[0] for v in values], color="tab:red")
    bottom.set_ylabel("E(t) − E(0) [J]")
    bottom.set_xlabel("time [s]")
    for axes in (top, bottom):
        axes.grid(True, alpha=0.3)
    written += save(pyplot, figure, out, "energy")

    # Contacts: penetration against time, and normal force against penetration, per pair.
    output_index = {t: k for k, t in enumerate(times)}
    pairs = {}
    for row in read_csv(contacts_file):
        key = row["geometry_a"] + "–" + row["geometry_b"]
        entry = pairs.setdefault(key, ([], [], []))
        entry[0].append(float(row["time_s"]))
        entry[1].append(max(0.0, -float(row["distance_m"])))
        entry[2].append(float(row["normal_force_N"]))
    ranked = sorted(pairs, key=lambda key: -max(pairs[key][2], default=0.0))
    shown = ranked[:MAX_PAIRS]
    note = "" if len(ranked) <= MAX_PAIRS else " (%d of %d pairs: the largest forces)" % (
        MAX_PAIRS,
        len(ranked),
    )

    figure, axes = pyplot.subplots(figsize=(7, 4.5))
    for key in shown:
        t, depth, _ = pairs[key]
        xs, ys = segments(t, depth, output_index)
        axes.plot(xs, ys, marker=".", markersize=3, linewidth=1, label=key)
    axes.set_xlabel("time [s]")
    axes.set_ylabel("penetration δ [m]")
    axes.set_title(title + ": penetration" + note)
    finish_axes(axes, bool(shown))
    written += save(pyplot, figure, out, "penetration")

    figure, axes = pyplot.subplots(figsize=(7, 4.5))
    for key in shown:
        t, depth, force = pairs[key]
        xs, ys = segments(t, force, output_index)
        _, ds = segments(t, depth, output_index)
        axes.plot(ds, ys, marker=".", markersize=3, linewidth=1, label=key)
    axes.set_xlabel("penetration δ [m]")
    axes.set_ylabel("normal force [N]")
    axes.set_title(title + ": normal force against penetration" + note)
    finish_axes(axes, bool(shown))
    written += save(pyplot, figure, out, "force_penetration")
    return written


def finish_axes(axes, any_data):
    axes.grid(True, alpha=0.3)
    if any_data:
        axes.legend(fontsize="small")
    else:
        axes.text(0.5, 0.5, "no contact at any output time", ha="center", va="center",
                  transform=axes.transAxes)


def safe_name(column):
    return re.sub(r"[^A-Za-z0-9_-]", "_", column)


def plot_comparison(directory):
    table_file = os.path.join(directory, "comparison.json")
    if not os.path.isfile(table_file):
        fail("'%s' is missing: is '%s' a contactlab compare directory?" % (table_file, directory))
    with open(table_file) as handle:
        table = json.load(handle)
    pyplot = import_pyplot()
    out = os.path.join(directory, "plots")
    rows = table.get("rows", [])
    names = [row["name"] for row in rows]
    written = []
    for column in table.get("columns", []):
        values = []
        for row in rows:
            value = row.get("metrics", {}).get(column)
            ok = row.get("status") == "ok"
            numeric = isinstance(value, (int, float)) and not isinstance(value, bool)
            values.append(float(value) if ok and numeric and math.isfinite(value) else None)
        if all(v is None for v in values):
            continue  # a text column, or no variant has it
        width = max(6.0, 0.45 * len(rows) + 2.0)
        figure, axes = pyplot.subplots(figsize=(width, 4.5))
        positions = list(range(len(rows)))
        heights = [v if v is not None else 0.0 for v in values]
        colours = ["tab:blue" if v is not None else "lightgrey" for v in values]
        axes.bar(positions, heights, color=colours)
        for x, (row, v) in enumerate(zip(rows, values)):
            if v is None:
                axes.text(x, 0.0, " " + row.get("status", "?"), rotation=90, ha="center",
                          va="bottom", fontsize="small", color="grey")
        axes.set_xticks(positions)
        axes.set_xticklabels(names, rotation=45, ha="right", fontsize="small")
        axes.set_ylabel(column)
        axes.set_title("%s: %s" % (table.get("name", ""), column))
        axes.grid(True, axis="y", alpha=0.3)
        positive = [v for v in values if v is not None and v > 0.0]
        if positive and all(v is None or v > 0.0 for v in values) and \
                max(positive) / min(positive) > 1e3:
            axes.set_yscale("log")
        written += save(pyplot, figure, out, "comparison_" + safe_name(column))
    return written


def main(arguments):
    if arguments == ["--check"]:
        import_pyplot()
        return 0
    if len(arguments) != 2 or arguments[0] not in ("run", "compare"):
        print(__doc__, file=sys.stderr)
        return EXIT_BAD_INPUT
    mode, directory = arguments
    written = plot_run(directory) if mode == "run" else plot_comparison(directory)
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
