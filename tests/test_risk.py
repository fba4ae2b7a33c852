"""Re-identification risk (anon_core.risk.reidentification), attribute disclosure (anon_core.risk.disclosure) and ``anon-core risk``.

Expected values are ARX's own (arx_reference.json "risk_of_original_all_9_qis";
ARX's JUnit TestRiskMetrics on the same Adult data) or worked out by hand in
the comments; none is a figure this code produced.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from anon_core import (
    ConfigError,
    DataError,
    Hierarchy,
    Problem,
    load_table,
    make_metric,
    make_model,
)
from anon_core.cli import EXIT_BAD_INPUT, main, write_table
from anon_core.risk.disclosure import attribute_disclosure, disclosure_dict
from anon_core.risk.reidentification import (
    RISK_BINS,
    USA_POPULATION,
    SolverConfig,
    newton_2d,
    population_uniqueness,
    report_dict,
    risk_from_sizes,
    risk_of_frame,
    risk_of_original,
    risk_of_result,
)

from .conftest import needs_shared

REL = 1e-12
N_ADULT = 30162


# ----------------------------------------------------------------- fixtures
@pytest.fixture(scope="module")
def adult_problem_factory(adult_frame, adult_hierarchies, arx_reference):
    order = arx_reference["attribute_order"]

    def make(models=({"model": "k-anonymity", "k": 1},), limit=0.0, metric="loss"):
        return Problem(
            adult_frame[order],
            {a: "quasi-identifier" for a in order},
            adult_hierarchies,
            [make_model(m) for m in models],
            limit,
            make_metric(metric),
        )

    return make


def _arx_round(x: float) -> int:
    """Java's Math.round for a positive double (ARXPopulationModel.create(n, f) rounds n / f)."""
    return math.floor(x + 0.5)


def _four_digits(x: float) -> int:
    """ARX's compareUniqueness: (int) (x * 10000)."""
    return int(x * 10000.0)


# ------------------------------------------------------- ARX: original Adult
@needs_shared
def test_original_adult_matches_arx(adult_problem_factory, arx_reference):
    ref = arx_reference["risk_of_original_all_9_qis"]
    problem = adult_problem_factory()
    report = risk_of_original(problem)
    assert report.records == N_ADULT
    assert report.equivalence_classes == ref["equivalence_classes"]
    assert report.sample_uniques == ref["sample_uniques"]
    for attacker in (report.prosecutor, report.journalist):
        assert attacker.highest_risk == pytest.approx(ref["highest_prosecutor_risk"], rel=REL)
        assert attacker.records_at_highest_risk == pytest.approx(
            ref["fraction_records_at_highest_risk"], rel=REL
        )
        assert attacker.average_risk == pytest.approx(
            ref["average_prosecutor_risk (= marketer success rate)"], rel=REL
        )
        got = {str(t): v for t, v in attacker.records_at_risk}
        assert set(got) == set(ref["records_at_risk_by_threshold"])
        for t, share in ref["records_at_risk_by_threshold"].items():
            assert got[t] == pytest.approx(share, rel=REL), t
    assert report.marketer_average_risk == pytest.approx(
        ref["average_prosecutor_risk (= marketer success rate)"], rel=REL
    )
    # RiskModelSampleUniqueness: fraction of unique records = c1 / N = ARX's fraction at the highest risk.
    assert report.sample_uniques_share == pytest.approx(
        ref["fraction_records_at_highest_risk"], rel=REL
    )

    # The same figures from the class sizes alone, and from the level-0 release.
    d = report_dict(report)
    assert report_dict(risk_from_sizes(problem.freq.counts)) == {**d, "qi_analysis": []}
    level0 = risk_of_result(problem.evaluate({a: 0 for a in problem.freq.qis}))
    assert report_dict(level0) == d


@needs_shared
def test_original_adult_records_at_risk_are_one_minus_cumulative_distribution(
    adult_problem_factory, arx_reference
):
    """Spec 1.5: 'records at risk > t' = 1 - cumulative share at t whenever t is a bin bound."""
    ref = arx_reference["risk_of_original_all_9_qis"]["records_at_risk_by_threshold"]
    report = risk_of_original(adult_problem_factory(), max_combination_size=0)
    cumulative = {b.high: b.cumulative for b in report.distribution}
    for t, share in ref.items():
        assert 1.0 - cumulative[float(t)] == pytest.approx(share, rel=1e-9, abs=1e-12)


# ------------------------------------------------------ ARX: TestRiskMetrics
# ARX's getAnonymizedData(): KAnonymity(2), suppression 0, Metric.createLossMetric(AggregateFunction.RANK).
# RANK compares the per-attribute losses sorted in descending order, lexicographically
# (ILMultiDimensionalRank). Among the minimal 2-anonymous transformations the RANK
# optimum is this one (found by ordering them by that key); the geometric-mean Loss
# optimum (problem.search(), ARX's reference case "k=2, Loss") has 52 classes instead.
ARX_RANK_K2 = {
    "sex": 0,
    "age": 4,
    "race": 1,
    "marital-status": 2,
    "education": 1,
    "native-country": 2,
    "workclass": 2,
    "occupation": 1,
    "salary-class": 0,
}


def _rank_key(result) -> tuple[float, ...]:
    return tuple(sorted(result.quality.per_attribute.values(), reverse=True))


@needs_shared
def test_arx_junit_average_and_highest_risk_after_2_anonymity(adult_problem_factory, arx_reference):
    problem = adult_problem_factory([{"model": "k-anonymity", "k": 2}])
    # testAverageRisk2 / testHighestIndividualRisk2, before anonymization.
    original = risk_of_original(problem, max_combination_size=0)
    assert original.prosecutor.average_risk == 0.6465751607983555
    assert original.prosecutor.highest_risk == 1.0

    # Which transformation ARX's test released: search() gives the Loss optimum ...
    found = problem.search()
    expected = next(
        c
        for c in arx_reference["cases"]
        if c["description"] == "k-anonymity k=2, no suppression, Loss"
    )
    assert found.optimum.transformation == expected["expected"]["levels"]
    # ... and the RANK optimum is 2-anonymous, minimal, and ranks before it.
    rank = problem.evaluate(ARX_RANK_K2)
    assert rank.satisfied and rank.suppressed_records == 0
    for q, lv in ARX_RANK_K2.items():
        if lv:
            assert not problem.evaluate({**ARX_RANK_K2, q: lv - 1}).satisfied, q
    assert _rank_key(rank) < _rank_key(found.optimum)

    report = risk_of_result(rank, max_combination_size=0)
    assert report.prosecutor.average_risk == pytest.approx(0.001922949406538028, rel=REL)
    assert report.prosecutor.highest_risk == 0.5
    # The sample-risk model's 1 / (records / classes) is ARX's exact double here too.
    assert 1.0 / (report.records / report.equivalence_classes) == 0.001922949406538028


# ARX TestRiskMetrics.testDecisionRule2: ARXPopulationModel.create(30162, f), Dankar's fraction.
DECISION_RULE = [
    (0.1, "pitman", 0.27684993883653597),
    (0.2, "zayatz", 0.3577099234829125),
    (0.01, "pitman", 0.1446083531167384),
    (1.0, "zayatz", 0.5142895033485844),
]


@needs_shared
@pytest.mark.parametrize("f,model,expected", DECISION_RULE, ids=[str(c[0]) for c in DECISION_RULE])
def test_arx_decision_rule_on_adult(adult_problem_factory, f, model, expected):
    sizes = adult_problem_factory().freq.counts
    pu = population_uniqueness(sizes, _arx_round(N_ADULT / f))
    assert pu.dankar_model == model
    assert _four_digits(pu.dankar) == _four_digits(expected)  # ARX's own comparison
    # Zayatz is a closed form: ARX's double to the last digits; Pitman is a Newton
    # root at accuracy 1e-6 (ARX's path differs), so to 1e-9.
    assert pu.dankar == pytest.approx(expected, rel=REL if model == "zayatz" else 1e-9)
    sample_uniqueness = 15512 / N_ADULT
    assert _four_digits(pu.dankar) <= _four_digits(sample_uniqueness)


@needs_shared
def test_arx_zayatz_alternative_at_one_tenth(adult_problem_factory):
    """testDecisionRule2 accepts Zayatz 0.3207402393466189 at f = 0.1 had Pitman failed."""
    pu = population_uniqueness(adult_problem_factory().freq.counts, _arx_round(N_ADULT / 0.1))
    assert pu.zayatz == pytest.approx(0.3207402393466189, rel=REL)


@needs_shared
def test_arx_decision_rule_at_full_sampling_equals_sample_uniqueness(adult_problem_factory):
    pu = population_uniqueness(adult_problem_factory().freq.counts, N_ADULT)
    assert pu.sampling_fraction == 1.0
    assert _four_digits(pu.dankar) == _four_digits(15512 / N_ADULT)


# ------------------------------------------------------- hand-worked figures
SIZES = [1, 1, 2, 3, 3, 10]  # 20 records in 6 classes


def test_sample_risks_hand_worked():
    r = risk_from_sizes(SIZES, thresholds=(0.05, 0.1, 0.2, 1 / 3, 0.5))
    assert (r.records, r.equivalence_classes, r.sample_uniques) == (20, 6, 2)
    assert r.sample_uniques_share == 2 / 20
    p = r.prosecutor
    assert p.highest_risk == 1.0
    assert p.records_at_highest_risk == 2 / 20
    assert p.average_risk == 6 / 20
    # 1/size > t (strict): t=0.05 -> sizes < 20 (all 20); t=0.1 -> sizes < 10 (10 records);
    # t=0.2 -> sizes < 5 (10); t=1/3 -> sizes < 3 (4: the size-3 classes sit exactly at 1/3); t=0.5 -> size 1 (2).
    assert dict(p.records_at_risk) == {0.05: 1.0, 0.1: 0.5, 0.2: 0.5, 1 / 3: 4 / 20, 0.5: 2 / 20}
    assert r.journalist == r.prosecutor
    assert r.marketer_average_risk == 6 / 20


def test_risk_distribution_bins_hand_worked():
    r = risk_from_sizes(SIZES)
    assert len(r.distribution) == 24
    assert [b.high for b in r.distribution] == list(RISK_BINS)
    assert r.distribution[0].low == 0.0 and r.distribution[1].low == 1e-8
    share = {b.high: b.records for b in r.distribution if b.records}
    # risk 0.1 sits on a bound: bin (0.09, 0.1]; 1/3 -> (0.25, 0.334]; 0.5 -> (0.334, 0.5]; 1 -> (0.5, 1].
    assert share == {0.1: 10 / 20, 0.334: 6 / 20, 0.5: 2 / 20, 1.0: 2 / 20}
    cum = {b.high: b.cumulative for b in r.distribution}
    assert cum[0.09] == 0.0 and cum[0.1] == 0.5 and cum[0.25] == 0.5
    assert cum[0.334] == pytest.approx(0.8) and cum[0.5] == pytest.approx(0.9) and cum[1.0] == 1.0


@pytest.mark.parametrize(
    "size,high", [(6, 0.167), (7, 0.143), (8, 0.125), (3, 0.334), (4, 0.25), (100, 0.01)]
)
def test_risk_distribution_edges(size, high):
    """1/6 -> (0.143, 0.167]; 1/7 -> (0.125, 0.143]; 1/8 -> (0.1, 0.125]; 1/4 and 1/100 on a bound."""
    r = risk_from_sizes([size])
    assert [b.high for b in r.distribution if b.records] == [high]


def test_zayatz_hand_worked():
    # sizes [1, 2]: n = 3 records, u = 2, c1 = 1; population 10, f = 0.3.
    # Hypergeometric(N=10, K, n=3) P(X=1): K=1 -> 3/10; K=2 -> C(2,1) C(8,2) / C(10,3) = 56/120 = 7/15.
    # temp = 1/2 * 3/10 + 1/2 * 7/15 = 23/60; cond = (1/2 * 3/10) / (23/60) = 9/23;
    # uniques = c1 * cond / f = 30/23; fraction = (30/23) / 10 = 3/23.
    pu = population_uniqueness([1, 2], 10)
    assert pu.sampling_fraction == 0.3
    assert pu.zayatz == pytest.approx(3 / 23, rel=REL)
    assert pu.dankar_model in {"zayatz", "snb"}  # f > 0.1: SNB if it converges and is smaller


def test_zayatz_full_sampling_is_sample_uniqueness():
    # f = 1: P(X=1) is 1 for K=1 and 0 for K>=2, so cond = 1 and uniques = c1 = 2 of 20.
    pu = population_uniqueness(SIZES, 20)
    assert pu.zayatz == pytest.approx(2 / 20, rel=REL)


def test_no_sample_unique_means_no_population_unique():
    pu = population_uniqueness([2, 3, 5])
    assert (pu.zayatz, pu.pitman, pu.snb, pu.dankar, pu.dankar_model) == (
        0.0,
        0.0,
        0.0,
        0.0,
        "none",
    )
    assert pu.population_size == USA_POPULATION
    assert pu.sampling_fraction == 10 / USA_POPULATION


def test_estimators_never_raise_and_give_nan_when_they_fail():
    for sizes in ([1], [1, 1, 1], [1, 29_999], [1] * 500 + [10_000]):
        for population in (sum(sizes), 2 * sum(sizes), USA_POPULATION):
            pu = population_uniqueness(sizes, population)
            assert all(isinstance(v, float) for v in (pu.zayatz, pu.pitman, pu.snb, pu.dankar))
            assert pu.zayatz > 0.0  # closed form: always defined when there are sample uniques
    # A single unique record: Pitman's start is (0, 0) and alpha = 0 is invalid (ARX: NaN).
    assert math.isnan(population_uniqueness([1]).pitman)


def test_empty_release_reads_zero_everywhere():
    r = risk_from_sizes([])
    assert (r.records, r.equivalence_classes, r.sample_uniques) == (0, 0, 0)
    assert r.prosecutor.highest_risk == 0.0 and r.prosecutor.average_risk == 0.0
    assert all(v == 0.0 for _, v in r.prosecutor.records_at_risk)
    assert all(b.records == 0.0 for b in r.distribution)
    assert r.population.dankar == 0.0


# -------------------------------------------------------- Newton-Raphson quirks
def _linear(target):
    def master(x, y):
        return x - target, y - target, 1.0, 0.0, 0.0, 1.0

    return master


def test_solver_last_start_value_is_only_checked_at_the_point():
    # F = (x - 5, y - 5) reaches (5, 5) in one step from anywhere, but the constraint x < 0.98
    # rejects it, so every try ends after one step; the 16th prepared start (0.99, 0.99) is
    # then only checked where it stands (ARX's newtonraphson 0.0.1) and nothing converges.
    calls = []

    def master(x, y):
        calls.append((x, y))
        return _linear(5.0)(x, y)

    x, y = newton_2d(master, (1.0, 1.0), SolverConfig(), constraint=lambda x, _y: x < 0.98)
    assert math.isnan(x) and math.isnan(y)
    assert len(calls) == 17
    assert calls[0] == (1.0, 1.0) and calls[1] == (0.0, 0.0) and calls[-1][0] == pytest.approx(0.99)


def test_solver_returns_a_point_that_already_satisfies_the_accuracy():
    # The last prepared start sits at 0.99 (+ float accumulation error far below 1e-6).
    x, y = newton_2d(_linear(0.99), (1.0, 1.0), SolverConfig(), constraint=lambda x, _y: x < 0.5)
    assert (x, y) == pytest.approx((0.99, 0.99), abs=1e-6)


def test_solver_start_values_are_arx_grid():
    starts = SolverConfig().starts()
    assert len(starts) == 16
    assert [s[1] for s in starts[:4]] == pytest.approx([0.0, 0.33, 0.66, 0.99])
    assert [s[0] for s in starts[::4]] == pytest.approx([0.0, 0.33, 0.66, 0.99])


# ------------------------------------------------------------- QI analysis
def _qi_frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "a": ["x", "x", "x", "y", "y", "z", "*", "*"],
            "b": ["1", "1", "2", "2", "3", "3", "*", "3"],
            "s": ["u", "v", "u", "v", "u", "v", "u", "v"],
        }
    )


def test_qi_distinction_and_separation_hand_worked():
    r = risk_of_frame(_qi_frame(), ["a", "b"])
    # ('*','*') counts as suppressed: 7 records, classes (x,1)x2 and five singletons.
    assert (r.records, r.suppressed_records, r.equivalence_classes, r.sample_uniques) == (
        7,
        1,
        6,
        5,
    )
    got = [(s.attributes, s.distinction, s.separation) for s in r.qi_analysis]
    assert got == [
        # {a}: rows with a='*' left out -> 6 records in x3, y2, z1: 3/6; same-value pairs 3+1 of 15 -> 11/15.
        (("a",), 3 / 6, 11 / 15),
        # {b}: only ('*','*') left out -> 7 records in 1:2, 2:2, 3:3: 3/7; same pairs 1+1+3 of 21 -> 16/21.
        (("b",), 3 / 7, 16 / 21),
        # {a,b}: 7 records, 6 combinations: 6/7; one same pair of 21 -> 20/21.
        (("a", "b"), 6 / 7, 20 / 21),
    ]


def test_qi_analysis_ranks_most_identifying_first_within_a_size():
    frame = pd.DataFrame(
        {"low": ["p", "q"] * 6, "high": [str(i) for i in range(12)], "mid": list("aabbccddeeff")}
    )
    r = risk_of_frame(frame, ["low", "high", "mid"], max_combination_size=2)
    sizes = [len(s.attributes) for s in r.qi_analysis]
    assert sizes == [1, 1, 1, 2, 2, 2]
    assert [s.attributes for s in r.qi_analysis[:3]] == [("high",), ("mid",), ("low",)]
    # distinction: high 12/12, mid 6/12, low 2/12; separation high = 1 (all pairs differ).
    assert [s.distinction for s in r.qi_analysis[:3]] == [1.0, 0.5, 2 / 12]
    assert r.qi_analysis[0].separation == 1.0
    # low: two values of 6 records: same pairs 2*30 of 132 -> 72/132.
    assert r.qi_analysis[2].separation == 72 / 132


def test_qi_analysis_bounds():
    frame = pd.DataFrame({c: [str(i % (k + 2)) for i in range(30)] for k, c in enumerate("abcde")})
    assert len(risk_of_frame(frame, list("abcde")).qi_analysis) == 5 + 10 + 10
    assert len(risk_of_frame(frame, list("abcde"), max_combination_size=1).qi_analysis) == 5
    assert risk_of_frame(frame, list("abcde"), max_combination_size=0).qi_analysis == ()
    assert len(risk_of_frame(frame, list("abcde"), max_combinations=7).qi_analysis) == 7


# --------------------------------------------------- frame vs result, shapes
PEOPLE = pd.DataFrame(
    {
        "zip": [f"0213{i % 4}" for i in range(120)],
        "age": [20 + i % 40 for i in range(120)],
        "sex": ["FM"[i % 2] for i in range(120)],
        "disease": [["flu", "cold", "hiv"][i % 3] for i in range(120)],
    }
)


def _people_problem(k=8, limit=0.5):
    hier = {
        "zip": Hierarchy(
            np.array([[z, z[:4] + "*", "*"] for z in sorted(PEOPLE["zip"].unique())], dtype=object)
        ),
        "age": Hierarchy(
            np.array(
                [[str(a), f"{a // 10 * 10}-{a // 10 * 10 + 9}", "*"] for a in range(20, 60)],
                dtype=object,
            )
        ),
        "sex": Hierarchy(np.array([["F", "*"], ["M", "*"]], dtype=object)),
    }
    roles = {
        "zip": "quasi-identifier",
        "age": "quasi-identifier",
        "sex": "quasi-identifier",
        "disease": "sensitive",
    }
    return Problem(PEOPLE, roles, hier, [make_model({"model": "k-anonymity", "k": k})], limit)


@pytest.mark.parametrize("mode", ["remove", "mask"])
def test_released_file_risk_equals_result_risk(tmp_path, mode):
    problem = _people_problem()
    result = problem.evaluate({"zip": 0, "age": 1, "sex": 0})  # classes of 7 and 8 records
    assert 0 < result.suppressed_records < 120
    path = tmp_path / f"released_{mode}.csv"
    write_table(problem.apply(result, mode), path)
    released = load_table(path).frame
    from_file = risk_of_frame(released, ["zip", "age", "sex"])
    from_result = risk_of_result(result)
    assert report_dict(from_file) == report_dict(from_result)
    assert from_file.records == from_result.records == 120 - result.suppressed_records
    assert from_result.suppressed_records == result.suppressed_records


@needs_shared
def test_released_adult_file_risk_equals_result_risk(
    tmp_path, adult_problem_factory, arx_reference
):
    problem = adult_problem_factory([{"model": "k-anonymity", "k": 5}], 0.02)
    result = problem.evaluate(
        {
            "sex": 0,
            "age": 1,
            "race": 0,
            "marital-status": 1,
            "education": 2,
            "native-country": 1,
            "workclass": 1,
            "occupation": 1,
            "salary-class": 0,
        }
    )
    assert result.suppressed_records > 0
    path = tmp_path / "adult_released.csv"
    write_table(problem.apply(result, "mask"), path)
    frame = load_table(path).frame
    got = risk_of_frame(frame, arx_reference["attribute_order"])
    assert report_dict(got) == report_dict(risk_of_result(result))


def test_top_of_the_lattice_is_all_suppressed():
    """Every QI '*' counts as suppressed, as in ARX's output: the histogram is empty and risks read 0."""
    problem = _people_problem(k=1, limit=0.0)
    r = risk_of_result(problem.evaluate({"zip": 2, "age": 2, "sex": 1}))
    assert (r.records, r.suppressed_records, r.equivalence_classes) == (0, 120, 0)
    assert r.prosecutor.highest_risk == 0.0


def test_report_dict_shape_and_json():
    d = report_dict(risk_of_frame(_qi_frame(), ["a", "b"]))
    assert set(d) == {
        "prosecutor",
        "journalist",
        "journalist_basis",
        "marketer",
        "sample_uniques",
        "equivalence_classes",
        "population_uniqueness",
        "qi_analysis",
        "records",
        "distribution",
    }
    for attacker in ("prosecutor", "journalist"):
        assert set(d[attacker]) == {
            "highest_risk",
            "records_at_highest_risk",
            "average_risk",
            "records_at_risk",
        }
        assert set(d[attacker]["records_at_risk"]) == {"0.05", "0.1", "0.2", "0.5"}
    assert set(d["marketer"]) == {"average_risk"}
    assert set(d["population_uniqueness"]) == {"zayatz", "pitman", "snb", "dankar"}
    assert set(d["qi_analysis"][0]) == {"attributes", "distinction", "separation"}
    assert len(d["distribution"]) == 24
    json.dumps(d, allow_nan=False)  # NaN estimates become null


# ------------------------------------------------------------- bad inputs
@pytest.mark.parametrize(
    "call,error,needle",
    [
        (lambda: risk_of_frame(_qi_frame(), ["a", "nope"]), ConfigError, "'nope'"),
        (lambda: risk_of_frame(_qi_frame(), []), ConfigError, "'qis'"),
        (lambda: risk_of_frame(_qi_frame(), "a"), ConfigError, "'qis'"),
        (
            lambda: risk_of_frame(_qi_frame(), ["a"], population_size=5),
            ConfigError,
            "'population_size'",
        ),
        (
            lambda: risk_from_sizes(SIZES, population_size=19),
            ConfigError,
            "smaller than the sample",
        ),
        (lambda: risk_from_sizes(SIZES, population_size=0), ConfigError, "'population_size'"),
        (lambda: risk_from_sizes(SIZES, population_size=2.5), ConfigError, "'population_size'"),
        (lambda: risk_from_sizes(SIZES, thresholds=(0.1, 1.5)), ConfigError, "'thresholds[1]'"),
        (lambda: risk_from_sizes(SIZES, thresholds=0.1), ConfigError, "'thresholds'"),
        (lambda: risk_from_sizes([1, 0, 2]), DataError, "positive"),
        (lambda: risk_from_sizes([1.5]), DataError, "whole numbers"),
        (
            lambda: risk_of_frame(_qi_frame(), ["a"], max_combination_size=-1),
            ConfigError,
            "max_combination_size",
        ),
        (lambda: population_uniqueness(SIZES, 10), ConfigError, "at least every record"),
    ],
)
def test_bad_inputs_raise_clear_errors(call, error, needle):
    with pytest.raises(error, match=None) as exc:
        call()
    assert needle in str(exc.value)


# ------------------------------------------------------------- disclosure
def test_attribute_disclosure_hand_worked():
    frame = pd.DataFrame(
        {
            "zip": ["A", "A", "B", "B", "B", "B"],
            "disease": ["flu", "flu", "flu", "cold", "hiv", "hiv"],
            "salary": [10, 10, 10, 20, 30, 30],
        }
    )
    disease_h = Hierarchy(
        np.array(
            [["flu", "respiratory", "*"], ["cold", "respiratory", "*"], ["hiv", "std", "*"]],
            dtype=object,
        )
    )
    problem = Problem(
        frame,
        {"zip": "quasi-identifier", "disease": "sensitive", "salary": "sensitive"},
        {"disease": disease_h},
        [make_model({"model": "k-anonymity", "k": 1})],
    )
    out = attribute_disclosure(problem.evaluate({"zip": 0}))
    assert set(out) == {"disease", "salary"}

    d = out["disease"].classes.set_index("zip")
    assert d.loc["A", "distribution"] == {"flu": 2}
    assert d.loc["B", "distribution"] == {"flu": 1, "cold": 1, "hiv": 2}
    assert list(d["size"]) == [2, 4] and list(d["distinct_l"]) == [1, 3]
    # entropy l = exp(H): A has one value (1); B has 1/4, 1/4, 1/2 -> H = 1.5 ln 2 -> 2^1.5.
    assert d.loc["A", "entropy_l"] == pytest.approx(1.0)
    assert d.loc["B", "entropy_l"] == pytest.approx(2**1.5)
    # Overall: flu 1/2, cold 1/6, hiv 1/3. Equal distance = half the L1 distance:
    # A: (1/2 + 1/6 + 1/3)/2 = 1/2; B: (1/4 + 1/12 + 1/6)/2 = 1/4.
    assert list(d["t_equal"]) == pytest.approx([0.5, 0.25])
    # Hierarchical (height 2): A moves 1/6 within 'respiratory' (cost 1/2) and 1/3 across the root
    # (cost 1): 1/12 + 1/3 = 5/12. B: 1/12 within (1/24) and 1/6 across: 5/24.
    assert list(d["t_hierarchical"]) == pytest.approx([5 / 12, 5 / 24])
    assert "t_ordered" not in d.columns  # disease is not numeric
    assert list(d["homogeneous"]) == [True, False]
    s = out["disease"].summary
    assert (
        s.classes,
        s.records,
        s.min_distinct_l,
        s.homogeneous_classes,
        s.homogeneous_records,
    ) == (2, 6, 1, 1, 2)
    assert s.homogeneous_share == pytest.approx(2 / 6)
    assert s.max_t_equal == pytest.approx(0.5) and s.max_t_hierarchical == pytest.approx(5 / 12)
    assert s.max_t_ordered is None

    sal = out["salary"].classes.set_index("zip")
    # Ordered distance over 10 < 20 < 30 (overall 1/2, 1/6, 1/3), divided by m-1 = 2:
    # A: cumulative differences 1/2, 1/3, 0 -> 5/6 / 2 = 5/12; B: -1/4, -1/6, 0 -> 5/12 / 2 = 5/24.
    assert list(sal["t_ordered"]) == pytest.approx([5 / 12, 5 / 24])
    assert "t_hierarchical" not in sal.columns
    assert out["salary"].summary.max_t_ordered == pytest.approx(5 / 12)
    json.dumps(disclosure_dict(out), allow_nan=False)


def test_attribute_disclosure_leaves_out_suppressed_classes():
    problem = _people_problem()
    result = problem.evaluate({"zip": 0, "age": 1, "sex": 0})
    d = attribute_disclosure(result)["disease"]
    assert d.summary.records == 120 - result.suppressed_records
    assert not result.suppressed[d.classes["class"].to_numpy()].any()
    assert (
        d.classes["distribution"].map(lambda x: sum(x.values())).tolist()
        == d.classes["size"].tolist()
    )
    with pytest.raises(ConfigError, match="not sensitive"):
        attribute_disclosure(result, ["zip"])


# -------------------------------------------------------------------- CLI
def _write_config(tmp_path, **overrides) -> str:
    (tmp_path / "people.csv").write_text(PEOPLE.to_csv(index=False))
    cfg = {
        "input": {"path": "people.csv"},
        "attributes": {
            "zip": {"role": "quasi-identifier", "hierarchy": {"builder": "masking", "levels": 5}},
            "age": {"role": "quasi-identifier", "hierarchy": {"builder": "intervals", "width": 10}},
            "sex": {"role": "quasi-identifier"},
            "disease": {"role": "sensitive"},
        },
        "privacy_models": [{"model": "k-anonymity", "k": 5}],
        "suppression_limit": 0.02,
        "transformation": {"zip": 1, "age": 2, "sex": 0},
    }
    cfg.update(overrides)
    path = tmp_path / "release.json"
    path.write_text(json.dumps(cfg))
    return str(path)


def test_cli_risk_of_release_original_and_file(tmp_path, capsys):
    cfg = _write_config(tmp_path)
    assert main(["risk", cfg]) == 0
    released = json.loads(capsys.readouterr().out)
    assert set(released) >= {
        "prosecutor",
        "journalist",
        "marketer",
        "sample_uniques",
        "equivalence_classes",
        "population_uniqueness",
        "qi_analysis",
        "records",
        "distribution",
    }
    assert released["prosecutor"]["highest_risk"] <= 1 / 5
    assert released.pop("satisfied") is True and released.pop("chosen_by") == "configured"

    assert main(["risk", cfg, "--original", "--max-combination-size", "1"]) == 0
    original = json.loads(capsys.readouterr().out)
    assert original["records"] == 120 and len(original["qi_analysis"]) == 3

    out = tmp_path / "released.csv"
    assert main(["anonymize", cfg, "-o", str(out)]) == 0
    capsys.readouterr()
    assert main(["risk", cfg, "--released", str(out)]) == 0
    from_file = json.loads(capsys.readouterr().out)
    assert from_file == released


def test_cli_risk_searches_when_no_transformation(tmp_path, capsys):
    assert main(["risk", _write_config(tmp_path, transformation=None)]) == 0
    assert json.loads(capsys.readouterr().out)["prosecutor"]["highest_risk"] <= 1 / 5


@pytest.mark.parametrize(
    "extra,needle",
    [
        (["--population-size", "50"], "'population_size'"),
        (["--released", "missing.csv"], "does not exist"),
        (["--released", "WRONG"], "'qis' names"),
    ],
)
def test_cli_risk_bad_input_exits_2_with_one_line(tmp_path, capsys, extra, needle):
    cfg = _write_config(tmp_path)
    if extra[-1] == "WRONG":
        wrong = tmp_path / "wrong.csv"
        wrong.write_text("zip,sex\n02130,F\n")
        extra = ["--released", str(wrong)]
    elif extra[-1] == "missing.csv":
        extra = ["--released", str(tmp_path / "missing.csv")]
    assert main(["risk", cfg, *extra]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert needle in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_cli_risk_without_a_satisfying_release_exits_3(tmp_path, capsys):
    from anon_core.cli import EXIT_NOT_SATISFIED

    cfg = _write_config(
        tmp_path,
        transformation=None,
        suppression_limit=0.0,
        privacy_models=[{"model": "k-anonymity", "k": 500}],
    )
    assert main(["risk", cfg]) == EXIT_NOT_SATISFIED
    assert "no release to assess" in capsys.readouterr().err
    assert main(["risk", cfg, "--original"]) == 0


def test_cli_risk_of_an_unsatisfying_transformation_is_refused_or_honest(tmp_path, capsys):
    """A configured transformation that fails its models at the suppression limit is never
    reported as if its impossible suppression had happened (regression: 78% of records removed
    at a 0% limit, exit 0)."""
    from anon_core.cli import EXIT_NOT_SATISFIED

    cfg = _write_config(
        tmp_path, suppression_limit=0.0, privacy_models=[{"model": "k-anonymity", "k": 500}]
    )
    assert main(["risk", cfg]) == EXIT_NOT_SATISFIED
    assert "--force" in capsys.readouterr().err
    assert main(["risk", cfg, "--force"]) == 0
    forced = json.loads(capsys.readouterr().out)
    assert forced["satisfied"] is False
    # every record is counted: nothing was suppressed (120 records in the test table)
    assert forced["records"] == 120


def _pandas_scores(frame: pd.DataFrame, cols: list[str]) -> tuple[float, float]:
    """Independent oracle: pandas groupby sizes, separation from pair counts."""
    sizes = frame.groupby(cols).size().to_numpy().astype(object)
    n = int(sizes.sum())
    return len(sizes) / n, (n * (n - 1) - int((sizes * (sizes - 1)).sum())) / (n * (n - 1))


def test_qi_analysis_agrees_with_pandas_groupby():
    r = risk_of_frame(PEOPLE, ["zip", "age", "sex", "disease"], max_combination_size=4)
    assert len(r.qi_analysis) == 15
    for score in r.qi_analysis:
        assert (score.distinction, score.separation) == _pandas_scores(
            PEOPLE, list(score.attributes)
        )


@needs_shared
def test_adult_qi_analysis_agrees_with_pandas_groupby(
    adult_problem_factory, adult_frame, arx_reference
):
    report = risk_of_original(adult_problem_factory())
    assert len(report.qi_analysis) == 9 + 36 + 84
    frame = adult_frame[arx_reference["attribute_order"]]
    for score in report.qi_analysis:
        assert (score.distinction, score.separation) == _pandas_scores(
            frame, list(score.attributes)
        )
