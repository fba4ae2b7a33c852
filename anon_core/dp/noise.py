"""The mechanisms: one private draw of a prepared query, its expected error, and the true answer.

Every noise value comes from a diffprivlib tool or mechanism; this module chooses the
sensitivity for the query's neighbouring relation (stated per query below and in docs/topics/dp.md):

* **count, histogram, histogram2d** - add/remove one record changes one count by 1 (L1 and
  L2 sensitivity 1): geometric noise (``count_nonzero``, ``histogram``; pure epsilon-DP) or,
  with ``"mechanism": "gaussian"``, the discrete Gaussian (Canonne, Kamath and Steinke,
  NeurIPS 2020) with the query's delta. Counts are truncated at 0 (post-processing).
* **sum**, n private - add/remove one value clipped to [L, U] moves the sum by at most
  max(|L|, |U|): Laplace (or analytic Gaussian, Balle and Wang, ICML 2018) noise of that
  sensitivity. n public (``"n"``) - replace-one with n fixed: diffprivlib's ``sum``
  (sensitivity U - L).
* **mean, var**, n private - add/remove: ``count_share`` of epsilon (and delta) buys a noisy
  count n~; the rest a noisy sum of the values centred at c = (L + U)/2 (sensitivity
  h = (U - L)/2) and, for the variance, a noisy sum of squares (sensitivity h^2), half each.
  mean = c + S~/n~ clipped to [L, U]; var = Q~/n~ - (S~/n~)^2 clipped to [0, h^2]
  (post-processing). n public - replace-one with n fixed: diffprivlib's ``mean`` and ``var``
  (or the analytic Gaussian with the same sensitivities).
* **quantile, median** - the exponential mechanism of diffprivlib (utility -|rank - q n|).
  Adding or removing one value changes every utility by at most max(q, 1 - q) <= 1, so the
  sensitivity 1 it assumes holds for add/remove as well as replace-one; n is never output.

The expected error (mean absolute error of the noise) is computed from the noise scales and,
where it depends on the data (a mean without a public n), from the noisy answers only, so
it may be published beside the figure. Quantiles have no data-independent error: theirs is
empirical and stays with the data custodian (results show it only when compared).
"""

from __future__ import annotations

import logging
import math
import sys
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from anon_core.dp.library import EMPIRICAL_DRAWS, EMPIRICAL_SEED, diffprivlib_parts
from anon_core.dp.library import scratch_accountant as _accountant
from anon_core.dp.prepare import Prepared
from anon_core.dp.queries import NUMERIC_TYPES, QUANTILE_TYPES, QUERY_TYPES
from anon_core.errors import ConfigError

log = logging.getLogger(__name__)

SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


@dataclass(frozen=True)
class Noise:
    """One noise term of an answer: ``weight`` times noise of ``kind`` with ``scale``.

    kind ``laplace``: scale b (E|X| = b); ``geometric``: scale = its epsilon (E|X| =
    1/sinh(epsilon)); ``gaussian``: scale sigma (E|X| = sigma sqrt(2/pi)).
    """

    kind: str
    scale: float
    weight: float = 1.0

    @property
    def mean_abs(self) -> float:
        if self.kind == "laplace":
            return abs(self.weight) * self.scale
        if self.kind == "geometric":
            return abs(self.weight) / math.sinh(self.scale) if self.scale < 700 else 0.0
        return abs(self.weight) * self.scale * SQRT_2_OVER_PI

    @property
    def variance(self) -> float:
        if self.kind == "laplace":
            return 2 * (self.weight * self.scale) ** 2
        if self.kind == "geometric":
            a = math.exp(-self.scale)
            return self.weight**2 * 2 * a / (1 - a) ** 2
        return (self.weight * self.scale) ** 2


def combined_error(terms: list[Noise]) -> float:
    """E|sum of independent noise terms|: exact for one term, for Gaussians and for two
    Laplace-like terms ((a^2 + ab + b^2)/(a + b)); otherwise the normal approximation."""
    terms = [t for t in terms if t.weight != 0 and t.mean_abs > 0]
    if not terms:
        return 0.0
    if len(terms) == 1:
        return terms[0].mean_abs
    if all(t.kind == "gaussian" for t in terms):
        return math.sqrt(sum(t.variance for t in terms)) * SQRT_2_OVER_PI
    if len(terms) == 2 and all(t.kind != "gaussian" for t in terms):
        a, b = terms[0].mean_abs, terms[1].mean_abs
        return (a * a + a * b + b * b) / (a + b)
    return math.sqrt(sum(t.variance for t in terms)) * SQRT_2_OVER_PI


@dataclass(frozen=True)
class Draw:
    """One private answer: the output, its expected error, and whether diffprivlib warned of a leak."""

    output: Any
    error: float
    leaked: bool = False


def _count_noise(true: float, epsilon: float, delta: float, rng: Any, gaussian: bool):
    """A noisy count (truncated at 0) and its noise term."""
    mech = diffprivlib_parts().mechanisms
    if gaussian:
        m = mech.GaussianDiscrete(epsilon=epsilon, delta=delta, sensitivity=1, random_state=rng)
        return float(max(m.randomise(int(true)), 0)), Noise("gaussian", float(m._scale))
    m = mech.GeometricTruncated(
        epsilon=epsilon, sensitivity=1, lower=0, upper=sys.maxsize, random_state=rng
    )
    return float(m.randomise(int(true))), Noise("geometric", float(epsilon))


def _real_noise(
    true: float, sensitivity: float, epsilon: float, delta: float, rng: Any, gaussian: bool
):
    """A real value plus Laplace (or analytic Gaussian) noise of ``sensitivity``, and its term."""
    mech = diffprivlib_parts().mechanisms
    if sensitivity == 0:
        return float(true), Noise("laplace", 0.0)
    if gaussian:
        m = mech.GaussianAnalytic(
            epsilon=epsilon, delta=delta, sensitivity=sensitivity, random_state=rng
        )
        return float(m.randomise(float(true))), Noise("gaussian", float(m._scale))
    m = mech.Laplace(epsilon=epsilon, sensitivity=sensitivity, random_state=rng)
    return float(m.randomise(float(true))), Noise("laplace", sensitivity / epsilon)


def _histogram(prep: Prepared, epsilon: float, delta: float, rng: Any) -> Draw:
    tools = diffprivlib_parts().tools
    q = prep.query
    acc = _accountant()
    if q.type == "histogram":
        if not q.gaussian:
            counts, edges = tools.histogram(
                prep.arrays[0],
                epsilon=epsilon,
                bins=prep.bins[0],
                range=prep.ranges[0],
                random_state=rng,
                accountant=acc,
            )
            return Draw((np.asarray(counts, float), (np.asarray(edges, float),)), _geo(epsilon))
        true, edges = np.histogram(prep.arrays[0], bins=prep.bins[0], range=prep.ranges[0])
        all_edges: tuple[np.ndarray, ...] = (np.asarray(edges, float),)
    else:
        if not q.gaussian:
            counts, xe, ye = tools.histogram2d(
                prep.arrays[0],
                prep.arrays[1],
                epsilon=epsilon,
                bins=list(prep.bins),
                range=list(prep.ranges),
                random_state=rng,
                accountant=acc,
            )
            out = (np.asarray(counts, float), (np.asarray(xe, float), np.asarray(ye, float)))
            return Draw(out, _geo(epsilon))
        true, xe, ye = np.histogram2d(
            prep.arrays[0], prep.arrays[1], bins=list(prep.bins), range=list(prep.ranges)
        )
        all_edges = (np.asarray(xe, float), np.asarray(ye, float))
    # One record added or removed changes one cell by 1: L2 sensitivity 1 for the whole table.
    m = diffprivlib_parts().mechanisms.GaussianDiscrete(
        epsilon=epsilon, delta=delta, sensitivity=1, random_state=rng
    )
    noisy = np.array([max(m.randomise(int(t)), 0) for t in np.ravel(true)], dtype=float)
    error = Noise("gaussian", float(m._scale)).mean_abs
    return Draw((noisy.reshape(true.shape), all_edges), error)


def _geo(epsilon: float) -> float:
    return Noise("geometric", float(epsilon)).mean_abs


def _numeric(prep: Prepared, epsilon: float, delta: float, rng: Any) -> Draw:
    """sum, mean or var (see the module docstring for the neighbouring relation of each)."""
    dpl = diffprivlib_parts()
    q = prep.query
    lo, hi = next(iter(prep.bounds.values()))
    values = np.clip(prep.arrays[0], lo, hi)
    n = values.size
    width = hi - lo
    if q.public_n is not None:  # replace-one neighbours, n known to everyone
        if not q.gaussian:
            fn = getattr(dpl.tools, QUERY_TYPES[q.type])
            out = float(
                fn(
                    values,
                    epsilon=epsilon,
                    bounds=(lo, hi),
                    random_state=rng,
                    accountant=_accountant(),
                )
            )
            return Draw(out, expected_error(q.type, epsilon, (lo, hi), n))
        if q.type == "sum":
            value, term = _real_noise(values.sum(), width, epsilon, delta, rng, True)
            return Draw(value, term.mean_abs)
        if q.type == "mean":
            value, term = _real_noise(values.mean(), width / n, epsilon, delta, rng, True)
            return Draw(float(np.clip(value, lo, hi)), term.mean_abs)
        sens = width**2 * (n - 1) / n**2
        value, term = _real_noise(values.var(), sens, epsilon, delta, rng, True)
        return Draw(float(np.clip(value, 0.0, width**2 / 4)), term.mean_abs)
    if q.type == "sum":  # add/remove one value: the sum moves by at most max(|L|, |U|)
        value, term = _real_noise(
            values.sum(), max(abs(lo), abs(hi)), epsilon, delta, rng, q.gaussian
        )
        return Draw(value, term.mean_abs)
    # mean / var with n private: noisy count + noisy centred sums (add/remove neighbours)
    share = q.count_share
    eps_c, del_c = share * epsilon, share * delta
    parts = 1 if q.type == "mean" else 2
    eps_s, del_s = (1 - share) * epsilon / parts, (1 - share) * delta / parts
    centre, half = (lo + hi) / 2, width / 2
    shifted = values - centre
    n_noisy, t_n = _count_noise(float(n), eps_c, del_c, rng, q.gaussian)
    s_noisy, t_s = _real_noise(shifted.sum(), half, eps_s, del_s, rng, q.gaussian)
    size = max(n_noisy, 1.0)
    d = float(np.clip(s_noisy / size, -half, half))
    if q.type == "mean":
        terms = [
            Noise(t_s.kind, t_s.scale, 1 / size),
            Noise(t_n.kind, t_n.scale, d / size),
        ]
        return Draw(centre + d, combined_error(terms))
    q_noisy, t_q = _real_noise((shifted**2).sum(), half**2, eps_s, del_s, rng, q.gaussian)
    second = float(np.clip(q_noisy / size, 0.0, half**2))
    var = float(np.clip(second - d * d, 0.0, half**2))
    terms = [  # first-order (delta-method) weights of each noise term
        Noise(t_q.kind, t_q.scale, 1 / size),
        Noise(t_s.kind, t_s.scale, 2 * d / size),
        Noise(t_n.kind, t_n.scale, (var - d * d) / size),
    ]
    return Draw(var, combined_error(terms))


def _quantiles(prep: Prepared, epsilon: float, rng: Any) -> Any:
    tools = diffprivlib_parts().tools
    q = prep.query
    lo, hi = next(iter(prep.bounds.values()))
    qs = q.quantiles
    kwargs = dict(epsilon=epsilon, bounds=(lo, hi), random_state=rng, accountant=_accountant())
    if q.type == "median":
        res = tools.median(prep.arrays[0], **kwargs)
    else:
        res = tools.quantile(prep.arrays[0], list(qs) if len(qs) > 1 else qs[0], **kwargs)
    res = np.atleast_1d(np.asarray(res, dtype=float))
    return float(res[0]) if len(qs) == 1 else tuple(float(x) for x in res)


def draw(prep: Prepared, epsilon: float, delta: float, random_state: Any) -> Draw:
    """One private answer of ``prep`` spending (``epsilon``, ``delta``) (nothing is recorded)."""
    dpl = diffprivlib_parts()
    rng = dpl.check_random_state(random_state)
    q = prep.query
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if q.type == "count":
            value, term = _count_noise(
                float(np.count_nonzero(prep.arrays[0])), epsilon, delta, rng, q.gaussian
            )
            result = Draw(value, term.mean_abs)
        elif q.type in ("histogram", "histogram2d"):
            result = _histogram(prep, epsilon, delta, rng)
        elif q.type in QUANTILE_TYPES:
            result = Draw(_quantiles(prep, epsilon, rng), math.nan)
        else:
            result = _numeric(prep, epsilon, delta, rng)
    leaked = False
    for w in caught:
        if issubclass(w.category, dpl.PrivacyLeakWarning):
            leaked = True
        else:
            log.debug("diffprivlib: %s", w.message)
    return Draw(result.output, result.error, leaked)


def true_answer(prep: Prepared) -> Any:
    """The exact answer, computed as the mechanism does before adding noise (clipped values)."""
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
        counts, _ = np.histogram(prep.arrays[0], bins=prep.bins[0], range=prep.ranges[0])
        return counts.astype(float)
    counts, _, _ = np.histogram2d(
        prep.arrays[0], prep.arrays[1], bins=list(prep.bins), range=list(prep.ranges)
    )
    return counts.astype(float)


def abs_error(noisy: Any, true: Any) -> float:
    """Mean absolute error over the entries (bins, quantiles) of one draw."""
    return float(np.mean(np.abs(np.asarray(noisy, dtype=float) - np.asarray(true, dtype=float))))


def empirical_error(prep: Prepared, epsilon: float) -> float:
    """Mean |error| of :data:`EMPIRICAL_DRAWS` draws (fixed seed) against the true answer.

    Uses the true data: for the data custodian's planning, never part of a release.
    """
    true = true_answer(prep)
    seeds = np.random.SeedSequence(EMPIRICAL_SEED).generate_state(EMPIRICAL_DRAWS)
    return float(np.mean([abs_error(draw(prep, epsilon, 0.0, int(s)).output, true) for s in seeds]))


def expected_error(
    query_type: str,
    epsilon: float,
    bounds: tuple[float, float] | None = None,
    n: int | None = None,
    *,
    delta: float = 0.0,
    mechanism: str = "laplace",
) -> float:
    """E|noise| of the mechanism of ``query_type`` when it does not depend on the data.

    count and histogram bins: 1/sinh(epsilon) (geometric), or sigma sqrt(2/pi) of the discrete
    Gaussian; sum: max(|L|, |U|)/epsilon without ``n`` (add/remove neighbours), (U - L)/epsilon
    with a public ``n``; mean and var need a public ``n``: (U - L)/(n epsilon), and for var the
    scale of diffprivlib's bounded-domain Laplace mechanism for the sensitivity
    (U - L)^2 (n - 1)/n^2. Quantiles have no data-independent value: NaN.
    """
    epsilon = float(epsilon)
    gaussian = mechanism == "gaussian"
    if query_type not in QUERY_TYPES:
        raise ConfigError(f"'query_type' must be one of {list(QUERY_TYPES)}, got {query_type!r}.")
    if query_type in QUANTILE_TYPES:
        return math.nan
    mech = diffprivlib_parts().mechanisms
    if query_type in ("count", "histogram", "histogram2d"):
        if gaussian:
            m = mech.GaussianDiscrete(epsilon=epsilon, delta=delta, sensitivity=1)
            return Noise("gaussian", float(m._scale)).mean_abs
        return _geo(epsilon)
    if bounds is None:
        raise ConfigError(f"expected_error of a {query_type} needs 'bounds'.")
    lo, hi = float(bounds[0]), float(bounds[1])
    width = hi - lo
    if query_type == "sum":
        sens = width if n is not None else max(abs(lo), abs(hi))
    else:
        if n is None or n < 1:
            raise ConfigError(
                f"expected_error of a {query_type} needs a public 'n', the number of values (at "
                "least 1); without it the error depends on the noisy answer (see DPResult)."
            )
        sens = width / n if query_type == "mean" else width**2 * (n - 1) / n**2
    if sens == 0:
        return 0.0
    if gaussian:
        m = mech.GaussianAnalytic(epsilon=epsilon, delta=delta, sensitivity=sens)
        return Noise("gaussian", float(m._scale)).mean_abs
    if query_type == "var":
        m = mech.LaplaceBoundedDomain(
            epsilon=epsilon, delta=0.0, sensitivity=sens, lower=0.0, upper=math.inf
        )
        return float(sens / m.effective_epsilon())
    return sens / epsilon
