"""Geomasking release methods for point locations (the configuration's ``geo`` section names the
latitude and longitude columns; every other column is released unchanged).

* ``geomask-gaussian`` (``sigma_m``): Gaussian displacement;
* ``geomask-donut`` (``min_distance_m``, ``max_distance_m``; with ``k``: adaptive donut giving
  spatial k-anonymity against the input's own locations);
* ``location-swap`` (``radius_m``): each location replaced by another input location nearby;
* ``geo-aggregate`` (``grid``: square ``cell_m`` or H3 ``h3_resolution``): snap to the cell centre.

The algorithms are in :mod:`anon_core.geo.masking` and :mod:`anon_core.geo.grid`; spatial risk
and utility of a release in :mod:`anon_core.geo.risk` and :mod:`anon_core.geo.utility`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from anon_core.errors import ConfigError
from anon_core.geo import masking
from anon_core.geo.grid import h3_cells, square_cells
from anon_core.geo.section import (
    EXAMPLE,
    GeoSection,
    geo_section_of,
    read_locations,
    wkt_points,
)
from anon_core.methods.registry import (
    MethodContext,
    MethodOutput,
    Progress,
    ReleaseMethod,
    register_method,
    report,
)
from anon_core.params import Param


class _GeoMethod(ReleaseMethod):
    """Shared plumbing: read the geo section and the coordinates, write the masked ones back."""

    accepts = frozenset({"numeric"})
    randomized = True
    guarantee = "none"
    #: The ``geo`` extra (pyproj, h3) refines the grids; the methods run without it. Declaring it
    #: keeps them out of default comparisons, which run on tables without location columns.
    extra = "geo"

    def _section(self, context: MethodContext) -> GeoSection:
        section = geo_section_of(context.config)
        if section is None:
            raise ConfigError(
                f"Method {self.name!r} needs a 'geo' section naming the location columns, "
                f"e.g. {EXAMPLE}."
            )
        if section.hierarchy is not None:
            raise ConfigError(
                f"Method {self.name!r} moves points, but the geo section's 'hierarchy' makes the "
                f"location the generalized quasi-identifier {section.column!r} and removes "
                f"{list(section.columns)}; remove 'hierarchy' (and 'column') from the geo "
                "section to geomask, or use method generalization."
            )
        return section

    def _mask(
        self, lat: np.ndarray, lon: np.ndarray, rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray, str, dict[str, Any]]:
        raise NotImplementedError

    def release(
        self,
        frame: pd.DataFrame,
        context: MethodContext,
        *,
        random_state: int | None = None,
        progress: Progress | None = None,
    ) -> MethodOutput:
        section = self._section(context)
        lat, lon = read_locations(frame, section)
        rng = np.random.default_rng(random_state)
        mlat, mlon, guarantee, details = self._mask(lat, lon, rng)
        out = frame.copy()
        if section.point is not None:  # written back as WKT, whatever form the input had
            out[section.point] = wkt_points(mlat, mlon)
        else:
            out[str(section.latitude)] = mlat
            out[str(section.longitude)] = mlon
        report(progress, 1.0, f"{self.label}: {len(frame):,} location(s) masked")
        return MethodOutput(
            out, guarantee, {"columns": list(section.columns), "rows": int(len(frame)), **details}
        )


def _distances(d: np.ndarray) -> dict[str, float | None]:
    if not len(d):
        return {"median_displacement_m": None, "max_displacement_m": None}
    return {"median_displacement_m": float(np.median(d)), "max_displacement_m": float(d.max())}


@register_method
class GaussianGeomask(_GeoMethod):
    name = "geomask-gaussian"
    label = "Geomask: Gaussian displacement"
    params = (
        Param(
            "sigma_m",
            "float",
            250.0,
            help="standard deviation of the east and north shifts, metres",
            minimum=0.0,
            maximum=1_000_000.0,
        ),
    )
    protects = "Exact home locations: each point moves a random (Gaussian) distance."
    does_not_protect = (
        "Points that move little stay nearest their home (no spatial-k bound); isolated homes "
        "in sparse areas stay re-identifiable."
    )

    def _mask(self, lat, lon, rng):
        mlat, mlon, d = masking.gaussian(lat, lon, float(self.parameters["sigma_m"]), rng)
        return mlat, mlon, self.guarantee, _distances(d)


@register_method
class DonutGeomask(_GeoMethod):
    name = "geomask-donut"
    label = "Geomask: donut (adaptive with k)"
    params = (
        Param(
            "min_distance_m",
            "float",
            50.0,
            help="smallest displacement, metres",
            minimum=0.0,
            maximum=masking.MAX_DISTANCE_M,
        ),
        Param(
            "max_distance_m",
            "float",
            500.0,
            help="largest displacement, metres",
            minimum=0.0,
            maximum=masking.MAX_DISTANCE_M,
        ),
        Param(
            "k",
            "int",
            None,
            help="adaptive donut: grow each point's radii until >= k input locations lie closer to the "
            "masked point than the true one (spatial k-anonymity)",
            minimum=1,
            maximum=10_000,
        ),
    )
    protects = (
        "Exact home locations: every point moves at least min_distance_m; with k, at least k "
        "input locations are closer to each released point than the true home."
    )
    does_not_protect = (
        "Spatial k counts only the input's own locations, not every address of the area; an "
        "attacker who knows other attributes (age, diagnosis) can still narrow the candidates."
    )

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        lo, hi = self.parameters["min_distance_m"], self.parameters["max_distance_m"]
        if hi < lo:
            raise ConfigError(
                f"'max_distance_m' ({hi}) is smaller than 'min_distance_m' ({lo}); give "
                "min_distance_m <= max_distance_m."
            )

    def _mask(self, lat, lon, rng):
        lo = float(self.parameters["min_distance_m"])
        hi = float(self.parameters["max_distance_m"])
        k = self.parameters["k"]
        if k is None:
            mlat, mlon, d = masking.donut(lat, lon, lo, hi, rng)
            return mlat, mlon, self.guarantee, _distances(d)
        mlat, mlon, d, rounds = masking.adaptive_donut(lat, lon, lo, hi, int(k), rng)
        guarantee = f"spatial k-anonymity (k={int(k)}) against the input's locations"
        return mlat, mlon, guarantee, {**_distances(d), "rounds": int(rounds)}


@register_method
class LocationSwap(_GeoMethod):
    name = "location-swap"
    label = "Geomask: location swapping"
    params = (
        Param(
            "radius_m",
            "float",
            500.0,
            help="swap with a location at most this far, metres",
            minimum=0.0,
            maximum=masking.MAX_DISTANCE_M,
        ),
        Param(
            "candidates",
            "int",
            50,
            help="draw among at most this many nearest locations within the radius",
            minimum=1,
            maximum=1000,
        ),
        Param(
            "unswapped",
            "choice",
            "suppress",
            help="a point with no other location within the radius: suppress (blank) or keep",
            choices=("suppress", "keep"),
        ),
    )
    protects = "Exact home locations: each released location is another person's, nearby."
    does_not_protect = (
        "Released locations are real input locations (their residents are exposed as being "
        "nearby); with unswapped=keep, isolated homes are released exactly."
    )

    def _mask(self, lat, lon, rng):
        mlat, mlon, swapped = masking.location_swap(
            lat, lon, float(self.parameters["radius_m"]), rng, int(self.parameters["candidates"])
        )
        kept = ~swapped
        if self.parameters["unswapped"] == "keep":
            mlat[kept], mlon[kept] = lat[kept], lon[kept]
        return (
            mlat,
            mlon,
            self.guarantee,
            {
                "swapped": int(swapped.sum()),
                "unswapped": int(kept.sum()),
                "unswapped_action": self.parameters["unswapped"],
            },
        )


@register_method
class GeoAggregate(_GeoMethod):
    name = "geo-aggregate"
    label = "Geomask: aggregate to grid cells"
    randomized = False
    params = (
        Param(
            "grid",
            "choice",
            "square",
            help="square cells (cell_m) or H3 hexagons",
            choices=("square", "h3"),
        ),
        Param(
            "cell_m",
            "float",
            1000.0,
            help="side of a square cell, metres",
            minimum=1.0,
            maximum=1_000_000.0,
        ),
        Param(
            "h3_resolution",
            "int",
            8,
            help="H3 resolution (8: cells of about 0.7 km2)",
            minimum=0,
            maximum=15,
        ),
    )
    protects = "Exact home locations: everyone in a cell is released at the cell's centre."
    does_not_protect = (
        "A cell holding one person identifies them as well as the address's area does; "
        "cells at a border can still be small."
    )

    def _mask(self, lat, lon, rng):  # noqa: ARG002 - deterministic
        if self.parameters["grid"] == "h3":
            mlat, mlon, how = h3_cells(lat, lon, int(self.parameters["h3_resolution"]))
        else:
            mlat, mlon, how = square_cells(lat, lon, float(self.parameters["cell_m"]))
        cells = len({(a, b) for a, b in zip(mlat.tolist(), mlon.tolist(), strict=True)})
        return mlat, mlon, self.guarantee, {"grid": how, "cells": cells}
