"""Verifying a release report: re-run the configuration, re-render the visible content, check the signature."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from anon_core.config import load_config, read_config_file
from anon_core.data.io import output_format, table_bytes
from anon_core.errors import ConfigError
from anon_core.report.diff import check_released, diff_figures, short
from anon_core.report.figures import render_figures
from anon_core.report.files import read_report, unaccounted_content
from anon_core.report.html import embedded_libraries, plotly_inline, render_html
from anon_core.report.model import (
    REGENERATED_FORMATS,
    Report,
    figures_sha256,
    file_fingerprint,
    path_fingerprint,
    plain,
    scrub_config,
)
from anon_core.report.pdf import render_pdf
from anon_core.report.sections_dossier import is_dossier
from anon_core.report.signature import (
    SIGNATURE_SCHEMA,
    check_signature,
    load_public_key,
    signing_payload,
)
from anon_core.services.report_evidence import ReportEvidence, rerun_report_evidence

_MAX_DIFFERENCES = 60


def _regenerate(frame: pd.DataFrame, suffix: str, formula_escape: bool) -> bytes:
    """The released file's bytes as the CLI writes them (the same writer, in memory; CSV/TSV
    column names escaped like cells, as engines.base.write_frame writes them)."""
    from anon_core.release.engines.base import escape_names

    fmt = output_format(f"released{suffix}")
    if fmt in {"csv", "tsv"}:
        frame = escape_names(frame, formula_escape)
    return table_bytes(frame, fmt, formula_escape=formula_escape)


@dataclass(frozen=True)
class VerifyResult:
    """What ``verify`` found: the differences (empty when all checked parts match) and what it checked."""

    differences: tuple[str, ...]
    notes: tuple[str, ...]
    release_file: str  # "matches", "differs" or "not checked"
    #: "valid", "invalid", "unverified" (signed or signed off, no key given: a failure),
    #: "not signed" (no signature and no sign-off), "skipped" (--no-signature)
    signature: str

    @property
    def verified(self) -> bool:
        return not self.differences

    def to_dict(self) -> dict[str, Any]:
        return {
            "verified": self.verified,
            "status": self.status,
            "release_file": self.release_file,
            "signature": self.signature,
            "differences": list(self.differences),
            "notes": list(self.notes),
        }

    @property
    def status(self) -> str:
        if self.differences:
            return f"FAILED: {len(self.differences)} difference(s)"
        what = (
            "report and release file verified"
            if self.release_file == "matches"
            else ("report verified; the release file was NOT checked (give --released FILE)")
        )
        if self.signature == "skipped":
            what += "; the sign-off and signature were NOT checked (--no-signature)"
        return what


def _rerun_output(
    config: Any, evidence: ReportEvidence, reported_out: Mapping | None
) -> dict[str, Any] | None:
    """The re-run's fingerprint of the released file (regenerated where the writer is reproducible)."""
    if reported_out is None:
        return None
    suffix = Path(reported_out.get("name") or "released.csv").suffix.lower() or ".csv"
    if evidence.released_table is None:
        # A scale engine streams its release to a file: re-writing it would need a temporary
        # copy of released data, which anon_core never makes. --released checks the file.
        return reported_out
    if suffix not in REGENERATED_FORMATS:
        return reported_out  # not byte-reproducible: checked with --released only
    data = _regenerate(evidence.released_table, suffix, config.formula_escape)
    return file_fingerprint(reported_out.get("name"), data)


_LIBRARY_OPEN = '<script type="text/javascript">'


def _library(text: str) -> tuple[str | None, str]:
    """(the inlined plotly.js, the page with it cut out): the library is the first text/javascript
    script, as the renderer writes it; (None, text) when there is none."""
    start = text.find(_LIBRARY_OPEN)
    end = text.find("</script>", start)
    if start < 0 or end < 0:
        return None, text
    return text[start + len(_LIBRARY_OPEN) : end], text[: start + len(_LIBRARY_OPEN)] + text[end:]


def _sha(text: str) -> str:
    import hashlib

    return hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).hexdigest()


def _check_libraries(text: str, meta: Mapping[str, Any]) -> list[str]:
    """The page's inlined plotly.js against the installed plotly's plotly.min.js, byte for byte, and
    the libraries the metadata records (and the signature covers) against the installed ones."""
    out = []
    installed = embedded_libraries()
    recorded = meta.get("libraries")
    if not isinstance(recorded, Mapping):
        out.append(
            "report: its metadata records no embedded libraries (name, version, SHA-256), so the plotly.js "
            "it runs cannot be checked; write the report again with this version"
        )
        recorded = {}
    lib, _ = _library(text)
    want = installed["plotly.min.js"]
    record = recorded.get("plotly.min.js")
    made_with = (record.get("version") if isinstance(record, Mapping) else None) or (
        meta.get("software") or {}
    ).get("plotly")
    if lib is None:
        out.append("report: the page has no inlined plotly.js where the report puts it (in <head>)")
    elif lib != plotly_inline():
        hint = (
            f"; the report says it was made with plotly {made_with}: install plotly=={made_with} to "
            "verify it"
            if made_with != want["version"]
            else ": the library was edited"
        )
        out.append(
            f"report: its inlined plotly.js (SHA-256 {_sha(lib)}, {len(lib):,} characters) is not the "
            f"installed plotly {want['version']}'s plotly.min.js (SHA-256 {want['sha256']}, "
            f"{len(plotly_inline()):,} characters){hint}"
        )
    for name, lib_meta in installed.items():
        stated = recorded.get(name) if recorded else None
        if recorded and stated != lib_meta:
            out.append(
                f"report: its metadata records {name} as {short(stated)}, the installed copy is "
                f"{short(lib_meta)}"
            )
    return out


def _first_difference(text: str, again: str) -> str:
    a, b = text.splitlines(), again.splitlines()
    line = next(
        (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b))
    )
    shown = a[line][:120] if line < len(a) else "(end of file)"
    return (
        f"report: its visible HTML differs from what its embedded figures, configuration, metadata and "
        f"sign-off render to (line {line + 1}: {shown!r})"
    )


def check_visible(report_path: Path, embedded: Mapping[str, Any]) -> list[str]:
    """Re-render the report from its embedded blocks and compare with the file (visible text, metadata,
    attachments, pages; in HTML also the inlined libraries against the installed ones, and every
    script, style, event handler or loader in the page): [] when they are the same, else one line each
    saying where they part."""
    missing = [k for k in ("provided", "details") if k not in embedded]
    if missing:
        return [
            f"report: it embeds no {' or '.join(missing)} block, so its visible content cannot be checked; "
            "write it again with this version"
        ]
    report = Report.from_embedded(embedded)
    raw = report_path.read_bytes()
    pdf = raw.lstrip()[:5] == b"%PDF-"
    try:
        again = render_pdf(report) if pdf else render_html(report)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, OverflowError) as exc:
        return [
            f"report: its embedded blocks do not render ({type(exc).__name__} at "
            f"{short(str(exc))}): they were edited, or written by another version"
        ]
    if pdf:
        if again != raw:
            written = (report.meta.get("software") or {}).get("fpdf2")
            here = _installed("fpdf2")
            versions = (
                f" (written with fpdf2 {written}, re-rendered with {here})"
                if written != here
                else ""
            )
            return [
                "report: the PDF differs from the one its embedded figures, configuration and sign-off "
                f"render to (edited pages, text, metadata or attachments){versions}"
            ]
        return []
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return ["report: the HTML is not valid UTF-8, so it is not the page the report renders to"]
    if text == again:
        return _check_libraries(text, report.meta)  # the page is the re-render: only the records
    out = _check_libraries(text, report.meta)
    _, rest = _library(text)
    _, rest_again = _library(again)
    out += unaccounted_content(rest, rest_again)
    if rest != rest_again:
        out.append(_first_difference(rest, rest_again))
    return out or [_first_difference(text, again)]


def _installed(dist: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def _malformed(embedded: Mapping[str, Any]) -> str | None:
    """What makes the embedded blocks unusable (edited into other shapes), else None."""
    kinds: dict[str, type | tuple[type, ...]] = {
        "figures": dict,
        "config": dict,
        "meta": dict,
        "provided": dict,
        "details": dict,
    }
    for name, kind in kinds.items():
        if name in embedded and not isinstance(embedded[name], kind):
            return f"report: its embedded {name} block is not a JSON object: the report was edited"
    f = embedded["figures"]
    shapes = [
        ("figures.transformation", f.get("transformation") or {}, dict),
        (
            "figures.transformation.selection",
            (f.get("transformation") or {}).get("selection", {}),
            dict,
        ),
        ("figures.input", f.get("input") or {}, dict),
        ("figures.output", f.get("output") or {}, dict),
        ("meta.signature", (embedded.get("meta") or {}).get("signature"), (dict, type(None))),
        ("meta.software", (embedded.get("meta") or {}).get("software", {}), dict),
        ("provided.signoff", (embedded.get("provided") or {}).get("signoff"), (dict, type(None))),
        ("provided.audit", (embedded.get("provided") or {}).get("audit"), (list, type(None))),
    ]
    for where, value, kind in shapes:
        if not isinstance(value, kind):
            return (
                f"report: its {where} has the wrong shape ({short(value)}): the report was edited"
            )
    for side in ("input", "output"):
        file = (f.get(side) or {}).get("file")
        if file is not None and not (
            isinstance(file, dict) and isinstance(file.get("sha256"), str)
        ):
            return f"report: its figures.{side}.file has the wrong shape ({short(file)}): the report was edited"
    return None


def _software_notes(meta: Mapping[str, Any]) -> list[str]:
    """The software the report names that differs from this machine's (informational)."""
    import platform

    from anon_core.version import __version__

    software = meta.get("software")
    if not isinstance(software, Mapping):
        return []
    out = []
    for dist, version in software.items():
        here = (
            platform.python_version()
            if dist == "python"
            else __version__
            if dist == "anon_core"
            else _installed(str(dist))
        )
        if version != here:
            out.append(f"the report was made with {dist} {version}; this machine has {here}")
    return out


def _check_signature(
    embedded: Mapping[str, Any],
    public_key: Any,
    no_signature: bool,
    out: list[str],
    notes: list[str],
) -> str:
    """The signature's status; a signed or signed-off report whose signature is not checked is a
    difference (its sign-off, audit trail and metadata are unverified) unless ``no_signature``."""
    report = Report.from_embedded(embedded)
    block = report.meta.get("signature")
    signoff = report.provided.get("signoff")
    if block is not None and not isinstance(block, Mapping):
        out.append("signature: the report's signature block is not a signature (edited): INVALID")
        return "invalid"
    if no_signature:
        notes.append(
            "the sign-off and signature were NOT checked (--no-signature): only the figures, hashes, "
            "configuration and visible content were"
        )
        return "skipped"
    if public_key is None:
        if block:
            out.append(
                "signature: the report is signed (key SHA-256 "
                f"{block.get('public_key_sha256')}), but no public key was given, so its sign-off, audit "
                "trail and metadata are UNVERIFIED: give --public-key FILE (or --no-signature to check "
                "only the figures and hashes)"
            )
            return "unverified"
        if signoff:
            out.append(
                "signature: the report carries a sign-off that is not signed, so it is UNVERIFIED (anyone "
                "holding the file could have written it): sign reports with an Ed25519 key "
                "(output.signing_key_file), or give --no-signature to check only the figures and hashes"
            )
            return "unverified"
        notes.append("the report is not signed and carries no sign-off")
        return "not signed"
    if block and block.get("schema") != SIGNATURE_SCHEMA:
        out.append(
            f"signature: made with the signing scheme {block.get('schema')!r}, which does not cover the "
            f"metadata and embedded libraries; this version checks {SIGNATURE_SCHEMA!r}: sign the report "
            "again"
        )
        return "invalid"
    payload = signing_payload(
        report.figures, report.config, report.meta, report.provided, report.details
    )
    found = check_signature(block, payload, public_key)
    out.extend(found)
    return "invalid" if found else "valid"


def verify_report(
    config_path: str | os.PathLike[str],
    report_path: str | os.PathLike[str],
    released_path: str | os.PathLike[str] | None = None,
    public_key: str | os.PathLike[str] | None = None,
    no_signature: bool = False,
    documents_path: str | os.PathLike[str] | None = None,
) -> VerifyResult:
    """Re-run the configuration and check the report, its visible content, its signature and the release.

    Checks: the figures against their stated SHA-256; the configuration file
    against the embedded one (module sections' secrets redacted on both sides);
    every figure and chart datum of a re-run (a searched optimum is searched
    again) against the report's, numbers to a relative 1e-9; the visible
    content (HTML text and metadata; every PDF byte: pages and attachments)
    re-rendered from the embedded blocks; the Ed25519 signature under
    ``public_key``; the released file against the report's fingerprint, and the
    re-run's own output file (.csv/.tsv/.json/.xlsx). A signed report, or one
    carrying a sign-off, checked without ``public_key`` is a difference (its
    sign-off is unverified) unless ``no_signature`` says to check the figures,
    hashes and visible content only. What was not checked is said in ``notes``.
    """
    if no_signature and public_key is not None:
        raise ConfigError(
            "Give either --public-key (check the signature) or --no-signature (do not check it), not both."
        )
    # a bad key fails (one line) before the re-run
    key = None if public_key is None else load_public_key(public_key)
    report_path = Path(report_path)
    embedded = read_report(report_path)
    malformed = _malformed(embedded)
    if malformed:
        return VerifyResult((malformed,), (), "not checked", "invalid")
    figures = embedded["figures"]
    differences: list[str] = []
    notes: list[str] = []
    stated = (embedded.get("meta") or {}).get("figures_sha256")
    if stated is not None and stated != figures_sha256(figures):
        differences.append(
            f"report: its figures do not hash to the SHA-256 it states ({stated}): the report was edited"
        )
    differences += check_visible(report_path, embedded)
    signature = _check_signature(embedded, key, no_signature, differences, notes)
    notes += _software_notes(embedded.get("meta") or {})
    config_file = read_config_file(config_path)
    if "config" in embedded:
        diff_figures(embedded["config"], scrub_config(config_file), "configuration", differences)
    else:
        differences.append("report: it embeds no configuration")
    config = load_config(config_path)
    if is_dossier(figures):
        from anon_core.report.verify_dossier import verify_dossier

        release = verify_dossier(config, figures, released_path, differences, notes, documents_path)
        if released_path is None and release == "not checked":
            notes.append("the release file was NOT checked: give --released FILE to check it")
        if len(differences) > _MAX_DIFFERENCES:
            more = len(differences) - _MAX_DIFFERENCES
            differences = [*differences[:_MAX_DIFFERENCES], f"... and {more} more differences"]
        return VerifyResult(tuple(differences), tuple(notes), release, signature)
    if documents_path is not None:
        differences.append("documents: this report is not a dossier and lists no documents")
    selection = (figures.get("transformation") or {}).get("selection", {}).get("method")
    evidence, engine, grouped = rerun_report_evidence(config, selection or "configured")
    if evidence is None:
        differences.append(
            "re-run: no transformation satisfies the privacy models within the suppression limit"
        )
    else:
        reported_out = (figures.get("output") or {}).get("file")
        rerun_out = _rerun_output(config, evidence, reported_out)
        input_file = None
        if (figures.get("input") or {}).get("file") is not None and config.input_path is not None:
            input_file = path_fingerprint(config.input_path)
        rerun, details = render_figures(evidence, config, input_file, rerun_out)
        diff_figures(figures, rerun, "", differences)
        details.pop("search_ms", None)
        if "details" in embedded:
            diff_figures(embedded["details"], plain(details), "details", differences)
    release = "not checked"
    if released_path is not None:
        release = check_released(Path(released_path), figures, differences)
    else:
        notes.append("the release file was NOT checked: give --released FILE to check it")
    if grouped and (figures.get("output") or {}).get("file"):
        notes.append(
            f"the release was written by the {engine} engine: its bytes are checked against the "
            "report's fingerprint (--released), not regenerated"
        )
    if len(differences) > _MAX_DIFFERENCES:
        more = len(differences) - _MAX_DIFFERENCES
        differences = [*differences[:_MAX_DIFFERENCES], f"... and {more} more differences"]
    return VerifyResult(tuple(differences), tuple(notes), release, signature)


def verify(
    config_path: str | os.PathLike[str],
    report_path: str | os.PathLike[str],
    released_path: str | os.PathLike[str] | None = None,
    public_key: str | os.PathLike[str] | None = None,
    no_signature: bool = False,
) -> list[str]:
    """The differences :func:`verify_report` finds ([] when everything checked matches)."""
    return list(
        verify_report(config_path, report_path, released_path, public_key, no_signature).differences
    )
