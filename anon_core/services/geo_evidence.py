"""The spatial figures of a release's evidence and of the Compare page (when the configuration has
a ``geo`` section: points released as points, or cells released with their centroids).

Risk: ``spatial_k_min``, ``spatial_k_share_below`` (k = :data:`~anon_core.geo.risk.DEFAULT_K`)
and ``nn_reidentification`` (value and 95 % Wilson interval).

Utility (:mod:`anon_core.geo.utility`): ``displacement_median_m`` and ``displacement_p95_m``
(great-circle metres), ``ripley_l_max_diff_m`` (the largest |L_release(r) - L_original(r)| in
metres over the stated radii), ``nn_index_release`` (Clark-Evans; the original's value is in the
explanation) and ``hotspot_recovery`` (share of the original's DBSCAN clusters found again at
eps 500 m, min_samples 20).

All compare the release with the table it was made from, row by row (row i of the release is
person i). They are not defined, with the reason, when the release's rows are not the input's rows
in order (a method that drops or generates rows, or a generalization that removes suppressed
records) or its locations are not points. A location generalized into cells by the ``geo``
section counts as released at its cell's centroid (``*`` and polygon names: no location).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from anon_core.errors import AnonError
from anon_core.geo.hierarchy import parse_points
from anon_core.geo.risk import DEFAULT_K, SpatialRisk, spatial_risk
from anon_core.geo.section import GeoSection, read_locations, released_locations
from anon_core.geo.utility import HOTSPOT_EPS_M, HOTSPOT_MIN_SAMPLES, spatial_utility

#: A generalized cell's value starts with its centroid: "52.09012,5.12035 (500 m cell)".
CENTROID = r"^\s*([-+]?[0-9.]+(?:[eE][-+]?\d+)?),([-+]?[0-9.]+(?:[eE][-+]?\d+)?) \("
NAMES = ("spatial_k_min", "spatial_k_share_below", "nn_reidentification")
UTILITY_NAMES = (
    "displacement_median_m",
    "displacement_p95_m",
    "ripley_l_max_diff_m",
    "nn_index_release",
    "hotspot_recovery",
)
EXPLAIN = {
    "spatial_k_min": "the smallest number of input locations lying closer to a released point "
    "than the person's true location (spatial k-anonymity; 0: the true home is the nearest)",
    "spatial_k_share_below": f"share of released points with spatial k below {DEFAULT_K}",
    "nn_reidentification": "share of people re-identified by an attacker who holds every input "
    "address and links each released point to the nearest one",
    "displacement_median_m": "median great-circle distance between a person's true and released "
    "location, metres",
    "displacement_p95_m": "95th percentile of the great-circle displacement, metres",
    "ripley_l_max_diff_m": "largest difference of Ripley's L function (original vs release), "
    "metres, over the radii stated in the details (0: the same clustering at every scale)",
    "nn_index_release": "Clark-Evans nearest-neighbour index of the released points (<1 "
    "clustered, 1 random, >1 dispersed); compare with the original's",
    "hotspot_recovery": f"share of the original's density clusters (DBSCAN, eps {HOTSPOT_EPS_M:.0f}"
    f" m, at least {HOTSPOT_MIN_SAMPLES} points) whose centre has a release cluster within "
    f"{HOTSPOT_EPS_M:.0f} m",
}


def _figure(value: Any, ci: Any = None, why: str | None = None, name: str = "") -> dict:
    from anon_core.services.evidence import figure

    kind = "spatial" if name in NAMES else "spatial utility"
    out = figure(value, ci, kind=kind, why=why, name=name)
    out["explain"] = EXPLAIN[name]
    return out


def paired_points(
    section: GeoSection, source: pd.DataFrame, released: pd.DataFrame
) -> tuple[tuple[np.ndarray, ...] | None, str | None]:
    """((original lat, lon, released lat, lon), None), or (None, why they cannot be paired)."""
    if len(released) != len(source) or not released.index.equals(source.index):
        return None, (
            f"the release's rows ({len(released):,}) are not the input's rows ({len(source):,}) "
            "in order, so released points cannot be paired with true locations"
        )
    if section.hierarchy is not None:
        return cell_centroids(section, source, released)
    try:
        olat, olon = read_locations(source, section)
        rlat, rlon = released_locations(released, section)
        if released[section.columns[0]].notna().sum() and pd.isna(rlat).all():
            raise AnonError("the released coordinates are not points (generalized?)")
    except (AnonError, KeyError) as exc:
        return None, f"spatial figures could not be measured: {exc}"
    return (olat, olon, rlat, rlon), None


def cell_centroids(
    section: GeoSection, source: pd.DataFrame, released: pd.DataFrame
) -> tuple[tuple[np.ndarray, ...] | None, str | None]:
    """Points of a location generalized into cells: the input's ``"lat,lon"`` location column and
    the released cells' centroids (the text before `` (``); ``*`` and polygon names are not
    points and count as released without a location)."""
    column = section.column
    if column not in source.columns or column not in released.columns:
        return None, f"the location column {column!r} is not in the input and the release"
    try:
        olat, olon = parse_points(source[column].astype(str).to_numpy(), column)
    except AnonError as exc:
        return None, f"spatial figures could not be measured: {exc}"
    centre = released[column].astype(str).str.extract(CENTROID)
    rlat = pd.to_numeric(centre[0], errors="coerce").to_numpy(float)
    rlon = pd.to_numeric(centre[1], errors="coerce").to_numpy(float)
    if not np.isfinite(rlat).any():
        return None, (
            f"the location is released as names or '*' ({column!r}), not as cells with a "
            "centroid; the class-based figures measure it"
        )
    return (olat, olon, rlat, rlon), None


def utility_values(util: dict[str, Any]) -> dict[str, Any]:
    """The chartable spatial utility figures of :func:`anon_core.geo.utility.spatial_utility`."""
    return {
        "displacement_median_m": util["displacement"]["median_m"],
        "displacement_p95_m": util["displacement"]["p95_m"],
        "ripley_l_max_diff_m": util["ripley"]["max_abs_diff_m"],
        "nn_index_release": util["nni_release"],
        "hotspot_recovery": util["hotspots"]["recovery"],
    }


def ripley_range(util: dict[str, Any]) -> str:
    radii = util["ripley"].get("radii_m") or []
    if not radii:
        return "Ripley's L: no radii (fewer than 3 distinct original points)"
    return (
        f"Ripley's L compared at {len(radii)} radii from {radii[0]:,.0f} to {radii[-1]:,.0f} m "
        f"on {util['ripley'].get('rows_compared', 0):,} rows"
    )


def geo_figures(
    section: GeoSection,
    source: pd.DataFrame,
    released: pd.DataFrame,
    k: int = DEFAULT_K,
    utility: bool = True,
) -> tuple[dict[str, dict], dict[str, Any] | None]:
    """(figures, spatial details) of ``released`` against ``source``: the risk figures, and with
    ``utility`` the spatial utility figures."""
    points, why = paired_points(section, source, released)
    names = NAMES + (UTILITY_NAMES if utility else ())
    if points is None:
        return {n: _figure(None, why=why, name=n) for n in names}, None
    risk: SpatialRisk = spatial_risk(*points, k=k)
    no_point = "no released point has a location"
    figures = {
        "spatial_k_min": _figure(risk.k_min, why=no_point, name="spatial_k_min"),
        "spatial_k_share_below": _figure(
            risk.share_below, why=no_point, name="spatial_k_share_below"
        ),
        "nn_reidentification": _figure(risk.nn_share, risk.nn_ci, name="nn_reidentification"),
    }
    details = risk.to_dict()
    if utility:
        util = spatial_utility(*points)
        values = utility_values(util)
        for name in UTILITY_NAMES:
            figures[name] = _figure(values[name], why="not defined on these points", name=name)
        figures["nn_index_release"]["explain"] += (
            f" ({util['nni_original']:.3f})" if util["nni_original"] is not None else ""
        )
        figures["ripley_l_max_diff_m"]["explain"] += f"; {ripley_range(util)}"
        details["utility"] = util
    return figures, details
