"""Success rates with Wilson score intervals and the residual risk (anonymeter's statistics).

Giomi et al., "A Unified Framework for Quantifying Privacy Risk in Synthetic Data", PETS 2023,
section 4: each attack's success rate is a Wilson score interval; the residual risk
``(attack - control) / (1 - control)`` carries both intervals by first-order error propagation.
"""

from __future__ import annotations

import math
from statistics import NormalDist

from anon_core.attacks.results import SuccessRate
from anon_core.validation import check_float, check_int


def probit(confidence: float) -> float:
    """The two-sided standard normal quantile of ``confidence`` (1.96 for 0.95)."""
    confidence = check_float(
        "confidence", confidence, minimum=0.0, maximum=1.0, min_inclusive=False
    )
    if confidence >= 1.0:
        return math.inf
    return NormalDist().inv_cdf(0.5 + confidence / 2.0)


def success_rate(n_success: int, n_total: int, confidence: float = 0.95) -> SuccessRate:
    """The Wilson score interval of ``n_success`` successes in ``n_total`` trials.

    As anonymeter reports it: the value is the interval's centre
    ``(k + z²/2) / (n + z²)`` and the error its half-width
    ``z / (n + z²) * sqrt(k (n - k) / n + z²/4)`` (Wilson 1927).
    """
    n_total = check_int("n_total", n_total, minimum=1)
    n_success = check_int("n_success", n_success, minimum=0, maximum=n_total)
    z = probit(confidence)
    z2 = z * z
    denominator = n_total + z2
    value = (n_success + 0.5 * z2) / denominator
    error = z / denominator * math.sqrt(n_success * (n_total - n_success) / n_total + 0.25 * z2)
    return SuccessRate(float(value), float(error), n_success, n_total)


def wilson_interval(n_success: int, n_total: int, confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval ``(low, high)`` of a proportion, clipped to [0, 1]."""
    rate = success_rate(n_success, n_total, confidence)
    return max(0.0, rate.value - rate.error), min(1.0, rate.value + rate.error)


def _rate_at(rate: SuccessRate, confidence: float) -> SuccessRate:
    return success_rate(rate.n_success, rate.n_total, confidence)


def residual_risk(
    attack_rate: SuccessRate, control_rate: SuccessRate, confidence: float = 0.95
) -> tuple[float, tuple[float, float]]:
    """The residual risk ``(a - c) / (1 - c)`` and its interval, both bounded to [0, 1].

    The rates are re-derived from their counts at ``confidence``. The error is propagated as
    ``sqrt((e_a / (1 - c))² + (e_c (1 - a) / (1 - c)²)²)`` (PETS 2023, eq. 3 and its
    propagation). A control rate of 1 (every guess succeeds without the release) leaves no
    residual risk.
    """
    a = _rate_at(attack_rate, confidence)
    c = _rate_at(control_rate, confidence)
    if c.value >= 1.0:
        return 0.0, (0.0, 0.0)
    residual = (a.value - c.value) / (1.0 - c.value)
    d_attack = 1.0 / abs(1.0 - c.value)
    d_control = abs((a.value - 1.0) / (1.0 - c.value) ** 2)
    error = math.sqrt((a.error * d_attack) ** 2 + (c.error * d_control) ** 2)
    low = min(1.0, max(0.0, residual - error))
    high = min(1.0, max(0.0, residual + error))
    return min(1.0, max(0.0, residual)), (low, high)
