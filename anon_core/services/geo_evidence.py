"""The spatial figures of a release's evidence (when the configuration has a ``geo`` section).

``spatial_k_min``, ``spatial_k_share_below`` (k = :data:`~anon_core.geo.risk.DEFAULT_K`) and
``nn_reidentification`` (value and 95 % Wilson interval) compare the release with the table it was
made from, row by row (row i of the release is person i). They are not defined, with the reason,
when the release's rows are not the input's rows in order (a method that drops or generates rows)
or its coordinates are not numbers.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from anon_core.errors import AnonError
from anon_core.geo.risk import DEFAULT_K, spatial_risk
from anon_core.geo.section import GeoSection, read_locations

NAMES = ("spatial_k_min", "spatial_k_share_below", "nn_reidentification")
EXPLAIN = {
    "spatial_k_min": "the smallest number of input locations lying closer to a released point "
    "than the person's true location (spatial k-anonymity; 0: the true home is the nearest)",
    "spatial_k_share_below": f"share of released points with spatial k below {DEFAULT_K}",
    "nn_reidentification": "share of people re-identified by an attacker who holds every input "
    "address and links each released point to the nearest one",
}


def _figure(value: Any, ci: Any = None, why: str | None = None, name: str = "") -> dict:
    from anon_core.services.evidence import figure

    out = figure(value, ci, kind="spatial", why=why, name=name)
    out["explain"] = EXPLAIN[name]
    return out


def geo_figures(
    section: GeoSection, source: pd.DataFrame, released: pd.DataFrame, k: int = DEFAULT_K
) -> tuple[dict[str, dict], dict[str, Any] | None]:
    """(figures, spatial risk details) of ``released`` against ``source``."""
    why = None
    risk = None
    if len(released) != len(source) or not released.index.equals(source.index):
        why = (
            f"the release's rows ({len(released):,}) are not the input's rows ({len(source):,}) "
            "in order, so released points cannot be paired with true locations"
        )
    else:
        try:
            olat, olon = read_locations(source, section)
            rlat = pd.to_numeric(released[section.latitude], errors="coerce").to_numpy(float)
            rlon = pd.to_numeric(released[section.longitude], errors="coerce").to_numpy(float)
            if released[section.latitude].notna().sum() and pd.isna(rlat).all():
                raise AnonError("the released coordinates are not numbers (generalized?)")
            risk = spatial_risk(olat, olon, rlat, rlon, k=k)
        except (AnonError, KeyError) as exc:
            why = f"spatial risk could not be measured: {exc}"
    if risk is None:
        return {n: _figure(None, why=why, name=n) for n in NAMES}, None
    no_point = "no released point has a location"
    return {
        "spatial_k_min": _figure(risk.k_min, why=no_point, name="spatial_k_min"),
        "spatial_k_share_below": _figure(
            risk.share_below, why=no_point, name="spatial_k_share_below"
        ),
        "nn_reidentification": _figure(risk.nn_share, risk.nn_ci, name="nn_reidentification"),
    }, risk.to_dict()
