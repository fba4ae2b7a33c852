"""Privacy models as a registry of small plug-in classes (presidio-analyzer style).

Each model declares its parameters and whether it is monotonic under
generalization and under suppression (the search prunes with these flags).
Class-based models judge every equivalence class; a class that fails any model
is an outlier and is suppressed when the suppression limit allows. Sample-based
models (risk thresholds) judge the whole released table. Definitions follow ARX
(Prasser et al., "Flexible data anonymization using ARX", 2020) and the papers
cited per class.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from anon_core.data.frequency import ClassTable, FrequencyTable
from anon_core.data.io import MISSING, ColumnKind, infer_kind
from anon_core.errors import ConfigError
from anon_core.validation import check_choice, check_float, check_int, check_keys

_LN2 = math.log(2.0)


def _log2(x: np.ndarray) -> np.ndarray:
    """log2 computed as ARX does (ln x / ln 2), so thresholds compare bit-exactly."""
    return np.log(x) / _LN2


@dataclass(frozen=True)
class Param:
    """A model parameter: name, type, bounds and help text for the UI."""

    name: str
    kind: str  # "int" | "float" | "attribute" | "choice"
    default: Any = None
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] = ()
    help: str = ""
    min_inclusive: bool = True
    #: A strength parameter (k, l, t, ...) has no silent default: the configuration must say it.
    #: ``default`` is then only the value the UI suggests.
    required: bool = False


class PrivacyModel(ABC):
    """Base class. Subclasses set the class variables and implement :meth:`class_ok`."""

    key: ClassVar[str]
    label: ClassVar[str]
    params: ClassVar[tuple[Param, ...]]
    monotonic_generalization: ClassVar[bool] = True
    monotonic_suppression: ClassVar[bool] = True
    sample_based: ClassVar[bool] = False
    description: ClassVar[str] = ""
    #: Sensitive attribute, for models that protect one (set from the parameters).
    attribute: str | None = None

    def __init__(self, **values: Any) -> None:
        check_keys(self.key, values, [p.name for p in self.params])
        for p in self.params:
            where = f"{self.key}.{p.name}"
            if p.required and values.get(p.name) is None:
                hint = f" (e.g. {p.default})" if p.default is not None else ""
                raise ConfigError(
                    f"'{where}' is required for {self.label}: say how strong the model must be{hint}; "
                    "privacy parameters have no silent default."
                )
            raw = values.get(p.name, p.default)
            if raw is None:
                raise ConfigError(f"'{where}' is required for {self.label}.")
            if p.kind == "int":
                val: Any = check_int(where, raw, p.minimum, p.maximum)  # type: ignore[arg-type]
            elif p.kind == "float":
                val = check_float(where, raw, p.minimum, p.maximum, min_inclusive=p.min_inclusive)
            elif p.kind == "choice":
                val = check_choice(where, raw, p.choices)
            else:
                if not isinstance(raw, str) or not raw:
                    raise ConfigError(f"'{where}' must name a sensitive attribute, got {raw!r}.")
                val = raw
            setattr(self, p.name, val)

    def to_config(self) -> dict[str, Any]:
        return {"model": self.key, **{p.name: getattr(self, p.name) for p in self.params}}

    def __repr__(self) -> str:
        args = ", ".join(f"{p.name}={getattr(self, p.name)!r}" for p in self.params)
        return f"{self.label} ({args})"

    def validate(self, freq: FrequencyTable) -> None:
        """Check the model fits the data (attribute is sensitive, hierarchy present...)."""
        if self.attribute is not None and self.attribute not in freq.sensitive:
            raise ConfigError(
                f"{self.label} needs {self.attribute!r} to be a sensitive attribute; sensitive "
                f"attributes are {list(freq.sensitive) or 'none'}. Mark it 'sensitive'."
            )

    # ----------------------------------------------------------------- checks
    def prepare(self, freq: FrequencyTable) -> Any:
        """Per-dataset state (global distribution, orderings); computed once."""
        return None

    def min_class_size(self) -> int:
        """Records every released class needs under this model (1 when it sets no such bound).

        Mondrian prunes partitions with it and the disclosure analysis reports it, without
        knowing the model's type."""
        return 1

    @abstractmethod
    def measure(self, table: ClassTable, state: Any) -> np.ndarray:
        """The model's figure per class (the k, l, t... that class reaches)."""

    @abstractmethod
    def class_ok(self, table: ClassTable, state: Any) -> np.ndarray:
        """Boolean per class: does the class satisfy the model?"""


MODELS: dict[str, type[PrivacyModel]] = {}


def register(cls: type[PrivacyModel]) -> type[PrivacyModel]:
    MODELS[cls.key] = cls
    return cls


def make_model(spec: Mapping[str, Any]) -> PrivacyModel:
    """Build a model from ``{"model": key, **params}``."""
    if not isinstance(spec, Mapping) or "model" not in spec:
        raise ConfigError(f"Each entry of 'privacy_models' needs a 'model' field; got {spec!r}.")
    key = check_choice("privacy_models[].model", spec["model"], MODELS)
    return MODELS[key](**{k: v for k, v in spec.items() if k != "model"})


_ATTR = Param("attribute", "attribute", help="Sensitive attribute the model protects")


# --------------------------------------------------------------------- helpers
def _probabilities(table: ClassTable, attribute: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sparse per-class relative frequencies: (class, value, share of the class)."""
    cls, val, cnt = table.sparse_hist(attribute)
    return cls, val, cnt / table.sizes[cls]


def _global(freq: FrequencyTable, attribute: str) -> np.ndarray:
    g = freq.sensitive[attribute].global_counts
    return g / g.sum()


def _class_max(values: np.ndarray, cls: np.ndarray, n: int, fill: float) -> np.ndarray:
    out = np.full(n, fill, dtype=float)
    np.maximum.at(out, cls, values)
    return out


# --------------------------------------------------------------------- models
@register
class KAnonymity(PrivacyModel):
    """Every class holds at least k records (Sweeney 2002)."""

    key = "k-anonymity"
    label = "k-anonymity"
    params = (
        Param("k", "int", 5, 1, None, help="Minimum records per equivalence class", required=True),
    )
    description = (
        "Each record is indistinguishable from at least k-1 others on the quasi-identifiers."
    )

    def measure(self, table: ClassTable, state: Any) -> np.ndarray:
        return table.sizes

    def class_ok(self, table: ClassTable, state: Any) -> np.ndarray:
        return table.sizes >= self.k

    def min_class_size(self) -> int:
        return int(self.k)


class _SensitiveModel(PrivacyModel):
    """A model protecting one sensitive attribute."""

    attribute: str


@register
class DistinctLDiversity(_SensitiveModel):
    """At least l distinct sensitive values per class (Machanavajjhala et al. 2007)."""

    key = "distinct-l-diversity"
    label = "distinct l-diversity"
    params = (
        _ATTR,
        Param("l", "int", 2, 1, None, help="Distinct sensitive values per class", required=True),
    )
    description = "Each class contains at least l different sensitive values."

    def min_class_size(self) -> int:
        return int(self.l)  # l distinct values need l records

    def measure(self, table: ClassTable, state: Any) -> np.ndarray:
        return table.distinct_values(self.attribute)

    def class_ok(self, table: ClassTable, state: Any) -> np.ndarray:
        return self.measure(table, state) >= self.l


def grassberger_g(n: np.ndarray) -> np.ndarray:
    """Grassberger's G(n) as ARX evaluates it (Grassberger 2003, eq. 35).

    G(2k) = G(2k+1) = -gamma - ln 2 + sum_{j<=k} 2/(2j-1) for n <= 100; above,
    the asymptotic ln(n) + m(1/24 - m(7/960 - 31m/8064)) with n rounded down to
    even and m = 1/(n/2)^2.
    """
    n = np.asarray(n, dtype=np.int64)
    even = n - n % 2
    k = even // 2
    small = n <= 100
    table = (
        -np.euler_gamma
        - math.log(2.0)
        + np.concatenate(([0.0], np.cumsum(2.0 / (2 * np.arange(1, 51) - 1))))
    )
    out = np.empty(n.shape, dtype=float)
    out[small] = table[k[small]]
    big = ~small
    if big.any():
        m = 1.0 / (k[big].astype(float) ** 2)
        out[big] = np.log(even[big].astype(float)) + m * (1 / 24 - m * (7 / 960 - m * 31 / 8064))
    return out


@register
class EntropyLDiversity(_SensitiveModel):
    """Entropy l-diversity (Machanavajjhala et al. 2007): H(class) >= ln(l), as ARX checks it.

    A class holds when it has at least ceil(l) distinct values and
    sum_s f_s psi(f_s) <= N (psi(N) - ln l), with psi = ln (Shannon) or
    Grassberger's bias-corrected G. ARX's search can reach a Grassberger verdict
    that depends on hash-table order (it aborts a non-monotonic partial sum
    early); this engine uses the order-free full sum.
    """

    key = "entropy-l-diversity"
    label = "entropy l-diversity"
    params = (
        _ATTR,
        Param(
            "l",
            "float",
            2.0,
            1.0,
            None,
            help="Effective number of sensitive values per class",
            required=True,
        ),
        Param(
            "estimator",
            "choice",
            "shannon",
            choices=("shannon", "grassberger"),
            help="Entropy estimator",
        ),
    )
    description = (
        "The sensitive values of each class are spread as evenly as l equally frequent values."
    )
    monotonic_suppression = False

    def min_class_size(self) -> int:
        return math.ceil(self.l)  # entropy log2(l) needs at least l records

    def _psi(self, n: np.ndarray) -> np.ndarray:
        return np.log(n.astype(float)) if self.estimator == "shannon" else grassberger_g(n)

    def _sums(self, table: ClassTable) -> tuple[np.ndarray, np.ndarray]:
        cls, _, cnt = table.sparse_hist(self.attribute)
        s = np.bincount(cls, weights=cnt * self._psi(cnt), minlength=table.n_classes)
        return s, self._psi(table.sizes)

    def measure(self, table: ClassTable, state: Any) -> np.ndarray:
        """Entropy-l reached per class: exp(H), H = psi(N) - sum f psi(f) / N (nats)."""
        s, psi_n = self._sums(table)
        return np.exp(psi_n - s / table.sizes)

    def class_ok(self, table: ClassTable, state: Any) -> np.ndarray:
        s, psi_n = self._sums(table)
        bound = table.sizes * (psi_n - math.log(self.l))
        return (table.distinct_values(self.attribute) >= math.ceil(self.l)) & (s <= bound)


@register
class RecursiveCLDiversity(_SensitiveModel):
    """Recursive (c,l)-diversity: r1 < c * (r_l + ... + r_m), counts sorted descending.

    (Machanavajjhala et al. 2007.)
    """

    key = "recursive-cl-diversity"
    label = "recursive (c,l)-diversity"
    params = (
        _ATTR,
        Param("c", "float", 4.0, 0.0, None, help="Bound on the most frequent value", required=True),
        Param(
            "l",
            "int",
            2,
            1,
            None,
            help="Number of values after which the tail is summed",
            required=True,
        ),
    )
    description = "The most frequent sensitive value is less than c times the rarest ones together."
    monotonic_suppression = False

    def min_class_size(self) -> int:
        return int(self.l)

    def _ranked(self, table: ClassTable) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        cls, _, cnt = table.sparse_hist(self.attribute)
        order = np.lexsort((-cnt, cls))
        cls, cnt = cls[order], cnt[order]
        starts = np.searchsorted(cls, np.arange(table.n_classes))
        rank = np.arange(len(cls)) - starts[cls]
        return cls, cnt, rank

    def measure(self, table: ClassTable, state: Any) -> np.ndarray:
        """r1 / (r_l + ... + r_m) per class (inf when fewer than l values): c must exceed it."""
        cls, cnt, rank = self._ranked(table)
        r1 = np.zeros(table.n_classes)
        r1[cls[rank == 0]] = cnt[rank == 0]
        tail = np.bincount(
            cls[rank >= self.l - 1], weights=cnt[rank >= self.l - 1], minlength=table.n_classes
        )
        with np.errstate(divide="ignore"):
            return np.where(tail > 0, r1 / np.where(tail > 0, tail, 1), np.inf)

    def class_ok(self, table: ClassTable, state: Any) -> np.ndarray:
        cls, cnt, rank = self._ranked(table)
        r1 = np.zeros(table.n_classes)
        r1[cls[rank == 0]] = cnt[rank == 0]
        tail = np.bincount(
            cls[rank >= self.l - 1], weights=cnt[rank >= self.l - 1], minlength=table.n_classes
        )
        distinct = np.bincount(cls, minlength=table.n_classes)
        return (distinct >= self.l) & (r1 < self.c * tail)


class _TCloseness(_SensitiveModel):
    params = (
        _ATTR,
        Param(
            "t",
            "float",
            0.2,
            0.0,
            1.0,
            help="Largest distance to the overall distribution",
            required=True,
        ),
    )
    description = (
        "The sensitive distribution in each class is within distance t of the whole table's."
    )
    monotonic_suppression = False

    def class_ok(self, table: ClassTable, state: Any) -> np.ndarray:
        return self.measure(table, state) <= self.t


@register
class EqualDistanceTCloseness(_TCloseness):
    """t-closeness with equal ground distance: EMD = 1/2 sum |p_i - q_i| (Li et al. 2007)."""

    key = "equal-distance-t-closeness"
    label = "equal-distance t-closeness"

    def prepare(self, freq: FrequencyTable) -> Any:
        return _global(freq, self.attribute)

    def measure(self, table: ClassTable, state: Any) -> np.ndarray:
        q = state
        cls, val, p = _probabilities(table, self.attribute)
        diff = np.abs(p - q[val]) - q[val]
        return (1.0 + np.bincount(cls, weights=diff, minlength=table.n_classes)) / 2.0


def sensitive_order(freq: FrequencyTable, attribute: str) -> np.ndarray:
    """Rank of each sensitive code in the attribute's data-type order (as ARX's comparator).

    Numbers sort by value, ISO-like dates chronologically, anything else
    lexically (by code point). The missing value sorts last.
    """
    col = freq.dataset.columns[attribute]
    labels = np.asarray(col.labels, dtype=object).astype(str)
    missing = labels == MISSING
    present = pd.Series(labels[~missing])
    keys = pd.to_numeric(present, errors="coerce")
    if not (len(keys) and keys.notna().all()) and infer_kind(present) == ColumnKind.DATE:
        keys = pd.to_datetime(present, errors="coerce", format="mixed").astype("int64")
    if len(keys) and keys.notna().all():
        full = np.full(len(labels), np.inf)
        full[~missing] = keys.to_numpy(dtype=float)
        order = np.argsort(full, kind="stable")
    else:
        order = np.lexsort((labels, missing))
    rank = np.empty(len(labels), dtype=np.int64)
    rank[order] = np.arange(len(labels))
    return rank


@register
class OrderedDistanceTCloseness(_TCloseness):
    """t-closeness with ordered distance: EMD = 1/(m-1) sum_i |sum_{j<=i} (p_j - q_j)| (Li et al. 2007)."""

    key = "ordered-distance-t-closeness"
    label = "ordered-distance t-closeness"

    def prepare(self, freq: FrequencyTable) -> Any:
        rank = sensitive_order(freq, self.attribute)
        q = _global(freq, self.attribute)
        order = np.argsort(rank)
        return rank, q[order]

    def _cumulative(self, table: ClassTable, state: Any) -> np.ndarray:
        """sum_i |sum_{j<=i} (p_j - q_j)| per class, accumulated in value order."""
        rank, q_sorted = state
        out = np.zeros(table.n_classes)
        for start, block in table.dense_hist(self.attribute):
            sizes = table.sizes[start : start + len(block)]
            p = np.zeros_like(block, dtype=float)
            p[:, rank] = block / sizes[:, None]
            out[start : start + len(block)] = np.abs(np.cumsum(p - q_sorted, axis=1)).sum(axis=1)
        return out

    def measure(self, table: ClassTable, state: Any) -> np.ndarray:
        m = len(state[1])
        return self._cumulative(table, state) / (m - 1) if m > 1 else np.zeros(table.n_classes)

    def class_ok(self, table: ClassTable, state: Any) -> np.ndarray:
        m = len(state[1])
        return self._cumulative(table, state) <= self.t * (m - 1.0)


@register
class HierarchicalDistanceTCloseness(_TCloseness):
    """t-closeness with the hierarchical ground distance of the attribute's hierarchy (Li et al. 2007).

    EMD = sum over inner nodes N of height(N)/H * min(pos_extra(N), neg_extra(N)).
    """

    key = "hierarchical-distance-t-closeness"
    label = "hierarchical-distance t-closeness"

    def validate(self, freq: FrequencyTable) -> None:
        super().validate(freq)
        if freq.dataset.columns[self.attribute].encoded is None:
            raise ConfigError(
                f"{self.label} needs a hierarchy for {self.attribute!r}. Add 'hierarchy' to that attribute."
            )

    def prepare(self, freq: FrequencyTable) -> Any:
        enc = freq.dataset.columns[self.attribute].encoded
        assert enc is not None
        onehots = []
        for h in range(1, enc.height):
            up = enc.up(h - 1, h)
            onehot = np.zeros((len(up), enc.cardinality(h)))
            onehot[np.arange(len(up)), up] = 1.0
            onehots.append(onehot)
        return freq.sensitive[self.attribute].global_counts.astype(float), onehots, enc.height - 1

    def measure(self, table: ClassTable, state: Any) -> np.ndarray:
        """EMD per class from the integer extras P_i*|class| - Q_i*N, as ARX computes them.

        Per inner node, min(pos, neg) = pos - max(net, 0) with net = pos - neg, and
        the pos of a level's nodes sum to the positive extras of the level below;
        so with S_h = sum of max(extra, 0) over level h, cost = sum_h h/H (S_{h-1} - S_h).
        The extras stay integers below 2^53, exact in float64 (BLAS products).
        """
        global_counts, onehots, top = state
        total = float(global_counts.sum())
        out = np.zeros(table.n_classes)
        if top <= 0:
            return out
        for start, block in table.dense_hist(self.attribute):
            sizes = table.sizes[start : start + len(block)].astype(float)
            extra = global_counts[None, :] * sizes[:, None] - block * total
            below = np.maximum(extra, 0.0).sum(axis=1)
            cost = np.zeros(len(block))
            for h, onehot in enumerate(onehots, start=1):
                extra = extra @ onehot
                here = np.maximum(extra, 0.0).sum(axis=1)
                cost += (h / top) * (below - here)
                below = here
            out[start : start + len(block)] = cost / (total * sizes)
        return out


@register
class DeltaDisclosure(_SensitiveModel):
    """delta-disclosure privacy: |log2(p_class(s) / p(s))| < delta for every value in a class.

    (Brickell and Shmatikov 2008; base 2 as ARX implements it.)
    """

    key = "delta-disclosure"
    label = "delta-disclosure privacy"
    params = (
        _ATTR,
        Param(
            "delta",
            "float",
            1.0,
            0.0,
            None,
            help="Bound on the log ratio of class to overall frequency",
            min_inclusive=False,
            required=True,
        ),
    )
    description = "No class changes the odds of a sensitive value by more than a factor e^delta."
    monotonic_generalization = False
    monotonic_suppression = False

    def prepare(self, freq: FrequencyTable) -> Any:
        return _global(freq, self.attribute)

    def measure(self, table: ClassTable, state: Any) -> np.ndarray:
        cls, val, p = _probabilities(table, self.attribute)
        return _class_max(np.abs(_log2(p / state[val])), cls, table.n_classes, 0.0)

    def class_ok(self, table: ClassTable, state: Any) -> np.ndarray:
        return self.measure(table, state) < self.delta


class _BetaLikeness(_SensitiveModel):
    params = (
        _ATTR,
        Param(
            "beta",
            "float",
            1.0,
            0.0,
            None,
            help="Bound on the relative gain in confidence",
            min_inclusive=False,
            required=True,
        ),
    )
    monotonic_suppression = False

    def prepare(self, freq: FrequencyTable) -> Any:
        return _global(freq, self.attribute)

    def measure(self, table: ClassTable, state: Any) -> np.ndarray:
        """Largest relative gain (p_class - p) / p per class (0 when no value gains)."""
        cls, val, p = _probabilities(table, self.attribute)
        q = state[val]
        gain = np.where(p > q, (p - q) / q, 0.0)
        return _class_max(gain, cls, table.n_classes, 0.0)


@register
class BasicBetaLikeness(_BetaLikeness):
    """Basic beta-likeness: (p_class - p)/p <= beta where p_class > p (Cao and Karras 2012)."""

    key = "basic-beta-likeness"
    label = "basic beta-likeness"
    description = (
        "No class raises an attacker's confidence in a sensitive value by more than a factor beta."
    )

    def class_ok(self, table: ClassTable, state: Any) -> np.ndarray:
        return self.measure(table, state) <= self.beta


@register
class EnhancedBetaLikeness(_BetaLikeness):
    """Enhanced beta-likeness: (p_class - p)/p <= min(beta, -ln p) where p_class > p (Cao and Karras 2012)."""

    key = "enhanced-beta-likeness"
    label = "enhanced beta-likeness"
    description = (
        "As basic beta-likeness, with a tighter bound min(beta, -ln p) for frequent values."
    )

    def class_ok(self, table: ClassTable, state: Any) -> np.ndarray:
        cls, val, p = _probabilities(table, self.attribute)
        q = state[val]
        bound = np.minimum(self.beta, -np.log(q))
        bad = (p - q) / q > bound
        return np.bincount(cls[bad], minlength=table.n_classes) == 0
