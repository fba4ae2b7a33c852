"""Full-domain generalization with suppression: the configuration's fixed transformation or the
optimum of the lattice search (Problem -> evaluate/search -> apply), as the ``anonymize`` command.

The privacy models, hierarchies, suppression limit and quality metric come from the release
configuration; ``k`` and ``suppression_limit`` override them (and make the method usable without a
configuration: k-anonymity with default hierarchies).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from anon_core.config import ReleaseConfig
from anon_core.data.dataset import Role
from anon_core.errors import ConfigError
from anon_core.methods.registry import (
    MethodContext,
    MethodOutput,
    Progress,
    ReleaseMethod,
    register_method,
    report,
)
from anon_core.params import Param
from anon_core.transform.choose import choose
from anon_core.transform.problem import Problem


def problem_for(
    frame: pd.DataFrame,
    context: MethodContext,
    k: int | None = None,
    suppression_limit: float | None = None,
) -> tuple[Problem, ReleaseConfig | None]:
    """The Problem of ``frame``: the configuration's (restricted to the frame's columns, with ``k``
    and the suppression limit overridden when given), else k-anonymity with default hierarchies."""
    columns = [str(c) for c in frame.columns]
    roles = {c: context.role(c) for c in columns}
    if not any(r == Role.QUASI_IDENTIFIER for r in roles.values()):
        raise ConfigError(
            "No quasi-identifier among the columns: mark at least one 'quasi-identifier' to generalize."
        )
    config = context.config
    models: list[dict[str, Any]]
    if config is None:
        if k is None:
            raise ConfigError(
                "Without a release configuration the method needs 'k' (k-anonymity), e.g. k: 5."
            )
        models = []
        base = {"hierarchy_specs": {}, "transformation": None}
    else:
        models = [dict(m) for m in config.models]
        base = {
            "hierarchy_specs": {c: s for c, s in config.hierarchy_specs.items() if c in columns},
            "transformation": config.transformation,
        }
    if k is not None:
        models = [m for m in models if m.get("model") != "k-anonymity"]
        models.insert(0, {"model": "k-anonymity", "k": int(k)})
    limit = (
        suppression_limit
        if suppression_limit is not None
        else (config.suppression_limit if config is not None else 0.0)
    )
    if config is None:
        config = ReleaseConfig(
            raw={},
            base_dir=Path("."),
            input_path=None,
            separator=None,
            encoding=None,
            sheet=None,
            roles=roles,
            hierarchy_specs={},
            models=tuple(models),
            suppression_limit=float(limit),
            quality_metric=None,
            transformation=None,
        )
    else:
        config = dataclasses.replace(
            config,
            roles=roles,
            models=tuple(models),
            suppression_limit=float(limit),
            **base,
        )
    return Problem.from_config(config, frame), config


@register_method
class Generalization(ReleaseMethod):
    name = "generalization"
    label = "Generalization + suppression (optimal search)"
    params = (
        Param(
            "k",
            "int",
            None,
            help="k-anonymity to enforce (default: the configuration's models)",
            minimum=2,
        ),
        Param(
            "suppression_limit",
            "float",
            None,
            help="share of records that may be suppressed (default: the configuration's)",
            minimum=0.0,
            maximum=1.0,
        ),
        Param(
            "transformation",
            "mapping",
            None,
            help="fixed hierarchy level per quasi-identifier (default: configured, else the search's optimum)",
        ),
    )
    accepts = frozenset({"numeric", "categorical", "date"})
    randomized = False
    guarantee = "the configuration's privacy models (e.g. k-anonymity)"
    guarantee_from_models = True
    protects = "Re-identification through the quasi-identifiers: the configured models hold on the release."
    does_not_protect = "Attributes not marked quasi-identifier; inference when classes are homogeneous (unless l/t models)."

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        for key, value in (self.parameters["transformation"] or {}).items():
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ConfigError(
                    f"'transformation.{key}' must be a whole-number level >= 0, got {value!r}."
                )

    def release(
        self,
        frame: pd.DataFrame,
        context: MethodContext,
        *,
        random_state: int | None = None,
        progress: Progress | None = None,
    ) -> MethodOutput:
        report(progress, 0.0, "building the frequency table")
        problem, config = problem_for(
            frame, context, self.parameters["k"], self.parameters["suppression_limit"]
        )
        fixed = self.parameters["transformation"] or config.transformation
        report(progress, 0.2, "evaluating" if fixed else "searching the lattice")
        if fixed:
            unknown = sorted(set(fixed) - set(problem.dataset.qis))
            if unknown:
                raise ConfigError(
                    f"'transformation' names {unknown}, which are not quasi-identifiers "
                    f"({problem.dataset.qis})."
                )
        result, _, chosen_by = choose(problem, dict(fixed) if fixed else None, config.search)
        if result is None or not result.satisfied:
            raise ConfigError(
                "No transformation satisfies the privacy models within the suppression limit "
                f"({config.suppression_limit}); relax the models or raise 'suppression_limit'."
            )
        table = problem.apply(result, config.suppressed_records)
        report(progress, 1.0, "applied")
        guarantee = ", ".join(repr(m) for m in problem.evaluator.models) or "none"
        return MethodOutput(
            table,
            guarantee,
            {
                "transformation": dict(result.transformation),
                "chosen_by": chosen_by,
                "suppressed_records": int(result.suppressed_records),
            },
        )

    def rehearse(
        self,
        part: pd.DataFrame,
        context: MethodContext,
        details: Mapping[str, Any],
        *,
        random_state: int | None = None,
    ) -> pd.DataFrame:
        """The whole release's transformation applied to the part, even where the part's classes
        would not satisfy the models: the attacks measure what that transformation does."""
        problem, config = problem_for(part, context)
        levels = dict(details.get("transformation") or {})
        result, _, _ = choose(problem, levels or None, config.search)
        if result is None:
            raise ConfigError("The rehearsal found no transformation to apply.")
        return problem.apply(result, config.suppressed_records)
