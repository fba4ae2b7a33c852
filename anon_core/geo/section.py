"""The configuration's ``geo`` section and the checks on the coordinates it names.

```yaml
geo:
  latitude: lat      # column of latitudes in decimal degrees (WGS84), -90 .. 90
  longitude: lon     # column of longitudes in decimal degrees, -180 .. 180
  # or, instead of the pair, one point column:
  # point: home      # WKT "POINT (lon lat)" or GeoJSON {"type": "Point", "coordinates": [lon, lat]}
  # optional: make the location ONE generalized quasi-identifier (see anon_core.geo.location)
  hierarchy: {builder: h3, resolutions: [9, 7, 5, 3]}
  column: location   # the quasi-identifier's name (default "location")
```

Every problem gives one :class:`~anon_core.errors.ConfigError` (the section) or
:class:`~anon_core.errors.DataError` (the rows) that names how many rows are affected and the fix;
row values are never quoted (they are personal data).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from anon_core.errors import ConfigError, DataError

GEO_KEYS = ("latitude", "longitude", "point", "hierarchy", "column")
EXAMPLE = '"geo": {"latitude": "lat", "longitude": "lon"}'
POINT_FORMS = (
    'WKT "POINT (5.12034 52.09012)" (longitude first), GeoJSON {"type": "Point", '
    '"coordinates": [5.12034, 52.09012]}, or "52.09012,5.12034" (latitude first)'
)
#: Builders a location hierarchy may use (``geo.hierarchy.builder``).
LOCATION_BUILDERS = ("geo-grid", "h3", "polygons")
DEFAULT_COLUMN = "location"
#: Longest text of one point cell that is parsed (a longer cell counts as not a point).
MAX_POINT_CHARS = 1_000
_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_PAIR = re.compile(rf"^\s*\(?\s*({_NUMBER})\s*[,;]\s*({_NUMBER})\s*\)?\s*$")
_WKT = re.compile(rf"^\s*POINT\s*Z?\s*\(\s*({_NUMBER})\s+({_NUMBER})(?:\s+{_NUMBER})?\s*\)\s*$",
                  re.IGNORECASE)  # fmt: skip


@dataclass(frozen=True)
class GeoSection:
    """The validated ``geo`` section: a latitude/longitude pair or one point column, and the
    hierarchy that makes the location one quasi-identifier (None: the points stay as they are)."""

    latitude: str | None = None
    longitude: str | None = None
    point: str | None = None
    hierarchy: Mapping[str, Any] | None = None
    column: str = DEFAULT_COLUMN

    @property
    def columns(self) -> tuple[str, ...]:
        """The source columns: (latitude, longitude), or (point,)."""
        if self.point is not None:
            return (self.point,)
        return (str(self.latitude), str(self.longitude))

    @property
    def pair(self) -> bool:
        return self.point is None


def _name(key: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"'geo.{key}' must be a column name, got {value!r}; e.g. {EXAMPLE}.")
    return value


def parse_geo_section(raw: Any) -> GeoSection:
    """Validate a ``geo`` section; ConfigError saying what is wrong and how to write it."""
    if not isinstance(raw, Mapping):
        raise ConfigError(f"'geo' must be a mapping of column names, e.g. {EXAMPLE}.")
    unknown = sorted(str(k) for k in raw if k not in GEO_KEYS)
    if unknown:
        raise ConfigError(
            f"'geo' has unknown key(s) {unknown}; it takes {list(GEO_KEYS)}, e.g. {EXAMPLE}."
        )
    hierarchy, column = _location_keys(raw)
    if "point" in raw:
        if "latitude" in raw or "longitude" in raw:
            raise ConfigError(
                "'geo' names both a point column and latitude/longitude columns; give either "
                '"point" or the "latitude" and "longitude" pair.'
            )
        point = _name("point", raw["point"])
        if point == column:
            raise ConfigError(
                f"'geo.column' is {column!r}, the point column itself; name a new column for the "
                "generalized location (the point column is removed from the release)."
            )
        return GeoSection(point=point, hierarchy=hierarchy, column=column)
    pair = ("latitude", "longitude")
    missing = [k for k in pair if k not in raw]
    if missing:
        given = [k for k in pair if k in raw]
        raise ConfigError(
            f"'geo' names a {given[0]} column but no {missing[0]} column: a location needs "
            f"both; add '{missing[0]}' to the geo section, e.g. {EXAMPLE}."
            if given
            else f"'geo' needs 'latitude' and 'longitude' columns (or one 'point' column), "
            f"e.g. {EXAMPLE}."
        )
    lat, lon = _name("latitude", raw["latitude"]), _name("longitude", raw["longitude"])
    if lat == lon:
        raise ConfigError(
            f"'geo.latitude' and 'geo.longitude' both name column {lat!r}; "
            "name the two different columns."
        )
    if column in (lat, lon):
        raise ConfigError(
            f"'geo.column' is {column!r}, one of the source columns; name a new column for the "
            "generalized location (latitude and longitude are removed from the release)."
        )
    return GeoSection(latitude=lat, longitude=lon, hierarchy=hierarchy, column=column)


def _location_keys(raw: Mapping[str, Any]) -> tuple[Mapping[str, Any] | None, str]:
    hierarchy = raw.get("hierarchy")
    if hierarchy is not None:
        builder = hierarchy.get("builder") if isinstance(hierarchy, Mapping) else None
        if builder not in LOCATION_BUILDERS:
            raise ConfigError(
                f"'geo.hierarchy' must name a location builder, one of {list(LOCATION_BUILDERS)}, "
                'e.g. {"builder": "h3", "resolutions": [9, 7, 5, 3]} or {"builder": "geo-grid", '
                '"cell_m": 250, "levels": 5}.'
            )
        hierarchy = dict(hierarchy)
    if "column" in raw and hierarchy is None:
        raise ConfigError(
            "'geo.column' names the location quasi-identifier made by 'geo.hierarchy'; add a "
            'hierarchy, e.g. "hierarchy": {"builder": "h3", "resolutions": [9, 7, 5, 3]}.'
        )
    column = _name("column", raw.get("column", DEFAULT_COLUMN))
    return hierarchy, column


def geo_section_of(config: Any) -> GeoSection | None:
    """The ``geo`` section of a :class:`~anon_core.config.ReleaseConfig` (None without one)."""
    if config is None:
        return None
    sections = getattr(config, "sections", None) or {}
    raw = sections.get("geo")
    if raw is None:
        raw = (getattr(config, "raw", None) or {}).get("geo")
    return None if raw is None else parse_geo_section(raw)


def _one_point(text: str) -> tuple[float, float]:
    """(lat, lon) of one point text, NaN when it is not a point."""
    if len(text) > MAX_POINT_CHARS:
        return np.nan, np.nan
    if (m := _WKT.match(text)) is not None:
        return float(m.group(2)), float(m.group(1))
    if (m := _PAIR.match(text)) is not None:
        return float(m.group(1)), float(m.group(2))
    if text.lstrip().startswith("{"):
        try:
            obj = json.loads(text)
            coords = obj["coordinates"] if obj.get("type") == "Point" else None
            if coords is not None and 2 <= len(coords) <= 3:
                lon, lat = float(coords[0]), float(coords[1])
                return lat, lon
        except (ValueError, TypeError, KeyError, AttributeError):
            pass
    return np.nan, np.nan


def point_coordinates(values: pd.Series, *, strict: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """(latitudes, longitudes) of a point column (each distinct text parsed once); with
    ``strict``, DataError naming how many rows are missing, not points or out of range."""
    series = pd.Series(values).reset_index(drop=True)
    present = series.notna().to_numpy()
    codes, uniques = pd.factorize(series.astype(str).where(present, None))
    parsed = np.array([_one_point(str(u)) for u in uniques], dtype=float).reshape(-1, 2)
    lat = np.where(codes >= 0, parsed[codes, 0] if len(parsed) else np.nan, np.nan)
    lon = np.where(codes >= 0, parsed[codes, 1] if len(parsed) else np.nan, np.nan)
    if strict:
        name = str(series.name) if series.name is not None else "point"
        if not present.all():
            raise DataError(
                f"{int((~present).sum()):,} row(s) have no location (column {name!r} is empty); "
                "geocode them or remove those rows before releasing."
            )
        bad = ~(np.isfinite(lat) & np.isfinite(lon))
        if bad.any():
            raise DataError(
                f"{int(bad.sum()):,} row(s) of column {name!r} are not points; write each as "
                f"{POINT_FORMS}."
            )
        _check_range(lat, lon, "")
    return lat, lon


def _check_range(lat: np.ndarray, lon: np.ndarray, hint_pair: str) -> None:
    bad = (np.abs(lat) > 90.0) | (np.abs(lon) > 180.0) | ~np.isfinite(lat) | ~np.isfinite(lon)
    if bad.any():
        hint = (
            f" (are latitude and longitude swapped{hint_pair}?)"
            if (np.abs(lon) <= 90.0).all() and (np.abs(lat) > 90.0).any()
            else ""
        )
        raise DataError(
            f"{int(bad.sum()):,} row(s) have coordinates outside latitude -90..90 / longitude "
            f"-180..180{hint}; correct or remove those rows, in decimal degrees (WGS84)."
        )


def read_locations(frame: pd.DataFrame, section: GeoSection) -> tuple[np.ndarray, np.ndarray]:
    """(latitudes, longitudes) as float arrays; DataError for absent columns, values that are not
    numbers (or points), missing coordinates or coordinates out of range (one message with the
    row count)."""
    columns = [str(c) for c in frame.columns]
    absent = [c for c in section.columns if c not in columns]
    if absent:
        raise ConfigError(
            f"'geo' names column(s) {absent} that the table does not have; the table's columns "
            f"are {columns}. Fix the geo section."
        )
    if section.point is not None:
        return point_coordinates(frame[section.point])
    lat_name, lon_name = str(section.latitude), str(section.longitude)
    raw_lat, raw_lon = frame[lat_name], frame[lon_name]
    lat = pd.to_numeric(raw_lat, errors="coerce").to_numpy(dtype=float)
    lon = pd.to_numeric(raw_lon, errors="coerce").to_numpy(dtype=float)
    text = (np.isnan(lat) & raw_lat.notna().to_numpy()) | (
        np.isnan(lon) & raw_lon.notna().to_numpy()
    )
    if text.any():
        raise DataError(
            f"{int(text.sum()):,} row(s) have a latitude or longitude that is not a number "
            f"(columns {lat_name!r}, {lon_name!r}); write decimal degrees "
            "such as 51.5072 and -0.1276."
        )
    lone = np.isnan(lat) != np.isnan(lon)
    both = np.isnan(lat) & np.isnan(lon)
    if lone.any() or both.any():
        raise DataError(
            f"{int(lone.sum() + both.sum()):,} row(s) have no location "
            f"({int(lone.sum()):,} with only one of latitude/longitude, {int(both.sum()):,} with "
            "neither); geocode them or remove those rows before releasing."
        )
    _check_range(lat, lon, " in the geo section")
    return lat, lon


def released_locations(frame: pd.DataFrame, section: GeoSection) -> tuple[np.ndarray, np.ndarray]:
    """(latitudes, longitudes) of a release's points, NaN where blanked or not a point (no error:
    a suppressed location is a released blank). KeyError when the columns are gone."""
    if section.point is not None:
        return point_coordinates(frame[section.point], strict=False)
    lat = pd.to_numeric(frame[str(section.latitude)], errors="coerce").to_numpy(float)
    lon = pd.to_numeric(frame[str(section.longitude)], errors="coerce").to_numpy(float)
    return lat, lon


def wkt_points(lat: np.ndarray, lon: np.ndarray, decimals: int = 6) -> list[str | None]:
    """WKT ``POINT (lon lat)`` texts (None where a coordinate is missing)."""
    return [
        None
        if not (np.isfinite(a) and np.isfinite(b))
        else f"POINT ({b:.{decimals}f} {a:.{decimals}f})"
        for a, b in zip(np.asarray(lat, float), np.asarray(lon, float), strict=True)
    ]
