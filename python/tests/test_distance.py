"""contactlab.distance: narrow-phase queries on their own, against exact answers."""

import math

import numpy as np
import pytest

import contactlab

IDENTITY = [1, 0, 0, 0]
UNIT_SPHERE = {"type": "sphere", "radius_m": 1.0}
UNIT_BOX = {"type": "box", "size_m": [1, 1, 1]}


@pytest.mark.parametrize("method", ["gjk_epa", "mpr", "primitive"])
def test_two_unit_spheres_three_metres_apart(method):
    d = contactlab.distance(UNIT_SPHERE, ([0, 0, 0], IDENTITY), UNIT_SPHERE,
                            ([3, 0, 0], IDENTITY), method=method)
    assert abs(d.distance - 1.0) <= 1e-12
    assert np.allclose(d.normal, [1, 0, 0], atol=1e-12)
    assert np.allclose(d.point_a, [1, 0, 0], atol=1e-12)
    assert np.allclose(d.point_b, [2, 0, 0], atol=1e-12)


@pytest.mark.parametrize("method", ["gjk_epa", "mpr", "primitive"])
def test_box_box_penetration_depth(method):
    # Unit cubes, B shifted by (0.9, 0.1, 0.05): they overlap by 0.1 along x (0.9 and 0.95
    # along y and z), so the depth is 0.1 with the normal +x.
    d = contactlab.distance(UNIT_BOX, None, UNIT_BOX, ([0.9, 0.1, 0.05], IDENTITY), method=method)
    assert d.distance == pytest.approx(-0.1, abs=1e-12)
    assert np.allclose(d.normal, [1, 0, 0], atol=1e-12)
    assert np.allclose(d.point_b - d.point_a, d.distance * d.normal, atol=1e-12)


@pytest.mark.parametrize("method", ["gjk_epa", "primitive"])
def test_a_rotated_box_edge_into_a_face(method):
    # B turned 45° about z: its vertical edge at x = c − √2/2 pierces A's face x = 0.5 by 0.05.
    c = 0.5 + math.sqrt(0.5) - 0.05
    q = [math.cos(math.pi / 8), 0, 0, math.sin(math.pi / 8)]
    d = contactlab.distance(UNIT_BOX, None, UNIT_BOX, ([c, 0.2, 0.1], q), method=method)
    assert d.distance == pytest.approx(-0.05, abs=1e-12)
    assert np.allclose(d.normal, [1, 0, 0], atol=1e-12)
    # The same pose as a 4×4 matrix.
    w, x, y, z = q
    X = np.eye(4)
    X[:3, :3] = [[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                 [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                 [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]]
    X[:3, 3] = [c, 0.2, 0.1]
    assert contactlab.distance(UNIT_BOX, None, UNIT_BOX, X, method=method).distance == \
        pytest.approx(-0.05, abs=1e-12)


def test_a_hull_of_the_cube_answers_as_the_box():
    corners = [[x, y, z] for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)]
    hull = contactlab.Shape({"type": "convex_hull", "points_m": corners})
    assert hull.type == "convex_hull" and hull.warnings == []
    narrow_phase = contactlab.NarrowPhase("gjk_epa")
    cache = contactlab.NarrowPhaseCache()
    for _ in range(2):  # cold, then warm from the cache
        d = narrow_phase.distance(hull, None, UNIT_BOX, [1.7, 0.0, 0.0], cache=cache)
        assert d.distance == pytest.approx(0.7, abs=1e-12)
    assert narrow_phase.statistics()["queries"] == 2


def test_an_unknown_method_lists_the_known_ones():
    with pytest.raises(contactlab.InputError) as caught:
        contactlab.distance(UNIT_SPHERE, None, UNIT_SPHERE, [3, 0, 0], method="gjk")
    message = str(caught.value)
    assert "unknown narrow_phase 'gjk'" in message
    for name in ("gjk_epa", "mpr", "primitive"):
        assert name in message


def test_a_pair_the_method_does_not_answer():
    ellipsoid = {"type": "ellipsoid", "size_m": [1, 2, 3]}
    assert not contactlab.NarrowPhase("primitive").supports("ellipsoid", "sphere")
    with pytest.raises(contactlab.InputError,
                       match=r"'primitive' does not answer the pair ellipsoid .* sphere .*"
                             r"narrow phases that do: .*gjk_epa"):
        contactlab.distance(ellipsoid, None, UNIT_SPHERE, [3, 0, 0], method="primitive")


def test_shape_errors_are_the_yaml_readers():
    with pytest.raises(contactlab.InputError,
                       match=r"<shape_a>:1:\d+: unknown key 'radius_mm' \(did you mean "
                             r"'radius_m'\?\).*\(at shape_a\.radius_mm\)"):
        contactlab.distance({"type": "sphere", "radius_mm": 1}, None, UNIT_SPHERE, [3, 0, 0])
    with pytest.raises(contactlab.InputError, match=r"<shape>:1:\d+: value 0.2 out of range \[0, 0.1\] m \(at shape\.smoothing_radius_m\)"):
        contactlab.Shape({"type": "box", "size_m": [1, 1, 1], "smoothing_radius_m": 0.2})
    with pytest.raises(ValueError, match="pose_b"):
        contactlab.distance(UNIT_SPHERE, None, UNIT_SPHERE, ([3, 0], IDENTITY))


def test_method_parameters():
    narrow_phase = contactlab.NarrowPhase({"type": "mpr", "params": {"manifold_points": 4}})
    assert narrow_phase.name == "mpr" and narrow_phase.params["manifold_points"] == 4
    with pytest.raises(contactlab.InputError, match=r"method\.params\.manifold_points"):
        contactlab.NarrowPhase({"type": "mpr", "params": {"manifold_points": 9}})
