"""Geometry on the sphere: exact great-circle distances, destination points and the 3-D unit
vectors that make nearest-neighbour searches exact.

Distances use a sphere of radius :data:`EARTH_RADIUS_M` (the IUGG mean radius). On the WGS84
ellipsoid a spherical distance differs from the geodesic one by at most about 0.5 %; every
figure here (displacements, spatial k, nearest neighbours) uses the same sphere, so comparisons
between distances are consistent.

Nearest-neighbour searches run on unit vectors (x, y, z): the straight-line (chord) distance
between two unit vectors is 2 sin(d / 2R), a strictly increasing function of the great-circle
distance d, so "which point is nearest" and "how many points are closer than d" are answered
exactly, anywhere on Earth (no projection, no antimeridian seam).
"""

from __future__ import annotations

import numpy as np

#: Mean Earth radius in metres (IUGG).
EARTH_RADIUS_M = 6_371_008.8


def haversine_m(lat1, lon1, lat2, lon2) -> np.ndarray:
    """Great-circle distance in metres between points given in degrees (arrays broadcast)."""
    p1, p2 = np.radians(lat1), np.radians(lat2)
    dphi = p2 - p1
    dlmb = np.radians(np.asarray(lon2, dtype=float) - np.asarray(lon1, dtype=float))
    a = np.sin(dphi / 2) ** 2 + np.cos(p1) * np.cos(p2) * np.sin(dlmb / 2) ** 2
    return 2 * EARTH_RADIUS_M * np.arcsin(np.sqrt(np.clip(a, 0.0, 1.0)))


def destination(lat, lon, bearing_rad, distance_m) -> tuple[np.ndarray, np.ndarray]:
    """The point ``distance_m`` metres from (lat, lon) along the initial bearing (radians from
    north, clockwise): the exact spherical direct problem. Longitudes wrap to [-180, 180)."""
    phi1, lmb1 = np.radians(lat), np.radians(lon)
    delta = np.asarray(distance_m, dtype=float) / EARTH_RADIUS_M
    sin_phi2 = np.sin(phi1) * np.cos(delta) + np.cos(phi1) * np.sin(delta) * np.cos(bearing_rad)
    phi2 = np.arcsin(np.clip(sin_phi2, -1.0, 1.0))
    lmb2 = lmb1 + np.arctan2(
        np.sin(bearing_rad) * np.sin(delta) * np.cos(phi1),
        np.cos(delta) - np.sin(phi1) * sin_phi2,
    )
    lon2 = (np.degrees(lmb2) + 180.0) % 360.0 - 180.0
    return np.degrees(phi2), lon2


def unit_vectors(lat, lon) -> np.ndarray:
    """(n, 3) unit vectors of points in degrees (for KDTree searches; see the module docstring)."""
    phi, lmb = np.radians(np.asarray(lat, dtype=float)), np.radians(np.asarray(lon, dtype=float))
    c = np.cos(phi)
    return np.column_stack([c * np.cos(lmb), c * np.sin(lmb), np.sin(phi)])


def metres_to_chord(distance_m) -> np.ndarray:
    """The chord length on the unit sphere of a great-circle distance in metres."""
    d = np.minimum(np.asarray(distance_m, dtype=float), np.pi * EARTH_RADIUS_M)
    return 2.0 * np.sin(d / (2.0 * EARTH_RADIUS_M))


def chord_to_metres(chord) -> np.ndarray:
    """The great-circle distance in metres of a chord length on the unit sphere."""
    return 2.0 * EARTH_RADIUS_M * np.arcsin(np.clip(np.asarray(chord, dtype=float) / 2.0, 0, 1))
