"""One type per column across the attacks' tables (original, released, control).

Files are read as text, while a table built in Python may hold numbers. The attacks compare
values across the three tables and build order predicates (``age >= 52``) only on numeric
columns, so a column must have the same type in all three: numeric where the input holds numbers
(:func:`anon_core.data.io.infer_kind` on the raw input) and every value of all three tables
parses as a number, text labels (:func:`anon_core.data.io.to_labels`) otherwise. Reading every
column of a released file as text made singling out build equality predicates only (0.0 instead
of 0.108 on anonymeter's Adult example); a numeric column against a text one matched nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import pandas as pd
from pandas.api.types import is_bool_dtype, is_numeric_dtype

from anon_core.data.io import ColumnKind, infer_kind, to_labels


def numeric_columns(reference: pd.DataFrame, columns: Iterable[str] | None = None) -> set[str]:
    """The columns of ``reference`` (the raw input) whose values are numbers."""
    names = reference.columns if columns is None else columns
    return {
        str(c)
        for c in names
        if c in reference.columns and infer_kind(reference[c]) == ColumnKind.NUMERIC
    }


def _as_numbers(series: pd.Series) -> pd.Series | None:
    """``series`` as floats, or None when a present value does not parse as a number."""
    if is_numeric_dtype(series.dtype) and not is_bool_dtype(series.dtype):
        return series.astype(float)
    present = series.notna()
    text = series.astype(str).str.strip()
    present &= text != ""
    parsed = pd.to_numeric(text.where(present), errors="coerce")
    if bool((parsed.isna() & present).any()):
        return None
    return parsed.astype(float)


def _as_labels(series: pd.Series) -> pd.Series:
    labels = to_labels(series)
    labels[series.isna().to_numpy()] = None
    return pd.Series(labels, index=series.index, dtype=object)


def align_types(tables: Sequence[pd.DataFrame], numeric: Iterable[str]) -> list[pd.DataFrame]:
    """``tables`` (same columns) with each column numeric in all of them (when it is in
    ``numeric`` and every present value parses) or text labels in all of them."""
    numeric = set(numeric)
    out = [t.copy() for t in tables]
    for column in tables[0].columns:
        parsed = None
        if str(column) in numeric:
            parsed = [_as_numbers(t[column]) for t in tables]
            if any(p is None for p in parsed):
                parsed = None
        for i, table in enumerate(tables):
            out[i][column] = parsed[i] if parsed is not None else _as_labels(table[column])
    return out
