#!/usr/bin/env python3
"""Runs every variant of configs/compare_force_laws.yaml and writes one comparison table.

Stands in for the `contactlab compare` command until it exists. The variants file (default
configs/compare_force_laws.variants.yaml) names the base experiment and sets dotted paths to lists
of values; every combination of one value per path is one `contactlab run EXPERIMENT --out DIR
--set PATH=VALUE ...`, each into its own run directory under OUT (default build/compare_force_laws),
--jobs at a time. From each run directory it reads

  summary.json    status/error, steps, rhs_evaluations, wall_time_s, max_penetration_m, events
  events.csv      the first contact_start (time, impact_velocity_m_per_s = v⁻) and the next
                  contact_end (time → contact duration), impulse events, the laws' own events
  trajectory.csv  the moving body's velocity after the contact: the first two rows after
                  contact_end, extrapolated back to it (free flight: exact under constant gravity)
  contacts.csv    peak normal force, the contact normal, and the force–penetration loop

and writes OUT/comparison.csv and OUT/comparison.md (the Markdown table is also printed), plus,
when matplotlib can be imported, OUT/hysteresis.png: normal force against penetration for every
law, one panel per value of the other variant paths (here: impact speed).

Restitution achieved: e = v⁺ / v⁻, the normal speeds at contact end and contact start (both at
zero penetration, so gravity's work over the contact is zero and an elastic law gives e = 1 to the
integration error). v⁻ is the contact_start event's impact velocity; v⁺ is extrapolated from the
first two trajectory rows after contact_end (exact for free flight under constant gravity).
Gravity still acts during the contact, so a dissipative law's e differs from its gravity-free
1-DOF value by O(m·g/F_peak) (about 1e-3 at 1 m/s here, 1e-2 at 0.1 m/s).

A variant that fails (non-zero exit, summary status not complete, no contact end, ...) is in the
table with its error; the others go on. Exit status: 0 when every variant gave a row without error.

Usage: tools/bench/compare_force_laws.py [OUT] [--variants FILE] [--contactlab BIN] [--jobs N]
                                         [--timeout S] [--filter SUBSTRING] [--no-run]
Python 3 standard library only (matplotlib optional).
"""
import argparse
import concurrent.futures
import csv
import itertools
import json
import math
import os
import re
import subprocess
import sys
import time

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
FORCE_LAW_PATH = "contact.force_law"

# ------------------------------------------------------------------------------------------------
# A small YAML subset: block maps and sequences whose leaves are one-line flow values.


class Leaf:
    """A one-line YAML flow value: its text (passed verbatim to --set) and its parsed value."""

    def __init__(self, raw, where):
        self.raw = raw
        try:
            self.value = parse_flow(raw)
        except ValueError as error:
            raise ValueError(f"{where}: {error}") from None

    def __repr__(self):
        return self.raw


def strip_comment(line):
    """Drops a '#' comment that is not inside quotes."""
    quote = None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1] in " \t"):
            return line[:i]
    return line


def bracket_balance(text):
    """Opened minus closed flow brackets outside quotes."""
    balance, quote = 0, None
    for ch in text:
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch in "{[":
            balance += 1
        elif ch in "}]":
            balance -= 1
    return balance


def parse_block_yaml(text, name):
    lines = []
    depth = 0  # open flow brackets: a flow value may continue on the following lines
    for number, line in enumerate(text.splitlines(), 1):
        if "\t" in line[: len(line) - len(line.lstrip())]:
            raise ValueError(f"{name}:{number}: tab in indentation")
        content = strip_comment(line).rstrip()
        if not content.strip():
            continue
        if depth > 0:
            first, indent, previous = lines[-1]
            lines[-1] = (first, indent, previous + " " + content.strip())
        else:
            lines.append((number, len(content) - len(content.lstrip()), content.strip()))
        depth += bracket_balance(content)
    if depth > 0:
        raise ValueError(f"{name}:{lines[-1][0]}: unclosed '{{' or '[' in a flow value")

    def block(i, indent):
        if i >= len(lines) or lines[i][1] < indent:
            return None, i
        indent = lines[i][1]
        if lines[i][2].startswith("- ") or lines[i][2] == "-":
            items = []
            while i < len(lines) and lines[i][1] == indent and lines[i][2].startswith("-"):
                number, _, content = lines[i]
                items.append(Leaf(content[1:].strip(), f"{name}:{number}"))
                i += 1
            return items, i
        mapping = {}
        while i < len(lines) and lines[i][1] == indent:
            number, _, content = lines[i]
            match = re.match(r"^([^\s:][^:]*?)\s*:(\s+(.*))?$", content)
            if not match:
                raise ValueError(
                    f"{name}:{number}: expected 'key: value' or 'key:', got {content!r}"
                )
            key, rest = match.group(1), (match.group(3) or "").strip()
            if key in mapping:
                raise ValueError(f"{name}:{number}: duplicate key {key!r}")
            if rest:
                mapping[key] = Leaf(rest, f"{name}:{number}")
                i += 1
            else:
                child, i = block(i + 1, indent + 1)
                mapping[key] = child
        if i < len(lines) and lines[i][1] > indent:
            raise ValueError(f"{name}:{lines[i][0]}: unexpected indentation")
        return mapping, i

    result, i = block(0, 0)
    if i < len(lines):
        raise ValueError(f"{name}:{lines[i][0]}: unexpected indentation")
    return result if result is not None else {}


def parse_flow(text):
    """Parses a YAML flow value: {a: b, ...}, [x, y], and plain or quoted scalars."""
    pos = 0

    def skip():
        nonlocal pos
        while pos < len(text) and text[pos] in " \t":
            pos += 1

    def scalar(stop):
        nonlocal pos
        skip()
        if pos < len(text) and text[pos] in "'\"":
            quote = text[pos]
            end = text.find(quote, pos + 1)
            if end < 0:
                raise ValueError(f"unterminated quote in {text!r}")
            value = text[pos + 1 : end]
            pos = end + 1
            return value
        start = pos
        while pos < len(text) and text[pos] not in stop:
            if text[pos] == ":" and (pos + 1 == len(text) or text[pos + 1] in " \t"):
                if ":" in stop:
                    break
            pos += 1
        return convert(text[start:pos].strip())

    def value(stop):
        nonlocal pos
        skip()
        if pos < len(text) and text[pos] == "{":
            pos += 1
            result = {}
            skip()
            if pos < len(text) and text[pos] == "}":
                pos += 1
                return result
            while True:
                key = scalar(",}:")
                skip()
                if pos >= len(text) or text[pos] != ":":
                    raise ValueError(f"expected ':' after {key!r} in {text!r}")
                pos += 1
                result[str(key)] = value(",}")
                skip()
                if pos < len(text) and text[pos] == ",":
                    pos += 1
                    continue
                if pos < len(text) and text[pos] == "}":
                    pos += 1
                    return result
                raise ValueError(f"expected ',' or '}}' in {text!r}")
        if pos < len(text) and text[pos] == "[":
            pos += 1
            result = []
            skip()
            if pos < len(text) and text[pos] == "]":
                pos += 1
                return result
            while True:
                result.append(value(",]"))
                skip()
                if pos < len(text) and text[pos] == ",":
                    pos += 1
                    continue
                if pos < len(text) and text[pos] == "]":
                    pos += 1
                    return result
                raise ValueError(f"expected ',' or ']' in {text!r}")
        return scalar(stop)

    result = value("")
    skip()
    if pos != len(text):
        raise ValueError(f"unexpected {text[pos:]!r} in {text!r}")
    return result


class Number(float):
    """A float that keeps the text it was written as (for the table and the run names)."""

    def __new__(cls, value, text):
        number = super().__new__(cls, value)
        number.text = text
        return number


def convert(token):
    if token in ("true", "True", "TRUE"):
        return True
    if token in ("false", "False", "FALSE"):
        return False
    if token in ("null", "~", ""):
        return None
    try:
        return int(token)
    except ValueError:
        pass
    try:
        return Number(float(token), token)
    except ValueError:
        return token


def flow_text(value):
    """A compact one-line rendering for the table."""
    if isinstance(value, dict):
        return ", ".join(f"{k}: {flow_text(v)}" for k, v in value.items())
    if isinstance(value, list):
        return "[" + ", ".join(flow_text(v) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Number):
        return value.text
    return str(value)


# ------------------------------------------------------------------------------------------------
# Variants


class Variant:
    def __init__(self, index, settings):
        self.index = index
        self.settings = settings  # list of (path, Leaf)
        law = dict(settings).get(FORCE_LAW_PATH)
        law_value = law.value if law is not None and isinstance(law.value, dict) else {}
        self.law = str(law_value.get("type", "(experiment's)"))
        self.law_params = law_value.get("params") or {}
        self.others = [(path, leaf) for path, leaf in settings if path != FORCE_LAW_PATH]
        # The other paths' settings, by their last path segment (the full path is in command.txt).
        self.group = "; ".join(
            f"{path.split('.')[-1]}: {flow_text(leaf.value)}" for path, leaf in self.others
        )
        self.group_key = tuple(leaf.raw for _, leaf in self.others)
        slug = "-".join([self.law] + [flow_text(v) for v in self.law_params.values()])
        for path, leaf in self.others:
            slug += "-" + path.split(".")[-1] + "=" + flow_text(leaf.value)
        self.name = f"{index:02d}-" + re.sub(r"[^A-Za-z0-9_.=+-]+", "_", slug).strip("_")[:90]

    def params_text(self):
        return flow_text(self.law_params) if self.law_params else ""


def load_variants(path):
    with open(path, encoding="utf-8") as handle:
        spec = parse_block_yaml(handle.read(), path)
    if not isinstance(spec, dict) or "experiment" not in spec or "variants" not in spec:
        raise ValueError(f"{path}: needs 'experiment:' and 'variants:'")
    experiment = os.path.join(os.path.dirname(os.path.abspath(path)), str(spec["experiment"].value))
    variants = spec["variants"]
    if not isinstance(variants, dict) or not variants:
        raise ValueError(f"{path}: 'variants:' must map dotted paths to lists of values")
    axes = []
    for key, values in variants.items():
        if isinstance(values, Leaf):  # a flow list on one line: split it into leaves
            if not isinstance(values.value, list):
                raise ValueError(f"{path}: variants.{key} must be a list of values")
            raise ValueError(f"{path}: variants.{key}: write one '- value' line per value")
        if not isinstance(values, list) or not values:
            raise ValueError(f"{path}: variants.{key} must be a non-empty list")
        axes.append([(key, leaf) for leaf in values])
    targets = {}
    if "restitution_target" in spec:
        value = spec["restitution_target"].value
        targets = value if isinstance(value, dict) else {"default": value}
    combos = [list(combo) for combo in itertools.product(*axes)]
    return experiment, [Variant(i, combo) for i, combo in enumerate(combos)], targets


def restitution_target(variant, targets):
    if isinstance(variant.law_params.get("restitution"), (int, float)):
        if variant.law_params["restitution"] >= 0:
            return float(variant.law_params["restitution"])
    value = targets.get(variant.law, targets.get("default"))
    return float(value) if isinstance(value, (int, float)) else None


# ------------------------------------------------------------------------------------------------
# Running


def run_variant(variant, experiment, contactlab, out_dir, timeout):
    directory = os.path.join(out_dir, variant.name)
    command = [contactlab, "run", experiment, "--out", directory]
    for path, leaf in variant.settings:
        command += ["--set", f"{path}={leaf.raw}"]
    started = time.monotonic()
    try:
        process = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
        returncode, stderr = process.returncode, process.stderr
    except subprocess.TimeoutExpired:
        returncode, stderr = None, f"timed out after {timeout} s (killed)"
    except OSError as error:
        returncode, stderr = None, f"cannot run {contactlab}: {error}"
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "command.txt"), "w", encoding="utf-8") as handle:
        handle.write(" ".join(shell_quote(part) for part in command) + "\n")
    return directory, returncode, stderr, time.monotonic() - started


def shell_quote(text):
    if re.fullmatch(r"[A-Za-z0-9_./=+:,-]+", text):
        return text
    return "'" + text.replace("'", "'\\''") + "'"


# ------------------------------------------------------------------------------------------------
# Reading a run directory


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def details(text):
    out = {}
    for part in (text or "").split(";"):
        if "=" in part:
            key, value = part.split("=", 1)
            try:
                out[key.strip()] = float(value)
            except ValueError:
                out[key.strip()] = value
    return out


def analyse(directory, returncode, stderr):
    row = {"error": ""}
    summary_path = os.path.join(directory, "summary.json")
    summary = {}
    if os.path.exists(summary_path):
        with open(summary_path, encoding="utf-8") as handle:
            summary = json.load(handle)
    for key in ("steps", "rhs_evaluations", "wall_time_s", "max_penetration_m", "events"):
        row[key] = summary.get(key)
    problems = []
    if returncode is None or returncode != 0:
        last = [line for line in (stderr or "").strip().splitlines() if line.strip()]
        problems.append(
            (f"exit {returncode}: " if returncode is not None else "") + (last[-1] if last else "")
        )
    elif summary.get("status") != "complete":
        problems.append(f"status {summary.get('status')}: {summary.get('error', '')}")
    if not summary:
        row["error"] = "; ".join(p for p in problems if p) or "no summary.json"
        return row

    events = read_csv(os.path.join(directory, "events.csv"))
    starts = [e for e in events if e["kind"] == "contact_start"]
    row["contacts"] = len(starts)
    row["impulses"] = [details(e["details"]) for e in events if e["kind"] == "impulse"]
    row["law_events"] = {}
    for e in events:
        if e["kind"] not in ("contact_start", "contact_end", "impulse"):
            row["law_events"][e["kind"]] = row["law_events"].get(e["kind"], 0) + 1
    if not starts:
        problems.append("no contact")
        row["error"] = "; ".join(p for p in problems if p)
        return row
    start = starts[0]
    t_start = float(start["time_s"])
    v_minus = details(start["details"]).get("impact_velocity_m_per_s")
    ends = [
        e
        for e in events
        if e["kind"] == "contact_end"
        and float(e["time_s"]) >= t_start
        and (e["geometry_a"], e["geometry_b"]) == (start["geometry_a"], start["geometry_b"])
    ]
    row["impact_speed_m_per_s"] = v_minus

    contacts = read_csv(os.path.join(directory, "contacts.csv"))
    geometries = (start["geometry_a"], start["geometry_b"])
    pair = [c for c in contacts if (c["geometry_a"], c["geometry_b"]) == geometries]
    if pair:
        row["peak_force_N"] = max(float(c["normal_force_N"]) for c in pair)
        normal = [float(pair[0][k]) for k in ("normal_x", "normal_y", "normal_z")]
    else:
        row["peak_force_N"] = None
        normal = [0.0, 0.0, 1.0]
    row["loop"] = [
        (max(0.0, -float(c["distance_m"])), float(c["normal_force_N"])) for c in pair
    ]

    if not ends:
        problems.append("the contact did not end before duration_s")
        row["error"] = "; ".join(p for p in problems if p)
        return row
    t_end = float(ends[0]["time_s"])
    row["duration_s"] = t_end - t_start

    # Velocity along the normal after the contact, from the free flight after contact_end.
    trajectory = read_csv(os.path.join(directory, "trajectory.csv"))
    columns = [c[:-3] for c in trajectory[0].keys() if c.endswith(".vx")] if trajectory else []
    # The body named like geometry B (as in compare_force_laws.yaml), else the only moving body.
    body = start["geometry_b"] if start["geometry_b"] in columns else None
    if body is None and len(columns) == 1:
        body = columns[0]
    if body is None:
        problems.append(f"cannot tell which body moves (bodies {columns})")
    else:
        # geometry_b's body carries the normal from A to B; when B is fixed, A moves: flip.
        sign = 1.0 if start["geometry_b"] == body else -1.0
        after = [r for r in trajectory if float(r["time_s"]) > t_end]
        next_start = float(starts[1]["time_s"]) if len(starts) > 1 else math.inf
        if len(after) < 2 or next_start < float(after[1]["time_s"]):
            problems.append("no free flight after the contact to measure the rebound speed")
        else:

            def v_n(r):
                return sign * sum(float(r[f"{body}.v{axis}"]) * n for axis, n in zip("xyz", normal))

            t1, t2 = float(after[0]["time_s"]), float(after[1]["time_s"])
            a_n = (v_n(after[1]) - v_n(after[0])) / (t2 - t1)
            v_plus = v_n(after[0]) - a_n * (t1 - t_end)
            row["rebound_speed_m_per_s"] = v_plus
            if v_minus:
                row["e"] = v_plus / v_minus
    row["error"] = "; ".join(p for p in problems if p)
    return row


# ------------------------------------------------------------------------------------------------
# Table


COLUMNS = [
    ("law", "law"),
    ("variant params", "params"),
    ("impact speed m/s", "impact_speed_m_per_s"),
    ("restitution target", "target"),
    ("achieved", "e"),
    ("error", "e_error"),
    ("peak force N", "peak_force_N"),
    ("contact duration s", "duration_s"),
    ("max penetration m", "max_penetration_m"),
    ("steps", "steps"),
    ("rhs evaluations", "rhs_evaluations"),
    ("wall time s", "wall_time_s"),
    ("notes", "notes"),
]


def fmt(value, key):
    if value is None or value == "":
        return ""
    if isinstance(value, str):
        return value
    if key in ("steps", "rhs_evaluations"):
        return str(int(value))
    if key in ("e", "target"):
        return f"{value:.4f}"
    if key == "e_error":
        return f"{value:+.4f}"
    if key == "impact_speed_m_per_s":
        return f"{value:.4g}"
    if key == "wall_time_s":
        return f"{value:.3f}"
    return f"{value:.4g}"


def notes(row):
    parts = []
    if row.get("impulses"):
        total = sum(i.get("impulse_N_s", 0.0) for i in row["impulses"])
        parts.append(f"{len(row['impulses'])} impulse(s), {total:.4g} N·s")
    for kind, count in sorted((row.get("law_events") or {}).items()):
        parts.append(f"{kind} ×{count}")
    if row.get("contacts", 1) > 1:
        parts.append(f"{row['contacts']} contacts")
    if row.get("error"):
        parts.append("ERROR: " + row["error"])
    return "; ".join(parts)


def make_rows(results, targets):
    rows = []
    for variant, row in results:
        row = dict(row)
        row["law"] = variant.law
        params = variant.params_text()
        if variant.group:
            params = (params + "; " if params else "") + variant.group
        row["params"] = params
        row["target"] = restitution_target(variant, targets)
        if row.get("e") is not None and row["target"] is not None:
            row["e_error"] = row["e"] - row["target"]
        row["notes"] = notes(row)
        row["variant"] = variant
        rows.append(row)
    return rows


def write_tables(rows, out_dir, command_line):
    csv_path = os.path.join(out_dir, "comparison.csv")
    with open(csv_path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow([title for title, _ in COLUMNS] + ["run directory", "error text"])
        for row in rows:
            values = []
            for _, key in COLUMNS:
                value = row.get(key)
                if isinstance(value, float):
                    value = repr(float(value))
                values.append("" if value is None else value)
            writer.writerow(values + [row["variant"].name, row.get("error", "")])
    lines = ["| " + " | ".join(title for title, _ in COLUMNS) + " |"]
    aligns = ["---" if key in ("law", "params", "notes") else "---:" for _, key in COLUMNS]
    lines.append("|" + "|".join(aligns) + "|")
    for row in rows:
        cells = [fmt(row.get(key), key).replace("|", "\\|") for _, key in COLUMNS]
        lines.append("| " + " | ".join(cells) + " |")
    markdown = "\n".join(lines) + "\n"
    with open(os.path.join(out_dir, "comparison.md"), "w", encoding="utf-8") as handle:
        handle.write(f"<!-- {command_line} -->\n" + markdown)
    return markdown


def short_label(row):
    """The law and its choice/boolean parameters (numbers are in the table)."""
    parts = [row["law"]]
    for key, value in row["variant"].law_params.items():
        if isinstance(value, bool):
            parts.append(f"{key}={flow_text(value)}")
        elif isinstance(value, str):
            parts.append(value)
    return " ".join(parts)


def plot(rows, out_dir):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    groups = []
    for row in rows:
        if row["variant"].group not in groups:
            groups.append(row["variant"].group)
    colors = plt.get_cmap("tab20").colors
    styles = ["-", "--", "-.", ":"]
    figure, axes = plt.subplots(1, len(groups), figsize=(7.5 * len(groups), 6.5), squeeze=False)
    for axis, group in zip(axes[0], groups):
        curves = 0
        for row in rows:
            if row["variant"].group != group or not row.get("loop"):
                continue
            x = [d * 1e6 for d, _ in row["loop"]]
            y = [f * 1e-3 for _, f in row["loop"]]
            axis.plot(x, y, linewidth=1.1, color=colors[curves % len(colors)],
                      linestyle=styles[(curves // 4) % len(styles)], label=short_label(row))
            curves += 1
        axis.set_xlabel("penetration δ [µm]")
        axis.set_ylabel("normal force [kN]")
        axis.set_title(group or "normal force against penetration")
        axis.grid(True, alpha=0.3)
        axis.legend(fontsize=7)
    figure.suptitle("Force–penetration loops (contacts.csv, one sample per output step)")
    figure.tight_layout()
    path = os.path.join(out_dir, "hysteresis.png")
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", nargs="?", default=os.path.join(REPO, "build", "compare_force_laws"))
    parser.add_argument(
        "--variants", default=os.path.join(REPO, "configs", "compare_force_laws.variants.yaml")
    )
    parser.add_argument("--contactlab", default=os.path.join(REPO, "build", "bin", "contactlab"))
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per run")
    parser.add_argument("--filter", default="", help="only variants whose run name contains this")
    parser.add_argument("--no-run", action="store_true", help="only re-read the run directories")
    args = parser.parse_args()

    experiment, variants, targets = load_variants(args.variants)
    if args.filter:
        variants = [v for v in variants if args.filter in v.name]
    os.makedirs(args.out, exist_ok=True)
    print(
        f"{len(variants)} variants of {os.path.relpath(experiment)}, {args.jobs} at a time, "
        f"into {args.out}",
        file=sys.stderr,
    )

    def job(variant):
        if args.no_run:
            directory = os.path.join(args.out, variant.name)
            returncode, stderr, seconds = 0, "", 0.0
        else:
            directory, returncode, stderr, seconds = run_variant(
                variant, experiment, args.contactlab, args.out, args.timeout
            )
        try:
            row = analyse(directory, returncode, stderr)
        except Exception as error:  # a broken run directory must not stop the others
            row = {"error": f"cannot read {directory}: {type(error).__name__}: {error}"}
        status = "ok" if not row.get("error") else "FAILED: " + row["error"]
        print(f"  {variant.name}: {seconds:.2f} s, {status}", file=sys.stderr)
        return variant, row

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(job, variants))
    # One block of rows per setting of the other paths (here: per impact speed), laws in file order.
    order = {}
    for variant, _ in results:
        order.setdefault(variant.group_key, len(order))
    results.sort(key=lambda item: (order[item[0].group_key], item[0].index))
    rows = make_rows(results, targets)
    command_line = " ".join(shell_quote(a) for a in [os.path.relpath(sys.argv[0])] + sys.argv[1:])
    markdown = write_tables(rows, args.out, command_line)
    print(markdown)
    png = plot(rows, args.out)
    print(f"tables: {os.path.join(args.out, 'comparison.csv')}, comparison.md"
          + (f"; plot: {png}" if png else "; no plot (matplotlib not importable)"), file=sys.stderr)
    return 0 if all(not row.get("error") for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
