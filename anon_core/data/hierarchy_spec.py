"""A column's hierarchy from its configuration spec (an ARX CSV file, a builder or an inline
table): the one place the CLI, the report and the dashboard read a spec."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from anon_core.data.builders import build_hierarchy
from anon_core.data.hierarchy import Hierarchy
from anon_core.data.io import to_labels
from anon_core.errors import ConfigError
from anon_core.validation import check_keys


def hierarchy_from_spec(name: str, spec: Mapping[str, Any], values: Any, base: Path) -> Hierarchy:
    """A column's hierarchy from its configuration spec: an ARX CSV ``file`` (relative to
    ``base``), a ``builder`` with its parameters over the column's distinct ``values``, or an
    inline ``table``. The one place the CLI, the report and the dashboard read a spec."""
    if "file" in spec:
        check_keys(f"attributes.{name}.hierarchy", spec, {"file", "separator"})
        p = Path(spec["file"])
        p = p if p.is_absolute() else Path(base) / p
        if not p.is_file():
            raise ConfigError(
                f"The hierarchy of {name!r} is the file {str(spec['file'])!r}, which is not found at "
                f"{str(p)!r}. Put it there (relative paths resolve against the configuration's "
                "folder), or give the hierarchy as a builder or table."
            )
        return Hierarchy.from_csv(p, separator=spec.get("separator", ";"), name=name)
    if "table" in spec:
        check_keys(f"attributes.{name}.hierarchy", spec, {"table"})
        return Hierarchy.from_rows(spec["table"], name, f"attributes.{name}.hierarchy.table")
    return build_hierarchy(spec, values, name=name)


def hierarchy_for(name: str, spec: Mapping[str, Any], frame: pd.DataFrame, base: Path) -> Hierarchy:
    """The hierarchy of column ``name`` of ``frame`` from its spec (a builder sees the column's
    distinct values)."""
    return hierarchy_from_spec(name, spec, pd.unique(to_labels(frame[name])), base)
