"""sample_data/generate_large.py: seeded, chunked Adult-like tables (properties, not snapshots)."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path
from types import ModuleType

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from scipy.stats import chi2_contingency

from anon_core import Hierarchy, load_table

from .conftest import ADULT, needs_shared

SCRIPT = Path(__file__).resolve().parents[1] / "sample_data" / "generate_large.py"
SAMPLE_ROWS = 200_000
BACHELORS_PLUS = ["Bachelors", "Masters", "Prof-school", "Doctorate"]


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("sample_data_generate_large", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


gen = _load()


def _table(n_rows: int, **kwargs) -> pd.DataFrame:
    return pd.concat(gen.iter_chunks(n_rows, **kwargs), ignore_index=True)


def _as_str(frame: pd.DataFrame) -> pd.DataFrame:
    """Cells as strings, missing as '' (Parquet gives None, CSV gives NaN)."""
    return frame.astype(object).where(frame.notna(), "").astype(str).reset_index(drop=True)


@pytest.fixture(scope="module")
def sample() -> pd.DataFrame:
    return _table(SAMPLE_ROWS, seed=11, chunk_rows=100_000)


def _share(mask: pd.Series, within: pd.Series) -> float:
    assert within.sum() > 1000, "too few rows in the group for a stable share"
    return float(mask[within].mean())


# ----------------------------------------------------------------------------- determinism


def test_same_seed_same_table_other_seed_differs() -> None:
    a = _table(5000, seed=3, chunk_rows=2000)
    b = _table(5000, seed=3, chunk_rows=2000)
    c = _table(5000, seed=4, chunk_rows=2000)
    pd.testing.assert_frame_equal(a, b)
    assert list(a.columns) == gen.COLUMNS
    for col in ["age", "education", "occupation", "marital-status"]:
        assert (a[col] != c[col]).mean() > 0.2, col


def test_chunk_i_comes_from_its_own_stream() -> None:
    # chunk i depends on (seed, i) only, so a longer table extends a shorter one
    short = _table(6000, seed=5, chunk_rows=3000)
    long = _table(10_007, seed=5, chunk_rows=3000)
    pd.testing.assert_frame_equal(long.iloc[:6000].reset_index(drop=True), short)


def test_chunking_gives_exactly_n_rows() -> None:
    sizes = [len(f) for f in gen.iter_chunks(10_007, chunk_rows=3000)]
    assert sizes == [3000, 3000, 3000, 1007]
    assert [len(f) for f in gen.iter_chunks(1)] == [1]
    assert sum(len(f) for f in gen.iter_chunks(4096, chunk_rows=1024)) == 4096


def test_frame_dtypes_and_no_missing_by_default() -> None:
    frame = _table(3000)
    assert frame["age"].dtype == np.int64
    assert frame.notna().all().all()
    for col in gen.COLUMNS:
        if col != "age":
            assert frame[col].map(type).eq(str).all(), col


def test_missing_rate_blanks_cells_of_the_same_table() -> None:
    full = _table(40_000, seed=9, chunk_rows=15_000)
    holes = _table(40_000, seed=9, chunk_rows=15_000, missing_rate=0.2)
    assert _as_str(holes.fillna(full)).equals(_as_str(full))
    for col in gen.COLUMNS:
        share = holes[col].isna().mean()
        if col in gen.MISSING_COLUMNS:
            assert 0.17 < share < 0.23, col
        else:
            assert share == 0, col
    assert holes["workclass"].isna().equals(holes["occupation"].isna())


# ----------------------------------------------------------------------------- writing


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
def test_written_file_loads_back_identical(tmp_path: Path, suffix: str) -> None:
    kwargs = {"seed": 21, "chunk_rows": 4000, "missing_rate": 0.05}
    calls: list[tuple[int, int]] = []
    out = gen.write(
        tmp_path / "sub" / f"adult{suffix}", 10_500, **kwargs, progress=lambda *a: calls.append(a)
    )
    assert out == tmp_path / "sub" / f"adult{suffix}"
    assert calls == [(4000, 10_500), (8000, 10_500), (10_500, 10_500)]
    assert sorted(p.name for p in out.parent.iterdir()) == [out.name]  # no temporary left

    loaded = load_table(out)
    expected = _table(10_500, **kwargs)
    assert list(loaded.frame.columns) == gen.COLUMNS
    assert len(loaded.frame) == 10_500
    assert _as_str(loaded.frame).equals(_as_str(expected))
    if suffix == ".csv":
        assert loaded.format == "csv" and loaded.separator == "," and loaded.encoding == "utf-8"
        assert out.read_bytes().split(b"\n", 1)[0] == ",".join(gen.COLUMNS).encode()
    else:
        meta = pq.ParquetFile(out)
        assert meta.metadata.num_row_groups == 3
        types = {f.name: str(f.type) for f in meta.schema_arrow}
        assert types == {c: "int64" if c == "age" else "string" for c in gen.COLUMNS}
        assert loaded.frame["age"].dtype == np.int64


def test_format_argument_overrides_suffix(tmp_path: Path) -> None:
    out = gen.write(tmp_path / "adult.data", 500, fmt="csv")
    assert out.read_bytes().startswith(b"sex,age,")
    out = gen.write(tmp_path / "adult.bin", 500, fmt="parquet")
    assert out.read_bytes()[:4] == b"PAR1"


def test_interrupted_write_leaves_no_file(tmp_path: Path) -> None:
    def stop(done: int, total: int) -> None:
        if done >= 2000:
            raise KeyboardInterrupt

    for name in ["a.parquet", "a.csv"]:
        with pytest.raises(KeyboardInterrupt):
            gen.write(tmp_path / name, 5000, chunk_rows=1000, progress=stop)
    assert list(tmp_path.iterdir()) == []


def test_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "cli.csv"
    assert gen.main(["--rows", "2.5k", "--out", str(out), "--chunk-rows", "1k", "--seed", "4"]) == 0
    captured = capsys.readouterr()
    assert str(out) in captured.out
    assert "rows/s" in captured.err
    assert len(load_table(out).frame) == 2500
    assert _as_str(load_table(out).frame).equals(_as_str(_table(2500, seed=4, chunk_rows=1000)))
    with pytest.raises(SystemExit):
        gen.main(["--rows", "ten", "--out", str(out)])
    with pytest.raises(SystemExit):
        gen.main(["--rows", "10", "--out", str(tmp_path / "x.txt")])
    assert "cannot infer the format" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("text", "rows"),
    [("1000", 1000), ("10_000", 10_000), ("10M", 10**7), ("1.5M", 1_500_000), ("500k", 500_000)],
)
def test_parse_rows(text: str, rows: int) -> None:
    assert gen.parse_rows(text) == rows


@pytest.mark.parametrize("text", ["", "abc", "0", "-5", "1.2345k", "2.5", "1e-3", "nanM"])
def test_parse_rows_rejects(text: str) -> None:
    with pytest.raises(ValueError, match="row count"):
        gen.parse_rows(text)


# ----------------------------------------------------------------------------- validation


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n_rows": 0}, "n_rows must be at least 1"),
        ({"n_rows": -3}, "n_rows must be at least 1"),
        ({"n_rows": 2.5}, "n_rows must be a whole number"),
        ({"n_rows": "10"}, "n_rows must be a whole number"),
        ({"n_rows": True}, "n_rows must be a whole number"),
        ({"chunk_rows": 0}, "chunk_rows must be at least 1"),
        ({"missing_rate": -0.1}, r"missing_rate must be in \[0, 1\)"),
        ({"missing_rate": 1.0}, r"missing_rate must be in \[0, 1\)"),
        ({"missing_rate": math.nan}, r"missing_rate must be in \[0, 1\)"),
        ({"missing_rate": "lots"}, "missing_rate must be a number"),
        ({"seed": -1}, "seed must be a non-negative integer"),
        ({"seed": 1.5}, "seed must be a non-negative integer"),
    ],
)
def test_invalid_arguments(kwargs: dict, message: str, tmp_path: Path) -> None:
    args = {"n_rows": 10, **kwargs}
    with pytest.raises(ValueError, match=message):
        gen.iter_chunks(**args)
    with pytest.raises(ValueError, match=message):
        gen.write(tmp_path / "x.parquet", **args)
    assert list(tmp_path.iterdir()) == []


def test_invalid_format(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="cannot infer the format"):
        gen.write(tmp_path / "x.txt", 10)
    with pytest.raises(ValueError, match="fmt must be 'parquet' or 'csv'"):
        gen.write(tmp_path / "x.parquet", 10, fmt="xlsx")
    with pytest.raises(ValueError, match="is a folder"):
        gen.write(tmp_path, 10, fmt="csv")
    assert list(tmp_path.iterdir()) == []


# ----------------------------------------------------------------------------- distributions


def test_alias_sampler_matches_its_probabilities() -> None:
    probs = np.array(
        [[0.5, 0.0, 0.3, 0.2, 0.0], [0.0, 0.0, 0.0, 0.0, 1.0], [0.1, 0.2, 0.3, 0.4, 0]]
    )
    table = gen._Table(probs)
    rng = np.random.default_rng(0)
    group = rng.integers(0, 3, size=300_000)
    drawn = table.draw(rng, group, len(group))
    for g in range(3):
        freq = np.bincount(drawn[group == g], minlength=5) / (group == g).sum()
        assert np.all(freq[probs[g] == 0] == 0)
        assert np.allclose(freq, probs[g], atol=0.006)


def test_rough_adult_marginals(sample: pd.DataFrame) -> None:
    # loose bands around the published Adult shares
    assert 0.18 < (sample["salary-class"] == ">50K").mean() < 0.32
    assert 0.60 < (sample["sex"] == "Male").mean() < 0.74
    assert 0.85 < (sample["native-country"] == "United-States").mean() < 0.96
    assert 0.75 < (sample["race"] == "White").mean() < 0.92
    assert 34 < sample["age"].mean() < 43
    assert sample["age"].between(17, 90).all()
    assert (sample["workclass"] == "Private").mean() > 0.6
    assert sample["education"].value_counts().index[0] == "HS-grad"


def test_salary_depends_on_education_age_sex_marital(sample: pd.DataFrame) -> None:
    rich = sample["salary-class"] == ">50K"
    edu = sample["education"]
    assert _share(rich, edu.isin(BACHELORS_PLUS)) > _share(rich, edu == "HS-grad") + 0.15
    assert _share(rich, sample["age"].between(40, 55)) > _share(rich, sample["age"] < 25) + 0.15
    assert _share(rich, sample["sex"] == "Male") > _share(rich, sample["sex"] == "Female") + 0.05
    married = sample["marital-status"] == "Married-civ-spouse"
    assert _share(rich, married) > _share(rich, sample["marital-status"] == "Never-married") + 0.2
    occ = sample["occupation"]
    assert _share(rich, occ == "Exec-managerial") > _share(rich, occ == "Other-service") + 0.2


def test_marital_and_education_depend_on_age(sample: pd.DataFrame) -> None:
    age = sample["age"]
    married = sample["marital-status"] == "Married-civ-spouse"
    assert _share(married, age.between(40, 60)) > _share(married, age.between(17, 25)) + 0.25
    widowed = sample["marital-status"] == "Widowed"
    assert _share(widowed, age >= 70) > 5 * _share(widowed, age.between(30, 50))
    degree = sample["education"].isin(BACHELORS_PLUS)
    assert _share(degree, age <= 20) < 0.25 * _share(degree, age.between(30, 50))


def test_categorical_pairs_are_not_independent(sample: pd.DataFrame) -> None:
    pairs = [
        ("education", "occupation"),
        ("occupation", "workclass"),
        ("occupation", "sex"),
        ("race", "native-country"),
    ]
    for a, b in pairs:
        p_value = chi2_contingency(pd.crosstab(sample[a], sample[b]))[1]
        assert p_value < 1e-50, (a, b, p_value)
    # and a pair that is independent by construction is not flagged
    assert chi2_contingency(pd.crosstab(sample["sex"], sample["race"]))[1] > 1e-6
    us = sample["native-country"] == "United-States"
    assert _share(us, sample["race"] == "White") > _share(
        us, sample["race"] == "Asian-Pac-Islander"
    )
    female = sample["sex"] == "Female"
    occ = sample["occupation"]
    assert _share(female, occ == "Adm-clerical") > 2 * _share(female, occ == "Craft-repair")


# ----------------------------------------------------------------------------- ARX hierarchies


@needs_shared
def test_values_are_leaves_of_the_arx_hierarchies(
    sample: pd.DataFrame, adult_hierarchies: dict[str, Hierarchy]
) -> None:
    header = (ADULT / "adult.csv").read_text(encoding="utf-8").split("\n", 1)[0].strip()
    assert gen.COLUMNS == header.split(";")
    assert set(adult_hierarchies) == set(gen.COLUMNS)
    with_missing = _table(20_000, seed=2, missing_rate=0.3)
    for col in gen.COLUMNS:
        leaves = set(adult_hierarchies[col].values)
        for frame in (sample, with_missing):
            emitted = set(frame[col].dropna().astype(str))
            assert emitted <= leaves, (col, sorted(emitted - leaves))
        # the label lists themselves are leaves too (categories not drawn in the sample)
        if col != "age":
            assert set(gen.LABELS[col]) <= leaves, col
