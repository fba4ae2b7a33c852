"""Utility of a released transformation: quality metrics, distributions and ML utility.

Three complementary views of what a release keeps of the original data:

1. :func:`quality_summary` - every registered quality metric
   (:data:`anon_core.quality.metrics.METRICS`, both variants where a metric has a
   monotonic and a non-monotonic one) on the same classes and suppression, as
   ARX reports them (ARX's ``org.deidentifier.arx.metric.v2``; the metrics'
   own docstrings give their sources).
2. :func:`compare_distributions` - per attribute, the Hellinger distance
   between the original distribution and the released one projected back onto
   the original values (the maximum-entropy reconstruction of Kifer and
   Gehrke, "Injecting utility into anonymized datasets", SIGMOD 2006), with
   the two distributions as a tidy frame for plotting.
3. :func:`ml_utility` - a classifier's cross-validated accuracy, macro F1 and
   ROC AUC on the original and on the released table, and the drop (the
   "workload-aware" utility of LeFevre, DeWitt and Ramakrishnan,
   "Workload-aware anonymization", KDD 2006; the train-on-release protocol of
   e.g. Brickell and Shmatikov, "The cost of privacy", KDD 2008).

No figure here re-implements a metric: quality comes from the metric classes,
classes and suppression from the :class:`~anon_core.search.evaluate.TransformationResult`.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from anon_core.data.dataset import Role
from anon_core.data.io import MISSING, to_labels
from anon_core.errors import ConfigError
from anon_core.quality.metrics import make_metric, metric_specs
from anon_core.search.evaluate import TransformationResult
from anon_core.services.problem import Problem
from anon_core.validation import check_choice, check_int, check_mapping

log = logging.getLogger(__name__)

__all__ = [
    "ML_MODELS",
    "AttributeDistance",
    "DistributionComparison",
    "MetricSummary",
    "MLUtilityResult",
    "ModelComparison",
    "ModelScores",
    "QualitySummary",
    "ScoreStats",
    "compare_distributions",
    "hellinger",
    "ml_utility",
    "quality_summary",
]


def _check_problem_result(problem: Problem, result: TransformationResult) -> None:
    if not isinstance(problem, Problem):
        raise ConfigError(f"'problem' must be an anon_core.Problem, got {type(problem).__name__}.")
    if not isinstance(result, TransformationResult):
        raise ConfigError(
            f"'result' must be a TransformationResult (from problem.evaluate(...) or "
            f"problem.search().optimum), got {type(result).__name__}."
        )
    if result.table.freq is not problem.freq:
        raise ConfigError(
            "'result' was evaluated on another Problem (another dataset or role assignment). "
            "Evaluate the transformation with this problem: problem.evaluate(result.transformation)."
        )


# ============================================================================ quality


@dataclass(frozen=True)
class MetricSummary:
    """One quality metric (one variant) on the released transformation.

    ``monotonic`` is the variant evaluated (for metrics with a single variant,
    the one they have); ``optimized`` marks the metric the problem's search
    minimised.
    """

    metric: str
    name: str
    monotonic: bool
    value: float
    per_attribute: dict[str, float]
    goal: str
    lower: float
    upper: float | None
    description: str
    optimized: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "metric": self.metric,
            "name": self.name,
            "monotonic": bool(self.monotonic),
            "value": float(self.value),
            "per_attribute": {k: float(v) for k, v in self.per_attribute.items()},
            "goal": self.goal,
            "lower": float(self.lower),
            "upper": None if self.upper is None else float(self.upper),
            "description": self.description,
            "optimized": bool(self.optimized),
        }


@dataclass(frozen=True)
class QualitySummary:
    """Every registered metric on one transformation, and its suppression rate."""

    transformation: dict[str, int]
    n_records: int
    suppressed_records: int
    suppression_rate: float
    metrics: tuple[MetricSummary, ...]

    def get(self, metric: str, monotonic: bool | None = None) -> MetricSummary:
        """The entry of ``metric`` (a key of METRICS); ``monotonic`` picks the variant."""
        found = [
            m
            for m in self.metrics
            if m.metric == metric and (monotonic is None or m.monotonic == monotonic)
        ]
        if not found:
            raise ConfigError(
                f"'metric' {metric!r} (monotonic={monotonic}) is not in the summary; "
                f"choose one of {sorted({m.metric for m in self.metrics})}."
            )
        if len(found) > 1:
            raise ConfigError(
                f"'monotonic' must be True or False for {metric!r}: the summary holds both variants."
            )
        return found[0]

    def to_frame(self) -> pd.DataFrame:
        """One row per metric variant: metric, name, monotonic, value, goal, lower, upper, optimized."""
        return pd.DataFrame(
            [
                {
                    "metric": m.metric,
                    "name": m.name,
                    "monotonic": m.monotonic,
                    "value": m.value,
                    "goal": m.goal,
                    "lower": m.lower,
                    "upper": m.upper,
                    "optimized": m.optimized,
                }
                for m in self.metrics
            ]
        )

    def components_frame(self) -> pd.DataFrame:
        """Per-attribute components, long form: metric, name, attribute, value."""
        rows = [
            {"metric": m.metric, "name": m.name, "attribute": a, "value": v}
            for m in self.metrics
            for a, v in m.per_attribute.items()
        ]
        return pd.DataFrame(rows, columns=["metric", "name", "attribute", "value"])

    def to_dict(self) -> dict[str, Any]:
        return {
            "transformation": dict(self.transformation),
            "n_records": int(self.n_records),
            "suppressed_records": int(self.suppressed_records),
            "suppression_rate": float(self.suppression_rate),
            "metrics": [m.to_dict() for m in self.metrics],
        }


def quality_summary(problem: Problem, result: TransformationResult) -> QualitySummary:
    """Evaluate every registered quality metric on ``result``'s classes and suppression.

    Metrics with a monotonic variant (``has_monotonic_variant``) are evaluated in
    both variants (non-monotonic first). Each value is
    ``metric.compute(result.table, result.suppressed, metric.prepare(problem.freq))``,
    so it equals what an :class:`~anon_core.search.evaluate.Evaluator` with that metric
    reports - and ARX's figure where the metric reproduces ARX's (see
    ``anon_core.quality.metrics``; ARX 3.9, ``org.deidentifier.arx.metric.v2``).
    The suppression rate is suppressed records / N.
    """
    _check_problem_result(problem, result)
    used = problem.evaluator.metric
    entries = []
    for spec in metric_specs():
        metric = make_metric(spec)
        value = metric.compute(result.table, result.suppressed, metric.prepare(problem.freq))
        entries.append(
            MetricSummary(
                metric=metric.key,
                name=repr(metric),
                monotonic=bool(metric.monotonic),
                value=float(value.value),
                per_attribute={a: float(v) for a, v in value.per_attribute.items()},
                goal=metric.goal,
                lower=float(metric.lower),
                upper=None if metric.upper is None else float(metric.upper),
                description=metric.description,
                optimized=used.key == metric.key and bool(used.monotonic) == bool(metric.monotonic),
            )
        )
    n = problem.freq.n_records
    return QualitySummary(
        transformation=dict(result.transformation),
        n_records=int(n),
        suppressed_records=int(result.suppressed_records),
        suppression_rate=result.suppressed_records / n if n else 0.0,
        metrics=tuple(entries),
    )


# ====================================================================== distributions


def hellinger(p: Any, q: Any) -> float:
    """Hellinger distance H(P, Q) = sqrt(1 - sum_i sqrt(p_i q_i)), in [0, 1].

    ``p`` and ``q`` are non-negative weights over the same values (counts or
    shares); each is normalised to sum 1. H = 0 for identical distributions and
    1 for disjoint supports. Sources: E. Hellinger, J. reine angew. Math. 136
    (1909); the sum is Bhattacharyya's coefficient (Bull. Calcutta Math. Soc. 35,
    1943). Equivalently H^2 = (1/2) * sum_i (sqrt p_i - sqrt q_i)^2: the convention
    with the 1/2 factor, which bounds H by 1.
    """
    p = np.asarray(p, dtype=float)
    q = np.asarray(q, dtype=float)
    if p.shape != q.shape or p.ndim != 1:
        raise ConfigError(
            f"'p' and 'q' must be 1-D arrays of the same length, got shapes {p.shape} and {q.shape}."
        )
    for name, x in (("p", p), ("q", q)):
        if not np.isfinite(x).all() or (x < 0).any():
            raise ConfigError(
                f"'{name}' must hold finite non-negative weights, got {x.tolist()[:10]}."
            )
        if x.sum() <= 0:
            raise ConfigError(
                f"'{name}' must have a positive total to be a distribution, got all zeros."
            )
    # The squared-difference form: 1 - BC cancels catastrophically (identical
    # distributions would give ~1e-8 instead of 0).
    diff = np.sqrt(p / p.sum()) - np.sqrt(q / q.sum())
    return min(1.0, math.sqrt(0.5 * float(np.dot(diff, diff))))


@dataclass(frozen=True)
class AttributeDistance:
    """Hellinger distance of one attribute (``level`` is None for non-QIs)."""

    attribute: str
    role: str
    level: int | None
    n_values: int
    hellinger: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "attribute": self.attribute,
            "role": self.role,
            "level": self.level,
            "n_values": int(self.n_values),
            "hellinger": float(self.hellinger),
        }


@dataclass(frozen=True, eq=False)
class DistributionComparison:
    """Original vs released distributions per attribute.

    ``distributions`` is tidy: one row per (attribute, original value) with
    columns attribute, value (original label), released_value (the label it is
    released as), original_share, released_share (the projection described in
    :func:`compare_distributions`). Values are in the dataset's dictionary order
    (first appearance in the table).
    """

    attributes: tuple[AttributeDistance, ...]
    distributions: pd.DataFrame = field(repr=False)
    suppressed_records: str
    released_records: int
    suppressed_count: int

    def hellinger(self, attribute: str) -> float:
        for a in self.attributes:
            if a.attribute == attribute:
                return a.hellinger
        raise ConfigError(
            f"'attribute' {attribute!r} was not compared; compared: {[a.attribute for a in self.attributes]}."
        )

    def to_frame(self) -> pd.DataFrame:
        """One row per attribute: attribute, role, level, n_values, hellinger."""
        frame = pd.DataFrame(
            [a.to_dict() for a in self.attributes],
            columns=["attribute", "role", "level", "n_values", "hellinger"],
        )
        return frame.astype({"level": "Int64"})

    def to_dict(self, include_distributions: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "suppressed_records": self.suppressed_records,
            "released_records": int(self.released_records),
            "suppressed_count": int(self.suppressed_count),
            "attributes": [a.to_dict() for a in self.attributes],
        }
        if include_distributions:
            out["distributions"] = self.distributions.to_dict(orient="records")
        return out


def compare_distributions(
    problem: Problem,
    result: TransformationResult,
    attributes: Sequence[str] | None = None,
    suppressed_records: str = "remove",
) -> DistributionComparison:
    """Per attribute, the Hellinger distance between original and released distributions.

    *Original distribution*: shares of the original values over all N records.

    *Released distribution*, projected back onto the original values: the
    records released with generalized value g (at the QI's level) are spread
    **uniformly** over the original values of the data that g covers. Uniform,
    not in proportion to the values' original frequencies, because:

    * it is what a user of the release can reconstruct: the release does not
      publish the frequencies inside g, and the uniform spread is the
      maximum-entropy distribution consistent with the released counts (Kifer
      and Gehrke, SIGMOD 2006; the uniformity assumption of LeFevre et al.,
      "Workload-aware anonymization", KDD 2006);
    * spreading in proportion to the original frequencies would give back the
      original distribution exactly whenever no record is suppressed, so the
      distance would not see generalization at all.

    "The original values g covers" are those present in the data (hierarchy rows
    without records are left out), so both distributions live on the same
    values and sum to 1. Consequences: the identity transformation without
    suppression gives 0; generalizing a QI to ``*`` gives the distance between
    its original distribution and the uniform one over its m distinct values,
    sqrt(1 - sum_a sqrt(p_a / m)) (0 only if the original is uniform).

    *Suppressed records*, ``suppressed_records='remove'`` (default, as
    ``apply_transformation`` releases them): excluded; the released
    distribution is normalised over the released records. Sensitive and
    insensitive attributes are released unchanged, so suppression is the only
    thing that moves them. If every record is suppressed the released
    distribution is undefined and the distance is NaN. With ``'mask'`` (records
    kept with every QI ``*``, as ARX outputs them) a suppressed record counts as
    fully generalized: its QI mass is spread uniformly over all m values and its
    other attributes are kept.

    ``attributes`` defaults to every QI then every sensitive attribute; insensitive
    columns may be named too (they are encoded here). Computed on the frequency
    table's tuples (QIs, sensitive attributes) with ``np.bincount``, so the cost
    is one pass over the distinct tuples per attribute.
    """
    _check_problem_result(problem, result)
    mode = check_choice("suppressed_records", suppressed_records, ("remove", "mask"))
    ds, freq = problem.dataset, problem.freq
    if attributes is None:
        names = list(ds.qis) + list(ds.sensitive)
    else:
        if isinstance(attributes, str):
            attributes = [attributes]
        names = list(dict.fromkeys(str(a) for a in attributes))
        for a in names:
            if a not in ds.roles:
                raise ConfigError(
                    f"'attributes' names {a!r}, which is not a column. Columns are: {list(ds.roles)}."
                )
            if ds.roles[a] == Role.IDENTIFIER:
                raise ConfigError(
                    f"'attributes' names {a!r}, an identifier: identifiers are not released. Leave it out."
                )
    kept_tuple = ~result.suppressed[result.table.tuple_class]
    if mode == "remove" and not kept_tuple.any():
        log.warning(
            "every record is suppressed: the released distributions are undefined (distance NaN)"
        )
    kept_counts = np.where(kept_tuple, freq.counts, 0).astype(float)
    n_supp = int(result.suppressed_records)
    n_kept = freq.n_records - n_supp
    record_kept: np.ndarray | None = None
    rows: list[AttributeDistance] = []
    frames: list[pd.DataFrame] = []
    for name in names:
        role = ds.roles[name]
        level: int | None = None
        if role == Role.QUASI_IDENTIFIER:
            j = freq.qis.index(name)
            level = int(result.levels[j])
            enc = ds.hierarchy(name)
            labels = ds.columns[name].labels
            m = len(labels)
            original = freq.value_counts[name].astype(float)
            gmap = enc.maps[level]
            n_g = enc.cardinality(level)
            released_g = np.bincount(freq.generalized(j, level), weights=kept_counts, minlength=n_g)
            covered = np.bincount(gmap, minlength=n_g).astype(float)
            released = released_g[gmap] / covered[gmap]
            if mode == "mask" and n_supp:
                released = released + n_supp / m
            released_labels = np.asarray(enc.labels[level], dtype=object)[gmap]
        elif role == Role.SENSITIVE:
            sc = freq.sensitive[name]
            labels = ds.columns[name].labels
            original = sc.global_counts.astype(float)
            weights = sc.count * (kept_tuple[sc.tuple_idx] if mode == "remove" else 1)
            released = np.bincount(sc.value, weights=weights, minlength=sc.cardinality).astype(
                float
            )
            released_labels = labels
        else:  # insensitive: not encoded by the dataset, encode it here
            codes, uniq = pd.factorize(to_labels(ds.frame[name]), sort=False)
            labels = np.asarray(uniq, dtype=object)
            original = np.bincount(codes, minlength=len(labels)).astype(float)
            if mode == "mask":
                released = original.copy()
            else:
                if record_kept is None:
                    record_kept = kept_tuple[freq.row_tuple]
                released = np.bincount(codes[record_kept], minlength=len(labels)).astype(float)
            released_labels = labels
        total = released.sum()
        if total > 0:
            distance = hellinger(original, released)
            released_share = released / total
        else:
            distance = math.nan
            released_share = np.zeros_like(released)
        rows.append(AttributeDistance(name, role.value, level, len(labels), distance))
        frames.append(
            pd.DataFrame(
                {
                    "attribute": name,
                    "value": np.asarray(labels, dtype=object).astype(str),
                    "released_value": np.asarray(released_labels, dtype=object).astype(str),
                    "original_share": original / original.sum(),
                    "released_share": released_share,
                }
            )
        )
    columns = ["attribute", "value", "released_value", "original_share", "released_share"]
    distributions = (
        pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)
    )
    return DistributionComparison(
        attributes=tuple(rows),
        distributions=distributions,
        suppressed_records=mode,
        released_records=int(n_kept if mode == "remove" else freq.n_records),
        suppressed_count=n_supp,
    )


# ========================================================================= ML utility

#: Classifier names accepted by :func:`ml_utility` and their scikit-learn class.
ML_MODELS = {
    "logistic_regression": "sklearn.linear_model.LogisticRegression",
    "random_forest": "sklearn.ensemble.RandomForestClassifier",
}
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


def _numeric_values(series: pd.Series) -> np.ndarray | None:
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


def _design(
    frame: pd.DataFrame, features: Sequence[str]
) -> tuple[pd.DataFrame, list[str], list[str]]:
    """Feature frame with numeric columns as floats and the rest as string categories."""
    numeric, categorical, data = [], [], {}
    for col in features:
        values = _numeric_values(frame[col])
        if values is None:
            data[col] = to_labels(frame[col]).astype(str)
            categorical.append(col)
        else:
            data[col] = values
            numeric.append(col)
    return pd.DataFrame(data, columns=list(features)), numeric, categorical


def _make_estimator(name: str, params: Mapping[str, Any], random_state: int) -> Any:
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
_MAX_DENSE_CELLS = 10_000_000


def _pipeline(estimator: Any, numeric: list[str], categorical: list[str], dense: bool) -> Any:
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


def _target_codes(frame: pd.DataFrame, target: str, which: str) -> tuple[np.ndarray, np.ndarray]:
    """Labels of the target and a mask of the rows where it is present."""
    if target not in frame.columns:
        raise ConfigError(
            f"'target' {target!r} is not a column of the {which} table. Columns are: {list(frame.columns)}. "
            "Keep the target in the release (role sensitive or insensitive) and give its exact name."
        )
    present = ~frame[target].isna().to_numpy()
    return to_labels(frame[target]).astype(str), present


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

    y_orig, present_orig = _target_codes(original, target, "original")
    y_rel, present_rel = _target_codes(released, target, "released")
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
        X, numeric, categorical = _design(rows, features)
        codes = np.searchsorted(classes, y_t)
        width = len(numeric) + sum(int(X[c].nunique()) for c in categorical)
        tables[which] = (X, codes, numeric, categorical, len(X) * width <= _MAX_DENSE_CELLS)
    roc_kind = "roc_auc" if len(classes) == 2 else "roc_auc_ovr_weighted"

    folds = StratifiedKFold(n_splits=cv, shuffle=True, random_state=random_state)
    total_steps = len(models) * 2 * cv
    step = 0
    comparisons = []
    for name in models:
        estimator = _make_estimator(name, params.get(name, {}), random_state)
        scores: dict[str, ModelScores] = {}
        for which, (X, y, numeric, categorical, dense) in tables.items():
            pipe = _pipeline(estimator, numeric, categorical, dense)
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
