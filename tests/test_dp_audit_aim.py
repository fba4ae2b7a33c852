"""The DP audit of AIM's measurement step (the MST one is in tests/test_dp_audit.py)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from anon_core.audit.dp_audit import audit_mechanism
from anon_core.audit.mechanisms import (
    distance_score,
    gaussian_measurement,
    measurement_std,
    rare_neighbour,
    step_epsilon,
)


def _rho(epsilon: float, delta: float) -> float:
    # the zCDP budget of (epsilon, delta)-DP as the DP methods convert it (tested with them)
    from anon_core.methods.dp_marginals import cdp_rho

    return cdp_rho(epsilon, delta)


def test_aim_measurement_noise_is_the_papers():
    # AIM (McKenna et al. 2022): 90% of rho over T planned rounds, each 1-way measurement a
    # Gaussian with sigma = sqrt(T / (2 * 0.9 rho)); here T = 4 x 3 columns = 12 by default
    std = measurement_std("synthetic-aim", {"epsilon": 1.0, "delta": 1e-6}, columns=3)
    assert std == pytest.approx(math.sqrt(12 / (2 * 0.9 * _rho(1.0, 1e-6))), rel=1e-4)
    given = measurement_std("synthetic-aim", {"epsilon": 1.0, "delta": 1e-6, "rounds": 5}, 3)
    assert given == pytest.approx(math.sqrt(5 / (2 * 0.9 * _rho(1.0, 1e-6))), rel=1e-4)


def test_aim_audit_passes_its_noise_and_flags_a_tenth_of_it():
    codes = np.repeat(np.arange(4), [50, 30, 19, 1])
    std = measurement_std("synthetic-aim", {"epsilon": 8.0, "delta": 1e-6}, columns=2)
    without, _ = rare_neighbour(codes, 4)
    score = distance_score(np.bincount(codes, minlength=4), np.bincount(without, minlength=4), 2)
    claim = step_epsilon(std, 1e-6)
    good = audit_mechanism(
        gaussian_measurement(std, 4), codes, without, score, claim, 1e-6, runs=300
    )
    bad = audit_mechanism(
        gaussian_measurement(std / 10, 4), codes, without, score, claim, 1e-6, runs=300
    )
    assert not good.violation and bad.violation


def test_aim_release_gets_a_dp_audit_figure():
    from anon_core.methods.registry import make_context
    from anon_core.services.evidence import dp_audit_figure

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"sex": rng.choice(["F", "M"], 80), "city": rng.choice(list("abc"), 80)})
    params = {
        "epsilon": 1.0,
        "delta": 1e-6,
        "bins": 4,
        "domains": {"sex": ["F", "M"], "city": ["a", "b", "c"]},
    }
    fig = dp_audit_figure(
        "synthetic-aim", "(1, 1e-06)-DP", params, frame, make_context(frame), seed=0, runs=100
    )
    d = fig["details"]
    assert fig["value"] == 0.0 and d["violation"] is False and d["method"] == "synthetic-aim"
    assert d["step_epsilon"] < d["release_epsilon"] == 1.0 and d["ci"][0] <= d["bound"]
