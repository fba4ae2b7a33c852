"""The design matrix of a trained model: standardized numeric and one-hot categorical features.

:func:`fit_features` fits the encoding on the training rows only (means, standard deviations,
category lists), so nothing about held-out rows leaks into the model. Those statistics come
from the training data and are **not** covered by DP-SGD's guarantee; give ``bounds`` (numeric:
scaled to [-1, 1] by the bounds) and ``categories`` from domain knowledge to make the encoding
data-independent. What was taken from the data is listed in ``FeatureEncoder.from_data``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from anon_core.data.io import to_labels
from anon_core.errors import ConfigError
from anon_core.utility.features import numeric_values as numeric_column


@dataclass(frozen=True)
class NumericFeature:
    """x -> (x - centre) / scale, clipped to [-clip, clip]; missing -> 0."""

    column: str
    centre: float
    scale: float
    from_data: bool


@dataclass(frozen=True)
class CategoricalFeature:
    """One-hot over ``categories`` (text labels); a value outside them encodes as all zeros."""

    column: str
    categories: tuple[str, ...]
    from_data: bool


#: Standardized values are clipped to this many standard deviations (outliers bound the norm).
CLIP = 5.0


@dataclass(frozen=True)
class FeatureEncoder:
    """A fitted encoding: ``transform(frame)`` gives a float32 matrix of ``n_columns`` columns."""

    numeric: tuple[NumericFeature, ...]
    categorical: tuple[CategoricalFeature, ...]

    @property
    def features(self) -> tuple[str, ...]:
        return tuple(f.column for f in self.numeric) + tuple(f.column for f in self.categorical)

    @property
    def n_columns(self) -> int:
        return len(self.numeric) + sum(len(f.categories) for f in self.categorical)

    @property
    def from_data(self) -> tuple[str, ...]:
        """What the encoding took from the training rows (not covered by differential privacy)."""
        return tuple(f"mean and scale of {f.column}" for f in self.numeric if f.from_data) + tuple(
            f"categories of {f.column}" for f in self.categorical if f.from_data
        )

    def transform(self, frame: pd.DataFrame) -> np.ndarray:
        missing = [c for c in self.features if c not in frame.columns]
        if missing:
            raise ConfigError(
                f"The table has no column(s) {missing} that the model was trained on: give a table "
                "with the same columns."
            )
        parts = []
        for f in self.numeric:
            values = numeric_column(frame[f.column])
            if values is None:
                raise ConfigError(
                    f"Column {f.column!r} is numeric in the training rows but not in this table: "
                    "give it as numbers, or list it under 'categories'."
                )
            scaled = np.clip((values - f.centre) / f.scale, -CLIP, CLIP)
            parts.append(np.where(np.isnan(scaled), 0.0, scaled)[:, None])
        for f in self.categorical:
            labels = to_labels(frame[f.column]).astype(str)
            cats = np.asarray(f.categories, dtype=object)
            parts.append((labels[:, None] == cats[None, :]).astype(float))
        matrix = np.hstack(parts) if parts else np.zeros((len(frame), 0))
        return matrix.astype(np.float32)

    def to_dict(self) -> dict[str, Any]:
        return {
            "numeric": {
                f.column: {"centre": f.centre, "scale": f.scale, "from_data": f.from_data}
                for f in self.numeric
            },
            "categorical": {
                f.column: {"categories": list(f.categories), "from_data": f.from_data}
                for f in self.categorical
            },
            "n_columns": self.n_columns,
        }


def fit_features(
    train: pd.DataFrame,
    features: Sequence[str],
    bounds: Mapping[str, Sequence[float]] | None = None,
    categories: Mapping[str, Sequence[Any]] | None = None,
) -> FeatureEncoder:
    """Fit the encoding of ``features`` on the training rows ``train`` only.

    A feature in ``bounds`` ([lower, upper]) is numeric and scaled to [-1, 1] by them; one in
    ``categories`` is one-hot over that list; any other feature is numeric when every present
    value is a number (standardized by the training mean and standard deviation) and one-hot
    over the training rows' labels otherwise.
    """
    bounds = dict(bounds or {})
    categories = dict(categories or {})
    numeric: list[NumericFeature] = []
    categorical: list[CategoricalFeature] = []
    for col in features:
        if col not in train.columns:
            raise ConfigError(
                f"'features' names {col!r}, which is not a column. Columns are: {list(train.columns)}."
            )
        if col in bounds:
            lo, hi = (float(v) for v in bounds[col])
            if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
                raise ConfigError(
                    f"'bounds.{col}' must be [lower, upper] with lower < upper, got {bounds[col]!r}."
                )
            if numeric_column(train[col]) is None:
                raise ConfigError(
                    f"'bounds.{col}' is given but {col!r} is not numeric: list it under 'categories'."
                )
            numeric.append(NumericFeature(col, (lo + hi) / 2, (hi - lo) / 2, False))
            continue
        if col in categories:
            cats = tuple(dict.fromkeys(str(c) for c in categories[col]))
            if not cats:
                raise ConfigError(f"'categories.{col}' must be a non-empty list of values.")
            categorical.append(CategoricalFeature(col, cats, False))
            continue
        values = numeric_column(train[col])
        if values is not None:
            present = values[~np.isnan(values)]
            centre = float(present.mean()) if present.size else 0.0
            scale = float(present.std()) if present.size else 1.0
            numeric.append(NumericFeature(col, centre, scale if scale > 0 else 1.0, True))
        else:
            labels = to_labels(train[col]).astype(str)
            categorical.append(CategoricalFeature(col, tuple(sorted(set(labels))), True))
    if not numeric and not categorical:
        raise ConfigError("'features' is empty: name at least one column to learn from.")
    return FeatureEncoder(tuple(numeric), tuple(categorical))
