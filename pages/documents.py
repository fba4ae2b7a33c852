"""Documents: de-identify uploaded DOCX, PDF, text and image files (OCR for scans) with the engine
of ``anon-core deidentify``; one ZIP and a log of entity types and counts per file."""

from __future__ import annotations

import streamlit as st

from ui.documents import upload_section
from ui.widgets import WS_KEY, friendly_errors, sidebar

sidebar("Documents")
st.title("📄 Documents")
st.write(
    "Letters, forms and scanned referrals: each file is analysed in its own language and every "
    "entity found is replaced (DOCX, TXT, PDF text) or covered by a black box (images, scanned "
    "pages). Review the output before you share it: a missed name stays readable."
)
ws = st.session_state.get(WS_KEY)
section = ws.sections.get("text") if ws is not None else None
label = (
    "the operators of the PII page's text section"
    if section
    else "every entity replaced by its type (<PERSON>); set operators on the PII page"
)
with friendly_errors():
    upload_section(section, label)
