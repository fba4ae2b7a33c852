"""Evaluate a transformation under privacy models, a suppression limit and a quality metric.

Suppression follows ARX: the records of every class that violates any
class-based model are outliers; the transformation satisfies the configuration
when there are at most ``floor(suppression_limit * N)`` of them (then they are
suppressed). Sample-based (risk) models are then enforced on the rest, within the
same budget.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from anon_core.data.frequency import ClassTable, FrequencyTable
from anon_core.errors import ConfigError
from anon_core.privacy.models import PrivacyModel
from anon_core.quality.metrics import MetricValue, QualityMetric
from anon_core.validation import check_float


@dataclass(frozen=True)
class ModelStatus:
    """Whether one model holds on the released classes, in words for the UI."""

    model: str
    satisfied: bool
    violating_classes: int
    violating_records: int


@dataclass(frozen=True, eq=False)
class TransformationResult:
    """Everything known about one transformation (figures exclude suppressed records)."""

    transformation: dict[str, int]
    satisfied: bool
    quality: MetricValue
    suppressed_records: int
    equivalence_classes: int
    min_class_size: int
    max_class_size: int
    average_class_size: float
    models: tuple[ModelStatus, ...]
    table: ClassTable = field(repr=False)
    suppressed: np.ndarray = field(repr=False)  # per class

    @property
    def levels(self) -> tuple[int, ...]:
        return self.table.levels

    def summary(self) -> dict:
        """The JSON object the CLI prints."""
        return {
            "transformation": dict(self.transformation),
            "satisfied": bool(self.satisfied),
            "quality": {
                "metric": self.quality.metric,
                "value": self.quality.value,
                "per_attribute": dict(self.quality.per_attribute),
            },
            "suppressed_records": int(self.suppressed_records),
            "equivalence_classes": int(self.equivalence_classes),
            "min_class_size": int(self.min_class_size),
            "max_class_size": int(self.max_class_size),
            "average_class_size": float(self.average_class_size),
        }


class Evaluator:
    """Binds models, suppression limit and metric to a frequency table."""

    def __init__(
        self,
        freq: FrequencyTable,
        models: Sequence[PrivacyModel],
        suppression_limit: float = 0.0,
        metric: QualityMetric | None = None,
    ) -> None:
        from anon_core.quality.metrics import Loss

        if not freq.qis:
            raise ConfigError("No quasi-identifiers: mark at least one column 'quasi-identifier'.")
        self.freq = freq
        self.models = list(models)
        for m in self.models:
            m.validate(freq)
        self.suppression_limit = check_float("suppression_limit", suppression_limit, 0.0, 1.0)
        # ARX: absolute limit = floor(limit * N); the product is nudged so that
        # e.g. 0.07 * 100 = 7.000000000000001 does not lose a record.
        self.max_outliers = int(math.floor(self.suppression_limit * freq.n_records + 1e-9))
        self.metric = metric or Loss()
        self._states = [m.prepare(freq) for m in self.models]
        # Hook: sample-based models may stop enforcing past the budget (ARX's early abort).
        for m in self.models:
            m.set_suppression_budget(self.max_outliers)
        self._prepared_metric: tuple[Any] | None = None
        self._sample_based = any(m.sample_based for m in self.models)

    @property
    def _metric_state(self) -> Any:
        """The metric's prepared state, computed when first needed (a check alone needs none)."""
        if self._prepared_metric is None:
            self._prepared_metric = (self.metric.prepare(self.freq),)
        return self._prepared_metric[0]

    @property
    def monotonic(self) -> bool:
        """Are all models monotonic (under generalization, and suppression if allowed)?"""
        need_supp = self.max_outliers > 0
        return all(
            m.monotonic_generalization and (m.monotonic_suppression or not need_supp)
            for m in self.models
        )

    def _suppress(
        self, table: ClassTable
    ) -> tuple[np.ndarray, list[np.ndarray | None], dict[int, bool], bool]:
        """Classes to suppress, per-model class verdicts, sample-model verdicts, and overall verdict."""
        suppressed, per_model_ok, sample_ok, satisfied, _ = self._verdict(table)
        return suppressed, per_model_ok, sample_ok, satisfied

    def _verdict(
        self, table: ClassTable
    ) -> tuple[np.ndarray, list[np.ndarray | None], dict[int, bool], bool, int]:
        """:meth:`_suppress` and the number of suppressed records."""
        ok: np.ndarray | None = None
        per_model_ok: list[np.ndarray | None] = []
        for model, state in zip(self.models, self._states, strict=True):
            if model.sample_based:
                per_model_ok.append(None)
                continue
            good = model.class_ok(table, state)
            per_model_ok.append(good)
            ok = good if ok is None else ok & good
        suppressed = np.zeros(table.n_classes, dtype=bool) if ok is None else ~ok
        sample_ok: dict[int, bool] = {}
        if self._sample_based:
            class_loss = self.metric.class_loss(table, self._metric_state)
            for i, model in enumerate(self.models):
                if model.sample_based:
                    suppressed = model.enforce(table, suppressed, class_loss)  # type: ignore[attr-defined]
                    sample_ok[i] = model.released_ok(table.sizes[~suppressed])  # type: ignore[attr-defined]
        outliers = int(table.sizes[suppressed].sum()) if suppressed.any() else 0
        satisfied = outliers <= self.max_outliers and all(sample_ok.values())
        return suppressed, per_model_ok, sample_ok, satisfied, outliers

    def satisfies(self, levels: Sequence[int]) -> bool:
        """Does a (valid) transformation satisfy the configuration? The search's cheap check."""
        return self._suppress(self.freq.classes(levels, validate=False))[3]

    def assess(
        self, levels: Sequence[int], with_quality: bool | str = True
    ) -> tuple[bool, float, int, int, int]:
        """The search's light evaluation of a valid transformation.

        Returns (satisfied, quality, suppressed records, released classes,
        smallest released class), without building a full result. Quality is
        computed when ``with_quality`` is True, or "satisfied" and the
        transformation satisfies the configuration; otherwise it is NaN.
        """
        table = self.freq.classes(levels, validate=False)
        suppressed, _, _, satisfied, outliers = self._verdict(table)
        kept = table.sizes[~suppressed] if outliers else table.sizes
        scored = with_quality is True or (with_quality == "satisfied" and satisfied)
        quality = (
            self.metric.compute(table, suppressed, self._metric_state).value if scored else math.nan
        )
        return (satisfied, quality, outliers, len(kept), int(kept.min()) if len(kept) else 0)

    def evaluate(
        self, levels: Mapping[str, int] | Sequence[int], validate: bool = True
    ) -> TransformationResult:
        return self.result_of(self.freq.classes(levels, validate=validate))

    def result_of(self, table: ClassTable) -> TransformationResult:
        """The full result of a transformation from its class table."""
        suppressed, per_model_ok, sample_ok, satisfied = self._suppress(table)
        statuses = []
        for i, (model, good) in enumerate(zip(self.models, per_model_ok, strict=True)):
            if good is None:
                statuses.append(ModelStatus(repr(model), bool(sample_ok[i]), 0, 0))
            else:
                bad = ~good
                statuses.append(
                    ModelStatus(
                        repr(model),
                        bool(satisfied or not bad.any()),
                        int(bad.sum()),
                        int(table.sizes[bad].sum()),
                    )
                )
        kept = table.sizes[~suppressed]
        quality = self.metric.compute(table, suppressed, self._metric_state)
        return TransformationResult(
            transformation={q: int(lv) for q, lv in zip(self.freq.qis, table.levels, strict=True)},
            satisfied=bool(satisfied),
            quality=quality,
            suppressed_records=int(table.sizes[suppressed].sum()),
            equivalence_classes=len(kept),
            min_class_size=int(kept.min()) if len(kept) else 0,
            max_class_size=int(kept.max()) if len(kept) else 0,
            average_class_size=float(kept.mean()) if len(kept) else 0.0,
            models=tuple(statuses),
            table=table,
            suppressed=suppressed,
        )
