"""RMIA (Zarifzadeh, Liu and Shokri, ICML 2024): the score against hand-worked values, the
attack against the loss attack on an overfit model, and within the DP bound under DP-SGD."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from anon_core.audit.dp_audit import advantage_bound
from anon_core.errors import ConfigError
from anon_core.training import parse_train_section, train_and_attack, training_available
from anon_core.training.rmia import best_advantage, rmia_attack, rmia_scores

ROOT = Path(__file__).resolve().parents[1]
CENSUS = ROOT / "sample_data" / "census_income.csv"
needs_torch = pytest.mark.skipif(not training_available(), reason="PyTorch/Opacus not installed")


# ------------------------------------------------------------------ the score, by hand


def test_rmia_score_hand_worked():
    # z: target probabilities 0.6, 0.9, 0.3; one reference model gives 0.6 on each
    pz, rz = np.array([0.6, 0.9, 0.3]), np.array([[0.6], [0.6], [0.6]])
    # a = 0: Pr(.) = (p_ref + 1) / 2 -> Pr(x) = 0.75, Pr(z) = 0.8; ratio_x = 0.8 / 0.75 = 1.0667,
    # ratio_z = 0.75, 1.125, 0.375 -> LR = 1.42, 0.948, 2.84: two of three above gamma = 1
    s = rmia_scores(np.array([0.8]), np.array([[0.5]]), pz, rz, offline_a=0.0)
    assert s[0] == pytest.approx(2 / 3)
    # gamma = 2: only 2.84 is above
    s = rmia_scores(np.array([0.8]), np.array([[0.5]]), pz, rz, offline_a=0.0, gamma=2.0)
    assert s[0] == pytest.approx(1 / 3)
    # a = 1: Pr(.) = p_ref -> ratio_x = 1.6, ratio_z = 1, 1.5, 0.5 -> all three above 1
    s = rmia_scores(np.array([0.8]), np.array([[0.5]]), pz, rz, offline_a=1.0)
    assert s[0] == 1.0
    with pytest.raises(ConfigError, match="offline_a"):
        rmia_scores(np.array([0.8]), np.array([[0.5]]), pz, rz, offline_a=1.5)


def test_best_advantage_hand_worked():
    # members 3, 2, 1 and non-members 0, 1, 1: "score >= 2" gives TPR 2/3, FPR 0
    adv, tpr, fpr, t = best_advantage(np.array([3.0, 2.0, 1.0]), np.array([0.0, 1.0, 1.0]))
    assert (adv, tpr, fpr, t) == pytest.approx((2 / 3, 2 / 3, 0.0, 2.0))


class _Logistic:
    """A fixed two-class model: P(y = 1 | x) = sigmoid(w x[0])."""

    def __init__(self, w: float) -> None:
        self.w = w

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        p = 1.0 / (1.0 + np.exp(-self.w * X[:, 0]))
        return np.column_stack([1 - p, p])


def _fake_data(n: int, seed: int):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    return X, (X[:, 0] > 0).astype(int)


def _fake_reference(X: np.ndarray, y: np.ndarray, seed: int) -> _Logistic:
    return _Logistic(1.0 + 0.01 * (seed % 7) + 0.001 * len(y))


def test_rmia_is_deterministic_for_a_seed_and_refuses_a_tiny_population():
    X, y = _fake_data(200, 0)
    args = (_Logistic(2.0), X[:40], y[:40], X[40:80], y[40:80], X[80:], y[80:], _fake_reference)
    a = rmia_attack(*args, references=2, random_state=5, bootstrap=20)
    b = rmia_attack(*args, references=2, random_state=5, bootstrap=20)
    assert a == b and a.references == 2 and a.population == 60
    assert a.auc_ci[0] <= a.auc <= a.auc_ci[1] and 0.0 <= a.offline_a <= 1.0
    with pytest.raises(ConfigError, match="population"):
        rmia_attack(_Logistic(2.0), X[:4], y[:4], X[4:8], y[4:8], X[8:12], y[8:12], _fake_reference)
    with pytest.raises(ConfigError, match="references"):
        rmia_attack(*args, references=5)


# ------------------------------------------------------------------ on trained models


@pytest.fixture(scope="module")
def census() -> pd.DataFrame:
    from anon_core.data.io import load_table

    return load_table(CENSUS).frame


@needs_torch
def test_rmia_beats_the_loss_attack_on_an_overfit_mlp(census):
    """200 training records, 100 epochs, no DP: both attacks see the leak; RMIA, calibrated by
    reference models trained on held-out records, ranks members better (higher AUC)."""
    from anon_core.training.dpsgd import train_model
    from anon_core.training.experiment import attack_model, encode, rmia_model, split_table

    frame = census.iloc[:1000]
    config = parse_train_section(
        {
            "target": "income",
            "epsilon": 1.0,
            "test_size": 0.8,
            "epochs": 100,
            "batch_size": 20,
            "hidden": [64],
        }
    )
    split = split_table(frame, "income", 0.8, 0)
    data = encode(frame, config, split)
    Xt, yt = data.part("train")
    model = train_model(Xt, yt, len(split.classes), config.settings, random_state=0)
    loss = attack_model(model, data, "loss", 0)
    rmia, why = rmia_model(model, data, config, math.inf)
    assert why is None and rmia is not None
    assert loss.auc > 0.55  # the model does leak: the comparison is meaningful
    assert rmia.auc > loss.auc, (rmia.auc, loss.auc)
    assert rmia.members == len(split.members) and rmia.non_members == len(split.evaluation)


@needs_torch
def test_rmia_under_dp_sgd_stays_within_the_dp_bound_and_is_in_the_json(census):
    config = parse_train_section(
        {"target": "income", "epsilon": 1.0, "epochs": 2, "batch_size": 100, "hidden": [16]}
    )
    result = train_and_attack(census.iloc[:1500], config)
    assert result.rmia is not None and result.baseline_rmia is not None
    bound = advantage_bound(1.0, result.private.delta)
    assert result.rmia.advantage <= bound
    assert result.rmia.advantage_ci[0] <= bound
    out = json.loads(json.dumps(result.to_dict(), allow_nan=False))
    assert set(out["rmia"]) == {"advantage", "auc", "ci"} == set(out["baseline_rmia"])
    assert out["rmia"]["auc"] == result.rmia.auc
    details = json.loads(json.dumps(result.details(), allow_nan=False))
    assert details["rmia"]["references"] == 2 and details["rmia"]["gamma"] == 1.0
