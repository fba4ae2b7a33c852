"""Field comparators of probabilistic linkage: an external raw value against a released label.

Each comparator turns a pair (external value, released label) into an agreement level:

* ``3`` exact, ``2`` strong, ``1`` weak agreement, ``0`` disagreement, ``-1`` null (a missing
  external value, or a released ``*``/missing label: the pair says nothing either way).

Comparators (the ``kind`` of a column):

``exact``
    3 when the strings are equal, else 0.
``text``
    3 equal; 2 equal after case/space/punctuation folding or Jaro-Winkler >= 0.92; 1 Jaro-Winkler
    >= 0.80 or one is an abbreviation (prefix) of the other (``M`` / ``Male``); else 0.
``number``
    3 equal; 2 within ``abs_tol / 2`` (at least 1); 1 within ``abs_tol`` or ``rel_tol`` of the
    larger magnitude; else 0.
``date``
    3 equal; 2 day and month swapped; 1 within ``days``; else 0 (ISO dates ``YYYY-MM-DD``).
``generalized``
    the released label is a generalized label (an interval ``[20, 30)``/``[20-29]``/ARX ``20-29``,
    ``<20``/``>=90``, a masked code ``021**``, a date's month/quarter/year/decade, an ancestor in
    the hierarchy). 2 the label contains the value; 1 it contains a nearby value (the number within
    ``abs_tol``, the date within ``days`` or with day and month swapped, a misspelt or abbreviated
    text corrected to a hierarchy leaf, a masked code with one wrong digit); else 0.

Comparisons are made once per distinct (value, label) pair and looked up per record pair.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import date, timedelta

import numpy as np

from anon_core.data.hierarchy import Hierarchy
from anon_core.errors import ConfigError

NULL = -1
EXACT, STRONG, WEAK, DISAGREE = 3, 2, 1, 0
N_LEVELS = 4
KINDS = ("exact", "text", "number", "date", "generalized")
SUPPRESSED = "*"
NULL_VALUES = frozenset({"", "NULL", "nan", "NaN", "None", "NaT", "<NA>"})
#: Distinct (value, label) pairs one column may compare in Python (text, generalized).
MAX_PAIRS = 2_000_000

_INTERVAL = re.compile(
    r"^\[\s*(-?\d+(?:\.\d+)?)\s*[-,;]\s*(-?\d+(?:\.\d+)?)\s*([\]\[)])$"
)  # [20, 30)  [20-29]  [20-29[
_ARX_RANGE = re.compile(r"^(-?\d+(?:\.\d+)?)\s*-\s*(-?\d+(?:\.\d+)?)$")  # 20-29 (inclusive)
_BOUND = re.compile(r"^(<|<=|>|>=)\s*(-?\d+(?:\.\d+)?)$")
_ISO = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
_MONTH = re.compile(r"^\d{4}-\d{2}$")
_QUARTER = re.compile(r"^(\d{4})-Q([1-4])$")
_YEAR = re.compile(r"^\d{4}$")
_DECADE = re.compile(r"^(\d{3})0s$")
_FOLD = re.compile(r"[\s\-_.,/]+")


# ------------------------------------------------------------------ string similarity
def jaro_winkler(a: str, b: str, prefix_scale: float = 0.1) -> float:
    """Jaro-Winkler similarity (Winkler 1990): 1.0 for equal strings, 0.0 for nothing in common."""
    if a == b:
        return 1.0
    la, lb = len(a), len(b)
    if la == 0 or lb == 0:
        return 0.0
    window = max(0, max(la, lb) // 2 - 1)
    a_flags = [False] * la
    b_flags = [False] * lb
    matches = 0
    for i, ch in enumerate(a):
        lo, hi = max(0, i - window), min(lb, i + window + 1)
        for j in range(lo, hi):
            if not b_flags[j] and b[j] == ch:
                a_flags[i] = b_flags[j] = True
                matches += 1
                break
    if matches == 0:
        return 0.0
    transpositions, j = 0, 0
    for i in range(la):
        if a_flags[i]:
            while not b_flags[j]:
                j += 1
            if a[i] != b[j]:
                transpositions += 1
            j += 1
    m = float(matches)
    jaro = (m / la + m / lb + (m - transpositions / 2) / m) / 3.0
    prefix = 0
    for x, y in zip(a[:4], b[:4], strict=False):
        if x != y:
            break
        prefix += 1
    return jaro + prefix * prefix_scale * (1.0 - jaro)


def fold(s: str) -> str:
    """Case, spaces and punctuation folded away (``Never-married`` == ``never married``)."""
    return _FOLD.sub("", s).lower()


def is_null(value: str) -> bool:
    return value in NULL_VALUES


def text_level(a: str, b: str) -> int:
    if is_null(a) or is_null(b) or b == SUPPRESSED:
        return NULL
    if a == b:
        return EXACT
    fa, fb = fold(a), fold(b)
    if fa == fb:
        return STRONG
    sim = jaro_winkler(fa, fb)
    if sim >= 0.92:
        return STRONG
    if sim >= 0.80 or (fa and fb and (fb.startswith(fa) or fa.startswith(fb))):
        return WEAK
    return DISAGREE


# ------------------------------------------------------------------ parsing
def to_float(values: Sequence[str] | np.ndarray) -> np.ndarray:
    """Floats of the strings (NaN where not a number)."""
    out = np.full(len(values), np.nan)
    for i, v in enumerate(values):
        try:
            out[i] = float(v)
        except (TypeError, ValueError):
            pass
    return out


def to_days(values: Sequence[str] | np.ndarray) -> np.ndarray:
    """Days since 1970-01-01 of ISO dates (NaN where not one)."""
    out = np.full(len(values), np.nan)
    for i, v in enumerate(values):
        d = _parse_date(str(v))
        if d is not None:
            out[i] = (d - date(1970, 1, 1)).days
    return out


def _parse_date(v: str) -> date | None:
    m = _ISO.match(v[:10]) if len(v) >= 10 else None
    if m is None:
        return None
    try:
        return date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return None


def _swapped(d: date) -> date | None:
    if d.day > 12 or d.day == d.month:
        return None
    try:
        return date(d.year, d.day, d.month)
    except ValueError:
        return None


# ------------------------------------------------------------------ containment
def is_generalized_label(label: str, leaves: set[str] | None = None) -> bool:
    """Whether ``label`` looks like a generalized label rather than a raw value."""
    if label == SUPPRESSED or is_null(label):
        return False
    if leaves is not None:
        return label not in leaves
    return bool(
        _INTERVAL.match(label)
        or _BOUND.match(label)
        or (_ARX_RANGE.match(label) and not _ISO.match(label))
        or ("*" in label)
        or _MONTH.match(label)
        or _QUARTER.match(label)
        or _DECADE.match(label)
    )


def contains(label: str, value: str, ancestors: Mapping[str, set[str]] | None = None) -> bool:
    """Whether the released ``label`` covers the raw ``value``."""
    if label == value or label == SUPPRESSED:
        return True
    if ancestors is not None and value in ancestors:
        return label in ancestors[value]
    try:
        x = float(value)
    except ValueError:
        x = None
    if x is not None:
        m = _INTERVAL.match(label)
        if m:
            lo, hi = float(m.group(1)), float(m.group(2))
            return lo <= x <= hi if m.group(3) == "]" else lo <= x < hi
        m = _ARX_RANGE.match(label)
        if m:
            return float(m.group(1)) <= x <= float(m.group(2))
        m = _BOUND.match(label)
        if m:
            op, b = m.group(1), float(m.group(2))
            return {"<": x < b, "<=": x <= b, ">": x > b, ">=": x >= b}[op]
    d = _parse_date(value)
    if d is not None:
        iso = d.isoformat()
        if label in (iso[:7], iso[:4]):
            return True
        m = _QUARTER.match(label)
        if m:
            return int(m.group(1)) == d.year and int(m.group(2)) == (d.month - 1) // 3 + 1
        m = _DECADE.match(label)
        if m:
            return str(d.year)[:3] == m.group(1)
    if "*" in label and len(label) == len(value):
        return all(c == "*" or c == v for c, v in zip(label, value, strict=True))
    return False


class GeneralizedComparator:
    """Levels of raw values against generalized labels of one column (see the module docstring)."""

    def __init__(
        self,
        hierarchy: Hierarchy | None,
        labels: Sequence[str],
        abs_tol: float = 2.0,
        days: int = 31,
    ) -> None:
        self.ancestors: dict[str, set[str]] | None = None
        if hierarchy is not None:
            table = hierarchy.table.astype(str)
            self.ancestors = {row[0]: set(row) for row in table}
        leaves = list(self.ancestors) if self.ancestors is not None else []
        self.leaves = leaves
        self.folded = {fold(v): v for v in leaves}
        self.labels = list(labels)
        self.abs_tol = abs_tol
        self.days = days
        self._near_cache: dict[str, list[str]] = {}

    def _neighbours(self, value: str) -> list[str]:
        """Nearby raw values of ``value``: shifted numbers or dates, corrected spellings."""
        if value in self._near_cache:
            return self._near_cache[value]
        out: list[str] = []
        try:
            x = float(value)
        except ValueError:
            x = None
        d = _parse_date(value)
        if x is not None:
            steps = int(max(1, self.abs_tol))
            for k in range(1, steps + 1):
                for y in (x - k, x + k):
                    out.append(str(int(y)) if float(y).is_integer() else str(y))
        elif d is not None:
            s = _swapped(d)
            if s is not None:
                out.append(s.isoformat())
            for k in (self.days, -self.days):
                out.append((d + timedelta(days=k)).isoformat())
        elif self.leaves:
            f = fold(value)
            if f in self.folded:
                out.append(self.folded[f])
            else:
                scored = [(jaro_winkler(f, fold(leaf)), leaf) for leaf in self.leaves]
                best = max(s for s, _ in scored) if scored else 0.0
                if best >= 0.88:
                    out += [leaf for s, leaf in scored if s == best]
                elif f:
                    out += [leaf for leaf in self.leaves if fold(leaf).startswith(f)]
        self._near_cache[value] = out
        return out

    def level(self, value: str, label: str) -> int:
        if is_null(value) or is_null(label) or label == SUPPRESSED:
            return NULL
        if contains(label, value, self.ancestors):
            return STRONG
        if any(contains(label, v, self.ancestors) for v in self._neighbours(value)):
            return WEAK
        if "*" in label and len(label) == len(value):
            wrong = sum(c != "*" and c != v for c, v in zip(label, value, strict=True))
            if wrong <= 1:
                return WEAK
        return DISAGREE


# ------------------------------------------------------------------ level tables
def detect_kind(labels: Sequence[str], hierarchy: Hierarchy | None) -> str:
    """The comparator a column gets by default, from its distinct released labels."""
    vals = [v for v in labels if not is_null(v) and v != SUPPRESSED]
    if not vals:
        return "exact"
    leaves = set(hierarchy.table[:, 0].astype(str)) if hierarchy is not None else None
    if leaves is not None:
        generalized = any(v not in leaves for v in vals)
    else:
        generalized = any(is_generalized_label(v) for v in vals)
    if generalized:
        return "generalized"
    nums = to_float(vals)
    if np.isfinite(nums).mean() >= 0.95:
        return "number"
    if all(_ISO.match(v) for v in vals):
        return "date"
    return "text"


def level_table(
    kind: str,
    values: np.ndarray,
    labels: np.ndarray,
    *,
    hierarchy: Hierarchy | None = None,
    abs_tol: float = 2.0,
    rel_tol: float = 0.05,
    days: int = 31,
    name: str = "",
) -> np.ndarray:
    """int8 matrix of levels: distinct external ``values`` x distinct released ``labels``."""
    values = np.asarray(values, dtype=object).astype(str)
    labels = np.asarray(labels, dtype=object).astype(str)
    nv, nl = len(values), len(labels)
    v_null = np.array([is_null(v) for v in values], dtype=bool)
    l_null = np.array([is_null(v) or v == SUPPRESSED for v in labels], dtype=bool)
    if kind == "exact":
        out = np.where(values[:, None] == labels[None, :], EXACT, DISAGREE).astype(np.int8)
    elif kind in ("number", "date"):
        a = to_float(values) if kind == "number" else to_days(values)
        b = to_float(labels) if kind == "number" else to_days(labels)
        diff = np.abs(a[:, None] - b[None, :])
        out = np.full((nv, nl), DISAGREE, dtype=np.int8)
        if kind == "number":
            scale = np.maximum(np.abs(a)[:, None], np.abs(b)[None, :])
            out[(diff <= abs_tol) | (diff <= rel_tol * scale)] = WEAK
            out[diff <= max(1.0, abs_tol / 2)] = STRONG
        else:
            out[diff <= days] = WEAK
            swapped = np.array(
                [
                    np.nan
                    if (d := _parse_date(v)) is None or (s := _swapped(d)) is None
                    else (s - date(1970, 1, 1)).days
                    for v in values
                ]
            )
            out[swapped[:, None] == b[None, :]] = STRONG
        out[diff == 0] = EXACT
        # Values that are no number/date: compare as text equality.
        bad_a, bad_b = ~np.isfinite(a), ~np.isfinite(b)
        odd = bad_a[:, None] | bad_b[None, :]
        out[odd] = np.where(values[:, None] == labels[None, :], EXACT, DISAGREE)[odd]
    elif kind in ("text", "generalized"):
        if nv * nl > MAX_PAIRS:
            raise ConfigError(
                f"Column {name!r} has {nv:,} distinct external values and {nl:,} distinct released "
                f"values: {nv * nl:,} pairs, more than {MAX_PAIRS:,} to compare approximately. "
                f"Compare it exactly (comparators {{{name!r}: 'exact'}}) or leave it out."
            )
        if kind == "text":
            out = np.array(
                [[text_level(v, lab) for lab in labels] for v in values], dtype=np.int8
            ).reshape(nv, nl)
        else:
            comp = GeneralizedComparator(hierarchy, labels, abs_tol=abs_tol, days=days)
            out = np.array(
                [[comp.level(v, lab) for lab in labels] for v in values], dtype=np.int8
            ).reshape(nv, nl)
    else:
        raise ConfigError(
            f"Unknown comparator {kind!r} for column {name!r}; choose one of {', '.join(KINDS)}."
        )
    out[v_null, :] = NULL
    out[:, l_null] = NULL
    return out
