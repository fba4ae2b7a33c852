"""Release: the released table, its downloads, and the release configuration."""

from __future__ import annotations

import hashlib
import json

import streamlit as st

from anon_core.errors import AnonError
from anon_core.services.catalogue import DEFAULT_METHOD
from anon_core.services.configuration import config_from_bytes
from anon_core.services.tables import table_bytes
from anon_core.workspace import Workspace
from ui.dossier import dossier_section, method_release_section, preview, residual_notice
from ui.evidence import download_bytes, method_name, release_key, release_value
from ui.geo_map import show_location_map
from ui.long_work import human_duration, report_seconds, timed
from ui.widgets import (
    SAMPLE_DIR,
    cached,
    config_json,
    current_result,
    download_name,
    friendly_errors,
    keep,
    kept,
    path_guard,
    start_page,
)


def _write_large_release(ws: Workspace, result, mode: str, disabled: bool) -> None:
    """A file opened by path is released by its engine to a file on this machine, with progress."""
    rows = ws.n_rows - (int(result.suppressed_records) if mode == "remove" else 0)
    st.caption(
        f"{rows:,} rows will be released of {ws.n_rows:,}; identifiers removed; levels "
        + ", ".join(f"{q} {level}" for q, level in result.transformation.items())
        + ". Preview of the sample's rows as released:"
    )
    st.dataframe(preview(ws.sample_release(result, mode)), hide_index=True)
    src = ws.large.source.path
    default = str(src.with_name(f"{src.stem.split('.')[0]}_released.parquet"))
    out = st.text_input(
        "Write the release to (.parquet or .csv, on this machine)", value=default, key="large_out"
    )
    written_key = f"{ws.config_key()}:{mode}:{out}"
    if st.button(f"💾 Write with {ws.large.engine.name}", type="primary", disabled=disabled):
        bar = st.progress(0.0, text="Writing…")
        written = ws.write_release(
            result,
            path_guard().for_write(out),
            mode,
            progress=lambda f, m: bar.progress(min(max(f, 0.0), 1.0), text=f"{m}: {f:.0%}"),
        )
        bar.empty()
        keep("large_written", written_key, written.to_dict())
    done = kept("large_written", written_key)  # the file written with these settings, if any
    if done:
        st.success(
            f"Wrote {done['rows']:,} rows to {done['path']} in {done['seconds']:.1f} s.", icon="✅"
        )
        st.caption(f"SHA-256 of the released file: `{done['sha256']}`")


def _generalization_release(ws: Workspace) -> str:
    """The generalized table of the current transformation, its downloads and hashes; returns the
    suppressed-records mode chosen."""
    mode = "remove"
    with friendly_errors():
        result = current_result(ws)
        if not result.satisfied:
            st.warning(
                "The current transformation does not satisfy the privacy models within the suppression limit. "
                "Pick another on the Privacy or Explore page before releasing.",
                icon="⚠️",
            )
        mode = st.radio(
            "Suppressed records",
            ["remove", "mask"],
            horizontal=True,
            format_func=lambda m: (
                "remove them" if m == "remove" else "keep them with every QI as *"
            ),
        )
        disabled = not result.satisfied
        if ws.large is not None:
            _write_large_release(ws, result, mode, disabled)
        else:
            ws.check_free_text()
            sections = cached("release-sections", ws.config_key(), ws.released_sections)
            residual_notice(ws, sections[0])
            if disabled:  # the session releases only a transformation that satisfies the models
                return mode
            # The release of the configuration through its session, as the command line makes it.
            release = release_value(ws, mode)
            released = release.table
            levels = release.details.get("transformation") or result.transformation
            st.caption(
                f"{len(released):,} rows released of {len(ws.frame):,}; identifiers and free text "
                "removed unless kept on purpose; levels "
                + ", ".join(f"{q} {level}" for q, level in levels.items())
                + "."
            )
            st.dataframe(preview(released), hide_index=True)

            csv_bytes = cached(
                "release-value-csv", release_key(ws, mode), lambda: download_bytes(release, "csv")
            )
            st.caption(
                f"SHA-256 of the CSV release: `{hashlib.sha256(csv_bytes).hexdigest()}` (cells that "
                "a spreadsheet would run as formulas start with an apostrophe)"
            )
            c = st.columns(3)
            c[0].download_button(
                "⬇️ CSV", csv_bytes, download_name(ws, ".csv"), "text/csv", disabled=disabled
            )
            # Parquet and Excel are built only when their button is clicked (not on every redraw).
            c[1].download_button(
                "⬇️ Parquet",
                lambda: table_bytes(released, "parquet"),
                download_name(ws, ".parquet"),
                "application/octet-stream",
                disabled=disabled,
            )
            c[2].download_button(
                "⬇️ Excel",
                lambda: table_bytes(released, "xlsx"),
                download_name(ws, ".xlsx"),
                "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
                disabled=disabled,
            )
    return mode


ws = start_page("Release", "📦 Release & sign-off")
generalized = method_name(ws) == DEFAULT_METHOD
mode = _generalization_release(ws) if generalized else "remove"
if not generalized:
    method_release_section(ws)
if ws.large is None:
    with friendly_errors():
        show_location_map(ws, key="release", release=True, height=340)

st.subheader("Release configuration")
st.caption(
    "The same file the command line reads: `anon-core anonymize release.json --output out.csv` reproduces "
    "this release headless (put the data file next to it, named as in input.path)."
)
# Built on the click: on Adult with inline hierarchies the configuration is ~100 ms to write.
st.download_button(
    "⬇️ Configuration (JSON)", lambda: config_json(ws), "release.json", "application/json"
)
uploaded = st.file_uploader(
    "Resume from a configuration", type=["json", "yaml", "yml"], key="config_upload"
)
if uploaded is not None and st.session_state.get("config_loaded") != uploaded.file_id:
    try:
        config = config_from_bytes(uploaded.getvalue(), uploaded.name)
        # Kept exactly as given; Undo returns to the previous settings. Files it names must be in
        # the built-in samples' folder (or opened by path in this session): the server reads them.
        ws.load_config(
            config,
            base_dir=SAMPLE_DIR,
            allowed_roots=(SAMPLE_DIR,),
            allowed_files=path_guard().read,
        )
        st.session_state["config_loaded"] = uploaded.file_id
        st.success("Configuration applied to the current table (Undo reverts it).", icon="✅")
        st.rerun()
    except AnonError as exc:
        st.error(str(exc), icon="🚫")


# =============================================================================== release report
# Sign-off, the release report (HTML with interactive charts, and PDF) and the audit trail.
# Appended section (issue 7); every figure and file is made by anon_core/report.py.
def _release_report_section(ws: Workspace, suppressed_records: str) -> None:
    from anon_core.report import (
        DECISIONS,
        audit_csv,
        audit_json,
        render_html,
        render_pdf,
    )
    from ui.release_report import release_report

    st.divider()
    st.subheader("Release report and sign-off")
    st.caption(
        "A report of this release for sign-off: fingerprints, roles, hierarchies, privacy models, how the "
        "transformation was chosen, risk before and after, utility, the audit trail and your decision. "
        "Check it later with `anon-core verify release.json report.html --released released.csv`."
    )
    with friendly_errors():
        if not ws.qis:
            return
        with st.form("release_signoff"):
            c = st.columns(2)
            name = c[0].text_input("Name")
            role = c[1].text_input("Role", placeholder="e.g. data protection officer")
            decision = st.radio(
                "Decision",
                DECISIONS,
                index=None,
                horizontal=True,
                format_func=lambda d: (
                    "✅ approve the release" if d == "approve" else "❌ reject it"
                ),
            )
            comments = st.text_area("Comments")
            generate = st.form_submit_button("📝 Generate the report", type="primary")
            st.caption(f"Writing the report takes {human_duration(report_seconds(ws.n_rows))}.")
        # The report's configuration is the workspace's (its fingerprint) and the output mode.
        state_key = hashlib.sha256(f"{ws.config_key()}:{suppressed_records}".encode()).hexdigest()
        missing = [
            label
            for label, value in (("name", name), ("role", role), ("decision", decision))
            if not (value or "").strip()
        ]
        if generate and missing:
            st.error(
                f"The sign-off needs your {', '.join(missing)}: fill in every field to sign.",
                icon="🚫",
            )
        elif generate:
            config = json.loads(config_json(ws))
            if suppressed_records != "remove":
                config["output"] = {"suppressed_records": suppressed_records}
            with st.spinner(f"Writing the report, {human_duration(report_seconds(ws.n_rows))}…"):
                with timed("report", ws.n_rows):
                    built = release_report(
                        ws,
                        config,
                        {"name": name, "role": role, "decision": decision, "comments": comments},
                        ws.audit,
                    )
                st.session_state["release_report"] = {
                    "key": state_key,
                    "html": render_html(built),
                    "pdf": render_pdf(built),
                    "config": json.dumps(config, indent=2, ensure_ascii=False),
                    "sha": built.figures_sha256,
                }
        made = st.session_state.get("release_report")
        if made is not None and made["key"] != state_key:
            st.info(
                "The settings changed since the report was written: generate it again.", icon="🔁"
            )
        elif made is not None:
            st.caption(f"Figures SHA-256: `{made['sha']}`")
            c = st.columns(3)
            c[0].download_button(
                "⬇️ Report (HTML)", made["html"], download_name(ws, "_report.html"), "text/html"
            )
            c[1].download_button(
                "⬇️ Report (PDF)", made["pdf"], download_name(ws, "_report.pdf"), "application/pdf"
            )
            c[2].download_button(
                "⬇️ Configuration it embeds", made["config"], "release.json", "application/json"
            )
            st.iframe(made["html"], height=720)
    st.markdown("**Audit trail**")
    st.caption(f"{len(ws.audit):,} change(s) recorded in this session.")
    c = st.columns(2)
    c[0].download_button("⬇️ Audit trail (CSV)", audit_csv(ws.audit), "audit_trail.csv", "text/csv")
    c[1].download_button(
        "⬇️ Audit trail (JSON)",
        audit_json(ws.audit),
        "audit_trail.json",
        "application/json",
    )


if generalized:
    _release_report_section(ws, mode)
dossier_section(ws)
