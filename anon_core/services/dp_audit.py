"""DP audits as the dashboard asks for them: each private statistic asked on the DP page is run
many times on the table and on its neighbour without the most exposed record, and the claimed
epsilon is set against the epsilon those runs prove at least (:mod:`anon_core.audit`).

A passing audit shows only that this test found no fault with this neighbour pair; a violation
(the advantage's lower interval end above what epsilon allows) is an implementation fault of the
mechanism, not a risk figure.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from anon_core.errors import AnonError, ConfigError

#: Runs per side of an audit from the page by default, and the bounds of its slider.
PAGE_RUNS = 1000
MIN_RUNS, MAX_RUNS = 100, 20_000
#: What one line on the page and in the report says about the figure.
EXPLANATION = (
    "Audited ε: the smallest ε consistent with how well a test told the table from the table "
    "without its most exposed record, over many seeded runs (95% confidence); it should stay "
    "at or below the claimed ε. A violation is an implementation fault, not a risk figure."
)


@dataclass(frozen=True)
class QueryAudit:
    """One statistic's audit: what was claimed and what the runs prove at least (``error`` set
    when the statistic could not be audited)."""

    label: str
    claimed_epsilon: float
    delta: float
    audited_epsilon: float | None = None
    advantage: float | None = None
    advantage_ci: tuple[float, float] | None = None
    bound: float | None = None
    violation: bool | None = None
    runs: int = 0
    error: str | None = None

    def row(self) -> dict[str, Any]:
        """One row of the page's table (no value of the data)."""
        lo, hi = self.advantage_ci or (None, None)
        return {
            "statistic": self.label,
            "claimed ε": self.claimed_epsilon,
            "δ": self.delta,
            "audited ε (lower bound)": self.audited_epsilon,
            "advantage": self.advantage,
            "advantage low": lo,
            "advantage high": hi,
            "bound ε allows": self.bound,
            "violation": None if self.violation is None else ("yes" if self.violation else "no"),
            "runs per side": self.runs,
            "note": self.error or "",
        }


def check_runs(runs: Any) -> int:
    if isinstance(runs, bool) or not isinstance(runs, int) or not MIN_RUNS <= runs <= MAX_RUNS:
        raise ConfigError(
            f"'runs' must be a whole number from {MIN_RUNS} to {MAX_RUNS:,} per side, got {runs!r}."
        )
    return runs


def audit_queries(
    frame: pd.DataFrame,
    queries: Sequence[Any],
    *,
    runs: int = PAGE_RUNS,
    random_state: int = 0,
    progress: Callable[[float, str], None] | None = None,
) -> list[QueryAudit]:
    """Audit each DP query (a DPQuery or a ``dp.queries`` entry) on ``frame``. A statistic that
    cannot be audited gets its reason in ``error``; the others still run. ``progress`` is told
    before each statistic (Streamlit stops a cancelled run there)."""
    from anon_core.audit.mechanisms import audit_dp_query
    from anon_core.dp.queries import DPQuery, parse_query

    runs = check_runs(runs)
    if not isinstance(frame, pd.DataFrame) or len(frame) < 2:
        raise ConfigError("A DP audit needs a table of at least 2 records.")
    parsed = [q if isinstance(q, DPQuery) else parse_query(q) for q in queries]
    if not parsed:
        raise ConfigError("Nothing to audit: ask at least one private question first.")
    out = []
    for i, query in enumerate(parsed):
        if progress is not None:
            progress(i / len(parsed), f"auditing {query.label} ({i + 1} of {len(parsed)})")
        try:
            result = audit_dp_query(frame, query, runs=runs, random_state=random_state)
        except AnonError as exc:
            out.append(QueryAudit(query.label, query.epsilon, query.delta, error=str(exc)))
            continue
        out.append(
            QueryAudit(
                query.label,
                float(query.epsilon),
                float(query.delta),
                audited_epsilon=float(result.epsilon_lower_bound),
                advantage=float(result.advantage),
                advantage_ci=(float(result.ci[0]), float(result.ci[1])),
                bound=float(result.bound),
                violation=bool(result.violation),
                runs=int(result.runs),
            )
        )
    if progress is not None:
        progress(1.0, "audit done")
    return out


def audit_table(audits: Sequence[QueryAudit]) -> pd.DataFrame:
    return pd.DataFrame([a.row() for a in audits])
