"""OCR of images and scanned PDF pages: rendered sentences with a name, a phone number and an
e-mail address come back with black boxes over them.

Oracles independent of the code under test: the pixel boxes of the sensitive words come from
Pillow's own text layout (``ImageDraw.textbbox``) when the image is drawn, and the output is read
back by calling tesseract directly (not through :mod:`anon_core.pii.ocr`).
"""

from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path

import pytest

from anon_core.cli import main
from anon_core.errors import ConfigError

PIL = pytest.importorskip("PIL")
from PIL import Image, ImageDraw, ImageFont  # noqa: E402

needs_tesseract = pytest.mark.skipif(
    shutil.which("tesseract") is None, reason="tesseract-ocr is not installed (.ci/run installs it)"
)

LINES = (
    ("Please call ", "Margaret Holloway", " on 212-555-0147"),
    ("or write to ", "m.holloway@example.org", " about the visit."),
)
SECRETS = ("Margaret", "Holloway", "212-555-0147", "555", "0147", "m.holloway", "example.org")


def draw_letter(size=(2000, 420)) -> tuple[Image.Image, list[tuple[int, int, int, int]]]:
    """A white page with :data:`LINES`; returns it and the pixel boxes of the sensitive parts."""
    image = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=52)
    boxes = []
    for row, (before, secret, after) in enumerate(LINES):
        y = 40 + row * 120
        draw.text((40, y), before + secret + after, font=font, fill="black")
        # where the secret part lands: the layout of the prefix, then of the secret
        x0 = 40 + draw.textlength(before, font=font)
        left, top, right, bottom = draw.textbbox((x0, y), secret, font=font)
        boxes.append((int(left), int(top), int(right), int(bottom)))
        # the phone number is the trailing part of the first line
        if row == 0:
            x1 = x0 + draw.textlength(secret + " on ", font=font)
            boxes.append(tuple(int(v) for v in draw.textbbox((x1, y), "212-555-0147", font=font)))
    return image, boxes


def tesseract_text(image: Image.Image) -> str:
    """Read ``image`` with tesseract directly (the independent reader)."""
    buffer = io.BytesIO()
    image.convert("L").save(buffer, format="PNG")
    done = subprocess.run(
        ["tesseract", "stdin", "stdout", "-l", "eng"],
        input=buffer.getvalue(),
        capture_output=True,
        timeout=120,
        check=True,
    )
    return done.stdout.decode("utf-8", "replace")


def dark_share(image: Image.Image, box: tuple[int, int, int, int]) -> float:
    """Share of pixels in ``box`` darker than mid-grey."""
    crop = image.convert("L").crop(box)
    pixels = list(crop.tobytes())
    return sum(1 for p in pixels if p < 128) / len(pixels)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["deidentify", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def one_error_line(code: int, out: str, err: str) -> str:
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    return lines[0]


# =============================================================================== images
@needs_tesseract
@pytest.mark.parametrize("suffix", [".png", ".jpg", ".tiff"])
def test_an_image_comes_back_with_boxes_over_name_phone_and_email(tmp_path, capsys, suffix):
    image, boxes = draw_letter()
    before = tesseract_text(image)
    assert "Holloway" in before and "212-555-0147" in before  # the reader can read the input
    source = tmp_path / f"scan{suffix}"
    image.save(source)
    target = tmp_path / f"out{suffix}"
    code, out, _err = run(capsys, str(source), "-o", str(target))
    assert code == 0
    for secret in SECRETS:
        assert secret not in out  # the summary holds counts, never a value
    with Image.open(target) as written:
        assert written.size == image.size
        redacted = written.convert("RGB")
    for box in boxes:
        assert dark_share(redacted, box) > 0.95, box  # covered, not just a few strokes
    after = tesseract_text(redacted)
    for secret in SECRETS:
        assert secret not in after, secret
    assert "Please call" in after and "visit" in after  # the rest is kept readable


@needs_tesseract
def test_multi_page_tiff_every_page_is_redacted(tmp_path, capsys):
    first, _ = draw_letter()
    second = Image.new("RGB", (1600, 200), "white")
    ImageDraw.Draw(second).text(
        (40, 60), "Signed by Margaret Holloway", font=ImageFont.load_default(size=52), fill="black"
    )
    source = tmp_path / "scan.tif"
    first.save(source, save_all=True, append_images=[second])
    assert run(capsys, str(source), "-o", str(tmp_path / "o.tif"))[0] == 0
    with Image.open(tmp_path / "o.tif") as written:
        assert written.n_frames == 2
        texts = []
        for index in range(2):
            written.seek(index)
            texts.append(tesseract_text(written.convert("RGB")))
    assert "Holloway" not in texts[0] and "Holloway" not in texts[1]
    assert "Signed" in texts[1]


@needs_tesseract
def test_metadata_is_stripped(tmp_path, capsys):
    image, _ = draw_letter()
    exif = Image.Exif()
    exif[0x013B] = "Margaret Holloway"  # Artist
    source = tmp_path / "scan.jpg"
    image.save(source, exif=exif.tobytes())
    with Image.open(source) as check:
        assert check.getexif().get(0x013B) == "Margaret Holloway"  # the fixture has it
    assert run(capsys, str(source), "-o", str(tmp_path / "o.jpg"))[0] == 0
    data = (tmp_path / "o.jpg").read_bytes()
    assert b"Holloway" not in data and b"Exif" not in data
    from PIL import PngImagePlugin

    info = PngImagePlugin.PngInfo()
    info.add_text("Author", "Margaret Holloway")
    png = tmp_path / "scan.png"
    image.save(png, pnginfo=info)
    assert run(capsys, str(png), "-o", str(tmp_path / "o.png"))[0] == 0
    assert b"Holloway" not in (tmp_path / "o.png").read_bytes()


# =============================================================================== scanned PDF
def _scanned_pdf(path: Path, pages: list[Image.Image]) -> None:
    pages[0].save(path, "PDF", resolution=150, save_all=True, append_images=pages[1:])


def _render(path: Path) -> list[Image.Image]:
    pdfium = pytest.importorskip("pypdfium2")
    pdf = pdfium.PdfDocument(str(path))
    try:
        return [pdf[i].render(scale=300 / 72).to_pil() for i in range(len(pdf))]
    finally:
        pdf.close()


@needs_tesseract
def test_an_image_only_pdf_comes_back_without_the_values(tmp_path, capsys):
    from pypdf import PdfReader

    image, _ = draw_letter()
    source = tmp_path / "scan.pdf"
    _scanned_pdf(source, [image])
    assert PdfReader(str(source)).pages[0].extract_text().strip() == ""  # no text layer
    target = tmp_path / "out.pdf"
    code, out, _ = run(capsys, str(source), "-o", str(target))
    assert code == 0 and '"PERSON": 1' in out and '"PHONE_NUMBER": 1' in out
    data = target.read_bytes()
    for secret in SECRETS:
        assert secret.encode() not in data
    (page,) = _render(target)
    text = tesseract_text(page)
    for secret in SECRETS:
        assert secret not in text, secret
    assert "Please call" in text


@needs_tesseract
def test_a_mixed_pdf_keeps_text_pages_as_text_and_boxes_the_scan(tmp_path, capsys):
    from fpdf import FPDF
    from pypdf import PdfReader, PdfWriter

    typed = tmp_path / "typed.pdf"
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=12)
    pdf.multi_cell(0, 6, "Referral letter. Patient Margaret Holloway, phone 212-555-0147.")
    pdf.output(str(typed))
    scan = tmp_path / "scan.pdf"
    _scanned_pdf(scan, [draw_letter()[0]])
    writer = PdfWriter()
    for part in (typed, scan):
        for page in PdfReader(str(part)).pages:
            writer.add_page(page)
    source = tmp_path / "mixed.pdf"
    with source.open("wb") as handle:
        writer.write(handle)
    target = tmp_path / "out.pdf"
    assert run(capsys, str(source), "-o", str(target))[0] == 0
    reader = PdfReader(str(target))
    assert len(reader.pages) == 2
    first = reader.pages[0].extract_text()
    assert "Referral letter" in first and "Holloway" not in first and "555" not in first
    text = tesseract_text(_render(target)[1])
    assert "Holloway" not in text and "Please call" in text


# =============================================================================== errors and bounds
def test_without_tesseract_one_line_says_how_to_install(tmp_path, capsys, monkeypatch):
    image, _ = draw_letter()
    source = tmp_path / "scan.png"
    image.save(source)
    monkeypatch.setenv("PATH", str(tmp_path / "no-programs-here"))
    line = one_error_line(*run(capsys, str(source), "-o", str(tmp_path / "o.png")))
    assert "apt-get install tesseract-ocr" in line
    assert not (tmp_path / "o.png").exists()


@needs_tesseract
def test_bad_images_and_limits_get_one_line(tmp_path, capsys, monkeypatch):
    from anon_core.pii import ocr

    image, _ = draw_letter()
    png_named_jpg = tmp_path / "a.jpg"
    image.save(png_named_jpg, format="PNG")
    assert "not JPEG" in one_error_line(
        *run(capsys, str(png_named_jpg), "-o", str(tmp_path / "o.jpg"))
    )
    junk = tmp_path / "junk.png"
    junk.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 100)
    assert "cannot be read as an image" in one_error_line(
        *run(capsys, str(junk), "-o", str(tmp_path / "o.png"))
    )
    bomb = tmp_path / "bomb.png"  # 100 million pixels in a few kilobytes
    Image.new("1", (10_000, 10_000), 1).save(bomb)
    assert "at most 60000000 are read" in one_error_line(
        *run(capsys, str(bomb), "-o", str(tmp_path / "o.png"))
    )
    good = tmp_path / "good.png"
    image.save(good)
    monkeypatch.setitem(ocr.LIMITS, "image_pixels", 1000)
    assert "at most 1000 are read" in one_error_line(
        *run(capsys, str(good), "-o", str(tmp_path / "o.png"))
    )
    monkeypatch.setitem(ocr.LIMITS, "image_pixels", 60_000_000)
    monkeypatch.setitem(ocr.LIMITS, "ocr_seconds", 0.001)
    assert "longer than" in one_error_line(*run(capsys, str(good), "-o", str(tmp_path / "o.png")))
    assert not (tmp_path / "o.png").exists() and not (tmp_path / "o.jpg").exists()


def test_tsv_words_are_grouped_by_paragraph_with_offsets():
    from anon_core.pii.ocr import boxes_for_spans, parse_tsv

    header = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext"
    rows = [
        "1\t1\t0\t0\t0\t0\t0\t0\t100\t100\t-1\t",
        "5\t1\t1\t1\t1\t1\t10\t10\t30\t10\t96\tCall",
        "5\t1\t1\t1\t1\t2\t50\t10\t30\t10\t96\tAnna",
        "5\t1\t1\t1\t2\t1\t10\t30\t40\t10\t96\tBerg",  # next line, same paragraph
        "5\t1\t2\t1\t1\t1\t10\t60\t20\t10\t96\tBye",
    ]
    page = parse_tsv(("\n".join([header, *rows]) + "\n").encode())
    assert page.blocks == ["Call Anna Berg", "Bye"]
    assert [(w.block, w.start, w.end) for w in page.words] == [
        (0, 0, 4),
        (0, 5, 9),
        (0, 10, 14),
        (1, 0, 3),
    ]
    # "Anna Berg" = characters 5..14 of block 0: the two words' boxes, nothing else
    assert boxes_for_spans(page, [[(5, 14)], []]) == [(50, 10, 80, 20), (10, 30, 50, 40)]
    with pytest.raises(ConfigError):
        parse_tsv(b"not tsv at all")


@needs_tesseract
def test_a_scan_with_a_page_number_is_read_by_ocr_not_dropped(tmp_path, capsys):
    from fpdf import FPDF
    from pypdf import PdfReader

    image, _ = draw_letter()
    source = tmp_path / "stamped.pdf"
    pdf = FPDF(format="A4")
    pdf.set_auto_page_break(False)
    pdf.add_page()
    pdf.image(image, x=5, y=20, w=200)
    pdf.set_font("Helvetica", size=9)
    pdf.set_xy(10, 280)
    pdf.cell(0, 5, "Page 1 of 1")  # the only text of the page: a page number
    pdf.output(str(source))
    assert "Page 1 of 1" in PdfReader(str(source)).pages[0].extract_text()
    target = tmp_path / "out.pdf"
    code, out, err = run(capsys, str(source), "-o", str(target))
    assert code == 0, err
    assert "read by OCR" in out
    text = tesseract_text(_render(target)[0])
    assert "Please call" in text  # the scanned content is kept (as a redacted image)
    for secret in SECRETS:
        assert secret not in text, secret


# =============================================================================== images in DOCX
def _docx_with_scan(path: Path, image: Image.Image) -> None:
    docx = pytest.importorskip("docx")
    document = docx.Document()
    document.add_paragraph("Referral attached below.")
    buffer = io.BytesIO()
    exif = Image.Exif()
    exif[0x013B] = "Margaret Holloway"  # Artist
    image.save(buffer, format="JPEG", exif=exif.tobytes())
    buffer.seek(0)
    document.add_picture(buffer)
    document.save(str(path))


def _docx_image(path: Path) -> bytes:
    import zipfile

    with zipfile.ZipFile(path) as z:
        (name,) = [n for n in z.namelist() if n.startswith("word/media/")]
        return z.read(name)


@needs_tesseract
def test_an_image_inside_a_docx_is_boxed_and_its_metadata_removed(tmp_path, capsys):
    image, boxes = draw_letter()
    source = tmp_path / "letter.docx"
    _docx_with_scan(source, image)
    assert b"Holloway" in _docx_image(source)  # the fixture's EXIF names her
    target = tmp_path / "out.docx"
    code, out, err = run(capsys, str(source), "-o", str(target))
    assert code == 0, err
    assert "read by OCR" in out
    data = _docx_image(target)
    assert b"Holloway" not in data
    with Image.open(io.BytesIO(data)) as written:
        redacted = written.convert("RGB")
    for box in boxes:
        assert dark_share(redacted, box) > 0.9, box
    text = tesseract_text(redacted)
    assert "Please call" in text
    for secret in SECRETS:
        assert secret not in text, secret


def test_without_tesseract_docx_images_are_named_in_a_notice(tmp_path, capsys, monkeypatch):
    image, _ = draw_letter()
    source = tmp_path / "letter.docx"
    _docx_with_scan(source, image)
    monkeypatch.setenv("PATH", str(tmp_path / "no-programs-here"))
    code, out, err = run(capsys, str(source), "-o", str(tmp_path / "out.docx"))
    assert code == 0, err
    assert "were not read: OCR needs" in out
