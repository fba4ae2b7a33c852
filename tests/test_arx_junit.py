"""Expectations from ARX's own JUnit suite on the same Adult data.

Figures are ARX's (TestAnonymizationTCloseness, TestAnonymizationRiskBased,
TestAnonymizationEntropyLDiversity; arx-deidentifier/arx). Evaluating ARX's
optimum must give ARX's information loss exactly. QI order is the Adult
header order, without the sensitive attribute.
"""

from __future__ import annotations

import pytest

from anon_core import Problem, make_metric, make_model

from .conftest import needs_shared

pytestmark = needs_shared

S = "occupation"
K5 = {"model": "k-anonymity", "k": 5}
CASES = [
    (
        "k5 hierarchical t=0.2",
        [K5, {"model": "hierarchical-distance-t-closeness", "attribute": S, "t": 0.2}],
        0.0,
        {"name": "non-uniform-entropy", "monotonic": True},
        [0, 4, 1, 1, 3, 2, 2, 1],
        S,
        398400.0741806447,
    ),
    (
        "k5 hierarchical t=0.2 supp 4%",
        [K5, {"model": "hierarchical-distance-t-closeness", "attribute": S, "t": 0.2}],
        0.04,
        {"name": "non-uniform-entropy", "monotonic": True},
        [1, 4, 0, 0, 3, 2, 2, 1],
        S,
        377622.78458729305,
    ),
    (
        "k5 equal t=0.2",
        [K5, {"model": "equal-distance-t-closeness", "attribute": S, "t": 0.2}],
        0.0,
        {"name": "discernability", "monotonic": True},
        [1, 4, 1, 1, 3, 2, 2, 1],
        S,
        4.56853172e8,
    ),
    (
        "k5 equal t=0.2 supp 4%",
        [K5, {"model": "equal-distance-t-closeness", "attribute": S, "t": 0.2}],
        0.04,
        {"name": "discernability", "monotonic": True},
        [1, 4, 1, 0, 3, 2, 2, 1],
        S,
        3.11880088e8,
    ),
    (
        "average risk 0.01",
        [{"model": "average-reidentification-risk", "threshold": 0.01}],
        0.04,
        {"name": "non-uniform-entropy", "monotonic": False},
        [1, 0, 1, 1, 3, 2, 2, 1, 1],
        None,
        314637.8461904862,
    ),
    (
        "sample uniqueness 0.01",
        [{"model": "sample-uniqueness", "threshold": 0.01}],
        0.04,
        {"name": "loss"},
        [0, 3, 0, 0, 1, 1, 1, 1, 0],
        None,
        0.1606952725863784,
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_arx_junit_optimum_quality(case, adult_frame, adult_hierarchies, arx_reference):
    _, models, limit, metric, levels, sensitive, expected = case
    order = arx_reference["attribute_order"]
    roles = {a: "quasi-identifier" for a in order}
    if sensitive:
        roles[sensitive] = "sensitive"
    problem = Problem(
        adult_frame[order],
        roles,
        adult_hierarchies,
        [make_model(m) for m in models],
        limit,
        make_metric(metric),
    )
    qis = [a for a in order if a != sensitive]
    result = problem.evaluate(dict(zip(qis, levels, strict=True)))
    assert result.satisfied
    assert result.suppressed_records <= int(limit * len(adult_frame))
    assert result.quality.value == pytest.approx(expected, rel=1e-12)
