"""Attacks: singling out, linkability, inference, linkage and membership inference on the current release."""

from __future__ import annotations

import streamlit as st

from ui.attack_lab import external_source, linkage_section, vulnerable_section
from ui.attacks import (
    RATE_LINES,
    attack_settings,
    risk_chart,
    run_attacks,
    singling_out_notes,
)
from ui.widgets import current_levels, current_result, explain, friendly_errors, start_page

ws = start_page("Attacks", "🗡️ Attacks")

with friendly_errors():
    section = attack_settings(ws)
    n_control = max(1, round(section.control_fraction * len(ws.frame)))
    st.caption(
        f"A rehearsal that releases a part of the table: {len(ws.frame) - n_control:,} of "
        f"{len(ws.frame):,} records, generalized with the current transformation (the Privacy "
        f"page's); the other {n_control:,} are never released and serve as the control. Each attack "
        "guesses about both; what it gets right only about released records is the release's risk."
    )
    external, external_key, mode = external_source(ws, section)
    section = section.with_options(linkage_mode=mode)
    levels = current_levels(ws)
    ran = run_attacks(ws, levels, section, external, external_key, current_result(ws).satisfied)
    if ran is not None:
        report, profile, profile_note = ran
        st.subheader("Risk per attack")
        st.plotly_chart(risk_chart(report), key="attack_risk_chart")
        for name, line in RATE_LINES.items():
            st.markdown(f"- **{name}**: {line}")
        singling_out_notes(report)
        explain(
            "Risk = (main - control) / (1 - control), with its 95% interval: the share of the attacker's "
            "guesses that succeed because the records were released.",
            "Following anonymeter (Giomi et al., PETS 2023). Singling out: predicates from the released "
            "table that match exactly one original record. Linkability: records linked across two groups "
            "of columns. Inference: the secret column guessed from the others.",
        )
        if report.membership is not None:
            m = report.membership
            st.metric(
                "Membership inference advantage (DCR)",
                f"{m.advantage:.1%}",
                help=f"95% interval {m.ci[0]:.1%} to {m.ci[1]:.1%}; AUC {m.auc:.2f}",
            )
            st.caption(
                "True-positive minus false-positive rate of guessing 'released' when a record's closest "
                "released record is near (threshold chosen on half the records, measured on the other half)."
            )
        if report.linkage is not None:
            st.subheader("Linkage results")
            linkage_section(report.linkage)
        vulnerable_section(profile, profile_note)
        with st.expander("Figures as JSON (what `anon-core attack` prints)"):
            st.json(report.to_dict())
