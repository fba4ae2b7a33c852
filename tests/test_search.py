"""Optimal search against brute force on small random lattices, and its options."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pandas as pd
import pytest

from anon_core import ConfigError, Hierarchy, Problem, make_metric, make_model
from anon_core.cli import EXIT_NOT_SATISFIED, main
from anon_core.data.builders import interval_hierarchy, masking_hierarchy, ordered_hierarchy
from anon_core.quality.metrics import metric_specs
from anon_core.search.lattice import search

from .conftest import needs_shared

S_HIER = Hierarchy(
    np.array([["a", "ab", "*"], ["b", "ab", "*"], ["c", "cd", "*"], ["d", "cd", "*"]], dtype=object)
)

MODEL_SETS = [
    [{"model": "k-anonymity", "k": 3}],
    [{"model": "k-anonymity", "k": 2}, {"model": "distinct-l-diversity", "attribute": "s", "l": 2}],
    [{"model": "entropy-l-diversity", "attribute": "s", "l": 1.8}],
    [
        {"model": "k-anonymity", "k": 2},
        {"model": "recursive-cl-diversity", "attribute": "s", "c": 3, "l": 2},
    ],
    [{"model": "equal-distance-t-closeness", "attribute": "s", "t": 0.35}],
    [{"model": "hierarchical-distance-t-closeness", "attribute": "s", "t": 0.3}],
    [
        {"model": "k-anonymity", "k": 2},
        {"model": "delta-disclosure", "attribute": "s", "delta": 1.5},
    ],
    [{"model": "basic-beta-likeness", "attribute": "s", "beta": 1.5}],
    [{"model": "average-reidentification-risk", "threshold": 0.3}],
    [{"model": "k-anonymity", "k": 2}, {"model": "sample-uniqueness", "threshold": 0.05}],
]
METRICS = metric_specs()  # every registered metric and variant


def _frame(seed: int, n: int = 80) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "age": rng.integers(18, 70, n).astype(str),
            "zip": rng.choice(["1301", "1302", "1311", "1422", "1423"], n),
            "edu": rng.choice(["e1", "e2", "e3", "e4", "e5"], n),
            "s": rng.choice(list("abcd"), n, p=[0.4, 0.3, 0.2, 0.1]),
        }
    )


def _problem(frame, models, limit, metric) -> Problem:
    hier = {
        "age": interval_hierarchy(frame["age"].unique(), width=10, fanout=2),
        "zip": masking_hierarchy(frame["zip"].unique(), levels=2),
        "edu": ordered_hierarchy(frame["edu"].unique(), sizes=[2]),
        "s": S_HIER,
    }
    roles = {
        "age": "quasi-identifier",
        "zip": "quasi-identifier",
        "edu": "quasi-identifier",
        "s": "sensitive",
    }
    return Problem(frame, roles, hier, [make_model(m) for m in models], limit, make_metric(metric))


def _brute_force(problem: Problem):
    best = None
    for lv in itertools.product(*[range(h) for h in problem.dataset.heights]):
        r = problem.evaluate(lv)
        if r.satisfied:
            key = (r.quality.value, sum(lv))
            if (
                best is None
                or key[0] < best[0] - 1e-12 * max(1, abs(best[0]))
                or (abs(key[0] - best[0]) <= 1e-12 * max(1, abs(best[0])) and key[1] < best[1])
            ):
                best = key
    return best


@pytest.mark.parametrize("seed", [11, 12])
@pytest.mark.parametrize("limit", [0.0, 0.05, 0.2])
@pytest.mark.parametrize("models", MODEL_SETS, ids=[m[-1]["model"] for m in MODEL_SETS])
def test_search_finds_the_brute_force_optimum(seed, limit, models):
    frame = _frame(seed)
    for metric in METRICS:
        problem = _problem(frame, models, limit, metric)
        expected = _brute_force(problem)
        found = problem.search()
        if expected is None:
            assert found.optimum is None
            continue
        assert found.optimum is not None, metric
        assert found.optimum.satisfied
        assert found.optimum.quality.value == pytest.approx(expected[0], rel=1e-12, abs=1e-12), (
            metric
        )
        assert sum(found.optimum.levels) == expected[1], metric
        for tie in found.ties:
            r = problem.evaluate(tie)
            assert r.satisfied and r.quality.value == pytest.approx(
                expected[0], rel=1e-12, abs=1e-12
            )
        assert found.lattice_size == int(np.prod(problem.dataset.heights))
        assert 0 < found.nodes_checked <= found.lattice_size


def test_search_prunes_on_monotone_configurations():
    problem = _problem(_frame(3, 400), [{"model": "k-anonymity", "k": 4}], 0.0, {"name": "loss"})
    found = problem.search()
    assert found.nodes_checked < found.lattice_size


def test_min_and_max_levels_restrict_the_lattice():
    frame = _frame(5)
    problem = _problem(frame, [{"model": "k-anonymity", "k": 3}], 0.0, {"name": "loss"})
    found = problem.search(min_levels={"age": 2}, max_levels={"zip": 1})
    assert found.optimum.transformation["age"] >= 2
    assert found.optimum.transformation["zip"] <= 1
    assert found.lattice_size < int(np.prod(problem.dataset.heights))
    with pytest.raises(ConfigError, match="names 'town'"):
        problem.search(min_levels={"town": 1})
    with pytest.raises(ConfigError, match="above"):
        problem.search(min_levels={"age": 2}, max_levels={"age": 1})


def test_heuristic_mode_says_so_and_satisfies():
    problem = _problem(_frame(6), [{"model": "k-anonymity", "k": 3}], 0.0, {"name": "loss"})
    found = problem.search(exact_limit=10)
    assert found.heuristic is True
    assert found.optimum is not None and found.optimum.satisfied
    assert found.summary()["heuristic"] is True


def test_no_solution_and_tradeoff_data():
    problem = _problem(_frame(7), [{"model": "k-anonymity", "k": 1000}], 0.0, {"name": "loss"})
    found = problem.search()
    assert found.optimum is None and found.summary()["satisfied"] is False
    problem = _problem(_frame(7), [{"model": "k-anonymity", "k": 3}], 0.1, {"name": "loss"})
    found = problem.search()
    rows = found.tradeoff()
    assert rows and {
        "satisfied",
        "quality",
        "suppressed_records",
        "highest_risk",
        "average_risk",
    } <= set(rows[0])
    front = found.pareto_frontier()
    assert all(r["satisfied"] for r in front)
    qualities = [r["quality"] for r in front]
    assert qualities == sorted(qualities, reverse=True)


def test_cli_search_json_fields(tmp_path, capsys):
    frame = _frame(8)
    frame.to_csv(tmp_path / "d.csv", index=False)
    cfg = {
        "input": {"path": "d.csv"},
        "attributes": {
            "age": {"role": "quasi-identifier", "hierarchy": {"builder": "intervals", "width": 10}},
            "zip": {"role": "quasi-identifier", "hierarchy": {"builder": "masking", "levels": 2}},
            "edu": {"role": "insensitive"},
            "s": {"role": "sensitive"},
        },
        "privacy_models": [{"model": "k-anonymity", "k": 4}],
        "suppression_limit": 0.05,
        "search": {"max_levels": {"age": 3}},
    }
    (tmp_path / "c.json").write_text(json.dumps(cfg))
    out = tmp_path / "o.csv"
    assert main(["anonymize", str(tmp_path / "c.json"), "-o", str(out)]) == 0
    summary = json.loads(capsys.readouterr().out)
    for key in ("nodes_checked", "lattice_size", "ties", "search_ms", "transformation", "quality"):
        assert key in summary
    released = pd.read_csv(out, dtype=str)
    assert released.groupby(["age", "zip"]).size().min() >= 4
    cfg["privacy_models"] = [{"model": "k-anonymity", "k": 1000}]
    (tmp_path / "c.json").write_text(json.dumps(cfg))
    assert (
        main(["anonymize", str(tmp_path / "c.json"), "-o", str(tmp_path / "x.csv")])
        == EXIT_NOT_SATISFIED
    )


@needs_shared
def test_arx_optima_found_by_search(adult_frame, adult_hierarchies, arx_reference):
    order = arx_reference["attribute_order"]
    for case in arx_reference["cases"] + arx_reference["arx_test_suite_cases"]:
        problem = Problem(
            adult_frame[order],
            {a: "quasi-identifier" for a in order},
            adult_hierarchies,
            [make_model(m) for m in case["privacy_models"]],
            case["suppression_limit"],
            make_metric(case["quality_metric"]),
        )
        found = search(problem.evaluator)
        expected = case["expected"]
        assert found.optimum.quality.value == pytest.approx(expected["quality"], rel=1e-9), case[
            "description"
        ]
        assert expected["levels"] in [found.optimum.transformation, *found.ties], case[
            "description"
        ]
