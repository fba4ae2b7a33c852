"""The DP auditor: bound and interval arithmetic against hand-worked values, the project's
mechanisms pass, deliberately mis-scaled ones are caught, and the evidence hook."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from anon_core.audit.dp_audit import (
    advantage_bound,
    audit_mechanism,
    audit_scores,
    clopper_pearson,
    distance_score,
    epsilon_lower_bound,
)
from anon_core.audit.mechanisms import (
    audit_dp_query,
    audit_measurement,
    gaussian_measurement,
    measurement_std,
    rare_neighbour,
    step_epsilon,
)
from anon_core.errors import ConfigError

# --------------------------------------------------------------- arithmetic (hand-worked)


def test_advantage_bound_hand_values():
    assert advantage_bound(1.0) == pytest.approx((math.e - 1) / (math.e + 1))  # 0.46212
    assert advantage_bound(0.0) == 0.0
    assert advantage_bound(0.0, 0.25) == pytest.approx(0.25)  # (1 - 1 + 0.5) / 2
    assert advantage_bound(math.inf) == 1.0
    with pytest.raises(ConfigError):
        advantage_bound(-1.0)


def test_clopper_pearson_edges_have_closed_forms():
    # k = 0: upper end solves (1 - p)^n = alpha/2; k = n: lower end p^n = alpha/2
    lo, hi = clopper_pearson(0, 10, 0.95)
    assert lo == 0.0 and hi == pytest.approx(1 - 0.025 ** (1 / 10))
    lo, hi = clopper_pearson(10, 10, 0.95)
    assert hi == 1.0 and lo == pytest.approx(0.025 ** (1 / 10))
    lo, hi = clopper_pearson(50, 100, 0.95)
    assert lo < 0.5 < hi and hi - lo == pytest.approx(0.2034, abs=2e-3)  # textbook 0.398..0.602


def test_epsilon_lower_bound_hand_values():
    assert epsilon_lower_bound(0.5, 0.1) == pytest.approx(math.log(5))
    assert epsilon_lower_bound(0.5, 0.1, delta=0.1) == pytest.approx(math.log(4))
    # the complementary test wins here: (1 - 0.5) / (1 - 0.9) = 5 > 0.9 / 0.5
    assert epsilon_lower_bound(0.9, 0.5) == pytest.approx(math.log(5))
    assert epsilon_lower_bound(0.1, 0.5) == 0.0


def test_distance_score_prefers_the_closer_answer():
    s = distance_score([10.0], [9.0])
    assert s([10.0]) == 1.0 and s([9.0]) == -1.0 and s([9.5]) == 0.0
    s2 = distance_score([1.0, 0.0], [0.0, 0.0], norm=2)
    assert s2([1.0, 0.0]) == 1.0  # 1 - 0


def test_perfectly_separated_scores_give_the_interval_of_all_successes():
    pos, neg = np.ones(200), np.zeros(200)
    r = audit_scores(pos, neg, epsilon=1.0)
    lo_tpr = 0.0125 ** (1 / 100)  # k = n = 100 at 97.5 % two-sided
    assert r.advantage == 1.0
    assert r.ci[0] == pytest.approx(lo_tpr - (1 - lo_tpr))
    assert r.violation


def test_bad_runs_are_one_clear_error():
    with pytest.raises(ConfigError, match="'runs'"):
        audit_mechanism(lambda d, r: 0.0, 0, 0, float, 1.0, runs=3)


# --------------------------------------------------------------- the project's DP statistics


def _table() -> pd.DataFrame:
    rng = np.random.default_rng(1)
    df = pd.DataFrame(
        {"age": rng.integers(17, 60, size=60).astype(float), "sex": rng.choice(["F", "M"], 60)}
    )
    df.loc[5, "age"] = 90.0  # the outlier the worst-case neighbour should remove
    return df


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 4.0])
def test_dp_count_meets_its_bound_exactly_and_is_not_flagged(epsilon):
    # Two-sided geometric noise: "output >= n" has TPR 1/(1+a), FPR a/(1+a), a = e^-eps, so the
    # advantage equals the bound (e^eps - 1)/(e^eps + 1) (worked by hand): the interval must
    # cover it, and no violation is reported.
    r = audit_dp_query(_table(), {"type": "count", "epsilon": epsilon}, runs=1500)
    assert not r.violation
    assert r.ci[0] <= r.bound <= r.ci[1]


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 4.0])
def test_dp_sum_is_not_flagged_and_stays_near_the_laplace_optimum(epsilon):
    # Laplace of scale U/eps against a shift of U: the best threshold test reaches
    # 1 - exp(-eps/2) (hand-worked), below the bound.
    r = audit_dp_query(
        _table(), {"type": "sum", "column": "age", "bounds": [0, 90], "epsilon": epsilon}, runs=1500
    )
    assert not r.violation
    assert r.ci[0] <= 1 - math.exp(-epsilon / 2) <= r.ci[1] + 0.03
    assert r.epsilon_lower_bound <= epsilon


def test_dp_histogram_neighbour_is_the_rare_cell_and_passes():
    q = {"type": "histogram", "column": "sex", "categories": ["F", "M", "X"], "epsilon": 1.0}
    df = _table()
    df.loc[7, "sex"] = "X"  # alone in its cell
    r = audit_dp_query(df, q, runs=800)
    assert not r.violation


def test_a_laplace_mechanism_with_a_tenth_of_its_noise_is_flagged():
    eps, sens = 0.5, 90.0

    def mis_scaled(total: float, rng: np.random.Generator) -> float:
        return total + rng.laplace(0.0, sens / eps / 10)  # the fault: scale / 10

    def correct(total: float, rng: np.random.Generator) -> float:
        return total + rng.laplace(0.0, sens / eps)

    score = distance_score([1000.0], [910.0])
    bad = audit_mechanism(mis_scaled, 1000.0, 910.0, score, eps, runs=1000)
    good = audit_mechanism(correct, 1000.0, 910.0, score, eps, runs=1000)
    assert bad.violation and bad.epsilon_lower_bound > eps
    assert not good.violation and good.epsilon_lower_bound <= eps


def test_the_audit_is_deterministic_for_a_seed():
    q = {"type": "sum", "column": "age", "bounds": [0, 90], "epsilon": 1.0}
    a = audit_dp_query(_table(), q, runs=200, random_state=3).to_dict()
    b = audit_dp_query(_table(), q, runs=200, random_state=3).to_dict()
    c = audit_dp_query(_table(), q, runs=200, random_state=4).to_dict()
    assert a == b and a != c


# --------------------------------------------------------------- MST's measurement step


def test_rare_neighbour_removes_a_record_of_the_rarest_cell():
    without, cell = rare_neighbour(np.array([0, 0, 1, 2, 2, 2]), 4)
    assert cell == 1 and sorted(without.tolist()) == [0, 0, 2, 2, 2]


def test_mst_measurement_step_passes_and_a_tenth_of_its_noise_is_flagged():
    codes = np.repeat(np.arange(4), [50, 30, 19, 1])
    params = {"epsilon": 8.0, "delta": 1e-6}
    std = measurement_std("synthetic-mst", params, columns=2)
    # MST with 2 columns: rho/3 on the 1-way marginals, shared by 2: std = sqrt(2 / (2 rho/3))
    from anon_core.methods.dp_marginals import cdp_rho

    assert std == pytest.approx(math.sqrt(3 / cdp_rho(8.0, 1e-6)), rel=1e-6)
    good = audit_measurement(codes, 4, std, 1e-6, runs=300)
    assert not good.violation
    without, _ = rare_neighbour(codes, 4)
    score = distance_score(np.bincount(codes, minlength=4), np.bincount(without, minlength=4), 2)
    bad = audit_mechanism(
        gaussian_measurement(std / 10, 4),
        codes,
        without,
        score,
        step_epsilon(std, 1e-6),
        1e-6,
        runs=300,
    )
    assert bad.violation


# --------------------------------------------------------------- the evidence hook


def test_dp_audit_figure_for_mst_and_for_a_method_without_dp():
    from anon_core.methods.registry import make_context
    from anon_core.services.evidence import dp_audit_figure

    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {"sex": rng.choice(["F", "M"], 80), "city": rng.choice(["a", "b", "c"], 80)}
    )
    params = {
        "epsilon": 1.0,
        "delta": 1e-6,
        "bins": 4,
        "domains": {"sex": ["F", "M"], "city": ["a", "b", "c"]},
    }
    fig = dp_audit_figure(
        "synthetic-mst", "(1, 1e-06)-DP", params, frame, make_context(frame), seed=0, runs=100
    )
    assert fig["value"] == 0.0 and fig["kind"] == "DP audit"
    d = fig["details"]
    assert d["violation"] is False and d["release_epsilon"] == 1.0 and d["step_epsilon"] < 1.0
    assert d["ci"][0] <= d["bound"]
    none = dp_audit_figure("noise", "none", {}, frame, make_context(frame), seed=0)
    assert none["value"] is None and "no differential-privacy" in none["why"]


@pytest.mark.slow
def test_session_evidence_audits_an_mst_release_only_when_asked(tmp_path):
    from anon_core.methods import method_available
    from anon_core.services.session import Session

    ok, why = method_available("synthetic-mst")
    if not ok:
        pytest.skip(f"synthetic-mst is not installed here: {why}")
    rng = np.random.default_rng(0)
    n = 160
    frame = pd.DataFrame(
        {
            "age": rng.integers(18, 90, n),
            "sex": rng.choice(["F", "M"], n),
            "diagnosis": rng.choice(["asthma", "flu", "copd"], n),
        }
    )
    config = {
        "input": {"path": "in.csv"},
        "attributes": {
            "age": {"role": "quasi-identifier"},
            "sex": {"role": "quasi-identifier"},
            "diagnosis": {"role": "sensitive"},
        },
        "privacy_models": [{"model": "k-anonymity", "k": 2}],
        "method": {
            "name": "synthetic-mst",
            "iters": 50,
            "epsilon": 1.0,
            "domains": {
                "age": {"min": 18, "max": 90, "bins": 4},
                "sex": ["F", "M"],
                "diagnosis": ["asthma", "flu", "copd"],
            },
        },
        "attack": {"n_attacks": 50},
    }
    session = Session.open(config, frame, base_dir=tmp_path)
    release = session.release(scope="part")
    plain = session.evidence(release, utility=False)
    assert "dp_audit_violation" not in plain.figures and "dp_audit" not in plain.options
    audited = session.evidence(release, utility=False, dp_audit=True)
    fig = audited.figures["dp_audit_violation"]
    assert fig["value"] == 0.0 and fig["details"]["method"] == "synthetic-mst"
    assert audited.options["dp_audit"] is True
    json.dumps(audited.to_dict(), allow_nan=False)


def test_a_mean_with_a_public_n_is_audited_with_replace_one_neighbours():
    # n public: D' keeps 60 values, the outlier 90 replaced by the farther bound 0; diffprivlib's
    # mean has sensitivity 90/60, so the advantage stays below (e - 1)/(e + 1).
    q = {"type": "mean", "column": "age", "bounds": [0, 90], "n": 60, "epsilon": 1.0}
    r = audit_dp_query(_table(), q, runs=600)
    assert not r.violation and r.advantage <= r.bound + 0.1


# --------------------------------------------------------------- the page's service and page


def test_page_service_audits_each_question_and_flags_a_mis_scaled_mechanism(monkeypatch):
    from anon_core.dp import noise
    from anon_core.services.dp_audit import audit_queries, check_runs

    count = {"type": "count", "epsilon": 1.0}
    total = {"type": "sum", "column": "age", "bounds": [0, 90], "epsilon": 0.5}
    seen = []
    audits = audit_queries(_table(), [count, total], runs=600, progress=lambda f, m: seen.append(f))
    assert [a.label for a in audits] == ["count(rows)", "sum(age)"]
    for a in audits:
        assert a.error is None and a.violation is False
        # the count's test reaches its bound (hand-worked above): audited epsilon near, below 1
        assert 0.0 <= a.audited_epsilon <= a.claimed_epsilon
        assert a.bound == pytest.approx(advantage_bound(a.claimed_epsilon))
    assert audits[0].audited_epsilon > 0.5  # a geometric count is nearly tight at 600 runs
    assert seen[0] == 0.0 and seen[-1] == 1.0
    # a fault: the noise drawn for a tenth of the claimed epsilon's scale is caught
    real = noise.draw

    def too_little_noise(prep, epsilon, delta, seed):
        return real(prep, epsilon * 10, delta, seed)

    monkeypatch.setattr(noise, "draw", too_little_noise)
    bad = audit_queries(_table(), [total], runs=600)[0]
    assert bad.violation is True and bad.audited_epsilon > 0.5
    with pytest.raises(ConfigError, match="'runs'"):
        check_runs(5)
    with pytest.raises(ConfigError, match="ask at least one"):
        audit_queries(_table(), [])


@pytest.mark.slow
def test_dp_page_runs_the_audit_and_charts_claimed_against_audited_epsilon():
    from streamlit.testing.v1 import AppTest

    from anon_core.dp.ledger import DPLedger
    from tests.conftest import ROOT
    from ui import session_store

    # a ledger of its own: the query spends budget, which other page tests must not see
    session_store.set_dp_ledger(DPLedger())
    try:
        _audit_on_the_page(AppTest.from_file(str(ROOT / "app.py"), default_timeout=180))
    finally:
        session_store.set_dp_ledger(None)


def _audit_on_the_page(at) -> None:
    at.run()
    at.switch_page("pages/dp.py").run()
    assert not at.exception, at.exception
    assert not [b for b in at.button if b.key == "dp_audit_run"]  # no question: nothing to audit
    at.selectbox(key="dp_type").set_value("count").run()
    at.button(key="dp_run").click().run()
    assert not at.exception, at.exception
    at.slider(key="dp_audit_runs").set_value(200).run()
    at.button(key="dp_audit_run").click().run()
    assert not at.exception, at.exception
    charts = [c for c in at.get("plotly_chart") if "dp_audit_chart" in (c.proto.id or "")]
    assert charts, "the audit chart is drawn"
    figure = json.loads(charts[0].proto.spec)
    names = [t["name"] for t in figure["data"]]
    assert names == ["claimed ε", "audited ε (95% lower bound)"]
    assert figure["data"][0]["y"] == [0.1]  # the page's default epsilon, as claimed
    assert 0.0 <= figure["data"][1]["y"][0] <= 0.1
    assert "ε (privacy loss" in figure["layout"]["yaxis"]["title"]["text"]
    assert any("Audited ε" in c.value for c in at.caption)


@pytest.mark.slow
def test_release_with_dp_audit_puts_claimed_and_audited_epsilon_in_the_report(tmp_path, capsys):
    from anon_core.cli import main
    from anon_core.methods import method_available

    if not method_available("synthetic-mst")[0]:
        pytest.skip("synthetic-mst is not installed here")
    rng = np.random.default_rng(0)
    n = 160
    pd.DataFrame(
        {
            "age": rng.integers(18, 90, n),
            "sex": rng.choice(["F", "M"], n),
            "diagnosis": rng.choice(["asthma", "flu", "copd"], n),
        }
    ).to_csv(tmp_path / "in.csv", index=False)
    config = {
        "input": {"path": "in.csv"},
        "attributes": {
            "age": {"role": "quasi-identifier"},
            "sex": {"role": "quasi-identifier"},
            "diagnosis": {"role": "sensitive"},
        },
        "privacy_models": [{"model": "k-anonymity", "k": 2}],
        "method": {"name": "synthetic-mst", "iters": 50, "epsilon": 1.0},
        "attack": {"n_attacks": 50},
        "acceptance": {"dp_audit_violation": {"max": 0}},
    }
    cfg = tmp_path / "c.json"
    cfg.write_text(json.dumps(config))
    report = tmp_path / "dossier.html"
    args = ["release", str(cfg), "-o", str(tmp_path / "o.csv"), "--report", str(report)]
    assert main([*args, "--dp-audit"]) == 0
    details = json.loads(capsys.readouterr().out)["evidence"]["dp_audit_violation"]["details"]
    html = report.read_text(encoding="utf-8")
    assert "audited ε (95% lower bound)" in html and "DP audit: the method" in html
    assert "release ε (claimed)" in html and ">1<" in html.replace(" ", "")
    assert details["release_epsilon"] == 1.0 and details["violation"] is False
    # without --dp-audit the report has no audit table
    assert main([*args, "--force"]) == 0
    capsys.readouterr()
    assert "audited ε (95% lower bound)" not in report.read_text(encoding="utf-8")
