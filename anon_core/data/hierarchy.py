"""Generalization hierarchies: a validated table of labels and its integer form.

A hierarchy is a table with one row per original value and one column per level
(level 0 = the original value, the last level usually ``*``), as ARX stores it in
its CSV format. It is valid when every original value appears once and each
level is a function of the level below (levels coarsen monotonically).

For evaluation the hierarchy is turned into integer lookup arrays
``maps[h][code0] -> code_h`` over the dictionary of values present in the data
(see DESIGN.md, data path step 3).
"""

from __future__ import annotations

import csv
import io
import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from anon_core.data import kernels
from anon_core.data.io import (
    FALLBACK_ENCODING,
    MAX_NAME_CHARS,
    MISSING,
    DataWarning,
    decode_text,
    detect_encoding,
)
from anon_core.data.limits import longest_line
from anon_core.data.small_tables import DICT_MAX_CELLS, DICT_MAX_VALUES, encode_levels
from anon_core.errors import HierarchyError

MAX_NAMED = 10

try:  # pandas' hash-table factorization without the public wrapper's checks
    from pandas.core.algorithms import factorize_array as _pandas_factorize_array
except ImportError:  # pragma: no cover - a pandas that moved it: use the public function
    _pandas_factorize_array = None
try:  # pandas' hash table of strings, kept to look the data's values up among level 0's
    from pandas._libs.hashtable import StringHashTable as _StringHashTable
except ImportError:  # pragma: no cover - then level 0 is hashed again when encoding
    _StringHashTable = None


def factorize_ids(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`factorize_array` of non-negative integer ids: one compiled pass when the kernels
    are loaded (no per-call checks), else pandas'."""
    if kernels.loaded():
        codes, first = kernels.group_keys(np.ascontiguousarray(values, dtype=np.int64))
        return codes, values[first]
    return factorize_array(values)


def factorize_array(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``pd.factorize(values, sort=False)`` of a numpy array (codes by first appearance, -1
    for missing values; the first value of each code), without the public wrapper's cost."""
    if _pandas_factorize_array is None or values.dtype.kind not in "iuO":  # pragma: no cover
        return pd.factorize(values, sort=False)
    return _pandas_factorize_array(values)


def name_values(values: list[str]) -> str:
    shown = ", ".join(repr(v) for v in values[:MAX_NAMED])
    more = len(values) - MAX_NAMED
    return shown + (f" and {more} more" if more > 0 else "")


#: What a cell of an inline hierarchy table may be: a label, or a number written as one.
_CELL = (str, int, float, np.integer, np.floating)


def _preview(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _rows_problem(rows: list[list[str]]) -> str | None:
    """What the constructor would refuse in a file's rows, said by row and level only: an error
    about a file never shows its contents (a configuration may name any file)."""
    first: dict[str, int] = {}
    parents: list[dict[str, str]] = [{} for _ in rows[0]]
    for i, row in enumerate(rows, start=1):
        empty = next((level for level, cell in enumerate(row) if cell == ""), None)
        if empty is not None:
            return f"has an empty cell at row {i}, level {empty}. Every row needs a label at every level."
        if row[0] in first:
            return (
                f"lists the value of row {i} again (first in row {first[row[0]]}). Each original "
                "value must appear in exactly one row."
            )
        first[row[0]] = i
        for level in range(1, len(row)):
            if parents[level].setdefault(row[level - 1], row[level]) != row[level]:
                return (
                    f"is not monotonic: in row {i}, the label at level {level - 1} generalizes to "
                    f"another label at level {level} than in an earlier row. Each label must have "
                    "exactly one parent."
                )
    return None


def _as_text(table: np.ndarray) -> np.ndarray | None:
    """The table's labels as an object array of str (None when a cell is missing)."""
    flat = table.ravel()
    kind = pd.api.types.infer_dtype(flat, skipna=False)
    if kind == "string":
        return table
    if pd.isna(flat).any():
        return None
    return np.frompyfunc(str, 1, 1)(table).astype(object)


def _factorize_table(text: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(id of every cell's label, shape rows x levels; label of each id), ids numbered by first
    appearance level by level: one hash factorization for the whole table."""
    codes, labels = pd.factorize(text.T.ravel(), sort=False)
    ids = codes.reshape(text.shape[1], text.shape[0]).T
    return ids, np.asarray(labels, dtype=object)


def _valid_ids(table: np.ndarray) -> tuple[np.ndarray, np.ndarray, object] | None:
    """The ids of a valid table of non-empty strings without hashing every cell, or None when
    the table may be anything else (the careful path then decides, and words the fault).

    Level 0 is factorized (its values must be distinct); at each further level only the label
    of every parent's first row is hashed, and each other row's label must equal that one
    (which is what monotonic means), checked by plain comparison. Ids are numbered per level,
    by first appearance, levels after one another. The hash table of level 0 is returned too
    (None without one): encoding looks the data's values up in it.
    """
    n, height = table.shape
    column = np.ascontiguousarray(table[:, 0])
    index = None
    if _StringHashTable is not None and pd.api.types.infer_dtype(column, skipna=False) == "string":
        # Mapping each value to its row (no codes or uniques built) counts the distinct ones.
        index = _StringHashTable(n)
        index.map_locations(column)
        empty = index.lookup(np.array([""], dtype=object))[0] >= 0  # O(1), not a scan
        if index.get_state()["size"] != n or empty:
            return None  # a repeated or empty value
        codes, uniques = np.arange(n), column  # distinct: numbered by row
    else:
        codes, uniques = factorize_array(column)
        if len(uniques) != n or not _all_text(uniques):
            return None  # a repeated or missing value
    # Level-major ids: every level's column is contiguous (written here, read by encode).
    ids = np.empty((n, height), dtype=np.int64, order="F")
    ids[:, 0] = codes
    labels, offset = [np.asarray(uniques, dtype=object)], n
    parent, first = codes, np.arange(n)
    for h in range(1, height):
        # Each row's label id (labels hashed once per run of equal adjacent labels); monotonic
        # when every parent's rows hold the id of its first row, checked on integers.
        child, uniques, known = _factorize_runs(table[:, h])
        if (child < 0).any() or not _all_text(uniques):
            return None
        if len(first) < n and not np.array_equal(child[first][parent], child):
            return None  # not monotonic: the careful path says where
        parent = child
        ids[:, h] = parent + offset
        labels.append(np.asarray(uniques, dtype=object))
        offset += len(uniques)
        if h < height - 1:  # child ids are numbered by first appearance: their first rows
            first = _first_positions(parent) if known is None else known
    return ids, np.concatenate(labels), index


def _first_positions(codes: np.ndarray) -> np.ndarray:
    """The position of each code's first occurrence, for codes numbered by first appearance."""
    running = np.maximum.accumulate(codes)
    opens = np.empty(len(codes), dtype=bool)
    opens[0] = True
    np.greater(codes[1:], running[:-1], out=opens[1:])
    return np.flatnonzero(opens)


def _factorize_runs(column: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """``factorize_array(column)`` and the first row of each code (None: not computed), hashing
    only the first label of each run of equal adjacent labels (a hierarchy file lists the values
    under one label together, so runs are long); the whole column when runs are short."""
    n = len(column)
    starts = np.empty(n, dtype=bool)
    starts[0] = True
    np.not_equal(column[1:], column[:-1], out=starts[1:])
    at = np.flatnonzero(starts)
    if len(at) * 2 > n:
        return (*factorize_array(np.ascontiguousarray(column)), None)
    codes, uniques = factorize_array(column[at])
    first = at[_first_positions(codes)] if len(codes) and (codes >= 0).all() else None
    return np.repeat(codes, np.diff(np.append(at, n))), uniques, first


#: Tables of at most this many cells are validated with dictionaries (no per-call numpy cost).
_SMALL_CELLS = 4096


def _valid_ids_small(table: np.ndarray) -> tuple[np.ndarray, np.ndarray, None] | None:
    """:func:`_valid_ids` of a small table, with dictionaries: the same ids and labels, or None
    when the table may be anything but non-empty ``str`` labels, distinct at level 0 and
    monotonic."""
    rows = table.tolist()
    n, height = table.shape
    first = [r[0] for r in rows]
    if len(set(first)) != n or not all(type(v) is str and v for v in first):
        return None
    ids = np.empty((n, height), dtype=np.int64)
    ids[:, 0] = np.arange(n)
    labels, offset, parents = list(first), n, list(range(n))
    for h in range(1, height):
        local: dict[str, int] = {}  # label -> id at this level, by first appearance
        child_of: dict[int, int] = {}  # parent id -> its child's id
        column = []
        for parent, row in zip(parents, rows, strict=True):
            label = row[h]
            if type(label) is not str or not label:
                return None
            child = child_of.get(parent)
            if child is None:
                child = local.setdefault(label, len(local))
                if child == len(labels) - offset:
                    labels.append(label)
                child_of[parent] = child
            elif labels[offset + child] != label:
                return None  # one label, two parents: the careful path says where
            column.append(child)
        ids[:, h] = np.asarray(column, dtype=np.int64) + offset
        offset += len(local)
        parents = column
    return ids, np.asarray(labels, dtype=object), None


def _all_text(values: np.ndarray) -> bool:
    """Are these labels all non-empty strings?"""
    return pd.api.types.infer_dtype(values, skipna=False) == "string" and not bool(
        np.any(values == "")
    )


def _structure_problem(ids: np.ndarray) -> tuple[str, int, np.ndarray] | None:
    """The first structural fault of a table of label ids, vectorized: ("duplicate", 0, ids of
    level-0 labels listed again, by first repetition) or ("monotonic", level, ids of level-1
    labels with several parents, by first appearance); None when the table is valid."""
    base = ids[:, 0]
    again = pd.Series(base).duplicated().to_numpy()
    if again.any():
        return "duplicate", 0, pd.unique(base[again])
    span = int(ids.max()) + 1
    parent_of = np.empty(span, dtype=ids.dtype)
    for h in range(1, ids.shape[1]):
        child, parent = ids[:, h - 1], ids[:, h]
        parent_of[child] = parent  # one parent per label: any other differs from the one kept
        if not np.array_equal(parent_of[child], parent):
            pairs = np.unique(child.astype(np.int64) * span + parent)
            parents = np.bincount(pairs // span, minlength=span)
            bad = np.flatnonzero(parents > 1)
            first = np.full(span, len(child), dtype=np.int64)
            np.minimum.at(first, child, np.arange(len(child)))
            return "monotonic", h, bad[np.argsort(first[bad], kind="stable")]
    return None


def _read_plain(text: str, separator: str, raw: bytes) -> np.ndarray | None:
    """The table of a plain hierarchy file parsed by pandas' C reader, or None when the file
    needs the careful reader (quotes, blank or ragged rows, empty cells, very long lines), which
    also words every error by row and level."""
    if '"' in text or longest_line(raw) > MAX_NAME_CHARS:
        return None
    try:
        frame = pd.read_csv(
            io.StringIO(text),
            sep=separator,
            header=None,
            dtype=str,
            keep_default_na=False,
            na_filter=False,
            quoting=csv.QUOTE_NONE,
            skip_blank_lines=True,
            engine="c",
        )
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError):
        return None
    table = frame.to_numpy(dtype=object)
    # Missing or empty cells (ragged rows) make the constructor refuse the table, and the
    # careful reader then says where; a row of blanks only is one it skips.
    if table.size == 0:
        return None
    try:
        blank_row = any(map(str.isspace, table[:, 0]))
    except TypeError:  # a missing first cell
        return None
    return None if blank_row else table


@dataclass(frozen=True, eq=False)
class Hierarchy:
    """Validated generalization hierarchy (rows x levels of string labels)."""

    table: np.ndarray  # object array, shape (n_values, height)
    name: str = ""

    #: Integer form of the labels, computed once when the table is validated: the id of every
    #: cell's label (one factorization over the whole table, levels stacked) and the labels by id.
    _ids: np.ndarray = field(default=None, init=False, repr=False, compare=False)  # type: ignore[assignment]
    _labels: np.ndarray = field(default=None, init=False, repr=False, compare=False)  # type: ignore[assignment]
    #: Level 0's hash table (row of each value) when validation made one; never pickled.
    _index: object = field(default=None, init=False, repr=False, compare=False)

    def __getstate__(self) -> dict:
        return {**self.__dict__, "_index": None}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)

    def __post_init__(self) -> None:
        table = np.asarray(self.table, dtype=object)
        if table.ndim != 2 or table.shape[0] == 0 or table.shape[1] == 0:
            raise HierarchyError(
                f"Hierarchy {self.name!r} is empty: it needs one row per value and at least one column."
            )
        object.__setattr__(self, "table", table)
        fast = _valid_ids_small(table) if table.size <= _SMALL_CELLS else _valid_ids(table)
        if fast is not None:
            object.__setattr__(self, "_ids", fast[0])
            object.__setattr__(self, "_labels", fast[1])
            object.__setattr__(self, "_index", fast[2])
            return
        # Whitespace-only labels (a value " ") are labels like any other; only empty cells are missing.
        text = _as_text(table)
        if text is None:  # some cell is missing (None / NaN)
            empty = pd.isna(table) | (np.frompyfunc(str, 1, 1)(table) == "")
        else:
            empty = text == ""
        if empty.any():
            r, c = np.argwhere(empty)[0]
            raise HierarchyError(
                f"Hierarchy {self.name!r} has an empty cell at row {r + 1}, level {c} "
                f"(value {table[r, 0]!r}). Every row needs a label at every level."
            )
        assert text is not None
        ids, labels = _factorize_table(text)
        problem = _structure_problem(ids)
        if problem is not None:
            kind, level, bad = problem
            shown = name_values([str(v) for v in labels[bad]])
            if kind == "duplicate":
                raise HierarchyError(
                    f"Hierarchy {self.name!r} lists value(s) {shown} more than once at "
                    "level 0. Each original value must appear in exactly one row."
                )
            raise HierarchyError(
                f"Hierarchy {self.name!r} is not monotonic: label(s) {shown} at level "
                f"{level - 1} generalize to more than one label at level {level}. Each label must have "
                "exactly one parent."
            )
        object.__setattr__(self, "_ids", ids)
        object.__setattr__(self, "_labels", labels)

    # ------------------------------------------------------------------ shape
    @property
    def height(self) -> int:
        """Number of levels, including level 0 (ARX's 'height')."""
        return int(self.table.shape[1])

    @property
    def values(self) -> list[str]:
        return [str(v) for v in self.table[:, 0]]

    def level(self, h: int) -> np.ndarray:
        return self.table[:, h]

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame(self.table, columns=[f"level {h}" for h in range(self.height)])

    # ------------------------------------------------------------------ ARX CSV
    @classmethod
    def from_csv(
        cls,
        source: str | os.PathLike[str] | bytes,
        separator: str = ";",
        name: str | None = None,
    ) -> Hierarchy:
        """Read ARX's hierarchy CSV: no header, one row per value, one column per level."""
        if isinstance(source, bytes | bytearray):
            raw = bytes(source)
            label = name or "hierarchy"
        else:
            path = Path(source)
            label = name or path.stem
            if not path.is_file():
                raise HierarchyError(
                    f"Hierarchy file {str(path)!r} does not exist. Check the path."
                )
            raw = path.read_bytes()
        if not raw or raw.isspace():  # (strip() would copy the whole file)
            raise HierarchyError(f"Hierarchy file {label!r} is empty.")
        if not isinstance(separator, str) or len(separator) != 1 or separator in '\r\n"':
            raise HierarchyError(
                f"The separator of hierarchy file {label!r} must be one character such as ';' or ',', "
                f"got {separator!r}."
            )
        if b"\x00" in raw[:8192] and detect_encoding(raw) in ("utf-8", FALLBACK_ENCODING):
            raise HierarchyError(
                f"Hierarchy file {label!r} is binary, not a CSV hierarchy (one row per value, ';'-separated)."
            )
        text, _, note = decode_text(raw, f"Hierarchy file {label!r}")
        if note is not None:
            warnings.warn(note, DataWarning, stacklevel=2)
        text = text.lstrip("\ufeff")
        fast = _read_plain(text, separator, raw)
        if fast is not None:
            try:
                return cls(fast, name=label)
            except HierarchyError:
                pass  # said by row and level (never by label) by the reader below
        try:
            rows = [
                r
                for r in csv.reader(io.StringIO(text, newline=""), delimiter=separator)
                if any(x.strip() for x in r)
            ]
        except csv.Error as exc:
            limit = (
                f" (labels are limited to {MAX_NAME_CHARS:,} characters)"
                if "limit" in str(exc)
                else ""
            )
            raise HierarchyError(
                f"Hierarchy file {label!r} cannot be read as CSV: {exc}{limit}. Check the quoting and the "
                "label lengths."
            ) from None
        if not rows:
            raise HierarchyError(
                f"Hierarchy file {label!r} holds no labels (only separators or blank lines). Give one row "
                f"per value with one {separator!r}-separated label per level."
            )
        long = next(
            ((i, x) for i, r in enumerate(rows, 1) for x in r if len(x) > MAX_NAME_CHARS), None
        )
        if long is not None:  # messages about a file name rows and levels, never its contents
            raise HierarchyError(
                f"Hierarchy file {label!r} has a label of {len(long[1]):,} characters in row {long[0]}; "
                f"labels are limited to {MAX_NAME_CHARS:,} characters."
            )
        widths = {len(r) for r in rows}
        if len(widths) != 1:
            first_bad = next(i for i, r in enumerate(rows) if len(r) != len(rows[0]))
            raise HierarchyError(
                f"Hierarchy file {label!r} has rows of different lengths (row 1 has {len(rows[0])} "
                f"levels, row {first_bad + 1} has {len(rows[first_bad])}). Check the separator "
                f"({separator!r}) and that every row has one label per level."
            )
        problem = _rows_problem(rows)
        if problem is not None:
            raise HierarchyError(f"Hierarchy file {label!r} {problem}")
        return cls(np.array(rows, dtype=object), name=label)

    @classmethod
    def from_rows(cls, rows: object, name: str = "", where: str = "hierarchy table") -> Hierarchy:
        """A hierarchy from inline rows (lists of labels, one per level), as a configuration's
        ``table`` gives it: every row a list of the same length, every cell a text or number."""
        if not isinstance(rows, list) or not rows or not all(isinstance(r, list) for r in rows):
            raise HierarchyError(
                f"'{where}' must be a non-empty list of rows, each a list of labels (one per level)."
            )
        width = len(rows[0])
        for i, row in enumerate(rows):
            if len(row) != width:
                raise HierarchyError(
                    f"'{where}' row {i + 1} has {len(row)} label(s), but row 1 has {width}: every "
                    f"row needs one label per level ({width}); fix row {i + 1} ({_preview(row)})."
                )
            bad = next(
                (c for c in row if isinstance(c, bool | np.bool_) or not isinstance(c, _CELL)), row
            )
            if bad is not row:
                raise HierarchyError(
                    f"'{where}' row {i + 1} has the cell {_preview(bad)}; every cell is a label "
                    "(text or a number)."
                )
        long = next((str(c) for r in rows for c in r if len(str(c)) > MAX_NAME_CHARS), None)
        if long is not None:
            raise HierarchyError(
                f"'{where}' has a label of {len(long):,} characters (starting {long[:30]!r}); labels "
                f"are limited to {MAX_NAME_CHARS:,} characters."
            )
        table = np.array([[str(c) for c in r] for r in rows], dtype=object).reshape(
            len(rows), width
        )
        return cls(table, name=name)

    def to_csv(self, separator: str = ";") -> str:
        buf = io.StringIO()
        writer = csv.writer(buf, delimiter=separator, lineterminator="\n")
        writer.writerows(self.table.tolist())
        return buf.getvalue()

    # ------------------------------------------------------------------ encoding
    def encode(self, data_labels: np.ndarray) -> EncodedHierarchy:
        """Integer lookup arrays for the data's dictionary ``data_labels`` (code -> label).

        Vectorized over the whole table: the label ids of validation are reused, so each
        level costs a gather and a factorization of the data's (few) codes, not a hash of
        the level's labels.
        """
        ids, names = self._ids, self._labels
        n = len(ids)
        data_text = np.asarray(data_labels, dtype=object)
        if pd.api.types.infer_dtype(data_text, skipna=False) != "string":
            data_text = np.frompyfunc(str, 1, 1)(data_text).astype(object)
        if ids.size <= DICT_MAX_CELLS and data_text.size <= DICT_MAX_VALUES:
            small = encode_levels(ids, names, data_text.tolist())
            if small is not None:  # else a value has no row: the path below says which
                return EncodedHierarchy(*small, n_rows=int(self.table.shape[0]))
        if self._index is not None and pd.api.types.infer_dtype(data_text) == "string":
            # Level-0 values are distinct: the position of a data label in level 0's table is
            # its row (-1: not found).
            pos = np.asarray(self._index.lookup(np.ascontiguousarray(data_text)), dtype=np.int64)
        else:
            # One hash pass over the file's values then the data's: level-0 values are distinct,
            # so the id of a data label found among them is its row, and ids past them are not.
            both, _ = factorize_array(np.concatenate([names[ids[:, 0]], data_text]))
            pos = both[n:]
            pos = np.where(pos < n, pos, -1)
        if (pos < 0).any():
            missing = [str(v) for v in np.asarray(data_labels)[pos < 0]]
            hint = (
                f" Missing values are encoded as {MISSING!r}: add a row for it."
                if MISSING in missing
                else ""
            )
            raise HierarchyError(
                f"Hierarchy {self.name!r} has no row for value(s) {name_values(missing)} that occur "
                f"in the data. Add them to the hierarchy or fix the data.{hint}"
            )
        maps, labels, leaf_counts = [], [], []
        for h in range(self.height):
            column = ids[:, h]
            codes, uniq = factorize_ids(column[pos])
            uniq = np.asarray(uniq, dtype=np.int64)
            # Rows of the file under each label of this level that the data reaches.
            rows_under = np.bincount(column, minlength=len(names))[uniq]
            maps.append(codes.astype(np.int32))
            labels.append(names[uniq])
            leaf_counts.append(rows_under.astype(np.int64))
        return EncodedHierarchy(
            maps=maps, labels=labels, leaf_counts=leaf_counts, n_rows=int(self.table.shape[0])
        )


@dataclass(frozen=True, eq=False)
class EncodedHierarchy:
    """Integer form of a hierarchy over the values present in the data.

    ``maps[h][c]``: code at level h of data code c; ``labels[h][g]``: the label
    of level-h code g; ``leaf_counts[h][g]``: rows of the hierarchy file under g
    (ARX's Loss metric uses it); ``n_rows``: rows of the hierarchy file.
    """

    maps: list[np.ndarray]
    labels: list[np.ndarray]
    leaf_counts: list[np.ndarray]
    n_rows: int
    _up: dict[tuple[int, int], np.ndarray] = field(default_factory=dict, repr=False)

    @property
    def height(self) -> int:
        return len(self.maps)

    def cardinality(self, level: int) -> int:
        return len(self.labels[level])

    def up(self, src: int, dst: int) -> np.ndarray:
        """Map level-``src`` codes to level-``dst`` codes (``dst >= src``), cached."""
        key = (src, dst)
        arr = self._up.get(key)
        if arr is None:
            arr = np.zeros(self.cardinality(src), dtype=np.int32)
            arr[self.maps[src]] = self.maps[dst]
            self._up[key] = arr
        return arr
