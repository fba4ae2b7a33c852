"""SUDA2 special uniques: minimal sample uniques and the SUDA and DIS scores, as sdcMicro's ``suda2``.

A *minimal sample unique* (MSU) of a record is a set of key variables on which
the record is unique in the sample while it is unique on no proper subset
(Elliot et al. 2002; Manning, Haglin and Keane 2008). With M key variables, an
MSU of size k adds (M - k)! to the record's SUDA score (Elliot's original
scores, sdcMicro's default ``original_scores=TRUE``); small MSUs are the most
telling. The DIS-SUDA score (Skinner and Elliot 2002) calibrates the scores to a
probability of a correct match::

    Dis = U F / (U F + P (1 - F))       (U: sample uniques, P: records in pairs, F: DisFraction)
    Q = 1 + (8 - M) / 20,  A = sum over scored records of 1 / score^Q
    DIS = 1 / (1 + (U / Dis - U) / (score^Q * A))      (0 when the score is 0)

sdcMicro computes Dis in single precision; so does this module. With fewer than
three key variables sdcMicro pads the data with constant columns, so M is at
least 3. Each variable's contribution is the weight of the MSUs that contain it
over the total score (in percent). MSUs are found by grouping the records on
every subset of keys of up to ``max_size`` variables (vectorized), which is
exact and fast for the usual handful of key variables.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from anon_core.errors import ConfigError
from anon_core.validation import check_float, check_int

#: sdcMicro's ``suda2`` default DisFraction (the R wrapper's).
DEFAULT_DIS_FRACTION = 0.01
#: Most key variables searched exhaustively (2^M subsets).
MAX_KEYS = 16
#: sdcMicro's print intervals of the DIS score.
DIS_BINS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7)


@dataclass(frozen=True)
class SudaResult:
    """SUDA2 scores of every record (input order) and the variables' contributions."""

    variables: tuple[str, ...]
    max_size: int
    dis_fraction: float
    sample_uniques: int
    score: np.ndarray = field(repr=False, compare=False)
    dis_score: np.ndarray = field(repr=False, compare=False)
    msu_counts: np.ndarray = field(
        repr=False, compare=False
    )  # (records, max_size): MSUs of each size
    contributions: tuple[tuple[str, float], ...] = ()  # (variable, percent of the total score)

    def dis_table(self) -> tuple[tuple[str, int], ...]:
        """Records per DIS-score interval, as sdcMicro prints them ("== 0", "(0.0, 0.1]", ..., "> 0.7")."""
        edges = np.array(DIS_BINS) + np.finfo(float).eps
        labels = (
            ["== 0"] + [f"({a:.1f}, {b:.1f}]" for a, b in itertools.pairwise(DIS_BINS)] + ["> 0.7"]
        )
        idx = np.searchsorted(edges, self.dis_score, side="left")
        counts = np.bincount(idx, minlength=len(labels))
        return tuple(zip(labels, (int(c) for c in counts), strict=True))

    def to_dict(self) -> dict[str, Any]:
        return {
            "variables": list(self.variables),
            "max_size": int(self.max_size),
            "dis_fraction": float(self.dis_fraction),
            "sample_uniques": int(self.sample_uniques),
            "records_with_msu": int((self.score > 0).sum()),
            "highest_score": float(self.score.max()) if self.score.size else 0.0,
            "highest_dis_score": float(self.dis_score.max()) if self.dis_score.size else 0.0,
            "dis_table": {label: n for label, n in self.dis_table()},
            "contributions": {v: float(c) for v, c in self.contributions},
        }


def _unique_on(codes: list[np.ndarray], radices: list[int], subset: tuple[int, ...]) -> np.ndarray:
    """Is each record unique on the variables of ``subset``?"""
    from anon_core.data.frequency import group_rows

    group, first = group_rows([codes[j] for j in subset], [radices[j] for j in subset])
    return np.bincount(group, minlength=len(first))[group] == 1


def suda2(
    frame: pd.DataFrame,
    variables: Sequence[str],
    max_size: int | None = None,
    dis_fraction: float = DEFAULT_DIS_FRACTION,
) -> SudaResult:
    """SUDA and DIS-SUDA scores of every record on the key ``variables`` (missing values are a category)."""
    from anon_core.data.io import to_labels

    if isinstance(variables, str) or not variables:
        raise ConfigError(
            f"'variables' must be a non-empty list of key variables, got {variables!r}."
        )
    by_name = {str(c): c for c in frame.columns}
    unknown = [v for v in variables if v not in by_name]
    if unknown:
        raise ConfigError(f"'variables' names {unknown}, which are not columns of the table.")
    m = len(variables)
    if m > MAX_KEYS:
        raise ConfigError(
            f"SUDA2 searches every subset of the key variables; {m} variables is more than {MAX_KEYS}. "
            "Give fewer key variables."
        )
    size = m if max_size is None else check_int("max_size", max_size, 1, m)
    frac = check_float("dis_fraction", dis_fraction, 0.0, 1.0, min_inclusive=False)
    n = len(frame)
    codes, radices = [], []
    for v in variables:
        c, u = pd.factorize(to_labels(frame[by_name[v]]), sort=False)
        codes.append(c.astype(np.int64))
        radices.append(max(len(u), 1))
    big_m = max(m, 3)  # sdcMicro pads to three variables with constant columns
    weights = [float(math.factorial(big_m - k)) for k in range(1, size + 1)]
    score = np.zeros(n)
    msu = np.zeros((n, size), dtype=np.int64)
    contrib = np.zeros(m)
    unique: dict[tuple[int, ...], np.ndarray] = {
        (): np.zeros(n, dtype=bool) if n > 1 else np.ones(n, bool)
    }
    for k in range(1, size + 1):
        for subset in itertools.combinations(range(m), k):
            uq = _unique_on(codes, radices, subset)
            unique[subset] = uq
            # minimal: unique here, and not unique on any subset one variable smaller
            minimal = uq.copy()
            for drop in range(k):
                minimal &= ~unique[subset[:drop] + subset[drop + 1 :]]
            hits = int(minimal.sum())
            if hits:
                score[minimal] += weights[k - 1]
                msu[minimal, k - 1] += 1
                contrib[list(subset)] += hits * weights[k - 1]
        # subsets two sizes down are no longer needed
        for key in [s for s in unique if len(s) == k - 1]:
            del unique[key]
    full = _unique_on(codes, radices, tuple(range(m))) if n else np.zeros(0, bool)
    u_total = int(full.sum())
    from anon_core.data.frequency import group_rows

    if n:
        group, first = group_rows(codes, radices)
        sizes = np.bincount(group, minlength=len(first))
        pairs = 2 * int((sizes == 2).sum())
    else:
        pairs = 0
    f32 = np.float32
    fr = f32(frac)
    dis = (
        f32(f32(u_total) * fr) / (f32(f32(u_total) * fr) + f32(f32(pairs) * (f32(1.0) - fr)))
        if u_total
        else f32(0)
    )
    q = 1.0 + float((f32(8.0) - f32(big_m)) / f32(20.0))
    scored = score > 0
    adj = float((1.0 / np.power(score[scored], q)).sum())
    dis_score = np.zeros(n)
    if scored.any() and float(dis) > 0:
        d = float(dis)
        dis_score[scored] = 1.0 / (
            1.0 + (u_total / d - u_total) / (np.power(score[scored], q) * adj)
        )
    total = float(score.sum())
    contributions = tuple(
        (v, 100.0 * contrib[j] / total if total else 0.0) for j, v in enumerate(variables)
    )
    return SudaResult(
        variables=tuple(variables),
        max_size=size,
        dis_fraction=frac,
        sample_uniques=u_total,
        score=score,
        dis_score=dis_score,
        msu_counts=msu,
        contributions=contributions,
    )


def suda_rows(result: SudaResult) -> list[tuple[str, str]]:
    """(label, value) rows for a release report."""
    d = result.to_dict()
    top = ", ".join(
        f"{v} {c:.1f}%" for v, c in sorted(result.contributions, key=lambda x: -x[1])[:3]
    )
    return [
        ("SUDA2 key variables", ", ".join(result.variables)),
        ("Records with a minimal sample unique", f"{d['records_with_msu']:,}"),
        ("Highest SUDA score", f"{d['highest_score']:g}"),
        ("Highest DIS-SUDA score", f"{d['highest_dis_score']:.4f}"),
        ("Largest contributions", top or "none"),
    ]
