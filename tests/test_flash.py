"""Flash's predictive tagging: every node decided as a monotone predicate says, each node
checked at most once, and the compiled and numpy steps walk the lattice identically."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from anon_core.data import kernels
from anon_core.search import flash

FORMS = [False] + ([True] if kernels.AVAILABLE else [])


def _lattice(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Radices, a random start order and its ranks."""
    rng = np.random.default_rng(seed)
    radix = rng.integers(1, 5, rng.integers(1, 6)).astype(np.int64)
    n = int(np.prod(radix))
    order = rng.permutation(n).astype(np.int64)
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    return radix, order, rank


def _offsets(radix: np.ndarray) -> np.ndarray:
    """Every node's levels, first attribute fastest (the search's numbering), by enumeration."""
    grid = itertools.product(*[range(int(r)) for r in reversed(radix)])
    return np.array([tuple(reversed(t)) for t in grid], dtype=np.int64).reshape(-1, len(radix))


@pytest.mark.parametrize("compiled", FORMS)
@pytest.mark.parametrize("seed", range(12))
def test_every_node_is_decided_as_the_predicate_says(seed, compiled):
    radix, order, rank = _lattice(seed)
    at = _offsets(radix)
    rng = np.random.default_rng(100 + seed)
    weights = rng.integers(1, 4, len(radix))
    threshold = rng.integers(0, int((radix - 1) @ weights) + 2)
    truth = at @ weights >= threshold  # monotone: raising a level never turns a pass to a fail
    checked: list[int] = []

    def passes(idx: int) -> bool:
        checked.append(idx)
        return bool(truth[idx])

    status = flash.tag_monotone(radix, order, rank, passes, compiled=compiled)
    np.testing.assert_array_equal(status, np.where(truth, 1, -1))
    assert len(checked) == len(set(checked))  # a decided node is never checked again


@pytest.mark.skipif(not kernels.AVAILABLE, reason="numba is not installed")
@pytest.mark.parametrize("seed", range(12))
def test_compiled_and_numpy_steps_check_the_same_nodes_with_pruning(seed):
    radix, order, rank = _lattice(seed)
    at = _offsets(radix)
    rng = np.random.default_rng(200 + seed)
    truth = at @ rng.integers(1, 4, len(radix)) >= rng.integers(0, 6)
    bound = (at @ rng.random(len(radix))).astype(float)  # grows with generalization
    runs = []
    for compiled in (False, True):
        checked: list[int] = []
        best = [np.inf]

        def passes(idx: int, checked=checked, best=best) -> bool:
            checked.append(idx)
            if truth[idx]:
                best[0] = min(best[0], float(bound[idx]) + 0.5)
            return bool(truth[idx])

        status = flash.tag_monotone(
            radix, order, rank, passes, bound, lambda best=best: best[0], compiled=compiled
        )
        runs.append((checked, status))
    assert runs[0][0] == runs[1][0]
    np.testing.assert_array_equal(runs[0][1], runs[1][1])
    # Pruning leaves nodes undecided, never wrongly decided.
    decided = runs[0][1] != 0
    np.testing.assert_array_equal(runs[0][1][decided], np.where(truth, 1, -1)[decided])
