"""A hierarchy table validated without hashing every cell encodes exactly as the careful path
(every cell hashed, then checked), and a faulty table still gets the careful path's message."""

from __future__ import annotations

import numpy as np
import pytest

from anon_core import Hierarchy, HierarchyError
from anon_core.data import hierarchy as hierarchy_module


def _table(seed: int) -> np.ndarray:
    """A random valid table: each level groups the labels below; some labels recur across
    levels (a value equal to its group's name, a top '*')."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    column = np.array([f"v{i}" for i in rng.permutation(n)], dtype=object)
    levels = [column]
    for h in range(1, int(rng.integers(2, 6))):
        below = levels[-1]
        groups = {label: f"g{h}-{rng.integers(0, 1 + n // (h + 1))}" for label in set(below)}
        if rng.random() < 0.5:  # a label that is also a label of the level below
            groups[below[0]] = below[0]
        levels.append(np.array([groups[x] for x in below], dtype=object))
    if rng.random() < 0.5:
        levels.append(np.array(["*"] * n, dtype=object))
    return np.column_stack(levels)


def _careful(table: np.ndarray, monkeypatch) -> Hierarchy:
    with monkeypatch.context() as m:
        m.setattr(hierarchy_module, "_valid_ids", lambda t: None)
        m.setattr(hierarchy_module, "_valid_ids_small", lambda t: None)
        return Hierarchy(table, name="x")


@pytest.mark.parametrize("seed", range(25))
def test_fast_and_careful_paths_encode_alike(seed, monkeypatch):
    table = _table(seed)
    fast, careful = Hierarchy(table, name="x"), _careful(table, monkeypatch)
    assert hierarchy_module._valid_ids(table) is not None  # the fast path was taken
    rng = np.random.default_rng(seed)
    data = rng.permutation(table[:, 0])[: max(1, len(table) // 2)]
    a, b = fast.encode(data), careful.encode(data)
    assert a.n_rows == b.n_rows
    for x, y in zip(a.maps + a.leaf_counts, b.maps + b.leaf_counts, strict=True):
        np.testing.assert_array_equal(x, y)
    for x, y in zip(a.labels, b.labels, strict=True):
        assert list(x) == list(y)


def test_hand_worked_leaf_counts():
    table = np.array(
        [["a", "ab", "*"], ["b", "ab", "*"], ["c", "c", "*"], ["d", "de", "*"]], dtype=object
    )
    enc = Hierarchy(table, name="x").encode(np.array(["d", "a", "c"], dtype=object))
    assert [list(x) for x in enc.labels] == [["d", "a", "c"], ["de", "ab", "c"], ["*"]]
    assert [x.tolist() for x in enc.leaf_counts] == [[1, 1, 1], [1, 2, 1], [4]]
    assert [x.tolist() for x in enc.maps] == [[0, 1, 2], [0, 1, 2], [0, 0, 0]]


@pytest.mark.parametrize(
    "rows,needle",
    [
        ([["a", "x"], ["b", "x"], ["a", "x"]], "more than once"),
        ([["a", "x", "*"], ["b", "x", "*"], ["c", "y", "*"], ["d", "y", "?"]], "not monotonic"),
        ([["a", "x"], ["b", ""]], "empty cell"),
        ([["a", "x"], ["", "x"]], "empty cell"),
        ([["a", "x"], ["b", None]], "empty cell"),
    ],
)
def test_faulty_tables_get_the_careful_message(rows, needle):
    with pytest.raises(HierarchyError, match=needle):
        Hierarchy(np.array(rows, dtype=object), name="x")


def test_lookup_table_and_rehash_encode_alike_and_name_missing_values():
    import pickle

    table = _table(7)
    fast = Hierarchy(table, name="x")
    copied = pickle.loads(pickle.dumps(fast))  # the lookup table is not pickled: rehash path
    data = table[::-1, 0].copy()
    a, b = fast.encode(data), copied.encode(data)
    for x, y in zip(a.maps + a.leaf_counts, b.maps + b.leaf_counts, strict=True):
        np.testing.assert_array_equal(x, y)
    for h in (fast, copied):
        with pytest.raises(HierarchyError, match="no row for value"):
            h.encode(np.array([table[0, 0], "not-a-value"], dtype=object))


@pytest.mark.parametrize("seed", range(25))
def test_small_tables_get_the_same_ids_from_dictionaries(seed):
    table = _table(seed)
    ids, labels, _ = hierarchy_module._valid_ids(table)
    small_ids, small_labels, _ = hierarchy_module._valid_ids_small(table)
    np.testing.assert_array_equal(small_ids, ids)
    assert list(small_labels) == list(labels)


@pytest.mark.parametrize(
    "rows",
    [
        [["a", "x"], ["b", "x"], ["a", "y"]],  # a value twice
        [["a", "x", "*"], ["b", "x", "?"]],  # x under two labels
        [["a", "x"], ["b", 3]],  # a cell that is not a string
    ],
)
def test_small_tables_leave_faults_to_the_careful_path(rows):
    assert hierarchy_module._valid_ids_small(np.array(rows, dtype=object)) is None


@pytest.mark.parametrize("seed", range(10))
def test_grouped_rows_number_labels_as_the_careful_path(seed, monkeypatch):
    """Rows listed group by group (long runs of one label at level 1, as hierarchy files are),
    with a label whose group comes back later: the same ids and labels as hashing every cell."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 400))
    groups = np.sort(rng.integers(0, 1 + n // 8, size=n))
    level1 = np.array([f"g{g}" for g in groups], dtype=object)
    level1[-max(1, n // 10) :] = level1[0]  # the first group's label again at the end
    level2 = np.array([f"t{int(x[1:]) % 3}" if x != level1[0] else "t0" for x in level1])
    table = np.column_stack(
        [np.array([f"v{i}" for i in rng.permutation(n)], dtype=object), level1, level2]
    ).astype(object)
    fast = hierarchy_module._valid_ids(table)
    assert fast is not None
    careful = _careful(table, monkeypatch)
    np.testing.assert_array_equal(fast[0], careful._ids)
    assert list(fast[1]) == list(careful._labels)


def test_repeated_value_in_a_large_table_is_refused():
    table = np.array([[f"v{i}", f"g{i // 100}", "*"] for i in range(2000)], dtype=object)
    table[1500, 0] = "v7"
    with pytest.raises(HierarchyError, match="more than once"):
        Hierarchy(table, name="x")
