"""Private-PGM in NumPy (anon_core.methods.pgm_numpy), which AIM and MST fit their models with.

Oracles: a hand-worked 2 x 2 table; the full joint distribution summed by brute force; and
``mbi``'s own MirrorDescent (JAX), which the NumPy estimator must reproduce to rounding.
"""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

from anon_core.methods.pgm_numpy import mirror_descent, model_marginal

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def test_marginal_of_a_hand_worked_table():
    # exp(potential) = [[1, 2], [3, 4]] over (a, b): P(a) = [3, 7] / 10, P(b) = [4, 6] / 10.
    factors = [(("a", "b"), np.log([[1.0, 2.0], [3.0, 4.0]]))]
    assert np.allclose(model_marginal(factors, ("a",), 10.0), [3.0, 7.0])
    assert np.allclose(model_marginal(factors, ("b",), 20.0), [8.0, 12.0])
    assert np.allclose(model_marginal(factors, ("b", "a"), 10.0), [[1.0, 3.0], [2.0, 4.0]])
    # A second factor on b alone multiplies in: exp = [[1, 2], [3, 4]] * [1, 3] -> [[1, 6], [3, 12]].
    factors.append((("b",), np.log([1.0, 3.0])))
    assert np.allclose(model_marginal(factors, ("a",), 22.0), [7.0, 15.0])


def _brute_force(factors, sizes, query, total):
    names = list(sizes)
    joint = np.zeros([sizes[a] for a in names])
    for scope, table in factors:
        order = sorted(range(len(scope)), key=lambda i: names.index(scope[i]))
        shape = [1] * len(names)
        for i in order:
            shape[names.index(scope[i])] = table.shape[i]
        joint = joint + np.transpose(table, order).reshape(shape)
    probs = np.exp(joint)
    probs *= total / probs.sum()
    out = probs.sum(axis=tuple(i for i, a in enumerate(names) if a not in query))
    kept = [a for a in names if a in query]
    return np.transpose(out, [kept.index(a) for a in query])


def test_marginals_match_the_brute_force_joint():
    rng = np.random.default_rng(1)
    sizes = {"a": 2, "b": 3, "c": 4, "d": 2, "e": 3}
    scopes = [("a", "b"), ("c", "b"), ("c", "d"), ("e",), ("d", "e", "a"), ("a",)]
    factors = [(s, rng.normal(0, 2, [sizes[x] for x in s])) for s in scopes]
    factors.append(((), np.array(0.7)))  # a constant factor changes nothing
    for query in [("a",), ("e",), ("b", "a"), ("b", "d"), ("e", "b", "c"), tuple(sizes)]:
        expected = _brute_force(factors, sizes, query, 1000.0)
        got = model_marginal(factors, query, 1000.0)
        assert got.shape == expected.shape
        assert np.allclose(got, expected, rtol=1e-12, atol=0)


def test_marginal_rejects_bad_input():
    with pytest.raises(ValueError, match="cannot have scope"):
        model_marginal([(("a", "b"), np.zeros(3))], ("a",), 1.0)
    with pytest.raises(ValueError, match=r"no attribute \['z'\]"):
        model_marginal([(("a",), np.zeros(3))], ("z",), 1.0)


def _problem(seed: int = 0):
    import mbi
    from mbi.marginal_loss import WeightedQuery

    rng = np.random.default_rng(seed)
    sizes = {"a": 3, "b": 4, "c": 2, "d": 5}
    domain = mbi.Domain(list(sizes), list(sizes.values()))
    n = 500
    a = rng.integers(0, 3, n)
    b = (a + rng.integers(0, 2, n)) % 4
    c = (b > 1).astype(int) ^ (rng.random(n) < 0.2)
    d = rng.integers(0, 5, n)
    data = mbi.Dataset({"a": a, "b": b, "c": c, "d": d}, domain)

    def noisy(clique, std):
        x = np.asarray(data.project(clique).datavector(), dtype=float)
        return x + rng.normal(0, std, x.size)

    first = [mbi.LinearMeasurement(noisy((col,), 8.0), (col,), 8.0) for col in sizes]
    # a weighted query, as MST's compressed 1-way marginals use
    weights = np.array([1.0, 1.0, 0.5, 0.5, 0.5])
    first.append(
        mbi.LinearMeasurement(noisy(("d",), 4.0) * weights, ("d",), 4.0, WeightedQuery(weights))
    )
    later = [
        mbi.LinearMeasurement(noisy(("b", "a"), 6.0), ("b", "a"), 6.0),
        mbi.LinearMeasurement(noisy(("b", "c"), 6.0), ("b", "c"), 6.0),
        mbi.LinearMeasurement(noisy(("a", "b"), 3.0), ("a", "b"), 3.0),  # same pair, other order
    ]
    return domain, first, later


def _close(ours, theirs):
    assert set(ours.marginals) == set(theirs.marginals.cliques)
    for cl in theirs.marginals.cliques:
        ref = np.asarray(theirs.marginals[cl].values)
        assert np.allclose(ours.marginals[cl], ref, rtol=1e-9, atol=1e-9)
        assert np.allclose(ours.potentials[cl], np.asarray(theirs.potentials[cl].values), atol=1e-9)
    assert ours.total == pytest.approx(float(theirs.total), rel=1e-12)


@pytest.mark.slow  # mbi compiles its programs (about 30 s under load)
def test_mirror_descent_reproduces_mbi_including_the_warm_start():
    from anon_core.methods.mst import jax_x64

    jax_x64()
    from mbi.estimation import MirrorDescent

    domain, first, later = _problem()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = MirrorDescent().estimate(domain, first, iters=60)  # mbi runs 2 blocks of 50
        ours = mirror_descent(domain, first, 60)
        _close(ours, theirs)
        theirs2 = MirrorDescent().estimate(domain, first + later, iters=100, warm_start=theirs)
        ours2 = mirror_descent(domain, first + later, 100, warm_start=ours)
        _close(ours2, theirs2)
        # the fitted model's marginals are those mbi computes from the same potentials
        back = ours2.to_mbi()
        for query in [("a",), ("b", "a"), ("c", "d"), ("d", "a", "c")]:
            expected = np.asarray(theirs2.project(query).datavector())
            assert np.allclose(ours2.marginal(query), expected, rtol=1e-9)
            assert np.allclose(np.asarray(back.project(query).datavector()), expected, rtol=1e-9)


def test_mirror_descent_reports_each_block_and_lowers_the_loss():
    domain, first, later = _problem(3)
    seen: list[int] = []
    model = mirror_descent(domain, first + later, 120, callback=seen.append)
    assert seen == [50, 100, 150]
    # the fit beats the uniform start on the measured pair (b, a), and sums to the total
    measured = later[0].noisy_measurement
    fitted = model.marginal(("b", "a"))
    uniform = np.full(fitted.size, model.total / fitted.size)
    assert np.abs(fitted - measured).sum() < 0.5 * np.abs(uniform - measured).sum()
    assert fitted.sum() == pytest.approx(model.total)
    for a, b in itertools.combinations("abcd", 2):
        assert model.marginal((a, b)).sum() == pytest.approx(model.total)


def test_sampling_draws_what_mbi_draws_with_the_same_seed():
    from anon_core.methods.mst import jax_x64, numpy_seed

    jax_x64()
    domain, first, later = _problem(5)
    model = mirror_descent(domain, first + later, 50)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with numpy_seed(11):
            theirs = model.to_mbi().synthetic_data(rows=700)
    with numpy_seed(11):
        ours = model.synthetic_data(700)
    assert set(ours) == set(domain.attributes)
    for col in domain.attributes:
        assert len(ours[col]) == 700
        np.testing.assert_array_equal(ours[col], np.asarray(theirs.data[col]))
    with numpy_seed(12):
        other = model.synthetic_data(700)
    assert any(not np.array_equal(other[c], ours[c]) for c in ours)


_SAMPLE = """
import hashlib, warnings
import numpy as np
warnings.simplefilter("ignore")
import mbi
from anon_core.methods.mst import numpy_seed
from anon_core.methods.pgm_numpy import mirror_descent
rng = np.random.default_rng(0)
sizes = {"a": 3, "b": 4, "c": 2, "d": 3}
domain = mbi.Domain(list(sizes), list(sizes.values()))
cliques = [("a",), ("b",), ("c",), ("d",), ("a", "b", "c"), ("c", "d"), ("b", "d")]
ms = [mbi.LinearMeasurement(rng.uniform(50, 100, domain.size(cl)), cl, 5.0) for cl in cliques]
model = mirror_descent(domain, ms, 50)
with numpy_seed(3):
    rows = model.synthetic_data(500)
print(hashlib.sha1(np.stack([rows[c] for c in sizes]).tobytes()).hexdigest())
"""


def test_sampling_is_the_same_in_every_process():
    # Two columns condition a third here; mbi takes them in a set's order, which follows
    # PYTHONHASHSEED (its draw differed between processes for the same seed).
    digests = set()
    for hash_seed in ("1", "2", "4"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        out = subprocess.run(
            [sys.executable, "-c", _SAMPLE], capture_output=True, text=True, check=True, env=env
        )
        digests.add(out.stdout.strip())
    assert len(digests) == 1


def test_aim_refuses_fewer_rounds_than_columns_before_measuring():
    # 9 columns at rounds=4 would spend 9 x 0.9 / 4 = 2.0x the budget on the 1-way marginals.
    import pandas as pd

    from anon_core.errors import ConfigError
    from anon_core.methods import make_method
    from anon_core.methods.registry import make_context

    frame = pd.DataFrame({f"c{i}": ["a", "b"] * 10 for i in range(9)})
    domains = {f"c{i}": ["a", "b"] for i in range(9)}
    method = make_method({"name": "synthetic-aim", "rounds": 4, "domains": domains})
    with pytest.raises(
        ConfigError, match=r"'rounds' \(4\) must be at least the number of columns \(9\)"
    ):
        method.release(frame, make_context(frame), random_state=0)
