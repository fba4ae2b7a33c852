"""Predictive tagging of a monotone predicate over the lattice (the search's phase 1).

Binary search on greedy paths finds where a path crosses the boundary between
failing and passing nodes; then the walk follows the boundary: the undecided
predecessors of a passing node and successors of a failing node are checked
next, as they are likely on the boundary too. Every check tags its whole up-set
(pass) or down-set (fail). This is ARX's Flash strategy (Kohlmayer et al.,
"Flash: efficient, stable and optimal k-anonymity", 2012).

The walk's bookkeeping (the next undecided start, its greedy path, tagging a
region, the boundary stack) is done by three small steps, in two forms with the
same results: compiled loops over the node ids (numba), used where the kernels
are loaded or the lattice is large, and numpy's array operations otherwise.
Nodes are numbered with the first attribute varying fastest: a node's offset
from the lattice's lower levels in attribute ``j`` is ``(idx // stride[j]) % radix[j]``.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable

import numpy as np

from anon_core.data import kernels

#: Lattices at least this large use the compiled steps even when the kernels are not loaded yet.
COMPILED_MIN_NODES = 20_000

_compiled: dict[str, Callable] = {}
_lock = threading.Lock()


def _load() -> dict[str, Callable]:
    if _compiled:
        return _compiled
    with _lock:
        if not _compiled:
            import numba

            for name, fn in (
                ("next_start", _next_start),
                ("tag", _tag),
                ("pop", _pop),
                ("minimal", _minimal),
            ):
                _compiled[name] = numba.njit(cache=True, nogil=True)(fn)
    return _compiled


def use_compiled(n_nodes: int) -> bool:
    """Compiled steps where numba is there and loading them is repaid (or already paid)."""
    return kernels.AVAILABLE and (kernels.loaded() or n_nodes >= COMPILED_MIN_NODES)


# ------------------------------------------------------------------ compiled steps


def _next_start(order, pos, status, radix, stride, rank, bound, limit, path):
    """From position ``pos`` of ``order``, the first undecided start whose bound is within
    ``limit``; its greedy path (the undecided successor of lowest rank, step by step) is
    written to ``path``. Returns (the position after the start, the path's length), or
    (len(order), 0) when no start is left."""
    n = len(order)
    d = len(radix)
    while pos < n:
        start = order[pos]
        pos += 1
        if status[start] != 0 or bound[start] > limit:
            continue
        path[0] = start
        length = 1
        node = start
        while True:
            best = -1
            for j in range(d):
                if (node // stride[j]) % radix[j] < radix[j] - 1:
                    s = node + stride[j]
                    if status[s] == 0 and (best < 0 or rank[s] < rank[best]):
                        best = s
            if best < 0:
                break
            path[length] = best
            length += 1
            node = best
        return pos, length
    return n, 0


def _tag(status, radix, stride, idx, ok, frontier, flen):
    """Tag the undecided nodes of the up-set (``ok``: 1) or down-set (-1) of ``idx``, then push
    its undecided predecessors (``ok``) or successors onto ``frontier`` from ``flen``, in
    attribute order. Returns the new length (``frontier`` holds room for ``len(radix)`` more)."""
    d = len(radix)
    lo = np.empty(d, dtype=np.int64)
    hi = np.empty(d, dtype=np.int64)
    base = 0
    for j in range(d):
        a = (idx // stride[j]) % radix[j]
        # A decided neighbour's whole up-set (pass) or down-set (fail) is decided already (every
        # tag covers one), so the region past it in attribute j is skipped.
        if ok:
            lo[j] = a
            hi[j] = radix[j] - 1
            if a < radix[j] - 1 and status[idx + stride[j]] == 1:
                hi[j] = a
        else:
            lo[j] = 0
            hi[j] = a
            if a > 0 and status[idx - stride[j]] == -1:
                lo[j] = a
        base += lo[j] * stride[j]
    value = 1 if ok else -1
    cur = lo.copy()
    node = base
    while True:
        if status[node] == 0:
            status[node] = value
        j = 0
        while j < d:
            if cur[j] < hi[j]:
                cur[j] += 1
                node += stride[j]
                break
            node -= (cur[j] - lo[j]) * stride[j]
            cur[j] = lo[j]
            j += 1
        if j == d:
            break
    for j in range(d):
        a = (idx // stride[j]) % radix[j]
        if ok and a > 0:
            nb = idx - stride[j]
        elif not ok and a < radix[j] - 1:
            nb = idx + stride[j]
        else:
            continue
        if status[nb] == 0:
            frontier[flen] = nb
            flen += 1
    return flen


def _pop(frontier, flen, status, bound, limit):
    """Pop the boundary stack down to an undecided node whose bound is within ``limit``.
    Returns (that node or -1, the new length)."""
    while flen > 0:
        flen -= 1
        idx = frontier[flen]
        if status[idx] == 0 and not bound[idx] > limit:
            return idx, flen
    return -1, 0


def _minimal(ids, status, radix, stride):
    """Of the nodes ``ids``, those none of whose direct predecessors has status 1 (pass)."""
    keep = np.empty(len(ids), dtype=np.bool_)
    for p in range(len(ids)):
        idx = ids[p]
        ok = True
        for j in range(len(radix)):
            if (idx // stride[j]) % radix[j] > 0 and status[idx - stride[j]] == 1:
                ok = False
                break
        keep[p] = ok
    return ids[keep]


def minimal_nodes(ids: np.ndarray, status: np.ndarray, radix: np.ndarray) -> np.ndarray | None:
    """Of the nodes ``ids``, those none of whose direct predecessors passes (status 1), in one
    compiled loop; None where the compiled steps are not in use (the caller's numpy form)."""
    radix = np.ascontiguousarray(radix, dtype=np.int64)
    n = int(np.prod(radix)) if len(radix) else 1
    if not use_compiled(n):
        return None
    stride = np.concatenate(([1], np.cumprod(radix)[:-1])).astype(np.int64)
    return _load()["minimal"](np.ascontiguousarray(ids, dtype=np.int64), status, radix, stride)


# ------------------------------------------------------------------ numpy steps


class _NumpySteps:
    """The same three steps with numpy's array operations (small lattices, no numba)."""

    def __init__(self, radix: np.ndarray, stride: np.ndarray, n: int) -> None:
        self.radix, self.stride = radix, stride
        self.shape = tuple(int(r) for r in radix)
        ids = np.arange(n, dtype=np.int64)
        self.offsets = (ids[:, None] // stride) % radix

    def region(self, status: np.ndarray, idx: int, up: bool) -> np.ndarray:
        view = status.reshape(self.shape, order="F")
        return view[
            tuple(slice(int(a), None) if up else slice(0, int(a) + 1) for a in self.offsets[idx])
        ]

    def next_start(self, order, pos, status, radix, stride, rank, bound, limit, path):
        n = len(order)
        while pos < n:
            start = int(order[pos])
            pos += 1
            if status[start] != 0 or bound[start] > limit:
                continue
            length, node = 1, start
            path[0] = start
            while True:
                succ = node + stride[self.offsets[node] < radix - 1]
                succ = succ[status[succ] == 0]
                if len(succ) == 0:
                    break
                node = int(succ[np.argmin(rank[succ])])
                path[length] = node
                length += 1
            return pos, length
        return n, 0

    def tag(self, status, radix, stride, idx, ok, frontier, flen):
        region = self.region(status, idx, ok)
        region[region == 0] = 1 if ok else -1
        at = self.offsets[idx]
        nb = idx - stride[at > 0] if ok else idx + stride[at < radix - 1]
        nb = nb[status[nb] == 0]
        frontier[flen : flen + len(nb)] = nb
        return flen + len(nb)

    def pop(self, frontier, flen, status, bound, limit):
        while flen > 0:
            flen -= 1
            idx = int(frontier[flen])
            if status[idx] == 0 and not bound[idx] > limit:
                return idx, flen
        return -1, 0


def tag_monotone(
    radix: np.ndarray,
    order: np.ndarray,
    rank: np.ndarray,
    passes: Callable[[int], bool],
    bound: np.ndarray | None = None,
    best: Callable[[], float] | None = None,
    tie_limit: Callable[[float], float] = lambda q: q,
    progress: Callable[[float], None] | None = None,
    compiled: bool | None = None,
) -> np.ndarray:
    """Status per node for a monotone predicate ``passes``: 1 pass, -1 fail, 0 undecided.

    ``radix``: levels per attribute of the lattice; ``order``: the start order (Flash's);
    ``rank``: each node's position in it (greedy paths step to the successor of lowest rank).
    With a lower bound of quality (monotone in generalization) and ``best()``, the best
    satisfying quality so far, start nodes and boundary nodes whose bound exceeds
    ``tie_limit(best())`` are not checked: they cannot be optimal, and may stay undecided.
    Without them every node is decided. ``compiled``: force one form of the steps (tests).
    """
    radix = np.ascontiguousarray(radix, dtype=np.int64)
    d = len(radix)
    n = int(np.prod(radix)) if d else 1
    stride = np.concatenate(([1], np.cumprod(radix)[:-1])).astype(np.int64)
    if compiled is None:
        compiled = use_compiled(n)
    if compiled:
        fns = _load()
        next_start, tag, pop = fns["next_start"], fns["tag"], fns["pop"]
    else:
        steps = _NumpySteps(radix, stride, n)
        next_start, tag, pop = steps.next_start, steps.tag, steps.pop
    pruning = bound is not None and best is not None
    bounds = np.ascontiguousarray(bound, dtype=np.float64) if pruning else np.full(n, -np.inf)
    order = np.ascontiguousarray(order, dtype=np.int64)
    rank = np.ascontiguousarray(rank, dtype=np.int64)
    status = np.zeros(n, dtype=np.int8)
    path = np.empty(int(radix.sum()) + 1, dtype=np.int64)
    frontier = np.empty(max(64, 4 * d), dtype=np.int64)
    flen = 0

    def limit() -> float:
        return tie_limit(best()) if pruning else math.inf  # type: ignore[misc]

    pos, done = 0, 0
    while True:
        pos, length = next_start(order, pos, status, radix, stride, rank, bounds, limit(), path)
        if length == 0:
            break
        lo, hi = 0, length - 1
        while lo <= hi:
            mid = (lo + hi) // 2
            idx = int(path[mid])
            known = status[idx]
            if known != 0:
                ok = known == 1
            else:
                ok = bool(passes(idx))
                if flen + d > len(frontier):
                    frontier = np.concatenate([frontier, np.empty_like(frontier)])
                flen = tag(status, radix, stride, idx, ok, frontier, flen)
            if ok:
                hi = mid - 1
            else:
                lo = mid + 1
        while True:  # follow the boundary from what was just decided
            idx, flen = pop(frontier, flen, status, bounds, limit())
            if idx < 0:
                break
            idx = int(idx)
            ok = bool(passes(idx))
            if flen + d > len(frontier):
                frontier = np.concatenate([frontier, np.empty_like(frontier)])
            flen = tag(status, radix, stride, idx, ok, frontier, flen)
        done += 1
        if progress is not None and done % 16 == 0:
            progress(0.5 * float((status != 0).mean()))
    return status
