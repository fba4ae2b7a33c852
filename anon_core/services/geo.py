"""Geocoded points for the dashboard: which columns hold locations, and the data of the offline
map of original vs released points.

The map never carries a person's raw location unless asked: by default it holds the released
points (what will be published anyway, a seeded sample when there are many) and the original
points *aggregated* on a square grid, whose cells with fewer than :data:`MIN_CELL` people are
left out (not drawn, not sent to the browser). The raw original points and the displacement
segments (true home to released point) are added only with ``show_points=True`` (the user ticks
a box). Cells are squares in metres on a local equirectangular approximation around the data's
median latitude (a cell's east-west width is off by cos(lat)/cos(lat0): about 1.5 % 100 km
north or south of it at 50 degrees).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from anon_core.errors import AnonError, HierarchyError
from anon_core.geo.polygons import MAX_LAYER_BYTES
from anon_core.geo.section import parse_geo_section, point_coordinates
from anon_core.geo.sphere import EARTH_RADIUS_M
from anon_core.geo.utility import ripley_comparison

#: Cells holding fewer original points than this are never drawn.
MIN_CELL = 5
#: Released (and, when asked, original) points drawn at most; more are a seeded sample.
MAX_POINTS = 20_000
#: Displacement segments drawn at most (with ``show_points``).
MAX_SEGMENTS = 300
#: About this many cells across the longer side of the data's extent.
CELLS_ACROSS = 40
#: Cell sides on offer, in metres (the smallest that gives at most CELLS_ACROSS cells).
CELL_SIZES_M = (50, 100, 200, 250, 500, 1_000, 2_000, 2_500, 5_000, 10_000, 20_000, 25_000,
                50_000, 100_000, 200_000, 250_000, 500_000, 1_000_000)  # fmt: skip
LAT_NAMES = ("lat", "latitude", "lat_deg", "y_lat")
LON_NAMES = ("lon", "lng", "long", "longitude", "lon_deg", "x_lon")
M_PER_DEG = math.pi * EARTH_RADIUS_M / 180.0


#: A generalized location's id after its centre ("52.09012,5.12035 (H3 891f1d4a93bffff)").
_CELL_SUFFIX = r"\s+\((?:H3 [0-9a-fA-F]+|[\d,.]+ m cell)\)\s*$"
#: Rounding of the coordinates the suggestion reports uniqueness at (decimals, about).
ROUNDINGS = ((3, "100 m"), (2, "1 km"))


def _geo_section(config: Mapping[str, Any] | None) -> Any:
    """The configuration's ``geo`` section parsed, or None when it has none or it is invalid
    (the configuration's own check reports why)."""
    raw = (config or {}).get("geo")
    if raw is None:
        return None
    try:
        return parse_geo_section(raw)
    except AnonError:
        return None


def location_columns(
    config: Mapping[str, Any] | None, frame: pd.DataFrame
) -> tuple[str, ...] | None:
    """The location's columns: (latitude, longitude), or (point,) for one WKT/GeoJSON/"lat,lon"
    point column. The configuration's ``geo`` section when it has one, else a pair named like
    latitude/longitude (lat, lon, lng, ...) whose values are numbers in range; None when
    neither."""
    if (config or {}).get("geo") is not None:
        section = _geo_section(config)
        if section is None:
            return None
        if all(c in frame.columns for c in section.columns):
            return tuple(str(c) for c in section.columns)
        return None
    by_name = {str(c).strip().lower(): c for c in frame.columns}
    lat = next((by_name[n] for n in LAT_NAMES if n in by_name), None)
    lon = next((by_name[n] for n in LON_NAMES if n in by_name), None)
    if lat is None or lon is None:
        return None
    a = pd.to_numeric(frame[lat], errors="coerce")
    b = pd.to_numeric(frame[lon], errors="coerce")
    if a.notna().mean() < 0.9 or b.notna().mean() < 0.9:
        return None
    if not (a.abs().max() <= 90 and b.abs().max() <= 180):
        return None
    return (str(lat), str(lon))


def location_suggestion(
    frame: pd.DataFrame, others: list[str] | None = None
) -> dict[str, str] | None:
    """A latitude/longitude pair to suggest on the Attributes page (named like lat/lon, numbers
    in range in at least 90 % of rows), with the reason in words and a ``geo`` section to copy;
    None when no pair fits. The reason says how many rows stay unique when the coordinates are
    rounded (alone, and with the ``others`` quasi-identifiers); counts and names, never values."""
    pair = location_columns(None, frame)
    if pair is None:
        return None
    lat, lon = pair
    a = pd.to_numeric(frame[lat], errors="coerce")
    b = pd.to_numeric(frame[lon], errors="coerce")
    located = a.notna() & b.notna()
    unique = int((~pd.DataFrame({"a": a[located], "b": b[located]}).duplicated(keep=False)).sum())
    share = unique / max(int(located.sum()), 1)
    others = [c for c in (others or []) if c in frame.columns and c not in (lat, lon)]
    rounded = []
    for decimals, about in ROUNDINGS:
        keys = pd.DataFrame({"a": a[located].round(decimals), "b": b[located].round(decimals)})
        alone = int((~keys.duplicated(keep=False)).sum())
        text = f"rounded to {decimals} decimals (about {about}) {alone / max(len(keys), 1):.0%}"
        if others:
            keys = pd.concat([keys, frame.loc[located, others].astype(str)], axis=1)
            both = int((~keys.duplicated(keep=False)).sum())
            text += f" alone and {both / max(len(keys), 1):.0%} with {', '.join(others)}"
        rounded.append(text)
    reason = (
        f"Columns {lat!r} and {lon!r} look like a location: named like latitude and longitude, "
        f"{int(located.sum()):,} of {len(frame):,} rows hold numbers within -90..90 and "
        f"-180..180. {unique:,} rows ({share:.0%}) have a pair no other row has"
        + (", so most people are unique by location alone" if share >= 0.5 else "")
        + ". Rounding does not fix it: unique "
        + "; ".join(rounded)
        + ". Make them one location quasi-identifier generalized to nested areas (H3 cells, "
        "square grid cells or your polygons) with the button below, so that k-anonymity "
        "counts people per area; or move the points with a geomasking method on the Compare page."
    )
    section = (
        f'"geo": {{"latitude": "{lat}", "longitude": "{lon}",\n'
        '        "hierarchy": {"builder": "h3", "resolutions": [9, 7, 5, 3]}}'
    )
    return {"latitude": lat, "longitude": lon, "reason": reason, "config": section}


@dataclass(frozen=True)
class DensityGrid:
    """Original points counted on square cells (cells under MIN_CELL left out as NaN)."""

    cell_m: float
    lon_centres: np.ndarray
    lat_centres: np.ndarray
    counts: np.ndarray  # (lat cells, lon cells), NaN where fewer than MIN_CELL (or none)
    hidden_points: int  # original points in the cells left out
    hidden_cells: int


@dataclass(frozen=True)
class LocationMap:
    """What the offline map draws; raw original locations only when asked for."""

    columns: tuple[str, ...]
    centre_lat: float
    density: DensityGrid | None
    released: tuple[np.ndarray, np.ndarray] | None  # (lon, lat) of released points drawn
    released_total: int  # released rows with a location
    original: tuple[np.ndarray, np.ndarray] | None = None  # only with show_points
    segments: tuple[np.ndarray, np.ndarray] | None = None  # (lon, lat) with NaN breaks
    notes: list[str] = field(default_factory=list)


def location_source(config: Mapping[str, Any] | None, frame: pd.DataFrame) -> dict[str, str] | None:
    """The columns a location quasi-identifier can be made of: the ``geo`` section's pair or
    point column (``{"latitude", "longitude"}`` or ``{"point"}``), else the suggested pair; None
    when the table has no location or the section makes one already."""
    if (config or {}).get("geo") is not None:
        section = _geo_section(config)
        if section is None or section.hierarchy is not None:
            return None
        if section.point is not None:
            return {"point": section.point}
        return {"latitude": str(section.latitude), "longitude": str(section.longitude)}
    pair = location_columns(None, frame)
    return None if pair is None else {"latitude": pair[0], "longitude": pair[1]}


def polygon_layer_spec(
    data: bytes,
    name_property: str = "name",
    parent_property: str = "parent",
    outside: str | None = None,
) -> dict[str, Any]:
    """A ``polygons`` hierarchy spec holding an uploaded GeoJSON layer inline (so that the
    configuration reproduces the release on its own); HierarchyError for a file too large or not
    JSON (the builder checks the features)."""
    if len(data) > MAX_LAYER_BYTES:
        raise HierarchyError(
            f"The polygon layer is {len(data) / 2**20:.1f} MB, more than the limit of "
            f"{MAX_LAYER_BYTES / 2**20:g} MB; simplify or clip it first."
        )
    try:
        layer = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        raise HierarchyError(
            "The polygon layer is not valid JSON; export it as GeoJSON (a FeatureCollection)."
        ) from None
    spec = {"builder": "polygons", "layer": layer, "name_property": name_property}
    spec["parent_property"] = parent_property
    if outside:
        spec["outside"] = outside
    return spec


def _coordinates(frame: pd.DataFrame, columns: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """(latitudes, longitudes), NaN where missing or out of range: of a pair of numeric columns,
    or of one point column (WKT, GeoJSON, "lat,lon" text, or a generalized location's centre
    "lat,lon (H3 ...)")."""
    if len(columns) == 1:
        texts = frame[columns[0]].astype("string").str.replace(_CELL_SUFFIX, "", regex=True)
        lat, lon = point_coordinates(texts.astype(object).where(texts.notna(), None), strict=False)
    else:
        lat = pd.to_numeric(frame[columns[0]], errors="coerce").to_numpy(float)
        lon = pd.to_numeric(frame[columns[1]], errors="coerce").to_numpy(float)
    ok = np.isfinite(lat) & np.isfinite(lon) & (np.abs(lat) <= 90) & (np.abs(lon) <= 180)
    return np.where(ok, lat, np.nan), np.where(ok, lon, np.nan)


def density_grid(lat: np.ndarray, lon: np.ndarray, centre_lat: float) -> DensityGrid | None:
    """Counts of the located points on square cells of a size fitted to their extent."""
    ok = np.isfinite(lat) & np.isfinite(lon)
    lat, lon = lat[ok], lon[ok]
    if len(lat) == 0:
        return None
    scale = max(math.cos(math.radians(centre_lat)), 1e-6)
    extent_m = max(np.ptp(lat) * M_PER_DEG, np.ptp(lon) * M_PER_DEG * scale, 1.0)
    cell_m = next((float(c) for c in CELL_SIZES_M if extent_m / c <= CELLS_ACROSS), 1e6)
    dlat = cell_m / M_PER_DEG
    dlon = dlat / scale
    lat0, lon0 = float(lat.min()), float(lon.min())
    i = np.floor((lat - lat0) / dlat).astype(np.int64)
    j = np.floor((lon - lon0) / dlon).astype(np.int64)
    rows, cols = int(i.max()) + 1, int(j.max()) + 1
    counts = np.bincount(i * cols + j, minlength=rows * cols).reshape(rows, cols).astype(float)
    small = (counts > 0) & (counts < MIN_CELL)
    hidden_points, hidden_cells = int(counts[small].sum()), int(small.sum())
    counts[counts < MIN_CELL] = np.nan
    return DensityGrid(
        cell_m=cell_m,
        lon_centres=lon0 + (np.arange(cols) + 0.5) * dlon,
        lat_centres=lat0 + (np.arange(rows) + 0.5) * dlat,
        counts=counts,
        hidden_points=hidden_points,
        hidden_cells=hidden_cells,
    )


def _sample(n: int, limit: int, seed: int) -> np.ndarray:
    if n <= limit:
        return np.arange(n)
    return np.sort(np.random.default_rng(seed).choice(n, size=limit, replace=False))


def released_columns(
    config: Mapping[str, Any] | None, released: pd.DataFrame | None, columns: tuple[str, ...]
) -> tuple[str, ...]:
    """The release's location columns: the original's when kept, else the geo section's
    generalized location column when the release has it (its values' centres are drawn)."""
    if released is None or all(c in released.columns for c in columns):
        return columns
    try:
        raw = (config or {}).get("geo")
        section = parse_geo_section(raw) if raw is not None else None
    except AnonError:
        section = None
    if section is not None and section.hierarchy is not None and section.column in released:
        return (section.column,)
    return columns


def location_map(
    original: pd.DataFrame,
    released: pd.DataFrame | None,
    columns: tuple[str, ...],
    *,
    show_points: bool = False,
    seed: int = 0,
    release_columns: tuple[str, ...] | None = None,
) -> LocationMap:
    """The data of the map of ``original`` (aggregated) and ``released`` (points) locations;
    ``release_columns`` names the release's location columns when they differ (a generalized
    location: the centres of its cells are drawn)."""
    release_columns = release_columns or columns
    olat, olon = _coordinates(original, columns)
    located = np.isfinite(olat)
    centre = float(np.median(olat[located])) if located.any() else 0.0
    notes = []
    density = density_grid(olat, olon, centre)
    if density is not None and density.hidden_cells:
        notes.append(
            f"{density.hidden_points:,} original point(s) in {density.hidden_cells:,} cell(s) "
            f"with fewer than {MIN_CELL} people are not drawn."
        )
    rel = None
    total = 0
    rlat = rlon = None
    if released is not None:
        if all(c in released.columns for c in release_columns):
            rlat, rlon = _coordinates(released, release_columns)
            idx = np.flatnonzero(np.isfinite(rlat))
            total = len(idx)
            if total == 0:
                notes.append("The release has no numeric locations (generalized or suppressed).")
            pick = idx[_sample(total, MAX_POINTS, seed)]
            rel = (rlon[pick], rlat[pick])
            if total > MAX_POINTS:
                notes.append(f"A seeded sample of {MAX_POINTS:,} of {total:,} released points.")
        else:
            notes.append("The release has no location columns.")
    orig = segments = None
    if show_points:
        idx = np.flatnonzero(located)
        pick = idx[_sample(len(idx), MAX_POINTS, seed)]
        orig = (olon[pick], olat[pick])
        aligned = (
            rlat is not None
            and len(released) == len(original)
            and released.index.equals(original.index)
        )
        if aligned:
            both = np.flatnonzero(located & np.isfinite(rlat))
            pick = both[_sample(len(both), MAX_SEGMENTS, seed + 1)]
            gap = np.full(len(pick), np.nan)
            segments = (
                np.column_stack([olon[pick], rlon[pick], gap]).ravel(),
                np.column_stack([olat[pick], rlat[pick], gap]).ravel(),
            )
    return LocationMap(
        columns=columns,
        centre_lat=centre,
        density=density,
        released=rel,
        released_total=total,
        original=orig,
        segments=segments,
        notes=notes,
    )


def ripley_curves(
    original: pd.DataFrame, released: pd.DataFrame | None, columns: tuple[str, str]
) -> dict[str, Any] | None:
    """Ripley's L of the original and the release (:func:`anon_core.geo.utility.ripley_comparison`)
    when the release keeps the input's rows and numeric locations; else None."""
    if released is None or len(released) != len(original):
        return None
    if not all(c in released.columns for c in columns):
        return None
    olat, olon = _coordinates(original, columns)
    rlat, rlon = _coordinates(released, columns)
    if not np.isfinite(rlat).any() or not np.isfinite(olat).all():
        return None
    out = ripley_comparison(olat, olon, rlat, rlon)
    return out if out["radii_m"] else None
