"""Fidelity of a release to the original: 1-way marginals and pairwise associations.

Two table-level distances between an original table and a release of the same columns, for any
release method (generalization, masking, synthetic data), as in SDMetrics' ``TVComplement`` /
``CorrelationSimilarity`` / ``ContingencySimilarity`` and the NIST CRC "SDNist" reports:

* :func:`marginal_distance` - the mean, over columns, of the total-variation distance
  ``TV(P, Q) = 1/2 * sum_v |P(v) - Q(v)|`` between the column's original and released
  distributions (0 = identical marginals, 1 = disjoint supports);
* :func:`association_distance` - the mean, over column pairs, of ``|A_orig - A_release|`` where
  ``A`` is the pair's association: Pearson's r for two numeric columns, Cramér's V (without
  bias correction) for two categorical columns and the correlation ratio eta (categorical ->
  numeric) for a mixed pair. V and eta are in [0, 1], r in [-1, 1] (the sign is kept, so a flipped
  correlation counts), hence each pair's difference is in [0, 1] except numeric pairs ([0, 2]).

Column kinds: a column is numeric when every present value is a number in **both** tables
(:func:`anon_core.utility.features.numeric_values`), else categorical on both sides, so a
generalized column (labels such as ``[30-40[`` or ``*``) is compared label by label: released
labels that are not original values count as a different support (a generalized column is far
from the original in the 1-way sense; :func:`anon_core.utility.distributions.compare_distributions`
gives the hierarchy-aware projection instead). Numeric columns are binned on the original's
quantiles for the marginal distance: at most ``bins`` bins cut at the distinct quantiles, or one
bin per value (cut at midpoints) when the original has at most ``bins`` distinct values. Missing
values are their own category / bin; numeric pairs use the rows where both are present.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from anon_core.data.io import to_labels
from anon_core.errors import ConfigError
from anon_core.utility.features import numeric_values
from anon_core.validation import check_int

__all__ = [
    "AssociationDistance",
    "MarginalDistance",
    "association",
    "association_distance",
    "common_columns",
    "cramers_v",
    "correlation_ratio",
    "marginal_distance",
    "total_variation",
]


@dataclass(frozen=True)
class MarginalDistance:
    """Mean total-variation distance over 1-way marginals, and each column's distance."""

    value: float
    per_column: dict[str, float]
    kinds: dict[str, str]  # "numeric" | "categorical"
    bins: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "value": float(self.value),
            "per_column": {k: float(v) for k, v in self.per_column.items()},
            "kinds": dict(self.kinds),
            "bins": int(self.bins),
        }


@dataclass(frozen=True)
class AssociationDistance:
    """Mean absolute difference of pairwise associations, and each pair's figures."""

    value: float
    pairs: tuple[tuple[str, str, str, float, float], ...]  # (a, b, measure, original, released)

    def to_frame(self) -> pd.DataFrame:
        frame = pd.DataFrame(
            self.pairs, columns=["column_a", "column_b", "measure", "original", "released"]
        )
        frame["difference"] = (frame["original"] - frame["released"]).abs()
        return frame

    def to_dict(self) -> dict[str, Any]:
        return {
            "value": float(self.value),
            "pairs": [
                {
                    "columns": [a, b],
                    "measure": m,
                    "original": float(o),
                    "released": float(r),
                    "difference": abs(float(o) - float(r)),
                }
                for a, b, m, o, r in self.pairs
            ],
        }


def total_variation(p: Any, q: Any) -> float:
    """TV(P, Q) = 1/2 * sum |p_i - q_i| of two weight vectors, each normalised to sum 1."""
    p = np.asarray(p, dtype=float)
    q = np.asarray(q, dtype=float)
    if p.shape != q.shape or p.ndim != 1:
        raise ConfigError(
            f"'p' and 'q' must be 1-D arrays of the same length, got shapes {p.shape} and {q.shape}."
        )
    if p.sum() <= 0 or q.sum() <= 0:
        raise ConfigError("'p' and 'q' must each have a positive total to be distributions.")
    return float(0.5 * np.abs(p / p.sum() - q / q.sum()).sum())


def common_columns(
    original: pd.DataFrame, released: pd.DataFrame, columns: Sequence[str] | None
) -> list[str]:
    """``columns`` checked against both tables, or every original column also in the release."""
    for name, frame in (("original", original), ("released", released)):
        if not isinstance(frame, pd.DataFrame):
            raise ConfigError(f"'{name}' must be a pandas DataFrame, got {type(frame).__name__}.")
        if frame.empty:
            raise ConfigError(f"'{name}' has no rows: there is no distribution to compare.")
    if columns is None:
        chosen = [str(c) for c in original.columns if c in released.columns]
    else:
        chosen = [columns] if isinstance(columns, str) else list(dict.fromkeys(columns))
        for name, frame in (("original", original), ("released", released)):
            missing = [c for c in chosen if c not in frame.columns]
            if missing:
                raise ConfigError(
                    f"'columns' names {missing}, which are not columns of the {name} table. "
                    f"Columns are: {list(map(str, frame.columns))}."
                )
    if not chosen:
        raise ConfigError("The original and released tables share no column: nothing to compare.")
    return chosen


def _typed(original: pd.Series, released: pd.Series) -> tuple[str, Any, Any]:
    """('numeric', floats, floats) when both are numeric, else ('categorical', labels, labels)."""
    a, b = numeric_values(original), numeric_values(released)
    if a is not None and b is not None:
        return "numeric", a, b
    return "categorical", to_labels(original).astype(str), to_labels(released).astype(str)


def _bin_edges(values: np.ndarray, bins: int) -> np.ndarray:
    """Interior cut points of the original's bins (see the module docstring)."""
    observed = values[~np.isnan(values)]
    distinct = np.unique(observed)
    if len(distinct) <= bins:
        return (distinct[1:] + distinct[:-1]) / 2.0
    edges = np.unique(np.quantile(observed, np.linspace(0, 1, bins + 1)))
    return edges[1:-1]


def _bin(values: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Bin index per value (len(edges) + 1 for missing)."""
    out = np.searchsorted(edges, values, side="right")
    out[np.isnan(values)] = len(edges) + 1
    return out


def marginal_distance(
    original: pd.DataFrame,
    released: pd.DataFrame,
    columns: Sequence[str] | None = None,
    bins: int = 10,
) -> MarginalDistance:
    """Mean total-variation distance between the 1-way marginals of the two tables."""
    bins = check_int("bins", bins, minimum=2)
    chosen = common_columns(original, released, columns)
    per_column: dict[str, float] = {}
    kinds: dict[str, str] = {}
    for col in chosen:
        kind, a, b = _typed(original[col], released[col])
        kinds[col] = kind
        if kind == "numeric":
            edges = _bin_edges(a, bins)
            size = len(edges) + 2
            p = np.bincount(_bin(a, edges), minlength=size)
            q = np.bincount(_bin(b, edges), minlength=size)
        else:
            codes, _ = pd.factorize(np.concatenate([a, b]))
            size = int(codes.max()) + 1
            p = np.bincount(codes[: len(a)], minlength=size)
            q = np.bincount(codes[len(a) :], minlength=size)
        per_column[col] = total_variation(p, q)
    value = float(np.mean(list(per_column.values())))
    return MarginalDistance(value, per_column, kinds, bins)


def cramers_v(a: np.ndarray, b: np.ndarray) -> float:
    """Cramér's V of two label arrays: sqrt(chi2 / (n * (min(r, c) - 1))), 0 when r or c is 1."""
    ca, _ = pd.factorize(a)
    cb, _ = pd.factorize(b)
    r, c = int(ca.max()) + 1, int(cb.max()) + 1
    if min(r, c) < 2:
        return 0.0
    table = np.bincount(ca * c + cb, minlength=r * c).reshape(r, c).astype(float)
    n = table.sum()
    expected = table.sum(axis=1, keepdims=True) * table.sum(axis=0, keepdims=True) / n
    chi2 = float(((table - expected) ** 2 / expected).sum())
    return math.sqrt(min(1.0, chi2 / (n * (min(r, c) - 1))))


def correlation_ratio(categories: np.ndarray, values: np.ndarray) -> float:
    """Correlation ratio eta = sqrt(between-group SS / total SS) of numbers by category (0 if constant)."""
    keep = ~np.isnan(values)
    codes, _ = pd.factorize(categories[keep])
    y = values[keep]
    if len(y) < 2:
        return 0.0
    total = float(((y - y.mean()) ** 2).sum())
    if total <= 0:
        return 0.0
    counts = np.bincount(codes).astype(float)
    means = np.bincount(codes, weights=y) / np.where(counts > 0, counts, 1.0)
    between = float((counts * (means - y.mean()) ** 2).sum())
    return math.sqrt(min(1.0, between / total))


def _pearson(x: np.ndarray, y: np.ndarray) -> float:
    keep = ~(np.isnan(x) | np.isnan(y))
    x, y = x[keep], y[keep]
    if len(x) < 2 or x.std() == 0 or y.std() == 0:
        return 0.0
    return float(np.corrcoef(x, y)[0, 1])


def association(kind_a: str, a: np.ndarray, kind_b: str, b: np.ndarray) -> tuple[str, float]:
    """(measure, value) of one column pair, the measure chosen by the two kinds."""
    if kind_a == "numeric" and kind_b == "numeric":
        return "pearson", _pearson(a, b)
    if kind_a == "categorical" and kind_b == "categorical":
        return "cramers_v", cramers_v(a, b)
    if kind_a == "numeric":
        return "correlation_ratio", correlation_ratio(b, a)
    return "correlation_ratio", correlation_ratio(a, b)


def association_distance(
    original: pd.DataFrame,
    released: pd.DataFrame,
    columns: Sequence[str] | None = None,
) -> AssociationDistance:
    """Mean absolute difference of the pairwise association matrices (see the module docstring)."""
    chosen = common_columns(original, released, columns)
    if len(chosen) < 2:
        raise ConfigError(
            f"'columns' must name at least two columns for an association, got {chosen}."
        )
    typed = {c: _typed(original[c], released[c]) for c in chosen}
    pairs = []
    for i, a in enumerate(chosen):
        for b in chosen[i + 1 :]:
            (ka, oa, ra), (kb, ob, rb) = typed[a], typed[b]
            measure, orig = association(ka, oa, kb, ob)
            _, rel = association(ka, ra, kb, rb)
            pairs.append((a, b, measure, orig, rel))
    value = float(np.mean([abs(o - r) for *_, o, r in pairs]))
    return AssociationDistance(value, tuple(pairs))
