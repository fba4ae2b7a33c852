"""k-anonymity: every class holds at least k records (Sweeney 2002)."""

from __future__ import annotations

from typing import Any

import numpy as np

from anon_core.data.frequency import ClassTable
from anon_core.params import Param
from anon_core.privacy.models import PrivacyModel, register


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
