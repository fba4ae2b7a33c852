"""The dashboard's location quasi-identifier: the workspace's side of the ``geo`` section.

A ``geo`` section with a ``hierarchy`` makes a latitude/longitude pair (or a point column) ONE
quasi-identifier (:mod:`anon_core.geo.location`). The CLI makes that column when it reads the
input; the workspace makes it once per source columns, so that its ``frame`` is the table the
CLI's problem is built on: the ``location`` column sits where the first source column was, the
sources are identifiers (dropped from the release) and the location's hierarchy is
``geo.hierarchy``. The same configuration then gives the same release in both. A file opened by
path reads the column through its DuckDB engine (:mod:`anon_core.release.engines.located`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from anon_core.data.dataset import Role
from anon_core.data.hierarchy_spec import hierarchy_from_spec
from anon_core.data.io import to_labels
from anon_core.errors import ConfigError
from anon_core.geo.location import frame_with_location, location_spec
from anon_core.geo.section import LOCATION_BUILDERS, GeoSection, parse_geo_section
from anon_core.release.engines.located import located_source


def location_of(config: Mapping[str, Any]) -> GeoSection | None:
    """The ``geo`` section of a configuration mapping when it makes a location quasi-identifier."""
    raw = config.get("geo")
    if raw is None:
        return None
    section = parse_geo_section(raw)
    return section if section.hierarchy is not None else None


def check_location_spec(section: GeoSection, spec: Mapping[str, Any] | None) -> dict[str, Any]:
    """``spec`` as the location's hierarchy; ConfigError unless it is a location builder."""
    if spec is None or spec.get("builder") not in LOCATION_BUILDERS:
        raise ConfigError(
            f"The location {section.column!r} is generalized by a location hierarchy, one of "
            f"{list(LOCATION_BUILDERS)}; pick one under 'One location quasi-identifier' on the "
            "Attributes page, or remove the location quasi-identifier first."
        )
    return dict(spec)


def location_change(
    current: Mapping[str, Any] | None,
    frame: pd.DataFrame,
    base: Path,
    hierarchy: Mapping[str, Any],
    *,
    latitude: str | None = None,
    longitude: str | None = None,
    point: str | None = None,
    column: str = "location",
) -> tuple[dict[str, Any], GeoSection]:
    """The new ``geo`` section (other keys of ``current`` kept) and its parsed form, after checking
    the coordinates of every row and the hierarchy over every distinct location (one error each,
    naming the rows affected and the fix)."""
    geo: dict[str, Any] = (
        {"point": point} if point else {"latitude": latitude, "longitude": longitude}
    )
    geo.update({"hierarchy": dict(hierarchy), "column": column})
    section = parse_geo_section(geo)
    if section.column in frame.columns:
        raise ConfigError(
            f"The table already has a column {section.column!r}; name the location column "
            "differently."
        )
    trial = frame_with_location(frame, section)  # DataError for bad or missing coordinates
    values = pd.unique(to_labels(trial[section.column]))
    hierarchy_from_spec(section.column, location_spec(section, base), values, base).encode(values)
    sources = ("latitude", "longitude", "point")
    kept = {k: v for k, v in (current or {}).items() if k not in geo and k not in sources}
    return {**geo, **kept}, section


class LocationState:
    """The workspace's location quasi-identifier (a mixin of
    :class:`~anon_core.workspace.Workspace`, which holds ``config``, ``frame``, ``frame_hash``,
    ``large``, ``base_dir`` and the table as given, ``_input`` and ``_input_hash``)."""

    config: dict[str, Any]
    frame: pd.DataFrame
    frame_hash: str
    large: Any
    base_dir: Path
    _input: pd.DataFrame
    _input_hash: str
    _location_key: Any
    _input_large: Any
    _text_columns: list[str] | None

    @property
    def location(self) -> GeoSection | None:
        """The geo section when it makes a location quasi-identifier (None otherwise)."""
        return location_of(self.config)

    @property
    def fixed_roles(self) -> dict[str, str]:
        """The roles the geo section fixes, as the CLI reads it: the location a quasi-identifier,
        its source columns identifiers (empty without a location quasi-identifier)."""
        section = self.location
        if section is None:
            return {}
        roles = {c: Role.IDENTIFIER.value for c in section.columns}
        return {**roles, section.column: Role.QUASI_IDENTIFIER.value}

    def _location_roles(self, roles: dict[str, str]) -> dict[str, str]:
        return {**roles, **self.fixed_roles}

    def _location_specs(self, specs: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        section = self.location
        if section is not None:
            specs[section.column] = dict(section.hierarchy or {})
        return specs

    def _take_location_spec(self, specs: Mapping[str, Any]) -> dict[str, Any]:
        """``specs`` without the location's, which becomes ``geo.hierarchy``."""
        specs = dict(specs)
        section = self.location
        if section is not None:
            spec = check_location_spec(section, specs.pop(section.column, None))
            self.config["geo"] = {**self.config["geo"], "hierarchy": spec}
        return specs

    def _resolved_spec(self, column: str, spec: Mapping[str, Any]) -> Mapping[str, Any]:
        section = self.location
        if section is not None and column == section.column:
            return location_spec(section, self.base_dir)
        return spec

    def _sync_location(self) -> None:
        """``frame``: the table as given, with the location column when the geo section makes
        one (made once per source columns and name; the hierarchy changes nothing in the table)."""
        section = self.location
        key = None if section is None else (section.columns, section.column)
        if key == self._location_key:
            return
        if section is None:
            self.frame, self.frame_hash = self._input, self._input_hash
            self.large = self._input_large
        else:
            large = self._input_large  # a file opened by path: its engine derives the column
            source = None if large is None else located_source(large.source, section, large.engine)
            self.frame = frame_with_location(self._input, section)
            if large is not None:
                self.large = large.located(source, self.frame)
            digest = json.dumps([self._input_hash, "location", list(key[0]), key[1]])
            self.frame_hash = hashlib.sha256(digest.encode()).hexdigest()
        self._location_key, self._text_columns = key, None

    def apply_location(
        self,
        hierarchy: Mapping[str, Any],
        latitude: str | None = None,
        longitude: str | None = None,
        point: str | None = None,
        column: str = "location",
    ) -> None:
        """Make the location ONE quasi-identifier (an undoable change), exactly as the CLI reads
        the same ``geo`` section: the latitude/longitude pair (or the point column) becomes an
        identifier, dropped from the release, and ``column`` a quasi-identifier generalized by
        ``hierarchy`` (geo-grid, h3 or polygons). Every row's coordinates and the hierarchy are
        checked first: a problem is one error and nothing changes."""
        geo, section = location_change(
            self.config.get("geo"), self._input, self.base_dir, hierarchy,
            latitude=latitude, longitude=longitude, point=point, column=column,
        )  # fmt: skip
        roles = {c: r for c, r in self.roles.items() if c in self._input.columns}  # type: ignore[attr-defined]
        roles.update({c: Role.IDENTIFIER.value for c in section.columns})
        self.update(  # type: ignore[attr-defined]
            f"location quasi-identifier {section.column}",
            sections={**self.sections, "geo": geo},  # type: ignore[attr-defined]
            roles=roles,
            transformation=None,
        )

    def remove_location(self) -> None:
        """End the location quasi-identifier (undoable). The geo section keeps its source columns
        (the map and the geomasking methods read them); they stay identifiers until changed."""
        if self.location is None:
            return
        geo = {k: v for k, v in self.config["geo"].items() if k not in ("hierarchy", "column")}
        self.update(  # type: ignore[attr-defined]
            "location quasi-identifier removed",
            sections={**self.sections, "geo": geo},  # type: ignore[attr-defined]
            transformation=None,
        )
