"""The report as ordered sections of blocks; the closing sections (software, audit, sign-off, configuration)."""

from __future__ import annotations

from typing import Any

from anon_core.report.blocks import (
    compact_json,
    kv_block,
    section,
    table_block,
    text_block,
)
from anon_core.report.evidence import (
    attacks_report_section,
    method_report_section,
    population_report_section,
)
from anon_core.report.model import Report
from anon_core.report.sections_dossier import DOSSIER_SECTION_BUILDERS, is_dossier
from anon_core.report.sections_results import (
    disclosure_section,
    dp_section,
    pii_section,
    risk_section,
    utility_section,
)
from anon_core.report.sections_setup import (
    attributes_section,
    fingerprints_section,
    hierarchies_section,
    privacy_section,
    summary_section,
    transformation_section,
)


def software_section(report: Report) -> dict[str, Any] | None:
    """When and with which software the report was made."""
    meta = report.meta
    return section(
        "software",
        "Software and time",
        kv_block(
            [
                ("generated (UTC)", meta["generated_at"]),
                *[(k, v or "not installed") for k, v in meta["software"].items()],
                *[
                    (
                        f"inlined in the HTML page: {name}",
                        f"{lib.get('version') or 'version unknown'}, SHA-256 {lib.get('sha256')}",
                    )
                    for name, lib in (meta.get("libraries") or {}).items()
                    if isinstance(lib, dict)
                ],
            ]
        ),
    )


def audit_section(report: Report) -> dict[str, Any] | None:
    """The audit trail of changes (when given)."""
    prov = report.provided
    if prov.get("audit") is not None:
        return section(
            "audit",
            "Audit trail",
            table_block(
                ["#", "change", "at (UTC)"],
                [[str(i + 1), a["change"], a["at"]] for i, a in enumerate(prov["audit"])],
                text_columns=(0, 1, 2),
            )
            if prov["audit"]
            else text_block("No change was recorded."),
        )
    return None


def signoff_section(report: Report) -> dict[str, Any] | None:
    """The sign-off as recorded (and its signature)."""
    prov = report.provided
    signoff = prov.get("signoff") or {}
    return section(
        "signoff",
        "Sign-off",
        kv_block(
            [
                ("name", signoff.get("name") or ""),
                ("role", signoff.get("role") or ""),
                ("decision", signoff.get("decision") or "pending"),
                ("comments", signoff.get("comments") or ""),
                *([("date", signoff["date"])] if signoff.get("date") else []),
            ]
        ),
        _signature_block(report.meta.get("signature")),
        text_block("Signature: ______________________________    Date: ________________"),
    )


def _signature_block(signature: dict[str, Any] | None) -> dict[str, Any]:
    if not signature:
        return text_block(
            "Electronic signature: none. This sign-off is not signed: anyone holding the file could have "
            "written it. Sign reports with an Ed25519 key (output.signing_key_file or output.signing_key_env) "
            "and check them with 'anon-core verify ... --public-key FILE'."
        )
    return kv_block(
        [
            (
                "electronic signature",
                f"{signature.get('algorithm')} over the figures, configuration, chart data, input "
                "and output hashes, all metadata (time, software, search time, inlined libraries), the "
                "sign-off, audit trail and summaries",
            ),
            ("signing key (SHA-256 of the public key)", str(signature.get("public_key_sha256"))),
            ("signed payload SHA-256", str(signature.get("payload_sha256"))),
            (
                "check with",
                "anon-core verify CONFIG REPORT --released FILE --public-key KEY.pub.pem",
            ),
        ]
    )


def configuration_section(report: Report) -> dict[str, Any] | None:
    """The configuration this release was made with."""
    return section(
        "configuration",
        "Appendix: release configuration",
        text_block(
            "The configuration this release was made with (fields of the PII, pseudonymization and DP sections "
            "named like key/secret/salt/password/token are redacted). Re-run and check it with "
            "'anon-core verify CONFIG REPORT [--released FILE]'."
        ),
        {"kind": "code", "text": compact_json(report.config)},
    )


#: The section builders in report order; each returns a section or None (section absent).
SECTION_BUILDERS = (
    summary_section,
    fingerprints_section,
    attributes_section,
    hierarchies_section,
    privacy_section,
    method_report_section,
    transformation_section,
    risk_section,
    population_report_section,
    attacks_report_section,
    disclosure_section,
    utility_section,
    pii_section,
    dp_section,
    software_section,
    audit_section,
    signoff_section,
    configuration_section,
)


#: The section builders of a release dossier (any method: :mod:`anon_core.report.dossier`).
DOSSIER_BUILDERS = (
    *DOSSIER_SECTION_BUILDERS,
    software_section,
    audit_section,
    signoff_section,
    configuration_section,
)


def report_sections(report: Report) -> list[dict[str, Any]]:
    """The report as ordered sections of blocks (text, key-value, table, chart, code), for any renderer."""
    builders = DOSSIER_BUILDERS if is_dossier(report) else SECTION_BUILDERS
    sections = (build(report) for build in builders)
    return [s for s in sections if s is not None]
