"""Sample-based privacy models: thresholds on re-identification risk of the whole release.

Unlike class-based models they judge the released table as a whole. When a
threshold is not met, ARX suppresses whole classes, smallest first (ties: the
class whose first record comes first), within the suppression limit, until it
is; the fewest such classes are found by bisection.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from anon_core.data.frequency import ClassTable
from anon_core.params import Param
from anon_core.privacy.models import SampleBasedModel, register


class _RiskModel(SampleBasedModel):
    # ARX declares both monotonic (RiskBasedCriterion(true, true, threshold)).
    monotonic_generalization = True
    monotonic_suppression = True

    def enforce(
        self, table: ClassTable, suppressed: np.ndarray, class_loss: np.ndarray | None = None
    ) -> np.ndarray:
        """Suppress the fewest smallest-first classes that make the threshold hold.

        Ties in size go to the class with the lower information loss when the
        metric defines one, then to the class whose first record comes first
        (class ids follow first appearance), as ARX orders them. If no prefix
        works, every class is suppressed (as ARX's output does); the caller
        compares the suppressed total with the limit.
        """
        sizes = table.sizes
        if self.released_ok(sizes[~suppressed]):
            return suppressed
        keep = np.flatnonzero(~suppressed)
        keys = (keep,) if class_loss is None else (keep, class_loss[keep])
        order = keep[np.lexsort((*keys, sizes[keep]))]
        lo, hi, best = 1, len(order), len(order)
        while lo <= hi:
            mid = (lo + hi) // 2
            trial = suppressed.copy()
            trial[order[:mid]] = True
            if self.released_ok(sizes[~trial]):
                best, hi = mid, mid - 1
            else:
                lo = mid + 1
        out = suppressed.copy()
        out[order[:best]] = True
        return out


@register
class AverageReidentificationRisk(_RiskModel):
    """Average prosecutor re-identification risk (classes / records) at most a threshold."""

    key = "average-reidentification-risk"
    label = "average re-identification risk"
    params = (
        Param(
            "threshold",
            "float",
            0.05,
            0.0,
            1.0,
            help="Largest average risk",
            min_inclusive=False,
            required=True,
        ),
    )
    description = "An attacker who knows a person is in the table re-identifies on average at most this share of records."

    def measure(self, table: ClassTable, state: Any) -> np.ndarray:
        return 1.0 / table.sizes

    def released_ok(self, sizes: np.ndarray) -> bool:
        total = sizes.sum()
        # ARX: 1 / (R / C) <= t; with nothing left the risk is undefined (not fulfilled).
        return bool(total > 0 and 1.0 / (float(total) / len(sizes)) <= self.threshold)


@register
class SampleUniqueness(_RiskModel):
    """Share of records that are unique in the sample at most a threshold."""

    key = "sample-uniqueness"
    label = "sample uniqueness"
    params = (
        Param(
            "threshold",
            "float",
            0.01,
            0.0,
            1.0,
            help="Largest share of unique records",
            required=True,
        ),
    )
    description = "At most this share of records is unique on the quasi-identifiers."

    def measure(self, table: ClassTable, state: Any) -> np.ndarray:
        return (table.sizes == 1).astype(float)

    def released_ok(self, sizes: np.ndarray) -> bool:
        total = sizes.sum()
        return bool(total > 0 and float((sizes == 1).sum()) / float(total) <= self.threshold)
