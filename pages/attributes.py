"""Attributes: a role per column, and a generalization hierarchy per quasi-identifier."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from anon_core.data.dataset import Role
from anon_core.errors import AnonError
from anon_core.services.geo import location_source, location_suggestion, polygon_layer_spec
from anon_core.services.hierarchies import (
    DATE_LEVELS,
    natural_order,
    spec_from_arx_csv,
    spec_from_levels,
)
from anon_core.services.tables import MISSING, infer_kind, to_labels
from anon_core.workspace import suggest_roles
from ui.widgets import cached, friendly_errors, pii_scan, require_workspace, sidebar

ROLE_HELP = {
    Role.IDENTIFIER.value: "removed from the release (names, e-mails, record numbers)",
    Role.QUASI_IDENTIFIER.value: "generalized: an attacker may know it (age, ZIP code, dates)",
    Role.SENSITIVE.value: "kept, protected by l-diversity / t-closeness (diagnosis, income)",
    Role.INSENSITIVE.value: "kept unchanged",
}
BUILDERS = [
    "default for its kind",
    "intervals",
    "dates",
    "masking",
    "ordered",
    "flat",
    "edit levels",
    "ARX CSV file",
]

sidebar("Attributes")
ws = require_workspace()
st.title("🏷️ Attributes")

# ----------------------------------------------------------------------------- roles
st.subheader("Roles")
st.caption(
    "Suggested from column names, kinds and uniqueness; change any role in the table. "
    + " · ".join(f"**{r}**: {h}" for r, h in ROLE_HELP.items())
)
# Suggestions and kinds read every row: once per table (the page reruns on every edit).
suggestions = {
    c: dict(v)
    for c, v in cached("role-suggestions", ws.frame_hash, lambda: suggest_roles(ws.frame)).items()
}
others = [q for q in ws.qis if q not in ws.fixed_roles]
geo_hint = cached(
    "geo-suggestion", f"{ws.frame_hash}|{others}", lambda: location_suggestion(ws.frame, others)
)
source = location_source(ws.config, ws.frame)
if ws.location is not None:  # the location is ONE quasi-identifier: say so, offer to end it
    loc = ws.location
    st.success(
        f"Location quasi-identifier **{loc.column}**, made from {', '.join(loc.columns)} (now "
        f"identifiers, dropped from the release) and generalized by "
        f"**{loc.hierarchy['builder']}** cells; its role is fixed while it is on.",
        icon="📍",
    )
    if st.button("Remove the location quasi-identifier", key="geo_remove"):
        ws.remove_location()
        st.rerun()
elif source is not None:  # a pair or point column: suggest, and apply, one location QI
    if geo_hint is not None:
        st.info(geo_hint["reason"], icon="📍")
        st.code(geo_hint["config"], language="json")  # the same, as the CLI's geo section
    with st.expander("📍 One location quasi-identifier", expanded=geo_hint is not None):
        form = st.radio(
            "Nested areas", ["H3 cells", "square grid", "polygon layer (GeoJSON)"],
            horizontal=True, key="geo_form",
        )  # fmt: skip
        spec: dict | None = None
        if form == "H3 cells":
            res = st.multiselect("H3 resolutions (finest first; 9 is about 0.1 km², 7 about "
                                 "5 km², 5 about 250 km²)", list(range(15, -1, -1)),
                                 default=[9, 7, 5, 3], key="geo_h3")  # fmt: skip
            spec = {"builder": "h3", "resolutions": sorted(res, reverse=True)} if res else None
        elif form == "square grid":
            g = st.columns(2)
            cell = g[0].number_input("Smallest cell (m)", 1.0, 1e6, 250.0, key="geo_cell")
            levels = g[1].slider("Sizes (each doubles the last)", 1, 16, 6, key="geo_levels")
            spec = {"builder": "geo-grid", "cell_m": cell, "levels": int(levels)}
        else:
            layer = st.file_uploader("GeoJSON of areas", type=["geojson", "json"], key="geo_layer")
            g = st.columns(3)
            name_prop = g[0].text_input("Name property", "name", key="geo_name")
            parent_prop = g[1].text_input("Parent property", "parent", key="geo_parent")
            outside = g[2].text_input("Label for points outside (blank: error)", key="geo_out")
            if layer is not None:
                with friendly_errors():
                    spec = polygon_layer_spec(layer.getvalue(), name_prop, parent_prop, outside)
        if st.button("📍 Use one location quasi-identifier", disabled=spec is None,
                     key="geo_apply", type="primary"):  # fmt: skip
            with friendly_errors():
                ws.apply_location(spec, **source)
                st.rerun()
kinds = cached(
    "column-kinds",
    ws.frame_hash,
    lambda: {c: str(infer_kind(ws.frame[c])) for c in ws.frame.columns},
)
use_scan = st.toggle(
    "🔍 Suggest from a scan for personal data (Presidio, offline)",
    key="attr_pii_scan",
    help="Analyses 100 sampled values per column; the first scan loads the NLP model (about a second).",
)
pii_proposals: dict[str, str] = {}
if use_scan:
    with friendly_errors():
        scan = pii_scan(ws)
        if not scan.nlp_loaded:
            st.warning(
                scan.notice or "Pattern recognizers only: the NLP model is not loaded.", icon="⚠️"
            )
        for name, col in scan.columns.items():
            if col.suggested_role is not None:
                suggestions[name] = {
                    "role": col.suggested_role,
                    "reason": f"PII scan: {col.reason}",
                }
                pii_proposals[name] = col.suggested_role
table = pd.DataFrame(
    {
        "column": list(ws.frame.columns),
        "kind": [kinds[c] for c in ws.frame.columns],
        "role": [ws.roles.get(c, Role.INSENSITIVE.value) for c in ws.frame.columns],
        "suggestion": [
            f"{suggestions[c]['role']}: {suggestions[c]['reason']}" for c in ws.frame.columns
        ],
    }
)
edited = st.data_editor(
    table,
    hide_index=True,
    disabled=["column", "kind", "suggestion"],
    column_config={
        "role": st.column_config.SelectboxColumn(
            "role", options=[r.value for r in Role], required=True
        )
    },
    key=f"roles_{ws.frame_hash[:8]}_{len(ws.history)}",
)
new_roles = {**dict(zip(edited["column"], edited["role"], strict=True)), **ws.fixed_roles}
chosen = st.multiselect(
    "Quasi-identifiers",
    list(ws.frame.columns),
    default=ws.qis,
    key=f"qi_pick_{ws.frame_hash[:8]}_{len(ws.history)}",
    help="The same roles as in the table: add or remove quasi-identifiers here.",
)
if set(chosen) != set(ws.qis):
    new_roles = dict(ws.roles)
    for col in ws.frame.columns:
        if col in chosen:
            new_roles[col] = Role.QUASI_IDENTIFIER.value
        elif new_roles.get(col) == Role.QUASI_IDENTIFIER.value:
            new_roles[col] = Role.INSENSITIVE.value
    new_roles.update(ws.fixed_roles)  # the location's roles are the geo section's
if new_roles != ws.roles:
    ws.update("roles", roles=new_roles, transformation=None)
    st.rerun()
pending = {n: r for n, r in pii_proposals.items() if ws.roles.get(n) != r}
if pending and st.button(
    f"✅ Accept the {len(pending)} role(s) the scan proposes", key="attr_accept_pii"
):
    ws.update("roles from PII scan", roles={**ws.roles, **pending}, transformation=None)
    st.rerun()
if not ws.qis:
    st.warning("Mark at least one column as quasi-identifier to anonymize the table.", icon="⚠️")
    st.stop()

# ----------------------------------------------------------------------------- hierarchies
st.subheader("Hierarchies")
st.caption(
    "Each quasi-identifier is generalized along its hierarchy: level 0 is the original value, the last "
    "level usually '*'. Sensitive attributes need one only for hierarchical t-closeness."
)
candidates = ws.qis + [s for s in ws.sensitive]
column = st.selectbox("Column", candidates, key="hier_column")
if ws.location is not None and column == ws.location.column:  # levels set above, shown here
    st.dataframe(ws.hierarchy(column).to_frame().head(200), hide_index=True)
    st.caption("The location's levels: its cells from finest to '*' (the first 200 locations).")
    st.page_link("pages/privacy.py", label="Next: choose privacy models", icon="🛡️")
    st.stop()
values = ws.values(column)  # every distinct value, also of a file opened by path
kind = infer_kind(values)
spec = ws.hierarchy_specs.get(column)
current = (
    "default for its kind"
    if spec is None
    else ("edit levels" if "table" in spec else spec.get("builder"))
)
builder = st.selectbox(
    "Builder",
    BUILDERS,
    index=BUILDERS.index(current) if current in BUILDERS else 0,
    key=f"builder_{column}",
    help=f"Column kind: {kind}",
)

new_spec: dict | None = spec
with friendly_errors():
    if builder == "default for its kind":
        new_spec = None
    elif builder == "intervals":
        nums = pd.to_numeric(values, errors="coerce")
        span = float(nums.max() - nums.min()) if nums.notna().any() else 10.0
        c = st.columns(4)
        width = c[0].number_input(
            "Width at level 1",
            min_value=1e-9,
            value=float(max(1.0, round(span / 10))),
            key=f"w_{column}",
        )
        fanout = c[1].number_input(
            "Fan-out per level", min_value=2, value=2, step=1, key=f"f_{column}"
        )
        lower = c[2].number_input(
            "Bottom-code below",
            value=float(nums.min()) if nums.notna().any() else 0.0,
            key=f"lo_{column}",
        )
        upper = c[3].number_input(
            "Top-code from",
            value=float(nums.max() + 1) if nums.notna().any() else 100.0,
            key=f"hi_{column}",
        )
        new_spec = {
            "builder": "intervals",
            "width": width,
            "fanout": int(fanout),
            "lower": lower,
            "upper": upper,
        }
    elif builder == "dates":
        chosen = st.multiselect(
            "Levels", list(DATE_LEVELS), default=list(DATE_LEVELS), key=f"d_{column}"
        )
        new_spec = {"builder": "dates", "levels": chosen or list(DATE_LEVELS)}
    elif builder == "masking":
        longest = int(values.dropna().astype(str).str.len().max() or 1)
        levels = st.slider(
            "Characters masked at the top level", 1, max(longest, 1), longest, key=f"m_{column}"
        )
        new_spec = {"builder": "masking", "levels": levels}
    elif builder == "ordered":
        given = spec if spec is not None and spec.get("builder") == "ordered" else {}
        size = st.number_input(
            "Values per group at level 1",
            min_value=2,
            value=int((given.get("sizes") or [2])[0]),
            step=1,
            key=f"o_{column}",
        )
        present = [v for v in pd.unique(to_labels(values)) if v != MISSING]
        current_order = given.get("order") or natural_order(present)
        text = st.text_area(
            "Order of the values (one per line, lowest first)",
            "\n".join(map(str, current_order)),
            height=200,
            key=f"order_{column}",
            help="Adjacent values in this order are grouped together (e.g. education from "
            "Preschool to Doctorate). Without an order, numbers sort by value and words "
            "alphabetically. Every value of the column must be listed.",
        )
        order = [line.strip() for line in text.splitlines() if line.strip()]
        new_spec = {"builder": "ordered", "sizes": [int(size)]}
        if order != natural_order(present) or "order" in given:
            new_spec["order"] = order
    elif builder == "flat":
        new_spec = {"builder": "flat"}
    elif builder == "ARX CSV file":
        upload = st.file_uploader(
            "ARX hierarchy (one row per value, one column per level, ';'-separated)",
            type=["csv", "txt"],
            key=f"arx_{column}",
        )
        sep = st.text_input("Separator", ";", max_chars=1, key=f"arxsep_{column}")
        if upload is not None:
            try:
                new_spec = spec_from_arx_csv(upload.getvalue(), sep or ";", column)
            except AnonError as exc:
                st.error(str(exc), icon="🚫")

    if builder != "edit levels" and new_spec != spec:
        ws.set_hierarchy(column, new_spec)

    hierarchy = ws.hierarchy(column)
    st.markdown(f"**Levels of {column}** ({hierarchy.height} levels; edit cells to regroup values)")
    levels_frame = hierarchy.to_frame()
    edited_levels = st.data_editor(
        levels_frame,
        hide_index=True,
        disabled=["level 0"],
        key=f"levels_{column}_{len(ws.history)}",
    )
    if not edited_levels.equals(levels_frame):
        try:
            ws.set_hierarchy(column, spec_from_levels(edited_levels, column))
            st.rerun()
        except AnonError as exc:
            st.error(f"Not applied: {exc}", icon="🚫")
    st.download_button(
        "⬇️ Export as ARX CSV",
        hierarchy.to_csv(),
        file_name=f"hierarchy_{column}.csv",
        mime="text/csv",
        key=f"export_{column}",
    )

st.page_link("pages/privacy.py", label="Next: choose privacy models", icon="🛡️")
