"""Fuzzing the loader, the hierarchy reader and the configuration parser (Hypothesis, bounded).

The property: whatever the bytes, the result is a value or ONE AnonError (the
CLI's exit 2 with one line) - never another exception. Plus a round trip: the
CSV writer and the loader give back every text cell exactly (quotes, separators,
CR/LF, formula-like text with escaping off).
"""

from __future__ import annotations

import json
import math
import string

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anon_core.config import parse_config, parse_config_text
from anon_core.data.hierarchy import Hierarchy
from anon_core.data.io import load_table, table_bytes
from anon_core.errors import AnonError

FUZZ = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# Text that looks like tables: separators, quotes, line ends, accents, NULs, BOMs.
ALPHABET = string.ascii_letters + string.digits + ",;\t|\"' \r\n=+-@*éØłŁ\x00\ufeff"
table_text = st.text(alphabet=ALPHABET, max_size=400)
encodings = st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "utf-16-le", "cp1252", "latin-1"])


def _encoded(text: str, encoding: str) -> bytes:
    return text.encode(encoding, errors="replace")


@FUZZ
@given(
    text=table_text, encoding=encodings, name=st.sampled_from(["t.csv", "t.tsv", "t.txt", "t.json"])
)
def test_loader_returns_a_table_or_one_clear_error(text, encoding, name):
    try:
        loaded = load_table(_encoded(text, encoding), name=name)
    except AnonError as exc:
        assert str(exc) and "\n" not in str(exc).strip()
        return
    assert loaded.frame.shape[0] >= 1 and loaded.frame.shape[1] >= 1


@FUZZ
@given(
    raw=st.binary(max_size=600), name=st.sampled_from(["t.csv", "t.parquet", "t.xlsx", "t.json"])
)
def test_loader_on_arbitrary_bytes(raw, name):
    try:
        load_table(raw, name=name)
    except AnonError as exc:
        assert str(exc)


@FUZZ
@given(text=table_text, encoding=encodings, sep=st.sampled_from([";", ",", "\t"]))
def test_hierarchy_reader_returns_a_hierarchy_or_one_clear_error(text, encoding, sep):
    try:
        h = Hierarchy.from_csv(_encoded(text, encoding), separator=sep, name="h")
    except AnonError as exc:
        assert str(exc) and "\n" not in str(exc).strip()
        return
    assert h.height >= 1 and len(h.values) == len(set(h.values))


json_scalars = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4)
    ),
    max_leaves=20,
)
KEYS = [
    "input",
    "attributes",
    "privacy_models",
    "suppression_limit",
    "quality_metric",
    "transformation",
    "search",
    "output",
    "engine",
    "engine_options",
]


@FUZZ
@given(
    config=st.dictionaries(st.sampled_from(KEYS), json_values, max_size=6),
    qi=st.sampled_from(["age", "zip", ""]),
)
def test_configuration_parser_validates_or_refuses_in_one_line(config, qi):
    config.setdefault("attributes", {qi: {"role": "quasi-identifier"}})
    try:
        parse_config(config)
    except AnonError as exc:
        assert str(exc) and "\n" not in str(exc).strip()


@FUZZ
@given(text=st.text(max_size=300), yaml_format=st.booleans())
def test_configuration_text_parser(text, yaml_format):
    try:
        data = parse_config_text(text, "fuzz", yaml_format=yaml_format)
    except AnonError:
        return
    assert isinstance(data, dict)


cell = st.text(alphabet=ALPHABET.replace("\x00", "").replace("\ufeff", ""), max_size=12)


@settings(max_examples=120, deadline=None)
@given(rows=st.lists(st.tuples(cell, cell), min_size=1, max_size=8))
def test_csv_round_trip_is_exact(rows):
    frame = pd.DataFrame(rows, columns=["a", "b"])
    raw = table_bytes(frame, "csv", formula_escape=False)
    back = load_table(raw, name="r.csv", separator=",", encoding="utf-8").frame
    expected = frame.where(
        ~frame.isin(["", "NA", "N/A", "NaN", "nan", "NULL", "null", "None", "none"])
    )
    for col in ("a", "b"):
        got, want = back[col].tolist(), expected[col].tolist()
        for g, w in zip(got, want, strict=True):
            if isinstance(w, float) and math.isnan(w):
                assert isinstance(g, float) and math.isnan(g)
            else:
                assert g == w


@pytest.mark.parametrize("payload", ['{"k": 1, "k": 2}', "k: 1\nk: 2\n"])
def test_duplicate_keys_are_refused(payload):
    with pytest.raises(AnonError, match="twice"):
        parse_config_text(payload, "c", yaml_format=not payload.startswith("{"))
    json.loads('{"ok": 1}')
