"""Attribute-disclosure bounds: delta-disclosure privacy and basic/enhanced beta-likeness."""

from __future__ import annotations

from typing import Any

import numpy as np

from anon_core.data.frequency import ClassTable, FrequencyTable
from anon_core.params import Param
from anon_core.privacy.models import (
    ATTRIBUTE,
    SensitiveModel,
    class_max,
    class_shares,
    global_shares,
    log2_arx,
    register,
)


@register
class DeltaDisclosure(SensitiveModel):
    """delta-disclosure privacy: |log2(p_class(s) / p(s))| < delta for every value in a class.

    (Brickell and Shmatikov 2008; base 2 as ARX implements it.)
    """

    key = "delta-disclosure"
    label = "delta-disclosure privacy"
    params = (
        ATTRIBUTE,
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
        return global_shares(freq, self.attribute)

    def measure(self, table: ClassTable, state: Any) -> np.ndarray:
        cls, val, p = class_shares(table, self.attribute)
        return class_max(np.abs(log2_arx(p / state[val])), cls, table.n_classes, 0.0)

    def class_ok(self, table: ClassTable, state: Any) -> np.ndarray:
        return self.measure(table, state) < self.delta


class _BetaLikeness(SensitiveModel):
    params = (
        ATTRIBUTE,
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
        return global_shares(freq, self.attribute)

    def measure(self, table: ClassTable, state: Any) -> np.ndarray:
        """Largest relative gain (p_class - p) / p per class (0 when no value gains)."""
        cls, val, p = class_shares(table, self.attribute)
        q = state[val]
        gain = np.where(p > q, (p - q) / q, 0.0)
        return class_max(gain, cls, table.n_classes, 0.0)


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
        cls, val, p = class_shares(table, self.attribute)
        q = state[val]
        bound = np.minimum(self.beta, -np.log(q))
        bad = (p - q) / q > bound
        return np.bincount(cls[bad], minlength=table.n_classes) == 0
