"""Hierarchies as the Attributes page edits them: a spec for the configuration from an ARX file
or an edited table of levels, the date builder's levels and the natural order of values.

The configuration keeps a hierarchy as a spec (``{"table": rows}``, a builder, or a file); these
functions check what the analyst gave (one :class:`~anon_core.errors.AnonError` saying what is
wrong) and return the spec the workspace stores.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from anon_core.data.builders import DATE_LEVELS, natural_order
from anon_core.data.hierarchy import Hierarchy

__all__ = ["DATE_LEVELS", "Hierarchy", "natural_order", "spec_from_arx_csv", "spec_from_levels"]


def spec_from_arx_csv(content: bytes, separator: str, column: str) -> dict[str, Any]:
    """The spec of an ARX hierarchy file (one row per value, one column per level)."""
    imported = Hierarchy.from_csv(content, separator=separator, name=column)
    return {"table": imported.table.tolist()}


def spec_from_levels(levels: pd.DataFrame, column: str) -> dict[str, Any]:
    """The spec of a table of levels as edited (first column: the values; checked as a hierarchy)."""
    regrouped = Hierarchy(levels.astype(str).to_numpy(dtype=object), name=column)
    return {"table": regrouped.table.tolist()}
