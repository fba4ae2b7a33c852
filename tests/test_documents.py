"""``anon-core deidentify``: DOCX, text-layer PDF and UTF-8 text documents (fixtures built here);
images and scanned PDFs: ``tests/test_ocr.py``."""

from __future__ import annotations

import json
import re
import sys
import zipfile
from pathlib import Path

import pytest

from anon_core.cli import main

NAME, PHONE, EMAIL = "Margaret Holloway", "+44 20 7946 0958", "m.holloway@example.org"
CARD = "4539 1488 0343 6467"
LETTER = (
    f"Dear team,\n\nPlease call {NAME} on {PHONE} or write to {EMAIL}.\n\n"
    f"Her card {CARD} was declined at the pharmacy.\n"
)
VALUES = (NAME, "Holloway", PHONE, "7946 0958", EMAIL, CARD)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["deidentify", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def assert_clean(text: str) -> None:
    for value in VALUES:
        assert value not in text, value


def test_txt_is_deidentified_and_the_summary_holds_no_value(tmp_path, capsys):
    source = tmp_path / "letter.txt"
    source.write_text(LETTER, encoding="utf-8")
    target = tmp_path / "out.txt"
    code, out, err = run(capsys, str(source), "-o", str(target))
    assert code == 0, err
    summary = json.loads(out)
    assert summary["input_kind"] == "txt"
    # hand count: one name, one phone, one e-mail, one card in the letter
    assert summary["entities"] == {
        "PERSON": 1,
        "PHONE_NUMBER": 1,
        "EMAIL_ADDRESS": 1,
        "CREDIT_CARD": 1,
    }
    assert summary["blocks"] == 3 and summary["blocks_changed"] == 2
    written = target.read_text(encoding="utf-8")
    assert_clean(written)
    assert_clean(out + err)
    assert written.startswith("Dear team,\n\nPlease call <PERSON> on <PHONE_NUMBER>")
    assert source.read_text(encoding="utf-8") == LETTER  # input untouched


def test_config_operators_apply(tmp_path, capsys):
    source = tmp_path / "letter.txt"
    source.write_text(LETTER, encoding="utf-8")
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(
        "text:\n  operators:\n    DEFAULT: {type: redact}\n"
        "    PHONE_NUMBER: {type: mask, keep_last: 4}\n",
        encoding="utf-8",
    )
    code, _, err = run(capsys, str(source), "-o", str(tmp_path / "o.txt"), "--config", str(cfg))
    assert code == 0, err
    written = (tmp_path / "o.txt").read_text(encoding="utf-8")
    assert "Please call  on " + "*" * (len(PHONE) - 4) + "0958 or write to ." in written


def _docx(path: Path) -> None:
    docx = pytest.importorskip("docx")
    document = docx.Document()
    document.add_paragraph("Case summary")
    p = document.add_paragraph("Please call ")
    p.add_run("Margaret").bold = True  # the name is split over two runs
    p.add_run(" Holloway").bold = True
    p.add_run(f" on {PHONE} today.")
    from docx.oxml import parse_xml

    reviewed = document.add_paragraph("Reviewed.")  # with a tracked deletion naming her
    reviewed._p.append(
        parse_xml(
            '<w:del xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" '
            f'w:id="1" w:author="{NAME}"><w:r><w:delText> Called {NAME}.</w:delText></w:r></w:del>'
        )
    )
    table = document.add_table(rows=1, cols=2)
    table.cell(0, 0).text = "E-mail"
    table.cell(0, 1).text = EMAIL
    document.sections[0].header.paragraphs[0].text = f"File of Mrs. {NAME}"
    document.sections[0].footer.paragraphs[0].text = f"Card on file: {CARD}"
    document.core_properties.author = NAME
    from docx.opc.constants import RELATIONSHIP_TYPE

    # a hyperlink address: kept in word/_rels/document.xml.rels, not in the text
    document.part.relate_to(f"mailto:{EMAIL}", RELATIONSHIP_TYPE.HYPERLINK, is_external=True)
    document.save(str(path))


def test_docx_every_part_is_deidentified_and_formatting_kept(tmp_path, capsys):
    docx = pytest.importorskip("docx")
    source, target = tmp_path / "case.docx", tmp_path / "case-out.docx"
    _docx(source)
    before = source.read_bytes()
    code, out, err = run(capsys, str(source), "-o", str(target))
    assert code == 0, err
    summary = json.loads(out)
    assert summary["input_kind"] == "docx" and summary["language"] == "en"
    assert summary["entities"]["PERSON"] == 3  # body, tracked deletion and header
    assert summary["entities"]["EMAIL_ADDRESS"] == 2  # table cell and hyperlink address
    with zipfile.ZipFile(target) as z:
        for name in z.namelist():
            assert_clean(z.read(name).decode("utf-8", "replace"))
    document = docx.Document(str(target))
    body = [p.text for p in document.paragraphs]
    assert body[:2] == ["Case summary", "Please call <PERSON> on <PHONE_NUMBER> today."]
    assert body[2].startswith("Reviewed.")
    assert [r.bold for r in document.paragraphs[1].runs] == [None, True, True, None]
    assert document.tables[0].cell(0, 0).text == "E-mail"
    assert document.tables[0].cell(0, 1).text == "<EMAIL_ADDRESS>"
    # a courtesy title before a name is TITLE (it tells the person's gender)
    assert document.sections[0].header.paragraphs[0].text == "File of <TITLE> <PERSON>"
    assert document.sections[0].footer.paragraphs[0].text == "Card on file: <CREDIT_CARD>"
    assert document.core_properties.author == ""
    assert source.read_bytes() == before


def test_pdf_becomes_a_new_text_pdf_without_the_values(tmp_path, capsys):
    from fpdf import FPDF
    from pypdf import PdfReader

    source, target = tmp_path / "letter.pdf", tmp_path / "letter-out.pdf"
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=11)
    pdf.multi_cell(0, 6, f"Please call {NAME} on {PHONE}.\nHer card {CARD} was declined.")
    pdf.add_page()
    pdf.multi_cell(0, 6, f"Write to {EMAIL} for the file.")
    pdf.output(str(source))
    code, out, err = run(capsys, str(source), "-o", str(target))
    assert code == 0, err
    assert json.loads(out)["blocks"] == 2
    pages = [p.extract_text() for p in PdfReader(str(target)).pages]
    assert len(pages) == 2
    assert_clean("\n".join(pages))
    assert "<PERSON>" in pages[0] and "<CREDIT_CARD>" in pages[0]
    assert "<EMAIL_ADDRESS>" in pages[1]


def one_error_line(code: int, out: str, err: str) -> str:
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    return lines[0]


def test_a_pdf_without_text_layer_needs_tesseract_one_line(tmp_path, capsys, monkeypatch):
    from fpdf import FPDF

    source = tmp_path / "scan.pdf"
    pdf = FPDF()
    pdf.add_page()
    pdf.rect(10, 10, 50, 50, style="F")  # a drawing, no text: read by OCR
    pdf.output(str(source))
    monkeypatch.setenv("PATH", str(tmp_path / "no-programs-here"))
    line = one_error_line(*run(capsys, str(source), "-o", str(tmp_path / "o.pdf")))
    assert "tesseract" in line and "apt-get install tesseract-ocr" in line
    assert not (tmp_path / "o.pdf").exists()


def test_output_onto_the_input_is_refused_and_the_input_kept(tmp_path, capsys):
    source = tmp_path / "letter.txt"
    source.write_text(LETTER, encoding="utf-8")
    line = one_error_line(*run(capsys, str(source), "-o", str(source)))
    assert "same file" in line
    assert source.read_text(encoding="utf-8") == LETTER


@pytest.mark.parametrize(
    ("name", "output", "needle"),
    [
        ("notes.rtf", "o.rtf", "use a .docx, .pdf, .txt, .png, .jpg or .tif file"),
        ("notes.txt", "o.pdf", "must be a .txt file like the input"),
        ("missing.txt", "o.txt", "does not exist"),
    ],
)
def test_bad_paths_get_one_line(tmp_path, capsys, name, output, needle):
    if name != "missing.txt":
        (tmp_path / name).write_text("x", encoding="utf-8")
    line = one_error_line(*run(capsys, str(tmp_path / name), "-o", str(tmp_path / output)))
    assert needle in line
    assert not (tmp_path / output).exists()


def test_non_utf8_text_and_broken_docx_get_one_line(tmp_path, capsys):
    bad = tmp_path / "latin.txt"
    bad.write_bytes("Hélène".encode("latin-1"))
    assert "not UTF-8" in one_error_line(*run(capsys, str(bad), "-o", str(tmp_path / "o.txt")))
    pytest.importorskip("docx")
    broken = tmp_path / "broken.docx"
    broken.write_bytes(b"not a zip at all")
    line = one_error_line(*run(capsys, str(broken), "-o", str(tmp_path / "o.docx")))
    assert "not a DOCX file" in line


def test_docx_size_limits_bound_what_an_upload_can_cost(tmp_path, capsys, monkeypatch):
    pytest.importorskip("docx")
    import anon_core.pii.documents as documents

    source = tmp_path / "case.docx"
    _docx(source)
    with zipfile.ZipFile(source) as z:
        unpacked = sum(i.file_size for i in z.infolist())
    monkeypatch.setitem(documents.LIMITS, "docx_uncompressed_bytes", unpacked - 1)
    line = one_error_line(*run(capsys, str(source), "-o", str(tmp_path / "o.docx")))
    assert f"unpacks to {unpacked} bytes" in line


def test_without_python_docx_one_install_message(tmp_path, capsys, monkeypatch):
    source = tmp_path / "case.docx"
    source.write_bytes(b"PK")
    monkeypatch.setitem(sys.modules, "docx", None)  # import docx raises ImportError
    line = one_error_line(*run(capsys, str(source), "-o", str(tmp_path / "o.docx")))
    assert "pip install 'anon-core[documents]'" in line


def test_a_french_text_is_detected_and_its_names_removed(tmp_path, capsys):
    from anon_core.pii.language import detector_available, model_installed

    if not (detector_available() and model_installed("fr_core_news_md")):
        pytest.skip("French routing needs the 'documents' extra")
    source = tmp_path / "lettre.txt"
    text = "Bonjour,\r\n\r\nNous avons croisé Mathilde Rousseau au marché ; rappelez-la au 06 12 34 56 78.\r\n"
    source.write_bytes(text.encode("utf-8"))
    code, out, err = run(capsys, str(source), "-o", str(tmp_path / "o.txt"))
    assert code == 0, err
    summary = json.loads(out)
    assert summary["language"] == "fr" and summary["notices"] == []
    written = (tmp_path / "o.txt").read_bytes().decode("utf-8")
    assert written.startswith("Bonjour,\r\n\r\n")  # line endings kept
    for value in ("Mathilde", "Rousseau", "06 12 34 56 78"):
        assert value not in written


# =============================================================================== decrypt
KEY = "k3y-for-tests-only-0123456789abc"  # 32 bytes: AES-256


def test_encrypted_document_is_recovered_with_the_key_and_only_with_it(
    tmp_path, capsys, monkeypatch, caplog
):
    import logging

    assert len(KEY.encode()) == 32
    source = tmp_path / "letter.txt"
    source.write_text(LETTER, encoding="utf-8")
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(
        "text:\n  operators:\n    DEFAULT: {type: encrypt, key_env: ANON_TEST_KEY}\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("ANON_TEST_KEY", KEY)
    caplog.set_level(logging.DEBUG)
    target = tmp_path / "o.txt"
    code, out, err = run(capsys, str(source), "-o", str(target), "--config", str(cfg))
    assert code == 0, err
    encrypted = target.read_text(encoding="utf-8")
    assert_clean(encrypted)
    # the authorised path back: the key from the environment ...
    assert main(["decrypt", "--text", str(target), "--key-env", "ANON_TEST_KEY"]) == 0
    recovered, err2 = capsys.readouterr()
    assert recovered == LETTER  # the original, character for character
    # ... or from a key file (a trailing newline is ignored)
    key_file = tmp_path / "aes.key"
    key_file.write_text(KEY + "\n", encoding="utf-8")
    assert main(["decrypt", "--text", str(target), "--key-file", str(key_file)]) == 0
    assert capsys.readouterr()[0] == LETTER
    # a single token
    token = next(w.strip(".,") for w in encrypted.split() if len(w) > 30)
    assert main(["decrypt", token, "--key-file", str(key_file)]) == 0
    assert capsys.readouterr()[0].strip() in (NAME, PHONE, EMAIL, CARD)
    # a wrong key: one line, nothing recovered, the key never shown
    monkeypatch.setenv("WRONG_KEY", KEY[::-1])
    code, wrong_out, wrong_err = (
        main(["decrypt", "--text", str(target), "--key-env", "WRONG_KEY"]),
        *capsys.readouterr(),
    )
    line = one_error_line(code, wrong_out, wrong_err)
    assert "key differs" in line
    code = main(["decrypt", token, "--key-env", "WRONG_KEY"])
    assert "key differs" in one_error_line(code, *capsys.readouterr())
    for text in (out, err, err2, wrong_err, line, caplog.text):
        assert KEY not in text and KEY[::-1] not in text


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["decrypt", "abc"], "exactly one of --key-env"),
        (["decrypt", "abc", "--key-env", "NOT_SET_ANYWHERE_XYZ"], "not set"),
        (["decrypt", "--key-env", "SHORT_KEY"], "either tokens"),
        (["decrypt", "abc", "--key-env", "SHORT_KEY_BAD"], "16, 24 or 32"),
    ],
)
def test_decrypt_bad_arguments_get_one_line(capsys, monkeypatch, argv, needle):
    monkeypatch.setenv("SHORT_KEY", KEY)
    monkeypatch.setenv("SHORT_KEY_BAD", "tooshort")
    assert needle in one_error_line(main(argv), *capsys.readouterr())


def test_fakes_are_consistent_across_two_documents(tmp_path, capsys):
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text("text:\n  operators:\n    DEFAULT: {type: replace, fake: true, seed: 5}\n")
    outputs = []
    for i, text in enumerate((LETTER, f"Minutes.\n\nAction for {NAME}: ring {PHONE} again.\n")):
        source = tmp_path / f"d{i}.txt"
        source.write_text(text, encoding="utf-8")
        code, _, err = run(
            capsys, str(source), "-o", str(tmp_path / f"o{i}.txt"), "--config", str(cfg)
        )
        assert code == 0, err
        outputs.append((tmp_path / f"o{i}.txt").read_text(encoding="utf-8"))
    phones = [re.findall(r"\+44[\d ]{10,}\d", o) for o in outputs]
    assert len(phones[0]) == 1 and phones[0] == phones[1]  # the same fake in both documents
    assert phones[0][0] != PHONE
    for o in outputs:
        assert_clean(o)
