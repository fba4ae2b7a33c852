"""``anon-core anonymize`` goes through the application's Session: the same released bytes as
``anon-core release --method generalization``, on the sample data and on Adult; the scale
engines still write the release without loading the table; ``risk`` is a thin command."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pandas as pd
import pytest

from anon_core.cli import EXIT_NOT_SATISFIED, main
from anon_core.errors import ConfigError
from anon_core.services.session import Session
from tests.conftest import ADULT

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_data" / "hospital_discharge.csv"
ADULT_QIS = ("age", "education", "marital-status", "native-country", "race", "sex", "workclass")


def _sample_config(**overrides) -> dict:
    config = {
        "input": {"path": str(SAMPLE)},
        "attributes": {
            "patient_name": {"role": "identifier"},
            "email": {"role": "identifier"},
            "phone": {"role": "identifier"},
            "zip_code": {
                "role": "quasi-identifier",
                "hierarchy": {"builder": "masking", "levels": 5},
            },
            "sex": {"role": "quasi-identifier"},
            "length_of_stay": {
                "role": "quasi-identifier",
                "hierarchy": {"builder": "intervals", "width": 5},
            },
            "diagnosis": {"role": "sensitive"},
            "birth_date": {"role": "insensitive"},
            "admission_date": {"role": "insensitive"},
            "notes": {"role": "insensitive"},
        },
        "privacy_models": [{"model": "k-anonymity", "k": 5}],
        "suppression_limit": 0.05,
        "quality_metric": {"name": "loss"},
    }
    config.update(overrides)
    return config


def _adult_config() -> dict:
    attributes = {
        q: {
            "role": "quasi-identifier",
            "hierarchy": {"file": str(ADULT / f"adult_hierarchy_{q}.csv")},
        }
        for q in ADULT_QIS
    }
    attributes["occupation"] = {"role": "sensitive"}
    attributes["salary-class"] = {"role": "insensitive"}
    return {
        "input": {"path": str(ADULT / "adult.csv")},
        "attributes": attributes,
        "privacy_models": [{"model": "k-anonymity", "k": 5}],
        "suppression_limit": 0.02,
    }


def _both(tmp_path: Path, config: dict, capsys) -> tuple[bytes, bytes, dict]:
    path = tmp_path / "release.json"
    path.write_text(json.dumps(config))
    anonymized, released = tmp_path / "anonymized.csv", tmp_path / "released.csv"
    assert main(["anonymize", str(path), "--output", str(anonymized)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert (
        main(
            [
                "release",
                str(path),
                "--method",
                "generalization",
                "--no-evidence",
                "--output",
                str(released),
            ]
        )
        == 0
    )
    capsys.readouterr()
    return anonymized.read_bytes(), released.read_bytes(), summary


@pytest.mark.parametrize("transformation", [None, {"zip_code": 2, "sex": 0, "length_of_stay": 1}])
def test_anonymize_and_release_generalization_write_the_same_bytes_on_the_sample(
    tmp_path, capsys, transformation
):
    config = _sample_config(**({"transformation": transformation} if transformation else {}))
    anonymized, released, summary = _both(tmp_path, config, capsys)
    assert anonymized == released
    assert summary["satisfied"] is True
    frame = pd.read_csv(tmp_path / "anonymized.csv", dtype=str, keep_default_na=False)
    # the identifiers are gone and every released class has at least k = 5 records
    assert not {"patient_name", "email", "phone"} & set(frame.columns)
    kept = frame[frame["sex"] != "*"]
    assert kept.groupby(["zip_code", "sex", "length_of_stay"]).size().min() >= 5
    if transformation:
        assert summary["transformation"] == transformation


@pytest.mark.skipif(not (ADULT / "adult.csv").is_file(), reason="../shared/data/adult is absent")
def test_anonymize_and_release_generalization_write_the_same_bytes_on_adult(tmp_path, capsys):
    anonymized, released, summary = _both(tmp_path, _adult_config(), capsys)
    assert anonymized == released
    assert summary["satisfied"] is True
    frame = pd.read_csv(tmp_path / "anonymized.csv", sep=None, engine="python", dtype=str)
    assert len(frame) >= 30162 * (1 - 0.02)  # at most 2 % suppressed (removed)


@pytest.mark.skipif(importlib.util.find_spec("duckdb") is None, reason="duckdb is not installed")
def test_a_scale_engine_writes_through_the_session_without_loading_the_table(
    tmp_path, capsys, monkeypatch
):
    path = tmp_path / "release.json"
    path.write_text(json.dumps(_sample_config()))
    in_memory = tmp_path / "pandas.csv"
    assert main(["anonymize", str(path), "--output", str(in_memory)]) == 0
    expected = json.loads(capsys.readouterr().out)

    def no_loading(*args, **kwargs):
        raise AssertionError("the DuckDB path loaded the input into memory")

    import anon_core.services.inputs as inputs
    import anon_core.transform.problem as problem

    monkeypatch.setattr(inputs, "load_input", no_loading)
    monkeypatch.setattr(problem, "load_input", no_loading)
    on_duckdb = tmp_path / "duckdb.csv"
    assert main(["anonymize", str(path), "--engine", "duckdb", "--output", str(on_duckdb)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["output"]["engine"] == "duckdb"
    assert summary["transformation"] == expected["transformation"]
    left = pd.read_csv(in_memory, dtype=str, keep_default_na=False)
    right = pd.read_csv(on_duckdb, dtype=str, keep_default_na=False)
    key = list(left.columns)
    assert list(right.columns) == key
    pd.testing.assert_frame_equal(
        left.sort_values(key).reset_index(drop=True), right.sort_values(key).reset_index(drop=True)
    )


def test_the_session_refuses_to_write_when_nothing_satisfies(tmp_path, capsys):
    config = _sample_config(
        privacy_models=[{"model": "k-anonymity", "k": 5000}], suppression_limit=0.0
    )
    path = tmp_path / "release.json"
    path.write_text(json.dumps(config))
    out = tmp_path / "out.csv"
    assert main(["anonymize", str(path), "--output", str(out)]) == EXIT_NOT_SATISFIED
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: no transformation satisfies")
    assert not out.exists()
    session = Session.open(path)
    resolution = session.resolution()
    assert resolution.result is None
    with pytest.raises(ConfigError, match="nothing to write"):
        session.write_generalization(resolution, out)
    assert not out.exists()


def test_risk_prints_the_services_figures_and_refuses_without_a_release(tmp_path, capsys):
    path = tmp_path / "release.json"
    path.write_text(
        json.dumps(_sample_config(transformation={"zip_code": 0, "sex": 0, "length_of_stay": 0}))
    )
    assert main(["risk", str(path), "--max-combination-size", "0"]) == EXIT_NOT_SATISFIED
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Use --force to assess it anyway" in err[0]
    assert main(["risk", str(path), "--force", "--max-combination-size", "0"]) == 0
    forced = json.loads(capsys.readouterr().out)
    assert forced["satisfied"] is False and forced["chosen_by"] == "configured"
    # the original table under the identity transformation: the same classes as the forced
    # figures; prosecutor average risk = classes / records (counted here with pandas)
    assert main(["risk", str(path), "--original", "--max-combination-size", "0"]) == 0
    original = json.loads(capsys.readouterr().out)
    frame = pd.read_csv(SAMPLE, dtype=str, keep_default_na=False)
    classes = frame.groupby(["zip_code", "sex", "length_of_stay"]).ngroups
    for figures in (original, forced):
        assert figures["records"] == len(frame)
        assert figures["equivalence_classes"] == classes
        assert figures["prosecutor"]["average_risk"] == pytest.approx(
            classes / len(frame), abs=5e-4
        )
