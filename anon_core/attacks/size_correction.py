"""Correction of the singling-out control count for a control table of another size.

A predicate that singles out one of N records is less likely to single out one of n < N:
anonymeter fits ``norm * I(n; w_eff)`` with ``I(n; w) = (1 - (n w + 1)(1 - w)^n) / (n + 1)``
(the integral of Cohen and Nissim's singling-out probability ``n w (1 - w)^(n-1)``,
arXiv:1904.06009) to the number of singling-out predicates on subsamples of the control table
and scales the control count by ``fit(N_original) / fit(N_control)``. Instead of anonymeter's
random subsamples we use their exact expectation (hypergeometric: a predicate matching m
control records singles out in a subsample of s of them with probability
``m C(N-m, s-1) / C(N, s)``), which is deterministic and has no sampling noise.

Direct counting is preferred to extrapolation: when the control table is at least as large as
the original one, the count at the original's size is that exact expectation (method
``"subsample"``), no fit. Only a smaller control table needs the fit (method ``"fit"``), and the
fit is checked against the counts it was fitted to, the last one being the count on the full
control table; a fit that misses them (it once predicted 1.9 singling-out predicates at 9,758
control records where 39 were counted) or does not converge is not used (factor 1) and says so
(``fit_ok`` False with a ``note``). Only predicates that single out a control record count here;
anonymeter 1.1.0 fits on every query's matches instead, which is why the tests of this module
are worked by hand, not against that oracle.
"""

from __future__ import annotations

import logging
import warnings
from dataclasses import dataclass
from typing import Any

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


@dataclass(frozen=True)
class Correction:
    """How the control count was brought to the original table's size.

    ``method``: "none" (same size, or nothing singles out a control record), "subsample" (exact
    expectation at the original's size, counted directly) or "fit" (extrapolated);
    ``corrected`` is the control count to use; ``fit_ok`` is None unless a fit was tried.
    """

    method: str
    corrected: float
    counted: int
    n_control: int
    n_original: int
    fit_ok: bool | None = None
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "fit_ok": self.fit_ok,
            "counted": self.counted,
            "corrected": self.corrected,
            "control_records": self.n_control,
            "original_records": self.n_original,
            "note": self.note,
        }


def fit_misses(sizes: np.ndarray, counted: np.ndarray, fitted: np.ndarray) -> str | None:
    """A note when the fit misses a count it was fitted to by more than max(1, 10%), else None."""
    for s, c, f in zip(sizes, counted, fitted, strict=True):
        if not np.isfinite(f) or abs(f - c) > max(1.0, 0.1 * abs(c)):
            return (
                f"the fit predicted {float(f):.1f} singling-out predicates at {int(s):,} control "
                f"records where {float(c):.1f} were counted"
            )
    return None


def correct_control_count(match_counts: np.ndarray, n_control: int, n_original: int) -> Correction:
    """The control count of singling-out predicates brought to ``n_original`` records (see the
    module docstring): direct counting when the control table is as large, else a checked fit."""
    match_counts = np.asarray(match_counts)
    counted = int((match_counts == 1).sum())
    if n_control == n_original:
        return Correction("none", float(counted), counted, n_control, n_original)
    if n_control > n_original:
        (expected,) = expected_singling_out(match_counts, n_control, np.array([n_original]))
        return Correction(
            "subsample",
            float(expected),
            counted,
            n_control,
            n_original,
            note=f"expected count on {n_original:,} of the {n_control:,} control records, counted exactly",
        )
    if counted == 0:
        return Correction(
            "none",
            0.0,
            counted,
            n_control,
            n_original,
            note="no predicate singles out a control record: nothing to scale",
        )
    sizes = np.unique(np.linspace(min(1000, n_control), n_control, 10).astype(int))
    successes = expected_singling_out(match_counts, n_control, sizes)
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
        logger.info("The control-size correction did not converge (%s); using 1.", exc)
        return Correction(
            "fit",
            float(counted),
            counted,
            n_control,
            n_original,
            fit_ok=False,
            note=f"the fit did not converge ({str(exc)[:120]}); the control count is used uncorrected",
        )
    missed = fit_misses(sizes, successes, _model(sizes.astype(float), *params))
    at_original = float(_model(n_original, *params))
    if missed is None and (not np.isfinite(at_original) or at_original < 0):
        missed = f"the fit gives {at_original} at {n_original:,} records"
    if missed is not None:
        logger.info("The control-size correction is not used: %s.", missed)
        return Correction(
            "fit",
            float(counted),
            counted,
            n_control,
            n_original,
            fit_ok=False,
            note=missed + "; the control count is used uncorrected",
        )
    factor = at_original / float(_model(n_control, *params))
    return Correction(
        "fit",
        counted * factor,
        counted,
        n_control,
        n_original,
        fit_ok=True,
        note=f"extrapolated from {n_control:,} to {n_original:,} records (factor {factor:.3f})",
    )


def control_size_correction(match_counts: np.ndarray, n_control: int, n_original: int) -> float:
    """The factor applied to the control count (1.0 when there is nothing to scale or the fit is
    not used); see :func:`correct_control_count` for the method and its checks."""
    c = correct_control_count(match_counts, n_control, n_original)
    return c.corrected / c.counted if c.counted else 1.0
