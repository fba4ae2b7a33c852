"""The search's check of one transformation in one compiled pass, for the common models.

When every model is k-anonymity, distinct l-diversity or recursive (c,l)-diversity
(on one sensitive attribute), a class's verdict needs only its size and its
sensitive values' counts. One compiled pass then groups the tuples (or rolls up
the classes of the finest transformation already checked below), builds each
class's histogram, judges every class and counts what the search keeps: the
records suppressed, the classes released and the smallest one. This skips the
general path's layers (the class-table cache, a verdict per model, result
objects), whose Python cost per node exceeded the grouping itself on small
searches.

The figures are the general path's (:meth:`anon_core.search.evaluate.Evaluator.assess`):
classes are numbered by their first tuple as the frequency table numbers them,
so the class table made from a node (for the quality metric) is the one the
general path makes, and each verdict is the models' own comparison
(``size >= k``, ``distinct >= l``, ``r1 < c * (r_l + ... + r_m)`` in float64).
Used where the frequency table uses its compiled kernels; the general path otherwise.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Sequence

import numpy as np

from anon_core.data import kernels
from anon_core.data.frequency import ClassTable, FrequencyTable
from anon_core.privacy.kanonymity import KAnonymity
from anon_core.privacy.ldiversity import DistinctLDiversity, RecursiveCLDiversity
from anon_core.privacy.models import PrivacyModel

#: Bytes of arrays kept for roll-ups (least recently used evicted).
BUDGET = 64 * 1024 * 1024
#: A finer checked transformation is rolled up only when it has at most this share of the
#: tuples' count of classes: reading codes at scattered representatives costs about twice
#: reading them in order, so a base nearly as large as the table is slower than grouping afresh.
ROLLUP_SHARE = 0.5

_MIX = 0x9E3779B97F4A7C15  # Fibonacci hashing multiplier (Knuth), as the grouping kernels
_compiled: dict[str, Callable] = {}
_lock = threading.Lock()


def _load() -> dict[str, Callable]:
    if not _compiled:
        with _lock:
            if not _compiled:
                import numba

                def jit(fn: Callable) -> Callable:
                    return numba.njit(cache=True, nogil=True)(fn)

                # Callees first: the checks resolve them as module globals when they compile.
                for callee in ("_key_rows", "_group", "_tally"):
                    fn = globals()[callee]
                    globals()[callee] = jit(getattr(fn, "py_func", fn))
                for name, fn in (
                    ("sizes", _check_sizes),
                    ("sensitive", _check_sensitive),
                ):
                    _compiled[name] = jit(fn)
    return _compiled


# ------------------------------------------------------------------ compiled passes


def _group(gen, rows, radices, src, use_src, weights, inv):
    """Group the positions ``i`` (tuples, or classes read at tuple ``src[i]`` when ``use_src``)
    on the mixed-radix key of ``gen[rows[j], .]``, numbered by first appearance; writes each
    position's group to ``inv`` (when it has room). Returns (each group's first position, its
    summed ``weights``)."""
    n = len(weights)
    key = np.zeros(n, dtype=np.int64)
    span = 1
    for j in range(len(rows)):
        r = radices[j]
        span *= r
        col = gen[rows[j]]
        if use_src:
            for i in range(n):
                key[i] = key[i] * r + col[src[i]]
        else:
            for i in range(n):
                key[i] = key[i] * r + col[i]
    keep = len(inv) == n
    first = np.empty(n, dtype=np.int64)
    sizes = np.zeros(n, dtype=np.int64)
    groups = 0
    if span <= 4 * n + 64:  # a direct table
        ids = np.full(span, -1, dtype=np.int64)
        for i in range(n):
            g = ids[key[i]]
            if g == -1:
                g = groups
                ids[key[i]] = g
                first[g] = i
                groups += 1
            sizes[g] += weights[i]
            if keep:
                inv[i] = g
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
            kk = key[i]
            h = np.int64((np.uint64(kk) * mix) >> shift)
            while ids[h] != -1 and keys[h] != kk:
                h = (h + 1) & mask
            g = ids[h]
            if g == -1:
                g = groups
                ids[h] = g
                keys[h] = kk
                first[g] = i
                groups += 1
            sizes[g] += weights[i]
            if keep:
                inv[i] = g
    return first[:groups].copy(), sizes[:groups].copy()


def _tally(sizes, ok):
    """Records in failing groups, groups released and the smallest released (the general path's
    count: when nothing is suppressed every group is released)."""
    outliers = 0
    kept = 0
    smallest = 0
    least = 0
    for g in range(len(sizes)):
        s = sizes[g]
        if g == 0 or s < least:
            least = s
        if ok[g]:
            if kept == 0 or s < smallest:
                smallest = s
            kept += 1
        else:
            outliers += s
    if outliers == 0:
        return 0, len(sizes), least
    return outliers, kept, smallest


def _key_rows(levels, offset, card):
    """The rows of ``gen`` and the radices of a transformation's key."""
    q = len(levels)
    rows = np.empty(q, dtype=np.int64)
    radices = np.empty(q, dtype=np.int64)
    for j in range(q):
        rows[j] = offset[j] + levels[j]
        radices[j] = card[j, levels[j]]
    return rows, radices


def _check_sizes(gen, levels, offset, card, src, use_src, weights, k):
    """k-anonymity alone: (each class's first tuple, its size, class ok, records suppressed,
    classes released, the smallest released). QI ``j`` at ``levels[j]`` is row
    ``offset[j] + levels[j]`` of ``gen``, with ``card[j, levels[j]]`` codes."""
    rows, radices = _key_rows(levels, offset, card)
    first, sizes = _group(gen, rows, radices, src, use_src, weights, np.empty(0, np.int64))
    rep = np.empty(len(first), dtype=np.int64)
    ok = np.empty(len(first), dtype=np.bool_)
    for g in range(len(first)):
        rep[g] = src[first[g]] if use_src else first[g]
        ok[g] = sizes[g] >= k
    outliers, kept, smallest = _tally(sizes, ok)
    return rep, sizes, ok, outliers, kept, smallest


def _check_sensitive(
    gen,
    levels,
    offset,
    card,
    src,
    use_src,
    weights,
    e_start,
    e_value,
    e_count,
    m,
    k,
    ld,
    rl,
    c,
    size_limit,
):
    """k-anonymity with distinct ``ld``-diversity and/or recursive (``c``, ``rl``)-diversity
    (0: not asked) on one sensitive attribute of ``m`` values. The positions grouped (tuples, or
    the classes of a finer node) hold the (value, count) entries ``e_start[i]:e_start[i + 1]``;
    each class's entries are summed from its positions' (the class's histogram). When the
    records in classes below k exceed ``size_limit`` (>= 0), the histograms are not made.

    Returns (each class's first tuple, its size, class ok, records in classes below k, records
    suppressed, classes released, the smallest released, and the classes' entries as
    (start, value, count), empty when not made)."""
    rows, radices = _key_rows(levels, offset, card)
    n_src = len(weights)
    inv = np.empty(n_src, dtype=np.int64)
    first, sizes = _group(gen, rows, radices, src, use_src, weights, inv)
    groups = len(first)
    rep = np.empty(groups, dtype=np.int64)
    size_outliers = 0
    for g in range(groups):
        rep[g] = src[first[g]] if use_src else first[g]
        if sizes[g] < k:
            size_outliers += sizes[g]
    ok = np.empty(groups, dtype=np.bool_)
    if 0 <= size_limit < size_outliers:  # only the sizes' verdict is asked, and it fails
        for g in range(groups):
            ok[g] = sizes[g] >= k
        outliers, kept, smallest = _tally(sizes, ok)
        none = np.zeros(0, dtype=np.int64)
        return rep, sizes, ok, size_outliers, outliers, kept, smallest, none, none, none
    n_entries = e_start[n_src]
    # Few classes x values: a dense table filled in one pass over the entries; else the
    # positions of each class together (a counting sort by class) and a scratch table per class.
    dense = groups * m <= 2 * n_entries + 4096
    if dense:
        hist = np.zeros(groups * m, dtype=np.int64)
        for i in range(n_src):
            row = inv[i] * m
            for e in range(e_start[i], e_start[i + 1]):
                hist[row + e_value[e]] += e_count[e]
        start = np.zeros(1, dtype=np.int64)
        order = start
    else:
        hist = np.zeros(1, dtype=np.int64)
        start = np.zeros(groups + 1, dtype=np.int64)
        for i in range(n_src):
            start[inv[i] + 1] += 1
        for g in range(groups):
            start[g + 1] += start[g]
        at = start[:-1].copy()
        order = np.empty(n_src, dtype=np.int64)
        for i in range(n_src):
            g = inv[i]
            order[at[g]] = i
            at[g] += 1
    out_start = np.zeros(groups + 1, dtype=np.int64)
    out_value = np.empty(n_entries, dtype=np.int64)
    out_count = np.empty(n_entries, dtype=np.int64)
    # A value is seen in the class when its stamp is the class.
    acc = np.zeros(m, dtype=np.int64)
    stamp = np.full(m, -1, dtype=np.int64)
    touched = np.empty(m, dtype=np.int64)
    keep = rl - 1 if rl > 0 else 0
    top = np.zeros(max(keep, 1), dtype=np.int64)
    w = 0
    for g in range(groups):
        t = 0
        if dense:
            row = g * m
            for v in range(m):
                x = hist[row + v]
                if x != 0:
                    acc[v] = x
                    touched[t] = v
                    t += 1
        else:
            for p in range(start[g], start[g + 1]):
                i = order[p]
                for e in range(e_start[i], e_start[i + 1]):
                    v = e_value[e]
                    if stamp[v] != g:
                        stamp[v] = g
                        acc[v] = 0
                        touched[t] = v
                        t += 1
                    acc[v] += e_count[e]
        total = 0
        r1 = 0
        for q in range(t):
            v = touched[q]
            x = acc[v]
            out_value[w] = v
            out_count[w] = x
            w += 1
            total += x
            if x > r1:
                r1 = x
        out_start[g + 1] = w
        good = sizes[g] >= k
        if good and ld > 0 and t < ld:
            good = False
        if good and rl > 0:
            if t < rl:
                good = False
            else:
                # The sum of the counts after the rl - 1 largest.
                held = 0
                for q in range(t):
                    x = acc[touched[q]]
                    if keep > 0 and (held < keep or x > top[held - 1]):
                        p = held if held < keep else keep - 1
                        while p > 0 and top[p - 1] < x:
                            top[p] = top[p - 1]
                            p -= 1
                        top[p] = x
                        if held < keep:
                            held += 1
                largest = 0
                for q in range(held):
                    largest += top[q]
                good = np.float64(r1) < c * np.float64(total - largest)
        ok[g] = good
    outliers, kept, smallest = _tally(sizes, ok)
    return (
        rep,
        sizes,
        ok,
        size_outliers,
        outliers,
        kept,
        smallest,
        out_start,
        out_value[:w].copy(),
        out_count[:w].copy(),
    )


# ------------------------------------------------------------------ the search's side


class Node:
    """A checked transformation: its classes and the figures the search keeps."""

    __slots__ = (
        "entries",
        "kept",
        "levels",
        "n_classes",
        "nbytes",
        "ok",
        "outliers",
        "rep",
        "size_outliers",
        "sizes",
        "smallest",
    )

    def __init__(self, levels: tuple[int, ...], out: tuple) -> None:
        self.levels = levels
        self.rep, self.sizes, self.ok = out[0], out[1], out[2]
        if len(out) == 6:  # k-anonymity alone
            self.outliers, self.kept, self.smallest = int(out[3]), int(out[4]), int(out[5])
            self.size_outliers = self.outliers
            self.entries: tuple[np.ndarray, ...] = ()
        else:
            self.size_outliers, self.outliers = int(out[3]), int(out[4])
            self.kept, self.smallest = int(out[5]), int(out[6])
            self.entries = out[7:]  # each class's (value, count) entries: start, values, counts
        self.n_classes = len(self.sizes)
        self.nbytes = self.rep.nbytes + self.sizes.nbytes + self.ok.nbytes
        for a in self.entries:
            self.nbytes += a.nbytes


class _Kept:
    """Checked nodes kept for roll-ups, within :data:`BUDGET` bytes and ``capacity`` nodes (the
    oldest let go first). Their levels and class counts sit in slot arrays, so the finest node
    at or below a transformation is found in one compiled loop."""

    def __init__(self, n_qis: int, capacity: int = 1024) -> None:
        self.levels = np.full((capacity, n_qis), np.iinfo(np.int16).max, dtype=np.int16)
        self.n_classes = np.full(capacity, np.iinfo(np.int64).max, dtype=np.int64)
        self.nodes: list[Node | None] = [None] * capacity
        self.slot: dict[tuple[int, ...], int] = {}
        self.order: deque[int] = deque()  # slots, oldest first
        self.free = list(range(capacity - 1, -1, -1))
        self.filled = 0
        self.bytes = 0

    def get(self, levels: tuple[int, ...]) -> Node | None:
        i = self.slot.get(levels)
        return None if i is None else self.nodes[i]

    def finest_below(self, lv: np.ndarray) -> Node | None:
        """The kept node with the fewest classes among those at or below ``lv`` (the first
        such slot on ties)."""
        if not self.slot:
            return None
        i = kernels.finest_below(self.levels, self.n_classes, self.filled, lv)
        return None if i < 0 else self.nodes[i]

    def put(self, node: Node) -> None:
        while self.slot and (not self.free or self.bytes + node.nbytes > BUDGET):
            i = self.order.popleft()
            old = self.nodes[i]
            assert old is not None
            del self.slot[old.levels]
            self.bytes -= old.nbytes
            self.nodes[i] = None
            self.levels[i] = np.iinfo(np.int16).max
            self.n_classes[i] = np.iinfo(np.int64).max
            self.free.append(i)
        i = self.free.pop()
        self.filled = max(self.filled, i + 1)
        self.levels[i] = node.levels
        self.n_classes[i] = node.n_classes
        self.nodes[i] = node
        self.slot[node.levels] = i
        self.order.append(i)
        self.bytes += node.nbytes


def _plain(m: PrivacyModel, cls: type) -> bool:
    """Is ``m`` exactly a ``cls`` (its verdict not overridden by a subclass)?"""
    return isinstance(m, cls) and type(m).class_ok is cls.class_ok


class NodeCheck:
    """Checks transformations of a lattice for k-anonymity, with distinct and recursive
    l-diversity on one sensitive attribute (see the module)."""

    def __init__(
        self,
        freq: FrequencyTable,
        lower: Sequence[int],
        upper: Sequence[int],
        models: Sequence[PrivacyModel],
    ) -> None:
        self.freq = freq
        self.k = max([int(m.k) for m in models if isinstance(m, KAnonymity)], default=0)
        self.ld = max([int(m.l) for m in models if isinstance(m, DistinctLDiversity)], default=0)
        recursive = [m for m in models if isinstance(m, RecursiveCLDiversity)]
        self.rl = int(recursive[0].l) if recursive else 0
        self.c = float(recursive[0].c) if recursive else 0.0
        attrs = {m.attribute for m in models if not isinstance(m, KAnonymity)}
        self.attribute = attrs.pop() if attrs else None
        hs = [freq.dataset.hierarchy(q) for q in freq.qis]
        heights = [h.height for h in hs]
        self._card = np.ones((len(hs), max(heights)), dtype=np.int64)
        for j, h in enumerate(hs):
            self._card[j, : h.height] = [max(h.cardinality(v), 1) for v in range(h.height)]
        # Every tuple's code at every level within the bounds: the frequency table's rows
        # (shared with its general path, filled once).
        self.gen, self._offset = freq.generalized_levels(lower, upper)
        fns = _load()
        self._cache = _Kept(len(hs))
        self._counts = np.ascontiguousarray(freq.counts, dtype=np.int64)
        self._none = np.zeros(0, dtype=np.int64)
        self._roll_below = ROLLUP_SHARE * freq.n_tuples
        self._sizes = fns["sizes"]
        self._sensitive = fns["sensitive"]
        if self.attribute is not None:
            # The tuples' (value, count) entries, sorted by tuple: where each tuple's start.
            sc = freq.sensitive[self.attribute]
            per_tuple = np.bincount(sc.tuple_idx, minlength=freq.n_tuples)
            self._entries = (
                np.concatenate(([0], np.cumsum(per_tuple))).astype(np.int64),
                np.ascontiguousarray(sc.value, dtype=np.int64),
                np.ascontiguousarray(sc.count, dtype=np.int64),
            )
            self._m = int(sc.cardinality)

    @staticmethod
    def applies(freq: FrequencyTable, models: Sequence[PrivacyModel]) -> bool:
        """Can this check stand in for the general one: kernels on, a key within 62 bits, and
        every model k-anonymity, distinct l-diversity or (at most one) recursive (c,l)-diversity,
        the diversity models on one attribute?"""
        if not (freq.use_kernels and kernels.AVAILABLE and freq.qis and models):
            return False
        recursive = 0
        attrs = set()
        for m in models:
            if _plain(m, KAnonymity):
                continue
            if _plain(m, RecursiveCLDiversity):
                recursive += 1
            elif not _plain(m, DistinctLDiversity):
                return False
            attrs.add(m.attribute)
        if recursive > 1 or len(attrs) > 1:
            return False
        span = 1.0
        for q in freq.qis:
            span *= max(freq.dataset.hierarchy(q).cardinality(0), 1)
        return span < 2.0**62

    def check(
        self, levels: tuple[int, ...], row: np.ndarray | None = None, size_limit: int = -1
    ) -> Node:
        """The checked classes of a transformation (rolled up from the finest checked one below
        when it is small enough, else grouped afresh), kept for later roll-ups. ``row``: the
        same levels as an int16 array (the lattice's row of the node), if at hand.

        ``size_limit`` >= 0: only k-anonymity's verdict is needed when more records than this
        are in classes below k; such a node is returned without its histograms (its other
        figures are then not the models' verdict) and not kept."""
        hit = self._cache.get(levels)
        if hit is not None:
            return hit  # type: ignore[return-value]
        lv = np.asarray(levels, dtype=np.int16) if row is None else row
        base = self._cache.finest_below(lv)
        roll = base is not None and base.n_classes <= self._roll_below
        src = base.rep if roll else self._none  # type: ignore[union-attr]
        weights = base.sizes if roll else self._counts  # type: ignore[union-attr]
        if self.attribute is None:
            out = self._sizes(self.gen, lv, self._offset, self._card, src, roll, weights, self.k)
        else:
            e_start, e_value, e_count = base.entries if roll else self._entries  # type: ignore[union-attr]
            out = self._sensitive(
                self.gen,
                lv,
                self._offset,
                self._card,
                src,
                roll,
                weights,
                e_start,
                e_value,
                e_count,
                self._m,
                self.k,
                self.ld,
                self.rl,
                self.c,
                size_limit,
            )
        node = Node(levels, out)
        if self.attribute is None or len(out[7]) == len(node.sizes) + 1:
            self._cache.put(node)
        return node

    def class_table(self, node: Node) -> ClassTable:
        """The frequency table's class table of a checked transformation (for the metric)."""
        table = ClassTable(self.freq, node.levels, None, node.sizes)
        table.set_rep(node.rep)
        return table
