"""The configuration's ``geo`` section and the checks on the coordinates it names.

```yaml
geo:
  latitude: lat      # column of latitudes in decimal degrees (WGS84), -90 .. 90
  longitude: lon     # column of longitudes in decimal degrees, -180 .. 180
```

Every problem gives one :class:`~anon_core.errors.ConfigError` (the section) or
:class:`~anon_core.errors.DataError` (the rows) that names how many rows are affected and the fix;
row values are never quoted (they are personal data).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from anon_core.errors import ConfigError, DataError

GEO_KEYS = ("latitude", "longitude")
EXAMPLE = '"geo": {"latitude": "lat", "longitude": "lon"}'


@dataclass(frozen=True)
class GeoSection:
    """The validated ``geo`` section: the names of the latitude and longitude columns."""

    latitude: str
    longitude: str

    @property
    def columns(self) -> tuple[str, str]:
        return (self.latitude, self.longitude)


def parse_geo_section(raw: Any) -> GeoSection:
    """Validate a ``geo`` section; ConfigError saying what is wrong and how to write it."""
    if not isinstance(raw, Mapping):
        raise ConfigError(f"'geo' must be a mapping of column names, e.g. {EXAMPLE}.")
    unknown = sorted(str(k) for k in raw if k not in GEO_KEYS)
    if unknown:
        raise ConfigError(
            f"'geo' has unknown key(s) {unknown}; it takes only 'latitude' and 'longitude', "
            f"e.g. {EXAMPLE}."
        )
    missing = [k for k in GEO_KEYS if k not in raw]
    if missing:
        given = [k for k in GEO_KEYS if k in raw]
        raise ConfigError(
            f"'geo' names a {given[0] if given else 'column'} column but no {missing[0]} column: "
            f"a location needs both; add '{missing[0]}' to the geo section, e.g. {EXAMPLE}."
            if given
            else f"'geo' needs 'latitude' and 'longitude' columns, e.g. {EXAMPLE}."
        )
    values = {}
    for key in GEO_KEYS:
        v = raw[key]
        if not isinstance(v, str) or not v.strip():
            raise ConfigError(f"'geo.{key}' must be a column name, got {v!r}; e.g. {EXAMPLE}.")
        values[key] = v
    if values["latitude"] == values["longitude"]:
        raise ConfigError(
            f"'geo.latitude' and 'geo.longitude' both name column {values['latitude']!r}; "
            "name the two different columns."
        )
    return GeoSection(values["latitude"], values["longitude"])


def geo_section_of(config: Any) -> GeoSection | None:
    """The ``geo`` section of a :class:`~anon_core.config.ReleaseConfig` (None without one)."""
    if config is None:
        return None
    sections = getattr(config, "sections", None) or {}
    raw = sections.get("geo")
    if raw is None:
        raw = (getattr(config, "raw", None) or {}).get("geo")
    return None if raw is None else parse_geo_section(raw)


def read_locations(frame: pd.DataFrame, section: GeoSection) -> tuple[np.ndarray, np.ndarray]:
    """(latitudes, longitudes) as float arrays; DataError for absent columns, values that are not
    numbers, missing coordinates or coordinates out of range (one message with the row count)."""
    columns = [str(c) for c in frame.columns]
    absent = [c for c in section.columns if c not in columns]
    if absent:
        raise ConfigError(
            f"'geo' names column(s) {absent} that the table does not have; the table's columns "
            f"are {columns}. Fix the geo section."
        )
    raw_lat, raw_lon = frame[section.latitude], frame[section.longitude]
    lat = pd.to_numeric(raw_lat, errors="coerce").to_numpy(dtype=float)
    lon = pd.to_numeric(raw_lon, errors="coerce").to_numpy(dtype=float)
    text = (np.isnan(lat) & raw_lat.notna().to_numpy()) | (
        np.isnan(lon) & raw_lon.notna().to_numpy()
    )
    if text.any():
        raise DataError(
            f"{int(text.sum()):,} row(s) have a latitude or longitude that is not a number "
            f"(columns {section.latitude!r}, {section.longitude!r}); write decimal degrees "
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
    bad = (np.abs(lat) > 90.0) | (np.abs(lon) > 180.0) | ~np.isfinite(lat) | ~np.isfinite(lon)
    if bad.any():
        hint = (
            " (are latitude and longitude swapped in the geo section?)"
            if (np.abs(lon) <= 90.0).all() and (np.abs(lat) > 90.0).any()
            else ""
        )
        raise DataError(
            f"{int(bad.sum()):,} row(s) have coordinates outside latitude -90..90 / longitude "
            f"-180..180{hint}; correct or remove those rows, in decimal degrees (WGS84)."
        )
    return lat, lon
