"""Protect: pick how the table is protected. Generalization (the default) is tuned on the Privacy
and Explore pages; any other registered method is set here with its declared parameters."""

from __future__ import annotations

import streamlit as st

from anon_core.services.catalogue import DEFAULT_METHOD, METHODS
from ui.evidence import available_methods, method_label, method_name
from ui.protect import method_parameters, same_method
from ui.widgets import friendly_errors, start_page

ws = start_page("Protect", "🧰 Protect")
current = method_name(ws)
names = available_methods()
choice = st.selectbox(
    "Release method",
    names,
    index=names.index(current) if current in names else 0,
    format_func=method_label,
    key=f"protect_method_{len(ws.history)}",
)
cls = METHODS[choice]
st.caption(f"**Protects:** {cls.protects}  \n**Does not protect:** {cls.does_not_protect}")
if choice == DEFAULT_METHOD:
    st.info(
        "Generalization uses the privacy models, hierarchies and suppression limit of the Privacy "
        "page, and the transformation you pick there or on Explore.",
        icon="ℹ️",
    )
    if current != DEFAULT_METHOD and st.button("Use generalization", type="primary"):
        ws.update(
            "release method: generalization",
            sections={k: v for k, v in ws.sections.items() if k != "method"},
        )
        st.rerun()
    st.page_link("pages/privacy.py", label="Set the privacy models", icon="🛡️")
else:
    with friendly_errors():
        spec = method_parameters(ws, choice)
        if spec is not None:
            configured = ws.sections.get("method")
            if configured is not None and same_method(configured, spec):
                st.success(f"The release uses {cls.label} with these parameters.", icon="✅")
            elif st.button(f"Use {cls.label}", type="primary", key="protect_use"):
                ws.update(f"release method: {choice}", sections={**ws.sections, "method": spec})
                st.rerun()
st.page_link("pages/evaluate.py", label="Next: evaluate the release", icon="🧪")
