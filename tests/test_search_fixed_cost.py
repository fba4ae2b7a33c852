"""The dictionary paths that keep a small problem's fixed cost small give the vectorized
paths' codes: hand-worked examples, pandas as an independent oracle, and the same errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import anon_core.data.dataset as dataset_module
import anon_core.data.hierarchy as hierarchy_module
from anon_core import Hierarchy, HierarchyError
from anon_core.data import small_tables
from anon_core.data.dataset import Dataset, encode_labels
from anon_core.data.frequency import FrequencyTable
from anon_core.data.small_tables import encode_levels, factorize_strings

AGE = np.array(
    [
        ["31", "30-39", "*"],
        ["25", "20-29", "*"],
        ["38", "30-39", "*"],
        ["22", "20-29", "*"],
        ["47", "40-49", "*"],
    ],
    dtype=object,
)


def test_factorize_strings_by_first_appearance():
    codes, uniques = factorize_strings(np.array(["b", "a", "b", "c", "a"], dtype=object))
    assert codes.tolist() == [0, 1, 0, 2, 1]
    assert uniques.tolist() == ["b", "a", "c"]
    assert uniques.dtype == object


def test_factorize_strings_matches_pandas():
    rng = np.random.default_rng(7)
    values = np.array([f"v{i}" for i in rng.integers(0, 40, size=300)], dtype=object)
    codes, uniques = factorize_strings(values)
    want_codes, want_uniques = pd.factorize(values, sort=False)
    assert codes.dtype == want_codes.dtype
    assert np.array_equal(codes, want_codes)
    assert uniques.tolist() == want_uniques.tolist()


@pytest.mark.parametrize("odd", [None, float("nan"), 3])
def test_factorize_strings_leaves_non_strings_to_pandas(odd):
    assert factorize_strings(np.array(["a", odd, "a"], dtype=object)) is None


def test_encode_levels_hand_worked():
    # Data labels in first-appearance order: 38, 22, 31 (25 and 47 do not occur).
    h = Hierarchy(AGE, name="age")
    enc = h.encode(np.array(["38", "22", "31"], dtype=object))
    assert [m.tolist() for m in enc.maps] == [[0, 1, 2], [0, 1, 0], [0, 0, 0]]
    assert [lab.tolist() for lab in enc.labels] == [["38", "22", "31"], ["30-39", "20-29"], ["*"]]
    # Rows of the file under each label: 30-39 has 31 and 38, 20-29 has 25 and 22, * all 5.
    assert [c.tolist() for c in enc.leaf_counts] == [[1, 1, 1], [2, 2], [5]]
    assert [m.dtype for m in enc.maps] == [np.int32] * 3
    assert [c.dtype for c in enc.leaf_counts] == [np.int64] * 3
    assert enc.n_rows == 5


def test_encode_levels_missing_value_is_none():
    ids = np.array([[0, 2], [1, 2]])
    names = np.array(["a", "b", "*"], dtype=object)
    assert encode_levels(ids, names, ["a", "zz"]) is None
    maps, labels, counts = encode_levels(ids, names, ["b", "a"])
    assert [m.tolist() for m in maps] == [[0, 1], [0, 0]]
    assert [x.tolist() for x in labels] == [["b", "a"], ["*"]]
    assert [c.tolist() for c in counts] == [[1, 1], [2]]


def test_small_hierarchy_still_names_a_missing_value():
    h = Hierarchy(AGE, name="age")
    with pytest.raises(HierarchyError, match=r"no row for value\(s\) '99'"):
        h.encode(np.array(["31", "99"], dtype=object))


def test_small_and_vectorized_paths_agree(monkeypatch):
    rng = np.random.default_rng(11)
    table = np.array(
        [
            [str(v), f"{v // 10 * 10}-{v // 10 * 10 + 9}", "<50" if v < 50 else ">=50", "*"]
            for v in range(100)
        ],
        dtype=object,
    )
    h = Hierarchy(table, name="n")
    pool = [str(v) for v in range(100)]
    # One shared object per distinct value, as a CSV reader gives: the identity path runs.
    frame = pd.DataFrame({"n": [pool[i] for i in rng.integers(0, 100, size=3000)]})
    fast_codes, fast_labels = encode_labels(frame["n"])
    fast = h.encode(fast_labels)
    monkeypatch.setattr(hierarchy_module, "DICT_MAX_CELLS", 0)
    monkeypatch.setattr(dataset_module, "DICT_MAX_VALUES", -1)
    slow_codes, slow_labels = encode_labels(frame["n"])
    slow = h.encode(slow_labels)
    assert np.array_equal(fast_codes, slow_codes) and fast_codes.dtype == slow_codes.dtype
    assert fast_labels.tolist() == slow_labels.tolist()
    # Independent oracle: pandas' factorization of the column.
    want, uniques = pd.factorize(frame["n"], sort=False)
    assert np.array_equal(fast_codes, want) and fast_labels.tolist() == list(uniques)
    for field in ("maps", "labels", "leaf_counts"):
        for a, b in zip(getattr(fast, field), getattr(slow, field), strict=True):
            assert a.dtype == b.dtype and np.array_equal(a, b)
    assert small_tables.DICT_MAX_CELLS >= table.size  # the fast path really ran above


def test_sensitive_counts_hand_worked():
    # Tuples by first appearance: (a)=0, (b)=1, (c)=2; sensitive codes: x=0, y=1, z=2.
    frame = pd.DataFrame({"q": ["a", "b", "a", "c", "a", "b"], "s": ["x", "y", "x", "z", "y", "y"]})
    h = Hierarchy(np.array([["a", "*"], ["b", "*"], ["c", "*"]], dtype=object), name="q")
    freq = FrequencyTable(Dataset(frame, {"q": "quasi-identifier", "s": "sensitive"}, {"q": h}))
    sc = freq.sensitive["s"]
    # (a, x) 2, (a, y) 1, (b, y) 2, (c, z) 1, in (tuple, value) order.
    assert sc.tuple_idx.tolist() == [0, 0, 1, 2]
    assert sc.value.tolist() == [0, 1, 1, 2]
    assert sc.count.tolist() == [2, 1, 2, 1]
    assert sc.global_counts.tolist() == [2, 3, 1]
    assert sc.cardinality == 3
    assert [a.dtype for a in (sc.tuple_idx, sc.value, sc.count)] == [np.int64] * 3
    assert freq.counts.tolist() == [3, 2, 1] and freq.counts.dtype == np.int64


def test_generalized_of_a_few_tuples_reads_the_hierarchy():
    # 40 distinct ages 20..59; level 1 is the decade, level 2 '*'. Tuples by first appearance.
    ages = [str(a) for a in range(20, 60)]
    table = np.array([[a, a[0] + "0s", "*"] for a in ages], dtype=object)
    h = Hierarchy(table, name="age")
    frame = pd.DataFrame({"age": ages[::-1]})  # 59 first, 20 last
    freq = FrequencyTable(Dataset(frame, {"age": "quasi-identifier"}, {"age": h}))
    enc = freq.dataset.hierarchy("age")
    picked = np.array([0, 39])  # tuples '59' and '20'
    got = freq.generalized_of(0, 1, picked)  # fewer than 1/8 of the tuples: straight read
    assert [enc.labels[1][c] for c in got] == ["50s", "20s"]
    assert got.dtype == np.int32
    assert np.array_equal(got, freq.generalized(0, 1)[picked])  # the filled row agrees
    assert np.array_equal(freq.generalized_of(0, 1, picked), got)  # and is then read from it
