"""``anon-core compare --shadow``: the shadow-model membership attack on the compared methods."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from anon_core.cli import main
from anon_core.commands import EXIT_BAD_INPUT
from anon_core.services.compare_figures import chart_keys


def _population(n: int = 200, outliers: int = 30, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "age": rng.integers(20, 60, n),
            "sex": rng.choice(["F", "M"], n),
            "job": rng.choice(list("abcd"), n),
            "income": rng.normal(50, 5, n).round(),
        }
    )
    # clear outliers, far from the others in age, job and income: with 30 of them about 15 fall
    # in the released half, so the ten most vulnerable targets are all planted outliers
    for i in range(outliers):
        df.loc[i, ["age", "job", "income"]] = [90 + i, f"rare{i}", 200 + 10 * i]
    return df


def _config_file(tmp_path) -> str:
    _population().to_csv(tmp_path / "in.csv", index=False)
    config = {
        "input": {"path": "in.csv"},
        "attributes": {
            "age": {"role": "quasi-identifier"},
            "sex": {"role": "quasi-identifier"},
            "job": {"role": "quasi-identifier"},
            "income": {"role": "sensitive"},
        },
        "privacy_models": [{"model": "k-anonymity", "k": 2}],
        # noise of 1% of a column's spread: the planted outliers stay where they were
        "method": {"name": "noise", "noise": 1.0, "columns": ["age", "income"]},
        "attack": {"n_attacks": 30, "control_fraction": 0.5},
    }
    path = tmp_path / "c.json"
    path.write_text(json.dumps(config))
    return str(path)


COMMON = ["--n-attacks", "30", "--ml-models", "logistic_regression"]


def test_compare_shadow_adds_the_figures_to_perturbative_methods_only(tmp_path, capsys):
    cfg = _config_file(tmp_path)
    assert main(["compare", cfg, "--methods", "noise,generalization", "--shadow", *COMMON]) == 0
    out = json.loads(capsys.readouterr().out)
    noise = out["methods"]["noise"]["attacks"]
    shadow = noise["shadow_mia"]
    # the ten most vulnerable records of the released part are the targets
    assert shadow["n_targets"] == 10
    lo, hi = shadow["auc_ci"]
    assert lo <= shadow["auc"] <= hi
    # noise touches age and income only, and little: each outlier's unique job is released as it
    # is, so an attacker re-running the method with and without a target tells the two apart far
    # better than chance (0.5)
    assert shadow["auc"] >= 0.8
    assert -1.0 <= shadow["advantage"] <= 1.0
    # the Compare chart reads them as figures with units
    assert {"shadow_mia.auc", "shadow_mia.advantage"} <= set(chart_keys(noise))
    # a generalized release's rows are the input's records: no shadow figures there
    assert "shadow_mia" not in out["methods"]["generalization"]["attacks"]


def test_compare_without_shadow_runs_no_shadow_attack(tmp_path, capsys):
    cfg = _config_file(tmp_path)
    assert main(["compare", cfg, "--methods", "noise", *COMMON]) == 0
    out = json.loads(capsys.readouterr().out)
    assert "shadow_mia" not in out["methods"]["noise"]["attacks"]


@pytest.mark.parametrize(
    "methods", ["generalization", "generalization,mondrian", "unprotected-copy"]
)
def test_compare_shadow_without_a_method_it_applies_to_is_one_error_line(tmp_path, capsys, methods):
    cfg = _config_file(tmp_path)
    out = tmp_path / "releases"
    code = main(["compare", cfg, "--methods", methods, "--shadow", "-o", str(out), *COMMON])
    assert code == EXIT_BAD_INPUT
    captured = capsys.readouterr()
    err = [line for line in captured.err.splitlines() if line.strip()]
    assert len(err) == 1 and err[0].startswith("error: --shadow attacks synthetic and perturbative")
    assert "Traceback" not in captured.err and captured.out == ""
    assert not out.exists()  # refused before anything ran or was written


def test_compare_parser_has_an_opt_in_shadow_flag():
    import argparse

    from anon_core.commands import compare as command

    parser = argparse.ArgumentParser()
    command.add_parser(parser.add_subparsers())
    assert parser.parse_args(["compare", "c.json", "--shadow"]).shadow is True
    assert parser.parse_args(["compare", "c.json"]).shadow is False
