"""Dot and vector-matrix products on the calling thread: short ones are numpy's own, long
ones are cut into chunks and agree with an exactly rounded sum."""

from __future__ import annotations

import math

import numpy as np
import pytest

from anon_core.quality.metrics import dot, vecmat


@pytest.mark.parametrize("n", [0, 1, 100, 8192, 8193, 30_001])
def test_dot_matches_an_exact_sum(n):
    rng = np.random.default_rng(n)
    a, b = rng.integers(0, 50, n).astype(float), rng.random(n)
    exact = math.fsum(x * y for x, y in zip(a.tolist(), b.tolist(), strict=True))
    assert dot(a, b) == pytest.approx(exact, rel=1e-12, abs=1e-12)
    if n <= 8192:
        assert dot(a, b) == float(np.dot(a, b))


@pytest.mark.parametrize("rows", [1, 500, 5000])
def test_vecmat_matches_per_column_exact_sums(rows):
    rng = np.random.default_rng(rows)
    v, m = rng.integers(1, 9, rows).astype(float), rng.random((rows, 7))
    got = vecmat(v, m)
    for j in range(7):
        exact = math.fsum(x * y for x, y in zip(v.tolist(), m[:, j].tolist(), strict=True))
        assert got[j] == pytest.approx(exact, rel=1e-12)
