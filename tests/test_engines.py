"""Scale engines (DuckDB, Spark) give the in-memory engine's frequency table, optimum and released rows.

The pandas path (load the file, encode every row) is the oracle: each engine
must reproduce its frequency table array for array, its optimum and figures,
and its released rows, on Adult with ARX's hierarchies and on generated
tables with missing values, typed Parquet columns and several batches or
partitions. Privacy properties of the engines' released files are checked on
the files themselves.
"""

from __future__ import annotations

import csv
import datetime as dt
import importlib.util
import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from anon_core.cli import main as cli_main
from anon_core.config import parse_config
from anon_core.data.io import load_table
from anon_core.errors import ConfigError, DataError
from anon_core.release.engines import TableSource, choose_engine, get_engine
from anon_core.services.inputs import problem_for_release
from anon_core.transform.problem import Problem

from .conftest import ADULT, ROOT, needs_shared

HAS_JAVA = shutil.which("java") is not None
needs_java = pytest.mark.skipif(
    not HAS_JAVA, reason="the Spark engine needs a Java runtime (.ci/run installs one)"
)
ADULT_QIS = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass"]


@pytest.fixture(scope="module")
def duck():
    engine = get_engine("duckdb", {"batch_rows": 7_000})  # several batches even on Adult
    yield engine
    engine.close()


@pytest.fixture(scope="module")
def spark():
    if not HAS_JAVA:
        pytest.skip("no Java runtime")
    # Small splits: the files are read as several partitions, as on a cluster.
    return get_engine(
        "spark", {"master": "local[2]", "conf": {"spark.sql.files.maxPartitionBytes": "262144"}}
    )


def _engine(request, name):
    return (
        None
        if name == "pandas"
        else request.getfixturevalue({"duckdb": "duck", "spark": "spark"}[name])
    )


def adult_config(tmp_path: Path, models: list[dict], limit: float, **extra) -> dict:
    attributes = {
        q: {
            "role": "quasi-identifier",
            "hierarchy": {"file": str(ADULT / f"adult_hierarchy_{q}.csv")},
        }
        for q in ADULT_QIS
    }
    attributes["occupation"] = {"role": "sensitive"}
    attributes["salary-class"] = {"role": "insensitive"}
    return {
        "input": {"path": str(ADULT / "adult.csv")},
        "attributes": attributes,
        "privacy_models": models,
        "suppression_limit": limit,
        **extra,
    }


def build(config: dict, engine, tmp_path: Path) -> Problem:
    parsed = parse_config(config, tmp_path)
    if engine is None:
        return Problem.from_config(parsed, engine="pandas")
    return Problem.from_source(parsed, engine)


def assert_same_frequency_table(a: Problem, b: Problem) -> None:
    fa, fb = a.freq, b.freq
    assert fa.n_records == fb.n_records
    np.testing.assert_array_equal(fa.tuples, fb.tuples)
    np.testing.assert_array_equal(fa.counts, fb.counts)
    assert fa.qis == fb.qis
    for q in fa.qis:
        np.testing.assert_array_equal(fa.value_counts[q], fb.value_counts[q])
        np.testing.assert_array_equal(a.dataset.columns[q].labels, b.dataset.columns[q].labels)
    assert set(fa.sensitive) == set(fb.sensitive)
    for s in fa.sensitive:
        for field in ("tuple_idx", "value", "count", "global_counts"):
            np.testing.assert_array_equal(
                getattr(fa.sensitive[s], field), getattr(fb.sensitive[s], field)
            )


def released(path: Path) -> pd.DataFrame:
    return pd.read_parquet(path) if path.suffix == ".parquet" else load_table(path).frame


# --------------------------------------------------------------------------- Adult
ADULT_CASES = [
    ([{"model": "k-anonymity", "k": 5}], 0.02),
    (
        [
            {"model": "k-anonymity", "k": 3},
            {"model": "distinct-l-diversity", "l": 3, "attribute": "occupation"},
        ],
        0.05,
    ),
    (
        [
            {"model": "k-anonymity", "k": 2},
            {"model": "equal-distance-t-closeness", "t": 0.2, "attribute": "occupation"},
        ],
        0.0,
    ),
]


@needs_shared
@pytest.mark.parametrize("engine_name", ["duckdb", "spark"])
def test_adult_frequency_table_optimum_and_release_match_pandas(engine_name, request, tmp_path):
    engine = _engine(request, engine_name)
    for models, limit in ADULT_CASES:
        config = adult_config(tmp_path, models, limit)
        ref, got = build(config, None, tmp_path), build(config, engine, tmp_path)
        assert got.engine_name == engine_name and got.dataset.grouped
        assert len(got.dataset.frame) < got.dataset.n_rows  # grouped, not loaded row by row
        assert_same_frequency_table(ref, got)
        opt_ref, opt_got = ref.search().optimum, got.search().optimum
        assert opt_got.transformation == opt_ref.transformation
        assert opt_got.summary() == opt_ref.summary()
        for mode in ("remove", "mask"):
            expected = ref.apply(opt_ref, mode)
            out = got.write_release(opt_got, tmp_path / f"{engine_name}_{mode}.parquet", mode)
            assert out.rows == len(expected)
            pd.testing.assert_frame_equal(released(out.path), expected)
    ref_out = ref.write_release(opt_ref, tmp_path / "pandas.csv")
    got_out = got.write_release(opt_got, tmp_path / f"{engine_name}.csv")
    if engine_name == "duckdb":  # one file, byte-identical to the in-memory engine's
        assert got_out.sha256 == ref_out.sha256
    else:  # a folder of parts, each with the header, in input order
        parts = sorted(got_out.path.glob("part-*.csv"))
        assert len(parts) > 1
        rows = pd.concat([load_table(p).frame for p in parts], ignore_index=True)
        pd.testing.assert_frame_equal(rows, load_table(ref_out.path).frame)


@needs_shared
def test_released_file_is_k_anonymous_and_diverse(duck, tmp_path):
    """Checked on the written file alone: every released class has >= k records and >= l occupations."""
    models = [
        {"model": "k-anonymity", "k": 10},
        {"model": "distinct-l-diversity", "l": 3, "attribute": "occupation"},
    ]
    problem = build(adult_config(tmp_path, models, 0.04), duck, tmp_path)
    result = problem.search().optimum
    out = problem.write_release(result, tmp_path / "k10.parquet")
    frame = pd.read_parquet(out.path)
    classes = frame.groupby(ADULT_QIS, dropna=False)
    assert classes.size().min() >= 10
    assert classes["occupation"].nunique().min() >= 3
    assert len(frame) >= 0.96 * problem.dataset.n_rows
    assert problem.dataset.n_rows == sum(1 for _ in (ADULT / "adult.csv").open()) - 1


# --------------------------------------------------------------------------- generated data
def _generator():
    spec = importlib.util.spec_from_file_location(
        "generate_large", ROOT / "sample_data" / "generate_large.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """An Adult-like table with missing values, as CSV and as Parquet (several row groups)."""
    out = tmp_path_factory.mktemp("generated")
    gen = _generator()
    csv = gen.write(out / "people.csv", 60_000, seed=7, chunk_rows=25_000, missing_rate=0.02)
    parquet = gen.write(
        out / "people.parquet", 60_000, seed=7, chunk_rows=25_000, missing_rate=0.02
    )
    return csv, parquet


def generated_config(path: Path, **extra) -> dict:
    qis = {
        "age": {"builder": "intervals", "width": 5, "max_levels": 4},
        "sex": None,
        "race": None,
        "marital-status": None,
        "education": None,
        "native-country": None,
        "workclass": None,
    }
    attributes = {}
    for q, spec in qis.items():
        attributes[q] = {"role": "quasi-identifier"}
        if spec is not None:
            attributes[q]["hierarchy"] = spec
    attributes["occupation"] = {"role": "sensitive"}
    attributes["salary-class"] = {"role": "insensitive"}
    return {
        "input": {"path": str(path)},
        "attributes": attributes,
        "privacy_models": [
            {"model": "k-anonymity", "k": 5},
            {"model": "entropy-l-diversity", "l": 2, "attribute": "occupation"},
        ],
        "suppression_limit": 0.03,
        **extra,
    }


@pytest.mark.parametrize("engine_name", ["duckdb", "spark"])
@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_generated_data_matches_pandas(engine_name, fmt, generated, request, tmp_path):
    path = generated[0] if fmt == "csv" else generated[1]
    engine = _engine(request, engine_name)
    config = generated_config(path)
    ref, got = build(config, None, tmp_path), build(config, engine, tmp_path)
    assert "NULL" in set(got.dataset.columns["workclass"].labels)  # missing values took part
    assert_same_frequency_table(ref, got)
    opt_ref, opt_got = ref.search().optimum, got.search().optimum
    assert opt_got.summary() == opt_ref.summary()
    for mode in ("remove", "mask"):
        out = got.write_release(opt_got, tmp_path / f"out_{mode}.parquet", mode)
        pd.testing.assert_frame_equal(
            released(out.path), ref.apply(opt_ref, mode), check_dtype=False
        )


def test_typed_parquet_labels_match(duck, tmp_path, request):
    """Integers with missing values, floats, dates and timestamps get the in-memory labels."""
    rng = np.random.default_rng(3)
    n = 5_000
    frame = pd.DataFrame(
        {
            "id": np.arange(n),
            "age": pd.array(rng.integers(18, 80, n), dtype="Int64"),
            "score": rng.choice([1.5, 2.0, 2.25, np.nan], n),
            "visit": pd.to_datetime("2024-01-01")
            + pd.to_timedelta(rng.integers(0, 60, n), unit="D"),
            "born": [dt.date(1950 + int(y), 1, 1) for y in rng.integers(0, 40, n)],
            "code": rng.choice(["01002", "10001", None], n),
            "diagnosis": rng.choice(["flu", "cold", "asthma"], n),
        }
    )
    frame.loc[rng.random(n) < 0.05, "age"] = pd.NA
    path = tmp_path / "typed.parquet"
    frame.to_parquet(path, coerce_timestamps="us")  # Spark reads micro-, not nanoseconds
    attributes = {
        c: {"role": "quasi-identifier"} for c in ("age", "score", "visit", "born", "code")
    }
    attributes["id"] = {"role": "identifier"}
    attributes["diagnosis"] = {"role": "sensitive"}
    config = {
        "input": {"path": str(path)},
        "attributes": attributes,
        "privacy_models": [{"model": "k-anonymity", "k": 4}],
        "suppression_limit": 0.1,
    }
    ref = build(config, None, tmp_path)
    engines = [duck] + ([request.getfixturevalue("spark")] if HAS_JAVA else [])
    for engine in engines:
        got = build(config, engine, tmp_path)
        assert_same_frequency_table(ref, got)
        result = got.evaluate({"age": 1, "score": 0, "visit": 1, "born": 1, "code": 0})
        expected = ref.apply(ref.evaluate(result.transformation), "mask")
        out = got.write_release(result, tmp_path / f"typed_{engine.name}.parquet", "mask")
        back = pd.read_parquet(out.path)
        assert "id" not in back.columns
        pd.testing.assert_frame_equal(back.astype(str), expected.astype(str))


# --------------------------------------------------------------------------- CLI and choice
@needs_shared
def test_cli_engine_flag_and_config_key(tmp_path, capsys):
    config = adult_config(tmp_path, [{"model": "k-anonymity", "k": 5}], 0.02)
    path = tmp_path / "c.json"
    path.write_text(json.dumps(config))
    assert (
        cli_main(["anonymize", str(path), "--engine", "pandas", "-o", str(tmp_path / "a.csv")]) == 0
    )
    first = json.loads(capsys.readouterr().out)
    path.write_text(
        json.dumps({**config, "engine": "duckdb", "engine_options": {"memory_limit": "1GB"}})
    )
    assert cli_main(["anonymize", str(path), "-o", str(tmp_path / "b.csv")]) == 0
    second = json.loads(capsys.readouterr().out)
    assert second["output"]["engine"] == "duckdb" and first["output"]["engine"] == "pandas"
    assert second["output"]["sha256"] == first["output"]["sha256"]
    assert second["transformation"] == first["transformation"]
    assert cli_main(["risk", str(path), "--max-combination-size", "0"]) == 0
    risk = json.loads(capsys.readouterr().out)
    assert cli_main(["risk", str(path), "--engine", "pandas", "--max-combination-size", "0"]) == 0
    in_memory = json.loads(capsys.readouterr().out)
    # record-level figures (survey weights, SUDA2) need the records: a grouped table says so
    for key in ("weighted_risk", "suda2"):
        assert "scale engine" in risk.pop(key)["explanation"]
        in_memory.pop(key)
    assert in_memory == risk


def test_auto_engine_picks_duckdb_for_large_files(tmp_path, monkeypatch):
    import anon_core.release.engines as engines

    small = tmp_path / "t.csv"
    small.write_text("a,b\n1,2\n")
    assert choose_engine(None, small) == "pandas"
    assert choose_engine("auto", small) == "pandas"
    assert choose_engine("spark", small) == "spark"
    monkeypatch.setattr(engines, "LARGE_TEXT_BYTES", 4)
    assert choose_engine(None, small) == "duckdb"
    with pytest.raises(ConfigError, match="'engine' must be one of"):
        choose_engine("polars", small)
    with pytest.raises(ConfigError, match="engine"):
        parse_config(
            {
                "engine": "polars",
                "attributes": {"a": {"role": "quasi-identifier"}},
                "privacy_models": [{"model": "k-anonymity", "k": 2}],
            }
        )
    with pytest.raises(ConfigError, match="engine_options"):
        parse_config(
            {
                "engine_options": {"memory": "1GB"},
                "attributes": {"a": {"role": "quasi-identifier"}},
                "privacy_models": [{"model": "k-anonymity", "k": 2}],
            }
        )


# --------------------------------------------------------------------------- bad input
def _config(path: Path, **extra) -> dict:
    return {
        "input": {"path": str(path)},
        "attributes": {"a": {"role": "quasi-identifier"}},
        "privacy_models": [{"model": "k-anonymity", "k": 2}],
        **extra,
    }


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("empty.csv", b"", "is empty"),
        ("header.csv", b"a,b\n", "no data rows"),
        ("dup.csv", b"a,a\n1,2\n", "duplicate column names"),
        ("semi.csv", b"a;b\n1;2\n", None),  # detected separator: reads fine
        ("wrong.csv", b"a;b\n1;2\n", "separated by ';'"),
        ("table.xlsx", b"PK\x03\x04", "CSV/TSV and Parquet"),
        ("bin.csv", b"\x00\x01\x02" * 100, "binary"),
        ("broken.parquet", b"PAR1 not really", "could not be read as Parquet"),
    ],
)
def test_bad_files_give_clear_messages(name, content, message, tmp_path, duck):
    path = tmp_path / name
    path.write_bytes(content)
    separator = "," if name == "wrong.csv" else None
    if message is None:
        source = TableSource.open(path)
        assert source.separator == ";" and source.columns == ("a", "b")
        return
    with pytest.raises(DataError, match=message):
        TableSource.open(path, separator=separator)


def test_missing_file_unknown_column_and_unsupported_sections(tmp_path, duck):
    with pytest.raises(DataError, match="does not exist"):
        Problem.from_source(parse_config(_config(tmp_path / "nope.csv")), duck)
    data = tmp_path / "d.csv"
    data.write_text("x,y\n1,2\n3,4\n")
    with pytest.raises(ConfigError, match="not columns of the input"):
        Problem.from_source(parse_config(_config(data)), duck)
    cfg = parse_config(
        {
            **_config(data),
            "attributes": {"x": {"role": "quasi-identifier"}},
            "pseudonymize": {"columns": ["y"]},
        }
    )
    with pytest.raises(ConfigError, match="not available with the duckdb engine"):
        problem_for_release(cfg, engine="duckdb")


def test_output_suffix_and_k_larger_than_table(tmp_path, duck):
    data = tmp_path / "d.csv"
    data.write_text("x,y\n1,2\n3,4\n5,6\n")
    cfg = parse_config(
        {
            "input": {"path": str(data)},
            "attributes": {"x": {"role": "quasi-identifier"}},
            "privacy_models": [{"model": "k-anonymity", "k": 50}],
        }
    )
    problem = Problem.from_source(cfg, duck)
    assert problem.search().optimum is None  # k above the table: no release, no crash
    result = problem.evaluate({"x": 0})
    assert not result.satisfied
    with pytest.raises(DataError, match=r"\.parquet or \.csv"):
        problem.write_release(result, tmp_path / "out.xlsx")
    with pytest.raises(ConfigError, match="not in memory"):
        problem.apply(result)
    from anon_core.transform.mondrian import mondrian

    with pytest.raises(ConfigError, match="needs the table in memory"):
        mondrian(problem, k=2)


def test_latin1_csv_is_read_and_other_encodings_refused(tmp_path, duck):
    text = "city,n\n" + "".join(
        f"{c},{i}\n" for i, c in enumerate(["Zürich", "Genève", "Köln"] * 2000)
    )
    latin = tmp_path / "latin.csv"
    latin.write_bytes(text.encode("latin-1"))
    source = TableSource.open(latin, encoding="latin-1")
    grouped = duck.group(source, ["city"])
    assert set(grouped.frame["city"]) == {"Zürich", "Genève", "Köln"}
    assert grouped.n_rows == 6000
    with pytest.raises(DataError, match="UTF-8, UTF-16 or Latin-1"):
        TableSource.open(latin, encoding="cp1251")


@needs_java
def test_spark_refuses_to_overwrite_a_foreign_folder(spark, tmp_path):
    data = tmp_path / "d.csv"
    data.write_text("x,y\n1,2\n1,4\n")
    problem = Problem.from_source(
        parse_config(_config(data, attributes={"x": {"role": "quasi-identifier"}})), spark
    )
    folder = tmp_path / "keep.parquet"
    folder.mkdir()
    (folder / "mine.txt").write_text("do not delete")
    with pytest.raises(DataError, match="not a previous release"):
        problem.write_release(problem.evaluate({"x": 0}), folder)
    assert (folder / "mine.txt").read_text() == "do not delete"
    out = problem.write_release(problem.evaluate({"x": 0}), tmp_path / "ok.parquet")
    assert out.path.is_dir() and pd.read_parquet(out.path)["y"].tolist() == ["2", "4"]


@pytest.mark.parametrize("kept", ["kept", 'kept, "quoted"'])
@pytest.mark.parametrize("carriage_return", [False, True])
@pytest.mark.parametrize("formula_escape", [True, False])
def test_duckdb_csv_release_escapes_formulas_like_pandas(
    duck, tmp_path, carriage_return, formula_escape, kept
):
    """The SQL writer formats cells as io.table_bytes does: formula-like text (kept cells and
    generalized labels such as "-all-") gets an apostrophe, numbers do not, and a bare CR in
    any cell makes every field quoted (the batch path). Bytes equal the in-memory engine's."""
    notes = ["=SUM(A1:A9)", "-5", "+3.2e1", "@cmd", "-", "plain", 'say "hi"', "a,b", "\tx", ""]
    if carriage_return:
        notes[5] = "line\rbreak"
    zips = ["1301", "1302", "1401", "1402"]
    frame = pd.DataFrame(
        {
            "zip": [zips[i % 4] for i in range(40)],
            "note": [notes[i % len(notes)] for i in range(40)],
            kept: [f"v{i % 3}" for i in range(40)],
        }
    )
    data = tmp_path / "cells.csv"
    frame.to_csv(data, index=False, lineterminator="\n", quoting=csv.QUOTE_ALL)
    table = [[z, z[:3] + "*", "-all-"] for z in zips]
    config = {
        "input": {"path": str(data)},
        "attributes": {
            "zip": {"role": "quasi-identifier", "hierarchy": {"table": table}},
            "note": {"role": "insensitive"},
            kept: {"role": "insensitive"},
        },
        "privacy_models": [{"model": "k-anonymity", "k": 21}],
        "suppression_limit": 0.0,
    }
    ref, got = build(config, None, tmp_path), build(config, duck, tmp_path)
    opt_ref, opt_got = ref.search().optimum, got.search().optimum
    assert opt_ref.transformation == opt_got.transformation == {"zip": 2}  # labels "-all-"
    a = ref.write_release(opt_ref, tmp_path / "pandas.csv", formula_escape=formula_escape)
    b = got.write_release(opt_got, tmp_path / "duckdb.csv", formula_escape=formula_escape)
    assert b.path.read_bytes() == a.path.read_bytes()
    text = b.path.read_text()
    if formula_escape:  # hand-checked cells of the released file
        assert "'=SUM(A1:A9)" in text and "'@cmd" in text and "'-all-" in text
        assert ",-5," in text.replace('"', "") and "'-5" not in text and "'+3.2e1" not in text
    else:
        assert "'=" not in text and "'-all-" not in text
    if carriage_return:
        assert text.startswith('"zip","note",')
    elif kept != "kept":  # a name that needs quoting: the one-column-of-lines path
        assert text.startswith('zip,note,"kept, ""quoted"""\n')


def test_parquet_release_with_unused_dictionary_values(duck, tmp_path, monkeypatch):
    """A Parquet file written from a categorical keeps unused categories in its dictionary:
    the Arrow release ignores them, masks and removes like the in-memory engine, and a value
    the frequency table never saw (the file changed) is one clear error."""
    cats = pd.CategoricalDtype(["a", "b", "c", "never-used"])
    frame = pd.DataFrame(
        {
            "q": pd.Series(["a", "b", "c"] * 10 + ["a"] * 3, dtype=cats),
            "n": np.arange(33),
            "s": pd.Series(["x", None, "z"] * 11, dtype="string"),
        }
    )
    data = tmp_path / "cats.parquet"
    frame.to_parquet(data)
    config = {
        "input": {"path": str(data)},
        "attributes": {
            "q": {
                "role": "quasi-identifier",
                "hierarchy": {"table": [["a", "*"], ["b", "*"], ["c", "*"]]},
            },
            "n": {"role": "insensitive"},
            "s": {"role": "insensitive"},
        },
        "privacy_models": [{"model": "k-anonymity", "k": 12}],
        "suppression_limit": 0.4,
    }
    from anon_core.release.engines import arrow_release

    # Batches of 7 rows: several row groups, some with suppressed rows and some without.
    monkeypatch.setattr(arrow_release, "BATCH_ROWS", 7)
    ref, got = build(config, None, tmp_path), build(config, duck, tmp_path)
    result_ref, result_got = ref.evaluate({"q": 0}), got.evaluate({"q": 0})
    assert result_got.suppressed_records == 20  # b and c (10 each) are below k=12
    for mode in ("remove", "mask"):
        out = got.write_release(result_got, tmp_path / f"out_{mode}.parquet", mode)
        back = pd.read_parquet(out.path)
        expected = ref.apply(result_ref, mode)
        assert out.rows == len(expected) == (13 if mode == "remove" else 33)
        assert back["q"].tolist() == expected["q"].tolist()
        assert back["n"].tolist() == list(expected["n"])
        assert back["s"].isna().tolist() == expected["s"].isna().tolist()
        assert not isinstance(back["q"].dtype, pd.CategoricalDtype)  # plain strings
        assert pq_row_groups(out.path) > 1
    changed = frame.copy()
    changed["q"] = changed["q"].cat.set_categories(["a", "b", "c", "d"])
    changed.loc[0, "q"] = "d"
    changed.to_parquet(data)
    with pytest.raises(DataError, match="not in the frequency table"):
        got.write_release(result_got, tmp_path / "after_change.parquet")
    assert not (tmp_path / "after_change.parquet").exists()


def pq_row_groups(path: Path) -> int:
    import pyarrow.parquet as pq

    return pq.ParquetFile(path).metadata.num_row_groups


def test_engine_release_never_lands_on_its_input(duck, tmp_path):
    data = tmp_path / "d.csv"
    data.write_text("x,y\n1,2\n1,4\n5,6\n5,8\n")
    before = data.read_bytes()
    cfg = parse_config(
        {
            "input": {"path": str(data)},
            "attributes": {"x": {"role": "quasi-identifier"}, "y": {"role": "insensitive"}},
            "privacy_models": [{"model": "k-anonymity", "k": 2}],
        }
    )
    problem = Problem.from_source(cfg, duck)
    with pytest.raises(DataError, match="overwrite its input"):
        problem.write_release(problem.evaluate({"x": 0}), data)
    assert data.read_bytes() == before


@needs_java
def test_spark_csv_release_escapes_formulas_like_pandas(spark, tmp_path):
    """Spark writes its own CSV parts, but the cells are neutralized as the in-memory engine's
    (formula-like kept text and generalized labels such as "-all-"), numbers left alone."""
    notes = ["=SUM(A1:A9)", "-5", "+3.2e1", "@cmd", "-", "plain"]
    zips = ["1301", "1302", "1401", "1402"]
    frame = pd.DataFrame(
        {"zip": [zips[i % 4] for i in range(24)], "note": [notes[i % 6] for i in range(24)]}
    )
    data = tmp_path / "cells.csv"
    frame.to_csv(data, index=False, lineterminator="\n")
    config = {
        "input": {"path": str(data)},
        "attributes": {
            "zip": {
                "role": "quasi-identifier",
                "hierarchy": {"table": [[z, z[:3] + "*", "-all-"] for z in zips]},
            },
            "note": {"role": "insensitive"},
        },
        "privacy_models": [{"model": "k-anonymity", "k": 13}],
    }
    ref, got = build(config, None, tmp_path), build(config, spark, tmp_path)
    opt = got.search().optimum
    assert opt.transformation == {"zip": 2}
    expected = load_table(ref.write_release(ref.search().optimum, tmp_path / "ref.csv").path).frame
    out = got.write_release(opt, tmp_path / "spark.csv")
    parts = sorted(out.path.glob("part-*.csv"))
    rows = pd.concat([load_table(p).frame for p in parts], ignore_index=True)
    pd.testing.assert_frame_equal(rows, expected)
    assert set(rows["zip"]) == {"'-all-"}
    assert "'=SUM(A1:A9)" in set(rows["note"]) and "'@cmd" in set(rows["note"])
