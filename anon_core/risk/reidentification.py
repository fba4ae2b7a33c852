"""Re-identification risk of a table, original or released, as ARX computes it.

Everything here is a function of the *equivalence classes of the records that
are not suppressed*: the class sizes drive the sample-based risks (prosecutor,
journalist, marketer), the risk distribution, sample uniqueness and the
population-uniqueness estimators; the QI analysis groups the same records by
every small combination of quasi-identifiers.

Definitions follow ARX's ``org.deidentifier.arx.risk`` package
(``RiskModelHistogram``, ``RiskModelSampleSummary``, ``RiskModelSampleRiskDistribution``,
``RiskModelSampleUniqueness``, ``RiskModelPopulationUniqueness`` with ``ModelZayatz``,
``ModelPitman`` and ``ModelSNB``, ``RiskModelAttributes``):

* Suppressed records are left out entirely, so N, the classes and every share
  count only the records that are released with a value. A record whose QI
  values are *all* ``*`` counts as suppressed (ARX's ``isOutlier``), which is
  what a released file shows for a suppressed record.
* Prosecutor risk of a record is 1 / (size of its class). *Records at risk* for a
  threshold t are those with ``1/size > t`` (strict, as ARX).
* **Journalist risk** differs from prosecutor risk only when a population table
  (a superset of the sample) is known. This module has none, so the journalist
  figures equal the prosecutor figures exactly, as in ARX without a research
  subset. The marketer risk is the average risk, classes / records.
* Population uniqueness: Zayatz (1991), Pitman (Hoshino 2001), SNB (Chen 1998)
  and Dankar et al.'s decision rule, solved with ARX's Newton-Raphson settings.

Shares are fractions of the records counted (not suppressed).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from anon_core.errors import ConfigError, DataError
from anon_core.population.models import (
    ESTIMATORS,
    USA_POPULATION,
    PopulationUniqueness,
    SolverConfig,
    check_class_sizes,
    check_population_size,
    class_histogram,
    criterion_uniques,
    newton_2d,
    population_figures,
    population_uniqueness,
)
from anon_core.population.table import REGIONS, PopulationMatcher, class_population
from anon_core.risk.qi_analysis import QIScore, check_combination_limits, qi_analysis
from anon_core.validation import check_float

log = logging.getLogger(__name__)

#: Re-exported for the callers that read them from this module.
__all__ = [
    "DEFAULT_MAX_COMBINATIONS",
    "DEFAULT_MAX_COMBINATION_SIZE",
    "DEFAULT_THRESHOLDS",
    "ESTIMATORS",
    "JOURNALIST_WITHOUT_POPULATION",
    "REGIONS",
    "RISK_BINS",
    "SUPPRESSED_VALUE",
    "USA_POPULATION",
    "AttackerRisk",
    "PopulationUniqueness",
    "QIScore",
    "RiskBin",
    "RiskReport",
    "SolverConfig",
    "criterion_uniques",
    "journalist_risk",
    "newton_2d",
    "population_uniqueness",
    "report_dict",
    "risk_from_sizes",
    "risk_of_frame",
    "risk_of_original",
    "risk_of_result",
]

DEFAULT_THRESHOLDS = (0.05, 0.1, 0.2, 0.5)
DEFAULT_MAX_COMBINATION_SIZE = 3
DEFAULT_MAX_COMBINATIONS = 1000
#: The value ARX writes for a suppressed (or fully generalized) cell.
SUPPRESSED_VALUE = "*"
#: Upper bounds of ARX's risk-distribution intervals (low, high], ``RiskModelSampleRiskDistribution``.
RISK_BINS = (
    1e-8,
    1e-7,
    1e-6,
    1e-5,
    1e-4,
    1e-3,
    0.01,
    0.02,
    0.03,
    0.04,
    0.05,
    0.06,
    0.07,
    0.08,
    0.09,
    0.1,
    0.125,
    0.143,
    0.167,
    0.2,
    0.25,
    0.334,
    0.5,
    1.0,
)
#: What the report says when no population table is known.
JOURNALIST_WITHOUT_POPULATION = (
    "Journalist risk equals prosecutor risk: no population table was given, so each record's "
    "class in the population is taken to be its class in the sample (ARX without a research subset)."
)


# ------------------------------------------------------------------------ values
@dataclass(frozen=True)
class AttackerRisk:
    """Risk figures of one attacker model (shares are fractions of the records counted)."""

    highest_risk: float
    records_at_highest_risk: float
    average_risk: float
    records_at_risk: tuple[tuple[float, float], ...]  # (threshold, share with 1/size > threshold)


@dataclass(frozen=True)
class RiskBin:
    """One interval (low, high] of ARX's risk distribution."""

    low: float
    high: float
    records: float  # share of records whose risk 1/size falls in the interval
    cumulative: float  # share of records with risk <= high


@dataclass(frozen=True)
class RiskReport:
    """Re-identification risk of one table."""

    records: int  # records counted (not suppressed)
    suppressed_records: int  # records left out (suppressed, or every QI '*')
    equivalence_classes: int
    prosecutor: AttackerRisk
    journalist: AttackerRisk  # equal to prosecutor: no population table (see the module docstring)
    marketer_average_risk: float
    sample_uniques: int
    sample_uniques_share: float
    distribution: tuple[RiskBin, ...]
    population: PopulationUniqueness
    qi_analysis: tuple[QIScore, ...] = ()
    #: Why the journalist figures are what they are (population table, or equal to prosecutor).
    journalist_basis: str = JOURNALIST_WITHOUT_POPULATION

    @property
    def thresholds(self) -> tuple[float, ...]:
        return tuple(t for t, _ in self.prosecutor.records_at_risk)


# ---------------------------------------------------------------- validation
def _check_thresholds(thresholds: Sequence[float]) -> tuple[float, ...]:
    if isinstance(thresholds, str) or not isinstance(thresholds, Sequence):
        raise ConfigError(
            f"'thresholds' must be a list of risk thresholds between 0 and 1, e.g. [0.05, 0.1], got {thresholds!r}."
        )
    return tuple(check_float(f"thresholds[{i}]", t, 0.0, 1.0) for i, t in enumerate(thresholds))


def _attacker(
    sizes: np.ndarray, counts: np.ndarray, n: int, u: int, thresholds: tuple[float, ...]
) -> AttackerRisk:
    """Prosecutor figures of ``RiskModelSampleSummary`` (all 0 for an empty table)."""
    if n == 0:
        return AttackerRisk(0.0, 0.0, 0.0, tuple((t, 0.0) for t in thresholds))
    records = sizes * counts
    risk = 1.0 / sizes
    at_risk = tuple((t, int(records[risk > t].sum()) / n) for t in thresholds)  # strict '>' as ARX
    return AttackerRisk(
        highest_risk=1.0 / int(sizes[0]),
        records_at_highest_risk=int(records[0]) / n,
        # RiskModelSampleSummary: classes / records. (RiskModelSampleRisks.getAverageRisk
        # computes 1 / (records / classes), which can differ in the last bit.)
        average_risk=u / n,
        records_at_risk=at_risk,
    )


def _distribution(sizes: np.ndarray, counts: np.ndarray, n: int) -> tuple[RiskBin, ...]:
    """ARX's risk distribution: share of records per interval of 1/size, then cumulative."""
    bounds = np.asarray(RISK_BINS)
    share = np.zeros(len(bounds))
    if n:
        # Java's Arrays.binarySearch on the upper bounds is the exact-match index or the
        # insertion point, i.e. bisect_left; shares are added in ascending size order.
        idx = np.searchsorted(bounds, 1.0 / sizes, side="left")
        np.add.at(share, idx, (sizes * counts) / n)
    # cum[i] = min(1, cum[i-1] + share[i]); with non-negative shares that is min(1, cumsum).
    cumulative = np.minimum(np.cumsum(share), 1.0)
    lows = np.concatenate(([0.0], bounds[:-1]))
    return tuple(
        RiskBin(float(lo), float(hi), float(s), float(c))
        for lo, hi, s, c in zip(lows, bounds, share, cumulative, strict=True)
    )


def journalist_risk(
    sample_sizes: Sequence[int] | np.ndarray,
    population_sizes: Sequence[int] | np.ndarray,
    thresholds: Sequence[float] = DEFAULT_THRESHOLDS,
) -> AttackerRisk:
    """Journalist risk with population class sizes (ARX ``RiskModelSampleSummary.getJournalistRisk``).

    Each record's risk is 1 / (people of the population in its class). Highest
    risk: 1 / smallest population class; records at risk: share of sample records
    with 1/population size > t; average: max(classes / sum of population sizes,
    mean over records of 1/population size), as ARX.
    """
    f = check_class_sizes(sample_sizes)
    pop = np.asarray(population_sizes, dtype=np.int64)
    ts = _check_thresholds(thresholds)
    if pop.shape != f.shape:
        raise DataError(
            f"'population_sizes' must give one size per class ({f.size}), got {pop.shape}."
        )
    if f.size and (pop < f).any():
        raise DataError(
            "A population class holds fewer people than the sample class: the population must contain "
            "every sample record."
        )
    n = int(f.sum())
    if n == 0:
        return AttackerRisk(0.0, 0.0, 0.0, tuple((t, 0.0) for t in ts))
    risk = 1.0 / pop
    smallest = int(pop.min())
    return AttackerRisk(
        highest_risk=1.0 / smallest,
        records_at_highest_risk=int(f[pop == smallest].sum()) / n,
        average_risk=max(f.size / float(pop.sum()), float((f / pop).sum()) / n),
        records_at_risk=tuple((t, int(f[risk > t].sum()) / n) for t in ts),
    )


# ----------------------------------------------------------------- reports
def _report(
    sizes: np.ndarray,
    thresholds: Sequence[float],
    population_size: int,
    solver: SolverConfig | None,
    suppressed_records: int = 0,
    qi: tuple[QIScore, ...] = (),
    population_sizes: np.ndarray | None = None,
) -> RiskReport:
    ts = _check_thresholds(thresholds)
    s, c = class_histogram(sizes)
    n = int((s * c).sum())
    u = int(c.sum())
    p = check_population_size(population_size, n)
    prosecutor = _attacker(s, c, n, u, ts)
    uniques = int(c[0]) if s.size and s[0] == 1 else 0
    journalist, basis = prosecutor, JOURNALIST_WITHOUT_POPULATION
    if population_sizes is not None:
        journalist = journalist_risk(sizes, population_sizes, ts)
        basis = (
            "Journalist risk from the population table: each record's risk is 1 / (people of the "
            f"population in its class); {int(np.sum(population_sizes)):,} people in the released classes."
        )
    return RiskReport(
        journalist_basis=basis,
        records=n,
        suppressed_records=int(suppressed_records),
        equivalence_classes=u,
        prosecutor=prosecutor,
        journalist=journalist,
        marketer_average_risk=u / n if n else 0.0,
        sample_uniques=uniques,
        sample_uniques_share=uniques / n if n else 0.0,
        distribution=_distribution(s, c, n),
        population=population_figures(s, c, n, u, p, solver or SolverConfig()),
        qi_analysis=qi,
    )


def risk_from_sizes(
    sizes: Sequence[int] | np.ndarray,
    thresholds: Sequence[float] = DEFAULT_THRESHOLDS,
    population_size: int = USA_POPULATION,
    solver: SolverConfig | None = None,
) -> RiskReport:
    """Risk report from the sizes of the equivalence classes of the records that are not suppressed.

    No QI analysis (that needs the values). ``population_size`` must be at least
    the number of records; the sampling fraction is records / population.
    """
    return _report(check_class_sizes(sizes), thresholds, population_size, solver)


def _star_codes(labels: Sequence[np.ndarray]) -> list[np.ndarray]:
    return [np.asarray(lab, dtype=object).astype(str) == SUPPRESSED_VALUE for lab in labels]


def risk_of_result(
    result: Any,
    thresholds: Sequence[float] = DEFAULT_THRESHOLDS,
    population_size: int = USA_POPULATION,
    max_combination_size: int = DEFAULT_MAX_COMBINATION_SIZE,
    max_combinations: int = DEFAULT_MAX_COMBINATIONS,
    solver: SolverConfig | None = None,
    population: PopulationMatcher | None = None,
) -> RiskReport:
    """Risk of the table a :class:`~anon_core.search.evaluate.TransformationResult` releases.

    With ``population`` (a bound population table) the journalist figures use
    the people of the population in each released class.

    The released classes are those not suppressed (``result.table.sizes[~result.suppressed]``),
    less any class whose QI values are all '*' (as ARX treats them). The QI
    analysis groups the released classes by their generalized values.
    """
    limits = check_combination_limits(max_combination_size, max_combinations)
    table = result.table
    dataset = table.freq.dataset
    qis = list(table.freq.qis)
    encs = [dataset.hierarchy(q) for q in qis]
    star_maps = _star_codes([e.labels[lv] for e, lv in zip(encs, table.levels, strict=True)])
    codes = table.codes
    star = (
        np.column_stack([m[codes[:, j]] for j, m in enumerate(star_maps)])
        if qis
        else np.zeros((len(codes), 0), bool)
    )
    keep = ~np.asarray(result.suppressed, dtype=bool) & ~star.all(axis=1)
    sizes = table.sizes[keep]
    qi: tuple[QIScore, ...] = ()
    if limits[0] > 0:
        radices = [e.cardinality(lv) for e, lv in zip(encs, table.levels, strict=True)]
        qi = qi_analysis(codes[keep], radices, sizes, qis, star[keep], *limits)
    suppressed = int(table.sizes.sum() - sizes.sum())
    pop = None if population is None else class_population(population, table)[keep]
    return _report(sizes, thresholds, population_size, solver, suppressed, qi, pop)


def risk_of_original(
    problem: Any,
    thresholds: Sequence[float] = DEFAULT_THRESHOLDS,
    population_size: int = USA_POPULATION,
    max_combination_size: int = DEFAULT_MAX_COMBINATION_SIZE,
    max_combinations: int = DEFAULT_MAX_COMBINATIONS,
    solver: SolverConfig | None = None,
    population: PopulationMatcher | None = None,
) -> RiskReport:
    """Risk of a :class:`~anon_core.config.Problem`'s input table (every record counted, as ARX's input handle).

    Read from the frequency table: its distinct QI tuples are the classes.
    """
    limits = check_combination_limits(max_combination_size, max_combinations)
    freq = problem.freq
    qi: tuple[QIScore, ...] = ()
    if limits[0] > 0:
        radices = [freq.dataset.columns[q].cardinality for q in freq.qis]
        qi = qi_analysis(freq.tuples, radices, freq.counts, list(freq.qis), None, *limits)
    counts = np.asarray(freq.counts, dtype=np.int64)
    pop = None
    if population is not None:
        pop = np.maximum(population.counts(freq.tuples, [0] * len(freq.qis)), counts)
    return _report(counts, thresholds, population_size, solver, 0, qi, pop)


def risk_of_frame(
    frame: pd.DataFrame,
    qis: Sequence[str],
    thresholds: Sequence[float] = DEFAULT_THRESHOLDS,
    population_size: int = USA_POPULATION,
    max_combination_size: int = DEFAULT_MAX_COMBINATION_SIZE,
    max_combinations: int = DEFAULT_MAX_COMBINATIONS,
    solver: SolverConfig | None = None,
) -> RiskReport:
    """Risk of any table (e.g. a released file), grouping records by their QI values as text.

    Records whose QI values are all '*' count as suppressed and are left out,
    as ARX does for its output.
    """
    from anon_core.data.frequency import group_rows
    from anon_core.data.io import to_labels

    if not isinstance(frame, pd.DataFrame):
        raise DataError(f"'frame' must be a pandas DataFrame, got {type(frame).__name__}.")
    if isinstance(qis, str) or not isinstance(qis, Sequence) or not qis:
        raise ConfigError(f"'qis' must be a non-empty list of column names, got {qis!r}.")
    columns = [str(c) for c in frame.columns]
    unknown = [q for q in qis if q not in columns]
    if unknown:
        raise ConfigError(
            f"'qis' names {unknown}, which are not columns of the table. Columns are: {columns}."
        )
    if len(set(qis)) != len(qis):
        raise ConfigError(f"'qis' lists a column more than once: {list(qis)}.")
    limits = check_combination_limits(max_combination_size, max_combinations)
    names = list(qis)
    by_name = {str(c): c for c in frame.columns}
    codes, radices, stars = [], [], []
    for q in names:
        labels = to_labels(frame[by_name[q]])
        col, uniq = pd.factorize(labels, sort=False)
        codes.append(col.astype(np.int64))
        radices.append(len(uniq))
        stars.append(np.asarray(uniq, dtype=object).astype(str) == SUPPRESSED_VALUE)
    if len(frame) == 0:
        return _report(np.zeros(0, np.int64), thresholds, population_size, solver)
    row_tuple, first = group_rows(codes, radices)
    counts = np.bincount(row_tuple, minlength=len(first)).astype(np.int64)
    tuples = np.column_stack([c[first] for c in codes])
    star = np.column_stack([m[tuples[:, j]] for j, m in enumerate(stars)])
    keep = ~star.all(axis=1)
    qi: tuple[QIScore, ...] = ()
    if limits[0] > 0:
        qi = qi_analysis(tuples[keep], radices, counts[keep], names, star[keep], *limits)
    sizes = counts[keep]
    return _report(sizes, thresholds, population_size, solver, int(counts[~keep].sum()), qi)


# ------------------------------------------------------------------- JSON
def _num(x: float) -> float | None:
    x = float(x)
    return None if math.isnan(x) or math.isinf(x) else x


def _attacker_dict(r: AttackerRisk) -> dict[str, Any]:
    return {
        "highest_risk": _num(r.highest_risk),
        "records_at_highest_risk": _num(r.records_at_highest_risk),
        "average_risk": _num(r.average_risk),
        "records_at_risk": {str(float(t)): _num(v) for t, v in r.records_at_risk},
    }


def report_dict(report: RiskReport) -> dict[str, Any]:
    """The report as a JSON-ready dict (NaN becomes None). Shares are fractions of the records counted."""
    pop = report.population
    return {
        "records": report.records,
        "equivalence_classes": report.equivalence_classes,
        "sample_uniques": report.sample_uniques,
        "prosecutor": _attacker_dict(report.prosecutor),
        "journalist": _attacker_dict(report.journalist),
        "journalist_basis": report.journalist_basis,
        "marketer": {"average_risk": _num(report.marketer_average_risk)},
        "population_uniqueness": {
            "zayatz": _num(pop.zayatz),
            "pitman": _num(pop.pitman),
            "snb": _num(pop.snb),
            "dankar": _num(pop.dankar),
        },
        "distribution": [
            {
                "low": b.low,
                "high": b.high,
                "records": _num(b.records),
                "cumulative": _num(b.cumulative),
            }
            for b in report.distribution
        ],
        "qi_analysis": [
            {
                "attributes": list(s.attributes),
                "distinction": _num(s.distinction),
                "separation": _num(s.separation),
            }
            for s in report.qi_analysis
        ],
    }
