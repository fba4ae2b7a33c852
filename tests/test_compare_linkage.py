"""The configuration's external table joins the battery of ``compare`` and of the evidence: the
Compare chart's and the report's linkage figures."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from anon_core.cli import main
from anon_core.services.compare_figures import chart_keys


def _people(n: int = 240) -> pd.DataFrame:
    rng = np.random.default_rng(3)
    return pd.DataFrame(
        {
            "age": rng.integers(20, 80, n),
            "sex": rng.choice(["F", "M"], n),
            "city": rng.choice(["Aldervale", "Brookmere", "Farrowgate", "Hollins"], n),
            "income": rng.choice(["<=50K", ">50K"], n),
        }
    )


def _config(tmp_path, mode: str) -> str:
    people = _people()
    people.to_csv(tmp_path / "in.csv", index=False)
    # the attacker holds 40 records' quasi-identifiers exactly as they are
    people.iloc[:40][["age", "sex", "city"]].to_csv(tmp_path / "ext.csv", index=False)
    config = {
        "input": {"path": "in.csv"},
        "attributes": {
            "age": {"role": "quasi-identifier"},
            "sex": {"role": "quasi-identifier"},
            "city": {"role": "quasi-identifier"},
            "income": {"role": "sensitive"},
        },
        "privacy_models": [{"model": "k-anonymity", "k": 2}],
        "attack": {"n_attacks": 30, "external": "ext.csv", "linkage_mode": mode},
    }
    path = tmp_path / "c.json"
    path.write_text(json.dumps(config))
    return str(path)


def test_compare_links_the_configured_external_table(tmp_path, capsys):
    cfg = _config(tmp_path, "exact")
    args = ["compare", cfg, "--methods", "unprotected-copy,generalization", "--n-attacks", "30"]
    assert main([*args, "--ml-models", "logistic_regression"]) == 0
    out = json.loads(capsys.readouterr().out)["methods"]
    copy, generalized = out["unprotected-copy"]["attacks"], out["generalization"]["attacks"]
    assert copy["linkage"]["external_records"] == 40
    # no identifier is shared, so the figure is the attacker's expected successes, at most one
    # per external record; the unprotected copy hides nothing that generalization hides
    assert 0 < copy["linkage"]["expected_reidentified"] <= 40
    assert (
        copy["linkage"]["expected_reidentified"] >= generalized["linkage"]["expected_reidentified"]
    )
    assert "linkage.expected_reidentified" in chart_keys(copy)


def test_compare_runs_probabilistic_linkage_when_the_section_asks(tmp_path, capsys):
    cfg = _config(tmp_path, "probabilistic")
    args = ["compare", cfg, "--methods", "unprotected-copy", "--n-attacks", "30"]
    assert main([*args, "--ml-models", "logistic_regression"]) == 0
    link = json.loads(capsys.readouterr().out)["methods"]["unprotected-copy"]["attacks"]["linkage"]
    assert link["mode"] == "probabilistic" and link["external_records"] == 40
    assert 0 < link["expected_reidentified"] <= 40


def test_a_missing_external_file_is_one_error_line(tmp_path, capsys):
    cfg = _config(tmp_path, "exact")
    (tmp_path / "ext.csv").unlink()
    assert main(["compare", cfg, "--methods", "noise", "--n-attacks", "30"]) == 2
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(err) == 1 and err[0].startswith("error:") and "does not exist" in err[0]


def test_the_evidence_has_the_linkage_figure(tmp_path):
    from anon_core.services.session import Session

    cfg = json.loads(open(_config(tmp_path, "exact")).read())
    session = Session.open(cfg, _people(), base_dir=tmp_path)
    evidence = session.evidence(session.release(), utility=False)
    share = evidence.figures["linkage_reidentified_share"]["value"]
    # a share of the 40 external records: each counts at most once
    assert share is not None and 0.0 <= share <= 1.0
    assert evidence.attacks["linkage"]["external_records"] == 40
