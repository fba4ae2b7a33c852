"""A location as ONE quasi-identifier, made from the ``geo`` section.

With a ``hierarchy`` in the ``geo`` section, the latitude/longitude pair (or the point column)
becomes one generalized quasi-identifier:

* :func:`geo_attributes` rewrites the configuration's attributes: the source columns become
  identifiers (removed from every release, whatever role ``attributes`` gave them) and the
  location column (``geo.column``, default ``location``) a quasi-identifier with the section's
  hierarchy (``geo-grid``, ``h3`` or ``polygons``);
* :func:`with_location` adds that column to the table, as ``"lat,lon"`` text rounded to 6
  decimals (about 0.1 m), at the position of the first source column. The hierarchy builders read
  it, so k-anonymity, l-diversity, t-closeness, risk and the optimal search see one attribute.

A released value is the cell's centroid and its id (``"52.09012,5.12035 (H3 891f1d4a93bffff)"``,
``"52.09012,5.12035 (500 m cell)"``) or the polygon's name.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from anon_core.errors import ConfigError
from anon_core.geo.hierarchy import point_column
from anon_core.geo.polygons import resolve_layer
from anon_core.geo.section import GeoSection, geo_section_of, parse_geo_section, read_locations


def location_section(config: Any) -> GeoSection | None:
    """The ``geo`` section when it makes a location quasi-identifier (has a hierarchy)."""
    section = geo_section_of(config)
    return section if section is not None and section.hierarchy is not None else None


def geo_attributes(
    attributes: Mapping[str, Any], raw_geo: Any, base: Path | None = None
) -> dict[str, Any]:
    """``attributes`` with the ``geo`` section's location quasi-identifier (unchanged without a
    ``geo.hierarchy``): the source columns become identifiers, the location column is added (a
    polygon layer's path resolved against ``base``, the configuration's folder)."""
    if raw_geo is None:
        return dict(attributes)
    section = parse_geo_section(raw_geo)
    if section.hierarchy is None:
        return dict(attributes)
    if section.column in attributes:
        raise ConfigError(
            f"'attributes' names {section.column!r}, the column the geo section makes from the "
            "location; leave it out of 'attributes' (its hierarchy is geo.hierarchy) or name the "
            "location column differently with geo.column."
        )
    hierarchy = location_spec(section, base)
    location = {"role": "quasi-identifier", "hierarchy": hierarchy}
    out: dict[str, Any] = {}
    for name, spec in attributes.items():
        if name in section.columns:
            if section.column not in out:
                out[section.column] = location
            out[name] = {"role": "identifier"}
        else:
            out[name] = spec
    if section.column not in out:
        out[section.column] = location
    for name in section.columns:
        out.setdefault(name, {"role": "identifier"})
    return out


def location_spec(section: GeoSection, base: Path | None = None) -> dict[str, Any]:
    """The location column's hierarchy spec: ``geo.hierarchy`` with a polygon layer's path resolved
    against ``base`` (a layer given inline, as a GeoJSON mapping, is kept as it is)."""
    hierarchy = dict(section.hierarchy or {})
    if hierarchy.get("builder") == "polygons" and not isinstance(hierarchy.get("layer"), Mapping):
        hierarchy["layer"] = resolve_layer(hierarchy.get("layer"), base)
    return hierarchy


def location_values(frame: pd.DataFrame, section: GeoSection) -> pd.Series:
    """The location column's values (``"lat,lon"`` text); DataError/ConfigError as
    :func:`~anon_core.geo.section.read_locations`."""
    lat, lon = read_locations(frame, section)
    return pd.Series(point_column(lat, lon).to_numpy(), index=frame.index, name=section.column)


def with_location(frame: pd.DataFrame, config: Any) -> pd.DataFrame:
    """``frame`` with the ``geo`` section's location column (``frame`` itself when the section
    has no hierarchy, or when the column was made already and the sources were dropped since)."""
    section = location_section(config)
    return frame if section is None else frame_with_location(frame, section)


def frame_with_location(frame: pd.DataFrame, section: GeoSection) -> pd.DataFrame:
    """``frame`` with ``section``'s location column (see :func:`with_location`)."""
    have_sources = all(c in frame.columns for c in section.columns)
    if section.column in frame.columns:
        if not have_sources:
            return frame
        made = location_values(frame, section)
        if not frame[section.column].astype(str).equals(made.astype(str)):
            raise ConfigError(
                f"The table already has a column {section.column!r}; the geo section makes its "
                "location column under that name. Name it differently with geo.column."
            )
        return frame
    values = location_values(frame, section)
    out = frame.copy()
    out.insert(list(frame.columns).index(section.columns[0]), section.column, values)
    return out
