"""The dashboard runs a location made ONE quasi-identifier by the geo section exactly as the CLI:
the Attributes page applies the suggestion, the workspace searches and releases it, and
``anon-core anonymize`` / ``release`` with the workspace's configuration write the same bytes."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from anon_core.cli import main
from anon_core.data.frequency import FrequencyTable
from anon_core.errors import ConfigError, DataError
from anon_core.search.lattice import search
from anon_core.services.geo import location_map, location_suggestion, released_columns
from anon_core.services.session import Session
from anon_core.services.tables import table_bytes
from anon_core.workspace import Workspace

pytest.importorskip("h3")
ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_data" / "geo_patients.csv"
APP = ROOT / "app.py"
H3 = {"builder": "h3", "resolutions": [9, 7, 5, 3]}
GRID = {"builder": "geo-grid", "cell_m": 250.0, "levels": 6}


def _sample() -> pd.DataFrame:
    return pd.read_csv(SAMPLE)


def _dashboard_release(ws: Workspace) -> tuple[bytes, dict]:
    """What the Privacy and Release pages do: search the workspace's own problem, take the
    optimum, release it through the workspace's session, download the CSV."""
    found = search(ws.evaluator(FrequencyTable(ws.dataset())), **ws.search_options)
    assert found.optimum is not None
    ws.update("search", transformation=found.optimum.transformation, chosen_by="search")
    release = Session.from_workspace(ws).release()
    return table_bytes(release.table, "csv"), dict(found.optimum.transformation)


def _cli(tmp_path: Path, config: dict, capsys) -> tuple[bytes, bytes, dict]:
    path = tmp_path / "release.json"
    path.write_text(json.dumps(config))
    anonymized, released = tmp_path / "anonymized.csv", tmp_path / "released.csv"
    assert main(["anonymize", str(path), "--output", str(anonymized)]) == 0
    summary = json.loads(capsys.readouterr().out)
    args = ["release", str(path), "--method", "generalization", "--no-evidence"]
    assert main([*args, "--output", str(released)]) == 0
    capsys.readouterr()
    return anonymized.read_bytes(), released.read_bytes(), summary


@pytest.mark.parametrize("spec", [H3, GRID], ids=["h3", "geo-grid"])
def test_dashboard_and_cli_release_the_same_bytes(tmp_path, capsys, spec):
    ws = Workspace.from_frame(_sample(), source=str(SAMPLE))
    ws.apply_location(spec, latitude="lat", longitude="lon")
    config = ws.to_config(input_path=str(SAMPLE))
    config.pop("transformation", None)  # the CLI searches for itself
    dashboard, optimum = _dashboard_release(ws)
    anonymized, released, summary = _cli(tmp_path, config, capsys)
    assert summary["transformation"] == optimum
    assert dashboard == anonymized == released
    frame = pd.read_csv(tmp_path / "anonymized.csv", dtype=str, keep_default_na=False)
    # the coordinates and the identifier are gone; the location sits where 'lat' was
    assert list(frame.columns) == ["location", "town", "age", "sex", "diagnosis"]
    assert frame.groupby(["location", "town", "age", "sex"]).size().min() >= 5


def test_polygon_layer_uploaded_inline_releases_the_same_bytes(tmp_path, capsys):
    frame = _sample()
    mid = float(frame["lon"].median())
    lo, hi = frame["lat"].min() - 1, frame["lat"].max() + 1
    west, east = frame["lon"].min() - 1, frame["lon"].max() + 1

    def box(name, a, b):
        ring = [[a, lo], [b, lo], [b, hi], [a, hi], [a, lo]]
        return {"type": "Feature", "properties": {"name": name, "parent": "all"},
                "geometry": {"type": "Polygon", "coordinates": [ring]}}  # fmt: skip

    layer = {
        "type": "FeatureCollection",
        "features": [box("west", west, mid), box("east", mid, east)],
    }
    layer["features"].append({"type": "Feature", "properties": {"name": "all"}, "geometry": None})
    spec = {"builder": "polygons", "layer": layer, "name_property": "name"}
    ws = Workspace.from_frame(frame, source=str(SAMPLE))
    ws.update("roles", roles={**ws.roles, "town": "insensitive", "age": "insensitive"})
    ws.apply_location(spec, latitude="lat", longitude="lon")
    names = ws.hierarchy("location").to_frame()
    west_rows = (frame["lon"] < mid).sum()  # the boundary belongs to the first feature, west
    at_mid = (frame["lon"] == mid).sum()
    assert (names["level 1"] == "west").sum() <= west_rows + at_mid
    config = ws.to_config(input_path=str(SAMPLE))
    dashboard, _ = _dashboard_release(ws)
    anonymized, released, _ = _cli(
        tmp_path, {**config, "transformation": ws.transformation}, capsys
    )
    assert dashboard == anonymized == released
    out = pd.read_csv(tmp_path / "anonymized.csv", dtype=str, keep_default_na=False)
    assert set(out["location"]) <= {"west", "east", "all", "*"}


def test_workspace_views_and_undo():
    frame = _sample()
    ws = Workspace.from_frame(frame, source="geo_patients.csv")
    before_hash, before_config = ws.frame_hash, json.dumps(ws.config, sort_keys=True)
    ws.apply_location(H3, latitude="lat", longitude="lon")
    assert list(ws.frame.columns)[:3] == ["patient_id", "location", "lat"]
    assert ws.frame["location"].iloc[1] == "52.090950,5.099840"  # row 2 of the file, 6 decimals
    assert ws.roles["lat"] == ws.roles["lon"] == "identifier"
    assert ws.qis[0] == "location" and "lat" not in ws.qis
    assert ws.hierarchy_specs["location"] == H3
    assert "location" not in ws.to_config()["attributes"]  # its hierarchy is geo.hierarchy
    assert ws.frame_hash != before_hash
    # the location's role cannot be dropped through the roles view
    ws.update("roles", roles={**ws.roles, "location": "insensitive", "lat": "quasi-identifier"})
    assert ws.roles["location"] == "quasi-identifier" and ws.roles["lat"] == "identifier"
    with pytest.raises(ConfigError, match="location hierarchy"):
        ws.set_hierarchy("location", {"builder": "flat"})
    ws.set_hierarchy("location", GRID)
    assert ws.config["geo"]["hierarchy"] == GRID
    ws.undo()
    ws.undo()
    ws.undo()
    assert "location" not in ws.frame.columns and ws.frame_hash == before_hash
    assert json.dumps(ws.config, sort_keys=True) == before_config
    ws.redo()
    assert "location" in ws.frame.columns
    ws.remove_location()
    assert "location" not in ws.frame.columns and ws.config["geo"] == {
        "latitude": "lat",
        "longitude": "lon",
    }


def test_configuration_with_a_location_hierarchy_opens_in_the_dashboard(tmp_path):
    config = {
        "input": {"path": str(SAMPLE)},
        "geo": {"latitude": "lat", "longitude": "lon", "hierarchy": H3},
        "attributes": {"age": {"role": "quasi-identifier"}, "sex": {"role": "quasi-identifier"}},
        "privacy_models": [{"model": "k-anonymity", "k": 5}],
    }
    ws = Workspace.from_config(config, _sample(), base_dir=tmp_path)
    assert ws.qis == ["location", "age", "sex"]
    ws.load_config({**config, "geo": {"latitude": "lat", "longitude": "lon"}}, base_dir=tmp_path)
    assert "location" not in ws.frame.columns


def test_bad_coordinates_are_one_error_and_change_nothing():
    frame = _sample().head(50).copy()
    frame.loc[[3, 7], "lat"] = 95.0
    ws = Workspace.from_frame(frame)
    config = json.dumps(ws.config, sort_keys=True)
    with pytest.raises(DataError, match=r"^2 row\(s\) have coordinates outside latitude"):
        ws.apply_location(H3, latitude="lat", longitude="lon")
    assert json.dumps(ws.config, sort_keys=True) == config and not ws.history
    with pytest.raises(ConfigError, match="already has a column 'town'"):
        ws.apply_location(H3, latitude="lat", longitude="lon", column="town")


def test_sample_rounding_leaves_most_unique_and_the_location_fixes_it():
    frame = _sample()
    hint = location_suggestion(frame, ["town", "age", "sex"])
    assert hint is not None
    # an independent count: rows whose 2-decimal pair plus town, age and sex no other row has
    keys = list(
        zip(frame.lat.round(2), frame.lon.round(2), frame.town, frame.age, frame.sex, strict=True)
    )
    counts = pd.Series(keys).value_counts()
    unique = sum(counts[k] == 1 for k in keys) / len(keys)
    assert unique > 0.5
    assert f"{unique:.0%} with town, age, sex" in hint["reason"]
    ws = Workspace.from_frame(frame, source="geo_patients.csv")
    ws.apply_location(H3, latitude="lat", longitude="lon")
    found = search(ws.evaluator(FrequencyTable(ws.dataset())))
    assert found.optimum is not None
    released = Session.from_workspace(ws).release().table
    kept = released[released["sex"] != "*"]
    sizes = kept.groupby(["location", "town", "age", "sex"]).size()
    assert sizes.min() >= 5 and len(kept) >= 0.98 * len(frame)


def test_map_draws_a_point_column_and_generalized_centres():
    frame = pd.DataFrame(
        {
            "home": ["POINT (5.1 52.0)", '{"type": "Point", "coordinates": [5.2, 52.1]}', None],
            "cell": ["52.00000,5.10000 (H3 891f1d4a93bffff)", "52.1,5.2 (500 m cell)", "*"],
        }
    )
    m = location_map(frame, frame, ("home",), release_columns=("cell",))
    assert np.allclose(m.released[0], [5.1, 5.2]) and np.allclose(m.released[1], [52.0, 52.1])
    assert m.released_total == 2
    config = {"geo": {"point": "home", "hierarchy": H3, "column": "cell"}}
    assert released_columns(config, frame[["cell"]], ("home",)) == ("cell",)


def test_attributes_page_applies_the_location_suggestion():
    ws = Workspace.from_frame(_sample(), source="geo_patients.csv")
    at = AppTest.from_file(str(APP), default_timeout=240)
    at.run()
    at.session_state["workspace"] = ws
    at.switch_page("pages/attributes.py").run()
    assert not at.exception, at.exception
    at.button(key="geo_apply").click().run()
    assert not at.exception, at.exception
    ws = at.session_state["workspace"]
    assert ws.qis[0] == "location" and ws.config["geo"]["hierarchy"] == H3
    assert any("Location quasi-identifier" in s.value for s in at.success)
    at.selectbox(key="hier_column").select("location").run()
    assert not at.exception, at.exception
    assert ws.config["geo"]["hierarchy"] == H3  # showing the levels changes nothing
