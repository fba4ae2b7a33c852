"""Location as one quasi-identifier: hierarchies of nested grid cells for the lattice search.

A column holding points as ``"lat,lon"`` text (e.g. ``"52.09012,5.12034"``; ``"(lat, lon)"`` and
WKT ``"POINT (lon lat)"`` are read too) gets a hierarchy whose levels are nested cells, then
``*``; the optimal search, k-anonymity, l-diversity, t-closeness and risk then treat the location
like any other generalized attribute. Two builders (``attributes.<column>.hierarchy``):

* ``{"builder": "geo-grid", "cell_m": 500, "levels": 4}``: square cells of 500 m, 1 km, 2 km and
  4 km. Each size doubles the last and its cells are unions of 2 x 2 cells of the level below
  (the indices are the finest cell's shifted right by one bit per level), so the levels nest
  exactly. Squares live in the equal-area projection of :mod:`anon_core.geo.grid` (pyproj's
  Lambert azimuthal equal-area; a local equirectangular grid without pyproj).
* ``{"builder": "h3", "resolutions": [9, 7, 5, 3]}``: H3 cells at each resolution, coarser ones
  being each finer cell's H3 parent (needs the h3 package of the ``geo`` extra).

A generalized value is the cell's centre and what the cell is: ``"52.09012,5.12035 (500 m
cell)"`` or ``"52.09012,5.12035 (H3 891f1d4a93bffff)"``. To generalize a latitude/longitude
pair, give the configuration's ``geo`` section a ``hierarchy``
(:mod:`anon_core.geo.location` makes the column), or put it in one column first
(:func:`point_column`) and mark the two source columns as identifiers.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from anon_core.data.builders import register_builder
from anon_core.data.hierarchy import Hierarchy
from anon_core.data.io import MISSING
from anon_core.errors import HierarchyError
from anon_core.geo.grid import INSTALL, grid_centre, have
from anon_core.geo.sphere import EARTH_RADIUS_M
from anon_core.validation import check_float, check_int

TOP = "*"
#: Levels of a square-grid hierarchy at most (the largest cell is cell_m * 2**(levels - 1)).
MAX_LEVELS = 24
DEFAULT_RESOLUTIONS = (9, 7, 5, 3)
_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_PAIR = re.compile(rf"^\s*\(?\s*({_NUMBER})\s*[,;]\s*({_NUMBER})\s*\)?\s*$")
_WKT = re.compile(rf"^\s*POINT\s*\(\s*({_NUMBER})\s+({_NUMBER})\s*\)\s*$", re.IGNORECASE)
EXAMPLE = '"52.09012,5.12034" (latitude, longitude) or "POINT (5.12034 52.09012)"'


def point_column(lat: Any, lon: Any, decimals: int = 6) -> pd.Series:
    """One ``"lat,lon"`` text per row (missing where either is missing), for a location QI."""
    a = pd.to_numeric(pd.Series(lat), errors="coerce").round(decimals)
    b = pd.to_numeric(pd.Series(lon), errors="coerce").round(decimals)
    text = a.map(lambda v: f"{v:.{decimals}f}") + "," + b.map(lambda v: f"{v:.{decimals}f}")
    return text.where(a.notna() & b.notna(), None)


def parse_points(
    values: Sequence[Any] | np.ndarray, name: str = ""
) -> tuple[np.ndarray, np.ndarray]:
    """(latitudes, longitudes) of point texts; HierarchyError naming how many are unreadable or
    out of range (never the values) and the expected form. Plain ``"lat,lon"`` texts are read
    vectorized; only the others go through the patterns one by one."""
    texts = pd.Series(np.asarray(values, dtype=object)).astype(str)
    parts = texts.str.split(",", n=1, expand=True)
    if parts.shape[1] == 2:
        lat = pd.to_numeric(parts[0], errors="coerce").to_numpy(float)
        lon = pd.to_numeric(parts[1], errors="coerce").to_numpy(float)
    else:
        lat = np.full(len(texts), np.nan)
        lon = np.full(len(texts), np.nan)
    for i in np.flatnonzero(~(np.isfinite(lat) & np.isfinite(lon))):
        text = texts.iat[i]
        m = _PAIR.match(text)
        if m:
            lat[i], lon[i] = float(m.group(1)), float(m.group(2))
        elif (m := _WKT.match(text)) is not None:
            lon[i], lat[i] = float(m.group(1)), float(m.group(2))
    bad = ~(np.isfinite(lat) & (np.abs(lat) <= 90) & np.isfinite(lon) & (np.abs(lon) <= 180))
    if bad.any():
        raise HierarchyError(
            f"Column {name!r} has {int(bad.sum()):,} distinct value(s) that are not points in "
            f"range; a location column holds {EXAMPLE}, latitude in [-90, 90] "
            "and longitude in [-180, 180]. Fix or blank those cells."
        )
    return lat, lon


def _table(values: np.ndarray, levels: list[list[str]], missing: bool, name: str) -> Hierarchy:
    cols = [values.astype(object)] + [np.asarray(level, dtype=object) for level in levels]
    cols.append(np.full(len(values), TOP, dtype=object))
    table = np.column_stack(cols).astype(object)
    if missing:
        table = np.vstack([table, [MISSING] * (len(levels) + 1) + [TOP]])
    return Hierarchy(table, name=name)


def split_missing(values: Sequence[Any] | np.ndarray) -> tuple[np.ndarray, bool]:
    arr = np.asarray(pd.unique(pd.Series(np.asarray(values, dtype=object)).astype(str)))
    mask = arr == MISSING
    return arr[~mask], bool(mask.any())


def _projection(lat: np.ndarray, lon: np.ndarray):
    """(forward (lat, lon) -> (x, y) metres, inverse) of the square grid (see grid.py)."""
    lat0, lon0 = grid_centre(lat, lon) if len(lat) else (0.0, 0.0)
    if have("pyproj"):
        from pyproj import Transformer

        crs = f"+proj=laea +lat_0={lat0} +lon_0={lon0} +R={EARTH_RADIUS_M} +units=m +no_defs"
        fwd = Transformer.from_crs("EPSG:4326", crs, always_xy=True)
        inv = Transformer.from_crs(crs, "EPSG:4326", always_xy=True)

        def forward(a, b):
            x, y = fwd.transform(b, a)
            return np.asarray(x, float), np.asarray(y, float)

        def inverse(x, y):
            b, a = inv.transform(x, y)
            return np.asarray(a, float), np.asarray(b, float)

        return forward, inverse
    per_deg = np.pi * EARTH_RADIUS_M / 180.0
    scale = max(float(np.cos(np.radians(lat0))), 1e-6)

    def forward_eq(a, b):
        return (np.asarray(b) - lon0) * per_deg * scale, (np.asarray(a) - lat0) * per_deg

    def inverse_eq(x, y):
        a = np.clip(np.asarray(y) / per_deg + lat0, -90.0, 90.0)
        b = (np.asarray(x) / (per_deg * scale) + lon0 + 180.0) % 360.0 - 180.0
        return a, b

    return forward_eq, inverse_eq


def grid_hierarchy(
    values: Sequence[Any] | np.ndarray, name: str = "", cell_m: float = 500.0, levels: int = 4
) -> Hierarchy:
    """Square cells of ``cell_m`` metres doubling ``levels`` times (nested), then ``*``."""
    cell_m = check_float(f"{name}.hierarchy.cell_m", cell_m, minimum=1.0, maximum=1e7)
    levels = check_int(f"{name}.hierarchy.levels", levels, minimum=1, maximum=MAX_LEVELS)
    distinct, missing = split_missing(values)
    lat, lon = parse_points(distinct, name)
    forward, inverse = _projection(lat, lon)
    x, y = forward(lat, lon)
    ix = np.floor(x / cell_m).astype(np.int64)
    iy = np.floor(y / cell_m).astype(np.int64)
    out = []
    for level in range(levels):
        size = cell_m * 2**level
        cx, cy = ix >> level, iy >> level
        span = int(cy.max() - cy.min()) + 1 if len(cy) else 1
        key = (cx - (cx.min() if len(cx) else 0)) * span + (cy - (cy.min() if len(cy) else 0))
        codes, uniques = pd.factorize(key)
        first = np.zeros(len(uniques), dtype=np.int64)
        first[codes] = np.arange(len(codes))  # a row of each cell (all share its indices)
        clat, clon = inverse((cx[first] + 0.5) * size, (cy[first] + 0.5) * size)
        text = [f"{a:.5f},{b:.5f} ({size:,.0f} m cell)" for a, b in zip(clat, clon, strict=True)]
        out.append(np.asarray(text, dtype=object)[codes])
    return _table(distinct, out, missing, name)


def h3_hierarchy(
    values: Sequence[Any] | np.ndarray, name: str = "", resolutions: Any = DEFAULT_RESOLUTIONS
) -> Hierarchy:
    """H3 cells at each of ``resolutions`` (finest first, strictly decreasing), then ``*``."""
    where = f"{name}.hierarchy.resolutions"
    if not isinstance(resolutions, (list, tuple)) or not resolutions:
        raise HierarchyError(f"'{where}' must be a list of H3 resolutions, e.g. [9, 7, 5, 3].")
    res = [check_int(where, r, minimum=0, maximum=15) for r in resolutions]
    if any(b >= a for a, b in zip(res, res[1:], strict=False)):
        raise HierarchyError(
            f"'{where}' is {res}: list H3 resolutions from finest to coarsest, each smaller than "
            "the last, e.g. [9, 7, 5, 3]."
        )
    if not have("h3"):
        raise HierarchyError(f"The 'h3' builder needs the h3 package, not installed: {INSTALL}.")
    import h3

    distinct, missing = split_missing(values)
    lat, lon = parse_points(distinct, name)
    finest = [
        h3.latlng_to_cell(float(a), float(b), res[0])
        for a, b in zip(lat.tolist(), lon.tolist(), strict=True)
    ]
    codes, cells = pd.factorize(np.asarray(finest, dtype=object))  # each distinct cell once
    out = []
    for r in res:
        level = cells if r == res[0] else [h3.cell_to_parent(c, r) for c in cells]
        centre = {c: h3.cell_to_latlng(c) for c in set(level)}
        text = [f"{centre[c][0]:.5f},{centre[c][1]:.5f} (H3 {c})" for c in level]
        out.append(np.asarray(text, dtype=object)[codes])
    return _table(distinct, out, missing, name)


register_builder("geo-grid", grid_hierarchy, {"cell_m", "levels"})
register_builder("h3", h3_hierarchy, {"resolutions"})
