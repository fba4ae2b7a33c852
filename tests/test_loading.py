"""Loading tables: formats, detection, kinds, and every bad input named in DEVELOPERS.md."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from anon_core import DataError, load_table
from anon_core.data.io import MISSING, ColumnKind, column_profile, infer_kind, to_labels

CSV = "zip,age,sex\n02139,34,F\n02138,45,M\n02139,29,F\n"


def test_csv_comma_keeps_leading_zeros():
    t = load_table(CSV.encode(), name="a.csv")
    assert t.separator == "," and t.encoding == "utf-8"
    assert t.frame["zip"].tolist() == ["02139", "02138", "02139"]


@pytest.mark.parametrize("sep", [";", "\t", "|"])
def test_separator_detected(sep):
    t = load_table(CSV.replace(",", sep).encode(), name="a.csv")
    assert t.separator == sep
    assert list(t.frame.columns) == ["zip", "age", "sex"]


def test_separator_override():
    t = load_table(b"a;b\n1,2;3\n", name="x.csv", separator=";")
    assert t.frame.iloc[0].tolist() == ["1,2", "3"]


def test_latin1_and_bom_encodings():
    text = "name;city\nJosé;Málaga\nZoë;Köln\n"
    t = load_table(text.encode("latin-1"), name="l.csv")
    assert t.frame["city"].tolist() == ["Málaga", "Köln"]
    t = load_table(b"\xef\xbb\xbf" + text.encode("utf-8"), name="b.csv")
    assert list(t.frame.columns) == ["name", "city"]
    assert t.frame["name"].tolist() == ["José", "Zoë"]


def test_missing_values_are_a_distinct_category():
    t = load_table(b"a,b\n1,x\n,y\nNA,z\n4,\n", name="m.csv")
    labels = to_labels(t.frame["a"])
    assert labels.tolist() == ["1", MISSING, MISSING, "4"]
    assert to_labels(t.frame["b"]).tolist() == ["x", "y", "z", MISSING]


def test_question_mark_is_kept_as_a_value():
    t = load_table(b"a\n?\nx\n", name="q.csv")
    assert t.frame["a"].tolist() == ["?", "x"]


@pytest.mark.parametrize(
    "raw,needle",
    [
        (b"", "empty"),
        (b"   \n\n", "empty"),
        (b"a,b,c\n", "no data rows"),
        (b"\x00\x01\x02PK\x00garbage" * 10, "binary"),
        (b"a,a\n1,2\n", "duplicate column"),
    ],
)
def test_bad_files_give_clear_messages(raw, needle):
    with pytest.raises(DataError, match=needle):
        load_table(raw, name="bad.csv")


def test_wrong_separator_is_named():
    with pytest.raises(DataError, match="separated by ';'"):
        load_table(b"a;b;c\n1;2;3\n4;5;6\n", name="w.csv", separator=",")


def test_file_over_limit_is_refused(tmp_path):
    p = tmp_path / "big.csv"
    p.write_bytes(b"a,b\n" + b"1,2\n" * 1000)
    with pytest.raises(DataError, match="limit"):
        load_table(p, max_bytes=1000)


def test_missing_path_and_folder(tmp_path):
    with pytest.raises(DataError, match="does not exist"):
        load_table(tmp_path / "nope.csv")
    with pytest.raises(DataError, match="folder"):
        load_table(tmp_path)


def test_excel_parquet_json_round_trip(tmp_path):
    frame = pd.DataFrame(
        {"zip": ["02139", "02138"], "age": [34, 45], "when": ["2020-01-02", "2021-03-04"]}
    )
    buf = io.BytesIO()
    frame.to_excel(buf, index=False)
    assert load_table(buf.getvalue(), name="x.xlsx").frame.shape == (2, 3)
    buf = io.BytesIO()
    frame.to_parquet(buf, index=False)
    t = load_table(buf.getvalue(), name="x.parquet")
    assert t.format == "parquet" and t.frame["zip"].tolist() == ["02139", "02138"]
    t = load_table(frame.to_json(orient="records").encode(), name="x.json")
    assert t.format == "json" and t.frame["age"].tolist() == [34, 45]
    t = load_table(frame.to_json(orient="records", lines=True).encode(), name="x.jsonl")
    assert len(t.frame) == 2


def test_corrupt_excel_and_parquet():
    with pytest.raises(DataError, match="excel"):
        load_table(b"PK\x03\x04not really", name="x.xlsx")
    with pytest.raises(DataError, match="parquet"):
        load_table(b"PAR1garbage", name="x.parquet")
    with pytest.raises(DataError, match="json"):
        load_table(b"{not json", name="x.json")


def test_kinds_inferred():
    frame = pd.DataFrame(
        {
            "age": ["34", "45", "29"],
            "zip": ["02139", "02138", "02139"],
            "born": ["1980-01-02", "1975-12-31", "1990-06-15"],
            "sex": ["F", "M", "F"],
            "notes": ["Patient was discharged home in good condition today"] * 3,
            "mixed": ["1", "two", "3"],
            "float": [1.5, 2.5, np.nan],
        }
    )
    kinds = {c: infer_kind(frame[c]) for c in frame}
    assert kinds == {
        "age": ColumnKind.NUMERIC,
        "zip": ColumnKind.CATEGORICAL,
        "born": ColumnKind.DATE,
        "sex": ColumnKind.CATEGORICAL,
        "notes": ColumnKind.TEXT,
        "mixed": ColumnKind.CATEGORICAL,
        "float": ColumnKind.NUMERIC,
    }


def test_labels_of_typed_columns():
    assert to_labels(pd.Series([1.0, 2.5, np.nan])).tolist() == ["1", "2.5", MISSING]
    assert to_labels(pd.Series(pd.to_datetime(["2020-01-02"]))).tolist() == ["2020-01-02"]


def test_column_profile():
    prof = column_profile(pd.DataFrame({"a": ["x", "x", "y"], "b": ["1", None, "3"]})).set_index(
        "column"
    )
    assert prof.loc["a", "distinct"] == 2
    assert prof.loc["a", "unique_share"] == pytest.approx(1 / 3)
    assert prof.loc["b", "missing"] == 1
