"""Frequency table and class tables (data path steps 4-5).

The frequency table holds the distinct tuples of QI codes with their record
counts and, per sensitive attribute, the counts of each sensitive value (sparse,
as (tuple, value, count) triplets). It is the only structure whose cost grows
with the number of rows; evaluating a transformation maps tuple codes through
the hierarchy arrays and groups them on a mixed-radix key.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from anon_core.data import kernels
from anon_core.data.class_cache import ClassCache
from anon_core.data.dataset import Dataset
from anon_core.errors import ConfigError

#: Cells of a dense (classes x values) block of sensitive counts (8 MB of float64): such blocks
#: are made only while a model reads them, never kept.
BLOCK_CELLS = 1 << 20
#: Smallest tables grouped by the compiled kernels (loading them costs about a second of CPU).
KERNEL_MIN_ROWS = 10_000
KERNEL_MIN_TUPLES = 1_000

try:  # pandas' hash-table factorization without the public wrapper's checks (~35 µs a call)
    from pandas.core.algorithms import factorize_array as _factorize_array
except ImportError:  # pragma: no cover - a pandas that moved it: use the public function
    _factorize_array = None


def _fits(radices: Sequence[int]) -> bool:
    """Does a mixed-radix key over these radices fit in 62 bits (the kernels' key)?"""
    span = 1
    for r in radices:
        span *= max(int(r), 1)
    return span < (1 << 62)


def factorize_int(key: np.ndarray) -> tuple[np.ndarray, int]:
    """Dense ids of int64 keys in order of first appearance, and how many distinct keys."""
    if _factorize_array is not None:
        codes, uniques = _factorize_array(key)
    else:  # pragma: no cover
        codes, uniques = pd.factorize(key, sort=False)
    return codes.astype(np.int64, copy=False), len(uniques)


def group_rows(
    columns: Sequence[np.ndarray], radices: Sequence[int]
) -> tuple[np.ndarray, np.ndarray]:
    """Group rows of integer columns: (group id per row, index of each group's first row); ids
    are dense and in order of first appearance, so results are deterministic."""
    n = len(columns[0]) if columns else 0
    if not columns:
        return np.zeros(n, dtype=np.int64), np.zeros(min(n, 1), dtype=np.int64)
    key = columns[0].astype(np.int64, copy=True)
    span = max(int(radices[0]), 1)
    for col, r in zip(columns[1:], radices[1:], strict=True):
        r = max(int(r), 1)
        if span * r >= (1 << 62):
            codes, uniq = pd.factorize(key, sort=False)
            key = codes.astype(np.int64)
            span = len(uniq)
        np.multiply(key, r, out=key)
        np.add(key, col, out=key)
        span *= r
    inverse, n_groups = factorize_int(key)
    return inverse, first_rows(inverse, n_groups)


def first_rows(inverse: np.ndarray, n_groups: int) -> np.ndarray:
    """Index of the first row of each group, for ids numbered by first appearance (such ids
    open a new group exactly where an id exceeds every id before it)."""
    if len(inverse) == 0:
        return np.zeros(0, dtype=np.int64)
    running_max = np.maximum.accumulate(inverse)
    opens = np.empty(len(inverse), dtype=bool)
    opens[0] = True
    np.greater(inverse[1:], running_max[:-1], out=opens[1:])
    first = np.flatnonzero(opens)
    assert len(first) == n_groups
    return first


@dataclass(frozen=True, eq=False)
class SensitiveCounts:
    """Sparse counts of one sensitive attribute per tuple: (tuple, value, count)."""

    tuple_idx: np.ndarray
    value: np.ndarray
    count: np.ndarray
    cardinality: int
    global_counts: np.ndarray  # counts of each value over all records


class _Lazy(Mapping):
    """A read-only mapping of ``make(owner, key)``, computed on first access, the owner held
    weakly (a bound method would make a cycle keeping its arrays until a full collection)."""

    def __init__(self, keys: Sequence[str], owner: object, make) -> None:
        self._keys = list(keys)
        self._owner = weakref.ref(owner)
        self._make = make
        self._values: dict[str, object] = {}

    def __getitem__(self, key: str):
        if key not in self._values:
            if key not in self._keys:
                raise KeyError(key)
            owner = self._owner()
            if owner is None:  # read after its table was freed
                raise ReferenceError("the frequency table of these counts no longer exists")
            self._values[key] = self._make(owner, key)
        return self._values[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)


class FrequencyTable:
    """Distinct QI tuples with counts and sensitive-value counts (built once per dataset + roles)."""

    def __init__(self, dataset: Dataset, compiled: bool | None = None) -> None:
        """``compiled``: use the compiled kernels (None: where the table is large enough to
        repay loading them; False: numpy's path only)."""
        self.dataset = dataset
        self._allow_kernels = kernels.AVAILABLE and compiled is not False
        self.qis = list(dataset.qis)
        self.n_records = dataset.n_rows
        w = dataset.weights  # None: one record per row
        if w is None:  # the grouping depends on the codes alone: shared per frame and QIs
            grouped = dataset.frame_codes.memo(("tuples", tuple(self.qis)), self._group_rows)
        else:
            grouped = self._group_rows()
        self.row_tuple, self.tuples, counts = grouped
        self.n_tuples = len(self.tuples)

        self.counts = self._count(self.row_tuple, self.n_tuples) if counts is None else counts
        # Per QI: records per original value (non-uniform entropy needs it); per sensitive
        # attribute: its (tuple, value, count) triplets. Both computed when first read.
        cls = FrequencyTable
        self.value_counts: Mapping[str, np.ndarray] = _Lazy(self.qis, self, cls._value_counts)
        make = cls._shared_sensitive_counts if w is None else cls._sensitive_counts
        self.sensitive: Mapping[str, SensitiveCounts] = _Lazy(dataset.sensitive, self, make)
        # Class tables kept for roll-up, bounded by the bytes they hold (histograms included).
        self._cache = ClassCache(1024, len(self.qis))
        # Generalized tuple codes per QI and level, one contiguous row each (filled when
        # first used): grouping a transformation then only combines precomputed rows.
        self._hierarchies = [dataset.hierarchy(q) for q in self.qis]
        heights = [h.height for h in self._hierarchies]
        self._gen_offset = np.concatenate(([0], np.cumsum(heights)[:-1])).astype(np.int64)
        self._gen = np.empty((int(sum(heights)), self.n_tuples), dtype=np.int32)
        self._gen_filled = [False] * int(sum(heights))
        self._gen_unfilled = int(sum(heights))  # rows not filled yet
        self._gen_start = [int(x) for x in self._gen_offset]
        self._weighted_codes: list[list[np.ndarray | None]] = [[None] * h for h in heights]
        # Cardinality of every QI's every level (radices of a transformation's key, one gather).
        self._card = np.ones((len(self.qis), max(heights, default=1)), dtype=np.int64)
        for j, h in enumerate(self._hierarchies):
            self._card[j, : h.height] = [max(h.cardinality(level), 1) for level in range(h.height)]
        self._qidx = np.arange(len(self.qis))
        cards = [int(c) for c in self._card[:, 0]]
        # No level has more codes than level 0, so when level 0's key fits every level's does.
        fits = float(np.prod(np.asarray(cards, dtype=float))) < 2.0**62
        self._all_fit = fits
        self._strides = (
            np.concatenate(([1], np.cumprod(cards[:-1]))).astype(np.int64)
            if fits and cards
            else None
        )
        # Compiled kernels where they repay loading them; numpy's path otherwise (tests compare both).
        self.use_kernels = self._allow_kernels and self.n_tuples >= KERNEL_MIN_TUPLES
        self._injective: bool | None = None
        self._qi_counts: list[np.ndarray] | None = None  # records per code, every QI at once

    def _group_rows(self) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """(tuple of each row, the distinct tuples' codes, records per tuple or None)."""
        dataset, w = self.dataset, self.dataset.weights
        cols = [dataset.columns[q].codes for q in self.qis]
        radices = [dataset.columns[q].cardinality for q in self.qis]
        n_rows = len(dataset.frame)
        if cols and self._allow_kernels and n_rows >= KERNEL_MIN_ROWS and _fits(radices):
            stacked = np.stack(cols)
            ones = np.ones(n_rows, dtype=np.int64) if w is None else w
            row_tuple, first, counts = kernels.group_levels(
                stacked, np.arange(len(cols), dtype=np.int64), np.asarray(radices), ones
            )
            return row_tuple, kernels.rows_at(stacked, first), counts
        if cols:
            row_tuple, first = group_rows(cols, radices)
            return row_tuple, np.column_stack([c[first] for c in cols]).astype(np.int32), None
        return np.zeros(n_rows, dtype=np.int64), np.zeros((1, 0), dtype=np.int32), None

    def _count(self, ids: np.ndarray, n: int) -> np.ndarray:
        # Unweighted counts are int64 already: no copy (a large one costs page faults too).
        counts = np.bincount(ids, weights=self.dataset.weights, minlength=n)
        return counts.astype(np.int64, copy=False)

    def release_classes(self) -> None:
        """Drop the cached class tables: they refer back to this table (a reference cycle)."""
        self._cache.clear()

    def _value_counts(self, q: str) -> np.ndarray:
        col = self.dataset.columns[q]
        if self.use_kernels:  # every QI's counts in one pass over the tuples, not the rows
            if self._qi_counts is None:
                cards = [self.dataset.columns[x].cardinality for x in self.qis]
                self._qi_counts = kernels.column_counts(self.tuples, self.counts, cards)
            return self._qi_counts[self.qis.index(q)].copy()
        return self._count(col.codes, col.cardinality)

    def _shared_sensitive_counts(self, s: str) -> SensitiveCounts:
        """The counts of ``s``, shared by every table of the same frame and QIs."""
        key = ("sensitive", tuple(self.qis), s)
        return self.dataset.frame_codes.memo(key, lambda: self._sensitive_counts(s))

    def _sensitive_counts(self, s: str) -> SensitiveCounts:
        col = self.dataset.columns[s]
        m = col.cardinality
        key = self.row_tuple * m + col.codes
        if self.n_tuples * m <= max(4 * len(key), 1 << 20):  # sorted pairs by counting
            per_key = self._count(key, self.n_tuples * m)
            uniq = np.flatnonzero(per_key != 0)  # a boolean mask's nonzero is the fast one
            pair_counts = per_key[uniq]
        else:
            uniq, inverse = np.unique(key, return_inverse=True)
            pair_counts = self._count(inverse.ravel(), len(uniq))
        tuple_idx = uniq // m
        return SensitiveCounts(
            tuple_idx=tuple_idx,
            value=(uniq - tuple_idx * m).astype(np.int64),  # uniq % m, without the modulo
            count=pair_counts,
            cardinality=m,
            global_counts=self._count(col.codes, m),
        )

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
                raise ConfigError(
                    f"'transformation' has no level for {absent}. Give one level per quasi-identifier."
                )
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

    def classes(
        self, levels: Mapping[str, int] | Sequence[int], validate: bool = True
    ) -> ClassTable:
        """Equivalence classes of a transformation, rolled up from a cached finer one if possible.

        ``validate=False`` skips the level checks (for levels the search made itself).
        """
        lv = self.check_levels(levels) if validate else tuple(map(int, levels))
        hit = self._cache.get(lv)
        if hit is not None:
            return hit
        base = self._cache.finest_below(lv, self.use_kernels)
        table = (
            self._rollup(base, lv)
            if base is not None and base.n_classes < self.n_tuples
            else self._group(lv)
        )
        self._cache.put(lv, table)
        return table

    def generalized(self, j: int, level: int) -> np.ndarray:
        """Codes of QI ``j`` at ``level`` for every tuple (computed once, contiguous)."""
        row = int(self._gen_offset[j]) + level
        if not self._gen_filled[row]:
            enc = self.dataset.hierarchy(self.qis[j])
            # Codes index their level-0 map by construction: 'clip' never clips, and unlike
            # 'raise' it writes into ``out`` without a buffer.
            np.take(enc.maps[level], self.tuples[:, j], out=self._gen[row], mode="clip")
            self._gen_filled[row] = True
            self._gen_unfilled -= 1
        return self._gen[row]

    def generalized_levels(
        self, lower: Sequence[int], upper: Sequence[int]
    ) -> tuple[np.ndarray, np.ndarray]:
        """Every tuple's codes at every level between ``lower`` and ``upper`` (per QI), rows not
        filled yet filled in one compiled pass: (the table of :meth:`generalized` rows, QI
        ``j``'s level ``h`` at row ``offset[j] + h``; the offsets). Shared, not to be written."""
        qi = np.full(len(self._gen), -1, dtype=np.int64)
        start = np.zeros(len(self._gen), dtype=np.int64)
        maps, at = [], 0
        for j, h in enumerate(self._hierarchies):
            for v in range(int(lower[j]), int(upper[j]) + 1):
                row = self._gen_start[j] + v
                if not self._gen_filled[row]:
                    qi[row], start[row] = j, at
                    maps.append(h.maps[v])
                    at += len(h.maps[v])
        if maps:
            flat = np.concatenate(maps).astype(np.int32, copy=False)
            kernels.fill_levels(self._gen, np.ascontiguousarray(self.tuples), qi, flat, start)
            for row in np.flatnonzero(qi >= 0).tolist():  # marked once written
                self._gen_filled[row] = True
                self._gen_unfilled -= 1
        return self._gen, self._gen_offset

    def generalized_of(self, j: int, level: int, tuples: np.ndarray) -> np.ndarray:
        """``generalized(j, level)[tuples]``; a few tuples are read straight through the
        hierarchy, with no pass over every tuple when their row is not filled yet."""
        row = int(self._gen_offset[j]) + level
        if self._gen_filled[row] or 8 * len(tuples) >= self.n_tuples:
            return self.generalized(j, level)[tuples]
        return self._hierarchies[j].maps[level][self.tuples[tuples, j]]

    def _level0_injective(self) -> bool:
        """Do the hierarchies keep distinct data values distinct at level 0 (so tuples stay apart)?"""
        if self._injective is None:
            self._injective = all(
                len(np.unique(self.dataset.hierarchy(q).maps[0]))
                == len(self.dataset.hierarchy(q).maps[0])
                for q in self.qis
            )
        return self._injective

    def _weighted(self, j: int, level: int) -> np.ndarray:
        """Codes of QI ``j`` at ``level`` times its fixed stride (computed once).

        Strides come from the level-0 cardinalities, which no level exceeds, so
        the sum over QIs is a unique key for every level vector.
        """
        col = self._weighted_codes[j][level]
        if col is None:
            col = self.generalized(j, level).astype(np.int64) * int(self._strides[j])
            self._weighted_codes[j][level] = col
        return col

    def _rows(self, lv: tuple[int, ...]) -> np.ndarray:
        """Rows of the generalized codes of a transformation's levels (filled if needed)."""
        if self._gen_unfilled:
            for j, level in enumerate(lv):
                if not self._gen_filled[self._gen_start[j] + level]:
                    self.generalized(j, level)
        return self._gen_offset + np.asarray(lv, dtype=np.int64)

    def _group(self, lv: tuple[int, ...]) -> ClassTable:
        if lv and not any(lv) and self._level0_injective():
            # Every tuple is its own class at level 0 (tuples are distinct there).
            first = np.arange(self.n_tuples, dtype=np.int64)
            table = ClassTable(self, lv, None, self.counts.copy(), tuple_class=first.copy())
            table.set_rep(first)
            return table
        if self.use_kernels and lv and self._all_fit:
            rows = self._rows(lv)
            radices = self._card[self._qidx, lv]
            tuple_class, first, sizes = kernels.group_levels(self._gen, rows, radices, self.counts)
            table = ClassTable(self, lv, None, sizes, tuple_class=tuple_class)
            table.set_rep(first)
            return table
        hs = self._hierarchies
        cols = [self.generalized(j, level) for j, level in enumerate(lv)]
        radices = [h.cardinality(level) for h, level in zip(hs, lv, strict=True)]
        if self._strides is not None and cols:
            key = self._weighted(0, lv[0]).copy()
            for j in range(1, len(lv)):
                np.add(key, self._weighted(j, lv[j]), out=key)
            tuple_class, n_groups = factorize_int(key)
            first = first_rows(tuple_class, n_groups)
        elif cols:
            tuple_class, first = group_rows(cols, radices)
        else:
            tuple_class, first = np.zeros(self.n_tuples, np.int64), np.zeros(1, np.int64)
        sizes = np.bincount(tuple_class, weights=self.counts, minlength=len(first)).astype(np.int64)
        table = ClassTable(self, lv, None, sizes, tuple_class=tuple_class)
        table.set_rep(first)  # codes built only if needed (roll-up base, metrics, apply)
        return table

    def regroup(self, levels: tuple[int, ...]) -> np.ndarray:
        """Class of each tuple under a transformation, grouped afresh (not cached). Classes are
        numbered by their first tuple, so this equals what a roll-up derives."""
        return self._group(tuple(levels)).tuple_class

    def _rollup(self, base: ClassTable, lv: tuple[int, ...]) -> ClassTable:
        hs = self._hierarchies
        if self.use_kernels and self._all_fit and self.qis and base.rep is not None:
            # Each class's codes at the coarser levels, read at its representative tuple.
            rows = self._rows(lv)
            radices = self._card[self._qidx, lv]
            inv, rep, sizes = kernels.roll_up_rep(self._gen, rows, radices, base.rep, base.sizes)
            table = ClassTable(self, lv, None, sizes, parent=base, parent_class=inv)
            table.set_rep(rep)
            return table
        ups = [h.up(src, dst) for h, src, dst in zip(hs, base.levels, lv, strict=True)]
        # One gather for all QIs through the concatenated level maps.
        offsets = np.cumsum([0] + [len(u) for u in ups[:-1]])
        mapped = np.concatenate(ups)[base.codes + offsets]
        radices = np.array(
            [h.cardinality(level) for h, level in zip(hs, lv, strict=True)], dtype=np.int64
        )
        if float(np.prod(radices.astype(float))) < 2.0**62:
            strides = np.concatenate(([1], np.cumprod(radices[:-1]))).astype(np.int64)
            inv, n_groups = factorize_int(mapped @ strides)
            first = first_rows(inv, n_groups)
        else:
            inv, first = group_rows(list(mapped.T), radices)
        codes = mapped[first]
        sizes = np.bincount(inv, weights=base.sizes, minlength=len(first)).astype(np.int64)
        table = ClassTable(self, lv, codes, sizes, parent=base, parent_class=inv)
        return table


class ClassTable:
    """Equivalence classes of one transformation: codes, sizes, sensitive histograms.

    A table rolled up from a finer one keeps only the map from the finer
    table's classes (and a weak reference to it); the class of every
    frequency-table tuple is derived when first needed (sensitive histograms,
    applying), not for size-only checks. Sensitive histograms are kept sparse,
    as sorted (class, value, count) triplets: their size is bounded by the
    frequency table's (tuple, value) pairs, never classes x values. ``nbytes``
    is what the table's arrays hold; the cache that keeps it is told as it grows.
    """

    def __init__(
        self,
        freq: FrequencyTable,
        levels: tuple[int, ...],
        codes: np.ndarray | None,
        sizes: np.ndarray,
        tuple_class: np.ndarray | None = None,
        parent: ClassTable | None = None,
        parent_class: np.ndarray | None = None,
    ) -> None:
        self.freq = freq
        self.levels = levels
        self._codes = codes  # (classes, qis) generalized codes; None = build from the reps
        self.rep: np.ndarray | None = None  # a tuple of each class (its first), when known
        self.sizes = sizes
        self._tuple_class = tuple_class
        self._parent = weakref.ref(parent) if parent is not None else None
        self._parent_class = parent_class
        self._hist: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        self.cache: ClassCache | None = None  # the cache holding this table, if any
        nbytes = sizes.nbytes
        for a in (codes, tuple_class, parent_class):
            if a is not None:
                nbytes += a.nbytes
        self.nbytes = nbytes

    def _grew(self, added: tuple[np.ndarray | None, ...], dropped: tuple = ()) -> None:
        """Count arrays the table now holds (and those it let go), and tell its cache."""
        delta = 0
        for a in added:
            if a is not None:
                delta += a.nbytes
        for a in dropped:
            if a is not None:
                delta -= a.nbytes
        self.nbytes += delta
        if delta and self.cache is not None:
            self.cache.grew(self, delta)

    def set_rep(self, first: np.ndarray) -> None:
        """A tuple of each class (the first): the codes are built from them when first read."""
        self.rep = first
        self._grew((first,))

    def _live_parent(self) -> ClassTable | None:
        """The finer table this one was rolled up from, while it is still held somewhere."""
        if self._parent is None or self._parent_class is None:
            return None
        return self._parent()

    @property
    def tuple_class(self) -> np.ndarray:
        """Class of each frequency-table tuple."""
        if self._tuple_class is None:
            parent = self._live_parent()
            if parent is not None:
                self._tuple_class = self._parent_class[parent.tuple_class]
            else:  # the parent was freed: regroup (classes are numbered by first tuple either way)
                self._tuple_class = self.freq.regroup(self.levels)
            dropped = self._parent_class
            self._parent = self._parent_class = None
            self._grew((self._tuple_class,), (dropped,))
        return self._tuple_class

    @property
    def codes(self) -> np.ndarray:
        """Generalized code of each class for each QI, shape (classes, qis)."""
        if self._codes is None:
            if self.rep is None or not self.levels:
                self._codes = np.zeros((len(self.sizes), len(self.levels)), dtype=np.int32)
            else:
                rep = self.rep
                self._codes = np.column_stack(
                    [self.freq.generalized(j, lv)[rep] for j, lv in enumerate(self.levels)]
                )
            self._grew((self._codes,))
        return self._codes

    def codes_of(self, classes: np.ndarray) -> np.ndarray:
        """``codes[classes]`` (a mask or indices), without building every class's codes."""
        if self._codes is not None or self.rep is None or not self.levels:
            return self.codes[classes]
        rep = self.rep[classes]
        return np.column_stack(
            [self.freq.generalized_of(j, lv, rep) for j, lv in enumerate(self.levels)]
        )

    @property
    def n_classes(self) -> int:
        return len(self.sizes)

    def _pairs(
        self, mapping: np.ndarray, idx: np.ndarray, val: np.ndarray, cnt: np.ndarray, m: int
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Sum (mapping[idx], val, cnt) triplets into sorted, unique (class, value, count) ones."""
        if self.freq.use_kernels:
            return kernels.group_pairs(mapping, idx, val, cnt, self.n_classes, m)
        key = mapping[idx] * m + val
        if self.n_classes * m <= max(4 * len(key), 1 << 16):  # sorted by counting
            nz_counts = np.bincount(key, weights=cnt, minlength=self.n_classes * m)
            uniq = np.flatnonzero(nz_counts != 0)
            return uniq // m, uniq % m, nz_counts[uniq].astype(np.int64)
        uniq, inv = np.unique(key, return_inverse=True)
        return uniq // m, uniq % m, np.bincount(inv.ravel(), weights=cnt).astype(np.int64)

    def _aggregate(
        self, attribute: str, cls: np.ndarray, val: np.ndarray, cnt: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Sum (class, value, count) triplets into sorted, unique ones (for subclasses that
        choose their own entries, e.g. Mondrian's partition batches)."""
        m = self.freq.sensitive[attribute].cardinality
        uniq, inv = np.unique(cls * m + val, return_inverse=True)
        return uniq // m, uniq % m, np.bincount(inv.ravel(), weights=cnt).astype(np.int64)

    def sparse_hist(self, attribute: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per-class counts of sensitive values as sorted (class, value, count) triplets.

        Rolled up from the finer table's triplets while it is held (O(its entries)),
        else summed from the frequency table's (tuple, value, count) triplets; kept.
        """
        hit = self._hist.get(attribute)
        if hit is None:
            sc = self.freq.sensitive[attribute]
            parent = self._live_parent() if self._tuple_class is None else None
            if parent is not None:
                assert self._parent_class is not None
                pcls, pval, pcnt = parent.sparse_hist(attribute)
                hit = self._pairs(self._parent_class, pcls, pval, pcnt, sc.cardinality)
            else:
                hit = self._pairs(
                    self.tuple_class, sc.tuple_idx, sc.value, sc.count, sc.cardinality
                )
            self._hist[attribute] = hit
            self._grew(hit)
        return hit

    def dense_hist(self, attribute: str) -> Iterator[tuple[int, np.ndarray]]:
        """Yield (first class, dense float counts of shape (classes, values)) in blocks of at
        most :data:`BLOCK_CELLS` cells, made from the sparse triplets and never kept."""
        cls, val, cnt = self.sparse_hist(attribute)
        m = self.freq.sensitive[attribute].cardinality
        step = max(1, BLOCK_CELLS // max(m, 1))
        for start in range(0, self.n_classes, step):
            stop = min(start + step, self.n_classes)
            lo, hi = np.searchsorted(cls, [start, stop])
            block = np.zeros((stop - start) * m, dtype=np.float64)
            block[(cls[lo:hi] - start) * m + val[lo:hi]] = cnt[lo:hi]
            yield start, block.reshape(stop - start, m)

    def distinct_values(self, attribute: str) -> np.ndarray:
        cls, _, _ = self.sparse_hist(attribute)
        return np.bincount(cls, minlength=self.n_classes)

    def record_class(self) -> np.ndarray:
        """Class of every input row (for applying the transformation)."""
        return self.tuple_class[self.freq.row_tuple]
