"""Correction of the singling-out control count for a control table of another size.

A predicate that singles out one of N records is less likely to single out one of n < N:
anonymeter fits ``norm * I(n; w_eff)`` with ``I(n; w) = (1 - (n w + 1)(1 - w)^n) / (n + 1)``
(the integral of Cohen and Nissim's singling-out probability ``n w (1 - w)^(n-1)``,
arXiv:1904.06009) to the number of singling-out predicates on subsamples of the control table
and scales the control count by ``fit(N_original) / fit(N_control)``. Instead of anonymeter's
random subsamples we use their exact expectation (hypergeometric: a predicate matching m
control records singles out in a subsample of s of them with probability
``m C(N-m, s-1) / C(N, s)``), which is deterministic and has no sampling noise.
"""

from __future__ import annotations

import logging
import warnings

import numpy as np
from scipy.optimize import OptimizeWarning, curve_fit
from scipy.stats import hypergeom

logger = logging.getLogger(__name__)


def singling_out_integral(n, w):
    """``∫_0^w n x (1 - x)^(n-1) dx = (1 - (n w + 1)(1 - w)^n) / (n + 1)``."""
    n = np.asarray(n, dtype=float)
    return (1.0 - (n * w + 1.0) * (1.0 - w) ** n) / (n + 1.0)


def _model(n, w_eff, norm):
    return norm * singling_out_integral(n, w_eff)


def expected_singling_out(
    match_counts: np.ndarray, population: int, sizes: np.ndarray
) -> np.ndarray:
    """Expected number of predicates matching exactly one record of a random subsample of each
    size (without replacement) of a table where they match ``match_counts`` records."""
    m, weight = np.unique(match_counts[match_counts > 0], return_counts=True)
    return np.array(
        [float((weight * hypergeom.pmf(1, population, m, int(s))).sum()) for s in sizes]
    )


def control_size_correction(match_counts: np.ndarray, n_control: int, n_original: int) -> float:
    """The factor ``fit(n_original) / fit(n_control)`` (1.0 when the fit fails, logged)."""
    sizes = np.linspace(min(1000, n_control), n_control, 10).astype(int)
    successes = expected_singling_out(np.asarray(match_counts), n_control, sizes)
    w_guess = 1.0 / sizes.max()
    norm_guess = 1.0 / float(singling_out_integral(sizes.max(), w_guess))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", OptimizeWarning)
            params, _ = curve_fit(
                _model,
                sizes.astype(float),
                successes,
                p0=(w_guess, norm_guess),
                bounds=(0, (1, np.inf)),
            )
    except (RuntimeError, ValueError) as exc:
        logger.warning("The control-size correction did not converge (%s); using 1.", exc)
        return 1.0
    at_control = float(_model(n_control, *params))
    if not np.isfinite(at_control) or at_control <= 0:
        return 1.0
    return float(_model(n_original, *params)) / at_control
