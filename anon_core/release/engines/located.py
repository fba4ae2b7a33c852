"""The geo section's location column on a scale engine: derived in SQL, formatted as pandas does.

A ``geo`` section with a ``hierarchy`` makes a latitude/longitude pair ONE quasi-identifier: a
``"lat,lon"`` text column, each coordinate rounded to 6 decimals (numpy's round half to even of
``x * 1e6``, then ``/ 1e6``) and written with ``%.6f``
(:func:`anon_core.geo.hierarchy.point_column`). The DuckDB engine derives that column in its
query (:func:`location_sql`), at the position of the latitude column, so that grouping, the
hierarchy (built in Python on the grouped table's distinct points) and the written release are
those of the pandas engine, byte for byte, without loading the file. The coordinates are checked
first by one counting query, with the pandas engine's messages.

Spark does not derive the column (one line says so); nor does DuckDB for a WKT/GeoJSON point
column (parsing those is pandas-only).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from anon_core.errors import ConfigError, DataError
from anon_core.geo.section import GeoSection
from anon_core.release.engines.base import TableSource, quote_ident

DECIMALS = 6


@dataclass(frozen=True)
class LocatedSource(TableSource):
    """A file plus the location column its engine derives (``columns`` includes it)."""

    latitude: str = ""
    longitude: str = ""
    location: str = "location"
    file_columns: tuple[str, ...] = ()


def _rounded(column: str) -> str:
    """SQL of a coordinate as a double rounded like numpy's ``round(x, 6)``: ``rint(x * 1e6) /
    1e6``, ties to even (DuckDB's ``round`` sends ties away from zero)."""
    x = f"TRY_CAST({quote_ident(column)} AS DOUBLE)"
    y = f"({x} * 1e6)"
    return (
        f"((CASE WHEN abs({y} - trunc({y})) = 0.5 THEN 2 * round({y} / 2) "
        f"ELSE round({y}) END) / 1e6)"
    )


def location_sql(source: LocatedSource) -> str:
    """The SQL expression of the location column (NULL where a coordinate is missing)."""
    lat, lon = _rounded(source.latitude), _rounded(source.longitude)
    return (
        f"CASE WHEN {lat} IS NULL OR {lon} IS NULL THEN NULL ELSE "
        f"printf('%.{DECIMALS}f', {lat}) || ',' || printf('%.{DECIMALS}f', {lon}) END"
    )


def select_list(source: LocatedSource) -> str:
    """The file's columns with the location column derived in its place."""
    return ", ".join(
        f"{location_sql(source)} AS {quote_ident(c)}" if c == source.location else quote_ident(c)
        for c in source.columns
    )


def check_sql(source: LocatedSource, relation: str) -> str:
    """One query counting the rows whose coordinates the pandas engine refuses."""
    lat, lon = (quote_ident(source.latitude), quote_ident(source.longitude))
    a, b = f"TRY_CAST({lat} AS DOUBLE)", f"TRY_CAST({lon} AS DOUBLE)"
    return (
        "SELECT "
        f"count(*) FILTER ((({a} IS NULL OR isnan({a})) AND {lat} IS NOT NULL) OR "
        f"(({b} IS NULL OR isnan({b})) AND {lon} IS NOT NULL)) AS text, "
        f"count(*) FILTER (({lat} IS NULL) != ({lon} IS NULL)) AS lone, "
        f"count(*) FILTER ({lat} IS NULL AND {lon} IS NULL) AS neither, "
        f"count(*) FILTER (abs({a}) > 90 OR abs({b}) > 180 OR isinf({a}) OR isinf({b})) AS outside, "
        f"count(*) FILTER (abs({a}) > 90) AS lat_outside, "
        f"count(*) FILTER (abs({b}) > 90) AS lon_over_90 "
        f"FROM {relation}"
    )


def check_counts(source: LocatedSource, counts: dict[str, int]) -> None:
    """The pandas engine's error (:func:`anon_core.geo.section.read_locations`) for the counts."""
    lat, lon = source.latitude, source.longitude
    if counts["text"]:
        raise DataError(
            f"{counts['text']:,} row(s) have a latitude or longitude that is not a number "
            f"(columns {lat!r}, {lon!r}); write decimal degrees such as 51.5072 and -0.1276."
        )
    lone, neither = counts["lone"], counts["neither"]
    if lone or neither:
        raise DataError(
            f"{lone + neither:,} row(s) have no location ({lone:,} with only one of "
            f"latitude/longitude, {neither:,} with neither); geocode them or remove those rows "
            "before releasing."
        )
    if counts["outside"]:
        swapped = counts["lon_over_90"] == 0 and counts["lat_outside"] > 0
        hint = " (are latitude and longitude swapped in the geo section?)" if swapped else ""
        raise DataError(
            f"{counts['outside']:,} row(s) have coordinates outside latitude -90..90 / longitude "
            f"-180..180{hint}; correct or remove those rows, in decimal degrees (WGS84)."
        )


def refuse_location(section: GeoSection | None, engine: Any) -> None:
    """One ConfigError when ``engine`` (a name or an engine) cannot derive the location column:
    every engine but DuckDB, and DuckDB for a WKT/GeoJSON point column."""
    name = getattr(engine, "name", engine)
    if section is None or (name == "duckdb" and section.pair):
        return
    what = "a latitude/longitude pair" if section.pair else "a WKT/GeoJSON point column"
    raise ConfigError(
        f"The geo section makes the location column {section.column!r} from {what}, which the "
        f"{name} engine does not do. Use engine: pandas"
        + (" or duckdb" if section.pair else "")
        + ", or write the column into the file first ('lat,lon' text) and give it the hierarchy "
        "under 'attributes'."
    )


def located_source(source: TableSource, section: GeoSection | None, engine: Any) -> TableSource:
    """``source`` with the geo section's location column (``source`` itself without one); one
    ConfigError when the engine cannot derive it, DataError for bad coordinates."""
    if section is None:
        return source
    refuse_location(section, engine)
    columns = list(source.columns)
    absent = [c for c in section.columns if c not in columns]
    if absent:
        raise ConfigError(
            f"'geo' names column(s) {absent} that the table does not have; the table's columns "
            f"are {columns}. Fix the geo section."
        )
    if section.column in columns:
        raise ConfigError(
            f"The table already has a column {section.column!r}; the geo section makes its "
            "location column under that name. Name it differently with geo.column."
        )
    columns.insert(columns.index(str(section.latitude)), section.column)
    fields = {f: getattr(source, f) for f in ("path", "format", "separator", "encoding")}
    located = LocatedSource(
        **fields,
        columns=tuple(columns),
        latitude=str(section.latitude),
        longitude=str(section.longitude),
        location=section.column,
        file_columns=tuple(source.columns),
    )
    engine.check_locations(located)
    return located
