"""Generalization as the dashboard tunes it: the frequency table of the workspace's dataset, the
evaluator's optimal search and the trade-off of every evaluated node (the dashboard caches each
under the workspace's fingerprints). The release itself goes through
:class:`~anon_core.services.session.Session`, as for every other method."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pandas as pd

from anon_core.data.dataset import Dataset
from anon_core.data.frequency import FrequencyTable
from anon_core.search.evaluate import Evaluator, TransformationResult
from anon_core.search.lattice import SearchResult, score_tradeoff, search
from anon_core.transform.problem import Problem

__all__ = [
    "Evaluator",
    "FrequencyTable",
    "Problem",
    "SearchResult",
    "TransformationResult",
    "frequency_table",
    "optimal_search",
    "problem_of",
    "tradeoff_rows",
]


def frequency_table(dataset: Dataset) -> FrequencyTable:
    """The distinct quasi-identifier tuples of ``dataset`` with their counts (reads every row)."""
    return FrequencyTable(dataset)


def optimal_search(
    evaluator: Evaluator,
    options: Mapping[str, Any],
    progress: Callable[[float], None] | None = None,
) -> SearchResult:
    """The optimal transformation under the evaluator's models, with the configuration's
    ``search`` options (level bounds, exact limit, heuristic budget)."""
    given = dict(options)
    if progress is not None:
        given["progress"] = progress
    return search(evaluator, **given)


def problem_of(evaluator: Evaluator) -> Problem:
    """The problem over an evaluator (its dataset, frequency table, models and metric)."""
    return Problem.from_evaluator(evaluator)


def tradeoff_rows(evaluator: Evaluator, found: SearchResult) -> pd.DataFrame:
    """One row per evaluated transformation, with its quality computed (the Explore chart)."""
    return pd.DataFrame(score_tradeoff(evaluator, found))
