"""Checks of a synthetic (or any) release for memorized records: exact copies and distance to
the closest record (DCR) against a holdout.

* **Exact copies**: released rows equal, on every shared column (compared as labels), to a row of
  the original training part; and how many of those copy a record that was **unique** in the
  training part (a copied unique record is a disclosed individual).
* **DCR** (as in Park et al., "Data synthesis based on generative adversarial networks", VLDB
  2018; SDMetrics' ``DCRBaselineProtection``; synthcity): for each released row, the distance to
  the closest training row and to the closest holdout row. A generator that memorizes puts its
  rows closer to the training part than to the holdout. Both reference sets are used whole (a
  subsample of the training part would hide the very records a generator copied), so the share
  of released rows strictly closer to the training part is compared with
  ``expected_share = n_train / (n_train + n_holdout)``, what rows drawn independently of both
  parts would give with continuous distances (ties, frequent with categorical columns, are
  reported apart). ``share_closer_to_training`` well above ``expected_share`` is the warning
  sign. At most ``n_samples`` released rows are checked (seeded).

Distance (Gower's, "A general coefficient of similarity", Biometrics 1971): the mean over
columns of ``|x - y| / range`` for numeric columns (range of the training part) and ``0/1``
mismatch for the others; generalized labels are categorical. In [0, 1].
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from anon_core.data.io import to_labels
from anon_core.errors import ConfigError
from anon_core.utility.features import numeric_values
from anon_core.utility.fidelity import common_columns
from anon_core.validation import check_int

__all__ = ["SyntheticChecks", "exact_copies", "gower_dcr", "synthetic_checks"]


@dataclass(frozen=True)
class SyntheticChecks:
    """Exact copies and DCR of a release (see the module docstring)."""

    n_released: int
    exact_copies: int
    exact_copies_unique_in_original: int
    dcr_training_median: float
    dcr_training_p5: float
    dcr_holdout_median: float
    dcr_holdout_p5: float
    share_closer_to_training: float
    share_ties: float
    expected_share: float
    n_checked: int
    columns: tuple[str, ...]
    random_state: int = 0

    @property
    def share_exact_copies(self) -> float:
        return self.exact_copies / self.n_released if self.n_released else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "n_released": int(self.n_released),
            "exact_copies": int(self.exact_copies),
            "exact_copies_unique_in_original": int(self.exact_copies_unique_in_original),
            "share_exact_copies": float(self.share_exact_copies),
            "dcr": {
                "training_median": float(self.dcr_training_median),
                "training_p5": float(self.dcr_training_p5),
                "holdout_median": float(self.dcr_holdout_median),
                "holdout_p5": float(self.dcr_holdout_p5),
                "share_closer_to_training": float(self.share_closer_to_training),
                "share_ties": float(self.share_ties),
                "expected_share": float(self.expected_share),
                "n_checked": int(self.n_checked),
            },
            "columns": list(self.columns),
            "random_state": int(self.random_state),
        }


def _keys(frame: pd.DataFrame, columns: Sequence[str]) -> np.ndarray:
    """One string key per row: the row's labels joined by a separator no label contains."""
    labels = [to_labels(frame[c]).astype(str) for c in columns]
    return np.array(["\x1f".join(t) for t in zip(*labels, strict=True)], dtype=object)


def exact_copies(
    original: pd.DataFrame, released: pd.DataFrame, columns: Sequence[str] | None = None
) -> tuple[int, int]:
    """(released rows equal to an original row, of which copy a record unique in the original)."""
    cols = common_columns(original, released, columns)
    orig_keys, counts = np.unique(_keys(original, cols), return_counts=True)
    rel = _keys(released, cols)
    pos = np.searchsorted(orig_keys, rel)
    pos = np.minimum(pos, len(orig_keys) - 1)
    hit = orig_keys[pos] == rel
    return int(hit.sum()), int((hit & (counts[pos] == 1)).sum())


def _encode(
    columns: Sequence[str], reference: pd.DataFrame, frames: Sequence[pd.DataFrame]
) -> tuple[np.ndarray, np.ndarray]:
    """(matrix per frame stacked, is-numeric flag per column): numbers scaled by the reference's
    range, other columns as shared category codes."""
    numeric = np.zeros(len(columns), dtype=bool)
    out = [np.empty((len(f), len(columns))) for f in frames]
    for j, c in enumerate(columns):
        ref = numeric_values(reference[c])
        values = [numeric_values(f[c]) for f in frames]
        if ref is not None and all(v is not None for v in values):
            numeric[j] = True
            span = float(np.nanmax(ref) - np.nanmin(ref)) if np.isfinite(ref).any() else 0.0
            span = span if span > 0 else 1.0
            for o, v in zip(out, values, strict=True):
                o[:, j] = np.nan_to_num(v, nan=np.nanmedian(ref)) / span
        else:
            labels = [to_labels(f[c]).astype(str) for f in frames]
            codes, _ = pd.factorize(np.concatenate(labels))
            start = 0
            for o, lab in zip(out, labels, strict=True):
                o[:, j] = codes[start : start + len(lab)]
                start += len(lab)
    return np.vstack(out), numeric


def gower_dcr(
    points: np.ndarray, reference: np.ndarray, numeric: np.ndarray, chunk: int = 256
) -> np.ndarray:
    """Gower distance of each row of ``points`` to its closest row of ``reference``."""
    best = np.full(len(points), np.inf)
    num, cat = numeric, ~numeric
    for start in range(0, len(points), chunk):
        p = points[start : start + chunk]
        d = np.zeros((len(p), len(reference)))
        if num.any():
            d += np.abs(p[:, None, num] - reference[None, :, num]).clip(max=1.0).sum(axis=2)
        if cat.any():
            d += (p[:, None, cat] != reference[None, :, cat]).sum(axis=2)
        best[start : start + chunk] = d.min(axis=1) / points.shape[1]
    return best


def synthetic_checks(
    original_train: pd.DataFrame,
    original_holdout: pd.DataFrame,
    released: pd.DataFrame,
    columns: Sequence[str] | None = None,
    n_samples: int = 1000,
    random_state: int = 0,
) -> SyntheticChecks:
    """Exact copies of training records and the DCR to training vs holdout of ``released``."""
    n_samples = check_int("n_samples", n_samples, minimum=1)
    random_state = check_int("random_state", random_state, minimum=0)
    cols = common_columns(original_train, released, columns)
    missing = [c for c in cols if c not in original_holdout.columns]
    if missing:
        raise ConfigError(
            f"The holdout lacks column(s) {missing}; give it the training part's columns."
        )
    if original_holdout.empty:
        raise ConfigError("'original_holdout' has no rows: the DCR needs holdout records.")
    copies, unique_copies = exact_copies(original_train, released, cols)
    rng = np.random.default_rng(random_state)
    n_train, n_hold = len(original_train), len(original_holdout)
    n_check = min(n_samples, len(released))
    rel = released.iloc[np.sort(rng.choice(len(released), n_check, replace=False))]
    matrix, numeric = _encode(cols, original_train, [rel, original_train, original_holdout])
    points, ref_train, ref_hold = np.split(matrix, [n_check, n_check + n_train])
    d_train = gower_dcr(points, ref_train, numeric)
    d_hold = gower_dcr(points, ref_hold, numeric)
    return SyntheticChecks(
        n_released=len(released),
        exact_copies=copies,
        exact_copies_unique_in_original=unique_copies,
        dcr_training_median=float(np.median(d_train)),
        dcr_training_p5=float(np.percentile(d_train, 5)),
        dcr_holdout_median=float(np.median(d_hold)),
        dcr_holdout_p5=float(np.percentile(d_hold, 5)),
        share_closer_to_training=float((d_train < d_hold).mean()),
        share_ties=float((d_train == d_hold).mean()),
        expected_share=n_train / (n_train + n_hold),
        n_checked=n_check,
        columns=tuple(cols),
        random_state=random_state,
    )
