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
