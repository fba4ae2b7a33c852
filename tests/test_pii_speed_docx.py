"""A de-identified DOCX is the same bytes whenever it is made, so its hash in the log and the
dossier can be reproduced (python-docx stamps each ZIP part with the time of saving)."""

from __future__ import annotations

import io
import time
import types
import zipfile

import pytest

from anon_core.pii.documents import deidentify_bytes
from anon_core.services.documents import text_config


def test_docx_output_does_not_depend_on_the_time(monkeypatch):
    docx = pytest.importorskip("docx")
    document = docx.Document()
    document.add_paragraph("Please call Margaret Holloway on +44 20 7946 0958 before Friday.")
    buffer = io.BytesIO()
    document.save(buffer)
    outputs = []
    for now in (1_000_000_000, 1_700_000_000):  # 2001 and 2023
        clock = types.SimpleNamespace(
            time=lambda now=now: now, localtime=time.localtime, mktime=time.mktime
        )
        monkeypatch.setattr(zipfile, "time", clock)
        out, summary = deidentify_bytes(buffer.getvalue(), "letter.docx", text_config(None))
        outputs.append(out)
    assert summary.entities.get("PERSON") == 1
    assert outputs[0] == outputs[1]
    with zipfile.ZipFile(io.BytesIO(outputs[0])) as z:
        assert {info.date_time for info in z.infolist()} == {(1980, 1, 1, 0, 0, 0)}
        assert "Holloway" not in z.read("word/document.xml").decode("utf-8")
