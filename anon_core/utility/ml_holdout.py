"""ML utility trained on the release and tested on an original holdout (the yardstick's default).

Protocol (the "train on synthetic, test on real" figure of SDMetrics' ML efficacy and of Jordon
et al., "Synthetic data - what, why and how?", 2022; Brickell and Shmatikov, KDD 2008, for
anonymized tables): each classifier is trained once on the **release** and once on the
**original training part** (the non-private baseline), and both are scored on the same
**original holdout** records, which no release method ever saw. The drop is baseline minus
release. A release identical to the training part gives exactly the baseline (same rows, same
seeds, same encoding).

The holdout is shown to the model in the release's representation: a column the release
generalized (labels not among the original values) is mapped through the column's hierarchy
(the lowest level whose labels cover the released labels) or, without a hierarchy, through the
released interval labels (``0-4`` closed, ``[20, 30)`` and ``[30-40[`` half-open). Values no
label covers stay as they are and are one-hot encoded as unseen (they carry no signal).
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from anon_core.data.hierarchy import Hierarchy
from anon_core.data.io import MISSING, to_labels
from anon_core.errors import ConfigError
from anon_core.utility.features import (
    MAX_DENSE_CELLS,
    ML_MODELS,
    design_matrix,
    make_estimator,
    make_pipeline,
    numeric_values,
    one_blas_thread,
    target_labels,
)
from anon_core.validation import check_choice, check_int, check_mapping

log = logging.getLogger(__name__)

__all__ = [
    "HOLDOUT_SCORES",
    "HoldoutModel",
    "HoldoutUtilityResult",
    "align_holdout",
    "holdout_utility",
]

HOLDOUT_SCORES = ("accuracy", "f1_macro", "roc_auc")
#: Baseline scores by a fingerprint of (training part, holdout, target, features, model, seed):
#: every release of one comparison shares the baseline, so it is trained once (bounded, FIFO).
_BASELINES: dict[tuple, tuple[dict[str, float], bool]] = {}
_MAX_BASELINES = 16
_NUM = r"[+-]?\d+(?:\.\d+)?"
_INTERVAL = re.compile(rf"^\s*([\[\(\]]?)\s*({_NUM})\s*(?:,|;|-|\.\.)\s*({_NUM})\s*([\]\)\[]?)\s*$")


@dataclass(frozen=True)
class HoldoutModel:
    """One classifier: scores on the holdout when trained on the original part and on the release."""

    model: str
    baseline: dict[str, float]
    release: dict[str, float]
    single_class_release: bool = False  # the release had one target class: constant prediction

    @property
    def drop(self) -> dict[str, float]:
        return {s: self.baseline[s] - self.release[s] for s in HOLDOUT_SCORES}

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "baseline": {k: float(v) for k, v in self.baseline.items()},
            "release": {k: float(v) for k, v in self.release.items()},
            "drop": {k: float(v) for k, v in self.drop.items()},
            "single_class_release": bool(self.single_class_release),
        }


@dataclass(frozen=True)
class HoldoutUtilityResult:
    """Train-on-release / test-on-holdout utility of one release (see :func:`holdout_utility`)."""

    target: str
    features: tuple[str, ...]
    classes: tuple[str, ...]
    n_train: int
    n_holdout: int
    n_released: int
    majority_rate: float  # holdout accuracy of always predicting the training part's majority class
    models: tuple[HoldoutModel, ...]
    mapped_columns: tuple[str, ...] = ()  # holdout columns mapped to the release's labels
    random_state: int = 0
    seconds: float = 0.0
    protocol: str = "train-on-release, test-on-original-holdout"

    def model(self, name: str) -> HoldoutModel:
        for m in self.models:
            if m.model == name:
                return m
        raise ConfigError(f"'model' {name!r} was not run; run: {[m.model for m in self.models]}.")

    def to_frame(self) -> pd.DataFrame:
        rows = [
            {
                "model": m.model,
                "score": s,
                "baseline": m.baseline[s],
                "release": m.release[s],
                "drop": m.drop[s],
            }
            for m in self.models
            for s in HOLDOUT_SCORES
        ]
        return pd.DataFrame(rows, columns=["model", "score", "baseline", "release", "drop"])

    def to_dict(self) -> dict[str, Any]:
        first = self.models[0]
        return {
            "protocol": self.protocol,
            "target": self.target,
            "features": list(self.features),
            "classes": list(self.classes),
            "n_train": int(self.n_train),
            "n_holdout": int(self.n_holdout),
            "n_released": int(self.n_released),
            "majority_rate": float(self.majority_rate),
            # The first model's figures at the top level, for charts and tables.
            "accuracy": float(first.release["accuracy"]),
            "baseline_accuracy": float(first.baseline["accuracy"]),
            "accuracy_drop": float(first.drop["accuracy"]),
            "roc_auc": float(first.release["roc_auc"]),
            "models": {m.model: m.to_dict() for m in self.models},
            "mapped_columns": list(self.mapped_columns),
            "random_state": int(self.random_state),
            "seconds": float(self.seconds),
        }


# ------------------------------------------------------------------ the holdout in the release's labels
def _parse_interval(label: str) -> tuple[float, float, bool] | None:
    """(low, high, high_closed) of an interval label, a plain number as [x, x], else None."""
    try:
        x = float(label)
        return x, x, True
    except ValueError:
        pass
    m = _INTERVAL.match(label)
    if m is None:
        return None
    opening, lo, hi, closing = m.groups()
    del opening  # the low end is always included in the labels we read
    return float(lo), float(hi), closing in ("]", "")


def _map_by_hierarchy(values: np.ndarray, released: set[str], hierarchy: Hierarchy) -> Any:
    leaves = [str(v) for v in hierarchy.level(0)]
    for h in range(hierarchy.height):
        labels = {str(v) for v in hierarchy.level(h)}
        if released <= labels:
            lookup = dict(zip(leaves, (str(v) for v in hierarchy.level(h)), strict=True))
            return np.array([lookup.get(v, v) for v in values], dtype=object)
    return None


def _map_by_intervals(values: np.ndarray, released: set[str]) -> Any:
    numbers = numeric_values(pd.Series(values))
    if numbers is None:
        return None
    parsed = {lab: _parse_interval(lab) for lab in released}
    intervals = sorted((p[1] - p[0], *p, lab) for lab, p in parsed.items() if p is not None)
    if not intervals:
        return None
    out = np.array(values, dtype=object)
    assigned = np.zeros(len(values), dtype=bool)
    for _, lo, hi, closed, lab in intervals:  # narrowest first
        inside = (numbers >= lo) & ((numbers <= hi) if closed else (numbers < hi)) & ~assigned
        out[inside] = lab
        assigned |= inside
    return out


def align_holdout(
    holdout: pd.DataFrame,
    released: pd.DataFrame,
    hierarchies: Mapping[str, Hierarchy] | None = None,
) -> tuple[pd.DataFrame, tuple[str, ...]]:
    """The holdout with every generalized column mapped to the release's labels, and those columns."""
    out = holdout.copy()
    mapped = []
    for col in holdout.columns:
        if col not in released.columns:
            continue
        rel = {str(v) for v in to_labels(released[col])} - {MISSING, "*"}
        orig = {str(v) for v in to_labels(holdout[col])}
        if not rel or rel <= orig:
            continue  # not generalized (or only suppressed)
        values = to_labels(holdout[col]).astype(str)
        new = None
        if hierarchies and col in hierarchies:
            new = _map_by_hierarchy(values, rel, hierarchies[col])
        if new is None:
            new = _map_by_intervals(values, rel)
        if new is not None:
            out[col] = pd.Series(new, index=holdout.index, dtype=object)
            mapped.append(str(col))
    return out, tuple(mapped)


# ------------------------------------------------------------------ scoring
def _scores(y: np.ndarray, pred: np.ndarray, proba: np.ndarray, n_classes: int) -> dict[str, float]:
    """Accuracy, macro F1 and ROC AUC (binary, or one-vs-rest weighted) of class codes."""
    from sklearn.metrics import accuracy_score, f1_score, roc_auc_score

    acc = float(accuracy_score(y, pred))
    f1 = float(f1_score(y, pred, average="macro", labels=np.unique(y), zero_division=0))
    present = np.unique(y)
    if len(present) < 2:
        auc = float("nan")
    elif n_classes == 2:
        auc = float(roc_auc_score(y, proba[:, 1]))
    else:
        # A row whose whole mass is on classes absent from the holdout (a constant guess of such
        # a class) carries no ranking: uniform over the present classes, never a zero row.
        mass = proba[:, present]
        mass = np.where(mass.sum(axis=1, keepdims=True) > 0, mass, 1.0)
        auc = float(
            roc_auc_score(
                y, mass / mass.sum(axis=1, keepdims=True),
                multi_class="ovr", average="weighted", labels=present,
            )
        )  # fmt: skip
    return {"accuracy": acc, "f1_macro": f1, "roc_auc": auc}


def _fit_score(
    name: str,
    params: Mapping[str, Any],
    train: pd.DataFrame,
    y_train: np.ndarray,
    test: pd.DataFrame,
    y_test: np.ndarray,
    features: list[str],
    n_classes: int,
    random_state: int,
) -> tuple[dict[str, float], bool]:
    """Scores on ``test`` of the model trained on ``train`` (a constant guess if one class)."""
    present = np.unique(y_train)
    if len(present) < 2:
        pred = np.full(len(y_test), present[0] if len(present) else 0)
        proba = np.zeros((len(y_test), n_classes))
        proba[:, pred[0]] = 1.0
        return _scores(y_test, pred, proba, n_classes), True
    X, numeric, categorical = design_matrix(train, features)
    width = len(numeric) + sum(int(X[c].nunique()) for c in categorical)
    pipe = make_pipeline(
        make_estimator(name, params, random_state),
        numeric,
        categorical,
        len(X) * width <= MAX_DENSE_CELLS,
    )
    pipe.fit(X, y_train)
    # The test table takes the training table's column kinds (numbers stay numbers only if both are).
    Xt = pd.DataFrame(index=range(len(test)))
    for col in features:
        if col in numeric:
            values = numeric_values(test[col])
            Xt[col] = values if values is not None else np.nan
        else:
            Xt[col] = to_labels(test[col]).astype(str)
    raw = pipe.predict_proba(Xt)
    proba = np.zeros((len(test), n_classes))
    proba[:, pipe.classes_.astype(int)] = raw
    pred = pipe.classes_.astype(int)[np.argmax(raw, axis=1)]
    return _scores(y_test, pred, proba, n_classes), False


def _fingerprint(frame: pd.DataFrame) -> tuple:
    """Content hash of a frame (values, columns and dtypes)."""
    hashed = pd.util.hash_pandas_object(frame, index=False).to_numpy()
    return (tuple(map(str, frame.columns)), tuple(map(str, frame.dtypes)), hash(hashed.tobytes()))


@one_blas_thread
def holdout_utility(
    train: pd.DataFrame,
    holdout: pd.DataFrame,
    released: pd.DataFrame,
    target: str,
    features: Sequence[str] | None = None,
    models: Sequence[str] = ("logistic_regression", "random_forest"),
    random_state: int = 0,
    model_params: Mapping[str, Mapping[str, Any]] | None = None,
    hierarchies: Mapping[str, Hierarchy] | None = None,
    progress: Callable[[float, str], None] | None = None,
) -> HoldoutUtilityResult:
    """Classifiers trained on ``released`` and on ``train``, both tested on ``holdout``.

    ``features`` default to every column of ``train`` except the target that is also in the
    release and the holdout. Rows with a missing target are left out. The encoding is
    :func:`anon_core.utility.features.design_matrix` of the training table; the test table
    takes its column kinds. ROC AUC is binary (positive class ``classes[1]``) for two classes,
    else one-vs-rest weighted by prevalence over the classes present in the holdout.
    Deterministic for a given ``random_state``.
    """
    t0 = time.perf_counter()
    for name, frame in (("train", train), ("holdout", holdout), ("released", released)):
        if not isinstance(frame, pd.DataFrame):
            raise ConfigError(f"'{name}' must be a pandas DataFrame, got {type(frame).__name__}.")
    if not isinstance(target, str):
        raise ConfigError(f"'target' must be a column name, got {target!r}.")
    random_state = check_int("random_state", random_state, minimum=0)
    models = [models] if isinstance(models, str) else list(dict.fromkeys(models))
    if not models:
        raise ConfigError(f"'models' must name at least one of {list(ML_MODELS)}, got none.")
    for m in models:
        check_choice("models", m, ML_MODELS)
    params = dict(check_mapping("model_params", model_params or {}))
    y_train, p_train = target_labels(train, target, "original training")
    y_hold, p_hold = target_labels(holdout, target, "holdout")
    y_rel, p_rel = target_labels(released, target, "released")
    if features is None:
        features = [
            str(c)
            for c in train.columns
            if c != target and c in released.columns and c in holdout.columns
        ]
    else:
        features = [features] if isinstance(features, str) else list(dict.fromkeys(features))
        if target in features:
            raise ConfigError(f"'features' contains the target {target!r}: remove it.")
        for which, frame in (("train", train), ("holdout", holdout), ("released", released)):
            missing = [f for f in features if f not in frame.columns]
            if missing:
                raise ConfigError(
                    f"'features' names {missing}, which are not columns of the {which} table. "
                    f"Columns are: {list(map(str, frame.columns))}."
                )
    if not features:
        raise ConfigError(
            f"No feature: the tables share no column besides 'target' {target!r}. Pass 'features'."
        )
    classes = np.unique(np.concatenate([y_train[p_train], y_hold[p_hold], y_rel[p_rel]]))
    if len(np.unique(y_train[p_train])) < 2:
        raise ConfigError(
            f"'target' {target!r} has fewer than two classes in the original training part: a "
            "classifier needs at least two. Choose another target column."
        )
    code = {c: i for i, c in enumerate(classes)}
    encode = np.vectorize(code.__getitem__, otypes=[int])
    tr, yt = train.loc[p_train].reset_index(drop=True), encode(y_train[p_train])
    ho_raw, yh = holdout.loc[p_hold].reset_index(drop=True), encode(y_hold[p_hold])
    re_, yr = released.loc[p_rel].reset_index(drop=True), encode(y_rel[p_rel])
    if len(yh) == 0:
        raise ConfigError(f"The holdout has no row with a value of 'target' {target!r}.")
    ho_rel, mapped = align_holdout(ho_raw, re_, hierarchies)
    n_classes = len(classes)
    results = []
    for i, name in enumerate(models):
        p = params.get(name, {})
        key = (
            _fingerprint(tr),
            _fingerprint(ho_raw),
            target,
            tuple(features),
            tuple(classes),
            name,
            repr(sorted(p.items())),
            random_state,
        )
        if key not in _BASELINES:
            while len(_BASELINES) >= _MAX_BASELINES:
                _BASELINES.pop(next(iter(_BASELINES)))
            _BASELINES[key] = _fit_score(
                name, p, tr, yt, ho_raw, yh, features, n_classes, random_state
            )
        base = dict(_BASELINES[key][0])
        if progress is not None:
            progress((2 * i + 1) / (2 * len(models)), f"{name}: baseline trained on the original")
        if len(yr):
            rel, single = _fit_score(
                name, p, re_, yr, ho_rel, yh, features, n_classes, random_state
            )
        else:
            rel, single = {s: float("nan") for s in HOLDOUT_SCORES}, True
        if progress is not None:
            progress((2 * i + 2) / (2 * len(models)), f"{name}: trained on the release")
        results.append(HoldoutModel(name, base, rel, single))
    majority = int(np.bincount(yt).argmax())
    seconds = time.perf_counter() - t0
    log.info("holdout_utility: %d model(s), %.2f s", len(models), seconds)
    return HoldoutUtilityResult(
        target=target,
        features=tuple(features),
        classes=tuple(str(c) for c in classes),
        n_train=len(yt),
        n_holdout=len(yh),
        n_released=len(yr),
        majority_rate=float((yh == majority).mean()),
        models=tuple(results),
        mapped_columns=mapped,
        random_state=random_state,
        seconds=seconds,
    )
