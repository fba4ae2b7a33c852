"""All argument checks in one place (diffprivlib style).

Each check names the parameter, the value received and the fix.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from anon_core.errors import ConfigError


def _where(name: str) -> str:
    return f"'{name}'"


def check_int(name: str, value: Any, minimum: int | None = None, maximum: int | None = None) -> int:
    """Return ``value`` as an int, or raise ConfigError naming ``name``."""
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or (isinstance(value, float) and not value.is_integer())
    ):
        raise ConfigError(f"{_where(name)} must be a whole number, got {value!r}.")
    value = int(value)
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
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ConfigError(f"{_where(name)} must be a finite number, got {value!r}.")
    value = float(value)
    if minimum is not None and (value < minimum or (not min_inclusive and value == minimum)):
        op = "at least" if min_inclusive else "greater than"
        raise ConfigError(f"{_where(name)} must be {op} {minimum}, got {value}.")
    if maximum is not None and value > maximum:
        raise ConfigError(f"{_where(name)} must be at most {maximum}, got {value}.")
    return value


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
