"""Singling-out attack (anonymeter's SinglingOutEvaluator, PETS 2023 section 3.1).

The attacker builds predicates from the released table that match exactly one released
record, then claims each singles out one individual of the original records. A guess succeeds
when the predicate matches exactly one original record. The same predicates on the control
records (never released) measure what the population alone lets one single out; the baseline
tries random predicates. Following anonymeter, each table is deduplicated first, and the
control count is corrected for a control table of another size than the original one.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from anon_core.attacks.encoding import MISSING, EncodedTables, distinct_rows, encode_tables
from anon_core.attacks.inputs import check_common, check_tables
from anon_core.attacks.predicates import (
    EQ,
    GE,
    GT,
    IS_NULL,
    LE,
    LT,
    NE,
    NOT_NULL,
    Predicates,
    TableIndex,
    concat,
)
from anon_core.attacks.results import AttackResult
from anon_core.attacks.size_correction import correct_control_count
from anon_core.attacks.stats import residual_risk, success_rate
from anon_core.validation import check_choice, check_int

logger = logging.getLogger(__name__)
MODES = ("univariate", "multivariate")
_BATCH = 1000
_MAX_BATCH = 50_000
_FIRST_BATCH_PER_ATTACK = 10
#: The saturation window's bounds (tries without a new predicate before the search stops).
_MIN_WINDOW = 20_000
_MAX_WINDOW = 1_000_000
#: The default bound on tries: the window's reach, at least 1,000 per requested predicate.
_MAX_ATTEMPTS_PER_ATTACK = 1000


def _univariate_candidates(table: np.ndarray, enc: EncodedTables) -> Predicates:
    """Rare-attribute predicates: a value held by one record, a lone missing value, the
    minimum and maximum of a numeric column (anonymeter's univariate queries)."""
    cols, ops, vals = [], [], []
    for j in range(table.shape[1]):
        column = table[:, j]
        if int((column == MISSING).sum()) == 1:
            cols.append(j), ops.append(IS_NULL), vals.append(MISSING)
        present = column[column != MISSING]
        if enc.numeric[j] and len(present):
            cols += [j, j]
            ops += [LE, GE]
            vals += [int(present.min()), int(present.max())]
        codes, counts = np.unique(present, return_counts=True)
        rare = codes[counts == 1]
        cols += [j] * len(rare)
        ops += [EQ] * len(rare)
        vals += rare.tolist()
    return Predicates(
        np.array(cols, dtype=np.int64).reshape(-1, 1),
        np.array(ops, dtype=np.int8).reshape(-1, 1),
        np.array(vals, dtype=np.int64).reshape(-1, 1),
    )


def _record_predicates(
    table: np.ndarray, enc: EncodedTables, medians: np.ndarray, n: int, n_cols: int, rng
) -> Predicates:
    """``n`` predicates from random released records on ``n_cols`` random columns: equality on
    categorical values, ``>=`` above the column median and ``<=`` otherwise on numeric ones."""
    rows = rng.integers(0, len(table), size=n)
    cols = np.sort(np.argsort(rng.random((n, table.shape[1])), axis=1)[:, :n_cols], axis=1)
    vals = table[rows[:, None], cols]
    ops = np.full(vals.shape, EQ, dtype=np.int8)
    numeric = enc.numeric[cols]
    if numeric.any():
        value = np.full(vals.shape, np.nan)
        for j in np.flatnonzero(enc.numeric):
            at = (cols == j) & (vals != MISSING)
            value[at] = enc.levels[j][vals[at]]
        above = value > medians[cols]
        ops[numeric] = np.where(above[numeric], GE, LE)
    missing = vals == MISSING
    ops[missing] = IS_NULL
    return Predicates(cols.astype(np.int64), ops, vals)


def _random_predicates(
    table: np.ndarray, enc: EncodedTables, n: int, n_cols: int, rng
) -> Predicates:
    """The baseline: random columns, a random value seen in the released column and a random
    operator (== or != on categories; ==, !=, >, <, >=, <= on numbers)."""
    cols = np.sort(np.argsort(rng.random((n, table.shape[1])), axis=1)[:, :n_cols], axis=1)
    vals = np.empty(cols.shape, dtype=np.int64)
    ops = np.empty(cols.shape, dtype=np.int8)
    for j in range(table.shape[1]):
        at = cols == j
        if not at.any():
            continue
        uniques = np.unique(table[:, j])
        vals[at] = rng.choice(uniques, size=int(at.sum()))
        choices = np.array([EQ, NE, GT, LT, GE, LE] if enc.numeric[j] else [EQ, NE], np.int8)
        ops[at] = rng.choice(choices, size=int(at.sum()))
    null = vals == MISSING
    ops[null] = np.where(ops[null] == EQ, IS_NULL, NOT_NULL)
    return Predicates(cols.astype(np.int64), ops, vals)


def _medians(table: np.ndarray, enc: EncodedTables) -> np.ndarray:
    out = np.full(table.shape[1], np.nan)
    for j in np.flatnonzero(enc.numeric):
        codes = table[:, j]
        codes = codes[codes != MISSING]
        if len(codes):
            out[j] = float(np.median(enc.levels[j][codes]))
    return out


@dataclass(frozen=True)
class Search:
    """Predicates found by the search, and how it stopped (``saturated``: no new distinct
    singling-out predicate in ``window`` tries, or every candidate enumerated)."""

    predicates: Predicates
    attempts: int
    saturated: bool
    window: int


def saturation_window(n_distinct: int, n_columns: int, n_cols: int, n_attacks: int) -> int:
    """Tries without a new predicate after which the search stops.

    A try draws one released record and one set of ``n_cols`` columns, so one given predicate
    comes up with probability about 1 / (distinct records x column sets); a window of that many
    tries leaves a predicate not yet found unseen with probability about 1/e, and all of them
    (u left) with about e^-u: the search stops when (nearly) none is left to find.
    """
    combos = math.comb(n_columns, n_cols)
    return int(min(_MAX_WINDOW, max(_MIN_WINDOW, 20 * n_attacks, n_distinct * combos)))


def _singling_out_queries(
    index: TableIndex,
    enc: EncodedTables,
    mode: str,
    n_attacks: int,
    n_cols: int,
    max_attempts: int,
    window: int | None,
    rng,
    progress: Callable[[float, str], None],
) -> Search:
    """Distinct predicates that match exactly one released record, at most ``n_attacks``.

    Multivariate: random tries until ``n_attacks`` are found, or no new one came up in
    ``window`` tries (saturation), or ``max_attempts`` tries (a bound on cost).
    """
    table = index.table
    if mode == "univariate":
        candidates = _univariate_candidates(table, enc)
        candidates = candidates.take(rng.permutation(len(candidates)))
        unique = index.count(candidates) == 1
        found = candidates.take(np.flatnonzero(unique)[:n_attacks])
        return Search(found, len(candidates), True, 0)
    if window is None:
        window = saturation_window(len(table), table.shape[1], n_cols, n_attacks)
    medians = _medians(table, enc)
    kept: list[Predicates] = []
    seen: set[bytes] = set()
    n_kept = attempts = last_new = 0
    # The first batch is sized to the request: a small request is answered by a small batch.
    size = min(_MAX_BATCH, max(_BATCH, _FIRST_BATCH_PER_ATTACK * n_attacks))
    while n_kept < n_attacks and attempts < max_attempts and attempts - last_new < window:
        size = min(size, max_attempts - attempts, window)
        batch = _record_predicates(table, enc, medians, size, n_cols, rng)
        hits = np.flatnonzero(index.singles(batch))
        found = batch.take(hits)
        fresh = []
        for i, key in enumerate(found.keys()):
            if key not in seen and n_kept + len(fresh) < n_attacks:
                seen.add(key)
                fresh.append(i)
        if fresh:
            kept.append(found.take(np.array(fresh)))
            n_kept += len(fresh)
            last_new = attempts + int(hits[fresh[-1]]) + 1
        attempts += size
        # grow the batch when few records single out, so the work stays in numpy
        rate = max(n_kept, 1) / attempts
        size = int(min(_MAX_BATCH, max(_BATCH, 1.2 * (n_attacks - n_kept) / rate)))
        progress(0.8 * n_kept / n_attacks, f"singling out: {n_kept} predicates")
    saturated = n_kept < n_attacks and attempts - last_new >= window
    if n_kept < n_attacks:
        logger.info(
            "Singling out (%s) found %d of the %d requested predicates in %d tries (%s).",
            mode,
            n_kept,
            n_attacks,
            attempts,
            "saturated" if saturated else "stopped at max_attempts",
        )
    if not kept:
        empty = np.zeros((0, n_cols), dtype=np.int64)
        return Search(Predicates(empty, empty.astype(np.int8), empty), attempts, saturated, window)
    return Search(concat(kept), attempts, saturated, window)


def singling_out(
    original: pd.DataFrame,
    released: pd.DataFrame,
    control: pd.DataFrame,
    *,
    mode: str = "multivariate",
    n_attacks: int = 2000,
    n_cols: int = 3,
    max_attempts: int | None = None,
    random_state: int | None = None,
    progress: Callable[[float, str], None] | None = None,
    confidence: float = 0.95,
    window: int | None = None,
) -> AttackResult:
    """Singling-out risk of ``released`` for the records of ``original`` (anonymeter's attack).

    ``mode`` "univariate" uses rare single values, "multivariate" predicates on ``n_cols``
    random columns of random released records: the search stops when ``n_attacks`` distinct
    predicates are found or when it is saturated (no new one in ``window`` tries, see
    :func:`saturation_window`), so the figure does not depend on how long it ran; at most
    ``max_attempts`` tries (default: ``1000 * n_attacks`` or three windows, whichever is more).
    Rates are over ``n_attacks`` guesses, as in anonymeter; ``detail`` adds
    ``n_predicates_found``, ``n_requested`` and ``precision`` (the share of the predicates found
    that single out an original record: anonymeter's attack rate divides by the requested
    count, precision by the found count) and the control-size ``correction``.
    """
    columns = check_tables(original, released, control, allow_empty_released=True)
    n_attacks, progress = check_common(n_attacks, random_state, progress)
    mode = check_choice("mode", mode, MODES)
    n_cols = check_int("n_cols", n_cols, minimum=1, maximum=len(columns))
    if window is not None:
        window = check_int("window", window, minimum=1)
    rng = np.random.default_rng(random_state)
    # anonymeter deduplicates the tables: a predicate singles out one distinct record
    enc = distinct_rows(encode_tables([original, released, control], columns))
    ori, rel, ctl = enc.codes
    if window is None and mode == "multivariate":
        window = saturation_window(len(rel), len(columns), n_cols, n_attacks)
    if max_attempts is None:
        max_attempts = max(_MAX_ATTEMPTS_PER_ATTACK * n_attacks, 3 * (window or 0))
    max_attempts = check_int("max_attempts", max_attempts, minimum=1)
    ori_index, rel_index, ctl_index = (TableIndex(t, enc.radices) for t in enc.codes)
    progress(0.0, f"singling out ({mode}): building predicates")
    if len(rel):
        search = _singling_out_queries(
            rel_index, enc, mode, n_attacks, n_cols, max_attempts, window, rng, progress
        )
    else:
        empty = Predicates(*(np.zeros((0, 1), dtype=t) for t in (np.int64, np.int8, np.int64)))
        search = Search(empty, 0, True, window or 0)
    queries = search.predicates
    progress(0.8, f"singling out ({mode}): checking {len(queries)} predicates")
    n_success = int((ori_index.count(queries) == 1).sum())
    control_counts = ctl_index.count(queries)
    correction = correct_control_count(control_counts, len(ctl), len(ori))
    n_control_corrected = int(min(n_attacks, max(0, round(correction.corrected))))
    baseline_cols = 1 if mode == "univariate" else n_cols
    if len(rel):
        random_queries = _random_predicates(rel, enc, n_attacks, baseline_cols, rng)
        n_baseline = int((ori_index.count(random_queries) == 1).sum())
    else:
        n_baseline = 0
    attack = success_rate(n_success, n_attacks, confidence)
    ctrl = success_rate(n_control_corrected, n_attacks, confidence)
    base = success_rate(n_baseline, n_attacks, confidence)
    risk, ci = residual_risk(attack, ctrl, confidence)
    progress(1.0, f"singling out ({mode}): done")
    return AttackResult(
        attack=f"singling-out-{mode}",
        risk=risk,
        ci=ci,
        attack_rate=attack,
        control_rate=ctrl,
        baseline_rate=base,
        n_attacks=n_attacks,
        confidence=confidence,
        random_state=random_state,
        detail={
            "n_predicates": len(queries),
            "n_predicates_found": len(queries),
            "n_requested": n_attacks,
            "precision": (n_success / len(queries)) if len(queries) else None,
            "n_singled_out": n_success,
            "search": {
                "tries": search.attempts,
                "saturated": search.saturated,
                "window": search.window,
            },
            "correction": correction.to_dict(),
        },
    )
