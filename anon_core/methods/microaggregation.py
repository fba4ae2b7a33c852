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

Missing values: a missing cell stays missing in the release (no value is invented) and each
group's mean is taken over its observed values only. So that a missing cell does not make a
released combination rare, records are grouped within their pattern of missing cells (MDAV on
the observed columns of each pattern shared by at least k records); the few records whose
pattern fewer than k share are grouped together, with a missing cell counting as the column mean
for the distances (0 in z-scores); ``details.records_in_mixed_groups`` counts them, as their
released combinations may appear fewer than k times.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from anon_core.errors import ConfigError, DataError
from anon_core.methods.registry import (
    MethodContext,
    MethodOutput,
    Progress,
    ReleaseMethod,
    register_method,
    report,
    select_columns,
)
from anon_core.params import Param


def _k_smallest(d: np.ndarray, k: int) -> np.ndarray:
    """Positions of the k smallest finite entries of ``d`` (ties: lower position first)."""
    at = np.flatnonzero(d == d.min())
    if len(at) >= k:  # common with tied values: no selection needed
        return at[:k]
    finite = np.flatnonzero(np.isfinite(d))
    if k >= len(finite):
        return finite
    sub = d[finite]
    cut = sub[np.argpartition(sub, k - 1)[:k]].max()
    near = finite[sub < cut]
    return np.concatenate([near, finite[sub == cut][: k - len(near)]])


class _Remaining:
    """The records not yet grouped: a compact copy of their points, compacted as groups leave,
    with the running sum for the centroid (so each MDAV step costs a few passes over them)."""

    def __init__(self, values: np.ndarray) -> None:
        self.points = values
        self.columns = np.ascontiguousarray(values.T)  # d x n: fast per-record distances
        self.ids = np.arange(len(values))
        self.alive = np.ones(len(values), dtype=bool)
        self.count = len(values)
        self.total = values.sum(axis=0)

    def dist(self, center: np.ndarray, fill: float) -> np.ndarray:
        diff = self.columns - center[:, None]
        d = np.einsum("ij,ij->j", diff, diff)
        d[~self.alive] = fill
        return d

    def take(self, positions: np.ndarray) -> np.ndarray:
        """Remove the records at ``positions``; returns their original row ids."""
        self.alive[positions] = False
        self.count -= len(positions)
        self.total = self.total - self.points[positions].sum(axis=0)
        out = self.ids[positions]
        if self.count and self.count < len(self.ids) // 2:
            self.points, self.ids = self.points[self.alive], self.ids[self.alive]
            self.columns = np.ascontiguousarray(self.points.T)
            self.alive = np.ones(len(self.ids), dtype=bool)
        return out

    def farthest_from_centroid(self) -> int:
        return int(np.argmax(self.dist(self.total / self.count, -1.0)))


def mdav_groups(values: np.ndarray, k: int, progress: Progress | None = None) -> np.ndarray:
    """Group label of every row of ``values`` (n x d, already standardized) by MDAV with size k."""
    n = len(values)
    groups = np.full(n, -1, dtype=np.int64)
    rest = _Remaining(np.asarray(values, dtype=float))
    g = 0
    step = max(n // 50, 1)
    while rest.count >= 3 * k:
        r = rest.farthest_from_centroid()
        d_r = rest.dist(rest.points[r], np.inf)
        s = int(np.argmax(np.where(np.isfinite(d_r), d_r, -1.0)))
        s_point = rest.points[s].copy()
        groups[rest.take(_k_smallest(d_r, k))] = g
        groups[rest.take(_k_smallest(rest.dist(s_point, np.inf), k))] = g + 1
        g += 2
        if (n - rest.count) // step != (n - rest.count - 2 * k) // step:
            report(progress, (n - rest.count) / n, f"MDAV: {n - rest.count} of {n} records grouped")
    if rest.count >= 2 * k:
        r = rest.farthest_from_centroid()
        groups[rest.take(_k_smallest(rest.dist(rest.points[r], np.inf), k))] = g
        g += 1
    if rest.count:
        groups[rest.ids[rest.alive]] = g
    return groups


def standardize(values: np.ndarray) -> np.ndarray:
    """Z-scores per column over the observed values (a constant column stays 0); a missing
    cell becomes 0, the column mean, so it pulls no record towards or away from it."""
    observed = ~np.isnan(values)
    count = observed.sum(axis=0)
    filled = np.where(observed, values, 0.0)
    mean = filled.sum(axis=0) / np.maximum(count, 1)
    dev = np.where(observed, values - mean, 0.0)
    sd = np.sqrt((dev**2).sum(axis=0) / np.maximum(count - 1, 1))
    sd = np.where(sd > 0, sd, 1.0)
    return dev / sd


def numeric_matrix(frame: pd.DataFrame, columns: list[str], method: str) -> np.ndarray:
    """The columns as a float matrix (missing cells NaN); DataError naming a column with values
    that are present but not numbers, or with no number at all."""
    out = np.empty((len(frame), len(columns)), dtype=float)
    for j, c in enumerate(columns):
        values = pd.to_numeric(frame[c], errors="coerce")
        bad = int((values.isna() & frame[c].notna()).sum())
        if bad:
            raise DataError(
                f"Method {method!r} needs numbers in {c!r}, but {bad} row(s) hold something else; "
                f"clean them first, or leave {c!r} out of 'columns'."
            )
        if len(values) and values.isna().all():
            raise DataError(
                f"Method {method!r}: {c!r} has no number at all (every row is missing); leave it "
                "out of 'columns'."
            )
        out[:, j] = values.to_numpy(dtype=float)
    return out


def pattern_groups(
    raw: np.ndarray, k: int, progress: Progress | None = None
) -> tuple[np.ndarray, int]:
    """MDAV group of every row of ``raw`` (NaN = missing), within each pattern of missing cells
    shared by at least ``k`` rows; rows of rarer patterns are grouped together (fewer than k of
    them join the largest pattern). Returns the groups and the number of rows in mixed groups."""
    z = standardize(raw)
    missing = np.isnan(raw)
    if not missing.any():
        return mdav_groups(z, k, progress), 0
    patterns, inverse, sizes = np.unique(missing, axis=0, return_inverse=True, return_counts=True)
    inverse = inverse.ravel()
    sets = [np.flatnonzero(inverse == p) for p in range(len(patterns)) if sizes[p] >= k]
    rare = np.flatnonzero(np.isin(inverse, np.flatnonzero(sizes < k)))
    mixed = len(rare)
    if mixed >= k or not sets:
        sets.append(rare)
    elif mixed:
        largest = int(np.argmax([len(r) for r in sets]))
        sets[largest] = np.sort(np.concatenate([sets[largest], rare]))
    groups = np.full(len(raw), -1, dtype=np.int64)
    offset = 0
    for rows in sets:
        g = mdav_groups(z[rows], k, progress if len(rows) == max(map(len, sets)) else None)
        groups[rows] = g + offset
        offset += int(g.max()) + 1
    return groups, int(mixed)


@register_method
class Microaggregation(ReleaseMethod):
    name = "microaggregation"
    label = "Microaggregation (MDAV)"
    params = (
        Param(
            "k",
            "int",
            3,
            help="group size: every released combination appears at least k times",
            minimum=2,
        ),
        Param(
            "columns",
            "columns",
            None,
            help="numeric columns (default: the numeric quasi-identifiers)",
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
        groups, mixed = pattern_groups(raw, k, progress)
        n_groups = int(groups.max()) + 1
        counts = np.bincount(groups, minlength=n_groups).astype(float)
        out = frame.copy()
        for j, c in enumerate(columns):
            observed = ~np.isnan(raw[:, j])
            sums = np.bincount(
                groups, weights=np.where(observed, raw[:, j], 0.0), minlength=n_groups
            )
            seen = np.bincount(groups, weights=observed.astype(float), minlength=n_groups)
            with np.errstate(invalid="ignore", divide="ignore"):
                means = sums / seen  # observed values only; a group with none stays missing
            out[c] = np.where(observed, means[groups], np.nan)
        report(progress, 1.0, f"MDAV: {n_groups} groups")
        details: dict[str, Any] = {
            "columns": columns,
            "groups": n_groups,
            "min_group_size": int(counts.min()),
            "max_group_size": int(counts.max()),
            "missing_cells_kept": int(np.isnan(raw).sum()),
            "records_in_mixed_groups": mixed,
        }
        return MethodOutput(out, self.guarantee, details)
