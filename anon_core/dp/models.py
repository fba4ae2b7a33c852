"""DP machine learning with diffprivlib: accuracy against epsilon, with non-private baselines.

diffprivlib's ``LogisticRegression`` (objective perturbation, Chaudhuri, Monteleoni and
Sarwate, JMLR 12, 2011), ``GaussianNB`` (Vaidya, Shafiq, Basu and Hong, WI-IAT 2013) and
``RandomForestClassifier`` (Fletcher and Islam, Expert Systems with Applications 78, 2017)
against their scikit-learn counterparts (:func:`dp_ml_curve`). DP-SGD on PyTorch models lives
in :mod:`anon_core.training`.
"""

from __future__ import annotations

import logging
import math
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from anon_core.data.io import to_labels
from anon_core.dp.library import (
    DEFAULT_EPSILONS,
    FROM_DATA,
    as_label,
    diffprivlib_parts,
    leak_message,
    scratch_accountant,
)
from anon_core.dp.queries import parse_bounds, parse_categories
from anon_core.errors import ConfigError, PrivacyWarning
from anon_core.utility.features import numeric_values
from anon_core.validation import check_float, check_int, check_mapping

log = logging.getLogger(__name__)


def numeric_column(series: pd.Series) -> np.ndarray | None:
    """The column as floats (NaN where missing) if every present value is a number, else None.

    The utility yardstick's definition (generalized labels such as ``[20, 30)`` are categorical).
    """
    return numeric_values(series)


#: Model families: (diffprivlib model, scikit-learn counterpart).
DP_MODELS = {
    "logistic_regression": (
        "diffprivlib.models.LogisticRegression",
        "sklearn.linear_model.LogisticRegression",
    ),
    "gaussian_nb": ("diffprivlib.models.GaussianNB", "sklearn.naive_bayes.GaussianNB"),
    "random_forest": (
        "diffprivlib.models.RandomForestClassifier",
        "sklearn.ensemble.RandomForestClassifier",
    ),
}
#: Parameters a DP model and its counterpart share (only these pass to the counterpart).
_SHARED_PARAMS = {
    "logistic_regression": {"C", "tol", "fit_intercept", "max_iter"},
    "gaussian_nb": {"var_smoothing", "priors"},
    "random_forest": {"n_estimators", "max_depth"},
}


@dataclass(frozen=True)
class MLEncoding:
    """A data-independent encoding of features into [0, 1] (what the DP models are given).

    Numeric features: ``clip((v - lower) / (upper - lower), 0, 1)`` with the feature's bounds;
    a missing value becomes 0.5 (the middle of the bounds, chosen without the data).
    Categorical features: one-hot over the feature's categories (compared as text labels;
    missing is the label ``NULL``); a value outside them encodes as all zeros. Every row then
    lies in [0, 1]^d with L2 norm at most ``data_norm`` = sqrt(numeric + categorical features),
    so the DP models' ``bounds=(0, 1)`` and ``data_norm`` need nothing from the data.
    """

    numeric: dict[str, tuple[float, float]]
    categorical: dict[str, tuple[str, ...]]

    @property
    def n_columns(self) -> int:
        return len(self.numeric) + sum(len(c) for c in self.categorical.values())

    @property
    def data_norm(self) -> float:
        return math.sqrt(len(self.numeric) + len(self.categorical))

    def transform(self, frame: pd.DataFrame) -> np.ndarray:
        parts = []
        for col, (lo, hi) in self.numeric.items():
            values = _numeric_or_nan(frame[col])
            scaled = np.clip((values - lo) / (hi - lo), 0.0, 1.0)
            parts.append(np.where(np.isnan(values), 0.5, scaled)[:, None])
        for col, cats in self.categorical.items():
            labels = to_labels(frame[col]).astype(str)
            parts.append((labels[:, None] == np.asarray(cats, dtype=object)[None, :]).astype(float))
        return np.hstack(parts) if parts else np.zeros((len(frame), 0))


def _numeric_or_nan(series: pd.Series) -> np.ndarray:
    values = numeric_column(series)
    if values is None:
        raise ConfigError(
            f"Column {series.name!r} is not numeric: give it 'categories' instead of 'bounds'."
        )
    return values


@dataclass(frozen=True, eq=False)
class DPMLResult:
    """Accuracy against epsilon of DP models, and the non-private and k-anonymized baselines.

    ``scores`` is long form: model, setting (``dp``, ``non_private``, ``k_anonymized``),
    epsilon (NaN for baselines), seed, accuracy.
    """

    target: str
    features: tuple[str, ...]
    classes: tuple[str, ...]
    encoding: MLEncoding
    epsilons: tuple[float, ...]
    repeats: int
    test_size: float
    random_state: int
    scores: pd.DataFrame
    majority_rate: float
    warnings: tuple[str, ...] = ()
    from_data: tuple[
        str, ...
    ] = ()  # e.g. ("classes of income", "categories of sex"): not covered by DP
    seconds: float = 0.0

    def curve(self) -> pd.DataFrame:
        """Per model and epsilon: mean, std (ddof 0), min and max accuracy over the seeds."""
        dp = self.scores[self.scores["setting"] == "dp"]
        out = dp.groupby(["model", "epsilon"], sort=False)["accuracy"].agg(
            ["mean", "std", "min", "max", "count"]
        )
        out["std"] = dp.groupby(["model", "epsilon"], sort=False)["accuracy"].std(ddof=0)
        return out.reset_index()

    def baselines(self) -> pd.DataFrame:
        """Per model and setting (non_private, k_anonymized): mean and std accuracy over the seeds."""
        base = self.scores[self.scores["setting"] != "dp"]
        g = base.groupby(["model", "setting"], sort=False)["accuracy"]
        return pd.concat(
            [g.mean().rename("mean"), g.std(ddof=0).rename("std"), g.count().rename("count")],
            axis=1,
        ).reset_index()

    def to_frame(self) -> pd.DataFrame:
        """Wide table: one row per model; ``mean ± std`` per epsilon, then the baselines."""
        curve, base = self.curve(), self.baselines()
        rows = []
        for model in dict.fromkeys(self.scores["model"]):
            row: dict[str, Any] = {"model": model}
            for _, r in curve[curve["model"] == model].iterrows():
                row[f"ε={r['epsilon']:g}"] = f"{r['mean']:.3f} ± {r['std']:.3f}"
            for _, r in base[base["model"] == model].iterrows():
                row[r["setting"]] = f"{r['mean']:.3f} ± {r['std']:.3f}"
            rows.append(row)
        return pd.DataFrame(rows)

    def to_dict(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "features": list(self.features),
            "classes": list(self.classes),
            "numeric_bounds": {k: list(v) for k, v in self.encoding.numeric.items()},
            "categories": {k: list(v) for k, v in self.encoding.categorical.items()},
            "epsilons": list(self.epsilons),
            "repeats": self.repeats,
            "test_size": self.test_size,
            "random_state": self.random_state,
            "majority_rate": self.majority_rate,
            "curve": self.curve().to_dict(orient="records"),
            "baselines": self.baselines().to_dict(orient="records"),
            "warnings": list(self.warnings),
            "from_data": list(self.from_data),
            "seconds": self.seconds,
        }


def _dp_model(
    name: str,
    epsilon: float,
    classes: np.ndarray,
    data_norm: float,
    params: Mapping[str, Any],
    seed: int,
) -> Any:
    dpl = diffprivlib_parts()
    acc = scratch_accountant()
    if name == "logistic_regression":
        model = diffprivlib_parts().models.LogisticRegression(
            epsilon=epsilon, data_norm=data_norm, random_state=seed, accountant=acc
        )
    elif name == "gaussian_nb":
        model = dpl.models.GaussianNB(
            epsilon=epsilon, bounds=(0.0, 1.0), random_state=seed, accountant=acc
        )
    else:
        model = dpl.models.RandomForestClassifier(
            epsilon=epsilon, bounds=(0.0, 1.0), classes=classes, random_state=seed, accountant=acc
        )
    try:
        model.set_params(**params)
    except ValueError as exc:
        raise ConfigError(f"'model_params.{name}' has an invalid parameter: {exc}") from None
    return model


def _sk_model(name: str, params: Mapping[str, Any], seed: int) -> Any:
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB

    shared = {k: v for k, v in params.items() if k in _SHARED_PARAMS[name]}
    if name == "logistic_regression":
        model = LogisticRegression(max_iter=2000, random_state=seed)
    elif name == "gaussian_nb":
        model = GaussianNB()
    else:
        # Same size as diffprivlib's default forest (10 trees of depth 5): like for like.
        model = RandomForestClassifier(n_estimators=10, max_depth=5, random_state=seed)
    model.set_params(**shared)
    return model


def _ml_encoding(
    frame: pd.DataFrame,
    features: Sequence[str],
    bounds: Mapping[str, Any],
    categories: Mapping[str, Any],
    notes: list[str],
    derived: list[str],
) -> MLEncoding:
    numeric: dict[str, tuple[float, float]] = {}
    categorical: dict[str, tuple[str, ...]] = {}
    for col in features:
        if col in bounds and bounds[col] is not None and bounds[col] != FROM_DATA:
            numeric[col] = parse_bounds(f"bounds.{col}", list(bounds[col]))  # type: ignore[assignment]
            _numeric_or_nan(frame[col])
            continue
        if col in categories and categories[col] is not None and categories[col] != FROM_DATA:
            categorical[col] = parse_categories(f"categories.{col}", list(categories[col]))  # type: ignore[assignment]
            continue
        values = None if col in categories else numeric_column(frame[col])
        if values is not None:
            present = values[~np.isnan(values)]
            lo, hi = float(present.min()), float(present.max())
            if lo == hi:
                hi = lo + 1.0
            numeric[col] = (lo, hi)
            derived.append(f"bounds of {col}")
            notes.append(
                leak_message(
                    f"model feature {col!r}",
                    f"bounds ({lo:g} to {hi:g})",
                    "the smallest and largest value",
                )
            )
        else:
            categorical[col] = tuple(sorted(pd.unique(to_labels(frame[col]).astype(str)).tolist()))
            derived.append(f"categories of {col}")
            notes.append(
                leak_message(
                    f"model feature {col!r}", "categories", "which values occur in the data"
                )
            )
    return MLEncoding(numeric, categorical)


def _released_encoding(
    encoding: MLEncoding, released: pd.DataFrame, features: Sequence[str]
) -> MLEncoding:
    """The encoding of the released table: a feature still numeric keeps its bounds; any other
    (generalized labels such as ``[20, 30)`` or ``*``) is one-hot over the release's own labels,
    which are public."""
    numeric: dict[str, tuple[float, float]] = {}
    categorical: dict[str, tuple[str, ...]] = {}
    for col in features:
        if col in encoding.numeric and numeric_column(released[col]) is not None:
            numeric[col] = encoding.numeric[col]
        else:
            categorical[col] = tuple(
                sorted(pd.unique(to_labels(released[col]).astype(str)).tolist())
            )
    return MLEncoding(numeric, categorical)


def dp_ml_curve(
    frame: pd.DataFrame,
    target: str,
    features: Sequence[str] | None = None,
    models: Sequence[str] = tuple(DP_MODELS),
    epsilons: Sequence[float] | None = None,
    repeats: int = 3,
    test_size: float = 0.3,
    bounds: Mapping[str, Sequence[float] | str] | None = None,
    categories: Mapping[str, Sequence[Any] | str] | None = None,
    classes: Sequence[Any] | None = None,
    released: pd.DataFrame | None = None,
    random_state: int = 0,
    progress: Callable[[float, str], None] | None = None,
    model_params: Mapping[str, Mapping[str, Any]] | None = None,
) -> DPMLResult:
    """Accuracy against epsilon of diffprivlib's classifiers, with non-private baselines.

    For each seed ``random_state + r`` (r < ``repeats``): a stratified train/test split of
    ``frame`` (``test_size`` held out), the :class:`MLEncoding` of the features, then

    * each DP model (``models`` ⊆ :data:`DP_MODELS`) at each epsilon of ``epsilons``
      (default :data:`DEFAULT_EPSILONS`, 0.01 to 10 log-spaced) with ``random_state`` = seed,
      trained on the training rows and scored (accuracy) on the test rows: setting ``dp``;
      ``LogisticRegression`` gets ``data_norm`` = the encoding's norm bound, ``GaussianNB``
      and ``RandomForestClassifier`` ``bounds=(0, 1)``, the forest ``classes``;
    * its scikit-learn counterpart on the same encoding and split (``non_private``;
      ``LogisticRegression(max_iter=2000)``, ``GaussianNB()``, a forest of diffprivlib's
      default size, 10 trees of depth 5);
    * with ``released`` (e.g. ``problem.apply(result)``, the k-anonymized table): the
      counterpart trained and tested on the released rows (``k_anonymized``), encoded the
      same way except that generalized features are one-hot over the release's own labels.
      When the release has as many rows as ``frame`` (no suppression: ``apply`` keeps the row
      order) the train and test records are the same as above; otherwise it is a stratified
      split of the released rows with the same seed and ``test_size``.

    Bounds per numeric feature and categories per categorical feature (``bounds``,
    ``categories``; a feature with bounds is numeric) should come from domain knowledge; a
    feature without them, or with ``"data"``, gets them from the data with a plain-words
    :class:`PrivacyWarning`. So do the target's ``classes`` when not given. The accuracies
    are computed on the true test rows: the curve is a planning tool, not a release, and
    spends no budget (each DP model gets its own unlimited accountant).
    ``model_params={"random_forest": {"n_estimators": 50}}`` sets parameters of a DP model
    (and of its counterpart where they share the parameter). ``progress(fraction, message)``
    is called after each fit.
    """
    from sklearn.model_selection import train_test_split

    t0 = time.perf_counter()
    if not isinstance(frame, pd.DataFrame):
        raise ConfigError(f"'frame' must be a pandas DataFrame, got {type(frame).__name__}.")
    if not isinstance(target, str) or target not in frame.columns:
        raise ConfigError(
            f"'target' must be a column of the table, got {target!r}. Columns are: {list(frame.columns)}."
        )
    if isinstance(models, str):
        models = [models]
    models = list(dict.fromkeys(models))
    if not models:
        raise ConfigError(f"'models' must name at least one of {list(DP_MODELS)}.")
    for m in models:
        if m not in DP_MODELS:
            raise ConfigError(f"'models' must be among {list(DP_MODELS)}, got {m!r}.")
    eps_list = tuple(
        check_float(
            "epsilons", float(e) if isinstance(e, np.floating) else e, 0.0, min_inclusive=False
        )
        for e in (DEFAULT_EPSILONS if epsilons is None else epsilons)
    )
    if not eps_list:
        raise ConfigError("'epsilons' is empty: give at least one epsilon, e.g. [0.1, 1, 10].")
    repeats = check_int("repeats", repeats, minimum=1)
    test_size = check_float("test_size", test_size, 0.0, 1.0, min_inclusive=False)
    if test_size >= 1.0:
        raise ConfigError("'test_size' must be below 1, e.g. 0.3.")
    random_state = check_int("random_state", random_state, minimum=0)
    params = dict(check_mapping("model_params", model_params or {}))
    for name, p in params.items():
        if name not in models:
            raise ConfigError(
                f"'model_params' names {name!r}, which is not among the models run {models}."
            )
        check_mapping(f"model_params.{name}", p)
    bounds = dict(check_mapping("bounds", bounds or {}))
    categories = dict(check_mapping("categories", categories or {}))
    if features is None:
        features = [str(c) for c in frame.columns if c != target]
    else:
        features = (
            [features]
            if isinstance(features, str)
            else list(dict.fromkeys(str(f) for f in features))
        )
    if not features:
        raise ConfigError("'features' is empty: name at least one column to learn from.")
    if target in features:
        raise ConfigError(f"'features' contains the target {target!r}: remove it.")
    missing = [f for f in features if f not in frame.columns]
    if missing:
        raise ConfigError(
            f"'features' names {missing}, which are not columns. Columns are: {list(frame.columns)}."
        )
    for key, spec in (("bounds", bounds), ("categories", categories)):
        unknown = [c for c in spec if c not in features]
        if unknown:
            raise ConfigError(
                f"'{key}' names {unknown}, which are not among the features {features}."
            )
    if released is not None:
        if not isinstance(released, pd.DataFrame):
            raise ConfigError("'released' must be a DataFrame (problem.apply(result)) or None.")
        if target not in released.columns:
            raise ConfigError(
                f"'released' has no column {target!r}: keep the target in the release (role sensitive or insensitive)."
            )

    notes: list[str] = []
    derived: list[str] = []
    keep = ~frame[target].isna().to_numpy()
    labels_all = to_labels(frame[target]).astype(str)
    if classes is None:
        class_list = np.array(sorted(pd.unique(labels_all[keep]).tolist()), dtype=object)
        derived.append(f"classes of {target}")
        notes.append(
            leak_message(f"target {target!r}", "classes", "which classes occur in the data")
        )
    else:
        class_list = np.array([as_label(c) for c in classes], dtype=object)
        keep &= np.isin(labels_all, class_list)
    # Models see the classes as codes 0..k-1: diffprivlib 0.6.6's forest compares its `classes`
    # with the already-encoded labels, so text classes would leave every leaf empty.
    code_of = {c: i for i, c in enumerate(class_list)}
    rows = frame[keep]
    y_all = np.fromiter(
        (code_of[v] for v in labels_all[keep]), dtype=np.int64, count=int(keep.sum())
    )
    if len(np.unique(y_all)) < 2:
        raise ConfigError(f"'target' {target!r} has fewer than two classes: choose another target.")
    encoding = _ml_encoding(rows, features, bounds, categories, notes, derived)
    for m in notes:
        warnings.warn(m, PrivacyWarning, stacklevel=2)
    X_all = encoding.transform(rows)
    aligned = False
    if released is not None:
        rel_feats = [f for f in features if f in released.columns]
        if not rel_feats:
            raise ConfigError("'released' shares no feature with the original table.")
        rel_labels = to_labels(released[target]).astype(str)
        rel_present = ~released[target].isna().to_numpy()
        original_values = set(labels_all[~frame[target].isna().to_numpy()])
        unseen = sorted(set(rel_labels[rel_present]) - original_values)
        if unseen:
            raise ConfigError(
                f"'released' has target values {unseen[:5]} that are not classes of the original: the target was "
                "generalized. Give it the role sensitive or insensitive so it is released unchanged."
            )
        # Without suppression the release keeps every row in order: same train/test records.
        aligned = len(released) == len(frame) and bool((rel_labels[keep] == labels_all[keep]).all())
        rel_keep = keep if aligned else rel_present & np.isin(rel_labels, class_list)
        rel_rows = released[rel_keep]
        y_rel = np.fromiter(
            (code_of[v] for v in rel_labels[rel_keep]), dtype=np.int64, count=int(rel_keep.sum())
        )
        rel_counts = (
            np.bincount(y_rel, minlength=len(class_list)) if len(y_rel) else np.zeros(1, dtype=int)
        )
        if len(y_rel) < 10 or (rel_counts > 0).sum() < 2 or rel_counts[rel_counts > 0].min() < 2:
            raise ConfigError(
                f"'released' has {len(y_rel)} rows with a class of {target!r} ({int((rel_counts > 0).sum())} classes): "
                "too few to train and test a model. Choose a transformation that suppresses fewer records, or "
                "leave 'released' out."
            )
        X_rel = _released_encoding(encoding, rel_rows, rel_feats).transform(rel_rows)

    fits_per_seed = len(models) * (len(eps_list) + 1 + (released is not None))
    total, step = repeats * fits_per_seed, 0
    records = []
    for r in range(repeats):
        seed = random_state + r
        try:
            idx_tr, idx_te = train_test_split(
                np.arange(len(y_all)), test_size=test_size, random_state=seed, stratify=y_all
            )
        except ValueError as exc:
            raise ConfigError(
                f"'target' {target!r} cannot be split for testing: {exc}. Merge rare classes or lower 'test_size'."
            ) from None
        X_tr, X_te, y_tr, y_te = X_all[idx_tr], X_all[idx_te], y_all[idx_tr], y_all[idx_te]
        for name in models:
            p = params.get(name, {})
            with warnings.catch_warnings():
                warnings.simplefilter(
                    "ignore"
                )  # convergence and diffprivlib notes; bounds are all given
                for eps in eps_list:
                    model = _dp_model(
                        name, eps, np.arange(len(class_list)), encoding.data_norm, p, seed
                    )
                    model.fit(X_tr, y_tr)
                    records.append(
                        (name, "dp", eps, seed, float(np.mean(model.predict(X_te) == y_te)))
                    )
                    step += 1
                    if progress is not None:
                        progress(step / total, f"{name}, ε = {eps:g}, seed {seed}")
                sk = _sk_model(name, p, seed).fit(X_tr, y_tr)
                records.append(
                    (name, "non_private", math.nan, seed, float(np.mean(sk.predict(X_te) == y_te)))
                )
                step += 1
                if released is not None:
                    if aligned:
                        r_tr, r_te = idx_tr, idx_te
                    else:
                        r_tr, r_te = train_test_split(
                            np.arange(len(y_rel)),
                            test_size=test_size,
                            random_state=seed,
                            stratify=y_rel,
                        )
                    sk = _sk_model(name, p, seed).fit(X_rel[r_tr], y_rel[r_tr])
                    records.append(
                        (
                            name,
                            "k_anonymized",
                            math.nan,
                            seed,
                            float(np.mean(sk.predict(X_rel[r_te]) == y_rel[r_te])),
                        )
                    )
                    step += 1
            if progress is not None:
                progress(step / total, f"{name}: baselines, seed {seed}")
    scores = pd.DataFrame(records, columns=["model", "setting", "epsilon", "seed", "accuracy"])
    counts = np.bincount(y_all)
    seconds = time.perf_counter() - t0
    log.info("dp_ml_curve: %d fits in %.1f s", len(records), seconds)
    return DPMLResult(
        target=target,
        features=tuple(features),
        classes=tuple(str(c) for c in class_list),
        encoding=encoding,
        epsilons=eps_list,
        repeats=repeats,
        test_size=test_size,
        random_state=random_state,
        scores=scores,
        majority_rate=float(counts.max() / counts.sum()),
        warnings=tuple(notes),
        from_data=tuple(derived),
        seconds=seconds,
    )
