"""Features for the ML utility measures: numeric-or-categorical columns, encoding, classifiers.

Shared by the in-table cross-validated figure (:mod:`anon_core.utility.ml_utility`) and the
train-on-release / test-on-holdout figure (:mod:`anon_core.utility.ml_holdout`), so both encode
a table the same way: a column whose every present value is a number is imputed and scaled, any
other column (generalized labels such as ``[30-40[`` included) is one-hot encoded.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from anon_core.data.io import MISSING, to_labels
from anon_core.errors import ConfigError

T = TypeVar("T")

__all__ = [
    "MAX_DENSE_CELLS",
    "ML_MODELS",
    "design_matrix",
    "make_estimator",
    "make_pipeline",
    "numeric_values",
    "target_labels",
]

#: Classifier names accepted by :func:`ml_utility` and their scikit-learn class.
ML_MODELS = {
    "logistic_regression": "sklearn.linear_model.LogisticRegression",
    "random_forest": "sklearn.ensemble.RandomForestClassifier",
}


def numeric_values(series: pd.Series) -> np.ndarray | None:
    """The column as floats if every non-missing value is a number, else None (categorical).

    Missing cells (NaN or the :data:`MISSING` label) stay NaN. Codes with a
    leading zero (ZIP codes) and booleans are categorical; generalized labels
    such as ``[20, 30)`` or ``*`` do not parse, so a generalized column is
    categorical.
    """
    if pd.api.types.is_bool_dtype(series):
        return None
    if pd.api.types.is_numeric_dtype(series):
        values = series.to_numpy(dtype=float, na_value=np.nan)
        return (
            values
            if np.isfinite(values[~np.isnan(values)]).all() and (~np.isnan(values)).any()
            else None
        )
    text = series.astype("string").str.strip()
    missing = series.isna().to_numpy() | (text == MISSING).fillna(True).to_numpy()
    present = text[~missing]
    if present.empty or present.str.match(r"^[+-]?0\d").any():
        return None
    numbers = pd.to_numeric(present, errors="coerce")
    if numbers.isna().any() or not np.isfinite(numbers.to_numpy(dtype=float)).all():
        return None
    values = np.full(len(series), np.nan)
    values[~missing] = numbers.to_numpy(dtype=float)
    return values


def design_matrix(
    frame: pd.DataFrame, features: Sequence[str]
) -> tuple[pd.DataFrame, list[str], list[str]]:
    """Feature frame with numeric columns as floats and the rest as string categories."""
    numeric, categorical, data = [], [], {}
    for col in features:
        values = numeric_values(frame[col])
        if values is None:
            data[col] = to_labels(frame[col]).astype(str)
            categorical.append(col)
        else:
            data[col] = values
            numeric.append(col)
    return pd.DataFrame(data, columns=list(features)), numeric, categorical


def one_blas_thread(fn: Callable[..., T]) -> Callable[..., T]:
    """Run ``fn`` with one BLAS thread. The models here are small: with more threads, OpenBLAS
    spins its workers between the many small products of a solver, which on a busy 2-core
    machine cost 10-20x the CPU of one thread (measured: 21 s against 1.3 s for a logistic
    regression on 5,000 Adult rows) for the same result."""

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> T:
        from threadpoolctl import threadpool_limits

        with threadpool_limits(limits=1, user_api="blas"):
            return fn(*args, **kwargs)

    return run


def make_estimator(name: str, params: Mapping[str, Any], random_state: int) -> Any:
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression

    if name == "logistic_regression":
        est = LogisticRegression(max_iter=2000, random_state=random_state)
    else:
        est = RandomForestClassifier(n_estimators=100, random_state=random_state)
    try:
        est.set_params(**params)
    except ValueError as exc:
        raise ConfigError(f"'model_params.{name}' has an invalid parameter: {exc}") from None
    return est


#: Above this many cells (rows x encoded columns) the encoded table stays sparse.
MAX_DENSE_CELLS = 10_000_000


def make_pipeline(estimator: Any, numeric: list[str], categorical: list[str], dense: bool) -> Any:
    from sklearn.compose import ColumnTransformer
    from sklearn.impute import SimpleImputer
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    parts = []
    if numeric:
        parts.append(
            (
                "numeric",
                Pipeline(
                    [("impute", SimpleImputer(strategy="median")), ("scale", StandardScaler())]
                ),
                numeric,
            )
        )
    if categorical:
        parts.append(("categorical", OneHotEncoder(handle_unknown="ignore"), categorical))
    # Dense output when it is small: random forests are about twice as fast on it.
    encode = ColumnTransformer(parts, sparse_threshold=0.0 if dense else 0.3)
    return Pipeline([("encode", encode), ("model", estimator)])


def target_labels(frame: pd.DataFrame, target: str, which: str) -> tuple[np.ndarray, np.ndarray]:
    """Labels of the target and a mask of the rows where it is present."""
    if target not in frame.columns:
        raise ConfigError(
            f"'target' {target!r} is not a column of the {which} table. Columns are: {list(frame.columns)}. "
            "Keep the target in the release (role sensitive or insensitive) and give its exact name."
        )
    present = ~frame[target].isna().to_numpy()
    return to_labels(frame[target]).astype(str), present
