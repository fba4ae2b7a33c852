"""In a real browser (Playwright, Debian's chromium): upload a small DOCX on the Documents page,
de-identify it and download the ZIP; the file inside holds none of the letter's values and
hashes as the log in the same ZIP says (hashlib here is the oracle).

Skips locally when /usr/bin/chromium is absent; under CI a missing browser is a failure.
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile

import pytest

from tests.browser import ARGS, CHROMIUM, require_chromium, running_app, settle

NAME, PHONE, EMAIL = "Margaret Holloway", "+44 20 7946 0958", "m.holloway@example.org"

require_chromium()
playwright = pytest.importorskip("playwright.sync_api")
docx = pytest.importorskip("docx")


@pytest.fixture(scope="module")
def server():
    with running_app(wait_s=120) as url:
        yield url


@pytest.mark.slow  # about 40 s at a load average of 7, most of it the app's first model load
def test_upload_a_docx_and_download_the_deidentified_zip(server, tmp_path):
    document = docx.Document()
    document.add_paragraph(f"Please call {NAME} on {PHONE} or write to {EMAIL}.")
    source = tmp_path / "letter.docx"
    document.save(str(source))
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            context = browser.new_context(
                accept_downloads=True, viewport={"width": 1400, "height": 1000}
            )
            pg = context.new_page()
            pg.set_default_timeout(120_000)
            pg.goto(server)
            settle(pg)
            pg.locator('[data-testid="stSidebarNav"] a', has_text="Documents").first.click()
            settle(pg)
            pg.get_by_role("heading", name="Documents").first.wait_for()
            pg.locator('input[type="file"]').first.set_input_files(str(source))
            settle(pg)
            pg.get_by_role("button", name="▶️ De-identify the documents").click()
            settle(pg)
            pg.get_by_role("button", name="⬇️ De-identified files (ZIP)").wait_for()
            assert "1 file(s) de-identified" in pg.locator("strong").all_inner_texts()
            with pg.expect_download() as info:
                pg.get_by_role("button", name="⬇️ De-identified files (ZIP)").click()
            target = tmp_path / "out.zip"
            info.value.save_as(target)
        finally:
            browser.close()
    with zipfile.ZipFile(target) as z:
        out = z.read("deidentified/letter.docx")
        log = json.loads(z.read("deidentification-log.json"))
    [entry] = log["files"]
    assert entry["output_sha256"] == hashlib.sha256(out).hexdigest()
    assert entry["input_sha256"] == hashlib.sha256(source.read_bytes()).hexdigest()
    assert entry["entities"] == {"EMAIL_ADDRESS": 1, "PERSON": 1, "PHONE_NUMBER": 1}
    with zipfile.ZipFile(io.BytesIO(out)) as inner:
        xml = "".join(inner.read(n).decode("utf-8", "replace") for n in inner.namelist())
    for value in (NAME, "Holloway", PHONE, EMAIL):
        assert value not in xml
