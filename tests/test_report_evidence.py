"""The release report carries the attack battery, the release method with its guarantee, the
population figures and how the transformation was chosen; verify re-runs the attacks with the same
seeds and catches an edited attack figure."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from anon_core import report as R
from anon_core.cli import main
from anon_core.config import load_config
from anon_core.services.resolve import resolve


def _write_case(tmp_path, attack: bool = True) -> str:
    rng = np.random.default_rng(4)
    n = 600
    frame = pd.DataFrame(
        {
            "age": rng.integers(20, 70, n),
            "sex": rng.choice(["F", "M"], n),
            "zip": rng.choice([f"0213{i}" for i in range(6)], n),
            "disease": rng.choice(["flu", "cold", "asthma", "none"], n),
        }
    )
    frame.to_csv(tmp_path / "data.csv", index=False)
    config = {
        "input": {"path": "data.csv"},
        "attributes": {
            "age": {"role": "quasi-identifier"},
            "sex": {"role": "quasi-identifier"},
            "zip": {"role": "quasi-identifier"},
            "disease": {"role": "sensitive"},
        },
        "privacy_models": [{"model": "k-anonymity", "k": 5}],
        "suppression_limit": 0.05,
    }
    if attack:
        config["attack"] = {"n_attacks": 100, "random_state": 3, "secret": ["disease"]}
    path = tmp_path / "release.json"
    path.write_text(json.dumps(config))
    return str(path)


def test_the_report_states_method_attacks_population_and_how_it_was_chosen(tmp_path, capsys):
    cfg = _write_case(tmp_path)
    out, report = tmp_path / "out.csv", tmp_path / "report.html"
    assert main(["anonymize", cfg, "-o", str(out), "--report", str(report)]) == 0
    capsys.readouterr()
    page = report.read_text(encoding="utf-8")
    for title in ("Release method", "Attacks", "Population figures"):
        assert title in page
    # the attack figures are exactly what 'anon-core attack' prints for the same configuration
    assert main(["attack", cfg]) == 0
    attack_json = json.loads(capsys.readouterr().out)
    resolution = resolve(load_config(cfg))
    built = R.build_report(cfg, resolution.problem, resolution.result, chosen_by="explore")
    assert built.figures["attacks"]["figures"] == json.loads(json.dumps(attack_json))
    assert built.figures["method"]["name"] == "generalization"
    assert "k-anonymity" in built.figures["method"]["guarantee"]
    assert "journalist_basis" in built.figures["population"]
    sections = {s["id"]: s for s in R.report_sections(built)}
    summary = json.dumps(sections["summary"])
    assert "picked on the trade-off chart" in summary
    # verify re-runs the battery with the same seeds: the untouched report verifies
    assert main(["verify", cfg, str(report), "--released", str(out)]) == 0


def test_verify_catches_an_edited_attack_figure(tmp_path, capsys):
    cfg = _write_case(tmp_path)
    report = tmp_path / "report.html"
    assert main(["anonymize", cfg, "--report", str(report)]) == 0
    capsys.readouterr()
    resolution = resolve(load_config(cfg))
    genuine = R.build_report(cfg, resolution.problem, resolution.result)
    risk = genuine.figures["attacks"]["figures"]["singling_out"]["multivariate"]["risk"]
    # a report whose attack figure was changed (and re-hashed) is caught by the re-run
    forged = R.build_report(cfg, resolution.problem, resolution.result)
    forged.figures["attacks"]["figures"]["singling_out"]["multivariate"]["risk"] = risk + 0.25
    forged.meta["figures_sha256"] = R.figures_sha256(forged.figures)
    R.write_report(forged, tmp_path / "forged.html")
    assert main(["verify", cfg, str(tmp_path / "forged.html")]) == 4
    captured = capsys.readouterr()
    assert "attacks" in captured.out + captured.err


@pytest.mark.parametrize("attack", [False])
def test_without_an_attack_section_the_report_has_no_attack_figures(tmp_path, attack):
    cfg = _write_case(tmp_path, attack=attack)
    resolution = resolve(load_config(cfg))
    built = R.build_report(cfg, resolution.problem, resolution.result)
    assert "attacks" not in built.figures
    assert "attacks" not in {s["id"] for s in R.report_sections(built)}


def test_anonymize_with_attack_risk_releases_the_released_part_within_the_bound(tmp_path, capsys):
    """The analyst's ask, headless: minimum loss such that multivariate singling-out risk <= 5%.
    The configuration's split holds the control records back; only the released part is written,
    and the attack on it (same seeds) measures at most the threshold."""
    cfg_path = _write_case(tmp_path)
    config = json.loads((tmp_path / "release.json").read_text())
    config["privacy_models"].append(
        {
            "model": "attack-risk",
            "attack": "singling-out-multivariate",
            "threshold": 0.05,
            "n_attacks": 100,
            "random_state": 3,
        }
    )
    (tmp_path / "release.json").write_text(json.dumps(config))
    out = tmp_path / "out.csv"
    assert main(["anonymize", cfg_path, "-o", str(out)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["satisfied"] is True and summary["control_records"] == 200  # 1/3 of 600
    released = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert len(released) <= 400
    assert released.groupby(["age", "sex", "zip"]).size().min() >= 5  # k=5 still holds
    config["transformation"] = summary["transformation"]
    (tmp_path / "release.json").write_text(json.dumps(config))
    assert main(["attack", cfg_path]) == 0
    measured = json.loads(capsys.readouterr().out)["singling_out"]["multivariate"]["risk"]
    assert measured <= 0.05
