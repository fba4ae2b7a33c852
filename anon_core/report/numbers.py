"""How the report (and, later, the pages) print numbers: shares as percentages with one decimal,
intervals as ``38.0% [33.0–43.0%]``, counts with thousands separators, other numbers with four
significant digits (rounded to a count from 1,000 on). A missing value prints as ``n/a``; nothing
prints as a raw float."""

from __future__ import annotations

import math
from typing import Any

MISSING = "n/a"


def _number(x: Any) -> float | None:
    """``x`` as a float, or None when it is missing (None, NaN, not a number)."""
    if x is None or isinstance(x, bool):
        return None
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(v) else v


def count(x: Any) -> str:
    """A count with thousands separators: 30162 -> '30,162' (a non-integral value is rounded)."""
    v = _number(x)
    if v is None:
        return MISSING
    if math.isinf(v):
        return "∞" if v > 0 else "-∞"
    return f"{round(v):,}"


def _percent_digits(v: float) -> str:
    """One decimal; a share that is not 0 (or 1) never prints as 0.0% (or 100.0%)."""
    p = 100.0 * v
    if 0 < p < 0.05:
        return "<0.1"
    if 99.95 <= p < 100:
        return ">99.9"
    return f"{p:,.1f}"


def percent(x: Any) -> str:
    """A share (a fraction of 1) as a percentage with one decimal: 1/13 -> '7.7%', 1 -> '100.0%'."""
    v = _number(x)
    if v is None or math.isinf(v):
        return MISSING
    return f"{_percent_digits(v)}%"


def percent_interval(x: Any, low: Any, high: Any) -> str:
    """A share with its interval: (0.38, 0.33, 0.43) -> '38.0% [33.0–43.0%]' (the interval left
    out when either bound is missing)."""
    shown = percent(x)
    lo, hi = _number(low), _number(high)
    if lo is None or hi is None or math.isinf(lo) or math.isinf(hi):
        return shown
    return f"{shown} [{_percent_digits(lo)}–{_percent_digits(hi)}%]"


def number(x: Any, digits: int = 4) -> str:
    """Any other number: integral values as counts, others with ``digits`` significant digits, and
    from 1,000 on rounded to a count: 0.0769231 -> '0.07692', 12345.678 -> '12,346'."""
    v = _number(x)
    if v is None:
        return MISSING
    if math.isinf(v):
        return "∞" if v > 0 else "-∞"
    if v == int(v) and abs(v) < 1e15:
        return f"{int(v):,}"
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    return f"{v:.{digits}g}"
