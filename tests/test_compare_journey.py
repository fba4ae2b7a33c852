"""The Compare journey an audit walked through: a numeric ML target, missing numbers under MDAV,
the workspace's transformation on the released part, runs only on the button, results kept by
fingerprint (a revisit is instant, other data never shows old figures), readable charts; and
the Utility and Attacks pages' figures tied to the data and configuration they came from.

Expected values are worked out by hand in the comments; the dashboard paths run through AppTest
with transparent runners (the real battery and yardstick are exercised in test_compare.py)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from anon_core.attacks.split import split_frame
from anon_core.config import parse_config
from anon_core.errors import ConfigError
from anon_core.methods import make_method
from anon_core.methods.registry import make_context
from anon_core.services.compare import BASELINE, compare
from anon_core.services.compare_target import TargetBins, default_target, target_bins
from anon_core.utility.ml_holdout import _scores


def _people(n=300, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "name": [f"p{i}" for i in range(n)],
            "age": rng.integers(18, 80, n),
            "sex": rng.choice(["F", "M"], n),
            "stay": rng.integers(1, 40, n).astype(float),
            "income": rng.choice(["<=50K", ">50K"], n, p=[0.7, 0.3]),
        }
    )


def _config(**extra):
    return parse_config(
        {
            "attributes": {
                "name": {"role": "identifier"},
                "age": {"role": "quasi-identifier"},
                "sex": {"role": "quasi-identifier"},
                "income": {"role": "sensitive"},
            },
            "privacy_models": [{"model": "k-anonymity", "k": 3}],
            "suppression_limit": 0.05,
            **extra,
        }
    )


def _no_attacks(original, released, control, context, seed):
    return {"copies": 0.0}


# ------------------------------------------------------------------ the numeric target
def test_quantile_classes_of_a_numeric_target_by_hand():
    part = pd.DataFrame({"y": np.arange(1.0, 21.0)})  # 1..20
    bins = target_bins(part, "y")
    # numpy's linear quantiles of 1..20 at 1/4, 1/2, 3/4: 1 + 19 * q = 5.75, 10.5, 15.25
    assert bins.cuts == (5.75, 10.5, 15.25) and bins.n_values == 20
    assert bins.labels == ("< 5.75", "5.75 to < 10.5", "10.5 to < 15.25", ">= 15.25")
    out = bins.apply(pd.DataFrame({"y": [1, 5.75, 20, None, "*"]}, dtype=object))
    assert list(out["y"][:3]) == ["< 5.75", "5.75 to < 10.5", ">= 15.25"]
    assert out["y"][3] is None  # missing stays missing (left out of the ML figures)
    assert out["y"][4] == "*"  # a suppressed value stays as released
    # Generalized labels: an interval at its midpoint ([0, 10) -> 5; 10-20 -> 15), a bottom
    # code just below its bound (<5.75 -> "< 5.75"), a top code at it (>=15.25 -> ">= 15.25").
    labels = ["[0, 10)", "10-20", "<5.75", ">=15.25", "[10.5, 11)"]
    out = bins.apply(pd.DataFrame({"y": labels}))
    assert list(out["y"]) == [
        "< 5.75",
        "10.5 to < 15.25",
        "< 5.75",
        ">= 15.25",
        "10.5 to < 15.25",
    ]


def test_few_numbers_and_categories_are_used_as_classes():
    assert target_bins(pd.DataFrame({"y": [1, 2, 3] * 5}), "y") is None  # 3 values <= 10
    assert target_bins(pd.DataFrame({"y": list("abcdefghijklmn")}), "y") is None
    assert target_bins(pd.DataFrame({"y": [1, 2]}), None) is None


def test_default_target_is_the_first_sensitive_else_the_fewest_classes():
    frame = _people()
    assert default_target(_config(), frame) == "income"
    no_sensitive = parse_config(
        {
            "attributes": {"name": {"role": "identifier"}, "age": {"role": "quasi-identifier"}},
            "privacy_models": [{"model": "k-anonymity", "k": 3}],
        }
    )
    assert default_target(no_sensitive, frame) == "sex"  # 2 classes; income too, sex comes first
    # The dashboard passes the workspace's roles (strings) instead of a configuration.
    assert default_target({"name": "identifier", "stay": "sensitive"}, frame) == "stay"
    # Left: name (300 values), age and stay (numbers): no column with 2 to 10 classes.
    assert default_target({"sex": "identifier", "income": "identifier"}, frame) is None


def test_auc_with_a_constant_guess_of_a_class_absent_from_the_holdout():
    # Holdout classes 0, 1, 2; the model puts all its mass on class 3 (absent from the holdout):
    # it ranks nothing, so every one-vs-rest AUC is 0.5 (this used to raise in roc_auc_score).
    y = np.array([0, 1, 2, 0])
    proba = np.zeros((4, 4))
    proba[:, 3] = 1.0
    scores = _scores(y, np.full(4, 3), proba, 4)
    assert scores["roc_auc"] == pytest.approx(0.5) and scores["accuracy"] == 0.0


def test_compare_with_a_numeric_target_scores_its_classes():
    pytest.importorskip("sklearn")
    result = compare(
        _config(),
        _people(),
        ["pram"],
        target="stay",
        baseline=True,
        attack_runner=_no_attacks,
        utility_options={"models": ["logistic_regression"]},
    )
    split = result.to_dict()["split"]
    assert split["utility_target"] == "stay"
    classes = split["utility_target_classes"]["classes"]
    assert len(classes) == 4 and classes[0].startswith("< ")
    for m in result.methods:
        assert m.error is None and not m.notes, (m.name, m.error, m.notes)
        assert set(m.utility["ml"]["classes"]) <= set(classes)
        assert 0.0 <= m.utility["ml"]["roc_auc"] <= 1.0


def test_a_figure_that_cannot_be_measured_is_a_note_not_a_crash():
    def broken_utility(original, holdout, released, target, seed):
        raise ConfigError("'target' 'sex' has fewer than two classes")

    result = compare(
        _config(),
        _people(),
        ["pram"],
        attack_runner=_no_attacks,
        utility_runner=broken_utility,
    )
    row = result.method("pram")
    assert row.error is None and row.attacks == {"copies": 0.0} and row.utility == {}
    assert row.notes == (
        "The utility could not be measured: 'target' 'sex' has fewer than two classes",
    )


# ------------------------------------------------------------------ MDAV with missing numbers
def _mdav(frame, k, columns):
    method = make_method({"name": "microaggregation", "k": k, "columns": columns})
    return method.release(frame, make_context(frame, None, {}), random_state=0)


def test_mdav_keeps_missing_cells_and_groups_within_their_pattern():
    # Complete rows 1, 3, 4, 6 (k=2, 4 rows: 2k <= 4 < 3k): the farthest from the mean 3.5 are 1
    # and 6 (tie: the first, 1) -> {1, 3} and {4, 6}, means 2 and 5. The two missing rows form
    # their own group and stay missing.
    out = _mdav(pd.DataFrame({"x": [1, np.nan, 3, 4, np.nan, 6]}), 2, ["x"])
    np.testing.assert_array_equal(out.table["x"].to_numpy(), [2, np.nan, 2, 5, np.nan, 5])
    assert out.details["missing_cells_kept"] == 2 and out.details["records_in_mixed_groups"] == 0
    released = out.table["x"].fillna(-1).value_counts()
    assert released.min() >= 2  # every released value, missing included, appears >= k times


def test_mdav_two_columns_a_rare_missing_pattern_joins_the_largest_group():
    frame = pd.DataFrame({"a": [1.0, 2, 3, 10, 11, 12, 5], "b": [1.0, 1, 1, 9, 9, 9, np.nan]})
    out = _mdav(frame, 3, ["a", "b"])
    t = out.table
    assert np.isnan(t["b"][6]) and not np.isnan(t["a"][6])  # the missing cell stays missing
    assert out.details["records_in_mixed_groups"] == 1
    # Group means over observed values only: 'b' is never averaged with a made-up number.
    assert set(t["b"].dropna().round(6)) <= {1.0, 9.0}


def test_mdav_runs_on_the_hospital_sample_in_a_comparison():
    from anon_core.data.io import load_table
    from anon_core.workspace import Workspace
    from tests.test_app import ROOT

    frame = load_table(ROOT / "sample_data" / "hospital_discharge.csv").frame
    part, _ = split_frame(frame, 1 / 3, 0)  # the comparison's default split
    assert part["length_of_stay"].isna().sum() == 12  # the audit's case: 12 missing in the part
    ws = Workspace.from_frame(frame, "hospital_discharge.csv")
    result = compare(
        parse_config(ws.to_config()),
        frame,
        ["microaggregation"],
        attack_runner=_no_attacks,
        utility_runner=lambda *a: {"u": 1.0},
        keep_releases=True,
    )
    row = result.method("microaggregation")
    assert row.error is None, row.error
    released = result.releases["microaggregation"]
    assert released["length_of_stay"].isna().sum() == 12
    assert row.details["missing_cells_kept"] == 12


# ------------------------------------------------------------------ the workspace's transformation
def test_generalization_applies_the_configured_transformation_to_the_part_with_a_note():
    # Every value of 'g' occurs exactly twice: the whole table is 2-anonymous at level 0 with no
    # suppression, but the released part splits some pairs; those singletons must be suppressed.
    frame = pd.DataFrame({"g": [f"v{i // 2}" for i in range(60)], "y": ["a", "b"] * 30})
    config = parse_config(
        {
            "attributes": {
                "g": {"role": "quasi-identifier"},
                "y": {"role": "insensitive"},
            },
            "privacy_models": [{"model": "k-anonymity", "k": 2}],
            "suppression_limit": 0.0,
            "transformation": {"g": 0},
            "attack": {"control_fraction": 0.3, "random_state": 1},
        }
    )
    result = compare(
        config,
        frame,
        ["generalization"],
        attack_runner=_no_attacks,
        utility_runner=lambda *a: {"u": 1.0},
        keep_releases=True,
    )
    row = result.method("generalization")
    assert row.error is None
    part, _ = split_frame(frame, 0.3, 1)
    counts = part["g"].value_counts()
    alone = int((counts == 1).sum())  # records whose partner was kept back as control
    assert alone > 0
    assert row.details["transformation"] == {"g": 0}
    assert row.details["suppressed_records"] == alone
    assert len(row.notes) == 1 and row.notes[0].startswith("Rehearsal note:")
    assert f"{alone:,} records" in row.notes[0] and f"({len(part):,} records)" in row.notes[0]
    assert row.parameters.get("suppression_limit") is None  # the method as configured
    released = result.releases["generalization"]
    kept = released["g"][released["g"] != "*"]
    assert kept.value_counts().min() >= 2  # the models hold on what the part releases


def test_generalization_without_a_fixed_transformation_still_refuses_plainly():
    frame = pd.DataFrame({"g": [f"v{i}" for i in range(30)], "y": ["a"] * 30})
    config = parse_config(
        {
            "attributes": {"g": {"role": "quasi-identifier", "hierarchy": {"builder": "flat"}}},
            "privacy_models": [{"model": "k-anonymity", "k": 50}],
            "suppression_limit": 0.0,
        }
    )
    result = compare(config, frame, ["generalization"], attack_runner=_no_attacks,
                     utility_runner=lambda *a: {"u": 1.0})  # fmt: skip
    assert "No transformation satisfies" in result.method("generalization").error


# ------------------------------------------------------------------ the Compare page
class Recorder:
    def __init__(self):
        self.calls = []

    def attacks(self, original, released, control, context, seed):
        self.calls.append(("attacks", len(original)))
        return {"singling_out": {"multivariate": {"risk": 0.1 * len(self.calls)}}}

    def utility(self, original, holdout, released, target, seed):
        self.calls.append(("utility", target))
        return {"ml": {"accuracy": 0.8, "target": target}, "marginal_distance": 0.1}


@pytest.fixture
def recorder(monkeypatch):
    import anon_core.services.compare as service

    rec = Recorder()
    monkeypatch.setattr(service, "default_attack_runner", lambda *a, **k: rec.attacks)
    monkeypatch.setattr(service, "default_utility_runner", lambda *a, **k: rec.utility)
    return rec


def _page():
    from streamlit.testing.v1 import AppTest

    from tests.test_app import APP, TIMEOUT

    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    at.run()
    at.switch_page("pages/compare.py").run()
    assert not at.exception, at.exception
    return at


def _chart(at):
    charts = {c.proto.id: json.loads(c.proto.spec) for c in at.get("plotly_chart")}
    return next((s for cid, s in charts.items() if "cmp_chart" in cid), None)


def test_compare_page_runs_only_on_the_button_and_a_revisit_is_instant(recorder):
    at = _page()
    # The target selector starts at the sample's sensitive attribute.
    assert at.selectbox(key="cmp_target").value == "diagnosis"
    at.number_input(key="cmp_seed").set_value(3).run()
    at.checkbox(key="cmp_forest").check().run()
    at.checkbox(key="cmp_forest").uncheck().run()
    assert recorder.calls == [] and _chart(at) is None  # widgets alone never run anything
    at.button(key="cmp_run").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert len(recorder.calls) == 6  # baseline, generalization, PRAM: attacks + utility each
    assert _chart(at) is not None
    at.selectbox(key="cmp_attack").set_value(at.selectbox(key="cmp_attack").value).run()
    at.switch_page("pages/risk.py").run()
    at.switch_page("pages/compare.py").run()
    assert not at.exception, at.exception
    # The revisit shows the last comparison at once, with its settings, and runs nothing.
    assert len(recorder.calls) == 6
    assert at.number_input(key="cmp_seed").value == 3
    assert _chart(at) is not None
    # A changed setting is not run by itself, and the old figures are not shown for it.
    at.number_input(key="cmp_seed").set_value(4).run()
    assert len(recorder.calls) == 6 and _chart(at) is None
    assert any("press **Compare**" in i.value for i in at.info)


def test_compare_page_numeric_target_and_chart_words(recorder):
    at = _page()
    at.selectbox(key="cmp_target").set_value("length_of_stay").run()
    at.button(key="cmp_run").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert {t for kind, t in recorder.calls if kind == "utility"} == {"length_of_stay"}
    assert any("quantile class" in c.value for c in at.caption)
    spec = _chart(at)
    layout = spec["layout"]
    assert layout["xaxis"]["automargin"] and layout["yaxis"]["automargin"]
    x_title, y_title = layout["xaxis"]["title"]["text"], layout["yaxis"]["title"]["text"]
    assert x_title == "ML: accuracy on the original holdout (share, 0–1)"
    assert y_title.startswith("Singling out multivariate: risk (share of guesses, 0–1)")
    texts = {t for trace in spec["data"] for t in trace["text"]}
    assert texts == {"Unprotected copy", "Generalization + suppression", "PRAM"}
    assert all(trace["cliponaxis"] is False for trace in spec["data"])


def test_compare_page_after_undo_or_other_data_shows_no_old_figures(recorder):
    at = _page()
    at.button(key="cmp_run").click().run()
    assert _chart(at) is not None
    ws = at.session_state["workspace"]
    ws.update("k", models=[{"model": "k-anonymity", "k": 2}])
    at.run()
    assert _chart(at) is None and len(recorder.calls) == 6  # another configuration: not shown
    ws.undo()
    at.run()
    assert _chart(at) is not None and len(recorder.calls) == 6  # back to it: its own figures
    other = _people(200)
    at.session_state["workspace"] = type(ws).from_frame(other, "people.csv")
    at.run()
    assert not at.exception, at.exception
    assert _chart(at) is None and len(recorder.calls) == 6


# ------------------------------------------------------------------ MethodComparison notes in JSON
def test_notes_are_in_the_json():
    result = compare(_config(), _people(), [BASELINE], attack_runner=_no_attacks,
                     utility_runner=lambda *a: (_ for _ in ()).throw(ValueError("bad scores")))  # fmt: skip
    out = result.to_dict()["methods"][BASELINE]
    assert out["notes"] == ["The utility could not be measured: bad scores"]
    assert isinstance(TargetBins("y", (1.0,), 12).to_dict()["classes"], list)


# ------------------------------------------------------------------ Utility: scores of this data only
class FakeScores:
    """ml_utility's result, marking which table and target it was trained on."""

    def __init__(self, rows, target):
        self.rows, self.target = rows, target

    def to_frame(self):
        return pd.DataFrame(
            [
                {
                    "model": "logistic_regression",
                    "score": f"accuracy of {self.target} on {self.rows} rows",
                    "original_mean": 0.5,
                    "original_std": 0.0,
                    "released_mean": 0.4,
                    "released_std": 0.0,
                    "drop": 0.1,
                }
            ]
        )


def _ml_tables(at):
    return [d.value for d in at.dataframe if "Model" in d.value.columns]


def test_utility_page_never_shows_scores_of_other_data_or_target(monkeypatch):
    import anon_core.utility.summary as utility
    from anon_core.workspace import Workspace

    calls = []

    def fake(original, released, target, **kw):
        calls.append((len(original), target))
        return FakeScores(len(original), target)

    monkeypatch.setattr(utility, "ml_utility", fake)
    at = _page()
    at.switch_page("pages/utility.py").run()
    assert not at.exception, at.exception
    target = at.selectbox(key="ml_target").value
    next(b for b in at.button if "Train" in b.label).click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    tables = _ml_tables(at)
    assert len(tables) == 1 and f"of {target} on 2000 rows" in tables[0].iloc[0, 1]
    # Another table (an upload): the hospital scores are not shown under it.
    hospital = at.session_state["workspace"]
    people = _people(200).rename(columns={"income": "salary"})
    ws = Workspace.from_frame(people, "people.csv")
    ws.update(
        "roles",
        roles={"name": "identifier", "age": "quasi-identifier", "sex": "quasi-identifier",
               "stay": "insensitive", "salary": "sensitive"},
    )  # fmt: skip
    at.session_state["workspace"] = ws
    at.run()
    assert not at.exception, at.exception
    assert _ml_tables(at) == [] and len(calls) == 2  # two models trained once, nothing since
    # Back to the hospital table (Undo of the upload): its own scores again, nothing retrained.
    at.session_state["workspace"] = hospital
    at.run()
    tables = _ml_tables(at)
    assert len(tables) == 1 and "on 2000 rows" in tables[0].iloc[0, 1] and len(calls) == 2


# ------------------------------------------------------------------ Attacks: a rehearsal note
def test_attacks_page_says_the_part_needs_more_suppression_as_a_rehearsal_note():
    from anon_core.workspace import Workspace

    rng = np.random.default_rng(0)
    # Every value of 'g' occurs exactly twice: 2-anonymous at level 0 without suppression on the
    # whole table; the released part (2/3) breaks pairs, so the part alone fails the model.
    frame = pd.DataFrame(
        {
            "g": [f"v{i // 2:03d}" for i in range(300)],
            "sex": rng.choice(["F", "M"], 300),
            "y": rng.choice(["a", "b", "c"], 300),
        }
    )
    ws = Workspace.from_frame(frame, "pairs.csv")
    ws.update(
        "setup",
        roles={"g": "quasi-identifier", "sex": "insensitive", "y": "sensitive"},
        hierarchy_specs={"g": {"builder": "flat"}},
        models=[{"model": "k-anonymity", "k": 2}],
        suppression_limit=0.0,
        transformation={"g": 0},
    )
    at = _page()
    at.session_state["workspace"] = ws
    at.switch_page("pages/privacy.py").run()
    assert any("satisfies the configuration" in m.value for m in at.markdown)
    at.switch_page("pages/attacks.py").run()
    assert not at.exception, at.exception
    # The control share slider starts at 1/3 shown as 0.33: round(0.33 * 300) = 99 kept back.
    assert any("releases a part of the table: 201 of 300 records" in c.value for c in at.caption)
    at.number_input(key="attack_n").set_value(40).run()
    at.button(key="attack_run").click().run()
    assert not at.exception, at.exception
    assert not [w.value for w in at.warning if "does not satisfy" in w.value]
    notes = [i.value for i in at.info if i.value.startswith("Rehearsal note")]
    assert len(notes) == 1 and "whole table satisfies" in notes[0]


def test_compare_use_this_release_sets_the_method_for_evaluate_and_release(recorder):
    at = _page()
    at.button(key="cmp_run").click().run()
    assert not at.exception, at.exception
    at.selectbox(key="cmp_use_pick").set_value("pram").run()
    at.button(key="cmp_use").click().run()
    assert not at.exception, at.exception
    ws = at.session_state["workspace"]
    assert ws.sections["method"]["name"] == "pram"
    assert ws.audit[-1]["change"] == "release from Compare: pram"
    at.switch_page("pages/release.py").run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    captions = [c.value for c in at.caption]
    assert any("PRAM" in c or "post-randomization" in c.lower() for c in captions), captions


def test_compare_page_recommends_and_uses_the_winner(monkeypatch):
    """The recommend button runs the recommendation (here on one family), shows the winner, a
    table per family and the chart of every setting, and 'Use the winner' sets the release."""
    import anon_core.services.recommend as rec

    monkeypatch.setitem(rec.FAMILIES, "pram", ("retention", (0.6, 0.9), {}))
    at = _page()
    at.multiselect(key="rec_families").set_value(["pram"]).run()
    at.button(key="rec_run").click().run()
    assert not at.exception, at.exception
    found = list(at.session_state["_recommendation"].values())[0]
    assert {t.value for t in found.tried} == {0.6, 0.9}
    charts = {c.proto.id for c in at.get("plotly_chart")}
    assert any("rec_chart" in cid for cid in charts)
    if found.winner is not None:
        at.button(key="rec_use").click().run()
        ws = at.session_state["workspace"]
        assert ws.sections["method"]["name"] == "pram"
        assert ws.sections["method"]["retention"] == found.winner.value
    else:
        assert any("no setting tried passes" in w.value for w in at.warning)
