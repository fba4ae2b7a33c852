"""Quality (information-loss) metrics as a registry, defined as ARX defines them.

Every metric declares its goal and range (SDMetrics style), so the search and the
UI rank any metric without special cases. All metrics here are minimised.
Definitions: ARX's metric package (``org.deidentifier.arx.metric.v2``) and
``shared/data/arx_reference.json`` (metric_notes).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from anon_core.data.frequency import ClassTable, FrequencyTable
from anon_core.errors import ConfigError
from anon_core.params import Param
from anon_core.registry import Registry
from anon_core.validation import check_choice, check_keys


@dataclass(frozen=True)
class MetricValue:
    """A metric's overall value and its per-attribute components (when it has them)."""

    metric: str
    value: float
    per_attribute: dict[str, float] = field(default_factory=dict)


_LN2 = math.log(2.0)


#: Elements below which BLAS runs a dot product or a vector-matrix product on the calling thread
#: (OpenBLAS: 10,000 for ddot, 9,216 for dgemv). Larger products are cut into chunks below it:
#: a multithreaded product's helper threads spin after it and burn CPU, and its sum depends on
#: how many threads there are.
_BLAS_ONE_THREAD = 8192


def dot(a: np.ndarray, b: np.ndarray) -> float:
    """``np.dot`` of two vectors, on the calling thread (chunked when long)."""
    n = len(a)
    if n <= _BLAS_ONE_THREAD:
        return float(np.dot(a, b))
    return float(
        sum(
            np.dot(a[i : i + _BLAS_ONE_THREAD], b[i : i + _BLAS_ONE_THREAD])
            for i in range(0, n, _BLAS_ONE_THREAD)
        )
    )


def vecmat(v: np.ndarray, m: np.ndarray) -> np.ndarray:
    """``v @ m`` (a vector times a rows x columns matrix), on the calling thread."""
    step = max(1, _BLAS_ONE_THREAD // max(m.shape[1], 1))
    if len(v) <= step:
        return v @ m
    out = v[:step] @ m[:step]
    for i in range(step, len(v), step):
        out = out + v[i : i + step] @ m[i : i + step]
    return out


def floor10(x: np.ndarray | float) -> np.ndarray | float:
    """ARX rounds per-attribute components down to 10 decimals."""
    return np.floor(np.asarray(x) * 1e10) / 1e10


#: The one parameter of a metric: which variant to use (for metrics that have both).
MONOTONIC = Param(
    "monotonic",
    "bool",
    None,
    help="use the monotonic variant (only metrics with both variants may choose)",
    optional=True,
)


class QualityMetric(ABC):
    """Base class. ``goal`` says which way is better ("minimize" or "maximize"); the
    search follows it. ``monotonic`` means a coarser transformation is never better
    (for the goal), under suppression too; every metric here is monotonic under
    generalization (ARX's flags), so with no suppression all of them are monotonic.
    ``lower_bounds`` is only used for minimised metrics."""

    key: ClassVar[str]
    label: ClassVar[str]
    goal: ClassVar[str] = "minimize"
    lower: ClassVar[float] = 0.0
    upper: ClassVar[float | None] = None
    has_monotonic_variant: ClassVar[bool] = False
    default_monotonic: ClassVar[bool] = False
    description: ClassVar[str] = ""
    params: ClassVar[tuple[Param, ...]] = (MONOTONIC,)

    def __init__(self, monotonic: bool | None = None) -> None:
        if monotonic is not None and not self.has_monotonic_variant:
            self.monotonic = self.default_monotonic
            if monotonic != self.default_monotonic:
                raise ConfigError(
                    f"'quality_metric.monotonic' cannot be {monotonic} for {self.key}: it has only the "
                    f"{'monotonic' if self.default_monotonic else 'non-monotonic'} variant."
                )
        else:
            self.monotonic = (
                self.default_monotonic
                if monotonic is None
                else MONOTONIC.check(monotonic, "quality_metric.monotonic")
            )

    def to_config(self) -> dict[str, Any]:
        cfg: dict[str, Any] = {"name": self.key}
        if self.has_monotonic_variant:
            cfg["monotonic"] = self.monotonic
        return cfg

    def __repr__(self) -> str:
        suffix = (
            f" ({'monotonic' if self.monotonic else 'non-monotonic'})"
            if self.has_monotonic_variant
            else ""
        )
        return self.label + suffix

    def prepare(self, freq: FrequencyTable) -> Any:
        return None

    @abstractmethod
    def compute(self, table: ClassTable, suppressed: np.ndarray, state: Any) -> MetricValue:
        """Value of the metric for a class table; ``suppressed`` flags suppressed classes."""

    def lower_bounds(
        self, freq: FrequencyTable, nodes: np.ndarray, state: Any
    ) -> np.ndarray | None:
        """A lower bound of the value of every transformation in ``nodes`` (rows of levels).

        Used by the search to skip transformations that cannot beat the best
        found. None where the metric has no bound cheaper than evaluating.
        """
        return None

    def class_loss(self, table: ClassTable, state: Any) -> np.ndarray | None:
        """Information loss of each class, where the metric defines one (else None).

        ARX uses it to break ties between equally small classes when a
        sample-based model must suppress some of them.
        """
        return None


METRICS: Registry[type[QualityMetric]] = Registry("quality metric")


def register(cls: type[QualityMetric]) -> type[QualityMetric]:
    return METRICS.add(cls.key, cls)


def make_metric(spec: Mapping[str, Any] | str | None) -> QualityMetric:
    """Build from ``{"name": key, "monotonic": bool}`` (or just the name); default Loss."""
    if spec is None:
        return Loss()
    if isinstance(spec, str):
        spec = {"name": spec}
    if not isinstance(spec, Mapping):
        raise ConfigError(
            f'\'quality_metric\' must be an object like {{"name": "loss"}}, got {spec!r}.'
        )
    check_keys("quality_metric", spec, {"name", *(p.name for p in QualityMetric.params)})
    key = check_choice("quality_metric.name", spec.get("name"), METRICS)
    return METRICS[key](monotonic=spec.get("monotonic"))


def metric_specs() -> list[dict[str, Any]]:
    """Every registered metric and variant as a ``quality_metric`` spec (non-monotonic first)."""
    specs: list[dict[str, Any]] = []
    for key, cls in METRICS.items():
        if cls.has_monotonic_variant:
            specs += [{"name": key, "monotonic": False}, {"name": key, "monotonic": True}]
        else:
            specs.append({"name": key})
    return specs


def _suppressed_count(table: ClassTable, suppressed: np.ndarray) -> int:
    return int(table.sizes[suppressed].sum())


@register
class Loss(QualityMetric):
    """ARX's default 'Loss' (Iyengar 2002, as generalized in ARX).

    Per QI i: L_i = sum over records of (hierarchy rows under the record's
    generalized value) / d_i, a suppressed record counting 1;
    v_i = max(0, (L_i - N/d_i) / (N - N/d_i)); score = prod(1 + v_i)^(1/n) - 1.
    """

    key = "loss"
    label = "Loss"
    upper = 1.0
    description = "Share of the hierarchy each released value spans, averaged over attributes (0 = original, 1 = all suppressed)."

    def prepare(self, freq: FrequencyTable) -> Any:
        """Per QI and level: sum over all records of the share their generalized value spans.

        It does not depend on the other QIs, so evaluating a transformation only
        has to correct it for the suppressed classes.
        """
        totals, shares = [], []
        for q in freq.qis:
            enc = freq.dataset.hierarchy(q)
            d = float(enc.n_rows)
            counts = freq.value_counts[q].astype(float)
            level_shares = [enc.leaf_counts[h] / d for h in range(enc.height)]
            shares.append(level_shares)
            totals.append(
                np.array([dot(counts, level_shares[h][enc.maps[h]]) for h in range(enc.height)])
            )
        bases = np.array(
            [freq.n_records / float(freq.dataset.hierarchy(q).n_rows) for q in freq.qis]
        )
        # Every QI's every level's shares in one array, and where each level starts in it.
        sizes = [len(x) for level_shares in shares for x in level_shares]
        flat = (
            np.concatenate([x for level_shares in shares for x in level_shares]) if sizes else None
        )
        starts, at = [], 0
        for level_shares in shares:
            starts.append(
                [at + sum(len(x) for x in level_shares[:h]) for h in range(len(level_shares))]
            )
            at += sum(len(x) for x in level_shares)
        # Every QI's component per level when no record is suppressed (it depends on the level
        # alone): computed by compute's own operations, so a node without suppressed classes
        # only gathers them.
        n = float(freq.n_records)
        plain = [
            [self._component(t, b, n) for t in level_totals.tolist()]
            for level_totals, b in zip(totals, bases.tolist(), strict=True)
        ]
        return totals, shares, bases, (flat, starts), plain

    @staticmethod
    def _component(t: float, b: float, n: float) -> float:
        """v_i of a QI's total ``t`` (base ``b``, ``n`` records), floored to 10 decimals as ARX."""
        d = n - b
        x = max(0.0, (t - b) / d) if d > 0 else 0.0
        return math.floor(x * 1e10) / 1e10

    def _normalise(self, freq: FrequencyTable, totals: np.ndarray, bases: np.ndarray) -> np.ndarray:
        denominator = float(freq.n_records) - bases
        v = np.zeros(np.shape(totals))
        np.divide(totals - bases, denominator, out=v, where=denominator > 0)  # else 0
        np.maximum(0.0, v, out=v)
        return floor10(v)

    @staticmethod
    def _geometric(values: np.ndarray) -> np.ndarray | float:
        """ARX's geometric mean: the power is taken per factor, then multiplied (last axis)."""
        values = np.asarray(values, dtype=float)
        if values.shape[-1] == 0:
            return np.zeros(values.shape[:-1]) if values.ndim > 1 else 0.0
        score = np.ones(values.shape[:-1]) if values.ndim > 1 else 1.0
        for j in range(values.shape[-1]):
            score = score * (values[..., j] + 1.0) ** (1.0 / values.shape[-1])
        return score - 1.0

    def compute(self, table: ClassTable, suppressed: np.ndarray, state: Any) -> MetricValue:
        totals_by_level, _, bases, (flat, starts), plain = state
        freq = table.freq
        if len(bases) and suppressed.any():
            totals = np.array([totals_by_level[j][lv] for j, lv in enumerate(table.levels)])
            # A suppressed record counts 1 instead of its generalized share: one
            # gather through the concatenated share tables, one matrix product.
            offsets = np.array([starts[j][lv] for j, lv in enumerate(table.levels)])
            gathered = flat[table.codes_of(suppressed) + offsets]
            totals += vecmat(table.sizes[suppressed].astype(float), 1.0 - gathered)
            # _normalise and _geometric on Python floats: the same IEEE operations in the same
            # order, without numpy's cost per call on a few values.
            n = float(freq.n_records)
            v = [
                self._component(t, b, n)
                for t, b in zip(totals.tolist(), bases.tolist(), strict=True)
            ]
        else:  # nothing suppressed: each component was worked out per level when prepared
            v = [plain[j][lv] for j, lv in enumerate(table.levels)]
        score = 0.0
        if v:
            score, power = 1.0, 1.0 / len(v)
            for x in v:
                score = score * (x + 1.0) ** power
            score -= 1.0
        return MetricValue(self.key, score, dict(zip(freq.qis, v, strict=True)))

    def lower_bounds(self, freq: FrequencyTable, nodes: np.ndarray, state: Any) -> np.ndarray:
        """Loss with no record suppressed (suppression only raises it); per QI it depends on the level only."""
        totals_by_level, _, bases, _, _ = state
        per_level = [
            self._normalise(freq, totals_by_level[j], np.full(len(totals_by_level[j]), bases[j]))
            for j in range(len(freq.qis))
        ]
        q = len(freq.qis)
        if q == 0:
            return np.zeros(len(nodes))
        # _geometric's factors per level (few), then its product gathered per node, in QI order.
        factors = [(per_level[j] + 1.0) ** (1.0 / q) for j in range(q)]
        score = np.ones(len(nodes))
        for j in range(q):
            score = score * factors[j][nodes[:, j]]
        return score - 1.0

    def class_loss(self, table: ClassTable, state: Any) -> np.ndarray:
        """Geometric mean over QIs of the share of the hierarchy each class value spans."""
        freq = table.freq
        score = np.ones(table.n_classes)
        for j, q in enumerate(freq.qis):
            enc = freq.dataset.hierarchy(q)
            share = enc.leaf_counts[table.levels[j]][table.codes[:, j]] / float(enc.n_rows)
            score *= (share + 1.0) ** (1.0 / len(freq.qis))
        return score - 1.0


@register
class Precision(QualityMetric):
    """Precision (Sweeney 2002): mean over QIs of level / (height - 1).

    Non-monotonic variant: a suppressed record counts as fully generalized (1).
    """

    key = "precision"
    label = "Precision"
    upper = 1.0
    has_monotonic_variant = True
    description = "Average generalization level relative to each hierarchy's height (0 = original, 1 = all suppressed)."

    def compute(self, table: ClassTable, suppressed: np.ndarray, state: Any) -> MetricValue:
        freq = table.freq
        n = float(freq.n_records)
        s = _suppressed_count(table, suppressed)
        per = {}
        for j, q in enumerate(freq.qis):
            top = freq.dataset.hierarchy(q).height - 1
            frac = table.levels[j] / top if top > 0 else 0.0
            if not self.monotonic:
                frac = ((n - s) * frac + s) / n
            per[q] = float(frac)
        score = 0.0
        for v in per.values():  # ARX: sum of v_i / n in QI order
            score += v / len(per)
        return MetricValue(self.key, score, per)

    def lower_bounds(self, freq: FrequencyTable, nodes: np.ndarray, state: Any) -> np.ndarray:
        """Precision without suppression (exact for the monotonic variant)."""
        tops = np.array([max(h - 1, 1) for h in freq.dataset.heights], dtype=float)
        zero = np.array([h <= 1 for h in freq.dataset.heights])
        frac = np.where(zero, 0.0, nodes / tops)
        return (frac / nodes.shape[1]).sum(axis=1)


@register
class Discernability(QualityMetric):
    """Discernibility (Bayardo and Agrawal 2005): sum of squared class sizes.

    Non-monotonic variant: each suppressed record is penalised with N. The
    monotonic variant (ARX's DM*) counts suppressed classes like any other.
    """

    key = "discernability"
    label = "Discernability"
    has_monotonic_variant = True
    description = (
        "Sum over records of the size of their class; suppressed records cost the table size."
    )

    def compute(self, table: ClassTable, suppressed: np.ndarray, state: Any) -> MetricValue:
        sizes = table.sizes.astype(float)
        n = float(table.freq.n_records)
        if self.monotonic:
            value = float(np.sum(sizes**2))
        else:
            value = float(np.sum(sizes[~suppressed] ** 2) + np.sum(sizes[suppressed]) * n)
        return MetricValue(self.key, value)


@register
class NonUniformEntropy(QualityMetric):
    """Non-uniform entropy (Gionis and Tassa 2009; De Waal and Willenborg 1999) as in ARX.

    Per QI: sum_a c(a) * log2(c(g(a)) / c(a)) over original values a. The
    non-monotonic variant adds, per QI, sum_g s_g * log2(S / s_g) over the S
    suppressed records, s_g of which have generalized value g.
    """

    key = "non-uniform-entropy"
    label = "Non-uniform entropy"
    has_monotonic_variant = True
    description = "Bits of information lost by generalization, summed over records and attributes."

    def prepare(self, freq: FrequencyTable) -> Any:
        """Per QI and level: the loss of generalizing to that level (independent of classes)."""
        state = []
        for q in freq.qis:
            enc = freq.dataset.hierarchy(q)
            c = freq.value_counts[q].astype(float)
            per_level = []
            for h in range(enc.height):
                cg = np.bincount(enc.maps[h], weights=c, minlength=enc.cardinality(h))[enc.maps[h]]
                nz = c > 0
                # ARX: raw = sum a * (ln(a/b) / ln 2) in code order; loss = -raw.
                terms = c[nz] * (np.log(c[nz] / cg[nz]) / _LN2)
                # cumsum adds sequentially in dictionary order, as ARX does (bit-exact).
                per_level.append(float(np.cumsum(terms)[-1]) if len(terms) else 0.0)
            state.append(per_level)
        return state

    def compute(self, table: ClassTable, suppressed: np.ndarray, state: Any) -> MetricValue:
        freq = table.freq
        per = {}
        s_total = float(table.sizes[suppressed].sum())
        for j, q in enumerate(freq.qis):
            raw = state[j][table.levels[j]]
            if not self.monotonic and s_total > 0:
                enc = freq.dataset.hierarchy(q)
                s_g = np.bincount(
                    table.codes[suppressed, j],
                    weights=table.sizes[suppressed],
                    minlength=enc.cardinality(table.levels[j]),
                )
                s_g = s_g[s_g > 0]
                raw += float(np.sum(s_g * (np.log(s_g / s_total) / _LN2)))
            per[q] = float(floor10(-raw))
        return MetricValue(self.key, float(sum(per.values())), per)

    def lower_bounds(self, freq: FrequencyTable, nodes: np.ndarray, state: Any) -> np.ndarray:
        """The generalization part alone (exact for the monotonic variant)."""
        total = np.zeros(len(nodes))
        for j in range(nodes.shape[1]):
            per_level = np.array([floor10(-raw) for raw in state[j]], dtype=float)
            total += per_level[nodes[:, j]]
        return total


@register
class AECS(QualityMetric):
    """Average equivalence class size (LeFevre et al. 2006): records / classes."""

    key = "aecs"
    label = "Average equivalence class size"
    lower = 1.0
    description = "Records per equivalence class on average; suppressed records form one class."

    def compute(self, table: ClassTable, suppressed: np.ndarray, state: Any) -> MetricValue:
        n_classes = int((~suppressed).sum()) + (1 if suppressed.any() else 0)
        return MetricValue(self.key, table.freq.n_records / max(n_classes, 1))


@register
class Height(QualityMetric):
    """Height: the sum of the generalization levels (ARX's 'Height')."""

    key = "height"
    label = "Height"
    default_monotonic = True
    description = "Sum of the hierarchy levels chosen for the quasi-identifiers."

    def compute(self, table: ClassTable, suppressed: np.ndarray, state: Any) -> MetricValue:
        per = {q: float(lv) for q, lv in zip(table.freq.qis, table.levels, strict=True)}
        return MetricValue(self.key, float(sum(table.levels)), per)

    def lower_bounds(self, freq: FrequencyTable, nodes: np.ndarray, state: Any) -> np.ndarray:
        return nodes.sum(axis=1).astype(float)
