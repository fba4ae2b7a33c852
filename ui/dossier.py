"""The Release page's widget groups for any method: the released table with its downloads, the
de-identified text check, and the dossier (verdict, evidence, sign-off, signed report)."""

from __future__ import annotations

import hashlib
from typing import Any

import streamlit as st

from anon_core.errors import AnonError
from anon_core.report import DECISIONS, render_html, render_pdf
from anon_core.report.dossier import build_dossier
from anon_core.services.acceptance import check_approval
from anon_core.workspace import Workspace
from ui.documents import EVIDENCE_KEY as DOCUMENTS_EVIDENCE_KEY
from ui.evidence import (
    download_bytes,
    measure_evidence,
    method_label,
    method_name,
    release_value,
    session,
    verdict_box,
)
from ui.widgets import cached, download_name, friendly_errors

DOSSIER_KEY = "release_dossier"


def residual_notice(ws: Workspace, deidentified: Any) -> None:
    """The measured share of direct identifiers left in de-identified free text, with a warning
    above the threshold (nothing without a ``text`` section)."""
    residual = cached("text-residual", ws.config_key(), lambda: ws.text_residual(deidentified))
    if residual is None:
        return
    message = residual.sentence()
    if residual.flagged:
        message += (
            f" Above the {residual.warn_share:.0%} threshold: review the operators, allow and "
            "deny lists on the PII page before releasing."
        )
    (st.warning if residual.flagged else st.info)(message, icon="⚠️" if residual.flagged else "ℹ️")


def preview(frame: Any, rows: int = 200) -> Any:
    """The first rows as a reader of the CSV sees them: missing cells empty, never 'None'."""
    head = frame.head(rows)
    return head.astype(object).where(head.notna(), "")


def _csv(ws: Workspace, release) -> bytes:
    return cached("release-value-csv", ws.config_key(), lambda: download_bytes(release, "csv"))


def method_release_section(ws: Workspace) -> None:
    """The release of a method other than generalization: table, hashes, downloads."""
    with friendly_errors():
        name = method_name(ws)
        ws.check_free_text()
        residual_notice(ws, cached("release-sections", ws.config_key(), ws.released_sections)[0])
        with st.spinner(f"Releasing with {method_label(name)}…"):
            release = release_value(ws)
        st.caption(
            f"{release.rows:,} rows released with {method_label(name)} (seed "
            f"{release.random_state}); guarantee: {release.guarantee}. Identifiers are never "
            "released."
        )
        st.dataframe(preview(release.table), hide_index=True)
        csv_bytes = _csv(ws, release)
        st.caption(
            f"SHA-256 of the CSV release: `{hashlib.sha256(csv_bytes).hexdigest()}` (the dossier "
            "records this file; cells a spreadsheet would run as formulas start with an apostrophe)"
        )
        c = st.columns(3)
        c[0].download_button("⬇️ CSV", csv_bytes, download_name(ws, ".csv"), "text/csv")
        c[1].download_button(
            "⬇️ Parquet",
            lambda: download_bytes(release, "parquet"),
            download_name(ws, ".parquet"),
            "application/octet-stream",
        )
        c[2].download_button(
            "⬇️ Excel",
            lambda: download_bytes(release, "xlsx"),
            download_name(ws, ".xlsx"),
            "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        )


def dossier_section(ws: Workspace) -> None:
    """Verdict, evidence and sign-off of the current release (any method), and its signed dossier."""
    st.divider()
    st.subheader("Release dossier: verdict, evidence and sign-off")
    st.caption(
        "The dossier of this release for any method: method, parameters, seed and guarantee; input "
        "and output hashes; the evidence with intervals; the acceptance checklist; your decision. "
        "Check it later with `anon-core verify release.json dossier.html --released released.csv`."
    )
    if ws.large is not None:
        st.info("A file opened by path is released with its engine: use the report above.")
        return
    with friendly_errors():
        ws.check_free_text()
        release = release_value(ws)
        found = measure_evidence(ws, release, "dossier")
        if found is None:
            return
        evidence, verdict = found
        verdict_box(verdict)
        with st.form("dossier_signoff"):
            c = st.columns(2)
            name = c[0].text_input("Name", key="dossier_name")
            role = c[1].text_input(
                "Role", placeholder="e.g. data protection officer", key="dossier_role"
            )
            decision = st.radio(
                "Decision",
                DECISIONS,
                index=None,
                horizontal=True,
                key="dossier_decision",
                format_func=lambda d: (
                    "✅ approve the release" if d == "approve" else "❌ reject it"
                ),
            )
            comments = st.text_area("Comments", key="dossier_comments")
            justification = st.text_area(
                "Justification (required to approve a release that fails a criterion)",
                key="dossier_justification",
            )
            make = st.form_submit_button("📝 Sign and write the dossier", type="primary")
        if make:
            missing = [
                label
                for label, value in (("name", name), ("role", role), ("decision", decision))
                if not (value or "").strip()
            ]
            if missing:
                st.error(f"The sign-off needs your {', '.join(missing)}.", icon="🚫")
                return
            signoff = {
                "name": name,
                "role": role,
                "decision": decision,
                "comments": comments,
                "justification": justification,
            }
            try:
                check_approval(verdict, signoff)
            except AnonError as exc:
                st.error(str(exc), icon="🚫")
                return
            with st.spinner("Writing the dossier…"):
                built = build_dossier(
                    session(ws),
                    release,
                    evidence,
                    verdict,
                    signoff=signoff,
                    audit=ws.audit,
                    released_file=(download_name(ws, ".csv"), _csv(ws, release)),
                    documents=st.session_state.get(DOCUMENTS_EVIDENCE_KEY),
                )
                st.session_state[DOSSIER_KEY] = {
                    "key": ws.config_key(),
                    "html": render_html(built),
                    "pdf": render_pdf(built),
                    "sha": built.figures_sha256,
                }
        made = st.session_state.get(DOSSIER_KEY)
        if made is not None and made["key"] != ws.config_key():
            st.info("The release changed since the dossier was written: sign it again.", icon="🔁")
        elif made is not None:
            st.caption(f"Dossier figures SHA-256: `{made['sha']}`")
            c = st.columns(2)
            c[0].download_button(
                "⬇️ Dossier (HTML)", made["html"], download_name(ws, "_dossier.html"), "text/html"
            )
            c[1].download_button(
                "⬇️ Dossier (PDF)",
                made["pdf"],
                download_name(ws, "_dossier.pdf"),
                "application/pdf",
            )
