"""delta-presence (Nergiz, Atzori and Clifton 2007), as ARX's ``DPresence``.

The input is the *public population table*; the research subset (the people
whose records are released) is selected by a boolean column of the input or by
a file of row numbers. For each equivalence class of the population,
delta = (subset records in the class) / (population records in the class), and
the model holds when delta_min <= delta <= delta_max: an attacker who knows the
population table learns little about who is in the research subset.

ARX declares it monotonic under generalization (a merged class's delta lies
between its parts') and not under suppression.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from anon_core.data.frequency import ClassTable, FrequencyTable
from anon_core.errors import ConfigError, DataError
from anon_core.params import Param
from anon_core.privacy.models import PrivacyModel, register
from anon_core.validation import check_keys

_TRUE = {"1", "true", "yes", "y", "t"}
_FALSE = {"0", "false", "no", "n", "f", ""}


def _subset_from_column(frame: pd.DataFrame, column: str) -> np.ndarray:
    by_name = {str(c): c for c in frame.columns}
    if column not in by_name:
        raise ConfigError(
            f"'delta-presence.research_subset.column' names {column!r}, which is not a column of the input "
            f"(the population table). Columns are: {list(by_name)[:20]}."
        )
    values = frame[by_name[column]]
    if pd.api.types.is_bool_dtype(values):
        return values.to_numpy(dtype=bool)
    text = values.astype(str).str.strip().str.lower()
    bad = ~text.isin(_TRUE | _FALSE)
    if bad.any():
        raise DataError(
            f"Research-subset column {column!r} must hold true/false (or 1/0) per row; row "
            f"{int(np.flatnonzero(bad.to_numpy())[0])} holds {values[bad].iloc[0]!r}."
        )
    return text.isin(_TRUE).to_numpy()


def _subset_from_file(path: str, n_rows: int) -> np.ndarray:
    p = Path(path)
    if not p.is_file():
        raise ConfigError(
            f"Research-subset file {path!r} does not exist. Give a text file with one row number (0-based) "
            "per line, relative to the configuration's folder."
        )
    tokens = p.read_text(encoding="utf-8").split()
    try:
        ids = np.array([int(t) for t in tokens], dtype=np.int64)
    except ValueError:
        bad = next(t for t in tokens if not t.lstrip("-").isdigit())
        raise DataError(
            f"Research-subset file {p.name} must hold whole row numbers, one per line; found {bad!r}."
        ) from None
    if ids.size and (ids.min() < 0 or ids.max() >= n_rows):
        raise DataError(
            f"Research-subset file {p.name} names row {int(ids.max() if ids.max() >= n_rows else ids.min())}, "
            f"but the input has rows 0 to {n_rows - 1}."
        )
    mask = np.zeros(n_rows, dtype=bool)
    mask[ids] = True
    return mask


def research_subset_mask(frame: pd.DataFrame, spec: Mapping[str, Any]) -> np.ndarray:
    """Rows of the input that belong to the research subset (``{"column": c}`` or ``{"file": path}``)."""
    if not isinstance(spec, Mapping) or len({"column", "file"} & set(spec)) != 1:
        raise ConfigError(
            "'delta-presence.research_subset' needs exactly one of 'column' (a true/false column of the "
            f"input) or 'file' (row numbers, one per line), got {spec!r}."
        )
    check_keys("delta-presence.research_subset", spec, {"column", "file"})
    if "column" in spec:
        mask = _subset_from_column(frame, str(spec["column"]))
    else:
        mask = _subset_from_file(str(spec["file"]), len(frame))
    if not mask.any():
        raise DataError(
            "The research subset is empty: select at least one row of the population table."
        )
    return mask


@register
class DeltaPresence(PrivacyModel):
    """delta_min <= (subset records / population records) <= delta_max in every class (ARX ``DPresence``)."""

    key = "delta-presence"
    label = "delta-presence"
    releases_subset = True
    params = (
        Param(
            "delta_min",
            "float",
            0.0,
            0.0,
            1.0,
            help="Smallest share of a class in the research subset",
        ),
        Param(
            "delta_max",
            "float",
            0.5,
            0.0,
            1.0,
            help="Largest share of a class in the research subset",
            required=True,
        ),
    )
    description = (
        "Knowing the public population table, no one can tell with probability above delta_max (or below "
        "delta_min) that a person is in the released research subset."
    )
    monotonic_generalization = True  # ARX: ImplicitPrivacyCriterion(false, true)
    monotonic_suppression = False

    def __init__(self, **values: Any) -> None:
        values = dict(values)
        subset = values.pop("research_subset", None)
        if subset is None:
            raise ConfigError(
                "'delta-presence.research_subset' is required: the input is the population table, so say "
                "which rows are released, e.g. {'column': 'in_study'} or {'file': 'subset_rows.txt'}."
            )
        if not isinstance(subset, Mapping):
            raise ConfigError(
                f"'delta-presence.research_subset' must be {{'column': name}} or {{'file': path}}, got {subset!r}."
            )
        self.research_subset = dict(subset)
        super().__init__(**values)
        if self.delta_min > self.delta_max:
            raise ConfigError(
                f"'delta-presence.delta_min' ({self.delta_min}) is above 'delta_max' ({self.delta_max}): "
                "give delta_min <= delta_max."
            )

    def to_config(self) -> dict[str, Any]:
        return {**super().to_config(), "research_subset": dict(self.research_subset)}

    def prepare(self, freq: FrequencyTable) -> Any:
        """Research-subset records per frequency-table tuple."""
        dataset = freq.dataset
        if dataset.grouped:
            raise ConfigError(
                "delta-presence needs the rows of the population table to select the research subset; "
                "use the pandas engine."
            )
        mask = research_subset_mask(dataset.frame, self.research_subset)
        return np.bincount(freq.row_tuple, weights=mask.astype(float), minlength=freq.n_tuples)

    def subset_counts(self, table: ClassTable, state: Any) -> np.ndarray:
        return np.bincount(table.tuple_class, weights=state, minlength=table.n_classes)

    def measure(self, table: ClassTable, state: Any) -> np.ndarray:
        """delta per class: research-subset records / population records."""
        return self.subset_counts(table, state) / table.sizes

    def class_ok(self, table: ClassTable, state: Any) -> np.ndarray:
        count = self.subset_counts(table, state)
        delta = np.where(count == 0, 0.0, count / table.sizes)
        return (delta >= self.delta_min) & (delta <= self.delta_max)


def research_subset_rows(models: Any, frame: pd.DataFrame) -> np.ndarray | None:
    """Rows a release may hold when a delta-presence model is configured (its research subset), else None.

    The input of delta-presence is the public population table: only the research subset is released,
    so every release path keeps ``frame.loc[mask]`` of the generalized table.
    """
    masks = [
        research_subset_mask(frame, m.research_subset)
        for m in models
        if isinstance(m, DeltaPresence)
    ]
    if not masks:
        return None
    out = masks[0].copy()
    for m in masks[1:]:
        out &= m
    return out
