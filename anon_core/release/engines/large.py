"""A table too large for memory, opened by path: what the dashboard's workspace holds instead of the rows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from anon_core.release.engines.base import Engine, GroupedTable, Progress, TableSource, no_progress

#: Rows of the seeded sample that row-level views (preview, profile, PII, DP, ML) work on.
SAMPLE_ROWS = 50_000


class LargeTable:
    """An engine and a file: groups on demand (cached per column set) and keeps a seeded sample.

    Frequency tables, search, risk and the release read every row through the
    engine; previews and row-level analyses use :attr:`sample`.
    """

    def __init__(
        self, source: TableSource, engine: Engine, sample_rows: int = SAMPLE_ROWS, seed: int = 0
    ) -> None:
        self.source = source
        self.engine = engine
        self.sample: pd.DataFrame = engine.sample(source, sample_rows, seed)[list(source.columns)]
        self._groups: dict[tuple[str, ...], GroupedTable] = {}
        self._rows: int | None = None
        #: The table as opened, when this one reads it with a derived column (:meth:`located`).
        self.origin: LargeTable | None = None

    @classmethod
    def open(
        cls,
        path: str | Path,
        engine: str = "duckdb",
        separator: str | None = None,
        encoding: str | None = None,
        options: dict[str, Any] | None = None,
        sample_rows: int = SAMPLE_ROWS,
    ) -> LargeTable:
        from anon_core.release.engines import get_engine

        source = TableSource.open(path, separator, encoding)
        return cls(source, get_engine(engine, options), sample_rows)

    def located(self, source: TableSource, sample: pd.DataFrame) -> LargeTable:
        """The same file read through ``source`` (with the geo section's location column, see
        :mod:`anon_core.release.engines.located`) and ``sample`` its sample with that column; the
        table as opened stays in :attr:`origin`."""
        out = object.__new__(LargeTable)
        out.source, out.engine, out.sample = source, self.engine, sample
        out._groups, out._rows, out.origin = {}, self._rows, self.origin or self
        return out

    @property
    def key(self) -> str:
        """Identifies the file's state (path, size, modification time)."""
        p = self.source.path
        stat = p.stat()
        return f"{p.resolve()}|{self.source.size_bytes}|{stat.st_mtime_ns}|{self.engine.name}"

    @property
    def n_rows(self) -> int:
        if self._rows is None:
            self._rows = self.engine.count(self.source)
        return self._rows

    def has_group(self, columns: list[str]) -> bool:
        return tuple(columns) in self._groups

    def group(self, columns: list[str], progress: Progress = no_progress) -> GroupedTable:
        key = tuple(columns)
        if key not in self._groups:
            if len(self._groups) >= 8:  # keep the most recent column sets
                self._groups.pop(next(iter(self._groups)))
            self._groups[key] = self.engine.group(self.source, list(columns), progress)
            self._rows = self._groups[key].n_rows
        return self._groups[key]

    def distinct(self, column: str, progress: Progress = no_progress) -> pd.Series:
        """The column's distinct values over the whole file, in order of first appearance."""
        return self.group([column], progress).frame[column]
