"""A guard around pandas' string-to-number parser, which crashes on huge exponents.

pandas (2.x) parses number-like text in C (``precise_xstrtod``, reached from
``pd.to_numeric`` and the Python CSV engine through ``lib.maybe_convert_numeric``).
It accumulates the exponent's digits in a C ``int`` without an overflow check:
an exponent of ten digits or more wraps around, and some wrapped values index
outside its table of powers of ten, so ``pd.to_numeric(pd.Series(["8e51234567890123"]))``
kills the process with signal 11 and others are silently wrong
(``"8e4294967296"`` reads as ``8.0``). Hexadecimal pseudonyms (HMAC tokens) take
this shape by chance, and anyone can type it into an uploaded file. The same
parser counts leading zeros against its 17-digit budget, so in a column read as
floats ``"000000000000000001"`` and ``"0.00000000000000001"`` silently become 0.0.

:func:`install` wraps ``maybe_convert_numeric`` once per process, so every
caller (this package, SDV, RDT, SDMetrics) is covered: text with an exponent of
three digits or more (pandas also reads ``"0e310"`` as NaN), or with 17 leading
zeros, is parsed by Python instead
(``int`` for an integer, else ``float``), with pandas' own conventions (an
overflow is "not a number": NaN when coercing, a ValueError when not; an
underflow is 0.0). Every other value goes to pandas unchanged.
"""

from __future__ import annotations

import logging
import math
import re
from typing import Any

import numpy as np

log = logging.getLogger(__name__)

#: Parsed in Python: an exponent of three digits or more (near or past a double's range, where
#: pandas' parser overflows or gives up), or a mantissa that starts with 17 zeros.
RISKY = re.compile(r"[eE][ \t]*[+-]?[0-9]{3,}|(?:^|[\s+-])\.?(?:0\.?){17}")
#: The shortest risky text ("1e123").
_MIN_LEN = 5
#: A decimal number as pandas' C parser reads it (ASCII only, blanks around).
_NUMBER = re.compile(
    r"[ \t\n\r\f\v]*[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[ \t\n\r\f\v]*"
)
_INTEGER = re.compile(r"\s*[+-]?[0-9]+\s*")

_installed: dict[str, Any] = {}


def risky_positions(values: Any) -> list[int]:
    """Indexes of the text values pandas' parser would misread or crash on (see :data:`RISKY`).

    An all-text array is screened by Arrow's regular expressions in one vectorized pass; an
    array mixing text with other objects, value by value."""
    try:
        import pyarrow as pa
        import pyarrow.compute as pc

        text = pa.array(values, type=pa.string(), from_pandas=True)
    except Exception:  # noqa: BLE001 - not all text (numbers, bytes...): the loop below
        search = RISKY.search
        return [
            i
            for i, v in enumerate(values)
            if isinstance(v, str) and len(v) >= _MIN_LEN and search(v) is not None
        ]
    hits = pc.match_substring_regex(text, RISKY.pattern).fill_null(False)
    return [
        i
        for i in np.flatnonzero(hits.to_numpy(zero_copy_only=False)).tolist()
        if isinstance(values[i], str)
    ]


def parse_risky(text: str) -> float | int | None:
    """What pandas should read for one risky text: a number, or None where it cannot parse it."""
    if _NUMBER.fullmatch(text) is None:
        return None
    if _INTEGER.fullmatch(text) is not None:
        number = int(text.strip())
        if -(2**63) <= number < 2**64:  # pandas' int64 / uint64 range
            return number
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
