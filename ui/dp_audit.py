"""The DP page's audit: claimed against audited ε for the private questions asked on the page.

Nothing runs on a visit: the button runs :func:`anon_core.services.dp_audit.audit_queries`
with a progress bar (Cancel stops it at the next statistic); the result is kept under a
fingerprint of the table, the questions and the runs, so a revisit shows it and other
questions never show an old audit.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import plotly.graph_objects as go
import streamlit as st

from anon_core.errors import AnonError
from anon_core.services.dp_audit import (
    EXPLANATION,
    MAX_RUNS,
    MIN_RUNS,
    PAGE_RUNS,
    QueryAudit,
    audit_queries,
    audit_table,
)
from anon_core.workspace import Workspace, fingerprint
from ui.long_work import cancel_button, eta_progress

#: Session-state slot of the last audit: (fingerprint, audits).
AUDIT_KEY = "_dp_audit"


def audit_chart(audits: Sequence[QueryAudit]) -> go.Figure:
    """Claimed ε beside audited ε (the lower bound the runs prove) per statistic."""
    done = [a for a in audits if a.error is None]
    labels = [a.label for a in done]
    fig = go.Figure()
    fig.add_trace(
        go.Bar(name="claimed ε", x=labels, y=[a.claimed_epsilon for a in done], opacity=0.55)
    )
    fig.add_trace(
        go.Bar(
            name="audited ε (95% lower bound)",
            x=labels,
            y=[a.audited_epsilon for a in done],
            marker_color=["crimson" if a.violation else "seagreen" for a in done],
        )
    )
    fig.update_layout(
        barmode="group",
        height=340,
        yaxis={"title": {"text": "ε (privacy loss, natural log of a probability ratio)"}},
        xaxis={"title": {"text": "private statistic"}, "automargin": True},
        legend={"orientation": "h", "y": -0.3},
        margin={"l": 10, "r": 10, "t": 30, "b": 10},
    )
    return fig


def audit_section(ws: Workspace, queries: Sequence[Any]) -> None:
    """The section: runs slider, Run and Cancel, progress, chart, table and one line of meaning."""
    st.subheader("🔎 Audit the ε claims")
    if not queries:
        st.caption("Run a query first: its ε claim can then be audited.")
        return
    runs = st.slider(
        "Runs per side",
        MIN_RUNS,
        MAX_RUNS,
        PAGE_RUNS,
        step=100,
        key="dp_audit_runs",
        help="More runs: a tighter audited ε, proportionally longer.",
    )
    key = fingerprint(ws.frame_hash, [q.to_dict() for q in queries], runs)
    left, right = st.columns([3, 1])
    go_ = left.button("🔎 Run the DP audit", type="primary", key="dp_audit_run")
    if cancel_button("dp_audit_cancel") and not go_:
        st.info("The audit was cancelled.", icon="⏹️")
    if go_:
        bar = st.progress(0.0, text="Starting the audit…")
        try:
            audits = audit_queries(
                ws.frame, queries, runs=runs, random_state=0, progress=eta_progress(bar)
            )
        except AnonError as exc:
            st.error(str(exc), icon="🚫")
            audits = None
        bar.empty()
        if audits is not None:
            st.session_state[AUDIT_KEY] = (key, audits)
    else:
        right.caption("Each statistic is drawn many times on the table and without one record.")
    stored = st.session_state.get(AUDIT_KEY)
    if stored is None or stored[0] != key:
        return
    audits = stored[1]
    if any(a.violation for a in audits):
        st.error(
            "A statistic's measured advantage exceeds what its ε allows: an implementation fault "
            "of the mechanism (its noise is too small), not a risk of this table.",
            icon="🚨",
        )
    st.plotly_chart(audit_chart(audits), key="dp_audit_chart")
    st.caption(EXPLANATION)
    st.dataframe(audit_table(audits), hide_index=True)
