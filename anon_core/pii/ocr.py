"""OCR of scanned images and image-only PDF pages with Debian's ``tesseract-ocr``.

Tesseract (Apache-2.0) is called as a program, never through a shell: the page goes to its
standard input as PNG bytes and the recognised words with their boxes come back on its standard
output (TSV), so no image or text of the document is ever written to disk. Each call has a time
limit (:data:`LIMITS`), runs with one OpenMP thread, and sees only ``PATH`` (and
``TESSDATA_PREFIX`` when set) of the environment.

A page's words are grouped as tesseract groups them: the words of a paragraph make one text
(lines joined by a space, so a name broken over two lines stays one name). After analysis a
found span is drawn over as a black box covering every word it touches
(:func:`boxes_for_spans`, :func:`redact`).

Untrusted images are bounded before their pixels are decoded: format (PNG, JPEG, TIFF), pixel
count, number of TIFF frames. A PDF page is rendered at 300 dpi, lower for a page so large that
300 dpi would exceed the pixel bound (pypdfium2: PDFium's renderer, Apache-2.0/BSD-3-Clause).
Written images carry no metadata (EXIF, text chunks, ICC profile): their pixels are copied into
a fresh image before saving.
"""

from __future__ import annotations

import csv
import io
import logging
import math
import os
import shutil
import subprocess
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from anon_core.errors import ConfigError

log = logging.getLogger(__name__)

INSTALL_TESSERACT = (
    "install Debian's tesseract-ocr with its language data, e.g. "
    "'apt-get install tesseract-ocr tesseract-ocr-eng tesseract-ocr-fra tesseract-ocr-deu'"
)
LIMITS = {
    "image_pixels": 60_000_000,  # per image or TIFF frame (e.g. 7,750 x 7,750)
    "render_pixels": 20_000_000,  # a rendered PDF page (A4 at 300 dpi is 8.7 million)
    "ocr_pages": 200,  # images, TIFF frames or scanned PDF pages per document
    "ocr_seconds": 120,  # tesseract's time per page
}
#: Tesseract languages used when their data is installed (the first one present is required).
OCR_LANGUAGES = ("eng", "fra", "deu", "spa", "ita", "nld")
RENDER_DPI = 300
#: Extra pixels around each redaction box (OCR boxes are tight around the ink).
BOX_PADDING = 4
IMAGE_FORMATS = {"png": "PNG", "jpeg": "JPEG", "tiff": "TIFF"}


@dataclass(frozen=True)
class Word:
    """One recognised word: where it sits in its block's text and on the page."""

    block: int
    start: int
    end: int
    box: tuple[int, int, int, int]  # left, top, right, bottom in pixels


@dataclass
class OcrPage:
    """The recognised text of one page, as blocks (paragraphs), with every word's box."""

    blocks: list[str] = field(default_factory=list)
    words: list[Word] = field(default_factory=list)


# =============================================================================== tesseract
def tesseract_binary() -> str:
    path = shutil.which("tesseract")
    if path is None:
        raise ConfigError(
            f"OCR needs the tesseract program, which is not installed: {INSTALL_TESSERACT}."
        )
    return path


def _environment() -> dict[str, str]:
    env = {"PATH": os.environ.get("PATH", ""), "OMP_THREAD_LIMIT": "1", "LC_ALL": "C"}
    if "TESSDATA_PREFIX" in os.environ:
        env["TESSDATA_PREFIX"] = os.environ["TESSDATA_PREFIX"]
    return env


@lru_cache(maxsize=4)
def _installed_languages(binary: str) -> tuple[str, ...]:
    try:
        done = subprocess.run(  # noqa: S603 - fixed argument list, no shell
            [binary, "--list-langs"],
            capture_output=True,
            timeout=30,
            env=_environment(),
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return ()
    lines = (done.stdout + done.stderr).decode("utf-8", "replace").splitlines()
    return tuple(line.strip() for line in lines if line.strip() and " " not in line.strip())


def ocr_languages() -> str:
    """The ``-l`` argument: every language of :data:`OCR_LANGUAGES` whose data is installed."""
    installed = set(_installed_languages(tesseract_binary()))
    found = [lang for lang in OCR_LANGUAGES if lang in installed]
    if not found:
        raise ConfigError(
            "tesseract is installed without language data for English, French or German: "
            f"{INSTALL_TESSERACT}."
        )
    return "+".join(found)


def parse_tsv(raw: bytes) -> OcrPage:
    """Tesseract's TSV (level 5 rows are words) -> blocks of text with word offsets."""
    page = OcrPage()
    rows = csv.reader(
        io.StringIO(raw.decode("utf-8", "replace")), delimiter="\t", quoting=csv.QUOTE_NONE
    )
    header = next(rows, None)
    if header is None or header[:1] != ["level"]:
        raise ConfigError("tesseract returned output this program cannot read (not TSV).")
    current: tuple[str, str, str] | None = None
    parts: list[str] = []
    for row in rows:
        if len(row) < 12 or row[0] != "5":
            continue
        text = row[11].strip()
        if not text:
            continue
        key = (row[1], row[2], row[3])  # page, block, paragraph
        if key != current:
            if parts:
                page.blocks.append("".join(parts))
            current, parts = key, []
        elif parts:
            parts.append(" ")  # between words, and between the lines of a paragraph
        start = sum(len(p) for p in parts)
        parts.append(text)
        left, top, width, height = (int(v) for v in row[6:10])
        page.words.append(
            Word(
                len(page.blocks), start, start + len(text), (left, top, left + width, top + height)
            )
        )
    if parts:
        page.blocks.append("".join(parts))
    return page


def ocr_image(image: Any, *, number: int = 1) -> OcrPage:
    """Recognise the words of a PIL image (page ``number`` is named in errors)."""
    binary = tesseract_binary()
    languages = ocr_languages()
    if image.width * image.height > LIMITS["image_pixels"]:
        raise ConfigError(
            f"page {number} has {image.width} x {image.height} pixels; at most "
            f"{LIMITS['image_pixels']} are read. Scan at a lower resolution."
        )
    buffer = io.BytesIO()
    image.convert("L").save(buffer, format="PNG")
    try:
        done = subprocess.run(  # noqa: S603 - fixed argument list, no shell
            [binary, "stdin", "stdout", "-l", languages, "tsv"],
            input=buffer.getvalue(),
            capture_output=True,
            timeout=LIMITS["ocr_seconds"],
            env=_environment(),
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise ConfigError(
            f"OCR of page {number} took longer than {LIMITS['ocr_seconds']} s and was stopped; "
            "split the document or scan at a lower resolution."
        ) from None
    except OSError as exc:
        raise ConfigError(
            f"tesseract could not be started ({exc.strerror}): {INSTALL_TESSERACT}."
        ) from None
    if done.returncode != 0:
        raise ConfigError(
            f"tesseract failed on page {number} (exit code {done.returncode}); "
            "check that the file is a readable image."
        )
    return parse_tsv(done.stdout)


# =============================================================================== boxes
def boxes_for_spans(
    page: OcrPage, spans_per_block: Sequence[Sequence[tuple[int, int]]]
) -> list[tuple[int, int, int, int]]:
    """The boxes of every word that overlaps a span (``spans_per_block[b]``: (start, end) in block b)."""
    boxes = []
    for word in page.words:
        for start, end in spans_per_block[word.block]:
            if word.start < end and start < word.end:
                boxes.append(word.box)
                break
    return boxes


def redact(image: Any, boxes: Sequence[tuple[int, int, int, int]]) -> Any:
    """A copy of ``image`` (RGB or L) with a filled black rectangle over each box."""
    from PIL import ImageDraw

    out = image.convert("RGB" if image.mode not in ("L", "1") else "L").copy()
    draw = ImageDraw.Draw(out)
    for left, top, right, bottom in boxes:
        draw.rectangle(
            (
                max(0, left - BOX_PADDING),
                max(0, top - BOX_PADDING),
                min(out.width - 1, right + BOX_PADDING),
                min(out.height - 1, bottom + BOX_PADDING),
            ),
            fill=0,
        )
    return out


# =============================================================================== images in and out
def _pil() -> Any:
    try:
        from PIL import Image
    except ImportError:  # pragma: no cover - fpdf2, a core dependency, requires Pillow
        raise ConfigError("Reading images needs Pillow: pip install pillow.") from None
    return Image


def read_image_frames(path: Path | io.BytesIO, kind: str, label: str | None = None) -> list[Any]:
    """The frames of an image file or buffer (several for a multi-page TIFF), upright, pixels
    bounded; ``label`` names it in messages (default: the path)."""
    name = label if label is not None else repr(str(path))
    image_mod = _pil()
    from PIL import ImageOps, UnidentifiedImageError

    try:
        with warnings.catch_warnings():  # Pillow's bomb warning: our own pixel bound decides
            warnings.simplefilter("ignore", image_mod.DecompressionBombWarning)
            im = image_mod.open(path)
        with im:
            if im.format != IMAGE_FORMATS[kind]:
                raise ConfigError(
                    f"{name} holds a {im.format or 'unknown'} image, not {IMAGE_FORMATS[kind]}: "
                    "give it the right suffix."
                )
            frames = getattr(im, "n_frames", 1)
            if frames > LIMITS["ocr_pages"]:
                raise ConfigError(
                    f"{name} has {frames} pages; at most {LIMITS['ocr_pages']} are read by OCR."
                )
            out = []
            for index in range(frames):
                im.seek(index)
                if im.width * im.height > LIMITS["image_pixels"]:
                    raise ConfigError(
                        f"{name} has {im.width} x {im.height} pixels; at most "
                        f"{LIMITS['image_pixels']} are read. Scan at a lower resolution."
                    )
                frame = ImageOps.exif_transpose(im.copy())
                out.append(frame.convert("RGB" if frame.mode not in ("L", "1") else "L"))
            return out
    except ConfigError:
        raise
    except (UnidentifiedImageError, OSError, ValueError, image_mod.DecompressionBombError) as exc:
        raise ConfigError(f"{name} cannot be read as an image ({type(exc).__name__}).") from None


def image_bytes(frames: Sequence[Any], kind: str) -> bytes:
    """Encode ``frames`` as ``kind`` without any metadata (fresh images, no EXIF, no ICC)."""
    image_mod = _pil()
    clean = [image_mod.frombytes(f.mode, f.size, f.tobytes()) for f in frames]
    buffer = io.BytesIO()
    options: dict[str, Any] = {"format": IMAGE_FORMATS[kind]}
    if kind == "jpeg":
        options["quality"] = 90
    if kind == "tiff":
        options["compression"] = "tiff_deflate"
    if len(clean) > 1:
        options.update(save_all=True, append_images=clean[1:])
    clean[0].save(buffer, **options)
    return buffer.getvalue()


def render_pdf_pages(
    path: Path | bytes, indexes: Sequence[int], label: str | None = None
) -> list[tuple[Any, tuple[float, float]]]:
    """Render the given pages (0-based) of a PDF file or of its bytes to greyscale images; each
    with its size in points. ``label`` names it in messages (default: the path)."""
    name = label if label is not None else repr(str(path))
    if len(indexes) > LIMITS["ocr_pages"]:
        raise ConfigError(
            f"{name} has {len(indexes)} pages without text; at most {LIMITS['ocr_pages']} "
            "are read by OCR. Split the document."
        )
    try:
        import pypdfium2 as pdfium
    except ImportError:
        raise ConfigError(
            "Reading a scanned PDF needs pypdfium2. Fix: pip install 'anon-core[documents]'"
        ) from None
    out = []
    try:
        pdf = pdfium.PdfDocument(path if isinstance(path, bytes) else str(path))
    except Exception as exc:  # noqa: BLE001 - any parse failure: one line
        raise ConfigError(
            f"{name} cannot be rendered as a PDF file ({type(exc).__name__})."
        ) from None
    try:
        for index in indexes:
            page = pdf[index]
            try:
                width, height = page.get_size()
                scale = RENDER_DPI / 72
                if width * height * scale * scale > LIMITS["render_pixels"]:
                    scale = math.sqrt(LIMITS["render_pixels"] / max(width * height, 1.0))
                image = page.render(scale=scale, grayscale=True).to_pil().convert("L")
            finally:
                page.close()
            out.append((image, (width, height)))
    finally:
        pdf.close()
    return out
