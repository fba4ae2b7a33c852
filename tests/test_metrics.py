"""Quality metrics on a hand-worked example (figures computed on paper in the comments).

Table (N=10), QI a with hierarchy x,y -> xy; z,w -> zw; -> * (4 rows), QI b with
p,q -> * (2 rows):  x p x3, y p x2, x q x1, z q x3, w p x1.
Transformation a=1, b=0 gives classes (xy,p)=5, (xy,q)=1, (zw,q)=3, (zw,p)=1.
k=2 with suppression limit 0.2 (floor(2.0) = 2 records) suppresses the two singletons.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from anon_core import Hierarchy, Problem, make_metric, make_model
from anon_core.quality.metrics import METRICS

ROWS = [("x", "p")] * 3 + [("y", "p")] * 2 + [("x", "q")] + [("z", "q")] * 3 + [("w", "p")]
HIER = {
    "a": Hierarchy(
        np.array(
            [["x", "xy", "*"], ["y", "xy", "*"], ["z", "zw", "*"], ["w", "zw", "*"]], dtype=object
        )
    ),
    "b": Hierarchy(np.array([["p", "*"], ["q", "*"]], dtype=object)),
}


def _value(metric: dict, levels=None, limit=0.2, k=2):
    frame = pd.DataFrame(ROWS, columns=["a", "b"])
    problem = Problem(
        frame,
        {"a": "quasi-identifier", "b": "quasi-identifier"},
        HIER,
        [make_model({"model": "k-anonymity", "k": k})],
        limit,
        make_metric(metric),
    )
    result = problem.evaluate(levels or {"a": 1, "b": 0})
    assert result.satisfied
    return result


def test_suppression_as_worked_out():
    r = _value({"name": "height"})
    assert r.suppressed_records == 2 and r.equivalence_classes == 2
    assert (r.min_class_size, r.max_class_size, r.average_class_size) == (3, 5, 4.0)


def test_loss():
    # a: L = 5*.5 + 3*.5 + 2 = 6, base 10/4: v = 3.5/7.5; b: L = 6, base 5: v = 0.2
    va = math.floor(3.5 / 7.5 * 1e10) / 1e10
    r = _value({"name": "loss"})
    assert r.quality.per_attribute == {"a": pytest.approx(va, abs=0), "b": pytest.approx(0.2)}
    assert r.quality.value == pytest.approx(math.sqrt((1 + va) * 1.2) - 1, rel=1e-12)


def test_loss_is_zero_for_original_and_one_for_full_suppression():
    assert _value({"name": "loss"}, {"a": 0, "b": 0}, limit=1.0, k=1).quality.value == 0.0
    assert _value(
        {"name": "loss"}, {"a": 2, "b": 1}, limit=1.0, k=11
    ).quality.value == pytest.approx(1.0)


def test_precision_both_variants():
    # non-monotonic: a: (8*0.5 + 2)/10 = 0.6, b: 2/10 = 0.2; monotonic: a 0.5, b 0
    r = _value({"name": "precision", "monotonic": False})
    assert r.quality.per_attribute == pytest.approx({"a": 0.6, "b": 0.2})
    assert r.quality.value == pytest.approx(0.4)
    assert _value({"name": "precision", "monotonic": True}).quality.value == pytest.approx(0.25)


def test_discernability_both_variants():
    assert _value({"name": "discernability", "monotonic": False}).quality.value == 25 + 9 + 2 * 10
    assert _value({"name": "discernability", "monotonic": True}).quality.value == 25 + 9 + 1 + 1


def test_aecs_counts_suppressed_records_as_one_class():
    assert _value({"name": "aecs"}).quality.value == pytest.approx(10 / 3)


def test_non_uniform_entropy_both_variants():
    # c(x)=4, c(y)=2, c(z)=3, c(w)=1; at level 1 xy=6, zw=4; b at level 0 loses nothing.
    mono = 4 * math.log2(6 / 4) + 2 * math.log2(6 / 2) + 3 * math.log2(4 / 3) + 1 * math.log2(4 / 1)
    r = _value({"name": "non-uniform-entropy", "monotonic": True})
    assert r.quality.value == pytest.approx(mono, rel=1e-9)
    # suppressed: a-values xy and zw, b-values q and p, one record each: penalty 2 bits per QI
    r = _value({"name": "non-uniform-entropy", "monotonic": False})
    assert r.quality.per_attribute["b"] == pytest.approx(2.0)
    assert r.quality.value == pytest.approx(mono + 4, rel=1e-9)


def test_height():
    assert _value({"name": "height"}, {"a": 2, "b": 1}, limit=0.0).quality.value == 3


def test_registry_declares_goal_and_range():
    for cls in METRICS.values():
        assert cls.goal in {"minimize", "maximize"}
        assert cls.upper is None or cls.upper > cls.lower
        assert cls.description
