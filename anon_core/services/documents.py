"""Documents as the dashboard de-identifies them: several uploaded files, in memory, one ZIP.

Each file goes through the engine of ``anon-core deidentify``
(:func:`anon_core.pii.documents.deidentify_bytes`): the same text section, the same language
routing, the same DOCX, PDF, text and OCR handling. Nothing of a document is written to disk:
the upload is read from memory, OCR pages go to tesseract on its standard input, and the
de-identified files are kept in memory until they are downloaded.

What is kept of each file (:class:`DocumentRecord`) is what the log, the page and the dossier
show: kind, language, whether names were looked for by a model of that language, entity types
and counts, notices, and the SHA-256 of the uploaded and of the de-identified bytes (the exact
bytes in the ZIP). Never a found value.

Several files are de-identified side by side: each file is one task for the calling process and
the PII worker processes (:func:`anon_core.pii.workers.run_tasks`), so a folder of many small
files keeps every core busy. A file large against the batch (more than a share of
``1 / (2 x processes)`` of its bytes) is analysed first, on its own, in chunks across the
processes. The output of each file, its hashes and counts are the same as one file at a time.

Uploads are bounded (:func:`upload_limits`): per file the engine's own limit
(:data:`anon_core.pii.documents.LIMITS` ``file_bytes``, 50 MB), per batch
:data:`BATCH_FILES` files and :data:`BATCH_MB` MB in all (the environment variable
``ANON_DOCUMENTS_BATCH_MB`` changes the latter).
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import io
import json
import logging
import os
import re
import zipfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Any

from anon_core.data.io import escape_formula_text
from anon_core.data.safe_write import atomic_write
from anon_core.errors import AnonError, ConfigError
from anon_core.pii.documents import LIMITS, SUFFIXES, deidentify_bytes, document_kind
from anon_core.pii.engine import LANGUAGE, LANGUAGE_MODELS
from anon_core.pii.settings import TextConfig, validate_text_section
from anon_core.pii.workers import run_tasks, worker_count

log = logging.getLogger(__name__)

#: At most this many files in one batch.
BATCH_FILES = 50
#: At most this many megabytes (10**6 bytes) of uploads in one batch, unless
#: ``ANON_DOCUMENTS_BATCH_MB`` says otherwise.
BATCH_MB = 100
BATCH_ENV = "ANON_DOCUMENTS_BATCH_MB"
#: The placeholder column a document's text section is validated with (as the CLI does).
DOCUMENT_COLUMN = "document"
#: Folder of the de-identified files inside the ZIP, and the logs beside it.
ZIP_FOLDER = "deidentified"
LOG_JSON, LOG_CSV = "deidentification-log.json", "deidentification-log.csv"
LOG_SCHEMA = "anon-core/documents-log/1"
NO_NAME_MODEL = (
    "names were not looked for by a model of this language (pattern and title recognizers only, "
    "or a model of another language): names without a title may be left"
)


@dataclass(frozen=True)
class UploadLimits:
    file_bytes: int
    batch_bytes: int
    batch_files: int

    def sentence(self) -> str:
        return (
            f"Up to {self.batch_files} files and {self.batch_bytes / 1e6:,.0f} MB per batch, "
            f"{self.file_bytes / 1e6:,.0f} MB per file."
        )


def upload_limits(environ: Mapping[str, str] | None = None) -> UploadLimits:
    """The bounds of one batch; ``ANON_DOCUMENTS_BATCH_MB`` (a positive whole number of MB)
    overrides :data:`BATCH_MB`."""
    env = os.environ if environ is None else environ
    raw = env.get(BATCH_ENV, "").strip()
    mb = BATCH_MB
    if raw:
        if not raw.isdigit() or int(raw) <= 0:
            raise ConfigError(
                f"{BATCH_ENV}={raw!r}: give a positive whole number of megabytes, e.g. 200."
            )
        mb = int(raw)
    return UploadLimits(int(LIMITS["file_bytes"]), mb * 1_000_000, BATCH_FILES)


def check_batch(files: Sequence[tuple[str, bytes]], limits: UploadLimits) -> None:
    """One message when the batch is too large, or a file is not a kind the engine reads."""
    if not files:
        raise ConfigError("No document given: upload at least one file.")
    if len(files) > limits.batch_files:
        raise ConfigError(
            f"{len(files)} files were given; at most {limits.batch_files} are de-identified in "
            "one batch. Upload them in several batches."
        )
    total = sum(len(data) for _name, data in files)
    if total > limits.batch_bytes:
        raise ConfigError(
            f"The files hold {total / 1e6:,.1f} MB; at most {limits.batch_bytes / 1e6:,.0f} MB "
            f"are de-identified in one batch. Upload them in several batches, or set {BATCH_ENV}."
        )
    for name, data in files:
        document_kind(name)
        if len(data) > limits.file_bytes:
            raise ConfigError(
                f"{name!r} has {len(data) / 1e6:,.1f} MB; documents up to "
                f"{limits.file_bytes / 1e6:,.0f} MB are read. Split it into smaller files."
            )


def text_config(section: Mapping[str, Any] | None) -> TextConfig:
    """The validated ``text`` section for documents (``columns`` not needed); defaults without."""
    section = dict(section or {})
    section.pop("columns", None)
    return validate_text_section({"columns": [DOCUMENT_COLUMN], **section})


def name_model(language: str) -> str | None:
    """The spaCy pipeline that looks for names in ``language``, or None when that language has
    no model of its own installed (the English model or patterns only stand in)."""
    model = LANGUAGE_MODELS.get(language)
    if model is None:
        return None
    if language != LANGUAGE:
        import spacy

        if not spacy.util.is_package(model):
            return None
    return model


@dataclass(frozen=True)
class DocumentRecord:
    """One de-identified file: counts, types and hashes, never a value."""

    name: str  # the name in the ZIP (the upload's own, or document-001.docx when numbered)
    kind: str
    language: str
    name_model: str | None
    input_sha256: str
    output_sha256: str
    input_bytes: int
    output_bytes: int
    entities: dict[str, int]
    notices: tuple[str, ...] = ()

    @property
    def names_by_model(self) -> bool:
        return self.name_model is not None

    @property
    def total(self) -> int:
        return sum(self.entities.values())

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "language": self.language,
            "name_model": self.name_model,
            "input_sha256": self.input_sha256,
            "output_sha256": self.output_sha256,
            "input_bytes": self.input_bytes,
            "output_bytes": self.output_bytes,
            "entities": dict(sorted(self.entities.items())),
            "notices": list(self.notices),
        }


@dataclass
class DocumentsRun:
    """The files of one batch: records with their de-identified bytes, and the files refused."""

    records: list[DocumentRecord] = field(default_factory=list)
    outputs: dict[str, bytes] = field(default_factory=dict)  # output_name -> bytes
    failed: list[tuple[str, str]] = field(default_factory=list)  # (name, one-line message)

    def entity_totals(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for r in self.records:
            for entity, n in r.entities.items():
                out[entity] = out.get(entity, 0) + n
        return dict(sorted(out.items()))

    def evidence(self) -> list[dict[str, Any]]:
        """Per file, what the dossier records: name, kind, language, hashes and counts."""
        return [
            {
                "name": r.name,
                "kind": r.kind,
                "language": r.language,
                "names_by_model": r.names_by_model,
                "input_sha256": r.input_sha256,
                "output_sha256": r.output_sha256,
                "entities": dict(sorted(r.entities.items())),
            }
            for r in self.records
        ]


def _safe_name(name: str, taken: set[str]) -> str:
    """A plain file name (no folder, no control characters), unique in the batch."""
    base = PurePath(str(name).replace("\\", "/")).name
    base = re.sub(r"[\x00-\x1f\x7f]", "", base).strip() or "document"
    stem, dot, suffix = base.rpartition(".")
    candidate, n = base, 1
    while candidate.lower() in taken:
        n += 1
        candidate = f"{stem} ({n}){dot}{suffix}" if dot else f"{base} ({n})"
    taken.add(candidate.lower())
    return candidate


def output_names(names: Sequence[str], numbered: bool = False) -> list[str]:
    """The names the de-identified files get in the ZIP: the upload's own name, made unique, or
    ``document-001.docx``, ... when ``numbered`` (file names can hold personal data)."""
    taken: set[str] = set()
    out = []
    for i, name in enumerate(names, start=1):
        suffix = PurePath(str(name)).suffix.lower()
        out.append(_safe_name(f"document-{i:03d}{suffix}" if numbered else name, taken))
    return out


def deidentify_uploads(
    files: Sequence[tuple[str, bytes]],
    section: Mapping[str, Any] | None = None,
    *,
    secrets: Mapping[str, str] | None = None,
    numbered: bool = False,
    limits: UploadLimits | None = None,
    progress: Callable[[float, str], None] | None = None,
) -> DocumentsRun:
    """De-identify each ``(name, bytes)`` in memory with the ``text`` section ``section``.

    A file the engine refuses (not UTF-8, broken DOCX, too many pages, ...) is listed in
    ``failed`` with its one-line message and the others go on. ``progress(fraction, message)``
    is called before each file and at the end (a caller stops the batch by raising from it).
    """
    limits = limits or upload_limits()
    check_batch(files, limits)
    cfg = text_config(section)
    run = DocumentsRun()
    names = output_names([n for n, _ in files], numbered)
    tasks = [
        (data, out_name, cfg, secrets) for (_name, data), out_name in zip(files, names, strict=True)
    ]
    for out_name, written in _run_batch(run, tasks, [len(d) for _n, d in files], progress):
        run.outputs[out_name] = written
    log.info("de-identified %d of %d uploaded documents", len(run.records), len(files))
    return run


def deidentify_one(
    source: bytes | str, name: str, cfg: TextConfig, secrets: Mapping[str, str] | None
) -> tuple[bytes, DocumentRecord]:
    """One document (its bytes, or the path of its file) de-identified, with its record.

    A task of :func:`anon_core.pii.workers.run_tasks`: it may run in a worker process."""
    if isinstance(source, str):  # a file: refused before it is read when too large
        size = Path(source).stat().st_size
        if size > LIMITS["file_bytes"]:
            raise ConfigError(
                f"{name!r} has {size} bytes; documents up to {LIMITS['file_bytes']} bytes are "
                "read. Split it into smaller files."
            )
        data = Path(source).read_bytes()
    else:
        data = source
    written, summary = deidentify_bytes(data, name, cfg, secrets)
    record = DocumentRecord(
        name=name,
        kind=summary.kind,
        language=summary.language,
        name_model=name_model(summary.language),
        input_sha256=hashlib.sha256(data).hexdigest(),
        output_sha256=hashlib.sha256(written).hexdigest(),
        input_bytes=len(data),
        output_bytes=len(written),
        entities=dict(summary.entities),
        notices=tuple(summary.notices),
    )
    return written, record


def large_files(sizes: Sequence[int]) -> list[bool]:
    """Files worth splitting across the processes: more than ``1 / (2 x processes)`` of the
    batch (a whole-file task that size would leave the other processes idle at the end)."""
    processes = worker_count() + 1
    total = sum(sizes)
    return [len(sizes) < 2 or size * 2 * processes > total for size in sizes]


def _run_batch(
    run: DocumentsRun,
    tasks: Sequence[tuple],
    sizes: Sequence[int],
    progress: Callable[[float, str], None] | None,
) -> Iterator[tuple[str, bytes]]:
    """Run :func:`deidentify_one` on every task; yields ``(name, de-identified bytes)`` as each
    file ends and fills ``run`` (records and failures in the order of ``tasks``)."""
    outcomes: list[Any] = [None] * len(tasks)
    large = large_files(sizes)
    done = 0

    def finished(i: int, outcome: Any) -> tuple[str, bytes] | None:
        nonlocal done
        outcomes[i] = outcome
        done += 1
        if progress is not None:
            progress(done / len(tasks), f"{done} of {len(tasks)} file(s): {tasks[i][1]}")
        if isinstance(outcome, BaseException):
            if not isinstance(outcome, AnonError):
                raise outcome
            return None
        return tasks[i][1], outcome[0]

    if progress is not None:
        progress(0.0, f"{len(tasks)} file(s) to de-identify")
    for i in [i for i in range(len(tasks)) if large[i]]:  # alone, in chunks across processes
        try:
            outcome: Any = deidentify_one(*tasks[i])
        except AnonError as exc:
            outcome = exc
        written = finished(i, outcome)
        if written is not None:
            yield written
    small = [i for i in range(len(tasks)) if not large[i]]
    with contextlib.closing(
        run_tasks(deidentify_one, [tasks[i] for i in small], sizes=[sizes[i] for i in small])
    ) as results:
        for k, outcome in results:
            written = finished(small[k], outcome)
            if written is not None:
                yield written
    for (_source, name, _cfg, _secrets), outcome in zip(tasks, outcomes, strict=True):
        if isinstance(outcome, AnonError):
            run.failed.append((name, str(outcome)))
        else:
            run.records.append(outcome[1])
    if progress is not None:
        progress(1.0, f"{len(run.records)} of {len(tasks)} file(s) de-identified")


# ----------------------------------------------------------------------------- a folder
#: At most this many documents in one folder run.
FOLDER_FILES = 10_000


def folder_documents(source: Path) -> tuple[list[Path], int]:
    """The documents under ``source`` (every sub-folder; regular files with a suffix the engine
    reads, symbolic links not followed), sorted; and how many other files were skipped."""
    found, skipped = [], 0
    for path in sorted(source.rglob("*")):
        if path.is_symlink() or not path.is_file():
            skipped += path.is_symlink()
            continue
        if path.suffix.lower() in SUFFIXES:
            found.append(path)
        else:
            skipped += 1
        if len(found) > FOLDER_FILES:
            raise ConfigError(
                f"{str(source)!r} holds more than {FOLDER_FILES} documents; de-identify its "
                "sub-folders one by one."
            )
    return found, skipped


def check_folders(source: Path, target: Path) -> None:
    """One message unless ``source`` is a folder and ``target`` a new or empty folder apart from
    it (an output never lands on an input)."""
    if not source.is_dir():
        raise ConfigError(f"{str(source)!r} is not a folder: give the folder of documents.")
    src, dst = source.resolve(), target.resolve()
    if dst == src or src in dst.parents or dst in src.parents:
        raise ConfigError(
            f"the output folder {str(target)!r} must lie outside the input folder {str(source)!r} "
            "(and the input outside the output): choose another output folder."
        )
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise ConfigError(
            f"{str(target)!r} exists and is not an empty folder: give a new or empty folder, "
            "so that no file in it is replaced."
        )


def deidentify_folder(
    source: str | Path,
    target: str | Path,
    section: Mapping[str, Any] | None = None,
    *,
    secrets: Mapping[str, str] | None = None,
    numbered: bool = False,
    progress: Callable[[float, str], None] | None = None,
) -> DocumentsRun:
    """De-identify every document under ``source`` into the new or empty folder ``target``
    (the same relative paths, or numbered names), files side by side in the PII worker
    processes, each written atomically as it ends; then the two logs (:data:`LOG_JSON`,
    :data:`LOG_CSV`) beside them. A file the engine refuses is listed in ``failed`` and the
    others go on. The run's ``outputs`` stay empty (the files are on disk)."""
    source, target = Path(source), Path(target)
    check_folders(source, target)
    paths, skipped = folder_documents(source)
    if not paths:
        raise ConfigError(
            f"{str(source)!r} holds no document (.docx, .pdf, .txt, .png, .jpg, .tif) to "
            "de-identify."
        )
    cfg = text_config(section)
    relative = [p.relative_to(source).as_posix() for p in paths]
    names = output_names(relative, numbered=True) if numbered else relative
    target.mkdir(parents=True, exist_ok=True)
    run = DocumentsRun()
    tasks = [(str(path), name, cfg, secrets) for path, name in zip(paths, names, strict=True)]
    sizes = [path.stat().st_size for path in paths]
    for name, written in _run_batch(run, tasks, sizes, progress):
        out = target / name
        out.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(out, written)
    atomic_write(target / LOG_JSON, log_json(run))
    atomic_write(target / LOG_CSV, log_csv(run))
    if skipped:
        log.info("%d file(s) of other kinds were skipped", skipped)
    return run


# ----------------------------------------------------------------------------- logs and ZIP
def log_json(run: DocumentsRun) -> bytes:
    """The batch's log: per file kind, language, hashes, entity counts and notices."""
    body = {
        "schema": LOG_SCHEMA,
        "files": [r.to_dict() for r in run.records],
        "failed": [{"name": n, "error": e} for n, e in run.failed],
        "entities": run.entity_totals(),
    }
    return (json.dumps(body, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


CSV_COLUMNS = (
    "name",
    "kind",
    "language",
    "names_by_model",
    "entity",
    "count",
    "input_sha256",
    "output_sha256",
    "error",
)


def log_csv(run: DocumentsRun) -> bytes:
    """One row per file and entity type (a file with nothing found has one row, entity empty);
    text cells that a spreadsheet would read as a formula get a leading apostrophe."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for r in run.records:
        rows = sorted(r.entities.items()) or [("", 0)]
        for entity, n in rows:
            writer.writerow(
                [
                    escape_formula_text(r.name),
                    r.kind,
                    r.language,
                    "yes" if r.names_by_model else "no",
                    entity,
                    n,
                    r.input_sha256,
                    r.output_sha256,
                    "",
                ]
            )
    for name, error in run.failed:
        writer.writerow([escape_formula_text(name), "", "", "", "", "", "", "", error])
    return buffer.getvalue().encode("utf-8")


def documents_zip(run: DocumentsRun) -> bytes:
    """One ZIP: the de-identified files under ``deidentified/`` and the two logs beside them.
    Fixed timestamps, so the same batch gives the same bytes."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as z:
        members = [(f"{ZIP_FOLDER}/{n}", b) for n, b in run.outputs.items()]
        members += [(LOG_JSON, log_json(run)), (LOG_CSV, log_csv(run))]
        for name, data in members:
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            z.writestr(info, data)
    return buffer.getvalue()


def accepted_suffixes() -> list[str]:
    """File suffixes the uploader accepts (without the dot)."""
    return [s[1:] for s in SUFFIXES]
