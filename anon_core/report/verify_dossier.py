"""Verifying a release dossier (any method): re-run what can be re-run, recompute what cannot.

* A bit-reproducible method (generalization, Mondrian, MDAV, noise, swapping, PRAM, MST, ...): the
  session releases again with the recorded method, parameters, seed and scope; the released
  table's SHA-256, every evidence figure and the verdict must be the same.
* A method that is not bit-reproducible (CTGAN): its dossier covers the released part only, so
  the released file itself is what was attacked. ``--released FILE`` is required: the file's
  bytes must hash as recorded, and the evidence recomputed from that file with the recorded seeds
  must give the same figures and verdict.
"""

from __future__ import annotations

import hashlib
import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from anon_core.config import ReleaseConfig
from anon_core.data.io import output_format
from anon_core.report.diff import check_released, diff_figures
from anon_core.report.dossier import dossier_figures
from anon_core.services.release import Rehearsal, Release, read_back
from anon_core.services.session import UTILITY_ROWS, Session


def _release_from_file(
    path: Path, recorded: Mapping[str, Any], session: Session, differences: list[str]
) -> Release | None:
    if output_format(path) not in ("csv", "tsv"):
        differences.append(
            f"released file: {path.name} is not CSV; a release that is not bit-reproducible is "
            "verified from its CSV file (write it with -o FILE.csv)"
        )
        return None
    data = path.read_bytes()
    if output_format(path) == "tsv":
        differences.append("released file: give the CSV release (the TSV cannot be read back here)")
        return None
    frame, config = session.prepared()
    from anon_core.methods.registry import drop_identifiers

    like = drop_identifiers(frame, config.roles)
    table = read_back(data, like, unescape=True)
    rel = recorded["release"]
    return Release(
        table=table,
        method=rel["method"],
        label=rel["label"],
        parameters=rel["parameters"],
        random_state=int(rel["random_state"]),
        guarantee=rel["guarantee"],
        synthetic=bool(rel["synthetic"]),
        reproducible=bool(rel["reproducible"]),
        input_sha256=session.input_sha256,
        rehearsal=Rehearsal(
            float(rel["rehearsal"]["control_fraction"]),
            int(rel["rehearsal"]["random_state"]),
            int(rel["rehearsal"]["released_part"]),
            int(rel["rehearsal"]["control"]),
            str(rel["rehearsal"]["scope"]),
        ),
        details=rel.get("details") or {},
    )


#: Largest de-identified document hashed by ``verify --documents`` (bytes read per member).
DOCUMENT_READ_BYTES = 2 * 1024**3


def _hash_stream(stream: Any) -> str | None:
    digest, read = hashlib.sha256(), 0
    while chunk := stream.read(1 << 20):
        read += len(chunk)
        if read > DOCUMENT_READ_BYTES:
            return None
        digest.update(chunk)
    return digest.hexdigest()


def check_documents(
    path: str | Path, recorded: Sequence[Mapping[str, Any]], differences: list[str]
) -> None:
    """Each recorded document's de-identified file, found by name in the ZIP the dashboard gave
    (``deidentified/NAME``) or in a folder, must hash as recorded."""
    path = Path(path)
    if not path.exists():
        differences.append(f"documents: {str(path)!r} does not exist")
        return
    if path.is_dir():
        opened = {d["name"]: path / d["name"] for d in recorded}
        for d in recorded:
            file = opened[d["name"]]
            if not file.is_file():
                differences.append(f"documents: {d['name']} is not in {path.name}")
                continue
            with file.open("rb") as stream:
                _compare_document(d, _hash_stream(stream), differences)
        return
    try:
        with zipfile.ZipFile(path) as z:
            members = {PurePosixPath(i.filename).name: i for i in z.infolist() if not i.is_dir()}
            for d in recorded:
                info = members.get(d["name"])
                if info is None:
                    differences.append(f"documents: {d['name']} is not in {path.name}")
                    continue
                with z.open(info) as stream:
                    _compare_document(d, _hash_stream(stream), differences)
    except (zipfile.BadZipFile, OSError) as exc:
        differences.append(
            f"documents: {path.name} is neither a folder nor a readable ZIP ({type(exc).__name__})"
        )


def _compare_document(
    recorded: Mapping[str, Any], digest: str | None, differences: list[str]
) -> None:
    if digest is None:
        differences.append(
            f"documents: {recorded['name']} is larger than {DOCUMENT_READ_BYTES} bytes; not read"
        )
    elif digest != recorded["output_sha256"]:
        differences.append(
            f"documents: {recorded['name']}: SHA-256 {digest}, the dossier records "
            f"{recorded['output_sha256']}"
        )


def verify_dossier(
    config: ReleaseConfig,
    figures: Mapping[str, Any],
    released_path: str | Path | None,
    differences: list[str],
    notes: list[str],
    documents_path: str | Path | None = None,
) -> str:
    """Re-check a dossier's figures; returns what was found of the released file. The documents
    it lists are checked against ``documents_path`` (their inputs are not at hand, so their
    counts are taken as recorded)."""
    documents = figures.get("documents") or []
    if documents and documents_path is not None:
        check_documents(documents_path, documents, differences)
    elif documents:
        notes.append(
            f"the {len(documents)} de-identified document(s) were NOT checked: give "
            "--documents ZIP|FOLDER to check their SHA-256"
        )
    elif documents_path is not None:
        differences.append("documents: the dossier lists no documents to check")
    session = Session(config)
    rel = figures["release"]
    options = (figures.get("evidence") or {}).get("options") or {}
    recorded_file = (figures.get("output") or {}).get("file")
    release_status = "not checked"
    if released_path is not None:
        release_status = check_released(Path(released_path), figures, differences)
        if release_status != "matches":
            return release_status
    if session.input_sha256 != rel["input_sha256"]:
        differences.append(
            f"input: its SHA-256 is {session.input_sha256}, the dossier records "
            f"{rel['input_sha256']}: the input file changed"
        )
    if rel["reproducible"]:
        release = session.release(rel["method"], scope=rel["rehearsal"]["scope"])
        if release.output_sha256 != rel["output_sha256"]:
            differences.append(
                "re-run: the released table differs from the dossier's (SHA-256 "
                f"{release.output_sha256} instead of {rel['output_sha256']})"
            )
    else:
        if released_path is None:
            differences.append(
                f"released file: {rel['method']} is not bit-reproducible, so its dossier is "
                "verified from the released file: give --released FILE"
            )
            return release_status
        release = _release_from_file(Path(released_path), figures, session, differences)
        if release is None:
            return release_status
        if release.output_sha256 != rel["output_sha256"]:
            differences.append(
                "released file: read back, its table does not hash as the dossier records "
                f"({release.output_sha256} instead of {rel['output_sha256']})"
            )
        notes.append(
            f"{rel['method']} is not bit-reproducible: the evidence was recomputed from the "
            "released file with the recorded seeds"
        )
    evidence = session.evidence(
        release,
        n_attacks=options.get("n_attacks"),
        utility=bool(options.get("utility", True)),
        utility_models=tuple(options.get("utility_models") or ("logistic_regression",)),
        target=options.get("target"),
        dp_audit=bool(options.get("dp_audit", False)),
        shadow=bool(options.get("shadow", False)),
        exposure=bool(options.get("exposure", False)),
        utility_rows=int(options.get("utility_rows") or UTILITY_ROWS),
    )
    verdict = session.verdict(evidence)
    name = (figures.get("input") or {}).get("file", {}).get("name")
    again = dossier_figures(release, evidence, verdict, name, len(session.frame))
    if recorded_file is not None:
        again["output"]["file"] = recorded_file
    if "documents" in figures:
        again["documents"] = figures["documents"]
    from anon_core.services.shadow_evidence import keep_unreproducible_shadow

    unchecked = keep_unreproducible_shadow(figures, again)
    if unchecked:
        notes.append(unchecked)
    diff_figures(dict(figures), again, "", differences)
    return release_status
