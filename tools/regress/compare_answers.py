#!/usr/bin/env python3
"""Compares two answer dumps token by token: two narrow-phase dumps (narrow_phase_answers, plain
or gzip) or two scene-answer folders (scene_answers.sh). Numbers (decimal or hex floats) are
compared as doubles: bit for bit, else by their relative difference |a - b| / max(|a|, |b|);
every other token must be equal. Prints how many lines differ, the largest relative difference
and the first differing lines, and exits 1 when any line differs beyond --tolerance (default 0:
bit for bit).

Usage: compare_answers.py BASE NEW [--tolerance 1e-15] [--show 10]
"""
import argparse
import gzip
import math
import pathlib
import re
import sys

SPLIT = re.compile(r"[ ,;=\n]+")


def open_text(path):
    if str(path).endswith(".gz"):
        return gzip.open(path, "rt")
    return open(path)


def number(token):
    try:
        if "0x" in token:
            return float.fromhex(token)
        return float(token)
    except ValueError:
        return None


def compare_lines(base, new):
    """None when equal token for token; else the relative difference (inf: a token differs)."""
    if base == new:
        return None
    a, b = SPLIT.split(base.strip()), SPLIT.split(new.strip())
    if len(a) != len(b):
        return math.inf
    worst = 0.0
    for x, y in zip(a, b):
        if x == y:
            continue
        u, v = number(x), number(y)
        if u is None or v is None:
            return math.inf
        if u == v or (math.isnan(u) and math.isnan(v)):
            continue
        scale = max(abs(u), abs(v))
        worst = max(worst, abs(u - v) / scale if scale > 0 else math.inf)
    return worst


def pairs_of_files(base, new):
    if base.is_dir():
        names = sorted({p.relative_to(base) for p in base.rglob("*") if p.is_file()} |
                       {p.relative_to(new) for p in new.rglob("*") if p.is_file()})
        for name in names:
            yield str(name), base / name, new / name
    else:
        yield base.name, base, new


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("base", type=pathlib.Path)
    parser.add_argument("new", type=pathlib.Path)
    parser.add_argument("--tolerance", type=float, default=0.0)
    parser.add_argument("--show", type=int, default=10)
    args = parser.parse_args()
    lines = differing = beyond = 0
    worst = 0.0
    shown = 0
    for name, base, new in pairs_of_files(args.base, args.new):
        if not base.exists() or not new.exists():
            print(f"{name}: only in {'new' if not base.exists() else 'base'}")
            beyond += 1
            continue
        with open_text(base) as fa, open_text(new) as fb:
            number_of_line = 0
            while True:
                la, lb = fa.readline(), fb.readline()
                if not la and not lb:
                    break
                number_of_line += 1
                lines += 1
                diff = compare_lines(la, lb)
                if diff is None or diff == 0.0:
                    continue
                differing += 1
                worst = max(worst, diff)
                if diff > args.tolerance:
                    beyond += 1
                if shown < args.show:
                    shown += 1
                    print(f"{name}:{number_of_line}: relative difference {diff:.3g}\n"
                          f"  base: {la.strip()[:300]}\n  new:  {lb.strip()[:300]}")
    print(f"{lines} lines compared: {lines - differing} identical, {differing} differ "
          f"(largest relative difference {worst:.3g}), {beyond} beyond tolerance {args.tolerance:g}")
    return 1 if beyond else 0


if __name__ == "__main__":
    sys.exit(main())
