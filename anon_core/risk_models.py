"""Sample-based privacy models: thresholds on re-identification risk of the whole release.

Unlike class-based models they judge the released table as a whole. When a
threshold is not met, ARX suppresses whole classes, smallest first (ties: the
class whose first record comes first), within the suppression limit, until it
is; the fewest such classes are found by bisection.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .frequency import ClassTable
from .models import Param, PrivacyModel, register


class _RiskModel(PrivacyModel):
    sample_based = True
    # ARX declares both monotonic (RiskBasedCriterion(true, true, threshold)).
    monotonic_generalization = True
    monotonic_suppression = True

    def class_ok(self, table: ClassTable, state: Any) -> np.ndarray:
        return np.ones(table.n_classes, dtype=bool)

    def released_ok(self, sizes: np.ndarray) -> bool:
        """Does the release with these (non-suppressed) class sizes meet the threshold?"""
        raise NotImplementedError

    def enforce(self, table: ClassTable, suppressed: np.ndarray, budget: int) -> tuple[np.ndarray, bool]:
        """Suppress smallest classes first until the threshold holds; ``budget`` records at most."""
        sizes = table.sizes
        if self.released_ok(sizes[~suppressed]):
            return suppressed, True
        keep = np.flatnonzero(~suppressed)
        # Class ids follow first appearance in the data, so a stable sort breaks
        # size ties by first record, as ARX does.
        order = keep[np.argsort(sizes[keep], kind="stable")]
        cum_supp = np.cumsum(sizes[order])
        feasible = np.searchsorted(cum_supp, budget, side="right")
        # Check prefixes of the smallest-first order by bisection on the count removed.
        lo, hi = 1, int(feasible)
        best = None
        while lo <= hi:
            mid = (lo + hi) // 2
            trial = suppressed.copy()
            trial[order[:mid]] = True
            if self.released_ok(sizes[~trial]):
                best, hi = trial, mid - 1
            else:
                lo = mid + 1
        if best is None:
            return suppressed, False
        return best, True


@register
class AverageReidentificationRisk(_RiskModel):
    """Average prosecutor re-identification risk (classes / records) at most a threshold."""

    key = "average-reidentification-risk"
    label = "average re-identification risk"
    params = (Param("threshold", "float", 0.05, 0.0, 1.0, help="Largest average risk", min_inclusive=False),)
    description = "An attacker who knows a person is in the table re-identifies on average at most this share of records."

    def measure(self, table: ClassTable, state: Any) -> np.ndarray:
        return 1.0 / table.sizes

    def released_ok(self, sizes: np.ndarray) -> bool:
        total = sizes.sum()
        return total == 0 or len(sizes) / total <= self.threshold + 1e-12


@register
class SampleUniqueness(_RiskModel):
    """Share of records that are unique in the sample at most a threshold."""

    key = "sample-uniqueness"
    label = "sample uniqueness"
    params = (Param("threshold", "float", 0.01, 0.0, 1.0, help="Largest share of unique records"),)
    description = "At most this share of records is unique on the quasi-identifiers."

    def measure(self, table: ClassTable, state: Any) -> np.ndarray:
        return (table.sizes == 1).astype(float)

    def released_ok(self, sizes: np.ndarray) -> bool:
        total = sizes.sum()
        return total == 0 or (sizes == 1).sum() / total <= self.threshold + 1e-12
