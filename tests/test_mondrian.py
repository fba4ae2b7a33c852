"""Mondrian local recoding: privacy of the released table, coverage, hand-worked partitions,
the full-domain consistency oracle for the local-recoding metrics, and Loss against the
global optimum (LeFevre, DeWitt and Ramakrishnan, ICDE 2006)."""

from __future__ import annotations

import itertools
import math
import re

import numpy as np
import pandas as pd
import pytest

from anon_core import ConfigError, Hierarchy, Problem, make_metric, make_model
from anon_core.data.builders import interval_hierarchy, masking_hierarchy, ordered_hierarchy
from anon_core.quality.metrics import Loss, metric_specs
from anon_core.transform.mondrian import (
    MondrianResult,
    full_domain_recoding,
    mondrian,
    recoding_quality,
)

from .conftest import needs_shared

QI = "quasi-identifier"
S_HIER = Hierarchy(
    np.array([["a", "ab", "*"], ["b", "ab", "*"], ["c", "cd", "*"], ["d", "cd", "*"]], dtype=object)
)
SEX_HIER = Hierarchy(np.array([["M", "*"], ["F", "*"]], dtype=object))
METRIC_SPECS = metric_specs()  # every registered metric and variant
_RANGE = re.compile(r"^\[(.+?)-(.+)\]$")


# ------------------------------------------------------------------ fixtures and oracles
def _frame(seed: int, n: int = 300) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "id": np.arange(n).astype(str),
            "age": rng.integers(18, 80, n).astype(str),
            "zip": rng.choice(["02130", "02131", "02139", "02210", "02215", "03101"], n),
            "edu": rng.choice(["e1", "e2", "e3", "e4", "e5"], n),
            "sex": rng.choice(["M", "F"], n),
            "s": rng.choice(list("abcd"), n, p=[0.4, 0.3, 0.2, 0.1]),
            "note": rng.choice(["x", "y"], n),
        }
    )


def _hierarchies(frame: pd.DataFrame) -> dict[str, Hierarchy]:
    return {
        "age": interval_hierarchy(frame["age"].unique(), width=10, fanout=2),
        "zip": masking_hierarchy(frame["zip"].unique(), levels=2),
        "edu": ordered_hierarchy(frame["edu"].unique(), sizes=[2]),
        "sex": SEX_HIER,
        "s": S_HIER,
    }


def _problem(seed: int = 0, models=(), metric=None, n: int = 300) -> Problem:
    frame = _frame(seed, n)
    roles = {"id": "identifier", "age": QI, "zip": QI, "edu": QI, "sex": QI, "s": "sensitive"}
    return Problem(
        frame, roles, _hierarchies(frame), [make_model(m) for m in models], 0.0, make_metric(metric)
    )


def _groups(result: MondrianResult, qis):
    return result.released.groupby(list(qis), sort=False, dropna=False)


def _check_k(result: MondrianResult, qis, k: int) -> None:
    sizes = _groups(result, qis).size()
    assert sizes.min() >= k
    assert sizes.sum() == len(result.released)


def _check_l(result: MondrianResult, qis, spec: dict) -> None:
    """l-diversity of every group of released QI values, computed from the released rows."""
    counts = result.released.groupby(list(qis), sort=False, dropna=False)[spec["attribute"]]
    for _, group in counts:
        freq = np.sort(group.value_counts().to_numpy())[::-1]
        if spec["model"] == "distinct-l-diversity":
            assert len(freq) >= spec["l"]
        elif spec["model"] == "entropy-l-diversity":
            p = freq / freq.sum()
            assert -(p * np.log(p)).sum() >= math.log(spec["l"]) - 1e-12
        elif spec["model"] == "recursive-cl-diversity":
            assert len(freq) >= spec["l"] and freq[0] < spec["c"] * freq[spec["l"] - 1 :].sum()
        else:  # pragma: no cover
            raise AssertionError(spec)


def _covers(hier: Hierarchy, original: str, released: str, numeric: bool) -> bool:
    if numeric:
        m = _RANGE.match(released)
        lo, hi = (m.group(1), m.group(2)) if m else (released, released)
        return float(lo) <= float(original) <= float(hi)
    row = hier.table[[str(v) for v in hier.table[:, 0]].index(original)]
    return released in {str(x) for x in row} or released == "*"


def _loss_from_release(problem: Problem, result: MondrianResult) -> float:
    """ARX's Loss recomputed from the released rows and the hierarchy files (independent of the engine)."""
    n = len(result.released)
    values = []
    for q in problem.dataset.qis:
        hier = problem.dataset.columns[q].hierarchy
        d = float(hier.table.shape[0])
        spanned = 0.0
        for label, count in result.released[q].value_counts().items():
            if q in result.numeric:
                m = _RANGE.match(label)
                lo, hi = (
                    (float(m.group(1)), float(m.group(2))) if m else (float(label), float(label))
                )
                leaves = pd.to_numeric(pd.Series(hier.table[:, 0]), errors="coerce")
                spanned += count * int(((leaves >= lo) & (leaves <= hi)).sum())
            else:
                level = next(h for h in range(hier.height) if label in set(hier.table[:, h]))
                spanned += count * int((hier.table[:, level] == label).sum())
        base = n / d
        values.append(
            math.floor(max(0.0, (spanned / d - base) / (n - base)) * 1e10) / 1e10
            if n > base
            else 0.0
        )
    return math.prod((1 + v) ** (1 / len(values)) for v in values) - 1


# ------------------------------------------------------------------ privacy of the release
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("k", [2, 3, 5, 10, 25])
def test_released_table_is_k_anonymous(seed, k):
    problem = _problem(seed)
    result = mondrian(problem, k=k)
    _check_k(result, problem.dataset.qis, k)
    assert result.min_partition_size >= k
    assert result.n_partitions == _groups(result, problem.dataset.qis).ngroups
    assert result.partition_sizes.sum() == len(problem.dataset.frame)


L_MODELS = [
    {"model": "distinct-l-diversity", "attribute": "s", "l": 2},
    {"model": "distinct-l-diversity", "attribute": "s", "l": 3},
    {"model": "entropy-l-diversity", "attribute": "s", "l": 2.0},
    {"model": "entropy-l-diversity", "attribute": "s", "l": 2.5},
    {"model": "recursive-cl-diversity", "attribute": "s", "c": 3.0, "l": 2},
    {"model": "recursive-cl-diversity", "attribute": "s", "c": 2.0, "l": 3},
]


@pytest.mark.parametrize("seed", [0, 3])
@pytest.mark.parametrize("spec", L_MODELS, ids=lambda s: f"{s['model']}-{s['l']}")
def test_released_table_is_l_diverse(seed, spec):
    problem = _problem(seed, [{"model": "k-anonymity", "k": 3}, spec])
    result = mondrian(problem)
    _check_k(result, problem.dataset.qis, 3)
    _check_l(result, problem.dataset.qis, spec)
    assert result.n_partitions > 1


def test_l_diversity_alone_from_problem_models():
    spec = {"model": "entropy-l-diversity", "attribute": "s", "l": 2.0}
    problem = _problem(5, [spec])
    result = mondrian(problem)
    _check_l(result, problem.dataset.qis, spec)


def test_other_class_based_models_hold_too():
    # any class-based registry model is checked per partition: equal-distance t-closeness
    problem = _problem(
        6,
        [
            {"model": "k-anonymity", "k": 2},
            {"model": "equal-distance-t-closeness", "attribute": "s", "t": 0.2},
        ],
    )
    result = mondrian(problem)
    overall = problem.dataset.frame["s"].value_counts(normalize=True)
    for _, group in _groups(result, problem.dataset.qis)["s"]:
        p = group.value_counts(normalize=True).reindex(overall.index, fill_value=0.0)
        assert 0.5 * (p - overall).abs().sum() <= 0.2 + 1e-12
    assert result.n_partitions > 1


def test_deterministic():
    a = mondrian(_problem(7), k=4)
    b = mondrian(_problem(7), k=4)
    pd.testing.assert_frame_equal(a.released, b.released)
    assert np.array_equal(a.row_partition, b.row_partition)
    assert a.metrics == b.metrics
    # partitions are numbered by first appearance in the rows
    first = pd.unique(a.row_partition)
    assert np.array_equal(first, np.arange(a.n_partitions))


@pytest.mark.parametrize("seed", [0, 1])
def test_released_values_cover_originals(seed):
    problem = _problem(seed)
    result = mondrian(problem, k=4)
    assert result.numeric == ("age",)
    frame = problem.dataset.frame
    for q in problem.dataset.qis:
        hier = problem.dataset.columns[q].hierarchy
        for original, released in zip(frame[q], result.released[q], strict=True):
            assert _covers(hier, str(original), released, q in result.numeric), (
                q,
                original,
                released,
            )


def test_release_layout_matches_apply_transformation():
    problem = _problem(0, [{"model": "k-anonymity", "k": 3}])
    result = mondrian(problem)
    full = problem.apply(
        problem.evaluate(
            {q: h - 1 for q, h in zip(problem.dataset.qis, problem.dataset.heights, strict=True)}
        )
    )
    assert list(result.released.columns) == list(full.columns)
    assert "id" not in result.released.columns
    assert result.released["note"].tolist() == problem.dataset.frame["note"].tolist()
    assert result.released["s"].tolist() == problem.dataset.frame["s"].tolist()
    assert len(result.row_partition) == len(problem.dataset.frame)


# ------------------------------------------------------------------ hand-worked partitions
def test_hand_worked_two_attributes():
    # 8 rows, k=2. Widths: age 30/30 = 1, sex 2/2 = 1 -> tie, age first (QI order).
    # Lower median of 20,20,30,30,40,40,50,50 is 30: {20,30} | {40,50}. Then age
    # width 10/30 < sex 1: cut on sex. Four partitions of exactly k = 2 records.
    frame = pd.DataFrame(
        {"age": ["20", "20", "30", "30", "40", "40", "50", "50"], "sex": ["M", "F"] * 4}
    )
    problem = Problem(frame, {"age": QI, "sex": QI}, {"sex": SEX_HIER})
    result = mondrian(problem, k=2)
    assert result.n_partitions == 4
    assert result.partition_sizes.tolist() == [2, 2, 2, 2]
    assert result.released.to_dict("list") == {
        "age": ["[20-30]"] * 4 + ["[40-50]"] * 4,
        "sex": ["M", "F"] * 4,
    }
    assert result.row_partition.tolist() == [0, 1, 0, 1, 2, 3, 2, 3]


def test_hand_worked_single_numeric():
    # 10,11 | 20,21 | 30,31 | 40,41: medians 21, then 11 and 31.
    frame = pd.DataFrame({"age": ["40", "10", "31", "20", "11", "41", "21", "30"]})
    result = mondrian(Problem(frame, {"age": QI}), k=2)
    assert result.partition_sizes.tolist() == [2, 2, 2, 2]
    assert result.released["age"].tolist() == [
        "[40-41]",
        "[10-11]",
        "[30-31]",
        "[20-21]",
        "[10-11]",
        "[40-41]",
        "[20-21]",
        "[30-31]",
    ]
    # k=3: the median cut leaves 4 | 4; no cut of 4 records leaves 3 on both sides.
    three = mondrian(Problem(frame, {"age": QI}), k=3)
    assert sorted(three.released["age"].unique()) == ["[10-21]", "[30-41]"]


def test_hand_worked_l_diversity_stops_the_cut():
    # Ages 10..17 with s = a a b b a a b b. k=2 alone cuts to pairs; with distinct
    # 2-diversity the pairs {10,11} (a,a) ... fail, so it stops at quadruples.
    frame = pd.DataFrame({"age": [str(x) for x in range(10, 18)], "s": list("aabbaabb")})
    roles = {"age": QI, "s": "sensitive"}
    assert mondrian(Problem(frame, roles), k=2).n_partitions == 4
    diverse = Problem(
        frame,
        roles,
        models=[make_model({"model": "distinct-l-diversity", "attribute": "s", "l": 2})],
    )
    result = mondrian(diverse, k=2)
    assert result.released["age"].tolist() == ["[10-13]"] * 4 + ["[14-17]"] * 4


def test_categorical_split_follows_hierarchy_and_releases_lowest_node():
    frame = pd.DataFrame({"c": list("aabbccdd")})
    result = mondrian(Problem(frame, {"c": QI}, {"c": S_HIER}), k=2)
    assert result.released["c"].tolist() == list("aabbccdd")
    result = mondrian(Problem(frame, {"c": QI}, {"c": S_HIER}), k=3)
    assert result.released["c"].tolist() == ["ab"] * 4 + ["cd"] * 4
    result = mondrian(Problem(frame, {"c": QI}, {"c": S_HIER}), k=5)
    assert set(result.released["c"]) == {"*"}


def test_hierarchy_without_single_root_releases_star():
    hier = Hierarchy(np.array([["a", "ab"], ["b", "ab"], ["c", "cd"], ["d", "cd"]], dtype=object))
    frame = pd.DataFrame({"c": list("aabbccdd")})
    problem = Problem(frame, {"c": QI}, {"c": hier})
    assert set(mondrian(problem, k=5).released["c"]) == {"*"}
    assert mondrian(problem, k=4).released["c"].tolist() == ["ab"] * 4 + ["cd"] * 4
    assert mondrian(problem, k=5).metrics["loss"].value == pytest.approx(1.0)


# ------------------------------------------------------------------ metrics
@pytest.mark.parametrize("spec", METRIC_SPECS, ids=lambda s: f"{s['name']}-{s.get('monotonic')}")
def test_local_metrics_equal_full_domain_metrics(spec):
    """Consistency oracle: partitions = a transformation's classes, released as its nodes."""
    problem = _problem(11, [], spec, n=200)
    for levels in itertools.product(*[range(h) for h in problem.dataset.heights]):
        expected = problem.evaluate(levels)
        assert expected.suppressed_records == 0
        got = recoding_quality(problem, full_domain_recoding(problem, levels))
        assert got.value == expected.quality.value, levels
        assert got.per_attribute == expected.quality.per_attribute, levels


def test_mondrian_figures_recomputed_from_release():
    problem = _problem(4, [{"model": "k-anonymity", "k": 5}])
    result = mondrian(problem)
    sizes = _groups(result, problem.dataset.qis).size()
    assert result.metrics["discernability"].value == float((sizes**2).sum())
    assert result.metrics["aecs"].value == pytest.approx(len(problem.dataset.frame) / len(sizes))
    assert result.loss == pytest.approx(_loss_from_release(problem, result), abs=1e-9)
    assert result.quality == result.metrics["loss"]
    assert (result.min_partition_size, result.max_partition_size) == (sizes.min(), sizes.max())
    assert result.average_partition_size == pytest.approx(sizes.mean())


def test_quality_is_the_problem_metric():
    problem = _problem(4, [{"model": "k-anonymity", "k": 5}], {"name": "non-uniform-entropy"})
    result = mondrian(problem)
    assert result.quality.metric == "non-uniform-entropy"
    assert result.quality == result.metrics["non-uniform-entropy"]
    # NUE per QI from the release: sum over records of log2(records in released set / records with value)
    frame = problem.dataset.frame
    for q in problem.dataset.qis:
        hier = problem.dataset.columns[q].hierarchy
        original = frame[q].astype(str)
        per_value = original.map(original.value_counts())
        covered = []
        for label in result.released[q]:
            covered.append(
                sum(
                    _covers(hier, v, label, q in result.numeric) * c
                    for v, c in original.value_counts().items()
                )
            )
        bits = float(np.sum(np.log2(np.array(covered) / per_value.to_numpy())))
        assert result.quality.per_attribute[q] == pytest.approx(bits, rel=1e-9, abs=1e-9)


@pytest.mark.parametrize(
    "models",
    [
        [{"model": "k-anonymity", "k": 5}],
        [{"model": "k-anonymity", "k": 10}],
        [
            {"model": "k-anonymity", "k": 3},
            {"model": "distinct-l-diversity", "attribute": "s", "l": 2},
        ],
        [
            {"model": "k-anonymity", "k": 3},
            {"model": "entropy-l-diversity", "attribute": "s", "l": 2.0},
        ],
    ],
)
@pytest.mark.parametrize("seed", [0, 1])
def test_loss_not_above_global_optimum(seed, models):
    problem = _problem(seed, models)
    optimum = problem.search().optimum
    result = mondrian(problem)
    assert result.loss <= optimum.quality.value
    assert result.quality.value == result.loss


@needs_shared
@pytest.mark.parametrize(
    "models",
    [
        [{"model": "k-anonymity", "k": 5}],
        [{"model": "k-anonymity", "k": 10}],
        [
            {"model": "k-anonymity", "k": 5},
            {"model": "distinct-l-diversity", "attribute": "occupation", "l": 3},
        ],
    ],
)
def test_adult_loss_not_above_global_optimum(adult_frame, adult_hierarchies, models):
    roles = {c: QI for c in adult_frame.columns}
    if any(m.get("attribute") == "occupation" for m in models):
        roles["occupation"] = "sensitive"
    problem = Problem(adult_frame, roles, adult_hierarchies, [make_model(m) for m in models])
    optimum = problem.search().optimum
    result = mondrian(problem)
    assert "age" in result.numeric
    qis = problem.dataset.qis
    _check_k(result, qis, models[0]["k"])
    for spec in models[1:]:
        _check_l(result, qis, spec)
    assert result.loss <= optimum.quality.value
    # the oracle on the real hierarchies, at the optimum
    again = recoding_quality(problem, full_domain_recoding(problem, optimum.levels), Loss())
    assert again == optimum.quality


@needs_shared
def test_adult_release_covers_originals(adult_frame, adult_hierarchies):
    problem = Problem(adult_frame, {c: QI for c in adult_frame.columns}, adult_hierarchies)
    result = mondrian(problem, k=10)
    sample = np.arange(0, len(adult_frame), 97)
    for q in problem.dataset.qis:
        hier = problem.dataset.columns[q].hierarchy
        for i in sample:
            assert _covers(
                hier, str(adult_frame[q].iloc[i]), result.released[q].iloc[i], q in result.numeric
            )


# ------------------------------------------------------------------ options and bad input
def test_k_replaces_the_problems_k():
    problem = _problem(2, [{"model": "k-anonymity", "k": 20}])
    assert mondrian(problem).min_partition_size >= 20
    small = mondrian(problem, k=2)
    assert small.models == ("k-anonymity (k=2)",)
    assert small.n_partitions > mondrian(problem).n_partitions


def test_numeric_option_cuts_along_the_hierarchy_instead():
    problem = _problem(2)
    result = mondrian(problem, k=5, numeric=[])
    assert result.numeric == ()
    labels = set(problem.dataset.columns["age"].hierarchy.table.ravel().astype(str)) | {"*"}
    assert set(result.released["age"]) <= labels
    _check_k(result, problem.dataset.qis, 5)


def test_k_larger_than_table():
    problem = _problem(0, n=50)
    with pytest.raises(ConfigError, match="larger than the table"):
        mondrian(problem, k=51)
    assert mondrian(problem, k=50).n_partitions == 1


def test_no_quasi_identifier():
    frame = _frame(0, 20)
    with pytest.raises(ConfigError, match="quasi-identifier"):
        mondrian(Problem(frame, {"s": "sensitive"}), k=2)


def test_bad_models_and_options():
    problem = _problem(0, n=60)
    with pytest.raises(ConfigError, match="privacy model"):
        mondrian(problem)
    with pytest.raises(ConfigError, match="k"):
        mondrian(problem, k=0)
    with pytest.raises(ConfigError, match="whole release"):
        mondrian(
            problem,
            models=[make_model({"model": "average-reidentification-risk", "threshold": 0.5})],
        )
    with pytest.raises(ConfigError, match="single partition"):
        mondrian(
            problem,
            models=[make_model({"model": "distinct-l-diversity", "attribute": "s", "l": 5})],
        )
    with pytest.raises(ConfigError, match="sensitive"):
        mondrian(
            problem,
            models=[make_model({"model": "distinct-l-diversity", "attribute": "zip", "l": 2})],
        )
    with pytest.raises(ConfigError, match="not quasi-identifiers"):
        mondrian(problem, k=2, numeric=["s"])
    with pytest.raises(ConfigError, match="not all of its values are numbers"):
        mondrian(problem, k=2, numeric=["sex"])
