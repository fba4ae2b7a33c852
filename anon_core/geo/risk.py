"""Spatial risk of a geomasked release: spatial k-anonymity and nearest-neighbour
re-identification.

* ``spatial_k`` of a released point: how many original points (other than the person's own) lie
  strictly closer to the masked location than the person's true location (Allshouse et al. 2010;
  Hampton et al. 2010). 0 means the true home is the nearest original point to the masked one.
* Nearest-neighbour re-identification: an attacker holding the full list of original addresses
  assigns each masked point to its nearest original point (ties broken uniformly at random). A
  point is re-identified with probability 1/t when its true location is among the t original
  points tied nearest, else 0; the share is the mean of these probabilities over all released
  rows, with a 95 % Wilson interval; the expected number of re-identifications is their sum.

Distances are great-circle distances (exact comparisons through chord lengths of unit vectors,
:mod:`anon_core.geo.sphere`), counted exactly by :class:`anon_core.geo.balls.BallIndex`; two
distances within :data:`TIE_CHORD` (about 6 micrometres) are
a tie. Rows whose released location is missing (suppressed) reveal no location: they are left
out of the spatial-k statistics and count as not re-identified.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from anon_core.errors import DataError
from anon_core.geo.balls import BallIndex
from anon_core.geo.sphere import unit_vectors

#: Two chord lengths (on the unit sphere) closer than this are a tie (~6 micrometres on Earth).
TIE_CHORD = 1e-12
#: Default k of the spatial-k figures.
DEFAULT_K = 5


def wilson(successes: float, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The Wilson score interval of a proportion (``successes`` may be an expected count)."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(max(p * (1 - p) / n + z * z / (4 * n * n), 0.0)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def closer_counts(
    orig_lat: np.ndarray,
    orig_lon: np.ndarray,
    masked_lat: np.ndarray,
    masked_lon: np.ndarray,
    index: BallIndex | None = None,
    ties: bool = True,
) -> tuple[np.ndarray, np.ndarray | None]:
    """For each row i: (original points strictly closer to masked_i than true_i, original points
    tied at exactly that distance including true_i where none is strictly closer (else 1), or None
    when ``ties`` is False). Rows must be aligned; no missing values. ``index`` holds every
    original point (by default the rows given)."""
    index = index if index is not None else BallIndex(orig_lat, orig_lon)
    u_true = unit_vectors(orig_lat, orig_lon)
    u_mask = unit_vectors(masked_lat, masked_lon)
    return closer_counts_u(index, u_true, masked_lat, masked_lon, u_mask, ties)


def closer_counts_u(
    index: BallIndex,
    u_true: np.ndarray,
    masked_lat: np.ndarray,
    masked_lon: np.ndarray,
    u_mask: np.ndarray,
    ties: bool = True,
) -> tuple[np.ndarray, np.ndarray | None]:
    """:func:`closer_counts` with the unit vectors given (see :mod:`anon_core.geo.sphere`)."""
    masked_lat = np.asarray(masked_lat, dtype=float)
    masked_lon = np.asarray(masked_lon, dtype=float)
    d = np.linalg.norm(u_mask - u_true, axis=1)
    # a point is strictly closer when its chord is at most d - TIE_CHORD (none when d is a tie)
    strict = index.count(
        masked_lat, masked_lon, u_mask, np.where(d > TIE_CHORD, d - TIE_CHORD, -1.0)
    )
    if not ties:
        return strict, None
    # ties matter only where no point is strictly closer (the attacker's nearest candidates)
    tied = np.ones(len(d), dtype=np.int64)
    nearest = np.flatnonzero(strict == 0)
    if len(nearest):
        within = index.count(
            masked_lat[nearest], masked_lon[nearest], u_mask[nearest], d[nearest] + TIE_CHORD
        )
        tied[nearest] = np.maximum(within, 1)
    return strict, tied


@dataclass(frozen=True)
class SpatialRisk:
    """Spatial k and nearest-neighbour re-identification of one release."""

    k: int
    rows: int
    located: int  # rows with a released location
    spatial_k: np.ndarray  # per located row
    nn_share: float
    nn_ci: tuple[float, float]
    nn_expected: float

    @property
    def k_min(self) -> int | None:
        return int(self.spatial_k.min()) if len(self.spatial_k) else None

    @property
    def k_median(self) -> float | None:
        return float(np.median(self.spatial_k)) if len(self.spatial_k) else None

    @property
    def share_below(self) -> float | None:
        return float(np.mean(self.spatial_k < self.k)) if len(self.spatial_k) else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "k": self.k,
            "rows": self.rows,
            "located": self.located,
            "spatial_k_min": self.k_min,
            "spatial_k_median": self.k_median,
            "spatial_k_share_below": self.share_below,
            "nn_reidentification": self.nn_share,
            "nn_reidentification_ci": list(self.nn_ci),
            "nn_expected_reidentifications": self.nn_expected,
        }


def spatial_risk(
    orig_lat: np.ndarray,
    orig_lon: np.ndarray,
    rel_lat: np.ndarray,
    rel_lon: np.ndarray,
    k: int = DEFAULT_K,
) -> SpatialRisk:
    """Spatial k (min, median, share below ``k``) and the nearest-neighbour re-identification
    rate of a release whose rows are aligned with the original's (row i is person i)."""
    orig_lat, orig_lon = np.asarray(orig_lat, float), np.asarray(orig_lon, float)
    rel_lat, rel_lon = np.asarray(rel_lat, float), np.asarray(rel_lon, float)
    if not (len(orig_lat) == len(orig_lon) == len(rel_lat) == len(rel_lon)):
        raise DataError(
            f"Spatial risk needs the release row-aligned with the original ({len(orig_lat):,} "
            f"original rows, {len(rel_lat):,} released); release every row in its order."
        )
    if np.isnan(orig_lat).any() or np.isnan(orig_lon).any():
        raise DataError("Spatial risk needs every original row located; remove rows without one.")
    n = len(orig_lat)
    located = ~(np.isnan(rel_lat) | np.isnan(rel_lon))
    if n == 0:
        return SpatialRisk(k, 0, 0, np.zeros(0, dtype=np.int64), 0.0, (0.0, 1.0), 0.0)
    strict, ties = closer_counts(
        orig_lat[located],
        orig_lon[located],
        rel_lat[located],
        rel_lon[located],
        index=BallIndex(orig_lat, orig_lon),
    )
    correct = np.where(strict == 0, 1.0 / ties, 0.0)
    expected = float(correct.sum())
    return SpatialRisk(
        k=int(k),
        rows=n,
        located=int(located.sum()),
        spatial_k=strict,
        nn_share=expected / n,
        nn_ci=wilson(expected, n),
        nn_expected=expected,
    )
