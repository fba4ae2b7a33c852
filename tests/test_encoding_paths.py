"""The vectorized encoding paths give what the per-row and per-level definitions give.

Column codes: the raw values are factorized before they become labels, so values that
print alike must still merge, in order of first appearance. Hierarchy files: a plain file
is parsed by pandas' C reader, anything unusual by the csv module; both must read the
same table and refuse the same files with the same message.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anon_core import Hierarchy, HierarchyError
from anon_core.data.dataset import encode_labels
from anon_core.data.io import MISSING


@pytest.mark.parametrize(
    "values,labels,codes",
    [
        # hand-worked: first appearance order, missing values become NULL and merge with it
        (
            ["a", "b", None, "a", MISSING, np.nan, "c"],
            ["a", "b", MISSING, "c"],
            [0, 1, 2, 0, 2, 2, 3],
        ),
        # 1.0 and 1 print alike ("1"); -0.0 and 0.0 too
        (
            [1.0, 2.5, np.nan, 1.0, 3.0, -0.0, 0.0],
            ["1", "2.5", MISSING, "3", "0"],
            [0, 1, 2, 0, 3, 4, 4],
        ),
        # an object column mixing numbers and their text: one label each
        ([1, "1", 2.0, "2", None], ["1", "2.0", "2", MISSING], [0, 0, 1, 2, 3]),
        # the missing value first: it still gets code 0
        ([None, "x", None, "y"], [MISSING, "x", "y"], [0, 1, 0, 2]),
    ],
)
def test_column_codes_hand_worked(values, labels, codes):
    got_codes, got_labels = encode_labels(
        pd.Series(values, dtype=object if None in values else None)
    )
    assert list(got_labels) == labels
    assert got_codes.tolist() == codes
    assert got_codes.dtype == np.int32


def test_column_codes_typed_columns():
    dates = pd.Series(pd.to_datetime(["2020-01-02", None, "2020-01-01", "2020-01-02"]))
    codes, labels = encode_labels(dates)
    assert list(labels) == ["2020-01-02", MISSING, "2020-01-01"] and codes.tolist() == [0, 1, 2, 0]
    codes, labels = encode_labels(pd.Series([3, None, 3], dtype="Int64"))
    assert list(labels) == ["3", MISSING] and codes.tolist() == [0, 1, 0]
    codes, labels = encode_labels(pd.Series(["x", "y", "x"], dtype="category"))
    assert list(labels) == ["x", "y"] and codes.tolist() == [0, 1, 0]
    codes, labels = encode_labels(pd.Series([], dtype=object))
    assert len(labels) == 0 and len(codes) == 0


ROWS = [["a", "ab", "*"], ["b", "ab", "*"], ["c", "c", "*"]]


def _csv(rows, sep=";", end="\n"):
    return end.join(sep.join(r) for r in rows).encode() + end.encode()


@pytest.mark.parametrize(
    "raw",
    [
        _csv(ROWS),  # plain: pandas' reader
        _csv(ROWS, end="\r\n"),  # Windows line ends
        _csv(ROWS).replace(b"b;ab", b'"b";ab'),  # quoted: the csv module
        _csv(ROWS).replace(b"\nb;", b"\n\nb;"),  # a blank line, skipped
        _csv(ROWS).replace(b"\nb;", b"\n;;\nb;"),  # a line of separators only, skipped
        _csv(ROWS).replace(b"\nb;", b"\n  \nb;"),  # a line of blanks only, skipped
        _csv(ROWS).replace(b"\nb;", b"\n \t; ;\nb;"),  # blanks between separators, skipped
    ],
)
def test_hierarchy_file_paths_read_the_same_table(raw):
    assert Hierarchy.from_csv(raw, name="h").table.tolist() == ROWS


def test_hierarchy_file_keeps_whitespace_labels():
    rows = [[" a", "x ", "*"], ["b", "x ", "*"]]
    assert Hierarchy.from_csv(_csv(rows)).table.tolist() == rows


@pytest.mark.parametrize(
    "raw,needle",
    [
        (b"a;x\nb\n", "rows of different lengths"),
        (b"a;x;*\nb;x;*;*\n", "rows of different lengths"),
        (b"a;x\nb;\n", "empty cell at row 2, level 1"),
        (b"a;x\na;y\n", "lists the value of row 2 again"),
        (b"a;x;*\nb;x;*\nc;y;*\nd;y;q\n", "not monotonic: in row 4"),
    ],
)
def test_hierarchy_file_faults_are_said_by_row_and_level(raw, needle):
    with pytest.raises(HierarchyError, match=needle) as err:
        Hierarchy.from_csv(raw, name="h")
    assert "'q'" not in str(err.value)  # a file's labels are never shown


def test_hierarchy_table_faults_name_labels_in_order():
    table = np.array(
        [["a", "x", "*"], ["b", "x", "*"], ["c", "y", "*"], ["d", "y", "q"], ["e", "x", "r"]],
        dtype=object,
    )
    with pytest.raises(HierarchyError, match=r"label\(s\) 'x', 'y' at level 1"):
        Hierarchy(table, name="t")
    dup = np.array([["b", "1"], ["a", "1"], ["a", "1"], ["b", "1"]], dtype=object)
    with pytest.raises(HierarchyError, match=r"value\(s\) 'a', 'b' more than once"):
        Hierarchy(dup, name="t")
    with pytest.raises(HierarchyError, match="empty cell at row 2, level 0"):
        Hierarchy(np.array([["a", "*"], [None, "*"]], dtype=object), name="t")


def test_hierarchy_encoding_hand_worked():
    # Level 1 groups a,b under "ab"; the file has one value (d) the data never takes.
    h = Hierarchy(
        np.array(
            [["a", "ab", "*"], ["b", "ab", "*"], ["c", "cd", "*"], ["d", "cd", "*"]], dtype=object
        )
    )
    enc = h.encode(np.array(["c", "a", "b"], dtype=object))
    assert [m.tolist() for m in enc.maps] == [[0, 1, 2], [0, 1, 1], [0, 0, 0]]
    assert [list(x) for x in enc.labels] == [["c", "a", "b"], ["cd", "ab"], ["*"]]
    assert [x.tolist() for x in enc.leaf_counts] == [[1, 1, 1], [2, 2], [4]]
    with pytest.raises(HierarchyError, match="no row for value"):
        h.encode(np.array(["a", "z"], dtype=object))


def test_hierarchy_encoding_matches_numbers_as_text():
    h = Hierarchy(
        np.array([["1", "low", "*"], ["2", "low", "*"], ["30", "high", "*"]], dtype=object)
    )
    enc = h.encode(np.array([30, 1], dtype=object))
    assert [list(x) for x in enc.labels[:2]] == [["30", "1"], ["high", "low"]]
