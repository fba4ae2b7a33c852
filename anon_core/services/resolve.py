"""The one resolve path: a configuration (+ optional in-memory frame) -> problem -> transformation.

The CLI (``anonymize``, ``risk``, ``verify``), the report and every dashboard page ask this module
which transformation a configuration releases: the configured one, else the search's optimum, so
"use the configured transformation, else search" is written once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from anon_core.config import ReleaseConfig
from anon_core.privacy.models import MODELS
from anon_core.release.engines.base import Progress, no_progress
from anon_core.search.evaluate import TransformationResult
from anon_core.search.lattice import SearchResult
from anon_core.services.inputs import problem_for_release
from anon_core.transform.choose import choose
from anon_core.transform.problem import Problem, load_input


@dataclass(frozen=True)
class Resolution:
    """What a configuration releases: the problem, the transformation and how it was chosen.

    ``result`` is None when the search finds no transformation that satisfies the models within
    the suppression limit. ``config`` is the configuration the problem was built from (after the
    ``text`` and ``pseudonymize`` sections: pseudonymized identifiers become insensitive there).
    """

    problem: Problem
    config: ReleaseConfig
    result: TransformationResult | None
    search: SearchResult | None
    chosen_by: str
    mapping: pd.DataFrame | None = None
    #: Records held back as the attack-risk model's control set (never released), or 0.
    control_records: int = 0

    @property
    def satisfied(self) -> bool:
        return self.result is not None and self.result.satisfied

    def summary(self) -> dict[str, Any]:
        """The CLI's JSON summary: the search's when one ran, else the transformation's, with each
        model's status and ``satisfied`` always present."""
        if self.search is not None:
            out = self.search.summary()
        elif self.result is not None:
            out = self.result.summary()
        else:  # pragma: no cover - a configured transformation always evaluates
            out = {}
        out["satisfied"] = self.satisfied
        out["chosen_by"] = self.chosen_by
        if self.control_records:
            out["control_records"] = self.control_records
        if self.result is not None:
            out["models"] = [
                {
                    "model": s.model,
                    "satisfied": s.satisfied,
                    "violating_records": s.violating_records,
                }
                for s in self.result.models
            ]
        return out


def resolve(
    config: ReleaseConfig,
    frame: pd.DataFrame | None = None,
    *,
    engine: str | None = None,
    progress: Progress = no_progress,
    return_mapping: bool = False,
) -> Resolution:
    """Load (or take ``frame``), apply the text/pseudonymize sections, build the problem, choose.

    With ``frame`` the table is not read from ``input.path`` (the dashboard's upload, a test's
    table); the module sections still apply to it.
    """
    control = None
    if any(MODELS[m["model"]].needs_records for m in config.models):
        # The attack needs records that are never released: the configuration's seeded split
        # holds them back, and only the released part is anonymized and released.
        from anon_core.attacks.split import parse_attack_section, split_frame

        section = parse_attack_section(config.sections.get("attack"), config.base_dir)
        full = frame if frame is not None else load_input(config).frame
        frame, control = split_frame(full, section.control_fraction, section.random_state)
    problem, config, mapping = problem_for_release(
        config, return_mapping=return_mapping, engine=engine, progress=progress, frame=frame
    )
    if control is not None:
        for model in problem.evaluator.models:
            if model.needs_records:
                model.bind(control)
    result, found, chosen_by = choose(problem, config.transformation, config.search)
    return Resolution(
        problem, config, result, found, chosen_by, mapping, 0 if control is None else len(control)
    )
