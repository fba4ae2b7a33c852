"""A table with roles and hierarchies, dictionary-encoded once (data path steps 2-3)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

import numpy as np
import pandas as pd

from anon_core.data.builders import default_hierarchy
from anon_core.data.hierarchy import EncodedHierarchy, Hierarchy
from anon_core.data.io import infer_kind, to_labels
from anon_core.errors import ConfigError, DataError


class Role(StrEnum):
    IDENTIFIER = "identifier"
    QUASI_IDENTIFIER = "quasi-identifier"
    SENSITIVE = "sensitive"
    INSENSITIVE = "insensitive"


@dataclass(frozen=True, eq=False)
class EncodedColumn:
    """Integer codes of one column and, when it has one, its encoded hierarchy."""

    name: str
    codes: np.ndarray  # int32, one per row
    labels: np.ndarray  # code -> label (level 0)
    hierarchy: Hierarchy | None
    encoded: EncodedHierarchy | None

    @property
    def cardinality(self) -> int:
        return len(self.labels)


class Dataset:
    """The input table, its roles and hierarchies, with QI and sensitive columns encoded.

    Columns absent from ``roles`` are insensitive. Quasi-identifiers without a
    hierarchy get the default one for their kind.

    ``weights`` makes each row stand for that many records: a scale engine
    (DuckDB, Spark) passes the distinct (QI, sensitive) rows of a table it
    grouped, in order of first appearance, with their counts. Such a dataset
    has the same codes, hierarchies and frequency table as the full table, but
    no row-level frame to release from (the engine releases).
    """

    def __init__(
        self,
        frame: pd.DataFrame,
        roles: Mapping[str, Role | str],
        hierarchies: Mapping[str, Hierarchy] | None = None,
        weights: np.ndarray | None = None,
    ) -> None:
        hierarchies = dict(hierarchies or {})
        if len(frame) == 0:
            raise DataError("The table has no rows.")
        if weights is not None:
            weights = np.asarray(weights, dtype=np.int64)
            if weights.shape != (len(frame),) or (weights < 1).any():
                raise DataError("Row weights must be one positive count per row.")
        self.weights = weights
        unknown = [c for c in roles if c not in frame.columns]
        if unknown:
            raise ConfigError(
                f"Attribute(s) {unknown} are not columns of the table. Columns are: {list(frame.columns)}."
            )
        self.frame = frame
        self.roles: dict[str, Role] = {}
        for col in frame.columns:
            raw = roles.get(col, Role.INSENSITIVE)
            try:
                self.roles[str(col)] = Role(raw)
            except ValueError:
                raise ConfigError(
                    f"Role of {col!r} must be one of {[r.value for r in Role]}, got {raw!r}."
                ) from None
        self.qis = [c for c, r in self.roles.items() if r == Role.QUASI_IDENTIFIER]
        self.sensitive = [c for c, r in self.roles.items() if r == Role.SENSITIVE]
        self.n_rows = len(frame) if weights is None else int(weights.sum())
        self.columns: dict[str, EncodedColumn] = {}
        for col in self.qis + self.sensitive:
            labels = to_labels(frame[col])
            codes, uniques = pd.factorize(labels, sort=False)
            uniques = np.asarray(uniques, dtype=object)
            hier = hierarchies.get(col)
            if hier is None and col in self.qis:
                hier = default_hierarchy(uniques, infer_kind(frame[col]), name=col)
            enc = hier.encode(uniques) if hier is not None else None
            self.columns[col] = EncodedColumn(col, codes.astype(np.int32), uniques, hier, enc)

    @property
    def grouped(self) -> bool:
        """True when rows are weighted distinct tuples from an engine, not records."""
        return self.weights is not None

    def hierarchy(self, qi: str) -> EncodedHierarchy:
        enc = self.columns[qi].encoded
        assert enc is not None
        return enc

    @property
    def heights(self) -> list[int]:
        """Number of levels (including level 0) of each QI's hierarchy, in QI order."""
        return [self.hierarchy(q).height for q in self.qis]
