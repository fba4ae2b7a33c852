"""Differential privacy with diffprivlib: private statistics under a privacy budget, DP models,
and utility against epsilon.

A mechanism M is epsilon-differentially private when, for every pair of neighbouring
datasets D, D' and every set S of outputs, P[M(D) in S] <= e^epsilon * P[M(D') in S]
(Dwork, McSherry, Nissim and Smith, "Calibrating noise to sensitivity in private data
analysis", TCC 2006; Dwork and Roth, "The algorithmic foundations of differential
privacy", 2014). Every figure released here comes from IBM's diffprivlib
(Holohan, Braghin, Mac Aonghusa and Levacher, "Diffprivlib: the IBM differential privacy
library", arXiv:1907.02444, 2019; https://diffprivlib.readthedocs.io); this module chooses
the inputs, keeps the accounts and explains the results. It never adds noise itself.

What it offers
--------------
1. **Private statistics** (:func:`dp_query`): counts, 1-D and 2-D histograms, sums, means,
   variances, quantiles and medians of chosen columns, each with its own epsilon, through
   ``diffprivlib.tools`` (``count_nonzero``, ``histogram``, ``histogram2d``, ``sum``,
   ``mean``, ``var``, ``quantile``, ``median``). Bounds and categories are entered by the
   user; when the user asks for them to be taken from the data instead, diffprivlib's
   ``PrivacyLeakWarning`` is turned into a plain-words :class:`~anon_core.errors.PrivacyWarning`
   (and recorded on the result): the released figure then also reveals the data's range or
   its set of categories, which the guarantee does not cover.
2. **A privacy budget** (:class:`PrivacyBudget`): one diffprivlib ``BudgetAccountant`` per
   session or release, with the total epsilon (and delta) set by the user. Every query is
   checked against it before it runs and spends its epsilon from it afterwards (basic
   sequential composition, Dwork et al. 2006: epsilons add up; the accountant's slack is 0).
   A query over budget is refused with a :class:`~anon_core.errors.ConfigError` naming the
   query, the epsilon asked, the remaining budget and the fix.
3. **A DP release**: a noisy histogram or contingency table as a DataFrame
   (:meth:`DPResult.release_frame`, noisy figures only), with its epsilon and parameters
   in a ``dp`` configuration section (:meth:`DPRunResult.section`, :func:`dp_section`).
4. **DP machine learning** (:func:`dp_ml_curve`): diffprivlib's ``LogisticRegression``
   (objective perturbation, Chaudhuri, Monteleoni and Sarwate, JMLR 12, 2011),
   ``GaussianNB`` (Vaidya, Shafiq, Basu and Hong, "Differentially private naive Bayes
   classification", WI-IAT 2013) and ``RandomForestClassifier`` (Fletcher and Islam,
   "Differentially private random decision forests using smooth sensitivity", Expert
   Systems with Applications 78, 2017) against their scikit-learn counterparts: accuracy
   against epsilon over a log-spaced grid (0.01 to 10), repeated with seeds (mean and
   spread), and on the same result the non-private model trained on the k-anonymized
   release.
5. **Utility against epsilon** for the statistics (:func:`error_curve`): mean absolute and
   relative error over repeated draws at each epsilon of a grid, next to the expected error.

Neighbouring datasets and what is public
----------------------------------------
diffprivlib calibrates each tool to its own notion of neighbours, and so does this module:
counts and histograms use sensitivity 1 (one record added or removed changes one count by
1); sums use sensitivity ``upper - lower`` (one record changed); means, variances and
quantiles treat the number of values n as public (one record replaced). Missing cells are
left out of numeric queries, so the number of non-missing values is treated as public too.
Values outside the bounds are clipped to them (sums, means, variances, quantiles) or not
counted (histograms: numpy's binning; categories not listed), which biases the result but
not the guarantee.

Expected error (``DPResult.expected_error``, ``error_basis`` says which formula)
-------------------------------------------------------------------------------
The expected error is the mean absolute error E|noise| of the mechanism diffprivlib uses,
before its truncation to the valid range (truncation can only lower it). It depends only on
epsilon, the bounds and n, never on the data values, so it may be published with the figure.

* count, and each bin of a histogram: two-sided geometric noise P(k) proportional to
  e^(-epsilon |k|) (``GeometricTruncated``, sensitivity 1):
  E|noise| = 2 e^-epsilon / (1 - e^-2 epsilon) = 1 / sinh(epsilon).
* sum: Laplace noise of scale b = (upper - lower) / epsilon (``LaplaceTruncated``): E|noise| = b.
* mean: Laplace scale b = (upper - lower) / (n epsilon): E|noise| = b (approximate: the
  output is truncated to [lower, upper] and values are clipped).
* var: sensitivity D = (upper - lower)^2 (n - 1) / n^2 and ``LaplaceBoundedDomain`` on
  [0, inf) (Holohan, Antonatos, Braghin and Mac Aonghusa, "The bounded Laplace mechanism in
  differential privacy", JPC 10(1), 2020), whose scale b is larger than D/epsilon (up to
  2 D/epsilon for small epsilon) so that the domain's bound does not break the guarantee:
  E|noise| ~ b = D / ``effective_epsilon()``. Rejection sampling at 0 lowers the error when
  the variance lies within a few b of 0.
* quantile, median: the exponential mechanism over the intervals between sorted values
  (McSherry and Talwar, FOCS 2007; utility -|rank - q n|, sensitivity 1) has no
  data-independent error in value units. The error given is **empirical**: the mean
  absolute difference between 50 draws (``random_state`` 0, fixed) and the true quantile
  of the clipped values. It uses the true data, so it is for the data custodian's
  planning and is not part of a release (:meth:`DPResult.release_frame` leaves it out). With
  several quantiles epsilon is split equally between them (diffprivlib's rule). The output is
  drawn uniformly inside the chosen interval between sorted values, so on whole numbers (ages)
  the error does not fall much below half a unit however large epsilon is.

``dp`` configuration section (read by :func:`validate_dp_section`)
-------------------------------------------------------------------
``anon_core.config`` carries it unvalidated in ``ReleaseConfig.sections["dp"]``::

    "dp": {
      "epsilon": 1.0,          # total budget, finite, > 0 (required)
      "delta": 0,              # total delta in [0, 1) (default 0; every query here spends 0)
      "random_state": 0,       # integer >= 0 for reproducible noise, or null (default) for fresh noise
      "compare": false,        # add the true values to the output (NOT private; default false)
      "queries": [             # run in order; their epsilons must add up to at most "epsilon"
        {"type": "count", "epsilon": 0.1},                                   # rows
        {"type": "count", "column": "sex", "value": "Female", "epsilon": 0.1, "name": "women"},
        {"type": "mean", "column": "age", "epsilon": 0.2, "bounds": [17, 90]},
        {"type": "sum" | "var" | "median", "column": "age", "epsilon": 0.2, "bounds": [17, 90]},
        {"type": "quantile", "column": "age", "quantile": [0.25, 0.75], "epsilon": 0.2, "bounds": [17, 90]},
        {"type": "histogram", "column": "sex", "epsilon": 0.3, "categories": ["Female", "Male"]},
        {"type": "histogram", "column": "age", "epsilon": 0.3, "bounds": [17, 90], "bins": 8},
        {"type": "histogram2d", "epsilon": 0.3,
         "x": {"column": "age", "bounds": [17, 90], "bins": 8},
         "y": {"column": "sex", "categories": ["Female", "Male"]}}
      ]
    }

* ``bounds`` is ``[lower, upper]`` (lower < upper) from domain knowledge, or the string
  ``"data"`` to take the minimum and maximum from the data (a plain-words privacy warning
  says so). Numeric queries (sum, mean, var, quantile, median) need it.
* A histogram axis has either ``categories`` (a list, or ``"data"`` for the sorted distinct
  values) or ``bounds`` with ``bins`` (default 10, numpy's equal-width bins).
* ``count`` counts rows; with ``column`` the non-missing values; with ``value`` the rows
  equal to it (compared as text, as the table was read).
* Missing values are left out of numeric queries and numeric histogram axes; on a
  categorical axis they are the category ``NULL`` (list it to count them).
* ``name`` (optional) labels the result; it defaults to ``type(column)``.
* Query *i* draws its noise with the seed ``SeedSequence([random_state, i])``: distinct,
  independent noise per query, reproducible from the section. Anyone who knows the seed
  and the data layout can recompute the noise, so keep ``random_state`` secret or null
  for a real release (diffprivlib's advice: ``random_state`` is for reproducibility).

Unknown fields are errors, as everywhere in the configuration. :func:`run_dp` runs a
validated section on a table and returns :class:`DPRunResult`; ``to_dict()`` holds the
results and the budget spent.

Compatibility
-------------
diffprivlib 0.6.6 supports scikit-learn up to 1.7 (1.8 removed ``multi_class`` from
``LogisticRegression``; 1.9 also private names diffprivlib imports); pyproject.toml pins
``scikit-learn<1.8`` accordingly.
"""

from __future__ import annotations

import functools
import logging
import math
import time
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import SimpleNamespace
from typing import Any

import numpy as np
import pandas as pd

from anon_core.data.io import MISSING, to_labels
from anon_core.errors import ConfigError, PrivacyWarning
from anon_core.validation import check_bool, check_float, check_int, check_keys, check_mapping

log = logging.getLogger(__name__)

__all__ = [
    "DEFAULT_EPSILONS",
    "DP_MODELS",
    "QUERY_TYPES",
    "AxisSpec",
    "DPConfig",
    "DPMLResult",
    "DPQuery",
    "DPResult",
    "DPRunResult",
    "MLEncoding",
    "PrivacyBudget",
    "dp_ml_curve",
    "dp_query",
    "dp_section",
    "error_curve",
    "expected_error",
    "parse_query",
    "query_seed",
    "run_dp",
    "validate_dp_section",
]

#: Query types and the diffprivlib.tools function each one calls.
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
#: The accuracy-against-epsilon grid: 0.01 to 10, log-spaced (half decades).
DEFAULT_EPSILONS = tuple(float(x) for x in np.logspace(-2, 1, 7))
#: Draws behind an empirical (quantile) expected error, and their fixed seed.
EMPIRICAL_DRAWS = 50
EMPIRICAL_SEED = 0
#: A request that exceeds the remaining budget by at most this share of the total (float
#: rounding of a sum such as 0.1 + 0.2) spends exactly the remainder instead of failing.
BUDGET_TOLERANCE = 1e-9
MAX_BINS = 10_000
FROM_DATA = "data"


# =========================================================================== diffprivlib


@functools.cache
def _diffprivlib() -> SimpleNamespace:
    """diffprivlib's pieces used here, imported once (on first use: it is slow to import)."""
    import diffprivlib.models as models
    import diffprivlib.tools as tools
    from diffprivlib.accountant import BudgetAccountant
    from diffprivlib.utils import BudgetError, PrivacyLeakWarning

    return SimpleNamespace(
        tools=tools,
        models=models,
        BudgetAccountant=BudgetAccountant,
        BudgetError=BudgetError,
        PrivacyLeakWarning=PrivacyLeakWarning,
    )


def _scratch_accountant() -> Any:
    """An unlimited accountant for one diffprivlib call (never diffprivlib's global default).

    Budgets are kept by :class:`PrivacyBudget`, which charges each query once with its full
    epsilon; diffprivlib's internal splits (several quantiles) stay inside the query.
    """
    return _diffprivlib().BudgetAccountant()


def _leak_message(label: str, what: str, reveals: str) -> str:
    """diffprivlib's PrivacyLeakWarning in plain words: what came from the data and what it reveals."""
    example = (
        "the categories listed in the codebook"
        if "categor" in what or "class" in what
        else "an age from 0 to 120"
    )
    return (
        f"{label}: the {what} were taken from the data, not entered. The result then also reveals "
        f"{reveals}, which differential privacy does not protect. Enter them from domain knowledge "
        f"(for example {example}) for a full guarantee."
    )


def _diffprivlib_leak_message(prep: _Prepared) -> str:
    """diffprivlib's PrivacyLeakWarning (bounds computed on the data) in plain words."""
    col = prep.query.axes[0].column
    lo, hi = prep.bounds[col]
    return _leak_message(
        prep.label, f"bounds of {col} ({lo:g} to {hi:g})", "the smallest and largest value"
    )


# =========================================================================== queries


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
    ``histogram2d``, which has two (x, y).
    """

    type: str
    epsilon: float
    axes: tuple[AxisSpec, ...] = ()
    value: str | None = None
    quantiles: tuple[float, ...] = ()
    name: str = ""

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

    def with_epsilon(self, epsilon: float) -> DPQuery:
        return replace(self, epsilon=float(epsilon))

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
        return out


def _text(value: Any) -> str:
    """A category or count value as the table's labels spell it (1.0 -> "1")."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _parse_bounds(where: str, value: Any) -> tuple[float, float] | str:
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


def _parse_categories(where: str, value: Any) -> tuple[str, ...] | str:
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
    cats = tuple(_text(v) for v in value)
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
    bounds = _parse_bounds(f"{where}.bounds", raw["bounds"]) if has_b else None
    categories = _parse_categories(f"{where}.categories", raw["categories"]) if has_c else None
    if histogram and bounds is not None and bins is None:
        bins = 10
    return AxisSpec(column, bounds, categories, bins)


_COMMON_KEYS = {"type", "epsilon", "name"}
_QUERY_KEYS = {
    "count": _COMMON_KEYS | {"column", "value"},
    "histogram": _COMMON_KEYS | {"column", "bounds", "categories", "bins"},
    "histogram2d": _COMMON_KEYS | {"x", "y"},
    "sum": _COMMON_KEYS | {"column", "bounds"},
    "mean": _COMMON_KEYS | {"column", "bounds"},
    "var": _COMMON_KEYS | {"column", "bounds"},
    "quantile": _COMMON_KEYS | {"column", "bounds", "quantile"},
    "median": _COMMON_KEYS | {"column", "bounds"},
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
            value = _text(raw["value"])
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
        axes = (AxisSpec(column, _parse_bounds(f"{where}.bounds", raw["bounds"])),)
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
    return DPQuery(qtype, epsilon, axes, value, quantiles, name)


def _mapping_with_keys(where: str, raw: Any, allowed: Iterable[str]) -> Mapping[str, Any]:
    """``raw`` checked to be a mapping with only ``allowed`` keys."""
    raw = check_mapping(where, raw)
    check_keys(where, raw, allowed)
    return raw


# =========================================================================== budget


class PrivacyBudget:
    """A privacy budget: one diffprivlib ``BudgetAccountant`` with a ledger of the queries.

    ``epsilon`` is the total (``math.inf`` for an unlimited budget, for experiments),
    ``delta`` the total delta (every query here spends delta 0). Spending follows basic
    sequential composition (Dwork, McSherry, Nissim and Smith 2006): the accountant's
    ``total()`` is the sum of the epsilons spent (slack 0), and ``remaining`` is the total
    minus that sum, which equals ``BudgetAccountant.remaining()`` without its bisection
    rounding.
    """

    def __init__(self, epsilon: float, delta: float = 0.0) -> None:
        if epsilon != math.inf:
            epsilon = check_float("epsilon", epsilon, 0.0, min_inclusive=False)
        delta = check_float("delta", delta, 0.0, 1.0)
        if delta >= 1.0:
            raise ConfigError(
                "'delta' must be below 1 (usually 0, or much smaller than 1/number of records)."
            )
        self.accountant = _diffprivlib().BudgetAccountant(
            epsilon=float(epsilon), delta=float(delta)
        )
        self.ledger: list[dict[str, Any]] = []

    @property
    def epsilon(self) -> float:
        return float(self.accountant.epsilon)

    @property
    def delta(self) -> float:
        return float(self.accountant.delta)

    @property
    def spent(self) -> float:
        return float(self.accountant.total()[0])

    @property
    def spent_delta(self) -> float:
        return float(self.accountant.total()[1])

    @property
    def remaining(self) -> float:
        """Total minus spent; a float-rounding remainder (<= 1e-12 of the total) counts as spent."""
        if self.epsilon == math.inf:
            return math.inf
        left = self.epsilon - self.spent
        return left if left > 1e-12 * max(self.epsilon, 1.0) else 0.0

    @property
    def fraction_spent(self) -> float:
        """Share of the total spent, in [0, 1] (0 for an unlimited budget)."""
        if self.epsilon == math.inf:
            return 0.0
        return min(self.spent / self.epsilon, 1.0)

    def admit(self, label: str, epsilon: float) -> float:
        """The epsilon ``label`` may spend now, or ConfigError when it would exceed the budget.

        Calls ``BudgetAccountant.check``; a request above the remainder by at most
        :data:`BUDGET_TOLERANCE` of the total (float rounding) is granted exactly the remainder.
        Nothing is spent here.
        """
        dpl = _diffprivlib()
        try:
            self.accountant.check(epsilon, 0)
            return float(epsilon)
        except ValueError as exc:
            if not isinstance(exc, dpl.BudgetError):  # e.g. an epsilon below 1e-14 of the total
                raise ConfigError(
                    f"Query {label!r}: ε = {epsilon:g} is not usable ({exc}). Give a larger epsilon."
                ) from None
            remaining = self.remaining
            if 0 < remaining and epsilon - remaining <= BUDGET_TOLERANCE * max(self.epsilon, 1.0):
                granted = remaining
                for _ in range(16):
                    try:
                        self.accountant.check(granted, 0)
                        return float(granted)
                    except dpl.BudgetError:
                        granted = float(np.nextafter(granted, 0.0))
            if remaining <= 0:
                state = f"the budget ε = {self.epsilon:g} is spent ({len(self.ledger)} queries)"
                fix = "Start a new release with a new budget to ask more."
            else:
                state = (
                    f"only ε = {remaining:.6g} of the budget ε = {self.epsilon:g} remains "
                    f"({self.spent:.6g} spent on {len(self.ledger)} queries)"
                )
                fix = f"Lower this query's epsilon to at most {remaining:.6g}, or start a new release with a larger budget."
            raise ConfigError(
                f"Query {label!r} asks for ε = {epsilon:g} but {state}. {fix}"
            ) from None

    def spend(self, label: str, epsilon: float, query_type: str = "") -> None:
        """Record a spend in the accountant (``BudgetAccountant.spend``) and the ledger."""
        dpl = _diffprivlib()
        try:
            self.accountant.spend(epsilon, 0)
        except dpl.BudgetError:
            raise ConfigError(
                f"Query {label!r} asks for ε = {epsilon:g} but only ε = {self.remaining:.6g} of the budget remains. "
                "Lower its epsilon or start a new release with a larger budget."
            ) from None
        self.ledger.append({"query": label, "type": query_type, "epsilon": float(epsilon)})

    def to_dict(self) -> dict[str, Any]:
        def num(x: float) -> float | None:
            return None if x == math.inf else float(x)

        return {
            "epsilon": num(self.epsilon),
            "delta": float(self.delta),
            "spent": {"epsilon": float(self.spent), "delta": float(self.spent_delta)},
            "remaining": {"epsilon": num(self.remaining)},
            "queries": [dict(e) for e in self.ledger],
        }


# =========================================================================== data preparation


def _column(frame: pd.DataFrame, column: str, label: str) -> pd.Series:
    if column not in frame.columns:
        raise ConfigError(
            f"Query {label!r} names column {column!r}, which the table does not have. Columns are: {list(frame.columns)}."
        )
    return frame[column]


def _numeric_with_nan(series: pd.Series, label: str) -> np.ndarray:
    """The column as floats, NaN where missing (empty cells and the MISSING label).

    ConfigError if a present value is not a number or is infinite.
    """
    if pd.api.types.is_bool_dtype(series) or pd.api.types.is_numeric_dtype(series):
        values = series.astype(float).to_numpy(dtype=float, na_value=np.nan)
    else:
        text = series.astype("string").str.strip()
        missing = series.isna().to_numpy() | (text == MISSING).fillna(True).to_numpy()
        parsed = pd.to_numeric(text.mask(missing), errors="coerce").to_numpy(
            dtype=float, na_value=np.nan
        )
        bad = ~missing & np.isnan(parsed)
        if bad.any():
            raise ConfigError(
                f"Query {label!r}: column {series.name!r} has values that are not numbers (for example "
                f"{str(series[bad].iloc[0])!r}). Use a count or a histogram with categories for it, or choose a "
                "numeric column."
            )
        values = parsed
    if np.isinf(values).any():
        raise ConfigError(
            f"Query {label!r}: column {series.name!r} holds infinite values; remove them first."
        )
    if np.isnan(values).all():
        raise ConfigError(
            f"Query {label!r}: column {series.name!r} has no numeric values to compute on."
        )
    return values


def _numbers(series: pd.Series, label: str) -> np.ndarray:
    """The column's non-missing values as floats."""
    values = _numeric_with_nan(series, label)
    return values[~np.isnan(values)]


@dataclass
class _Prepared:
    """A query bound to its data: what diffprivlib is called with, and the true answer."""

    query: DPQuery
    label: str
    n: int
    arrays: tuple[np.ndarray, ...]
    dp_bounds: tuple[float, float] | None = (
        None  # passed to diffprivlib (None: diffprivlib derives)
    )
    bounds: dict[str, tuple[float, float]] = field(default_factory=dict)  # used, per column
    categories: dict[str, tuple[str, ...]] = field(default_factory=dict)
    bins: tuple[int, ...] = ()
    ranges: tuple[tuple[float, float] | None, ...] = ()
    from_data: tuple[str, ...] = ()  # e.g. ("bounds of age",)
    own_warnings: tuple[str, ...] = ()  # leak warnings this module issues itself


def _prepare_axis(
    frame: pd.DataFrame, axis: AxisSpec, label: str
) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """Values to bin for a histogram axis, a mask of the rows that take part, and its details."""
    series = _column(frame, axis.column, label)
    info: dict[str, Any] = {}
    if axis.categorical:
        labels = to_labels(series).astype(str)
        if axis.categories == FROM_DATA:
            cats = tuple(sorted(pd.unique(labels).tolist()))
            info["from_data"] = f"categories of {axis.column}"
        else:
            cats = tuple(axis.categories)  # type: ignore[arg-type]
        lookup = {c: i for i, c in enumerate(cats)}
        codes = np.fromiter((lookup.get(v, -1) for v in labels), dtype=float, count=len(labels))
        info.update(categories=cats, bins=len(cats), range=(-0.5, len(cats) - 0.5))
        return codes, codes >= 0, info
    values = _numeric_with_nan(series, label)
    present = ~np.isnan(values)
    if axis.bounds == FROM_DATA:
        rng = (float(np.min(values[present])), float(np.max(values[present])))
        if rng[0] == rng[1]:  # a single value: one unit around it, as numpy's histogram does
            rng = (rng[0] - 0.5, rng[1] + 0.5)
        info["from_data"] = f"bounds of {axis.column}"
    else:
        rng = tuple(axis.bounds)  # type: ignore[arg-type]
    info.update(bins=int(axis.bins or 10), range=rng)
    return values, present, info


def _prepare(frame: pd.DataFrame, query: DPQuery) -> _Prepared:
    """Validate the query against the table and gather its inputs (nothing is spent)."""
    if not isinstance(frame, pd.DataFrame):
        raise ConfigError(f"'frame' must be a pandas DataFrame, got {type(frame).__name__}.")
    label = query.label
    if query.type == "count":
        if not query.axes:
            arr = np.ones(len(frame), dtype=bool)
        else:
            series = _column(frame, query.axes[0].column, label)
            labels = to_labels(series)
            arr = labels != MISSING if query.value is None else labels.astype(str) == query.value
        return _Prepared(query, label, len(frame), (np.asarray(arr, dtype=bool),))
    if query.type in NUMERIC_TYPES:
        axis = query.axes[0]
        values = _numbers(_column(frame, axis.column, label), label)
        if axis.bounds == FROM_DATA:
            bounds = (float(values.min()), float(values.max()))
            if bounds[0] == bounds[1]:
                raise ConfigError(
                    f"Query {label!r}: every value of {axis.column!r} is {bounds[0]:g}, so bounds from the data are "
                    "empty. Enter bounds [lower, upper] with lower < upper."
                )
            return _Prepared(
                query,
                label,
                values.size,
                (values,),
                None,
                {axis.column: bounds},
                from_data=(f"bounds of {axis.column}",),
            )
        bounds = tuple(axis.bounds)  # type: ignore[arg-type]
        return _Prepared(query, label, values.size, (values,), bounds, {axis.column: bounds})
    # histograms
    per_axis = [_prepare_axis(frame, axis, label) for axis in query.axes]
    keep = np.logical_and.reduce([p[1] for p in per_axis])
    arrays = tuple(p[0][keep] for p in per_axis)
    infos = [p[2] for p in per_axis]
    prepared = _Prepared(
        query,
        label,
        int(keep.sum()),
        arrays,
        bins=tuple(i["bins"] for i in infos),
        ranges=tuple(i["range"] for i in infos),
        categories={
            a.column: i["categories"]
            for a, i in zip(query.axes, infos, strict=True)
            if "categories" in i
        },
        from_data=tuple(i["from_data"] for i in infos if "from_data" in i),
    )
    for a, i in zip(query.axes, infos, strict=True):
        if not a.categorical:
            prepared.bounds[a.column] = tuple(i["range"])
    own = []
    for a, i in zip(query.axes, infos, strict=True):
        if "from_data" not in i:
            continue
        if a.categorical:
            own.append(
                _leak_message(
                    label,
                    i["from_data"],
                    "which values occur in the data (a rare value's presence)",
                )
            )
        elif query.type == "histogram2d":
            own.append(_leak_message(label, i["from_data"], "the smallest and largest value"))
    prepared.own_warnings = tuple(own)
    if (
        query.type == "histogram"
        and not query.axes[0].categorical
        and query.axes[0].bounds == FROM_DATA
    ):
        prepared.ranges = (None,)  # diffprivlib derives the range and warns; converted below
    return prepared


# =========================================================================== draws


def _draw(prep: _Prepared, epsilon: float, random_state: Any) -> tuple[Any, bool]:
    """One run of the diffprivlib tool; returns (output, diffprivlib warned of a privacy leak)."""
    dpl = _diffprivlib()
    tools = dpl.tools
    q = prep.query
    acc = _scratch_accountant()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if q.type == "count":
            out: Any = float(
                tools.count_nonzero(
                    prep.arrays[0], epsilon=epsilon, random_state=random_state, accountant=acc
                )
            )
        elif q.type in ("sum", "mean", "var"):
            fn = getattr(tools, QUERY_TYPES[q.type])
            out = float(
                fn(
                    prep.arrays[0],
                    epsilon=epsilon,
                    bounds=prep.dp_bounds,
                    random_state=random_state,
                    accountant=acc,
                )
            )
        elif q.type in ("quantile", "median"):
            qs = prep.query.quantiles
            if q.type == "median":
                res = tools.median(
                    prep.arrays[0],
                    epsilon=epsilon,
                    bounds=prep.dp_bounds,
                    random_state=random_state,
                    accountant=acc,
                )
            else:
                res = tools.quantile(
                    prep.arrays[0],
                    list(qs) if len(qs) > 1 else qs[0],
                    epsilon=epsilon,
                    bounds=prep.dp_bounds,
                    random_state=random_state,
                    accountant=acc,
                )
            res = np.atleast_1d(np.asarray(res, dtype=float))
            out = float(res[0]) if len(qs) == 1 else tuple(float(x) for x in res)
        elif q.type == "histogram":
            counts, edges = tools.histogram(
                prep.arrays[0],
                epsilon=epsilon,
                bins=prep.bins[0],
                range=prep.ranges[0],
                random_state=random_state,
                accountant=acc,
            )
            out = (np.asarray(counts, dtype=float), (np.asarray(edges, dtype=float),))
        else:
            counts, xedges, yedges = tools.histogram2d(
                prep.arrays[0],
                prep.arrays[1],
                epsilon=epsilon,
                bins=list(prep.bins),
                range=list(prep.ranges),
                random_state=random_state,
                accountant=acc,
            )
            out = (
                np.asarray(counts, dtype=float),
                (np.asarray(xedges, dtype=float), np.asarray(yedges, dtype=float)),
            )
    leaked = False
    for w in caught:
        if issubclass(w.category, dpl.PrivacyLeakWarning):
            leaked = True
        else:
            log.debug("diffprivlib: %s", w.message)
    return out, leaked


def _true(prep: _Prepared) -> Any:
    """The exact answer, computed as the diffprivlib tool does before adding noise (clipped values)."""
    q = prep.query
    if q.type == "count":
        return float(np.count_nonzero(prep.arrays[0]))
    if q.type in NUMERIC_TYPES:
        lo, hi = next(iter(prep.bounds.values()))
        values = np.clip(prep.arrays[0], lo, hi)
        if q.type == "sum":
            return float(values.sum())
        if q.type == "mean":
            return float(values.mean())
        if q.type == "var":
            return float(values.var())
        res = np.quantile(values, list(q.quantiles))
        return float(res[0]) if len(q.quantiles) == 1 else tuple(float(x) for x in res)
    if q.type == "histogram":
        # range None: diffprivlib let numpy take (min, max), which is what prep.bounds holds
        rng = prep.ranges[0] if prep.ranges[0] is not None else next(iter(prep.bounds.values()))
        counts, _ = np.histogram(prep.arrays[0], bins=prep.bins[0], range=rng)
        return counts.astype(float)
    counts, _, _ = np.histogram2d(
        prep.arrays[0], prep.arrays[1], bins=list(prep.bins), range=list(prep.ranges)
    )
    return counts.astype(float)


def expected_error(
    query_type: str, epsilon: float, bounds: tuple[float, float] | None = None, n: int | None = None
) -> float:
    """E|noise| of the mechanism diffprivlib uses for ``query_type`` (see the module docstring).

    count and histogram bins: 1/sinh(epsilon); sum: (U-L)/epsilon; mean: (U-L)/(n epsilon);
    var: the scale of diffprivlib's bounded-domain Laplace mechanism for the sensitivity
    (U-L)^2 (n-1)/n^2, at least that over epsilon. Quantiles have no data-independent value: NaN.
    """
    epsilon = float(epsilon)
    if query_type in ("count", "histogram", "histogram2d"):
        return 1.0 / math.sinh(epsilon) if epsilon < 700 else 0.0
    if query_type in ("quantile", "median"):
        return math.nan
    if bounds is None:
        raise ConfigError(f"expected_error of a {query_type} needs 'bounds'.")
    width = float(bounds[1]) - float(bounds[0])
    if query_type == "sum":
        return width / epsilon
    if n is None or n < 1:
        raise ConfigError(
            f"expected_error of a {query_type} needs 'n', the number of values (at least 1)."
        )
    if query_type == "mean":
        return width / (n * epsilon)
    if query_type == "var":
        from diffprivlib.mechanisms import LaplaceBoundedDomain

        _diffprivlib()
        sensitivity = width**2 * (n - 1) / n**2
        if sensitivity == 0:
            return 0.0
        mech = LaplaceBoundedDomain(
            epsilon=epsilon, delta=0.0, sensitivity=sensitivity, lower=0.0, upper=math.inf
        )
        return float(sensitivity / mech.effective_epsilon())
    raise ConfigError(f"'query_type' must be one of {list(QUERY_TYPES)}, got {query_type!r}.")


_ERROR_BASIS = {
    "count": "E|noise| of geometric noise, 1/sinh(ε)",
    "histogram": "E|noise| per bin of geometric noise, 1/sinh(ε)",
    "histogram2d": "E|noise| per cell of geometric noise, 1/sinh(ε)",
    "sum": "E|noise| of Laplace noise, (upper − lower)/ε",
    "mean": "E|noise| of Laplace noise, ≈ (upper − lower)/(n·ε)",
    "var": "E|noise| of bounded-domain Laplace noise, ≈ its scale (≥ (upper − lower)²(n − 1)/(n²·ε))",
    "quantile": f"empirical: mean |error| of {EMPIRICAL_DRAWS} draws, random_state {EMPIRICAL_SEED} (uses the true data)",
    "median": f"empirical: mean |error| of {EMPIRICAL_DRAWS} draws, random_state {EMPIRICAL_SEED} (uses the true data)",
}


def _abs_error(noisy: Any, true: Any) -> float:
    """Mean absolute error over the entries (bins, quantiles) of one draw."""
    return float(np.mean(np.abs(np.asarray(noisy, dtype=float) - np.asarray(true, dtype=float))))


def _expected(prep: _Prepared, epsilon: float) -> float:
    q = prep.query
    if q.type in ("quantile", "median"):
        true = _true(prep)
        seeds = np.random.SeedSequence(EMPIRICAL_SEED).generate_state(EMPIRICAL_DRAWS)
        errs = [_abs_error(_draw(prep, epsilon, int(s))[0], true) for s in seeds]
        return float(np.mean(errs))
    bounds = next(iter(prep.bounds.values())) if q.type in NUMERIC_TYPES else None
    return expected_error(q.type, epsilon, bounds, prep.n)


# =========================================================================== results


def _bin_labels(edges: np.ndarray) -> list[str]:
    out = []
    for i in range(len(edges) - 1):
        close = "]" if i == len(edges) - 2 else ")"
        out.append(f"[{edges[i]:g}, {edges[i + 1]:g}{close}")
    return out


@dataclass(frozen=True, eq=False)
class DPResult:
    """One private answer.

    ``value`` is a float (count, sum, mean, var, median, a single quantile), a tuple of floats
    (several quantiles) or None (histograms: see ``table``). ``table`` is the noisy histogram
    (long form: one row per bin or cell, ``noisy_count`` and ``expected_error``; with
    ``compare`` also ``true_count`` and ``abs_error``). ``epsilon`` is what was spent.
    ``true_value`` is set only when the comparison was asked for (not private).
    """

    query: DPQuery
    epsilon: float
    value: float | tuple[float, ...] | None
    table: pd.DataFrame | None
    expected_error: float
    error_basis: str
    n: int
    bounds: dict[str, tuple[float, float]]
    categories: dict[str, tuple[str, ...]]
    from_data: tuple[str, ...]
    warnings: tuple[str, ...]
    true_value: float | tuple[float, ...] | None = None
    compared: bool = False

    @property
    def label(self) -> str:
        return self.query.label

    @property
    def abs_error(self) -> float | None:
        """Mean absolute difference from the true answer (only when compared)."""
        if not self.compared:
            return None
        if self.table is not None:
            return float(self.table["abs_error"].mean())
        return _abs_error(self.value, self.true_value)

    def release_frame(self) -> pd.DataFrame:
        """The releasable table: noisy figures and expected errors only, never true values.

        Histograms: the bins (2-D: a contingency table, rows = x, columns = y). Other queries:
        one row with the value and its expected error.
        """
        if self.table is None:
            values = self.value if isinstance(self.value, tuple) else (self.value,)
            qs = self.query.quantiles if self.query.type == "quantile" else (None,) * len(values)
            rows = [
                {
                    "query": self.label,
                    "quantile": q,
                    "value": v,
                    "expected_error": None
                    if self.query.type in ("quantile", "median")
                    else self.expected_error,
                }
                for q, v in zip(qs, values, strict=True)
            ]
            frame = pd.DataFrame(rows)
            return frame.drop(columns=["quantile"]) if self.query.type != "quantile" else frame
        if self.query.type == "histogram2d":
            x, y = self.query.columns
            wide = self.table.pivot(index=x, columns=y, values="noisy_count")
            wide = wide.loc[pd.unique(self.table[x]), pd.unique(self.table[y])]
            wide.columns = [str(c) for c in wide.columns]
            return wide.reset_index()
        return self.table.drop(
            columns=[c for c in ("true_count", "abs_error") if c in self.table.columns]
        )

    def row(self, compare: bool = False) -> dict[str, Any]:
        """A summary row for a results table."""
        if self.table is not None:
            shown: Any = f"table of {len(self.table)} {'cells' if self.query.type == 'histogram2d' else 'bins'}"
        elif isinstance(self.value, tuple):
            shown = ", ".join(f"{v:.6g}" for v in self.value)
        else:
            shown = f"{self.value:.6g}"
        row = {
            "query": self.label,
            "type": self.query.type,
            "columns": ", ".join(self.query.columns) or "(rows)",
            "epsilon": self.epsilon,
            "result": shown,
            "expected_error": self.expected_error,
            "error_basis": self.error_basis,
            "from_data": ", ".join(self.from_data),
        }
        if compare and self.compared:
            if self.table is not None:
                row["true_value"] = f"total {self.table['true_count'].sum():.0f}"
            elif isinstance(self.true_value, tuple):
                row["true_value"] = ", ".join(f"{v:.6g}" for v in self.true_value)
            else:
                row["true_value"] = f"{self.true_value:.6g}"
            row["abs_error"] = self.abs_error
        return row

    def to_dict(self) -> dict[str, Any]:
        def num(x: float) -> float | None:
            return (
                None if x is None or (isinstance(x, float) and not math.isfinite(x)) else float(x)
            )

        out: dict[str, Any] = {
            "query": self.query.to_dict(),
            "name": self.label,
            "epsilon": float(self.epsilon),
            "n": int(self.n),
            "expected_error": num(self.expected_error),
            "error_basis": self.error_basis,
            "bounds": {k: [float(v[0]), float(v[1])] for k, v in self.bounds.items()},
            "categories": {k: list(v) for k, v in self.categories.items()},
            "from_data": list(self.from_data),
            "warnings": list(self.warnings),
        }
        if self.table is not None:
            kept = [c for c in self.table.columns if c not in ("true_count", "abs_error")]
            out["table"] = self.table[kept].to_dict(orient="records")
        else:
            out["value"] = list(self.value) if isinstance(self.value, tuple) else float(self.value)
        if self.compared:
            if self.table is not None:
                out["true_table"] = self.table.drop(
                    columns=["noisy_count", "expected_error"]
                ).to_dict(orient="records")
            else:
                out["true_value"] = (
                    list(self.true_value)
                    if isinstance(self.true_value, tuple)
                    else float(self.true_value)
                )
            out["abs_error"] = float(self.abs_error)
        return out


def _histogram_table(
    prep: _Prepared,
    counts: np.ndarray,
    edges: tuple[np.ndarray, ...],
    err: float,
    true: np.ndarray | None,
) -> pd.DataFrame:
    q = prep.query
    axis_labels = []
    for axis, e in zip(q.axes, edges, strict=True):
        if axis.categorical:
            axis_labels.append(list(prep.categories[axis.column]))
        else:
            axis_labels.append(_bin_labels(e))
    if q.type == "histogram":
        axis = q.axes[0]
        data: dict[str, Any] = {axis.column: axis_labels[0]}
        if not axis.categorical:
            data["lower"], data["upper"] = edges[0][:-1], edges[0][1:]
        data["noisy_count"] = counts
        flat_true = true
    else:
        x, y = q.columns
        xs, ys = np.meshgrid(
            np.arange(len(axis_labels[0])), np.arange(len(axis_labels[1])), indexing="ij"
        )
        data = {
            x: np.asarray(axis_labels[0], dtype=object)[xs.ravel()],
            y: np.asarray(axis_labels[1], dtype=object)[ys.ravel()],
            "noisy_count": counts.ravel(),
        }
        flat_true = None if true is None else true.ravel()
    table = pd.DataFrame(data)
    table["expected_error"] = err
    if flat_true is not None:
        table["true_count"] = flat_true
        table["abs_error"] = np.abs(table["noisy_count"] - flat_true)
    return table


def query_seed(random_state: int | None, index: int) -> int | None:
    """The seed of query ``index`` of a release with ``random_state`` (None: fresh noise)."""
    if random_state is None:
        return None
    return int(np.random.SeedSequence([int(random_state), int(index)]).generate_state(1)[0])


def dp_query(
    frame: pd.DataFrame,
    query: DPQuery | Mapping[str, Any],
    budget: PrivacyBudget,
    random_state: int | np.random.RandomState | None = None,
    compare: bool = False,
) -> DPResult:
    """Answer one query privately, spending its epsilon from ``budget``.

    ``query`` is a :class:`DPQuery` or a mapping in the ``dp.queries`` shape (validated by
    :func:`parse_query`). Steps: validate the query against ``frame`` (nothing spent on a bad
    query); ``budget.admit`` (ConfigError over budget); one call of the diffprivlib tool with
    ``random_state`` and an unlimited scratch accountant; ``budget.spend`` of the query's
    epsilon. Bounds or categories taken from the data raise a plain-words
    :class:`PrivacyWarning` (also in ``result.warnings``). ``compare=True`` adds the true
    answer and the error (not private; for the data custodian only).
    """
    if not isinstance(budget, PrivacyBudget):
        raise ConfigError(f"'budget' must be a PrivacyBudget, got {type(budget).__name__}.")
    if not isinstance(query, DPQuery):
        query = parse_query(query)
    compare = check_bool("compare", compare)
    prep = _prepare(frame, query)
    epsilon = budget.admit(prep.label, query.epsilon)
    output, leaked = _draw(prep, epsilon, random_state)
    budget.spend(prep.label, epsilon, query.type)
    messages = list(prep.own_warnings)
    if leaked:  # diffprivlib's PrivacyLeakWarning, in plain words
        messages.append(_diffprivlib_leak_message(prep))
    for m in messages:
        warnings.warn(m, PrivacyWarning, stacklevel=2)
    err = _expected(prep, epsilon)
    true = _true(prep) if compare else None
    table = None
    value: Any = output
    if query.type in ("histogram", "histogram2d"):
        counts, edges = output
        table = _histogram_table(prep, counts, edges, err, true)
        value = None
    if log.isEnabledFor(logging.INFO):
        log.info(
            "dp query %s: epsilon %.4g spent, %.4g remaining", prep.label, epsilon, budget.remaining
        )
    return DPResult(
        query=query,
        epsilon=epsilon,
        value=value,
        table=table,
        expected_error=err,
        error_basis=_ERROR_BASIS[query.type],
        n=prep.n,
        bounds=dict(prep.bounds),
        categories=dict(prep.categories),
        from_data=prep.from_data,
        warnings=tuple(messages),
        true_value=None if table is not None else true,
        compared=compare,
    )


# =========================================================================== configuration


DP_KEYS = {"epsilon", "delta", "random_state", "compare", "queries"}


@dataclass(frozen=True)
class DPConfig:
    """A validated ``dp`` section (see the module docstring)."""

    epsilon: float
    delta: float = 0.0
    random_state: int | None = None
    compare: bool = False
    queries: tuple[DPQuery, ...] = ()

    @property
    def total_epsilon(self) -> float:
        return float(sum(q.epsilon for q in self.queries))

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "epsilon": float(self.epsilon),
            "delta": float(self.delta),
            "random_state": self.random_state,
        }
        if self.compare:
            out["compare"] = True
        out["queries"] = [q.to_dict() for q in self.queries]
        return out


def validate_dp_section(
    raw: Any, columns: Sequence[str] | None = None, where: str = "dp"
) -> DPConfig:
    """Validate the raw ``dp`` section (``ReleaseConfig.sections.get("dp")``) into a :class:`DPConfig`.

    Every error is a :class:`ConfigError` naming the field (``dp.queries[2].bounds``) and the
    fix. With ``columns`` (the input's column names) query columns are checked too. The
    queries' epsilons must add up to at most ``epsilon``.
    """
    if raw is None:
        raise ConfigError(
            f'The configuration has no \'{where}\' section: add one, e.g. "{where}": {{"epsilon": 1.0, "queries": '
            '[{"type": "mean", "column": "age", "epsilon": 0.5, "bounds": [0, 120]}]}.'
        )
    raw = check_mapping(where, raw)
    check_keys(where, raw, DP_KEYS)
    if "epsilon" not in raw:
        raise ConfigError(f"'{where}.epsilon' is missing: give the total privacy budget, e.g. 1.0.")
    epsilon = check_float(f"{where}.epsilon", raw["epsilon"], 0.0, min_inclusive=False)
    delta = check_float(f"{where}.delta", raw.get("delta", 0.0), 0.0, 1.0)
    if delta >= 1.0:
        raise ConfigError(f"'{where}.delta' must be below 1 (usually 0); got {delta}.")
    random_state = raw.get("random_state")
    if random_state is not None:
        random_state = check_int(f"{where}.random_state", random_state, minimum=0)
    compare = check_bool(f"{where}.compare", raw.get("compare", False))
    queries_raw = raw.get("queries")
    if not isinstance(queries_raw, list) or not queries_raw:
        raise ConfigError(
            f'\'{where}.queries\' must be a non-empty list of queries, e.g. [{{"type": "count", "epsilon": 0.1}}].'
        )
    queries = tuple(parse_query(q, f"{where}.queries[{i}]") for i, q in enumerate(queries_raw))
    if columns is not None:
        known = {str(c) for c in columns}
        for i, q in enumerate(queries):
            for c in q.columns:
                if c not in known:
                    raise ConfigError(
                        f"'{where}.queries[{i}]' names column {c!r}, which the input does not have. Columns are: {list(columns)}."
                    )
    total = float(sum(q.epsilon for q in queries))
    if total > epsilon * (1 + BUDGET_TOLERANCE):
        raise ConfigError(
            f"'{where}.queries' spend ε = {total:g} in total, above the budget '{where}.epsilon' = {epsilon:g}. "
            "Lower the queries' epsilons or raise the budget."
        )
    return DPConfig(epsilon, delta, random_state, compare, queries)


def dp_section(
    queries: Sequence[DPQuery | DPResult],
    epsilon: float,
    delta: float = 0.0,
    random_state: int | None = None,
) -> dict[str, Any]:
    """A ``dp`` configuration section recording ``queries`` (or results) and the budget.

    Results record the epsilon actually spent. Validated before it is returned, so the
    section can be run again with :func:`run_dp` (the same ``random_state`` gives the same
    noise for the same queries in the same order).
    """
    qs = [q.query.with_epsilon(q.epsilon) if isinstance(q, DPResult) else q for q in queries]
    section = DPConfig(float(epsilon), float(delta), random_state, False, tuple(qs)).to_dict()
    validate_dp_section(section)
    return section


@dataclass(frozen=True, eq=False)
class DPRunResult:
    """What :func:`run_dp` produced: the results in query order and the budget spent."""

    config: DPConfig
    results: tuple[DPResult, ...]
    budget: PrivacyBudget
    seconds: float = 0.0

    @property
    def warnings(self) -> tuple[str, ...]:
        return tuple(w for r in self.results for w in r.warnings)

    def section(self) -> dict[str, Any]:
        """The ``dp`` section that reproduces this run."""
        return self.config.to_dict()

    def tables(self) -> dict[str, pd.DataFrame]:
        """Each histogram's releasable table by query name (for CSV output)."""
        return {r.label: r.release_frame() for r in self.results if r.table is not None}

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame([r.row(compare=self.config.compare) for r in self.results])

    def to_dict(self) -> dict[str, Any]:
        budget = self.budget.to_dict()
        return {
            "epsilon": float(self.config.epsilon),
            "delta": float(self.config.delta),
            "random_state": self.config.random_state,
            "spent": budget["spent"],
            "remaining": budget["remaining"],
            "results": [r.to_dict() for r in self.results],
            "warnings": list(self.warnings),
            "seconds": float(self.seconds),
        }


def run_dp(config: DPConfig, frame: pd.DataFrame) -> DPRunResult:
    """Run a validated ``dp`` section on ``frame`` (the input table, before anonymization).

    One :class:`PrivacyBudget` of ``config.epsilon``/``delta``; query *i* uses the seed
    ``SeedSequence([random_state, i])`` (fresh noise when ``random_state`` is None).
    """
    if not isinstance(config, DPConfig):
        raise ConfigError("'config' must be a DPConfig from validate_dp_section(...).")
    t0 = time.perf_counter()
    budget = PrivacyBudget(config.epsilon, config.delta)
    results = tuple(
        dp_query(
            frame,
            q,
            budget,
            random_state=query_seed(config.random_state, i),
            compare=config.compare,
        )
        for i, q in enumerate(config.queries)
    )
    return DPRunResult(config, results, budget, time.perf_counter() - t0)


# =========================================================================== error curves


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
        prep = _prepare(frame, query)
        for m in prep.own_warnings:
            if m not in warned:
                warned.add(m)
                warnings.warn(m, PrivacyWarning, stacklevel=2)
        true = _true(prep)
        for ei, eps in enumerate(eps_list):
            seeds = np.random.SeedSequence([random_state, qi, ei]).generate_state(repeats)
            errs, rels = [], []
            for s in seeds:
                out, leaked = _draw(prep, eps, int(s))
                if leaked and query.label not in warned:
                    warned.add(query.label)
                    warnings.warn(_diffprivlib_leak_message(prep), PrivacyWarning, stacklevel=2)
                noisy = out[0] if query.type in ("histogram", "histogram2d") else out
                diff = np.abs(np.asarray(noisy, dtype=float) - np.asarray(true, dtype=float))
                errs.append(float(diff.mean()))
                denom = float(np.abs(np.asarray(true, dtype=float)).sum())
                rels.append(float(diff.sum() / denom) if denom > 0 else math.nan)
            if query.type in NUMERIC_TYPES and query.type not in ("quantile", "median"):
                exp = expected_error(query.type, eps, next(iter(prep.bounds.values())), prep.n)
            else:
                exp = expected_error(query.type, eps)
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


# =========================================================================== machine learning

#: Model families: (diffprivlib model, scikit-learn counterpart).
DP_MODELS = {
    "logistic_regression": (
        "diffprivlib.models.LogisticRegression",
        "sklearn.linear_model.LogisticRegression",
    ),
    "gaussian_nb": ("diffprivlib.models.GaussianNB", "sklearn.naive_bayes.GaussianNB"),
    "random_forest": (
        "diffprivlib.models.RandomForestClassifier",
        "sklearn.ensemble.RandomForestClassifier",
    ),
}
#: Parameters a DP model and its counterpart share (only these pass to the counterpart).
_SHARED_PARAMS = {
    "logistic_regression": {"C", "tol", "fit_intercept", "max_iter"},
    "gaussian_nb": {"var_smoothing", "priors"},
    "random_forest": {"n_estimators", "max_depth"},
}


@dataclass(frozen=True)
class MLEncoding:
    """A data-independent encoding of features into [0, 1] (what the DP models are given).

    Numeric features: ``clip((v - lower) / (upper - lower), 0, 1)`` with the feature's bounds;
    a missing value becomes 0.5 (the middle of the bounds, chosen without the data).
    Categorical features: one-hot over the feature's categories (compared as text labels;
    missing is the label ``NULL``); a value outside them encodes as all zeros. Every row then
    lies in [0, 1]^d with L2 norm at most ``data_norm`` = sqrt(numeric + categorical features),
    so the DP models' ``bounds=(0, 1)`` and ``data_norm`` need nothing from the data.
    """

    numeric: dict[str, tuple[float, float]]
    categorical: dict[str, tuple[str, ...]]

    @property
    def n_columns(self) -> int:
        return len(self.numeric) + sum(len(c) for c in self.categorical.values())

    @property
    def data_norm(self) -> float:
        return math.sqrt(len(self.numeric) + len(self.categorical))

    def transform(self, frame: pd.DataFrame) -> np.ndarray:
        parts = []
        for col, (lo, hi) in self.numeric.items():
            values = _numeric_or_nan(frame[col])
            scaled = np.clip((values - lo) / (hi - lo), 0.0, 1.0)
            parts.append(np.where(np.isnan(values), 0.5, scaled)[:, None])
        for col, cats in self.categorical.items():
            labels = to_labels(frame[col]).astype(str)
            parts.append((labels[:, None] == np.asarray(cats, dtype=object)[None, :]).astype(float))
        return np.hstack(parts) if parts else np.zeros((len(frame), 0))


def _numeric_or_nan(series: pd.Series) -> np.ndarray:
    from anon_core.analysis.utility import _numeric_values

    values = _numeric_values(series)
    if values is None:
        raise ConfigError(
            f"Column {series.name!r} is not numeric: give it 'categories' instead of 'bounds'."
        )
    return values


@dataclass(frozen=True, eq=False)
class DPMLResult:
    """Accuracy against epsilon of DP models, and the non-private and k-anonymized baselines.

    ``scores`` is long form: model, setting (``dp``, ``non_private``, ``k_anonymized``),
    epsilon (NaN for baselines), seed, accuracy.
    """

    target: str
    features: tuple[str, ...]
    classes: tuple[str, ...]
    encoding: MLEncoding
    epsilons: tuple[float, ...]
    repeats: int
    test_size: float
    random_state: int
    scores: pd.DataFrame
    majority_rate: float
    warnings: tuple[str, ...] = ()
    from_data: tuple[
        str, ...
    ] = ()  # e.g. ("classes of income", "categories of sex"): not covered by DP
    seconds: float = 0.0

    def curve(self) -> pd.DataFrame:
        """Per model and epsilon: mean, std (ddof 0), min and max accuracy over the seeds."""
        dp = self.scores[self.scores["setting"] == "dp"]
        out = dp.groupby(["model", "epsilon"], sort=False)["accuracy"].agg(
            ["mean", "std", "min", "max", "count"]
        )
        out["std"] = dp.groupby(["model", "epsilon"], sort=False)["accuracy"].std(ddof=0)
        return out.reset_index()

    def baselines(self) -> pd.DataFrame:
        """Per model and setting (non_private, k_anonymized): mean and std accuracy over the seeds."""
        base = self.scores[self.scores["setting"] != "dp"]
        g = base.groupby(["model", "setting"], sort=False)["accuracy"]
        return pd.concat(
            [g.mean().rename("mean"), g.std(ddof=0).rename("std"), g.count().rename("count")],
            axis=1,
        ).reset_index()

    def to_frame(self) -> pd.DataFrame:
        """Wide table: one row per model; ``mean ± std`` per epsilon, then the baselines."""
        curve, base = self.curve(), self.baselines()
        rows = []
        for model in dict.fromkeys(self.scores["model"]):
            row: dict[str, Any] = {"model": model}
            for _, r in curve[curve["model"] == model].iterrows():
                row[f"ε={r['epsilon']:g}"] = f"{r['mean']:.3f} ± {r['std']:.3f}"
            for _, r in base[base["model"] == model].iterrows():
                row[r["setting"]] = f"{r['mean']:.3f} ± {r['std']:.3f}"
            rows.append(row)
        return pd.DataFrame(rows)

    def to_dict(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "features": list(self.features),
            "classes": list(self.classes),
            "numeric_bounds": {k: list(v) for k, v in self.encoding.numeric.items()},
            "categories": {k: list(v) for k, v in self.encoding.categorical.items()},
            "epsilons": list(self.epsilons),
            "repeats": self.repeats,
            "test_size": self.test_size,
            "random_state": self.random_state,
            "majority_rate": self.majority_rate,
            "curve": self.curve().to_dict(orient="records"),
            "baselines": self.baselines().to_dict(orient="records"),
            "warnings": list(self.warnings),
            "from_data": list(self.from_data),
            "seconds": self.seconds,
        }


def _dp_model(
    name: str,
    epsilon: float,
    classes: np.ndarray,
    data_norm: float,
    params: Mapping[str, Any],
    seed: int,
) -> Any:
    dpl = _diffprivlib()
    acc = _scratch_accountant()
    if name == "logistic_regression":
        model = _diffprivlib().models.LogisticRegression(
            epsilon=epsilon, data_norm=data_norm, random_state=seed, accountant=acc
        )
    elif name == "gaussian_nb":
        model = dpl.models.GaussianNB(
            epsilon=epsilon, bounds=(0.0, 1.0), random_state=seed, accountant=acc
        )
    else:
        model = dpl.models.RandomForestClassifier(
            epsilon=epsilon, bounds=(0.0, 1.0), classes=classes, random_state=seed, accountant=acc
        )
    try:
        model.set_params(**params)
    except ValueError as exc:
        raise ConfigError(f"'model_params.{name}' has an invalid parameter: {exc}") from None
    return model


def _sk_model(name: str, params: Mapping[str, Any], seed: int) -> Any:
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB

    shared = {k: v for k, v in params.items() if k in _SHARED_PARAMS[name]}
    if name == "logistic_regression":
        model = LogisticRegression(max_iter=2000, random_state=seed)
    elif name == "gaussian_nb":
        model = GaussianNB()
    else:
        # Same size as diffprivlib's default forest (10 trees of depth 5): like for like.
        model = RandomForestClassifier(n_estimators=10, max_depth=5, random_state=seed)
    model.set_params(**shared)
    return model


def _ml_encoding(
    frame: pd.DataFrame,
    features: Sequence[str],
    bounds: Mapping[str, Any],
    categories: Mapping[str, Any],
    notes: list[str],
    derived: list[str],
) -> MLEncoding:
    from anon_core.analysis.utility import _numeric_values

    numeric: dict[str, tuple[float, float]] = {}
    categorical: dict[str, tuple[str, ...]] = {}
    for col in features:
        if col in bounds and bounds[col] is not None and bounds[col] != FROM_DATA:
            numeric[col] = _parse_bounds(f"bounds.{col}", list(bounds[col]))  # type: ignore[assignment]
            _numeric_or_nan(frame[col])
            continue
        if col in categories and categories[col] is not None and categories[col] != FROM_DATA:
            categorical[col] = _parse_categories(f"categories.{col}", list(categories[col]))  # type: ignore[assignment]
            continue
        values = None if col in categories else _numeric_values(frame[col])
        if values is not None:
            present = values[~np.isnan(values)]
            lo, hi = float(present.min()), float(present.max())
            if lo == hi:
                hi = lo + 1.0
            numeric[col] = (lo, hi)
            derived.append(f"bounds of {col}")
            notes.append(
                _leak_message(
                    f"model feature {col!r}",
                    f"bounds ({lo:g} to {hi:g})",
                    "the smallest and largest value",
                )
            )
        else:
            categorical[col] = tuple(sorted(pd.unique(to_labels(frame[col]).astype(str)).tolist()))
            derived.append(f"categories of {col}")
            notes.append(
                _leak_message(
                    f"model feature {col!r}", "categories", "which values occur in the data"
                )
            )
    return MLEncoding(numeric, categorical)


def _released_encoding(
    encoding: MLEncoding, released: pd.DataFrame, features: Sequence[str]
) -> MLEncoding:
    """The encoding of the released table: a feature still numeric keeps its bounds; any other
    (generalized labels such as ``[20, 30)`` or ``*``) is one-hot over the release's own labels,
    which are public."""
    from anon_core.analysis.utility import _numeric_values

    numeric: dict[str, tuple[float, float]] = {}
    categorical: dict[str, tuple[str, ...]] = {}
    for col in features:
        if col in encoding.numeric and _numeric_values(released[col]) is not None:
            numeric[col] = encoding.numeric[col]
        else:
            categorical[col] = tuple(
                sorted(pd.unique(to_labels(released[col]).astype(str)).tolist())
            )
    return MLEncoding(numeric, categorical)


def dp_ml_curve(
    frame: pd.DataFrame,
    target: str,
    features: Sequence[str] | None = None,
    models: Sequence[str] = tuple(DP_MODELS),
    epsilons: Sequence[float] | None = None,
    repeats: int = 3,
    test_size: float = 0.3,
    bounds: Mapping[str, Sequence[float] | str] | None = None,
    categories: Mapping[str, Sequence[Any] | str] | None = None,
    classes: Sequence[Any] | None = None,
    released: pd.DataFrame | None = None,
    random_state: int = 0,
    progress: Callable[[float, str], None] | None = None,
    model_params: Mapping[str, Mapping[str, Any]] | None = None,
) -> DPMLResult:
    """Accuracy against epsilon of diffprivlib's classifiers, with non-private baselines.

    For each seed ``random_state + r`` (r < ``repeats``): a stratified train/test split of
    ``frame`` (``test_size`` held out), the :class:`MLEncoding` of the features, then

    * each DP model (``models`` ⊆ :data:`DP_MODELS`) at each epsilon of ``epsilons``
      (default :data:`DEFAULT_EPSILONS`, 0.01 to 10 log-spaced) with ``random_state`` = seed,
      trained on the training rows and scored (accuracy) on the test rows: setting ``dp``;
      ``LogisticRegression`` gets ``data_norm`` = the encoding's norm bound, ``GaussianNB``
      and ``RandomForestClassifier`` ``bounds=(0, 1)``, the forest ``classes``;
    * its scikit-learn counterpart on the same encoding and split (``non_private``;
      ``LogisticRegression(max_iter=2000)``, ``GaussianNB()``, a forest of diffprivlib's
      default size, 10 trees of depth 5);
    * with ``released`` (e.g. ``problem.apply(result)``, the k-anonymized table): the
      counterpart trained and tested on the released rows (``k_anonymized``), encoded the
      same way except that generalized features are one-hot over the release's own labels.
      When the release has as many rows as ``frame`` (no suppression: ``apply`` keeps the row
      order) the train and test records are the same as above; otherwise it is a stratified
      split of the released rows with the same seed and ``test_size``.

    Bounds per numeric feature and categories per categorical feature (``bounds``,
    ``categories``; a feature with bounds is numeric) should come from domain knowledge; a
    feature without them, or with ``"data"``, gets them from the data with a plain-words
    :class:`PrivacyWarning`. So do the target's ``classes`` when not given. The accuracies
    are computed on the true test rows: the curve is a planning tool, not a release, and
    spends no budget (each DP model gets its own unlimited accountant).
    ``model_params={"random_forest": {"n_estimators": 50}}`` sets parameters of a DP model
    (and of its counterpart where they share the parameter). ``progress(fraction, message)``
    is called after each fit.
    """
    from sklearn.model_selection import train_test_split

    t0 = time.perf_counter()
    if not isinstance(frame, pd.DataFrame):
        raise ConfigError(f"'frame' must be a pandas DataFrame, got {type(frame).__name__}.")
    if not isinstance(target, str) or target not in frame.columns:
        raise ConfigError(
            f"'target' must be a column of the table, got {target!r}. Columns are: {list(frame.columns)}."
        )
    if isinstance(models, str):
        models = [models]
    models = list(dict.fromkeys(models))
    if not models:
        raise ConfigError(f"'models' must name at least one of {list(DP_MODELS)}.")
    for m in models:
        if m not in DP_MODELS:
            raise ConfigError(f"'models' must be among {list(DP_MODELS)}, got {m!r}.")
    eps_list = tuple(
        check_float(
            "epsilons", float(e) if isinstance(e, np.floating) else e, 0.0, min_inclusive=False
        )
        for e in (DEFAULT_EPSILONS if epsilons is None else epsilons)
    )
    if not eps_list:
        raise ConfigError("'epsilons' is empty: give at least one epsilon, e.g. [0.1, 1, 10].")
    repeats = check_int("repeats", repeats, minimum=1)
    test_size = check_float("test_size", test_size, 0.0, 1.0, min_inclusive=False)
    if test_size >= 1.0:
        raise ConfigError("'test_size' must be below 1, e.g. 0.3.")
    random_state = check_int("random_state", random_state, minimum=0)
    params = dict(check_mapping("model_params", model_params or {}))
    for name, p in params.items():
        if name not in models:
            raise ConfigError(
                f"'model_params' names {name!r}, which is not among the models run {models}."
            )
        check_mapping(f"model_params.{name}", p)
    bounds = dict(check_mapping("bounds", bounds or {}))
    categories = dict(check_mapping("categories", categories or {}))
    if features is None:
        features = [str(c) for c in frame.columns if c != target]
    else:
        features = (
            [features]
            if isinstance(features, str)
            else list(dict.fromkeys(str(f) for f in features))
        )
    if not features:
        raise ConfigError("'features' is empty: name at least one column to learn from.")
    if target in features:
        raise ConfigError(f"'features' contains the target {target!r}: remove it.")
    missing = [f for f in features if f not in frame.columns]
    if missing:
        raise ConfigError(
            f"'features' names {missing}, which are not columns. Columns are: {list(frame.columns)}."
        )
    for key, spec in (("bounds", bounds), ("categories", categories)):
        unknown = [c for c in spec if c not in features]
        if unknown:
            raise ConfigError(
                f"'{key}' names {unknown}, which are not among the features {features}."
            )
    if released is not None:
        if not isinstance(released, pd.DataFrame):
            raise ConfigError("'released' must be a DataFrame (problem.apply(result)) or None.")
        if target not in released.columns:
            raise ConfigError(
                f"'released' has no column {target!r}: keep the target in the release (role sensitive or insensitive)."
            )

    notes: list[str] = []
    derived: list[str] = []
    keep = ~frame[target].isna().to_numpy()
    labels_all = to_labels(frame[target]).astype(str)
    if classes is None:
        class_list = np.array(sorted(pd.unique(labels_all[keep]).tolist()), dtype=object)
        derived.append(f"classes of {target}")
        notes.append(
            _leak_message(f"target {target!r}", "classes", "which classes occur in the data")
        )
    else:
        class_list = np.array([_text(c) for c in classes], dtype=object)
        keep &= np.isin(labels_all, class_list)
    # Models see the classes as codes 0..k-1: diffprivlib 0.6.6's forest compares its `classes`
    # with the already-encoded labels, so text classes would leave every leaf empty.
    code_of = {c: i for i, c in enumerate(class_list)}
    rows = frame[keep]
    y_all = np.fromiter(
        (code_of[v] for v in labels_all[keep]), dtype=np.int64, count=int(keep.sum())
    )
    if len(np.unique(y_all)) < 2:
        raise ConfigError(f"'target' {target!r} has fewer than two classes: choose another target.")
    encoding = _ml_encoding(rows, features, bounds, categories, notes, derived)
    for m in notes:
        warnings.warn(m, PrivacyWarning, stacklevel=2)
    X_all = encoding.transform(rows)
    aligned = False
    if released is not None:
        rel_feats = [f for f in features if f in released.columns]
        if not rel_feats:
            raise ConfigError("'released' shares no feature with the original table.")
        rel_labels = to_labels(released[target]).astype(str)
        rel_present = ~released[target].isna().to_numpy()
        original_values = set(labels_all[~frame[target].isna().to_numpy()])
        unseen = sorted(set(rel_labels[rel_present]) - original_values)
        if unseen:
            raise ConfigError(
                f"'released' has target values {unseen[:5]} that are not classes of the original: the target was "
                "generalized. Give it the role sensitive or insensitive so it is released unchanged."
            )
        # Without suppression the release keeps every row in order: same train/test records.
        aligned = len(released) == len(frame) and bool((rel_labels[keep] == labels_all[keep]).all())
        rel_keep = keep if aligned else rel_present & np.isin(rel_labels, class_list)
        rel_rows = released[rel_keep]
        y_rel = np.fromiter(
            (code_of[v] for v in rel_labels[rel_keep]), dtype=np.int64, count=int(rel_keep.sum())
        )
        rel_counts = (
            np.bincount(y_rel, minlength=len(class_list)) if len(y_rel) else np.zeros(1, dtype=int)
        )
        if len(y_rel) < 10 or (rel_counts > 0).sum() < 2 or rel_counts[rel_counts > 0].min() < 2:
            raise ConfigError(
                f"'released' has {len(y_rel)} rows with a class of {target!r} ({int((rel_counts > 0).sum())} classes): "
                "too few to train and test a model. Choose a transformation that suppresses fewer records, or "
                "leave 'released' out."
            )
        X_rel = _released_encoding(encoding, rel_rows, rel_feats).transform(rel_rows)

    fits_per_seed = len(models) * (len(eps_list) + 1 + (released is not None))
    total, step = repeats * fits_per_seed, 0
    records = []
    for r in range(repeats):
        seed = random_state + r
        try:
            idx_tr, idx_te = train_test_split(
                np.arange(len(y_all)), test_size=test_size, random_state=seed, stratify=y_all
            )
        except ValueError as exc:
            raise ConfigError(
                f"'target' {target!r} cannot be split for testing: {exc}. Merge rare classes or lower 'test_size'."
            ) from None
        X_tr, X_te, y_tr, y_te = X_all[idx_tr], X_all[idx_te], y_all[idx_tr], y_all[idx_te]
        for name in models:
            p = params.get(name, {})
            with warnings.catch_warnings():
                warnings.simplefilter(
                    "ignore"
                )  # convergence and diffprivlib notes; bounds are all given
                for eps in eps_list:
                    model = _dp_model(
                        name, eps, np.arange(len(class_list)), encoding.data_norm, p, seed
                    )
                    model.fit(X_tr, y_tr)
                    records.append(
                        (name, "dp", eps, seed, float(np.mean(model.predict(X_te) == y_te)))
                    )
                    step += 1
                    if progress is not None:
                        progress(step / total, f"{name}, ε = {eps:g}, seed {seed}")
                sk = _sk_model(name, p, seed).fit(X_tr, y_tr)
                records.append(
                    (name, "non_private", math.nan, seed, float(np.mean(sk.predict(X_te) == y_te)))
                )
                step += 1
                if released is not None:
                    if aligned:
                        r_tr, r_te = idx_tr, idx_te
                    else:
                        r_tr, r_te = train_test_split(
                            np.arange(len(y_rel)),
                            test_size=test_size,
                            random_state=seed,
                            stratify=y_rel,
                        )
                    sk = _sk_model(name, p, seed).fit(X_rel[r_tr], y_rel[r_tr])
                    records.append(
                        (
                            name,
                            "k_anonymized",
                            math.nan,
                            seed,
                            float(np.mean(sk.predict(X_rel[r_te]) == y_rel[r_te])),
                        )
                    )
                    step += 1
            if progress is not None:
                progress(step / total, f"{name}: baselines, seed {seed}")
    scores = pd.DataFrame(records, columns=["model", "setting", "epsilon", "seed", "accuracy"])
    counts = np.bincount(y_all)
    seconds = time.perf_counter() - t0
    log.info("dp_ml_curve: %d fits in %.1f s", len(records), seconds)
    return DPMLResult(
        target=target,
        features=tuple(features),
        classes=tuple(str(c) for c in class_list),
        encoding=encoding,
        epsilons=eps_list,
        repeats=repeats,
        test_size=test_size,
        random_state=random_state,
        scores=scores,
        majority_rate=float(counts.max() / counts.sum()),
        warnings=tuple(notes),
        from_data=tuple(derived),
        seconds=seconds,
    )
