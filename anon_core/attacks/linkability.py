"""Linkability attack (anonymeter's LinkabilityEvaluator, PETS 2023 section 3.2).

The attacker holds two tables about the same people with disjoint columns (``aux_columns``)
and uses the release to join them: for a target record, the nearest released record on the
first group and on the second group are looked up; the link succeeds when the two share a
released record among their ``n_neighbors`` nearest. Targets are original records (main
attack) or control records never released (control attack); the baseline links random
released records.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from anon_core.attacks.encoding import encode_tables
from anon_core.attacks.inputs import check_columns, check_common, check_tables
from anon_core.attacks.neighbors import nearest
from anon_core.attacks.results import AttackResult
from anon_core.attacks.stats import residual_risk, success_rate
from anon_core.errors import ConfigError
from anon_core.validation import check_int


def _links(first: np.ndarray, second: np.ndarray) -> int:
    """How many rows have a common index in ``first`` and ``second`` (n x k each)."""
    common = (first[:, :, None] == second[:, None, :]).any(axis=(1, 2))
    return int(common.sum())


def _random_neighbors(n_released: int, n: int, k: int, rng: np.random.Generator) -> np.ndarray:
    if k == 1:
        return rng.integers(0, n_released, size=(n, 1))
    return np.array([rng.choice(n_released, size=k, replace=False) for _ in range(n)])


def check_aux_columns(value, columns: Sequence[str]) -> tuple[list[str], list[str]]:
    """Two non-empty, disjoint lists of known columns."""
    if isinstance(value, str | bytes) or not isinstance(value, Sequence) or len(value) != 2:
        raise ConfigError(
            f"'aux_columns' must be two lists of column names (the attacker's two tables), got {value!r}."
        )
    first = check_columns("aux_columns[0]", value[0], columns)
    second = check_columns("aux_columns[1]", value[1], columns)
    both = sorted(set(first) & set(second))
    if both:
        raise ConfigError(
            f"'aux_columns' groups share column(s) {both}; the attacker's two tables must have "
            "disjoint columns."
        )
    return first, second


def linkability(
    original: pd.DataFrame,
    released: pd.DataFrame,
    control: pd.DataFrame,
    *,
    aux_columns: tuple[Sequence[str], Sequence[str]],
    n_attacks: int = 2000,
    n_neighbors: int = 1,
    random_state: int | None = None,
    progress: Callable[[float, str], None] | None = None,
    confidence: float = 0.95,
) -> AttackResult:
    """Linkability risk: how often the release joins the two ``aux_columns`` groups of a
    released record, beyond what it does for a record never released.

    ``n_attacks`` targets are drawn without replacement (at most the table's size) from the
    original and from the control records; each rate is over its own number of targets.
    """
    columns = check_tables(original, released, control)
    n_attacks, progress = check_common(n_attacks, random_state, progress)
    first, second = check_aux_columns(aux_columns, columns)
    n_neighbors = check_int("n_neighbors", n_neighbors, minimum=1)
    rng = np.random.default_rng(random_state)
    used = [*first, *second]
    enc = encode_tables([original[used], released[used], control[used]], used)
    groups = (enc.index(first), enc.index(second))
    n_released = len(released)
    k = min(n_neighbors, n_released)
    counts = {}
    for step, (name, table) in enumerate((("attack", 0), ("control", 2))):
        n = min(n_attacks, len(enc.codes[table]))
        targets = rng.choice(len(enc.codes[table]), size=n, replace=False)
        found = []
        for g, cols in enumerate(groups):
            progress((2 * step + g) / 4, f"linkability: {name} targets, group {g + 1}")
            found.append(nearest(enc, table, targets, 1, cols, k, rng))
        counts[name] = (_links(*found), n)
    n_base = counts["attack"][1]
    baseline = _links(
        _random_neighbors(n_released, n_base, k, rng), _random_neighbors(n_released, n_base, k, rng)
    )
    attack = success_rate(*counts["attack"], confidence)
    ctrl = success_rate(*counts["control"], confidence)
    base = success_rate(baseline, n_base, confidence)
    risk, ci = residual_risk(attack, ctrl, confidence)
    progress(1.0, "linkability: done")
    return AttackResult(
        attack="linkability",
        risk=risk,
        ci=ci,
        attack_rate=attack,
        control_rate=ctrl,
        baseline_rate=base,
        n_attacks=counts["attack"][1],
        confidence=confidence,
        random_state=random_state,
        detail={"aux_columns": [list(first), list(second)], "n_neighbors": k},
    )
