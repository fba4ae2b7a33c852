"""Individual re-identification risk with survey weights, as sdcMicro's ``measure_risk`` / ``indivRisk``.

For household and other surveys each record carries a sampling weight: how many
people of the population it stands for. For the key (class) of a record, with
f_k records in the sample and F_k = the sum of their weights (the estimated
population frequency), p_k = f_k / F_k and the individual risk is
(Benedetti and Franconi 1998; Franconi and Polettini 2004; sdcMicro's "approx")::

    f_k = 1:  p/(1-p) * log(1/p)
    f_k = 2:  p/(1-p) - (p/(1-p))^2 * log(1/p)
    f_k > 2:  p / (f_k - (1 - p))
    f_k = F_k (the class is the whole population): 1 / f_k

The expected number of re-identifications is the sum of the individual risks
over the records (sdcMicro's ``global_risk_ER``) and the global risk is that sum
divided by the number of records. Missing values count as a value of their own.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from anon_core.errors import ConfigError, DataError
from anon_core.validation import check_float

DEFAULT_RISK_THRESHOLDS = (0.01, 0.05, 0.1, 0.2)


@dataclass(frozen=True)
class WeightedRisk:
    """Weighted individual risk of a table (sdcMicro ``measure_risk`` with a weight variable)."""

    records: int
    weight_column: str
    estimated_population: float  # sum of the weights
    expected_reidentifications: float  # sum of the individual risks (global_risk_ER)
    global_risk: float  # expected re-identifications / records
    highest_risk: float
    records_above: tuple[tuple[float, int], ...]  # (threshold, records with risk > threshold)
    individual: np.ndarray = field(repr=False, compare=False)  # per record, input order
    sample_frequency: np.ndarray = field(repr=False, compare=False)  # f_k per record
    population_frequency: np.ndarray = field(repr=False, compare=False)  # F_k per record

    def to_dict(self) -> dict[str, Any]:
        return {
            "records": int(self.records),
            "weight_column": self.weight_column,
            "estimated_population": float(self.estimated_population),
            "expected_reidentifications": float(self.expected_reidentifications),
            "global_risk": float(self.global_risk),
            "highest_risk": float(self.highest_risk),
            "records_above": {str(float(t)): int(n) for t, n in self.records_above},
        }


def individual_risk(fk: Any, Fk: Any) -> np.ndarray:
    """sdcMicro's approximate individual risk for sample frequencies ``fk`` and population estimates ``Fk``."""
    f = np.asarray(fk, dtype=float)
    F = np.asarray(Fk, dtype=float)
    if f.shape != F.shape:
        raise DataError(f"'fk' and 'Fk' must have the same shape, got {f.shape} and {F.shape}.")
    if f.size and (np.any(f < 1) or np.any(F < f)):
        raise DataError(
            "Each class needs f_k >= 1 records and a weight sum F_k >= f_k (every record stands for at "
            "least itself): check that the weights are at least 1."
        )
    p = np.divide(f, F, out=np.ones_like(f), where=F > 0)
    out = np.empty_like(p)
    with np.errstate(divide="ignore", invalid="ignore"):
        odds = p / (1.0 - p)
        log_inv = np.log(1.0 / p)
        out = np.where(f == 1, odds * log_inv, out)
        out = np.where(f == 2, odds - odds**2 * log_inv, out)
        out = np.where(f > 2, p / (f - (1.0 - p)), out)
    exact = f == F
    out[exact] = 1.0 / f[exact]
    return out


def _weights(frame: pd.DataFrame, column: str) -> np.ndarray:
    if column not in [str(c) for c in frame.columns]:
        raise ConfigError(
            f"The weight column {column!r} is not a column of the table; columns are {[str(c) for c in frame.columns][:20]}."
        )
    by_name = {str(c): c for c in frame.columns}
    values = pd.to_numeric(frame[by_name[column]], errors="coerce").to_numpy(dtype=float)
    bad = ~np.isfinite(values) | (values < 1.0)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise DataError(
            f"Weight column {column!r} must hold numbers of at least 1 (people each record stands for); row "
            f"{row} holds {frame[by_name[column]].iloc[row]!r}."
        )
    return values


def weighted_risk(
    frame: pd.DataFrame,
    qis: Sequence[str],
    weight: str,
    thresholds: Sequence[float] = DEFAULT_RISK_THRESHOLDS,
) -> WeightedRisk:
    """Individual risk of every record of ``frame`` with the survey weights of column ``weight``.

    Records whose quasi-identifiers are all ``*`` (suppressed) are left out.
    """
    from anon_core.data.frequency import group_rows
    from anon_core.data.io import to_labels

    if isinstance(qis, str) or not qis:
        raise ConfigError(f"'qis' must be a non-empty list of column names, got {qis!r}.")
    if weight in qis:
        raise ConfigError(
            f"The weight column {weight!r} is also a quasi-identifier: a survey weight is not a key variable; "
            "give it role 'weight' only."
        )
    ts = tuple(check_float(f"thresholds[{i}]", t, 0.0, 1.0) for i, t in enumerate(thresholds))
    by_name = {str(c): c for c in frame.columns}
    unknown = [q for q in qis if q not in by_name]
    if unknown:
        raise ConfigError(f"'qis' names {unknown}, which are not columns of the table.")
    w = _weights(frame, weight)
    codes, radices, star = [], [], np.ones(len(frame), dtype=bool)
    for q in qis:
        labels = to_labels(frame[by_name[q]])
        star &= np.asarray(labels, dtype=object).astype(str) == "*"
        c, u = pd.factorize(labels, sort=False)
        codes.append(c.astype(np.int64))
        radices.append(len(u))
    keep = ~star
    codes = [c[keep] for c in codes]
    w = w[keep]
    n = int(keep.sum())
    if n == 0:
        empty = np.zeros(0)
        return WeightedRisk(
            0, weight, 0.0, 0.0, 0.0, 0.0, tuple((t, 0) for t in ts), empty, empty, empty
        )
    group, first = group_rows(codes, radices)
    fk = np.bincount(group, minlength=len(first)).astype(float)
    Fk = np.bincount(group, weights=w, minlength=len(first))
    risk = individual_risk(fk, Fk)[group]
    er = float(risk.sum())
    return WeightedRisk(
        records=n,
        weight_column=weight,
        estimated_population=float(w.sum()),
        expected_reidentifications=er,
        global_risk=er / n,
        highest_risk=float(risk.max()),
        records_above=tuple((t, int((risk > t).sum())) for t in ts),
        individual=risk,
        sample_frequency=fk[group],
        population_frequency=Fk[group],
    )


def weighted_rows(report: WeightedRisk) -> list[tuple[str, str]]:
    """(label, value) rows for a release report."""
    if report.records == 0:
        return [("Weighted risk", "no released records")]
    pct = ", ".join(f"> {t:g}: {n:,}" for t, n in report.records_above)
    return [
        ("Weight column", report.weight_column),
        ("Estimated population (sum of weights)", f"{report.estimated_population:,.0f}"),
        ("Expected re-identifications (sdcMicro)", f"{report.expected_reidentifications:.2f}"),
        ("Global risk", f"{report.global_risk:.4%}"),
        (
            "Highest individual risk",
            f"{report.highest_risk:.4f}" if math.isfinite(report.highest_risk) else "n/a",
        ),
        ("Records above risk thresholds", pct),
    ]
