"""l-diversity: distinct, entropy and recursive (c,l) (Machanavajjhala et al. 2007), as ARX defines them."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from anon_core.data import kernels
from anon_core.data.frequency import ClassTable
from anon_core.params import Param
from anon_core.privacy.models import ATTRIBUTE, SensitiveModel, register


@register
class DistinctLDiversity(SensitiveModel):
    """At least l distinct sensitive values per class (Machanavajjhala et al. 2007)."""

    key = "distinct-l-diversity"
    label = "distinct l-diversity"
    params = (
        ATTRIBUTE,
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
class EntropyLDiversity(SensitiveModel):
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
        ATTRIBUTE,
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
class RecursiveCLDiversity(SensitiveModel):
    """Recursive (c,l)-diversity: r1 < c * (r_l + ... + r_m), counts sorted descending.

    (Machanavajjhala et al. 2007.)
    """

    key = "recursive-cl-diversity"
    label = "recursive (c,l)-diversity"
    params = (
        ATTRIBUTE,
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

    def _top(self, table: ClassTable) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per class: r1, r_l + ... + r_m and the number of values (compiled, one pass)."""
        cls, _, cnt = table.sparse_hist(self.attribute)
        r1, tail, distinct = kernels.top_counts(cls, cnt, table.n_classes, self.l - 1)
        return r1.astype(float), tail.astype(float), distinct

    def class_ok(self, table: ClassTable, state: Any) -> np.ndarray:
        if table.freq.use_kernels:
            r1, tail, distinct = self._top(table)
            return (distinct >= self.l) & (r1 < self.c * tail)
        cls, cnt, rank = self._ranked(table)
        r1 = np.zeros(table.n_classes)
        r1[cls[rank == 0]] = cnt[rank == 0]
        tail = np.bincount(
            cls[rank >= self.l - 1], weights=cnt[rank >= self.l - 1], minlength=table.n_classes
        )
        distinct = np.bincount(cls, minlength=table.n_classes)
        return (distinct >= self.l) & (r1 < self.c * tail)
