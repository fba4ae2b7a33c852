"""The release dossier: the signed report of a release of any method.

It renders what a :class:`~anon_core.services.session.Session` measured: the method, its
parameters, seed and guarantee; the input and output hashes; the evidence with intervals
(class-based figures where defined, the attack battery on the rehearsal, utility, synthetic-data
checks); the acceptance checklist and its verdict; the sign-off (approving a failed release needs
a written justification, signed with the rest). ``anon-core verify`` re-checks it
(:mod:`anon_core.report.verify_dossier`). The figures block holds nothing time- or
machine-dependent, so the same configuration gives the same figures and the same SHA-256.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from anon_core.report.figures import assemble_report, check_audit, check_signoff
from anon_core.report.model import Report, file_fingerprint, path_fingerprint, plain
from anon_core.report.sections_dossier import DOSSIER_SCHEMA, is_dossier
from anon_core.services.acceptance import Verdict, check_approval
from anon_core.services.evidence import Evidence
from anon_core.services.release import Release

__all__ = ["DOSSIER_SCHEMA", "build_dossier", "dossier_figures", "is_dossier"]
#: Keys of run times, kept out of the reproducible figures (they go to the details).
_TIMING_KEYS = {"seconds", "cpu_seconds", "search_ms"}


def _without_timings(obj: Any) -> Any:
    if isinstance(obj, Mapping):
        return {k: _without_timings(v) for k, v in obj.items() if k not in _TIMING_KEYS}
    if isinstance(obj, list | tuple):
        return [_without_timings(v) for v in obj]
    return obj


def dossier_figures(
    release: Release,
    evidence: Evidence,
    verdict: Verdict,
    input_name: str | None,
    input_rows: int,
) -> dict[str, Any]:
    """The dossier's reproducible figures block."""
    return plain(
        {
            "schema": DOSSIER_SCHEMA,
            "input": {
                "file": {"name": input_name, "sha256": release.input_sha256},
                "rows": int(input_rows),
            },
            "output": {
                "rows": release.rows,
                "sha256": release.output_sha256,
                "columns": [str(c) for c in release.table.columns],
            },
            "release": release.to_dict(),
            "evidence": _without_timings(evidence.to_dict()),
            "verdict": verdict.to_dict(),
        }
    )


def build_dossier(
    session: Any,
    release: Release,
    evidence: Evidence,
    verdict: Verdict,
    *,
    signoff: Mapping[str, Any] | None = None,
    audit: Sequence[Mapping[str, Any]] | None = None,
    signing_key: Any = None,
    generated_at: datetime | None = None,
    released_file: Path | tuple[str, bytes] | None = None,
    documents: Sequence[Mapping[str, Any]] | None = None,
) -> Report:
    """The dossier of ``release`` (measured by ``session``); ``released_file`` is the file
    written, or a download's (name, bytes): its name and SHA-256 are recorded. ``documents``:
    the documents de-identified with it (per file name, kind, language, input and output
    SHA-256 and entity counts, as :meth:`anon_core.services.documents.DocumentsRun.evidence`
    gives). Refuses an approval of a failing release without a justification."""
    check_approval(verdict, signoff)
    config = session.config
    name = config.input_path.name if config.input_path is not None else None
    figures = dossier_figures(release, evidence, verdict, name, len(session.frame))
    if isinstance(released_file, tuple):
        figures["output"]["file"] = file_fingerprint(released_file[0], released_file[1])
    elif released_file is not None:
        figures["output"]["file"] = path_fingerprint(Path(released_file))
    if documents:
        figures["documents"] = plain([dict(d) for d in documents])
    details = {
        "timings": {"release_seconds": release.seconds, "release_cpu_seconds": release.cpu_seconds}
    }
    provided = {"signoff": check_signoff(signoff), "audit": check_audit(audit)}
    return assemble_report(
        config, figures, details, provided, signing_key=signing_key, generated_at=generated_at
    )
