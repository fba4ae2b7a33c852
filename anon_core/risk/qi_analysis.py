"""QI analysis: how well each small combination of quasi-identifiers separates the records.

Distinction and separation (Motwani & Xu 2007) as ARX's ``RiskModelAttributes``
computes them, for every combination of up to a few quasi-identifiers.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from anon_core.validation import check_int

log = logging.getLogger(__name__)

_DENSE_LIMIT = 1 << 22  # largest mixed-radix key span grouped with a dense bincount


@dataclass(frozen=True)
class QIScore:
    """How well one combination of quasi-identifiers separates the records (Motwani & Xu 2007)."""

    attributes: tuple[str, ...]
    distinction: float  # distinct value combinations / records
    separation: float  # record pairs told apart / all record pairs


def check_combination_limits(max_combination_size: Any, max_combinations: Any) -> tuple[int, int]:
    if isinstance(max_combination_size, np.integer):
        max_combination_size = int(max_combination_size)
    if isinstance(max_combinations, np.integer):
        max_combinations = int(max_combinations)
    size = check_int("max_combination_size", max_combination_size, minimum=0)
    cap = check_int("max_combinations", max_combinations, minimum=1)
    return size, cap


def _group_sizes(key: np.ndarray, span: int, weights: np.ndarray) -> np.ndarray:
    """Summed weights per distinct key (order irrelevant)."""
    if key.size == 0:
        return np.zeros(0, np.int64)
    if span <= max(_DENSE_LIMIT, 4 * key.size):
        sums = np.bincount(key, weights=weights, minlength=0)
        return sums[sums > 0].astype(np.int64)
    inv, uniq = pd.factorize(key, sort=False)
    return np.bincount(inv, weights=weights, minlength=len(uniq)).astype(np.int64)


def _scores(sizes: np.ndarray) -> tuple[float, float]:
    """(distinction, separation) of one grouping; 0 when there are no records (ARX: NaN -> 0)."""
    n = int(sizes.sum())
    if n == 0:
        return 0.0, 0.0
    distinction = len(sizes) / n
    pairs = n * (n - 1)
    if pairs == 0:
        return distinction, 0.0
    same = int((sizes * (sizes - 1)).sum())
    # Exact integers, one correctly rounded division: pairs told apart / all pairs.
    return distinction, (pairs - same) / pairs


def qi_analysis(
    codes: np.ndarray,
    radices: Sequence[int],
    weights: np.ndarray,
    names: Sequence[str],
    star: np.ndarray | None,
    max_combination_size: int,
    max_combinations: int,
) -> tuple[QIScore, ...]:
    """Distinction and separation of every combination of up to ``max_combination_size`` QIs.

    ``codes`` has one row per distinct tuple (or class) with its record count in
    ``weights``; ``star[r, j]`` marks a '*' (suppressed) value. For each
    combination, rows whose values are all '*' are left out (ARX's ``isOutlier``
    on that combination). Ranked by combination size, then most identifying
    first (distinction, then separation, descending), then QI order.
    """
    q = codes.shape[1]
    top = min(max_combination_size, q)
    weights = weights.astype(np.float64)
    # Which combinations: all of size 1, then 2, ... until the cap.
    selected: list[tuple[int, ...]] = []
    truncated = False
    for size in range(1, top + 1):
        for combo in itertools.combinations(range(q), size):
            if len(selected) >= max_combinations:
                truncated = True
                break
            selected.append(combo)
        if truncated:
            log.warning(
                "QI analysis stopped at max_combinations=%d combinations (of up to %d QIs each); raise "
                "'max_combinations' to analyse all of them.",
                max_combinations,
                top,
            )
            break

    def extend(key: np.ndarray | None, span: int, j: int) -> tuple[np.ndarray, int]:
        col = codes[:, j].astype(np.int64)
        r = max(int(radices[j]), 1)
        if key is None:
            return col, r
        if span * r >= 1 << 62:  # re-number the prefix densely before the key overflows
            inv, uniq = pd.factorize(key, sort=False)
            key, span = inv.astype(np.int64), len(uniq)
        return key * r + col, span * r

    # Lexicographic order is a depth-first walk: each combination extends the key of
    # its prefix, and only the keys along the current path are kept (memory O(size x rows)).
    rows: list[tuple[tuple[int, ...], float, float]] = []
    path: list[tuple[tuple[int, ...], np.ndarray, int]] = []
    for combo in sorted(selected):
        while path and not (
            len(path[-1][0]) < len(combo) and combo[: len(path[-1][0])] == path[-1][0]
        ):
            path.pop()
        base, key, span = path[-1] if path else ((), None, 1)
        for j in combo[len(base) :]:
            key, span = extend(key, span, j)
        assert key is not None
        if len(combo) < top:
            path.append((combo, key, span))
        if star is not None:
            keep = ~star[:, list(combo)].all(axis=1)
            sizes = _group_sizes(key[keep], span, weights[keep])
        else:
            sizes = _group_sizes(key, span, weights)
        d, s = _scores(sizes)
        rows.append((combo, d, s))
    rows.sort(key=lambda r: (len(r[0]), -r[1], -r[2], r[0]))
    return tuple(QIScore(tuple(names[j] for j in combo), d, s) for combo, d, s in rows)
