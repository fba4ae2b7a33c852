"""The DP audit of DP-SGD models: the bound worked by hand, a fake result that violates it, the
``dp_audit`` block of ``anon-core train``'s JSON and the DP-SGD page's RMIA panel."""

from __future__ import annotations

import json
import math
from pathlib import Path
from types import SimpleNamespace

import pytest

from anon_core.training import training_available
from anon_core.training.dp_check import dp_audit_block
from anon_core.training.experiment import TrainRunResult
from anon_core.training.membership import MembershipResult

ROOT = Path(__file__).resolve().parents[1]
needs_torch = pytest.mark.skipif(
    not training_available(), reason='PyTorch/Opacus not installed (pip install -e ".[training]")'
)


def test_the_bound_by_hand():
    # delta = 0: (e^eps - 1) / (e^eps + 1) = tanh(eps / 2)
    assert dp_audit_block(1.0, 0.0, {})["bound"] == pytest.approx(math.tanh(0.5))
    assert dp_audit_block(0.5, 0.0, {})["bound"] == pytest.approx(0.2449187, abs=1e-7)
    # eps = 1, delta = 1e-5: (1.7182818 + 0.00002) / 3.7182818 = 0.4621226
    assert dp_audit_block(1.0, 1e-5, {})["bound"] == pytest.approx(0.4621226, abs=1e-7)
    # eps = 0: no attack may do better than 2 delta / 2 = delta
    assert dp_audit_block(0.0, 0.01, {})["bound"] == pytest.approx(0.01)


def test_an_interval_above_the_bound_is_a_violation_and_an_upper_end_alone_is_not():
    # eps = 1, delta = 0: bound tanh(0.5) = 0.4621
    out = dp_audit_block(
        1.0, 0.0, {"loss": (0.3, [0.1, 0.5]), "rmia": (0.9, [0.85, 0.95]), "lr": None}
    )
    assert out["violation"] is True and out["attack"] == "rmia"
    assert out["advantage"] == 0.9 and out["advantage_ci"] == [0.85, 0.95]
    assert out["attacks"]["rmia"]["violation"] is True
    # 0.1 <= 0.4621 < 0.5: the upper end alone is above, which proves nothing
    assert out["attacks"]["loss"] == {
        "advantage": 0.3,
        "advantage_ci": [0.1, 0.5],
        "violation": False,
        "upper_end_above_bound": True,
    }
    assert "lr" not in out["attacks"]
    assert "not a risk figure" in out["meaning"]
    within = dp_audit_block(1.0, 0.0, {"loss": (0.1, [0.0, 0.2])})
    assert within["violation"] is False and within["upper_end_above_bound"] is False
    # just above the bound at the lower end trips it; just at it does not
    bound = math.tanh(0.5)
    assert dp_audit_block(1.0, 0.0, {"a": (0.6, [bound + 1e-9, 0.7])})["violation"] is True
    assert dp_audit_block(1.0, 0.0, {"a": (0.6, [bound, 0.7])})["violation"] is False


def _fake_result(advantage: float, ci: tuple[float, float], epsilon: float = 1.0):
    """A training result (no training) whose loss attack measured ``advantage`` with ``ci``."""
    mia = MembershipResult(
        attack="loss",
        advantage=advantage,
        advantage_ci=ci,
        auc=0.5 + advantage / 2,
        auc_ci=(0.5, 1.0),
        tpr=advantage,
        fpr=0.0,
        threshold=0.1,
        members=100,
        non_members=100,
    )
    settings = SimpleNamespace(model="mlp", epochs=1)
    return TrainRunResult(
        config=SimpleNamespace(target="y", settings=settings),
        encoder=None,
        classes=("a", "b"),
        private=SimpleNamespace(epsilon_spent=epsilon, delta=1e-5, noise_multiplier=1.0),
        baseline=None,
        accuracy=0.8,
        baseline_accuracy=0.9,
        majority_rate=0.5,
        membership=mia,
        baseline_membership=mia,
        n_train=100,
        n_holdout=100,
    )


def test_a_training_result_whose_advantage_exceeds_the_bound_is_flagged_in_the_json():
    out = json.loads(json.dumps(_fake_result(0.95, (0.9, 0.99)).to_dict(), allow_nan=False))
    audit = out["dp_audit"]
    assert audit["violation"] is True and audit["attack"] == "loss"
    assert audit["bound"] == pytest.approx(0.4621226, abs=1e-7)
    assert audit["advantage_ci"] == [0.9, 0.99]
    fine = _fake_result(0.05, (0.0, 0.1)).to_dict()["dp_audit"]
    assert fine["violation"] is False and fine["attacks"]["loss"]["advantage"] == 0.05


# ------------------------------------------------------------------ the DP-SGD page
def _dp_page():
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    at.run()
    at.switch_page("pages/dp.py").run()
    assert not at.exception, at.exception
    return at


@pytest.mark.slow
@needs_torch
def test_run_rmia_on_the_dp_sgd_page_shows_the_figures_and_the_audit():
    at = _dp_page()
    at.slider(key="dpsgd_epochs").set_value(1).run()
    at.button(key="dpsgd_rmia_run").click().run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    tables = [d.value for d in at.dataframe if "RMIA AUC" in d.value.columns]
    assert len(tables) == 1
    table = tables[0]
    assert list(table["model"])[1] == "without DP"
    assert table["RMIA AUC"].notna().all()
    assert ((table["RMIA AUC"] >= 0) & (table["RMIA AUC"] <= 1)).all()
    captions = [c.value for c in at.caption]
    assert any(c.startswith("The most any attack can reach at ε") for c in captions)
    assert any(c.startswith("DP audit: no advantage interval") for c in captions)


def test_the_page_flags_a_violation_as_an_implementation_fault(monkeypatch):
    import ui.training

    monkeypatch.setattr(ui.training, "training_available", lambda: True)
    monkeypatch.setattr(
        ui.training, "train_and_attack", lambda frame, config: _fake_result(0.95, (0.9, 0.99))
    )
    at = _dp_page()
    at.button(key="dpsgd_rmia_run").click().run()
    assert not at.exception, at.exception
    errors = [e.value for e in at.error]
    assert len(errors) == 1, errors
    assert "[0.900, 0.990] > bound" in errors[0] and "implementation fault" in errors[0]
