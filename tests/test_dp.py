"""Differential privacy (anon_core.dp, pages/dp.py).

The wrappers are checked against the definition the way diffprivlib's own tests check its
mechanisms: on neighbouring datasets D, D' the frequency of an output event may differ by at
most a factor e^epsilon (plus a sampling tolerance), in both directions (Dwork, McSherry,
Nissim and Smith, TCC 2006). Draws use fixed seeds, so every test is deterministic.
"""

from __future__ import annotations

import json
import math
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from anon_core.config import load_config, parse_config
from anon_core.data.io import load_table
from anon_core.dp import (
    DEFAULT_EPSILONS,
    DPConfig,
    PrivacyBudget,
    dp_ml_curve,
    dp_query,
    dp_section,
    error_curve,
    expected_error,
    parse_query,
    query_seed,
    run_dp,
    validate_dp_section,
)
from anon_core.errors import ConfigError, PrivacyWarning
from anon_core.transform.problem import load_input

ROOT = Path(__file__).resolve().parents[1]
APP = ROOT / "app.py"
CENSUS = ROOT / "sample_data" / "census_income.csv"
DRAWS = 1500


@pytest.fixture(scope="module")
def census() -> pd.DataFrame:
    return load_table(CENSUS).frame


# ============================================================== the definition, statistically


def _outputs(frame: pd.DataFrame, query: dict, seeds: range) -> np.ndarray:
    """One private answer per seed, each from a fresh unlimited budget."""
    return np.array(
        [dp_query(frame, query, PrivacyBudget(math.inf), random_state=s).value for s in seeds]
    )


def _check_definition(out_d: np.ndarray, out_d2: np.ndarray, thresholds, epsilon: float) -> float:
    """Assert P[M(D) <= t] <= e^eps P[M(D') <= t] (+ 4 standard errors) both ways; return the largest ratio."""
    bound, n = math.exp(epsilon), len(out_d)
    worst = 0.0
    for t in thresholds:
        p, q = float(np.mean(out_d <= t)), float(np.mean(out_d2 <= t))
        for a, b in ((p, q), (q, p)):
            se = math.sqrt(a * (1 - a) / n + bound**2 * b * (1 - b) / n)
            assert a <= bound * b + 4 * se + 1e-3, (t, a, b, bound)
            if min(a, b) > 0.05:
                worst = max(worst, a / b)
    return worst


def test_count_is_epsilon_dp_on_neighbouring_datasets():
    epsilon = 0.5
    d = pd.DataFrame({"x": ["a"] * 10 + ["b"] * 10})
    d2 = pd.concat([d, pd.DataFrame({"x": ["a"]})], ignore_index=True)  # one record added
    query = {"type": "count", "column": "x", "value": "a", "epsilon": epsilon}
    out_d = _outputs(d, query, range(DRAWS))
    out_d2 = _outputs(d2, query, range(DRAWS, 2 * DRAWS))
    worst = _check_definition(out_d, out_d2, [7, 8, 9, 10, 11, 12, 13], epsilon)
    # The test has power: the geometric mechanism is tight at the true count (ratio e^epsilon),
    # so a mechanism with too little noise for its claimed epsilon would fail above.
    assert worst > math.exp(0.6 * epsilon)


def test_mean_with_public_n_is_epsilon_dp_on_replace_one_neighbours():
    epsilon = 1.0
    d = pd.DataFrame({"v": np.r_[np.zeros(50), np.ones(50)]})
    d2 = d.copy()
    d2.loc[0, "v"] = 1.0  # one record replaced: the mean moves by the sensitivity (1 - 0) / 100
    query = {"type": "mean", "column": "v", "epsilon": epsilon, "bounds": [0, 1], "n": 100}
    out_d = _outputs(d, query, range(DRAWS))
    out_d2 = _outputs(d2, query, range(DRAWS, 2 * DRAWS))
    worst = _check_definition(out_d, out_d2, [0.48, 0.49, 0.495, 0.5, 0.505, 0.51, 0.52], epsilon)
    assert worst > math.exp(0.6 * epsilon)
    assert abs(np.mean(np.abs(out_d - 0.5)) - expected_error("mean", epsilon, (0, 1), 100)) < 0.002


def test_mean_without_public_n_is_not_dp_for_replace_one_at_half_the_noise():
    """Power check of the harness: the add/remove mean (n private) is calibrated for one record
    added or removed; a replaced record is two such steps, so its ratio may exceed e^epsilon."""
    epsilon = 1.0
    d = pd.DataFrame({"v": np.r_[np.zeros(50), np.ones(50)]})
    d2 = d.copy()
    d2.loc[:9, "v"] = 1.0  # ten records replaced: far from neighbours
    query = {"type": "mean", "column": "v", "epsilon": epsilon, "bounds": [0, 1]}
    out_d = _outputs(d, query, range(DRAWS))
    out_d2 = _outputs(d2, query, range(DRAWS, 2 * DRAWS))
    with pytest.raises(AssertionError):
        _check_definition(out_d, out_d2, [0.5, 0.52, 0.55], epsilon)


# Add/remove-one neighbours: D2 is D plus one record at the bound that moves the answer most.
_BASE = pd.DataFrame(
    {
        "v": np.r_[np.linspace(0.0, 1.0, 41), np.full(19, 0.25)],
        "c": ["a"] * 30 + ["b"] * 30,
    }
)
_ADDED = pd.concat([_BASE, pd.DataFrame({"v": [1.0], "c": ["a"]})], ignore_index=True)


def _event_values(out: list) -> np.ndarray:
    """A scalar per output: the value, the first quantile, or the first bin's count."""
    first = out[0]
    if isinstance(first, pd.DataFrame):
        return np.array([o["noisy_count"].iloc[0] for o in out])
    if isinstance(first, tuple):
        return np.array([o[0] for o in out])
    return np.asarray(out, dtype=float)


def _answers(frame: pd.DataFrame, query: dict, seeds: range, delta: float = 0.0) -> np.ndarray:
    out = []
    for s in seeds:
        r = dp_query(frame, query, PrivacyBudget(math.inf, delta), random_state=s)
        out.append(r.table if r.table is not None else r.value)
    return _event_values(out)


@pytest.mark.parametrize(
    "query",
    [
        {"type": "count", "column": "c", "value": "a"},
        {"type": "histogram", "column": "c", "categories": ["a", "b"]},
        {
            "type": "histogram2d",
            "x": {"column": "c", "categories": ["a", "b"]},
            "y": {"column": "v", "bounds": [0, 1], "bins": 2},
        },
        {"type": "sum", "column": "v", "bounds": [0, 1]},
        {"type": "mean", "column": "v", "bounds": [0, 1]},
        {"type": "var", "column": "v", "bounds": [0, 1]},
        {"type": "quantile", "column": "v", "bounds": [0, 1], "quantile": 0.9},
        {"type": "median", "column": "v", "bounds": [0, 1]},
    ],
    ids=lambda q: q["type"],
)
def test_every_query_type_is_epsilon_dp_on_add_remove_neighbours(query):
    """P[M(D) <= t] <= e^eps P[M(D') <= t] both ways, at the deciles of the pooled outputs."""
    epsilon = 1.0
    draws = 600
    q = {**query, "epsilon": epsilon}
    out_d = _answers(_BASE, q, range(draws))
    out_d2 = _answers(_ADDED, q, range(draws, 2 * draws))
    thresholds = np.quantile(np.r_[out_d, out_d2], np.linspace(0.1, 0.9, 9))
    _check_definition(out_d, out_d2, thresholds, epsilon)


@pytest.mark.parametrize(
    "query",
    [
        {"type": "count", "column": "c", "value": "a"},
        {"type": "histogram", "column": "c", "categories": ["a", "b"]},
        {"type": "sum", "column": "v", "bounds": [0, 1]},
        {"type": "mean", "column": "v", "bounds": [0, 1]},
    ],
    ids=lambda q: q["type"],
)
def test_gaussian_mechanism_is_epsilon_delta_dp_and_spends_delta(query):
    epsilon, delta = 1.0, 1e-3
    draws = 600
    q = {**query, "epsilon": epsilon, "mechanism": "gaussian", "delta": delta}
    out_d = _answers(_BASE, q, range(draws), delta=delta)
    out_d2 = _answers(_ADDED, q, range(draws, 2 * draws), delta=delta)
    thresholds = np.quantile(np.r_[out_d, out_d2], np.linspace(0.1, 0.9, 9))
    _check_definition(out_d, out_d2, thresholds, epsilon)  # delta is far below the tolerance
    budget = PrivacyBudget(2.0, 2e-3)
    r = dp_query(_BASE, q, budget, random_state=0)
    assert budget.spent_delta == pytest.approx(delta) and r.delta == delta
    assert budget.ledger[0]["delta"] == delta and "Gaussian" in r.error_basis
    with pytest.raises(ConfigError, match="δ = 0.0015 but only δ = 0.001 of the budget"):
        dp_query(_BASE, {**q, "delta": 1.5e-3}, budget)


def test_no_output_carries_the_true_number_of_rows_or_values(census, tmp_path):
    """Every output (JSON, summary rows, release frames, the dp section, the budget) of a run
    without public n is grepped for the true n of the table and of each column."""
    frame = census.iloc[:4321].copy()
    frame.loc[frame.index[:57], "age"] = np.nan  # 4264 non-missing ages
    truths = {len(frame), int(frame["age"].notna().sum())}
    section = {
        "epsilon": 3.0,
        "delta": 1e-6,
        "random_state": 11,
        "queries": [
            {"type": "count", "epsilon": 0.2},
            {"type": "count", "column": "age", "epsilon": 0.2},
            {"type": "sum", "column": "age", "epsilon": 0.2, "bounds": [17, 90]},
            {"type": "mean", "column": "age", "epsilon": 0.2, "bounds": [17, 90]},
            {"type": "var", "column": "hours_per_week", "epsilon": 0.2, "bounds": [0, 100]},
            {"type": "median", "column": "age", "epsilon": 0.2, "bounds": [17, 90]},
            {
                "type": "quantile",
                "column": "age",
                "epsilon": 0.2,
                "bounds": [17, 90],
                "quantile": [0.1, 0.9],
            },
            {
                "type": "histogram",
                "column": "sex",
                "epsilon": 0.2,
                "categories": ["Female", "Male"],
            },
            {
                "type": "histogram2d",
                "epsilon": 0.2,
                "x": {"column": "age", "bounds": [17, 90], "bins": 3},
                "y": {"column": "sex", "categories": ["Female", "Male"]},
            },
            {
                "type": "mean",
                "column": "age",
                "epsilon": 0.2,
                "bounds": [17, 90],
                "mechanism": "gaussian",
                "delta": 5e-7,
            },
        ],
    }
    result = run_dp(validate_dp_section(section), frame)
    texts = [
        json.dumps(result.to_dict(), allow_nan=False),
        json.dumps(result.section()),
        result.to_frame().to_csv(),
        json.dumps(result.budget.to_dict()),
        *[r.release_frame().to_csv(index=False) for r in result.results],
        *[json.dumps(r.row(), default=str) for r in result.results],
    ]
    for text in texts:
        for n in truths:
            assert not re.search(rf"(?<![\d.]){n}(?![\d])", text), (n, text[:200])
    assert all(r.n is None and "n" not in r.to_dict() for r in result.results)
    # the release report's DP section prints what it is given: the run's dictionary
    from anon_core import Problem, make_model
    from anon_core.report import build_report, report_sections

    config = {
        "input": {"path": "census.csv"},
        "attributes": {"sex": {"role": "quasi-identifier"}},
        "privacy_models": [{"model": "k-anonymity", "k": 5}],
    }
    problem = Problem(
        frame, {"sex": "quasi-identifier"}, None, [make_model({"model": "k-anonymity", "k": 5})], 0
    )
    report = build_report(config, problem, problem.evaluate({"sex": 0}), dp=result)
    (dp_block,) = [s for s in report_sections(report) if s["id"] == "dp"]
    texts.append(json.dumps(dp_block, default=str))
    for n in truths:
        assert not re.search(rf"(?<![\d.]){n}(?![\d])", texts[-1]), n
    # a public n is shown, and checked to be exact
    public = {"type": "mean", "column": "age", "epsilon": 0.2, "bounds": [17, 90], "n": 4264}
    shown = dp_query(frame, public, PrivacyBudget(1.0), random_state=0)
    assert shown.to_dict()["n"] == 4264 and "replace-one" in shown.error_basis
    with pytest.raises(ConfigError, match="declared public but is not the number"):
        dp_query(frame, {**public, "n": 4000}, PrivacyBudget(1.0))


def test_expected_errors_match_repeated_draws(census):
    queries = [
        {"type": "count", "column": "sex", "value": "Female", "epsilon": 1.0},
        {"type": "histogram", "column": "race", "epsilon": 1.0, "categories": "data"},
        {"type": "mean", "column": "age", "epsilon": 1.0, "bounds": [0, 120]},
        {"type": "sum", "column": "hours_per_week", "epsilon": 1.0, "bounds": [0, 100]},
        {"type": "var", "column": "age", "epsilon": 1.0, "bounds": [0, 120]},
    ]
    with pytest.warns(PrivacyWarning, match="categories of race were taken from the data"):
        curve = error_curve(census, queries, epsilons=[0.5, 2.0], repeats=300, random_state=1)
    assert list(curve.columns) == [
        "query",
        "type",
        "epsilon",
        "mae",
        "mae_std",
        "mae_p10",
        "mae_p90",
        "relative_error",
        "expected_error",
        "repeats",
    ]
    assert (curve["mae_p10"] <= curve["mae"]).all() and (curve["mae"] <= curve["mae_p90"]).all()
    for (
        _,
        row,
    ) in curve.iterrows():  # E|noise| formulas of the module docstring, within sampling error
        assert row["mae"] == pytest.approx(row["expected_error"], rel=0.15), row.to_dict()
    assert expected_error("count", 1.0) == pytest.approx(1 / math.sinh(1.0))
    assert expected_error("sum", 0.5, (0, 100)) == pytest.approx(200.0)
    laplace_scale = (
        100 * 10 / 121
    )  # (U - L)^2 (n - 1) / n^2 / epsilon; the bounded domain needs more
    assert laplace_scale < expected_error("var", 1.0, (0, 10), 11) < 2 * laplace_scale


# ============================================================== budget


def test_budget_composition_is_exact_and_refuses_when_exhausted(census):
    from diffprivlib.accountant import BudgetAccountant

    default_before = BudgetAccountant.load_default(None).total()
    budget = PrivacyBudget(1.0)
    assert isinstance(budget.accountant, BudgetAccountant)
    spends = [0.1, 0.2, 0.3, 0.4]  # 0.1 + 0.2 + 0.3 + 0.4 > 1.0 in floating point by one ulp
    queries = [
        {"type": "count", "epsilon": spends[0]},
        {"type": "mean", "column": "age", "epsilon": spends[1], "bounds": [17, 90]},
        {
            "type": "quantile",
            "column": "age",
            "epsilon": spends[2],
            "bounds": [17, 90],
            "quantile": [0.1, 0.5, 0.9],
        },
        {
            "type": "histogram",
            "column": "sex",
            "epsilon": spends[3],
            "categories": ["Female", "Male"],
        },
    ]
    for i, q in enumerate(queries):
        dp_query(census, q, budget, random_state=i)
        assert budget.spent == pytest.approx(sum(spends[: i + 1]), abs=1e-12)
    assert [e["epsilon"] for e in budget.ledger] == pytest.approx(
        spends
    )  # one spend per query (3 quantiles too)
    assert budget.spent == pytest.approx(1.0, abs=1e-12) and budget.remaining == pytest.approx(
        0.0, abs=1e-12
    )
    assert budget.fraction_spent == pytest.approx(1.0)
    assert budget.accountant.total()[0] == pytest.approx(1.0, abs=1e-12)
    with pytest.raises(ConfigError) as info:
        dp_query(
            census,
            {
                "type": "mean",
                "column": "age",
                "epsilon": 0.05,
                "bounds": [17, 90],
                "name": "late mean",
            },
            budget,
        )
    message = str(info.value)
    assert "'late mean'" in message and "ε = 0.05" in message and "spent" in message
    assert "Start a new release" in message
    assert len(budget.ledger) == 4  # nothing spent by a refused query
    assert (
        BudgetAccountant.load_default(None).total() == default_before
    )  # diffprivlib's global default untouched


def test_a_sum_of_epsilons_equal_to_the_budget_is_granted_despite_rounding(census):
    budget = PrivacyBudget(0.3)
    dp_query(census, {"type": "count", "epsilon": 0.1}, budget, random_state=0)
    dp_query(
        census, {"type": "count", "epsilon": 0.2}, budget, random_state=1
    )  # 0.1 + 0.2 > 0.3 in floats
    assert budget.spent == pytest.approx(0.3, abs=1e-15) and budget.remaining == 0.0
    with pytest.raises(ConfigError, match=r"the budget ε = 0.3 is spent \(2 queries\)"):
        dp_query(census, {"type": "count", "epsilon": 1e-6}, budget)


def test_over_budget_names_query_epsilon_remaining_and_fix(census):
    budget = PrivacyBudget(0.5)
    dp_query(census, {"type": "count", "epsilon": 0.3}, budget, random_state=0)
    with pytest.raises(ConfigError) as info:
        dp_query(
            census, {"type": "mean", "column": "age", "epsilon": 0.3, "bounds": [17, 90]}, budget
        )
    message = str(info.value)
    assert "'mean(age)'" in message and "ε = 0.3" in message and "0.2" in message
    assert "Lower this query's epsilon to at most 0.2" in message
    assert budget.spent == pytest.approx(0.3)
    dp_query(
        census,
        {"type": "mean", "column": "age", "epsilon": 0.2, "bounds": [17, 90]},
        budget,
        random_state=1,
    )
    assert budget.remaining == pytest.approx(0.0, abs=1e-12)
    assert budget.to_dict()["spent"]["epsilon"] == pytest.approx(0.5)


def test_a_bad_query_spends_nothing(census):
    budget = PrivacyBudget(1.0)
    with pytest.raises(ConfigError, match="not numbers"):
        dp_query(
            census, {"type": "mean", "column": "sex", "epsilon": 0.5, "bounds": [0, 1]}, budget
        )
    with pytest.raises(ConfigError, match="does not have"):
        dp_query(census, {"type": "count", "column": "nope", "epsilon": 0.5}, budget)
    assert budget.spent == 0 and not budget.ledger


# ============================================================== reproducibility and results


def test_results_are_reproducible_with_random_state(census):
    q = {"type": "mean", "column": "age", "epsilon": 0.1, "bounds": [17, 90]}
    values = [dp_query(census, q, PrivacyBudget(1.0), random_state=s).value for s in (7, 7, 8)]
    assert values[0] == values[1] != values[2]
    hist = {
        "type": "histogram2d",
        "epsilon": 0.5,
        "x": {"column": "age", "bounds": [17, 90], "bins": 4},
        "y": {"column": "sex", "categories": ["Female", "Male"]},
    }
    a = dp_query(census, hist, PrivacyBudget(1.0), random_state=3).table
    b = dp_query(census, hist, PrivacyBudget(1.0), random_state=3).table
    pd.testing.assert_frame_equal(a, b)
    config = validate_dp_section({"epsilon": 1.0, "random_state": 5, "queries": [q, q]})
    first, second = run_dp(config, census), run_dp(config, census)
    assert [r.value for r in first.results] == [r.value for r in second.results]
    assert first.results[0].value != first.results[1].value  # each query gets its own seed
    assert query_seed(5, 0) != query_seed(5, 1) and query_seed(None, 0) is None


def test_histogram_release_and_compare(census):
    budget = PrivacyBudget(1.0)
    r = dp_query(
        census,
        {
            "type": "histogram2d",
            "epsilon": 0.5,
            "x": {"column": "age", "bounds": [0, 100], "bins": 5},
            "y": {"column": "sex", "categories": ["Female", "Male"]},
        },
        budget,
        random_state=0,
    )
    assert r.true_value is None and r.abs_error is None and "true_count" not in r.table.columns
    release = r.release_frame()
    assert list(release.columns) == ["age", "Female", "Male"] and len(release) == 5
    assert release["age"].iloc[0] == "[0, 20)" and release["age"].iloc[-1] == "[80, 100]"
    assert (release[["Female", "Male"]] >= 0).all().all()
    compared = dp_query(
        census,
        {"type": "histogram", "column": "sex", "epsilon": 0.5, "categories": ["Female", "Male"]},
        budget,
        random_state=1,
        compare=True,
    )
    true = census["sex"].value_counts()
    assert list(compared.table["true_count"]) == [true["Female"], true["Male"]]
    assert (
        "true_count" not in compared.release_frame().columns
    )  # a release never carries true values
    assert compared.table["expected_error"].iloc[0] == pytest.approx(1 / math.sinh(0.5))
    section = dp_section([r, compared], budget.epsilon, budget.delta, random_state=None)
    assert [q["epsilon"] for q in section["queries"]] == [0.5, 0.5]
    assert validate_dp_section(section).queries[0] == r.query


# ============================================================== bounds and configuration validation


@pytest.mark.parametrize(
    "query,needle",
    [
        ({"type": "mean", "column": "age", "epsilon": 0.1}, "'query.bounds' is missing"),
        ({"type": "mean", "column": "age", "epsilon": 0.1, "bounds": [90, 17]}, "lower < upper"),
        ({"type": "sum", "column": "age", "epsilon": 0.1, "bounds": [0]}, "[lower, upper]"),
        ({"type": "var", "column": "age", "epsilon": 0.1, "bounds": ["a", 3]}, "domain knowledge"),
        ({"type": "histogram", "column": "age", "epsilon": 0.1}, "needs 'categories'"),
        (
            {"type": "histogram", "column": "sex", "epsilon": 0.1, "categories": []},
            "non-empty list",
        ),
        (
            {"type": "histogram", "column": "sex", "epsilon": 0.1, "categories": ["F", "F"]},
            "more than once",
        ),
        (
            {"type": "histogram", "column": "sex", "epsilon": 0.1, "categories": ["F"], "bins": 3},
            "'query.bins'",
        ),
        (
            {"type": "histogram2d", "epsilon": 0.1, "x": {"column": "age", "bounds": [0, 1]}},
            "'query.y' is missing",
        ),
        (
            {"type": "quantile", "column": "age", "epsilon": 0.1, "bounds": [0, 1]},
            "'query.quantile' is missing",
        ),
        (
            {"type": "quantile", "column": "age", "epsilon": 0.1, "bounds": [0, 1], "quantile": 2},
            "at most 1.0",
        ),
        ({"type": "count", "epsilon": 0.1, "value": "x"}, "needs a 'column'"),
        (
            {"type": "mean", "column": "age", "epsilon": 0, "bounds": [0, 1]},
            "'query.epsilon' must be greater than 0",
        ),
        ({"type": "median", "column": "age", "bounds": [0, 1]}, "'query.epsilon' is missing"),
        ({"type": "mode", "column": "age", "epsilon": 0.1}, "'query.type' must be one of"),
        (
            {"type": "mean", "column": "age", "epsilon": 0.1, "bounds": [0, 1], "bins": 3},
            "unknown field(s) 'bins'",
        ),
    ],
)
def test_query_validation_names_the_field_and_the_fix(query, needle):
    with pytest.raises(ConfigError) as info:
        parse_query(query)
    assert needle in str(info.value)


def test_bounds_from_the_data_warn_in_plain_words(census):
    budget = PrivacyBudget(2.0)
    with pytest.warns(PrivacyWarning) as caught:
        r = dp_query(
            census,
            {"type": "mean", "column": "age", "epsilon": 0.5, "bounds": "data"},
            budget,
            random_state=0,
        )
    text = " ".join(str(w.message) for w in caught)
    assert (
        "bounds of age (17 to 90) were taken from the data" in text and "domain knowledge" in text
    )
    assert "PrivacyLeakWarning" not in text  # diffprivlib's warning, reworded
    assert r.from_data == ("bounds of age",) and r.warnings and r.bounds == {"age": (17.0, 90.0)}
    with pytest.warns(PrivacyWarning, match="bounds of hours_per_week"):
        dp_query(
            census,
            {"type": "histogram", "column": "hours_per_week", "epsilon": 0.5, "bounds": "data"},
            budget,
            random_state=0,
        )
    with pytest.warns(PrivacyWarning, match="categories of race"):
        dp_query(
            census,
            {"type": "histogram", "column": "race", "epsilon": 0.5, "categories": "data"},
            budget,
            random_state=0,
        )
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyWarning)  # entered bounds: no warning at all
        dp_query(
            census,
            {"type": "median", "column": "age", "epsilon": 0.5, "bounds": [0, 120]},
            budget,
            random_state=0,
        )


def _section(**overrides):
    section = {
        "epsilon": 1.0,
        "delta": 0,
        "random_state": 0,
        "queries": [
            {"type": "mean", "column": "age", "epsilon": 0.2, "bounds": [17, 90]},
            {
                "type": "histogram",
                "column": "sex",
                "epsilon": 0.3,
                "categories": ["Female", "Male"],
            },
        ],
    }
    section.update(overrides)
    return section


@pytest.mark.parametrize(
    "section,needle",
    [
        (None, "has no 'dp' section"),
        ([], "'dp' must be an object"),
        (_section(budget=1), "unknown field(s) 'budget'"),
        ({"queries": []}, "'dp.epsilon' is missing"),
        (_section(epsilon=-1), "'dp.epsilon' must be greater than 0"),
        (_section(delta=1), "'dp.delta' must be below 1"),
        (_section(random_state=-3), "'dp.random_state' must be at least 0"),
        (_section(random_state=1.5), "'dp.random_state' must be a whole number"),
        (_section(compare="yes"), "'dp.compare' must be true or false"),
        (_section(queries=[]), "'dp.queries' must be a non-empty list"),
        (_section(epsilon=0.4), "spend ε = 0.5 in total, above the budget 'dp.epsilon' = 0.4"),
        (
            _section(queries=[{"type": "mean", "column": "age", "epsilon": 0.2}]),
            "'dp.queries[0].bounds' is missing",
        ),
        (
            _section(
                queries=[
                    {"type": "count", "epsilon": 0.1},
                    {"type": "sum", "column": "age", "epsilon": 0.1, "bounds": [1, 1]},
                ]
            ),
            "'dp.queries[1].bounds'",
        ),
    ],
)
def test_dp_section_validation(section, needle):
    with pytest.raises(ConfigError) as info:
        validate_dp_section(section)
    assert needle in str(info.value)


def test_dp_section_round_trip_and_unknown_columns():
    config = validate_dp_section(_section())
    assert isinstance(config, DPConfig) and config.total_epsilon == pytest.approx(0.5)
    assert validate_dp_section(config.to_dict()) == config
    with pytest.raises(
        ConfigError, match=r"'dp.queries\[1\]' names column 'sex', which the input does not have"
    ):
        validate_dp_section(_section(), columns=["age"])


def test_cli_integration_calls_on_a_release_configuration(tmp_path, census):
    """The calls `anon-core dp CONFIG` makes: load, validate the dp section, run, print JSON."""
    census.to_csv(tmp_path / "census.csv", index=False)
    raw = {
        "input": {"path": "census.csv"},
        "attributes": {"age": {"role": "quasi-identifier"}},
        "privacy_models": [{"model": "k-anonymity", "k": 5}],
        "dp": _section(
            compare=True,
            queries=[
                {"type": "count", "epsilon": 0.1},
                {
                    "type": "quantile",
                    "column": "age",
                    "epsilon": 0.2,
                    "bounds": [17, 90],
                    "quantile": [0.25, 0.75],
                },
                {
                    "type": "histogram2d",
                    "epsilon": 0.3,
                    "x": {"column": "age", "bounds": [17, 90], "bins": 3},
                    "y": {"column": "income", "categories": "data"},
                },
            ],
        ),
    }
    (tmp_path / "release.json").write_text(json.dumps(raw))
    config = load_config(tmp_path / "release.json")
    frame = load_input(config).frame
    dp_config = validate_dp_section(config.sections.get("dp"), columns=list(frame.columns))
    with pytest.warns(PrivacyWarning, match="categories of income"):
        result = run_dp(dp_config, frame)
    out = json.loads(json.dumps(result.to_dict(), allow_nan=False))
    assert out["spent"]["epsilon"] == pytest.approx(0.6) and out["remaining"][
        "epsilon"
    ] == pytest.approx(0.4)
    assert [r["name"] for r in out["results"]] == [
        "count(rows)",
        "quantile(age; 0.25, 0.75)",
        "histogram2d(age, income)",
    ]
    assert len(out["results"][1]["value"]) == 2 and "true_value" in out["results"][1]
    assert len(out["results"][2]["table"]) == 6 and out["warnings"]
    assert set(result.tables()) == {"histogram2d(age, income)"}
    assert parse_config(raw).sections["dp"] == raw["dp"]  # config.py carries the section as given


# ============================================================== machine learning


def test_dp_ml_curve_against_baselines(census):
    from anon_core import Problem, make_model

    frame = census.iloc[:2000]
    features = ["age", "sex", "education", "marital_status", "hours_per_week"]
    roles = {c: "quasi-identifier" if c in ("age", "sex") else "insensitive" for c in frame.columns}
    problem = Problem(frame, roles, None, [make_model({"model": "k-anonymity", "k": 5})], 0.0)
    released = problem.apply(problem.evaluate({"age": 2, "sex": 0}))
    kwargs = dict(
        features=features,
        epsilons=[0.01, 10.0],
        repeats=2,
        classes=["<=50K", ">50K"],
        bounds={"age": [17, 90], "hours_per_week": [0, 100]},
        categories={"sex": ["Female", "Male"]},
        released=released,
        random_state=0,
    )
    with pytest.warns(
        PrivacyWarning
    ) as caught:  # education and marital_status: categories from the data
        out = dp_ml_curve(frame, "income", **kwargs)
    assert {str(w.message).split(":")[0] for w in caught} == {
        "model feature 'education'",
        "model feature 'marital_status'",
    }
    assert out.from_data == ("categories of education", "categories of marital_status")
    scores = out.scores
    assert set(scores["setting"]) == {"dp", "non_private", "k_anonymized"}
    assert set(scores["model"]) == {"logistic_regression", "gaussian_nb", "random_forest"}
    assert len(scores) == 3 * 2 * (2 + 2) and scores["accuracy"].between(0, 1).all()
    curve = out.curve()
    assert list(curve.columns) == ["model", "epsilon", "mean", "std", "min", "max", "count"]
    lr = curve[curve["model"] == "logistic_regression"].set_index("epsilon")["mean"]
    assert lr[10.0] > lr[0.01] and lr[10.0] > out.majority_rate - 0.02
    base = out.baselines().set_index(["model", "setting"])["mean"]
    assert base[("logistic_regression", "non_private")] > out.majority_rate
    assert out.encoding.data_norm == pytest.approx(math.sqrt(5))
    wide = out.to_frame()
    assert list(wide.columns) == ["model", "ε=0.01", "ε=10", "non_private", "k_anonymized"]
    with pytest.warns(PrivacyWarning):
        again = dp_ml_curve(frame, "income", **{**kwargs, "repeats": 1, "released": None})
    first = scores[(scores["seed"] == 0) & (scores["setting"] != "k_anonymized")].reset_index(
        drop=True
    )
    pd.testing.assert_frame_equal(first, again.scores)  # same seed, same accuracies
    json.dumps(out.to_dict(), allow_nan=False)
    assert len(DEFAULT_EPSILONS) == 7 and DEFAULT_EPSILONS[0] == pytest.approx(0.01)
    assert DEFAULT_EPSILONS[-1] == pytest.approx(10.0)


def test_dp_ml_curve_errors(census):
    with pytest.raises(ConfigError, match="'target' must be a column"):
        dp_ml_curve(census, "salary")
    with pytest.raises(ConfigError, match="'models' must be among"):
        dp_ml_curve(census, "income", models=["svm"])
    with pytest.raises(ConfigError, match="'bounds.age' must be"):
        dp_ml_curve(
            census, "income", features=["age"], bounds={"age": [90, 17]}, epsilons=[1.0], repeats=1
        )
    with pytest.raises(ConfigError, match="too few to train and test"):
        dp_ml_curve(
            census,
            "income",
            features=["sex"],
            released=census.iloc[:5],
            epsilons=[1.0],
            repeats=1,
            categories={"sex": ["Female", "Male"]},
            classes=["<=50K", ">50K"],
        )
    with pytest.raises(ConfigError, match="generalized"):
        released = census.assign(income="*")
        dp_ml_curve(
            census,
            "income",
            features=["sex"],
            released=released,
            epsilons=[1.0],
            repeats=1,
            categories={"sex": ["Female", "Male"]},
            classes=["<=50K", ">50K"],
        )


# ============================================================== the page, from app.py


def _registered() -> bool:
    return "pages/dp.py" in APP.read_text(encoding="utf-8")


def needs_page(test):  # the page is registered (asserted below), so these always run
    return test


def test_the_dp_page_is_registered():
    assert _registered()


def _dp_page():
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(APP), default_timeout=120)
    at.run()
    assert not at.exception, at.exception
    at.switch_page("pages/dp.py").run()
    assert not at.exception, at.exception
    return at


def _metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def _run(at, **values):
    for key, value in values.items():
        widget = (
            at.selectbox(key=key)
            if key in ("dp_type", "dp_column", "dp_x_column", "dp_y_column")
            else None
        )
        if widget is None:
            widget = next(
                w
                for kind in ("number_input", "text_input", "checkbox", "slider", "radio")
                for w in at.get(kind)
                if getattr(w, "key", None) == key
            )
        widget.set_value(value).run()
    at.button(key="dp_run").click().run()
    assert not at.exception, at.exception
    return at


@needs_page
def test_page_budget_queries_compare_and_release():
    at = _dp_page()
    assert not at.error, [e.value for e in at.error]
    assert _metrics(at) == {"Total ε": "1", "Spent ε": "0", "Remaining ε": "1", "Queries": "0"}
    assert at.toggle(key="dp_compare").value is False  # compare is off by default
    at.number_input(key="dp_total_epsilon").set_value(0.5).run()
    at.button(key="dp_new_budget").click().run()
    assert _metrics(at)["Total ε"] == "0.5"
    # a mean without bounds is refused with the fix, and spends nothing
    _run(at, dp_type="mean", dp_column="length_of_stay", dp_epsilon=0.2)
    assert any("'query.bounds' is missing" in e.value for e in at.error)
    assert _metrics(at)["Spent ε"] == "0"
    _run(at, dp_lower_length_of_stay=1.0, dp_upper_length_of_stay=30.0)
    assert _metrics(at)["Spent ε"] == "0.2" and _metrics(at)["Remaining ε"] == "0.3"
    table = at.dataframe[0].value
    assert list(table["query"]) == ["mean(length_of_stay)"] and "true_value" not in table.columns
    # a histogram: the release table, its chart and the downloads
    _run(at, dp_type="histogram", dp_x_column="sex", dp_x_categories_sex="F, M", dp_epsilon=0.25)
    assert _metrics(at)["Queries"] == "2"
    assert any(c.proto.id and "dp_hist_chart" in c.proto.id for c in at.get("plotly_chart"))
    labels = {d.label for d in at.get("download_button")}
    assert {"⬇️ Noisy table (CSV)", "⬇️ dp configuration section (JSON)"} <= labels
    at.toggle(key="dp_compare").set_value(True).run()
    assert "true_value" in at.dataframe[0].value.columns
    # over budget: refused in plain words, nothing spent
    _run(at, dp_type="count", dp_epsilon=0.2)
    assert any(
        "asks for ε = 0.2" in e.value and "Lower this query's epsilon" in e.value for e in at.error
    )
    assert _metrics(at)["Queries"] == "2"
    # error against epsilon
    at.slider(key="dp_err_repeats").set_value(5).run()
    at.button(key="dp_err_run").click().run()
    assert not at.exception, at.exception
    assert any("dp_error_chart" in c.proto.id for c in at.get("plotly_chart"))


@needs_page
def test_page_ml_curve_with_k_anonymized_baseline():
    at = _dp_page()
    ws = at.session_state["workspace"]
    heights = ws.problem().dataset.heights  # every QI one level below '*': satisfies k = 5
    ws.update(
        "coarse levels", transformation={q: h - 2 for q, h in zip(ws.qis, heights, strict=True)}
    )
    at.selectbox(key="dp_ml_target").set_value("sex").run()
    at.multiselect(key="dp_ml_features_sex").set_value(["diagnosis", "length_of_stay"]).run()
    at.multiselect(key="dp_ml_models").set_value(["gaussian_nb"]).run()
    at.slider(key="dp_ml_repeats").set_value(1).run()
    at.slider(key="dp_ml_points").set_value(3).run()
    at.button(key="dp_ml_run").click().run()
    assert any("Enter lower and upper bounds for ['length_of_stay']" in e.value for e in at.error)
    at.number_input(key="dp_ml_lower_length_of_stay").set_value(1.0).run()
    at.number_input(key="dp_ml_upper_length_of_stay").set_value(30.0).run()
    at.button(key="dp_ml_run").click().run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    out = at.session_state["dp_ml_result"]
    assert set(out.scores["setting"]) == {"dp", "non_private", "k_anonymized"}
    assert any("dp_ml_chart" in c.proto.id for c in at.get("plotly_chart"))
    assert any(
        "classes of sex" in w.value and "categories of diagnosis" in w.value for w in at.warning
    )
