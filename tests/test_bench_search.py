"""The end-to-end search benchmark's harness logic (no timing, no ARX, no data needed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.bench_search import (
    CONFIGS,
    arx_model,
    hierarchy_attributes,
    roles_of,
    same_optimum,
    select_configs,
    spec_line,
)


def test_twenty_one_configurations_nine_on_adult_four_per_heldout_set():
    assert len(CONFIGS) == 21
    assert [c.id for c in CONFIGS[:9]] == list("ABCDEFGHI")
    for name in ("cup", "fars", "survey"):
        assert [c.id for c in CONFIGS if c.dataset == name] == [
            f"{name}-k5",
            f"{name}-k5-5",
            f"{name}-dl3",
            f"{name}-rl43",
        ]


def test_select_by_id_and_by_data_set_keeps_the_benchmark_order():
    assert [c.id for c in select_configs("I, b")] == ["B", "I"]
    assert [c.id for c in select_configs("fars")] == [
        "fars-k5",
        "fars-k5-5",
        "fars-dl3",
        "fars-rl43",
    ]
    assert len(select_configs("")) == 21


def test_unknown_name_is_refused_with_the_known_ones():
    with pytest.raises(ValueError, match=r"unknown configuration\(s\) \['Z'\].*known: A, B"):
        select_configs("A,Z")


def test_model_tokens_of_the_harness():
    assert arx_model({"model": "k-anonymity", "k": 5}) == "k:5"
    rec = {"model": "recursive-cl-diversity", "attribute": "s", "c": 4, "l": 3}
    assert arx_model(rec) == "recursive:s:4:3"
    hier = {"model": "hierarchical-distance-t-closeness", "attribute": "s", "t": 0.2}
    assert arx_model(hier) == "hier-t:s:0.2"
    with pytest.raises(ValueError, match="does not know"):
        arx_model({"model": "delta-presence", "attribute": "s"})


def test_roles_adult_a_has_nine_qis_and_e_makes_occupation_sensitive():
    columns = ["sex", "age", "race", "marital-status", "education", "native-country"]
    columns += ["workclass", "occupation", "salary-class"]
    a, e, i = (next(c for c in CONFIGS if c.id == x) for x in "AEI")
    qis, roles = roles_of(a, columns)
    assert qis == columns and set(roles.values()) == {"quasi-identifier"}
    qis, roles = roles_of(e, columns)
    assert "occupation" not in qis and len(qis) == 8
    assert roles["occupation"] == "sensitive"
    assert hierarchy_attributes(e, qis) == qis  # distinct-l needs no hierarchy of occupation
    assert hierarchy_attributes(i, qis) == [*qis, "occupation"]  # hierarchical t does


def test_roles_survey_leaves_other_answers_insensitive():
    survey = next(c for c in CONFIGS if c.id == "survey-k5")
    columns = ["age", "familysize", "gender", "married", "race", "religion", "Q1A", "Q2A"]
    qis, roles = roles_of(survey, columns)
    assert qis == columns[:6]
    assert roles["Q1A"] == roles["Q2A"] == "insensitive"  # k-anonymity alone: no sensitive


def test_spec_line_fields():
    g = next(c for c in CONFIGS if c.id == "G")
    roles = {"sex": "quasi-identifier", "age": "quasi-identifier", "occupation": "sensitive"}
    line = spec_line(g, Path("/d/a.csv"), {"sex": Path("/d/h_sex.csv")}, roles, 2, 9)
    fields = line.split("\t")
    assert fields[:4] == ["id=G", "data=/d/a.csv", "sep=;", "qi=sex,age"]
    assert "hier.sex=/d/h_sex.csv" in fields and "sensitive=occupation" in fields
    assert "insensitive=" in fields
    assert fields[-5:] == ["model=k:5", "model=recursive:occupation:4:3", "supp=0.02"] + [
        "warmup=2",
        "runs=9",
    ]


def test_same_optimum_needs_levels_and_loss_to_1e9():
    arx = {"levels": {"a": 1, "b": 0}, "loss": "0.5"}
    assert same_optimum({"levels": {"a": 1, "b": 0}, "loss": 0.5 + 5e-10}, arx) == "yes"
    assert same_optimum({"levels": {"a": 1, "b": 0}, "loss": 0.5 + 2e-9}, arx) == "NO: loss differs"
    other = {"levels": {"a": 0, "b": 1}, "loss": 0.5, "ties": [{"a": 1, "b": 0}]}
    assert same_optimum(other, arx) == "NO: tie, other levels"
    assert same_optimum({"levels": None, "loss": None}, arx) == "NO: one found no solution"
