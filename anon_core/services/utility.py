"""The Utility page's figures: every quality metric on a transformation, each attribute's released
distribution against the original, and machine-learning utility (classifiers trained on the
original and on the released table, and the drop)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pandas as pd

from anon_core.data.dataset import Role
from anon_core.utility import summary
from anon_core.utility.ml_utility import MLUtilityResult
from anon_core.utility.summary import compare_distributions, ml_utility, quality_summary

__all__ = [
    "compare_distributions",
    "ml_scores",
    "ml_utility",
    "original_for",
    "quality_summary",
    "target_columns",
]

#: Parameters of the models the dashboard trains (a forest of 100 trees, as the CLI's default).
MODEL_PARAMS = {"random_forest": {"n_estimators": 100}}


def target_columns(frame: pd.DataFrame, roles: Mapping[str, str]) -> list[str]:
    """The columns a model may predict: those released as they are (sensitive or insensitive)."""
    kept = (Role.SENSITIVE.value, Role.INSENSITIVE.value)
    return [c for c in frame.columns if roles.get(c) in kept]


def original_for(
    frame: pd.DataFrame, roles: Mapping[str, str], released: pd.DataFrame
) -> pd.DataFrame:
    """The original table as the models see it: identifiers dropped, the released columns only."""
    original = frame.drop(
        columns=[c for c in frame.columns if roles.get(c) == Role.IDENTIFIER.value]
    )
    return original[[c for c in original.columns if c in released.columns]]


def ml_scores(
    original: pd.DataFrame,
    released: pd.DataFrame,
    target: str,
    model: str,
    folds: int,
    progress: Callable[[float, str], None] | None = None,
) -> MLUtilityResult:
    """Cross-validated scores of one model on both tables (one at a time: a cancel stops between)."""
    params: Mapping[str, Mapping[str, Any]] | None = (
        {model: MODEL_PARAMS[model]} if model in MODEL_PARAMS else None
    )
    return summary.ml_utility(  # looked up on each call: the one entry point tests can stub
        original, released, target, models=[model], cv=folds, model_params=params, progress=progress
    )
