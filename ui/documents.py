"""The Documents page's widget groups: upload several documents, de-identify them with a progress
bar and a Cancel button, show per file the entity types and counts, the language and whether
names were looked for by a model of that language, and offer one ZIP and the log.

Everything runs in ``anon_core.services.documents`` in memory; this module only asks and shows.
The batch's result (de-identified bytes, counts and hashes; never a found value) is kept in the
session so the downloads survive a rerun, and its per-file evidence goes into the dossier.
"""

from __future__ import annotations

import hashlib
from typing import Any

import pandas as pd
import streamlit as st

from anon_core.errors import AnonError
from anon_core.services.documents import (
    NO_NAME_MODEL as NO_NAME_MODEL_TEXT,
)
from anon_core.services.documents import (
    DocumentsRun,
    accepted_suffixes,
    deidentify_uploads,
    documents_zip,
    log_csv,
    log_json,
    upload_limits,
)
from ui.long_work import cancel_button, eta_progress

#: The last batch: {"key", "zip", "json", "csv", "run"}.
RESULT_KEY = "documents_result"
#: Per-file evidence of the last batch (hashes and counts) for the dossier.
EVIDENCE_KEY = "documents_evidence"
LANGUAGE_NAMES = {"en": "English", "fr": "French", "de": "German", "es": "Spanish", "it": "Italian"}


def _batch_key(files: list[tuple[str, bytes]], section: Any, numbered: bool) -> str:
    digest = hashlib.sha256()
    for name, data in files:
        digest.update(name.encode("utf-8", "replace") + b"\0")
        digest.update(hashlib.sha256(data).digest())
    digest.update(repr((section, numbered)).encode())
    return digest.hexdigest()


def per_file_frame(run: DocumentsRun) -> pd.DataFrame:
    """One row per file: kind, language, names by model, entity counts (types as columns)."""
    entities = sorted({e for r in run.records for e in r.entities})
    rows = []
    for r in run.records:
        row = {
            "file": r.name,
            "kind": r.kind.upper(),
            "language": LANGUAGE_NAMES.get(r.language, r.language),
            "names by a model": r.name_model or "no",
            "found": r.total,
        }
        row.update({e: int(r.entities.get(e, 0)) for e in entities})
        rows.append(row)
    return pd.DataFrame(rows)


def upload_section(section: Any, section_label: str) -> None:
    """The uploader, the options, the run with progress and Cancel, and the results."""
    try:
        limits = upload_limits()
    except AnonError as exc:
        st.error(str(exc), icon="🚫")
        return
    uploads = st.file_uploader(
        "Documents (DOCX, PDF, TXT, PNG, JPEG, TIFF; scanned PDFs are read by OCR)",
        type=accepted_suffixes(),
        accept_multiple_files=True,
        key="documents_upload",
        help=limits.sentence(),
    )
    st.caption(
        f"{limits.sentence()} The files are read in memory, never written to disk. "
        f"Settings: {section_label}."
    )
    numbered = st.checkbox(
        "Name the de-identified files document-001, document-002, … (file names can hold names)",
        key="documents_numbered",
    )
    files = [(u.name, u.getvalue()) for u in uploads or []]
    key = _batch_key(files, section, numbered) if files else None
    go, stop_col = st.columns([3, 1])
    start = go.button(
        "▶️ De-identify the documents", type="primary", disabled=not files, key="documents_go"
    )
    with stop_col:
        stopped = cancel_button("documents_cancel", "⏹️ Cancel (after the current file)")
    if stopped and not start:
        st.info("Cancelled: no de-identified files are offered for this batch.", icon="⏹️")
        st.session_state.pop(RESULT_KEY, None)
        st.session_state.pop(EVIDENCE_KEY, None)
    if start and files:
        _run(files, section, numbered, key)
    result = st.session_state.get(RESULT_KEY)
    if result is not None and (key is None or result["key"] == key):
        show_result(result)  # the last batch (after a reload the uploader is empty)
    elif result is not None:
        st.info("The files or settings changed: de-identify them again.", icon="🔁")


def _run(files: list[tuple[str, bytes]], section: Any, numbered: bool, key: str) -> None:
    with st.status(f"De-identifying {len(files)} file(s)…", expanded=True) as status:
        bar = st.progress(0.0, text="Starting…")
        try:
            run = deidentify_uploads(files, section, numbered=numbered, progress=eta_progress(bar))
        except AnonError as exc:
            status.update(label="Nothing was de-identified", state="error")
            st.error(str(exc), icon="🚫")
            return
        archive = documents_zip(run)
        status.update(label="Documents de-identified", state="complete", expanded=False)
    st.session_state[RESULT_KEY] = {
        "key": key,
        "zip": archive,
        "json": log_json(run),
        "csv": log_csv(run),
        "run": run,
    }
    st.session_state[EVIDENCE_KEY] = run.evidence()


def show_result(result: dict[str, Any]) -> None:
    run: DocumentsRun = result["run"]
    for name, error in run.failed:
        st.error(f"{name}: {error}", icon="🚫")
    if not run.records:
        return
    totals = run.entity_totals()
    st.markdown(
        f"**{len(run.records)} file(s) de-identified**, {sum(totals.values()):,} entities found: "
        + (", ".join(f"{e} {n:,}" for e, n in totals.items()) or "none")
        + ". Counts and types only; no found value is shown or kept."
    )
    for r in run.records:
        if not r.names_by_model:
            language = LANGUAGE_NAMES.get(r.language, r.language)
            st.warning(f"{r.name} ({language}): {NO_NAME_MODEL_TEXT}.", icon="⚠️")
    st.dataframe(per_file_frame(run), hide_index=True, width="stretch")
    notes = [(r.name, n) for r in run.records for n in r.notices]
    if notes:
        with st.expander(f"Notices ({len(notes)})"):
            for name, note in notes:
                st.caption(f"{name}: {note}")
    if st.checkbox(
        "List these documents in the signed dossier (Release & sign-off page)",
        value=True,
        key="documents_in_dossier",
        help="Each file's input and output SHA-256 and its entity counts; verify --documents "
        "checks the output hashes.",
    ):
        st.session_state[EVIDENCE_KEY] = run.evidence()
    else:
        st.session_state.pop(EVIDENCE_KEY, None)
    zip_sha = hashlib.sha256(result["zip"]).hexdigest()
    st.caption(
        f"ZIP SHA-256 `{zip_sha}`. The counts and the SHA-256 of each file in the log are those "
        "of the files in this ZIP."
    )
    c = st.columns(3)
    c[0].download_button(
        "⬇️ De-identified files (ZIP)",
        result["zip"],
        "deidentified-documents.zip",
        "application/zip",
        type="primary",
        key="documents_zip",
    )
    c[1].download_button(
        "⬇️ Log (JSON)",
        result["json"],
        "deidentification-log.json",
        "application/json",
        key="documents_log_json",
    )
    c[2].download_button(
        "⬇️ Log (CSV)",
        result["csv"],
        "deidentification-log.csv",
        "text/csv",
        key="documents_log_csv",
    )
