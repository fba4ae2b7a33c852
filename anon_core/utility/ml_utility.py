"""ML utility inside one table: a classifier's cross-validated scores on the original and on the
release, and the drop (the "workload-aware" utility of LeFevre, DeWitt and Ramakrishnan,
"Workload-aware anonymization", KDD 2006).

This is the in-table figure, kept as an option; the yardstick's default trains on the release
and tests on an original holdout (:mod:`anon_core.utility.ml_holdout`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from anon_core.errors import ConfigError
from anon_core.utility.features import (
    MAX_DENSE_CELLS,
    ML_MODELS,
    design_matrix,
    make_estimator,
    make_pipeline,
    one_blas_thread,
    target_labels,
)
from anon_core.validation import check_choice, check_int, check_mapping

log = logging.getLogger(__name__)

__all__ = [
    "SCORES",
    "MLUtilityResult",
    "ModelComparison",
    "ModelScores",
    "ScoreStats",
    "ml_utility",
]

SCORES = ("accuracy", "f1_macro", "roc_auc")


@dataclass(frozen=True)
class ScoreStats:
    """Mean and (population, ddof=0) standard deviation of a score over the folds."""

    mean: float
    std: float
    folds: tuple[float, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "mean": float(self.mean),
            "std": float(self.std),
            "folds": [float(x) for x in self.folds],
        }


@dataclass(frozen=True)
class ModelScores:
    """Cross-validated scores of one classifier on one table."""

    model: str
    table: str  # "original" or "released"
    n_rows: int
    accuracy: ScoreStats
    f1_macro: ScoreStats
    roc_auc: ScoreStats

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "table": self.table,
            "n_rows": int(self.n_rows),
            **{s: getattr(self, s).to_dict() for s in SCORES},
        }


@dataclass(frozen=True)
class ModelComparison:
    """One classifier on the original and the released table."""

    model: str
    original: ModelScores
    released: ModelScores

    @property
    def drop(self) -> dict[str, float]:
        """Mean score on the original minus mean score on the release, per score."""
        return {s: getattr(self.original, s).mean - getattr(self.released, s).mean for s in SCORES}

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "original": self.original.to_dict(),
            "released": self.released.to_dict(),
            "drop": {k: float(v) for k, v in self.drop.items()},
        }


@dataclass(frozen=True)
class MLUtilityResult:
    """Classifier utility of a release (see :func:`ml_utility`).

    ``roc_auc`` is the binary ROC AUC (positive class ``classes[1]``) for two
    classes, else the one-vs-rest AUC weighted by class prevalence
    (``roc_auc_kind`` says which, from the original's classes; a table in which
    suppression left only two classes is scored with the binary AUC). ``majority_rate`` is the accuracy of always
    predicting the most frequent class, per table.
    """

    target: str
    features: tuple[str, ...]
    numeric_features: dict[str, tuple[str, ...]]  # per table: columns scaled as numbers
    classes: tuple[str, ...]
    roc_auc_kind: str
    cv: int
    random_state: int
    n_original: int
    n_released: int
    majority_rate: dict[str, float]
    models: tuple[ModelComparison, ...]
    seconds: float = 0.0

    def model(self, name: str) -> ModelComparison:
        for m in self.models:
            if m.model == name:
                return m
        raise ConfigError(f"'model' {name!r} was not run; run: {[m.model for m in self.models]}.")

    def to_frame(self) -> pd.DataFrame:
        """One row per (model, score): original/released mean and std, and the drop."""
        rows = []
        for m in self.models:
            for s in SCORES:
                o, r = getattr(m.original, s), getattr(m.released, s)
                rows.append(
                    {
                        "model": m.model,
                        "score": s,
                        "original_mean": o.mean,
                        "original_std": o.std,
                        "released_mean": r.mean,
                        "released_std": r.std,
                        "drop": o.mean - r.mean,
                    }
                )
        return pd.DataFrame(rows)

    def to_dict(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "features": list(self.features),
            "numeric_features": {k: list(v) for k, v in self.numeric_features.items()},
            "classes": list(self.classes),
            "roc_auc_kind": self.roc_auc_kind,
            "cv": int(self.cv),
            "random_state": int(self.random_state),
            "n_original": int(self.n_original),
            "n_released": int(self.n_released),
            "majority_rate": {k: float(v) for k, v in self.majority_rate.items()},
            "models": [m.to_dict() for m in self.models],
            "seconds": float(self.seconds),
        }


def _check_classes(y: np.ndarray, target: str, which: str, cv: int) -> None:
    values, counts = np.unique(y, return_counts=True)
    if len(values) < 2:
        raise ConfigError(
            f"'target' {target!r} has a single class ({values[0] if len(values) else 'no rows'!r}) in the "
            f"{which} table: a classifier needs at least two. Choose another target column."
        )
    small = {str(v): int(c) for v, c in zip(values, counts, strict=True) if c < cv}
    if small:
        raise ConfigError(
            f"'cv' is {cv} but class(es) {small} of 'target' {target!r} have fewer rows than that in the "
            f"{which} table. Lower 'cv' to at most {int(counts.min())}, or merge the rare classes."
        )


@one_blas_thread
def ml_utility(
    original: pd.DataFrame,
    released: pd.DataFrame,
    target: str,
    features: Sequence[str] | None = None,
    models: Sequence[str] = ("logistic_regression", "random_forest"),
    cv: int = 5,
    random_state: int = 0,
    progress: Callable[[float, str], None] | None = None,
    model_params: Mapping[str, Mapping[str, Any]] | None = None,
) -> MLUtilityResult:
    """Cross-validated classifier scores on the original and the released table, and the drop.

    Each model in ``models`` (keys of :data:`ML_MODELS`: scikit-learn's
    ``LogisticRegression(max_iter=2000)`` and ``RandomForestClassifier(n_estimators=100)``;
    ``model_params={"random_forest": {"n_estimators": 50}}`` overrides
    parameters) is trained and scored with stratified k-fold cross-validation
    (``StratifiedKFold(cv, shuffle=True, random_state)``) separately on each
    table: accuracy, macro F1 and ROC AUC (binary: ``roc_auc``; multiclass:
    one-vs-rest weighted by prevalence), mean and std over the folds. The drop is
    original minus released. This is the "train and test on the release"
    protocol: it measures how well the target can still be predicted from the
    released features.

    * ``released`` holds the released rows only (suppressed records removed, as
      ``problem.apply(result)`` returns them); the target must be released
      unchanged (role sensitive or insensitive), so its values must be values of
      the original target.
    * ``features`` defaults to every column of ``original`` except the target
      that is also in ``released`` (identifiers, dropped by the release, are
      left out of both sides so the comparison is like for like).
    * Encoding (a ``Pipeline`` of a ``ColumnTransformer`` and the model): a
      column whose every non-missing value is a number is imputed (median) and
      standardised; any other column - including generalized labels such as
      ``[20, 30)`` and ``*`` - is one-hot encoded, missing as its own category.
      The choice is made per table, so a generalized QI becomes categorical.
      The encoded table is dense up to 10 million cells (random forests fit
      about twice as fast on it), sparse above.
    * Rows with a missing target are left out (on both sides).
    * ``progress(fraction, message)`` is called after every fold.

    Deterministic for a given ``random_state`` (folds and models are seeded).
    Errors (:class:`~anon_core.errors.ConfigError`): target missing from a table,
    a single class, fewer rows in a class than folds, unknown model or feature.
    """
    from sklearn.base import clone
    from sklearn.metrics import accuracy_score, f1_score, roc_auc_score
    from sklearn.model_selection import StratifiedKFold

    t0 = time.perf_counter()
    if not isinstance(original, pd.DataFrame) or not isinstance(released, pd.DataFrame):
        raise ConfigError(
            "'original' and 'released' must be pandas DataFrames (the input table and problem.apply(result))."
        )
    if not isinstance(target, str):
        raise ConfigError(f"'target' must be a column name, got {target!r}.")
    cv = check_int("cv", cv, minimum=2)
    random_state = check_int("random_state", random_state, minimum=0)
    if isinstance(models, str):
        models = [models]
    models = list(dict.fromkeys(models))
    if not models:
        raise ConfigError(f"'models' must name at least one of {list(ML_MODELS)}, got none.")
    for m in models:
        check_choice("models", m, ML_MODELS)
    params = dict(check_mapping("model_params", model_params or {}))
    for name, p in params.items():
        check_choice("model_params", name, models)
        check_mapping(f"model_params.{name}", p)
    if progress is not None and not callable(progress):
        raise ConfigError(
            f"'progress' must be a function progress(fraction, message), got {progress!r}."
        )

    y_orig, present_orig = target_labels(original, target, "original")
    y_rel, present_rel = target_labels(released, target, "released")
    if features is None:
        features = [str(c) for c in original.columns if c != target and c in released.columns]
        skipped = [str(c) for c in original.columns if c != target and c not in released.columns]
        if skipped:
            log.info("features not in the release, left out of both tables: %s", skipped)
        if not features:
            raise ConfigError(
                f"No feature: the tables share no column besides 'target' {target!r}. Pass 'features'."
            )
    else:
        if isinstance(features, str):
            features = [features]
        features = list(dict.fromkeys(str(f) for f in features))
        if not features:
            raise ConfigError(
                "'features' is empty: name at least one column, or pass None for all."
            )
        if target in features:
            raise ConfigError(
                f"'features' contains the target {target!r}: remove it from 'features'."
            )
        for which, frame in (("original", original), ("released", released)):
            missing = [f for f in features if f not in frame.columns]
            if missing:
                raise ConfigError(
                    f"'features' names {missing}, which are not columns of the {which} table. "
                    f"Columns are: {list(frame.columns)}."
                )
    unseen = sorted(set(y_rel[present_rel]) - set(y_orig[present_orig]))
    if unseen:
        raise ConfigError(
            f"'target' {target!r} has released value(s) {unseen[:5]} that are not original values: it "
            "was generalized or masked. Give the target the role sensitive or insensitive so it is released unchanged."
        )
    dropped = int((~present_orig).sum())
    if dropped:
        log.info("%d original rows without a value of %r left out", dropped, target)

    classes = np.unique(y_orig[present_orig])
    tables = {}
    for which, frame, y, present in (
        ("original", original, y_orig, present_orig),
        ("released", released, y_rel, present_rel),
    ):
        rows = frame.loc[present]
        y_t = y[present]
        _check_classes(y_t, target, which, cv)
        X, numeric, categorical = design_matrix(rows, features)
        codes = np.searchsorted(classes, y_t)
        width = len(numeric) + sum(int(X[c].nunique()) for c in categorical)
        tables[which] = (X, codes, numeric, categorical, len(X) * width <= MAX_DENSE_CELLS)
    roc_kind = "roc_auc" if len(classes) == 2 else "roc_auc_ovr_weighted"

    folds = StratifiedKFold(n_splits=cv, shuffle=True, random_state=random_state)
    total_steps = len(models) * 2 * cv
    step = 0
    comparisons = []
    for name in models:
        estimator = make_estimator(name, params.get(name, {}), random_state)
        scores: dict[str, ModelScores] = {}
        for which, (X, y, numeric, categorical, dense) in tables.items():
            pipe = make_pipeline(estimator, numeric, categorical, dense)
            acc, f1, auc = [], [], []
            labels = np.unique(y)
            for i, (train, test) in enumerate(folds.split(X, y)):
                fitted = clone(pipe).fit(X.iloc[train], y[train])
                pred = fitted.predict(X.iloc[test])
                proba = fitted.predict_proba(X.iloc[test])
                acc.append(float(accuracy_score(y[test], pred)))
                f1.append(
                    float(f1_score(y[test], pred, average="macro", labels=labels, zero_division=0))
                )
                if proba.shape[1] == 2:
                    auc.append(float(roc_auc_score(y[test], proba[:, 1])))
                else:
                    auc.append(
                        float(
                            roc_auc_score(
                                y[test],
                                proba,
                                multi_class="ovr",
                                average="weighted",
                                labels=fitted.classes_,
                            )
                        )
                    )
                step += 1
                if progress is not None:
                    progress(
                        step / total_steps, f"{name} on the {which} table: fold {i + 1} of {cv}"
                    )
            scores[which] = ModelScores(
                model=name,
                table=which,
                n_rows=len(y),
                **{
                    s: ScoreStats(float(np.mean(v)), float(np.std(v)), tuple(v))
                    for s, v in zip(SCORES, (acc, f1, auc), strict=True)
                },
            )
        comparisons.append(ModelComparison(name, scores["original"], scores["released"]))

    majority = {which: float(np.bincount(t[1]).max() / len(t[1])) for which, t in tables.items()}
    seconds = time.perf_counter() - t0
    log.info("ml_utility: %d model(s), %d folds, %.2f s", len(models), cv, seconds)
    return MLUtilityResult(
        target=target,
        features=tuple(features),
        numeric_features={which: tuple(t[2]) for which, t in tables.items()},
        classes=tuple(str(c) for c in classes),
        roc_auc_kind=roc_kind,
        cv=cv,
        random_state=random_state,
        n_original=len(tables["original"][1]),
        n_released=len(tables["released"][1]),
        majority_rate=majority,
        models=tuple(comparisons),
        seconds=seconds,
    )
