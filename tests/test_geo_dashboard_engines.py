"""The geo section's location column on the DuckDB engine: derived in SQL with the pandas
formatting, so that ``anon-core anonymize --engine duckdb`` writes the pandas engine's bytes;
Spark (and DuckDB for a point column) refuse in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from anon_core.cli import main

pytest.importorskip("duckdb")
pytest.importorskip("h3")
ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_data" / "geo_patients.csv"
H3 = {"builder": "h3", "resolutions": [9, 7, 5, 3]}
GRID = {"builder": "geo-grid", "cell_m": 250.0, "levels": 6}


def _config(path: Path, hierarchy: dict, **extra) -> dict:
    return {
        "input": {"path": str(path)},
        "geo": {"latitude": "lat", "longitude": "lon", "hierarchy": hierarchy},
        "attributes": {
            "patient_id": {"role": "identifier"},
            "age": {"role": "quasi-identifier"},
            "sex": {"role": "quasi-identifier"},
            "town": {"role": "insensitive"},
            "diagnosis": {"role": "sensitive"},
        },
        "privacy_models": [{"model": "k-anonymity", "k": 5}],
        "suppression_limit": 0.02,
        **extra,
    }


def _run(tmp_path: Path, config: dict, engine: str, capsys, name: str) -> tuple[int, bytes, str]:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(config))
    out = tmp_path / f"{name}.csv"
    code = main(["anonymize", str(path), "--output", str(out), "--engine", engine])
    captured = capsys.readouterr()
    return code, out.read_bytes() if out.exists() else b"", captured.err


@pytest.mark.parametrize("spec", [H3, GRID], ids=["h3", "geo-grid"])
def test_duckdb_writes_the_pandas_bytes_on_the_sample(tmp_path, capsys, spec):
    config = _config(SAMPLE, spec)
    code_p, pandas_bytes, _ = _run(tmp_path, config, "pandas", capsys, "p")
    code_d, duckdb_bytes, _ = _run(tmp_path, config, "duckdb", capsys, "d")
    assert code_p == code_d == 0
    assert duckdb_bytes == pandas_bytes
    header = duckdb_bytes.split(b"\n", 1)[0]
    assert header == b"location,town,age,sex,diagnosis"


def test_duckdb_formats_ties_negatives_and_long_decimals_as_pandas(tmp_path, capsys):
    lats = ["0.0000005", "-0.0000005", "0.0000015", "-0.0000001", "52.3456786", "-33.8688197",
            "45.1234564999", "1e-7", "89.9999999", "-89.99999951", "12.5", "0"]  # fmt: skip
    lons = ["0.0000025", "-0.0000035", "179.9999995", "-0.00000049", "-122.4194151", "151.2092955",
            "7.0000005", "-1e-7", "-179.9999999", "0.0000045", "-0.5", "-0.0"]  # fmt: skip
    rows = ["id,lat,lon,sex"] + [
        f"{i},{a},{b},F" for i, (a, b) in enumerate(zip(lats, lons, strict=True))
    ]
    data = tmp_path / "points.csv"
    data.write_text("\n".join(rows) + "\n")
    config = _config(data, H3)
    config["attributes"] = {"id": {"role": "identifier"}, "sex": {"role": "quasi-identifier"}}
    config.update(privacy_models=[{"model": "k-anonymity", "k": 1}], suppression_limit=0.0)
    config["transformation"] = {"location": 0, "sex": 0}  # the location text itself
    code_p, pandas_bytes, _ = _run(tmp_path, config, "pandas", capsys, "p")
    code_d, duckdb_bytes, _ = _run(tmp_path, config, "duckdb", capsys, "d")
    assert code_p == code_d == 0
    assert duckdb_bytes == pandas_bytes
    released = pd.read_csv(tmp_path / "d.csv", dtype=str)
    assert released["location"].iloc[4] == "52.345679,-122.419415"  # worked by hand (no tie)
    assert released["location"].iloc[10] == "12.500000,-0.500000"


def test_duckdb_reads_a_parquet_input_as_pandas_does(tmp_path, capsys):
    pytest.importorskip("pyarrow")
    parquet = tmp_path / "geo.parquet"
    pd.read_csv(SAMPLE).to_parquet(parquet, index=False)
    config = _config(parquet, H3)
    code_p, pandas_bytes, _ = _run(tmp_path, config, "pandas", capsys, "p")
    code_d, duckdb_bytes, _ = _run(tmp_path, config, "duckdb", capsys, "d")
    assert code_p == code_d == 0 and duckdb_bytes == pandas_bytes


@pytest.mark.parametrize(
    "edit, expected",
    [
        ({3: ("95.0", None), 8: ("-91", None)}, "2 row(s) have coordinates outside latitude"),
        ({3: ("", None)}, "1 row(s) have no location (1 with only one of latitude/longitude"),
        ({3: ("north", None)}, "1 row(s) have a latitude or longitude that is not a number"),
    ],
    ids=["range", "lone", "text"],
)
def test_bad_coordinates_are_the_same_one_line_on_both_engines(tmp_path, capsys, edit, expected):
    frame = pd.read_csv(SAMPLE, dtype=str).head(60)
    for row, (lat, _) in edit.items():
        frame.loc[row, "lat"] = lat
    data = tmp_path / "bad.csv"
    frame.to_csv(data, index=False)
    config = _config(data, H3)
    code_p, _, err_p = _run(tmp_path, config, "pandas", capsys, "p")
    code_d, _, err_d = _run(tmp_path, config, "duckdb", capsys, "d")
    assert code_p == code_d == 2
    assert err_d == err_p and err_d.count("\n") == 1 and err_d.startswith("error: ")
    assert expected in err_d
    assert not (tmp_path / "d.csv").exists()


def test_spark_and_a_duckdb_point_column_refuse_in_one_line(tmp_path, capsys):
    code, _, err = _run(tmp_path, _config(SAMPLE, H3), "spark", capsys, "s")
    assert code == 2 and err.count("\n") == 1
    assert "the spark engine does not do. Use engine: pandas or duckdb" in err
    frame = pd.read_csv(SAMPLE)
    frame["home"] = [f"POINT ({b} {a})" for a, b in zip(frame.lat, frame.lon, strict=True)]
    data = tmp_path / "points.csv"
    frame.drop(columns=["lat", "lon"]).to_csv(data, index=False)
    config = _config(data, H3)
    config["geo"] = {"point": "home", "hierarchy": H3}
    code, _, err = _run(tmp_path, config, "duckdb", capsys, "d")
    assert code == 2 and err.count("\n") == 1
    assert "from a WKT/GeoJSON point column, which the duckdb engine does not do" in err


def test_a_file_opened_by_path_releases_the_location_as_the_cli(tmp_path, capsys):
    from anon_core.data.frequency import FrequencyTable
    from anon_core.release.engines.large import LargeTable
    from anon_core.search.lattice import search
    from anon_core.workspace import Workspace

    ws = Workspace.from_large(LargeTable.open(SAMPLE, "duckdb", sample_rows=500))
    ws.update("roles", roles={**ws.roles, "town": "insensitive"})
    ws.apply_location(H3, latitude="lat", longitude="lon")
    assert ws.large.source.columns[:3] == ("patient_id", "location", "lat")
    assert len(ws.frame) == 500 and ws.n_rows == 2500
    found = search(ws.evaluator(FrequencyTable(ws.dataset())))
    out = tmp_path / "dashboard.csv"
    ws.write_release(found.optimum, out)
    config = ws.to_config(input_path=str(SAMPLE))
    config.pop("engine", None)
    code, pandas_bytes, _ = _run(tmp_path, config, "pandas", capsys, "p")
    assert code == 0 and out.read_bytes() == pandas_bytes
    ws.undo()  # the file as opened again
    assert "location" not in ws.large.source.columns and ws.large.origin is None
