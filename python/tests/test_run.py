"""Running an experiment and reading its run directory: against the CSV files on disk and against
free fall, the contact, the events; Ctrl-C and the progress hook."""

import math
import os
import signal
import threading

import numpy as np
import pytest

import contactlab

G = 9.81
Z0 = 1.0  # the ball's initial height in configs/bouncing_ball.yaml


@pytest.fixture(scope="module")
def ball_run(bouncing_ball, tmp_path_factory):
    """0.5 s: one impact (at 0.440 s); output every 50 µs so that the 0.26 ms contact has rows."""
    directory = tmp_path_factory.mktemp("ball") / "run"
    return contactlab.run(bouncing_ball, set={"duration_s": 0.5, "output.interval_s": 5e-5},
                          out=directory)


def test_status_and_summary(ball_run):
    assert ball_run.status == "complete"
    assert ball_run.summary["status"] == "complete"
    assert ball_run.summary["time_reached_s"] == pytest.approx(0.5, abs=1e-12)
    assert ball_run.directory.is_dir() and ball_run.directory.is_absolute()


def test_trajectory_arrays_are_the_csv_on_disk(ball_run):
    table = np.loadtxt(ball_run.directory / "trajectory.csv", delimiter=",", skiprows=1)
    header = (ball_run.directory / "trajectory.csv").read_text().splitlines()[0].split(",")
    trajectory = ball_run.trajectory
    assert trajectory.bodies == ["ball"] and list(trajectory) == ["ball"]
    ball = trajectory["ball"]
    n = len(trajectory.time_s)
    assert n == table.shape[0] == 10001
    assert np.array_equal(trajectory.time_s, table[:, 0])
    column = {name: i for i, name in enumerate(header)}
    for key, names in [("position", ["px", "py", "pz"]), ("quaternion_wxyz", ["qw", "qx", "qy", "qz"]),
                       ("velocity", ["vx", "vy", "vz"]), ("angular_velocity", ["wx", "wy", "wz"])]:
        expected = table[:, [column["ball." + c] for c in names]]
        assert ball[key].shape == (n, len(names))
        assert np.array_equal(ball[key], expected), key
        assert np.array_equal(getattr(ball, key), expected)


def test_free_fall_before_the_first_contact(ball_run):
    trajectory = ball_run.trajectory
    t = trajectory.time_s
    ball = trajectory["ball"]
    i = int(np.flatnonzero(np.isclose(t, 0.3, rtol=0, atol=1e-12))[0])
    assert ball.position[i, 2] == pytest.approx(Z0 - 0.5 * G * t[i] ** 2, abs=1e-6)
    assert ball.velocity[i, 2] == pytest.approx(-G * t[i], abs=1e-6)
    # Every output time before the impact (the ball touches at z = 0.05 m).
    before = t < math.sqrt(2 * (Z0 - 0.05) / G) - 1e-4
    assert np.max(np.abs(ball.position[before, 2] - (Z0 - 0.5 * G * t[before] ** 2))) < 1e-6


def test_contacts(ball_run):
    contacts = ball_run.contacts
    m = len(contacts["time_s"])
    assert m > 0
    assert set(contacts["geometry_a"]) == {"floor"} and set(contacts["geometry_b"]) == {"ball"}
    assert contacts["normal"].shape == (m, 3)
    assert np.allclose(contacts["normal"], [0, 0, 1], atol=1e-12)
    assert np.all(contacts["distance_m"] < 0) and np.all(contacts["normal_force_N"] > 0)
    assert np.all((contacts["time_s"] > 0.440) & (contacts["time_s"] < 0.4404))
    assert contacts["point"].shape == contacts["tangential_force_N"].shape == (m, 3)


def test_events_and_energy(ball_run):
    kinds = [e["kind"] for e in ball_run.events]
    assert kinds == ["contact_start", "contact_end"]
    start, end = ball_run.events
    t_impact = math.sqrt(2 * (Z0 - 0.05) / G)
    assert start["time_s"] == pytest.approx(t_impact, abs=1e-9)
    assert start["impact_velocity_m_per_s"] == pytest.approx(G * t_impact, abs=1e-6)
    assert isinstance(end["duration_s"], float) and 2e-4 < end["duration_s"] < 3e-4
    energy = ball_run.energy
    assert np.array_equal(energy["time_s"], ball_run.trajectory.time_s)
    assert energy["energy_J"][-1] == pytest.approx(ball_run.summary["energy_final_J"], rel=1e-12)


def test_a_run_directory_opens_again(ball_run):
    again = contactlab.open_run(ball_run.directory)
    assert again.summary["steps"] == ball_run.summary["steps"]
    with pytest.raises(contactlab.InputError, match="not a run directory"):
        contactlab.open_run(ball_run.directory / "no_such_run")


def test_default_directory_is_under_the_current_directory(bouncing_ball, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    run = contactlab.load(bouncing_ball, set={"duration_s": 0.001}).run()
    assert run.directory.parent == tmp_path / "runs"
    assert run.directory.name.startswith("bouncing_ball-")
    assert run.status == "complete"


def test_progress_can_stop_a_run(bouncing_ball, tmp_path):
    seen = []

    def progress(time_s, steps):
        seen.append((time_s, steps))
        return False  # stop at the first call

    run = contactlab.run(bouncing_ball, set={"duration_s": 20.0}, out=tmp_path / "run",
                         progress=progress)
    assert seen and run.status == "incomplete"
    assert run.summary["time_reached_s"] < 20.0


def test_ctrl_c_interrupts_a_run(bouncing_ball, tmp_path):
    # SIGINT to this process, as Ctrl-C: the run stops after its step, is kept, marked
    # incomplete, and KeyboardInterrupt reaches Python.
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            contactlab.run(bouncing_ball, set={"duration_s": 20.0}, out=tmp_path / "run")
    finally:
        timer.cancel()
    run = contactlab.open_run(tmp_path / "run")
    assert run.status == "incomplete"
    assert 0 < run.summary["time_reached_s"] < 20.0
    assert len(run.trajectory.time_s) > 1
