"""The configuration's ``method`` section: which release method, with which parameters and seed.

```yaml
method:
  name: microaggregation     # default: generalization (the configuration's models and search)
  k: 5                       # the method's own parameters (see METHODS[name].params)
  columns: [age]
  random_state: 0            # seed of randomized methods (default 0)
```

Without the section the release is ``generalization``, so existing configurations keep working.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from anon_core.config import ReleaseConfig
from anon_core.errors import ConfigError
from anon_core.methods.registry import METHODS, ReleaseMethod, make_method
from anon_core.validation import check_int, check_mapping

DEFAULT_METHOD = "generalization"
#: Keys of the section besides the method's own parameters.
SECTION_KEYS = ("name", "random_state")


@dataclass(frozen=True)
class MethodSection:
    """The validated ``method`` section: the method (parameters checked) and its seed."""

    method: ReleaseMethod
    random_state: int = 0

    @property
    def name(self) -> str:
        return self.method.name

    def to_dict(self) -> dict[str, Any]:
        return {**self.method.spec(), "random_state": self.random_state}


def parse_method_section(section: Mapping[str, Any] | str | None) -> MethodSection:
    """Validate a ``method`` section (a mapping, or just a method name)."""
    if section is None:
        section = {"name": DEFAULT_METHOD}
    if isinstance(section, str):
        section = {"name": section}
    section = check_mapping("method", section)
    if "name" not in section:
        raise ConfigError(
            f"'method' needs a 'name', one of {', '.join(map(repr, sorted(METHODS)))}; "
            'write e.g. {"name": "microaggregation", "k": 3}.'
        )
    seed = check_int("method.random_state", section.get("random_state", 0), minimum=0)
    params = {k: v for k, v in section.items() if k != "random_state"}
    try:
        method = make_method(params)
    except ConfigError as exc:
        message = str(exc)
        if message.startswith("'") and not message.startswith("'method"):
            message = "'method." + message[1:]
        raise ConfigError(message) from None
    return MethodSection(method, seed)


def method_section(config: ReleaseConfig, override: str | None = None) -> MethodSection:
    """The configuration's method (``override`` names another one, with its default parameters
    unless the configured section is for that same method)."""
    raw = config.sections.get("method") if config.sections else None
    if raw is None:
        raw = config.raw.get("method")
    if override is not None:
        configured = parse_method_section(raw) if raw is not None else None
        if configured is not None and configured.name == override:
            return configured
        seed = configured.random_state if configured is not None else 0
        return parse_method_section({"name": override, "random_state": seed})
    return parse_method_section(raw)
