"""The release plan: what a release does to each input column, and which classes it suppresses.

The one place a transformation is applied to rows: in memory (:meth:`ReleasePlan.apply_rows`
for the dataset's own rows, :meth:`ReleasePlan.apply_frame` for any rows of the table) and, as an
engine-neutral description, by the DuckDB and Spark engines over files.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from anon_core.data.dataset import DROPPED_ROLES, Dataset, Role
from anon_core.data.io import MISSING, to_labels
from anon_core.errors import ConfigError, DataError
from anon_core.search.evaluate import TransformationResult

#: The label of a suppressed quasi-identifier value (ARX's ``*``).
SUPPRESSED = "*"


@dataclass(frozen=True, eq=False)
class ColumnPlan:
    """What the release does to one input column."""

    name: str
    action: str  # "drop" | "generalize" | "keep"
    # generalize only: canonical leaf label -> generalized code; generalized code -> label
    leaf_code: dict[str, int] = field(default_factory=dict)
    labels: np.ndarray | None = None
    # generalize only, for engines that match raw values: distinct raw values and their generalized labels
    raw_values: pd.Series | None = None
    raw_labels: np.ndarray | None = None
    missing_label: str | None = None


@dataclass(frozen=True, eq=False)
class ReleasePlan:
    """An engine-neutral description of the release: per column, drop, keep or generalize;
    and the classes (tuples of generalized codes, in QI order) whose records are suppressed."""

    columns: list[ColumnPlan]
    qis: list[str]
    suppressed: np.ndarray  # (classes, QIs) generalized codes
    mode: str  # "remove" | "mask"
    expected_rows: int  # records in the release

    @property
    def radices(self) -> np.ndarray:
        by_name = {c.name: c for c in self.columns}
        return np.array([max(len(by_name[q].labels), 1) for q in self.qis], dtype=np.int64)

    def class_keys(self, codes: list[np.ndarray]) -> np.ndarray:
        """One int64 key per row from its generalized codes (mixed radix)."""
        key = np.zeros(len(codes[0]) if codes else 0, dtype=np.int64)
        for c, r in zip(codes, self.radices, strict=True):
            key = key * int(r) + c
        return key

    @property
    def suppressed_keys(self) -> np.ndarray:
        if len(self.suppressed) == 0:
            return np.zeros(0, dtype=np.int64)
        return np.unique(
            self.class_keys([self.suppressed[:, j].astype(np.int64) for j in range(len(self.qis))])
        )

    def apply_frame(self, frame: pd.DataFrame) -> pd.DataFrame:
        """The release of some of the table's rows held in memory (e.g. a sample), as the engines
        release them: the same rows of the full release, in order."""
        codes = []
        for c in self.columns:
            if c.action == "generalize":
                labels = pd.Series(to_labels(frame[c.name]))
                mapped = labels.map(c.leaf_code)
                if mapped.isna().any():
                    raise DataError(
                        f"Value {labels[mapped.isna()].iloc[0]!r} of {c.name!r} is not in the "
                        "frequency table. Group the table again."
                    )
                codes.append(mapped.to_numpy(dtype=np.int64))
        return self.apply_codes(frame, codes)

    def apply_codes(
        self, frame: pd.DataFrame, codes: list[np.ndarray], keep: np.ndarray | None = None
    ) -> pd.DataFrame:
        """The release of ``frame`` whose generalized codes per quasi-identifier (in plan order)
        are known: suppressed classes removed or masked, identifiers dropped, order kept.
        ``keep`` limits the release to some rows (delta-presence's research subset)."""
        out = {}
        supp = (
            np.isin(self.class_keys(codes), self.suppressed_keys)
            if codes
            else np.zeros(len(frame), bool)
        )
        gen = iter(codes)
        for c in self.columns:
            if c.action == "drop":
                continue
            if c.action == "generalize":
                labels = np.asarray(c.labels, dtype=object)[next(gen)]
                labels[supp] = SUPPRESSED
                out[c.name] = labels
            else:
                out[c.name] = frame[c.name].to_numpy()
        released = pd.DataFrame(out, index=frame.index)
        rows = ~supp if self.mode == "remove" else np.ones(len(frame), dtype=bool)
        if keep is not None:
            rows &= np.asarray(keep, dtype=bool)
        return released.loc[rows].reset_index(drop=True)

    def apply_rows(
        self, dataset: Dataset, frame: pd.DataFrame | None = None, keep: np.ndarray | None = None
    ) -> pd.DataFrame:
        """The release of the dataset's own rows (in memory), from the codes it already holds.

        ``frame`` replaces the dataset's frame for the columns that are kept (e.g. after text
        de-identification or pseudonymization); the quasi-identifiers come from the codes.
        """
        by_name = {c.name: c for c in self.columns}
        codes = []
        for q in self.qis:
            leaf_codes = np.array(
                [by_name[q].leaf_code[str(v)] for v in dataset.columns[q].labels], dtype=np.int64
            )
            codes.append(leaf_codes[dataset.columns[q].codes])
        return self.apply_codes(dataset.frame if frame is None else frame, codes, keep)

    @property
    def suppressed_label_keys(self) -> list[str]:
        """Suppressed classes as their generalized labels joined by U+001F (for SQL engines)."""
        by_name = {c.name: c for c in self.columns}
        cols = [
            np.asarray(by_name[q].labels, dtype=object)[self.suppressed[:, j]]
            for j, q in enumerate(self.qis)
        ]
        return ["\x1f".join(map(str, t)) for t in zip(*cols, strict=True)] if cols else []


def build_release_plan(
    dataset: Dataset,
    result: TransformationResult,
    mode: str = "remove",
    columns: list[str] | None = None,
    roles: dict[str, Role] | None = None,
) -> ReleasePlan:
    """The release of ``result`` as a plan an engine can run over the full table.

    ``columns`` are the input's columns in order (default: the dataset frame's).
    """
    if mode not in ("remove", "mask"):
        raise ConfigError(f"'output.suppressed_records' must be 'remove' or 'mask', got {mode!r}.")
    columns = list(columns if columns is not None else dataset.frame.columns)
    roles = dict(roles if roles is not None else dataset.roles)
    table = result.table
    plans = []
    for col in columns:
        role = roles.get(col, Role.INSENSITIVE)
        if role in DROPPED_ROLES:  # identifiers and survey weights are never released
            plans.append(ColumnPlan(col, "drop"))
        elif role == Role.QUASI_IDENTIFIER:
            j = dataset.qis.index(col)
            enc = dataset.hierarchy(col)
            level = result.levels[j]
            leaves = np.asarray(dataset.columns[col].labels, dtype=object)
            gcode = np.asarray(enc.maps[level], dtype=np.int64)
            labels = np.asarray(enc.labels[level], dtype=object)
            leaf_code = {str(v): int(c) for v, c in zip(leaves, gcode, strict=True)}
            raw_values = raw_labels = None
            missing_label = None
            if col in dataset.frame.columns:
                raw = dataset.frame[col]
                row_gen = labels[gcode[dataset.columns[col].codes]]
                present = raw.notna().to_numpy()
                first = ~pd.Series(raw[present].to_numpy()).duplicated().to_numpy()
                raw_values = raw[present][first].reset_index(drop=True)
                raw_labels = row_gen[present][first]
                if (~present).any():
                    missing_label = str(row_gen[~present][0])
            if missing_label is None and MISSING in leaf_code:
                missing_label = str(labels[leaf_code[MISSING]])
            plans.append(
                ColumnPlan(
                    col, "generalize", leaf_code, labels, raw_values, raw_labels, missing_label
                )
            )
        else:
            plans.append(ColumnPlan(col, "keep"))
    codes = table.codes if table.n_classes else np.zeros((0, len(dataset.qis)), dtype=np.int64)
    suppressed = np.asarray(codes, dtype=np.int64)[np.asarray(result.suppressed, dtype=bool)]
    kept = dataset.n_rows - int(result.suppressed_records) if mode == "remove" else dataset.n_rows
    return ReleasePlan(
        plans, list(dataset.qis), suppressed.reshape(-1, len(dataset.qis)), mode, kept
    )
