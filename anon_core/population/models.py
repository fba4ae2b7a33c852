"""Population uniqueness: how many records of the sample are unique in the population, as ARX estimates it.

Zayatz (1991), Pitman (Hoshino 2001), SNB (Chen 1998) and Dankar et al.'s decision
rule, solved with ARX's Newton-Raphson settings (``RiskModelPopulationUniqueness``,
``ModelZayatz``, ``ModelPitman``, ``ModelSNB``, ``NewtonRaphson2D``). Every function
reads the sizes of the equivalence classes of the released (non-suppressed)
records; the sampling fraction is records / population size. The figures
(:func:`population_uniqueness`) and the privacy model ``population-uniqueness``
(:func:`criterion_uniques`) share these solvers.
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from anon_core.errors import ConfigError, DataError
from anon_core.population import pitman_kernel as kernel
from anon_core.validation import check_int

#: ARX's ``ARXPopulationModel.create(Region.USA)``: the default population.
USA_POPULATION = 317_238_626
#: The estimators, as the figures and the privacy model name them.
ESTIMATORS = ("dankar", "zayatz", "pitman", "snb")
_INT_MAX = 2**31 - 1  # Java Integer.MAX_VALUE


@dataclass(frozen=True)
class SolverConfig:
    """ARX's ``ARXSolverConfiguration`` defaults for the Newton-Raphson solver.

    ``start_values`` are tried in order after the model's own start value
    (default: ARX's 16 prepared values). ARX also stops a try after 100 ms and
    the solver after 1 s of wall-clock time; by default the solver here is
    deterministic, bounded by the iteration limits only. Set ``time_per_try``
    and ``time_total`` (seconds) to bound it by time as ARX does.
    """

    accuracy: float = 1e-6
    iterations_per_try: int = 1000
    start_values: tuple[tuple[float, float], ...] | None = None
    time_per_try: float | None = None
    time_total: float | None = None

    def starts(self) -> tuple[tuple[float, float], ...]:
        return self.start_values if self.start_values is not None else _default_start_values()


@dataclass(frozen=True)
class PopulationUniqueness:
    """Estimated population uniques, as fractions of the population (count / population size).

    NaN marks an estimator that did not converge or gave an invalid value (ARX
    displays those as 0). ``dankar_model`` is the estimator Dankar's rule chose:
    ``"pitman"``, ``"zayatz"``, ``"snb"``, or ``"none"`` when there is no sample
    unique (every estimate is then 0).
    """

    population_size: int
    sampling_fraction: float
    zayatz: float
    pitman: float
    snb: float
    dankar: float
    dankar_model: str
    pitman_parameters: tuple[float, float]  # (theta, alpha), NaN when not solved


def check_population_size(population_size: Any, records: int) -> int:
    if isinstance(population_size, np.integer):
        population_size = int(population_size)
    p = check_int("population_size", population_size, minimum=1)
    if p < records:
        raise ConfigError(
            f"'population_size' ({p:,}) is smaller than the sample ({records:,} records counted): the "
            "population the table was drawn from must hold at least every record. Give the size of the "
            "population the data represents (default: USA, 317,238,626)."
        )
    return p


def check_class_sizes(sizes: Any) -> np.ndarray:
    arr = np.asarray(sizes)
    if arr.ndim != 1:
        raise DataError(
            f"'sizes' must be a one-dimensional list of class sizes, got shape {arr.shape}."
        )
    if arr.size and not np.issubdtype(arr.dtype, np.integer):
        if (
            not np.issubdtype(arr.dtype, np.floating)
            or not np.all(np.isfinite(arr))
            or np.any(arr % 1)
        ):
            raise DataError("'sizes' must hold whole numbers (records per equivalence class).")
    arr = arr.astype(np.int64)
    if arr.size and arr.min() < 1:
        raise DataError(
            f"'sizes' must hold positive class sizes, got {int(arr.min())}. Leave empty classes out."
        )
    return arr


# ------------------------------------------------------------ sample risks
def class_histogram(sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """ARX's class-size histogram: distinct sizes ascending and how many classes have each."""
    if sizes.size == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    s, c = np.unique(sizes, return_counts=True)
    return s.astype(np.int64), c.astype(np.int64)


# --------------------------------------------------------- Newton-Raphson
@functools.cache
def _default_start_values() -> tuple[tuple[float, float], ...]:
    """ARX's 16 prepared start values, built by float accumulation (``d += 0.33`` while ``d < 1``)."""
    steps = []
    d = 0.0
    while d < 1.0:
        steps.append(d)
        d += 0.33
    return tuple((a, b) for a in steps for b in steps)


def _jdiv(a: float, b: float) -> float:
    """Java double division (x/0 is +-inf or NaN instead of an exception)."""
    if b == 0.0:
        if a == 0.0 or math.isnan(a):
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


Master = Callable[[float, float], tuple[float, float, float, float, float, float]]


def newton_2d(
    master: Master,
    start: tuple[float, float],
    config: SolverConfig,
    constraint: Callable[[float, float], bool] | None = None,
) -> tuple[float, float]:
    """ARX's ``NewtonRaphson2D`` (de.linearbits newtonraphson 0.0.1); wall-clock limits only if configured.

    ``master(x, y)`` returns (F1, F2, J11, J12, J21, J22). Try 0 starts at ``start``,
    try k at the k-th prepared start value. A try ends when the point becomes NaN,
    fails the constraint, or after ``iterations_per_try`` steps past the first.
    Converged iff |F1| <= accuracy and |F2| <= accuracy at an evaluated point.
    Returns (NaN, NaN) when nothing converges.
    """
    acc = config.accuracy
    per_try = config.iterations_per_try
    prepared = config.starts()
    total_limit = (len(prepared) + 1) * per_try  # configure(): iterationsTotal reset
    total = 0
    tries = [start, *prepared]
    t_start = time.perf_counter()
    for k, (x, y) in enumerate(tries):
        if total > total_limit:
            break
        x, y = float(x), float(y)
        iterations = 0
        t_try = time.perf_counter()
        while True:
            total += 1
            fx, fy, x1, x2, y1, y2 = master(x, y)
            if abs(fx) <= acc and abs(fy) <= acc:
                return x, y
            scalar = _jdiv(1.0, x1 * y2 - x2 * y1)
            ix1, ix2, iy1, iy2 = y2 * scalar, -x2 * scalar, -y1 * scalar, x1 * scalar
            x, y = x - (fx * ix1 + fy * ix2), y - (fx * iy1 + fy * iy2)
            # ARX quirk (newtonraphson 0.0.1): once the last prepared start value has been
            # loaded, the solver stops after its first step, so that start is only
            # checked at the point itself.
            now = time.perf_counter()
            if (prepared and k == len(tries) - 1) or (
                config.time_total is not None and now - t_start > config.time_total
            ):
                return math.nan, math.nan
            if constraint is not None and not constraint(x, y):
                break
            if math.isnan(x) or math.isnan(y) or iterations >= per_try:
                break
            if config.time_per_try is not None and now - t_try > config.time_per_try:
                break
            iterations += 1
    return math.nan, math.nan


# ------------------------------------------------------- population models
def _hypergeom_pmf1(population: int, successes: np.ndarray, draws: int) -> np.ndarray:
    """P(X = 1) for X ~ Hypergeometric(population N, K successes, n draws), for each K.

    P = K n / (N - K + 1) * prod_{i=0}^{K-2} (N - n - i) / (N - i), summed in log space
    (log1p of each factor), which is accurate to ~1e-14 even for a population of 3e8.
    """
    k = successes.astype(np.float64)
    n_pop, n = float(population), float(draws)
    kmax = int(successes.max()) if successes.size else 1
    i = np.arange(max(kmax - 1, 0), dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(n_pop - n - i > 0, np.log1p(-n / (n_pop - i)), -np.inf)
        logprod = np.concatenate(
            ([0.0], np.cumsum(terms))
        )  # logprod[m] = sum of the first m factors
        logp = np.log(k * n / (n_pop - k + 1.0)) + logprod[successes - 1]
    return np.exp(logp)


def _zayatz(
    sizes: np.ndarray, counts: np.ndarray, n: int, u: int, c1: int, population: int, f: float
) -> float:
    """Zayatz's estimate of the number of population uniques (``ModelZayatz``)."""
    # ARX quirk: the hypergeometric parameters are Java ints, clamped to Integer.MAX_VALUE
    # (ARX marks it "TODO: This is an error: overflow"); f keeps the true population.
    n_pop = min(population, _INT_MAX)
    draws = min(n, _INT_MAX)
    p = _hypergeom_pmf1(n_pop, sizes, draws)
    temp = 0.0
    for value in (counts / float(u)) * p:  # distinct sizes only, ascending (Java's loop order)
        temp += float(value)
    p1 = float(_hypergeom_pmf1(n_pop, np.array([1]), draws)[0])
    cond = _jdiv((c1 / float(u)) * p1, temp)
    return c1 * cond / f


_EM_HEAD = 8192  # terms summed one by one before the Euler-Maclaurin tail
_EM_MIN = 4 * _EM_HEAD  # sums shorter than this are always summed term by term


def _em_tail(shift: float, lo: int, hi: np.ndarray, power: int) -> np.ndarray:
    """sum_{x=lo}^{hi} 1/(x + shift)^power (power 1 or 2) by Euler-Maclaurin, for lo + shift >= _EM_HEAD/2.

    Three Bernoulli corrections; the remainder is below 1e-28 relative there.
    """
    ya = lo + shift
    yb = hi + shift
    width = hi - float(lo)
    ia, ib = 1.0 / ya, 1.0 / yb
    if power == 1:
        return (
            np.log1p(width * ia)
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


class _PitmanIterative:
    """Pitman's equations in ARX's iterative form, NumPy path (used without numba; see pitman_kernel).

    Sums term by term up to 32768 terms; beyond, 8192 terms and Euler-Maclaurin (~1e-15)."""

    def __init__(self, sizes: np.ndarray, counts: np.ndarray, u: int, n: int) -> None:
        self.i = np.arange(1, u, dtype=np.float64)  # i = 1 .. u-1
        self.n = n
        big = sizes != 1
        self.sizes, self.counts = sizes[big], counts[big].astype(np.float64)
        top = int(self.sizes.max()) if self.sizes.size else 1
        self.top = top
        self.j = np.arange(1, min(n, _EM_MIN + 1), dtype=np.float64)  # 1 .. n-1, or the head
        self.jj = np.arange(
            1, min(top, _EM_MIN + 1), dtype=np.float64
        )  # 1 .. max size - 1, or the head

    def _record_sums(self, t: float) -> tuple[float, float]:
        """(sum 1/(t+i), sum 1/(t+i)^2) over i = 1 .. n-1."""
        m = self.n - 1
        if m <= _EM_MIN or not (t >= 0.0 and math.isfinite(t)):
            j = self.j if m <= _EM_MIN else np.arange(1, self.n, dtype=np.float64)
            tj = t + j
            return float((1.0 / tj).sum()), float((1.0 / (tj * tj)).sum())
        tj = t + self.j[:_EM_HEAD]
        hi = np.array([float(m)])
        s1 = float((1.0 / tj).sum() + _em_tail(t, _EM_HEAD + 1, hi, 1)[0])
        s2 = float((1.0 / (tj * tj)).sum() + _em_tail(t, _EM_HEAD + 1, hi, 2)[0])
        return s1, s2

    def _class_sums(self, a: float, power: int) -> float:
        """sum over classes of size s != 1 of count_s * sum_{j=1}^{s-1} 1/(j-a)^power."""
        if not self.sizes.size:
            return 0.0
        exact = self.top - 1 <= _EM_MIN or not (a <= _EM_HEAD / 2 and math.isfinite(a))
        jj = (
            self.jj
            if exact and self.top - 1 <= _EM_MIN
            else (np.arange(1, self.top, dtype=np.float64) if exact else self.jj[:_EM_HEAD])
        )
        w = jj - a
        terms = 1.0 / w if power == 1 else 1.0 / (w * w)
        prefix = np.cumsum(terms)
        if exact:
            return float((self.counts * prefix[self.sizes - 2]).sum())
        upto = self.sizes - 1  # sum j = 1 .. s-1
        head = prefix[np.minimum(upto, _EM_HEAD) - 1]
        long = upto > _EM_HEAD
        tail = np.zeros(len(upto))
        if long.any():
            tail[long] = _em_tail(-a, _EM_HEAD + 1, upto[long].astype(np.float64), power)
        return float((self.counts * (head + tail)).sum())

    def __call__(self, t: float, a: float) -> tuple[float, float, float, float, float, float]:
        with np.errstate(all="ignore"):
            v0 = t + self.i * a
            v1 = 1.0 / v0
            o1 = float(v1.sum())
            o3 = float((self.i * v1).sum())
            v3 = 1.0 / (v0 * v0)
            v4 = self.i * v3
            d1 = float(v3.sum())
            d5 = float(v4.sum())
            d3 = float((self.i * v4).sum())
            o2, d2 = self._record_sums(t)
            o4 = self._class_sums(a, 1)
            d4 = self._class_sums(a, 2)
        return o1 - o2, o3 - o4, d2 - d1, -d5, -d5, -d3 - d4


def _log_gamma(x: float) -> float:
    """Apache commons-math ``Gamma.logGamma``: NaN for x <= 0."""
    if math.isnan(x) or x <= 0.0:
        return math.nan
    return math.lgamma(x)


def _pitman(
    sizes: np.ndarray,
    counts: np.ndarray,
    n: int,
    u: int,
    c1: int,
    c2: int,
    population: int,
    config: SolverConfig,
) -> tuple[float, float, float]:
    """Pitman's estimate of the number of population uniques (``ModelPitman``); also (theta, alpha)."""
    # ARX quirk: c2 = 0 is replaced by 1 ("overestimate") for the start values.
    c2f = float(c2) if c2 != 0 else 1.0
    c1f, uf, nf = float(c1), float(u), float(n)
    c = _jdiv(c1f * (c1f - 1.0), c2f)
    t0 = _jdiv(nf * uf * c - c1f * (nf - 1.0) * (2.0 * uf + c), 2.0 * c1f * uf + c1f * c - nf * c)
    a0 = _jdiv(t0 * (c1f - nf) + (nf - 1.0) * c1f, nf * uf)
    # ARX first solves with closed forms in digamma/trigamma (its trigamma is wrong for
    # arguments in [8, 12) after recurrence) and re-solves with the iterative master
    # function from the same start whenever that result is NaN or does not satisfy the
    # iterative equations to the accuracy. The iterative equations are the exact ones,
    # so this solves them directly: the same root, without the buggy closed form.
    big = sizes != 1
    if kernel.AVAILABLE and config.time_per_try is None and config.time_total is None:
        solver = (config.accuracy, config.iterations_per_try)  # the whole solve compiled
        t, a = kernel.pitman_solve(
            (t0, a0), config.starts(), *solver, u, n, sizes[big], counts[big]
        )
    else:
        master = (
            kernel.pitman_master(u, n, sizes[big], counts[big])
            if kernel.AVAILABLE
            else _PitmanIterative(sizes, counts, u, n)
        )
        t, a = newton_2d(master, (t0, a0), config, constraint=lambda x, _y: x >= 0)
    if math.isnan(t) or math.isnan(a) or a == 0.0:
        return math.nan, t, a
    p = float(population)
    try:
        v1 = math.exp(_log_gamma(t + 1.0) - _log_gamma(t + a)) * math.pow(p, a)
    except (OverflowError, ValueError):
        v1 = math.nan
    v1 = v1 if 0.0 <= v1 <= p else math.nan
    try:
        v2 = math.gamma(t + 1.0) / math.gamma(t + a) * math.pow(p, a)
    except (OverflowError, ValueError, ZeroDivisionError):
        v2 = math.nan  # Java: Gamma.gamma overflows to inf/NaN; either way out of [0, P]
    v2 = v2 if 0.0 <= v2 <= p else math.nan
    if math.isnan(v1) and math.isnan(v2):
        return math.nan, t, a
    if not math.isnan(v1) and not math.isnan(v2):
        return max(v1, v2), t, a
    return (v2 if math.isnan(v1) else v1), t, a


class _SNB:
    """Chen's shifted negative binomial model (``ModelSNB``): equations and ARX's Matlab-derived Jacobian."""

    def __init__(self, k: float, f: float, c1: float, c2: float) -> None:
        self.k, self.f, self.c1, self.c2 = k, f, c1, c2

    def __call__(self, a: float, b: float) -> tuple[float, float, float, float, float, float]:
        try:
            return self._eval(a, b, math.pow, math.log)
        except (ValueError, OverflowError, ZeroDivisionError):
            # Java semantics (NaN / inf instead of exceptions) through numpy scalars.
            with np.errstate(all="ignore"):
                out = self._eval(np.float64(a), np.float64(b), np.power, np.log)
            return tuple(float(v) for v in out)  # type: ignore[return-value]

    def _eval(self, a, b, pw, ln):  # noqa: ANN001, ANN202 - float or numpy scalars
        k, f, c1, c2 = self.k, self.f, self.c1, self.c2
        # Object function, as ARX writes it (Java precedence: .../2 * (1-d)^(a+2) * (...)).
        dividend = (1 - f) * (1 - b)
        fx = k * f * pw(b / (1 - dividend), a) * (((a * dividend) / (1 - dividend)) + 1) - c1
        fy = (
            k
            * a
            * pw(b, a)
            * (f * f)
            * (1 - b)
            / 2
            * pw(1 - dividend, a + 2)
            * (2 - (1 - a) * dividend)
            - c2
        )
        # Derivatives, transcribed term by term from ModelSNB.getDerivatives.
        val0 = (b - 1.0) * (f - 1.0)
        val1 = val0 - 1.0
        val2 = 1.0 - val0
        val3 = a * val0 / val1 - 1.0
        val4 = pw(-b / val1, a)
        val6 = pw(f, 2.0)
        val7 = pw(b, a)
        val8 = val7 * val6 * k
        val9 = a * val8
        val10 = 2.0 * pw(val2, a + 2.0)
        val11 = pw(val1, 2.0)
        val13 = f * k
        val14 = f - 1.0
        val15 = a - 1.0
        val16 = b - 1.0
        val17 = val15 * val0
        val18 = val6 * k
        val19 = val17 + 2.0
        val20 = val18 * val19
        x1 = -val13 * ln(-b / val1) * val3 * val4 - (val13 * val4 * val0) / val1
        x2 = a * val13 * (1.0 / val1 - (b * val14) / val11) * val3 * pw(
            -b / val1, val15
        ) - val13 * val4 * ((a * val14) / val1 - (a * val16 * pw(val14, 2.0)) / val11)
        y1 = (
            (val9 * ln(val2) * val19 * val16) / val10
            - (val9 * pw(val16, 2.0) * val14) / val10
            - (val7 * val20 * val16) / val10
            - (a * val7 * val18 * ln(b) * val19 * val16) / val10
        )
        y2 = (
            -(val9 * val19) / val10
            - (pw(a, 2.0) * pw(b, val15) * val20 * val16) / val10
            - (a * val7 * val18 * val17) / val10
            - (a * val7 * val20 * (a + 2.0) * val0) / (2.0 * pw(val2, a + 3.0))
        )
        return fx, fy, x1, x2, y1, y2


def _snb(
    sizes: np.ndarray, counts: np.ndarray, u: int, c1: int, c2: int, f: float, config: SolverConfig
) -> float:
    """The SNB estimate of the number of population uniques (NaN when the solver fails)."""
    s = sizes.astype(np.float64)
    m = counts.astype(np.float64)
    f2 = f * f
    with np.errstate(all="ignore"):
        val2 = np.power(1 - f, s) * m
        var1 = s * f2 * np.power(1 - f2, s - 1) * m
        # ARX quirk: "- 1" sits inside the loop, so it is subtracted once per distinct size.
        var2 = val2 * np.power(1 + f, s) - 1
        var4 = s * f * np.power(1 - f, s - 1) * m
    v1, v2, v3, v4 = (_seq_sum(v) for v in (var1, var2, val2, var4))
    # Shlosser's estimate of the number of non-empty population classes.
    k = u + c1 * _jdiv(v1, v2) * _jdiv(v3, v4) * _jdiv(v3, v4)
    a, b = newton_2d(_SNB(k, f, float(c1), float(c2)), (1.0, 1.0), config)  # solve(): start (1, 1)
    with np.errstate(all="ignore"):
        return float(k * np.power(np.float64(b), np.float64(a)))


def _seq_sum(values: np.ndarray) -> float:
    """Sum in index order (as a Java loop), for the handful of distinct class sizes."""
    total = 0.0
    for v in values.tolist():
        total += v
    return total


def _valid(x: float) -> bool:
    return not math.isnan(x) and x != 0.0


def population_uniqueness(
    sizes: Sequence[int] | np.ndarray,
    population_size: int = USA_POPULATION,
    solver: SolverConfig | None = None,
) -> PopulationUniqueness:
    """Population uniqueness from the sizes of the (non-suppressed) classes, as ARX estimates it.

    The sampling fraction is records / population. Estimates are counts of
    population uniques divided by the population size. With no sample unique
    every estimate is 0. Dankar's rule: Pitman when the sampling fraction is
    at most 0.1 (Zayatz if Pitman fails), else the smaller of SNB and Zayatz
    (Zayatz if SNB fails). An estimator that fails gives NaN; it never raises.
    """
    arr = check_class_sizes(sizes)
    s, c = class_histogram(arr)
    n = int((s * c).sum())
    u = int(c.sum())
    p = check_population_size(population_size, n)
    return population_figures(s, c, n, u, p, solver or SolverConfig())


def population_figures(
    s: np.ndarray, c: np.ndarray, n: int, u: int, population: int, solver: SolverConfig
) -> PopulationUniqueness:
    """Every estimate from a class-size histogram (distinct sizes ``s`` ascending, ``c`` classes each)."""
    f = n / float(population)
    c1 = int(c[0]) if s.size and s[0] == 1 else 0
    if c1 == 0:
        return PopulationUniqueness(population, f, 0.0, 0.0, 0.0, 0.0, "none", (math.nan, math.nan))
    idx2 = np.flatnonzero(s == 2)
    c2 = int(c[idx2[0]]) if idx2.size else 0
    zayatz = _zayatz(s, c, n, u, c1, population, f)
    pitman, theta, alpha = _pitman(s, c, n, u, c1, c2, population, solver)
    snb = _snb(s, c, u, c1, c2, f, solver)
    if f <= 0.1:
        dankar, model = (pitman, "pitman") if _valid(pitman) else (zayatz, "zayatz")
    elif _valid(snb):
        # ARX: Zayatz wins only when strictly smaller.
        dankar, model = (zayatz, "zayatz") if zayatz < snb else (snb, "snb")
    else:
        dankar, model = zayatz, "zayatz"

    def frac(x: float) -> float:
        return x / population if _valid(x) else math.nan

    return PopulationUniqueness(
        population_size=population,
        sampling_fraction=f,
        zayatz=frac(zayatz),
        pitman=frac(pitman),
        snb=frac(snb),
        dankar=frac(dankar),
        dankar_model=model,
        pitman_parameters=(theta, alpha),
    )


def criterion_uniques(
    sizes: Sequence[int] | np.ndarray,
    population_size: int,
    estimator: str = "dankar",
    solver: SolverConfig | None = None,
) -> float:
    """Share of population uniques as ARX's ``PopulationUniqueness`` criterion reads it.

    Only the named estimator is solved. 0 when no class has size 1; NaN when the
    estimator fails (ARX then rejects the release). Dankar's rule here has no
    Zayatz fallback when Pitman fails (``getFractionOfUniqueTuplesDankar(false)``).
    """
    s, c = class_histogram(check_class_sizes(sizes))
    return criterion_uniques_hist(s, c, population_size, estimator, solver)


def criterion_uniques_hist(
    s: np.ndarray,
    c: np.ndarray,
    population_size: int,
    estimator: str = "dankar",
    solver: SolverConfig | None = None,
) -> float:
    """:func:`criterion_uniques` from a class-size histogram (distinct sizes ``s`` ascending, ``c`` classes each)."""
    if estimator not in ESTIMATORS:
        raise ConfigError(f"'estimator' must be one of {list(ESTIMATORS)}, got {estimator!r}.")
    n = int((s * c).sum())
    u = int(c.sum())
    if not (s.size and s[0] == 1):
        return 0.0
    population = check_population_size(population_size, n)
    solver = solver or SolverConfig()
    f = n / float(population)
    c1 = int(c[0])
    idx2 = np.flatnonzero(s == 2)
    c2 = int(c[idx2[0]]) if idx2.size else 0
    if estimator == "zayatz":
        value = _zayatz(s, c, n, u, c1, population, f)
    elif estimator == "pitman" or (estimator == "dankar" and f <= 0.1):
        value = _pitman(s, c, n, u, c1, c2, population, solver)[0]
    elif estimator == "snb":
        value = _snb(s, c, u, c1, c2, f, solver)
    else:  # Dankar above 0.1: the smaller of SNB and Zayatz, Zayatz when SNB fails
        snb = _snb(s, c, u, c1, c2, f, solver)
        zayatz = _zayatz(s, c, n, u, c1, population, f)
        value = (zayatz if zayatz < snb else snb) if _valid(snb) else zayatz
    return value / population if _valid(value) else math.nan
