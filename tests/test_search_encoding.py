"""Column encoding with a hash table sized by the distinct values (object addresses grouped in
one compiled pass): the same codes and labels as pandas' factorization, an independent oracle."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anon_core.data import kernels
from anon_core.data.dataset import encode_labels, factorize_values
from anon_core.data.io import MISSING

pytestmark = pytest.mark.skipif(not kernels.AVAILABLE, reason="numba is not installed")


@pytest.fixture
def compiled(monkeypatch):
    kernels._load()
    monkeypatch.setattr(kernels, "loaded", lambda: True)


def test_group_ids_hand_worked():
    codes, first = kernels.group_ids(np.array([40, 8, 40, 40, 16, 8], dtype=np.int64))
    assert codes.tolist() == [0, 1, 0, 0, 2, 1]
    assert codes.dtype == np.int32
    assert first.tolist() == [0, 1, 4]


@pytest.mark.parametrize("distinct", [1, 37, 512, 513, 5000])
def test_group_ids_matches_pandas(distinct):
    # Up to 512 distinct keys fit the first table; more take the table sized by the keys.
    rng = np.random.default_rng(distinct)
    pool = rng.choice(2**40, size=distinct, replace=False).astype(np.int64) * 16
    key = pool[rng.integers(0, distinct, size=20_000)]
    want_codes, want_uniques = pd.factorize(key, sort=False)
    codes, first = kernels.group_ids(key)
    np.testing.assert_array_equal(codes, want_codes)
    np.testing.assert_array_equal(key[first], want_uniques)


def test_group_ids_of_nothing():
    codes, first = kernels.group_ids(np.zeros(0, dtype=np.int64))
    assert len(codes) == 0 and len(first) == 0


def _shared(values: list[str], n: int, seed: int) -> pd.Series:
    """A column of ``n`` rows whose equal strings share one object (as CSV readers give them)."""
    rng = np.random.default_rng(seed)
    pool = np.array(values, dtype=object)
    return pd.Series(pool[rng.integers(0, len(pool), size=n)], dtype=object)


@pytest.mark.parametrize("seed", range(4))
def test_shared_strings_encode_as_pandas(seed, compiled):
    column = _shared([f"state-{i}" for i in range(51)], 3000, seed)
    want_codes, want_uniques = pd.factorize(column, sort=False)
    codes, labels = encode_labels(column)
    assert codes.dtype == np.int32
    np.testing.assert_array_equal(codes, want_codes)
    assert list(labels) == list(want_uniques)
    codes, uniques = factorize_values(column)
    np.testing.assert_array_equal(codes, want_codes)


def test_equal_strings_in_two_objects_and_a_missing_value(compiled):
    # "b" twice as distinct objects merges into one code; None becomes the missing label, last.
    b1, b2 = "".join(["b", "x"]), "".join(["b", "x"])
    assert b1 == b2 and b1 is not b2
    column = pd.Series(["a", b1, None, b2] * 400, dtype=object)
    codes, labels = encode_labels(column)
    assert list(labels) == ["a", "bx", MISSING]
    assert codes[:4].tolist() == [0, 1, 2, 1]
    assert np.bincount(codes).tolist() == [400, 800, 400]


def test_column_counts_hand_worked():
    tuples = np.array([[0, 1], [1, 1], [0, 0]], dtype=np.int32)
    a, b = kernels.column_counts(tuples, np.array([3, 2, 5]), [2, 3])
    # Column 0: code 0 holds 3 + 5 records, code 1 holds 2; column 1: 5, 3 + 2, none.
    assert a.tolist() == [8, 2] and b.tolist() == [5, 5, 0]


def test_value_counts_from_tuples_match_the_rows(compiled):
    from anon_core.data.dataset import Dataset
    from anon_core.data.frequency import FrequencyTable

    rng = np.random.default_rng(3)
    frame = pd.DataFrame(
        {
            "a": rng.integers(0, 40, 20_000).astype(str),
            "b": rng.integers(0, 60, 20_000).astype(str),
            "c": rng.integers(0, 3, 20_000).astype(str),
        }
    )
    freq = FrequencyTable(Dataset(frame, {q: "quasi-identifier" for q in frame}))
    assert freq.use_kernels  # the tuples' pass, not the rows'
    for q in frame:
        codes, labels = encode_labels(frame[q])
        want = np.bincount(codes, minlength=len(labels))  # counted on the rows: the oracle
        np.testing.assert_array_equal(freq.value_counts[q], want)


def test_a_frequency_table_goes_with_its_last_reference():
    """No reference cycle keeps a table (and its arrays) alive until a full collection: with the
    collector off, dropping the last reference frees it; its lazy counts still work before."""
    import gc
    import weakref

    from anon_core.data.dataset import Dataset
    from anon_core.data.frequency import FrequencyTable

    frame = pd.DataFrame({"a": ["x", "y", "x", "z"], "s": ["p", "q", "p", "p"]})
    roles = {"a": "quasi-identifier", "s": "sensitive"}
    gc.disable()
    try:
        freq = FrequencyTable(Dataset(frame, roles))
        assert freq.value_counts["a"].sum() == 4  # hand-worked: four records
        assert "s" in freq.sensitive and freq.sensitive["s"] is not None
        gone = weakref.ref(freq)
        del freq
        assert gone() is None
    finally:
        gc.enable()


def test_a_searched_problem_goes_with_its_last_reference():
    """After a search the class tables cached in the frequency table refer back to it; with the
    collector off, dropping the problem still frees the table (its arrays do not wait for a full
    collection), and a class table kept by the caller keeps it until dropped."""
    import gc
    import weakref

    from anon_core.data.hierarchy import Hierarchy
    from anon_core.privacy.models import make_model
    from anon_core.transform.problem import Problem

    frame = pd.DataFrame({"a": ["x", "y", "x", "z"] * 5, "b": ["1", "2", "2", "1"] * 5})
    rows = {"a": [["x", "*"], ["y", "*"], ["z", "*"]], "b": [["1", "*"], ["2", "*"]]}
    hierarchies = {q: Hierarchy(np.array(r, dtype=object), name=q) for q, r in rows.items()}
    gc.disable()
    try:
        problem = Problem(
            frame,
            {"a": "quasi-identifier", "b": "quasi-identifier"},
            hierarchies,
            [make_model({"model": "k-anonymity", "k": 5})],
        )
        found = problem.search()
        # hand-worked: (x,1) 5, (x,2) 5, (y,2) 5, (z,1) 5 records: k=5 holds ungeneralized
        assert dict(found.optimum.transformation) == {"a": 0, "b": 0}
        kept = problem.freq.classes((0, 0))
        gone = weakref.ref(problem.freq)
        del problem, found
        assert gone() is not None  # the caller's class table keeps its frequency table
        assert sorted(kept.sizes.tolist()) == [5, 5, 5, 5]
        del kept
        assert gone() is None
    finally:
        gc.enable()
