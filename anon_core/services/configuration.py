"""A release configuration given as a file's bytes (the dashboard's "resume from a configuration"):
decoded and parsed with the same limits as the command line, one clear message when unusable."""

from __future__ import annotations

from typing import Any

from anon_core.config import parse_config_text
from anon_core.errors import ConfigError

__all__ = ["config_from_bytes"]


def config_from_bytes(content: bytes, filename: str) -> dict[str, Any]:
    """The mapping of a JSON or YAML configuration file (YAML by its ``.yaml``/``.yml`` suffix)."""
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ConfigError(
            f"The file {filename} is not UTF-8 text: save the configuration as UTF-8."
        ) from None
    return parse_config_text(
        text,
        f"The file {filename}",
        yaml_format=filename.lower().endswith((".yaml", ".yml")),
    )
