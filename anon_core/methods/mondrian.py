"""Mondrian multidimensional local recoding as a release method (wraps
:func:`anon_core.transform.mondrian.mondrian`; LeFevre, DeWitt and Ramakrishnan, ICDE 2006)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from anon_core.methods.generalization import problem_for
from anon_core.methods.registry import (
    MethodContext,
    MethodOutput,
    Progress,
    ReleaseMethod,
    register_method,
    report,
)
from anon_core.params import Param
from anon_core.transform.mondrian import mondrian


@register_method
class MondrianMethod(ReleaseMethod):
    name = "mondrian"
    label = "Mondrian (multidimensional local recoding)"
    params = (
        Param(
            "k",
            "int",
            None,
            help="k-anonymity to enforce (default: the configuration's models)",
            minimum=2,
        ),
        Param(
            "numeric",
            "columns",
            None,
            help="quasi-identifiers cut at the median into ranges (default: those holding numbers)",
        ),
    )
    accepts = frozenset({"numeric", "categorical", "date"})
    randomized = False
    guarantee = "the configuration's class-based privacy models (e.g. k-anonymity)"
    protects = (
        "Re-identification through the quasi-identifiers: every partition satisfies the models."
    )
    does_not_protect = (
        "Attributes not marked quasi-identifier; inference when partitions are homogeneous."
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
        problem, _ = problem_for(frame, context, self.parameters["k"])
        report(progress, 0.2, "partitioning")
        result = mondrian(problem, numeric=self.parameters["numeric"])
        report(progress, 1.0, f"{result.n_partitions} partitions")
        details: dict[str, Any] = {
            "partitions": result.n_partitions,
            "min_partition_size": result.min_partition_size,
            "numeric": list(result.numeric),
        }
        return MethodOutput(result.released, ", ".join(result.models) or "none", details)
