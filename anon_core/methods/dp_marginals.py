"""Building blocks of the marginal-based DP synthesizers (MST, AIM): domains declared without
looking at the data, zCDP accounting, and the noisy measurements.

**Domains.** A DP synthesizer must know each column's possible values before it reads a row,
else the set of categories itself leaks (a category present only for one person). In order:
the method's ``domains`` parameter, the release context's ``domains``, the configuration's
hierarchies given as a ``file`` or ``table`` (their leaves are the categories; all-numeric
leaves give numeric bounds), and only then the data, with a
:class:`~anon_core.errors.PrivacyLeakWarning` naming the columns (the guarantee does not cover
that). Declared formats::

    domains:
      sex: [Male, Female]                        # categories
      age: {min: 17, max: 90, integer: true}     # numeric bounds (optional bins)

Numeric columns are clipped to their bounds and cut into ``bins`` equal-width bins (one bin per
value for an integer range of at most ``bins`` values); a synthetic value is drawn uniformly
within its bin (integers: uniform integers of the bin). Rows with a missing value or a category
outside the declared domain are left out before anything is measured (a per-record rule, so it
does not affect the guarantee), hence categories outside the domain never appear in the output.

**Accounting** (zero-concentrated DP, Bun and Steinke, TCC 2016): the Gaussian mechanism with
L2 sensitivity 1 and standard deviation s is ``1/(2 s^2)``-zCDP; the exponential mechanism
with parameter e is ``e^2/8``-zCDP (Cesar and Rogers, "Bounding, concentrating, and truncating:
unifying privacy loss composition", 2021, as MST's reference code uses); zCDP adds up. The
budget (epsilon, delta) is converted to rho with the conversion of Canonne, Kamath and Steinke,
"The discrete Gaussian for differential privacy", NeurIPS 2020 (Prop. 12 / the ``cdp2adp``
module of McKenna's Private-PGM mechanisms), and back for the epsilon actually spent.

**Mechanisms** (vetted, seedable): diffprivlib's ``GaussianAnalytic`` (Balle and Wang, ICML 2018)
draws the measurement noise and diffprivlib's ``Exponential`` the selections, both with
``random_state`` so a fixed seed reproduces the release bit for bit. OpenDP's samplers are not
used: they draw from the operating system's CSPRNG and cannot be seeded, which our
reproducibility rule (same configuration, same output) needs. A fixed seed makes the noise
predictable to whoever knows it: keep release seeds secret, or pass ``random_state=None`` for
diffprivlib's secure generator.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from anon_core.data.io import MISSING, to_labels
from anon_core.errors import AnonError, ConfigError, PrivacyLeakWarning
from anon_core.methods.registry import MethodContext
from anon_core.validation import check_bool, check_float, check_int, check_mapping

__all__ = [
    "MAX_CATEGORIES",
    "Accountant",
    "ColumnDomain",
    "cdp_delta",
    "cdp_epsilon",
    "cdp_rho",
    "resolve_domains",
]

#: A categorical domain larger than this is refused (declare fewer categories or drop the column).
MAX_CATEGORIES = 1000


# ------------------------------------------------------------------ zCDP <-> (epsilon, delta)
def cdp_delta(rho: float, epsilon: float) -> float:
    """The smallest delta such that rho-zCDP implies (epsilon, delta)-DP (Canonne et al. 2020):
    delta = min over alpha > 1 of exp((alpha-1)(alpha rho - epsilon)) / (alpha-1) * (1-1/alpha)^alpha."""
    if rho < 0 or epsilon < 0:
        raise ConfigError(f"rho and epsilon must be non-negative, got {rho} and {epsilon}.")
    if rho == 0:
        return 0.0
    lo, hi = 1.01, (epsilon + 1.0) / (2.0 * rho) + 2.0
    alpha = lo
    for _ in range(1000):  # bisection on the derivative of the log of the bound in alpha
        alpha = (lo + hi) / 2.0
        slope = (2.0 * alpha - 1.0) * rho - epsilon + math.log1p(-1.0 / alpha)
        if slope < 0:
            lo = alpha
        else:
            hi = alpha
    log_delta = (alpha - 1.0) * (alpha * rho - epsilon) + alpha * math.log1p(-1.0 / alpha)
    return min(1.0, math.exp(log_delta) / (alpha - 1.0))


def cdp_epsilon(rho: float, delta: float) -> float:
    """The smallest epsilon such that rho-zCDP implies (epsilon, delta)-DP."""
    if rho == 0:
        return 0.0
    lo, hi = 0.0, rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta)) + 1.0
    for _ in range(1000):
        mid = (lo + hi) / 2.0
        if cdp_delta(rho, mid) <= delta:
            hi = mid
        else:
            lo = mid
    return hi


def cdp_rho(epsilon: float, delta: float) -> float:
    """The largest rho such that rho-zCDP implies (epsilon, delta)-DP."""
    lo, hi = 0.0, epsilon + 1.0
    for _ in range(1000):
        mid = (lo + hi) / 2.0
        if cdp_delta(mid, epsilon) <= delta:
            lo = mid
        else:
            hi = mid
    return lo


@dataclass
class Accountant:
    """A zCDP budget and the mechanisms that spend it (diffprivlib's, seeded from ``rng``)."""

    rho: float
    rng: np.random.Generator | None  # None: diffprivlib's secure generator
    spent: float = 0.0
    log: list[tuple[str, float]] = field(default_factory=list)

    def _seed(self) -> int | None:
        return None if self.rng is None else int(self.rng.integers(2**31 - 1))

    def _spend(self, rho: float, what: str) -> None:
        if self.spent + rho > self.rho:
            raise AnonError(  # pragma: no cover - the callers split the budget exactly
                f"Privacy budget exceeded by {what}: {self.spent + rho:.6g} > rho {self.rho:.6g}."
            )
        self.spent += rho
        self.log.append((what, rho))

    def gaussian(self, values: np.ndarray, std: float, what: str) -> np.ndarray:
        """``values`` (a marginal, L2 sensitivity 1) plus Gaussian noise of standard deviation ``std``."""
        from diffprivlib.mechanisms import GaussianAnalytic

        # GaussianAnalytic is calibrated by (epsilon, delta): take the point of the Gaussian's
        # exact privacy profile (Balle and Wang, Thm 8) where epsilon * std = 3, so that it
        # calibrates back to ``std``; then account with the scale it actually uses.
        eps = 3.0 / std
        delta = _normal_cdf(0.5 / std - eps * std) - math.exp(eps) * _normal_cdf(
            -0.5 / std - eps * std
        )
        mech = GaussianAnalytic(
            epsilon=eps, delta=delta, sensitivity=1.0, random_state=self._seed()
        )
        scale = float(mech._scale)  # diffprivlib keeps the calibrated scale here
        if not math.isclose(scale, std, rel_tol=1e-6):  # pragma: no cover - a calibration failure
            raise AnonError(f"The Gaussian mechanism calibrated to {scale}, not {std}.")
        self._spend(1.0 / (2.0 * min(scale, std) ** 2), what)
        flat = np.asarray(values, dtype=float).ravel()
        noisy = np.array([mech.randomise(float(v)) for v in flat])
        return noisy.reshape(np.shape(values))

    def exponential(self, scores: np.ndarray, epsilon: float, what: str) -> int:
        """Index of a candidate chosen by the exponential mechanism (scores of sensitivity 1)."""
        from diffprivlib.mechanisms import Exponential

        mech = Exponential(
            epsilon=epsilon,
            sensitivity=1.0,
            utility=[float(s) for s in scores],
            random_state=self._seed(),
        )
        self._spend(epsilon**2 / 8.0, what)
        return int(mech.randomise())


def _normal_cdf(x: float) -> float:
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


# ------------------------------------------------------------------ domains
@dataclass(frozen=True)
class ColumnDomain:
    """A column's declared domain: categories, or numeric bounds cut into bins."""

    name: str
    source: str  # "parameter" | "context" | "hierarchy" | "data"
    categories: tuple[str, ...] = ()
    low: float = 0.0
    high: float = 0.0
    bins: int = 0
    integer: bool = False

    @property
    def numeric(self) -> bool:
        return not self.categories

    @property
    def size(self) -> int:
        return len(self.categories) if self.categories else self.bins

    def edges(self) -> np.ndarray:
        return np.linspace(self.low, self.high, self.bins + 1)

    def to_dict(self) -> dict[str, Any]:
        if self.categories:
            return {"source": self.source, "categories": list(self.categories)}
        return {
            "source": self.source,
            "min": self.low,
            "max": self.high,
            "bins": self.bins,
            "integer": self.integer,
        }

    def encode(self, series: pd.Series) -> np.ndarray:
        """Codes 0..size-1; -1 for a missing value or a category outside the domain."""
        if self.categories:
            index = {c: i for i, c in enumerate(self.categories)}
            labels = to_labels(series)
            return np.array([index.get(str(v), -1) for v in labels], dtype=np.int64)
        values = pd.to_numeric(series, errors="coerce").to_numpy(dtype=float)
        codes = np.full(len(values), -1, dtype=np.int64)
        ok = ~np.isnan(values)
        clipped = np.clip(values[ok], self.low, self.high)
        if self.integer and self.high - self.low + 1 <= self.bins:
            codes[ok] = np.round(clipped - self.low).astype(np.int64)
        else:
            width = (self.high - self.low) / self.bins or 1.0
            codes[ok] = np.minimum(((clipped - self.low) / width).astype(np.int64), self.bins - 1)
        return codes

    def decode(self, codes: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Values of the codes: the category, or a uniform draw within the numeric bin."""
        codes = np.asarray(codes, dtype=np.int64)
        if self.categories:
            return np.asarray(self.categories, dtype=object)[codes]
        if self.integer and self.high - self.low + 1 <= self.bins:
            return (self.low + codes).astype(np.int64)
        edges = self.edges()
        values = rng.uniform(edges[codes], edges[codes + 1])
        if not self.integer:
            return values
        lo = np.ceil(edges[codes])
        hi = np.where(codes == self.bins - 1, np.floor(self.high), np.ceil(edges[codes + 1]) - 1)
        return np.clip(np.floor(values), lo, np.maximum(lo, hi)).astype(np.int64)


def _declared(name: str, spec: Any, source: str, bins: int, where: str) -> ColumnDomain:
    if isinstance(spec, list | tuple):
        cats = tuple(dict.fromkeys(str(c) for c in spec))
        if not cats:
            raise ConfigError(f"'{where}.{name}' lists no category; give at least one.")
        if len(cats) > MAX_CATEGORIES:
            raise ConfigError(
                f"'{where}.{name}' lists {len(cats)} categories, more than {MAX_CATEGORIES}; "
                "merge categories or leave the column out of the release."
            )
        return ColumnDomain(name, source, categories=cats)
    spec = check_mapping(f"{where}.{name}", spec)
    unknown = set(spec) - {"min", "max", "bins", "integer"}
    if unknown or "min" not in spec or "max" not in spec:
        raise ConfigError(
            f"'{where}.{name}' must be a list of categories or {{min, max[, bins, integer]}}, "
            f"got {dict(spec)!r}."
        )
    low = check_float(f"{where}.{name}.min", spec["min"])
    high = check_float(f"{where}.{name}.max", spec["max"])
    if high <= low:
        raise ConfigError(f"'{where}.{name}': max ({high}) must be greater than min ({low}).")
    n_bins = check_int(f"{where}.{name}.bins", spec.get("bins", bins), minimum=1)
    integer = check_bool(f"{where}.{name}.integer", spec.get("integer", False))
    return ColumnDomain(name, source, low=low, high=high, bins=n_bins, integer=integer)


def _from_hierarchy(name: str, context: MethodContext, kind: str, bins: int) -> ColumnDomain | None:
    config = context.config
    spec = None if config is None else config.hierarchy_specs.get(name)
    if not spec or not ("file" in spec or "table" in spec):
        return None  # builder hierarchies are built from the data's values
    from anon_core.data.hierarchy_spec import hierarchy_from_spec

    leaves = [str(v) for v in hierarchy_from_spec(name, spec, [], config.base_dir).values]
    numbers = pd.to_numeric(pd.Series(leaves), errors="coerce")
    if kind == "numeric" and not numbers.isna().any():
        integer = bool((numbers % 1 == 0).all())
        return ColumnDomain(
            name, "hierarchy", low=float(numbers.min()), high=float(numbers.max()),
            bins=bins, integer=integer,
        )  # fmt: skip
    return ColumnDomain(name, "hierarchy", categories=tuple(dict.fromkeys(leaves)))


def _from_data(name: str, series: pd.Series, kind: str, bins: int) -> ColumnDomain:
    if kind == "numeric":
        values = pd.to_numeric(series, errors="coerce").dropna()
        if not values.empty:
            low, high = float(values.min()), float(values.max())
            integer = bool((values % 1 == 0).all()) or pd.api.types.is_integer_dtype(series)
            return ColumnDomain(
                name, "data", low=low, high=high if high > low else low + 1, bins=bins,
                integer=integer,
            )  # fmt: skip
    labels = [v for v in dict.fromkeys(str(x) for x in to_labels(series)) if v != MISSING]
    if len(labels) > MAX_CATEGORIES:
        raise ConfigError(
            f"Column {name!r} has {len(labels)} distinct values: too many categories for a DP "
            f"synthesizer (at most {MAX_CATEGORIES}); declare its domain in 'domains' or leave it "
            "out of the release."
        )
    return ColumnDomain(name, "data", categories=tuple(sorted(labels)) or ("",))


def resolve_domains(
    frame: pd.DataFrame,
    context: MethodContext,
    declared: Mapping[str, Any] | None,
    bins: int,
) -> dict[str, ColumnDomain]:
    """Every column's domain (see the module docstring); warns for those read from the data."""
    columns = [str(c) for c in frame.columns]
    declared = dict(declared or {})
    unknown = [c for c in list(declared) + list(context.domains) if c not in columns]
    if unknown:
        raise ConfigError(
            f"'domains' names {sorted(set(unknown))}, which are not columns of the table. "
            f"Columns are: {columns}."
        )
    out: dict[str, ColumnDomain] = {}
    from_data = []
    for col in columns:
        kind = context.kind(col)
        if col in declared:
            out[col] = _declared(col, declared[col], "parameter", bins, "domains")
        elif col in context.domains:
            out[col] = _declared(col, context.domains[col], "context", bins, "domains")
        else:
            found = _from_hierarchy(col, context, kind, bins)
            if found is None:
                found = _from_data(col, frame[col], kind, bins)
                from_data.append(col)
            out[col] = found
    if from_data:
        warnings.warn(
            f"The domains of {from_data} were read from the data: which values occur is not "
            "protected by the DP guarantee. Declare them in the method's 'domains' (categories, "
            "or {min, max} bounds) or give the columns hierarchy files.",
            PrivacyLeakWarning,
            stacklevel=3,
        )
    return out
