"""Location as one quasi-identifier: the geo-grid and h3 hierarchy builders in the lattice.

Oracles: a square grid worked by hand on the equator (without pyproj: the equirectangular grid,
whose metres are degrees x pi R / 180), h3's own parent relation, and a brute-force pass over
the hierarchy's levels (pandas group sizes) for the search's optimum; k-anonymity is checked on
the released rows themselves.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import anon_core.geo.hierarchy as gh
from anon_core.data.builders import build_hierarchy
from anon_core.errors import AnonError
from anon_core.geo.hierarchy import point_column
from anon_core.services.session import Session

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "sample_data"))
from generate_geo import generate  # noqa: E402

R = 6_371_008.8
PER_DEG = math.pi * R / 180.0


def east(metres: float) -> str:
    """The point ``metres`` east of (0, 0) as 'lat,lon' text."""
    return f"0.0,{metres / PER_DEG:.9f}"


def centre(x_m: float, y_m: float) -> str:
    return f"{y_m / PER_DEG:.5f},{x_m / PER_DEG:.5f}"


def test_hand_worked_square_grid_nests_by_doubling(monkeypatch):
    monkeypatch.setattr(gh, "have", lambda module: False)  # equirectangular: checkable by hand
    values = [east(100), east(900), east(1100), east(2100), east(-100)]
    h = build_hierarchy({"builder": "geo-grid", "cell_m": 1000, "levels": 2}, values, "loc")
    rows = {r[0]: list(r[1:]) for r in h.table}
    # 1 km cells [0, 1000), [1000, 2000), [2000, 3000), [-1000, 0): centres 500, 1500, 2500, -500
    # 2 km cells [0, 2000), [2000, 4000), [-2000, 0): centres 1000, 3000, -1000; the points lie on
    # y = 0, in the cells [0, 1000) and [0, 2000) north-south: centres 500 and 1000 m north
    assert rows[east(100)] == [
        f"{centre(500, 500)} (1,000 m cell)",
        f"{centre(1000, 1000)} (2,000 m cell)",
        "*",
    ]
    assert rows[east(900)] == rows[east(100)]
    assert rows[east(1100)] == [
        f"{centre(1500, 500)} (1,000 m cell)",
        f"{centre(1000, 1000)} (2,000 m cell)",
        "*",
    ]
    assert rows[east(2100)] == [
        f"{centre(2500, 500)} (1,000 m cell)",
        f"{centre(3000, 1000)} (2,000 m cell)",
        "*",
    ]
    assert rows[east(-100)] == [
        f"{centre(-500, 500)} (1,000 m cell)",
        f"{centre(-1000, 1000)} (2,000 m cell)",
        "*",
    ]


def test_square_levels_nest_and_centres_are_within_half_a_diagonal():
    frame = generate(400, seed=4)
    values = point_column(frame["lat"], frame["lon"]).unique()
    h = build_hierarchy({"builder": "geo-grid", "cell_m": 250, "levels": 4}, values, "loc")
    table = pd.DataFrame(h.table)
    for level in range(1, 4):  # each cell has one parent
        assert (table.groupby(level)[level + 1].nunique() == 1).all()
    for level, size in enumerate([250, 500, 1000, 2000], start=1):
        lat, lon = gh.parse_points(table[0].tolist())
        clat, clon = gh.parse_points([v.split(" (")[0] for v in table[level]])
        dy = (clat - lat) * PER_DEG
        dx = (clon - lon) * PER_DEG * np.cos(np.radians(lat))
        assert np.hypot(dx, dy).max() <= size * math.sqrt(2) / 2 * 1.01


def test_h3_levels_are_h3_parents():
    h3 = pytest.importorskip("h3")
    frame = generate(200, seed=5)
    values = point_column(frame["lat"], frame["lon"]).unique()
    h = build_hierarchy({"builder": "h3", "resolutions": [9, 7, 5]}, values, "loc")
    for row in h.table:
        lat, lon = (float(x) for x in row[0].split(","))
        cell9 = h3.latlng_to_cell(lat, lon, 9)
        ids = [v.split("(H3 ")[1].rstrip(")") for v in row[1:4]]
        assert ids == [cell9, h3.cell_to_parent(cell9, 7), h3.cell_to_parent(cell9, 5)]
        assert row[4] == "*"


@pytest.mark.parametrize(
    "spec, values, needle",
    [
        ({"builder": "geo-grid"}, ["52.1,5.1", "north"], "not points in range"),
        ({"builder": "geo-grid"}, ["95.0,5.1"], "latitude in [-90, 90]"),
        ({"builder": "geo-grid", "cell_m": 0}, ["52.1,5.1"], "cell_m"),
        ({"builder": "h3", "resolutions": [5, 7]}, ["52.1,5.1"], "finest to coarsest"),
        ({"builder": "geo-grid", "radius": 3}, ["52.1,5.1"], "radius"),
    ],
)
def test_bad_specs_and_values_give_one_message(spec, values, needle):
    with pytest.raises(AnonError) as err:
        build_hierarchy(spec, values, "loc")
    assert needle in str(err.value) and "\n" not in str(err.value)


def _config(k: int, levels: int, suppression: float) -> dict:
    return {
        "attributes": {
            "patient_id": {"role": "identifier"},
            "lat": {"role": "identifier"},
            "lon": {"role": "identifier"},
            "town": {"role": "insensitive"},
            "age": {"role": "insensitive"},
            "sex": {"role": "insensitive"},
            "diagnosis": {"role": "sensitive"},
            "location": {
                "role": "quasi-identifier",
                "hierarchy": {"builder": "geo-grid", "cell_m": 250, "levels": levels},
            },
        },
        "privacy_models": [{"model": "k-anonymity", "k": k}],
        "suppression_limit": suppression,
    }


@pytest.mark.parametrize("k, level", [(5, 1), (7, 3), (24, 3)])
def test_hand_worked_search_picks_the_lowest_k_anonymous_cell_size(monkeypatch, k, level):
    # On the equator, 50 m north (equirectangular grid, cells from (0, 0)): 12 people at
    # x = 100-200 m, 6 at 300-400 m, 6 at 600-700 m. 250 m cells: 12, 6, 6 (k=5 holds);
    # 500 m: 18 in [0, 500), 6 in [500, 1000) (k=7 fails); 1 km: all 24 in [0, 1000) (k=7 and
    # k=24 hold).
    monkeypatch.setattr(gh, "have", lambda module: False)
    x = np.concatenate(
        [np.linspace(100, 200, 12), np.linspace(300, 400, 6), np.linspace(600, 700, 6)]
    )
    frame = pd.DataFrame(
        {
            "patient_id": range(24),
            "lat": 50 / PER_DEG,
            "lon": x / PER_DEG,
            "town": "t",
            "age": 40,
            "sex": "F",
            "diagnosis": ["a", "b", "c"] * 8,
        }
    )
    frame["location"] = point_column(frame["lat"], frame["lon"], decimals=9)
    released = Session.open(_config(k, 4, 0.0), frame).release(scope="whole").table
    assert released.groupby("location").size().min() >= k
    expected = {
        1: {
            f"{centre(125, 125)} (250 m cell)",
            f"{centre(375, 125)} (250 m cell)",
            f"{centre(625, 125)} (250 m cell)",
        },
        3: {f"{centre(500, 500)} (1,000 m cell)"},
    }[level]
    assert set(released["location"]) == expected


def test_search_on_the_sample_releases_k_anonymous_cells():
    frame = generate(1500, seed=6)
    frame["location"] = point_column(frame["lat"], frame["lon"])
    k = 10
    release = Session.open(_config(k, 8, 0.05), frame).release(scope="whole")
    released = release.table
    assert "lat" not in released.columns and "lon" not in released.columns
    # k-anonymity on the released rows themselves (suppressed rows are removed)
    sizes = released.groupby("location").size()
    assert sizes.min() >= k
    assert len(released) >= 0.95 * len(frame)
    assert released["location"].str.endswith("m cell)").all()  # some detail kept (not '*')


@pytest.mark.parametrize(
    "hierarchy",
    [
        {"builder": "geo-grid", "cell_m": 250, "levels": 8},
        {"builder": "h3", "resolutions": [9, 7, 5, 3]},
    ],
)
def test_duckdb_engine_releases_the_same_cells_as_pandas(tmp_path, capsys, hierarchy):
    import json

    from anon_core.cli import main

    if hierarchy["builder"] == "h3":
        pytest.importorskip("h3")
    frame = generate(3000, seed=6)
    frame["location"] = point_column(frame["lat"], frame["lon"])
    frame.to_csv(tmp_path / "in.csv", index=False)
    config = _config(10, 8, 0.05)
    config["attributes"]["location"]["hierarchy"] = hierarchy
    config["input"] = {"path": "in.csv"}
    out = {}
    for engine in ("pandas", "duckdb"):
        config["engine"] = engine
        (tmp_path / f"{engine}.json").write_text(json.dumps(config))
        target = tmp_path / f"{engine}.csv"
        code = main(["anonymize", str(tmp_path / f"{engine}.json"), "--output", str(target)])
        assert code == 0, capsys.readouterr().err
        out[engine] = pd.read_csv(target)
    assert out["pandas"].equals(out["duckdb"])
    assert out["duckdb"].groupby("location").size().min() >= 10
