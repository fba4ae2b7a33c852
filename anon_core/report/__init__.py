"""The release report: build it, render it (HTML, PDF), sign it, read it back and verify it.

Callers write ``anon_core.report.NAME``; every public name is re-exported here.
"""

from anon_core.report.blocks import fmt
from anon_core.report.figures import audit_csv, audit_json, build_report, report_figures
from anon_core.report.files import read_report, read_report_figures, write_report
from anon_core.report.html import render_html
from anon_core.report.model import (
    ATTACHMENTS,
    DECISIONS,
    FIGURES_SCHEMA,
    REDACTED,
    Report,
    figures_json,
    figures_sha256,
    scrub_secrets,
    table_csv_bytes,
)
from anon_core.report.pdf import render_pdf
from anon_core.report.sections import report_sections
from anon_core.report.signature import key_fingerprint, load_public_key, signing_payload
from anon_core.report.verify import VerifyResult, check_visible, verify, verify_report

__all__ = [
    "ATTACHMENTS",
    "DECISIONS",
    "FIGURES_SCHEMA",
    "REDACTED",
    "Report",
    "VerifyResult",
    "audit_csv",
    "audit_json",
    "build_report",
    "check_visible",
    "figures_json",
    "figures_sha256",
    "fmt",
    "key_fingerprint",
    "load_public_key",
    "read_report",
    "read_report_figures",
    "render_html",
    "render_pdf",
    "report_figures",
    "report_sections",
    "scrub_secrets",
    "signing_payload",
    "table_csv_bytes",
    "verify",
    "verify_report",
    "write_report",
]
