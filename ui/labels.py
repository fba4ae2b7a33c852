"""Human labels and formatted numbers for the tables the dashboard shows.

anon_core's frames use field names (``original_mean``, ``error_basis``); the dashboard shows
words, thousands separators and empty cells instead of "None". Display only: no figure changes.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

#: Field names of anon_core's frames -> the words shown as column headers.
LABELS = {
    "attribute": "Attribute",
    "role": "Role",
    "level": "Level",
    "n_values": "Values",
    "hellinger": "Hellinger distance",
    "metric": "Metric key",
    "name": "Metric",
    "monotonic": "Monotonic",
    "value": "Value",
    "goal": "Goal",
    "lower": "Lowest possible",
    "upper": "Highest possible",
    "optimized": "Optimized by the search",
    "model": "Model",
    "score": "Score",
    "original_mean": "Original (mean)",
    "original_std": "Original (std)",
    "released_mean": "Released (mean)",
    "released_std": "Released (std)",
    "drop": "Drop",
    "original_share": "original",
    "released_share": "released",
    "error_basis": "Error basis",
}
MODEL_NAMES = {"logistic_regression": "Logistic regression", "random_forest": "Random forest"}
SCORE_NAMES = {"accuracy": "Accuracy", "f1_macro": "Macro F1", "roc_auc": "ROC AUC"}


def label(field: str) -> str:
    """The human label of a field name (the name with spaces when it has none)."""
    return LABELS.get(field, field.replace("_", " ").capitalize())


def human_frame(frame: pd.DataFrame, digits: int = 4) -> pd.DataFrame:
    """A copy for display: labelled columns, booleans as ✓ or empty, numbers with thousands
    separators (``digits`` significant digits for fractions), and missing cells empty."""
    out = pd.DataFrame(index=frame.index)
    for column in frame.columns:
        values = frame[column]
        if pd.api.types.is_bool_dtype(values) or set(values.dropna().unique()) <= {True, False}:
            if len(values.dropna()):
                out[label(column)] = values.map(lambda v: "✓" if v is True else "")
                continue
        if pd.api.types.is_numeric_dtype(values):
            out[label(column)] = values.map(lambda v: number(v, digits))
        else:
            out[label(column)] = values.map(lambda v: "" if v is None or v is pd.NA else str(v))
    return out


def number(value, digits: int = 4) -> str:
    """'30,162', '0.1234', '' for a missing value."""
    if value is None or value is pd.NA or (isinstance(value, float) and value != value):
        return ""
    if float(value).is_integer() and abs(value) >= 1:
        return f"{int(value):,}"
    if abs(value) >= 1000:  # 44,480.3, never 4.448e+04
        return f"{value:,.1f}"
    return f"{value:,.{digits}g}"


def human_ml_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """ml_utility's frame with model and score names in words (numbers stay numbers)."""
    out = frame.copy()
    out["model"] = out["model"].map(lambda m: MODEL_NAMES.get(m, m))
    out["score"] = out["score"].map(lambda s: SCORE_NAMES.get(s, s))
    return out.rename(columns={c: label(c) for c in out.columns})


#: Number formats of the machine-learning table's columns.
ML_COLUMNS = {
    label(c): st.column_config.NumberColumn(label(c), format="%.3f")
    for c in ("original_mean", "original_std", "released_mean", "released_std", "drop")
}
