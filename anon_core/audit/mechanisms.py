"""The project's DP mechanisms, wrapped for :mod:`anon_core.audit.dp_audit`.

* :func:`audit_dp_query` - a private statistic of :mod:`anon_core.dp` (count, histogram, sum,
  mean, ...), drawn by :func:`anon_core.dp.noise.draw` exactly as ``dp_query`` does, on the table
  and on its neighbour without (or, for a query with a public n, with a replaced) target record.
  The target is the worst case among the candidates: the record whose removal moves the true
  answer most (ties: the record in the rarest cell), an outlier.
* :func:`audit_measurement` - the noisy-marginal measurement step of the marginal-based DP
  synthesizers (MST, AIM): a 1-way marginal plus Gaussian noise through their own
  :class:`~anon_core.methods.dp_marginals.Accountant`. The whole synthesizer (graphical
  model estimation with JAX) is too slow to run thousands of times; the measurements are where
  the privacy comes from (everything after them is post-processing), so the audit checks the
  step against its own share of the budget (its rho converted to (epsilon, delta)).
* :func:`audit_release_method` - that measurement step for a release's method and parameters.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from anon_core.audit.dp_audit import (
    CONFIDENCE,
    DEFAULT_RUNS,
    AuditResult,
    audit_mechanism,
    distance_score,
)
from anon_core.errors import ConfigError

#: Candidate target records examined to find the worst case (a seeded sample beyond this).
MAX_CANDIDATES = 256
#: Release methods whose measurement step :func:`audit_release_method` knows.
AUDITED_METHODS = ("synthetic-mst", "synthetic-aim")


def _answer(prep: Any) -> np.ndarray:
    from anon_core.dp.noise import true_answer

    return np.atleast_1d(np.asarray(true_answer(prep), dtype=float)).ravel()


def _neighbour(frame: pd.DataFrame, query: Any, row: int) -> pd.DataFrame:
    """D' for target position ``row``: removed (add/remove queries) or its value replaced by the
    farther bound (a numeric query with a public n: replace-one neighbours)."""
    if query.public_n is None:
        return frame.drop(index=frame.index[row])
    col = query.axes[0].column
    bounds = query.axes[0].bounds
    if isinstance(bounds, str):  # "data": the mechanism clips to the data's range
        values = pd.to_numeric(frame[col], errors="coerce")
        bounds = (float(values.min()), float(values.max()))
    lo, hi = bounds
    out = frame.copy()
    value = float(pd.to_numeric(out[col].iloc[row], errors="coerce"))
    out.iloc[row, out.columns.get_loc(col)] = lo if abs(value - lo) > abs(value - hi) else hi
    return out


def worst_target(frame: pd.DataFrame, query: Any, random_state: int = 0) -> int:
    """Position of the record whose removal (replacement) moves the query's true answer most."""
    from anon_core.dp.prepare import prepare

    base = _answer(prepare(frame, query))
    n = len(frame)
    rows = np.arange(n)
    if n > MAX_CANDIDATES:
        rows = np.sort(np.random.default_rng(random_state).choice(n, MAX_CANDIDATES, replace=False))
    best, best_key = -1, (-math.inf, -math.inf)
    for r in rows:
        other = _answer(prepare(_neighbour(frame, query, int(r)), query))
        if other.shape != base.shape:
            continue
        diff = np.abs(base - other)
        if diff.sum() == 0:
            continue
        key = (float(diff.sum()), -float(np.min(np.abs(base[diff > 0]))))  # rare cells first
        if key > best_key:
            best, best_key = int(r), key
    if best < 0:
        raise ConfigError(
            "No record changes this query's answer (every value is missing or outside its "
            "bounds or categories): there is nothing to audit. Choose another query or column."
        )
    return best


def audit_dp_query(
    frame: pd.DataFrame,
    query: Mapping[str, Any] | Any,
    *,
    target: int | None = None,
    runs: int = DEFAULT_RUNS,
    random_state: int = 0,
    confidence: float = CONFIDENCE,
) -> AuditResult:
    """Audit one private statistic (a ``dp.queries`` entry or a DPQuery) on ``frame``.

    ``target`` is the position of the target record (default: :func:`worst_target`)."""
    from anon_core.dp.noise import draw
    from anon_core.dp.prepare import prepare
    from anon_core.dp.queries import DPQuery, parse_query

    q = query if isinstance(query, DPQuery) else parse_query(query)
    if not isinstance(frame, pd.DataFrame) or len(frame) < 2:
        raise ConfigError("An audit needs a table of at least 2 records.")
    row = worst_target(frame, q, random_state) if target is None else int(target)
    if not 0 <= row < len(frame):
        raise ConfigError(f"'target' must be a row position from 0 to {len(frame) - 1}, got {row}.")
    prep_in = prepare(frame, q)
    prep_out = prepare(_neighbour(frame, q, row), q)
    score = distance_score(_answer(prep_in), _answer(prep_out), norm=2 if q.gaussian else 1)

    def mechanism(prep: Any, rng: np.random.Generator) -> Any:
        out = draw(prep, q.epsilon, q.delta, int(rng.integers(2**31 - 1))).output
        return out[0] if q.type in ("histogram", "histogram2d") else out

    return audit_mechanism(
        mechanism,
        prep_in,
        prep_out,
        score,
        q.epsilon,
        q.delta,
        runs=runs,
        random_state=random_state,
        confidence=confidence,
    )


def gaussian_measurement(std: float, size: int):
    """The synthesizers' measurement of a 1-way marginal of ``size`` cells (codes in, noisy
    counts out) with their own Accountant (diffprivlib's analytic Gaussian at ``std``)."""
    from anon_core.methods.dp_marginals import Accountant

    def mechanism(codes: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        x = np.bincount(codes, minlength=size).astype(float)
        return Accountant(math.inf, rng).gaussian(x, std, "audit")

    return mechanism


def rare_neighbour(codes: np.ndarray, size: int) -> tuple[np.ndarray, int]:
    """D' for a 1-way marginal: the codes without one record of the rarest non-empty cell."""
    codes = np.asarray(codes, dtype=np.int64)
    counts = np.bincount(codes, minlength=size)
    cells = np.flatnonzero(counts)
    if not cells.size:
        raise ConfigError("An audit of a marginal needs at least one record.")
    cell = int(cells[np.argmin(counts[cells])])
    pos = int(np.flatnonzero(codes == cell)[0])
    return np.delete(codes, pos), cell


def step_epsilon(std: float, delta: float) -> float:
    """The epsilon (at ``delta``) of one Gaussian measurement of L2 sensitivity 1: its zCDP
    rho = 1 / (2 std^2) converted as the synthesizers' accounting does."""
    from anon_core.methods.dp_marginals import cdp_epsilon

    return float(cdp_epsilon(1.0 / (2.0 * std**2), delta))


def audit_measurement(
    codes: np.ndarray,
    size: int,
    std: float,
    delta: float,
    *,
    runs: int = DEFAULT_RUNS,
    random_state: int = 0,
    confidence: float = CONFIDENCE,
) -> AuditResult:
    """Audit one Gaussian 1-way measurement (noise ``std``) against its own (epsilon, delta)."""
    codes = np.asarray(codes, dtype=np.int64)
    without, _ = rare_neighbour(codes, size)
    score = distance_score(
        np.bincount(codes, minlength=size), np.bincount(without, minlength=size), norm=2
    )
    return audit_mechanism(
        gaussian_measurement(std, size),
        codes,
        without,
        score,
        step_epsilon(std, delta),
        delta,
        runs=runs,
        random_state=random_state,
        confidence=confidence,
    )


def measurement_std(method: str, parameters: Mapping[str, Any], columns: int) -> float:
    """The noise of the first 1-way measurement of ``method`` (as its release computes it)."""
    from anon_core.methods.dp_marginals import cdp_rho

    rho = cdp_rho(float(parameters["epsilon"]), float(parameters["delta"])) * (1.0 - 1e-9)
    if method == "synthetic-mst":
        rho1 = rho if columns == 1 else rho / 3.0
        return math.sqrt(columns / (2.0 * rho1))
    if method == "synthetic-aim":
        rounds = parameters.get("rounds")
        rounds = int(rounds) if rounds is not None else 4 * columns
        return math.sqrt(rounds / (2 * 0.9 * rho))
    raise ConfigError(
        f"No DP audit is defined for method {method!r}; audited methods: {list(AUDITED_METHODS)}."
    )


def audit_release_method(
    method: str,
    parameters: Mapping[str, Any],
    frame: pd.DataFrame,
    context: Any,
    *,
    runs: int = 1000,
    random_state: int = 0,
) -> tuple[AuditResult, dict[str, Any]]:
    """Audit the measurement step of a release's ``method`` on ``frame`` (the column whose
    rarest cell is smallest: the most outlying record). Returns the result and what was audited
    (no value of the data)."""
    from anon_core.methods.dp_marginals import resolve_domains
    from anon_core.methods.mst import encode_table

    if method not in AUDITED_METHODS:
        raise ConfigError(
            f"No DP audit is defined for method {method!r}; audited methods: {list(AUDITED_METHODS)}."
        )
    domains = resolve_domains(
        frame, context, parameters.get("domains"), int(parameters.get("bins", 16))
    )
    codes, _ = encode_table(frame, domains)

    def rarest(c: str) -> int:
        counts = np.bincount(codes[c], minlength=domains[c].size)
        return int(counts[counts > 0].min())

    column = min(domains, key=rarest)
    std = measurement_std(method, parameters, len(domains))
    delta = float(parameters["delta"])
    result = audit_measurement(
        codes[column], domains[column].size, std, delta, runs=runs, random_state=random_state
    )
    details = {
        "method": method,
        "step": "1-way Gaussian measurement (the synthesizer's noisy-marginal step)",
        "column": column,
        "cells": int(domains[column].size),
        "noise_std": std,
        "step_epsilon": result.epsilon,
        "release_epsilon": float(parameters["epsilon"]),
        **result.to_dict(),
    }
    return result, details
