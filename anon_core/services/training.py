"""Model training with differential privacy as the dashboard runs it: the ``train`` section,
DP-SGD accuracy and membership-attack curves against epsilon (with k-anonymized and synthetic
references), RMIA at one epsilon, the bound DP puts on an attacker's advantage, and the pieces
the dashboard's time estimate calibrates (training rows, the accountant's noise multiplier).

These are the training package's own application entry points; PyTorch and Opacus load only
when a model trains.
"""

from __future__ import annotations

from anon_core.training import (
    DEFAULT_CURVE_EPSILONS,
    INSTALL_HINT,
    MODEL_ATTACKS,
    TrainingCurve,
    advantage_bound,
    parse_train_section,
    synthetic_release,
    train_and_attack,
    training_available,
    training_curve,
)

__all__ = [
    "DEFAULT_CURVE_EPSILONS",
    "INSTALL_HINT",
    "MODEL_ATTACKS",
    "TrainingCurve",
    "advantage_bound",
    "calibration_pieces",
    "parse_train_section",
    "synthetic_release",
    "train_and_attack",
    "training_available",
    "training_curve",
]


def calibration_pieces():
    """(training_rows, default_delta, noise_multiplier_for): what the time estimate of a
    training run calls (imported on demand: the training modules are heavy)."""
    from anon_core.training.curves import training_rows
    from anon_core.training.dpsgd import default_delta, noise_multiplier_for

    return training_rows, default_delta, noise_multiplier_for
