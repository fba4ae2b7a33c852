"""The Attacks page's linkage and vulnerable-record views (Streamlit side only; the figures are
:mod:`anon_core.services.attack_lab`'s).

* :func:`external_source`: the linkage mode (exact or probabilistic) and where the external table
  comes from (an upload, or a seeded noisy copy of rehearsal records for a demonstration);
* :func:`linkage_section`: the mode that ran in one line, and its figures; for probabilistic
  linkage the best-match probability distribution, the expected re-identifications, precision and
  recall at 0.5/0.9/0.99 when the truth is known and a chart of matches against threshold;
* :func:`vulnerable_section`: the most vulnerable records' risk profile (columns and released
  labels only).
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from anon_core.services.attack_lab import (
    LINKAGE_MODES,
    PROBABILISTIC_LINES,
    LinkageView,
    VulnerableProfile,
    linkage_view,
    noisy_external,
)
from anon_core.services.rehearsal import AttackSection
from anon_core.workspace import Workspace, fingerprint
from ui.attacks import external_upload, linkage_chart
from ui.widgets import explain

SOURCES = ("none", "upload", "noisy copy (demo)")
SOURCE_LABELS = {
    "none": "No external table (no linkage attack)",
    "upload": "Upload a table",
    "noisy copy (demo)": "A noisy copy of rehearsal records (demonstration)",
}
MODE_LABELS = {
    "exact": "exact (equal generalized values)",
    "probabilistic": "probabilistic (Fellegi–Sunter, tolerates noise)",
}
DEMO_KEY = "_attack_demo_external"


def external_source(ws: Workspace, section: AttackSection) -> tuple[pd.DataFrame | None, str, str]:
    """(external table or None, its fingerprint, linkage mode) chosen on the page."""
    st.subheader("Linkage with an external table")
    c = st.columns([3, 2])
    source = c[0].radio(
        "External table",
        SOURCES,
        format_func=SOURCE_LABELS.get,
        key="attack_external_source",
        help="What an attacker could hold: an identifier plus raw values of some quasi-identifiers "
        "under the same column names.",
    )
    mode = c[1].radio(
        "Linkage mode",
        LINKAGE_MODES,
        index=LINKAGE_MODES.index(section.linkage_mode),
        format_func=MODE_LABELS.get,
        key="attack_linkage_mode",
        help="Exact: a record links only when its generalized values equal a released label. "
        "Probabilistic: field-by-field comparison with tolerances, weights learned without "
        "labels, a probability per best match (the same engine as `anon-core attack "
        "--linkage-mode probabilistic`).",
    )
    if source == "upload":
        external, key = external_upload()
        return external, key, str(mode)
    if source == "noisy copy (demo)":
        key = fingerprint(ws.data_key(), section.control_fraction, section.random_state)
        stored = st.session_state.get(DEMO_KEY)
        if stored is None or stored[0] != key:
            stored = (key, noisy_external(ws, section))
            st.session_state[DEMO_KEY] = stored
        demo = stored[1]
        st.caption(demo.describe())
        return demo.frame, f"demo:{key}", str(mode)
    return None, "", str(mode)


def _best_match_chart(view: LinkageView) -> go.Figure:
    fig = go.Figure(
        go.Histogram(
            x=list(view.best_match_probability), xbins={"start": 0, "end": 1, "size": 0.05}
        )
    )
    fig.update_layout(
        xaxis_title="best match's probability of being the same person (0–1)",
        yaxis_title="external records",
        xaxis_range=[0, 1],
        margin={"t": 30},
        height=320,
    )
    return fig


def _threshold_chart(view: LinkageView) -> go.Figure:
    """Matches claimed against the threshold; precision and recall on a second axis when known."""
    x = [float(c["threshold"]) for c in view.curve]
    fig = go.Figure(
        go.Scatter(
            x=x,
            y=[c["matches"] for c in view.curve],
            mode="lines+markers",
            name="matches claimed",
        )
    )
    if view.truth_known:
        for key in ("precision", "recall"):
            fig.add_trace(
                go.Scatter(
                    x=x,
                    y=[c[key] for c in view.curve],
                    mode="lines+markers",
                    name=key,
                    yaxis="y2",
                    line={"dash": "dot"},
                )
            )
    fig.update_layout(
        xaxis={"title": {"text": "threshold on the best match's probability (0–1)"}},
        yaxis={"title": {"text": "matches claimed (external records)"}, "rangemode": "tozero"},
        margin={"t": 30},
        height=340,
        legend={"orientation": "h", "y": -0.25},
    )
    if view.truth_known:
        fig.update_layout(
            yaxis2={
                "title": {"text": "precision / recall (share, 0–1)"},
                "overlaying": "y",
                "side": "right",
                "range": [0, 1.05],
            }
        )
    return fig


def _share(value: Any) -> str:
    return "n/a" if value is None else f"{float(value):.1%}"


def linkage_section(result: Any) -> None:
    """The linkage figures of the report: the mode that ran in one line, then its figures."""
    view = linkage_view(result)
    st.markdown(f"**Mode.** {view.line}")
    c = st.columns(3)
    c[0].metric("external records", f"{view.external_records:,}")
    c[1].metric(
        "matched" if view.mode == "exact" else "best match ≥ 0.5",
        f"{view.matched_records:,}",
    )
    c[2].metric("expected re-identified", f"{view.expected_reidentified:,.1f}")
    if view.mode == "exact":
        st.plotly_chart(linkage_chart(result), key="attack_linkage_chart")
        explain(
            "Each external record matches a group of released records; the attacker picks one, so "
            "a group of size s re-identifies with probability 1/s.",
            "Expected re-identified = sum of 1/size over matched records "
            + (
                "whose true record was released (the identifier column tells)."
                if view.truth_known
                else "(no shared identifier: the attacker's expected successes)."
            ),
        )
        return
    st.caption(PROBABILISTIC_LINES["expected"])
    st.plotly_chart(_best_match_chart(view), key="attack_best_match_chart")
    st.caption(PROBABILISTIC_LINES["best_match"])
    rows = [
        {
            "threshold": r["threshold"],
            "matches claimed": r["matches"],
            "precision": _share(r["precision"]) if view.truth_known else "n/a",
            "recall": _share(r["recall"]) if view.truth_known else "n/a",
        }
        for r in view.thresholds
    ]
    st.dataframe(pd.DataFrame(rows), hide_index=True, key="attack_threshold_table")
    st.caption(
        PROBABILISTIC_LINES["thresholds"] if view.truth_known else PROBABILISTIC_LINES["no_truth"]
    )
    st.plotly_chart(_threshold_chart(view), key="attack_threshold_chart")
    st.caption(PROBABILISTIC_LINES["curve"])


def vulnerable_section(profile: VulnerableProfile | None, note: str | None = None) -> None:
    """The most vulnerable records' risk profile, or the note saying why it is missing."""
    st.subheader("Most vulnerable records")
    if profile is None:
        st.info(note or "The vulnerable records could not be ranked.", icon="ℹ️")
        return
    st.markdown(
        f"Of the **{profile.top_share_records:,}** most vulnerable records (1% of the released "
        f"part), **{profile.top_share_alone:,}** are alone in their released class and "
        f"**{profile.top_share_suppressed:,}** are suppressed."
    )
    st.dataframe(profile.table(), hide_index=True, key="attack_vulnerable_table")
    explain(
        "Records far from their neighbours are the ones an attack reaches first: each row is one "
        "of the most isolated records of the released part, the columns that make it rare, and "
        "what the release shows of those columns (never its original values).",
        f"Outlier score: Gower distance to the {profile.k}th nearest other record over the "
        f"quasi-identifiers ({', '.join(profile.columns)}; 0–{len(profile.columns)}, one per "
        "column at most), following Meeus et al. (ESORICS 2023). Released class size: released "
        "records sharing its generalized quasi-identifiers; risk = 1 / size (0: suppressed).",
    )
