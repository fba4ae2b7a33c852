"""Tables as the dashboard opens, profiles and downloads them.

Uploads are parsed in a child process (:func:`load_upload`: a crash fails the upload, not the
server), built-in samples and files by path through the loader, files too large for memory through
the large-file engines (:class:`LargeTable`). Column kinds and labels are the engine's, so the
dashboard shows what the release will use. Downloads are :func:`table_bytes` (formula escaping on).
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from anon_core.data.dataset import Role
from anon_core.data.guarded_load import load_upload, warm_up
from anon_core.data.io import (
    MISSING,
    ColumnKind,
    LoadedTable,
    column_profile,
    infer_kind,
    infer_kinds,
    load_table,
    table_bytes,
    to_labels,
)
from anon_core.data.paths import PathGuard
from anon_core.release.engines.large import SAMPLE_ROWS, LargeTable

__all__ = [
    "MISSING",
    "SAMPLE_ROWS",
    "ColumnKind",
    "LargeTable",
    "LoadedTable",
    "PathGuard",
    "column_profile",
    "infer_kind",
    "infer_kinds",
    "load_table",
    "load_upload",
    "non_identifiers",
    "table_bytes",
    "to_labels",
    "warm_up",
]


def non_identifiers(frame: pd.DataFrame, roles: Mapping[str, str]) -> list[str]:
    """The columns of ``frame`` whose role is not *identifier* (what any analysis may read)."""
    return [str(c) for c in frame.columns if roles.get(c) != Role.IDENTIFIER.value]
