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
from collections.abc import Callable

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
from anon_core.attacks.size_correction import control_size_correction
from anon_core.attacks.stats import residual_risk, success_rate
from anon_core.validation import check_choice, check_int

logger = logging.getLogger(__name__)
MODES = ("univariate", "multivariate")
_BATCH = 1000
_MAX_BATCH = 50_000


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


def _singling_out_queries(
    index: TableIndex,
    enc: EncodedTables,
    mode: str,
    n_attacks: int,
    n_cols: int,
    max_attempts: int | None,
    rng,
    progress: Callable[[float, str], None],
) -> Predicates:
    """Distinct predicates that match exactly one released record, at most ``n_attacks``."""
    table = index.table
    if mode == "univariate":
        candidates = _univariate_candidates(table, enc)
        candidates = candidates.take(rng.permutation(len(candidates)))
        unique = index.count(candidates) == 1
        return candidates.take(np.flatnonzero(unique)[:n_attacks])
    medians = _medians(table, enc)
    kept: list[Predicates] = []
    seen: set[bytes] = set()
    n_kept = attempts = 0
    while n_kept < n_attacks and attempts < max_attempts:
        # grow the batch when few records single out, so the work stays in numpy
        rate = max(n_kept, 1) / max(attempts, _BATCH)
        size = int(min(_MAX_BATCH, max(_BATCH, 1.2 * (n_attacks - n_kept) / rate)))
        size = min(size, max_attempts - attempts)
        batch = _record_predicates(table, enc, medians, size, n_cols, rng)
        attempts += size
        hits = np.flatnonzero(index.count(batch) == 1)
        batch = batch.take(hits)
        fresh = []
        for i, key in enumerate(batch.keys()):
            if key not in seen and n_kept + len(fresh) < n_attacks:
                seen.add(key)
                fresh.append(i)
        if fresh:
            kept.append(batch.take(np.array(fresh)))
            n_kept += len(fresh)
        progress(0.8 * n_kept / n_attacks, f"singling out: {n_kept} predicates")
    if n_kept < n_attacks:
        logger.warning(
            "Singling out (%s) found %d of the %d requested predicates in %d attempts; "
            "the risk may be underestimated.",
            mode,
            n_kept,
            n_attacks,
            attempts,
        )
    if not kept:
        empty = np.zeros((0, n_cols), dtype=np.int64)
        return Predicates(empty, empty.astype(np.int8), empty)
    return concat(kept)


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
) -> AttackResult:
    """Singling-out risk of ``released`` for the records of ``original`` (anonymeter's attack).

    ``mode`` "univariate" uses rare single values, "multivariate" predicates on ``n_cols``
    random columns of random released records (at most ``max_attempts`` tries, default
    ``1000 * n_attacks``). Rates are over ``n_attacks`` guesses, as in anonymeter.
    """
    columns = check_tables(original, released, control, allow_empty_released=True)
    n_attacks, progress = check_common(n_attacks, random_state, progress)
    mode = check_choice("mode", mode, MODES)
    n_cols = check_int("n_cols", n_cols, minimum=1, maximum=len(columns))
    if max_attempts is None:
        max_attempts = 1000 * n_attacks
    max_attempts = check_int("max_attempts", max_attempts, minimum=1)
    rng = np.random.default_rng(random_state)
    # anonymeter deduplicates the tables: a predicate singles out one distinct record
    enc = distinct_rows(encode_tables([original, released, control], columns))
    ori, rel, ctl = enc.codes
    ori_index, rel_index, ctl_index = (TableIndex(t, enc.radices) for t in enc.codes)
    progress(0.0, f"singling out ({mode}): building predicates")
    if len(rel):
        queries = _singling_out_queries(
            rel_index, enc, mode, n_attacks, n_cols, max_attempts, rng, progress
        )
    else:
        queries = Predicates(*(np.zeros((0, 1), dtype=t) for t in (np.int64, np.int8, np.int64)))
    progress(0.8, f"singling out ({mode}): checking {len(queries)} predicates")
    n_success = int((ori_index.count(queries) == 1).sum())
    control_counts = ctl_index.count(queries)
    n_control = float((control_counts == 1).sum())
    correction = 1.0
    if n_control > 0 and len(ctl) != len(ori):
        correction = control_size_correction(control_counts, len(ctl), len(ori))
    n_control_corrected = int(min(n_attacks, max(0, round(n_control * correction))))
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
        detail={"n_predicates": len(queries)},
    )
