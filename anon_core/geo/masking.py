"""Geomasking algorithms on arrays of latitudes and longitudes (degrees), seeded.

* :func:`gaussian`: bearing uniform, distance Rayleigh(sigma): the planar displacement is
  N(0, sigma^2) in each of east and north (Zandbergen 2014).
* :func:`donut`: bearing uniform, distance uniform *by area* in the annulus
  [min_distance, max_distance]: r = sqrt(U (max^2 - min^2) + min^2) (Hampton et al. 2010).
* :func:`adaptive_donut`: a donut draw per point; every point whose masked location has fewer
  than ``k`` original points strictly closer than its true location is redrawn with both radii
  grown by :data:`GROWTH`, until every point reaches spatial k >= k (spatial k-anonymity
  against the input's own locations, Allshouse et al. 2010).
* :func:`location_swap`: each location replaced by another original location within
  ``radius_m`` (Zhang et al. 2017), drawn uniformly among the ``candidates`` nearest within the
  radius; a point with no other location in the radius is suppressed (missing) or kept.
* aggregation lives in :mod:`anon_core.geo.grid`.

Points are moved with the exact spherical destination formula, so the great-circle distance
between a true and a masked point is exactly the drawn distance (to float precision).
"""

from __future__ import annotations

import numpy as np
from sklearn.neighbors import KDTree

from anon_core.errors import ConfigError
from anon_core.geo.balls import BallIndex
from anon_core.geo.risk import TIE_CHORD
from anon_core.geo.sphere import destination, metres_to_chord, unit_vectors

#: Factor by which the adaptive donut grows a failing point's radii before redrawing it.
GROWTH = 1.5
#: Redraw rounds of the adaptive donut before it gives up (radii then reach GROWTH**60 x).
MAX_ROUNDS = 60
#: Largest displacement in metres (half the Earth's circumference).
MAX_DISTANCE_M = 20_000_000.0
#: Height in degrees of the latitude bands the location swap sweeps its queries in.
SWEEP_BAND_DEG = 0.001
#: Neighbour entries per query of the location swap (rows x candidates; bounds its memory).
CHUNK_ENTRIES = 2_000_000


def _move(rng: np.random.Generator, lat, lon, distance) -> tuple[np.ndarray, np.ndarray]:
    bearing = rng.uniform(0.0, 2.0 * np.pi, size=len(lat))
    return destination(lat, lon, bearing, distance)


def gaussian(lat, lon, sigma_m: float, rng: np.random.Generator):
    """Masked (lat, lon) and displacement distances of a Gaussian displacement."""
    distance = rng.rayleigh(scale=sigma_m, size=len(lat)) if sigma_m > 0 else np.zeros(len(lat))
    distance = np.minimum(distance, MAX_DISTANCE_M)
    mlat, mlon = _move(rng, lat, lon, distance)
    return mlat, mlon, distance


def donut_distance(rng: np.random.Generator, n: int, lo, hi) -> np.ndarray:
    """Distances uniform by area in the annulus [lo, hi] (arrays or scalars)."""
    u = rng.uniform(0.0, 1.0, size=n)
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    return np.sqrt(u * (hi * hi - lo * lo) + lo * lo)


def donut(lat, lon, min_m: float, max_m: float, rng: np.random.Generator):
    """Masked (lat, lon) and distances of a donut displacement."""
    distance = donut_distance(rng, len(lat), min_m, max_m)
    mlat, mlon = _move(rng, lat, lon, distance)
    return mlat, mlon, distance


def _reaches_k(
    index: BallIndex, u_true: np.ndarray, mlat, mlon, u_mask: np.ndarray, k: int
) -> np.ndarray:
    """Whether at least ``k`` original points lie strictly closer to each masked point than its
    true one: the ball count of :func:`~anon_core.geo.risk.closer_counts`, stopped at k (its
    cost does not grow with the density beyond the first k points)."""
    d = np.linalg.norm(u_mask - u_true, axis=1)
    strict = index.count(mlat, mlon, u_mask, np.where(d > TIE_CHORD, d - TIE_CHORD, -1.0), cap=k)
    return strict >= k


def adaptive_donut(lat, lon, min_m: float, max_m: float, k: int, rng: np.random.Generator):
    """Masked (lat, lon), distances and the number of redraw rounds of an adaptive donut that
    gives every point spatial k >= ``k``. ConfigError when the table has k or fewer points."""
    n = len(lat)
    if n <= k:
        raise ConfigError(
            f"'k' is {k}, but the table has only {n:,} located row(s): spatial k-anonymity needs "
            f"more than k points; lower 'k' or release more rows."
        )
    u = unit_vectors(lat, lon)
    index = BallIndex(lat, lon, u)
    lo = np.full(n, float(min_m))
    hi = np.full(n, float(max_m))
    mlat, mlon, dist = np.empty(n), np.empty(n), np.empty(n)
    todo = np.arange(n)
    rounds = 0
    while len(todo):
        if rounds >= MAX_ROUNDS:
            raise ConfigError(
                f"The adaptive donut could not give {len(todo):,} point(s) spatial k >= {k} "
                f"after {MAX_ROUNDS} rounds; lower 'k'."
            )
        d = donut_distance(rng, len(todo), lo[todo], hi[todo])
        a, b = _move(rng, lat[todo], lon[todo], d)
        mlat[todo], mlon[todo], dist[todo] = a, b, d
        todo = todo[~_reaches_k(index, u[todo], a, b, unit_vectors(a, b), k)]
        lo[todo] = np.minimum(lo[todo] * GROWTH, MAX_DISTANCE_M)
        hi[todo] = np.minimum(np.maximum(hi[todo] * GROWTH, 1.0), MAX_DISTANCE_M)
        rounds += 1
    return mlat, mlon, dist, rounds


def location_swap(
    lat, lon, radius_m: float, rng: np.random.Generator, candidates: int = 50
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Masked (lat, lon) and a mask of swapped points: each point takes the location of another
    point within ``radius_m`` (uniformly among the ``candidates`` nearest within it); points
    with none keep NaN (the caller suppresses or keeps them)."""
    n = len(lat)
    out_lat, out_lon = np.full(n, np.nan), np.full(n, np.nan)
    if n < 2:
        return out_lat, out_lon, np.zeros(n, dtype=bool)
    u = unit_vectors(lat, lon)
    tree = KDTree(u, leaf_size=40)
    m = min(candidates + 1, n)
    limit = metres_to_chord(radius_m)
    draw = rng.uniform(0.0, 1.0, size=n)
    swapped = np.zeros(n, dtype=bool)
    chunk = max(1, CHUNK_ENTRIES // m)
    # queries in bands of latitude, by longitude inside each: neighbouring queries read the same
    # part of the tree (about 2.5x faster on 1M points than in row order; the same result)
    sweep = np.lexsort((lon, np.floor(np.asarray(lat, float) / SWEEP_BAND_DEG)))
    for start in range(0, n, chunk):  # bounded memory: (chunk, m) neighbours at a time
        rows = sweep[start : start + chunk]
        dist, idx = tree.query(u[rows], k=m)
        ok = (dist <= limit) & (idx != rows[:, None])
        count = ok.sum(axis=1)
        # the j-th valid candidate, j uniform in [0, count); valid ones first, nearest first
        j = np.floor(draw[rows] * np.maximum(count, 1)).astype(np.int64)
        order = np.argsort(~ok, axis=1, kind="stable")
        r = np.arange(len(rows))
        chosen = idx[r, order[r, np.minimum(j, m - 1)]]
        has = count > 0
        swapped[rows] = has
        out_lat[rows[has]] = lat[chosen[has]]
        out_lon[rows[has]] = lon[chosen[has]]
    return out_lat, out_lon, swapped
