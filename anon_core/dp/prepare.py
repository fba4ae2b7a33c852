"""A query bound to its table: the values a mechanism is given, and the bounds and categories used.

Nothing here is released: :class:`Prepared` holds true values, which only the mechanisms in
:mod:`anon_core.dp.noise` read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from anon_core.data.io import MISSING, to_labels
from anon_core.dp.library import FROM_DATA, leak_message
from anon_core.dp.queries import NUMERIC_TYPES, AxisSpec, DPQuery
from anon_core.errors import ConfigError


def column_of(frame: pd.DataFrame, column: str, label: str) -> pd.Series:
    if column not in frame.columns:
        raise ConfigError(
            f"Query {label!r} names column {column!r}, which the table does not have. Columns are: {list(frame.columns)}."
        )
    return frame[column]


def numeric_with_nan(series: pd.Series, label: str) -> np.ndarray:
    """The column as floats, NaN where missing (empty cells and the MISSING label).

    ConfigError if a present value is not a number or is infinite.
    """
    if pd.api.types.is_bool_dtype(series) or pd.api.types.is_numeric_dtype(series):
        values = series.astype(float).to_numpy(dtype=float, na_value=np.nan)
    else:
        text = series.astype("string").str.strip()
        missing = series.isna().to_numpy() | (text == MISSING).fillna(True).to_numpy()
        parsed = pd.to_numeric(text.mask(missing), errors="coerce").to_numpy(
            dtype=float, na_value=np.nan
        )
        bad = ~missing & np.isnan(parsed)
        if bad.any():
            raise ConfigError(
                f"Query {label!r}: column {series.name!r} has values that are not numbers (for example "
                f"{str(series[bad].iloc[0])!r}). Use a count or a histogram with categories for it, or choose a "
                "numeric column."
            )
        values = parsed
    if np.isinf(values).any():
        raise ConfigError(
            f"Query {label!r}: column {series.name!r} holds infinite values; remove them first."
        )
    if np.isnan(values).all():
        raise ConfigError(
            f"Query {label!r}: column {series.name!r} has no numeric values to compute on."
        )
    return values


def numbers(series: pd.Series, label: str) -> np.ndarray:
    """The column's non-missing values as floats."""
    values = numeric_with_nan(series, label)
    return values[~np.isnan(values)]


@dataclass
class Prepared:
    """A query bound to its data: what the mechanism is given (true values: never released).

    ``n`` is the true number of rows or values taking part: it feeds the mechanisms only and
    is never part of a result unless the query declares it public (``query.public_n``).
    """

    query: DPQuery
    label: str
    n: int
    arrays: tuple[np.ndarray, ...]
    bounds: dict[str, tuple[float, float]] = field(default_factory=dict)  # used, per column
    categories: dict[str, tuple[str, ...]] = field(default_factory=dict)
    bins: tuple[int, ...] = ()
    ranges: tuple[tuple[float, float] | None, ...] = ()
    from_data: tuple[str, ...] = ()  # e.g. ("bounds of age",)
    own_warnings: tuple[str, ...] = ()  # leak warnings this module issues itself


def _prepare_axis(
    frame: pd.DataFrame, axis: AxisSpec, label: str
) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """Values to bin for a histogram axis, a mask of the rows that take part, and its details."""
    series = column_of(frame, axis.column, label)
    info: dict[str, Any] = {}
    if axis.categorical:
        labels = to_labels(series).astype(str)
        if axis.categories == FROM_DATA:
            cats = tuple(sorted(pd.unique(labels).tolist()))
            info["from_data"] = f"categories of {axis.column}"
        else:
            cats = tuple(axis.categories)  # type: ignore[arg-type]
        lookup = {c: i for i, c in enumerate(cats)}
        codes = np.fromiter((lookup.get(v, -1) for v in labels), dtype=float, count=len(labels))
        info.update(categories=cats, bins=len(cats), range=(-0.5, len(cats) - 0.5))
        return codes, codes >= 0, info
    values = numeric_with_nan(series, label)
    present = ~np.isnan(values)
    if axis.bounds == FROM_DATA:
        rng = (float(np.min(values[present])), float(np.max(values[present])))
        if rng[0] == rng[1]:  # a single value: one unit around it, as numpy's histogram does
            rng = (rng[0] - 0.5, rng[1] + 0.5)
        info["from_data"] = f"bounds of {axis.column}"
    else:
        rng = tuple(axis.bounds)  # type: ignore[arg-type]
    info.update(bins=int(axis.bins or 10), range=rng)
    return values, present, info


def prepare(frame: pd.DataFrame, query: DPQuery) -> Prepared:
    """Validate the query against the table and gather its inputs (nothing is spent)."""
    if not isinstance(frame, pd.DataFrame):
        raise ConfigError(f"'frame' must be a pandas DataFrame, got {type(frame).__name__}.")
    label = query.label
    if query.type == "count":
        if not query.axes:
            arr = np.ones(len(frame), dtype=bool)
        else:
            series = column_of(frame, query.axes[0].column, label)
            labels = to_labels(series)
            arr = labels != MISSING if query.value is None else labels.astype(str) == query.value
        return Prepared(query, label, len(frame), (np.asarray(arr, dtype=bool),))
    if query.type in NUMERIC_TYPES:
        axis = query.axes[0]
        values = numbers(column_of(frame, axis.column, label), label)
        if query.public_n is not None and query.public_n != values.size:
            raise ConfigError(
                f"Query {label!r}: 'n' = {query.public_n} is declared public but is not the number of "
                f"non-missing values of {axis.column!r}. A public n must be exact: correct it, or remove "
                "'n' to keep it private (a mean or variance then spends part of epsilon on a noisy count)."
            )
        if axis.bounds == FROM_DATA:
            bounds = (float(values.min()), float(values.max()))
            if bounds[0] == bounds[1]:
                raise ConfigError(
                    f"Query {label!r}: every value of {axis.column!r} is {bounds[0]:g}, so bounds from the data are "
                    "empty. Enter bounds [lower, upper] with lower < upper."
                )
            what = f"bounds of {axis.column} ({bounds[0]:g} to {bounds[1]:g})"
            return Prepared(
                query,
                label,
                values.size,
                (values,),
                {axis.column: bounds},
                from_data=(f"bounds of {axis.column}",),
                own_warnings=(leak_message(label, what, "the smallest and largest value"),),
            )
        bounds = tuple(axis.bounds)  # type: ignore[arg-type]
        return Prepared(query, label, values.size, (values,), {axis.column: bounds})
    # histograms
    per_axis = [_prepare_axis(frame, axis, label) for axis in query.axes]
    keep = np.logical_and.reduce([p[1] for p in per_axis])
    arrays = tuple(p[0][keep] for p in per_axis)
    infos = [p[2] for p in per_axis]
    prepared = Prepared(
        query,
        label,
        int(keep.sum()),
        arrays,
        bins=tuple(i["bins"] for i in infos),
        ranges=tuple(i["range"] for i in infos),
        categories={
            a.column: i["categories"]
            for a, i in zip(query.axes, infos, strict=True)
            if "categories" in i
        },
        from_data=tuple(i["from_data"] for i in infos if "from_data" in i),
    )
    for a, i in zip(query.axes, infos, strict=True):
        if not a.categorical:
            prepared.bounds[a.column] = tuple(i["range"])
    own = []
    for a, i in zip(query.axes, infos, strict=True):
        if "from_data" not in i:
            continue
        if a.categorical:
            own.append(
                leak_message(
                    label,
                    i["from_data"],
                    "which values occur in the data (a rare value's presence)",
                )
            )
        else:
            lo, hi = i["range"]
            what = f"{i['from_data']} ({lo:g} to {hi:g})"
            own.append(leak_message(label, what, "the smallest and largest value"))
    prepared.own_warnings = tuple(own)
    return prepared
