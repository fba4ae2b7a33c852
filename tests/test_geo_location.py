"""The ``geo`` section makes a latitude/longitude pair (or a WKT/GeoJSON point column) ONE
location quasi-identifier.

Oracles: cells worked by hand on the equator (the equirectangular grid without pyproj, whose
metres are degrees x pi R / 180), a brute-force pass over every node of a small lattice (pandas
group sizes on keys computed here from the metres, not from the code under test), and
k-anonymity / l-diversity checked on the released rows themselves.
"""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pandas as pd
import pytest

import anon_core.geo.hierarchy as gh
from anon_core.cli import EXIT_BAD_INPUT, main
from anon_core.config import parse_config
from anon_core.data.dataset import Role
from anon_core.errors import AnonError, ConfigError, DataError
from anon_core.services.geo import location_suggestion
from anon_core.services.session import Session

R = 6_371_008.8
PER_DEG = math.pi * R / 180.0
#: 12 people at 100-200 m east of (0, 0), 6 at 300-400 m and 6 at 600-700 m, all 50 m north.
X = np.concatenate([np.linspace(100, 200, 12), np.linspace(300, 400, 6), np.linspace(600, 700, 6)])
SEX = ["F", "M"] * 6 + ["F", "M"] * 3 + ["F"] * 6
GRID = {"builder": "geo-grid", "cell_m": 250, "levels": 3}


def frame_xy() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "pid": range(len(X)),
            "lat": 50 / PER_DEG,
            "lon": X / PER_DEG,
            "sex": SEX,
            "diagnosis": ["a", "b", "c"] * 8,
        }
    )


def config(k: int = 3, geo: dict | None = None, **extra) -> dict:
    out = {
        "attributes": {
            "pid": {"role": "identifier"},
            "lat": {"role": "quasi-identifier"},  # overridden: a source column is removed
            "sex": {"role": "quasi-identifier"},
            "diagnosis": {"role": "sensitive"},
        },
        "privacy_models": [{"model": "k-anonymity", "k": k}],
        "suppression_limit": 0.0,
        "geo": geo or {"latitude": "lat", "longitude": "lon", "hierarchy": GRID},
    }
    out.update(extra)
    return out


@pytest.fixture
def equirectangular(monkeypatch):
    monkeypatch.setattr(gh, "have", lambda module: False)  # cells checkable by hand


def centre(x_m: float, y_m: float) -> str:
    return f"{y_m / PER_DEG:.5f},{x_m / PER_DEG:.5f}"


# ------------------------------------------------------------------ the configuration
def test_the_pair_becomes_one_quasi_identifier_and_the_sources_identifiers():
    parsed = parse_config(config())
    assert parsed.roles["location"] == Role.QUASI_IDENTIFIER
    assert parsed.roles["lat"] == Role.IDENTIFIER and parsed.roles["lon"] == Role.IDENTIFIER
    assert [q for q, r in parsed.roles.items() if r == Role.QUASI_IDENTIFIER] == ["location", "sex"]
    assert parsed.hierarchy_specs["location"] == GRID
    # without a hierarchy the section only names the columns (geomasking): roles unchanged
    plain = parse_config(config(geo={"latitude": "lat", "longitude": "lon"}))
    assert "location" not in plain.roles and plain.roles["lat"] == Role.QUASI_IDENTIFIER


@pytest.mark.parametrize(
    "geo, needle",
    [
        ({"latitude": "lat", "longitude": "lon", "hierarchy": {"builder": "masking"}}, "location builder"),
        ({"latitude": "lat", "longitude": "lon", "column": "loc"}, "add a hierarchy"),
        ({"point": "p", "latitude": "lat", "hierarchy": GRID}, "either"),
        ({"latitude": "lat", "longitude": "lon", "hierarchy": GRID, "column": "lat"}, "new column"),
        ({"latitude": "lat", "longitude": "lon", "hierarchy": GRID, "column": "sex"}, "names 'sex'"),
    ],
)  # fmt: skip
def test_bad_sections_give_one_config_error(geo, needle):
    with pytest.raises(ConfigError) as err:
        parse_config(config(geo=geo))
    assert needle in str(err.value) and "\n" not in str(err.value)


# ------------------------------------------------------------------ the search and the release
def brute_force_minimal(k: int) -> list[tuple[int, int]]:
    """Every minimal k-anonymous node (location level, sex level) of the lattice, by hand keys."""
    sizes = {1: 250, 2: 500, 3: 1000}

    def loc_key(level: int) -> np.ndarray:
        if level == 0:
            return X.astype(str)
        if level == 4:
            return np.full(len(X), "*")
        return np.floor(X / sizes[level]).astype(int).astype(str)

    ok = []
    for loc, sex in itertools.product(range(5), range(2)):
        keys = pd.DataFrame({"l": loc_key(loc), "s": SEX if sex == 0 else "*"})
        if keys.groupby(["l", "s"]).size().min() >= k:
            ok.append((loc, sex))
    return [n for n in ok if not any(m != n and m[0] <= n[0] and m[1] <= n[1] for m in ok)]


@pytest.mark.parametrize("k, expected", [(3, (1, 0)), (7, (3, 0)), (10, (3, 1))])
def test_search_on_the_location_matches_brute_force_and_releases_k_anonymous_rows(
    equirectangular, k, expected
):
    minimal = brute_force_minimal(k)
    assert minimal == [expected]  # one minimal node: every monotone metric's optimum
    session = Session.open(config(k), frame_xy())
    chosen = session.resolution().result.transformation
    assert (chosen["location"], chosen["sex"]) == expected
    released = session.release(scope="whole").table
    assert list(released.columns) == ["location", "sex", "diagnosis"]  # lat, lon, pid removed
    assert len(released) == len(X)
    assert released.groupby(["location", "sex"]).size().min() >= k
    if expected[0] == 1:  # 250 m cells centred at 125, 375 and 625 m east, 125 m north
        assert set(released["location"]) == {
            f"{centre(x, 125)} (250 m cell)" for x in (125, 375, 625)
        }
    if expected[0] == 3:
        assert set(released["location"]) == {f"{centre(500, 500)} (1,000 m cell)"}


def test_l_diversity_and_risk_hold_on_the_released_location(equirectangular):
    raw = config(3)
    raw["privacy_models"].append(
        {"model": "distinct-l-diversity", "l": 3, "attribute": "diagnosis"}
    )
    session = Session.open(raw, frame_xy())
    release = session.release(scope="whole")
    classes = release.table.groupby(["location", "sex"])
    assert classes.size().min() >= 3 and classes["diagnosis"].nunique().min() >= 3
    evidence = session.evidence(release, n_attacks=20, utility=False)
    # spatial risk of the cells' centroids (250 m cells centred 125, 375 and 625 m east): the
    # attacker links each centroid to its nearest original point, by hand x = 127.3 of the first
    # cell's 12, 380 of the second's 6 and 620 of the third's 6: 3 of 24 people re-identified
    assert evidence.figures["nn_reidentification"]["value"] == pytest.approx(3 / 24)
    risk = evidence.figures["highest_prosecutor_risk"]["value"]
    assert risk is not None and risk <= 1 / 3 + 1e-12


def test_h3_levels_through_the_section():
    h3 = pytest.importorskip("h3")
    frame = frame_xy()
    geo = {
        "latitude": "lat",
        "longitude": "lon",
        "hierarchy": {"builder": "h3", "resolutions": [11, 9, 7]},
    }
    released = Session.open(config(3, geo=geo), frame).release(scope="whole").table
    assert len(released) == len(frame) and released.groupby(["location", "sex"]).size().min() >= 3
    for value, lat, lon in zip(released["location"], frame["lat"], frame["lon"], strict=True):
        cid = value.split("(H3 ")[1].rstrip(")")  # the value is the cell's centroid and its id
        finest = h3.latlng_to_cell(float(lat), float(lon), 11)
        assert cid == h3.cell_to_parent(finest, h3.get_resolution(cid))
        clat, clon = h3.cell_to_latlng(cid)
        assert value == f"{clat:.5f},{clon:.5f} (H3 {cid})"


# ------------------------------------------------------------------ point columns
def test_wkt_and_geojson_point_columns_release_the_same_cells(equirectangular):
    frame = frame_xy()
    pair = Session.open(config(3), frame).release(scope="whole").table
    wkt = frame.drop(columns=["lat", "lon"]).assign(
        home=[f"POINT ({b!r} {a!r})" for a, b in zip(frame["lat"], frame["lon"], strict=True)]
    )
    geojson = frame.drop(columns=["lat", "lon"]).assign(
        home=[
            json.dumps({"type": "Point", "coordinates": [b, a]})
            for a, b in zip(frame["lat"], frame["lon"], strict=True)
        ]
    )
    for table in (wkt, geojson):
        geo = {"point": "home", "hierarchy": GRID}
        raw = config(3, geo=geo)
        del raw["attributes"]["lat"]
        released = Session.open(raw, table).release(scope="whole").table
        assert "home" not in released.columns
        pd.testing.assert_frame_equal(
            released[["location", "sex", "diagnosis"]].reset_index(drop=True),
            pair.reset_index(drop=True),
        )


def test_bad_point_values_give_one_error_with_the_count_and_no_value():
    frame = frame_xy().drop(columns=["lat", "lon"])
    frame["home"] = ["POINT (5.1 52.1)"] * 20 + [
        "Elm Street 4",
        '{"type": "Polygon"}',
        "",
        "POINT (5.1)",
    ]
    raw = config(3, geo={"point": "home", "hierarchy": GRID})
    del raw["attributes"]["lat"]
    with pytest.raises(DataError) as err:
        Session.open(raw, frame).release()
    text = str(err.value)
    assert "4 row(s) of column 'home' are not points" in text and "POINT (lon" not in text
    assert "Elm" not in text and "\n" not in text


def test_cli_missing_coordinate_is_one_line_without_values(tmp_path, capsys):
    frame = frame_xy()
    frame.loc[3, "lon"] = None
    frame.to_csv(tmp_path / "in.csv", index=False)
    raw = config(3, input={"path": "in.csv"})
    (tmp_path / "c.json").write_text(json.dumps(raw))
    out = tmp_path / "out.csv"
    code = main(["anonymize", str(tmp_path / "c.json"), "--output", str(out)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == EXIT_BAD_INPUT and len(err) == 1 and err[0].startswith("error: ")
    assert "1 row(s) have no location (1 with only one" in err[0]
    assert f"{frame.loc[3, 'lat']}"[:8] not in err[0]
    assert not out.exists()


def test_scale_engine_and_geomasking_refuse_a_generalized_location(tmp_path):
    frame = frame_xy()
    frame.to_csv(tmp_path / "in.csv", index=False)
    raw = config(3, input={"path": "in.csv"}, engine="spark")
    with pytest.raises(ConfigError, match="spark engine does not do"):
        Session.open(raw, base_dir=tmp_path).resolution()
    raw = config(3, input={"path": "in.csv"}, engine="duckdb")  # DuckDB derives the column
    found = Session.open(raw, base_dir=tmp_path).resolution().result.transformation
    assert found == Session.open(raw, frame).resolution().result.transformation
    raw = config(3, method={"name": "geomask-donut"})
    with pytest.raises(AnonError, match="remove 'hierarchy'"):
        Session.open(raw, frame).release()


def test_the_attributes_page_suggests_a_pair_whose_names_and_ranges_fit():
    frame = pd.DataFrame({"Latitude": [52.1, 52.1, 52.3, 51.9], "lng": [5.1, 5.1, 4.9, 5.2]})
    hint = location_suggestion(frame)
    assert (hint["latitude"], hint["longitude"]) == ("Latitude", "lng")
    # by hand: 4 of 4 rows in range; rows 3 and 4 have a pair no other row has (2 of 4 = 50 %)
    assert "4 of 4 rows hold numbers within -90..90" in hint["reason"]
    assert "2 rows (50%) have a pair no other row has, so most people" in hint["reason"]
    assert "52.1" not in hint["reason"]  # counts and names, never values
    section = json.loads("{" + hint["config"] + "}")["geo"]
    assert parse_config(config(geo=section)).roles["location"] == Role.QUASI_IDENTIFIER
    assert location_suggestion(frame.assign(Latitude=[95.0, 1, 2, 3])) is None  # out of range
    assert location_suggestion(frame.rename(columns={"Latitude": "y"})) is None  # names


def test_the_dashboard_loads_a_generalized_location():
    from anon_core.workspace import Workspace

    ws = Workspace.from_config(config(3), frame_xy())
    assert "location" in ws.qis and ws.roles["lat"] == ws.roles["lon"] == "identifier"


def test_geomasking_a_point_column_writes_wkt_back_within_the_ring():
    frame = frame_xy()
    frame["home"] = [
        f"POINT ({b!r} {a!r})" for a, b in zip(frame["lat"], frame["lon"], strict=True)
    ]
    frame = frame.drop(columns=["lat", "lon"])
    raw = config(3, geo={"point": "home"})
    raw["attributes"] = {"pid": {"role": "identifier"}, "sex": {"role": "quasi-identifier"}}
    raw["method"] = {"name": "geomask-donut", "min_distance_m": 100, "max_distance_m": 200}
    session = Session.open(raw, frame)
    release = session.release(scope="whole")
    moved = release.table["home"].str.extract(r"^POINT \((\S+) (\S+)\)$").astype(float)
    lat0, lon0 = 50 / PER_DEG, X / PER_DEG
    # independent haversine on the same sphere
    p1, p2 = np.radians(lat0), np.radians(moved[1].to_numpy())
    h = (
        np.sin((p2 - p1) / 2) ** 2
        + np.cos(p1) * np.cos(p2) * np.sin(np.radians(moved[0].to_numpy() - lon0) / 2) ** 2
    )
    d = 2 * R * np.arcsin(np.sqrt(h))
    assert ((d >= 100 - 0.2) & (d <= 200 + 0.2)).all()  # WKT keeps 6 decimals (~0.1 m)
    figures = session.evidence(release, n_attacks=20, utility=False).figures
    assert figures["displacement_median_m"]["value"] == pytest.approx(np.median(d), abs=1e-3)
    assert figures["nn_reidentification"]["value"] is not None


@pytest.mark.parametrize("command", [["risk"], ["attack", "--n-attacks", "20"]])
def test_risk_and_attack_commands_take_the_generalized_location(tmp_path, capsys, command):
    frame_xy().to_csv(tmp_path / "in.csv", index=False)
    (tmp_path / "c.json").write_text(json.dumps(config(3, input={"path": "in.csv"})))
    code = main([command[0], str(tmp_path / "c.json"), *command[1:]])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "location" in captured.out
