"""Time estimates from measurement: time a small calibration run, extrapolate by the algorithm's
complexity, and say the result as a range.

A fixed per-row cost measured once on one machine was 10-40 times too low on another (a busy
two-core server): only a measurement on this machine, with this data, is honest. The model is
``seconds(n) = fixed + per_unit * n ** exponent``, with ``exponent`` the algorithm's complexity in
the size ``n`` (1 for a pass over the rows or an epoch of SGD; about 1.1 for tree ensembles,
n log n). With two or more calibration points ``fixed`` and ``per_unit`` are fitted by least
squares (both kept >= 0); with one point the whole time counts as per-unit cost (an upper bound
when part of it is fixed). The range is ``[central / spread, central * spread]``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from anon_core.errors import ConfigError

#: Default width of the range: the central figure divided and multiplied by this.
SPREAD = 1.5


@dataclass(frozen=True)
class Estimate:
    """Seconds expected (central) and a range [low, high]; ``basis`` says what was measured."""

    seconds: float
    low: float
    high: float
    basis: str = ""

    def scaled(self, factor: float) -> Estimate:
        """The same estimate for ``factor`` times the work (e.g. more seeds or models)."""
        return Estimate(self.seconds * factor, self.low * factor, self.high * factor, self.basis)


def fit(points: Sequence[tuple[float, float]], exponent: float = 1.0) -> tuple[float, float]:
    """(fixed, per_unit) of ``seconds = fixed + per_unit * n ** exponent`` through the
    calibration ``points`` (n, seconds), least squares, both >= 0."""
    if not points:
        raise ConfigError("A time estimate needs at least one calibration run.")
    if exponent <= 0 or not math.isfinite(exponent):
        raise ConfigError(f"'exponent' must be a positive number, got {exponent!r}.")
    xs = [float(n) ** exponent for n, _ in points]
    ys = [max(float(t), 0.0) for _, t in points]
    if any(n <= 0 for n, _ in points):
        raise ConfigError("Calibration sizes must be positive.")
    if len(set(xs)) < 2:  # one size: all of it per unit (no way to tell the fixed part)
        return 0.0, sum(ys) / sum(xs)
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx
    if slope <= 0:  # noise swamped the growth: fall back to the largest run, all per unit
        x_max, y_max = max(zip(xs, ys, strict=True))
        return 0.0, y_max / x_max
    fixed = my - slope * mx
    if fixed < 0:  # through the origin instead
        return 0.0, sum(x * y for x, y in zip(xs, ys, strict=True)) / sum(x * x for x in xs)
    return fixed, slope


def extrapolate(
    points: Sequence[tuple[float, float]],
    size: float,
    exponent: float = 1.0,
    spread: float = SPREAD,
    basis: str = "",
) -> Estimate:
    """The estimated seconds at ``size`` from calibration ``points`` (n, seconds)."""
    if spread < 1:
        raise ConfigError(f"'spread' must be at least 1, got {spread!r}.")
    fixed, per_unit = fit(points, exponent)
    central = fixed + per_unit * float(size) ** exponent
    return Estimate(central, central / spread, central * spread, basis)


def measure(
    run: Callable[[int], Any],
    sizes: Sequence[int],
    clock: Callable[[], float] = time.perf_counter,
) -> list[tuple[float, float]]:
    """Call ``run(n)`` for each calibration size and return [(n, seconds)]."""
    points = []
    for n in sizes:
        start = clock()
        run(int(n))
        points.append((float(n), clock() - start))
    return points


def remaining(elapsed: float, fraction_done: float) -> float | None:
    """Seconds left of a run ``fraction_done`` through after ``elapsed`` seconds (linear), or
    None before anything is done."""
    if fraction_done <= 0 or not math.isfinite(elapsed):
        return None
    return elapsed * (1 - min(fraction_done, 1.0)) / fraction_done


def describe(seconds: float) -> str:
    """'40 s', '3 min', '1.5 h' (never more precise than an estimate is)."""
    if seconds < 60:
        return f"{max(round(seconds), 1):,} s"
    if seconds < 3600:
        return f"{max(round(seconds / 60), 1):,} min"
    return f"{seconds / 3600:.1f} h"


def describe_range(low: float, high: float) -> str:
    """'about 2–4 min' / 'about 40 s–2 min' / 'about 5 s'."""
    a, b = describe(low), describe(high)
    if a == b:
        return f"about {a}"
    unit_a, unit_b = a.split()[-1], b.split()[-1]
    if unit_a == unit_b:
        return f"about {a.rsplit(' ', 1)[0]}–{b}"
    return f"about {a}–{b}"
