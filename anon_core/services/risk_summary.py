"""Re-identification risk of a configuration's release, of its original table or of a released
file, as the JSON ``anon-core risk`` prints: ARX's prosecutor / journalist / marketer figures,
the QI analysis, and the extra figures (population uniqueness, survey weights, SUDA2, attribute
disclosure) where the configuration allows them.

The command only parses its arguments and prints; this module does the work, through the
session's one resolve path.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from anon_core.config import ReleaseConfig
from anon_core.data.dataset import Role
from anon_core.data.io import load_table
from anon_core.errors import AnonError
from anon_core.release.engines.base import Progress, no_progress
from anon_core.risk.population_report import (
    extra_dict,
    extra_figures,
    original_extras,
    population_matcher,
    population_size,
    release_extras,
    weight_column,
)
from anon_core.risk.reidentification import (
    report_dict,
    risk_of_frame,
    risk_of_original,
    risk_of_result,
)
from anon_core.services.inputs import problem_for_release
from anon_core.services.resolve import resolve
from anon_core.transform.choose import without_suppression

#: The population assumed when neither the command nor the configuration gives one (USA).
DEFAULT_POPULATION = 317_238_626


class NoReleaseToAssess(AnonError):
    """The configuration releases nothing that may be assessed (no satisfying transformation, or
    one that does not satisfy the models without ``force``)."""


def risk_summary(
    config: ReleaseConfig,
    *,
    released: str | Path | None = None,
    original: bool = False,
    force: bool = False,
    engine: str | None = None,
    population: int | None = None,
    max_combination_size: int = 3,
    progress: Progress = no_progress,
) -> dict[str, Any]:
    """The risk figures as JSON-ready data: of the ``released`` file (QIs from the
    configuration), of the ``original`` table, else of the configuration's release.

    Raises :class:`NoReleaseToAssess` when there is no release to assess."""
    options = {
        "population_size": population or population_size(config, DEFAULT_POPULATION),
        "max_combination_size": max_combination_size,
    }
    if released is not None:
        qis = [name for name, role in config.roles.items() if role == Role.QUASI_IDENTIFIER]
        frame = load_table(released).frame
        out = report_dict(risk_of_frame(frame, qis, **options))
        out.update(extra_dict(*extra_figures(frame, qis, weight_column(config.roles))))
        return out
    if original:
        problem, _, _ = problem_for_release(config, engine=engine, progress=progress)
        matcher = population_matcher(config, problem)  # population table: journalist risk
        out = report_dict(risk_of_original(problem, population=matcher, **options))
        out.update(original_extras(config, problem))
        return out
    resolution = resolve(config, engine=engine, progress=progress)
    result = resolution.result
    if result is None:
        raise NoReleaseToAssess(
            "no transformation satisfies the privacy models within the suppression limit, so "
            "there is no release to assess. Use --original, or relax the models."
        )
    if not result.satisfied and not force:
        raise NoReleaseToAssess(
            "the configured transformation does not satisfy the privacy models within the "
            "suppression limit, so 'anonymize' would refuse to release it and its risk would "
            "describe a table that is never released. Use --force to assess it anyway (the "
            'figures are then those of the table without any suppression and say "satisfied": '
            "false)."
        )
    chosen = result if result.satisfied else without_suppression(result)
    matcher = population_matcher(config, resolution.problem)
    out = report_dict(risk_of_result(chosen, population=matcher, **options))
    out.update(release_extras(config, resolution.problem, chosen))
    out["satisfied"] = result.satisfied
    out["chosen_by"] = resolution.chosen_by
    return out
