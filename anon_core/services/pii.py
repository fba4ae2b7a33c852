"""Personal data in the table as the dashboard handles it: the Presidio scan of a sample of every
column (roles proposed, entity types found, never a cell value kept), free-text de-identification
and the pseudonymization of identifier columns, with the ``text`` and ``pseudonymize`` sections
that make the release reproduce them.

These are the pii package's own application entry points; Presidio loads only when a scan or a
rewrite runs.
"""

from __future__ import annotations

from anon_core.pii import (
    ScanReport,
    apply_pseudonymization,
    deidentify_texts,
    highlight_segments,
    lowers_protection,
    scan_table,
    text_section,
    validate_pseudonymize_section,
    validate_text_section,
)

__all__ = [
    "ScanReport",
    "apply_pseudonymization",
    "deidentify_texts",
    "highlight_segments",
    "lowers_protection",
    "scan_table",
    "text_section",
    "validate_pseudonymize_section",
    "validate_text_section",
]
