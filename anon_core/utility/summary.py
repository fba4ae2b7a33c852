"""Utility of a released transformation: quality metrics, and the public face of the utility measures.

:func:`quality_summary` evaluates every registered quality metric
(:data:`anon_core.quality.metrics.METRICS`, both variants where a metric has a monotonic and a
non-monotonic one) on the same classes and suppression, as ARX reports them (ARX's
``org.deidentifier.arx.metric.v2``; the metrics' own docstrings give their sources).

The other measures live in their own modules and are re-exported here, so callers keep importing
them from ``anon_core.utility.summary``:

* :mod:`anon_core.utility.distributions` - :func:`compare_distributions`, :func:`hellinger`;
* :mod:`anon_core.utility.ml_utility` - :func:`ml_utility` (in-table cross-validated scores);
* :mod:`anon_core.utility.ml_holdout` - :func:`holdout_utility` (train on the release, test on
  an original holdout);
* :mod:`anon_core.utility.fidelity` - :func:`marginal_distance`, :func:`association_distance`;
* :mod:`anon_core.utility.features` - :func:`numeric_values` and the classifiers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from anon_core.errors import ConfigError
from anon_core.quality.metrics import make_metric, metric_specs
from anon_core.search.evaluate import TransformationResult
from anon_core.transform.problem import Problem
from anon_core.utility.distributions import (
    AttributeDistance,
    DistributionComparison,
    check_problem_result,
    compare_distributions,
    hellinger,
)
from anon_core.utility.features import ML_MODELS, numeric_values
from anon_core.utility.fidelity import (
    AssociationDistance,
    MarginalDistance,
    association_distance,
    marginal_distance,
)
from anon_core.utility.ml_holdout import HoldoutUtilityResult, holdout_utility
from anon_core.utility.ml_utility import (
    MLUtilityResult,
    ModelComparison,
    ModelScores,
    ScoreStats,
    ml_utility,
)

__all__ = [
    "ML_MODELS",
    "AssociationDistance",
    "AttributeDistance",
    "HoldoutUtilityResult",
    "MarginalDistance",
    "DistributionComparison",
    "MetricSummary",
    "MLUtilityResult",
    "ModelComparison",
    "ModelScores",
    "QualitySummary",
    "ScoreStats",
    "association_distance",
    "compare_distributions",
    "hellinger",
    "holdout_utility",
    "marginal_distance",
    "ml_utility",
    "numeric_values",
    "quality_summary",
]

#: The old private name, kept until anon_core.dp switches to :func:`numeric_values`.
_numeric_values = numeric_values


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
    check_problem_result(problem, result)
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
