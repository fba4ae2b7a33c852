"""Privacy risk workbench: Streamlit dashboard (data preview page).

Run with ``streamlit run app.py``. The page is a thin layer over ``anon_core``:
loading, format detection and column profiling all happen in the engine.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import streamlit as st

from anon_core.errors import AnonError
from anon_core.io import LoadedTable, column_profile, load_table

SAMPLE_DIR = Path(__file__).parent / "sample_data"
#: Label shown in the selectbox -> file in sample_data/.
SAMPLES = {
    "🏥 Hospital discharges (2,000 patients)": "hospital_discharge.csv",
    "📊 Census income (5,000 people)": "census_income.csv",
}
UPLOAD_TYPES = ["csv", "tsv", "txt", "xlsx", "parquet", "json"]
PREVIEW_ROWS = 200
SEPARATOR_NAMES = {",": "comma ( , )", ";": "semicolon ( ; )", "\t": "tab", "|": "pipe ( | )"}


@st.cache_data(show_spinner="Loading sample…")
def load_sample(path: str) -> LoadedTable:
    """Load a built-in sample (cached per file path, shared by all sessions)."""
    return load_table(path)


def choose_table() -> tuple[str, LoadedTable] | None:
    """Ask for a sample or an upload; return (display name, table), or None after an error."""
    left, right = st.columns(2)
    sample_label = left.selectbox("Built-in sample", list(SAMPLES), key="sample")
    uploaded = right.file_uploader(
        "…or upload your own table (replaces the sample)",
        type=UPLOAD_TYPES,
        help="Read in memory only; the file is never written to disk.",
    )
    try:
        if uploaded is not None:
            return uploaded.name, load_table(uploaded.getvalue(), name=uploaded.name)
        file_name = SAMPLES[sample_label]
        return file_name, load_sample(str(SAMPLE_DIR / file_name))
    except AnonError as exc:
        st.error(str(exc), icon="🚫")
        return None


def show_table(name: str, table: LoadedTable) -> None:
    frame = table.frame
    st.subheader(f"📄 {name}")
    rows, cols, fmt, sep, enc = st.columns(5)
    rows.metric("Rows", f"{len(frame):,}")
    cols.metric("Columns", f"{frame.shape[1]:,}")
    fmt.metric("Format", table.format)
    sep.metric("Separator", SEPARATOR_NAMES.get(table.separator or "", table.separator or "–"))
    enc.metric("Encoding", table.encoding or "–")

    shown = min(PREVIEW_ROWS, len(frame))
    st.markdown(f"**Preview** (first {shown:,} of {len(frame):,} rows)")
    st.dataframe(frame.head(PREVIEW_ROWS), hide_index=True)

    st.markdown("**Column profile**")
    st.caption(
        "One row per column: the inferred kind, missing cells, distinct values, and the share "
        "of rows whose value occurs only once (a high share points at an identifier)."
    )
    profile: pd.DataFrame = column_profile(frame)
    st.dataframe(
        profile,
        hide_index=True,
        column_config={
            "unique_share": st.column_config.NumberColumn("unique_share", format="percent")
        },
    )


def main() -> None:
    st.set_page_config(page_title="Privacy risk workbench", page_icon="🛡️", layout="wide")
    st.sidebar.info(
        "🚧 This is the data preview. The full workflow pages (risk assessment, "
        "anonymization and utility evaluation) are coming."
    )
    st.title("🛡️ Privacy risk workbench")
    st.write("Pick a built-in synthetic sample or upload a table to see how it is read.")
    chosen = choose_table()
    if chosen is not None:
        show_table(*chosen)


main()
