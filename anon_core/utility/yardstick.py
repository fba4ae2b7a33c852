"""The utility yardstick: the same utility measures for every release method.

:func:`utility_yardstick` is what the Compare service calls for each release: ML utility
(by default trained on the release and tested on an original holdout, with the non-private
baseline trained on the original training part; optionally the older in-table cross-validated
figure), the mean 1-way marginal distance and the mean pairwise association distance
(:mod:`anon_core.utility.fidelity`) between the release and the original training part.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from anon_core.data.hierarchy import Hierarchy
from anon_core.data.io import MISSING, to_labels
from anon_core.errors import ConfigError
from anon_core.utility.features import numeric_values
from anon_core.utility.fidelity import (
    AssociationDistance,
    MarginalDistance,
    association_distance,
    marginal_distance,
)
from anon_core.utility.ml_holdout import HoldoutUtilityResult, holdout_utility
from anon_core.utility.ml_utility import MLUtilityResult, ml_utility
from anon_core.validation import check_choice, check_int

__all__ = ["ML_PROTOCOLS", "UtilityReport", "choose_target", "utility_yardstick"]

#: "holdout": train on the release, test on the original holdout (default);
#: "cross-validated": the in-table figure of :func:`anon_core.utility.ml_utility.ml_utility`.
ML_PROTOCOLS = ("holdout", "cross-validated")


@dataclass(frozen=True)
class UtilityReport:
    """The yardstick's figures for one release."""

    ml: HoldoutUtilityResult | MLUtilityResult
    marginal: MarginalDistance
    association: AssociationDistance | None  # None for a single-column table

    @property
    def marginal_distance(self) -> float:
        return self.marginal.value

    @property
    def association_distance(self) -> float | None:
        return None if self.association is None else self.association.value

    def to_dict(self) -> dict[str, Any]:
        return {
            "ml": self.ml.to_dict(),
            "marginal_distance": float(self.marginal.value),
            "association_distance": self.association_distance,
            "marginal_per_column": self.marginal.to_dict()["per_column"],
            "association_pairs": None
            if self.association is None
            else self.association.to_dict()["pairs"],
        }


def choose_target(frame: pd.DataFrame, max_classes: int = 10) -> str:
    """A default ML target: the categorical column with the fewest classes (at least two, at most
    ``max_classes``; binary first), ties broken by column order."""
    best: tuple[int, int, str] | None = None
    for i, col in enumerate(frame.columns):
        if numeric_values(frame[col]) is not None:
            continue
        labels = set(to_labels(frame[col])) - {MISSING}
        if 2 <= len(labels) <= max_classes and (best is None or (len(labels), i) < best[:2]):
            best = (len(labels), i, str(col))
    if best is None:
        raise ConfigError(
            f"No categorical column with 2 to {max_classes} classes to predict; name the ML "
            f"'target' (columns: {list(map(str, frame.columns))})."
        )
    return best[2]


def utility_yardstick(
    original_train: pd.DataFrame,
    original_holdout: pd.DataFrame,
    released: pd.DataFrame,
    target: str | None = None,
    *,
    ml: str = "holdout",
    models: Sequence[str] = ("logistic_regression", "random_forest"),
    model_params: Mapping[str, Mapping[str, Any]] | None = None,
    columns: Sequence[str] | None = None,
    bins: int = 10,
    cv: int = 5,
    hierarchies: Mapping[str, Hierarchy] | None = None,
    random_state: int = 0,
    progress: Callable[[float, str], None] | None = None,
) -> UtilityReport:
    """ML utility, marginal distance and association distance of ``released``.

    ``original_train`` is the original part the release was made from, ``original_holdout``
    original records no method saw (the attack lab's control part). ``target`` defaults to
    :func:`choose_target` of the training part. ``ml="cross-validated"`` replaces the holdout
    figure with the in-table cross-validated one (``cv`` folds on the training part and on the
    release). The distances compare ``released`` with ``original_train`` over ``columns``
    (default: every shared column). ``hierarchies`` map generalized holdout values to the
    release's labels (:func:`anon_core.utility.ml_holdout.align_holdout`).
    """
    ml = check_choice("ml", ml, ML_PROTOCOLS)
    random_state = check_int("random_state", random_state, minimum=0)
    if not isinstance(original_train, pd.DataFrame):
        raise ConfigError(
            f"'original_train' must be a pandas DataFrame, got {type(original_train).__name__}."
        )
    if target is None:
        target = choose_target(original_train)

    def step(start: float, width: float) -> Callable[[float, str], None] | None:
        if progress is None:
            return None
        return lambda f, message: progress(start + width * f, message)

    if ml == "holdout":
        ml_result: HoldoutUtilityResult | MLUtilityResult = holdout_utility(
            original_train,
            original_holdout,
            released,
            target,
            models=models,
            random_state=random_state,
            model_params=model_params,
            hierarchies=hierarchies,
            progress=step(0.0, 0.8),
        )
    else:
        ml_result = ml_utility(
            original_train,
            released,
            target,
            models=models,
            cv=cv,
            random_state=random_state,
            model_params=model_params,
            progress=step(0.0, 0.8),
        )
    marginal = marginal_distance(original_train, released, columns, bins)
    if progress is not None:
        progress(0.9, "marginal distance")
    shared = list(marginal.per_column)
    association = (
        association_distance(original_train, released, shared) if len(shared) > 1 else None
    )
    if progress is not None:
        progress(1.0, "association distance")
    return UtilityReport(ml_result, marginal, association)
