"""A table with roles and hierarchies, dictionary-encoded once (data path steps 2-3)."""

from __future__ import annotations

import ctypes
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

import numpy as np
import pandas as pd

from anon_core.data import kernels
from anon_core.data.builders import default_hierarchy
from anon_core.data.hierarchy import (
    EncodedHierarchy,
    Hierarchy,
    factorize_array,
    factorize_ids,
)
from anon_core.data.io import MISSING, infer_kind, to_labels
from anon_core.data.small_tables import DICT_MAX_VALUES, factorize_strings
from anon_core.errors import ConfigError, DataError


class Role(StrEnum):
    IDENTIFIER = "identifier"
    QUASI_IDENTIFIER = "quasi-identifier"
    SENSITIVE = "sensitive"
    INSENSITIVE = "insensitive"
    #: A survey (sampling) weight: how many people of the population each record stands for.
    #: Read by the weighted risk figures; never a quasi-identifier, and never released.
    WEIGHT = "weight"


#: Roles whose columns a release leaves out (identifiers, survey weights).
DROPPED_ROLES = (Role.IDENTIFIER, Role.WEIGHT)


@dataclass(frozen=True, eq=False)
class EncodedColumn:
    """Integer codes of one column and, when it has one, its encoded hierarchy."""

    name: str
    codes: np.ndarray  # int32, one per row
    labels: np.ndarray  # code -> label (level 0)
    hierarchy: Hierarchy | None
    encoded: EncodedHierarchy | None

    @property
    def cardinality(self) -> int:
        return len(self.labels)


#: Object columns at least this long are factorized by object identity first.
_BY_IDENTITY_MIN_ROWS = 1024


def factorize_values(series: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """``pd.factorize(series, sort=False)``: codes by first appearance (-1 for missing values)
    and the first value of each code (see :func:`_factorize_values`)."""
    codes, uniques, _ = _factorize_values(series)
    return codes, uniques


def _factorize_values(series: pd.Series) -> tuple[np.ndarray, np.ndarray, bool]:
    """:func:`factorize_values`, and True when the values are known to be distinct strings
    (no missing value, no code -1).

    An object column is first grouped by object identity (the address of each value, hashed
    as an integer), then only its distinct objects are factorized by value. CSV readers give
    equal strings of a column one shared object, so the per-row pass hashes integers instead
    of comparing strings; equal values held by distinct objects are merged by the second
    step, so the result is pandas' whichever way the column was made.
    """
    values = series.to_numpy() if series.dtype == object else None
    if values is None or len(values) < _BY_IDENTITY_MIN_ROWS or ctypes.sizeof(ctypes.c_void_p) != 8:
        return (*pd.factorize(series, sort=False), False)
    values = np.ascontiguousarray(values)
    addresses = np.frombuffer(
        (ctypes.c_int64 * len(values)).from_address(values.ctypes.data), dtype=np.int64
    )
    if kernels.loaded():  # int32 ids and first positions in one compiled pass
        object_codes, first = kernels.group_ids(addresses)
    else:
        object_codes, distinct = factorize_array(addresses)
        running_max = np.maximum.accumulate(object_codes)
        opens = np.empty(len(values), dtype=bool)
        opens[0] = True
        np.greater(object_codes[1:], running_max[:-1], out=opens[1:])
        first = np.flatnonzero(opens)
    del addresses  # a view of ``values``' pointers: not kept past this point
    if len(first) == len(values):  # nothing shared: no gain from the second step
        return (*pd.factorize(series, sort=False), False)
    first_objects = values[first]  # each distinct object, in order of first appearance
    small = factorize_strings(first_objects) if len(first) <= DICT_MAX_VALUES else None
    value_codes, uniques = small if small is not None else factorize_array(first_objects)
    if small is not None and len(uniques) == len(first):
        # Distinct strings (no missing value): each object's id is its value's code already.
        return object_codes, uniques, True
    return value_codes[object_codes], uniques, small is not None


def encode_labels(series: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """(int32 code per row, label per code) of a column's canonical labels (``to_labels``),
    codes by first appearance.

    The raw values are factorized first and only the distinct ones are turned into labels,
    so the per-row cost is one hash pass; values that print alike (1.0 and 1, a missing
    value and ``NULL``) are then merged, which keeps the order of first appearance.
    """
    raw_codes, raw_uniques, strings = _factorize_values(series)  # missing values: -1
    if (
        isinstance(raw_uniques, np.ndarray)
        and raw_uniques.dtype == object
        and pd.api.types.infer_dtype(raw_uniques, skipna=False) == "string"
    ):
        labels = raw_uniques  # strings are their own labels (to_labels keeps them as written)
    else:
        labels = to_labels(pd.Series(raw_uniques, dtype=series.dtype))
    has_missing = not strings and bool(len(raw_codes)) and bool((raw_codes < 0).any())
    if has_missing:  # one more label for the missing values, at the end of the table
        labels = np.append(labels, MISSING).astype(object)
        raw_codes = np.where(raw_codes < 0, len(labels) - 1, raw_codes)
    if labels is raw_uniques and not has_missing:  # factorized strings: distinct already
        return raw_codes.astype(np.int32, copy=False), np.asarray(labels, dtype=object)
    merged, uniques = factorize_array(labels)
    if len(uniques) == len(labels) and not has_missing:
        return raw_codes.astype(np.int32), np.asarray(uniques, dtype=object)
    # Renumber by first appearance in the rows (the missing label was put last above).
    codes, order = factorize_ids(merged[raw_codes])
    return codes.astype(np.int32), np.asarray(uniques, dtype=object)[order]


class FrameCodes:
    """Dictionary codes of a DataFrame's columns, computed once and reused by every Dataset of it.

    Checking several models or role assignments on one table then factorizes
    each column once (the costly, row-proportional step), not once per check.
    The frame must not be modified while its codes are reused.
    """

    def __init__(self, frame: pd.DataFrame) -> None:
        self.frame = frame
        self._codes: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._encoded: dict[tuple[str, int], tuple[Hierarchy, EncodedHierarchy]] = {}
        self._memo: dict[tuple, object] = {}

    def codes(self, column: str) -> tuple[np.ndarray, np.ndarray]:
        """(int32 code per row, label per code) of a column, by first appearance."""
        hit = self._codes.get(column)
        if hit is None:
            hit = encode_labels(self.frame[column])
            self._codes[column] = hit
        return hit

    def memo(self, key: tuple, make):
        """A value derived from the frame's codes alone (e.g. the grouping of some columns),
        made once per key; arrays in it are made read-only, as every user shares them."""
        if key not in self._memo:
            value = make()
            for part in value if isinstance(value, tuple) else (value,):
                if isinstance(part, np.ndarray):
                    part.flags.writeable = False
            self._memo[key] = value
        return self._memo[key]

    def encoded(self, column: str, hierarchy: Hierarchy) -> EncodedHierarchy:
        """The hierarchy's lookup arrays over the column's labels (cached per hierarchy object)."""
        key = (column, id(hierarchy))
        hit = self._encoded.get(key)
        if hit is None or hit[0] is not hierarchy:
            hit = (hierarchy, hierarchy.encode(self.codes(column)[1]))
            self._encoded[key] = hit
        return hit[1]


class Dataset:
    """The input table, its roles and hierarchies, with QI and sensitive columns encoded.

    Columns absent from ``roles`` are insensitive. Quasi-identifiers without a
    hierarchy get the default one for their kind.

    ``weights`` makes each row stand for that many records: a scale engine
    (DuckDB, Spark) passes the distinct (QI, sensitive) rows of a table it
    grouped, in order of first appearance, with their counts. Such a dataset
    has the same codes, hierarchies and frequency table as the full table, but
    no row-level frame to release from (the engine releases).

    ``codes`` (a :class:`FrameCodes` of this same frame) reuses its column codes.
    """

    def __init__(
        self,
        frame: pd.DataFrame,
        roles: Mapping[str, Role | str],
        hierarchies: Mapping[str, Hierarchy] | None = None,
        weights: np.ndarray | None = None,
        codes: FrameCodes | None = None,
    ) -> None:
        hierarchies = dict(hierarchies or {})
        if codes is not None and codes.frame is not frame:
            raise ConfigError(
                "'codes' were computed for another DataFrame: pass FrameCodes(frame) of this frame."
            )
        codes = codes or FrameCodes(frame)
        self.frame_codes = codes  # shared by the frequency tables of this frame
        if len(frame) == 0:
            raise DataError("The table has no rows.")
        if weights is not None:
            weights = np.asarray(weights, dtype=np.int64)
            if weights.shape != (len(frame),) or (weights < 1).any():
                raise DataError("Row weights must be one positive count per row.")
        self.weights = weights
        unknown = [c for c in roles if c not in frame.columns]
        if unknown:
            raise ConfigError(
                f"Attribute(s) {unknown} are not columns of the table. Columns are: {list(frame.columns)}."
            )
        self.frame = frame
        self.roles: dict[str, Role] = {}
        for col in frame.columns:
            raw = roles.get(col, Role.INSENSITIVE)
            try:
                self.roles[str(col)] = Role(raw)
            except ValueError:
                raise ConfigError(
                    f"Role of {col!r} must be one of {[r.value for r in Role]}, got {raw!r}."
                ) from None
        self.qis = [c for c, r in self.roles.items() if r == Role.QUASI_IDENTIFIER]
        self.sensitive = [c for c, r in self.roles.items() if r == Role.SENSITIVE]
        self.n_rows = len(frame) if weights is None else int(weights.sum())
        self.columns: dict[str, EncodedColumn] = {}
        for col in self.qis + self.sensitive:
            col_codes, uniques = codes.codes(col)
            hier = hierarchies.get(col)
            if hier is None and col in self.qis:
                hier = default_hierarchy(uniques, infer_kind(frame[col]), name=col)
            enc = codes.encoded(col, hier) if hier is not None else None
            self.columns[col] = EncodedColumn(col, col_codes, uniques, hier, enc)

    @property
    def grouped(self) -> bool:
        """True when rows are weighted distinct tuples from an engine, not records."""
        return self.weights is not None

    def hierarchy(self, qi: str) -> EncodedHierarchy:
        enc = self.columns[qi].encoded
        assert enc is not None
        return enc

    @property
    def heights(self) -> list[int]:
        """Number of levels (including level 0) of each QI's hierarchy, in QI order."""
        return [self.hierarchy(q).height for q in self.qis]
