"""One parameter descriptor for every plug-in family: privacy models, quality metrics, release
methods and attacks declare their parameters as :class:`Param` values.

A parameter has a name, a kind, a default, bounds or choices, help text and whether the
configuration must give it (``required``: no silent default; ``default`` is then only the value
the dashboard suggests) or may leave it out (``optional``: its value is then None). The
configuration reference (``anon_core.docs_reference``), the dashboard's widgets and the
validation all read the same declaration, and a bad value is one ConfigError naming the field,
the value and the fix.

Placed as a class attribute, a parameter reads as the plug-in's validated value
(``model.k`` is ``model.values["k"]``): privacy models declare theirs that way.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from anon_core.errors import ConfigError
from anon_core.validation import check_bool, check_choice, check_float, check_int, check_mapping

#: The kinds of parameter: numbers, flags and choices; ``attribute`` (a sensitive attribute),
#: ``column``, ``columns`` and ``column-groups`` (column names); ``table`` (an attacker's table,
#: given by the caller) and ``mapping`` (an object given in the configuration).
KINDS = (
    "int",
    "float",
    "bool",
    "choice",
    "attribute",
    "column",
    "columns",
    "column-groups",
    "table",
    "mapping",
)


def _column_names(where: str, value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if (
        not isinstance(value, list | tuple)
        or not value
        or not all(isinstance(v, str) and v for v in value)
    ):
        raise ConfigError(f"'{where}' must be a non-empty list of column names, got {value!r}.")
    if len(set(value)) != len(value):
        raise ConfigError(f"'{where}' names a column twice: {list(value)!r}.")
    return tuple(value)


@dataclass(frozen=True)
class Param:
    """A declared parameter of a plug-in (see the module docstring)."""

    name: str
    kind: str  # one of KINDS
    default: Any = None
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] = ()
    help: str = ""
    min_inclusive: bool = True
    #: The configuration must give it (``default`` is only the value the dashboard suggests).
    required: bool = False
    #: It may be left out, and its value is then None.
    optional: bool = False

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ConfigError(
                f"Parameter {self.name!r} declares the kind {self.kind!r}; declare one of "
                f"{', '.join(KINDS)}."
            )
        if self.kind == "choice" and not self.choices:
            raise ConfigError(f"Parameter {self.name!r} is a choice: declare its 'choices'.")

    def __get__(self, plugin: Any, owner: type | None = None) -> Any:
        """Read as a typed field of a plug-in: ``model.k`` is its validated value."""
        if plugin is None:
            return self
        return plugin.values[self.name]

    # ------------------------------------------------------------------ validation
    def check(self, value: Any, where: str) -> Any:
        """A given value checked and normalised for this kind, or one ConfigError naming
        ``where``, the value and the fix."""
        if self.kind == "int":
            lo = None if self.minimum is None else int(self.minimum)
            hi = None if self.maximum is None else int(self.maximum)
            return check_int(where, value, lo, hi)
        if self.kind == "float":
            return check_float(
                where, value, self.minimum, self.maximum, min_inclusive=self.min_inclusive
            )
        if self.kind == "bool":
            return check_bool(where, value)
        if self.kind == "choice":
            return check_choice(where, value, self.choices)
        if self.kind in ("attribute", "column"):
            if not isinstance(value, str) or not value:
                raise ConfigError(f"'{where}' must name a column, got {value!r}.")
            return value
        if self.kind == "columns":
            return _column_names(where, value)
        if self.kind == "column-groups":
            if not isinstance(value, list | tuple) or len(value) < 2:
                raise ConfigError(
                    f"'{where}' must be a list of column-name lists (two groups), got {value!r}."
                )
            return tuple(_column_names(f"{where}[{i}]", g) for i, g in enumerate(value))
        if self.kind == "mapping":
            return dict(check_mapping(where, value))
        return value  # "table": the caller's table, checked by the plug-in that reads it

    def value_of(self, given: Mapping[str, Any], where: str, label: str) -> Any:
        """This parameter's value from ``given`` (a configuration entry; an absent or null value
        is not given): checked when given, else None when optional, else refused when required,
        else the declared default."""
        raw = given.get(self.name)
        if raw is not None:
            return self.check(raw, where)
        if self.optional:
            return None
        if self.required:
            if self.default is not None:
                hint = f" (e.g. {self.default!r})"
            else:
                hint = f" ({self.help})" if self.help else ""
            raise ConfigError(
                f"'{where}' is required for {label}: give it{hint}; a required parameter has no "
                "silent default."
            )
        return None if self.default is None else self.check(self.default, where)

    def to_dict(self) -> dict[str, Any]:
        """The declaration as JSON-ready data (for the dashboard and ``--help``-like listings)."""
        return {
            "name": self.name,
            "kind": self.kind,
            "default": list(self.default) if isinstance(self.default, tuple) else self.default,
            "help": self.help,
            "minimum": self.minimum,
            "maximum": self.maximum,
            "choices": list(self.choices),
            "required": self.required,
            "optional": self.optional,
        }


def values_of(
    params: tuple[Param, ...], given: Mapping[str, Any], prefix: str, label: str
) -> dict[str, Any]:
    """Every declared parameter's value from ``given`` (see :meth:`Param.value_of`); a field is
    named ``prefix.name`` in messages (``name`` alone when ``prefix`` is empty)."""
    return {
        p.name: p.value_of(given, f"{prefix}.{p.name}" if prefix else p.name, label) for p in params
    }


__all__ = ["KINDS", "Param", "values_of"]
