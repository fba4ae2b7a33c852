"""Ripley's L of the original and the release (anon_core.geo.utility): a lattice worked by hand
and an O(n^2) brute force with an independent haversine on 200 points."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

from anon_core.geo.utility import hull_area_m2, ripley_comparison, ripley_l, spatial_utility

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "sample_data"))
from generate_geo import generate  # noqa: E402

R = 6_371_008.8


def hav(lat1, lon1, lat2, lon2):
    p1, p2 = np.radians(lat1), np.radians(lat2)
    a = (
        np.sin((p2 - p1) / 2) ** 2
        + np.cos(p1) * np.cos(p2) * np.sin(np.radians(np.subtract(lon2, lon1)) / 2) ** 2
    )
    return 2 * R * np.arcsin(np.sqrt(np.minimum(a, 1.0)))


def test_hand_worked_lattice():
    # 10 x 10 points 100 m apart at the equator: hull 900 m x 900 m. Within 105 m: the 2 x 10 x 9
    # = 180 horizontal and vertical neighbour pairs (360 ordered); within 150 m also the
    # 2 x 9 x 9 = 162 diagonal pairs at 141 m (684 ordered). K = A * pairs / (n (n - 1)):
    # 810000 * 360 / 9900 = 29454.5 m^2, L = sqrt(K / pi) = 96.83 m; 810000 * 684 / 9900 =
    # 55963.6 m^2, L = 133.47 m; within 50 m no pair: L = 0.
    step = math.degrees(100 / R)
    g = np.arange(10) * step
    lat, lon = (a.ravel() for a in np.meshgrid(g, g))
    area = hull_area_m2(lat, lon)
    assert area == pytest.approx(810_000, rel=1e-5)
    got = ripley_l(lat, lon, [50, 105, 150], area)
    assert got == pytest.approx([0.0, 96.83, 133.47], abs=0.01)


def test_equals_brute_force_on_200_points():
    frame = generate(200, seed=9)
    lat, lon = frame["lat"].to_numpy(), frame["lon"].to_numpy()
    radii = [150.0, 600.0, 2_500.0, 12_000.0]
    area = 1.0e9  # any window: K is linear in it
    d = hav(lat[:, None], lon[:, None], lat[None, :], lon[None, :])
    np.fill_diagonal(d, np.inf)  # distinct pairs only
    n = len(lat)
    expected = [math.sqrt(area * (d <= r).sum() / (n * (n - 1)) / math.pi) for r in radii]
    assert ripley_l(lat, lon, radii, area) == pytest.approx(expected, rel=1e-12)
    assert expected[0] < expected[-1]  # the case is not degenerate


def test_comparison_is_zero_for_an_unchanged_release_and_sees_blurred_clusters():
    frame = generate(1500, seed=10)
    lat, lon = frame["lat"].to_numpy(), frame["lon"].to_numpy()
    same = ripley_comparison(lat, lon, lat, lon)
    assert same["max_abs_diff_m"] == 0.0 and len(same["radii_m"]) == 12
    # 3 km of Gaussian blur spreads the towns (1-2 km wide): fewer close pairs
    rng = np.random.default_rng(0)
    blurred_lat = lat + np.degrees(rng.normal(0, 3000, len(lat)) / R)
    blurred_lon = lon + np.degrees(rng.normal(0, 3000, len(lat)) / (R * np.cos(np.radians(lat))))
    out = ripley_comparison(lat, lon, blurred_lat, blurred_lon)
    assert out["l_release"][0] < out["l_original"][0]
    assert out["max_abs_diff_m"] > 100
    # a suppressed released point is left out, not counted as a pair
    half = lat.copy()
    half[::2] = np.nan
    assert np.isfinite(ripley_comparison(lat, lon, half, lon)["l_release"]).all()
    assert "ripley" in spatial_utility(lat, lon, lat, lon)
