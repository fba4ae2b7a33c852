"""Long work in the dashboard: a time estimate before it starts, and a cancel button while it runs.

The estimate is a simple cost model, not a promise: machine-learning utility costs about
``rows x (folds - 1) x 2 tables x per-row cost of each model``, with per-row costs measured on
Adult (30,162 rows) on the development machine (2 cores, scikit-learn, CPU time): logistic
regression about 80 us and a 100-tree random forest about 160 us per trained row, plus about a
second of fixed cost. A busy machine takes longer; the estimate only says "seconds" or "minutes".
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

#: CPU seconds per trained row, per model (measured on Adult, see the module docstring).
ML_ROW_SECONDS = {"logistic_regression": 80e-6, "random_forest": 160e-6}
ML_FIXED_SECONDS = 1.0
#: A default machine-learning target has at most this many classes (never occupation's 14).
MAX_DEFAULT_CLASSES = 5


def ml_seconds(rows: int, folds: int, models: list[str] | tuple[str, ...]) -> float:
    """Estimated seconds of :func:`anon_core.analysis.ml_utility.ml_utility` on both tables."""
    per_row = sum(ML_ROW_SECONDS.get(m, max(ML_ROW_SECONDS.values())) for m in models)
    return ML_FIXED_SECONDS + rows * max(folds - 1, 1) * 2 * per_row


def report_seconds(rows: int) -> float:
    """Estimated seconds to write the release report (HTML and PDF): about 3 s plus 30 us per
    row (measured: Adult, 30,162 rows, 2.9 s; the 2,000-row hospital sample, 3.6 s)."""
    return 3.0 + rows * 3e-5


def human_duration(seconds: float) -> str:
    """'about 40 s' / 'about 3 min' (an estimate is never more precise than that)."""
    if seconds < 60:
        return f"about {max(round(seconds), 1):,} s"
    return f"about {round(seconds / 60):,} min"


def default_target(frame: pd.DataFrame, candidates: list[str]) -> int:
    """Index in ``candidates`` of the column to predict by default: the one with the fewest
    classes among those with 2 to :data:`MAX_DEFAULT_CLASSES` (a binary target when there is one),
    else the first candidate."""
    best, best_classes = 0, None
    for i, column in enumerate(candidates):
        classes = frame[column].nunique(dropna=True)
        if 2 <= classes <= MAX_DEFAULT_CLASSES and (best_classes is None or classes < best_classes):
            best, best_classes = i, classes
    return best


def cancel_button(key: str, label: str = "⏹️ Cancel") -> bool:
    """A Cancel button shown before long work starts. Clicking it while the work runs makes
    Streamlit stop the run at its next progress update (between folds or models) and rerun the
    page, where this returns True so the page can say the run was cancelled."""
    return st.button(label, key=key, help="Stops the run after the current step.")
