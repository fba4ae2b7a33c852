"""A guard around pandas' string-to-number parser, which crashes on huge exponents.

pandas (2.x) parses number-like text in C (``precise_xstrtod``, reached from
``pd.to_numeric`` and the Python CSV engine through ``lib.maybe_convert_numeric``).
It accumulates the exponent's digits in a C ``int`` without an overflow check:
an exponent of ten digits or more wraps around, and some wrapped values index
outside its table of powers of ten, so ``pd.to_numeric(pd.Series(["8e51234567890123"]))``
kills the process with signal 11 and others are silently wrong
(``"8e4294967296"`` reads as ``8.0``). Hexadecimal pseudonyms (HMAC tokens) take
this shape by chance, and anyone can type it into an uploaded file.

:func:`install` wraps ``maybe_convert_numeric`` once per process, so every
caller (this package, SDV, RDT, SDMetrics) is covered: text with an exponent of
six digits or more is parsed by Python's ``float`` instead, with pandas' own
results (an overflow is "not a number": NaN when coercing, a ValueError when
not; an underflow is 0.0). Every other value goes to pandas unchanged.
"""

from __future__ import annotations

import logging
import math
import re
from typing import Any

import numpy as np

log = logging.getLogger(__name__)

#: An exponent of six digits or more (out of a double's range whatever its mantissa): parsed in Python.
RISKY = re.compile(r"[eE][ \t]*[+-]?[0-9]{6,}")
#: The shortest risky text ("1e123456").
_MIN_LEN = 8
#: A decimal number in scientific notation as pandas' C parser reads it (ASCII only, blanks around).
_SCIENTIFIC = re.compile(
    r"[ \t\n\r\f\v]*[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)[eE][+-]?[0-9]+[ \t\n\r\f\v]*"
)

_installed: dict[str, Any] = {}


def risky_positions(values: Any) -> list[int]:
    """Indexes of the text values whose exponent would overflow pandas' parser."""
    search = RISKY.search
    return [
        i
        for i, v in enumerate(values)
        if isinstance(v, str) and len(v) >= _MIN_LEN and search(v) is not None
    ]


def parse_risky(text: str) -> float | None:
    """What pandas would read for one risky text: a float, or None where it cannot parse it."""
    if _SCIENTIFIC.fullmatch(text) is None:
        return None
    value = float(text.strip())
    return None if math.isinf(value) else value


def _guarded(original):
    def maybe_convert_numeric(values, na_values, *args, **kwargs):
        kind = getattr(getattr(values, "dtype", None), "kind", "")
        hits = risky_positions(values) if kind == "O" else []
        if hits:
            coerce = kwargs.get("coerce_numeric", args[1] if len(args) > 1 else False)
            values = np.array(values, dtype=object, copy=True)
            for i in hits:
                parsed = parse_risky(values[i])
                if parsed is None:
                    if not coerce:
                        raise ValueError(f'Unable to parse string "{values[i]}" at position {i}')
                    parsed = np.nan
                values[i] = parsed
        return original(values, na_values, *args, **kwargs)

    maybe_convert_numeric.__wrapped__ = original  # type: ignore[attr-defined]
    maybe_convert_numeric.__doc__ = original.__doc__
    return maybe_convert_numeric


def install() -> bool:
    """Wrap pandas' ``maybe_convert_numeric`` (idempotent); False when this pandas has none to wrap."""
    if _installed:
        return True
    try:
        from pandas._libs import lib
    except ImportError:  # pragma: no cover - pandas moved its internals
        log.warning("pandas' number parser was not found; the huge-exponent guard is off")
        return False
    original = getattr(lib, "maybe_convert_numeric", None)
    if original is None:  # pragma: no cover
        log.warning("pandas' number parser was not found; the huge-exponent guard is off")
        return False
    if getattr(original, "__wrapped__", None) is None:
        lib.maybe_convert_numeric = _guarded(original)
    _installed["lib"] = lib
    return True


def installed() -> bool:
    """Is the guard in place in this process?"""
    try:
        from pandas._libs import lib
    except ImportError:  # pragma: no cover
        return False
    return getattr(lib.maybe_convert_numeric, "__wrapped__", None) is not None
