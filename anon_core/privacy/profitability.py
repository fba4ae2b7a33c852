"""Profitability: the game-theoretic model of Wan et al. (2015), as ARX's ``Profitability*`` criteria.

A rational adversary re-identifies a record when the expected gain exceeds the
cost: gain * p - cost > 0, with p the success probability (1 / class size for a
prosecutor, 1 / population class size for a journalist). A class is released
when the publisher's expected payoff stays positive:
benefit * (1 - information loss) - (adversary attacks ? loss * p : 0) > 0, where
the information loss of a class is ARX's entropy-based loss
log10(prod of the domain shares of its values) / log10(prod of the domain sizes) + 1.

The *no-attack* variant only requires that attacking never pays: class size (or
population class size, journalist) >= k with k the smallest integer above
gain / cost (ARX ``ProfitabilityProsecutorNoAttack``). The journalist variants
need a population table (``population: {"table": file}``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from anon_core.data.frequency import ClassTable, FrequencyTable
from anon_core.errors import ConfigError
from anon_core.params import Param
from anon_core.population.table import (
    PopulationMatcher,
    PopulationSource,
    bind_population,
    parse_population,
)
from anon_core.privacy.models import PrivacyModel, register

_ATTACKER = Param(
    "attacker",
    "choice",
    "prosecutor",
    choices=("prosecutor", "journalist"),
    help="Prosecutor: knows the person is in the sample; journalist: only in the population",
)
# ARXCostBenefitConfiguration defaults.
_GAIN = Param(
    "adversary_gain",
    "float",
    300.0,
    0.0,
    None,
    help="What a successful re-identification earns the adversary",
)
_COST = Param(
    "adversary_cost",
    "float",
    4.0,
    0.0,
    None,
    help="What one re-identification attempt costs the adversary",
)
_BENEFIT = Param(
    "publisher_benefit",
    "float",
    1200.0,
    0.0,
    None,
    help="What publishing one record earns the publisher",
)
_LOSS = Param(
    "publisher_loss",
    "float",
    300.0,
    0.0,
    None,
    help="What one re-identified record costs the publisher",
)


class _Profitability(PrivacyModel):
    """Shared parameters: attacker model and the population table of the journalist variant."""

    attacker: str

    def __init__(self, **values: Any) -> None:
        values = dict(values)
        population = values.pop("population", None)
        super().__init__(**values)
        self.source: PopulationSource | None = None
        if population is not None:
            self.source = parse_population(population, f"{self.key}.population")
            if self.source.table is None:
                raise ConfigError(
                    f"'{self.key}.population' must name a table ({{'table': file}}): the journalist's "
                    "success probability needs people per class in the population."
                )
        if self.attacker == "journalist" and self.source is None:
            raise ConfigError(
                f"'{self.key}' with attacker 'journalist' needs 'population': {{'table': file}} (the population "
                "the sample was drawn from); use attacker 'prosecutor' without one."
            )
        self._matcher: PopulationMatcher | None = None

    def to_config(self) -> dict[str, Any]:
        out = super().to_config()
        if self.source is not None:
            out["population"] = self.source.to_dict()
        return out

    def _population(self, freq: FrequencyTable) -> PopulationMatcher | None:
        if self.attacker != "journalist":
            return None
        if self._matcher is None or self._matcher.dataset is not freq.dataset:
            assert self.source is not None
            self._matcher = bind_population(self.source, freq.dataset)
        return self._matcher

    def _pcount(self, table: ClassTable, matcher: PopulationMatcher) -> np.ndarray:
        return matcher.counts(table.codes, table.levels)


def no_attack_k(gain: float, cost: float) -> int:
    """ARX's k of the no-attack model: attacking a class of k or more never pays (gain / k <= cost)."""
    if gain == 0:
        return 1
    threshold = math.inf if cost == 0 else gain / cost
    if math.isinf(threshold):
        return 2**31 - 1
    if threshold == math.floor(threshold):
        return int(threshold) + 1
    return math.ceil(threshold)


@register
class Profitability(_Profitability):
    """Release a class only where the publisher's expected payoff is positive (ARX ``ProfitabilityProsecutor``
    / ``ProfitabilityJournalist``)."""

    key = "profitability"
    label = "profitability"
    params = (_ATTACKER, _GAIN, _COST, _BENEFIT, _LOSS)
    description = "Each released record earns the publisher more than it expects to lose to a rational attacker."
    monotonic_generalization = False  # ARX: ImplicitPrivacyCriterion(false, false)
    monotonic_suppression = False

    def prepare(self, freq: FrequencyTable) -> Any:
        dataset = freq.dataset
        encs = [dataset.hierarchy(q) for q in freq.qis]
        # ARX: maxIL = log10(prod of domain sizes); a value's share = leaves under it / domain size.
        domain = 1.0
        for enc in encs:
            domain *= float(enc.n_rows)
        max_il = math.log10(domain)
        return encs, max_il, self._population(freq)

    def information_loss(self, table: ClassTable, state: Any) -> np.ndarray:
        """ARX's entropy-based information loss of each class, in [0, 1]."""
        encs, max_il, _ = state
        if max_il == 0 or not math.isfinite(max_il):
            return np.zeros(table.n_classes)
        product = np.ones(table.n_classes)
        for j, enc in enumerate(encs):
            level = table.levels[j]
            product = product * (enc.leaf_counts[level][table.codes[:, j]] / float(enc.n_rows))
        return np.clip(np.log10(product) / max_il + 1.0, 0.0, 1.0)

    def success_probability(self, table: ClassTable, state: Any) -> np.ndarray:
        matcher = state[2]
        if matcher is None:
            return 1.0 / table.sizes
        pcount = self._pcount(table, matcher)
        return np.where(pcount == 0, 1.0 / table.sizes, 1.0 / np.maximum(pcount, 1))

    def measure(self, table: ClassTable, state: Any) -> np.ndarray:
        """The publisher's expected payoff per record of each class."""
        p = self.success_probability(table, state)
        il = self.information_loss(table, state)
        attacked = self.adversary_gain * p - self.adversary_cost > 0
        return self.publisher_benefit * (1.0 - il) - np.where(
            attacked, self.publisher_loss * p, 0.0
        )

    def class_ok(self, table: ClassTable, state: Any) -> np.ndarray:
        return (table.sizes > 0) & (self.measure(table, state) > 0)


@register
class ProfitabilityNoAttack(_Profitability):
    """No rational adversary attacks: class (or population class) size >= k = gain / cost rounded up
    (ARX ``ProfitabilityProsecutorNoAttack`` / ``ProfitabilityJournalistNoAttack``)."""

    key = "profitability-no-attack"
    label = "no-attack profitability"
    params = (_ATTACKER, _GAIN, _COST)
    description = "Re-identifying any record costs a rational adversary more than it gains."
    monotonic_generalization = True  # ARX: ImplicitPrivacyCriterion(true, true)
    monotonic_suppression = True

    @property
    def k(self) -> int:
        return no_attack_k(self.adversary_gain, self.adversary_cost)

    def min_class_size(self) -> int:
        return self.k if self.attacker == "prosecutor" else 1

    def prepare(self, freq: FrequencyTable) -> Any:
        return self._population(freq)

    def measure(self, table: ClassTable, state: Any) -> np.ndarray:
        """Class size (prosecutor) or population class size (journalist)."""
        return table.sizes if state is None else self._pcount(table, state)

    def class_ok(self, table: ClassTable, state: Any) -> np.ndarray:
        return self.measure(table, state) >= self.k
