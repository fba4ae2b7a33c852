"""The in-memory engine: the whole table in a pandas DataFrame.

It runs the same two steps as DuckDB and Spark (group the file, write the release through the
release plan), so every engine is interchangeable and gives the same tables and released rows.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pandas as pd

from anon_core.data.io import load_table
from anon_core.data.safe_write import same_file_key
from anon_core.errors import DataError
from anon_core.release.engines.base import (
    Engine,
    GroupedTable,
    Progress,
    ReleasePlan,
    ReleaseSummary,
    TableSource,
    check_columns,
    file_sha256,
    no_progress,
    write_frame,
)


class PandasEngine(Engine):
    """Reads the file into memory (the loader's encoding and separator detection)."""

    name = "pandas"

    def __init__(self) -> None:
        self._cache: tuple[TableSource, pd.DataFrame] | None = None

    def _frame(self, source: TableSource) -> pd.DataFrame:
        if self._cache is None or self._cache[0] != source:
            separator = source.separator if source.format == "csv" else None
            encoding = source.encoding if source.format == "csv" else None
            frame = load_table(source.path, separator=separator, encoding=encoding).frame
            self._cache = (source, frame)
        return self._cache[1]

    def group(
        self, source: TableSource, columns: list[str], progress: Progress = no_progress
    ) -> GroupedTable:
        t0 = time.perf_counter()
        check_columns(source, columns)
        frame = self._frame(source)
        progress(0.5, f"Grouping {source.path.name} in memory")
        if columns:
            keys = pd.MultiIndex.from_frame(frame[columns].astype(object)).factorize(sort=False)
            codes, _ = keys if isinstance(keys, tuple) else (keys, None)
            first = pd.Series(np.arange(len(frame))).groupby(codes).min().to_numpy()
            counts = np.bincount(codes).astype(np.int64)
            result = frame[columns].iloc[first].reset_index(drop=True)
        else:
            first = np.zeros(1, dtype=np.int64)
            counts = np.array([len(frame)], dtype=np.int64)
            result = pd.DataFrame(index=range(1))
        result["__n"] = counts
        result["__first"] = first
        progress(1.0, "Grouped")
        return GroupedTable.from_result(
            result.sort_values("__first", kind="stable"),
            source,
            self.name,
            time.perf_counter() - t0,
        )

    def count(self, source: TableSource) -> int:
        return len(self._frame(source))

    def sample(self, source: TableSource, n: int, seed: int = 0) -> pd.DataFrame:
        frame = self._frame(source)
        if len(frame) <= n:
            return frame.copy()
        return frame.sample(n=n, random_state=seed).sort_index()

    def release(
        self,
        source: TableSource,
        plan: ReleasePlan,
        out: Path,
        progress: Progress = no_progress,
        formula_escape: bool = True,
    ) -> ReleaseSummary:
        t0 = time.perf_counter()
        out = Path(out)
        if same_file_key(out) == same_file_key(source.path):
            raise DataError(
                f"The release would overwrite its input {source.path.name}; choose another output."
            )
        progress(0.2, f"Releasing {source.path.name}")
        released = plan.apply_frame(self._frame(source))
        write_frame(released, out, formula_escape=formula_escape)
        progress(1.0, "Written")
        fmt = out.suffix.lstrip(".").lower() or "csv"
        return ReleaseSummary(
            out, fmt, len(released), time.perf_counter() - t0, file_sha256(out), self.name
        )

    def close(self) -> None:
        self._cache = None
