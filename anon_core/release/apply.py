"""Apply a transformation to the original rows (data path step 7), through the release plan."""

from __future__ import annotations

import numpy as np
import pandas as pd

from anon_core.data.dataset import Dataset, Role
from anon_core.release.plan import SUPPRESSED, build_release_plan
from anon_core.search.evaluate import TransformationResult
from anon_core.validation import check_choice

__all__ = ["SUPPRESSED", "apply_transformation"]


def apply_transformation(
    dataset: Dataset,
    result: TransformationResult,
    suppression: str = "remove",
    frame: pd.DataFrame | None = None,
    roles: dict[str, Role] | None = None,
    keep: np.ndarray | None = None,
) -> pd.DataFrame:
    """The released table: QIs generalized, identifiers dropped, row order kept.

    ``suppression='remove'`` drops suppressed records; ``'mask'`` keeps them with
    every quasi-identifier set to ``*`` (as ARX outputs them). ``frame`` and
    ``roles`` replace the dataset's for the columns that are not generalized
    (e.g. after text de-identification or pseudonymization). ``keep`` limits the release to
    some rows (delta-presence releases only its research subset of the population table).
    """
    check_choice("suppression", suppression, ("remove", "mask"))
    frame = dataset.frame if frame is None else frame
    plan = build_release_plan(
        dataset,
        result,
        suppression,
        [str(c) for c in frame.columns],
        dict(dataset.roles if roles is None else roles),
    )
    return plan.apply_rows(dataset, frame, keep)
