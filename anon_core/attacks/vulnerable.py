"""Vulnerable records: which records of a table stand out, and which columns make them stand out.

Meeus et al., "Achilles' Heels: Vulnerable Record Identification in Synthetic Data Publishing",
ESORICS 2023: the records most exposed to membership inference against a synthetic (or
perturbed) release are the outliers, and a simple, strong ranking is the distance of each record
to its k-th nearest neighbour in the original table (larger = more isolated).

The distance is Gower's mixed distance summed over the columns: a categorical column counts 0
when equal and 1 otherwise, a numeric column ``|x - y| / range``. It is computed exactly as an L1
(Manhattan) distance between encoded rows: categorical columns one-hot encoded with weight 1/2
(two differing indicators sum to 1), numeric columns scaled by their range; a missing number is
placed at -1 (at least 1 from any present value, 0 from another missing one); a category unseen
when the encoder was fitted is all zeros (1/2 from any known category). On up to 15 encoded
columns the ranking runs scikit-learn's ``NearestNeighbors`` (a KD-tree) on the encoded rows
(:func:`knn_distances`, which also serves the attacks that need neighbours of other tables'
records); on wider encodings it computes the same sums from the columns themselves, equal
records grouped, in compiled code (:mod:`anon_core.attacks.gower_kernel`), where
scikit-learn compared every pair of one-hot rows.

The cheap alternative ``method="rarity"`` scores a record by 1 / the number of records sharing
its combination of quasi-identifier values (sample uniques first).

Only positions, scores and column names are returned, never a record's values.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import sparse

from anon_core.attacks.encoding import is_numeric_column
from anon_core.attacks.gower_kernel import kth_distances, nearest_rows
from anon_core.errors import ConfigError
from anon_core.validation import check_choice, check_int

#: Rows the k-NN ranking accepts (on wide encodings it compares every pair of distinct records:
#: 0.8 s CPU for 20,108 Adult records, growing with the square of the distinct records).
MAX_ROWS = 500_000
#: Above this many encoded columns the matrix is kept sparse (brute-force L1 on CSR rows).
_DENSE_WIDTH = 256
#: Up to this many encoded columns the ranking uses scikit-learn's KD-tree (its own threshold for
#: a tree), above it the compiled kernel of :mod:`anon_core.attacks.gower_kernel`.
_TREE_WIDTH = 15
_MISSING_NUMBER = -1.0
METHODS = ("distance", "rarity")


def _labels(series: pd.Series) -> np.ndarray:
    """A column as strings, a missing value as its own label."""
    return series.astype(object).where(series.notna(), "\x00<missing>").astype(str).to_numpy()


class MixedEncoder:
    """Rows -> vectors whose L1 distance is Gower's summed mixed distance (see the module doc)."""

    def __init__(self, reference: Sequence[pd.DataFrame], columns: Sequence[str]) -> None:
        self.columns = [str(c) for c in columns]
        if not self.columns:
            raise ConfigError("The vulnerability ranking needs at least one column; name some.")
        for frame in reference:
            missing = [c for c in self.columns if c not in frame.columns]
            if missing:
                raise ConfigError(f"The table lacks the column(s) {missing}; give its columns.")
        self.numeric: dict[str, tuple[float, float]] = {}
        self.categories: dict[str, dict[str, int]] = {}
        self.slices: dict[str, slice] = {}
        width = 0
        for col in self.columns:
            if is_numeric_column(reference, col):
                values = np.concatenate([f[col].to_numpy(dtype=float) for f in reference])
                values = values[np.isfinite(values)]
                lo = float(values.min()) if len(values) else 0.0
                span = float(values.max() - lo) if len(values) else 0.0
                self.numeric[col] = (lo, span if span > 0 else 1.0)
                self.slices[col] = slice(width, width + 1)
                width += 1
            else:
                labels = pd.unique(np.concatenate([_labels(f[col]) for f in reference]))
                self.categories[col] = {str(v): i for i, v in enumerate(labels)}
                self.slices[col] = slice(width, width + len(labels))
                width += len(labels)
        self.width = width

    @property
    def dense(self) -> bool:
        return self.width <= _DENSE_WIDTH

    def numeric_column(self, frame: pd.DataFrame, col: str) -> np.ndarray:
        """A numeric column scaled to [0, 1] by the reference range (missing at -1)."""
        lo, span = self.numeric[col]
        x = (pd.to_numeric(frame[col], errors="coerce").to_numpy(dtype=float) - lo) / span
        return np.where(np.isfinite(x), x, _MISSING_NUMBER)

    def category_codes(self, frame: pd.DataFrame, col: str) -> np.ndarray:
        """A categorical column's codes (-1: unseen when the encoder was fitted)."""
        lookup = self.categories[col]
        return np.array([lookup.get(v, -1) for v in _labels(frame[col])], dtype=np.int64)

    def transform(self, frame: pd.DataFrame) -> Any:
        """Encoded rows: a dense float array, or a CSR matrix when the encoding is wide."""
        n = len(frame)
        rows, cols, vals = [], [], []
        for col in self.columns:
            start = self.slices[col].start
            if col in self.numeric:
                rows.append(np.arange(n))
                cols.append(np.full(n, start))
                vals.append(self.numeric_column(frame, col))
            else:
                codes = self.category_codes(frame, col)
                seen = codes >= 0
                rows.append(np.flatnonzero(seen))
                cols.append(start + codes[seen])
                vals.append(np.full(int(seen.sum()), 0.5))
        matrix = sparse.csr_matrix(
            (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
            shape=(n, self.width),
        )
        return matrix.toarray() if self.dense else matrix

    def columns_matrix(self, frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
        """(rows x columns floats, per column "categorical"): a category's code, or a number
        scaled as :meth:`numeric_column` does; the input of :mod:`anon_core.attacks.gower_kernel`."""
        x = np.empty((len(frame), len(self.columns)))
        for j, col in enumerate(self.columns):
            if col in self.numeric:
                x[:, j] = self.numeric_column(frame, col)
            else:
                x[:, j] = self.category_codes(frame, col)
        return x, np.array([c not in self.numeric for c in self.columns], dtype=bool)

    def column_distances(self, frame: pd.DataFrame, row: pd.DataFrame) -> np.ndarray:
        """(len(frame), columns) per-column Gower distances of every row to the one-row ``row``."""
        out = np.empty((len(frame), len(self.columns)))
        for j, col in enumerate(self.columns):
            if col in self.numeric:
                out[:, j] = np.abs(self.numeric_column(frame, col) - self.numeric_column(row, col))
            else:
                a, b = self.category_codes(frame, col), self.category_codes(row, col)[0]
                out[:, j] = np.where(a == b, 0.0, np.where((a < 0) | (b < 0), 0.5, 1.0))
        return out


def knn_distances(encoded: Any, k: int, queries: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """Distances and positions of the k nearest rows of ``encoded`` to each row of ``queries``
    (default: the rows themselves, each excluding itself), L1 metric."""
    from sklearn.neighbors import NearestNeighbors

    self_query = queries is None
    algorithm = "auto" if not sparse.issparse(encoded) else "brute"
    nn = NearestNeighbors(n_neighbors=k + int(self_query), metric="manhattan", algorithm=algorithm)
    nn.fit(encoded)
    dist, idx = nn.kneighbors(encoded if self_query else queries)
    if self_query:
        dist, idx = dist[:, 1:], idx[:, 1:]
    return dist, idx


@dataclass(frozen=True)
class VulnerableRecord:
    """One vulnerable record: its position in the table, its score and the columns that make it
    rare (most to least); never its values."""

    position: int
    score: float
    columns: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"position": self.position, "score": self.score, "columns": list(self.columns)}


@dataclass(frozen=True)
class Vulnerability:
    """Every record's outlier score and the ranking (most vulnerable first)."""

    scores: np.ndarray  # per record, in the table's order (larger = more vulnerable)
    order: np.ndarray  # positions, most vulnerable first (ties: earlier position first)
    top: tuple[VulnerableRecord, ...]
    method: str
    k: int
    columns: tuple[str, ...]

    def most(self, n: int) -> np.ndarray:
        """Positions of the ``n`` most vulnerable records."""
        return self.order[: max(0, int(n))]

    def to_dict(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "k": self.k,
            "columns": list(self.columns),
            "top": [r.to_dict() for r in self.top],
        }


def _ranking(scores: np.ndarray) -> np.ndarray:
    return np.lexsort((np.arange(len(scores)), -scores))


def vulnerable_records(
    frame: pd.DataFrame,
    columns: Sequence[str] | None = None,
    *,
    method: str = "distance",
    k: int = 5,
    top: int = 10,
    max_columns: int = 3,
) -> Vulnerability:
    """Rank the records of ``frame`` by vulnerability (see the module docstring).

    ``method="distance"``: the Gower distance to the k-th nearest other record over ``columns``
    (default: all). ``method="rarity"``: 1 / the size of the record's group of equal values over
    ``columns`` (pass the quasi-identifiers). For each of the ``top`` records, up to
    ``max_columns`` columns that make it rare: for ``distance`` the columns contributing most to
    its mean distance to its k neighbours, for ``rarity`` its least frequent values.
    """
    method = check_choice("method", method, METHODS)
    k = check_int("k", k, minimum=1)
    top = check_int("top", top, minimum=0)
    max_columns = check_int("max_columns", max_columns, minimum=1)
    cols = [str(c) for c in (frame.columns if columns is None else columns)]
    n = len(frame)
    if n > MAX_ROWS:
        raise ConfigError(
            f"The vulnerability ranking accepts at most {MAX_ROWS:,} rows, got {n:,}: rank a "
            "seeded sample of the table."
        )
    if method == "distance" and n < k + 1:
        raise ConfigError(
            f"The distance to the k-th nearest neighbour needs more than k={k} records, got {n}: "
            "give a smaller 'k' or a larger table."
        )
    if n == 0:
        raise ConfigError("The table has no records to rank.")
    enc = MixedEncoder([frame], cols)
    x = is_cat = idx = None
    if method == "distance":
        x, is_cat = enc.columns_matrix(frame)
        if enc.width <= _TREE_WIDTH:
            # few encoded columns: scikit-learn's KD-tree, faster there (60,000 records of two
            # numbers and a category: 0.8 s CPU against 10 s) and with the same sums
            dist, idx = knn_distances(enc.transform(frame), k)
            scores = dist[:, -1].astype(float)
        else:
            scores = kth_distances(x, is_cat, k)
    else:
        keys = pd.MultiIndex.from_arrays([_labels(frame[c]) for c in cols])
        sizes = pd.Series(1, index=keys).groupby(level=list(range(len(cols)))).transform("size")
        scores = 1.0 / sizes.to_numpy(dtype=float)
    order = _ranking(scores)
    chosen = order[:top]
    records = []
    share = {}
    for c in cols:
        labels = pd.Series(_labels(frame[c]))
        share[c] = labels.map(labels.value_counts()).to_numpy()
    for pos in chosen:
        pos = int(pos)
        if x is not None:
            near = idx[pos] if idx is not None else nearest_rows(x, is_cat, pos, k)
            contrib = enc.column_distances(frame.iloc[near], frame.iloc[[pos]]).mean(axis=0)
            ranked = [
                cols[j] for j in np.lexsort((np.arange(len(cols)), -contrib)) if contrib[j] > 0
            ]
        else:
            counts = np.array([float(share[c][pos]) for c in cols])
            ranked = [cols[j] for j in np.lexsort((np.arange(len(cols)), counts))]
        records.append(VulnerableRecord(pos, float(scores[pos]), tuple(ranked[:max_columns])))
    return Vulnerability(scores, order, tuple(records), method, k, tuple(cols))


__all__ = [
    "MAX_ROWS",
    "MixedEncoder",
    "VulnerableRecord",
    "Vulnerability",
    "knn_distances",
    "vulnerable_records",
]
