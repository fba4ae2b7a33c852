"""Compiled per-class figures of the privacy models against their numpy definitions, on random
sparse histograms, and recursive (c,l)-diversity against a hand-worked table."""

from __future__ import annotations

import numpy as np
import pytest

from anon_core.data import kernels

pytestmark = pytest.mark.skipif(not kernels.AVAILABLE, reason="numba is not installed")


def _triplets(seed: int) -> tuple[np.ndarray, np.ndarray, int]:
    """Sorted (class, count) entries of a random sparse histogram, with ties in the counts."""
    rng = np.random.default_rng(seed)
    n_classes = int(rng.integers(1, 40))
    per_class = rng.integers(1, 8, n_classes)
    cls = np.repeat(np.arange(n_classes), per_class)
    cnt = rng.integers(1, 6, len(cls))
    return cls, cnt, n_classes


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("keep", [0, 1, 2, 4])
def test_top_counts_match_a_per_class_sort(seed, keep):
    cls, cnt, n_classes = _triplets(seed)
    first, tail, distinct = kernels.top_counts(cls, cnt, n_classes, keep)
    for c in range(n_classes):
        counts = sorted(cnt[cls == c].tolist(), reverse=True)
        assert first[c] == counts[0]
        assert tail[c] == sum(counts[keep:])
        assert distinct[c] == len(counts)


def test_recursive_diversity_hand_worked():
    # class 0: counts 5, 3, 1, 1 -> r1 = 5, tail from the 2nd value on (l=2) = 5: 5 < 4 * 5
    # class 1: counts 9, 1 -> r1 = 9, tail = 1: 9 >= 4 * 1 fails
    cls = np.array([0, 0, 0, 0, 1, 1])
    cnt = np.array([1, 5, 3, 1, 1, 9])
    first, tail, distinct = kernels.top_counts(cls, cnt, 2, 1)
    assert first.tolist() == [5, 9] and tail.tolist() == [5, 1] and distinct.tolist() == [4, 2]


@pytest.mark.parametrize("seed", range(10))
def test_equal_emd_matches_the_definition(seed):
    cls, cnt, n_classes = _triplets(seed)
    rng = np.random.default_rng(seed)
    m = 8
    val = np.concatenate(
        [rng.choice(m, int((cls == c).sum()), replace=False) for c in range(n_classes)]
    )
    sizes = np.bincount(cls, weights=cnt).astype(np.int64)
    q = rng.random(m)
    q /= q.sum()
    got = kernels.equal_emd(cls, val, cnt, sizes, q)
    for c in range(n_classes):
        p = np.zeros(m)
        np.add.at(p, val[cls == c], cnt[cls == c] / sizes[c])
        assert got[c] == pytest.approx(0.5 * np.abs(p - q).sum(), abs=1e-12)


def test_hierarchical_cost_hand_worked():
    # one class of size 2 in a table of 4; S_0 = 6, S_1 = 2, S_2 = 0 over a 2-level tree:
    # cost = 1/2 * (6 - 2) + 2/2 * (2 - 0) = 4, EMD = 4 / (4 * 2) = 0.5
    levels = np.array([[6.0, 2.0, 0.0]])
    assert kernels.hierarchical_cost(levels, np.array([2]), 4).tolist() == [0.5]
