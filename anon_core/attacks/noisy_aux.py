"""A seeded noisy copy of a table: the auxiliary data a real attacker holds.

Real auxiliary data (a voter list, a leaked customer file, a social-media scrape) is never a
clean copy of the released records: names and places carry typos, ages are a year or two off,
dates have day and month swapped, fields are missing and categories are coded differently
(``M`` for ``Male``). :func:`noisy_aux` applies such errors at given rates, seeded, so that tests
and demonstrations of :mod:`anon_core.attacks.probabilistic_linkage` are reproducible.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date

import numpy as np
import pandas as pd

from anon_core.errors import ConfigError
from anon_core.validation import check_float, check_int

_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def _typo(rng: np.random.Generator, s: str) -> str:
    """One substitution, transposition or deletion at a random position."""
    if len(s) < 2:
        return s + _LETTERS[int(rng.integers(26))]
    kind = int(rng.integers(3))
    i = int(rng.integers(len(s) - 1))
    if kind == 0:
        # a digit becomes another digit (a mistyped ZIP code stays digits), a letter a letter
        letters = (
            "0123456789" if s[i].isdigit() else _LETTERS.upper() if s[i].isupper() else _LETTERS
        )
        c = letters[int(rng.integers(len(letters)))]
        if c == s[i]:
            c = letters[(letters.index(c) + 1) % len(letters)]
        return s[:i] + c + s[i + 1 :]
    if kind == 1 and s[i] != s[i + 1]:
        return s[:i] + s[i + 1] + s[i] + s[i + 2 :]
    return s[:i] + s[i + 1 :]


def _swap_day_month(s: str) -> str:
    try:
        d = date.fromisoformat(s[:10])
    except ValueError:
        return s
    if d.day > 12 or d.day == d.month:
        return s
    return date(d.year, d.day, d.month).isoformat()


def _kind(series: pd.Series) -> str:
    if pd.api.types.is_bool_dtype(series):
        return "text"
    if pd.api.types.is_numeric_dtype(series):
        return "number"
    if pd.api.types.is_datetime64_any_dtype(series):
        return "date"
    present = series.dropna()
    text = present.astype(str)
    if text.str.match(r"[+-]?0\d").any():
        return "text"  # digits with a leading zero are a code (a ZIP code), not a number
    if len(present) and pd.to_numeric(present, errors="coerce").notna().all():
        return "number"  # numbers read as text (e.g. a CSV column kept as strings)
    sample = text.head(50)
    if len(sample) and sample.str.fullmatch(r"\d{4}-\d{2}-\d{2}").all():
        return "date"
    return "text"


def noisy_aux(
    frame: pd.DataFrame,
    columns: Sequence[str],
    random_state: int = 0,
    *,
    typo_rate: float = 0.05,
    number_rate: float = 0.05,
    date_rate: float = 0.05,
    missing_rate: float = 0.02,
    recode_rate: float = 0.02,
    recodings: Mapping[str, Mapping[str, str]] | None = None,
    keep: Sequence[str] = (),
) -> pd.DataFrame:
    """A copy of ``frame[keep + columns]`` with seeded errors in ``columns``.

    Per cell of a noisy column at most one error: missing (``missing_rate``), another coding
    (``recode_rate``: the ``recodings[column]`` mapping when given, else a text's first letter,
    ``Male -> M``), and by kind: text gets a typo (``typo_rate``: substitution, transposition or
    deletion), numbers shift by +-1 or +-2 (``number_rate``), ISO dates get day and month swapped
    (``date_rate``). ``keep`` columns (e.g. an identifier) are copied unchanged. Numeric columns
    stay numeric (missing -> NaN); other columns become strings (missing -> None).
    """
    seed = check_int("random_state", random_state, minimum=0)
    rates = {
        "typo_rate": typo_rate,
        "number_rate": number_rate,
        "date_rate": date_rate,
        "missing_rate": missing_rate,
        "recode_rate": recode_rate,
    }
    for name, value in rates.items():
        check_float(name, value, 0.0, 1.0)
    unknown = [c for c in [*columns, *keep] if c not in frame.columns]
    if unknown:
        raise ConfigError(
            f"noisy_aux: column(s) {unknown} are not in the table; its columns are {list(frame.columns)}."
        )
    recodings = dict(recodings or {})
    rng = np.random.default_rng(seed)
    out = frame[list(dict.fromkeys([*keep, *columns]))].copy().reset_index(drop=True)
    n = len(out)
    for col in columns:
        kind = _kind(out[col])
        u = rng.random(n)
        pick = rng.random(n)
        missing = u < missing_rate
        recode = (u >= missing_rate) & (u < missing_rate + recode_rate)
        err_rate = {"text": typo_rate, "number": number_rate, "date": date_rate}[kind]
        error = (u >= missing_rate + recode_rate) & (u < missing_rate + recode_rate + err_rate)
        if kind == "number":
            values = pd.to_numeric(out[col], errors="coerce").to_numpy(dtype=float, na_value=np.nan)
            shift = np.where(pick < 0.5, 1.0, 2.0) * np.where(rng.random(n) < 0.5, -1.0, 1.0)
            values[error] = values[error] + shift[error]
            values[missing] = np.nan
            finite = values[np.isfinite(values)]
            integral = bool(len(finite)) and bool(np.all(np.mod(finite, 1) == 0))
            series = pd.Series(values)
            out[col] = series.astype("Int64") if integral else series
            continue
        if kind == "date" and pd.api.types.is_datetime64_any_dtype(out[col]):
            text = out[col].dt.strftime("%Y-%m-%d")
        else:
            text = out[col].astype(str).where(out[col].notna(), None)
        values = text.to_numpy(dtype=object).copy()
        mapping = recodings.get(col)
        for i in np.flatnonzero(recode):
            v = values[i]
            if v is None or kind != "text":
                continue
            values[i] = mapping.get(v, v) if mapping is not None else v[:1]
        for i in np.flatnonzero(error):
            v = values[i]
            if v is None:
                continue
            values[i] = _swap_day_month(v) if kind == "date" else _typo(rng, v)
        values[missing] = None
        out[col] = values
    return out
