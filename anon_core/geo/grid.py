"""Grid cells for aggregation: a square grid in an equal-area projection, or H3 hexagons.

* With pyproj (the ``geo`` extra) the square grid lives in a Lambert azimuthal equal-area
  projection centred on the data's centre rounded to whole degrees (so the grid does not move
  when a few rows change): every cell has the same area on the ground.
* Without pyproj it falls back to a local equirectangular grid (cells of fixed size in degrees,
  sized for the centre latitude): a cell's east-west width is off by cos(lat)/cos(lat0), e.g.
  about 1.5 % 100 km north or south of the centre at 50 degrees latitude. The release's details say
  which projection was used.
* H3 cells (``grid: h3``) need the h3 package (the ``geo`` extra); without it one clear message
  says what to install.

A released point is the cell's geometric centre, never a mean of the people in it.
"""

from __future__ import annotations

import importlib.util

import numpy as np

from anon_core.errors import ConfigError
from anon_core.geo.sphere import EARTH_RADIUS_M

INSTALL = "pip install -e '.[geo]'  (or: pip install pyproj h3 shapely)"


def have(module: str) -> bool:
    """Whether an optional module can be imported here."""
    return importlib.util.find_spec(module) is not None


def grid_centre(lat: np.ndarray, lon: np.ndarray) -> tuple[float, float]:
    """The data's centre rounded to whole degrees (the projection's origin)."""
    x, y, z = (
        np.mean(np.cos(np.radians(lat)) * np.cos(np.radians(lon))),
        np.mean(np.cos(np.radians(lat)) * np.sin(np.radians(lon))),
        np.mean(np.sin(np.radians(lat))),
    )
    clat = float(np.degrees(np.arctan2(z, np.hypot(x, y))))
    clon = float(np.degrees(np.arctan2(y, x)))
    return float(round(clat)), float(round(clon))


def square_cells(
    lat: np.ndarray, lon: np.ndarray, cell_m: float, *, use_pyproj: bool | None = None
) -> tuple[np.ndarray, np.ndarray, str]:
    """(latitudes, longitudes) of the centre of each point's square cell of side ``cell_m``
    metres, and the projection's description."""
    lat0, lon0 = grid_centre(lat, lon)
    if use_pyproj is None:
        use_pyproj = have("pyproj")
    if use_pyproj:
        from pyproj import Transformer

        crs = f"+proj=laea +lat_0={lat0} +lon_0={lon0} +R={EARTH_RADIUS_M} +units=m +no_defs"
        fwd = Transformer.from_crs("EPSG:4326", crs, always_xy=True)
        x, y = fwd.transform(lon, lat)
        cx = (np.floor(np.asarray(x) / cell_m) + 0.5) * cell_m
        cy = (np.floor(np.asarray(y) / cell_m) + 0.5) * cell_m
        inv = Transformer.from_crs(crs, "EPSG:4326", always_xy=True)
        out_lon, out_lat = inv.transform(cx, cy)
        return (
            np.asarray(out_lat),
            np.asarray(out_lon),
            f"Lambert azimuthal equal-area at ({lat0}, {lon0})",
        )
    dlat = np.degrees(cell_m / EARTH_RADIUS_M)
    dlon = dlat / max(np.cos(np.radians(lat0)), 1e-6)
    out_lat = np.clip((np.floor((lat - lat0) / dlat) + 0.5) * dlat + lat0, -90.0, 90.0)
    out_lon = (np.floor((lon - lon0) / dlon) + 0.5) * dlon + lon0
    out_lon = (out_lon + 180.0) % 360.0 - 180.0
    return out_lat, out_lon, f"equirectangular at ({lat0}, {lon0}) (pyproj not installed)"


def h3_cells(
    lat: np.ndarray, lon: np.ndarray, resolution: int
) -> tuple[np.ndarray, np.ndarray, str]:
    """(latitudes, longitudes) of the centre of each point's H3 cell at ``resolution``."""
    if not have("h3"):
        raise ConfigError(f"'grid: h3' needs the h3 package, which is not installed: {INSTALL}.")
    import h3

    cells = [
        h3.latlng_to_cell(float(a), float(b), resolution) for a, b in zip(lat, lon, strict=True)
    ]
    unique = {c: h3.cell_to_latlng(c) for c in set(cells)}
    out = np.array([unique[c] for c in cells], dtype=float).reshape(-1, 2)
    return out[:, 0], out[:, 1], f"H3 resolution {resolution}"
