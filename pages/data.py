"""Data: pick a built-in sample or upload a table; preview and profile it."""

from __future__ import annotations

import streamlit as st

from anon_core.errors import AnonError
from anon_core.io import column_profile, load_table
from pages.widgets import (
    SAMPLE_DIR,
    SAMPLES,
    friendly_errors,
    load_sample,
    set_workspace,
    sidebar,
    workspace,
)

UPLOAD_TYPES = ["csv", "tsv", "txt", "xlsx", "parquet", "json", "jsonl"]
PREVIEW_ROWS = 200
SEPARATORS = {",": "comma ( , )", ";": "semicolon ( ; )", "\t": "tab", "|": "pipe ( | )"}

sidebar("Data")
st.title("📂 Data")
st.write("Pick a built-in synthetic sample or upload your own table. Files are read in memory and never "
         "written to disk; the upload limit is 200 MB.")

left, right = st.columns(2)
sample = left.selectbox("Built-in sample", list(SAMPLES), key="sample")
uploaded = right.file_uploader("…or upload a table (CSV, TSV, Excel, Parquet, JSON)", type=UPLOAD_TYPES)
with st.expander("Reading options"):
    sep_choice = st.selectbox("Separator", ["detect", ",", ";", "\\t", "|"], key="sep")
    enc_choice = st.selectbox("Encoding", ["detect", "utf-8", "cp1252", "latin-1", "utf-16"], key="enc")

source = uploaded.name if uploaded is not None else SAMPLES[sample]
options = (sep_choice, enc_choice)
if st.session_state.get("loaded_from") != (source, options, uploaded.size if uploaded else None):
    try:
        separator = None if sep_choice == "detect" else sep_choice.replace("\\t", "\t")
        encoding = None if enc_choice == "detect" else enc_choice
        if uploaded is not None:
            table = load_table(uploaded.getvalue(), name=uploaded.name, separator=separator, encoding=encoding)
        elif separator or encoding:
            table = load_table(SAMPLE_DIR / SAMPLES[sample], separator=separator, encoding=encoding)
        else:
            table = load_sample(str(SAMPLE_DIR / SAMPLES[sample]))
        if table.frame.shape[1] == 1:
            raise AnonError(
                f"{source} was read as a single column ({str(table.frame.columns[0])[:60]!r}). A table to anonymize "
                "needs several columns: check the separator under 'Reading options'."
            )
        set_workspace(table.frame, source)
        st.session_state["loaded_from"] = (source, options, uploaded.size if uploaded else None)
        st.session_state["table_info"] = (table.format, table.separator, table.encoding)
    except AnonError as exc:
        st.error(str(exc), icon="🚫")
        st.stop()

ws = workspace()
if ws is not None:
    with friendly_errors():
        fmt, sep, enc = st.session_state.get("table_info", ("csv", ",", "utf-8"))
        frame = ws.frame
        st.subheader(f"📄 {ws.source}")
        c = st.columns(5)
        c[0].metric("Rows", f"{len(frame):,}")
        c[1].metric("Columns", f"{frame.shape[1]:,}")
        c[2].metric("Format", fmt)
        c[3].metric("Separator", SEPARATORS.get(sep or "", sep or "–"))
        c[4].metric("Encoding", enc or "–")
        shown = min(PREVIEW_ROWS, len(frame))
        st.markdown(f"**Preview** (first {shown:,} of {len(frame):,} rows)")
        st.dataframe(frame.head(PREVIEW_ROWS), hide_index=True)
        st.markdown("**Column profile**")
        st.caption("One row per column: the inferred kind, missing cells, distinct values, and the share of rows "
                   "whose value occurs only once (a high share points at an identifier).")
        st.dataframe(column_profile(frame), hide_index=True,
                     column_config={"unique_share": st.column_config.NumberColumn("unique share", format="percent")})
        st.page_link("pages/attributes.py", label="Next: mark the attributes", icon="🏷️")
