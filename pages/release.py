"""Release: the released table, its downloads, and the release configuration."""

from __future__ import annotations

import hashlib
import io
import json

import streamlit as st

from anon_core.errors import AnonError
from anon_core.transform import apply_transformation
from anon_core.workspace import Workspace
from pages.widgets import (
    WS_KEY,
    config_json,
    current_result,
    download_name,
    frequency_table,
    friendly_errors,
    require_workspace,
    sidebar,
)

sidebar("Release")
ws = require_workspace()
st.title("📦 Release")

with friendly_errors():
    if not ws.qis:
        st.warning("Mark at least one quasi-identifier on the Attributes page.", icon="⚠️")
        st.stop()
    result = current_result(ws)
    if not result.satisfied:
        st.warning("The current transformation does not satisfy the privacy models within the suppression limit. "
                   "Pick another on the Privacy or Explore page before releasing.", icon="⚠️")
    mode = st.radio("Suppressed records", ["remove", "mask"], horizontal=True,
                    format_func=lambda m: "remove them" if m == "remove" else "keep them with every QI as *")
    released = apply_transformation(frequency_table(ws).dataset, result, mode)
    st.caption(f"{len(released):,} rows released of {len(ws.frame):,}; identifiers removed; "
               f"levels {result.transformation}.")
    st.dataframe(released.head(200), hide_index=True)

    csv_bytes = released.to_csv(index=False, lineterminator="\n").encode("utf-8")
    st.caption(f"SHA-256 of the CSV release: `{hashlib.sha256(csv_bytes).hexdigest()}`")
    c = st.columns(3)
    disabled = not result.satisfied
    c[0].download_button("⬇️ CSV", csv_bytes, download_name(ws, ".csv"), "text/csv", disabled=disabled)
    parquet = io.BytesIO()
    released.to_parquet(parquet, index=False)
    c[1].download_button("⬇️ Parquet", parquet.getvalue(), download_name(ws, ".parquet"),
                         "application/octet-stream", disabled=disabled)
    excel = io.BytesIO()
    released.to_excel(excel, index=False)
    c[2].download_button("⬇️ Excel", excel.getvalue(), download_name(ws, ".xlsx"),
                         "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", disabled=disabled)

st.subheader("Release configuration")
st.caption("The same file the command line reads: `anon-core anonymize release.json --output out.csv` reproduces "
           "this release headless (put the data file next to it, named as in input.path).")
st.download_button("⬇️ Configuration (JSON)", config_json(ws), "release.json", "application/json")
uploaded = st.file_uploader("Resume from a configuration", type=["json"], key="config_upload")
if uploaded is not None and st.session_state.get("config_loaded") != uploaded.file_id:
    try:
        config = json.loads(uploaded.getvalue().decode("utf-8"))
        resumed = Workspace.from_config(config, ws.frame, ws.source)
        st.session_state[WS_KEY] = resumed
        st.session_state.pop("search", None)
        st.session_state["config_loaded"] = uploaded.file_id
        st.success("Configuration applied to the current table.", icon="✅")
        st.rerun()
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        st.error(f"That file is not a JSON configuration ({exc}).", icon="🚫")
    except AnonError as exc:
        st.error(str(exc), icon="🚫")
