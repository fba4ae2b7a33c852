"""The k-anonymized reference tables the model sections train on: the release of the workspace's
configuration through its session (the table the Release page ships), never a table rebuilt here.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from anon_core.workspace import Workspace
from ui.evidence import release_value


def k_anonymized_table(ws: Workspace, current: Any, suppressed_records: str) -> pd.DataFrame:
    """The generalized release of the workspace: the session's release with the suppressed records
    ``remove``d or ``mask``ed (``mask`` keeps the rows aligned with the input); a file opened by
    path is represented by its sample's release of ``current``."""
    if ws.large is not None:
        return ws.sample_release(current)
    return release_value(ws, suppressed_records).table
