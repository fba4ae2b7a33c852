"""Vulnerable records and shadow-model membership inference (anon_core.attacks.vulnerable/shadow)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anon_core.attacks.shadow import (
    auc_score,
    domias_membership,
    estimate_cost,
    hanley_mcneil,
    shadow_membership,
)
from anon_core.attacks.vulnerable import vulnerable_records
from anon_core.errors import ConfigError

# ------------------------------------------------------------------ vulnerable records
SMALL = pd.DataFrame(
    {
        "age": [30, 31, 30, 32, 31, 90, 30],
        "sex": ["F", "M", "F", "M", "F", "F", "X"],
    }
)


def test_knn_distance_matches_a_hand_worked_gower_distance():
    # ages span 30..90 (range 60). Record 5 (90, F): nearest are record 4 (31, F) at 59/60 and
    # records 0 and 2 (30, F) at 60/60 = 1, so its 2nd-nearest distance is 1.0.
    # Record 3 (32, M): record 1 (31, M) at 1/60, then record 4 (31, F) at 1/60 + 1.
    v = vulnerable_records(SMALL, k=2, top=3)
    assert v.scores[5] == pytest.approx(1.0)
    assert v.scores[3] == pytest.approx(1 + 1 / 60)
    assert v.scores[0] == pytest.approx(1 / 60)  # records 2 (0) and 4 (1/60)
    assert list(v.order[:1]) == [3]
    top = {r.position: r.columns for r in v.top}
    assert top[3] == ("sex", "age")  # sex differs from one of its 2 neighbours: 0.5 > ages
    # record 5 is far by its age only; record 6 (not in the top 3) ranks by sex alone
    full = {r.position: r.columns for r in vulnerable_records(SMALL, k=2, top=7).top}
    assert full[5] == ("age",) and full[6] == ("sex",)


def test_rarity_scores_one_over_group_size_and_names_the_rarest_column():
    v = vulnerable_records(SMALL, ["age", "sex"], method="rarity", top=2)
    # combinations: (30,F) x2, (31,M), (32,M), (31,F), (90,F), (30,X): all unique but (30,F)
    assert list(v.scores) == [0.5, 1.0, 0.5, 1.0, 1.0, 1.0, 1.0]
    assert [r.position for r in v.top] == [1, 3]  # ties in table order
    # record 1: age 31 appears twice, sex M twice -> ties broken by column order
    assert v.top[0].columns == ("age", "sex")
    # record 3: age 32 once, sex M twice -> age first
    assert v.top[1].columns[0] == "age"


def test_vulnerable_records_never_return_values():
    v = vulnerable_records(SMALL, k=2, top=7)
    text = repr(v.to_dict())
    assert "90" not in text and "'X'" not in text


def test_vulnerable_bad_inputs_give_one_config_error():
    with pytest.raises(ConfigError, match="k=10"):
        vulnerable_records(SMALL, k=10)
    with pytest.raises(ConfigError, match="method"):
        vulnerable_records(SMALL, method="bogus")
    with pytest.raises(ConfigError, match="lacks"):
        vulnerable_records(SMALL, ["nope"])


# ------------------------------------------------------------------ statistics
def test_auc_and_hanley_mcneil_against_hand_values():
    # members 3, 2 vs non-members 1, 2: pairs (3>1, 3>2, 2>1, 2=2 half) = 3.5 / 4
    assert auc_score(np.array([3, 2, 1, 2]), np.array([1, 1, 0, 0])) == pytest.approx(0.875)
    # A = 0.5, n1 = n0 = 8: Q1 = Q2 = 1/3; var = (0.25 + 7/12 + 7/12) / 64
    assert hanley_mcneil(0.5, 8, 8) == pytest.approx(np.sqrt((0.25 + 14 / 12) / 64))
    assert hanley_mcneil(1.0, 8, 8) == pytest.approx(0.0)


# ------------------------------------------------------------------ shadow attack
def _population(n: int = 500, outliers: int = 10, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "age": rng.integers(20, 60, n),
            "sex": rng.choice(["F", "M"], n),
            "job": rng.choice(list("abcd"), n),
            "income": rng.normal(50, 5, n).round(),
        }
    )
    for i in range(outliers):  # clear outliers, all in the original part
        df.loc[i, ["age", "job", "income"]] = [90 + i, f"rare{i}", 200 + 10 * i]
    return df


DATA = _population()
ORIGINAL, CONTROL = DATA.iloc[:250], DATA.iloc[250:]


def copy_method(frame: pd.DataFrame, seed: int) -> pd.DataFrame:
    """A generator that releases its training records as they are."""
    return frame.copy()


def marginal_method(frame: pd.DataFrame, seed: int) -> pd.DataFrame:
    """A generator that ignores its input: each column drawn from the control records."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame({c: rng.choice(CONTROL[c].to_numpy(), len(frame)) for c in frame.columns})


def test_copying_generator_is_caught_on_outliers():
    res = shadow_membership(copy_method, ORIGINAL, CONTROL, n_targets=5, n_shadows=4)
    # the targets are the planted outliers (positions 0..9)
    assert all(t.position < 10 for t in res.targets)
    assert res.auc >= 0.95 and res.auc_ci[0] > 0.5
    assert res.advantage >= 0.9
    assert res.fits == 8


def test_generator_ignoring_its_input_is_not_told_apart():
    res = shadow_membership(
        marginal_method, ORIGINAL, CONTROL, n_targets=8, n_shadows=8, random_state=5
    )
    assert res.auc_ci[0] <= 0.5 <= res.auc_ci[1]
    assert res.advantage_ci[0] <= 0.0 <= res.advantage_ci[1]


def test_shadow_is_deterministic_for_a_seed_and_reports_progress_and_cost():
    seen = []
    a = shadow_membership(
        marginal_method,
        ORIGINAL,
        CONTROL,
        n_targets=3,
        n_shadows=3,
        random_state=7,
        progress=lambda f, m: seen.append(f),
    ).to_dict()
    b = shadow_membership(
        marginal_method, ORIGINAL, CONTROL, n_targets=3, n_shadows=3, random_state=7
    ).to_dict()
    for d in (a, b):
        d.pop("seconds"), d.pop("estimated_seconds")
    assert a == b
    assert seen == sorted(seen) and seen[-1] == 1.0 and len(seen) == 7
    assert estimate_cost(copy_method, CONTROL, n_shadows=3) >= 0.0


def test_shadow_bad_inputs_give_one_config_error():
    with pytest.raises(ConfigError, match="n_targets"):
        shadow_membership(copy_method, ORIGINAL, CONTROL, n_targets=0)
    with pytest.raises(ConfigError, match="control records"):
        shadow_membership(copy_method, ORIGINAL, CONTROL.iloc[:10], n_targets=2)
    with pytest.raises(ConfigError, match="n_shadows"):
        shadow_membership(copy_method, ORIGINAL, CONTROL, n_shadows=1)


def test_domias_scores_a_copy_above_an_independent_release():
    copied = domias_membership(ORIGINAL, ORIGINAL, CONTROL, random_state=0)
    independent = domias_membership(ORIGINAL, marginal_method(ORIGINAL, 1), CONTROL, random_state=0)
    assert copied.auc > 0.5 and copied.auc_ci[0] > 0.5
    assert independent.auc_ci[0] <= 0.5 <= independent.auc_ci[1]


# ------------------------------------------------------------------ the evidence hook
def _session(method: dict):
    from anon_core.services.session import Session

    config = {
        "input": {"path": "in.csv"},
        "attributes": {
            "age": {"role": "quasi-identifier"},
            "sex": {"role": "quasi-identifier"},
            "job": {"role": "quasi-identifier"},
            "income": {"role": "sensitive"},
        },
        "privacy_models": [{"model": "k-anonymity", "k": 2}],
        "method": method,
        "attack": {"n_attacks": 50, "control_fraction": 0.5},
    }
    return Session.open(config, DATA.iloc[:200].copy(), base_dir=".")


def test_evidence_adds_shadow_figures_for_a_perturbative_release_only_when_asked():
    import json

    session = _session({"name": "noise", "noise": 1.0, "columns": ["age", "income"]})
    release = session.release(scope="part")
    plain = session.evidence(release, utility=False)
    assert "shadow_mia_auc" not in plain.figures and "shadow" not in plain.options
    ev = session.evidence(release, utility=False, shadow=True, exposure=True)
    auc, adv = ev.figures["shadow_mia_auc"], ev.figures["shadow_mia_advantage"]
    assert 0.0 <= auc["value"] <= 1.0 and auc["ci"][0] <= auc["value"] <= auc["ci"][1]
    assert -1.0 <= adv["value"] <= 1.0 and auc["explain"]
    assert ev.options["shadow"] is True
    assert ev.attacks["shadow_membership"]["fits"] == 16
    # 1% of the 100 released rehearsal records: one record; the note names counts, not values
    exposure = [n for n in ev.notes if "most vulnerable records (1%)" in n]
    assert ev.figures["singling_out_multivariate"]["value"] is not None
    assert len(exposure) == 1 and exposure[0].startswith("of the 1 most vulnerable")
    # noise of 1% of a column's spread barely moves the planted outliers: the attack sees them
    assert auc["value"] >= 0.8
    json.dumps(ev.to_dict(), allow_nan=False)


def test_shadow_figures_are_not_defined_for_generalization():
    session = _session({"name": "generalization"})
    release = session.release()
    ev = session.evidence(release, utility=False, shadow=True)
    fig = ev.figures["shadow_mia_auc"]
    assert fig["value"] is None and "synthetic and perturbative" in fig["why"]


def test_release_command_has_a_shadow_flag():
    import argparse

    from anon_core.commands import release as command

    parser = argparse.ArgumentParser()
    command.add_parser(parser.add_subparsers())
    args = parser.parse_args(["release", "c.json", "-o", "out.csv", "--shadow"])
    assert args.shadow is True
    assert parser.parse_args(["release", "c.json", "-o", "out.csv"]).shadow is False


# ------------------------------------------------------------------ exposure of vulnerable records
def test_exposure_counts_the_most_vulnerable_record_singled_out_and_linked():
    from anon_core.attacks.vulnerable_exposure import vulnerable_exposure

    original = pd.DataFrame({"x": [100, 1, 2, 3, 4, 5], "y": ["q", "p", "p", "p", "p", "p"]})
    # 1% of 6 records rounds up to 1: record 0 (x=100, y=q) is the outlier
    copied = pd.DataFrame({"x": [100, 2, 4], "y": ["q", "p", "p"]})
    e = vulnerable_exposure(original, copied, ["x", "y"])
    assert (e.n_records, e.singled_out, e.linked) == (1, 1, 1)
    # no released row equals it; its x points at row 0, its y at row 1: neither count
    apart = pd.DataFrame({"x": [100, 3], "y": ["r", "q"]})
    e = vulnerable_exposure(original, apart, ["x", "y"])
    assert (e.n_records, e.singled_out, e.linked) == (1, 0, 0)
    # twice in the release: matched by two rows, not singled out; one QI: linkage undefined
    twice = pd.DataFrame({"x": [100, 100, 3], "y": ["q", "q", "p"]})
    assert vulnerable_exposure(original, twice, ["x"]).to_dict() == {
        "n_records": 1,
        "singled_out": 0,
        "linked": None,
    }


def test_release_with_shadow_writes_a_dossier_that_verify_reproduces(tmp_path, capsys):
    import json

    from anon_core.cli import main

    DATA.iloc[:200].to_csv(tmp_path / "in.csv", index=False)
    config = {
        "input": {"path": "in.csv"},
        "attributes": {
            "age": {"role": "quasi-identifier"},
            "sex": {"role": "quasi-identifier"},
            "job": {"role": "quasi-identifier"},
            "income": {"role": "sensitive"},
        },
        "privacy_models": [{"model": "k-anonymity", "k": 2}],
        "method": {"name": "noise", "noise": 1.0, "columns": ["age", "income"]},
        "attack": {"n_attacks": 50, "control_fraction": 0.5},
        "acceptance": {"ml_accuracy_ratio": {"min": 0.0}},
    }
    cfg = tmp_path / "c.json"
    cfg.write_text(json.dumps(config))
    out, report = tmp_path / "out.csv", tmp_path / "dossier.html"
    args = ["release", str(cfg), "-o", str(out), "--report", str(report), "--shadow", "--force"]
    assert main(args) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["evidence"]["shadow_mia_auc"]["value"] is not None
    verify = ["verify", str(cfg), str(report), "--released", str(out), "--no-signature"]
    code = main(verify)
    assert code == 0, capsys.readouterr()


@pytest.mark.slow
def test_evaluate_page_checkbox_measures_the_shadow_figures():
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    app = Path(__file__).resolve().parents[1] / "app.py"
    at = AppTest.from_file(str(app), default_timeout=600)
    at.run()
    at.switch_page("pages/protect.py").run()
    ws = at.session_state["workspace"]
    spec = {"name": "microaggregation", "k": 5, "columns": ["length_of_stay"]}
    ws.update("release method: microaggregation", sections={**ws.sections, "method": spec})
    at.switch_page("pages/evaluate.py").run()
    assert not at.exception, at.exception
    boxes = [c for c in at.checkbox if c.label.startswith("Also run shadow-model")]
    assert len(boxes) == 1 and boxes[0].value is False
    boxes[0].check().run()
    [b for b in at.button if b.label.startswith("🧪 Measure the evidence")][0].click().run()
    assert not at.exception, at.exception
    ws = at.session_state["workspace"]
    evidence, _ = at.session_state["_derived"][("evidence+shadow", ws.config_key())]
    assert evidence.options["shadow"] is True
    assert evidence.figures["shadow_mia_auc"]["value"] is not None


@pytest.mark.slow
def test_ctgan_release_with_shadow_verifies(tmp_path, capsys):
    """CTGAN is not bit-reproducible across platforms, but its shadow fits are seeded end to end
    (PyTorch's generator, deterministic kernels, one thread): on the same machine verify re-runs
    the 16 fits and finds the same shadow figures, or says why it could not re-check them."""
    import json

    from anon_core.cli import main
    from anon_core.methods import method_available

    if not method_available("synthetic-ctgan")[0]:
        pytest.skip("CTGAN (the synthetic extra) is not installed")
    DATA.iloc[:160].to_csv(tmp_path / "in.csv", index=False)
    config = {
        "input": {"path": "in.csv"},
        "attributes": {
            "age": {"role": "quasi-identifier"},
            "sex": {"role": "quasi-identifier"},
            "job": {"role": "quasi-identifier"},
            "income": {"role": "sensitive"},
        },
        "privacy_models": [{"model": "k-anonymity", "k": 2}],
        "method": {"name": "synthetic-ctgan", "epochs": 2, "batch_size": 40},
        "attack": {"n_attacks": 30, "control_fraction": 0.5},
        "acceptance": {"ml_accuracy_ratio": {"min": 0.0}},
    }
    cfg = tmp_path / "c.json"
    cfg.write_text(json.dumps(config))
    out, report = tmp_path / "out.csv", tmp_path / "dossier.html"
    args = ["release", str(cfg), "-o", str(out), "--report", str(report), "--shadow", "--force"]
    assert main(args) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["evidence"]["shadow_mia_auc"]["value"] is not None
    verify = ["verify", str(cfg), str(report), "--released", str(out), "--no-signature"]
    code = main(verify)
    captured = capsys.readouterr()
    assert code == 0, captured


def _dossier(reproducible: bool, auc: float) -> dict:
    note = f"shadow-model membership inference: 16 fits, mean AUC {auc:.2f} (0.5 = chance)"
    return {
        "release": {"method": "synthetic-ctgan", "reproducible": reproducible},
        "evidence": {
            "figures": {
                "shadow_mia_auc": {"value": auc},
                "shadow_mia_advantage": {"value": auc - 0.5},
                "linkability": {"value": 0.1},
            },
            "attacks": {"shadow_membership": {"auc": auc}},
            "notes": ["another note", note],
        },
    }


def test_verify_keeps_unreproducible_shadow_figures_with_a_note_and_checks_the_rest():
    from anon_core.report.diff import diff_figures
    from anon_core.services.shadow_evidence import keep_unreproducible_shadow

    recorded = _dossier(False, 0.61)
    again = _dossier(False, 0.58)
    again["evidence"]["figures"]["linkability"]["value"] = 0.2  # a real difference stays
    note = keep_unreproducible_shadow(recorded, again)
    assert note is not None and "not re-checked" in note and "synthetic-ctgan" in note
    differences: list[str] = []
    diff_figures(recorded, again, "", differences)
    assert len(differences) == 1 and "linkability" in differences[0], differences
    # same figures: nothing to say; a reproducible method: its shadow figures are compared
    assert keep_unreproducible_shadow(_dossier(False, 0.61), _dossier(False, 0.61)) is None
    bit = _dossier(True, 0.58)
    assert keep_unreproducible_shadow(_dossier(True, 0.61), bit) is None
    differences = []
    diff_figures(_dossier(True, 0.61), bit, "", differences)
    assert any("shadow_mia_auc" in d for d in differences), differences


def test_shadow_fits_restore_the_torch_settings():
    torch = pytest.importorskip("torch")
    from anon_core.services.shadow_evidence import reproducible_fit

    threads = torch.get_num_threads()
    before = torch.are_deterministic_algorithms_enabled()
    with reproducible_fit(3):
        assert torch.get_num_threads() == 1 and torch.are_deterministic_algorithms_enabled()
        first = torch.rand(3)
    with reproducible_fit(3):
        second = torch.rand(3)
    assert torch.equal(first, second)
    assert torch.get_num_threads() == threads
    assert torch.are_deterministic_algorithms_enabled() == before
