"""Membership inference on a released table by distance to closest record (DCR).

Are the records that were released (members) closer to some released record than records of the
same population that were never released (non-members, the control set)? For each target the
attack computes the Gower-like distance to its closest released record (categorical columns: 0 if
equal else 1; numeric columns: absolute difference over the column's range; averaged over the
columns) and guesses "member" when that distance is at most a threshold.

The figure is the attack's **advantage** TPR - FPR (Yeom et al., "Privacy risk in machine
learning", CSF 2018): 0 when members and non-members look alike, 1 when every member is told
apart. To keep the figure honest the threshold is chosen on one half of the targets (the one
maximizing TPR - FPR there) and the advantage is measured on the other half; choosing and
measuring on the same targets would overstate it. The interval is Newcombe's hybrid score
interval for a difference of two independent proportions (Newcombe 1998, method 10), built from
the Wilson intervals of TPR and FPR. The area under the ROC curve of the distances is reported
beside it (threshold-free, but not an advantage).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from anon_core.attacks.stats import wilson_interval
from anon_core.data.io import to_labels
from anon_core.errors import ConfigError, DataError
from anon_core.validation import check_float, check_int

Progress = Callable[[float, str], None]
_BLOCK_CELLS = 4_000_000  # targets x distinct released rows per distance block


@dataclass(frozen=True)
class MembershipResult:
    """DCR membership inference: advantage TPR - FPR on the held-out half, with its interval."""

    advantage: float
    ci: tuple[float, float]
    tpr: float
    fpr: float
    threshold: float
    auc: float
    n_members: int
    n_non_members: int
    confidence: float = 0.95
    random_state: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """The CLI's ``membership`` object."""
        return {"advantage": self.advantage, "ci": [self.ci[0], self.ci[1]]}

    def details(self) -> dict[str, Any]:
        return {
            "tpr": self.tpr,
            "fpr": self.fpr,
            "threshold": self.threshold,
            "auc": self.auc,
            "n_members": self.n_members,
            "n_non_members": self.n_non_members,
            "confidence": self.confidence,
            "random_state": self.random_state,
            "method": "DCR, threshold chosen on one half, advantage on the other",
        }


def _encode(frames: list[pd.DataFrame], columns: list[str]) -> tuple[list[np.ndarray], np.ndarray]:
    """Per frame a float matrix (numeric scaled to [0, 1], categorical as codes) and a numeric mask."""
    mats = [np.empty((len(f), len(columns)), dtype=np.float64) for f in frames]
    numeric = np.zeros(len(columns), dtype=bool)
    for j, col in enumerate(columns):
        parts = [f[col] for f in frames]
        nums = [pd.to_numeric(p, errors="coerce") for p in parts]
        if all(p.notna().all() for p in nums) and any(len(p) for p in nums):
            allv = np.concatenate([p.to_numpy(dtype=float) for p in nums])
            lo, span = float(allv.min()), float(allv.max() - allv.min())
            numeric[j] = True
            for m, p in zip(mats, nums, strict=True):
                m[:, j] = (p.to_numpy(dtype=float) - lo) / (span if span > 0 else 1.0)
        else:
            labels = np.concatenate([to_labels(p) for p in parts]).astype(str)
            codes, _ = pd.factorize(labels, sort=False)
            start = 0
            for m, p in zip(mats, parts, strict=True):
                m[:, j] = codes[start : start + len(p)]
                start += len(p)
    return mats, numeric


def closest_distances(
    targets: np.ndarray,
    released: np.ndarray,
    numeric: np.ndarray,
    progress: Progress | None = None,
) -> np.ndarray:
    """Gower-like distance of each target row to its closest released row.

    Released rows are deduplicated and targets equal to a released row are at distance 0
    without a scan; the rest are compared in blocks (float32: distances are averages of values
    in [0, 1], so single precision is ample).
    """
    released = np.unique(released, axis=0)
    out = np.zeros(len(targets))
    if len(released) == 0 or targets.shape[1] == 0:
        return out
    known = pd.Index(pd.MultiIndex.from_arrays(released.T)) if released.shape[1] > 1 else None
    if known is not None:
        equal = known.get_indexer(pd.MultiIndex.from_arrays(targets.T)) >= 0
    else:
        equal = np.isin(targets[:, 0], released[:, 0])
    todo = np.flatnonzero(~equal)
    rel32 = released.astype(np.float32)
    block = max(1, _BLOCK_CELLS // len(released))
    for start in range(0, len(todo), block):
        rows = todo[start : start + block]
        chunk = targets[rows].astype(np.float32)
        dist = np.zeros((len(chunk), len(released)), dtype=np.float32)
        for j in range(targets.shape[1]):
            diff = chunk[:, j, None] - rel32[None, :, j]
            dist += np.abs(diff) if numeric[j] else (diff != 0)
        out[rows] = dist.min(axis=1) / targets.shape[1]
        if progress is not None:
            progress(min(1.0, (start + len(rows)) / len(todo)), "membership: distances")
    return out


def _best_threshold(members: np.ndarray, non_members: np.ndarray) -> float:
    """The threshold t maximizing TPR - FPR of the rule 'member iff distance <= t' (-inf: never)."""
    candidates = np.unique(np.concatenate([members, non_members]))
    m_sorted, n_sorted = np.sort(members), np.sort(non_members)
    tpr = np.searchsorted(m_sorted, candidates, side="right") / max(len(members), 1)
    fpr = np.searchsorted(n_sorted, candidates, side="right") / max(len(non_members), 1)
    gain = tpr - fpr
    if len(gain) == 0 or gain.max() <= 0:
        return -math.inf
    return float(candidates[int(np.argmax(gain))])


def _auc(members: np.ndarray, non_members: np.ndarray) -> float:
    """P(member closer than non-member) + half the ties (Mann-Whitney)."""
    ranks = pd.Series(np.concatenate([-members, -non_members])).rank(method="average").to_numpy()
    n1, n0 = len(members), len(non_members)
    return float((ranks[:n1].sum() - n1 * (n1 + 1) / 2) / (n1 * n0))


def dcr_membership(
    original: pd.DataFrame,
    released: pd.DataFrame,
    control: pd.DataFrame,
    *,
    n_attacks: int = 2000,
    confidence: float = 0.95,
    random_state: int | None = None,
    progress: Progress | None = None,
) -> MembershipResult:
    """DCR membership inference against ``released`` (see the module docstring).

    ``original`` are the released records before protection (members), ``control`` records of
    the same population never released (non-members); for a generalized release both must be
    generalized like the release first. Up to ``n_attacks`` members and as many non-members are
    drawn (seeded by ``random_state``).
    """
    n_attacks = check_int("n_attacks", n_attacks, minimum=1)
    confidence = check_float("confidence", confidence, 0.5, 0.999)
    columns = [str(c) for c in released.columns]
    for name, frame in (("original", original), ("control", control)):
        missing = [c for c in columns if c not in frame.columns]
        if missing:
            raise ConfigError(
                f"The {name} records lack the released column(s) {missing}; give them the release's columns."
            )
    if len(control) < 2 or len(original) < 2:
        raise DataError(
            f"Membership inference needs at least 2 member and 2 control records, got {len(original)} "
            f"and {len(control)}: enlarge the control set ('attack.control_fraction')."
        )
    if len(released) == 0:
        raise DataError("The released table has no records: there is nothing to attack.")
    rng = np.random.default_rng(random_state)
    n = min(n_attacks, len(original), len(control))
    members = original.iloc[np.sort(rng.choice(len(original), size=n, replace=False))]
    non_members = control.iloc[np.sort(rng.choice(len(control), size=n, replace=False))]
    (rel_m, mem_m, non_m), numeric = _encode([released, members, non_members], columns)
    d = closest_distances(np.vstack([mem_m, non_m]), rel_m, numeric, progress)
    d_mem, d_non = d[:n], d[n:]
    # Half A chooses the threshold, half B measures the advantage.
    perm_m, perm_n = rng.permutation(n), rng.permutation(n)
    half = n // 2
    if half == 0:
        raise DataError("Membership inference needs at least 2 members and 2 non-members.")
    a_m, b_m = d_mem[perm_m[:half]], d_mem[perm_m[half:]]
    a_n, b_n = d_non[perm_n[:half]], d_non[perm_n[half:]]
    t = _best_threshold(a_m, a_n)
    tp, fp = int((b_m <= t).sum()), int((b_n <= t).sum())
    tpr, fpr = tp / len(b_m), fp / len(b_n)
    l1, u1 = wilson_interval(tp, len(b_m), confidence)
    l2, u2 = wilson_interval(fp, len(b_n), confidence)
    adv = tpr - fpr
    lo = adv - math.sqrt((tpr - l1) ** 2 + (u2 - fpr) ** 2)
    hi = adv + math.sqrt((u1 - tpr) ** 2 + (fpr - l2) ** 2)
    return MembershipResult(
        advantage=float(adv),
        ci=(float(max(-1.0, lo)), float(min(1.0, hi))),
        tpr=float(tpr),
        fpr=float(fpr),
        threshold=float(t) if math.isfinite(t) else -1.0,
        auc=_auc(d_mem, d_non),
        n_members=n,
        n_non_members=n,
        confidence=confidence,
        random_state=random_state,
    )
