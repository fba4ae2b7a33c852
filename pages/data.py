"""Data: pick a built-in sample or upload a table; preview and profile it."""

from __future__ import annotations

import hashlib

import streamlit as st

from anon_core.errors import AnonError
from anon_core.services.tables import (
    SAMPLE_ROWS,
    LargeTable,
    column_profile,
    load_table,
    load_upload,
    warm_up,
)
from ui.geo_map import show_location_map
from ui.widgets import (
    SAMPLE_DIR,
    SAMPLES,
    friendly_errors,
    load_sample,
    path_guard,
    set_large_workspace,
    set_workspace,
    sidebar,
    tiles,
    workspace,
)

UPLOAD_TYPES = ["csv", "tsv", "txt", "xlsx", "parquet", "json", "jsonl"]
PREVIEW_ROWS = 200
SEPARATORS = {",": "comma ( , )", ";": "semicolon ( ; )", "\t": "tab", "|": "pipe ( | )"}
warm_up()  # uploads are parsed in a child process (a crash fails the upload, not the server)

# The step line and the sidebar are drawn after this run has loaded an upload or a sample (see
# below), so they name the table just loaded, not the previous one.
header = st.container()
st.title("📂 Data")
st.write(
    "Pick a built-in synthetic sample or upload your own table. Files are read in memory and never "
    "written to disk; the upload limit is 200 MB."
)

left, right = st.columns(2)
sample = left.selectbox("Built-in sample", list(SAMPLES), key="sample")
load_sample_clicked = left.button(
    "Load this sample",
    help="Replaces the current table and its settings; Undo brings them back.",
)
uploaded = right.file_uploader(
    "…or upload a table (CSV, TSV, Excel, Parquet, JSON)", type=UPLOAD_TYPES
)
with st.expander("Reading options"):
    sep_choice = st.selectbox("Separator", ["detect", ",", ";", "\\t", "|"], key="sep")
    enc_choice = st.selectbox(
        "Encoding", ["detect", "utf-8", "cp1252", "latin-1", "utf-16"], key="enc"
    )

with st.expander("🗄️ …or open a large file on this machine by path (DuckDB or Spark)"):
    st.caption(
        "For CSV or Parquet files too large to upload or to hold in memory. The engine reads the file where "
        "it is: frequency tables, search, risk and the release use every row; previews and row-level "
        f"analyses (PII, differential privacy, ML) use a seeded sample of {SAMPLE_ROWS:,} rows."
    )
    c = st.columns([4, 1])
    large_path = c[0].text_input(
        "Path of a .csv/.tsv/.parquet file (or a folder of Parquet parts)", key="large_path"
    )
    engine_name = c[1].selectbox("Engine", ["duckdb", "spark"], key="large_engine")
    if st.button("Open", key="large_open", disabled=not large_path.strip()):
        try:
            with st.spinner(f"Opening {large_path} with {engine_name} and drawing a sample…"):
                separator = None if sep_choice == "detect" else sep_choice.replace("\\t", "\t")
                encoding = None if enc_choice == "detect" else enc_choice
                large = LargeTable.open(
                    path_guard().for_read(large_path.strip()), engine_name, separator, encoding
                )
            set_large_workspace(large)
            st.session_state["table_info"] = (
                large.source.format,
                large.source.separator,
                large.source.encoding,
            )
        except AnonError as exc:
            st.error(str(exc), icon="🚫")

# What to load: a new upload (recognized by its content, not its name and size), the sample the
# user asked for, or the current source again when the reading options change. Revisiting the
# page loads nothing: the current table and its settings stay.
options = (sep_choice, enc_choice)
upload_bytes = uploaded.getvalue() if uploaded is not None else None
upload_key = hashlib.sha256(upload_bytes).hexdigest() if upload_bytes is not None else None
loaded = st.session_state.get("loaded_from")  # (kind, name, content key, options)
wanted = None
if upload_key is not None and (loaded is None or loaded[2] != upload_key):
    wanted = ("upload", uploaded.name, upload_key, options)
elif load_sample_clicked:
    wanted = ("sample", SAMPLES[sample], SAMPLES[sample], options)
elif loaded is not None and loaded[3] != options and (loaded[0] == "sample" or upload_key):
    wanted = (*loaded[:3], options)
if wanted is not None:
    try:
        separator = None if sep_choice == "detect" else sep_choice.replace("\\t", "\t")
        encoding = None if enc_choice == "detect" else enc_choice
        if wanted[0] == "upload":
            with st.spinner(f"Reading {wanted[1]}…"):
                table = load_upload(
                    upload_bytes, name=wanted[1], separator=separator, encoding=encoding
                )
        elif separator or encoding:
            table = load_table(SAMPLE_DIR / wanted[1], separator=separator, encoding=encoding)
        else:
            table = load_sample(str(SAMPLE_DIR / wanted[1]))
        if table.frame.shape[1] == 1:
            raise AnonError(
                f"{wanted[1]} was read as a single column ({str(table.frame.columns[0])[:60]!r}). A table to "
                "anonymize needs several columns: check the separator under 'Reading options'."
            )
        set_workspace(
            table.frame,
            wanted[1],
            content=upload_bytes if wanted[0] == "upload" else None,
            at_optimum=wanted[0] == "sample",
        )
        st.session_state["loaded_from"] = wanted
        st.session_state["table_info"] = (table.format, table.separator, table.encoding)
        st.session_state["encoding_note"] = table.encoding_note
        st.session_state["load_notes"] = table.notes
    except AnonError as exc:
        st.error(str(exc), icon="🚫")
        with header:
            sidebar("Data")
        st.stop()

ws = workspace()
with header:
    sidebar("Data")
if ws is not None:
    with friendly_errors():
        fmt, sep, enc = st.session_state.get("table_info", ("csv", ",", "utf-8"))
        frame = ws.frame
        st.subheader(f"📄 {ws.source}")
        if ws.large is not None:
            st.info(
                f"Opened by path with {ws.large.engine.name}: {ws.n_rows:,} rows, "
                f"{ws.large.source.size_bytes / 1e6:,.0f} MB on disk. The preview and profile below are of a "
                f"seeded sample of {len(frame):,} rows.",
                icon="🗄️",
            )
        tiles(
            [
                ("Rows", f"{ws.n_rows:,}", None),
                ("Columns", f"{frame.shape[1]:,}", None),
                ("Format", fmt, None),
                ("Separator", SEPARATORS.get(sep or "", sep or "–"), None),
                ("Encoding", enc or "–", None),
            ],
            per_row=3,
        )
        note = st.session_state.get("encoding_note")
        if note and ws.large is None:
            # The bytes were not UTF-8: say which single-byte encoding was used, never silently.
            st.warning(note, icon="🔤")
        if ws.large is None:  # e.g. spreadsheet rows that end early
            for note in st.session_state.get("load_notes") or ():
                st.warning(note, icon="📄")
        shown = min(PREVIEW_ROWS, len(frame))
        st.markdown(
            f"**Preview** (first {shown:,} of {len(frame):,} rows"
            f"{' of the sample' if ws.large is not None else ''})"
        )
        st.dataframe(frame.head(PREVIEW_ROWS), hide_index=True)
        st.markdown("**Column profile**")
        st.caption(
            "One row per column: the inferred kind, missing cells, distinct values, and the share of rows "
            "whose value occurs only once (a high share points at an identifier)."
        )
        st.dataframe(
            column_profile(frame),
            hide_index=True,
            column_config={
                "unique_share": st.column_config.NumberColumn("unique share", format="percent")
            },
        )
        show_location_map(ws, key="data")
        st.page_link("pages/attributes.py", label="Next: mark the attributes", icon="🏷️")
