"""Compiled grouping kernels for the frequency table (numba), with the same results as numpy's path.

Evaluating a transformation groups rows of integer codes on a mixed-radix key.
NumPy needs four passes for it (key, pandas' hash factorization, first rows,
weighted counts); the kernels here do it in one pass with an open-addressing
hash table (or a direct table when the key space is small), numbering groups in
order of first appearance exactly as ``pandas.factorize`` does. The frequency
table uses them for tables large enough to repay loading them (numba importable,
key within 62 bits), else the numpy path; tests/test_kernels.py checks that both
agree.
"""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Callable

import numpy as np

#: numba is a core dependency; without it the frequency table keeps numpy's path.
AVAILABLE = importlib.util.find_spec("numba") is not None

_MIX = 0x9E3779B97F4A7C15  # Fibonacci hashing multiplier (Knuth)
_compiled: dict[str, Callable] = {}
_lock = threading.Lock()


def _load() -> dict[str, Callable]:
    """Compile (or load from numba's cache) the kernels on first use: importing numba and
    loading them costs about a second of CPU, which small tables never pay."""
    if _compiled:
        return _compiled
    with _lock:  # two sessions' first searches may ask at once
        if _compiled:
            return _compiled
        import numba

        def jit(fn: Callable) -> Callable:
            return numba.njit(cache=True, nogil=True)(fn)

        # Callees first: the callers resolve them as module globals when they compile.
        globals()["_group_keys"] = jit(getattr(_group_keys, "py_func", _group_keys))
        for name, fn in (
            ("group_levels", _group_levels),
            ("roll_up", _roll_up),
            ("roll_up_counts", _roll_up_counts),
            ("count_pairs", _count_pairs),
            ("nonzero_cells", _nonzero_cells),
            ("finest_below", _finest_below),
        ):
            _compiled[name] = jit(fn)
    return _compiled


def loaded() -> bool:
    """Are the kernels loaded in this process (so using them costs nothing more)?"""
    return bool(_compiled)


def group_levels(gen, rows, radices, weights):
    """Group the columns ``gen[rows[j]]`` (one per QI) on a mixed-radix key (``radices``).

    Returns (group of each column position, first position of each group,
    summed ``weights`` per group); groups are numbered by first appearance.
    The key must fit in 63 bits (the caller checks).
    """
    return _load()["group_levels"](gen, rows, radices, weights)


def roll_up(codes, ups, offsets, radices, weights):
    """Group classes after mapping each QI's codes up: ``ups[offsets[j] + codes[:, j]]``.

    Returns (new class of each old class, the new classes' codes, summed
    ``weights`` per new class), new classes numbered by first appearance.
    """
    return _load()["roll_up"](codes, ups, offsets, radices, weights)


def roll_up_counts(parent_class, parent_counts, n_classes):
    """Sum the rows of a (parent classes x values) count block into ``n_classes`` rows."""
    return _load()["roll_up_counts"](parent_class, parent_counts, n_classes)


def count_pairs(tuple_class, tuple_idx, value, count, n_classes, m):
    """Dense (classes x values) float counts from (tuple, value, count) triplets."""
    return _load()["count_pairs"](tuple_class, tuple_idx, value, count, n_classes, m)


def nonzero_cells(dense):
    """(row, column, int64 value) of the non-zero cells of a 2-D count array, in row-major order."""
    return _load()["nonzero_cells"](dense)


def finest_below(levels, n_classes, n, target):
    """Index of the first of the ``n`` level rows at or below ``target`` with the fewest
    classes, or -1 when none is."""
    return _load()["finest_below"](levels, n_classes, n, target)


def _group_keys(key, weights):
    """Group ids by first appearance of ``key`` (all below ``span``), first rows, summed weights."""
    n = len(key)
    inv = np.empty(n, dtype=np.int64)
    first = np.empty(n, dtype=np.int64)
    sizes = np.zeros(n, dtype=np.int64)
    n_groups = 0
    span = 0
    for i in range(n):
        span = max(span, key[i] + 1)
    if span <= 4 * n + 64:  # direct table
        ids = np.full(span, -1, dtype=np.int64)
        for i in range(n):
            g = ids[key[i]]
            if g == -1:
                g = n_groups
                ids[key[i]] = g
                first[g] = i
                n_groups += 1
            inv[i] = g
            sizes[g] += weights[i]
    else:  # open addressing, linear probing, load factor <= 1/2
        bits = 4
        while (1 << bits) < 2 * n:
            bits += 1
        mask = (1 << bits) - 1
        shift = np.uint64(64 - bits)
        mix = np.uint64(_MIX)
        ids = np.full(1 << bits, -1, dtype=np.int64)
        keys = np.empty(1 << bits, dtype=np.int64)
        for i in range(n):
            k = key[i]
            h = np.int64((np.uint64(k) * mix) >> shift)
            while ids[h] != -1 and keys[h] != k:
                h = (h + 1) & mask
            g = ids[h]
            if g == -1:
                g = n_groups
                ids[h] = g
                keys[h] = k
                first[g] = i
                n_groups += 1
            inv[i] = g
            sizes[g] += weights[i]
    return inv, first[:n_groups].copy(), sizes[:n_groups].copy()


def _group_levels(gen, rows, radices, weights):
    n = gen.shape[1]
    key = np.zeros(n, dtype=np.int64)
    for j in range(len(rows)):
        r = radices[j]
        col = gen[rows[j]]
        for i in range(n):
            key[i] = key[i] * r + col[i]
    return _group_keys(key, weights)


def _roll_up(codes, ups, offsets, radices, weights):
    n, q = codes.shape
    mapped = np.empty((n, q), dtype=np.int32)
    key = np.zeros(n, dtype=np.int64)
    for i in range(n):
        k = np.int64(0)
        for j in range(q):
            c = ups[offsets[j] + codes[i, j]]
            mapped[i, j] = c
            k = k * radices[j] + c
        key[i] = k
    inv, first, sizes = _group_keys(key, weights)
    out = np.empty((len(first), q), dtype=np.int32)
    for g in range(len(first)):
        out[g] = mapped[first[g]]
    return inv, out, sizes


def _roll_up_counts(parent_class, parent_counts, n_classes):
    m = parent_counts.shape[1]
    out = np.zeros((n_classes, m), dtype=parent_counts.dtype)
    for i in range(len(parent_class)):
        row = out[parent_class[i]]
        src = parent_counts[i]
        for v in range(m):
            row[v] += src[v]
    return out


def _count_pairs(tuple_class, tuple_idx, value, count, n_classes, m):
    out = np.zeros((n_classes, m), dtype=np.float64)
    for i in range(len(tuple_idx)):
        out[tuple_class[tuple_idx[i]], value[i]] += count[i]
    return out


def _nonzero_cells(dense):
    n, m = dense.shape
    k = 0
    for i in range(n):
        for v in range(m):
            if dense[i, v] != 0:
                k += 1
    rows = np.empty(k, dtype=np.int64)
    cols = np.empty(k, dtype=np.int64)
    vals = np.empty(k, dtype=np.int64)
    k = 0
    for i in range(n):
        for v in range(m):
            if dense[i, v] != 0:
                rows[k] = i
                cols[k] = v
                vals[k] = np.int64(dense[i, v])
                k += 1
    return rows, cols, vals


def _finest_below(levels, n_classes, n, target):
    best = -1
    for i in range(n):
        ok = True
        for j in range(levels.shape[1]):
            if levels[i, j] > target[j]:
                ok = False
                break
        if ok and (best < 0 or n_classes[i] < n_classes[best]):
            best = i
    return best
