"""Which transformation a problem releases: the configured one (evaluated, with its attacks when a
model attacks the release), else the optimum of the search."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np

from anon_core.search.evaluate import TransformationResult
from anon_core.search.lattice import SearchResult
from anon_core.transform.problem import Problem

#: How the released transformation was chosen (the report records it).
CHOSEN_BY = ("configured", "search", "explore", "manual")


def choose(
    problem: Problem,
    transformation: Mapping[str, int] | None,
    search_options: Mapping[str, Any] | None = None,
) -> tuple[TransformationResult | None, SearchResult | None, str]:
    """The configured transformation evaluated, else the optimum of the search (with its options).

    With an ``attack-risk`` model the configured transformation is evaluated with its attacks run
    (the plain evaluator cannot tell, and never reports it satisfied)."""
    if transformation is not None:
        if needs_control(problem):
            from anon_core.transform.attack_bounded import evaluate_with_attacks

            return (
                evaluate_with_attacks(problem.evaluator, dict(transformation)),
                None,
                "configured",
            )
        return problem.evaluate(dict(transformation)), None, "configured"
    found = problem.search(**dict(search_options or {}))
    return found.optimum, found, "search"


def needs_control(problem: Problem) -> bool:
    """Does a model of the problem attack the release (and so need never-released records)?"""
    return any(m.needs_records for m in problem.evaluator.models)


def without_suppression(result: TransformationResult) -> TransformationResult:
    """The same transformation with every class released: what a transformation that fails its
    models really exposes when the suppression it would need exceeds the limit. Its class figures
    are recomputed; ``satisfied`` stays False."""
    sizes = result.table.sizes
    return replace(
        result,
        satisfied=False,
        suppressed=np.zeros(len(sizes), dtype=bool),
        suppressed_records=0,
        equivalence_classes=len(sizes),
        min_class_size=int(sizes.min()) if len(sizes) else 0,
        max_class_size=int(sizes.max()) if len(sizes) else 0,
        average_class_size=float(sizes.mean()) if len(sizes) else 0.0,
    )
