"""Release configuration validation and the anon-core CLI."""

from __future__ import annotations

import json
import subprocess
import sys

import pandas as pd
import pytest

from anon_core import ConfigError, load_config, parse_config
from anon_core.cli import EXIT_BAD_INPUT, EXIT_NOT_SATISFIED, main

DATA = "name,zip,age,sex,disease,notes\n" + "".join(
    f"p{i},0213{i % 4},{20 + i % 40},{'FM'[i % 2]},{['flu', 'cold', 'hiv'][i % 3]},n{i}\n"
    for i in range(120)
)


def _write(tmp_path, config: dict, data: str = DATA):
    (tmp_path / "data").mkdir(exist_ok=True)
    (tmp_path / "data" / "people.csv").write_text(data)
    path = tmp_path / "release.json"
    path.write_text(json.dumps(config))
    return path


def _config(**overrides):
    cfg = {
        "input": {"path": "data/people.csv"},
        "attributes": {
            "name": {"role": "identifier"},
            "zip": {"role": "quasi-identifier", "hierarchy": {"builder": "masking", "levels": 5}},
            "age": {"role": "quasi-identifier", "hierarchy": {"builder": "intervals", "width": 10}},
            "sex": {"role": "quasi-identifier"},
            "disease": {"role": "sensitive"},
            "notes": {"role": "insensitive"},
        },
        "privacy_models": [
            {"model": "k-anonymity", "k": 5},
            {"model": "distinct-l-diversity", "attribute": "disease", "l": 2},
        ],
        "suppression_limit": 0.02,
        "quality_metric": {"name": "loss"},
        "transformation": {"zip": 1, "age": 2, "sex": 0},
    }
    cfg.update(overrides)
    return cfg


def test_cli_prints_summary_and_writes_k_anonymous_output(tmp_path, capsys):
    cfg_path = _write(tmp_path, _config())
    out = tmp_path / "out" / "released.csv"
    assert main(["anonymize", str(cfg_path), "--output", str(out)]) == 0
    summary = json.loads(capsys.readouterr().out)
    for key in (
        "transformation",
        "satisfied",
        "quality",
        "suppressed_records",
        "equivalence_classes",
        "min_class_size",
        "max_class_size",
        "average_class_size",
    ):
        assert key in summary
    assert summary["quality"]["metric"] == "loss"
    assert set(summary["quality"]["per_attribute"]) == {"zip", "age", "sex"}
    released = pd.read_csv(out, dtype=str)
    assert "name" not in released.columns and "notes" in released.columns
    assert released.groupby(["zip", "age", "sex"]).size().min() >= 5
    assert released.groupby(["zip", "age", "sex"])["disease"].nunique().min() >= 2
    assert len(released) == 120 - summary["suppressed_records"]


@pytest.mark.parametrize("suffix", [".parquet", ".xlsx", ".json", ".tsv"])
def test_cli_output_formats(tmp_path, capsys, suffix):
    cfg_path = _write(tmp_path, _config())
    out = tmp_path / f"released{suffix}"
    assert main(["anonymize", str(cfg_path), "-o", str(out)]) == 0
    assert out.stat().st_size > 0


def test_k_larger_than_table_is_not_satisfied_and_not_written(tmp_path, capsys):
    cfg = _config(privacy_models=[{"model": "k-anonymity", "k": 500}], suppression_limit=0.0)
    cfg_path = _write(tmp_path, cfg)
    out = tmp_path / "released.csv"
    assert main(["anonymize", str(cfg_path), "--output", str(out)]) == EXIT_NOT_SATISFIED
    captured = capsys.readouterr()
    assert json.loads(captured.out)["satisfied"] is False
    assert "nothing was written" in captured.err
    assert not out.exists()
    assert main(["anonymize", str(cfg_path), "--output", str(out), "--force"]) == 0


def test_mask_mode_keeps_all_rows(tmp_path, capsys):
    cfg = _config(output={"suppressed_records": "mask"}, suppression_limit=0.5)
    cfg["privacy_models"] = [{"model": "k-anonymity", "k": 8}]
    cfg["transformation"] = {"zip": 0, "age": 1, "sex": 0}  # classes of 7 and 8 records
    cfg_path = _write(tmp_path, cfg)
    out = tmp_path / "released.csv"
    assert main(["anonymize", str(cfg_path), "-o", str(out)]) == 0
    released = pd.read_csv(out, dtype=str)
    assert len(released) == 120
    suppressed = json.loads(capsys.readouterr().out)["suppressed_records"]
    assert 0 < suppressed <= 60
    assert (released[["zip", "age", "sex"]] == "*").all(axis=1).sum() == suppressed


@pytest.mark.parametrize(
    "change,needle",
    [
        (
            {"privacy_models": [{"model": "k-anonymity", "k": 0}]},
            "'k-anonymity.k' must be at least 1",
        ),
        ({"privacy_models": [{"model": "k-anonymty", "k": 2}]}, "must be one of"),
        ({"privacy_models": []}, "non-empty list"),
        ({"suppression_limit": 1.5}, "'suppression_limit' must be at most 1"),
        ({"quality_metric": {"name": "loss", "monotonic": True}}, "only the non-monotonic"),
        ({"quality_metric": {"name": "utility"}}, "quality_metric.name"),
        ({"extra_field": 1}, "unknown field"),
        ({"transformation": {"zip": "two"}}, "whole-number level"),
        ({"attributes": {"zip": {"role": "quasi"}}}, "attributes.zip.role"),
        ({"attributes": {"zip": {"role": "sensitive"}}}, "no quasi-identifier"),
        (
            {"attributes": {"zip": {"role": "quasi-identifier", "hierarchy": {"bogus": 1}}}},
            "needs exactly one of",
        ),
    ],
)
def test_config_validation_messages(change, needle):
    with pytest.raises(ConfigError, match=needle):
        parse_config(_config(**change))


@pytest.mark.parametrize(
    "change,needle",
    [
        (
            {"transformation": {"zip": 9, "age": 0, "sex": 0}},
            "'transformation.zip' must be between 0 and",
        ),
        ({"transformation": {"zip": 1}}, "has no level for"),
        ({"transformation": {"zip": 1, "age": 1, "sex": 0, "town": 1}}, "not quasi-identifiers"),
        ({"input": {"path": "data/missing.csv"}}, "does not exist"),
        (
            {"privacy_models": [{"model": "distinct-l-diversity", "attribute": "age", "l": 2}]},
            "sensitive attribute",
        ),
    ],
)
def test_cli_bad_input_exits_with_one_line(tmp_path, capsys, change, needle):
    cfg_path = _write(tmp_path, _config(**change))
    assert main(["anonymize", str(cfg_path)]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert needle in err
    assert "Traceback" not in err


def test_missing_transformation_is_explained(tmp_path, capsys):
    cfg = _config()
    del cfg["transformation"]
    assert main(["anonymize", str(_write(tmp_path, cfg))]) == 0  # no transformation: it searches
    out = json.loads(capsys.readouterr().out)
    assert out["chosen_by"] == "search" and {"nodes_checked", "lattice_size"} <= set(out)


def test_relative_paths_resolve_against_config_folder(tmp_path, monkeypatch):
    cfg_path = _write(tmp_path, _config())
    monkeypatch.chdir("/")
    config = load_config(cfg_path)
    assert config.input_path == tmp_path / "data" / "people.csv"


def test_yaml_config_and_hierarchy_file(tmp_path, capsys):
    (tmp_path / "sex.csv").write_text("F;*\nM;*\n")
    cfg = _config()
    cfg["attributes"]["sex"]["hierarchy"] = {"file": "sex.csv"}
    _write(tmp_path, cfg)
    import yaml

    yml = tmp_path / "release.yaml"
    yml.write_text(yaml.safe_dump(cfg))
    assert main(["anonymize", str(yml)]) == 0


def test_invalid_json_and_missing_config(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{oops")
    assert main(["anonymize", str(bad)]) == EXIT_BAD_INPUT
    assert "not valid JSON" in capsys.readouterr().err
    assert main(["anonymize", str(tmp_path / "none.json")]) == EXIT_BAD_INPUT


def test_values_absent_from_hierarchy_file(tmp_path, capsys):
    (tmp_path / "sex.csv").write_text("F;*\n")
    cfg = _config()
    cfg["attributes"]["sex"]["hierarchy"] = {"file": "sex.csv"}
    assert main(["anonymize", str(_write(tmp_path, cfg))]) == EXIT_BAD_INPUT
    assert "'M'" in capsys.readouterr().err


def test_console_script_runs(tmp_path):
    cfg_path = _write(tmp_path, _config())
    proc = subprocess.run(
        [sys.executable, "-m", "anon_core.cli", "anonymize", str(cfg_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["satisfied"] in (True, False)


def test_same_config_gives_byte_identical_output(tmp_path, capsys):
    cfg_path = _write(tmp_path, _config())
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    assert main(["anonymize", str(cfg_path), "-o", str(a)]) == 0
    assert main(["anonymize", str(cfg_path), "-o", str(b)]) == 0
    assert a.read_bytes() == b.read_bytes()
