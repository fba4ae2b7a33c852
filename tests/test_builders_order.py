"""The ordered hierarchy builder with an explicit order (ARX's education ordering), and merge
factors that must not be empty (``fanout`` of intervals, ``sizes`` of ordered groups).

Expected labels are worked out by hand in the comments."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from anon_core.data.builders import build_hierarchy, interval_hierarchy, ordered_hierarchy
from anon_core.errors import HierarchyError

#: ARX's order of the Adult education levels (adult_hierarchy_education.csv, lowest first).
EDUCATION = [
    "Preschool",
    "1st-4th",
    "5th-6th",
    "7th-8th",
    "9th",
    "10th",
    "11th",
    "12th",
    "HS-grad",
    "Some-college",
    "Assoc-voc",
    "Assoc-acdm",
    "Bachelors",
    "Masters",
    "Prof-school",
    "Doctorate",
]


def _rows(h):
    return {r[0]: list(r[1:]) for r in h.table}


def test_education_in_arxs_order_grouped_by_2_then_4():
    # Values arrive in data order (here reversed and shuffled), never in the wanted order.
    values = EDUCATION[::-1][8:] + EDUCATION[::-1][:8]
    h = ordered_hierarchy(values, sizes=[2, 4], order=EDUCATION, name="education")
    rows = _rows(h)
    # Level 1: adjacent pairs in the given order.
    pairs = {
        "Preschool": "Preschool-1st-4th",
        "1st-4th": "Preschool-1st-4th",
        "5th-6th": "5th-6th-7th-8th",
        "7th-8th": "5th-6th-7th-8th",
        "9th": "9th-10th",
        "10th": "9th-10th",
        "11th": "11th-12th",
        "12th": "11th-12th",
        "HS-grad": "HS-grad-Some-college",
        "Some-college": "HS-grad-Some-college",
        "Assoc-voc": "Assoc-voc-Assoc-acdm",
        "Assoc-acdm": "Assoc-voc-Assoc-acdm",
        "Bachelors": "Bachelors-Masters",
        "Masters": "Bachelors-Masters",
        "Prof-school": "Prof-school-Doctorate",
        "Doctorate": "Prof-school-Doctorate",
    }
    # Level 2: 4 pairs = 8 values: Preschool, 1st-4th, ..., 12th and HS-grad, ..., Doctorate.
    # Level 3: all 16 values.
    for i, value in enumerate(EDUCATION):
        half = "Preschool-12th" if i < 8 else "HS-grad-Doctorate"
        assert rows[value][:3] == [pairs[value], half, "Preschool-Doctorate"], value
    # Never the alphabetical grouping the builder used to fall back to.
    assert "Doctorate-HS-grad" not in {label for r in rows.values() for label in r}
    assert h.height == 4


def test_order_from_a_configuration_spec():
    spec = {"builder": "ordered", "sizes": [4], "order": ["low", "mid", "high", "top", "max"]}
    rows = _rows(build_hierarchy(spec, ["top", "max", "low", "high", "mid"], "level"))
    # blocks of 4 in the given order: low..top, then max alone
    assert rows["low"][0] == "low-top" and rows["top"][0] == "low-top"
    assert rows["max"][0] == "max"
    assert rows["low"][1] == rows["max"][1] == "low-max"


def test_without_order_numbers_sort_by_value_and_words_alphabetically():
    rows = _rows(ordered_hierarchy(["10", "9", "100", "1"], sizes=[2]))
    assert rows["1"][0] == rows["9"][0] == "1-9"  # 1, 9 | 10, 100 (not "1", "10" as text)
    assert rows["10"][0] == "10-100"


def test_values_missing_from_the_order_are_named():
    with pytest.raises(HierarchyError) as err:
        ordered_hierarchy(EDUCATION, order=EDUCATION[:-2], name="education")
    message = str(err.value)
    assert "'Prof-school'" in message and "'Doctorate'" in message
    assert "'Masters'" not in message and "\n" not in message


def test_order_values_absent_from_the_data_are_ignored():
    rows = _rows(ordered_hierarchy(["a", "c"], sizes=[2], order=["a", "b", "c"]))
    assert rows["a"][0] == rows["c"][0] == "a-c"


@pytest.mark.parametrize(
    "order, needle",
    [
        ("a\nb", "must be a list"),  # a string would be read character by character
        (["a", "b", "a"], "'a' more than once"),
    ],
)
def test_bad_orders_get_one_message(order, needle):
    with pytest.raises(HierarchyError, match=needle):
        ordered_hierarchy(["a", "b"], order=order, name="x")


@pytest.mark.parametrize(
    "build",
    [
        lambda: interval_hierarchy(["1", "5", "30"], width=5, fanout=[], name="age"),
        lambda: ordered_hierarchy(["a", "b", "c"], sizes=[], name="grade"),
        lambda: build_hierarchy({"builder": "intervals", "width": 5, "fanout": []}, ["1"], "age"),
    ],
)
def test_empty_merge_factors_are_refused(build):
    with pytest.raises(HierarchyError, match="empty list"):
        build()


def test_cli_refuses_an_empty_fanout_with_one_line(tmp_path, monkeypatch, capsys):
    from anon_core.cli import main

    pd.DataFrame({"age": range(20, 50), "sex": ["F", "M"] * 15}).to_csv(
        tmp_path / "data.csv", index=False
    )
    config = {
        "input": {"path": "data.csv"},
        "attributes": {
            "age": {
                "role": "quasi-identifier",
                "hierarchy": {"builder": "intervals", "width": 10, "fanout": []},
            },
            "sex": {"role": "quasi-identifier"},
        },
        "privacy_models": [{"model": "k-anonymity", "k": 2}],
        "suppression_limit": 0.2,
    }
    (tmp_path / "config.json").write_text(json.dumps(config))
    monkeypatch.chdir(tmp_path)
    code = main(["anonymize", "config.json"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert len(err) == 1 and err[0].startswith("error: ") and "'fanout'" in err[0], err
    assert "empty list" in err[0]


# ------------------------------------------------------------------ the Attributes page
def test_attributes_page_takes_the_order_one_value_per_line():
    from streamlit.testing.v1 import AppTest

    from anon_core.workspace import Workspace
    from tests.test_app import APP, TIMEOUT

    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    at.run()
    frame = pd.DataFrame({"education": EDUCATION * 3, "hours": range(48)})
    ws = Workspace.from_frame(frame, "education.csv")
    ws.update("roles", roles={"education": "quasi-identifier", "hours": "insensitive"})
    at.session_state["workspace"] = ws
    at.switch_page("pages/attributes.py").run()
    at.selectbox(key="hier_column").set_value("education").run()
    at.selectbox(key="builder_education").set_value("ordered").run()
    assert not at.exception, at.exception
    area = at.text_area(key="order_education")
    # Prefilled with the current order: without one, alphabetical (Doctorate before HS-grad).
    assert area.value.splitlines() == sorted(EDUCATION)
    area.set_value("\n".join(EDUCATION)).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    ws = at.session_state["workspace"]
    assert ws.hierarchy_specs["education"]["order"] == EDUCATION
    rows = _rows(ws.hierarchy("education"))
    assert rows["Preschool"][0] == "Preschool-1st-4th"
    assert rows["Doctorate"][0] == "Prof-school-Doctorate"
    # A value left out of the order: one error naming it, the configuration unchanged.
    at.text_area(key="order_education").set_value("\n".join(EDUCATION[:-1])).run()
    assert not at.exception, at.exception
    errors = [e.value for e in at.error]
    assert len(errors) == 1 and "'Doctorate'" in errors[0], errors
    assert at.session_state["workspace"].hierarchy_specs["education"]["order"] == EDUCATION
