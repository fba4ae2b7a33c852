"""Hypothesis property tests on random small tables.

Checked directly on the released rows, not through the engine's own figures.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anon_core import Problem, make_model
from anon_core.data.builders import interval_hierarchy, masking_hierarchy, ordered_hierarchy

QIS = ["a", "b", "c"]


@st.composite
def tables(draw):
    n = draw(st.integers(1, 60))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "a": rng.integers(0, draw(st.integers(1, 40)), n).astype(str),
            "b": rng.choice(["1001", "1002", "1013", "2001", "2002"], n),
            "c": rng.choice(list("pqrst"), n),
            "s": rng.choice(list("xyzw"), n),
        }
    )


def _problem(frame, models, limit):
    hier = {
        "a": interval_hierarchy(frame["a"].unique(), width=5, fanout=2),
        "b": masking_hierarchy(frame["b"].unique()),
        "c": ordered_hierarchy(frame["c"].unique(), sizes=[2]),
    }
    roles = {
        "a": "quasi-identifier",
        "b": "quasi-identifier",
        "c": "quasi-identifier",
        "s": "sensitive",
    }
    return Problem(frame, roles, hier, [make_model(m) for m in models], limit)


def _all_levels(problem):
    return itertools.product(*[range(h) for h in problem.dataset.heights])


settings_ = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@settings_
@given(tables(), st.integers(1, 8), st.sampled_from([0.0, 0.05, 0.2, 1.0]))
def test_generalizing_never_lowers_k(frame, k, limit):
    problem = _problem(frame, [{"model": "k-anonymity", "k": k}], limit)
    mins = {lv: int(problem.freq.classes(lv).sizes.min()) for lv in _all_levels(problem)}
    for lv, m in mins.items():
        for j in range(len(lv)):
            if lv[j] + 1 < problem.dataset.heights[j]:
                up = lv[:j] + (lv[j] + 1,) + lv[j + 1 :]
                assert mins[up] >= m


@settings_
@given(tables(), st.integers(1, 8), st.integers(1, 3), st.sampled_from([0.0, 0.05, 0.2, 1.0]))
def test_released_rows_satisfy_models_and_limit(frame, k, l_, limit):
    models = [
        {"model": "k-anonymity", "k": k},
        {"model": "distinct-l-diversity", "attribute": "s", "l": l_},
    ]
    problem = _problem(frame, models, limit)
    budget = math.floor(limit * len(frame) + 1e-9)
    for lv in _all_levels(problem):
        result = problem.evaluate(dict(zip(QIS, lv, strict=True)))
        released = problem.apply(result)
        assert len(released) == len(frame) - result.suppressed_records
        if not result.satisfied:
            assert result.suppressed_records > budget
            continue
        assert result.suppressed_records <= budget
        if len(released):
            groups = released.groupby(QIS)
            assert groups.size().min() >= k
            assert groups["s"].nunique().min() >= l_
            assert groups.ngroups == result.equivalence_classes


@settings_
@given(tables())
def test_rollup_equals_direct_grouping(frame):
    problem = _problem(frame, [{"model": "k-anonymity", "k": 2}], 0.0)
    levels = list(_all_levels(problem))
    for lv in levels:  # warms the cache: later nodes roll up from cached finer ones
        problem.freq.classes(lv)
    for lv in levels[::3]:
        rolled = problem.freq.classes(lv)
        direct = problem.freq._group(lv)
        assert sorted(rolled.sizes.tolist()) == sorted(direct.sizes.tolist())
        assert np.array_equal(
            pd.factorize(rolled.record_class())[0], pd.factorize(direct.record_class())[0]
        )


@settings_
@given(tables(), st.integers(1, 5))
def test_masked_suppression_keeps_rows_and_order(frame, k):
    problem = _problem(frame, [{"model": "k-anonymity", "k": k}], 1.0)
    result = problem.evaluate({"a": 0, "b": 0, "c": 0})
    masked = problem.apply(result, "mask")
    assert len(masked) == len(frame)
    assert (masked["s"].to_numpy() == frame["s"].to_numpy()).all()
    assert int((masked[QIS] == "*").all(axis=1).sum()) >= result.suppressed_records
