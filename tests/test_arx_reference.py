"""ARX's own results on Adult: evaluating ARX's optimum gives ARX's figures."""

from __future__ import annotations

import pytest

from anon_core import Problem, make_metric, make_model

from .conftest import needs_shared

pytestmark = needs_shared


def _cases(reference: dict) -> list[dict]:
    return reference["cases"] + reference["arx_test_suite_cases"]


@pytest.fixture(scope="module")
def adult_problem_factory(adult_frame, adult_hierarchies, arx_reference):
    order = arx_reference["attribute_order"]

    def make(case: dict) -> Problem:
        return Problem(
            adult_frame[order],
            {a: "quasi-identifier" for a in order},
            adult_hierarchies,
            [make_model(m) for m in case["privacy_models"]],
            case["suppression_limit"],
            make_metric(case["quality_metric"]),
        )

    return make


def test_reference_file_has_cases(arx_reference):
    assert len(_cases(arx_reference)) >= 10


def test_hierarchy_heights_match_arx(adult_hierarchies, arx_reference):
    for attr, height in arx_reference["hierarchy_heights_including_level_0"].items():
        assert adult_hierarchies[attr].height == height, attr


@pytest.mark.parametrize("index", range(10))
def test_arx_optimum_quality_and_classes(index, arx_reference, adult_problem_factory):
    cases = _cases(arx_reference)
    if index >= len(cases):
        pytest.skip("fewer reference cases")
    case = cases[index]
    problem = adult_problem_factory(case)
    result = problem.evaluate(case["expected"]["levels"])
    expected = case["expected"]
    assert result.satisfied, case["description"]
    assert result.quality.value == pytest.approx(expected["quality"], rel=1e-9, abs=0), case[
        "description"
    ]
    for field in ("suppressed_records", "equivalence_classes", "min_class_size", "max_class_size"):
        if field in expected:
            assert getattr(result, field) == expected[field], (case["description"], field)


def test_original_table_class_count(adult_frame, adult_hierarchies, arx_reference):
    order = arx_reference["attribute_order"]
    problem = Problem(
        adult_frame[order],
        {a: "quasi-identifier" for a in order},
        adult_hierarchies,
        [make_model({"model": "k-anonymity", "k": 1})],
    )
    result = problem.evaluate({a: 0 for a in order})
    risk = arx_reference["risk_of_original_all_9_qis"]
    assert result.equivalence_classes == risk["equivalence_classes"]
    assert int((result.table.sizes == 1).sum()) == risk["sample_uniques"]
