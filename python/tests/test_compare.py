"""contactlab.compare: a two-variant study through the CLI's comparison."""

import numpy as np
import pytest

import contactlab


@pytest.fixture
def study(bouncing_ball, tmp_path):
    file = tmp_path / "study.yaml"
    file.write_text(f"include: [{bouncing_ball}]\n"
                    f"duration_s: 0.01\n"
                    f"variants:\n"
                    f"  integrator.params.step_s: [1.0e-4, 2.0e-4]\n")
    return file


def test_two_variants_give_two_ok_rows(study, tmp_path):
    assert contactlab.variants(study) == [
        {"name": "1.0e-4", "values": {"integrator.params.step_s": "1.0e-4"}},
        {"name": "2.0e-4", "values": {"integrator.params.step_s": "2.0e-4"}}]
    table = contactlab.compare(study, out=tmp_path / "out", jobs=2, quiet=True)
    assert table.status == "complete"
    assert [row["status"] for row in table.rows] == ["ok", "ok"]
    assert [row["name"] for row in table.rows] == ["1.0e-4", "2.0e-4"]
    assert table.paths == ["integrator.params.step_s"]
    assert table["2.0e-4"]["values"] == {"integrator.params.step_s": "2.0e-4"}
    assert "steps" in table.columns
    assert np.array_equal(table.column("steps"), [100, 50])
    assert table.run("1.0e-4").summary["steps"] == 100
    assert (tmp_path / "out" / "comparison.json").is_file()
    assert "1.0e-4" in table.markdown
    again = contactlab.open_comparison(tmp_path / "out")
    assert [row["name"] for row in again] == ["1.0e-4", "2.0e-4"]


def test_an_invalid_variant_runs_nothing(study, tmp_path):
    with pytest.raises(contactlab.InputError, match=r"unknown key 'stepp_s' \(did you mean"):
        contactlab.compare(study, set={"variants": {"integrator.params.stepp_s": [1e-4]}},
                           out=tmp_path / "out", quiet=True)
    assert not (tmp_path / "out").exists()
