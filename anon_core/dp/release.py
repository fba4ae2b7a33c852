"""The ``dp`` configuration section: validation, a section from results, and a headless run.

See :mod:`anon_core.dp` for the section's fields. :func:`run_dp` runs a validated section on a
table (what ``anon-core dp`` does) and returns a :class:`DPRunResult` whose ``to_dict()`` holds
the noisy results and the budget spent, never the true number of rows.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from anon_core.dp.budget import PrivacyBudget
from anon_core.dp.library import BUDGET_TOLERANCE
from anon_core.dp.queries import DPQuery, parse_query
from anon_core.dp.results import DPResult, dp_query, query_seed
from anon_core.errors import ConfigError
from anon_core.validation import check_bool, check_float, check_int, check_keys, check_mapping

DP_KEYS = {"epsilon", "delta", "random_state", "compare", "queries"}


@dataclass(frozen=True)
class DPConfig:
    """A validated ``dp`` section (see the module docstring)."""

    epsilon: float
    delta: float = 0.0
    random_state: int | None = None
    compare: bool = False
    queries: tuple[DPQuery, ...] = ()

    @property
    def total_epsilon(self) -> float:
        return float(sum(q.epsilon for q in self.queries))

    @property
    def total_delta(self) -> float:
        return float(sum(q.delta for q in self.queries))

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "epsilon": float(self.epsilon),
            "delta": float(self.delta),
            "random_state": self.random_state,
        }
        if self.compare:
            out["compare"] = True
        out["queries"] = [q.to_dict() for q in self.queries]
        return out


def validate_dp_section(
    raw: Any, columns: Sequence[str] | None = None, where: str = "dp"
) -> DPConfig:
    """Validate the raw ``dp`` section (``ReleaseConfig.sections.get("dp")``) into a :class:`DPConfig`.

    Every error is a :class:`ConfigError` naming the field (``dp.queries[2].bounds``) and the
    fix. With ``columns`` (the input's column names) query columns are checked too. The
    queries' epsilons must add up to at most ``epsilon``.
    """
    if raw is None:
        raise ConfigError(
            f'The configuration has no \'{where}\' section: add one, e.g. "{where}": {{"epsilon": 1.0, "queries": '
            '[{"type": "mean", "column": "age", "epsilon": 0.5, "bounds": [0, 120]}]}.'
        )
    raw = check_mapping(where, raw)
    check_keys(where, raw, DP_KEYS)
    if "epsilon" not in raw:
        raise ConfigError(f"'{where}.epsilon' is missing: give the total privacy budget, e.g. 1.0.")
    epsilon = check_float(f"{where}.epsilon", raw["epsilon"], 0.0, min_inclusive=False)
    delta = check_float(f"{where}.delta", raw.get("delta", 0.0), 0.0, 1.0)
    if delta >= 1.0:
        raise ConfigError(f"'{where}.delta' must be below 1 (usually 0); got {delta}.")
    random_state = raw.get("random_state")
    if random_state is not None:
        random_state = check_int(f"{where}.random_state", random_state, minimum=0)
    compare = check_bool(f"{where}.compare", raw.get("compare", False))
    queries_raw = raw.get("queries")
    if not isinstance(queries_raw, list) or not queries_raw:
        raise ConfigError(
            f'\'{where}.queries\' must be a non-empty list of queries, e.g. [{{"type": "count", "epsilon": 0.1}}].'
        )
    queries = tuple(parse_query(q, f"{where}.queries[{i}]") for i, q in enumerate(queries_raw))
    if columns is not None:
        known = {str(c) for c in columns}
        for i, q in enumerate(queries):
            for c in q.columns:
                if c not in known:
                    raise ConfigError(
                        f"'{where}.queries[{i}]' names column {c!r}, which the input does not have. Columns are: {list(columns)}."
                    )
    total = float(sum(q.epsilon for q in queries))
    if total > epsilon * (1 + BUDGET_TOLERANCE):
        raise ConfigError(
            f"'{where}.queries' spend ε = {total:g} in total, above the budget '{where}.epsilon' = {epsilon:g}. "
            "Lower the queries' epsilons or raise the budget."
        )
    total_delta = float(sum(q.delta for q in queries))
    if total_delta > 0 and delta == 0:
        i = next(i for i, q in enumerate(queries) if q.delta > 0)
        raise ConfigError(
            f"'{where}.queries[{i}]' uses the Gaussian mechanism but '{where}.delta' is 0: set "
            f"'{where}.delta' (e.g. 1e-6, well below 1 / number of records) or use the Laplace mechanism."
        )
    if total_delta > delta * (1 + BUDGET_TOLERANCE):
        raise ConfigError(
            f"'{where}.queries' spend δ = {total_delta:g} in total, above the budget '{where}.delta' = {delta:g}. "
            "Lower the queries' deltas or raise the budget's delta."
        )
    return DPConfig(epsilon, delta, random_state, compare, queries)


def dp_section(
    queries: Sequence[DPQuery | DPResult],
    epsilon: float,
    delta: float = 0.0,
    random_state: int | None = None,
) -> dict[str, Any]:
    """A ``dp`` configuration section recording ``queries`` (or results) and the budget.

    Results record the epsilon actually spent. Validated before it is returned, so the
    section can be run again with :func:`run_dp` (the same ``random_state`` gives the same
    noise for the same queries in the same order).
    """
    qs = [
        q.query.with_epsilon(q.epsilon, q.delta) if isinstance(q, DPResult) else q for q in queries
    ]
    section = DPConfig(float(epsilon), float(delta), random_state, False, tuple(qs)).to_dict()
    validate_dp_section(section)
    return section


@dataclass(frozen=True, eq=False)
class DPRunResult:
    """What :func:`run_dp` produced: the results in query order and the budget spent."""

    config: DPConfig
    results: tuple[DPResult, ...]
    budget: PrivacyBudget
    seconds: float = 0.0

    @property
    def warnings(self) -> tuple[str, ...]:
        return tuple(w for r in self.results for w in r.warnings)

    def section(self) -> dict[str, Any]:
        """The ``dp`` section that reproduces this run."""
        return self.config.to_dict()

    def tables(self) -> dict[str, pd.DataFrame]:
        """Each histogram's releasable table by query name (for CSV output)."""
        return {r.label: r.release_frame() for r in self.results if r.table is not None}

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame([r.row(compare=self.config.compare) for r in self.results])

    def to_dict(self) -> dict[str, Any]:
        budget = self.budget.to_dict()
        return {
            "epsilon": float(self.config.epsilon),
            "delta": float(self.config.delta),
            "random_state": self.config.random_state,
            "spent": budget["spent"],
            "remaining": budget["remaining"],
            "results": [r.to_dict() for r in self.results],
            "warnings": list(self.warnings),
            "seconds": float(self.seconds),
        }


def run_dp(config: DPConfig, frame: pd.DataFrame) -> DPRunResult:
    """Run a validated ``dp`` section on ``frame`` (the input table, before anonymization).

    One :class:`PrivacyBudget` of ``config.epsilon``/``delta``; query *i* uses the seed
    ``SeedSequence([random_state, i])`` (fresh noise when ``random_state`` is None).
    """
    if not isinstance(config, DPConfig):
        raise ConfigError("'config' must be a DPConfig from validate_dp_section(...).")
    t0 = time.perf_counter()
    budget = PrivacyBudget(config.epsilon, config.delta)
    results = tuple(
        dp_query(
            frame,
            q,
            budget,
            random_state=query_seed(config.random_state, i),
            compare=config.compare,
        )
        for i, q in enumerate(config.queries)
    )
    return DPRunResult(config, results, budget, time.perf_counter() - t0)
