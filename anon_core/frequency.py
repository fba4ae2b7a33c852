"""Frequency table and class tables (data path steps 4-5).

The frequency table holds the distinct tuples of QI codes with their record
counts and, per sensitive attribute, the counts of each sensitive value (sparse,
as (tuple, value, count) triplets). It is the only structure whose cost grows
with the number of rows; evaluating a transformation maps tuple codes through
the hierarchy arrays and groups them on a mixed-radix key.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .dataset import Dataset
from .errors import ConfigError

_MAX_DENSE = 1 << 24  # cells of a dense (classes x values) block


def group_rows(columns: Sequence[np.ndarray], radices: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """Group rows of integer columns. Returns (group id per row, index of each group's first row).

    Ids are dense and in order of first appearance, so results are deterministic.
    """
    n = len(columns[0]) if columns else 0
    if not columns:
        return np.zeros(n, dtype=np.int64), np.zeros(min(n, 1), dtype=np.int64)
    key = columns[0].astype(np.int64, copy=True)
    span = max(int(radices[0]), 1)
    for col, r in zip(columns[1:], radices[1:], strict=True):
        r = max(int(r), 1)
        if span * r >= (1 << 62):
            key, uniq = pd.factorize(key, sort=False)
            key = key.astype(np.int64)
            span = len(uniq)
        key = key * r + col
        span *= r
    inverse, _ = pd.factorize(key, sort=False)
    inverse = inverse.astype(np.int64)
    # factorize numbers groups by first appearance: row i opens a group exactly
    # when its id exceeds every id before it.
    running_max = np.maximum.accumulate(inverse)
    first = np.flatnonzero(np.r_[True, inverse[1:] > running_max[:-1]])
    return inverse, first


@dataclass(frozen=True, eq=False)
class SensitiveCounts:
    """Sparse counts of one sensitive attribute per tuple: (tuple, value, count)."""

    tuple_idx: np.ndarray
    value: np.ndarray
    count: np.ndarray
    cardinality: int
    global_counts: np.ndarray  # counts of each value over all records


class FrequencyTable:
    """Distinct QI tuples with counts and sensitive-value counts (built once per dataset + roles)."""

    def __init__(self, dataset: Dataset) -> None:
        self.dataset = dataset
        self.qis = list(dataset.qis)
        self.n_records = dataset.n_rows
        cols = [dataset.columns[q].codes for q in self.qis]
        radices = [dataset.columns[q].cardinality for q in self.qis]
        if cols:
            self.row_tuple, first = group_rows(cols, radices)
            self.tuples = np.column_stack([c[first] for c in cols]).astype(np.int32)
        else:
            self.row_tuple = np.zeros(self.n_records, dtype=np.int64)
            self.tuples = np.zeros((1, 0), dtype=np.int32)
        self.n_tuples = len(self.tuples)
        self.counts = np.bincount(self.row_tuple, minlength=self.n_tuples).astype(np.int64)
        # Per QI: records per original value (non-uniform entropy needs it).
        self.value_counts = {
            q: np.bincount(dataset.columns[q].codes, minlength=dataset.columns[q].cardinality)
            for q in self.qis
        }
        self.sensitive: dict[str, SensitiveCounts] = {}
        for s in dataset.sensitive:
            col = dataset.columns[s]
            m = col.cardinality
            key = self.row_tuple * m + col.codes
            uniq, cnt = np.unique(key, return_counts=True)
            self.sensitive[s] = SensitiveCounts(
                tuple_idx=uniq // m,
                value=(uniq % m).astype(np.int64),
                count=cnt.astype(np.int64),
                cardinality=m,
                global_counts=np.bincount(col.codes, minlength=m).astype(np.int64),
            )
        self._cache: OrderedDict[tuple[int, ...], ClassTable] = OrderedDict()
        self.cache_size = 64
        # Generalized tuple codes per QI and level, contiguous: grouping a
        # transformation then only combines precomputed columns.
        self._gen_codes: list[list[np.ndarray | None]] = [
            [None] * dataset.hierarchy(q).height for q in self.qis
        ]

    # ----------------------------------------------------------------- evaluate
    def check_levels(self, levels: Mapping[str, int] | Sequence[int]) -> tuple[int, ...]:
        """Normalise a transformation to a tuple of levels in QI order, validated."""
        if isinstance(levels, Mapping):
            unknown = [a for a in levels if a not in self.qis]
            if unknown:
                raise ConfigError(
                    f"'transformation' names {unknown}, which are not quasi-identifiers "
                    f"({self.qis}). Give one level per quasi-identifier."
                )
            absent = [q for q in self.qis if q not in levels]
            if absent:
                raise ConfigError(f"'transformation' has no level for {absent}. Give one level per quasi-identifier.")
            levels = [levels[q] for q in self.qis]
        levels = tuple(int(v) for v in levels)
        if len(levels) != len(self.qis):
            raise ConfigError(f"A transformation needs {len(self.qis)} levels, got {len(levels)}.")
        for q, lv in zip(self.qis, levels, strict=True):
            h = self.dataset.hierarchy(q).height
            if not 0 <= lv < h:
                raise ConfigError(
                    f"'transformation.{q}' must be between 0 and {h - 1} (its hierarchy has {h} levels), got {lv}."
                )
        return levels

    def classes(self, levels: Mapping[str, int] | Sequence[int]) -> ClassTable:
        """Equivalence classes of a transformation, rolled up from a cached finer one if possible."""
        lv = self.check_levels(levels)
        hit = self._cache.get(lv)
        if hit is not None:
            self._cache.move_to_end(lv)
            return hit
        base = None
        if self._cache:
            keys = list(self._cache)
            finer = (np.asarray(keys) <= np.asarray(lv)).all(axis=1)
            for i in np.flatnonzero(finer):
                cand = self._cache[keys[i]]
                if base is None or cand.n_classes < base.n_classes:
                    base = cand
        table = self._rollup(base, lv) if base is not None and base.n_classes < self.n_tuples // 2 else self._group(lv)
        self._cache[lv] = table
        if len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)
        return table

    def generalized(self, j: int, level: int) -> np.ndarray:
        """Codes of QI ``j`` at ``level`` for every tuple (computed once, contiguous)."""
        col = self._gen_codes[j][level]
        if col is None:
            enc = self.dataset.hierarchy(self.qis[j])
            col = np.ascontiguousarray(enc.maps[level][self.tuples[:, j]])
            self._gen_codes[j][level] = col
        return col

    def _group(self, lv: tuple[int, ...]) -> ClassTable:
        hs = [self.dataset.hierarchy(q) for q in self.qis]
        cols = [self.generalized(j, level) for j, level in enumerate(lv)]
        radices = [h.cardinality(level) for h, level in zip(hs, lv, strict=True)]
        tuple_class, first = group_rows(cols, radices) if cols else (np.zeros(self.n_tuples, np.int64), np.zeros(1, np.int64))
        codes = np.column_stack([c[first] for c in cols]) if cols else np.zeros((len(first), 0), np.int32)
        return ClassTable(self, lv, codes, tuple_class)

    def _rollup(self, base: ClassTable, lv: tuple[int, ...]) -> ClassTable:
        hs = [self.dataset.hierarchy(q) for q in self.qis]
        cols = [
            h.up(src, dst)[base.codes[:, j]]
            for j, (h, src, dst) in enumerate(zip(hs, base.levels, lv, strict=True))
        ]
        radices = [h.cardinality(level) for h, level in zip(hs, lv, strict=True)]
        inv, first = group_rows(cols, radices)
        codes = np.column_stack([c[first] for c in cols])
        return ClassTable(self, lv, codes, inv[base.tuple_class])


@dataclass(eq=False)
class ClassTable:
    """Equivalence classes of one transformation: codes, sizes, sensitive histograms."""

    freq: FrequencyTable
    levels: tuple[int, ...]
    codes: np.ndarray  # (classes, qis) generalized codes
    tuple_class: np.ndarray  # class of each frequency-table tuple
    _hist: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = field(default_factory=dict, repr=False)
    sizes: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        self.sizes = np.bincount(self.tuple_class, weights=self.freq.counts, minlength=len(self.codes)).astype(np.int64)

    @property
    def n_classes(self) -> int:
        return len(self.codes)

    def sparse_hist(self, attribute: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per-class counts of sensitive values as sorted (class, value, count) triplets."""
        hit = self._hist.get(attribute)
        if hit is None:
            sc = self.freq.sensitive[attribute]
            m = sc.cardinality
            key = self.tuple_class[sc.tuple_idx] * m + sc.value
            if self.n_classes * m <= _MAX_DENSE:
                dense = np.bincount(key, weights=sc.count, minlength=self.n_classes * m)
                nz = np.flatnonzero(dense)
                hit = (nz // m, nz % m, dense[nz].astype(np.int64))
            else:
                uniq, inv = np.unique(key, return_inverse=True)
                cnt = np.bincount(inv, weights=sc.count).astype(np.int64)
                hit = (uniq // m, uniq % m, cnt)
            self._hist[attribute] = hit
        return hit

    def dense_hist(self, attribute: str) -> Iterator[tuple[int, np.ndarray]]:
        """Yield (first class, dense counts block of shape (classes, values)) in bounded memory."""
        cls, val, cnt = self.sparse_hist(attribute)
        m = self.freq.sensitive[attribute].cardinality
        step = max(1, _MAX_DENSE // max(m, 1))
        for start in range(0, self.n_classes, step):
            stop = min(start + step, self.n_classes)
            lo, hi = np.searchsorted(cls, [start, stop])
            block = np.zeros((stop - start) * m, dtype=np.int64)
            block[(cls[lo:hi] - start) * m + val[lo:hi]] = cnt[lo:hi]
            yield start, block.reshape(stop - start, m)

    def distinct_values(self, attribute: str) -> np.ndarray:
        cls, _, _ = self.sparse_hist(attribute)
        return np.bincount(cls, minlength=self.n_classes)

    def record_class(self) -> np.ndarray:
        """Class of every input row (for applying the transformation)."""
        return self.tuple_class[self.freq.row_tuple]
