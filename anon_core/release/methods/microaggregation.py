"""Microaggregation with MDAV (maximum distance to average vector).

J. Domingo-Ferrer and J. M. Mateo-Sanz, "Practical data-oriented microaggregation for statistical
disclosure control", IEEE TKDE 14(1), 2002; sdcMicro's ``microaggregation(method = "mdav")``.
The chosen numeric columns are standardized (z-scores) and grouped multivariately:

* while at least 3k records remain: r = the record farthest from the centroid of the remaining
  records, s = the record farthest from r; r and its k-1 nearest remaining records form a group,
  then s and its k-1 nearest remaining records form another;
* if 2k..3k-1 records remain: r (farthest from the centroid) and its k-1 nearest form a group and
  the rest (k..2k-1 records) form the last one; fewer than 2k remaining form one group.

Each value is replaced by its group's mean (on the original scale), so every released combination
of the chosen columns appears at least k times. Ties in distances go to the first record in table
order, so the grouping is deterministic (the method is not randomized).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from anon_core.errors import ConfigError, DataError
from anon_core.release.methods.registry import (
    MethodContext,
    MethodOutput,
    MethodParam,
    Progress,
    ReleaseMethod,
    register_method,
    report,
    select_columns,
)


def _k_nearest(points: np.ndarray, alive: np.ndarray, center: np.ndarray, k: int) -> np.ndarray:
    """Indices of the k alive records nearest to ``center`` (ties: lower index first)."""
    idx = np.flatnonzero(alive)
    d = ((points[idx] - center) ** 2).sum(axis=1)
    if k >= len(idx):
        return idx
    part = np.argpartition(d, k - 1)[:k]
    # Resolve ties at the boundary deterministically: all records at distance <= the k-th, by index.
    cut = d[part].max()
    near = np.flatnonzero(d < cut)
    at = np.flatnonzero(d == cut)
    chosen = np.concatenate([near, at[: k - len(near)]])
    return idx[chosen]


def _farthest(points: np.ndarray, alive: np.ndarray, center: np.ndarray) -> int:
    idx = np.flatnonzero(alive)
    d = ((points[idx] - center) ** 2).sum(axis=1)
    return int(idx[int(np.argmax(d))])


def mdav_groups(values: np.ndarray, k: int, progress: Progress | None = None) -> np.ndarray:
    """Group label of every row of ``values`` (n x d, already standardized) by MDAV with size k."""
    n = len(values)
    groups = np.full(n, -1, dtype=np.int64)
    alive = np.ones(n, dtype=bool)
    remaining = n
    g = 0
    step = max(n // 50, 1)
    while remaining >= 3 * k:
        centroid = values[alive].mean(axis=0)
        r = _farthest(values, alive, centroid)
        s = _farthest(values, alive, values[r])
        members = _k_nearest(values, alive, values[r], k)
        groups[members], alive[members] = g, False
        g += 1
        members = _k_nearest(values, alive, values[s], k)
        groups[members], alive[members] = g, False
        g += 1
        remaining -= 2 * k
        if (n - remaining) // step != (n - remaining - 2 * k) // step:
            report(progress, (n - remaining) / n, f"MDAV: {n - remaining} of {n} records grouped")
    if remaining >= 2 * k:
        centroid = values[alive].mean(axis=0)
        r = _farthest(values, alive, centroid)
        members = _k_nearest(values, alive, values[r], k)
        groups[members], alive[members] = g, False
        g += 1
        remaining -= k
    if remaining:
        groups[alive] = g
    return groups


def standardize(values: np.ndarray) -> np.ndarray:
    """Z-scores per column (a constant column stays 0)."""
    mean = values.mean(axis=0)
    sd = values.std(axis=0, ddof=1) if len(values) > 1 else np.zeros(values.shape[1])
    sd = np.where(sd > 0, sd, 1.0)
    return (values - mean) / sd


def numeric_matrix(frame: pd.DataFrame, columns: list[str], method: str) -> np.ndarray:
    """The columns as a float matrix; DataError naming a column with missing or non-numeric values."""
    out = np.empty((len(frame), len(columns)), dtype=float)
    for j, c in enumerate(columns):
        values = pd.to_numeric(frame[c], errors="coerce")
        bad = int(values.isna().sum())
        if bad:
            raise DataError(
                f"Method {method!r} needs a number in every row of {c!r}, but {bad} row(s) are missing or "
                f"not numbers; impute or drop them first, or leave {c!r} out of 'columns'."
            )
        out[:, j] = values.to_numpy(dtype=float)
    return out


@register_method
class Microaggregation(ReleaseMethod):
    name = "microaggregation"
    label = "Microaggregation (MDAV)"
    params = (
        MethodParam(
            "k", "int", 3, "group size: every released combination appears at least k times", 2
        ),
        MethodParam(
            "columns", "columns", None, "numeric columns (default: the numeric quasi-identifiers)"
        ),
    )
    accepts = frozenset({"numeric"})
    randomized = False
    guarantee = "none"
    protects = "Exact numeric values: each released combination of the chosen columns is shared by >= k records."
    does_not_protect = "Categorical quasi-identifiers and the other columns; group means still reveal close values."

    def release(
        self,
        frame: pd.DataFrame,
        context: MethodContext,
        *,
        random_state: int | None = None,
        progress: Progress | None = None,
    ) -> MethodOutput:
        k = int(self.parameters["k"])
        columns = select_columns(self, frame, context, self.parameters["columns"])
        if k > len(frame):
            raise ConfigError(
                f"'k' is {k}, larger than the table ({len(frame)} rows); choose k <= {len(frame)}."
            )
        raw = numeric_matrix(frame, columns, self.name)
        groups = mdav_groups(standardize(raw), k, progress)
        n_groups = int(groups.max()) + 1
        counts = np.bincount(groups, minlength=n_groups).astype(float)
        out = frame.copy()
        for j, c in enumerate(columns):
            means = np.bincount(groups, weights=raw[:, j], minlength=n_groups) / counts
            out[c] = means[groups]
        report(progress, 1.0, f"MDAV: {n_groups} groups")
        details: dict[str, Any] = {
            "columns": columns,
            "groups": n_groups,
            "min_group_size": int(counts.min()),
            "max_group_size": int(counts.max()),
        }
        return MethodOutput(out, self.guarantee, details)
