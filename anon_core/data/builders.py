"""Hierarchy builders: intervals, dates, masking, grouping, ordered grouping.

Each builder takes the distinct labels of a column and returns a validated
:class:`~anon_core.data.hierarchy.Hierarchy`. The missing-value label (``NULL``)
stays ``NULL`` at every level but the top ``*``, so missing values form their
own group until full suppression.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from anon_core.data.hierarchy import Hierarchy, name_values
from anon_core.data.io import MISSING, ColumnKind
from anon_core.errors import HierarchyError
from anon_core.validation import check_choice, check_float, check_int, check_keys

TOP = "*"


def _distinct(values: Sequence[Any] | np.ndarray) -> np.ndarray:
    arr = pd.unique(pd.Series(np.asarray(values, dtype=object)).astype(str))
    return np.asarray(arr, dtype=object)


def _assemble(values: np.ndarray, levels: list[np.ndarray], name: str) -> Hierarchy:
    """Stack level columns, add MISSING rows and a top '*' level when needed."""
    cols = [values] + levels
    if len(pd.unique(cols[-1])) > 1 or len(cols) == 1:
        cols.append(np.full(len(values), TOP, dtype=object))
    table = np.column_stack(cols).astype(object)
    return Hierarchy(table, name=name)


def _split_missing(values: np.ndarray) -> tuple[np.ndarray, bool]:
    mask = values == MISSING
    return values[~mask], bool(mask.any())


def _with_missing(
    core: list[np.ndarray], values: np.ndarray, has_missing: bool
) -> tuple[np.ndarray, list[np.ndarray]]:
    if not has_missing:
        return values, core
    return (
        np.append(values, MISSING),
        [np.append(level, MISSING) for level in core],
    )


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


#: Most intervals a level may have, and most masking levels (checked before any work).
MAX_INTERVALS = 10_000_000
MAX_MASK_LEVELS = 1_000


def _parse_numbers(values: np.ndarray, name: str) -> np.ndarray:
    """The values as floats; +-inf are kept (they are top/bottom-coded), anything else not a number is refused."""
    nums = pd.to_numeric(pd.Series(values), errors="coerce").to_numpy(dtype=float)
    bad = values[np.isnan(nums)]
    if len(bad):
        raise HierarchyError(
            f"Interval hierarchy {name!r} needs numbers, but got {name_values(list(map(str, bad)))}. "
            "Use a grouping or masking hierarchy for this column."
        )
    if not np.isfinite(nums).any():
        raise HierarchyError(
            f"Interval hierarchy {name!r} has no finite number (only {name_values(list(map(str, values)))}). "
            "Use a grouping hierarchy for this column."
        )
    return nums


#: Most entries of a ``fanout``/``sizes`` list and of an ordered builder's ``order``.
MAX_STEPS = 1_000
MAX_ORDER = 1_000_000


def _steps(field: str, value: Any, name: str) -> list[int]:
    """A merge factor (``fanout`` of intervals, ``sizes`` of ordered groups) as a non-empty list of
    whole numbers >= 2; an empty list is refused (it used to fall back to 2 silently)."""
    if isinstance(value, bool) or not isinstance(value, int | float | list | tuple):
        raise HierarchyError(
            f"{field!r} of {name!r} must be a whole number >= 2 or a list of them, got {value!r}."
        )
    steps = [value] if isinstance(value, int | float) else list(value)
    if not steps:
        raise HierarchyError(
            f"{field!r} of {name!r} is an empty list: give at least one whole number >= 2, "
            f"e.g. {field}: [2]."
        )
    if len(steps) > MAX_STEPS:
        raise HierarchyError(
            f"{field!r} of {name!r} has {len(steps):,} entries; at most {MAX_STEPS:,} are used."
        )
    return [check_int(field, f, minimum=2) for f in steps]


def finite_span(values: Sequence[Any] | np.ndarray) -> float:
    """max - min of the finite numbers among ``values`` (0 when there are none)."""
    nums = pd.to_numeric(pd.Series(np.asarray(values, dtype=object)), errors="coerce").to_numpy(
        dtype=float
    )
    nums = nums[np.isfinite(nums)]
    return float(nums.max() - nums.min()) if len(nums) else 0.0


def interval_hierarchy(
    values: Sequence[Any] | np.ndarray,
    width: float,
    fanout: int | Sequence[int] = 2,
    lower: float | None = None,
    upper: float | None = None,
    max_levels: int | None = None,
    name: str = "",
) -> Hierarchy:
    """Numeric intervals ``[a, b)`` of ``width`` at level 1, merged ``fanout`` at a time above.

    Values below ``lower`` are bottom-coded (``<lower``) and values at or above
    ``upper`` top-coded (``>=upper``); both stay coded at every level below ``*``.
    """
    width = check_float("width", width, minimum=0, min_inclusive=False)
    allv, has_missing = _split_missing(_distinct(values))
    if len(allv) == 0:
        raise HierarchyError(f"Interval hierarchy {name!r} has no numeric values to build from.")
    nums = _parse_numbers(allv, name)
    finite = nums[np.isfinite(nums)]  # +-inf fall below 'lower' / at or above 'upper'
    lo = math.floor(finite.min() / width) * width if lower is None else check_float("lower", lower)
    reach = (finite.max() - lo) / width if upper is None else 0.0  # inf: the span overflows
    hi_default = lo + (math.floor(reach) + 1) * width if math.isfinite(reach) else math.inf
    hi = hi_default if upper is None else check_float("upper", upper)
    if not (math.isfinite(lo) and math.isfinite(hi) and math.isfinite((hi - lo) / width)):
        raise HierarchyError(
            f"Interval hierarchy {name!r}: the values' range divided by width {width:g} is too "
            "large a number (extreme values such as 1e308?); choose a larger width, or give "
            "'lower' and 'upper' to bottom- and top-code the extremes."
        )
    if hi <= lo:
        raise HierarchyError(f"'upper' ({hi}) must be greater than 'lower' ({lo}).")
    fanouts = _steps("fanout", fanout, name)
    if max_levels is not None:
        max_levels = check_int("max_levels", max_levels, minimum=1)
    n_bins = math.ceil((hi - lo) / width)
    if n_bins > MAX_INTERVALS:
        raise HierarchyError(
            f"Interval hierarchy {name!r}: width {width:g} cuts the range [{_fmt(lo)}, {_fmt(hi)}) into "
            f"{n_bins:,} intervals, more than {MAX_INTERVALS:,}. Choose a larger width."
        )
    below, above = nums < lo, nums >= hi
    inside = ~below & ~above
    idx = np.zeros(len(nums), dtype=np.int64)
    idx[inside] = np.floor((nums[inside] - lo) / width).astype(np.int64)
    levels: list[np.ndarray] = []
    span, groups = 1, n_bins
    level_no = 0
    while True:
        level_no += 1
        gidx = idx // span
        a = lo + gidx * span * width
        b = np.minimum(a + span * width, hi)
        labels = np.array(
            [f"[{_fmt(x)}, {_fmt(y)})" for x, y in zip(a, b, strict=True)], dtype=object
        )
        labels[below] = f"<{_fmt(lo)}"
        labels[above] = f">={_fmt(hi)}"
        levels.append(labels)
        if groups <= 1 or (max_levels is not None and level_no >= max_levels):
            break
        f = fanouts[min(level_no - 1, len(fanouts) - 1)]
        span *= f
        groups = math.ceil(groups / f)
    values_out, levels = _with_missing(levels, allv, has_missing)
    return _assemble(values_out, levels, name)


DATE_LEVELS = ("month", "quarter", "year", "decade")


def date_hierarchy(
    values: Sequence[Any] | np.ndarray,
    levels: Sequence[str] = DATE_LEVELS,
    name: str = "",
) -> Hierarchy:
    """Dates generalized day -> month (YYYY-MM) -> quarter (YYYY-Qn) -> year -> decade -> ``*``."""
    for lv in levels:
        check_choice("levels", lv, DATE_LEVELS)
    allv, has_missing = _split_missing(_distinct(values))
    parsed = pd.to_datetime(pd.Series(allv), errors="coerce", format="mixed")
    bad = allv[parsed.isna().to_numpy()]
    if len(bad):
        raise HierarchyError(
            f"Date hierarchy {name!r} cannot parse {name_values(list(map(str, bad)))} as dates. "
            "Use ISO dates (YYYY-MM-DD) or another hierarchy type."
        )
    out = []
    for lv in levels:
        if lv == "month":
            lab = parsed.dt.strftime("%Y-%m")
        elif lv == "quarter":
            lab = parsed.dt.year.astype(str) + "-Q" + parsed.dt.quarter.astype(str)
        elif lv == "year":
            lab = parsed.dt.year.astype(str)
        else:
            lab = (parsed.dt.year // 10 * 10).astype(str) + "s"
        out.append(lab.to_numpy(dtype=object))
    values_out, out = _with_missing(out, allv, has_missing)
    return _assemble(values_out, out, name)


def masking_hierarchy(
    values: Sequence[Any] | np.ndarray,
    levels: int | None = None,
    char: str = "*",
    name: str = "",
) -> Hierarchy:
    """Mask one more trailing character per level (``02139 -> 0213* -> 021**``)."""
    allv, has_missing = _split_missing(_distinct(values))
    if len(allv) == 0:
        raise HierarchyError(f"Masking hierarchy {name!r} has no values to build from.")
    s = pd.Series(allv, dtype=object).astype(str)
    max_len = int(s.str.len().max())
    if not isinstance(char, str) or len(char) != 1:
        raise HierarchyError(f"'char' must be one character such as '*', got {char!r}.")
    n = max_len if levels is None else check_int("levels", levels, minimum=1)
    if n > min(max_len, MAX_MASK_LEVELS):
        raise HierarchyError(
            f"Masking hierarchy {name!r}: 'levels' is {n:,}, but masking more characters than the longest "
            f"value has ({max_len}) adds nothing; use at most {min(max_len, MAX_MASK_LEVELS)}."
        )
    out = []
    lengths = s.str.len()
    for h in range(1, n + 1):
        keep = (lengths - h).clip(lower=0)
        masked = [v[:k] + char * (len(v) - k) for v, k in zip(s, keep, strict=True)]
        out.append(np.array(masked, dtype=object))
    values_out, out = _with_missing(out, allv, has_missing)
    return _assemble(values_out, out, name)


def grouping_hierarchy(
    values: Sequence[Any] | np.ndarray,
    groups: Sequence[Mapping[str, str]],
    name: str = "",
) -> Hierarchy:
    """Categorical grouping from mapping tables, one per level (label -> parent label)."""
    allv, has_missing = _split_missing(_distinct(values))
    if not groups:
        raise HierarchyError("A grouping hierarchy needs at least one mapping level in 'groups'.")
    current = pd.Series(allv, dtype=object)
    out = []
    for h, mapping in enumerate(groups, start=1):
        mapped = current.map(dict(mapping))
        unmapped = current[mapped.isna()].unique().tolist()
        if unmapped:
            raise HierarchyError(
                f"Grouping for {name!r} at level {h} has no group for {name_values(unmapped)}. "
                "Add them to the mapping."
            )
        current = mapped.astype(str)
        out.append(current.to_numpy(dtype=object))
    values_out, out = _with_missing(out, allv, has_missing)
    return _assemble(values_out, out, name)


def ordered_hierarchy(
    values: Sequence[Any] | np.ndarray,
    sizes: Sequence[int] = (2,),
    order: Sequence[str] | None = None,
    name: str = "",
) -> Hierarchy:
    """Group values in a given order into consecutive blocks labelled ``first-last``.

    ``sizes[0]`` values form a level-1 group; each further entry (the last one
    repeats) is how many groups of the level below merge into one.
    """
    allv, has_missing = _split_missing(_distinct(values))
    sizes = _steps("sizes", sizes, name)
    if order is None:
        ordered = natural_order(allv)
    else:
        listed = check_order(order, name)
        known = set(listed)
        absent = [v for v in allv if v not in known]
        if absent:
            raise HierarchyError(
                f"Ordered grouping for {name!r}: 'order' does not list {name_values(absent)}. "
                "List every value of the column, one per line, in the order to group them."
            )
        present = set(allv)
        ordered = [v for v in listed if v in present]
    rank = pd.Series(range(len(ordered)), index=ordered)[allv].to_numpy()
    out = []
    span, level_no, n = 1, 0, len(ordered)
    while n > 1:
        span *= sizes[min(level_no, len(sizes) - 1)]
        level_no += 1
        n_groups = math.ceil(n / span)
        first = np.array([ordered[i * span] for i in range(n_groups)], dtype=object)
        last = np.array(
            [ordered[min((i + 1) * span, n) - 1] for i in range(n_groups)], dtype=object
        )
        lab = np.where(first == last, first, first + "-" + last)
        out.append(lab[rank // span])
        if n_groups <= 1:
            break
    values_out, out = _with_missing(out, allv, has_missing)
    return _assemble(values_out, out, name)


def natural_order(values: Sequence[Any] | np.ndarray) -> list[str]:
    """The default order of an ordered grouping: by number when every value is one, else
    alphabetical (give ``order`` for anything else, e.g. education levels)."""
    allv = np.asarray([str(v) for v in values], dtype=object)
    nums = pd.to_numeric(pd.Series(allv), errors="coerce")
    if len(allv) and nums.notna().all():
        return list(allv[np.argsort(nums.to_numpy(), kind="stable")])
    return sorted(allv)


def check_order(order: Any, name: str = "") -> list[str]:
    """``order`` as a list of distinct labels (a list of values, never a single string)."""
    if isinstance(order, str | bytes) or not isinstance(order, list | tuple | np.ndarray):
        raise HierarchyError(
            f"'order' of {name!r} must be a list of the column's values (one per line on the "
            f"Attributes page), got {type(order).__name__}."
        )
    if len(order) > MAX_ORDER:
        raise HierarchyError(
            f"'order' of {name!r} lists {len(order):,} values; at most {MAX_ORDER:,} are allowed."
        )
    listed = [str(v) for v in order]
    seen: set[str] = set()
    twice = [v for v in listed if v in seen or seen.add(v)]
    if twice:
        raise HierarchyError(
            f"'order' of {name!r} lists {name_values(list(dict.fromkeys(twice)))} more than once; "
            "list each value once."
        )
    return listed


def flat_hierarchy(values: Sequence[Any] | np.ndarray, name: str = "") -> Hierarchy:
    """Two levels: the value, then ``*`` (suppression of the attribute)."""
    allv = _distinct(values)
    return _assemble(allv, [], name)


def _nice_width(span: float, bins: int = 10) -> float:
    raw = max(span / bins, 1e-12)
    mag = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if raw <= m * mag:
            return m * mag
    return 10 * mag  # pragma: no cover


def default_hierarchy(
    values: Sequence[Any] | np.ndarray, kind: ColumnKind | str, name: str = ""
) -> Hierarchy:
    """Propose a hierarchy from a column's kind (numeric/date/categorical/text)."""
    allv = _distinct(values)
    present, _ = _split_missing(allv)
    kind = ColumnKind(kind)
    if len(present) == 0:
        return flat_hierarchy(allv, name)
    if kind == ColumnKind.NUMERIC:
        nums = pd.to_numeric(pd.Series(present), errors="coerce")
        if nums.notna().all():
            span = finite_span(present)
            if span > 0:
                return interval_hierarchy(allv, width=_nice_width(span), fanout=2, name=name)
    if kind == ColumnKind.DATE:
        try:
            return date_hierarchy(allv, name=name)
        except HierarchyError:
            pass
    if kind == ColumnKind.CATEGORICAL:
        s = pd.Series(present).astype(str)
        lengths = s.str.len()
        if (
            len(present) > 2
            and lengths.nunique() == 1
            and lengths.iloc[0] >= 3
            and s.str.isalnum().all()
        ):
            return masking_hierarchy(allv, name=name)
    return flat_hierarchy(allv, name)


BUILDERS = {
    "intervals": interval_hierarchy,
    "dates": date_hierarchy,
    "masking": masking_hierarchy,
    "grouping": grouping_hierarchy,
    "ordered": ordered_hierarchy,
    "flat": flat_hierarchy,
}

_BUILDER_PARAMS = {
    "intervals": {"width", "fanout", "lower", "upper", "max_levels"},
    "dates": {"levels"},
    "masking": {"levels", "char"},
    "grouping": {"groups"},
    "ordered": {"sizes", "order"},
    "flat": set(),
}


def register_builder(name: str, builder: Any, params: set[str]) -> None:
    """Add a builder from a higher package (e.g. the geo grids): ``builder(values, name=...,
    **params)`` returns a Hierarchy; ``params`` are the keys its spec may have."""
    BUILDERS[name] = builder
    _BUILDER_PARAMS[name] = set(params)


def build_hierarchy(
    spec: Mapping[str, Any], values: Sequence[Any] | np.ndarray, name: str = ""
) -> Hierarchy:
    """Build from a configuration spec such as ``{"builder": "masking", "levels": 5}``."""
    builder = check_choice(f"{name}.hierarchy.builder", spec.get("builder"), BUILDERS)
    params = {k: v for k, v in spec.items() if k != "builder"}
    check_keys(f"{name}.hierarchy", params, _BUILDER_PARAMS[builder])
    if builder == "intervals" and "width" not in params:
        params["width"] = _nice_width(finite_span(_split_missing(_distinct(values))[0]) or 1.0)
    return BUILDERS[builder](values, name=name, **params)
