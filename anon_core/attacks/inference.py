"""Inference attack (anonymeter's InferenceEvaluator, PETS 2023 section 3.3).

The attacker knows a target's ``aux_columns`` and guesses its ``secret`` as the secret of the
nearest released record on those columns. A guess is right when it equals the secret (both
missing counts as equal) or, for a numeric secret (``regression``), when it is within 5% of it.
Targets are original records (main attack) or control records never released (control
attack); the baseline guesses the secret of a random released record.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from anon_core.attacks.encoding import MISSING, encode_tables, is_numeric_column
from anon_core.attacks.inputs import check_columns, check_common, check_tables
from anon_core.attacks.neighbors import nearest
from anon_core.attacks.results import AttackResult
from anon_core.attacks.stats import residual_risk, success_rate
from anon_core.errors import ConfigError
from anon_core.validation import check_bool

TOLERANCE = 0.05


def right_guesses(guess: np.ndarray, truth: np.ndarray, values: np.ndarray | None) -> np.ndarray:
    """Right guesses: equal codes, or (``values`` given) a relative error within TOLERANCE.

    anonymeter divides by the guess; we divide by its absolute value so that a negative guess
    is not accepted whatever its error.
    """
    both_missing = (guess == MISSING) & (truth == MISSING)
    if values is None:
        return (guess == truth) | both_missing
    present = (guess != MISSING) & (truth != MISSING)
    g = np.where(present, values[np.maximum(guess, 0)], np.nan)
    t = np.where(present, values[np.maximum(truth, 0)], np.nan)
    with np.errstate(invalid="ignore"):
        close = np.abs(g - t) / (np.abs(g) + 1e-12) <= TOLERANCE
    return (present & close) | both_missing


def inference(
    original: pd.DataFrame,
    released: pd.DataFrame,
    control: pd.DataFrame,
    *,
    secret: str,
    aux_columns: Sequence[str] | None = None,
    n_attacks: int = 2000,
    regression: bool | None = None,
    random_state: int | None = None,
    progress: Callable[[float, str], None] | None = None,
    confidence: float = 0.95,
) -> AttackResult:
    """Inference risk of ``secret`` given ``aux_columns`` (default: every other column).

    ``regression`` None means: numeric secrets are guessed within 5%, others exactly.
    ``n_attacks`` targets are drawn without replacement (at most the table's size) from the
    original and from the control records; the baseline uses as many random released records.
    """
    columns = check_tables(original, released, control)
    n_attacks, progress = check_common(n_attacks, random_state, progress)
    if not isinstance(secret, str) or secret not in columns:
        raise ConfigError(
            f"'secret' must be one column of the tables, got {secret!r}; the columns are {columns}."
        )
    if aux_columns is None:
        aux = [c for c in columns if c != secret]
        if not aux:
            raise ConfigError(
                f"'aux_columns': the tables have no column besides the secret {secret!r}; "
                "the attacker needs at least one known column."
            )
    else:
        aux = check_columns("aux_columns", aux_columns, columns)
    if secret in aux:
        raise ConfigError(
            f"'aux_columns' contains the secret {secret!r}; the attacker cannot know it."
        )
    frames = [original, released, control]
    if regression is None:
        regression = is_numeric_column(frames, secret)
    regression = check_bool("regression", regression)
    if regression and not is_numeric_column(frames, secret):
        raise ConfigError(
            f"'regression' is true but the secret {secret!r} is not numeric in every table; "
            "set regression to false."
        )
    rng = np.random.default_rng(random_state)
    used = [*aux, secret]
    enc = encode_tables([f[used] for f in frames], used)
    cols, s = enc.index(aux), len(aux)
    values = enc.levels[s].astype(float) if regression else None
    released_secret = enc.codes[1][:, s]
    counts = {}
    for step, (name, table) in enumerate((("attack", 0), ("control", 2))):
        progress(step / 2, f"inference ({secret}): {name} targets")
        n = min(n_attacks, len(enc.codes[table]))
        targets = rng.choice(len(enc.codes[table]), size=n, replace=False)
        guess = released_secret[nearest(enc, table, targets, 1, cols, 1, rng)[:, 0]]
        counts[name] = (int(right_guesses(guess, enc.codes[table][targets, s], values).sum()), n)
    n_base = min(counts["attack"][1], len(released))
    targets = rng.choice(len(enc.codes[0]), size=n_base, replace=False)
    guess = released_secret[rng.choice(len(released), size=n_base, replace=False)]
    n_baseline = int(right_guesses(guess, enc.codes[0][targets, s], values).sum())
    attack = success_rate(*counts["attack"], confidence)
    ctrl = success_rate(*counts["control"], confidence)
    base = success_rate(n_baseline, n_base, confidence)
    risk, ci = residual_risk(attack, ctrl, confidence)
    progress(1.0, f"inference ({secret}): done")
    return AttackResult(
        attack="inference",
        risk=risk,
        ci=ci,
        attack_rate=attack,
        control_rate=ctrl,
        baseline_rate=base,
        n_attacks=counts["attack"][1],
        confidence=confidence,
        random_state=random_state,
        detail={"secret": secret, "aux_columns": list(aux), "regression": regression},
    )
