"""A polygon layer (districts nested in regions by a parent property) as the location hierarchy.

The layer is made here by hand: four 1 x 1 degree districts around (0, 0), A1 and A2 north of the
equator in region North, B1 and B2 south of it in region South, both regions in Land. North has a
polygon of its own (ignored for the points: only the finest areas are matched); South is given by
name only. Which district holds each point, and the class sizes, are worked out by hand.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest

import anon_core.geo.polygons as gp
from anon_core.cli import EXIT_BAD_INPUT, main
from anon_core.config import parse_config
from anon_core.data.builders import build_hierarchy
from anon_core.errors import AnonError, ConfigError
from anon_core.services.session import Session

pytest.importorskip("shapely")


def square(lon0: float, lat0: float, size: float = 1.0) -> dict:
    ring = [[lon0, lat0], [lon0 + size, lat0], [lon0 + size, lat0 + size], [lon0, lat0 + size]]
    return {"type": "Polygon", "coordinates": [[*ring, ring[0]]]}


def feature(name: str, parent: str | None, geometry: dict | None) -> dict:
    props = {"name": name} if parent is None else {"name": name, "parent": parent}
    return {"type": "Feature", "properties": props, "geometry": geometry}


LAYER = {
    "type": "FeatureCollection",
    "features": [
        feature("A1", "North", square(0, 0)),
        feature("A2", "North", square(1, 0)),
        feature("B1", "South", square(0, -1)),
        feature("B2", "South", square(1, -1)),
        feature("North", "Land", square(0, 0, 2)),
        feature("South", "Land", None),
    ],
}
#: (lat, lon, district by hand): 4 in A1 (one on the A1/A2 border: the first in the file),
#: 3 in A2, 5 in B1, 2 in B2.
PEOPLE = (
    [(0.5, 0.5, "A1"), (0.2, 0.7, "A1"), (0.9, 0.1, "A1"), (0.5, 1.0, "A1")]
    + [(0.5, 1.5, "A2"), (0.1, 1.9, "A2"), (0.8, 1.2, "A2")]
    + [(-0.5, 0.5, "B1"), (-0.2, 0.3, "B1"), (-0.9, 0.9, "B1"), (-0.4, 0.6, "B1"), (-0.7, 0.2, "B1")]
    + [(-0.5, 1.5, "B2"), (-0.3, 1.8, "B2")]
)  # fmt: skip


def write(tmp_path, layer=LAYER, name="districts.geojson"):
    path = tmp_path / name
    path.write_text(json.dumps(layer))
    return path


def frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "lat": [p[0] for p in PEOPLE],
            "lon": [p[1] for p in PEOPLE],
            "diagnosis": ["a", "b"] * 7,
        }
    )


def config(k: int = 3, **hierarchy) -> dict:
    return {
        "attributes": {"diagnosis": {"role": "sensitive"}},
        "privacy_models": [{"model": "k-anonymity", "k": k}],
        "geo": {
            "latitude": "lat",
            "longitude": "lon",
            "hierarchy": {"builder": "polygons", "layer": "districts.geojson", **hierarchy},
        },
    }


def test_levels_are_district_region_land_then_star(tmp_path):
    path = write(tmp_path)
    values = [f"{lat},{lon}" for lat, lon, _ in PEOPLE]
    h = build_hierarchy({"builder": "polygons", "layer": str(path)}, values, "loc")
    rows = {r[0]: list(r[1:]) for r in h.table}
    for (_lat, _lon, district), value in zip(PEOPLE, values, strict=True):
        region = "North" if district.startswith("A") else "South"
        assert rows[value] == [district, region, "Land", "*"]


@pytest.mark.parametrize("k, level", [(2, 1), (3, 2), (7, 2), (8, 3)])
def test_search_releases_the_lowest_k_anonymous_level_names(tmp_path, k, level):
    write(tmp_path)
    # by hand: level 0 is the point itself (everyone alone); districts 4, 3, 5, 2 people;
    # regions 7 and 7; Land 14
    expected = {
        1: {"A1", "A2", "B1", "B2"},
        2: {"North", "South"},
        3: {"Land"},
    }[level]
    session = Session.open(config(k), frame(), base_dir=tmp_path)
    assert session.resolution().result.transformation == {"location": level}
    released = session.release(scope="whole").table
    assert list(released.columns) == ["location", "diagnosis"]
    assert set(released["location"]) == expected
    assert released.groupby("location").size().min() >= k
    truth = [p[2] for p in PEOPLE]
    if level == 1:
        assert released["location"].tolist() == truth
        release = session.release(scope="whole")
        why = session.evidence(release, n_attacks=20, utility=False).figures
        assert "released as names or '*'" in why["nn_reidentification"]["why"]


def test_points_outside_every_polygon_are_one_error_or_the_stated_label(tmp_path, capsys):
    write(tmp_path)
    table = pd.concat([frame(), pd.DataFrame({"lat": [5.0], "lon": [5.0], "diagnosis": ["a"]})])
    table = table.reset_index(drop=True)
    with pytest.raises(AnonError) as err:
        Session.open(config(2), table, base_dir=tmp_path).release()
    assert "1 distinct location(s) of 'location' lie in no polygon of districts.geojson" in str(
        err.value
    )
    assert "5.0" not in str(err.value)
    fixed = {**config(1, outside="elsewhere"), "transformation": {"location": 1}}
    released = Session.open(fixed, table, base_dir=tmp_path).release(scope="whole").table
    assert released["location"].tolist() == [p[2] for p in PEOPLE] + ["elsewhere"]
    # the CLI: one line, exit 2, no output file
    table.to_csv(tmp_path / "in.csv", index=False)
    (tmp_path / "c.json").write_text(json.dumps({**config(2), "input": {"path": "in.csv"}}))
    out = tmp_path / "out.csv"
    code = main(["anonymize", str(tmp_path / "c.json"), "--output", str(out)])
    lines = capsys.readouterr().err.strip().splitlines()
    assert code == EXIT_BAD_INPUT and len(lines) == 1 and "lie in no polygon" in lines[0]
    assert not out.exists()


def _layer_with(**change) -> dict:
    features = [dict(f, properties=dict(f["properties"])) for f in LAYER["features"]]
    for i, props in change.items():
        features[int(i[1:])]["properties"] = props
    return {"type": "FeatureCollection", "features": features}


@pytest.mark.parametrize(
    "layer, needle",
    [
        (_layer_with(f3={"name": "B2"}), "do not nest evenly"),
        (_layer_with(f1={"name": "A1", "parent": "North"}), "more than one feature"),
        (_layer_with(f0={"parent": "North"}), "no text property 'name'"),
        ({"type": "FeatureCollection", "features": [feature("P", None, {"type": "Point", "coordinates": [0, 0]})]}, "not a Polygon"),
        ({"type": "Feature"}, "not a GeoJSON FeatureCollection"),
        (_layer_with(f4={"name": "North", "parent": "A1"}), "deeper than"),
    ],
)  # fmt: skip
def test_bad_layers_give_one_message(tmp_path, layer, needle):
    path = write(tmp_path, layer)
    with pytest.raises(AnonError) as err:
        build_hierarchy({"builder": "polygons", "layer": str(path)}, ["0.5,0.5"], "loc")
    assert needle in str(err.value) and "\n" not in str(err.value)


def test_input_cost_is_bounded_before_parsing(tmp_path, monkeypatch):
    path = write(tmp_path)
    monkeypatch.setattr(gp, "MAX_LAYER_BYTES", 100)
    with pytest.raises(AnonError, match="more than the limit of"):
        build_hierarchy({"builder": "polygons", "layer": str(path)}, ["0.5,0.5"], "loc")
    monkeypatch.setattr(gp, "MAX_LAYER_BYTES", 10**6)
    monkeypatch.setattr(gp, "MAX_VERTICES", 12)  # 3 districts of 5 vertices pass 12
    with pytest.raises(AnonError, match="more than 12 vertices"):
        build_hierarchy({"builder": "polygons", "layer": str(path)}, ["0.5,0.5"], "loc")
    monkeypatch.setattr(gp, "MAX_VERTICES", 10**6)
    monkeypatch.setattr(gp, "MAX_FEATURES", 5)
    with pytest.raises(AnonError, match="6 features, more than 5"):
        build_hierarchy({"builder": "polygons", "layer": str(path)}, ["0.5,0.5"], "loc")


def test_a_missing_layer_is_a_config_error_at_parse_time(tmp_path):
    with pytest.raises(ConfigError, match="not found at"):
        parse_config(config(3), tmp_path)
