"""The compiled Pitman equations against exact sums, and the histogram-based suppression order
against a plain sort of the classes."""

from __future__ import annotations

import math

import numpy as np
import pytest

from anon_core.population import pitman_kernel
from anon_core.population.models import SolverConfig, newton_2d
from anon_core.privacy.population import size_histogram

pytestmark = pytest.mark.skipif(not pitman_kernel.AVAILABLE, reason="numba is not installed")


def _exact(t, a, u, n, sizes, counts):
    """Pitman's iterative equations summed exactly (math.fsum), term by term."""
    i = np.arange(1, u, dtype=float)
    v0 = t + i * a
    o1, o3 = math.fsum(1 / v0), math.fsum(i / v0)
    d1, d5, d3 = math.fsum(1 / v0**2), math.fsum(i / v0**2), math.fsum(i * i / v0**2)
    j = np.arange(1, n, dtype=float)
    o2, d2 = math.fsum(1 / (t + j)), math.fsum(1 / (t + j) ** 2)
    o4 = math.fsum(
        c * math.fsum(1 / (np.arange(1, s) - a)) for s, c in zip(sizes, counts, strict=True)
    )
    d4 = math.fsum(
        c * math.fsum(1 / (np.arange(1, s) - a) ** 2) for s, c in zip(sizes, counts, strict=True)
    )
    value = np.array([o1 - o2, o3 - o4, d2 - d1, -d5, -d5, -d3 - d4])
    scale = np.array([o1 + o2, o3 + o4, d1 + d2, d5, d5, d3 + d4])
    return value, scale


@pytest.mark.parametrize(
    "t, a", [(3.0, 0.4), (500.0, 0.1), (0.01, 0.9), (1e5, -0.5), (20.0, 0.999)]
)
def test_pitman_equations_match_exact_sums(t, a):
    rng = np.random.default_rng(7)
    sizes_all = rng.integers(1, 400, size=3000)  # 3,000 classes, records well past the head
    s, c = np.unique(sizes_all, return_counts=True)
    u, n = int(c.sum()), int((s * c).sum())
    big = s != 1
    got = np.array(pitman_kernel.pitman_master(u, n, s[big], c[big])(t, a))
    want, scale = _exact(t, a, u, n, s[big], c[big])
    assert np.all(np.abs(got - want) <= 1e-13 * scale)


def test_compiled_solve_is_the_python_solver():
    """The compiled Newton-Raphson ends where the Python one does on the same equations."""
    rng = np.random.default_rng(3)
    for _ in range(5):
        sizes_all = np.concatenate([np.ones(400, int), rng.integers(2, 60, size=1500)])
        s, c = np.unique(sizes_all, return_counts=True)
        u, n = int(c.sum()), int((s * c).sum())
        master = pitman_kernel.pitman_master(u, n, s[1:], c[1:])
        config = SolverConfig(iterations_per_try=15)
        start = (float(rng.uniform(0, 100)), float(rng.uniform(0, 0.9)))
        want = newton_2d(master, start, config, constraint=lambda x, _y: x >= 0)
        got = pitman_kernel.pitman_solve(start, config.starts(), 1e-6, 15, u, n, s[1:], c[1:])
        assert got == pytest.approx(want, rel=0, abs=0) or (
            all(math.isnan(v) for v in got) and all(math.isnan(v) for v in want)
        )


@pytest.mark.parametrize("sizes", [[], [1], [5, 1, 5, 2, 1], [3] * 10, [1, 10**9, 2]])
def test_size_histogram_is_unique_with_counts(sizes):
    s, c = size_histogram(np.array(sizes, dtype=np.int64))
    ws, wc = np.unique(np.array(sizes, dtype=np.int64), return_counts=True)
    assert s.tolist() == ws.tolist() and c.tolist() == wc.tolist()
