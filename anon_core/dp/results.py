"""Private answers: :func:`dp_query` runs one query under a budget and returns a :class:`DPResult`.

No result carries the exact number of rows or values unless the query declares it public
(``"n"``): neither its dictionary, its summary row nor its releasable frame.
"""

from __future__ import annotations

import logging
import math
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from anon_core.dp.budget import PrivacyBudget
from anon_core.dp.library import EMPIRICAL_DRAWS, EMPIRICAL_SEED, leak_message
from anon_core.dp.noise import abs_error, draw, empirical_error, true_answer
from anon_core.dp.prepare import Prepared, prepare
from anon_core.dp.queries import QUANTILE_TYPES, DPQuery, parse_query
from anon_core.errors import ConfigError, PrivacyWarning
from anon_core.validation import check_bool

log = logging.getLogger(__name__)

_EMPIRICAL = (
    f"empirical: mean |error| of {EMPIRICAL_DRAWS} draws, random_state {EMPIRICAL_SEED} "
    "(uses the true data; shown only when compared)"
)


def error_basis(query: DPQuery) -> str:
    """Which formula the expected error of ``query`` follows (one line, for tables)."""
    g = query.gaussian
    if query.type in QUANTILE_TYPES:
        return _EMPIRICAL
    if query.type in ("count", "histogram", "histogram2d"):
        cell = {"count": "", "histogram": " per bin", "histogram2d": " per cell"}[query.type]
        return (
            f"E|noise|{cell} of discrete Gaussian noise, σ·√(2/π)"
            if g
            else f"E|noise|{cell} of geometric noise, 1/sinh(ε)"
        )
    kind = "analytic Gaussian" if g else "Laplace"
    if query.public_n is not None:
        sens = {
            "sum": "upper − lower",
            "mean": "(upper − lower)/n",
            "var": "(upper − lower)²(n − 1)/n²",
        }[query.type]
        return f"E|noise| of {kind} noise, sensitivity {sens} (n public, replace-one)"
    if query.type == "sum":
        return f"E|noise| of {kind} noise, sensitivity max(|lower|, |upper|) (add/remove one)"
    return (
        f"E|noise| of a noisy count and noisy centred sums ({kind}), first order, from the noisy "
        "answers (n private, add/remove one)"
    )


def bin_labels(edges: np.ndarray) -> list[str]:
    out = []
    for i in range(len(edges) - 1):
        close = "]" if i == len(edges) - 2 else ")"
        out.append(f"[{edges[i]:g}, {edges[i + 1]:g}{close}")
    return out


@dataclass(frozen=True, eq=False)
class DPResult:
    """One private answer.

    ``value`` is a float (count, sum, mean, var, median, a single quantile), a tuple of floats
    (several quantiles) or None (histograms: see ``table``). ``table`` is the noisy histogram
    (long form: one row per bin or cell, ``noisy_count`` and ``expected_error``; with
    ``compare`` also ``true_count`` and ``abs_error``). ``epsilon`` and ``delta`` are what was
    spent. ``n`` is the query's public n, or None: the true number of values is never held.
    ``true_value`` is set only when the comparison was asked for (not private).
    """

    query: DPQuery
    epsilon: float
    value: float | tuple[float, ...] | None
    table: pd.DataFrame | None
    expected_error: float
    error_basis: str
    n: int | None
    bounds: dict[str, tuple[float, float]]
    categories: dict[str, tuple[str, ...]]
    from_data: tuple[str, ...]
    warnings: tuple[str, ...]
    true_value: float | tuple[float, ...] | None = None
    compared: bool = False
    delta: float = 0.0

    @property
    def shown_error(self) -> float | None:
        """The expected error as published: a quantile's (empirical) only when compared."""
        if self.query.type in QUANTILE_TYPES and not self.compared:
            return None
        return self.expected_error

    @property
    def label(self) -> str:
        return self.query.label

    @property
    def abs_error(self) -> float | None:
        """Mean absolute difference from the true answer (only when compared)."""
        if not self.compared:
            return None
        if self.table is not None:
            return float(self.table["abs_error"].mean())
        return abs_error(self.value, self.true_value)

    def release_frame(self) -> pd.DataFrame:
        """The releasable table: noisy figures and expected errors only, never true values.

        Histograms: the bins (2-D: a contingency table, rows = x, columns = y). Other queries:
        one row with the value and its expected error.
        """
        if self.table is None:
            values = self.value if isinstance(self.value, tuple) else (self.value,)
            qs = self.query.quantiles if self.query.type == "quantile" else (None,) * len(values)
            rows = [
                {
                    "query": self.label,
                    "quantile": q,
                    "value": v,
                    "expected_error": None
                    if self.query.type in ("quantile", "median")
                    else self.expected_error,
                }
                for q, v in zip(qs, values, strict=True)
            ]
            frame = pd.DataFrame(rows)
            return frame.drop(columns=["quantile"]) if self.query.type != "quantile" else frame
        if self.query.type == "histogram2d":
            x, y = self.query.columns
            wide = self.table.pivot(index=x, columns=y, values="noisy_count")
            wide = wide.loc[pd.unique(self.table[x]), pd.unique(self.table[y])]
            wide.columns = [str(c) for c in wide.columns]
            return wide.reset_index()
        return self.table.drop(
            columns=[c for c in ("true_count", "abs_error") if c in self.table.columns]
        )

    def row(self, compare: bool = False) -> dict[str, Any]:
        """A summary row for a results table."""
        if self.table is not None:
            shown: Any = f"table of {len(self.table)} {'cells' if self.query.type == 'histogram2d' else 'bins'}"
        elif isinstance(self.value, tuple):
            shown = ", ".join(f"{v:.6g}" for v in self.value)
        else:
            shown = f"{self.value:.6g}"
        row = {
            "query": self.label,
            "type": self.query.type,
            "columns": ", ".join(self.query.columns) or "(rows)",
            "epsilon": self.epsilon,
            "result": shown,
            "expected_error": self.shown_error,
            "error_basis": self.error_basis,
            "from_data": ", ".join(self.from_data),
        }
        if self.delta:
            row["delta"] = self.delta
        if compare and self.compared:
            if self.table is not None:
                row["true_value"] = f"total {self.table['true_count'].sum():.0f}"
            elif isinstance(self.true_value, tuple):
                row["true_value"] = ", ".join(f"{v:.6g}" for v in self.true_value)
            else:
                row["true_value"] = f"{self.true_value:.6g}"
            row["abs_error"] = self.abs_error
        return row

    def to_dict(self) -> dict[str, Any]:
        def num(x: float) -> float | None:
            return (
                None if x is None or (isinstance(x, float) and not math.isfinite(x)) else float(x)
            )

        out: dict[str, Any] = {
            "query": self.query.to_dict(),
            "name": self.label,
            "epsilon": float(self.epsilon),
            "delta": float(self.delta),
            "expected_error": num(self.shown_error),
            "error_basis": self.error_basis,
            "bounds": {k: [float(v[0]), float(v[1])] for k, v in self.bounds.items()},
            "categories": {k: list(v) for k, v in self.categories.items()},
            "from_data": list(self.from_data),
            "warnings": list(self.warnings),
        }
        if self.n is not None:  # declared public by the user
            out["n"] = int(self.n)
        if self.table is not None:
            kept = [c for c in self.table.columns if c not in ("true_count", "abs_error")]
            out["table"] = self.table[kept].to_dict(orient="records")
        else:
            out["value"] = list(self.value) if isinstance(self.value, tuple) else float(self.value)
        if self.compared:
            if self.table is not None:
                out["true_table"] = self.table.drop(
                    columns=["noisy_count", "expected_error"]
                ).to_dict(orient="records")
            else:
                out["true_value"] = (
                    list(self.true_value)
                    if isinstance(self.true_value, tuple)
                    else float(self.true_value)
                )
            out["abs_error"] = float(self.abs_error)
        return out


def _histogram_table(
    prep: Prepared,
    counts: np.ndarray,
    edges: tuple[np.ndarray, ...],
    err: float,
    true: np.ndarray | None,
) -> pd.DataFrame:
    q = prep.query
    axis_labels = []
    for axis, e in zip(q.axes, edges, strict=True):
        if axis.categorical:
            axis_labels.append(list(prep.categories[axis.column]))
        else:
            axis_labels.append(bin_labels(e))
    if q.type == "histogram":
        axis = q.axes[0]
        data: dict[str, Any] = {axis.column: axis_labels[0]}
        if not axis.categorical:
            data["lower"], data["upper"] = edges[0][:-1], edges[0][1:]
        data["noisy_count"] = counts
        flat_true = true
    else:
        x, y = q.columns
        xs, ys = np.meshgrid(
            np.arange(len(axis_labels[0])), np.arange(len(axis_labels[1])), indexing="ij"
        )
        data = {
            x: np.asarray(axis_labels[0], dtype=object)[xs.ravel()],
            y: np.asarray(axis_labels[1], dtype=object)[ys.ravel()],
            "noisy_count": counts.ravel(),
        }
        flat_true = None if true is None else true.ravel()
    table = pd.DataFrame(data)
    table["expected_error"] = err
    if flat_true is not None:
        table["true_count"] = flat_true
        table["abs_error"] = np.abs(table["noisy_count"] - flat_true)
    return table


def query_seed(random_state: int | None, index: int) -> int | None:
    """The seed of query ``index`` of a release with ``random_state`` (None: fresh noise)."""
    if random_state is None:
        return None
    return int(np.random.SeedSequence([int(random_state), int(index)]).generate_state(1)[0])


def dp_query(
    frame: pd.DataFrame,
    query: DPQuery | Mapping[str, Any],
    budget: PrivacyBudget,
    random_state: int | np.random.RandomState | None = None,
    compare: bool = False,
) -> DPResult:
    """Answer one query privately, spending its epsilon (and delta) from ``budget``.

    ``query`` is a :class:`DPQuery` or a mapping in the ``dp.queries`` shape (validated by
    :func:`parse_query`). Steps: validate the query against ``frame`` (nothing spent on a bad
    query); ``budget.admit`` (ConfigError over budget); one draw of the mechanism
    (:func:`anon_core.dp.noise.draw`) with ``random_state``; ``budget.spend`` of the query's
    epsilon and delta. Bounds or categories taken from the data raise a plain-words
    :class:`PrivacyWarning` (also in ``result.warnings``). ``compare=True`` adds the true
    answer and the error (not private; for the data custodian only).
    """
    if not isinstance(budget, PrivacyBudget):
        raise ConfigError(f"'budget' must be a PrivacyBudget, got {type(budget).__name__}.")
    if not isinstance(query, DPQuery):
        query = parse_query(query)
    compare = check_bool("compare", compare)
    prep = prepare(frame, query)
    epsilon = budget.admit(prep.label, query.epsilon, query.delta)
    result = draw(prep, epsilon, query.delta, random_state)
    budget.spend(prep.label, epsilon, query.type, query.delta)
    messages = list(prep.own_warnings)
    if result.leaked:  # diffprivlib's PrivacyLeakWarning, in plain words
        messages.append(_leak(prep))
    for m in messages:
        warnings.warn(m, PrivacyWarning, stacklevel=2)
    output = result.output
    err = result.error
    if query.type in QUANTILE_TYPES and compare:  # uses the true data: custodian only
        err = empirical_error(prep, epsilon)
    true = true_answer(prep) if compare else None
    table = None
    value: Any = output
    if query.type in ("histogram", "histogram2d"):
        counts, edges = output
        table = _histogram_table(prep, counts, edges, err, true)
        value = None
    if log.isEnabledFor(logging.INFO):
        log.info(
            "dp query %s: epsilon %.4g spent, %.4g remaining", prep.label, epsilon, budget.remaining
        )
    return DPResult(
        query=query,
        epsilon=epsilon,
        value=value,
        table=table,
        expected_error=err,
        error_basis=error_basis(query),
        n=query.public_n,
        bounds=dict(prep.bounds),
        categories=dict(prep.categories),
        from_data=prep.from_data,
        warnings=tuple(messages),
        true_value=None if table is not None else true,
        compared=compare,
        delta=float(query.delta),
    )


def _leak(prep: Prepared) -> str:
    """A diffprivlib PrivacyLeakWarning in plain words (the bounds used came from the data)."""
    what = ", ".join(prep.from_data) or "bounds"
    return leak_message(prep.label, what, "the smallest and largest value")
