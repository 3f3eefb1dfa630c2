#!/usr/bin/env python3
"""`contactlab export --vtk RUN_DIR`, read back by VTK's own XML reader.

Usage: export_vtk_test.py CONTACTLAB_BINARY FIXTURES_DIR

Runs FIXTURES_DIR/export_vtk.yaml (a soft ball bouncing on a floor, a box tumbling in the air, a
two-part body whose frame is not its centre of mass), exports it and checks every time step of the
.pvd collections against trajectory.csv and contacts.csv:
  - the ball's surface points are at its radius from its centre (1e-9 relative), its normals
    radial;
  - the box's points, brought into its frame by the trajectory's quaternion, are its corners
    (1e-9), their mean is its centre and their principal axis its long axis;
  - the two-part body's capsule and sphere sit where p_WB = p_WCm - R p_BCm and the geometry
    poses put them (p_BCm from the parts' volumes), the capsule's axis along R's;
  - the fixed floor is in every frame at z = 0 under all the bodies;
  - the contact points are contacts.csv's rows at that time, array for array (none: an empty
    point set).
Then --every, every shape type (all_shapes.yaml), an incomplete run (a warning) and the errors (exit 2). Exits 77 (skipped) when
Python has no VTK bindings.
"""
import csv
import math
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree

try:
    import numpy as np
    from vtkmodules.util.numpy_support import vtk_to_numpy
    from vtkmodules.vtkIOXML import vtkXMLPolyDataReader
except ImportError as error:
    print(f"skipped: no VTK Python bindings ({error}); tools/setup.sh installs python3-vtk9")
    sys.exit(77)

CONTACTLAB, FIXTURES = sys.argv[1], sys.argv[2]
FAILURES = []

# The fixture's geometry (tests/cli/fixtures/export_vtk.yaml).
BALL_RADIUS = 0.05
BOX_HALF = np.array([0.1, 0.05, 0.025])
BAR_RADIUS, BAR_SEGMENT, BAR_CENTRE_B = 0.02, 0.2, np.array([0.1, 0.0, 0.0])
KNOB_RADIUS, KNOB_CENTRE_B = 0.04, np.array([-0.05, 0.02, 0.0])


def check(condition, message):
    if not condition:
        FAILURES.append(message)
        print("FAILED:", message)


def run(*arguments, expect=0):
    result = subprocess.run([CONTACTLAB, *arguments], capture_output=True, text=True)
    check(result.returncode == expect,
          f"contactlab {' '.join(arguments)}: exit {result.returncode}, expected {expect}\n"
          f"{result.stdout}{result.stderr}")
    return result


def rotation(w, x, y, z):
    n = math.sqrt(w * w + x * x + y * y + z * z)
    w, x, y, z = w / n, x / n, y / n, z / n
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ])


def read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


def read_trajectory(run_dir):
    header, rows = read_csv(os.path.join(run_dir, "trajectory.csv"))
    frames = []
    for row in rows:
        states = {}
        for c in range(1, len(header), 13):
            body = header[c].rsplit(".", 1)[0]
            v = [float(x) for x in row[c:c + 13]]
            states[body] = (np.array(v[0:3]), rotation(*v[3:7]))
        frames.append((row[0], float(row[0]), states))
    return frames


def read_pvd(path):
    root = ElementTree.parse(path).getroot()
    folder = os.path.dirname(path)
    return [(float(d.get("timestep")), os.path.join(folder, d.get("file")))
            for d in root.iter("DataSet")]


def read_vtp(path):
    reader = vtkXMLPolyDataReader()
    reader.SetFileName(path)
    reader.Update()
    data = reader.GetOutput()
    check(data.GetNumberOfPoints() == 0 or data.GetPoints() is not None, f"{path}: no points")
    return data


def points_of(data):
    if data.GetNumberOfPoints() == 0:
        return np.zeros((0, 3))
    return vtk_to_numpy(data.GetPoints().GetData())


def strings(data, name):
    array = data.GetFieldData().GetAbstractArray(name)
    return [array.GetValue(k) for k in range(array.GetNumberOfValues())]


def geometry_points(data):
    """The points of each geometry's triangles, by the cell data geometry_index."""
    names = strings(data, "geometry_names")
    geometry = vtk_to_numpy(data.GetCellData().GetArray("geometry_index"))
    polys = vtk_to_numpy(data.GetPolys().GetConnectivityArray())
    offsets = vtk_to_numpy(data.GetPolys().GetOffsetsArray())
    check(np.all(np.diff(offsets) == 3), "bodies: every cell is a triangle")
    triangles = polys.reshape(-1, 3)
    out = {}
    for g, name in enumerate(names):
        out[name] = np.unique(triangles[geometry == g].ravel())
    return out


def principal_axis(points):
    centred = points - points.mean(axis=0)
    values, vectors = np.linalg.eigh(centred.T @ centred)
    return vectors[:, np.argmax(values)]


def check_bodies(path, frame_time, states):
    data = read_vtp(path)
    time_value = vtk_to_numpy(data.GetFieldData().GetArray("TimeValue"))[0]
    check(time_value == frame_time, f"{path}: TimeValue {time_value} != {frame_time}")
    points = points_of(data)
    normals = vtk_to_numpy(data.GetPointData().GetNormals())
    check(np.allclose(np.linalg.norm(normals, axis=1), 1.0, atol=1e-12), f"{path}: unit normals")
    ids = geometry_points(data)
    check(strings(data, "body_names") == ["floor", "ball", "tumbler", "dumbbell"],
          f"{path}: body names {strings(data, 'body_names')}")

    moving = vtk_to_numpy(data.GetCellData().GetArray("moving"))
    geometry = vtk_to_numpy(data.GetCellData().GetArray("geometry_index"))
    names = strings(data, "geometry_names")
    check(all((moving[geometry == g] == (name != "floor")).all() for g, name in enumerate(names)),
          f"{path}: cell data 'moving' is 1 but for the floor")

    # The ball: every point at its radius from its centre, its normals radial.
    centre, _ = states["ball"]
    p = points[ids["ball"]]
    distance = np.linalg.norm(p - centre, axis=1)
    check(np.max(np.abs(distance - BALL_RADIUS)) <= 1e-9 * BALL_RADIUS,
          f"{path}: ball points off its radius by {np.max(np.abs(distance - BALL_RADIUS))}")
    radial = (p - centre) / distance[:, None]
    check(np.max(np.abs(normals[ids["ball"]] - radial)) < 1e-9, f"{path}: ball normals")

    # The box: its points are its corners in its own frame (so the orientation is the
    # quaternion's, not only its centre), their mean its centre, their principal axis its x.
    centre, R = states["tumbler"]
    p = points[ids["tumbler"]]
    local = (p - centre) @ R
    check(np.max(np.abs(np.abs(local) - BOX_HALF)) <= 1e-9 * BOX_HALF.max(),
          f"{path}: box points not at its corners (off by {np.max(np.abs(np.abs(local) - BOX_HALF))})")
    check(np.linalg.norm(p.mean(axis=0) - centre) <= 1e-9 * BOX_HALF.max(), f"{path}: box centre")
    check(abs(abs(principal_axis(p) @ R[:, 0]) - 1.0) < 1e-9, f"{path}: box principal axis")

    # The two-part body: the body frame is the centre of mass less R·p_BCm.
    v_bar = math.pi * BAR_RADIUS**2 * BAR_SEGMENT + 4.0 / 3.0 * math.pi * BAR_RADIUS**3
    v_knob = 4.0 / 3.0 * math.pi * KNOB_RADIUS**3
    p_BCm = (v_bar * BAR_CENTRE_B + v_knob * KNOB_CENTRE_B) / (v_bar + v_knob)
    centre, R = states["dumbbell"]
    p_WB = centre - R @ p_BCm
    bar_centre = p_WB + R @ BAR_CENTRE_B
    bar_axis = R[:, 0]  # the capsule's z turned 90° about y: the body's x
    p = points[ids["bar"]]
    along = np.clip((p - bar_centre) @ bar_axis, -BAR_SEGMENT / 2, BAR_SEGMENT / 2)
    off_axis = np.linalg.norm(p - bar_centre - along[:, None] * bar_axis, axis=1)
    check(np.max(np.abs(off_axis - BAR_RADIUS)) <= 1e-9 * BAR_SEGMENT,
          f"{path}: capsule points off its surface by {np.max(np.abs(off_axis - BAR_RADIUS))}")
    check(np.linalg.norm(p.mean(axis=0) - bar_centre) <= 1e-9 * BAR_SEGMENT, f"{path}: capsule centre")
    check(abs(abs(principal_axis(p) @ bar_axis) - 1.0) < 1e-9, f"{path}: capsule axis")
    knob = np.linalg.norm(points[ids["knob"]] - (p_WB + R @ KNOB_CENTRE_B), axis=1)
    check(np.max(np.abs(knob - KNOB_RADIUS)) <= 1e-9 * KNOB_RADIUS, f"{path}: knob points")

    # The fixed floor: in the plane z = 0, facing up, under every body.
    p = points[ids["floor"]]
    check(len(p) == 4 and np.all(p[:, 2] == 0.0), f"{path}: floor patch not at z = 0")
    check(np.all(normals[ids["floor"]] == [0.0, 0.0, 1.0]), f"{path}: floor normals")
    for body, (c, _) in states.items():
        check(p[:, 0].min() < c[0] < p[:, 0].max() and p[:, 1].min() < c[1] < p[:, 1].max(),
              f"{path}: the floor patch is not under {body}")


def check_contacts(path, frame_time, rows):
    data = read_vtp(path)
    n = data.GetNumberOfPoints()
    check(n == len(rows), f"{path}: {n} contact points, contacts.csv has {len(rows)}")
    check(data.GetNumberOfVerts() == n, f"{path}: {data.GetNumberOfVerts()} vertex cells for {n}")
    if n == 0:
        return
    names = strings(data, "geometry_names")
    values = np.array([[float(x) for x in r[3:]] for r in rows])
    arrays = {name: vtk_to_numpy(data.GetPointData().GetArray(name)).reshape(n, -1)
              for name in ("distance_m", "normal", "normal_force_N", "tangential_force_N",
                           "force_N", "geometry_a", "geometry_b")}
    expected = {"distance_m": values[:, 0:1], "normal": values[:, 1:4],
                "normal_force_N": values[:, 7:8], "tangential_force_N": values[:, 8:11]}
    for name, want in expected.items():
        check(np.array_equal(arrays[name], want), f"{path}: {name} {arrays[name]} != {want}")
    check(np.array_equal(points_of(data), values[:, 4:7]), f"{path}: contact points")
    total = values[:, 7:8] * values[:, 1:4] + values[:, 8:11]
    check(np.allclose(arrays["force_N"], total, rtol=0, atol=1e-12 * np.abs(total).max()),
          f"{path}: force_N")
    check([names[i] for i in arrays["geometry_a"].ravel()] == [r[1] for r in rows], f"{path}: geometry_a")
    check([names[i] for i in arrays["geometry_b"].ravel()] == [r[2] for r in rows], f"{path}: geometry_b")


def main():
    scratch = tempfile.mkdtemp(prefix="contactlab_export_vtk_")
    try:
        run_dir = os.path.join(scratch, "run")
        run("run", os.path.join(FIXTURES, "export_vtk.yaml"), "--out", run_dir)
        result = run("export", "--vtk", run_dir)
        check(result.stderr == "", f"export of a complete run warned: {result.stderr}")
        frames = read_trajectory(run_dir)
        _, contact_rows = read_csv(os.path.join(run_dir, "contacts.csv"))
        bodies = read_pvd(os.path.join(run_dir, "vtk", "export_vtk_bodies.pvd"))
        contacts = read_pvd(os.path.join(run_dir, "vtk", "export_vtk_contacts.pvd"))
        check([t for t, _ in bodies] == [t for _, t, _ in frames], "bodies.pvd times != trajectory's")
        check([t for t, _ in contacts] == [t for _, t, _ in frames], "contacts.pvd times != trajectory's")
        with_contacts = 0
        for (text, t, states), (_, bodies_file), (_, contacts_file) in zip(frames, bodies, contacts):
            check_bodies(bodies_file, t, states)
            rows = [r for r in contact_rows if r[0] == text]
            with_contacts += 1 if rows else 0
            check_contacts(contacts_file, t, rows)
        check(0 < with_contacts < len(frames),
              f"the fixture should have frames with and without contacts ({with_contacts} of {len(frames)})")

        # --every 7 into another directory: every 7th output time and the last.
        every_dir = os.path.join(scratch, "every")
        run("export", "--vtk", run_dir, "--every", "7", "--out", every_dir, "--segments", "12")
        kept = read_pvd(os.path.join(every_dir, "export_vtk_bodies.pvd"))
        want = list(range(0, len(frames), 7))
        if want[-1] != len(frames) - 1:
            want.append(len(frames) - 1)
        check([t for t, _ in kept] == [frames[i][1] for i in want], "--every 7: the kept times")
        for (t, file), i in zip(kept, want):
            check_bodies(file, t, frames[i][2])

        # An incomplete run (summary.json says so, the last row cut short): a warning, exit 0.
        cut_dir = os.path.join(scratch, "cut")
        shutil.copytree(run_dir, cut_dir, ignore=shutil.ignore_patterns("vtk"))
        summary = os.path.join(cut_dir, "summary.json")
        with open(summary) as f:
            text = f.read().replace('"status": "complete"', '"status": "incomplete"')
        with open(summary, "w") as f:
            f.write(text)
        trajectory = os.path.join(cut_dir, "trajectory.csv")
        with open(trajectory) as f:
            text = f.read()
        with open(trajectory, "w") as f:
            f.write(text[: text.rstrip("\n").rfind("\n") + 40])
        result = run("export", "--vtk", cut_dir)
        check("warning" in result.stderr and "incomplete" in result.stderr,
              f"an incomplete run: no warning ({result.stderr})")
        check("cut-short" in result.stderr, f"a cut-short row: no warning ({result.stderr})")
        kept = read_pvd(os.path.join(cut_dir, "vtk", "export_vtk_bodies.pvd"))
        check(len(kept) == len(frames) - 1, f"an incomplete run: {len(kept)} time steps")

        # Every shape type (tests/cli/fixtures/all_shapes.yaml): each geometry has triangles.
        shapes_dir = os.path.join(scratch, "shapes")
        run("run", os.path.join(FIXTURES, "all_shapes.yaml"), "--out", shapes_dir,
            "--set", "duration_s=0.01")
        run("export", "--vtk", shapes_dir, "--every", "5")
        for t, file in read_pvd(os.path.join(shapes_dir, "vtk", "all_shapes_bodies.pvd")):
            for name, ids in geometry_points(read_vtp(file)).items():
                check(len(ids) >= 4, f"{file}: geometry {name} has {len(ids)} points")

        # Errors: exit 2 with a message.
        result = run("export", "--vtk", scratch, expect=2)
        check("not a run directory" in result.stderr, f"not a run directory: {result.stderr}")
        result = run("export", "--vtk", os.path.join(scratch, "missing"), expect=2)
        check("not a directory" in result.stderr, f"a missing directory: {result.stderr}")
        result = run("export", run_dir, expect=2)
        check("--vtk" in result.stderr, f"no format: {result.stderr}")
        run("export", "--vtk", run_dir, "--every", "0", expect=2)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if FAILURES:
        print(f"{len(FAILURES)} checks failed")
        sys.exit(1)
    print("all checks passed")


if __name__ == "__main__":
    main()
