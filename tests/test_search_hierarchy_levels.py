"""A large hierarchy checked level by level on integer ids (labels hashed once per run of equal
adjacent labels) gives the careful path's ids, and a faulty one the careful path's message."""

from __future__ import annotations

import numpy as np
import pytest

from anon_core import Hierarchy, HierarchyError
from anon_core.data import hierarchy as hierarchy_module


def _zip_like(n: int) -> np.ndarray:
    """ZIP codes masked digit by digit, as CUP's hierarchy: 00000;0000*;000**;...;*."""
    codes = [f"{i:05d}" for i in range(n)]
    return np.array(
        [[c, c[:4] + "*", c[:3] + "**", c[:2] + "***", "*"] for c in codes], dtype=object
    )


def _careful(table: np.ndarray, monkeypatch) -> Hierarchy:
    with monkeypatch.context() as m:
        m.setattr(hierarchy_module, "_valid_ids", lambda t: None)
        m.setattr(hierarchy_module, "_valid_ids_small", lambda t: None)
        return Hierarchy(table, name="zip")


def test_zip_like_table_gets_the_careful_ids(monkeypatch):
    table = _zip_like(3000)  # 15,000 cells: the large-table path
    fast = hierarchy_module._valid_ids(table)
    assert fast is not None
    careful = _careful(table, monkeypatch)
    np.testing.assert_array_equal(fast[0], careful._ids)
    assert list(fast[1]) == list(careful._labels)
    # Hand-worked: rows 0-9 share 0000*, which is the 3001st label (after 3,000 values).
    assert fast[0][:11, 1].tolist() == [3000] * 10 + [3001]


def test_a_parent_whose_rows_come_back_later(monkeypatch):
    table = _zip_like(2000)
    rows = np.concatenate([np.arange(0, 1000), np.arange(1500, 2000), np.arange(1000, 1500)])
    table = table[rows]  # 015** holds rows 1500-1599 listed before 010**-014**
    fast = hierarchy_module._valid_ids(table)
    careful = _careful(table, monkeypatch)
    np.testing.assert_array_equal(fast[0], careful._ids)
    assert list(fast[1]) == list(careful._labels)


@pytest.mark.parametrize("level", [1, 2, 3])
def test_a_label_with_two_parents_gets_the_careful_message(level, monkeypatch):
    table = _zip_like(3000)
    table[1234, level] = table[2345, level]  # one child of a group moved under another label
    assert hierarchy_module._valid_ids(table) is None
    with pytest.raises(HierarchyError, match="not monotonic") as fast:
        Hierarchy(table, name="zip")
    with pytest.raises(HierarchyError) as careful:
        _careful(table, monkeypatch)
    assert str(fast.value) == str(careful.value)
