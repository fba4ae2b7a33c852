"""t-closeness with equal, ordered and hierarchical ground distance (Li et al. 2007), as ARX defines them."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from anon_core.data import kernels
from anon_core.data.frequency import ClassTable, FrequencyTable
from anon_core.data.io import MISSING, ColumnKind, infer_kind
from anon_core.errors import ConfigError
from anon_core.params import Param
from anon_core.privacy.models import (
    ATTRIBUTE,
    SensitiveModel,
    class_shares,
    global_shares,
    register,
)


class _TCloseness(SensitiveModel):
    params = (
        ATTRIBUTE,
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
        return global_shares(freq, self.attribute)

    def measure(self, table: ClassTable, state: Any) -> np.ndarray:
        q = state
        if table.freq.use_kernels:  # one compiled pass over the sparse histograms
            cls, val, cnt = table.sparse_hist(self.attribute)
            return kernels.equal_emd(cls, val, cnt, table.sizes, q)
        cls, val, p = class_shares(table, self.attribute)
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
        q = global_shares(freq, self.attribute)
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
        global_counts = freq.sensitive[self.attribute].global_counts
        # For the sparse path: the node of each value per level, and the records under each node.
        top = enc.height - 1
        width = max((enc.cardinality(h) for h in range(1, enc.height)), default=1)
        node_of = np.zeros((top, len(global_counts)), dtype=np.int64)
        node_counts = np.zeros((top, width), dtype=np.int64)
        for h in range(1, enc.height):
            node_of[h - 1] = enc.up(0, h)
            node_counts[h - 1, : enc.cardinality(h)] = np.bincount(
                node_of[h - 1], weights=global_counts, minlength=enc.cardinality(h)
            )
        sparse = (global_counts.astype(np.int64), node_of, node_counts)
        return global_counts.astype(float), onehots, top, sparse

    def measure(self, table: ClassTable, state: Any) -> np.ndarray:
        """EMD per class from the integer extras P_i*|class| - Q_i*N, as ARX computes them.

        Per inner node, min(pos, neg) = pos - max(net, 0) with net = pos - neg, and
        the pos of a level's nodes sum to the positive extras of the level below;
        so with S_h = sum of max(extra, 0) over level h, cost = sum_h h/H (S_{h-1} - S_h).
        The extras stay integers below 2^53, exact in float64 (BLAS products).
        """
        global_counts, onehots, top, sparse = state
        total = float(global_counts.sum())
        out = np.zeros(table.n_classes)
        if top <= 0:
            return out
        if table.freq.use_kernels:  # from the sparse histograms: O(entries x levels)
            cls, val, cnt = table.sparse_hist(self.attribute)
            levels = kernels.hierarchical_levels(cls, val, cnt, table.sizes, *sparse, int(total))
            return kernels.hierarchical_cost(levels, table.sizes, total)
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
