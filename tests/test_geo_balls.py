"""The compiled ball counts of spatial k (anon_core.geo.balls) against an independent brute force.

The oracle is the full great-circle distance matrix written here (haversine in metres, radii
drawn continuously so no point sits on a ball's edge), on cases chosen to reach every branch of
the index: dense clusters beside sparse scatter, caps across the antimeridian and over a pole,
caps wider than a band and caps smaller than any gap, a single point, duplicated points.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from anon_core.geo.balls import BallIndex
from anon_core.geo.sphere import unit_vectors

R = 6_371_008.8


def hav_m(lat1, lon1, lat2, lon2):
    p1, p2 = np.radians(lat1), np.radians(lat2)
    a = (
        np.sin((p2 - p1) / 2) ** 2
        + np.cos(p1) * np.cos(p2) * np.sin(np.radians(np.subtract(lon2, lon1)) / 2) ** 2
    )
    return 2 * R * np.arcsin(np.sqrt(np.minimum(a, 1.0)))


def brute(lat, lon, qlat, qlon, radius_m):
    return np.array(
        [
            int((hav_m(a, b, lat, lon) <= r).sum())
            for a, b, r in zip(qlat, qlon, radius_m, strict=True)
        ]
    )


def counts(lat, lon, qlat, qlon, radius_m):
    chord = 2.0 * np.sin(np.minimum(radius_m, math.pi * R) / (2 * R))
    index = BallIndex(lat, lon)
    return index.count(qlat, qlon, unit_vectors(qlat, qlon), chord)


def scatter(rng, n, lat0, lon0, spread_deg):
    lat = np.clip(lat0 + rng.normal(0, spread_deg, n), -90, 90)
    lon = (lon0 + rng.normal(0, spread_deg, n) + 180) % 360 - 180
    return lat, lon


@pytest.mark.parametrize(
    "lat0, lon0, spread, radius",
    [
        (52.1, 5.1, 0.02, (10, 3_000)),  # a town: thousands of points a ball
        (0.0, 179.99, 0.05, (100, 20_000)),  # across the antimeridian
        (89.9, 0.0, 0.1, (100, 50_000)),  # over the north pole
        (-89.95, 120.0, 0.05, (100, 30_000)),  # and the south pole
        (-33.9, 151.2, 1.0, (1, 500)),  # sparse: most balls hold nobody
        (10.0, -70.0, 5.0, (100_000, 3_000_000)),  # caps wider than many bands
        (45.0, 10.0, 20.0, (5_000_000, 19_000_000)),  # past a pole, wider than a hemisphere
        (-60.0, -175.0, 10.0, (8_000_000, 12_000_000)),  # about a hemisphere, across +-180
    ],
)
def test_counts_equal_brute_force(lat0, lon0, spread, radius):
    rng = np.random.default_rng(7)
    lat, lon = scatter(rng, 3000, lat0, lon0, spread)
    # a dense core beside the scatter: bands of very different occupancy
    clat, clon = scatter(rng, 1000, lat0, lon0, spread / 50)
    lat, lon = np.concatenate([lat, clat]), np.concatenate([lon, clon])
    qlat, qlon = scatter(rng, 400, lat0, lon0, spread)
    radius_m = rng.uniform(*radius, size=len(qlat))
    expected = brute(lat, lon, qlat, qlon, radius_m)
    assert np.array_equal(counts(lat, lon, qlat, qlon, radius_m), expected)
    assert expected.max() > 0  # the case is not degenerate


def test_hand_worked_line_of_points():
    # points every 100 m along the equator; a 250 m ball on the third holds it and two on each
    # side (5), a 50 m ball only itself, a negative radius nothing
    step = math.degrees(100 / R)
    lon = np.arange(10) * step
    lat = np.zeros(10)
    index = BallIndex(lat, lon)
    q = unit_vectors([0.0, 0.0, 0.0], [lon[2], lon[2], lon[2]])
    chord = 2 * np.sin(np.array([250.0, 50.0, 250.0]) / (2 * R))
    chord[2] = -1.0
    got = index.count([0.0, 0.0, 0.0], [lon[2]] * 3, q, chord)
    assert got.tolist() == [5, 1, 0]


def test_duplicates_single_point_and_empty():
    index = BallIndex([1.0, 1.0, 1.0], [2.0, 2.0, 2.0])  # one home, three people
    q = unit_vectors([1.0], [2.0])
    assert index.count([1.0], [2.0], q, [1e-9]).tolist() == [3]
    assert BallIndex([1.0], [2.0]).count([1.0], [2.0], q, [1e-9]).tolist() == [1]
    assert BallIndex([], []).count([1.0], [2.0], q, [1.0]).tolist() == [0]


@pytest.mark.parametrize("cap", [1, 5, 40])
def test_a_capped_count_is_exact_below_the_cap_and_at_least_the_cap_above(cap):
    rng = np.random.default_rng(3)
    lat, lon = scatter(rng, 3000, 52.1, 5.1, 0.02)
    qlat, qlon = scatter(rng, 300, 52.1, 5.1, 0.02)
    radius_m = rng.uniform(10, 800, size=len(qlat))
    expected = brute(lat, lon, qlat, qlon, radius_m)
    chord = 2.0 * np.sin(radius_m / (2 * R))
    got = BallIndex(lat, lon).count(qlat, qlon, unit_vectors(qlat, qlon), chord, cap=cap)
    below = expected < cap
    assert np.array_equal(got[below], expected[below])
    assert (got[~below] >= cap).all() and (got <= expected).all()
    assert below.any() and (~below).any()  # both sides of the cap are exercised
