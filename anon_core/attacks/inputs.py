"""Argument checks shared by the attacks: one clear ConfigError naming the parameter and the fix."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from anon_core.errors import ConfigError
from anon_core.validation import check_int

Progress = Callable[[float, str], None]


def no_progress(fraction: float, message: str = "") -> None:
    """The default progress callback: ignore."""


def check_tables(
    original: Any, released: Any, control: Any, *, allow_empty_released: bool = False
) -> list[str]:
    """The shared column list of the three tables, or ConfigError on a mismatch or an empty table."""
    for name, frame in (("original", original), ("released", released), ("control", control)):
        if not isinstance(frame, pd.DataFrame):
            raise ConfigError(
                f"'{name}' must be a pandas DataFrame, got {type(frame).__name__}; load the table first."
            )
        if len(frame) == 0 and not (name == "released" and allow_empty_released):
            what = {
                "original": "the records that were released (before protection)",
                "released": "the protected table",
                "control": "records of the same population that were never released",
            }[name]
            raise ConfigError(
                f"The '{name}' table is empty: the attacks need {what}; give a non-empty table."
            )
        if frame.columns.duplicated().any():
            dup = sorted({str(c) for c in frame.columns[frame.columns.duplicated()]})
            raise ConfigError(f"The '{name}' table repeats column(s) {dup}; give each column once.")
    columns = [str(c) for c in released.columns]
    for name, frame in (("original", original), ("control", control)):
        mine = [str(c) for c in frame.columns]
        if set(mine) != set(columns):
            missing = sorted(set(columns) - set(mine))
            extra = sorted(set(mine) - set(columns))
            raise ConfigError(
                f"The '{name}' table's columns differ from the released table's: missing {missing}, "
                f"extra {extra}; give the three tables the same columns."
            )
    return columns


def check_columns(name: str, value: Any, columns: Sequence[str]) -> list[str]:
    """A non-empty list of distinct known column names."""
    if isinstance(value, str) or not isinstance(value, Sequence | np.ndarray | pd.Index):
        raise ConfigError(f"'{name}' must be a list of column names, got {value!r}.")
    names = [str(v) for v in value]
    if not names:
        raise ConfigError(f"'{name}' is empty; name at least one column of {list(columns)}.")
    unknown = [n for n in names if n not in columns]
    if unknown:
        raise ConfigError(
            f"'{name}' names unknown column(s) {unknown}; the tables' columns are {list(columns)}."
        )
    if len(set(names)) != len(names):
        raise ConfigError(f"'{name}' repeats a column: {names}; name each column once.")
    return names


#: The most guesses one attack makes (50x the default 2,000; singling out tries 1,000 per guess).
MAX_N_ATTACKS = 100_000


def check_common(n_attacks: Any, random_state: Any, progress: Any) -> tuple[int, Progress]:
    """``n_attacks`` (>= 1), a seed that is None or a whole number, and a callable progress."""
    n = check_int("n_attacks", n_attacks, 1, MAX_N_ATTACKS)  # bounded: each guess costs work
    if random_state is not None and (
        isinstance(random_state, bool) or not isinstance(random_state, int | np.integer)
    ):
        raise ConfigError(f"'random_state' must be a whole number or None, got {random_state!r}.")
    if progress is not None and not callable(progress):
        raise ConfigError(
            f"'progress' must be a function (fraction, message) or None, got {progress!r}."
        )
    return n, progress or no_progress
