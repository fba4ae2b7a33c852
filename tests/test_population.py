"""Models against a population (k-map, delta-presence, population uniqueness, profitability), journalist
risk with a population table, weighted (survey) risk and SUDA2.

Oracles: ARX's own JUnit expectations on Adult (TestAnonymizationKMap, TestAnonymizationRiskBased;
arx-deidentifier/arx), hand-worked tables, Poisson probabilities worked by hand, and sdcMicro's
documented formulas and its own SUDA2 example (tests/testthat/test_suda2.R).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from anon_core import Hierarchy, Problem, make_metric, make_model
from anon_core.cli import main
from anon_core.errors import AnonError, ConfigError, DataError
from anon_core.population.table import PopulationMatcher, PopulationTable
from anon_core.privacy.population import poisson_derived_k, zero_truncated_derived_k
from anon_core.privacy.presence import research_subset_rows
from anon_core.privacy.profitability import no_attack_k
from anon_core.risk.reidentification import journalist_risk, risk_of_original, risk_of_result
from anon_core.risk.suda import suda2
from anon_core.risk.weighted_risk import individual_risk, weighted_risk

from .conftest import needs_shared

NE = {"name": "non-uniform-entropy", "monotonic": False}


# ------------------------------------------------------------------ ARX on Adult
def _adult(frame, hierarchies, order, models, limit, metric, sensitive=None):
    roles = {a: "quasi-identifier" for a in order}
    if sensitive:
        roles[sensitive] = "sensitive"
    return Problem(
        frame[order],
        roles,
        hierarchies,
        [make_model(m) for m in models],
        limit,
        make_metric(metric),
    )


# TestAnonymizationKMap: KMap(k, 0.01, USA, ZERO_TRUNCATED_POISSON), 5% suppression,
# createPrecomputedEntropyMetric(0.1, false), occupation sensitive.
KMAP_CASES = [
    (3, [0, 0, 1, 1, 0, 2, 2, 0], 130804.5332092598),
    (1000, [0, 0, 1, 1, 1, 2, 1, 0], 151894.1394841501),
]


@needs_shared
@pytest.mark.parametrize("k, levels, quality", KMAP_CASES, ids=["k3", "k1000"])
def test_kmap_estimator_usa_reproduces_arx_optimum(
    k, levels, quality, adult_frame, adult_hierarchies, arx_reference
):
    order = arx_reference["attribute_order"]
    model = {
        "model": "k-map",
        "k": k,
        "significance": 0.01,
        "estimator": "zero-truncated-poisson",
        "population": "USA",
    }
    problem = _adult(adult_frame, adult_hierarchies, order, [model], 0.05, NE, "occupation")
    found = problem.search().optimum
    assert found is not None and found.satisfied
    assert list(found.transformation.values()) == levels
    assert found.quality.value == pytest.approx(quality, rel=1e-12)
    assert found.suppressed_records <= int(0.05 * len(adult_frame))
    # Released rows: every class (suppressed records aside) reaches the derived k' = 2.
    released = problem.apply(found)
    qis = [a for a in order if a != "occupation"]
    assert released.groupby(qis).size().min() >= 2


# TestAnonymizationRiskBased: PopulationUniqueness(0.0001, model, USA, deterministic, 15 iterations
# per try), 4% suppression, all nine attributes quasi-identifiers.
PU_CASES = [
    ("dankar", NE, [0, 0, 1, 1, 1, 2, 1, 0, 0], 144298.1603344462),
    ("zayatz", "loss", [0, 3, 0, 0, 1, 1, 1, 1, 0], 0.16078200456326086),
    ("pitman", NE, [0, 0, 1, 1, 1, 2, 1, 0, 0], 144298.1603344462),
    ("snb", "loss", [0, 3, 0, 0, 2, 1, 1, 1, 0], 0.17599055898432758),
]


def _pu(estimator, iterations=15):
    return {
        "model": "population-uniqueness",
        "threshold": 0.0001,
        "estimator": estimator,
        "population": "USA",
        "iterations_per_try": iterations,
    }


@needs_shared
@pytest.mark.parametrize(
    "estimator, metric, levels, quality", PU_CASES, ids=[c[0] for c in PU_CASES]
)
def test_population_uniqueness_arx_optimum_satisfies_with_arx_quality(
    estimator, metric, levels, quality, adult_frame, adult_hierarchies, arx_reference
):
    order = arx_reference["attribute_order"]
    problem = _adult(adult_frame, adult_hierarchies, order, [_pu(estimator)], 0.04, metric)
    result = problem.evaluate(dict(zip(order, levels, strict=True)))
    assert result.satisfied
    assert result.quality.value == pytest.approx(quality, rel=1e-12)
    # The released classes meet the threshold by the estimator itself.
    model = problem.evaluator.models[0]
    kept = result.table.sizes[~result.suppressed]
    assert model.fulfilled(kept)


@needs_shared
@pytest.mark.slow
@pytest.mark.parametrize(
    "estimator, metric, levels, quality", [PU_CASES[1], PU_CASES[3]], ids=["zayatz", "snb"]
)
def test_population_uniqueness_search_finds_arx_optimum(
    estimator, metric, levels, quality, adult_frame, adult_hierarchies, arx_reference
):
    order = arx_reference["attribute_order"]
    problem = _adult(adult_frame, adult_hierarchies, order, [_pu(estimator, 1000)], 0.04, metric)
    found = problem.search().optimum
    assert list(found.transformation.values()) == levels
    assert found.quality.value == pytest.approx(quality, rel=1e-12)


def test_population_uniqueness_flags_follow_arx():
    for est in ("dankar", "pitman", "snb"):
        m = make_model(_pu(est))
        assert m.sample_based and not m.monotonic_generalization and not m.monotonic_suppression
    z = make_model(_pu("zayatz"))
    assert z.monotonic_generalization and not z.monotonic_suppression
    km = make_model({"model": "k-map", "k": 3, "population": "USA"})
    assert km.monotonic_generalization and km.monotonic_suppression


# ------------------------------------------------------------------ k-map estimators by hand
def test_derived_k_poisson_by_hand():
    # lambda = 1: P(X<=0..4) = .3679, .7358, .9197, .9810, .99634 -> the loop stops at counter 5,
    # ARX returns counter + 1 = 6; type-I error 1 - .99634.
    k, err = poisson_derived_k(10, 1.0, 0.01)
    assert k == 6
    assert err == pytest.approx(1 - math.exp(-1) * (1 + 1 + 1 / 2 + 1 / 6 + 1 / 24), rel=1e-12)
    assert (
        poisson_derived_k(3, 1.0, 0.01)[0] == 4
    )  # capped: counter reaches k, min(k, .) is applied later


def test_derived_k_zero_truncated_by_hand():
    # P(X = x | X > 0) for lambda = 1: .58198, .29099, .09700, .02425: cumulative .99422 >= .99 at x = 4.
    k, err = zero_truncated_derived_k(10, 1.0, 0.01)
    assert k == 5
    z = 1 - math.exp(-1)
    assert err == pytest.approx(1 - math.exp(-1) * (1 + 1 / 2 + 1 / 6 + 1 / 24) / z, rel=1e-12)


def _tiny(models, limit=0.0, frame=None):
    frame = frame if frame is not None else TINY
    return Problem(
        frame,
        {"zip": "quasi-identifier", "age": "quasi-identifier"},
        TINY_H,
        [make_model(m) for m in models],
        limit,
    )


TINY = pd.DataFrame(
    {
        "zip": ["1301", "1302", "1301", "1402", "1401", "1402"],
        "age": ["21", "22", "35", "36", "21", "35"],
    }
)
TINY_H = {
    "zip": Hierarchy(
        np.array(
            [
                ["1301", "130*", "*"],
                ["1302", "130*", "*"],
                ["1401", "140*", "*"],
                ["1402", "140*", "*"],
            ],
            dtype=object,
        )
    ),
    "age": Hierarchy(
        np.array(
            [["21", "2*", "*"], ["22", "2*", "*"], ["35", "3*", "*"], ["36", "3*", "*"]],
            dtype=object,
        )
    ),
}


def test_kmap_estimator_class_check_uses_derived_k():
    # n = 6, population 6 * 10 / 1 -> lambda = 6/60 * 10 = 1 with k = 10: derived k = min(10, 6, n=6) = 6.
    p = _tiny([{"model": "k-map", "k": 10, "estimator": "poisson", "population": {"size": 60}}])
    model = p.evaluator.models[0]
    assert model.derived_k == 6
    assert not p.evaluate({"zip": 1, "age": 2}).satisfied  # classes of 3
    assert p.evaluate({"zip": 2, "age": 2}).satisfied  # one class of 6


# ------------------------------------------------------------------ population tables
POP = pd.DataFrame(
    {
        "zip": ["1301", "1302", "1301", "1402", "1401", "1402", "1301", "1302", "1401", "1401"],
        "age": ["21", "22", "35", "36", "21", "35", "22", "21", "36", "36"],
        "other": list("abcdefghij"),
    }
)


def test_population_counts_per_generalized_class_by_hand():
    p = _tiny([{"model": "k-anonymity", "k": 1}])
    matcher = PopulationMatcher(PopulationTable.from_frame(POP, ["zip", "age"]), p.dataset)
    table = p.freq.classes({"zip": 1, "age": 1})
    # classes of the sample at (130*/140*, 2*/3*): population rows in each, counted by hand:
    # 130*,2*: 1301/21, 1302/22, 1301/22, 1302/21 -> 4; 130*,3*: 1301/35 -> 1;
    # 140*,3*: 1402/36, 1402/35, 1401/36, 1401/36 -> 4; 140*,2*: 1401/21 -> 1.
    labels = {
        (
            str(p.dataset.hierarchy("zip").labels[1][c[0]]),
            str(p.dataset.hierarchy("age").labels[1][c[1]]),
        ): n
        for c, n in zip(table.codes, matcher.counts(table.codes, table.levels), strict=True)
    }
    assert labels == {("130*", "2*"): 4, ("130*", "3*"): 1, ("140*", "3*"): 4, ("140*", "2*"): 1}


def test_kmap_with_population_table(tmp_path):
    POP.to_csv(tmp_path / "pop.csv", index=False)
    spec = {"model": "k-map", "k": 2, "population": {"table": str(tmp_path / "pop.csv")}}
    p = _tiny([spec])
    assert not p.evaluate({"zip": 1, "age": 1}).satisfied  # two classes have one person
    assert p.evaluate({"zip": 1, "age": 2}).satisfied  # 130*: 5 people, 140*: 5 people
    with pytest.raises(ConfigError, match="give one of them"):
        make_model({**spec, "estimator": "poisson"})


def test_journalist_risk_with_population_table_by_hand():
    p = _tiny([{"model": "k-anonymity", "k": 1}])
    matcher = PopulationMatcher(PopulationTable.from_frame(POP, ["zip", "age"]), p.dataset)
    report = risk_of_result(
        p.evaluate({"zip": 1, "age": 1}), population=matcher, max_combination_size=0
    )
    # sample classes (size -> population): 130*,2* 2->4; 130*,3* 1->1; 140*,3* 2->4; 140*,2* 1->1
    j = report.journalist
    assert j.highest_risk == 1.0
    assert j.records_at_highest_risk == pytest.approx(2 / 6)
    assert j.average_risk == pytest.approx(max(4 / 10, (2 / 4 + 1 + 2 / 4 + 1) / 6))
    assert dict(j.records_at_risk)[0.5] == pytest.approx(2 / 6)  # only risk 1 > 0.5
    assert "population table" in report.journalist_basis
    plain = risk_of_original(p, max_combination_size=0)
    assert plain.journalist == plain.prosecutor and "equals prosecutor" in plain.journalist_basis
    with pytest.raises(DataError, match="fewer people"):
        journalist_risk([2, 1], [1, 5])


# ------------------------------------------------------------------ delta-presence
# Nergiz, Atzori and Clifton (2007), the shape of their example: a public table P of six people and a
# research subset T of three; at the finest level a person whose class is {themselves} is present
# with certainty (delta 1) or absent (delta 0).
def test_delta_presence_worked_example_by_hand():
    frame = TINY.assign(in_study=[True, False, True, False, True, False])
    spec = {
        "model": "delta-presence",
        "delta_min": 0.2,
        "delta_max": 0.6,
        "research_subset": {"column": "in_study"},
    }
    p = Problem(
        frame, {"zip": "quasi-identifier", "age": "quasi-identifier"}, TINY_H, [make_model(spec)]
    )
    model = p.evaluator.models[0]
    state = model.prepare(p.freq)
    # level (0,0): singletons, delta in {0, 1}: fails.
    assert not p.evaluate({"zip": 0, "age": 0}).satisfied
    # level (1,1): 130*,2* = {1301/21 in, 1302/22 out} -> 1/2; 130*,3* = {1301/35 in} -> 1;
    # 140*,3* = {1402/36 out, 1402/35 out} -> 0; 140*,2* = {1401/21 in} -> 1: fails.
    t11 = p.freq.classes({"zip": 1, "age": 1})
    assert sorted(model.measure(t11, state).tolist()) == [0.0, 0.5, 1.0, 1.0]
    # level (1,2): 130* = 2 of 3, 140* = 1 of 3: delta_max 0.6 < 2/3 fails; (2,1): 2* = 2/3, 3* = 1/3 fails;
    # (2,2): 3 of 6 = 0.5 in [0.2, 0.6]: holds.
    assert not p.evaluate({"zip": 1, "age": 2}).satisfied
    assert p.evaluate({"zip": 2, "age": 2}).satisfied
    # Only the research subset is released.
    assert research_subset_rows(p.evaluator.models, frame).tolist() == frame["in_study"].tolist()
    loose = Problem(
        frame,
        {"zip": "quasi-identifier", "age": "quasi-identifier"},
        TINY_H,
        [make_model({**spec, "delta_max": 0.7})],
    )
    assert loose.evaluate({"zip": 1, "age": 2}).satisfied


def test_delta_presence_subset_from_row_file(tmp_path):
    (tmp_path / "rows.txt").write_text("0\n2\n4\n")
    spec = {
        "model": "delta-presence",
        "delta_min": 0.2,
        "delta_max": 0.6,
        "research_subset": {"file": str(tmp_path / "rows.txt")},
    }
    p = _tiny([spec])
    assert p.evaluate({"zip": 2, "age": 2}).satisfied
    (tmp_path / "bad.txt").write_text("0\n9\n")
    with pytest.raises(DataError, match="names row 9"):
        _tiny([{**spec, "research_subset": {"file": str(tmp_path / "bad.txt")}}])


# ------------------------------------------------------------------ profitability
def test_no_attack_k_by_hand():
    assert no_attack_k(300, 4) == 76  # 75 exactly: attacking a class of 75 still breaks even
    assert no_attack_k(120, 20) == 7
    assert no_attack_k(1000, 3) == 334
    assert no_attack_k(0, 4) == 1


def test_profitability_prosecutor_payoff_by_hand():
    # One QI, hierarchy of 4 values: at level 1 each class spans 2 of 4 values, share 1/2;
    # information loss = log10(1/2) / log10(4) + 1 = 0.5 (ARX's entropy-based loss).
    frame = pd.DataFrame({"zip": ["1301", "1302", "1301", "1401"]})
    h = {"zip": TINY_H["zip"]}
    spec = {
        "model": "profitability",
        "attacker": "prosecutor",
        "adversary_gain": 300,
        "adversary_cost": 4,
        "publisher_benefit": 1200,
        "publisher_loss": 300,
    }
    p = Problem(frame, {"zip": "quasi-identifier"}, h, [make_model(spec)])
    model = p.evaluator.models[0]
    t = p.freq.classes({"zip": 1})
    state = model.prepare(p.freq)
    assert model.information_loss(t, state).tolist() == pytest.approx([0.5, 0.5])
    # 130*: 3 records, p = 1/3, attack pays (100 - 4 > 0): 1200 * 0.5 - 300/3 = 500;
    # 140*: 1 record, p = 1: 600 - 300 = 300.
    assert sorted(model.measure(t, state).tolist()) == pytest.approx([300.0, 500.0])
    # A stingy publisher: benefit 500 -> 250 - 300 < 0 for the unique class.
    stingy = Problem(
        frame, {"zip": "quasi-identifier"}, h, [make_model({**spec, "publisher_benefit": 500})]
    )
    assert not stingy.evaluate({"zip": 1}).satisfied
    # At the top (loss 1) the payoff is 0 - 300/4 = -75 (attacking 4 records still pays: 75 - 4 > 0).
    assert not stingy.evaluate({"zip": 2}).satisfied

    top = stingy.freq.classes({"zip": 2})
    st = stingy.evaluator.models[0].prepare(stingy.freq)
    assert stingy.evaluator.models[0].measure(top, st).tolist() == pytest.approx([-75.0])


def test_profitability_journalist_needs_population():
    with pytest.raises(ConfigError, match="needs 'population'"):
        make_model({"model": "profitability", "attacker": "journalist"})
    m = make_model(
        {"model": "profitability-no-attack", "adversary_gain": 120, "adversary_cost": 20}
    )
    assert m.k == 7 and m.monotonic_generalization and m.monotonic_suppression


# ------------------------------------------------------------------ monotonicity (property)
def _random_problem(rng, models):
    n = int(rng.integers(5, 30))
    frame = pd.DataFrame(
        {
            "zip": rng.choice(["1301", "1302", "1401", "1402"], n),
            "age": rng.choice(["21", "22", "35", "36"], n),
            "in_study": rng.random(n) < 0.5,
        }
    )
    frame.loc[0, "in_study"] = True
    return Problem(
        frame,
        {"zip": "quasi-identifier", "age": "quasi-identifier"},
        TINY_H,
        [make_model(m) for m in models],
    )


def _verdict(problem, levels):
    table = problem.freq.classes(levels)
    model = problem.evaluator.models[0]
    state = model.prepare(problem.freq)
    if model.sample_based:
        return model.released_ok(table.sizes)
    return bool(model.class_ok(table, state).all())


MONOTONE_SPECS = [
    {"model": "k-map", "k": 3, "estimator": "poisson", "population": {"size": 60}},
    {
        "model": "delta-presence",
        "delta_min": 0.2,
        "delta_max": 0.7,
        "research_subset": {"column": "in_study"},
    },
    {"model": "profitability-no-attack", "adversary_gain": 12, "adversary_cost": 4},
    {
        "model": "population-uniqueness",
        "threshold": 0.3,
        "estimator": "zayatz",
        "population": {"size": 60},
    },
]


@pytest.mark.parametrize(
    "spec",
    MONOTONE_SPECS,
    ids=[s["model"] + "-" + str(s.get("estimator", "")) for s in MONOTONE_SPECS],
)
def test_declared_monotonic_models_never_fail_above_a_satisfying_node(spec):
    rng = np.random.default_rng(17)
    nodes = [(a, b) for a in range(3) for b in range(3)]
    for _ in range(40):
        p = _random_problem(rng, [spec])
        assert p.evaluator.models[0].monotonic_generalization
        ok = {lv: _verdict(p, lv) for lv in nodes}
        for fine in nodes:
            for coarse in nodes:
                if ok[fine] and coarse[0] >= fine[0] and coarse[1] >= fine[1]:
                    assert ok[coarse], (spec, fine, coarse)


# ------------------------------------------------------------------ weighted risk (sdcMicro)
def test_individual_risk_formulas_by_hand():
    # fk=1, Fk=10: p=.1 -> (.1/.9) ln 10; fk=2, Fk=4: p=.5 -> 1 - ln 2; fk=3, Fk=30: p=.1 -> .1/(3-.9);
    # fk = Fk = 2 -> 1/2.
    got = individual_risk([1, 2, 3, 2], [10, 4, 30, 2])
    assert got.tolist() == pytest.approx(
        [(0.1 / 0.9) * math.log(10), 1 - math.log(2), 0.1 / 2.1, 0.5], rel=1e-12
    )


def test_weighted_risk_table_by_hand():
    frame = pd.DataFrame({"a": ["x", "x", "y", "z", "z", "z"], "w": [2, 2, 10, 10, 10, 10]})
    r = weighted_risk(frame, ["a"], "w")
    # x: fk 2, Fk 4 -> 1 - ln 2 each; y: fk 1, Fk 10 -> (1/9) ln 10; z: fk 3, Fk 30 -> .1/2.1 each
    expected = [1 - math.log(2)] * 2 + [(0.1 / 0.9) * math.log(10)] + [0.1 / 2.1] * 3
    assert r.individual.tolist() == pytest.approx(expected, rel=1e-12)
    assert r.expected_reidentifications == pytest.approx(sum(expected), rel=1e-12)
    assert r.global_risk == pytest.approx(sum(expected) / 6, rel=1e-12)
    assert r.estimated_population == 44
    with pytest.raises(DataError, match="at least 1"):
        weighted_risk(frame.assign(w=[0.5, 2, 2, 2, 2, 2]), ["a"], "w")
    with pytest.raises(ConfigError, match="not a key variable"):
        weighted_risk(frame, ["a", "w"], "w")


# ------------------------------------------------------------------ SUDA2 (sdcMicro)
def test_suda2_sdcmicro_example():
    # sdcMicro tests/testthat/test_suda2.R: contributions 50, 37.5, 37.5.
    r = suda2(pd.DataFrame({"a": [2, 1, 1], "b": [0, 3, 0], "c": [0, 6, 0]}), ["a", "b", "c"])
    assert dict(r.contributions) == pytest.approx({"a": 50.0, "b": 37.5, "c": 37.5})
    # MSUs by hand: r1 {a}; r2 {b}, {c}; r3 {a,b}, {a,c}; weights (3-k)!: 2, 2+2, 1+1.
    assert r.score.tolist() == [2.0, 4.0, 2.0]
    assert r.dis_score.tolist() == [1.0, 1.0, 1.0]  # no pairs: Dis = 1


def test_suda2_dis_score_by_hand():
    # Records 0-3; record 4 duplicates record 3 (a pair), so U = 3 uniques, P = 2 records in pairs.
    frame = pd.DataFrame({"a": [1, 2, 2, 3, 3], "b": [1, 1, 2, 2, 2], "c": [1, 1, 1, 1, 1]})
    r = suda2(frame, ["a", "b", "c"], dis_fraction=0.1)
    # MSUs: r0 {a} (a=1 unique) -> 2; r1 {a,b} -> 1 (a=2 twice, b=1 twice); r2 {b}? b=2 three times;
    # {a,b} = (2,2) unique -> 1; r3, r4 duplicates -> 0.
    assert r.score.tolist() == [2.0, 1.0, 1.0, 0.0, 0.0]
    f = np.float32
    dis = float(f(f(3) * f(0.1)) / (f(f(3) * f(0.1)) + f(f(2) * (f(1) - f(0.1)))))
    q = 1 + (8 - 3) / 20
    adj = 1 / 2**q + 1 / 1**q + 1 / 1**q
    expected = [1 / (1 + (3 / dis - 3) / (s**q * adj)) if s else 0.0 for s in (2, 1, 1, 0, 0)]
    assert r.dis_score.tolist() == pytest.approx(expected, rel=1e-12)


# ------------------------------------------------------------------ configuration and CLI
def _write_config(tmp_path, extra=None, models=None):
    frame = TINY.assign(w=[10, 20, 10, 30, 40, 50])
    frame.to_csv(tmp_path / "data.csv", index=False)
    POP.to_csv(tmp_path / "pop.csv", index=False)
    for name, h in TINY_H.items():
        (tmp_path / f"h_{name}.csv").write_text(h.to_csv())
    cfg = {
        "input": {"path": "data.csv"},
        "attributes": {
            "zip": {"role": "quasi-identifier", "hierarchy": {"file": "h_zip.csv"}},
            "age": {"role": "quasi-identifier", "hierarchy": {"file": "h_age.csv"}},
            "w": {"role": "weight"},
        },
        "privacy_models": models
        or [{"model": "k-map", "k": 2, "population": {"table": "pop.csv"}}],
        "transformation": {"zip": 1, "age": 2},
        **(extra or {}),
    }
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg))
    return path


def test_cli_risk_population_weights_and_suda(tmp_path, capsys):
    path = _write_config(tmp_path, {"population": {"table": "pop.csv"}})
    assert main(["risk", str(path), "--max-combination-size", "0"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["satisfied"] is True
    assert "population table" in out["journalist_basis"]
    # 130*: 3 sample records, 5 people; 140*: 3 records, 5 people -> risk 1/5 for everyone.
    assert out["journalist"]["highest_risk"] == pytest.approx(0.2)
    assert out["weighted_risk"]["weight_column"] == "w"
    assert out["weighted_risk"]["estimated_population"] == 160
    assert "suda2" in out
    assert main(["risk", str(path), "--original", "--max-combination-size", "0"]) == 0
    original = json.loads(capsys.readouterr().out)
    assert original["journalist"]["highest_risk"] == 1.0  # e.g. 1302/22 is one person


def test_cli_risk_without_population_says_why(tmp_path, capsys):
    path = _write_config(tmp_path, models=[{"model": "k-anonymity", "k": 1}])
    assert main(["risk", str(path), "--original", "--max-combination-size", "0"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (
        "equals prosecutor risk" in out["journalist_basis"]
        and "no population table" in out["journalist_basis"]
    )


@pytest.mark.parametrize(
    "models, extra, message",
    [
        ([{"model": "k-map", "k": 2, "population": "Atlantis"}], None, "not one of ARX's regions"),
        ([{"model": "k-map", "population": "USA"}], None, "'k-map.k' is required"),
        (
            [
                {
                    "model": "delta-presence",
                    "delta_min": 0.6,
                    "delta_max": 0.5,
                    "research_subset": {"column": "w"},
                }
            ],
            None,
            "above 'delta_max'",
        ),
        ([{"model": "delta-presence", "delta_max": 0.5}], None, "research_subset' is required"),
        (
            [{"model": "population-uniqueness", "threshold": 0.1, "estimator": "guess"}],
            None,
            "estimator",
        ),
        ([{"model": "k-anonymity", "k": 2}], {"population": {"tabel": "pop.csv"}}, "tabel"),
    ],
)
def test_bad_inputs_give_one_line(tmp_path, capsys, models, extra, message):
    path = _write_config(tmp_path, extra, models)
    assert main(["risk", str(path), "--original"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error:") and message in err and "\n" not in err


def test_missing_population_file_is_one_clear_error(tmp_path):
    with pytest.raises(AnonError, match="does not exist"):
        _tiny([{"model": "k-map", "k": 2, "population": {"table": str(tmp_path / "nope.csv")}}])


# ------------------------------------------------------------------ dashboard
@pytest.mark.slow  # starts the whole dashboard
def test_risk_page_shows_journalist_basis_and_suda2():
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    app = Path(__file__).resolve().parents[1] / "app.py"
    at = AppTest.from_file(str(app), default_timeout=120)
    at.run()
    at.switch_page("pages/risk.py").run()
    assert not at.exception, at.exception
    assert any("equals prosecutor risk" in c.value for c in at.caption)
    at.toggle(key="suda_on").set_value(True).run()
    assert not at.exception, at.exception
    ids = [c.proto.id for c in at.get("plotly_chart")]
    assert any("suda_dis" in i for i in ids) and any("suda_contrib" in i for i in ids)


# ------------------------------------------------------------------ ARX's binary suppression
def _java_binary(n, fulfilled, over_budget=None):
    """ARX's HashGroupifyDistribution.suppressWhileNotFulfilledBinary transcribed line by line
    (entries as flags; Java integer division); returns how many entries end suppressed."""
    if n == 0:
        return 0
    flags = [False] * n

    def state():
        m = sum(flags)
        assert flags == [True] * m + [False] * (n - m)  # always a prefix
        ok = fulfilled(m)
        if not ok and over_budget is not None and over_budget(m):
            return "abort"
        return ok

    low, high = 0, n - 1
    mid = int((low + high) / 2)
    for i in range(low, mid + 1):
        flags[i] = True
    st = "abort"
    while low <= high:
        st = state()
        if st == "abort":
            break
        if st:
            high = mid - 1
            mid = int((low + high) / 2)
            i = mid + 1
            while i < n and flags[i]:
                flags[i] = False
                i += 1
        else:
            low = mid + 1
            mid = int((low + high) / 2)
            for i in range(low, mid + 1):
                flags[i] = True
    if st != "abort":
        st = state()
        if st is False and mid + 1 < n and not flags[mid + 1]:
            flags[mid + 1] = True
    return sum(flags)


def test_binary_suppression_matches_arx_transcription_on_non_monotone_predicates():
    from anon_core.privacy.population import arx_binary_suppression

    rng = np.random.default_rng(5)
    for _ in range(300):
        n = int(rng.integers(0, 40))
        verdict = rng.random(n + 1) < rng.random()  # arbitrary, not monotone
        budget = int(rng.integers(0, n + 1))

        def fulfilled(m, v=verdict):
            return bool(v[m])

        def over(m, b=budget):
            return m > b

        assert arx_binary_suppression(n, fulfilled) == _java_binary(n, fulfilled)
        assert arx_binary_suppression(n, fulfilled, over) == _java_binary(n, fulfilled, over)


def test_cli_anonymize_with_kmap_population_table(tmp_path, capsys):
    # No transformation: the search picks one; every released class must match >= 2 people of POP.
    path = _write_config(tmp_path)
    cfg = json.loads(path.read_text())
    del cfg["transformation"]
    path.write_text(json.dumps(cfg))
    out_file = tmp_path / "released.csv"
    assert main(["anonymize", str(path), "--output", str(out_file)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["satisfied"] is True
    released = pd.read_csv(out_file, dtype=str)
    levels = summary["transformation"]
    people = {}
    for _, row in POP.iterrows():
        key = tuple(
            TINY_H[q].table[list(TINY_H[q].table[:, 0]).index(row[q]), levels[q]]
            for q in ("zip", "age")
        )
        people[key] = people.get(key, 0) + 1
    for key in released[["zip", "age"]].itertuples(index=False):
        assert people[tuple(key)] >= 2
