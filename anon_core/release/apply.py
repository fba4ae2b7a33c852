"""Apply a transformation to the original rows (data path step 7)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from anon_core.data.dataset import Dataset, Role
from anon_core.search.evaluate import TransformationResult
from anon_core.validation import check_choice

SUPPRESSED = "*"


def apply_transformation(
    dataset: Dataset,
    result: TransformationResult,
    suppression: str = "remove",
    frame: pd.DataFrame | None = None,
    roles: dict[str, Role] | None = None,
) -> pd.DataFrame:
    """The released table: QIs generalized, identifiers dropped, row order kept.

    ``suppression='remove'`` drops suppressed records; ``'mask'`` keeps them with
    every quasi-identifier set to ``*`` (as ARX outputs them). ``frame`` and
    ``roles`` replace the dataset's for the columns that are not generalized
    (e.g. after text de-identification or pseudonymization).
    """
    check_choice("suppression", suppression, ("remove", "mask"))
    frame = dataset.frame if frame is None else frame
    roles = dataset.roles if roles is None else roles
    record_class = result.table.record_class()
    suppressed_rows = result.suppressed[record_class]
    out = {}
    for col in frame.columns:
        role = roles[str(col)]
        if role == Role.IDENTIFIER:
            continue
        if role == Role.QUASI_IDENTIFIER:
            j = dataset.qis.index(str(col))
            enc = dataset.hierarchy(str(col))
            level = result.levels[j]
            codes = dataset.columns[str(col)].codes
            labels = enc.labels[level][enc.maps[level][codes]]
            labels = np.asarray(labels, dtype=object)
            labels[suppressed_rows] = SUPPRESSED
            out[col] = labels
        else:
            out[col] = frame[col].to_numpy()
    released = pd.DataFrame(out, index=frame.index)
    if suppression == "remove":
        released = released.loc[~suppressed_rows]
    return released.reset_index(drop=True)
