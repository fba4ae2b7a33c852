"""Shared integer codes for the attacks' three tables (one factorization per column).

The original, released and control tables are encoded together, so equal values get equal
codes in all three and strings are never compared again. Numeric columns get codes ordered
by value (comparisons on codes are comparisons on values) and keep their values for
distances; a missing value is code -1 in every column.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
from pandas.api.types import is_bool_dtype, is_numeric_dtype

MISSING = -1


def is_numeric_column(frames: Sequence[pd.DataFrame], column: str) -> bool:
    """True when ``column`` holds numbers (not booleans) in every table."""
    return all(
        is_numeric_dtype(f[column].dtype) and not is_bool_dtype(f[column].dtype) for f in frames
    )


@dataclass(frozen=True)
class EncodedTables:
    """The tables as code matrices (rows x columns, int64, -1 = missing).

    ``levels[j][code]`` is column j's value of a code; ``numeric[j]`` says whether column j is
    compared by order and distance; ``scale[j]`` is its value range over all tables (1 when
    categorical or constant), the Gower normalisation.
    """

    columns: tuple[str, ...]
    numeric: np.ndarray
    codes: tuple[np.ndarray, ...]
    levels: tuple[np.ndarray, ...]
    scale: np.ndarray

    @property
    def radices(self) -> np.ndarray:
        """Per column, the number of shifted codes (``code + 1``, missing = 0)."""
        return np.array([len(v) + 1 for v in self.levels], dtype=np.int64)

    def index(self, names: Sequence[str]) -> np.ndarray:
        """Positions of ``names`` among the encoded columns."""
        where = {c: i for i, c in enumerate(self.columns)}
        return np.array([where[n] for n in names], dtype=np.int64)

    def values(self, table: int, column: int) -> np.ndarray:
        """Column ``column`` of table ``table`` as float values (NaN when missing); numeric only."""
        codes = self.codes[table][:, column]
        out = np.full(len(codes), np.nan)
        ok = codes >= 0
        out[ok] = self.levels[column][codes[ok]]
        return out


def encode_tables(frames: Sequence[pd.DataFrame], columns: Sequence[str]) -> EncodedTables:
    """Encode ``columns`` of every frame with codes shared across the frames."""
    sizes = [len(f) for f in frames]
    bounds = np.cumsum([0, *sizes])
    matrices = [np.empty((n, len(columns)), dtype=np.int64) for n in sizes]
    numeric = np.zeros(len(columns), dtype=bool)
    levels: list[np.ndarray] = []
    scale = np.ones(len(columns))
    for j, column in enumerate(columns):
        if is_numeric_column(frames, column):
            numeric[j] = True
            values = np.concatenate(
                [f[column].to_numpy(dtype=float, na_value=np.nan) for f in frames]
            )
            present = ~np.isnan(values)
            uniques = np.unique(values[present])
            codes = np.full(len(values), MISSING, dtype=np.int64)
            codes[present] = np.searchsorted(uniques, values[present])
            if len(uniques) > 1 and uniques[-1] > uniques[0]:
                scale[j] = float(uniques[-1] - uniques[0])
        else:
            values = np.concatenate([f[column].to_numpy(dtype=object) for f in frames])
            codes, uniques = pd.factorize(values, use_na_sentinel=True)
            codes = codes.astype(np.int64)
            uniques = np.asarray(uniques, dtype=object)
        levels.append(uniques)
        for t, matrix in enumerate(matrices):
            matrix[:, j] = codes[bounds[t] : bounds[t + 1]]
    return EncodedTables(tuple(columns), numeric, tuple(matrices), tuple(levels), scale)


def row_keys(*matrices: np.ndarray) -> list[np.ndarray]:
    """One int64 key per row of each code matrix (same columns), equal exactly when rows are equal.

    The keys of all the given matrices are comparable with each other (mixed-radix over the
    codes; when the radix product would overflow, the key so far is renumbered densely first).
    """
    width = matrices[0].shape[1]
    sizes = np.cumsum([0, *(len(m) for m in matrices)])
    if width == 0 or sizes[-1] == 0:
        return [np.zeros(len(m), dtype=np.int64) for m in matrices]
    stacked = np.concatenate(matrices) - MISSING
    radices = stacked.max(axis=0) + 1
    keys = np.zeros(len(stacked), dtype=np.int64)
    span = 1
    for j in range(width):
        if span * int(radices[j]) >= 2**62:
            # renumber the keys so far densely (0 .. distinct - 1) before they would overflow
            keys = np.unique(keys, return_inverse=True)[1].reshape(-1).astype(np.int64)
            span = int(keys.max()) + 1
        keys = keys * int(radices[j]) + stacked[:, j]
        span *= int(radices[j])
    return [keys[sizes[i] : sizes[i + 1]] for i in range(len(matrices))]


def distinct_rows(enc: EncodedTables) -> EncodedTables:
    """The same encoding with each table's duplicate rows dropped (first occurrences, in order)."""
    tables = []
    for table in enc.codes:
        (keys,) = row_keys(table)
        _, first = np.unique(keys, return_index=True)
        tables.append(table[np.sort(first)])
    return replace(enc, codes=tuple(tables))
