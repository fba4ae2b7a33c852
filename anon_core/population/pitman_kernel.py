"""Pitman's likelihood equations and ARX's Newton-Raphson on them, compiled (numba).

The population-uniqueness privacy model solves Pitman's equations a few times for every
node of the lattice (ARX's binary search over suppression): tens of thousands of solves
on Adult. One evaluation of the equations reads three sums:

* over i = 1 .. u-1 (u classes): 1/(t + i a), i/(t + i a), and the same squared, in one
  fused, vectorized loop;
* over j = 1 .. n-1 (n records): 1/(t + j) and its square, which depend on t alone. The
  first ``HEAD`` terms are summed one by one and the rest by Euler-Maclaurin (three
  Bernoulli corrections: the remainder is below 1e-17 of the sum there), so they cost
  O(1) instead of O(n);
* over the classes of size s > 1: count_s x sum_{j=1}^{s-1} 1/(j - a) and its square,
  from one running prefix over the distinct sizes (Euler-Maclaurin past ``HEAD`` terms).

:func:`pitman_solve` runs ARX's ``NewtonRaphson2D`` (as
:func:`anon_core.population.models.newton_2d`, with Pitman's constraint t >= 0 and no
wall-clock limits) entirely in compiled code. Division follows IEEE 754 (x/0 is +-inf or
NaN), as Java's doubles do. The kernels are compiled (or loaded from numba's cache) on
first use; without numba the caller keeps its NumPy path.
"""

from __future__ import annotations

import functools
import importlib.util
import math
import threading
from collections.abc import Callable

import numpy as np

AVAILABLE = importlib.util.find_spec("numba") is not None

#: Terms summed one by one before the Euler-Maclaurin tail.
HEAD = 128

_compiled: dict[str, Callable] = {}
_lock = threading.Lock()


def _em_tail(shift: float, lo: float, hi: float, power: int) -> float:
    """sum_{x=lo}^{hi} 1/(x + shift)^power (power 1 or 2) by Euler-Maclaurin; lo + shift >= HEAD/2."""
    ya = lo + shift
    yb = hi + shift
    width = hi - lo
    ia = 1.0 / ya
    ib = 1.0 / yb
    if power == 1:
        return (
            math.log1p(width * ia)
            + 0.5 * (ia + ib)
            + (ia**2 - ib**2) / 12.0
            - (ia**4 - ib**4) / 120.0
            + (ia**6 - ib**6) / 252.0
        )
    return (
        width * ia * ib
        + 0.5 * (ia**2 + ib**2)
        + (ia**3 - ib**3) / 6.0
        - (ia**5 - ib**5) / 30.0
        + (ia**7 - ib**7) / 42.0
    )


def _index_sums(t: float, a: float, u: int) -> tuple[float, float, float, float, float]:
    """Over i = 1 .. u-1: sums of 1/(t+ia), i/(t+ia), 1/(t+ia)^2, i/(t+ia)^2, i^2/(t+ia)^2.

    Compiled with reassociation allowed, so the five sums are vectorized (several partial
    sums each, which is also more accurate than one running sum)."""
    o1 = 0.0
    o3 = 0.0
    d1 = 0.0
    d5 = 0.0
    d3 = 0.0
    for k in range(1, u):
        i = float(k)
        v1 = 1.0 / (t + i * a)
        v3 = v1 * v1
        o1 += v1
        o3 += i * v1
        d1 += v3
        d5 += i * v3
        d3 += i * (i * v3)
    return o1, o3, d1, d5, d3


def _master(
    t: float, a: float, u: int, n: int, sizes: np.ndarray, counts: np.ndarray
) -> tuple[float, float, float, float, float, float]:
    """(F1, F2, J11, J12, J21, J22) of Pitman's equations in ARX's iterative form at (t, a).

    ``sizes`` (ascending) and ``counts`` describe the classes of size greater than one.
    """
    o1, o3, d1, d5, d3 = _index_sums(t, a, u)
    # Records: sum over j = 1 .. n-1 of 1/(t+j) and 1/(t+j)^2.
    m = n - 1
    o2 = 0.0
    d2 = 0.0
    tail = m > 2 * HEAD and t >= 0.0 and t < math.inf
    last = HEAD if tail else m
    for k in range(1, last + 1):
        w = t + float(k)
        o2 += 1.0 / w
        d2 += 1.0 / (w * w)
    if tail:
        o2 += _em_tail(t, float(HEAD + 1), float(m), 1)
        d2 += _em_tail(t, float(HEAD + 1), float(m), 2)
    # Classes of size s > 1: count_s * sum_{j=1}^{s-1} 1/(j-a)^p, one running prefix.
    o4 = 0.0
    d4 = 0.0
    if sizes.size:
        em = a <= HEAD / 2 and a > -math.inf
        p1 = 0.0
        p2 = 0.0
        j = 0  # terms summed into the prefix so far
        for idx in range(sizes.size):
            upto = sizes[idx] - 1
            stop = min(upto, HEAD) if em else upto
            while j < stop:
                j += 1
                w = float(j) - a
                p1 += 1.0 / w
                p2 += 1.0 / (w * w)
            s1 = p1
            s2 = p2
            if em and upto > HEAD:
                s1 += _em_tail(-a, float(HEAD + 1), float(upto), 1)
                s2 += _em_tail(-a, float(HEAD + 1), float(upto), 2)
            o4 += counts[idx] * s1
            d4 += counts[idx] * s2
    return o1 - o2, o3 - o4, d2 - d1, -d5, -d5, -d3 - d4


def _solve(
    t0: float,
    a0: float,
    starts: np.ndarray,
    accuracy: float,
    per_try: int,
    u: int,
    n: int,
    sizes: np.ndarray,
    counts: np.ndarray,
) -> tuple[float, float]:
    """ARX's ``NewtonRaphson2D`` from (t0, a0), then the prepared ``starts`` (rows of (t, a)),
    with the constraint t >= 0; (NaN, NaN) when nothing converges."""
    prepared = starts.shape[0]
    total_limit = (prepared + 1) * per_try
    total = 0
    for k in range(prepared + 1):
        if total > total_limit:
            break
        if k == 0:
            x = t0
            y = a0
        else:
            x = starts[k - 1, 0]
            y = starts[k - 1, 1]
        iterations = 0
        while True:
            total += 1
            fx, fy, x1, x2, y1, y2 = _master(x, y, u, n, sizes, counts)
            if abs(fx) <= accuracy and abs(fy) <= accuracy:
                return x, y
            scalar = 1.0 / (x1 * y2 - x2 * y1)
            ix1 = y2 * scalar
            ix2 = -x2 * scalar
            iy1 = -y1 * scalar
            iy2 = x1 * scalar
            x, y = x - (fx * ix1 + fy * ix2), y - (fx * iy1 + fy * iy2)
            # ARX quirk: the last prepared start value is only checked at the point itself.
            if prepared > 0 and k == prepared:
                return math.nan, math.nan
            if not (x >= 0.0):  # the constraint (NaN fails it too)
                break
            if math.isnan(y) or iterations >= per_try:
                break
            iterations += 1
    return math.nan, math.nan


def _load() -> dict[str, Callable]:
    if _compiled:
        return _compiled
    with _lock:
        if _compiled:
            return _compiled
        import numba

        def jit(fn: Callable) -> Callable:
            return numba.njit(cache=True, nogil=True, error_model="numpy")(fn)

        # Callees first: callers resolve them as module globals when they compile.
        globals()["_em_tail"] = jit(getattr(_em_tail, "py_func", _em_tail))
        globals()["_index_sums"] = numba.njit(
            cache=True, nogil=True, error_model="numpy", fastmath={"reassoc", "contract"}
        )(getattr(_index_sums, "py_func", _index_sums))
        globals()["_master"] = jit(getattr(_master, "py_func", _master))
        _compiled["master"] = globals()["_master"]
        _compiled["solve"] = jit(_solve)
    return _compiled


def pitman_master(
    u: int, n: int, sizes: np.ndarray, counts: np.ndarray
) -> Callable[[float, float], tuple[float, float, float, float, float, float]]:
    """The compiled equations as a function of (t, a), for a solver run from Python."""
    master = _load()["master"]
    s = np.ascontiguousarray(sizes, dtype=np.int64)
    c = np.ascontiguousarray(counts, dtype=np.float64)
    return lambda t, a: master(float(t), float(a), int(u), int(n), s, c)


@functools.lru_cache(maxsize=8)
def _start_table(starts: tuple[tuple[float, float], ...]) -> np.ndarray:
    table = np.asarray(starts, dtype=np.float64).reshape(-1, 2)
    table.flags.writeable = False
    return table


def pitman_solve(
    start: tuple[float, float],
    starts: tuple[tuple[float, float], ...],
    accuracy: float,
    per_try: int,
    u: int,
    n: int,
    sizes: np.ndarray,
    counts: np.ndarray,
) -> tuple[float, float]:
    """(theta, alpha) solving Pitman's equations as ARX does, or (NaN, NaN)."""
    solve = _load()["solve"]
    return solve(
        float(start[0]),
        float(start[1]),
        _start_table(starts),
        float(accuracy),
        int(per_try),
        int(u),
        int(n),
        np.ascontiguousarray(sizes, dtype=np.int64),
        np.ascontiguousarray(counts, dtype=np.float64),
    )
