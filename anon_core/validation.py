"""All argument checks in one place (diffprivlib style).

Each check names the parameter, the value received and the fix.
"""

from __future__ import annotations

import codecs
import math
from collections.abc import Iterable, Mapping
from typing import Any

from anon_core.errors import ConfigError

#: The largest whole number any parameter accepts (larger values are surely typos; parameters
#: that size arrays or seed generators declare their own, lower maxima). 10**30 keeps "k larger
#: than any table" a valid request that no release satisfies.
MAX_WHOLE_NUMBER = 10**30
#: A decimal number (1e15, 2.0) counts as a whole number only up to here: beyond 2**53 a float
#: no longer holds every whole number exactly (1e308 is not "a count").
MAX_EXACT_FLOAT = 2**53
#: The largest magnitude of a decimal parameter (epsilon, widths, bounds, ...): beyond any
#: measurement (epoch nanoseconds are 1.8e18), and small enough that sums and squares of such
#: values stay finite.
MAX_FLOAT_MAGNITUDE = 1e100
#: Seeds (a parameter named ``random_state`` or ``seed``) are 0 .. 2**32 - 1, the range every
#: generator the package hands them to accepts (NumPy's legacy seed, scikit-learn).
MAX_SEED = 2**32 - 1
SEED_NAMES = frozenset({"random_state", "seed"})


def _where(name: str) -> str:
    """The parameter's name quoted; control characters (a newline in a key) are escaped, so the
    message stays one line."""
    if not name.isprintable():
        name = "".join(c if c.isprintable() else repr(c)[1:-1] for c in name)
    return f"'{name}'"


def _short(value: Any) -> str:
    """repr of a value for a message, at most 60 characters (a huge number stays one line)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 10**40:
        return f"a number of {len(str(abs(value))):,} digits"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def check_int(name: str, value: Any, minimum: int | None = None, maximum: int | None = None) -> int:
    """Return ``value`` as an int, or raise ConfigError naming ``name``.

    Whatever the bounds given, the value is at most MAX_WHOLE_NUMBER in magnitude, and a decimal
    number counts only when it is whole and at most MAX_EXACT_FLOAT (2**53)."""
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or (isinstance(value, float) and not value.is_integer())
    ):
        raise ConfigError(f"{_where(name)} must be a whole number, got {_short(value)}.")
    if isinstance(value, float) and abs(value) > MAX_EXACT_FLOAT:
        raise ConfigError(
            f"{_where(name)} must be a whole number written as digits (e.g. 5), got {value!r}: a "
            f"decimal number beyond {MAX_EXACT_FLOAT:,} is not an exact whole number."
        )
    if abs(value) > MAX_WHOLE_NUMBER:
        raise ConfigError(
            f"{_where(name)} is {_short(value)}, beyond any sensible setting (at most 10^30); "
            "check the value."
        )
    value = int(value)
    if name.rsplit(".", 1)[-1].lstrip("-") in SEED_NAMES and value > MAX_SEED:
        raise ConfigError(
            f"{_where(name)} is a seed, at most {MAX_SEED} (2^32 - 1), got {_short(value)}; "
            "any number in that range gives a reproducible run."
        )
    if minimum is not None and value < minimum:
        raise ConfigError(f"{_where(name)} must be at least {minimum}, got {value}.")
    if maximum is not None and value > maximum:
        raise ConfigError(f"{_where(name)} must be at most {maximum}, got {value}.")
    return value


def check_float(
    name: str,
    value: Any,
    minimum: float | None = None,
    maximum: float | None = None,
    min_inclusive: bool = True,
) -> float:
    """Return ``value`` as a finite float within bounds, or raise ConfigError."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(f"{_where(name)} must be a finite number, got {_short(value)}.")
    if not isinstance(value, int) and not math.isfinite(value):
        raise ConfigError(f"{_where(name)} must be a finite number, got {value!r}.")
    if abs(value) > MAX_FLOAT_MAGNITUDE:  # an int compares exactly (no conversion to float)
        raise ConfigError(
            f"{_where(name)} is {_short(value)}, beyond any sensible setting (at most "
            f"{MAX_FLOAT_MAGNITUDE:g} in magnitude); check the value."
        )
    value = float(value)
    if minimum is not None and (value < minimum or (not min_inclusive and value == minimum)):
        op = "at least" if min_inclusive else "greater than"
        raise ConfigError(f"{_where(name)} must be {op} {minimum}, got {value}.")
    if maximum is not None and value > maximum:
        raise ConfigError(f"{_where(name)} must be at most {maximum}, got {value}.")
    return value


def check_text_encoding(name: str, value: Any) -> str:
    """A text encoding name (utf-8, cp1252, ...): not a bytes-to-bytes or text-to-text codec
    (base64, rot13, zip), no NUL or unprintable characters, one that decodes bytes to text."""
    example = "use e.g. 'utf-8', 'cp1252' or 'iso-8859-2'"
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(
            f"{_where(name)} must be an encoding name such as 'utf-8' or 'cp1252', got {_short(value)}."
        )
    if len(value) > 40 or not value.isprintable():
        raise ConfigError(
            f"{_where(name)} is not an encoding name (it is long or holds unprintable characters such "
            f"as NUL): {_short(value)}; {example}."
        )
    try:
        info = codecs.lookup(value)
    except LookupError:
        raise ConfigError(
            f"{_where(name)} names an unknown encoding {value!r}; {example}."
        ) from None
    if not getattr(info, "_is_text_encoding", True) or info.name in _NOT_FILE_ENCODINGS:
        raise ConfigError(
            f"{_where(name)} is {value!r}, a codec that is not a character encoding of text files "
            f"(like base64, rot13 or unicode_escape); {example}."
        )
    return value


#: Text codecs that do not read files' text (escapes, punycode, IDNA, the 'undefined' codec).
_NOT_FILE_ENCODINGS = frozenset(
    {"undefined", "unicode-escape", "raw-unicode-escape", "punycode", "idna", "mbcs", "oem"}
)


def check_arguments(values: Mapping[str, Any]) -> None:
    """Refuse a command-line argument holding a NUL character (no file name has one)."""
    for key, value in values.items():
        items = value if isinstance(value, list | tuple) else [value]
        for item in items:
            if isinstance(item, str) and "\x00" in item:
                option = "--" + str(key).replace("_", "-")
                raise ConfigError(
                    f"The argument {option} ({_short(item)}) has a NUL character; no file name "
                    "holds one: remove it."
                )


def check_choice(name: str, value: Any, choices: Iterable[str]) -> str:
    """Return ``value`` if it is one of ``choices``."""
    choices = list(choices)
    if value not in choices:
        raise ConfigError(
            f"{_where(name)} must be one of {', '.join(map(repr, choices))}, got {value!r}."
        )
    return value


def check_bool(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{_where(name)} must be true or false, got {value!r}.")
    return value


def check_mapping(name: str, value: Any) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ConfigError(
            f"{_where(name)} must be an object (key: value pairs), got {type(value).__name__}."
        )
    return value


def check_keys(name: str, value: Mapping[str, Any], allowed: Iterable[str]) -> None:
    """Reject unknown keys: a typo must not silently fall back to a default."""
    allowed = set(allowed)
    unknown = sorted(set(value) - allowed)
    if unknown:
        raise ConfigError(
            f"{_where(name)} has unknown field(s) {', '.join(map(repr, unknown))}; "
            f"allowed: {', '.join(sorted(allowed))}."
        )
