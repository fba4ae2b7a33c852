"""One registry contract for every plug-in family: privacy models, quality metrics, release
methods and attacks (presidio-analyzer style: small classes registered under a name).

A :class:`Registry` is a mapping from name to plug-in, so callers read it like a dict
(``METHODS[name]``, ``name in MODELS``, ``sorted(ATTACKS)``), and every family registers,
looks up and refuses duplicates the same way: a second plug-in under a taken name is one
:class:`~anon_core.errors.ConfigError`, and an unknown name is one ConfigError listing the known.
"""

from __future__ import annotations

from typing import Generic, TypeVar

from anon_core.errors import ConfigError

T = TypeVar("T")


class Registry(dict[str, T], Generic[T]):
    """Plug-ins of one family by name (``kind`` names the family in messages)."""

    def __init__(self, kind: str) -> None:
        super().__init__()
        self.kind = kind

    def add(self, name: str, item: T) -> T:
        """Register ``item`` under ``name``; the same item again is a no-op, another is refused."""
        if not isinstance(name, str) or not name:
            raise ConfigError(f"A {self.kind} needs a non-empty name, got {name!r}.")
        if name in self and self[name] is not item:
            raise ConfigError(
                f"A {self.kind} named {name!r} is already registered; give the new one another "
                "name."
            )
        self[name] = item
        return item

    def lookup(self, name: object) -> T:
        """The plug-in registered as ``name``, or one ConfigError listing the known names."""
        if not isinstance(name, str) or name not in self:
            known = ", ".join(map(repr, sorted(self)))
            raise ConfigError(f"Unknown {self.kind} {name!r}; the known ones are {known}.")
        return self[name]

    def names(self) -> list[str]:
        return sorted(self)
