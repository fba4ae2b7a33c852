"""Explore: every transformation the search evaluated, risk against quality."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from anon_core.services.generalization import tradeoff_rows
from ui.attacks import add_attack_risk_trace, candidate_attack_risks
from ui.long_work import eta_progress
from ui.widgets import (
    CHART_MARGIN,
    cached,
    current_levels,
    evaluator,
    explain,
    friendly_errors,
    run_search,
    search_result,
    start_page,
)

ws = start_page("Explore", "🔭 Explore the trade-off")

with friendly_errors():
    ev = evaluator(ws)
    found = search_result(ws)
    if found is None:
        st.info("Run the search to see every transformation it evaluated.", icon="🔎")
        if st.button("🔎 Find the optimum", type="primary"):
            update = eta_progress(st.progress(0.0, text="Searching the lattice…"))
            found = run_search(ws, lambda f: update(f, "Searching the lattice…"))
            if found.optimum is not None and ws.transformation is None:
                ws.update(
                    "optimum",
                    transformation=dict(found.optimum.transformation),
                    chosen_by="search",
                )
            st.rerun()
        st.stop()

    rows = cached("tradeoff", ws.search_key(), lambda: tradeoff_rows(ev, found))
    rows = rows.copy()
    qis = list(found.qis)
    rows["transformation"] = rows[qis].astype(str).agg("-".join, axis=1)
    rows["levels"] = [
        " · ".join(f"{q} {v}" for q, v in zip(qis, vals, strict=True))
        for vals in rows[qis].itertuples(index=False)
    ]
    here = "-".join(str(current_levels(ws)[q]) for q in qis)
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
                customdata=part[["transformation", "levels"]],
                hovertemplate="%{customdata[1]}<br>risk %{x:.2%}<br>"
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
    current = rows[rows["transformation"] == here]
    if not current.empty:
        fig.add_trace(
            go.Scatter(
                x=current[risk],
                y=current["quality"],
                mode="markers",
                name="current transformation",
                marker=dict(symbol="star", size=18, color="#f9a825", line=dict(width=1)),
                customdata=current[["transformation", "levels"]],
                hovertemplate="current: %{customdata[1]}<extra></extra>",
            )
        )
    add_attack_risk_trace(fig, rows, risk, ws)
    fig.update_layout(
        xaxis_title=f"{risk.replace('_', ' ')} (prosecutor)",
        yaxis_title=ev.metric.label,
        xaxis_tickformat=".2~%",
        height=460,
        margin=CHART_MARGIN,
    )
    event = st.plotly_chart(fig, key="tradeoff_chart", on_select="rerun", selection_mode="points")
    explain(
        "Each point is a transformation the search evaluated; lower-left is better. Click a point to make it "
        "current.",
        "Pareto frontier: satisfying transformations that no other satisfying one beats on both "
        "risk and quality.",
    )
    candidate_attack_risks(ws, rows[rows["satisfied"]].sort_values("quality"), qis)
    points = (event or {}).get("selection", {}).get("points", []) if isinstance(event, dict) else []
    if points and points[0].get("customdata"):
        picked = points[0]["customdata"]
        picked = picked[0] if isinstance(picked, list | tuple) else picked
        chosen = dict(zip(qis, map(int, str(picked).split("-")), strict=True))
        if chosen != current_levels(ws):
            ws.update("picked on the trade-off chart", transformation=chosen, chosen_by="explore")
            st.rerun()

    st.subheader("Compare two transformations")
    satisfying = rows[rows["satisfied"]].sort_values("quality")
    options = list(dict.fromkeys([here, *satisfying["transformation"]]))
    names = dict(zip(rows["transformation"], rows["levels"], strict=False))

    def _label(option: str) -> str:
        prefix = "current: " if option == here else ""
        return prefix + names.get(option, option)

    left, right = st.columns(2)
    # keyed by the current transformation, so the comparison follows a click on the chart
    a = left.selectbox("Transformation A", options, 0, format_func=_label, key=f"cmp_a_{here}")
    b = right.selectbox(
        "Transformation B",
        options,
        min(1, len(options) - 1),
        format_func=_label,
        key=f"cmp_b_{here}",
    )
    table = {}
    for name, label in (("A", a), ("B", b)):
        levels = dict(zip(qis, map(int, label.split("-")), strict=True))
        r = ev.evaluate(levels)
        kept = ev.freq.n_records - r.suppressed_records
        table[f"{name}: {_label(label)}"] = {
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
            chosen_by="explore",
        )
        st.rerun()
