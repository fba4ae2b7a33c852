"""How the rows of a released file relate to the input's records (for releases made elsewhere).

A release written by ``anon-core anonymize`` keeps the input's rows in order, suppressed ones
with every quasi-identifier ``*`` (as ARX writes them): then released row i is record i, and the
input's identifiers tell whose record each released row is (the truth of a linkage match).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from anon_core.data.io import to_labels

SUPPRESSED = "*"  # the release's suppression label (anon_core.release.apply.SUPPRESSED)


def suppressed_rows(released: pd.DataFrame, qis: Sequence[str]) -> np.ndarray:
    """Rows whose quasi-identifiers are all ``*``."""
    stars = np.ones(len(released), dtype=bool)
    for q in qis:
        stars &= to_labels(released[q]).astype(str) == SUPPRESSED
    return stars


def rows_align(original: pd.DataFrame, released: pd.DataFrame, qis: Sequence[str]) -> bool:
    """True when ``released`` row i is ``original`` row i generalized (same labels in every
    column; a row whose quasi-identifiers are all ``*`` is a suppressed one and matches on the
    other columns): the release kept the input's rows in order, so row i is record i."""
    if len(original) != len(released) or list(original.columns) != list(released.columns):
        return False
    qi_cols = [c for c in released.columns if c in set(qis)]
    rel = {c: to_labels(released[c]).astype(str) for c in released.columns}
    ori = {c: to_labels(original[c]).astype(str) for c in released.columns}
    suppressed = suppressed_rows(released, qi_cols)
    for c in released.columns:
        same = rel[c] == ori[c]
        if c in qi_cols:
            same |= suppressed
        if not bool(same.all()):
            return False
    return True


def drop_suppressed(
    released: pd.DataFrame, qis: Sequence[str], ids: Mapping[str, np.ndarray]
) -> tuple[pd.DataFrame, dict[str, np.ndarray]]:
    """``released`` without its suppressed rows, and the identifiers aligned with what is left."""
    stars = suppressed_rows(released, qis)
    if not stars.any():
        return released, dict(ids)
    kept = released.loc[~stars].reset_index(drop=True)
    return kept, {c: np.asarray(v)[~stars] for c, v in ids.items()}
