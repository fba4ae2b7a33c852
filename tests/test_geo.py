"""Geocoded points: the ``geo`` section, geomasking methods, spatial risk and utility, and the
evidence figures. Oracles are independent: a haversine written here, brute-force O(n^2) counts,
the Rayleigh law of a 2-D Gaussian's length (scipy), hand-worked small cases; never the code
under test."""

from __future__ import annotations

import importlib.util
import json
import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from anon_core.cli import EXIT_BAD_INPUT, main
from anon_core.config import parse_config
from anon_core.errors import ConfigError, DataError
from anon_core.geo.grid import square_cells
from anon_core.geo.risk import spatial_risk, wilson
from anon_core.geo.section import parse_geo_section, read_locations
from anon_core.geo.utility import displacement, hotspot_recovery, nearest_neighbour_index
from anon_core.methods import METHODS, make_method
from anon_core.methods.registry import make_context
from anon_core.services.session import Session

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "sample_data"))
from generate_geo import generate  # noqa: E402

R = 6_371_008.8
GEO = {"latitude": "lat", "longitude": "lon"}
ROLES = {
    "patient_id": {"role": "identifier"},
    "lat": {"role": "quasi-identifier"},
    "lon": {"role": "quasi-identifier"},
    "town": {"role": "insensitive"},
    "age": {"role": "quasi-identifier"},
    "sex": {"role": "quasi-identifier"},
    "diagnosis": {"role": "sensitive"},
}


def hav(lat1, lon1, lat2, lon2):
    """Independent haversine (metres) on the same sphere."""
    p1, p2 = np.radians(lat1), np.radians(lat2)
    a = (
        np.sin((p2 - p1) / 2) ** 2
        + np.cos(p1) * np.cos(p2) * np.sin(np.radians(np.subtract(lon2, lon1)) / 2) ** 2
    )
    return 2 * R * np.arcsin(np.sqrt(np.minimum(a, 1.0)))


def brute_force(olat, olon, mlat, mlon):
    """(spatial k, nearest original is the true one) by the full distance matrix."""
    ks, correct = [], []
    for i in range(len(olat)):
        d = hav(mlat[i], mlon[i], olat, olon)
        ks.append(int((d < d[i]).sum()))
        correct.append(int(np.argmin(d) == i))
    return np.array(ks), np.array(correct)


@pytest.fixture(scope="module")
def sample() -> pd.DataFrame:
    return generate()


def _config(extra=None, frame=None, tmp=None):
    raw = {"attributes": ROLES, "privacy_models": [{"model": "k-anonymity", "k": 2}], "geo": GEO}
    raw.update(extra or {})
    return parse_config(raw, tmp or ".")


def _masked(spec, frame, seed=0):
    config = _config()
    out = make_method(spec).release(frame, make_context(frame, config), random_state=seed)
    return out.table["lat"].to_numpy(float), out.table["lon"].to_numpy(float), out


# ------------------------------------------------------------------ the section and coordinates
def test_section_is_accepted_by_the_configuration_and_validated_here():
    assert _config().sections["geo"] == GEO
    assert parse_geo_section(GEO).columns == ("lat", "lon")
    with pytest.raises(ConfigError, match="no longitude column.*add 'longitude'"):
        parse_geo_section({"latitude": "lat"})
    with pytest.raises(ConfigError, match="unknown key"):
        parse_geo_section({**GEO, "altitude": "z"})
    with pytest.raises(ConfigError, match="both name column"):
        parse_geo_section({"latitude": "x", "longitude": "x"})


@pytest.mark.parametrize(
    ("lat", "lon", "message"),
    [
        ([10.0, 95.0, -91.0], [0.0, 0.0, 0.0], "2 row\\(s\\) have coordinates outside"),
        ([10.0, 20.0, 30.0], [0.0, 181.0, 0.0], "1 row\\(s\\) have coordinates outside"),
        ([10.0, None, 30.0], [0.0, 5.0, None], "2 row\\(s\\) have no location \\(2 with only one"),
        ([10.0, "north", 30.0], [0.0, 5.0, 1.0], "1 row\\(s\\) have a latitude or longitude that"),
    ],
)
def test_bad_coordinates_give_one_error_naming_the_rows(lat, lon, message):
    frame = pd.DataFrame({"lat": lat, "lon": lon})
    with pytest.raises(DataError, match=message):
        read_locations(frame, parse_geo_section(GEO))


def _cli(tmp_path, frame, geo, capsys):
    frame.to_csv(tmp_path / "in.csv", index=False)
    cfg = {
        "input": {"path": "in.csv"},
        "attributes": {"lat": {"role": "quasi-identifier"}, "lon": {"role": "quasi-identifier"}},
        "privacy_models": [{"model": "k-anonymity", "k": 2}],
        "geo": geo,
    }
    (tmp_path / "c.json").write_text(json.dumps(cfg))
    out = tmp_path / "out.csv"
    code = main(
        [
            "release",
            str(tmp_path / "c.json"),
            "--method",
            "geomask-donut",
            "-o",
            str(out),
            "--no-evidence",
        ]
    )
    err = capsys.readouterr().err
    return code, err, out


@pytest.mark.parametrize(
    ("lat", "lon", "geo", "needle"),
    [
        ([52.0, 95.0], [5.0, 5.0], GEO, "1 row(s) have coordinates outside"),
        ([52.0, None], [5.0, 5.0], GEO, "1 row(s) have no location"),
        ([52.0, 52.1], [5.0, 5.0], {"latitude": "lat"}, "add 'longitude' to the geo section"),
        ([52.0, 52.1], [5.0, 5.0], {"latitude": "lat", "longitude": "lng"}, "does not have"),
    ],
)
def test_cli_bad_coordinates_one_line_exit_2_no_file(tmp_path, capsys, lat, lon, geo, needle):
    code, err, out = _cli(tmp_path, pd.DataFrame({"lat": lat, "lon": lon}), geo, capsys)
    assert code == EXIT_BAD_INPUT
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0], err
    assert not out.exists()


def test_method_without_geo_section_says_how_to_add_it():
    frame = pd.DataFrame({"lat": [52.0, 52.1], "lon": [5.0, 5.1]})
    config = parse_config(
        {
            "attributes": {"lat": {"role": "quasi-identifier"}},
            "privacy_models": [{"model": "k-anonymity", "k": 2}],
        },
        ".",
    )
    with pytest.raises(ConfigError, match="needs a 'geo' section"):
        make_method({"name": "geomask-gaussian"}).release(frame, make_context(frame, config))


def test_methods_declare_guarantee_and_protection():
    for name in ("geomask-gaussian", "geomask-donut", "location-swap", "geo-aggregate"):
        cls = METHODS[name]
        assert cls.guarantee and cls.protects and cls.does_not_protect
    with pytest.raises(ConfigError, match="min_distance_m <= max_distance_m"):
        make_method({"name": "geomask-donut", "min_distance_m": 500, "max_distance_m": 100})


# ------------------------------------------------------------------ the masking methods
def test_donut_displacements_lie_in_the_annulus(sample):
    mlat, mlon, out = _masked(
        {"name": "geomask-donut", "min_distance_m": 100, "max_distance_m": 400}, sample
    )
    d = hav(sample["lat"].to_numpy(), sample["lon"].to_numpy(), mlat, mlon)
    assert d.min() >= 100 - 1e-6 and d.max() <= 400 + 1e-6
    # uniform by area: P(d <= r) = (r^2 - 100^2) / (400^2 - 100^2); at the median radius 0.5
    median_r = math.sqrt(0.5 * (400**2 - 100**2) + 100**2)
    assert abs(np.mean(d <= median_r) - 0.5) < 0.04
    # every other column unchanged
    assert out.table.drop(columns=["lat", "lon"]).equals(sample.drop(columns=["lat", "lon"]))


def test_adaptive_donut_gives_every_point_spatial_k_at_least_k(sample):
    frame = sample.iloc[:1500].reset_index(drop=True)
    mlat, mlon, out = _masked(
        {"name": "geomask-donut", "min_distance_m": 20, "max_distance_m": 100, "k": 10}, frame
    )
    ks, _ = brute_force(frame["lat"].to_numpy(), frame["lon"].to_numpy(), mlat, mlon)
    assert ks.min() >= 10
    assert "spatial k-anonymity (k=10)" in out.guarantee


def test_gaussian_displacement_follows_rayleigh_sigma(sample):
    mlat, mlon, _ = _masked({"name": "geomask-gaussian", "sigma_m": 300}, sample, seed=7)
    d = hav(sample["lat"].to_numpy(), sample["lon"].to_numpy(), mlat, mlon)
    assert stats.kstest(d, "rayleigh", args=(0, 300)).pvalue > 0.01
    # and not some other sigma
    assert stats.kstest(d, "rayleigh", args=(0, 360)).pvalue < 0.01


def test_location_swap_releases_other_locations_within_the_radius():
    # three homes 100 m apart in a row and one 10 km away (hand-placed along a meridian)
    step = math.degrees(100 / R)
    lat = np.array([0.0, step, 2 * step, math.degrees(10_000 / R)])
    frame = pd.DataFrame({"lat": lat, "lon": np.zeros(4)})
    mlat, mlon, out = _masked({"name": "location-swap", "radius_m": 150}, frame)
    # the isolated home has nobody within 150 m: suppressed
    assert np.isnan(mlat[3]) and out.details["unswapped"] == 1
    # home 0's only neighbour within 150 m is home 1; home 2's is home 1; home 1 takes 0 or 2
    assert mlat[0] == lat[1] and mlat[2] == lat[1] and mlat[1] in (lat[0], lat[2])
    kept, _, _ = _masked({"name": "location-swap", "radius_m": 150, "unswapped": "keep"}, frame)
    assert kept[3] == lat[3]


def test_aggregate_snaps_to_cell_centres():
    # two points 100 m apart inside one 1 km cell share a centre; the centre is within half a
    # cell's diagonal of each point (by the independent haversine), with and without pyproj
    lat = np.array([52.1000, 52.1009, 52.3])
    lon = np.array([5.1000, 5.1000, 5.3])
    for use_pyproj in (False, True):
        if use_pyproj and importlib.util.find_spec("pyproj") is None:
            continue
        clat, clon, _ = square_cells(lat, lon, 1000.0, use_pyproj=use_pyproj)
        assert hav(lat, lon, clat, clon).max() <= 1000 * math.sqrt(2) / 2 * 1.02
        assert len({(a, b) for a, b in zip(clat, clon, strict=True)}) == 3 - int(
            clat[0] == clat[1] and clon[0] == clon[1]
        )
        assert hav(clat[0], clon[0], clat[2], clon[2]) > 1000  # different cells, different centres


@pytest.mark.skipif(importlib.util.find_spec("h3") is None, reason="h3 is not installed")
def test_aggregate_h3_releases_a_cell_centre(sample):
    mlat, mlon, out = _masked({"name": "geo-aggregate", "grid": "h3", "h3_resolution": 8}, sample)
    # resolution 8 hexagons have edges of about 0.53 km: a centre is within ~0.6 km of each home
    assert hav(sample["lat"], sample["lon"], mlat, mlon).max() < 600
    assert out.details["cells"] < len(sample) / 3


@pytest.mark.parametrize(
    "spec",
    [
        {"name": "geomask-gaussian", "sigma_m": 200},
        {"name": "geomask-donut", "min_distance_m": 50, "max_distance_m": 300},
        {"name": "geomask-donut", "min_distance_m": 20, "max_distance_m": 100, "k": 5},
        {"name": "location-swap", "radius_m": 500},
    ],
)
def test_seeds_reproduce(sample, spec):
    frame = sample.iloc[:800]
    a = _masked(spec, frame, seed=3)[0]
    b = _masked(spec, frame, seed=3)[0]
    c = _masked(spec, frame, seed=4)[0]
    assert np.array_equal(a, b, equal_nan=True) and not np.array_equal(a, c, equal_nan=True)


# ------------------------------------------------------------------ spatial risk
def test_spatial_k_and_nn_rate_equal_brute_force_on_2000_points(sample):
    frame = generate(2000, seed=11)
    olat, olon = frame["lat"].to_numpy(), frame["lon"].to_numpy()
    mlat, mlon, _ = _masked({"name": "geomask-gaussian", "sigma_m": 150}, frame, seed=1)
    ks, correct = brute_force(olat, olon, mlat, mlon)
    risk = spatial_risk(olat, olon, mlat, mlon, k=5)
    assert np.array_equal(risk.spatial_k, ks)
    assert risk.k_min == ks.min() and risk.k_median == np.median(ks)
    assert risk.share_below == pytest.approx(np.mean(ks < 5))
    assert risk.nn_share == pytest.approx(correct.mean())
    assert risk.nn_expected == pytest.approx(correct.sum())
    assert 0 < correct.mean() < 1  # the case is not degenerate


def test_ties_and_wilson_hand_worked():
    # A and B share a home; both released 100 m north; C released exactly: each of A, B is one of
    # two tied nearest homes (1/2 each), C is nearest alone (1): 2 of 3 expected.
    d = math.degrees(100 / R)
    risk = spatial_risk([0.0, 0.0, 1.0], [0.0, 0.0, 0.0], [d, d, 1.0], [0.0, 0.0, 0.0])
    assert risk.spatial_k.tolist() == [0, 0, 0]
    assert risk.nn_expected == pytest.approx(2.0) and risk.nn_share == pytest.approx(2 / 3)
    lo, hi = wilson(5, 10)  # p = 0.5, n = 10, z = 1.96: 0.5 -/+ 0.2634
    assert lo == pytest.approx(0.2366, abs=1e-4) and hi == pytest.approx(0.7634, abs=1e-4)
    # a suppressed location is not re-identified and has no spatial k
    risk = spatial_risk([0.0, 1.0], [0.0, 0.0], [np.nan, 1.0], [np.nan, 0.0])
    assert risk.located == 1 and risk.nn_share == pytest.approx(0.5)


# ------------------------------------------------------------------ spatial utility
def test_utility_hand_worked():
    # 10 x 10 square lattice, 100 m spacing at the equator: NN distance 100 m, hull area
    # (900 m)^2, expected 0.5 sqrt(A / n) = 45 m: index 100 / 45 = 2.222
    step = math.degrees(100 / R)
    g = np.arange(10) * step
    lat, lon = np.meshgrid(g, g)
    assert nearest_neighbour_index(lat.ravel(), lon.ravel()) == pytest.approx(20 / 9, rel=1e-3)
    shift = math.degrees(100 / R)
    disp = displacement(lat.ravel(), lon.ravel(), lat.ravel() + shift, lon.ravel())
    assert disp["median_m"] == pytest.approx(100, rel=1e-9)
    assert disp["p95_m"] == pytest.approx(100, rel=1e-9)
    # two tight clusters 50 km apart; the release moves one of them 10 km: half recovered
    rng = np.random.default_rng(0)
    a = rng.normal(0, math.degrees(50 / R), (2, 100))
    olat = np.concatenate([a[0], a[1] + math.degrees(50_000 / R)])
    olon = rng.normal(0, math.degrees(50 / R), 200)
    rlat = olat.copy()
    rlat[100:] += math.degrees(10_000 / R)
    hs = hotspot_recovery(olat, olon, rlat, olon, eps_m=300, min_samples=10)
    assert hs["original_clusters"] == 2 and hs["recovered"] == 1 and hs["recovery"] == 0.5


# ------------------------------------------------------------------ the sample
def test_sample_rounding_to_three_decimals_leaves_most_people_unique(sample):
    assert len(sample) <= 3000
    on_disk = pd.read_csv(ROOT / "sample_data" / "geo_patients.csv")
    pd.testing.assert_frame_equal(on_disk, sample, check_dtype=False)
    rounded = sample[["lat", "lon"]].round(3)
    unique = rounded.groupby(["lat", "lon"])["lat"].transform("size") == 1
    assert unique.mean() > 0.5


def test_sample_adaptive_donut_k10_keeps_the_hot_spots(sample):
    mlat, mlon, _ = _masked(
        {"name": "geomask-donut", "min_distance_m": 50, "max_distance_m": 300, "k": 10}, sample
    )
    hs = hotspot_recovery(sample["lat"], sample["lon"], mlat, mlon, eps_m=500, min_samples=20)
    assert hs["original_clusters"] == 6  # the six towns
    assert hs["recovery"] >= 0.8


# ------------------------------------------------------------------ the evidence
def test_evidence_has_spatial_figures_only_with_a_geo_section(sample, tmp_path):
    frame = sample.iloc[:600].reset_index(drop=True)
    config = _config({"method": {"name": "geomask-gaussian", "sigma_m": 100}}, tmp=tmp_path)
    session = Session(config, frame)
    release = session.release()
    ev = session.evidence(release, n_attacks=50, utility=False)
    source = frame.drop(columns=["patient_id"])
    ks, correct = brute_force(
        source["lat"].to_numpy(),
        source["lon"].to_numpy(),
        release.table["lat"].to_numpy(float),
        release.table["lon"].to_numpy(float),
    )
    assert ev.figures["spatial_k_min"]["value"] == ks.min()
    assert ev.figures["spatial_k_share_below"]["value"] == pytest.approx(np.mean(ks < 5))
    nn = ev.figures["nn_reidentification"]
    assert (
        nn["value"] == pytest.approx(correct.mean()) and nn["ci"][0] <= nn["value"] <= nn["ci"][1]
    )
    # the same release without the geo section: no spatial figure
    raw = {k: v for k, v in config.raw.items() if k != "geo"}
    plain = Session(
        parse_config({**raw, "method": {"name": "noise", "columns": ["age"]}}, tmp_path), frame
    )
    ev2 = plain.evidence(plain.release(), n_attacks=50, utility=False)
    assert not {"spatial_k_min", "spatial_k_share_below", "nn_reidentification"} & set(ev2.figures)


def test_cli_release_with_dossier_then_verify(sample, tmp_path, capsys):
    sample.iloc[:600].to_csv(tmp_path / "in.csv", index=False)
    cfg = {
        "input": {"path": "in.csv"},
        "attributes": ROLES,
        "privacy_models": [{"model": "k-anonymity", "k": 2}],
        "geo": GEO,
        "method": {"name": "geomask-donut", "min_distance_m": 20, "max_distance_m": 100, "k": 5},
        "attack": {"n_attacks": 100},
        "acceptance": {"nn_reidentification": {"max": 0.0}, "ml_accuracy_ratio": {"min": 0.0}},
    }
    (tmp_path / "c.json").write_text(json.dumps(cfg))
    out, report = tmp_path / "out.csv", tmp_path / "dossier.html"
    code = main(
        ["release", str(tmp_path / "c.json"), "-o", str(out), "--report", str(report), "--force"]
    )
    captured = capsys.readouterr()
    assert code == 0, captured.err
    summary = json.loads(captured.out)
    assert summary["evidence"]["spatial_k_min"]["value"] >= 5
    assert summary["evidence"]["nn_reidentification"]["value"] == 0.0
    assert "spatial k-anonymity (k=5)" in summary["release"]["guarantee"]
    judged = {c["figure"]: c for c in summary["verdict"]["criteria"]}
    assert judged["nn_reidentification"]["passed"] is True  # the officer can gate on it
    released = pd.read_csv(out)
    assert list(released.columns) == [c for c in sample.columns if c != "patient_id"]
    code = main(
        ["verify", str(tmp_path / "c.json"), str(report), "--released", str(out), "--no-signature"]
    )
    assert code == 0, capsys.readouterr().err


def test_without_the_geo_extra_square_grid_works_and_h3_says_what_to_install(monkeypatch):
    import anon_core.geo.grid as grid

    monkeypatch.setattr(grid, "have", lambda module: False)
    frame = pd.DataFrame({"lat": [52.1, 52.1009, 52.3], "lon": [5.1, 5.1, 5.3]})
    mlat, mlon, out = _masked({"name": "geo-aggregate", "cell_m": 1000}, frame)
    assert "equirectangular" in out.details["grid"]
    assert hav(frame["lat"], frame["lon"], mlat, mlon).max() <= 1000 * math.sqrt(2) / 2 * 1.02
    with pytest.raises(ConfigError, match=r"needs the h3 package.*pip install -e '\.\[geo\]'"):
        _masked({"name": "geo-aggregate", "grid": "h3"}, frame)


def test_adaptive_donut_needs_more_points_than_k():
    frame = pd.DataFrame({"lat": [52.1, 52.2, 52.3], "lon": [5.1, 5.1, 5.3]})
    with pytest.raises(ConfigError, match="needs more than k points"):
        _masked({"name": "geomask-donut", "k": 3}, frame)
