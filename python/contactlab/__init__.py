"""contactlab from Python: load, check and run experiments, read their run directories as numpy
arrays, compare variants, list plugins, and query narrow phases on their own.

    import contactlab

    exp = contactlab.load("configs/bouncing_ball.yaml", set={"duration_s": 0.5})
    run = exp.run()                      # into runs/bouncing_ball-<time>/, as `contactlab run`
    z = run.trajectory["ball"].position[:, 2]
    print(run.status, run.summary["max_penetration_m"], len(run.contacts["time_s"]))

    contactlab.distance({"type": "sphere", "radius_m": 1}, ([0, 0, 0], [1, 0, 0, 0]),
                        {"type": "sphere", "radius_m": 1}, ([3, 0, 0], [1, 0, 0, 0])).distance  # 1.0

Everything goes through the host's own code: an experiment is loaded, overridden and checked as
by `contactlab validate` (the same error messages, with file:line:col and the dotted key path),
run as by `contactlab run` (the same run directory), and a shape dictionary is read by the
experiment's own `shape:` reader. Errors are `contactlab.InputError` (a ValueError),
`contactlab.PluginError` and `contactlab.SimulationError` (RuntimeErrors), all `contactlab.Error`.

Plugins are found as the CLI finds them: each directory of CONTACTLAB_PLUGIN_PATH, then
lib/contactlab/plugins beside libcontactlab_core (the build tree and an install prefix alike).
"""

from __future__ import annotations

import csv
import dataclasses
import json
import math
import numbers
import os
import pathlib
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Mapping, Sequence
from functools import cached_property
from typing import Any, Callable, Iterator, Optional, Union

import numpy as np

from . import _contactlab, _layout
from ._contactlab import Error, InputError, NarrowPhaseCache, PluginError, SimulationError

__version__ = _contactlab.__version__

__all__ = [
    "Error", "InputError", "PluginError", "SimulationError",
    "load", "validate", "run", "open_run", "compare", "variants", "open_comparison", "plugins",
    "distance", "to_yaml",
    "Experiment", "Run", "Trajectory", "BodyTrajectory", "Comparison",
    "Shape", "NarrowPhase", "NarrowPhaseCache", "Distance",
]

PathLike = Union[str, os.PathLike]
#: `set=`: {dotted.path: value} (values: Python values, or YAML text when strings), or
#: ["dotted.path=value", ...] exactly as the CLI's --set.
Overrides = Union[None, Mapping[str, Any], Sequence[str], str]


# --- Python values as YAML -------------------------------------------------------------------

_PLAIN_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-]*$")


def to_yaml(value: Any, *, top_level: bool = True) -> str:
    """`value` as YAML flow text, for `set=`, shapes and plugin choices.

    A string at the top level is taken as YAML text already (as the CLI's `--set path=value`:
    "[0, 0, 2]" is a list, "hertz" a name); inside a list or a dict it is a string (quoted).
    Numbers keep every digit (repr), bools are true/false, None is null, numpy arrays and
    scalars are their Python values, mappings are {key: value}, other sequences [a, b].
    """
    if isinstance(value, np.ndarray):
        return to_yaml(value.tolist(), top_level=top_level)
    if isinstance(value, np.generic):
        return to_yaml(value.item(), top_level=top_level)
    if isinstance(value, str):
        return value if top_level else json.dumps(value)
    if isinstance(value, os.PathLike):
        return json.dumps(os.fspath(value))
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        x = float(value)
        if math.isnan(x):
            return ".nan"
        if math.isinf(x):
            return ".inf" if x > 0 else "-.inf"
        return repr(x)
    if isinstance(value, Mapping):
        items = []
        for key, item in value.items():
            key = str(key)
            items.append(f"{key if _PLAIN_KEY.match(key) else json.dumps(key)}: "
                         f"{to_yaml(item, top_level=False)}")
        return "{" + ", ".join(items) + "}"
    if isinstance(value, (Sequence, set, frozenset)) and not isinstance(value, (bytes, bytearray)):
        return "[" + ", ".join(to_yaml(item, top_level=False) for item in value) + "]"
    raise TypeError(f"cannot write a {type(value).__name__} as YAML: {value!r}")


def _assignments(overrides: Overrides) -> list[str]:
    """`set=` as the CLI's list of "dotted.path=value" assignments, in order."""
    if overrides is None:
        return []
    if isinstance(overrides, str):
        return [overrides]
    if isinstance(overrides, Mapping):
        return [f"{path}={to_yaml(value)}" for path, value in overrides.items()]
    out = []
    for item in overrides:
        if not isinstance(item, str):
            raise TypeError(
                f"set= takes a dict {{path: value}} or a list of 'path=value' strings, got {item!r}")
        out.append(item)
    return out


def _paths(files: Sequence[PathLike]) -> list[str]:
    if isinstance(files, (str, os.PathLike)):
        files = [files]
    return [os.fspath(f) for f in files]


# --- experiments -----------------------------------------------------------------------------

class Experiment:
    """A loaded and checked experiment (see `load`). Run it with `run()`, as often as you like."""

    def __init__(self, handle: Any, trust_libraries: Sequence[str]):
        self._handle = handle
        self._trust = list(trust_libraries)

    @property
    def name(self) -> str:
        """The experiment's `name:`."""
        return self._handle.name

    @property
    def file(self) -> pathlib.Path:
        """The experiment file it was loaded from."""
        return pathlib.Path(self._handle.file)

    @property
    def overrides(self) -> list[str]:
        """The `set=` assignments applied, as "dotted.path=value" strings."""
        return list(self._handle.overrides)

    @property
    def duration_s(self) -> float:
        return self._handle.duration_s

    @property
    def output_interval_s(self) -> float:
        return self._handle.output_interval_s

    @property
    def bodies(self) -> list[str]:
        """Every body's name, parents first (as stored and written)."""
        return self._handle.bodies

    @property
    def moving_bodies(self) -> list[str]:
        """The bodies that can move: those in trajectory.csv."""
        return self._handle.moving_bodies

    @property
    def geometries(self) -> list[str]:
        return self._handle.geometries

    @property
    def resolved_yaml(self) -> str:
        """The configuration as it will run, every default filled in (config.resolved.yaml)."""
        return self._handle.resolved_yaml

    @property
    def warnings(self) -> list[str]:
        """What the scene's readers warn about (e.g. a mesh that was not convex)."""
        return list(self._handle.warnings)

    def with_overrides(self, set: Overrides) -> "Experiment":
        """The same file with this experiment's overrides and then `set` applied, loaded anew."""
        return load(self.file, self.overrides + _assignments(set),
                    trust_libraries=self._trust)

    def run(self, out: Optional[PathLike] = None, *,
            progress: Optional[Callable[[float, int], Optional[bool]]] = None) -> "Run":
        """Simulates the experiment into a run directory and returns it as a `Run`.

        out: the run directory; default runs/<name>-<YYYYmmdd-HHMMSS> under the current
            directory, as `contactlab run`.
        progress: called about 20 times a second with (simulated time_s, steps); return False to
            stop the run early (it is then kept, `status` "incomplete").

        Ctrl-C stops the run after its current step, as the CLI: the run directory is kept,
        marked incomplete, and KeyboardInterrupt is raised. A SimulationError (non-finite state,
        integrator failure) carries the run directory as `.directory` (its summary says failed).
        """
        if out is None:
            out = _contactlab.default_run_directory(self.name)
        directory = pathlib.Path(os.path.abspath(os.fspath(out)))
        try:
            self._handle.run(str(directory), progress)
        except SimulationError as error:
            error.directory = directory
            raise
        except KeyboardInterrupt:
            print(f"contactlab: interrupted; the run directory is kept, marked incomplete: "
                  f"{directory}", file=sys.stderr)
            raise
        return Run(directory)

    def __repr__(self) -> str:
        return (f"<contactlab.Experiment {self.name!r} from {os.fspath(self.file)!r}, "
                f"{len(self.bodies)} bodies, {self.duration_s:g} s>")


def load(path: PathLike, set: Overrides = None, *,
         trust_libraries: Sequence[PathLike] = ()) -> Experiment:
    """Loads an experiment file, applies `set`, builds and checks the scene.

    path: an experiment YAML file (its `include:`s relative to it).
    set: overrides with exactly the CLI's `--set` semantics: a dict {"dotted.path": value} or a
        list of "dotted.path=value" strings, applied in order. A list element is addressed by
        index (`bodies.1`) or by name (`bodies.ball`). String values are YAML
        ("[0, 0, 2]", "{type: rk4}"); other Python values are written as YAML for you
        ({"bodies.ball.initial.position_m": [0, 0, 2], "contact.force_law": {"type": "linear"}}).
    trust_libraries: plugin library files a `library:` key may load (the CLI's --trust-library).

    Raises InputError (file:line:col, the dotted path, "did you mean") or PluginError.
    """
    handle = _contactlab.load(os.fspath(path), _assignments(set), _paths(trust_libraries))
    return Experiment(handle, _paths(trust_libraries))


def validate(path: PathLike, set: Overrides = None, *,
             trust_libraries: Sequence[PathLike] = ()) -> Experiment:
    """As `contactlab validate`: raises InputError or PluginError, or returns the Experiment."""
    return load(path, set, trust_libraries=trust_libraries)


def run(path: PathLike, set: Overrides = None, out: Optional[PathLike] = None, *,
        progress: Optional[Callable[[float, int], Optional[bool]]] = None,
        trust_libraries: Sequence[PathLike] = ()) -> "Run":
    """`load(path, set).run(out)`: as `contactlab run path --set ... --out out`."""
    return load(path, set, trust_libraries=trust_libraries).run(out, progress=progress)


# --- run directories -------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class BodyTrajectory:
    """One body's states at the output times (world frame, SI): n rows each.

    `position` (n,3) and `velocity` (n,3) are the centre of mass's, `quaternion_wxyz` (n,4) the
    body frame's orientation, `angular_velocity` (n,3). Also readable as body["position"].
    """
    name: str
    position: np.ndarray
    quaternion_wxyz: np.ndarray
    velocity: np.ndarray
    angular_velocity: np.ndarray

    def __getitem__(self, key: str) -> np.ndarray:
        if key not in ("position", "quaternion_wxyz", "velocity", "angular_velocity"):
            raise KeyError(key)
        return getattr(self, key)


class Trajectory(Mapping):
    """trajectory.csv: `time_s` (n,) and, per moving body's name, a `BodyTrajectory`."""

    def __init__(self, data: dict):
        self.time_s: np.ndarray = data["time_s"]
        #: Rows dropped because they were cut short (the last row of an interrupted run).
        self.incomplete_rows: int = data["incomplete_rows"]
        self._bodies = {name: BodyTrajectory(name, **arrays)
                        for name, arrays in data["bodies"].items()}

    @property
    def bodies(self) -> list[str]:
        """The moving bodies, in the file's column order."""
        return list(self._bodies)

    def __getitem__(self, body: str) -> BodyTrajectory:
        try:
            return self._bodies[body]
        except KeyError:
            raise KeyError(f"no body {body!r} in the trajectory (moving bodies: "
                           f"{', '.join(self._bodies) or 'none'})") from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._bodies)

    def __len__(self) -> int:
        return len(self._bodies)

    def __repr__(self) -> str:
        return (f"<contactlab.Trajectory {len(self.time_s)} output times, bodies "
                f"{', '.join(self._bodies)}>")


def _read_csv_rows(file: pathlib.Path) -> list[dict]:
    with open(file, newline="") as f:
        return list(csv.DictReader(f))


def _number(text: str) -> Union[float, str]:
    try:
        return float(text)
    except ValueError:
        return text


class Run:
    """A run directory (see the README's "A run directory"), read lazily as numpy arrays.

    `open_run(directory)` opens one written earlier, by Python or by the CLI.
    """

    def __init__(self, directory: PathLike):
        self.directory = pathlib.Path(directory)
        if not (self.directory / "summary.json").is_file():
            raise InputError(f"'{self.directory}' is not a run directory (it has no summary.json)")

    @cached_property
    def summary(self) -> dict:
        """summary.json: status, counters, wall times, metrics (e.g. `restitution`), probes."""
        with open(self.directory / "summary.json") as f:
            return json.load(f)

    @property
    def status(self) -> str:
        """'complete', 'incomplete' (interrupted or stopped) or 'failed' (see summary['error'])."""
        return self.summary["status"]

    @cached_property
    def resolved_yaml(self) -> str:
        """config.resolved.yaml: the configuration as run."""
        return (self.directory / "config.resolved.yaml").read_text()

    @cached_property
    def trajectory(self) -> Trajectory:
        """trajectory.csv: `time_s` and per moving body position, quaternion_wxyz, velocity,
        angular_velocity (read by the core's own reader)."""
        return Trajectory(_contactlab.read_trajectory(str(self.directory / "trajectory.csv")))

    @cached_property
    def contacts(self) -> dict:
        """contacts.csv, one row per output time and penetrating pair, as arrays of m rows:
        time_s, distance_m (signed), normal_force_N (m,); normal (A→B), point, tangential_force_N
        (m,3); geometry_a, geometry_b (numpy string arrays)."""
        data = _contactlab.read_contacts(str(self.directory / "contacts.csv"))
        for key in ("geometry_a", "geometry_b"):
            data[key] = np.array(data[key], dtype=str)
        return data

    @cached_property
    def events(self) -> list[dict]:
        """events.csv as dicts: time_s, kind, geometry_a, geometry_b, and each key=value of the
        details as a float (contact_start's impact_velocity_m_per_s, contact_end's duration_s,
        max_penetration_m, separation_velocity_m_per_s, ...)."""
        events = []
        for row in _read_csv_rows(self.directory / "events.csv"):
            event = {"time_s": float(row["time_s"]), "kind": row["kind"],
                     "geometry_a": row["geometry_a"], "geometry_b": row["geometry_b"]}
            for item in (row.get("details") or "").split(";"):
                if "=" in item:
                    key, value = item.split("=", 1)
                    event[key] = _number(value)
            events.append(event)
        return events

    @cached_property
    def energy(self) -> dict:
        """energy.csv: time_s and energy_J arrays (total energy at every output time)."""
        rows = _read_csv_rows(self.directory / "energy.csv")
        return {"time_s": np.array([float(r["time_s"]) for r in rows]),
                "energy_J": np.array([float(r["energy_J"]) for r in rows])}

    def __repr__(self) -> str:
        return f"<contactlab.Run {os.fspath(self.directory)!r} {self.status}>"


def open_run(directory: PathLike) -> Run:
    """A run directory written earlier (by `Experiment.run` or `contactlab run`)."""
    return Run(directory)


# --- comparisons -----------------------------------------------------------------------------

def _cli() -> str:
    """The `contactlab` executable: $CONTACTLAB_CLI, else the one beside this package
    (build/bin/contactlab in the build tree, <prefix>/bin/contactlab installed)."""
    given = os.environ.get("CONTACTLAB_CLI")
    if given:
        return given
    path = os.path.normpath(os.path.join(os.path.dirname(__file__), _layout.CLI_RELATIVE))
    if not os.path.isfile(path):
        raise Error(f"the contactlab executable is not at {path}, where this package expects it; "
                    f"set CONTACTLAB_CLI to it")
    return path


class Comparison:
    """A comparison directory's table (comparison.json): one row per variant.

    `rows`: dicts with name, index, values ({path: value as YAML text}), status ('ok', 'failed',
    'interrupted', 'not_run'), error and metrics ({column: value}); `columns`, `paths`;
    `comparison["variant-name"]` is that row, `column("steps")` a column as a numpy array
    (NaN where a variant has no value), `run("variant-name")` that variant's run directory.
    """

    def __init__(self, directory: PathLike, log: str = "", markdown: Optional[str] = None):
        self.directory = pathlib.Path(directory)
        file = self.directory / "comparison.json"
        if not file.is_file():
            raise InputError(f"'{self.directory}' is not a comparison directory "
                             f"(it has no comparison.json)")
        with open(file) as f:
            self.table: dict = json.load(f)
        #: What `contactlab compare` wrote to stderr (its progress lines, warnings).
        self.log = log
        values = {v["name"]: dict(zip(self.table["paths"], v["values"]))
                  for v in self.table["variants"]}
        self.rows: list[dict] = [
            {"name": r["name"], "index": r["index"], "values": values.get(r["name"], {}),
             "status": r["status"], "error": r["error"], "metrics": r["metrics"]}
            for r in self.table["rows"]]
        self._markdown = markdown

    @property
    def status(self) -> str:
        """'complete', or 'incomplete' (interrupted, a shard, not finished)."""
        return self.table["status"]

    @property
    def columns(self) -> list[str]:
        return list(self.table["columns"])

    @property
    def paths(self) -> list[str]:
        """The dotted paths of `variants:`."""
        return list(self.table["paths"])

    @property
    def markdown(self) -> str:
        """comparison.md, the table as printed by the CLI."""
        if self._markdown is None:
            self._markdown = (self.directory / "comparison.md").read_text()
        return self._markdown

    def __getitem__(self, name: str) -> dict:
        for row in self.rows:
            if row["name"] == name:
                return row
        raise KeyError(f"no variant {name!r} (variants: "
                       f"{', '.join(r['name'] for r in self.rows)})")

    def __iter__(self) -> Iterator[dict]:
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self.rows)

    def column(self, name: str) -> np.ndarray:
        """One column over the rows (float; NaN where missing or not a number)."""
        out = []
        for row in self.rows:
            value = row["metrics"].get(name)
            out.append(float(value) if isinstance(value, numbers.Real) else math.nan)
        return np.array(out)

    def run(self, name: str) -> Run:
        """The run directory of variant `name`."""
        self[name]  # a KeyError naming the variants for an unknown name
        return Run(self.directory / name)

    def __repr__(self) -> str:
        counts: dict = {}
        for row in self.rows:
            counts[row["status"]] = counts.get(row["status"], 0) + 1
        text = ", ".join(f"{n} {s}" for s, n in counts.items())
        return f"<contactlab.Comparison {os.fspath(self.directory)!r} {self.status}: {text}>"


def _error_lines(log: str) -> str:
    lines = [line[len("error: "):] for line in log.splitlines() if line.startswith("error: ")]
    return "\n".join(lines) if lines else log.strip()


def compare(path: PathLike, set: Overrides = None, out: Optional[PathLike] = None,
            jobs: Optional[int] = None, *, shard: Optional[str] = None,
            trust_libraries: Sequence[PathLike] = (), quiet: bool = False) -> Comparison:
    """Runs the variants of a comparison file, as `contactlab compare`, and returns its table.

    path: a comparison file (an experiment plus `variants:`, see the README).
    set: overrides of the comparison file, as for `load` (they may change `variants` too).
    out: the comparison directory; default runs/<name>-compare-<YYYYmmdd-HHMMSS>, as the CLI.
    jobs: variants run at a time (default: the machine's hardware threads).
    shard: "i/N" runs only the i-th of N slices (`contactlab merge` joins them).
    quiet: do not pass the CLI's progress lines on to sys.stderr (they are in `.log` anyway).

    Variants that fail are rows with status 'failed' (the call does not raise); a variant that
    is not valid raises InputError before anything runs. Ctrl-C interrupts the comparison as in
    the CLI (the running variants stop after their step, the table is written) and then raises
    KeyboardInterrupt.
    """
    # `contactlab compare` as a child process, not its code (contactlab_app's run_comparison)
    # in this one: that code reaps its children with waitpid(-1), which would also reap (and
    # lose the exit status of) any other child of the Python process, e.g. a subprocess.Popen
    # of the user's; it writes its progress and table on this process's stdout and stderr; and
    # Ctrl-C is then simply the CLI's own handling. The comparison file is still read here first
    # (by the same code), so a bad file raises the located InputError without a child, and the
    # default directory is named as the CLI names it.
    assignments = _assignments(set)
    spec = _contactlab.comparison_variants(os.fspath(path), assignments)
    if out is None:
        suffix = "-compare"
        if shard is not None:
            index, _, count = str(shard).partition("/")
            if count.strip() != "1":
                suffix = f"-shard{index.strip()}of{count.strip()}"
        out = _contactlab.default_run_directory(spec["name"] + suffix)
    directory = pathlib.Path(os.path.abspath(os.fspath(out)))
    arguments = [_cli(), "compare", os.fspath(path), "--out", str(directory)]
    if jobs is not None:
        arguments += ["--jobs", str(int(jobs))]
    if shard is not None:
        arguments += ["--shard", str(shard)]
    for assignment in assignments:
        arguments += ["--set", assignment]
    for library in _paths(trust_libraries):
        arguments += ["--trust-library", os.path.abspath(library)]

    child = subprocess.Popen(arguments, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    log_lines: list[str] = []

    def pump() -> None:
        for line in child.stderr:
            log_lines.append(line)
            if not quiet:
                sys.stderr.write(line)
                sys.stderr.flush()

    pumping = threading.Thread(target=pump, daemon=True)
    pumping.start()
    try:
        markdown = child.stdout.read()
        code = child.wait()
    except KeyboardInterrupt:
        # A terminal's Ctrl-C reached the child too (one process group); a SIGINT sent to this
        # process alone (a notebook's interrupt) did not: pass it on, let the child write its
        # table, then raise.
        child.send_signal(signal.SIGINT)
        child.wait()
        pumping.join()
        raise
    pumping.join()
    log = "".join(log_lines)
    if code == 2:
        raise InputError(_error_lines(log))
    if code == 3:
        raise PluginError(_error_lines(log))
    if code not in (0, 4, 130) or not (directory / "comparison.json").is_file():
        raise Error(f"contactlab compare failed (exit {code}): {_error_lines(log)}")
    return Comparison(directory, log=log, markdown=markdown)


def variants(path: PathLike, set: Overrides = None) -> list[dict]:
    """The variants of a comparison file, as `contactlab compare --dry-run` lists them, without
    running or checking them: [{name, values: {path: value as YAML text}}], in table order."""
    return _contactlab.comparison_variants(os.fspath(path), _assignments(set))["variants"]


def open_comparison(directory: PathLike) -> Comparison:
    """A comparison directory written earlier (by `compare`, `contactlab compare` or `merge`)."""
    return Comparison(directory)


# --- plugins ---------------------------------------------------------------------------------

def plugins(kind: Optional[str] = None, *,
            trust_libraries: Sequence[PathLike] = ()) -> list[dict]:
    """The installed plugins, as `contactlab plugins --json` lists them (the same code).

    Each: kind, name, version, description, library (its file), library_name, library_version,
    parameters: [{name, type, default, unit, doc, and for numbers minimum, maximum,
    minimum_exclusive, maximum_exclusive; for choices `choices`}]. `kind` ("force_law",
    "narrow_phase", ...) keeps only those. Libraries that were refused are warned about.
    """
    listing = json.loads(_contactlab.plugins_json(_paths(trust_libraries)))
    if listing["refused_libraries"]:
        import warnings
        for problem in listing["refused_libraries"]:
            warnings.warn(f"contactlab: plugin library refused: {problem['reason']}",
                          stacklevel=2)
    found = listing["plugins"]
    if kind is not None:
        kinds = sorted({p["kind"] for p in found})
        if kind not in kinds:
            raise InputError(f"unknown plugin kind '{kind}'; one of {', '.join(kinds)}")
        found = [p for p in found if p["kind"] == kind]
    return found


# --- shapes and narrow phases ----------------------------------------------------------------

class Shape:
    """A shape as an experiment's `shape:` key gives it, read by the same reader (same keys,
    defaults and errors): {"type": "sphere", "radius_m": 0.1}, {"type": "box", "size_m":
    [1, 1, 1]}, {"type": "convex_hull", "points_m": [[...], ...]} or {"file": "mesh.obj"} (relative
    to the current directory), "smoothing_radius_m", ... Make one to reuse it (a hull is built
    once); `distance` also takes the dictionary itself."""

    def __init__(self, spec: Union[Mapping, str], *, _name: str = "shape"):
        self.spec = spec
        self._handle = _contactlab.Shape(to_yaml(spec), f"<{_name}>", _name, os.getcwd())

    @property
    def type(self) -> str:
        return self._handle.type

    @property
    def warnings(self) -> list[str]:
        """The reader's warnings (a hull of points that are not convex)."""
        return list(self._handle.warnings)

    def __repr__(self) -> str:
        return f"<contactlab.Shape {to_yaml(self.spec)}>"


def _shape(shape: Union[Shape, Mapping, str], name: str) -> Shape:
    return shape if isinstance(shape, Shape) else Shape(shape, _name=name)


def _pose(pose: Any, name: str) -> tuple[np.ndarray, np.ndarray]:
    """(R, p) from None (identity), a position (3,), (position, quaternion_wxyz) or
    (position, R 3×3), or a 4×4 homogeneous matrix."""
    if pose is None:
        return np.eye(3), np.zeros(3)
    try:
        X = np.asarray(pose, dtype=float)
    except (TypeError, ValueError):  # ragged: (position, quaternion) and the like
        X = None
    if X is not None and X.shape == (4, 4):
        if not np.allclose(X[3], [0, 0, 0, 1], atol=1e-12, rtol=0):
            raise ValueError(f"{name}: the last row of a 4×4 pose must be [0, 0, 0, 1]")
        return _rotation(X[:3, :3], name), X[:3, 3].copy()
    if X is not None and X.shape == (3,):
        return np.eye(3), X
    if isinstance(pose, (Sequence, np.ndarray)) and len(pose) == 2:
        position = np.asarray(pose[0], dtype=float)
        if position.shape != (3,):
            raise ValueError(f"{name}: the position must have 3 numbers, got {pose[0]!r}")
        orientation = np.asarray(pose[1], dtype=float)
        if orientation.shape == (4,):
            try:
                R = _contactlab.rotation_from_quaternion(*orientation)
            except InputError as error:
                raise InputError(f"{name}: {error}") from None
            return np.asarray(R), position
        if orientation.shape == (3, 3):
            return _rotation(orientation, name), position
        raise ValueError(f"{name}: the orientation must be a quaternion [w, x, y, z] or a 3×3 "
                         f"rotation matrix, got {pose[1]!r}")
    raise ValueError(f"{name}: a pose is (position, quaternion_wxyz), (position, R), a position "
                     f"or a 4×4 matrix, got {pose!r}")


def _rotation(R: np.ndarray, name: str) -> np.ndarray:
    R = np.asarray(R, dtype=float)
    if not np.allclose(R.T @ R, np.eye(3), atol=1e-9, rtol=0) or np.linalg.det(R) < 0:
        raise ValueError(f"{name}: the rotation is not orthonormal with determinant +1: {R!r}")
    return R


@dataclasses.dataclass(frozen=True, repr=False)
class Distance:
    """A narrow phase's answer for shapes A and B.

    distance: signed (> 0 separated, 0 touching, < 0 penetrating: −distance is the depth) [m].
    normal: unit vector from A to B; point_a, point_b: witness points on A and B, with
    point_b − point_a = distance · normal (world frame). manifold: every point the narrow phase
    reported (a line or face contact may have up to 4), deepest first: arrays distance (k,),
    normal, point_a, point_b (k,3).
    """
    distance: float
    normal: np.ndarray
    point_a: np.ndarray
    point_b: np.ndarray
    manifold: dict

    def __repr__(self) -> str:
        def vector(v: np.ndarray) -> str:
            return "[" + ", ".join(f"{x:.6g}" for x in v) + "]"
        return (f"Distance(distance={self.distance:.12g}, normal={vector(self.normal)}, "
                f"point_a={vector(self.point_a)}, point_b={vector(self.point_b)}, "
                f"points={len(self.manifold['distance'])})")


class NarrowPhase:
    """A narrow-phase plugin, chosen as an entry of an experiment's `collision.narrow_phase`:
    a name ("gjk_epa", "mpr", "primitive", ...) or {"type": name, "params": {...}}. An unknown
    name raises InputError listing the known ones. Keep one to query many poses: `distance()`."""

    def __init__(self, method: Union[str, Mapping] = "gjk_epa", *,
                 trust_libraries: Sequence[PathLike] = ()):
        self._handle = _contactlab.NarrowPhase(to_yaml(method), "<method>", "method", os.getcwd(),
                                               _paths(trust_libraries))

    @property
    def name(self) -> str:
        return self._handle.name

    @property
    def version(self) -> str:
        return self._handle.version

    @property
    def params(self) -> dict:
        """The parameters it was made with, defaults filled in."""
        return dict(self._handle.params)

    def supports(self, type_a: str, type_b: str) -> bool:
        """Whether it answers shape type `type_a` (as A) against `type_b` (as B)."""
        return self._handle.supports(type_a, type_b)

    def statistics(self) -> dict:
        """Its counters since creation (queries, iteration limit hits, degenerate cases, ...)."""
        return self._handle.statistics()

    def distance(self, shape_a: Union[Shape, Mapping], pose_a: Any,
                 shape_b: Union[Shape, Mapping], pose_b: Any, *,
                 cache: Optional[NarrowPhaseCache] = None) -> Distance:
        """The signed distance of shape A at pose_a and shape B at pose_b (see `distance`).

        cache: a `contactlab.NarrowPhaseCache()` to warm-start from the previous query with the
        same cache (as a simulation does along a contact); by default every query starts cold.
        A pair of shape types it does not answer raises InputError naming those that do.
        """
        a, b = _shape(shape_a, "shape_a"), _shape(shape_b, "shape_b")
        R_a, p_a = _pose(pose_a, "pose_a")
        R_b, p_b = _pose(pose_b, "pose_b")
        m = self._handle.query(a._handle, R_a, p_a, b._handle, R_b, p_b, cache)
        return Distance(float(m["distance"][0]), m["normal"][0], m["point_a"][0],
                        m["point_b"][0], m)

    def __repr__(self) -> str:
        return f"<contactlab.NarrowPhase {self.name} {self.version} {self.params}>"


_narrow_phases: dict = {}


def distance(shape_a: Union[Shape, Mapping], pose_a: Any, shape_b: Union[Shape, Mapping],
             pose_b: Any, method: Union[str, Mapping] = "gjk_epa") -> Distance:
    """Signed distance, normal and witness points of two shapes, by a narrow-phase plugin.

    shape_a, shape_b: `Shape`s or dictionaries with the keys of an experiment's `shape:`
        ({"type": "sphere", "radius_m": 0.5}, {"type": "box", "size_m": [1, 1, 1]}, ...).
    pose_a, pose_b: (position, quaternion_wxyz), (position, 3×3 R), a position alone, a 4×4
        homogeneous matrix, or None (identity); world frame, metres.
    method: a narrow phase's name ("gjk_epa", "mpr", "primitive", ...) or {"type", "params"}.

    Each call starts cold (no warm start); `NarrowPhase(method).distance(...)` with a
    `NarrowPhaseCache` warm-starts. Raises InputError for a bad shape (file:line:col within the
    dictionary's YAML and the key path, e.g. "(at shape_a.radius_m)"), an unknown method (with
    the known names) or a pair the method does not answer.
    """
    key = (to_yaml(method), os.environ.get("CONTACTLAB_PLUGIN_PATH"))
    narrow_phase = _narrow_phases.get(key)
    if narrow_phase is None:
        narrow_phase = _narrow_phases[key] = NarrowPhase(method)
    return narrow_phase.distance(shape_a, pose_a, shape_b, pose_b)
