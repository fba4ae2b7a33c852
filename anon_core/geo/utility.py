"""Spatial utility of a geomasked release: how far points moved, whether the pattern of points
stays as clustered, and whether the hot spots are still found.

* displacement: great-circle distance between each person's true and released location
  (median, 95th percentile, maximum);
* nearest-neighbour index (Clark and Evans 1954): the mean distance from each point to its nearest
  other point over the 0.5 sqrt(A / n) expected under complete spatial randomness, A the area of
  the points' convex hull (in a local equirectangular projection: for a region of a few hundred
  km the area is off by well under 1 %); < 1 clustered, 1 random, > 1 dispersed;
* Ripley's L function (Ripley 1977; Besag's L = sqrt(K / pi)) of the original and of the
  release at a range of distances r: K(r) = A / (n (n - 1)) times the number of ordered pairs of
  distinct points at most r apart, A the area of the *original's* convex hull (one window for
  both, so a difference comes from the pairs alone), without edge correction (both tables get
  the same bias). L(r) = r for complete spatial randomness, above r where points cluster. The
  figure is the largest |L_release(r) - L_original(r)| over the radii, in metres. Pairs are
  counted exactly (:class:`~anon_core.geo.balls.BallIndex`) on the same seeded sample of rows
  for tables over ``max_points``;
* hot-spot recovery: DBSCAN (``eps_m``, ``min_samples``) on the original and on the release; the
  share of the original's clusters whose centroid has a release cluster centroid within
  ``match_m`` (``eps_m`` by default). Tables larger than ``max_points`` are compared on the same
  seeded sample of rows.

Rows without a released location (suppressed) are left out of every figure.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.spatial import ConvexHull, QhullError
from sklearn.cluster import DBSCAN
from sklearn.neighbors import KDTree

from anon_core.geo.balls import BallIndex
from anon_core.geo.sphere import (
    EARTH_RADIUS_M,
    chord_to_metres,
    haversine_m,
    metres_to_chord,
    unit_vectors,
)

#: Default DBSCAN radius and minimum cluster core size of the hot-spot figure.
HOTSPOT_EPS_M = 500.0
HOTSPOT_MIN_SAMPLES = 20
HOTSPOT_MAX_POINTS = 50_000
#: Rows at most in Ripley's L (a seeded sample beyond) and the number of radii by default.
RIPLEY_MAX_POINTS = 20_000
RIPLEY_RADII = 12


def displacement(orig_lat, orig_lon, rel_lat, rel_lon) -> dict[str, Any]:
    """Median, 95th percentile and maximum displacement in metres (located rows only)."""
    d = haversine_m(orig_lat, orig_lon, rel_lat, rel_lon)
    d = d[np.isfinite(d)]
    if not len(d):
        return {"median_m": None, "p95_m": None, "max_m": None, "rows": 0}
    return {
        "median_m": float(np.median(d)),
        "p95_m": float(np.percentile(d, 95)),
        "max_m": float(d.max()),
        "rows": int(len(d)),
    }


def nearest_neighbour_index(lat, lon) -> float | None:
    """Clark-Evans nearest-neighbour index of a set of points (None for < 3 distinct points)."""
    lat, lon = np.asarray(lat, float), np.asarray(lon, float)
    keep = np.isfinite(lat) & np.isfinite(lon)
    lat, lon = lat[keep], lon[keep]
    n = len(lat)
    if n < 3:
        return None
    u = unit_vectors(lat, lon)
    dist, _ = KDTree(u).query(u, k=2)
    mean_nn = float(chord_to_metres(dist[:, 1]).mean())
    area = hull_area_m2(lat, lon)
    if area is None:
        return None
    return mean_nn / (0.5 * np.sqrt(area / n))


def hull_area_m2(lat, lon) -> float | None:
    """Area in square metres of the points' convex hull in a local equirectangular projection
    (None for fewer than 3 points or collinear ones)."""
    lat, lon = np.asarray(lat, float), np.asarray(lon, float)
    keep = np.isfinite(lat) & np.isfinite(lon)
    lat, lon = lat[keep], lon[keep]
    if len(lat) < 3:
        return None
    u = unit_vectors(lat, lon)
    lat0 = np.radians(np.mean(lat))
    lon0 = np.degrees(np.arctan2(u[:, 1].mean(), u[:, 0].mean()))
    x = EARTH_RADIUS_M * np.cos(lat0) * np.radians((lon - lon0 + 180.0) % 360.0 - 180.0)
    y = EARTH_RADIUS_M * np.radians(lat)
    try:
        area = float(ConvexHull(np.column_stack([x, y])).volume)
    except QhullError:
        return None
    return area if area > 0 else None


def ripley_l(lat, lon, radii_m, area_m2: float) -> np.ndarray:
    """Ripley's L(r) in metres at each radius, in a window of ``area_m2`` (see the module doc);
    NaN with fewer than 2 located points."""
    lat, lon = np.asarray(lat, float), np.asarray(lon, float)
    keep = np.isfinite(lat) & np.isfinite(lon)
    lat, lon = lat[keep], lon[keep]
    n = len(lat)
    radii = np.asarray(radii_m, float)
    if n < 2:
        return np.full(len(radii), np.nan)
    u = unit_vectors(lat, lon)
    index = BallIndex(lat, lon, u)
    pairs = np.array(
        [index.count(lat, lon, u, float(metres_to_chord(r))).sum() - n for r in radii], float
    )  # ordered pairs of distinct points (each point counts itself once)
    k = area_m2 * pairs / (n * (n - 1))
    return np.sqrt(k / np.pi)


def ripley_comparison(
    orig_lat,
    orig_lon,
    rel_lat,
    rel_lon,
    radii_m: Any = None,
    max_points: int = RIPLEY_MAX_POINTS,
    random_state: int = 0,
) -> dict[str, Any]:
    """Ripley's L of the original and the release over ``radii_m`` (default: 12 radii spaced
    evenly on a log scale from 1 % to 25 % of the square root of the original's hull area)."""
    orig_lat, orig_lon = np.asarray(orig_lat, float), np.asarray(orig_lon, float)
    rel_lat, rel_lon = np.asarray(rel_lat, float), np.asarray(rel_lon, float)
    rows = np.arange(len(orig_lat))
    if len(rows) > max_points:
        rows = np.sort(np.random.default_rng(random_state).choice(rows, max_points, replace=False))
    area = hull_area_m2(orig_lat[rows], orig_lon[rows])
    if area is None:
        return {"radii_m": [], "l_original": [], "l_release": [], "max_abs_diff_m": None}
    if radii_m is None:
        side = float(np.sqrt(area))
        radii_m = np.geomspace(0.01 * side, 0.25 * side, RIPLEY_RADII)
    radii = np.asarray(radii_m, float)
    l_orig = ripley_l(orig_lat[rows], orig_lon[rows], radii, area)
    l_rel = ripley_l(rel_lat[rows], rel_lon[rows], radii, area)
    diff = np.abs(l_rel - l_orig)
    return {
        "radii_m": radii.tolist(),
        "l_original": l_orig.tolist(),
        "l_release": l_rel.tolist(),
        "max_abs_diff_m": float(np.nanmax(diff)) if np.isfinite(diff).any() else None,
        "area_m2": area,
        "rows_compared": int(len(rows)),
    }


def _clusters(lat, lon, eps_m: float, min_samples: int) -> np.ndarray:
    """(c, 3) unit-vector centroids of the DBSCAN clusters of the points."""
    u = unit_vectors(lat, lon)
    labels = DBSCAN(eps=float(metres_to_chord(eps_m)), min_samples=min_samples).fit(u).labels_
    out = [u[labels == c].mean(axis=0) for c in sorted(set(labels.tolist()) - {-1})]
    if not out:
        return np.zeros((0, 3))
    c = np.array(out)
    return c / np.linalg.norm(c, axis=1, keepdims=True)


def hotspot_recovery(
    orig_lat,
    orig_lon,
    rel_lat,
    rel_lon,
    eps_m: float = HOTSPOT_EPS_M,
    min_samples: int = HOTSPOT_MIN_SAMPLES,
    match_m: float | None = None,
    max_points: int = HOTSPOT_MAX_POINTS,
    random_state: int = 0,
) -> dict[str, Any]:
    """Share of the original's DBSCAN clusters recovered by the release (see the module doc)."""
    orig_lat, orig_lon = np.asarray(orig_lat, float), np.asarray(orig_lon, float)
    rel_lat, rel_lon = np.asarray(rel_lat, float), np.asarray(rel_lon, float)
    rows = np.arange(len(orig_lat))
    if len(rows) > max_points:
        rows = np.sort(np.random.default_rng(random_state).choice(rows, max_points, replace=False))
    located = rows[np.isfinite(rel_lat[rows]) & np.isfinite(rel_lon[rows])]
    original = _clusters(orig_lat[rows], orig_lon[rows], eps_m, min_samples)
    released = _clusters(rel_lat[located], rel_lon[located], eps_m, min_samples)
    match = eps_m if match_m is None else match_m
    recovered = 0
    if len(original) and len(released):
        gap = np.linalg.norm(original[:, None, :] - released[None, :, :], axis=2).min(axis=1)
        recovered = int((gap <= metres_to_chord(match)).sum())
    return {
        "eps_m": float(eps_m),
        "min_samples": int(min_samples),
        "match_m": float(match),
        "original_clusters": int(len(original)),
        "release_clusters": int(len(released)),
        "recovered": recovered,
        "recovery": (recovered / len(original)) if len(original) else None,
        "rows_compared": int(len(rows)),
    }


def spatial_utility(orig_lat, orig_lon, rel_lat, rel_lon, **hotspot: Any) -> dict[str, Any]:
    """Displacement, the nearest-neighbour index of both tables, Ripley's L of both and
    hot-spot recovery."""
    return {
        "displacement": displacement(orig_lat, orig_lon, rel_lat, rel_lon),
        "nni_original": nearest_neighbour_index(orig_lat, orig_lon),
        "nni_release": nearest_neighbour_index(rel_lat, rel_lon),
        "ripley": ripley_comparison(orig_lat, orig_lon, rel_lat, rel_lon),
        "hotspots": hotspot_recovery(orig_lat, orig_lon, rel_lat, rel_lon, **hotspot),
    }
