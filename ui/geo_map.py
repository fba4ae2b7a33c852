"""The offline map of point locations: released points over the original density.

Plain plotly cartesian traces of longitude and latitude (``Scattergl`` and ``Heatmap``), with
the y axis scaled by 1/cos(latitude) so that shapes are true near the data. No tile server, no
``scattergeo`` (which fetches its outlines from a CDN) and no web font: the map draws with
nothing but the page itself. The original table appears only as counts per cell (cells with
fewer than 5 people left out) unless the user ticks the box that shows raw points.
"""

from __future__ import annotations

import math

import plotly.graph_objects as go
import streamlit as st

from anon_core.errors import AnonError
from anon_core.services.geo import (
    MIN_CELL,
    LocationMap,
    location_columns,
    location_map,
    released_columns,
    ripley_curves,
)
from anon_core.workspace import Workspace
from ui.evidence import release_value
from ui.widgets import cached_figure

RELEASED = "#e4572e"
ORIGINAL = "#222222"


def location_figure(m: LocationMap, height: int = 460) -> go.Figure:
    """The map's figure (no URL, no tile source, no geo layout)."""
    fig = go.Figure()
    if m.density is not None:
        d = m.density
        fig.add_trace(
            go.Heatmap(
                x=d.lon_centres,
                y=d.lat_centres,
                z=d.counts,
                colorscale="Blues",
                colorbar={"title": {"text": f"original people<br>per {d.cell_m:,.0f} m cell"}},
                hovertemplate="%{z:.0f} people<extra></extra>",
                name="original density",
                zsmooth=False,
            )
        )
    if m.original is not None:
        fig.add_trace(
            go.Scattergl(
                x=m.original[0], y=m.original[1], mode="markers", name="original (personal data)",
                marker={"size": 3, "color": ORIGINAL, "opacity": 0.6},
            )
        )  # fmt: skip
    if m.segments is not None:
        fig.add_trace(
            go.Scattergl(
                x=m.segments[0], y=m.segments[1], mode="lines", name="displacement (sample)",
                line={"width": 1, "color": "#888888"}, hoverinfo="skip",
            )
        )  # fmt: skip
    if m.released is not None:
        fig.add_trace(
            go.Scattergl(
                x=m.released[0], y=m.released[1], mode="markers", name="released",
                marker={"size": 3, "color": RELEASED, "opacity": 0.7},
            )
        )  # fmt: skip
    ratio = 1.0 / max(math.cos(math.radians(m.centre_lat)), 1e-6)
    fig.update_layout(
        height=height,
        margin={"l": 10, "r": 10, "t": 30, "b": 10},
        xaxis={"title": {"text": "longitude (°)"}, "showgrid": False},
        yaxis={
            "title": {"text": "latitude (°)"},
            "scaleanchor": "x",
            "scaleratio": ratio,
            "showgrid": False,
        },
        legend={"orientation": "h", "y": 1.02, "yanchor": "bottom", "x": 0},
        plot_bgcolor="white",
    )
    return fig


def ripley_figure(curves: dict) -> go.Figure:
    """Ripley's L of the original and the release against the distance (both in metres)."""
    fig = go.Figure()
    r = curves["radii_m"]
    fig.add_trace(go.Scatter(x=r, y=r, mode="lines", name="no clustering (L = r)",
                             line={"dash": "dot", "color": "#999999"}))  # fmt: skip
    fig.add_trace(go.Scatter(x=r, y=curves["l_original"], mode="lines+markers", name="original",
                             line={"color": ORIGINAL}))  # fmt: skip
    fig.add_trace(go.Scatter(x=r, y=curves["l_release"], mode="lines+markers", name="released",
                             line={"color": RELEASED}))  # fmt: skip
    fig.update_layout(
        height=300,
        margin={"l": 10, "r": 10, "t": 30, "b": 10},
        xaxis={"title": {"text": "distance r (m)"}, "type": "log"},
        yaxis={"title": {"text": "Ripley's L(r) (m)"}, "type": "log"},
        legend={"orientation": "h", "y": 1.02, "yanchor": "bottom", "x": 0},
    )
    return fig


def explanation(m: LocationMap, released: bool) -> str:
    """The line under the map."""
    cell = f"{m.density.cell_m:,.0f} m" if m.density is not None else "square"
    parts = [
        f"Blue cells: how many people of the original table live in each {cell} square "
        f"(cells with fewer than {MIN_CELL} are not drawn)"
    ]
    if released:
        parts.append("orange dots: the released locations")
    if m.original is not None:
        parts.append("black dots: the original locations (personal data, shown on request)")
    return (
        "; ".join(parts) + ". Longitude and latitude in degrees, drawn without a map server: no "
        "streets or coastlines, and nothing leaves this machine."
    )


def show_location_map(ws: Workspace, key: str, release: bool = False, height: int = 460) -> None:
    """The map of ``ws``'s locations (nothing when the table has no latitude/longitude pair or
    point column);
    with ``release``, the points of the workspace's release drawn over them (if the release
    cannot be made, the original density alone, with the reason)."""
    columns = location_columns(ws.config, ws.frame)
    if columns is None:
        return
    st.markdown("**Locations** (" + ", ".join(f"`{c}`" for c in columns) + ")")
    show_points = st.checkbox(
        "Show the original points and a sample of displacements (personal data)",
        key=f"{key}_geo_raw",
        value=False,
    )
    fingerprint = f"{ws.data_key()}|{ws.config_key()}|{release}|{columns}|{show_points}|{height}"

    def build() -> tuple[go.Figure, str, list[str], dict | None]:
        table, notes = None, []
        if release:
            try:
                table = release_value(ws).table
            except AnonError as exc:
                notes.append(f"Only the original density: the release is not available ({exc}).")
        m = location_map(
            ws.frame,
            table,
            columns,
            show_points=show_points,
            release_columns=released_columns(ws.config, table, columns),
        )
        curves = ripley_curves(ws.frame, table, columns)
        return (
            location_figure(m, height),
            explanation(m, table is not None),
            notes + m.notes,
            curves,
        )

    fig, line, notes, curves = cached_figure("geo-map", fingerprint, build)
    st.plotly_chart(fig, key=f"{key}_geo_map")
    st.caption(line + (" " + " ".join(notes) if notes else ""))
    if curves is not None:
        st.plotly_chart(ripley_figure(curves), key=f"{key}_geo_ripley")
        st.caption(
            "Ripley's L: how many neighbours a typical person has within each distance, as the "
            "radius of a disc holding that many at random; above the dotted line the points "
            "cluster. A release that keeps the curve keeps the clustering "
            f"(largest gap {curves['max_abs_diff_m']:,.0f} m)."
        )
