"""Hierarchies: validation, ARX CSV format, builders, encoding against data."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anon_core import ConfigError, Hierarchy, HierarchyError
from anon_core.data.builders import (
    build_hierarchy,
    date_hierarchy,
    default_hierarchy,
    grouping_hierarchy,
    interval_hierarchy,
    masking_hierarchy,
    ordered_hierarchy,
)
from anon_core.data.io import MISSING

from .conftest import ADULT, needs_shared


def _h(rows):
    return Hierarchy(np.array(rows, dtype=object), name="t")


def test_valid_hierarchy_and_levels():
    h = _h([["a", "ab", "*"], ["b", "ab", "*"], ["c", "c", "*"]])
    assert h.height == 3
    assert h.values == ["a", "b", "c"]


@pytest.mark.parametrize(
    "rows,needle",
    [
        ([["a", "x"], ["a", "y"]], "more than once"),
        ([["a", "x", "*"], ["b", "x", "*"], ["c", "y", "*"], ["d", "y", "q"]], "not monotonic"),
        ([["a", ""], ["b", "x"]], "empty cell"),
    ],
)
def test_invalid_hierarchies(rows, needle):
    with pytest.raises(HierarchyError, match=needle):
        _h(rows)


def test_empty_hierarchy():
    with pytest.raises(HierarchyError, match="empty"):
        Hierarchy(np.empty((0, 0), dtype=object))


def test_arx_csv_round_trip():
    h = _h([["a", "ab", "*"], ["b", "ab", "*"], ["c;d", "c", "*"]])
    back = Hierarchy.from_csv(h.to_csv().encode())
    assert back.table.tolist() == h.table.tolist()
    back = Hierarchy.from_csv(h.to_csv(separator=",").encode(), separator=",")
    assert back.table.tolist() == h.table.tolist()


def test_ragged_csv_is_named():
    with pytest.raises(HierarchyError, match="different lengths"):
        Hierarchy.from_csv(b"a;x;*\nb;*\n")


def test_values_absent_from_hierarchy_are_named():
    h = _h([["a", "*"], ["b", "*"]])
    with pytest.raises(HierarchyError, match=r"'zz'"):
        h.encode(np.array(["a", "zz"], dtype=object))
    with pytest.raises(HierarchyError, match="Missing values"):
        h.encode(np.array(["a", MISSING], dtype=object))


def test_encoding_maps_and_leaf_counts():
    h = _h([["a", "ab", "*"], ["b", "ab", "*"], ["c", "c", "*"], ["d", "c", "*"]])
    enc = h.encode(np.array(["c", "a", "b"], dtype=object))
    assert enc.labels[1][enc.maps[1]].tolist() == ["c", "ab", "ab"]
    # Loss counts rows of the hierarchy file, including values absent from the data.
    assert enc.leaf_counts[1][enc.maps[1]].tolist() == [2, 2, 2]
    assert enc.leaf_counts[2].tolist() == [4]
    assert enc.up(0, 2).tolist() == [0, 0, 0]


@needs_shared
def test_arx_files_load():
    h = Hierarchy.from_csv(ADULT / "adult_hierarchy_age.csv")
    assert h.height == 5 and len(h.values) == 100


def test_interval_builder_with_top_and_bottom_coding():
    h = interval_hierarchy(
        ["5", "12", "19", "25", "40", "99"], width=10, lower=10, upper=40, fanout=3
    )
    rows = {r[0]: list(r[1:]) for r in h.table}
    assert rows["12"][0] == "[10, 20)"
    assert rows["5"][0] == "<10" and rows["99"][0] == ">=40" and rows["40"][0] == ">=40"
    assert rows["25"][1] == "[10, 40)"
    assert all(r[-1] == "*" for r in rows.values())


def test_interval_builder_rejects_text():
    with pytest.raises(HierarchyError, match="needs numbers"):
        interval_hierarchy(["1", "x"], width=5)
    with pytest.raises(ConfigError, match="width"):
        interval_hierarchy(["1", "2"], width=0)


def test_date_builder():
    h = date_hierarchy(["2020-02-15", "2021-11-30", MISSING])
    rows = {r[0]: list(r[1:]) for r in h.table}
    assert rows["2020-02-15"] == ["2020-02", "2020-Q1", "2020", "2020s", "*"]
    assert rows[MISSING][:-1] == [MISSING] * 4
    with pytest.raises(HierarchyError, match="cannot parse"):
        date_hierarchy(["2020-01-01", "soon"])


def test_masking_builder():
    h = masking_hierarchy(["02139", "02138", "10001"])
    rows = {r[0]: list(r[1:]) for r in h.table}
    assert rows["02139"][:3] == ["0213*", "021**", "02***"]
    assert rows["02139"][-1] == "*****"
    assert masking_hierarchy(["02139", "123"], levels=2).height == 4  # 2 masking levels + '*'


def test_grouping_builder():
    h = grouping_hierarchy(
        ["flu", "cold", "hiv"], [{"flu": "resp", "cold": "resp", "hiv": "viral"}]
    )
    rows = {r[0]: list(r[1:]) for r in h.table}
    assert rows["flu"] == ["resp", "*"]
    with pytest.raises(HierarchyError, match="'hiv'"):
        grouping_hierarchy(["flu", "hiv"], [{"flu": "resp"}])


def test_ordered_builder():
    h = ordered_hierarchy(
        ["low", "mid", "high", "top"], sizes=[2], order=["low", "mid", "high", "top"]
    )
    rows = {r[0]: list(r[1:]) for r in h.table}
    assert rows["low"][0] == "low-mid" and rows["top"][0] == "high-top"
    assert rows["low"][-1] == "low-top" or rows["low"][-1] == "*"
    with pytest.raises(HierarchyError, match="does not list"):
        ordered_hierarchy(["a", "b"], order=["a"])


def test_default_hierarchies_by_kind():
    assert default_hierarchy(["02139", "02138", "10001"], "categorical").table[0, 1] == "0213*"
    num = default_hierarchy([str(v) for v in range(18, 90)], "numeric")
    assert num.table[0, 1].startswith("[")
    # month, quarter, year, decade; the single decade is already the top
    assert default_hierarchy(["2020-01-01", "2020-05-01"], "date").height == 5
    assert default_hierarchy(["2020-01-01", "1999-05-01"], "date").height == 6
    assert default_hierarchy(["F", "M"], "categorical").height == 2


def test_build_hierarchy_spec_validation():
    assert build_hierarchy({"builder": "masking", "levels": 2}, ["123", "124"]).height == 3
    assert build_hierarchy({"builder": "masking", "levels": 2}, ["123", "224"]).height == 4
    with pytest.raises(ConfigError, match="unknown field"):
        build_hierarchy({"builder": "masking", "level": 2}, ["123"])
    with pytest.raises(ConfigError, match="builder"):
        build_hierarchy({"builder": "magic"}, ["123"])


def test_hierarchies_from_builders_cover_missing_and_validate():
    values = pd.Series(["1", "2", MISSING, "30"]).to_numpy(dtype=object)
    for h in (
        interval_hierarchy(values, width=10),
        masking_hierarchy(values),
        ordered_hierarchy(values),
    ):
        h.encode(values)  # every data value, the missing one included, has a row
