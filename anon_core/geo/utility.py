"""Spatial utility of a geomasked release: how far points moved, whether the pattern of points
stays as clustered, and whether the hot spots are still found.

* displacement: great-circle distance between each person's true and released location
  (median, 95th percentile, maximum);
* nearest-neighbour index (Clark and Evans 1954): the mean distance from each point to its nearest
  other point over the 0.5 sqrt(A / n) expected under complete spatial randomness, A the area of
  the points' convex hull (in a local equirectangular projection: for a region of a few hundred
  km the area is off by well under 1 %); < 1 clustered, 1 random, > 1 dispersed;
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
    lat0 = np.radians(np.mean(lat))
    lon0 = np.degrees(np.arctan2(u[:, 1].mean(), u[:, 0].mean()))
    x = EARTH_RADIUS_M * np.cos(lat0) * np.radians((lon - lon0 + 180.0) % 360.0 - 180.0)
    y = EARTH_RADIUS_M * np.radians(lat)
    try:
        area = float(ConvexHull(np.column_stack([x, y])).volume)
    except QhullError:
        return None
    if area <= 0:
        return None
    return mean_nn / (0.5 * np.sqrt(area / n))


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
    """Displacement, the nearest-neighbour index of both tables and hot-spot recovery."""
    return {
        "displacement": displacement(orig_lat, orig_lon, rel_lat, rel_lon),
        "nni_original": nearest_neighbour_index(orig_lat, orig_lon),
        "nni_release": nearest_neighbour_index(rel_lat, rel_lon),
        "hotspots": hotspot_recovery(orig_lat, orig_lon, rel_lat, rel_lon, **hotspot),
    }
