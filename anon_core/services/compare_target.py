"""The ML target of a comparison: its default, and quantile classes for a numeric target.

The utility yardstick scores classifiers (accuracy, macro F1, ROC AUC). A numeric target with many
values (length of stay, age, hours) would make every distinct number a class, so it is cut into
quantile classes first (:class:`TargetBins`); the cut points come from the original released part
and every table of the comparison is cut at the same points.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from anon_core.config import ReleaseConfig
from anon_core.data.dataset import Role
from anon_core.errors import ConfigError
from anon_core.methods.registry import drop_identifiers

__all__ = ["MAX_TARGET_CLASSES", "TARGET_BINS", "TargetBins", "default_target", "target_bins"]


def default_target(
    config: ReleaseConfig | Mapping[str, Role | str], frame: pd.DataFrame
) -> str | None:
    """The target a comparison predicts when none is named: the first sensitive attribute, else
    the categorical column with the fewest classes (the yardstick's choice), else None.
    ``config`` is a release configuration or just its roles (the dashboard's workspace)."""
    roles = config.roles if isinstance(config, ReleaseConfig) else config
    table = drop_identifiers(frame, roles)
    sensitive = [c for c, r in roles.items() if r == Role.SENSITIVE and c in table.columns]
    if sensitive:
        return sensitive[0]
    try:
        from anon_core.utility.yardstick import choose_target
    except ImportError:  # pragma: no cover - a partial installation
        return None
    try:
        return choose_target(table)
    except ConfigError:
        return None


#: A numeric target with more distinct values than this is binned into quantile classes.
MAX_TARGET_CLASSES = 10
#: Quantile classes of a binned numeric target (quartiles: below the 1st, ..., from the 3rd).
TARGET_BINS = 4


@dataclass(frozen=True)
class TargetBins:
    """A numeric ML target cut into classes at ``cuts`` (quantiles of the original released part).

    The yardstick scores classifiers, so a numeric target with many values (length of stay, age,
    income in dollars) is predicted as its quantile class: ``< c1``, ``c1 to < c2``, ...,
    ``>= ck``. Every table of a comparison (original part, holdout, each release) is cut at the
    same points. A generalized interval label (``[20, 30)``, ``20-30``) counts at its midpoint and
    a bottom/top code (``<20``, ``>=90``) at its bound, so a generalized target keeps its classes;
    other labels (``*``) stay as they are, missing values stay missing (those rows are left out
    of the ML figures)."""

    column: str
    cuts: tuple[float, ...]
    n_values: int

    @property
    def labels(self) -> tuple[str, ...]:
        c = [f"{x:g}" for x in self.cuts]
        middle = [f"{lo} to < {hi}" for lo, hi in zip(c, c[1:], strict=False)]
        return (f"< {c[0]}", *middle, f">= {c[-1]}")

    def apply(self, frame: pd.DataFrame) -> pd.DataFrame:
        if self.column not in frame.columns:
            return frame
        raw = frame[self.column]
        numbers = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=float)
        labels = np.asarray(self.labels, dtype=object)
        out = raw.astype(object).where(raw.notna(), None).to_numpy(dtype=object).copy()
        for i in np.flatnonzero(~np.isfinite(numbers) & raw.notna().to_numpy()):
            numbers[i] = label_value(str(out[i]))
        known = np.isfinite(numbers)
        out[known] = labels[np.searchsorted(np.asarray(self.cuts), numbers[known], side="right")]
        text = np.array([v is not None and not k for v, k in zip(out, known, strict=True)])
        out[text] = [str(v) for v in out[text]]
        binned = frame.copy()
        binned[self.column] = pd.Series(out, index=frame.index, dtype=object)
        return binned

    def to_dict(self) -> dict[str, Any]:
        return {
            "column": self.column,
            "distinct_values": self.n_values,
            "cuts": list(self.cuts),
            "classes": list(self.labels),
        }

    def describe(self) -> str:
        return (
            f"{self.column!r} is numeric with {self.n_values:,} distinct values: the models predict "
            f"its quantile class ({', '.join(self.labels)})."
        )


_NUM = r"[+-]?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?"
_INTERVAL = re.compile(rf"^\s*[\[\(]?\s*({_NUM})\s*(?:,|;|-|\.\.)\s*({_NUM})\s*[\]\)\[]?\s*$")
_CODED = re.compile(rf"^\s*(<|>=)\s*({_NUM})\s*$")


def label_value(label: str) -> float:
    """The number a generalized label stands for: an interval's midpoint, a bottom code
    ``<x`` just below x, a top code ``>=x`` at x; NaN for anything else (``*``)."""
    m = _INTERVAL.match(label)
    if m is not None:
        return (float(m.group(1)) + float(m.group(2))) / 2
    m = _CODED.match(label)
    if m is not None:
        x = float(m.group(2))
        return float(np.nextafter(x, -np.inf)) if m.group(1) == "<" else x
    return float("nan")


def target_bins(part: pd.DataFrame, target: str | None) -> TargetBins | None:
    """Quantile classes of a numeric target with more than :data:`MAX_TARGET_CLASSES` values
    (cut points from ``part``, the original released part), else None (used as classes)."""
    if target is None or target not in part.columns:
        return None
    from anon_core.utility.features import numeric_values

    values = numeric_values(part[target])
    if values is None:
        return None
    finite = values[np.isfinite(values)]
    distinct = int(len(np.unique(finite)))
    if distinct <= MAX_TARGET_CLASSES:
        return None
    qs = np.quantile(finite, [i / TARGET_BINS for i in range(1, TARGET_BINS)])
    cuts = tuple(float(c) for c in np.unique(qs) if c > finite.min())
    if not cuts:  # pragma: no cover - more than 10 distinct values always give a cut
        return None
    return TargetBins(str(target), cuts, distinct)
