"""Shared fixtures of the Python module's tests (run by ctest -L python, or by hand:
PYTHONPATH=build/lib/python3/dist-packages /usr/bin/python3 -m pytest -q python/tests)."""

import os
import pathlib

import pytest

CONFIGS = pathlib.Path(os.environ.get(
    "CONTACTLAB_CONFIGS_DIR", pathlib.Path(__file__).resolve().parents[2] / "configs"))


@pytest.fixture(scope="session")
def configs() -> pathlib.Path:
    """The repository's configs/ (CONTACTLAB_CONFIGS_DIR when ctest runs the suite)."""
    return CONFIGS


@pytest.fixture(scope="session")
def bouncing_ball(configs) -> pathlib.Path:
    return configs / "bouncing_ball.yaml"
