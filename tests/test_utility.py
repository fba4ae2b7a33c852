"""Utility analysis (anon_core.utility.summary): hand-worked distances, metric summaries equal to the
metrics (and ARX), and classifier utility on the synthetic census sample.

Hand-worked table (N=6) for the distributions: QI ``a`` with hierarchy
x,y -> xy; z,w -> zw; -> * (w does not occur in the data), sensitive ``s``:

    a: x x x y z z        s: p p q q p q

Original shares of a: (x, y, z) = (1/2, 1/6, 1/3); of s: (p, q) = (1/2, 1/2).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from anon_core import (
    ConfigError,
    Evaluator,
    Hierarchy,
    Problem,
    load_table,
    make_metric,
    make_model,
)
from anon_core.quality.metrics import METRICS
from anon_core.utility.summary import (
    ML_MODELS,
    compare_distributions,
    hellinger,
    ml_utility,
    quality_summary,
)

from .conftest import needs_shared

CENSUS = Path(__file__).resolve().parents[1] / "sample_data" / "census_income.csv"
FAST = {"random_forest": {"n_estimators": 50}}


# ---------------------------------------------------------------------------- Hellinger


def test_hellinger_identical_is_zero():
    assert hellinger([0.2, 0.3, 0.5], [0.2, 0.3, 0.5]) == 0.0
    assert hellinger([1, 2, 3], [2, 4, 6]) == 0.0  # weights are normalised


def test_hellinger_disjoint_is_one():
    assert hellinger([1, 1, 0, 0], [0, 0, 3, 1]) == pytest.approx(1.0, abs=1e-15)


def test_hellinger_worked_two_values():
    # BC = 2 * sqrt(0.36 * 0.64) = 2 * 0.48 = 0.96, so H = sqrt(0.04) = 0.2
    assert hellinger([0.36, 0.64], [0.64, 0.36]) == pytest.approx(0.2, rel=1e-12)
    # p = (3/4, 1/4) against uniform: BC = sqrt(3/8) + sqrt(1/8) = cos(pi/12)
    assert hellinger([3, 1], [1, 1]) == pytest.approx(
        math.sqrt(1 - math.cos(math.pi / 12)), rel=1e-12
    )


@pytest.mark.parametrize(
    ("p", "q", "fragment"),
    [
        ([0.5, 0.5], [1.0], "same length"),
        ([0.5, -0.5], [0.5, 0.5], "'p' must hold finite non-negative"),
        ([0.5, 0.5], [0.0, 0.0], "'q' must have a positive total"),
    ],
)
def test_hellinger_errors(p, q, fragment):
    with pytest.raises(ConfigError, match=fragment):
        hellinger(p, q)


# ------------------------------------------------------------------ hand-worked table


def _tiny(k: int = 1, limit: float = 0.0) -> Problem:
    frame = pd.DataFrame({"a": list("xxxyzz"), "s": list("ppqqpq")})
    hier = Hierarchy(
        np.array(
            [["x", "xy", "*"], ["y", "xy", "*"], ["z", "zw", "*"], ["w", "zw", "*"]], dtype=object
        ),
        name="a",
    )
    return Problem(
        frame,
        {"a": "quasi-identifier", "s": "sensitive"},
        {"a": hier},
        [make_model({"model": "k-anonymity", "k": k})],
        limit,
    )


def test_distributions_of_identity_are_equal():
    problem = _tiny()
    comp = compare_distributions(problem, problem.evaluate({"a": 0}))
    assert [(a.attribute, a.role, a.level, a.hellinger) for a in comp.attributes] == [
        ("a", "quasi-identifier", 0, 0.0),
        ("s", "sensitive", None, 0.0),
    ]


def test_generalized_mass_is_spread_uniformly_over_covered_data_values():
    problem = _tiny()
    comp = compare_distributions(problem, problem.evaluate({"a": 1}))
    dist = comp.distributions[comp.distributions.attribute == "a"].set_index("value")
    # xy (4 records) over x and y: 2 each; zw (2 records) over z only (w has no record)
    assert dist.released_share.to_dict() == pytest.approx({"x": 1 / 3, "y": 1 / 3, "z": 1 / 3})
    assert dist.original_share.to_dict() == pytest.approx({"x": 1 / 2, "y": 1 / 6, "z": 1 / 3})
    assert dist.released_value.to_dict() == {"x": "xy", "y": "xy", "z": "zw"}
    # BC = (sqrt(3*2) + sqrt(1*2) + sqrt(2*2)) / 6
    bc = (math.sqrt(6) + math.sqrt(2) + 2) / 6
    assert comp.hellinger("a") == pytest.approx(math.sqrt(1 - bc), rel=1e-12)
    assert comp.hellinger("a") == pytest.approx(0.150719, abs=1e-6)


def test_full_generalization_gives_distance_to_uniform():
    problem = _tiny()
    comp = compare_distributions(problem, problem.evaluate({"a": 2}))
    p = np.array([1 / 2, 1 / 6, 1 / 3])
    assert comp.hellinger("a") == pytest.approx(math.sqrt(1 - np.sum(np.sqrt(p / 3))), rel=1e-12)
    assert comp.hellinger("s") == 0.0


def test_suppressed_records_are_excluded_or_masked():
    # k=2 with one record allowed: the singleton class y (record 4) is suppressed.
    problem = _tiny(k=2, limit=0.2)
    result = problem.evaluate({"a": 0})
    assert result.satisfied and result.suppressed_records == 1
    comp = compare_distributions(problem, result)
    assert comp.released_records == 5 and comp.suppressed_count == 1
    # a: released (3, 0, 2)/5, BC = 3/sqrt(30) + 2/sqrt(30)
    assert comp.hellinger("a") == pytest.approx(math.sqrt(1 - 5 / math.sqrt(30)), rel=1e-12)
    # s: released (p, q) = (3, 2)/5, BC = sqrt(0.3) + sqrt(0.2)
    assert comp.hellinger("s") == pytest.approx(
        math.sqrt(1 - math.sqrt(0.3) - math.sqrt(0.2)), rel=1e-12
    )
    masked = compare_distributions(problem, result, suppressed_records="mask")
    # the suppressed record is '*': one third of it on each of x, y, z; s is kept
    q = np.array([3 + 1 / 3, 1 / 3, 2 + 1 / 3]) / 6
    assert masked.hellinger("a") == pytest.approx(hellinger([3, 1, 2], q), rel=1e-12)
    assert masked.hellinger("s") == 0.0 and masked.released_records == 6


def test_distribution_frames_are_tidy():
    problem = _tiny()
    comp = compare_distributions(problem, problem.evaluate({"a": 1}))
    assert list(comp.distributions.columns) == [
        "attribute",
        "value",
        "released_value",
        "original_share",
        "released_share",
    ]
    sums = comp.distributions.groupby("attribute")[["original_share", "released_share"]].sum()
    assert np.allclose(sums.to_numpy(), 1.0)
    table = comp.to_frame()
    assert list(table.attribute) == ["a", "s"] and str(table.level.dtype) == "Int64"
    json.dumps(comp.to_dict(include_distributions=True))


def test_distribution_errors():
    problem = _tiny()
    result = problem.evaluate({"a": 0})
    with pytest.raises(ConfigError, match="'suppressed_records' must be one of"):
        compare_distributions(problem, result, suppressed_records="drop")
    with pytest.raises(ConfigError, match="'attributes' names 'nope'"):
        compare_distributions(problem, result, attributes=["nope"])
    with pytest.raises(ConfigError, match="another Problem"):
        compare_distributions(_tiny(), result)


# ---------------------------------------------------------------------- census sample


@pytest.fixture(scope="module")
def census() -> pd.DataFrame:
    return load_table(CENSUS).frame


@pytest.fixture(scope="module")
def census_problem(census) -> Problem:
    roles = {c: "quasi-identifier" for c in census.columns if c != "income"} | {
        "income": "sensitive"
    }
    return Problem(
        census, roles, models=[make_model({"model": "k-anonymity", "k": 5})], suppression_limit=0.1
    )


def _top(problem: Problem) -> dict[str, int]:
    return {q: problem.dataset.hierarchy(q).height - 1 for q in problem.dataset.qis}


def test_census_identity_distances_are_zero(census_problem):
    # no privacy model, so the identity suppresses nothing
    problem = Problem(census_problem.dataset.frame, census_problem.dataset.roles)
    comp = compare_distributions(problem, problem.evaluate(dict.fromkeys(problem.dataset.qis, 0)))
    assert comp.suppressed_count == 0
    assert {a.attribute: a.hellinger for a in comp.attributes} == dict.fromkeys(
        [*problem.dataset.qis, "income"], 0.0
    )


def test_census_full_generalization_is_distance_to_uniform(census, census_problem):
    result = census_problem.evaluate(_top(census_problem))
    assert result.suppressed_records == 0
    comp = compare_distributions(
        census_problem, result, attributes=["sex", "zip_code", "age", "income"]
    )
    for q in ("sex", "zip_code", "age"):
        p = census[q].value_counts().to_numpy() / len(census)
        expected = math.sqrt(1 - np.sum(np.sqrt(p / len(p))))
        assert comp.hellinger(q) == pytest.approx(expected, rel=1e-9), q
    assert set(comp.distributions.loc[comp.distributions.attribute == "sex", "released_value"]) == {
        "*"
    }
    assert comp.hellinger("income") == 0.0


def test_quality_summary_equals_the_metrics(census_problem):
    levels = {
        q: min(2, census_problem.dataset.hierarchy(q).height - 1)
        for q in census_problem.dataset.qis
    }
    result = census_problem.evaluate(levels)
    assert result.suppressed_records > 0  # so both variants differ
    summary = quality_summary(census_problem, result)
    n_variants = sum(2 if cls.has_monotonic_variant else 1 for cls in METRICS.values())
    assert len(summary.metrics) == n_variants
    for entry in summary.metrics:
        metric = METRICS[entry.metric](monotonic=entry.monotonic)
        direct = metric.compute(
            result.table, result.suppressed, metric.prepare(census_problem.freq)
        )
        assert entry.value == direct.value and entry.per_attribute == direct.per_attribute, (
            entry.name
        )
        # and what an evaluator optimising that metric reports
        spec = (
            {"name": entry.metric, "monotonic": entry.monotonic}
            if metric.has_monotonic_variant
            else entry.metric
        )
        evaluator = Evaluator(
            census_problem.freq, census_problem.evaluator.models, 0.1, make_metric(spec)
        )
        assert evaluator.evaluate(levels).quality.value == entry.value, entry.name
    assert summary.suppression_rate == result.suppressed_records / len(census_problem.dataset.frame)
    assert summary.get("loss").optimized and not summary.get("precision", monotonic=True).optimized
    assert (
        summary.get("precision", monotonic=False).value
        > summary.get("precision", monotonic=True).value
    )
    assert summary.get("loss").upper == 1.0 and summary.get("aecs").lower == 1.0
    assert set(summary.components_frame().attribute) == set(census_problem.dataset.qis)
    json.dumps(summary.to_dict())
    with pytest.raises(ConfigError, match="holds both variants"):
        summary.get("precision")


# --------------------------------------------------------------------------- ARX


@needs_shared
def test_quality_summary_reproduces_arx(adult_frame, adult_hierarchies, arx_reference):
    order = arx_reference["attribute_order"]
    problems: dict[str, Problem] = {}
    cases = arx_reference["cases"] + arx_reference["arx_test_suite_cases"]
    for case in cases:
        key = json.dumps([case["privacy_models"], case["suppression_limit"]])
        if key not in problems:
            problems[key] = Problem(
                adult_frame[order],
                dict.fromkeys(order, "quasi-identifier"),
                adult_hierarchies,
                [make_model(m) for m in case["privacy_models"]],
                case["suppression_limit"],
            )
        problem = problems[key]
        summary = quality_summary(problem, problem.evaluate(case["expected"]["levels"]))
        spec = case["quality_metric"]
        entry = summary.get(spec["name"], spec.get("monotonic"))
        assert entry.value == pytest.approx(case["expected"]["quality"], rel=1e-9, abs=0), case[
            "description"
        ]
    k5_loss = next(c for c in cases if c["description"] == "k-anonymity k=5, no suppression, Loss")
    problem = problems[json.dumps([k5_loss["privacy_models"], 0.0])]
    summary = quality_summary(problem, problem.evaluate(k5_loss["expected"]["levels"]))
    assert summary.get("loss").value == pytest.approx(0.5731509655590044, rel=1e-12)
    assert summary.suppression_rate == 0.0


# ---------------------------------------------------------------------- ML utility


@pytest.fixture(scope="module")
def identity_release(census):
    roles = {c: "quasi-identifier" for c in census.columns if c != "income"} | {
        "income": "insensitive"
    }
    problem = Problem(census, roles)
    return problem.apply(problem.evaluate(dict.fromkeys(problem.dataset.qis, 0)))


@pytest.fixture(scope="module")
def heavy_release(census_problem):
    levels = _top(census_problem) | {"age": 2, "hours_per_week": 2}
    result = census_problem.evaluate(levels)
    return census_problem.apply(result)


@pytest.fixture(scope="module")
def identity_utility(census, identity_release):
    calls = []
    original = census.assign(record_id=np.arange(len(census)).astype(str))  # not released: left out
    res = ml_utility(
        original,
        identity_release,
        "income",
        cv=3,
        model_params=FAST,
        progress=lambda f, m: calls.append((f, m)),
    )
    return res, calls


def test_ml_utility_identity_release_has_no_drop(identity_utility, census):
    res, calls = identity_utility
    assert "record_id" not in res.features and len(res.features) == len(census.columns) - 1
    assert res.numeric_features["original"] == ("age", "hours_per_week")
    assert res.classes == ("<=50K", ">50K") and res.roc_auc_kind == "roc_auc"
    assert res.majority_rate["original"] == pytest.approx(3713 / 5000)
    for m in res.models:
        assert m.drop == {"accuracy": 0.0, "f1_macro": 0.0, "roc_auc": 0.0}, m.model
        assert m.original.accuracy.mean > res.majority_rate["original"] + 0.05, m.model
        assert m.original.roc_auc.mean > 0.8 and len(m.original.accuracy.folds) == 3
    assert [m.model for m in res.models] == list(ML_MODELS)
    assert len(calls) == 2 * 2 * 3 and calls[-1][0] == 1.0
    assert all(a[0] < b[0] for a, b in zip(calls, calls[1:], strict=False))
    frame = res.to_frame()
    assert list(frame.columns) == [
        "model",
        "score",
        "original_mean",
        "original_std",
        "released_mean",
        "released_std",
        "drop",
    ]
    json.dumps(res.to_dict())


def test_ml_utility_heavy_generalization_loses_accuracy(census, heavy_release):
    res = ml_utility(census, heavy_release, "income", cv=3, model_params=FAST)
    assert res.numeric_features["released"] == ()  # generalized labels are categories
    assert res.n_released == len(heavy_release)
    for m in res.models:
        assert m.released.accuracy.mean <= m.original.accuracy.mean, m.model
    assert res.model("logistic_regression").drop["roc_auc"] > 0.02


def test_ml_utility_is_deterministic(census, heavy_release):
    params = {"random_forest": {"n_estimators": 20}}
    a = ml_utility(
        census, heavy_release, "income", models=["random_forest"], cv=3, model_params=params
    )
    b = ml_utility(
        census, heavy_release, "income", models=["random_forest"], cv=3, model_params=params
    )
    assert a.models == b.models
    c = ml_utility(
        census,
        heavy_release,
        "income",
        models=["random_forest"],
        cv=3,
        model_params=params,
        random_state=1,
    )
    assert c.models[0].original.accuracy.folds != a.models[0].original.accuracy.folds


def test_ml_utility_errors(census):
    small = census.iloc[:300]
    rare = small.assign(income=["a", "b"] + ["c"] * 298)
    cases = [
        (dict(target="salary"), "'target' 'salary' is not a column of the original table"),
        (dict(released=small.drop(columns="income")), "not a column of the released table"),
        (dict(released=small.assign(income="<=50K")), "single class"),
        (dict(released=small.assign(income=["*"] * 300)), "was generalized or masked"),
        (dict(original=rare, released=rare), "'cv' is 3 but class"),
        (dict(models=["svm"]), "'models' must be one of"),
        (dict(cv=1), "'cv' must be at least 2"),
        (dict(features=["age", "income"]), "'features' contains the target"),
        (dict(features=["age", "height"]), "'features' names \\['height'\\]"),
        (dict(model_params={"random_forest": {"n_trees": 5}}), "'model_params.random_forest'"),
    ]
    for override, fragment in cases:
        kwargs = dict(
            original=small, released=small, target="income", models=["random_forest"], cv=3
        )
        kwargs.update(override)
        with pytest.raises(ConfigError, match=fragment):
            ml_utility(**kwargs)
