"""contactlab.plugins: the listing of `contactlab plugins --json`."""

import pathlib

import pytest

import contactlab


def test_hertz_is_listed_with_its_parameters():
    laws = contactlab.plugins("force_law")
    assert {p["kind"] for p in laws} == {"force_law"}
    hertz = next(p for p in laws if p["name"] == "hertz")
    assert pathlib.Path(hertz["library"]).name == "forcelaw-basic.so"
    assert hertz["version"] and hertz["description"]
    scale = next(p for p in hertz["parameters"] if p["name"] == "stiffness_scale")
    assert scale["type"] == "real" and scale["default"] == 1.0
    assert scale["minimum"] == 0.0 and scale["minimum_exclusive"] is True
    assert scale["maximum"] == 1.0 and scale["doc"]


def test_every_kind_and_the_narrow_phases():
    everything = contactlab.plugins()
    kinds = {p["kind"] for p in everything}
    assert {"broad_phase", "narrow_phase", "force_law", "friction", "integrator", "joint"} <= kinds
    names = {p["name"] for p in contactlab.plugins("narrow_phase")}
    assert {"primitive", "mpr", "gjk_epa"} <= names
    mpr = next(p for p in everything if p["name"] == "mpr")
    precision = next(p for p in mpr["parameters"] if p["name"] == "precision")
    assert precision["type"] == "choice" and "double" in precision["choices"]
    with pytest.raises(contactlab.InputError, match="unknown plugin kind 'force'"):
        contactlab.plugins("force")
