"""Rank swapping on numeric or ordinal columns (Moore 1996; sdcMicro's ``rankSwap`` with ``P``).

R. Moore, "Controlled data-swapping techniques for masking public use microdata", U.S. Census
Bureau RR 96-04. Per column, the values are ranked; going up the ranks, each value not yet swapped
is exchanged with a value drawn uniformly among the not-yet-swapped values whose rank is at most
p% of the records above it (|i - j| <= floor(p * n / 100)); a value with no partner left stays.
So no value moves by more than p% of the ranks, and each column's distribution is kept exactly.
Ties in the ranking are broken at random (so equal values are interchangeable). Missing values
are not swapped. sdcMicro's top/bottom percent grouping and its K0/R0 variants are not provided.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from anon_core.errors import ConfigError
from anon_core.methods.registry import (
    MethodContext,
    MethodOutput,
    Progress,
    ReleaseMethod,
    register_method,
    report,
    select_columns,
)
from anon_core.params import Param


def rank_keys(series: pd.Series) -> np.ndarray:
    """Sortable float keys of a numeric or date column (NaN where missing)."""
    if pd.api.types.is_numeric_dtype(series):
        return series.to_numpy(dtype=float, na_value=np.nan)
    numbers = pd.to_numeric(series, errors="coerce")
    if numbers.notna().sum() == series.notna().sum():
        return numbers.to_numpy(dtype=float, na_value=np.nan)
    dates = pd.to_datetime(series, errors="coerce", format="mixed")
    keys = dates.to_numpy(dtype="datetime64[ns]").astype("int64").astype(float)
    keys[dates.isna().to_numpy()] = np.nan
    return keys


def swap_order(keys: np.ndarray, window: int, rng: np.random.Generator) -> np.ndarray:
    """``source``: row i receives the value of row source[i]; pairs at most ``window`` ranks apart."""
    n = len(keys)
    source = np.arange(n)
    present = np.flatnonzero(~np.isnan(keys))
    if window < 1 or len(present) < 2:
        return source
    tie = rng.random(len(present))
    order = present[np.lexsort((tie, keys[present]))]  # rank -> row
    m = len(order)
    swapped = np.zeros(m, dtype=bool)
    for i in range(m):
        if swapped[i]:
            continue
        hi = min(i + window, m - 1)
        free = np.flatnonzero(~swapped[i + 1 : hi + 1])
        swapped[i] = True
        if not len(free):
            continue
        j = i + 1 + int(free[rng.integers(len(free))])
        swapped[j] = True
        a, b = order[i], order[j]
        source[a], source[b] = b, a
    return source


@register_method
class RankSwapping(ReleaseMethod):
    name = "rank-swapping"
    label = "Rank swapping"
    params = (
        Param(
            "p",
            "float",
            5.0,
            help="maximum rank distance of a swap, in % of the records (sdcMicro 'P')",
            minimum=0.0,
            maximum=100.0,
        ),
        Param(
            "columns",
            "columns",
            None,
            help="numeric or date columns (default: the numeric quasi-identifiers)",
        ),
    )
    accepts = frozenset({"numeric", "date"})
    randomized = True
    guarantee = "none"
    protects = (
        "Record-level values of the chosen columns (each value moves to a nearby-ranked record)."
    )
    does_not_protect = (
        "Marginal distributions are exact and values stay close in rank; other columns unchanged."
    )

    def release(
        self,
        frame: pd.DataFrame,
        context: MethodContext,
        *,
        random_state: int | None = None,
        progress: Progress | None = None,
    ) -> MethodOutput:
        p = float(self.parameters["p"])
        if p <= 0:
            raise ConfigError(f"'p' must be greater than 0 (percent of the records), got {p}.")
        columns = select_columns(self, frame, context, self.parameters["columns"])
        rng = np.random.default_rng(random_state)
        window = int(np.floor(p * len(frame) / 100.0))
        out = frame.copy()
        moved = {}
        for j, c in enumerate(columns):
            source = swap_order(rank_keys(frame[c]), window, rng)
            values = frame[c].to_numpy()
            out[c] = pd.Series(values[source], index=frame.index, dtype=frame[c].dtype)
            moved[c] = int((source != np.arange(len(source))).sum())
            report(progress, (j + 1) / len(columns), f"rank swapping: {c}")
        return MethodOutput(
            out,
            self.guarantee,
            {"columns": columns, "max_rank_distance": window, "swapped_records": moved},
        )
