"""De-identification of documents: DOCX, PDF, plain text and scanned images.

* **DOCX** (python-docx, MIT; optional extra ``documents``): every paragraph of the body, tables,
  headers, footers, footnotes, endnotes and comments, text boxes included, is analysed as one
  text; a found span is cut out of the runs (``w:t``) it covers and its replacement written into
  the run where it starts, so the rest of the formatting is kept. Author names in the core
  properties and in comments and tracked changes (``w:author``, ``w:initials``) are emptied.
  PNG, JPEG and TIFF images are read by OCR and written back boxed, without metadata.
* **PDF** (pypdf reads the text layer; fpdf2 writes a new PDF): the output is a new PDF, one
  page per input page. A page with a text layer becomes a plain text page of its de-identified
  text: layout, images and fonts are not kept, so nothing of the original content stream can
  leak. A page without a text layer (a scan) is rendered (pypdfium2), read by OCR
  (:mod:`anon_core.pii.ocr`) and written as an image with black boxes over the found words.
* **Images** (PNG, JPEG, TIFF, multi-page TIFF included): OCR, then black boxes over the found
  words; the output is an image of the same format without metadata.
* **TXT** (UTF-8): paragraphs separated by blank lines are analysed one by one.

The language of the document is detected once (:mod:`anon_core.pii.language`) and its
engine analyses every paragraph. Untrusted input is bounded: file size, uncompressed DOCX size
and member count, PDF pages and extracted characters (:data:`LIMITS`), image pixels and OCR
pages (:data:`anon_core.pii.ocr.LIMITS`).
"""

from __future__ import annotations

import io
import logging
import re
import shutil
import zipfile
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from anon_core.data.safe_write import atomic_write
from anon_core.errors import ConfigError
from anon_core.pii.language import INSTALL_HINT, detect_languages
from anon_core.pii.ocr import (
    IMAGE_FORMATS,
    OcrPage,
    boxes_for_spans,
    image_bytes,
    ocr_image,
    read_image_frames,
    redact,
    render_pdf_pages,
)
from anon_core.pii.ocr import (
    LIMITS as OCR_LIMITS,
)
from anon_core.pii.settings import TextConfig
from anon_core.pii.text import TextResult, deidentify_texts

log = logging.getLogger(__name__)

SUFFIXES = (".docx", ".pdf", ".txt", ".png", ".jpg", ".jpeg", ".tif", ".tiff")
#: Kinds of document by suffix (several suffixes name one image format).
_KINDS = {".jpg": "jpeg", ".tif": "tiff"}
LIMITS = {
    "file_bytes": 50 * 1024 * 1024,
    "docx_uncompressed_bytes": 200 * 1024 * 1024,
    "docx_members": 5000,
    "pdf_pages": 1000,
    "text_chars": 2_000_000,
}
_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
#: Parts of a DOCX whose text is de-identified (main document, headers, footers, notes, comments).
_DOCX_TEXT_PART = re.compile(
    r"/word/(document|header\d*|footer\d*|footnotes|endnotes|comments)\.xml$"
)
#: Elements holding text: visible text, text of tracked deletions, field codes (e.g. HYPERLINK
#: "mailto:...").
_TEXT_TAGS = (f"{_W}t", f"{_W}delText", f"{_W}instrText")
#: What an external link (hyperlink, linked file) whose address holds personal data becomes.
REMOVED_TARGET = "#removed"
#: A page with an image and fewer non-space characters of text than this is read as a scan (its
#: text is a page number or a stamp; the image holds the content).
SCAN_TEXT_CHARS = 40
_FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")


@dataclass
class DocumentSummary:
    """What was found and written: counts and types only, never a value."""

    kind: str
    language: str
    blocks: int
    blocks_changed: int
    entities: dict[str, int]
    notices: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "language": self.language,
            "blocks": self.blocks,
            "blocks_changed": self.blocks_changed,
            "entities": dict(sorted(self.entities.items())),
            "notices": list(self.notices),
        }


def document_kind(path: str | Path) -> str:
    suffix = Path(path).suffix.lower()
    if suffix not in SUFFIXES:
        raise ConfigError(
            f"{str(path)!r} is not a document this command reads: use a .docx, .pdf, .txt, "
            ".png, .jpg or .tif file."
        )
    return _KINDS.get(suffix, suffix[1:])


def _check_size(path: Path) -> None:
    if not path.is_file():
        raise ConfigError(f"{str(path)!r} does not exist or is not a regular file.")
    size = path.stat().st_size
    if size > LIMITS["file_bytes"]:
        raise ConfigError(
            f"{str(path)!r} has {size} bytes; documents up to {LIMITS['file_bytes']} bytes are read. "
            "Split it into smaller files."
        )


def _check_chars(total: int, name: str) -> None:
    if total > LIMITS["text_chars"]:
        raise ConfigError(
            f"{name!r} holds {total} characters of text; up to {LIMITS['text_chars']} are "
            "de-identified in one run. Split it into smaller files."
        )


# =============================================================================== analysis
def _analyse(
    blocks: list[str], cfg: TextConfig, secrets: Mapping[str, str] | None
) -> tuple[list[TextResult], str, list[str]]:
    """De-identify ``blocks`` with the engine of the document's language."""
    sample = "\n".join(b for b in blocks if b.strip())[:3000]
    langs, notice = detect_languages([sample])
    notices = [notice] if notice else []
    todo = [i for i, b in enumerate(blocks) if b.strip()]
    done = deidentify_texts(
        [blocks[i] for i in todo], cfg, secrets, languages=langs * len(todo), notices=notices
    )
    results = [TextResult(b, b, (), (), langs[0]) for b in blocks]
    for i, r in zip(todo, done, strict=True):
        results[i] = r
    return results, langs[0], notices


def _summary(
    kind: str, results: list[TextResult], language: str, notices: list[str]
) -> DocumentSummary:
    counts = Counter(s.entity for r in results for s in r.found)
    return DocumentSummary(
        kind=kind,
        language=language,
        blocks=sum(1 for r in results if r.original.strip()),
        blocks_changed=sum(1 for r in results if r.text != r.original),
        entities=dict(counts),
        notices=notices,
    )


def _edits(result: TextResult) -> list[tuple[int, int, str]]:
    """``(start, end, replacement)`` in the original text, from the anonymizer's output.

    The anonymizer replaces neighbouring spans of one type separated only by spaces with one
    replacement (presidio-anonymizer's ``merge_entities_with_spaces``), so such spans are
    grouped here the same way before each group is paired with its replacement."""
    groups: list[list[Any]] = []
    for f in sorted(result.found, key=lambda s: s.start):
        last = groups[-1] if groups else None
        if (
            last is not None
            and last[2] == f.entity
            and re.fullmatch(r" +", result.original[last[1] : f.start])
        ):
            last[1] = f.end
        else:
            groups.append([f.start, f.end, f.entity])
    replaced = sorted(result.replaced, key=lambda s: s.start)
    if len(groups) != len(replaced):  # cannot happen with non-overlapping spans; refuse to guess
        raise ConfigError(
            "internal: replacements do not match the spans found; nothing was written."
        )
    return [
        (g[0], g[1], result.text[r.start : r.end]) for g, r in zip(groups, replaced, strict=True)
    ]


# =============================================================================== plain text
def _deidentify_txt(
    data: bytes, name: str, cfg: TextConfig, secrets: Mapping[str, str] | None
) -> tuple[bytes, DocumentSummary]:
    raw = data
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ConfigError(f"{name!r} is not UTF-8 text: save it as UTF-8 and run again.") from None
    _check_chars(len(text), name)
    parts = re.split(r"(\r?\n[ \t\r]*\n)", text)  # paragraphs and the blank lines between them
    blocks = parts[0::2]
    results, language, notices = _analyse(blocks, cfg, secrets)
    out = list(parts)
    out[0::2] = [r.text for r in results]
    return "".join(out).encode("utf-8"), _summary("txt", results, language, notices)


# =============================================================================== DOCX
def _docx_module() -> Any:
    try:
        import docx
    except ImportError:
        raise ConfigError(f"Reading DOCX needs python-docx. Fix: {INSTALL_HINT}") from None
    return docx


def _check_docx_zip(data: bytes, name: str) -> None:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            infos = z.infolist()
    except zipfile.BadZipFile:
        raise ConfigError(f"{name!r} is not a DOCX file (not a ZIP archive).") from None
    if len(infos) > LIMITS["docx_members"]:
        raise ConfigError(
            f"{name!r} holds {len(infos)} parts; at most {LIMITS['docx_members']} are read."
        )
    total = sum(i.file_size for i in infos)
    if total > LIMITS["docx_uncompressed_bytes"]:
        raise ConfigError(
            f"{name!r} unpacks to {total} bytes; at most {LIMITS['docx_uncompressed_bytes']} are read."
        )


def _paragraph_pieces(paragraph: Any) -> tuple[str, list[tuple[int, int, Any]]]:
    """The paragraph's text and its ``w:t`` elements with their offsets (nested paragraphs of
    text boxes excluded: they are paragraphs of their own)."""
    text: list[str] = []
    pieces: list[tuple[int, int, Any]] = []
    pos = 0
    for el in paragraph.iter(*_TEXT_TAGS, f"{_W}tab", f"{_W}br", f"{_W}cr"):
        owner = el.getparent()
        while owner is not None and owner.tag != f"{_W}p":
            owner = owner.getparent()
        if owner is not paragraph:
            continue
        if el.tag in _TEXT_TAGS:
            value = el.text or ""
            pieces.append((pos, pos + len(value), el))
        else:
            value = "\t" if el.tag == f"{_W}tab" else "\n"
        text.append(value)
        pos += len(value)
    return "".join(text), pieces


def _apply_to_pieces(pieces: list[tuple[int, int, Any]], edits: list[tuple[int, int, str]]) -> None:
    """Cut each edited span out of the pieces it covers; its replacement goes into the first
    piece that ends after the span's start (the run where it starts)."""
    edits = sorted(edits)
    hosts = {}
    for k, (start, _end, _new) in enumerate(edits):
        hosts[k] = next((j for j, (_a, b, _el) in enumerate(pieces) if b > start), None)
    for j, (a, b, el) in enumerate(pieces):
        value = el.text or ""
        new, cursor = [], a
        for k, (start, end, replacement) in enumerate(edits):
            lo, hi = max(start, a), min(end, b)
            if hosts[k] != j and lo >= hi:
                continue
            lo = max(lo, cursor)
            new.append(value[cursor - a : lo - a])
            if hosts[k] == j:
                new.append(replacement)
            cursor = max(cursor, hi, lo)
        new.append(value[cursor - a :])
        joined = "".join(new)
        if joined != value:
            el.text = joined
            el.set("{http://www.w3.org/XML/1998/namespace}space", "preserve")


def _docx_parts(document: Any) -> list[Any]:
    parts = []
    for part in document.part.package.iter_parts():
        if _DOCX_TEXT_PART.search(str(part.partname)):
            parts.append(part)
    return parts


_DOCX_IMAGE_TYPES = {"image/png": "png", "image/jpeg": "jpeg", "image/tiff": "tiff"}


def _docx_images(document: Any, name: str) -> tuple[list[tuple[Any, str, list]], str | None]:
    """The document's PNG, JPEG and TIFF images read by OCR: (part, kind, [(frame, OcrPage)]),
    and a notice when they could not be read (tesseract missing) or some were of other formats."""
    parts = [
        (part, _DOCX_IMAGE_TYPES[part.content_type])
        for part in document.part.package.iter_parts()
        if part.content_type in _DOCX_IMAGE_TYPES
    ]
    others = sum(
        1
        for part in document.part.package.iter_parts()
        if part.content_type.startswith("image/") and part.content_type not in _DOCX_IMAGE_TYPES
    )
    other_note = (
        f" {others} image(s) of other formats (EMF, WMF, GIF, ...) were not read." if others else ""
    )
    if not parts:
        return [], other_note.strip() or None
    if shutil.which("tesseract") is None:
        return [], (
            f"The document's {len(parts)} image(s) were not read: OCR needs Debian's tesseract-ocr "
            "(apt-get install tesseract-ocr tesseract-ocr-eng). Text inside them is kept."
            + other_note
        )
    out, count = [], 0
    for part, kind in parts:
        frames = read_image_frames(
            io.BytesIO(part.blob), kind, label=f"image {part.partname} of {name!r}"
        )
        count += len(frames)
        if count > OCR_LIMITS["ocr_pages"]:
            raise ConfigError(
                f"{name!r} holds more than {OCR_LIMITS['ocr_pages']} images; at most that many are "
                "read by OCR."
            )
        out.append((part, kind, [(f, ocr_image(f, number=count)) for f in frames]))
    return out, (
        f"{len(parts)} image(s) in the document were read by OCR: found words are covered by black "
        "boxes; image metadata is removed." + other_note
    )


def _part_root(part: Any) -> Any:
    element = getattr(part, "_element", None)
    if element is not None:
        return element, False
    from docx.oxml.parser import parse_xml

    return parse_xml(part.blob), True


def _deidentify_docx(
    data: bytes, name: str, cfg: TextConfig, secrets: Mapping[str, str] | None
) -> tuple[bytes, DocumentSummary]:
    docx = _docx_module()
    _check_docx_zip(data, name)
    try:
        document = docx.Document(io.BytesIO(data))
    except Exception as exc:  # noqa: BLE001 - any parse failure: one line
        raise ConfigError(
            f"{name!r} cannot be read as a DOCX file ({type(exc).__name__})."
        ) from None
    roots = [(part, *_part_root(part)) for part in _docx_parts(document)]
    paragraphs = []
    for _part, root, _loose in roots:
        for p in root.iter(f"{_W}p"):
            text, pieces = _paragraph_pieces(p)
            paragraphs.append((text, pieces))
    links = [
        rel
        for part, _root, _loose in roots
        for rel in part.rels.values()
        if rel.is_external and isinstance(rel.target_ref, str)
    ]
    images, image_notice = _docx_images(document, name)
    ocr = [page for _part, _kind, frames in images for page in frames]
    blocks = [t for t, _ in paragraphs] + [rel.target_ref for rel in links]
    blocks += [b for _frame, page in ocr for b in page.blocks]
    _check_chars(sum(len(t) for t in blocks), name)
    results, language, notices = _analyse(blocks, cfg, secrets)
    if image_notice:
        notices.append(image_notice)
    boxes = _boxed([page for _f, page in ocr], results[len(paragraphs) + len(links) :])
    at = 0
    for part, kind, frames in images:  # redacted and without metadata
        redacted = [redact(f, b) for (f, _p), b in zip(frames, boxes[at:], strict=False)]
        part._blob = image_bytes(redacted, kind)
        at += len(frames)
    for (_text, pieces), result in zip(paragraphs, results, strict=False):
        if result.found:
            _apply_to_pieces(pieces, _edits(result))
    for rel, result in zip(
        links, results[len(paragraphs) : len(paragraphs) + len(links)], strict=True
    ):
        if result.found:  # a link address with personal data in it (mailto:, a profile URL)
            rel._target = REMOVED_TARGET
    for part, root, loose in roots:
        for el in root.iter():
            for attr in (f"{_W}author", f"{_W}initials"):
                if attr in el.attrib:
                    el.set(attr, "")
        if loose:
            from lxml import etree

            part._blob = etree.tostring(
                root, xml_declaration=True, encoding="UTF-8", standalone=True
            )
    props = document.core_properties
    props.author = ""
    props.last_modified_by = ""
    buffer = io.BytesIO()
    document.save(buffer)
    return _dated_1980(buffer.getvalue()), _summary("docx", results, language, notices)


def _dated_1980(data: bytes) -> bytes:
    """The ZIP with every part dated 1980-01-01: python-docx stamps the time of saving, so the
    same document and configuration gave other bytes (and hashes) from one second to the next."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            info.date_time = (1980, 1, 1, 0, 0, 0)
            dst.writestr(info, src.read(info))
    return out.getvalue()


# =============================================================================== PDF
def _has_image(page: Any) -> bool:
    """Whether the page draws an image of its own (an image XObject in its resources)."""
    resources = page.get("/Resources")
    xobjects = resources.get_object().get("/XObject") if resources is not None else None
    if xobjects is None:
        return False
    return any(
        obj.get_object().get("/Subtype") == "/Image" for obj in xobjects.get_object().values()
    )


def _pdf_pages(data: bytes, name: str) -> list[str]:
    """Each page's text layer; "" for a page to read by OCR (no text, or an image with fewer
    than :data:`SCAN_TEXT_CHARS` characters of text)."""
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            raise ConfigError(f"{name!r} is encrypted: save an unencrypted copy and run again.")
        count = len(reader.pages)
        if count > LIMITS["pdf_pages"]:
            raise ConfigError(
                f"{name!r} has {count} pages; at most {LIMITS['pdf_pages']} are read."
            )
        pages, total = [], 0
        for page in reader.pages:
            text = page.extract_text() or ""
            total += len(text)
            _check_chars(total, name)
            if len("".join(text.split())) < SCAN_TEXT_CHARS and _has_image(page):
                text = ""  # a scan with a stamp or page number as its only text: read by OCR
            pages.append(text)
    except ConfigError:
        raise
    except (PdfReadError, Exception) as exc:  # noqa: BLE001 - any parse failure: one line
        raise ConfigError(
            f"{name!r} cannot be read as a PDF file ({type(exc).__name__})."
        ) from None
    return pages


def _pdf_bytes(pages: list[str | tuple[Any, tuple[float, float]]]) -> bytes:
    """A new PDF: a text page for each string, a full-page image for each (image, size in pt)."""
    from fpdf import FPDF

    pdf = FPDF(format="A4")
    pdf.set_auto_page_break(auto=True, margin=15)
    if _FONT.is_file():
        pdf.add_font("body", "", str(_FONT))
        pdf.set_font("body", size=10)

        def clean(t: str) -> str:
            return t
    else:  # core font: Latin-1 only
        pdf.set_font("Helvetica", size=10)

        def clean(t: str) -> str:
            return t.encode("latin-1", "replace").decode("latin-1")

    pdf.set_creator("anon-core deidentify")
    for page in pages:
        if isinstance(page, str):
            pdf.add_page(format="A4")
            printable = "".join(c if c in "\n\t" or c.isprintable() else " " for c in page)
            pdf.multi_cell(0, 5, clean(printable.replace("\t", "    ")))
        else:
            image, (width, height) = page
            size = (width * 25.4 / 72, height * 25.4 / 72)  # points -> mm
            pdf.add_page(format=size)
            pdf.image(image, x=0, y=0, w=size[0], h=size[1])
    return bytes(pdf.output())


def _boxed(
    pages: list[OcrPage], results: list[TextResult]
) -> list[list[tuple[int, int, int, int]]]:
    """Per OCR page, the boxes of the words a replaced span touches (``results``: the pages'
    blocks in order)."""
    out, at = [], 0
    for page in pages:
        spans = [
            [(a, b) for a, b, new in _edits(r) if new != r.original[a:b]]
            for r in results[at : at + len(page.blocks)]
        ]
        out.append(boxes_for_spans(page, spans))
        at += len(page.blocks)
    return out


def _deidentify_pdf(
    data: bytes, name: str, cfg: TextConfig, secrets: Mapping[str, str] | None
) -> tuple[bytes, DocumentSummary]:
    texts = _pdf_pages(data, name)
    scanned = [i for i, t in enumerate(texts) if not t.strip()]
    rendered = render_pdf_pages(data, scanned, label=repr(name)) if scanned else []
    ocr = [
        ocr_image(image, number=i + 1) for i, (image, _size) in zip(scanned, rendered, strict=True)
    ]
    text_pages = [i for i, t in enumerate(texts) if t.strip()]
    blocks = [texts[i] for i in text_pages] + [b for page in ocr for b in page.blocks]
    _check_chars(sum(len(b) for b in blocks), name)
    results, language, notices = _analyse(blocks, cfg, secrets)
    out: list[str | tuple[Any, tuple[float, float]]] = list(texts)
    for i, result in zip(text_pages, results, strict=False):
        out[i] = result.text
    boxes = _boxed(ocr, results[len(text_pages) :])
    for i, (image, size), page_boxes in zip(scanned, rendered, boxes, strict=True):
        out[i] = (redact(image, page_boxes), size)
    if scanned:
        notices.append(
            f"{len(scanned)} page(s) without a text layer were read by OCR and written as images "
            "with boxes over the found words."
        )
    return _pdf_bytes(out), _summary("pdf", results, language, notices)


# =============================================================================== images
def _deidentify_image(
    data: bytes, name: str, cfg: TextConfig, secrets: Mapping[str, str] | None, kind: str
) -> tuple[bytes, DocumentSummary]:
    frames = read_image_frames(io.BytesIO(data), kind, label=repr(name))
    ocr = [ocr_image(frame, number=i + 1) for i, frame in enumerate(frames)]
    blocks = [b for page in ocr for b in page.blocks]
    _check_chars(sum(len(b) for b in blocks), name)
    results, language, notices = _analyse(blocks, cfg, secrets)
    redacted = [redact(f, b) for f, b in zip(frames, _boxed(ocr, results), strict=True)]
    notices.append("Read by OCR: found words are covered by black boxes; metadata is removed.")
    return image_bytes(redacted, kind), _summary(kind, results, language, notices)


# =============================================================================== entry points
def deidentify_bytes(
    data: bytes, name: str, cfg: TextConfig, secrets: Mapping[str, str] | None = None
) -> tuple[bytes, DocumentSummary]:
    """The de-identified document of ``data`` read as a file called ``name`` (its suffix gives
    the kind), in memory: nothing is written to disk (OCR pages go to tesseract on its stdin)."""
    kind = document_kind(name)
    if len(data) > LIMITS["file_bytes"]:
        raise ConfigError(
            f"{name!r} has {len(data)} bytes; documents up to {LIMITS['file_bytes']} bytes are "
            "read. Split it into smaller files."
        )
    if kind in IMAGE_FORMATS:
        out, summary = _deidentify_image(data, name, cfg, secrets, kind)
    else:
        handler = {"txt": _deidentify_txt, "docx": _deidentify_docx, "pdf": _deidentify_pdf}[kind]
        out, summary = handler(data, name, cfg, secrets)
    log.info(
        "de-identified a %s document: %d blocks, %d changed",
        kind,
        summary.blocks,
        summary.blocks_changed,
    )
    return out, summary


def deidentify_document(
    source: str | Path,
    target: str | Path,
    cfg: TextConfig,
    secrets: Mapping[str, str] | None = None,
) -> DocumentSummary:
    """Write the de-identified ``source`` to ``target`` atomically (same kind; PDF: a new PDF of
    text pages, and of redacted images for scanned pages; images: redacted, without metadata).

    The caller makes sure ``target`` is not ``source`` (:func:`anon_core.data.paths.check_run_outputs`).
    """
    source, target = Path(source), Path(target)
    kind = document_kind(source)
    if document_kind(target) != kind:
        raise ConfigError(f"the output must be a .{kind} file like the input, got {str(target)!r}.")
    _check_size(source)
    data, summary = deidentify_bytes(source.read_bytes(), str(source), cfg, secrets)
    atomic_write(target, data)
    return summary
