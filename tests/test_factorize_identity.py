"""Object columns grouped by identity first still factorize exactly as pandas does: equal
values held by distinct objects merge, missing values (None, NaN objects) get -1, and codes
follow first appearance."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anon_core.data import kernels
from anon_core.data.dataset import encode_labels, factorize_values
from anon_core.data.io import MISSING


def _fresh(text: str) -> str:
    """An equal string in a distinct object (not the interned one)."""
    return "".join([text[:1], text[1:]]) if len(text) > 1 else (text + "_")[:-1]


def _column(seed: int, n: int) -> pd.Series:
    rng = np.random.default_rng(seed)
    pool = np.array(["alpha", "beta", "gamma", None, np.nan, 7, 7.0, True, "7"], dtype=object)
    values = pool[rng.integers(0, len(pool), n)]
    for i in rng.integers(0, n, n // 10):  # equal values in new objects
        v = values[i]
        if isinstance(v, str):
            values[i] = _fresh(v)
        elif v is None:
            values[i] = float("nan")
    return pd.Series(values, dtype=object)


@pytest.mark.parametrize("compiled", [False, True] if kernels.AVAILABLE else [False])
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("n", [10, 5000])
def test_identity_grouping_matches_pandas(seed, n, compiled, monkeypatch):
    if compiled:
        kernels._load()
    monkeypatch.setattr(kernels, "loaded", lambda: compiled)
    column = _column(seed, n)
    want_codes, want_uniques = pd.factorize(column, sort=False)
    codes, uniques = factorize_values(column)
    np.testing.assert_array_equal(codes, want_codes)
    assert len(uniques) == len(want_uniques)
    for got, want in zip(uniques, want_uniques, strict=True):
        assert type(got) is type(want) and got == want


def test_equal_strings_in_distinct_objects_get_one_label():
    a, b = "north-east", _fresh("north-east")
    assert a == b and a is not b
    column = pd.Series([a, "south"] * 800 + [b, None] * 800, dtype=object)
    codes, labels = encode_labels(column)
    assert list(labels) == ["north-east", "south", MISSING]
    assert codes[:4].tolist() == [0, 1, 0, 1] and codes[-2:].tolist() == [0, 2]
    assert np.bincount(codes).tolist() == [1600, 800, 800]
