"""Loading and checking experiments: overrides with the CLI's --set semantics, located errors."""

import math
import re

import pytest

import contactlab


def test_dict_overrides_change_the_resolved_configuration(bouncing_ball, tmp_path):
    experiment = contactlab.load(bouncing_ball, set={
        "duration_s": 0.001,
        "bodies.ball.initial.position_m": [0, 0, 2],  # a Python list, written as YAML
        "integrator.params.step_s": 2e-5,
    })
    assert experiment.name == "bouncing_ball"
    assert experiment.duration_s == 0.001
    assert experiment.bodies == ["floor", "ball"]
    assert experiment.moving_bodies == ["ball"]
    assert re.search(r"^\s+step_s: 2e-05$", experiment.resolved_yaml, re.M)
    # The new initial position is the one that runs.
    run = experiment.run(tmp_path / "run")
    assert run.trajectory["ball"].position[0].tolist() == [0.0, 0.0, 2.0]
    assert "step_s: 2e-05" in run.resolved_yaml


def test_string_overrides_are_the_cli_assignments(bouncing_ball):
    experiment = contactlab.load(bouncing_ball, set=[
        "contact.force_law={type: linear, params: {stiffness_N_per_m: 1.0e7}}",
        "duration_s=0.5"])
    assert experiment.overrides[1] == "duration_s=0.5"
    assert experiment.duration_s == 0.5
    assert re.search(r"type: linear\n\s+params:\n\s+stiffness_N_per_m: 1\.0e7",
                     experiment.resolved_yaml)
    again = experiment.with_overrides({"duration_s": "0.25"})  # a string value is YAML
    assert again.duration_s == 0.25 and "type: linear" in again.resolved_yaml


def test_a_misspelt_key_in_the_file_is_located(configs, tmp_path):
    file = tmp_path / "ball.yaml"
    file.write_text(
        f"name: misspelt\n"
        f"include: [{configs / 'materials.yaml'}]\n"
        f"bodies:\n"
        f"  - name: ball\n"
        f"    joint: free\n"
        f"    initial: {{ positon_m: [0, 0, 1] }}\n"
        f"    geometry:\n"
        f"      - {{ name: ball, shape: {{ type: sphere, radius_m: 0.05 }}, material: Steel }}\n"
        f"duration_s: 1.0\n")
    with pytest.raises(contactlab.InputError) as caught:
        contactlab.load(file)
    message = str(caught.value)
    assert f"{file}:6:27:" in message  # the misspelt key's value, line 6, column 27
    assert "unknown key 'positon_m' (did you mean 'position_m'?)" in message
    assert "bodies[0].initial.positon_m" in message
    assert isinstance(caught.value, ValueError) and isinstance(caught.value, contactlab.Error)


def test_an_override_error_names_the_assignment(bouncing_ball):
    with pytest.raises(contactlab.InputError,
                       match=r"--set contact\.force_law\.type=hertzz: .*did you mean 'hertz'"):
        contactlab.validate(bouncing_ball, set={"contact.force_law.type": "hertzz"})
    with pytest.raises(contactlab.InputError, match="must be a finite number, got 'abc'"):
        contactlab.validate(bouncing_ball, set=["integrator.params.step_s=abc"])
    with pytest.raises(contactlab.InputError, match="cannot open"):
        contactlab.load(bouncing_ball.with_name("no_such_file.yaml"))


def test_error_classes():
    assert issubclass(contactlab.InputError, ValueError)
    assert issubclass(contactlab.PluginError, RuntimeError)
    assert issubclass(contactlab.SimulationError, RuntimeError)
    for error in (contactlab.InputError, contactlab.PluginError, contactlab.SimulationError):
        assert issubclass(error, contactlab.Error) and error.__module__ == "contactlab"


def test_python_values_as_yaml():
    to_yaml = contactlab.to_yaml
    assert to_yaml(0.1) == "0.1" and float(to_yaml(1 / 3)) == 1 / 3  # every digit kept
    assert to_yaml(True) == "true" and to_yaml(None) == "null" and to_yaml(3) == "3"
    assert to_yaml(math.inf) == ".inf"
    assert to_yaml("[0, 0, 1]") == "[0, 0, 1]"  # top-level text is YAML, as --set's value
    assert to_yaml({"type": "hunt_crossley", "params": {"damping_model": "flores"}}) == \
        '{type: "hunt_crossley", params: {damping_model: "flores"}}'
    import numpy as np
    assert to_yaml(np.array([0.0, 0.5])) == "[0.0, 0.5]" and to_yaml(np.int64(2)) == "2"
    with pytest.raises(TypeError):
        to_yaml(object())
