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
        # built aside and published at once: a reader outside the lock that sees a non-empty
        # table must find every kernel in it
        built = {"group_keys": globals()["_group_keys"]}
        for name, fn in (
            ("column_counts", _column_counts),
            ("rows_at", _rows_at),
            ("fill_levels", _fill_levels),
            ("group_ids", _group_ids),
            ("group_levels", _group_levels),
            ("roll_up", _roll_up),
            ("roll_up_rep", _roll_up_rep),
            ("group_pairs", _group_pairs),
            ("hierarchical_levels", _hierarchical_levels),
            ("finest_below", _finest_below),
            ("top_counts", _top_counts),
            ("equal_emd", _equal_emd),
            ("hierarchical_cost", _hierarchical_cost),
        ):
            built[name] = jit(fn)
        _compiled.update(built)
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


def roll_up_rep(gen, rows, radices, rep, weights):
    """Group classes by their codes at other levels, read at each class's representative tuple:
    ``gen[rows[j], rep[c]]`` for QI ``j`` (a class's tuples share their generalized codes).

    Returns (new class of each old class, each new class's representative tuple, summed
    ``weights`` per new class), new classes numbered by first appearance, as ``roll_up``.
    """
    return _load()["roll_up_rep"](gen, rows, radices, rep, weights)


def group_pairs(mapping, idx, val, cnt, n_classes, m):
    """Sum (``mapping[idx]``, ``val``, ``cnt``) triplets into (class, value, count) ones sorted by
    class then value, as numpy's unique-then-bincount gives them (a counting sort by class)."""
    return _load()["group_pairs"](
        _i64(mapping), _i64(idx), _i64(val), _i64(cnt), int(n_classes), int(m)
    )


def hierarchical_levels(cls, val, cnt, sizes, global_counts, node_of, node_counts, total):
    """Per class and level h of a sensitive hierarchy: S_h = sum over the level's nodes of
    max(Q(node) * size - P(node) * total, 0), as exact integers (float64).

    (``cls``, ``val``, ``cnt``): the classes' sorted sparse histograms; ``node_of[h - 1]``:
    the level-h node of each value; ``node_counts[h - 1]``: records under each node.
    Nodes the class does not reach contribute Q * size, so only reached nodes are visited.
    """
    return _load()["hierarchical_levels"](
        _i64(cls),
        _i64(val),
        _i64(cnt),
        _i64(sizes),
        _i64(global_counts),
        _i64(node_of),
        _i64(node_counts),
        int(total),
    )


def top_counts(cls, cnt, n_classes, keep):
    """Per class of sorted (class, value, count) triplets: the largest count, the sum of the
    counts after the ``keep`` largest, and the number of values (recursive (c,l)-diversity)."""
    return _load()["top_counts"](_i64(cls), _i64(cnt), int(n_classes), int(keep))


def equal_emd(cls, val, cnt, sizes, q):
    """Equal-distance EMD per class from sorted (class, value, count) triplets and the overall
    shares ``q``: (1 + sum over the class's values of |p - q| - q) / 2, summed in entry order
    as numpy's bincount does (the same value to the bit)."""
    return _load()["equal_emd"](_i64(cls), _i64(val), _i64(cnt), _i64(sizes), q)


def hierarchical_cost(levels, sizes, total):
    """Hierarchical EMD per class from :func:`hierarchical_levels`' S_h: sum over h of
    h/H * (S_{h-1} - S_h), divided by total * size (numpy's order of operations)."""
    return _load()["hierarchical_cost"](levels, _i64(sizes), float(total))


def _i64(a):
    return np.ascontiguousarray(a, dtype=np.int64)


def group_keys(key):
    """(id of each int64 key by first appearance, the position of each id's first key)."""
    inv, first, _ = _load()["group_keys"](key, np.ones(len(key), dtype=np.int64))
    return inv, first


def group_ids(key):
    """(int32 id of each int64 key by first appearance, the position of each id's first key),
    with a hash table sized by the distinct keys, not by ``len(key)``: a column of a few hundred
    values among many rows (object addresses) then touches a few KB, not the rows' size."""
    fn = _load()["group_ids"]
    codes, first, done = fn(key, 10)  # 1,024 slots: up to 512 distinct keys
    if not done:
        bits = 10
        while (1 << bits) < 2 * len(key):
            bits += 1
        codes, first, done = fn(key, bits)
    return codes, first


def column_counts(tuples, counts, cardinalities):
    """Records per code of every column of ``tuples`` (each tuple counting ``counts``), in one
    pass over the tuples: one int64 array per column, of its cardinality."""
    cards = np.asarray(cardinalities, dtype=np.int64)
    starts = np.concatenate(([0], np.cumsum(cards))).astype(np.int64)
    flat = _load()["column_counts"](np.ascontiguousarray(tuples), _i64(counts), starts)
    return [flat[starts[j] : starts[j + 1]] for j in range(len(cards))]


def rows_at(columns, first):
    """``columns[:, first].T`` as a C-ordered int32 table (one row per position), in one pass."""
    return _load()["rows_at"](columns, first)


def fill_levels(gen, tuples, qi, maps, start):
    """``gen[r, i] = maps[start[r] + tuples[i, qi[r]]]`` for every row ``r`` with ``qi[r] >= 0``
    (every tuple's code at some levels, from the levels' maps concatenated)."""
    _load()["fill_levels"](gen, tuples, qi, maps, start)


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


def _column_counts(tuples, counts, starts):
    out = np.zeros(starts[-1], dtype=np.int64)
    q = tuples.shape[1]
    for i in range(tuples.shape[0]):
        c = counts[i]
        for j in range(q):
            out[starts[j] + tuples[i, j]] += c
    return out


def _rows_at(columns, first):
    q = columns.shape[0]
    out = np.empty((len(first), q), dtype=np.int32)
    for g in range(len(first)):
        i = first[g]
        for j in range(q):
            out[g, j] = columns[j, i]
    return out


def _fill_levels(gen, tuples, qi, maps, start):
    for r in range(len(qi)):
        j = qi[r]
        if j >= 0:
            at = start[r]
            for i in range(tuples.shape[0]):
                gen[r, i] = maps[at + tuples[i, j]]


def _group_ids(key, bits):
    n = len(key)
    codes = np.empty(n, dtype=np.int32)
    ids = np.full(1 << bits, -1, dtype=np.int64)
    keys = np.empty(1 << bits, dtype=np.int64)
    first = np.empty(min(n, 1 << (bits - 1)), dtype=np.int64)
    mix = np.uint64(_MIX)
    shift = np.uint64(64 - bits)
    mask = (1 << bits) - 1
    groups = 0
    for i in range(n):
        k = key[i]
        h = np.int64((np.uint64(k) * mix) >> shift)
        while ids[h] != -1 and keys[h] != k:
            h = (h + 1) & mask
        g = ids[h]
        if g == -1:
            if groups == len(first):  # load factor 1/2 reached: the caller takes a larger table
                return codes[:0], first[:0], False
            g = groups
            first[g] = i
            groups += 1
            ids[h] = g
            keys[h] = k
        codes[i] = g
    return codes, first[:groups].copy(), True


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


def _roll_up_rep(gen, rows, radices, rep, weights):
    n = len(rep)
    key = np.zeros(n, dtype=np.int64)
    for j in range(len(rows)):
        r = radices[j]
        col = gen[rows[j]]
        for i in range(n):
            key[i] = key[i] * r + col[rep[i]]
    inv, first, sizes = _group_keys(key, weights)
    new_rep = np.empty(len(first), dtype=np.int64)
    for g in range(len(first)):
        new_rep[g] = rep[first[g]]
    return inv, new_rep, sizes


def _group_pairs(mapping, idx, val, cnt, n_classes, m):
    n = len(idx)
    if n_classes * m <= 2 * n + 4096:  # a dense scratch table, scanned in order
        dense = np.zeros(n_classes * m, dtype=np.int64)
        k = 0
        for e in range(n):
            key = mapping[idx[e]] * m + val[e]
            if dense[key] == 0:
                k += 1
            dense[key] += cnt[e]
        out_c = np.empty(k, dtype=np.int64)
        out_v = np.empty(k, dtype=np.int64)
        out_n = np.empty(k, dtype=np.int64)
        k = 0
        for key in range(n_classes * m):
            if dense[key] != 0:
                out_c[k] = key // m
                out_v[k] = key % m
                out_n[k] = dense[key]
                k += 1
        return out_c, out_v, out_n
    start = np.zeros(n_classes + 1, dtype=np.int64)
    for e in range(n):
        start[mapping[idx[e]] + 1] += 1
    for c in range(n_classes):
        start[c + 1] += start[c]
    pos = start[:-1].copy()
    order = np.empty(n, dtype=np.int64)
    for e in range(n):
        c = mapping[idx[e]]
        order[pos[c]] = e
        pos[c] += 1
    acc = np.zeros(m, dtype=np.int64)
    seen = np.full(m, -1, dtype=np.int64)
    touched = np.empty(m, dtype=np.int64)
    out_c = np.empty(n, dtype=np.int64)
    out_v = np.empty(n, dtype=np.int64)
    out_n = np.empty(n, dtype=np.int64)
    k = 0
    for c in range(n_classes):
        t = 0
        for j in range(start[c], start[c + 1]):
            e = order[j]
            v = val[e]
            if seen[v] != c:
                seen[v] = c
                acc[v] = 0
                touched[t] = v
                t += 1
            acc[v] += cnt[e]
        for j in range(1, t):  # insertion sort: a class holds few distinct values
            v = touched[j]
            i = j - 1
            while i >= 0 and touched[i] > v:
                touched[i + 1] = touched[i]
                i -= 1
            touched[i + 1] = v
        for j in range(t):
            v = touched[j]
            out_c[k] = c
            out_v[k] = v
            out_n[k] = acc[v]
            k += 1
    return out_c[:k].copy(), out_v[:k].copy(), out_n[:k].copy()


def _hierarchical_levels(cls, val, cnt, sizes, global_counts, node_of, node_counts, total):
    n_classes = len(sizes)
    starts = np.zeros(n_classes + 1, dtype=np.int64)
    for j in range(len(cls)):
        starts[cls[j] + 1] += 1
    for c in range(n_classes):
        starts[c + 1] += starts[c]
    top = node_of.shape[0]
    out = np.zeros((n_classes, top + 1), dtype=np.float64)
    width = node_counts.shape[1] if top > 0 else 1
    acc = np.zeros(width, dtype=np.int64)
    stamp = np.full(width, -1, dtype=np.int64)
    touched = np.empty(width, dtype=np.int64)
    tick = 0
    for c in range(n_classes):
        size = sizes[c]
        s = size * total  # every node unreached: sum of Q * size over all values
        for j in range(starts[c], starts[c + 1]):
            q = global_counts[val[j]]
            extra = q * size - cnt[j] * total
            s += (extra if extra > 0 else 0) - q * size
        out[c, 0] = s
        for h in range(top):
            t = 0
            for j in range(starts[c], starts[c + 1]):
                node = node_of[h, val[j]]
                if stamp[node] != tick:
                    stamp[node] = tick
                    acc[node] = 0
                    touched[t] = node
                    t += 1
                acc[node] += cnt[j]
            tick += 1
            s = size * total
            for i in range(t):
                node = touched[i]
                q = node_counts[h, node]
                extra = q * size - acc[node] * total
                s += (extra if extra > 0 else 0) - q * size
            out[c, h + 1] = s
    return out


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


def _top_counts(cls, cnt, n_classes, keep):
    first = np.zeros(n_classes, dtype=np.int64)
    tail = np.zeros(n_classes, dtype=np.int64)
    distinct = np.zeros(n_classes, dtype=np.int64)
    top = np.zeros(max(keep, 1), dtype=np.int64)
    n = len(cls)
    e = 0
    while e < n:
        c = cls[e]
        held = 0  # the ``keep`` largest counts so far, descending
        total = 0
        while e < n and cls[e] == c:
            x = cnt[e]
            total += x
            distinct[c] += 1
            if keep > 0 and (held < keep or x > top[held - 1]):
                i = held if held < keep else keep - 1
                while i > 0 and top[i - 1] < x:
                    top[i] = top[i - 1]
                    i -= 1
                top[i] = x
                if held < keep:
                    held += 1
            if x > first[c]:
                first[c] = x
            e += 1
        kept = 0
        for i in range(held):
            kept += top[i]
        tail[c] = total - kept
    return first, tail, distinct


def _equal_emd(cls, val, cnt, sizes, q):
    n_classes = len(sizes)
    acc = np.zeros(n_classes, dtype=np.float64)
    for e in range(len(cls)):
        c = cls[e]
        qv = q[val[e]]
        p = cnt[e] / np.float64(sizes[c])
        acc[c] += abs(p - qv) - qv
    out = np.empty(n_classes, dtype=np.float64)
    for c in range(n_classes):
        out[c] = (1.0 + acc[c]) / 2.0
    return out


def _hierarchical_cost(levels, sizes, total):
    n_classes, width = levels.shape
    top = width - 1
    out = np.empty(n_classes, dtype=np.float64)
    for c in range(n_classes):
        cost = 0.0
        below = levels[c, 0]
        for h in range(1, top + 1):
            here = levels[c, h]
            cost += (h / top) * (below - here)
            below = here
        out[c] = cost / (total * np.float64(sizes[c]))
    return out
