"""Evaluate: one page with the class-based and attack-based figures, utility and the acceptance
checklist of the current release, whatever method made it. Risk, Attacks and Utility are its details."""

from __future__ import annotations

import streamlit as st

from ui.evidence import (
    WHY_THEY_DIFFER,
    evidence_table,
    exposure_line,
    headline_pair,
    measure_evidence,
    method_label,
    method_name,
    release_value,
    verdict_box,
)
from ui.geo_map import show_location_map
from ui.widgets import friendly_errors, start_page, tiles

ws = start_page("Evaluate", "🧪 Evaluate")
with friendly_errors():
    name = method_name(ws)
    with st.spinner(f"Releasing with {method_label(name)}…"):
        release = release_value(ws)
    st.caption(
        f"Release: {method_label(name)}; {release.rows:,} rows; guarantee: {release.guarantee}; "
        f"SHA-256 of its CSV: `{release.output_sha256[:16]}…`"
    )
    show_location_map(ws, key="evaluate", release=True)
    shadow = st.checkbox(
        "Also run shadow-model membership inference on the 10 most vulnerable records "
        "(synthetic and perturbative methods; re-fits the method 16 times)",
        key="evaluate_shadow",
    )
    found = measure_evidence(ws, release, "evaluate", shadow=shadow)
    if found is not None:
        evidence, verdict = found
        st.subheader("Verdict")
        verdict_box(verdict)
        st.subheader("Headline figures")
        class_based, singling_out = headline_pair(evidence)
        tiles(
            [
                ("Highest risk (classes)", class_based, "1 / the smallest released class"),
                ("Singling out (attack)", singling_out, "multivariate, with its 95% interval"),
                (
                    "Membership (attack)",
                    f"{evidence.figures['membership_advantage'].get('value') or 0:.1%}",
                    "DCR membership advantage",
                ),
            ]
        )
        st.caption(WHY_THEY_DIFFER)
        st.info(release.rehearsal.sentence(), icon="ℹ️")
        st.subheader("Every figure")
        evidence_table(evidence)
        for note in evidence.notes[1:]:
            st.warning(note, icon="⚠️")
        exposure_line(evidence)
        st.page_link("pages/release.py", label="Next: release and sign off", icon="📦")
