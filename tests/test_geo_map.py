"""The offline map of point locations: what it draws, what it never draws, and that it needs no
network (no URL, no tile source, no geo layout in the figure)."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from anon_core.services.geo import MIN_CELL, location_columns, location_map
from anon_core.workspace import Workspace
from ui.geo_map import location_figure

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "sample_data"))
from generate_geo import generate  # noqa: E402

APP = ROOT / "app.py"
R = 6_371_008.8
GEO = {"latitude": "lat", "longitude": "lon"}


def _no_network(spec: dict) -> None:
    """No URL anywhere, no tiles, no geo/mapbox/map subplot, only cartesian traces."""
    text = json.dumps(spec)
    assert "http" not in text.lower()
    layout = spec.get("layout", {})
    for key in layout:
        assert not key.startswith(("geo", "mapbox", "map")), key
    types = {t.get("type") for t in spec.get("data", [])}
    assert types <= {"scattergl", "heatmap"}, types


# ------------------------------------------------------------------ which columns
def test_location_columns_from_the_section_or_by_name_and_range():
    frame = pd.DataFrame({"Latitude": [52.1, 52.2], "lng": [5.1, 5.2], "x": [1, 2]})
    assert location_columns({}, frame) == ("Latitude", "lng")
    assert location_columns({"geo": {"latitude": "x", "longitude": "lng"}}, frame) == ("x", "lng")
    # out of range, or not numbers: not locations
    assert location_columns({}, frame.assign(Latitude=[95.0, 52.0])) is None
    assert location_columns({}, frame.assign(lng=["a", "b"])) is None
    assert location_columns({}, frame.drop(columns="lng")) is None
    # a section naming absent columns draws nothing
    assert location_columns({"geo": {"latitude": "a", "longitude": "b"}}, frame) is None


# ------------------------------------------------------------------ what is drawn
def test_hand_worked_grid_hides_small_cells_and_raw_points():
    # 7 people at one home, 3 at another 20 km east: the extent is 20 km, so 40 cells across
    # give 500 m cells; the 3-person cell is under 5 and is not drawn.
    east = math.degrees(20_000 / (R * math.cos(math.radians(52.0))))
    lat = [52.0] * 7 + [52.0] * 3
    lon = [5.0] * 7 + [5.0 + east] * 3
    original = pd.DataFrame({"lat": lat, "lon": lon})
    released = pd.DataFrame({"lat": [52.001] * 10, "lon": [5.001] * 10})
    m = location_map(original, released, ("lat", "lon"))
    d = m.density
    assert d.cell_m == 500.0
    drawn = d.counts[np.isfinite(d.counts)]
    assert drawn.tolist() == [7.0]  # one cell drawn, with its 7 people
    assert d.hidden_points == 3 and d.hidden_cells == 1
    assert m.original is None and m.segments is None  # no raw location unless asked
    assert m.released_total == 10 and len(m.released[0]) == 10
    assert any("3 original point(s)" in n for n in m.notes)
    shown = location_map(original, released, ("lat", "lon"), show_points=True)
    assert len(shown.original[0]) == 10
    # 10 segments of (true, released, gap)
    assert len(shown.segments[0]) == 30 and np.isnan(shown.segments[0][2::3]).all()


def test_figure_has_no_url_tile_or_geo_layout_and_units_on_the_axes():
    frame = generate(500, seed=3)
    moved = frame.assign(lat=frame["lat"] + 0.001)
    for show in (False, True):
        fig = location_figure(location_map(frame, moved, ("lat", "lon"), show_points=show))
        spec = json.loads(fig.to_json())
        _no_network(spec)
        assert spec["layout"]["xaxis"]["title"]["text"] == "longitude (°)"
        assert spec["layout"]["yaxis"]["title"]["text"] == "latitude (°)"
        assert spec["layout"]["yaxis"]["scaleanchor"] == "x"
        names = [t.get("name") for t in spec["data"]]
        assert ("original (personal data)" in names) == show
        heat = next(t for t in fig.data if t.type == "heatmap")
        z = np.asarray(heat.z, dtype=float)
        assert np.isfinite(z).any() and np.nanmin(z) >= MIN_CELL


# ------------------------------------------------------------------ the pages
def _plotly(at: AppTest, key: str) -> dict:
    charts = {c.proto.id: json.loads(c.proto.spec) for c in at.get("plotly_chart")}
    match = [spec for cid, spec in charts.items() if key in cid]
    assert match, f"no chart {key!r} among {list(charts)}"
    return match[0]


@pytest.fixture(scope="module")
def geo_workspace() -> Workspace:
    frame = generate(800, seed=2)
    ws = Workspace.from_frame(frame, source="geo_patients.csv")
    sections = dict(ws.sections)
    sections["geo"] = GEO
    sections["method"] = {"name": "geomask-donut", "min_distance_m": 50, "max_distance_m": 300}
    ws.update("geo", sections=sections)
    return ws


@pytest.mark.parametrize("page", ["pages/data.py", "pages/evaluate.py", "pages/release.py"])
def test_pages_draw_the_map_of_the_geocoded_sample(geo_workspace, page):
    at = AppTest.from_file(str(APP), default_timeout=240)
    at.run()
    at.session_state["workspace"] = geo_workspace
    at.switch_page(page).run()
    assert not at.exception, at.exception
    key = page.split("/")[1].removesuffix(".py")
    spec = _plotly(at, f"{key}_geo_map")
    _no_network(spec)
    names = [t.get("name") for t in spec["data"]]
    assert "original density" in names and "original (personal data)" not in names
    assert ("released" in names) == (page != "pages/data.py")
    assert any("nothing leaves this machine" in c.value for c in at.caption)
    if page != "pages/data.py":  # the release keeps the rows: Ripley's L of both
        ripley = _plotly(at, f"{key}_geo_ripley")
        assert [t["name"] for t in ripley["data"]][1:] == ["original", "released"]


def test_raw_points_only_after_ticking_the_box(geo_workspace):
    at = AppTest.from_file(str(APP), default_timeout=240)
    at.run()
    at.session_state["workspace"] = geo_workspace
    at.switch_page("pages/data.py").run()
    names = [t.get("name") for t in _plotly(at, "data_geo_map")["data"]]
    assert "original (personal data)" not in names
    at.checkbox(key="data_geo_raw").check().run()
    assert not at.exception, at.exception
    names = [t.get("name") for t in _plotly(at, "data_geo_map")["data"]]
    assert "original (personal data)" in names


def test_attributes_page_suggests_the_location_pair_with_its_reason():
    ws = Workspace.from_frame(generate(400, seed=3), source="geo_patients.csv")
    at = AppTest.from_file(str(APP), default_timeout=240)
    at.run()
    at.session_state["workspace"] = ws
    at.switch_page("pages/attributes.py").run()
    assert not at.exception, at.exception
    hints = [i.value for i in at.info if "look like a location" in i.value]
    assert len(hints) == 1 and "'lat' and 'lon'" in hints[0] and "400 of 400 rows" in hints[0]
    assert any('"builder": "h3"' in c.value for c in at.code)
