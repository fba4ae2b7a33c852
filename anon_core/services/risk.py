"""The Risk page's figures of the original or the released table: re-identification risk under the
three attacker models (with a population table when given), survey-weighted risk, SUDA2 special
uniques and attribute disclosure. Each function takes the problem and the transformation result
the dashboard already holds, and returns the engine's result values."""

from __future__ import annotations

from typing import Any

import pandas as pd

from anon_core.data.io import load_table
from anon_core.population.table import PopulationMatcher, PopulationTable
from anon_core.risk.disclosure import AttributeDisclosure, attribute_disclosure
from anon_core.risk.population_report import EXPLAIN, released_frame, weight_column
from anon_core.risk.reidentification import (
    USA_POPULATION,
    RiskReport,
    report_dict,
    risk_of_original,
    risk_of_result,
)
from anon_core.risk.suda import MAX_KEYS, SudaResult, suda2
from anon_core.risk.weighted_risk import WeightedRisk, weighted_risk

__all__ = [
    "EXPLAIN",
    "MAX_KEYS",
    "TABLES",
    "USA_POPULATION",
    "attribute_disclosures",
    "population_matcher",
    "reidentification",
    "released_risk_dict",
    "suda_scores",
    "table_of",
    "weight_column",
    "weighted_figures",
]

#: The tables the Risk page measures.
TABLES = ("released", "original")


def _check(which: str) -> None:
    if which not in TABLES:
        raise ValueError(f"which must be one of {TABLES}, got {which!r}")


def table_of(which: str, problem: Any, result: Any) -> pd.DataFrame:
    """The original table, or the released one (the result applied, suppressed rows as ``*``)."""
    _check(which)
    return problem.dataset.frame if which == "original" else released_frame(problem, result)


def population_matcher(
    content: bytes, name: str, qis: list[str], problem: Any
) -> PopulationMatcher:
    """The population table of an uploaded file (its quasi-identifier columns), matched to the
    problem's dataset for journalist risk."""
    frame = load_table(content, name=name).frame
    return PopulationMatcher(PopulationTable.from_frame(frame, qis, name=name), problem.dataset)


def reidentification(
    which: str,
    problem: Any,
    result: Any,
    population_size: int,
    matcher: PopulationMatcher | None = None,
) -> tuple[RiskReport, dict[str, Any]]:
    """Re-identification risk of the original or released table, and its figures as a mapping
    (prosecutor, journalist, marketer, population uniqueness, distribution)."""
    _check(which)
    report = (
        risk_of_original(problem, population_size=population_size, population=matcher)
        if which == "original"
        else risk_of_result(result, population_size=population_size, population=matcher)
    )
    return report, report_dict(report)


def released_risk_dict(result: Any) -> dict[str, Any]:
    """The released table's re-identification figures without the quasi-identifier analysis
    (cheap enough for every redraw of the Privacy page)."""
    return report_dict(risk_of_result(result, max_combination_size=0))


def weighted_figures(
    which: str, problem: Any, result: Any, roles: dict[str, str], qis: list[str]
) -> WeightedRisk | None:
    """sdcMicro's individual risk with the survey weights of the column of role ``weight``
    (None without such a column)."""
    weight = weight_column(roles)
    if weight is None:
        return None
    frame = table_of(which, problem, result)[qis].copy()
    frame[weight] = problem.dataset.frame[weight].to_numpy()
    return weighted_risk(frame, qis, weight)


def suda_scores(which: str, problem: Any, result: Any, qis: list[str]) -> SudaResult:
    """SUDA2 scores of the table's records (records suppressed to ``*`` on every QI left out)."""
    frame = table_of(which, problem, result)
    star = (frame[qis].astype(str) == "*").all(axis=1)
    rows = frame.loc[~star, qis].reset_index(drop=True)
    return suda2(rows, qis)


def attribute_disclosures(result: Any) -> dict[str, AttributeDisclosure]:
    """Per sensitive attribute: the l and t each released class reaches, homogeneous classes."""
    return attribute_disclosure(result)
