"""Privacy models against a population: k-map and population uniqueness (ARX's ``KMap``, ``PopulationUniqueness``).

* **k-map** (Sweeney; El Emam & Dankar 2008): every released class matches at
  least k people of the *population*. With a population table the population
  count of each class is counted (ARX's ``pcount``); otherwise ARX's estimator
  derives a k' from the sampling fraction and the class size in the sample must
  reach k' (a Poisson or zero-truncated Poisson model of the population class
  size, at a significance level; Pannekoek 1988, El Emam 2013).
* **population uniqueness**: the estimated share of the population that is
  unique on the quasi-identifiers is at most a threshold (Zayatz, Pitman, SNB or
  Dankar's rule, solved as the risk figures are). A sample-based model: when it
  fails, classes are suppressed smallest first by ARX's binary search.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from scipy import special

from anon_core.data.frequency import ClassTable, FrequencyTable
from anon_core.errors import ConfigError
from anon_core.params import Param
from anon_core.population.models import (
    ESTIMATORS,
    USA_POPULATION,
    SolverConfig,
    criterion_uniques,
    criterion_uniques_hist,
)
from anon_core.population.table import (
    PopulationMatcher,
    PopulationSource,
    bind_population,
    class_population,
    parse_population,
)
from anon_core.privacy.models import PrivacyModel, SampleBasedModel, register

CELL_SIZE_ESTIMATORS = ("zero-truncated-poisson", "poisson")
_POP_SIZE = Param(
    "population_size",
    "int",
    USA_POPULATION,
    1,
    None,
    help="People in the population the sample was drawn from (default: USA, as ARX)",
)


def _take_population(
    model: str, values: dict[str, Any]
) -> tuple[dict[str, Any], PopulationSource | None]:
    """Move the spec's ``population`` (region, {size}, or {table}) into ``population_size`` / a table source."""
    values = dict(values)
    if "population" not in values:
        return values, None
    if "population_size" in values:
        raise ConfigError(
            f"'{model}' gives both 'population' and 'population_size': keep one of them."
        )
    source = parse_population(values.pop("population"), f"{model}.population")
    if source.table is not None:
        values["population_size"] = source.size or USA_POPULATION
        return values, source
    values["population_size"] = source.size
    return values, None


def poisson_derived_k(k: int, lam: float, significance: float) -> tuple[int, float]:
    """ARX's ``KMap.calculateKPoisson``: the smallest class size k' such that, under a Poisson
    model of the population class size with mean ``lam``, P(size < k') is covered at
    1 - significance (ARX's counting: returns counter + 1). Also the type-I error."""
    threshold = 1.0 - significance
    counter, value = 0, 0.0
    while value < threshold:
        previous = value
        value = float(special.pdtr(counter, lam))  # P(X <= counter)
        counter += 1
        if counter >= k or (counter > 1 and value == previous):
            # ARX runs on until counter reaches k; a CDF that no longer moves cannot get there sooner.
            return k + 1, 0.0
    return counter + 1, 1.0 - value


def zero_truncated_derived_k(k: int, lam: float, significance: float) -> tuple[int, float]:
    """ARX's ``KMap.calculateKZeroPoisson`` (zero-truncated Poisson), and the type-I error."""
    threshold = 1.0 - significance
    v2 = 1.0 - math.exp(-lam)
    counter, value = 1, 0.0
    while value < threshold:
        term = math.exp(counter * math.log(lam) - lam - math.lgamma(counter + 1.0)) / v2
        value += term
        counter += 1
        if counter >= k or (term == 0.0 and value < threshold):
            # ARX runs on until counter reaches k; once the terms underflow nothing else can stop it.
            return k, 0.0
    return counter, 1.0 - value


@register
class KMap(PrivacyModel):
    """k-map: each released class matches at least k people of the population (ARX ``KMap``).

    ``population`` is a region ("USA"), ``{"size": N}`` (estimated class sizes),
    or ``{"table": file}`` (counted; the estimator is then not used).
    """

    key = "k-map"
    label = "k-map"
    params = (
        Param(
            "k", "int", 5, 1, None, help="Minimum people per class in the population", required=True
        ),
        Param(
            "significance",
            "float",
            0.01,
            0.0,
            1.0,
            help="Significance level of the estimate (type-I error allowed)",
        ),
        Param(
            "estimator",
            "choice",
            "zero-truncated-poisson",
            choices=CELL_SIZE_ESTIMATORS,
            help="Model of the population class size (without a population table)",
        ),
        _POP_SIZE,
    )
    description = (
        "Each record matches at least k people of the population the sample was drawn from."
    )
    monotonic_generalization = True  # ARX: ImplicitPrivacyCriterion(true, true)
    monotonic_suppression = True

    def __init__(self, **values: Any) -> None:
        values, self.source = _take_population(self.key, values)
        if self.source is not None and "estimator" in values:
            raise ConfigError(
                "'k-map.estimator' estimates population class sizes, but 'population' names a table "
                "whose counts are exact: give one of them."
            )
        super().__init__(**values)
        self._matcher: PopulationMatcher | None = None
        self.derived_k: int | None = None
        self.type1_error: float | None = None

    @property
    def accurate(self) -> bool:
        """True when the population is given as a table (counted, not estimated)."""
        return self.source is not None

    def to_config(self) -> dict[str, Any]:
        out = super().to_config()
        if self.source is not None:
            out.pop("estimator", None)
            out.pop("population_size", None)
            out["population"] = self.source.to_dict()
        return out

    def __repr__(self) -> str:
        if self.source is not None:
            return f"{self.label} (k={self.k}, population table {self.source.table.name})"  # type: ignore[union-attr]
        derived = f", as {self.derived_k}-anonymity" if self.derived_k is not None else ""
        return f"{self.label} (k={self.k}, {self.estimator}, population {self.population_size:,}{derived})"

    def prepare(self, freq: FrequencyTable) -> Any:
        if self.source is not None:
            if self._matcher is None or self._matcher.dataset is not freq.dataset:
                self._matcher = bind_population(self.source, freq.dataset)
            return self._matcher
        n = freq.n_records
        if self.population_size < n:
            raise ConfigError(
                f"'k-map.population_size' ({self.population_size:,}) is smaller than the sample ({n:,} "
                "records): give the size of the population the data was drawn from."
            )
        lam = n / float(self.population_size) * float(self.k)
        if self.estimator == "poisson":
            derived, error = poisson_derived_k(self.k, lam, self.significance)
        else:
            derived, error = zero_truncated_derived_k(self.k, lam, self.significance)
        self.derived_k = min(self.k, min(derived, n))
        self.type1_error = error
        return None

    def min_class_size(self) -> int:
        return int(self.derived_k) if self.derived_k is not None and self.source is None else 1

    def measure(self, table: ClassTable, state: Any) -> np.ndarray:
        """People per class in the population (counted), or the sample class size (estimated)."""
        if state is not None:
            return class_population(state, table)
        return table.sizes

    def class_ok(self, table: ClassTable, state: Any) -> np.ndarray:
        if state is not None:
            return class_population(state, table) >= self.k
        return table.sizes >= self.derived_k


def arx_binary_suppression(
    n: int, fulfilled: Callable[[int], bool], over_budget: Callable[[int], bool] | None = None
) -> int:
    """How many of ``n`` ordered classes ARX's ``suppressWhileNotFulfilledBinary`` suppresses.

    ``fulfilled(m)`` judges the release with the first ``m`` classes suppressed.
    ARX's search always suppresses a prefix of the order (classes 0..mid); this
    reproduces its steps exactly, including Java's integer division and the last
    step (one more class when the final state fails), so a model that is not
    monotonic under suppression ends where ARX's does. ``over_budget(m)``: ARX's early abort,
    which stops as soon as a failing state suppresses more records than the limit allows.
    """
    if n == 0:
        return 0

    def jmid(lo: int, hi: int) -> int:
        return int((lo + hi) / 2)  # Java truncates toward zero: (0 + -1) / 2 == 0

    low, high = 0, n - 1
    mid = jmid(low, high)
    while low <= high:
        ok = fulfilled(mid + 1)
        if not ok and over_budget is not None and over_budget(mid + 1):
            return mid + 1  # ARX: State.ABORT, no last step
        if ok:
            high = mid - 1
            mid = jmid(low, high)  # classes after mid are released again
        else:
            low = mid + 1
            mid = max(mid, jmid(low, high))  # suppress up to the new mid
    m = mid + 1
    if not fulfilled(m) and m < n:
        m += 1
    return m


def size_histogram(sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct class sizes ascending and how many classes have each (``np.unique``'s answer),
    by counting when the sizes are small against their number (no sort)."""
    sizes = np.asarray(sizes, dtype=np.int64)
    if not sizes.size:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    top = int(sizes.max())
    if top > 4 * sizes.size + 1024 or int(sizes.min()) < 0:
        s, c = np.unique(sizes, return_counts=True)
        return s.astype(np.int64), c.astype(np.int64)
    counts = np.bincount(sizes, minlength=top + 1)
    s = np.flatnonzero(counts).astype(np.int64)
    return s, counts[s].astype(np.int64)


class _SortedSizes:
    """The classes' sizes sorted ascending, read from their histogram (``s`` ascending, ``c``
    classes each) without sorting: the histogram of every suffix, and the total of every prefix."""

    def __init__(self, s: np.ndarray, c: np.ndarray) -> None:
        self.s, self.c = s, c
        self.ends = np.cumsum(c)
        self.starts = self.ends - c
        self.mass = np.concatenate(([0], np.cumsum(s * c)))

    def group(self, k: int) -> int:
        """The histogram entry holding sorted position ``k`` (0-based)."""
        return int(np.searchsorted(self.ends, k, side="right"))

    def suffix(self, m: int) -> tuple[np.ndarray, np.ndarray]:
        """Histogram of the sizes without the ``m`` smallest."""
        first = self.group(m)
        c = self.c[first:].copy()
        if c.size:
            c[0] = self.ends[first] - max(m, int(self.starts[first]))
        return self.s[first:], c

    def smallest_total(self, m: int) -> int:
        """Records in the ``m`` smallest classes."""
        g = self.group(m)
        partial = m - int(self.starts[g]) if g < self.s.size else 0
        return int(self.mass[g]) + partial * int(self.s[g] if g < self.s.size else 0)


class ArxSampleModel(SampleBasedModel):
    """A sample-based model on the class-size histogram, enforced with ARX's binary search,
    whose end state ARX accepts as is."""

    monotonic_suppression = False

    def __init__(self, **values: Any) -> None:
        super().__init__(**values)
        self._accepted: bytes | None = None
        self._budget: int | None = None

    def set_suppression_budget(self, budget: int) -> None:
        """Records the suppression limit allows (the evaluator sets it); enforcing stops past it."""
        self._budget = int(budget)

    def fulfilled_hist(self, s: np.ndarray, c: np.ndarray) -> bool:
        """Does a release whose classes have sizes ``s`` (ascending, ``c`` classes each) meet the model?"""
        raise NotImplementedError

    def fulfilled(self, sizes: np.ndarray) -> bool:
        """Does the release with these (non-suppressed) class sizes meet the model?"""
        return self.fulfilled_hist(*size_histogram(sizes))

    def released_ok(self, sizes: np.ndarray) -> bool:
        """The verdict on a release; the state :meth:`enforce` ended in counts as met (as in ARX,
        which only compares the suppressed records with the limit after enforcing)."""
        sizes = np.asarray(sizes)
        if self._accepted is not None and sizes.tobytes() == self._accepted:
            return True
        return self.fulfilled(sizes)

    def enforce(
        self, table: ClassTable, suppressed: np.ndarray, class_loss: np.ndarray | None = None
    ) -> np.ndarray:
        """Suppress classes smallest first (ties: lower loss, then first appearance) by ARX's binary search.

        The search reads only the histogram of the kept sizes; the order among classes of equal
        size matters only for the size where it stops, so only those are sorted (by loss)."""
        sizes = table.sizes
        self._accepted = None
        keep = np.flatnonzero(~suppressed)
        kept = sizes[keep]
        s, c = size_histogram(kept)
        if self.fulfilled_hist(s, c):
            return suppressed
        order = _SortedSizes(s, c)
        over = None
        if self._budget is not None:
            before = int(sizes[suppressed].sum())
            budget = self._budget
            over = lambda k: before + order.smallest_total(k) > budget  # noqa: E731
        m = arx_binary_suppression(len(keep), lambda k: self.fulfilled_hist(*order.suffix(k)), over)
        out = suppressed.copy()
        if m:
            g = order.group(m - 1)  # the size where the suppressed prefix ends
            bound = int(order.s[g])
            out[keep[kept < bound]] = True
            tie = keep[kept == bound]
            if class_loss is not None:
                tie = tie[np.argsort(class_loss[tie], kind="stable")]
            out[tie[: m - int(order.starts[g])]] = True
        self._accepted = sizes[~out].tobytes()
        return out


@register
class PopulationUniquenessModel(ArxSampleModel):
    """The estimated share of population uniques is at most a threshold (ARX ``PopulationUniqueness``).

    ARX: fulfilled when nothing is released, when no class has size 1, or when
    the estimate is positive and at most the threshold; a failed estimate fails.
    Monotonic under generalization only with Zayatz's estimator (as ARX declares).
    """

    key = "population-uniqueness"
    label = "population uniqueness"
    params = (
        Param(
            "threshold",
            "float",
            0.01,
            0.0,
            1.0,
            help="Largest share of the population that is unique",
            required=True,
        ),
        Param(
            "estimator",
            "choice",
            "dankar",
            choices=ESTIMATORS,
            help="Population-uniqueness estimator (Dankar's rule picks one)",
        ),
        _POP_SIZE,
        Param(
            "iterations_per_try",
            "int",
            1000,
            1,
            None,
            help="Newton-Raphson iterations per start value (ARX's solver default: 1000)",
        ),
    )
    description = (
        "At most this share of the population is estimated to be unique on the quasi-identifiers."
    )

    def __init__(self, **values: Any) -> None:
        values, source = _take_population(self.key, values)
        if source is not None:
            raise ConfigError(
                "'population-uniqueness.population' is estimated from the population size: give a region "
                "such as 'USA' or {'size': N}, not a table."
            )
        super().__init__(**values)
        # ARX: RiskBasedCriterion(false, model == ZAYATZ, threshold)
        self.monotonic_generalization = self.estimator == "zayatz"
        self.solver = SolverConfig(iterations_per_try=self.iterations_per_try)
        self._verdicts: dict[bytes, bool] = {}

    def prepare(self, freq: FrequencyTable) -> Any:
        if self.population_size < freq.n_records:
            raise ConfigError(
                f"'population-uniqueness.population_size' ({self.population_size:,}) is smaller than the "
                f"sample ({freq.n_records:,} records): give the size of the population the data was drawn from."
            )
        return None

    def measure(self, table: ClassTable, state: Any) -> np.ndarray:
        return (table.sizes == 1).astype(float)

    def uniques(self, sizes: np.ndarray) -> float:
        """The estimated share of population uniques of a release (NaN when the estimator fails)."""
        return criterion_uniques(sizes, self.population_size, self.estimator, self.solver)

    def fulfilled_hist(self, s: np.ndarray, c: np.ndarray) -> bool:
        if not c.sum() or not (s.size and s[0] == 1):
            return True  # ARX: nothing released, or no sample unique
        # The verdict depends only on the histogram: remember recent ones.
        key = s.tobytes() + b"|" + c.tobytes()
        hit = self._verdicts.get(key)
        if hit is None:
            share = criterion_uniques_hist(s, c, self.population_size, self.estimator, self.solver)
            hit = bool(share > 0.0 and share <= self.threshold)
            if len(self._verdicts) >= 4096:
                self._verdicts.clear()
            self._verdicts[key] = hit
        return hit
