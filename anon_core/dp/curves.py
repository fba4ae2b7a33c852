"""Utility against epsilon for the private statistics (a planning tool: it uses the true data)."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from anon_core.dp.library import DEFAULT_EPSILONS
from anon_core.dp.noise import draw, true_answer
from anon_core.dp.prepare import prepare
from anon_core.dp.queries import DPQuery, parse_query
from anon_core.errors import ConfigError, PrivacyWarning
from anon_core.validation import check_float, check_int


def error_curve(
    frame: pd.DataFrame,
    queries: Sequence[DPQuery | Mapping[str, Any]],
    epsilons: Sequence[float] | None = None,
    repeats: int = 20,
    random_state: int = 0,
    progress: Callable[[float, str], None] | None = None,
) -> pd.DataFrame:
    """Error against epsilon for each query, over ``repeats`` draws per epsilon.

    For every query and every epsilon of the grid (default :data:`DEFAULT_EPSILONS`, 0.01 to
    10 log-spaced) the diffprivlib tool is run ``repeats`` times (seeds from
    ``SeedSequence([random_state, query, epsilon])``) and compared with the true answer.
    Returns one row per (query, epsilon): ``mae`` (mean over draws of the mean absolute error
    over bins/quantiles), ``mae_std``, ``mae_p10`` and ``mae_p90`` (its spread over the draws:
    standard deviation, 10th and 90th percentile), ``relative_error``
    (sum |error| / sum |true|, per draw, averaged) and ``expected_error`` (the formula of
    :func:`expected_error`; NaN for quantiles). A planning tool: it uses the true data and
    spends no budget, so its figures are not for release.
    """
    if epsilons is None:
        epsilons = DEFAULT_EPSILONS
    eps_list = [
        check_float(
            "epsilons", float(e) if isinstance(e, np.floating) else e, 0.0, min_inclusive=False
        )
        for e in epsilons
    ]
    if not eps_list:
        raise ConfigError("'epsilons' is empty: give at least one epsilon, e.g. [0.1, 1, 10].")
    repeats = check_int("repeats", repeats, minimum=1)
    random_state = check_int("random_state", random_state, minimum=0)
    parsed = [
        q if isinstance(q, DPQuery) else parse_query(q, f"queries[{i}]")
        for i, q in enumerate(queries)
    ]
    if not parsed:
        raise ConfigError("'queries' is empty: give at least one query.")
    rows = []
    total = len(parsed) * len(eps_list)
    step = 0
    warned: set[str] = set()
    for qi, query in enumerate(parsed):
        prep = prepare(frame, query)
        for m in prep.own_warnings:
            if m not in warned:
                warned.add(m)
                warnings.warn(m, PrivacyWarning, stacklevel=2)
        true = true_answer(prep)
        for ei, eps in enumerate(eps_list):
            seeds = np.random.SeedSequence([random_state, qi, ei]).generate_state(repeats)
            errs, rels, expected = [], [], []
            for s in seeds:
                result = draw(prep, eps, query.delta, int(s))
                if result.leaked and query.label not in warned:
                    warned.add(query.label)
                    warnings.warn(
                        f"{query.label}: bounds taken from the data", PrivacyWarning, stacklevel=2
                    )
                out = result.output
                noisy = out[0] if query.type in ("histogram", "histogram2d") else out
                diff = np.abs(np.asarray(noisy, dtype=float) - np.asarray(true, dtype=float))
                errs.append(float(diff.mean()))
                expected.append(result.error)
                denom = float(np.abs(np.asarray(true, dtype=float)).sum())
                rels.append(float(diff.sum() / denom) if denom > 0 else math.nan)
            # the formula's value, averaged over draws where it depends on the noisy answer
            exp = float(np.mean(expected))
            rows.append(
                {
                    "query": query.label,
                    "type": query.type,
                    "epsilon": float(eps),
                    "mae": float(np.mean(errs)),
                    "mae_std": float(np.std(errs)),
                    "mae_p10": float(np.percentile(errs, 10)),
                    "mae_p90": float(np.percentile(errs, 90)),
                    "relative_error": float(np.mean(rels)),
                    "expected_error": exp,
                    "repeats": repeats,
                }
            )
            step += 1
            if progress is not None:
                progress(step / total, f"{query.label}: ε = {eps:g}")
    return pd.DataFrame(rows)
