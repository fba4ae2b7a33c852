"""The committed sample tables are reproducible and load the way the app expects."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

from anon_core.data.io import load_table

SAMPLE_DIR = Path(__file__).resolve().parents[1] / "sample_data"
HOSPITAL_COLUMNS = [
    "patient_name",
    "email",
    "phone",
    "zip_code",
    "birth_date",
    "sex",
    "admission_date",
    "diagnosis",
    "length_of_stay",
    "notes",
]


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "sample_data_generate", SAMPLE_DIR / "generate.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def regenerated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("samples")
    _generator().main(out)
    return out


@pytest.mark.parametrize("file_name", ["hospital_discharge.csv", "census_income.csv"])
def test_generator_reproduces_committed_files(regenerated: Path, file_name: str) -> None:
    committed = (SAMPLE_DIR / file_name).read_bytes()
    assert (regenerated / file_name).read_bytes() == committed, (
        f"{file_name} differs from the generator output; run `python sample_data/generate.py`"
    )
    assert len(committed) < 1024**2


def test_hospital_columns_and_zip_codes() -> None:
    table = load_table(SAMPLE_DIR / "hospital_discharge.csv")
    frame = table.frame
    assert (table.format, table.separator, table.encoding) == ("csv", ",", "utf-8")
    assert list(frame.columns) == HOSPITAL_COLUMNS
    assert 1500 <= len(frame) <= 2500
    zips = frame["zip_code"]
    assert zips.notna().all()
    assert zips.str.fullmatch(r"\d{5}").all()
    assert zips.str.startswith("0").any()
    assert set(frame["sex"]) == {"F", "M"}
    # every note names its patient
    assert all(n in note for n, note in zip(frame["patient_name"], frame["notes"], strict=True))


def test_census_columns_and_target() -> None:
    table = load_table(SAMPLE_DIR / "census_income.csv")
    frame = table.frame
    assert table.separator == ","
    assert {"age", "education", "hours_per_week", "sex", "zip_code", "income"} <= set(frame.columns)
    assert set(frame["income"]) == {">50K", "<=50K"}
    assert 0.15 < (frame["income"] == ">50K").mean() < 0.35
    assert frame["zip_code"].str.fullmatch(r"\d{5}").all()
    assert frame["zip_code"].str.startswith("0").any()
