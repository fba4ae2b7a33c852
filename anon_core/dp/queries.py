"""Private queries: what may be asked (types, columns, bounds, mechanism) and its validation.

:func:`parse_query` turns one ``dp.queries`` entry into a :class:`DPQuery`; every error is a
:class:`~anon_core.errors.ConfigError` naming the field and the fix.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from anon_core.dp.library import FROM_DATA, MAX_BINS, as_label
from anon_core.errors import ConfigError
from anon_core.validation import check_float, check_int, check_keys, check_mapping

#: Query types and the diffprivlib tool (or mechanism) behind each one.
QUERY_TYPES = {
    "count": "count_nonzero",
    "histogram": "histogram",
    "histogram2d": "histogram2d",
    "sum": "sum",
    "mean": "mean",
    "var": "var",
    "quantile": "quantile",
    "median": "median",
}
NUMERIC_TYPES = ("sum", "mean", "var", "quantile", "median")
QUANTILE_TYPES = ("quantile", "median")
#: Noise-adding mechanisms: "laplace" (pure epsilon-DP: geometric noise on counts, Laplace on
#: sums) and "gaussian" (approximate (epsilon, delta)-DP: discrete Gaussian on counts, analytic
#: Gaussian on sums). Quantiles always use the exponential mechanism (delta 0).
MECHANISMS = ("laplace", "gaussian")
#: Default share of a mean's or variance's budget spent on the noisy count (without a public n).
COUNT_SHARE = 0.25


@dataclass(frozen=True)
class AxisSpec:
    """One column of a query: its bounds (numeric) or categories, and histogram bins.

    ``bounds`` and ``categories`` are a tuple, :data:`FROM_DATA` (``"data"``: taken from the
    data with a privacy warning), or None (not given).
    """

    column: str
    bounds: tuple[float, float] | str | None = None
    categories: tuple[str, ...] | str | None = None
    bins: int | None = None

    @property
    def categorical(self) -> bool:
        return self.categories is not None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"column": self.column}
        if self.bounds is not None:
            out["bounds"] = (
                self.bounds if isinstance(self.bounds, str) else [float(b) for b in self.bounds]
            )
        if self.categories is not None:
            out["categories"] = (
                self.categories if isinstance(self.categories, str) else list(self.categories)
            )
        if self.bins is not None:
            out["bins"] = int(self.bins)
        return out


@dataclass(frozen=True)
class DPQuery:
    """A validated query (build it with :func:`parse_query`).

    ``axes`` holds the query's columns: none (count of rows) or one for every type but
    ``histogram2d``, which has two (x, y). ``mechanism`` and ``delta``: see :data:`MECHANISMS`.
    ``public_n``: the number of values of a numeric query, declared public by the user (the
    query then treats n as known and uses replace-one neighbours); None (default) keeps n
    private: a mean or variance spends ``count_share`` of its budget on a noisy count.
    """

    type: str
    epsilon: float
    axes: tuple[AxisSpec, ...] = ()
    value: str | None = None
    quantiles: tuple[float, ...] = ()
    name: str = ""
    mechanism: str = "laplace"
    delta: float = 0.0
    public_n: int | None = None
    count_share: float = COUNT_SHARE

    @property
    def gaussian(self) -> bool:
        return self.mechanism == "gaussian"

    @property
    def label(self) -> str:
        if self.name:
            return self.name
        cols = ", ".join(a.column for a in self.axes) or "rows"
        if self.type == "quantile":
            qs = ", ".join(f"{q:g}" for q in self.quantiles)
            return f"quantile({cols}; {qs})"
        if self.type == "count" and self.value is not None:
            return f"count({cols} = {self.value})"
        return f"{self.type}({cols})"

    @property
    def columns(self) -> tuple[str, ...]:
        return tuple(a.column for a in self.axes)

    def with_epsilon(self, epsilon: float, delta: float | None = None) -> DPQuery:
        return replace(
            self, epsilon=float(epsilon), delta=self.delta if delta is None else float(delta)
        )

    def to_dict(self) -> dict[str, Any]:
        """The query as written in the ``dp`` section (parse_query(q.to_dict()) == q)."""
        out: dict[str, Any] = {"type": self.type, "epsilon": float(self.epsilon)}
        if self.name:
            out["name"] = self.name
        if self.type == "histogram2d":
            out["x"], out["y"] = self.axes[0].to_dict(), self.axes[1].to_dict()
        elif self.axes:
            out.update(self.axes[0].to_dict())
        if self.value is not None:
            out["value"] = self.value
        if self.type == "quantile":
            out["quantile"] = (
                self.quantiles[0] if len(self.quantiles) == 1 else list(self.quantiles)
            )
        if self.gaussian:
            out["mechanism"], out["delta"] = self.mechanism, float(self.delta)
        if self.public_n is not None:
            out["n"] = int(self.public_n)
        if self.type in ("mean", "var") and self.count_share != COUNT_SHARE:
            out["count_share"] = float(self.count_share)
        return out


def parse_bounds(where: str, value: Any) -> tuple[float, float] | str:
    if value == FROM_DATA:
        return FROM_DATA
    fix = (
        f"'{where}' must be [lower, upper] with lower < upper, from domain knowledge (for example "
        f'[0, 120] for an age), or "data" to take them from the data (this leaks the minimum and '
        f"maximum); got {value!r}."
    )
    if not isinstance(value, list | tuple) or len(value) != 2:
        raise ConfigError(fix)
    lo, hi = value
    for v in (lo, hi):
        if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
            raise ConfigError(fix)
    if not lo < hi:
        raise ConfigError(fix)
    return float(lo), float(hi)


def parse_categories(where: str, value: Any) -> tuple[str, ...] | str:
    if value == FROM_DATA:
        return FROM_DATA
    if (
        not isinstance(value, list | tuple)
        or not value
        or any(isinstance(v, list | dict) for v in value)
    ):
        raise ConfigError(
            f'\'{where}\' must be a non-empty list of values (for example ["F", "M"]), or "data" to take '
            f"the distinct values from the data (this reveals which values occur); got {value!r}."
        )
    cats = tuple(as_label(v) for v in value)
    if len(set(cats)) != len(cats):
        dup = sorted({c for c in cats if cats.count(c) > 1})
        raise ConfigError(f"'{where}' lists {dup} more than once: give each category once.")
    return cats


def _parse_column(where: str, value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise ConfigError(f"'{where}' must be a column name, got {value!r}.")
    return value


def _parse_axis(where: str, raw: Mapping[str, Any], histogram: bool) -> AxisSpec:
    column = _parse_column(f"{where}.column", raw.get("column"))
    has_b, has_c = raw.get("bounds") is not None, raw.get("categories") is not None
    if has_b and has_c:
        raise ConfigError(
            f"'{where}' gives both 'bounds' and 'categories': give 'categories' for a categorical column "
            "or 'bounds' (with 'bins') for a numeric one."
        )
    if histogram and not (has_b or has_c):
        raise ConfigError(
            f"'{where}' needs 'categories' (a list, or \"data\") for a categorical column, or 'bounds' "
            "([lower, upper], or \"data\") with 'bins' for a numeric one."
        )
    bins = None
    if raw.get("bins") is not None:
        if has_c:
            raise ConfigError(
                f"'{where}.bins' applies to numeric columns: a categorical histogram has one bin per category. Remove 'bins'."
            )
        bins = check_int(f"{where}.bins", raw["bins"], minimum=1, maximum=MAX_BINS)
    bounds = parse_bounds(f"{where}.bounds", raw["bounds"]) if has_b else None
    categories = parse_categories(f"{where}.categories", raw["categories"]) if has_c else None
    if histogram and bounds is not None and bins is None:
        bins = 10
    return AxisSpec(column, bounds, categories, bins)


_COMMON_KEYS = {"type", "epsilon", "name", "mechanism", "delta"}
_NUMERIC_KEYS = _COMMON_KEYS | {"column", "bounds", "n"}
_QUERY_KEYS = {
    "count": _COMMON_KEYS | {"column", "value"},
    "histogram": _COMMON_KEYS | {"column", "bounds", "categories", "bins"},
    "histogram2d": _COMMON_KEYS | {"x", "y"},
    "sum": _NUMERIC_KEYS,
    "mean": _NUMERIC_KEYS | {"count_share"},
    "var": _NUMERIC_KEYS | {"count_share"},
    "quantile": _NUMERIC_KEYS | {"quantile"},
    "median": _NUMERIC_KEYS,
}


def parse_query(raw: Mapping[str, Any], where: str = "query") -> DPQuery:
    """Validate one query mapping (the shape of a ``dp.queries`` entry) into a :class:`DPQuery`.

    Errors are :class:`ConfigError` naming ``where`` and the field, with the fix.
    """
    raw = check_mapping(where, raw)
    qtype = raw.get("type")
    if qtype not in QUERY_TYPES:
        raise ConfigError(
            f"'{where}.type' must be one of {', '.join(map(repr, QUERY_TYPES))}, got {qtype!r}."
        )
    check_keys(where, raw, _QUERY_KEYS[qtype])
    if "epsilon" not in raw:
        raise ConfigError(
            f"'{where}.epsilon' is missing: give this query's share of the budget, e.g. 0.1."
        )
    epsilon = check_float(f"{where}.epsilon", raw["epsilon"], 0.0, min_inclusive=False)
    name = raw.get("name", "")
    if not isinstance(name, str):
        raise ConfigError(f"'{where}.name' must be text, got {name!r}.")
    value, quantiles = None, ()
    if qtype == "count":
        axes: tuple[AxisSpec, ...] = ()
        if raw.get("column") is not None:
            axes = (AxisSpec(_parse_column(f"{where}.column", raw["column"])),)
        if raw.get("value") is not None:
            if not axes:
                raise ConfigError(
                    f"'{where}.value' needs a 'column' to compare with: add 'column'."
                )
            if isinstance(raw["value"], list | dict):
                raise ConfigError(f"'{where}.value' must be one value, got {raw['value']!r}.")
            value = as_label(raw["value"])
    elif qtype == "histogram":
        axes = (_parse_axis(where, raw, histogram=True),)
    elif qtype == "histogram2d":
        for key in ("x", "y"):
            if key not in raw:
                raise ConfigError(
                    f"'{where}.{key}' is missing: a 2-D histogram needs 'x' and 'y', each "
                    '{"column": ..., "categories": [...]} or {"column": ..., "bounds": [lo, hi], "bins": n}.'
                )
        axes = tuple(
            _parse_axis(
                f"{where}.{k}",
                _mapping_with_keys(
                    f"{where}.{k}", raw[k], {"column", "bounds", "categories", "bins"}
                ),
                histogram=True,
            )
            for k in ("x", "y")
        )
    else:
        column = _parse_column(f"{where}.column", raw.get("column"))
        if raw.get("bounds") is None:
            raise ConfigError(
                f"'{where}.bounds' is missing: a {qtype} needs [lower, upper] from domain knowledge "
                '(values outside are clipped), or "data" to take them from the data (this leaks the '
                "minimum and maximum)."
            )
        axes = (AxisSpec(column, parse_bounds(f"{where}.bounds", raw["bounds"])),)
        if qtype == "quantile":
            q = raw.get("quantile")
            qs = q if isinstance(q, list | tuple) else [q]
            if not qs or q is None:
                raise ConfigError(
                    f"'{where}.quantile' is missing: give a number in [0, 1] or a list of them."
                )
            quantiles = tuple(check_float(f"{where}.quantile", v, 0.0, 1.0) for v in qs)
        elif qtype == "median":
            quantiles = (0.5,)
    mechanism, delta = _parse_mechanism(where, raw, qtype)
    public_n = None
    if raw.get("n") is not None:
        public_n = check_int(f"{where}.n", raw["n"], minimum=1)
    count_share = COUNT_SHARE
    if raw.get("count_share") is not None:
        count_share = check_float(
            f"{where}.count_share", raw["count_share"], 0.0, 1.0, min_inclusive=False
        )
        if count_share >= 1.0:
            raise ConfigError(
                f"'{where}.count_share' must be below 1 (the rest of epsilon answers the "
                f"{qtype}); got {count_share}. The default is {COUNT_SHARE}."
            )
    return DPQuery(
        qtype, epsilon, axes, value, quantiles, name, mechanism, delta, public_n, count_share
    )


def _parse_mechanism(where: str, raw: Mapping[str, Any], qtype: str) -> tuple[str, float]:
    """The query's mechanism and delta: laplace with delta 0, or gaussian with 0 < delta < 1."""
    mechanism = raw.get("mechanism", "laplace")
    if mechanism not in MECHANISMS:
        raise ConfigError(
            f"'{where}.mechanism' must be one of {list(MECHANISMS)}, got {mechanism!r}. "
            "Use \"gaussian\" only with a 'delta' > 0 in the dp section."
        )
    delta = raw.get("delta")
    if qtype in QUANTILE_TYPES and (mechanism != "laplace" or delta):
        raise ConfigError(
            f"'{where}': a {qtype} uses the exponential mechanism (pure epsilon-DP, delta 0): "
            "remove 'mechanism' and 'delta'."
        )
    if mechanism == "laplace":
        if delta not in (None, 0, 0.0):
            raise ConfigError(
                f"'{where}.delta' is {delta!r} but the Laplace mechanism spends delta 0: remove "
                '\'delta\', or set "mechanism": "gaussian" to spend it.'
            )
        return mechanism, 0.0
    if delta is None:
        raise ConfigError(
            f"'{where}.delta' is missing: the Gaussian mechanism needs this query's share of the "
            "dp section's delta, e.g. 1e-6 (well below 1 / number of records)."
        )
    delta = check_float(f"{where}.delta", delta, 0.0, 1.0, min_inclusive=False)
    if delta >= 1.0:
        raise ConfigError(f"'{where}.delta' must be below 1, e.g. 1e-6; got {delta}.")
    return mechanism, delta


def _mapping_with_keys(where: str, raw: Any, allowed: Iterable[str]) -> Mapping[str, Any]:
    """``raw`` checked to be a mapping with only ``allowed`` keys."""
    raw = check_mapping(where, raw)
    check_keys(where, raw, allowed)
    return raw
