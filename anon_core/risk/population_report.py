"""The population figures of a configuration, in one place for the CLI, the Risk page and the report.

* the configuration's ``population`` section (a table of the population and/or its size),
  bound to the problem's hierarchies, for journalist risk;
* with a column of role ``weight``: sdcMicro's weighted individual risk;
* SUDA2 special uniques on the quasi-identifiers.

Each figure comes with a one-line explanation.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from anon_core.data.dataset import Role
from anon_core.population.table import (
    PopulationMatcher,
    PopulationSource,
    bind_population,
    population_section,
)
from anon_core.risk.reidentification import JOURNALIST_WITHOUT_POPULATION, RiskReport
from anon_core.risk.suda import MAX_KEYS, SudaResult, suda2, suda_rows
from anon_core.risk.weighted_risk import WeightedRisk, weighted_risk, weighted_rows

EXPLAIN = {
    "journalist": "Journalist risk: an attacker who does not know whether a person is in the release "
    "matches them against the population.",
    "weighted": "Weighted risk (sdcMicro): each record's survey weight estimates how many people share its "
    "key in the population; the sum of individual risks is the expected number of re-identifications.",
    "suda": "SUDA2: records unique on a small set of key variables (minimal sample uniques) are special "
    "uniques; the DIS score turns the SUDA score into a probability of a correct match.",
}


def config_population(config: Any) -> PopulationSource | None:
    """The configuration's ``population`` section, paths resolved (None when absent)."""
    return population_section(config.raw, config.base_dir)


def population_matcher(config: Any, problem: Any) -> PopulationMatcher | None:
    """The population table of the configuration bound to the problem (None without a table)."""
    source = config_population(config)
    if source is None or source.table is None:
        return None
    return bind_population(source, problem.dataset)


def population_size(config: Any, default: int) -> int:
    """The population size the estimators use: the section's size, else the table's, else ``default``."""
    source = config_population(config)
    if source is None:
        return default
    if source.size is not None:
        return int(source.size)
    return default


def weight_column(roles: dict[str, Any]) -> str | None:
    """The column of role ``weight`` (None when there is none)."""
    weights = [c for c, r in roles.items() if Role(r) == Role.WEIGHT]
    return weights[0] if weights else None


def released_frame(problem: Any, result: Any) -> pd.DataFrame:
    """The released rows in input order with suppressed records masked (``*``), for record-level figures."""
    from anon_core.release.apply import apply_transformation

    return apply_transformation(problem.dataset, result, "mask")


def extra_figures(
    frame: pd.DataFrame,
    qis: list[str],
    weight: str | None,
    weights_from: pd.DataFrame | None = None,
) -> tuple[WeightedRisk | None, SudaResult | None]:
    """Weighted risk (when a weight column is known) and SUDA2 of a table's quasi-identifiers.

    ``weights_from`` supplies the weight column when ``frame`` (a release) does not hold it; rows align.
    """
    weighted = None
    if weight is not None:
        source = frame if weight in frame.columns else weights_from
        if source is not None and weight in source.columns:
            table = frame[qis].copy()
            table[weight] = np.asarray(source[weight])
            weighted = weighted_risk(table, qis, weight)
    suda = None
    if 0 < len(qis) <= MAX_KEYS:
        star = np.ones(len(frame), dtype=bool)
        for q in qis:
            star &= frame[q].astype(str).to_numpy() == "*"
        suda = suda2(frame.loc[~star, qis].reset_index(drop=True), qis)
    return weighted, suda


def extra_dict(weighted: WeightedRisk | None, suda: SudaResult | None) -> dict[str, Any]:
    """The JSON the CLI adds to ``anon-core risk``."""
    out: dict[str, Any] = {}
    out["weighted_risk"] = (
        {**weighted.to_dict(), "explanation": EXPLAIN["weighted"]}
        if weighted is not None
        else {"explanation": "No column has role 'weight': weighted (survey) risk is not computed."}
    )
    if suda is not None:
        out["suda2"] = {**suda.to_dict(), "explanation": EXPLAIN["suda"]}
    return out


def report_rows(
    report: RiskReport, weighted: WeightedRisk | None = None, suda: SudaResult | None = None
) -> list[tuple[str, str]]:
    """(label, value) rows of the population figures for the release report."""
    j = report.journalist
    rows = [
        ("Journalist highest risk", f"{j.highest_risk:.4f}"),
        ("Journalist average risk", f"{j.average_risk:.4f}"),
        (
            "Journalist basis",
            "equal to prosecutor (no population table)"
            if report.journalist_basis == JOURNALIST_WITHOUT_POPULATION
            else "population table",
        ),
    ]
    if weighted is not None:
        rows += weighted_rows(weighted)
    if suda is not None:
        rows += suda_rows(suda)
    return rows


#: What a scale engine's grouped table (distinct rows with counts, no records) cannot give.
GROUPED_EXTRAS = {
    "weighted_risk": {"explanation": "Not computed: the table was grouped by a scale engine."},
    "suda2": {"explanation": "Not computed: the table was grouped by a scale engine."},
}


def original_extras(config: Any, problem: Any) -> dict[str, Any]:
    """Weighted risk and SUDA2 of the input table (not available for an engine's grouped table)."""
    if problem.dataset.grouped:
        return GROUPED_EXTRAS
    frame = problem.dataset.frame
    return extra_dict(*extra_figures(frame, list(problem.dataset.qis), weight_column(config.roles)))


def release_extras(config: Any, problem: Any, result: Any) -> dict[str, Any]:
    """Weighted risk and SUDA2 of the released rows of ``result`` (suppressed records left out)."""
    if problem.dataset.grouped:
        return GROUPED_EXTRAS
    released = released_frame(problem, result)
    weight = weight_column(config.roles)
    return extra_dict(
        *extra_figures(released, list(problem.dataset.qis), weight, problem.dataset.frame)
    )
