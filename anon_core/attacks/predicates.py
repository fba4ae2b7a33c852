"""Conjunctive predicates on encoded tables and how many rows each one matches.

A predicate is ``m`` terms ``column op value`` joined by AND (anonymeter's singling-out
queries). Values are codes of :mod:`anon_core.attacks.encoding`, so order comparisons are only
meaningful on numeric columns. A missing cell matches no comparison, only ``IS_NULL`` and
fails ``NOT_NULL`` (the null semantics of anonymeter 1.1's polars queries).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from anon_core.attacks.encoding import MISSING

EQ, NE, LT, GT, LE, GE, IS_NULL, NOT_NULL = range(8)
OP_NAMES = ("==", "!=", "<", ">", "<=", ">=", "is null", "is not null")
_CELLS_PER_CHUNK = 4_000_000
#: A column combination's table is sorted only for at least this many predicates (or when it is
#: sorted already): sorting costs about as much as comparing this many predicates with every row.
SORT_AT = 16
#: The row samples that rule out predicates matching many rows before they are fully counted.
_PROBES = (0.005, 0.02, 0.1, 0.4)
_PROBE_MIN = 128


@dataclass(frozen=True)
class Predicates:
    """``cols``, ``ops`` and ``vals`` are (n_predicates, n_terms) arrays; columns ascend per row."""

    cols: np.ndarray
    ops: np.ndarray
    vals: np.ndarray

    def __len__(self) -> int:
        return len(self.cols)

    def take(self, index: np.ndarray) -> Predicates:
        return Predicates(self.cols[index], self.ops[index], self.vals[index])

    def keys(self) -> list[bytes]:
        """One hashable identity per predicate (to keep only distinct ones)."""
        packed = np.concatenate([self.cols, self.ops.astype(np.int64), self.vals], axis=1)
        packed = np.ascontiguousarray(packed)
        return [row.tobytes() for row in packed]

    def describe(self, index: int, columns: tuple[str, ...], levels: tuple[np.ndarray, ...]) -> str:
        """A readable form such as ``age >= 52 & sex == 'Female'`` (for logs and details)."""
        parts = []
        for c, o, v in zip(self.cols[index], self.ops[index], self.vals[index], strict=True):
            name = columns[int(c)]
            if o in (IS_NULL, NOT_NULL):
                parts.append(f"{name} {OP_NAMES[o]}")
            else:
                parts.append(f"{name} {OP_NAMES[o]} {levels[int(c)][int(v)]!r}")
        return " & ".join(parts)


def concat(parts: list[Predicates]) -> Predicates:
    return Predicates(
        np.concatenate([p.cols for p in parts]),
        np.concatenate([p.ops for p in parts]),
        np.concatenate([p.vals for p in parts]),
    )


def _accepted(ops: np.ndarray, vals: np.ndarray) -> tuple[np.ndarray, ...]:
    """Per term, two half-open ranges [lo, hi) of shifted codes (code + 1, missing 0) whose
    union is what the term accepts (the second range is empty except for ``!=``)."""
    v = vals.astype(np.int64) + 1
    top = np.int64(2**62)
    zero, one = np.zeros_like(v), np.ones_like(v)
    lo1 = np.select(
        [ops == EQ, ops == GT, ops == GE, ops == IS_NULL], [v, v + 1, v, zero], default=one
    )
    hi1 = np.select(
        [ops == EQ, ops == NE, ops == LT, ops == LE, ops == IS_NULL],
        [v + 1, v, v, v + 1, one],
        default=np.full_like(v, top),
    )
    lo2 = np.where(ops == NE, v + 1, zero)
    hi2 = np.where(ops == NE, top, zero)
    return lo1, hi1, lo2, hi2


def dense_counts(shifted: np.ndarray, cols, ops, vals) -> np.ndarray:
    """How many rows of ``shifted`` (a code matrix plus one: missing is 0) each predicate
    matches, comparing every predicate with every row (any operators, chunked)."""
    out = np.zeros(len(cols), dtype=np.int64)
    if len(cols) == 0 or len(shifted) == 0:
        return out
    top = np.iinfo(shifted.dtype).max
    lo1, hi1, lo2, hi2 = (np.minimum(b, top).astype(shifted.dtype) for b in _accepted(ops, vals))
    chunk = max(1, _CELLS_PER_CHUNK // len(shifted))
    for start in range(0, len(cols), chunk):
        part = slice(start, start + chunk)
        mask = None
        for k in range(cols.shape[1]):
            x = shifted[:, cols[part, k]]
            term = (x >= lo1[part, k]) & (x < hi1[part, k])
            if (hi2[part, k] > 0).any():
                term |= (x >= lo2[part, k]) & (x < hi2[part, k])
            mask = term if mask is None else (mask & term)
        out[part] = mask.sum(axis=0)
    return out


def _ranges(ops: np.ndarray, vals: np.ndarray, radix: int) -> tuple[np.ndarray, ...]:
    """Per predicate, up to two half-open ranges [lo, hi) of shifted codes (code + 1, missing 0)
    that one comparison term accepts."""
    v = vals + 1
    lo1 = np.ones(len(v), dtype=np.int64)
    hi1 = np.full(len(v), radix, dtype=np.int64)
    lo2 = np.zeros(len(v), dtype=np.int64)
    hi2 = np.zeros(len(v), dtype=np.int64)
    lo1 = np.where(ops == GT, v + 1, np.where(ops == GE, v, lo1))
    hi1 = np.where(ops == LT, v, np.where(ops == LE, v + 1, np.where(ops == NE, v, hi1)))
    lo2 = np.where(ops == NE, v + 1, lo2)
    hi2 = np.where(ops == NE, radix, hi2)
    return lo1, hi1, lo2, hi2


class TableIndex:
    """Counts predicate matches on one code matrix, fast for the common shapes.

    A predicate whose terms are equalities (or IS_NULL) plus at most one other comparison is
    answered by binary search in the table sorted on a composite key (the equality columns,
    then the compared column); sorted keys are cached per column combination, so a table is
    sorted once per combination however many predicates are asked. Other predicates (two or
    more comparisons), and combinations asked for fewer than ``sort_at`` predicates while not
    sorted yet, are answered by broadcasting (a sort would cost more than it saves: a small
    request on a wide table touches many combinations once each). ``radices[j]`` is one more
    than column j's number of codes.
    """

    def __init__(self, table: np.ndarray, radices: np.ndarray, sort_at: int = SORT_AT) -> None:
        self.table = table
        self.radices = np.asarray(radices, dtype=np.int64)
        self.sort_at = sort_at
        self._shifted: np.ndarray | None = None
        self._probes: list[np.ndarray] | None = None
        self._sorted: dict[tuple[tuple[int, ...], int], np.ndarray | None] = {}

    @property
    def shifted(self) -> np.ndarray:
        """The table's codes plus one (missing is 0), for :func:`dense_counts`."""
        if self._shifted is None:
            shifted = self.table - MISSING
            small = len(self.radices) == 0 or int(self.radices.max()) < 2**31 - 1
            self._shifted = shifted.astype(np.int32) if small else shifted
        return self._shifted

    def _composite(self, eq_cols: tuple[int, ...], range_col: int) -> np.ndarray | None:
        key = (eq_cols, range_col)
        if key not in self._sorted:
            radices = [int(self.radices[c]) for c in eq_cols]
            if range_col >= 0:
                radices.append(int(self.radices[range_col]))
            if float(np.prod(np.array(radices, dtype=float))) >= 2.0**62:
                self._sorted[key] = None
            else:
                composite = np.zeros(len(self.table), dtype=np.int64)
                for c, r in zip(
                    [*eq_cols, *([range_col] if range_col >= 0 else [])], radices, strict=True
                ):
                    composite = composite * r + (self.table[:, c] - MISSING)
                self._sorted[key] = np.sort(composite)
        return self._sorted[key]

    def count(self, predicates: Predicates) -> np.ndarray:
        """How many rows each predicate matches."""
        out = np.zeros(len(predicates), dtype=np.int64)
        if len(predicates) == 0 or len(self.table) == 0:
            return out
        eq_like = (predicates.ops == EQ) | (predicates.ops == IS_NULL)
        n_range = (~eq_like).sum(axis=1)
        range_pos = np.where(n_range == 1, np.argmax(~eq_like, axis=1), -1)
        width = predicates.cols.shape[1]
        signature = np.concatenate(
            [predicates.cols, np.where(eq_like, 0, 1), range_pos[:, None], (n_range > 1)[:, None]],
            axis=1,
        ).astype(np.int64)
        radix = int(signature.max()) + 2
        if radix ** signature.shape[1] < 2**62:
            packed = np.zeros(len(signature), dtype=np.int64)
            for j in range(signature.shape[1]):
                packed = packed * radix + (signature[:, j] + 1)
            _, first, inverse = np.unique(packed, return_index=True, return_inverse=True)
            groups = signature[first]
        else:
            groups, inverse = np.unique(signature, axis=0, return_inverse=True)
        inverse = inverse.reshape(-1)
        order = np.argsort(inverse, kind="stable")
        splits = np.searchsorted(inverse[order], np.arange(1, len(groups)))
        filtered: list[np.ndarray] = []
        for sig, members in zip(groups, np.split(order, splits), strict=True):
            cols = sig[:width]
            pos, many = int(sig[2 * width]), bool(sig[2 * width + 1])
            vals = predicates.vals[members]
            ops = predicates.ops[members]
            eq_idx = [j for j in range(width) if j != pos]
            key = (tuple(int(cols[j]) for j in eq_idx), int(cols[pos]) if pos >= 0 else -1)
            worth = key in self._sorted or len(members) >= self.sort_at
            sorted_keys = None if many or not worth else self._composite(*key)
            if sorted_keys is None:
                filtered.append(members)
                continue
            eq_vals = np.where(ops[:, eq_idx] == IS_NULL, MISSING, vals[:, eq_idx]) - MISSING
            prefix = np.zeros(len(members), dtype=np.int64)
            for k, j in enumerate(eq_idx):
                prefix = prefix * int(self.radices[cols[j]]) + eq_vals[:, k]
            if pos < 0:
                lo = np.searchsorted(sorted_keys, prefix, "left")
                hi = np.searchsorted(sorted_keys, prefix, "right")
                out[members] = hi - lo
                continue
            radix = int(self.radices[cols[pos]])
            base = prefix * radix
            total = np.zeros(len(members), dtype=np.int64)
            for lo, hi in zip(*[iter(_ranges(ops[:, pos], vals[:, pos], radix))] * 2, strict=True):
                lo, hi = np.maximum(lo, 0), np.maximum(hi, lo)
                total += np.searchsorted(sorted_keys, base + hi, "left") - np.searchsorted(
                    sorted_keys, base + lo, "left"
                )
            out[members] = total
        if filtered:
            rest = np.concatenate(filtered)
            out[rest] = dense_counts(
                self.shifted, predicates.cols[rest], predicates.ops[rest], predicates.vals[rest]
            )
        return out

    def singles(self, predicates: Predicates) -> np.ndarray:
        """Whether each predicate matches exactly one row (``count(...) == 1``), cheaper when
        most predicates match many rows: a predicate matching two rows of a random sample of the
        table (0.5%, then 2%, 10% and 40% of the rows) matches two or more rows of the table, so it
        is dropped before the full count, which only the remaining predicates get."""
        if self._probes is None:
            order = np.random.default_rng(0).permutation(len(self.table))
            sizes = [int(len(order) * f) for f in _PROBES]
            self._probes = [self.shifted[np.sort(order[:s])] for s in sizes if s >= _PROBE_MIN]
        alive = np.arange(len(predicates))
        for probe in self._probes:
            if len(alive) == 0:
                break
            seen = dense_counts(
                probe, predicates.cols[alive], predicates.ops[alive], predicates.vals[alive]
            )
            alive = alive[seen < 2]
        out = np.zeros(len(predicates), dtype=bool)
        out[alive] = self.count(predicates.take(alive)) == 1
        return out


def count_matches(table: np.ndarray, predicates: Predicates, radices: np.ndarray) -> np.ndarray:
    """How many rows of the code matrix ``table`` each predicate matches (one-off index)."""
    return TableIndex(table, radices).count(predicates)
