"""Explore: every transformation the search evaluated, risk against quality."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from anon_core.search.lattice import score_tradeoff, search
from ui.widgets import (
    current_levels,
    evaluator,
    explain,
    friendly_errors,
    start_page,
)

ws = start_page("Explore", "🔭 Explore the trade-off")

with friendly_errors():
    ev = evaluator(ws)
    found = st.session_state.get("search")
    if found is None:
        st.info("Run the search to see every transformation it evaluated.", icon="🔎")
        if st.button("🔎 Find the optimum", type="primary"):
            bar = st.progress(0.0, text="Searching the lattice…")
            found = search(
                ev,
                progress=lambda f: bar.progress(
                    min(max(f, 0.0), 1.0), text="Searching the lattice…"
                ),
            )
            st.session_state["search"] = found
            if found.optimum is not None and ws.transformation is None:
                ws.update("optimum", transformation=dict(found.optimum.transformation))
            st.rerun()
        st.stop()

    cache_key = ("tradeoff", id(found))
    if st.session_state.get("tradeoff_key") != cache_key:
        st.session_state["tradeoff"] = pd.DataFrame(score_tradeoff(ev, found))
        st.session_state["tradeoff_key"] = cache_key
    rows: pd.DataFrame = st.session_state["tradeoff"]
    qis = list(found.qis)
    rows["transformation"] = rows[qis].astype(str).agg("-".join, axis=1)
    risk = (
        st.segmented_control(
            "Risk axis",
            ["average_risk", "highest_risk"],
            default="average_risk",
            format_func=lambda r: r.replace("_", " "),
            key="risk_axis",
        )
        or "average_risk"
    )
    front = pd.DataFrame(found.pareto_frontier(risk))

    fig = go.Figure()
    for ok, colour, label in [
        (True, "#2e7d32", "satisfies the models"),
        (False, "#c62828", "violates"),
    ]:
        part = rows[rows["satisfied"] == ok]
        fig.add_trace(
            go.Scatter(
                x=part[risk],
                y=part["quality"],
                mode="markers",
                name=label,
                marker=dict(color=colour, size=7, opacity=0.6),
                customdata=part["transformation"],
                hovertemplate="levels %{customdata}<br>risk %{x:.2%}<br>"
                "quality %{y:.4g}<extra></extra>",
            )
        )
    if not front.empty:
        front = front.sort_values(risk)
        fig.add_trace(
            go.Scatter(
                x=front[risk],
                y=front["quality"],
                mode="lines+markers",
                name="Pareto frontier",
                line=dict(color="#1565c0", width=2),
                marker=dict(size=9),
            )
        )
    fig.update_layout(
        xaxis_title=f"{risk.replace('_', ' ')} (prosecutor)",
        yaxis_title=ev.metric.label,
        xaxis_tickformat=".2~%",
        height=460,
        margin=dict(l=10, r=10, t=30, b=10),
    )
    event = st.plotly_chart(fig, key="tradeoff_chart", on_select="rerun", selection_mode="points")
    explain(
        "Each point is a transformation the search evaluated; lower-left is better. Click a point to make it "
        "current.",
        "Pareto frontier: satisfying transformations that no other satisfying one beats on both "
        "risk and quality.",
    )
    points = (event or {}).get("selection", {}).get("points", []) if isinstance(event, dict) else []
    if points and points[0].get("customdata"):
        chosen = dict(zip(qis, map(int, str(points[0]["customdata"]).split("-")), strict=True))
        if chosen != current_levels(ws):
            ws.update("picked on the trade-off chart", transformation=chosen)
            st.rerun()

    st.subheader("Compare two transformations")
    satisfying = rows[rows["satisfied"]].sort_values("quality")
    options = list(
        dict.fromkeys(
            ["-".join(str(current_levels(ws)[q]) for q in qis), *satisfying["transformation"]]
        )
    )
    left, right = st.columns(2)
    a = left.selectbox("Transformation A", options, index=0, key="cmp_a")
    b = right.selectbox("Transformation B", options, index=min(1, len(options) - 1), key="cmp_b")
    table = {}
    for name, label in (("A", a), ("B", b)):
        levels = dict(zip(qis, map(int, label.split("-")), strict=True))
        r = ev.evaluate(levels)
        kept = ev.freq.n_records - r.suppressed_records
        table[f"{name}: {label}"] = {
            "satisfied": "yes" if r.satisfied else "no",
            ev.metric.label: f"{r.quality.value:.4g}",
            "suppressed records": f"{r.suppressed_records:,}",
            "classes": f"{r.equivalence_classes:,}",
            "smallest class": f"{r.min_class_size:,}",
            "highest risk": f"{1 / r.min_class_size:.1%}" if r.min_class_size else "–",
            "average risk": f"{r.equivalence_classes / kept:.2%}" if kept else "–",
            **{f"level of {q}": str(levels[q]) for q in qis},
        }
    st.dataframe(pd.DataFrame(table), width="stretch")
    if st.button("Make A current"):
        ws.update(
            "picked for comparison",
            transformation=dict(zip(qis, map(int, a.split("-")), strict=True)),
        )
        st.rerun()
