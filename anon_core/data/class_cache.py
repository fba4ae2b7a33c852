"""The frequency table's cache of class tables, bounded by bytes.

Class tables are kept so that a coarser transformation rolls up from a finer
one instead of regrouping every tuple. What a table holds grows after it is
cached (codes, the class of every tuple, sensitive histograms are computed when
first read), so each table reports its size as it grows and the cache evicts
the least recently used tables until the total fits its budget. A table's
finer parent is only weakly referenced by it: an evicted table is freed, and a
table that needs it again regroups from the frequency table (same numbering).

Tables live in slot arrays (levels, class counts, last use), so the finest
cached table at or below a transformation is found with one vectorized
comparison (or one compiled loop).
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from anon_core.data import kernels

_NO_TABLE = np.iinfo(np.int64).max
_FREE_LEVEL = np.iinfo(np.int16).max  # a free slot is below no transformation
#: Default budget of the class-table cache (bytes of arrays held by cached tables).
DEFAULT_BUDGET = 192 * 1024 * 1024


class Sized(Protocol):
    """What the cache needs of a class table."""

    levels: tuple[int, ...]
    nbytes: int
    cache: ClassCache | None

    @property
    def n_classes(self) -> int: ...


class ClassCache:
    """LRU cache of class tables bounded by count (``capacity``) and by bytes (``budget``)."""

    def __init__(self, capacity: int, n_qis: int, budget: int = DEFAULT_BUDGET) -> None:
        self.capacity = max(int(capacity), 1)
        self.budget = int(budget)
        self.levels = np.full((self.capacity, n_qis), _FREE_LEVEL, dtype=np.int16)
        self.n_classes = np.full(self.capacity, _NO_TABLE, dtype=np.int64)
        self.tick = np.full(self.capacity, _NO_TABLE, dtype=np.int64)
        self.tables: list[Sized | None] = [None] * self.capacity
        self.slot: dict[tuple[int, ...], int] = {}
        self.free = list(range(self.capacity - 1, -1, -1))  # popped from the end: slot 0 first
        self.filled = 0  # slots ever used: the comparisons look at these only
        self.clock = 0
        self.bytes = 0  # arrays held by the cached tables

    def get(self, lv: tuple[int, ...]) -> Sized | None:
        i = self.slot.get(lv)
        if i is None:
            return None
        self.clock += 1
        self.tick[i] = self.clock
        return self.tables[i]

    def finest_below(self, lv: tuple[int, ...], compiled: bool = False) -> Sized | None:
        """The cached table with the fewest classes among those at or below ``lv``
        (the first such slot on ties)."""
        if not self.slot:
            return None
        n = self.filled
        target = np.asarray(lv, dtype=np.int16)
        if compiled:
            i = kernels.finest_below(self.levels, self.n_classes, n, target)
            return None if i < 0 else self.tables[i]
        below = (self.levels[:n] <= target).all(axis=1)
        if not below.any():
            return None
        return self.tables[int(np.argmin(np.where(below, self.n_classes[:n], _NO_TABLE)))]

    def put(self, lv: tuple[int, ...], table: Sized) -> None:
        if lv in self.slot:
            self._evict(self.slot[lv])
        while self.slot and (not self.free or self.bytes + table.nbytes > self.budget):
            self._evict(int(np.argmin(self.tick[: self.filled])))  # the least recently used
        i = self.free.pop()
        self.filled = max(self.filled, i + 1)
        self.clock += 1
        self.levels[i] = lv
        self.n_classes[i] = table.n_classes
        self.tick[i] = self.clock
        self.tables[i] = table
        self.slot[lv] = i
        table.cache = self
        self.bytes += table.nbytes

    def grew(self, table: Sized, delta: int) -> None:
        """A cached table now holds ``delta`` more bytes: evict others until the total fits."""
        self.bytes += delta
        keep = self.slot.get(table.levels)
        while self.bytes > self.budget and len(self.slot) > 1:
            ticks = self.tick[: self.filled].copy()
            if keep is not None:
                ticks[keep] = _NO_TABLE  # never the table that is growing
            self._evict(int(np.argmin(ticks)))

    def _evict(self, i: int) -> None:
        table = self.tables[i]
        assert table is not None
        del self.slot[table.levels]
        self.bytes -= table.nbytes
        table.cache = None
        self.tables[i] = None
        self.levels[i] = _FREE_LEVEL
        self.n_classes[i] = _NO_TABLE
        self.tick[i] = _NO_TABLE
        self.free.append(i)

    def clear(self) -> None:
        for table in self.tables:
            if table is not None:
                table.cache = None
        self.__init__(self.capacity, self.levels.shape[1], self.budget)  # type: ignore[misc]

    def __len__(self) -> int:
        return len(self.slot)
