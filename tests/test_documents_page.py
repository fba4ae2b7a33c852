"""Documents in the dashboard: a batch of uploads de-identified in memory, one ZIP whose files
hash as the log says, bounded uploads, a formula-safe log, the page, and the documents in the
signed dossier with ``verify --documents``.

Oracles: entity counts are hand counts of the letters below; hashes are recomputed here with
hashlib from the bytes read back out of the ZIP; the CSV is parsed with the csv module.
"""

from __future__ import annotations

import builtins
import csv
import hashlib
import io
import json
import zipfile
from pathlib import Path

import pytest

from anon_core.errors import ConfigError
from anon_core.services.documents import (
    LOG_CSV,
    LOG_JSON,
    UploadLimits,
    check_batch,
    deidentify_uploads,
    documents_zip,
    log_csv,
    name_model,
    output_names,
    upload_limits,
)

ROOT = Path(__file__).resolve().parents[1]
APP = ROOT / "app.py"
NAME, PHONE, EMAIL = "Margaret Holloway", "+44 20 7946 0958", "m.holloway@example.org"
CARD = "4539 1488 0343 6467"
LETTER = (
    f"Dear team,\n\nPlease call {NAME} on {PHONE} or write to {EMAIL}.\n\n"
    f"Her card {CARD} was declined at the pharmacy.\n"
)
VALUES = (NAME, "Holloway", PHONE, "7946 0958", EMAIL, CARD)


def docx_bytes() -> bytes:
    """A DOCX with the name in the body (split over two runs), the e-mail in a table and the
    author property: hand count PERSON 1, PHONE_NUMBER 1, EMAIL_ADDRESS 1."""
    docx = pytest.importorskip("docx")
    document = docx.Document()
    p = document.add_paragraph("Please call ")
    p.add_run("Margaret").bold = True
    p.add_run(" Holloway").bold = True
    p.add_run(f" on {PHONE} today.")
    table = document.add_table(rows=1, cols=2)
    table.cell(0, 0).text = "E-mail"
    table.cell(0, 1).text = EMAIL
    document.core_properties.author = NAME
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def docx_text(data: bytes) -> str:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return "".join(z.read(n).decode("utf-8", "replace") for n in z.namelist())


def assert_clean(text: str) -> None:
    for value in VALUES:
        assert value not in text, value


# ----------------------------------------------------------------------------- the batch
@pytest.fixture(scope="module")
def batch():
    files = [("letter.txt", LETTER.encode("utf-8")), ("case.docx", docx_bytes())]
    return files, deidentify_uploads(files)


def test_each_file_gets_its_counts_language_and_hashes(batch):
    files, run = batch
    assert not run.failed
    by_name = {r.name: r for r in run.records}
    # hand counts (see LETTER and docx_bytes)
    assert by_name["letter.txt"].entities == {
        "PERSON": 1,
        "PHONE_NUMBER": 1,
        "EMAIL_ADDRESS": 1,
        "CREDIT_CARD": 1,
    }
    assert by_name["case.docx"].entities == {"PERSON": 1, "PHONE_NUMBER": 1, "EMAIL_ADDRESS": 1}
    for name, data in files:
        record = by_name[name]
        assert record.language == "en" and record.name_model  # English has a spaCy model
        assert record.input_sha256 == hashlib.sha256(data).hexdigest()
        assert record.input_bytes == len(data)
    assert run.entity_totals() == {
        "CREDIT_CARD": 1,
        "EMAIL_ADDRESS": 2,
        "PERSON": 2,
        "PHONE_NUMBER": 2,
    }


def test_the_zip_holds_the_bytes_the_log_describes_and_no_value(batch):
    files, run = batch
    archive = documents_zip(run)
    with zipfile.ZipFile(io.BytesIO(archive)) as z:
        names = sorted(z.namelist())
        members = {n: z.read(n) for n in names}
    assert names == sorted(["deidentified/letter.txt", "deidentified/case.docx", LOG_JSON, LOG_CSV])
    logged = json.loads(members[LOG_JSON])
    assert [f["name"] for f in logged["files"]] == ["letter.txt", "case.docx"]
    for entry in logged["files"]:
        data = members[f"deidentified/{entry['name']}"]
        assert entry["output_sha256"] == hashlib.sha256(data).hexdigest()
        assert entry["output_bytes"] == len(data)
    text = members["deidentified/letter.txt"].decode("utf-8")
    assert text.startswith("Dear team,\n\nPlease call <PERSON> on <PHONE_NUMBER>")
    assert_clean(text)
    assert_clean(docx_text(members["deidentified/case.docx"]))
    assert_clean(members[LOG_JSON].decode() + members[LOG_CSV].decode())
    assert documents_zip(run) == archive  # the same batch gives the same bytes


def test_nothing_is_written_to_disk(tmp_path, monkeypatch):
    """The batch runs in memory: no file opened for writing, nothing left in the working or the
    temporary folder."""
    import tempfile

    work, temp = tmp_path / "work", tmp_path / "temp"
    work.mkdir()
    temp.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setenv("TMPDIR", str(temp))
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    opened_for_writing = []
    real_open = builtins.open

    def spy(file, mode="r", *args, **kwargs):
        if any(c in str(mode) for c in "wax+"):
            opened_for_writing.append(str(file))
        return real_open(file, mode, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", spy)
    run = deidentify_uploads([("note.txt", LETTER.encode("utf-8"))])
    documents_zip(run)
    assert run.records[0].total == 4
    assert opened_for_writing == []
    assert list(work.iterdir()) == [] and list(temp.iterdir()) == []


def test_a_refused_file_is_listed_and_the_others_go_on():
    run = deidentify_uploads(
        [("old.txt", "Hélène".encode("latin-1")), ("letter.txt", LETTER.encode("utf-8"))]
    )
    assert [r.name for r in run.records] == ["letter.txt"]
    assert len(run.failed) == 1 and run.failed[0][0] == "old.txt"
    assert "not UTF-8" in run.failed[0][1]
    rows = list(csv.DictReader(io.StringIO(log_csv(run).decode())))
    assert rows[-1]["name"] == "old.txt" and "not UTF-8" in rows[-1]["error"]


def test_the_csv_log_is_formula_safe():
    run = deidentify_uploads([("=HYPERLINK(1).txt", b"Nothing personal here at all.")])
    rows = list(csv.DictReader(io.StringIO(log_csv(run).decode())))
    assert rows == [
        {
            "name": "'=HYPERLINK(1).txt",
            "kind": "txt",
            "language": "en",
            "names_by_model": "yes",
            "entity": "",
            "count": "0",
            "input_sha256": hashlib.sha256(b"Nothing personal here at all.").hexdigest(),
            "output_sha256": hashlib.sha256(b"Nothing personal here at all.").hexdigest(),
            "error": "",
        }
    ]


# ----------------------------------------------------------------------------- bounds and names
def test_batches_are_bounded_with_one_clear_message():
    limits = UploadLimits(file_bytes=100, batch_bytes=150, batch_files=2)
    with pytest.raises(ConfigError, match="at most 2 are de-identified"):
        check_batch([("a.txt", b"x")] * 3, limits)
    with pytest.raises(ConfigError, match="several batches"):
        check_batch([("a.txt", b"x" * 80), ("b.txt", b"x" * 80)], limits)
    with pytest.raises(ConfigError, match="Split it"):
        check_batch([("a.txt", b"x" * 101)], limits)
    with pytest.raises(ConfigError, match=r"\.docx, \.pdf"):
        check_batch([("a.exe", b"x")], limits)
    with pytest.raises(ConfigError, match="upload at least one"):
        check_batch([], limits)
    check_batch([("a.txt", b"x" * 100), ("b.txt", b"x" * 50)], limits)  # at the bounds: fine


def test_the_batch_limit_is_set_by_an_environment_variable():
    assert upload_limits({}).batch_bytes == 100_000_000
    assert upload_limits({"ANON_DOCUMENTS_BATCH_MB": "7"}).batch_bytes == 7_000_000
    assert upload_limits({}).file_bytes == 50 * 1024 * 1024
    for bad in ("abc", "0", "-3", "1.5"):
        with pytest.raises(ConfigError, match="positive whole number"):
            upload_limits({"ANON_DOCUMENTS_BATCH_MB": bad})


def test_output_names_are_plain_unique_and_optionally_numbered():
    assert output_names(["a.docx", "b.DOCX", "a.docx", "A.docx"]) == [
        "a.docx",
        "b.DOCX",
        "a (2).docx",
        "A (3).docx",
    ]
    assert output_names(["../../etc/x.txt", "c:\\users\\me\\y.png"]) == ["x.txt", "y.png"]
    assert output_names(["Smith John.docx", "scan.TIF"], numbered=True) == [
        "document-001.docx",
        "document-002.tif",
    ]


def test_names_are_looked_for_by_a_model_only_where_one_exists():
    assert name_model("en")  # the English pipeline is a core dependency
    assert name_model("xx") is None


# ----------------------------------------------------------------------------- the page
def test_the_documents_page_is_registered():
    assert '"pages/documents.py"' in APP.read_text(encoding="utf-8")


def test_the_page_shows_counts_languages_a_warning_and_the_downloads(batch):
    from streamlit.testing.v1 import AppTest

    from anon_core.services.documents import DocumentRecord, log_json
    from ui.documents import EVIDENCE_KEY, RESULT_KEY

    _files, run = batch
    german = DocumentRecord(
        name="brief.txt",
        kind="txt",
        language="de",
        name_model=None,
        input_sha256="0" * 64,
        output_sha256="1" * 64,
        input_bytes=10,
        output_bytes=10,
        entities={"PHONE_NUMBER": 2},
    )
    run = type(run)(records=[*run.records, german], outputs=dict(run.outputs))
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.run()
    at.switch_page("pages/documents.py").run()
    assert not at.exception, at.exception
    at.session_state[RESULT_KEY] = {
        "key": "k",
        "zip": documents_zip(run),
        "json": log_json(run),
        "csv": log_csv(run),
        "run": run,
    }
    at.session_state[EVIDENCE_KEY] = run.evidence()
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    table = at.dataframe[0].value.set_index("file")
    assert table.loc["letter.txt", "PERSON"] == 1 and table.loc["letter.txt", "found"] == 4
    assert table.loc["brief.txt", "PHONE_NUMBER"] == 2 and table.loc["brief.txt", "PERSON"] == 0
    assert table.loc["brief.txt", "language"] == "German"
    assert table.loc["brief.txt", "names by a model"] == "no"
    warnings = [w.value for w in at.warning]
    assert len(warnings) == 1 and warnings[0].startswith("brief.txt (German): names were not")
    labels = {d.label for d in at.get("download_button")}
    assert {"⬇️ De-identified files (ZIP)", "⬇️ Log (JSON)", "⬇️ Log (CSV)"} <= labels
    page_text = " ".join(str(m.value) for m in at.markdown)
    assert_clean(page_text)
    # the batch goes into the dossier unless the box is unticked
    assert [d["name"] for d in at.session_state[EVIDENCE_KEY]] == [
        "letter.txt",
        "case.docx",
        "brief.txt",
    ]
    at.checkbox(key="documents_in_dossier").uncheck().run()
    assert EVIDENCE_KEY not in at.session_state


# ----------------------------------------------------------------------------- the dossier
def _dossier_config(tmp_path: Path) -> Path:
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(3)
    n = 240
    pd.DataFrame(
        {
            "age": rng.integers(18, 90, n),
            "sex": rng.choice(["F", "M"], n),
            "diagnosis": rng.choice(["asthma", "flu", "copd"], n),
        }
    ).to_csv(tmp_path / "in.csv", index=False)
    config = {
        "input": {"path": "in.csv"},
        "attributes": {
            "age": {"role": "quasi-identifier", "hierarchy": {"builder": "intervals", "width": 10}},
            "sex": {"role": "quasi-identifier"},
            "diagnosis": {"role": "sensitive"},
        },
        "privacy_models": [{"model": "k-anonymity", "k": 3}],
        "suppression_limit": 0.05,
        "attack": {"n_attacks": 60},
        "acceptance": {"ml_accuracy_ratio": {"min": 0.0}},
    }
    path = tmp_path / "c.json"
    path.write_text(json.dumps(config))
    return path


def test_the_dossier_lists_each_document_and_verify_checks_their_hashes(batch, tmp_path, capsys):
    from anon_core.cli import main
    from anon_core.report import write_report
    from anon_core.report.dossier import build_dossier
    from anon_core.services.session import Session

    files, run = batch
    cfg = _dossier_config(tmp_path)
    session = Session.open(cfg)
    release = session.release()
    evidence = session.evidence(release, n_attacks=60, utility=False)
    verdict = session.verdict(evidence)
    report = build_dossier(session, release, evidence, verdict, documents=run.evidence())
    listed = report.figures["documents"]
    archive = tmp_path / "deidentified-documents.zip"
    archive.write_bytes(documents_zip(run))
    with zipfile.ZipFile(archive) as z:
        for entry, (name, data) in zip(listed, files, strict=True):
            assert entry["name"] == name
            assert entry["input_sha256"] == hashlib.sha256(data).hexdigest()
            out = z.read(f"deidentified/{name}")
            assert entry["output_sha256"] == hashlib.sha256(out).hexdigest()
    assert listed[0]["entities"] == {
        "CREDIT_CARD": 1,
        "EMAIL_ADDRESS": 1,
        "PERSON": 1,
        "PHONE_NUMBER": 1,
    }
    path = tmp_path / "dossier.html"
    write_report(report, path)
    page = path.read_text(encoding="utf-8")
    assert "Documents" in page and listed[1]["output_sha256"] in page
    assert_clean(page)

    def verify(*extra: str) -> tuple[int, str]:
        code = main(["verify", str(cfg), str(path), "--no-signature", *extra])
        return code, capsys.readouterr().err

    code, err = verify("--documents", str(archive))
    assert code == 0, err
    code, err = verify()
    assert code == 0 and "de-identified document(s) were NOT checked" in err
    folder = tmp_path / "out"
    folder.mkdir()
    with zipfile.ZipFile(archive) as z:
        for name, _ in files:
            (folder / name).write_bytes(z.read(f"deidentified/{name}"))
    (folder / "letter.txt").write_bytes(b"edited")
    code, err = verify("--documents", str(folder))
    assert code == 4 and "documents: letter.txt: SHA-256" in err
    (folder / "case.docx").unlink()
    code, err = verify("--documents", str(folder))
    assert code == 4 and "case.docx is not in out" in err


def test_neighbouring_entities_of_one_type_in_a_docx_are_replaced_not_refused():
    """Regression: two deny-list words separated by a space become one replacement in the
    anonymizer, which made every DOCX and scanned page holding such a pair fail."""
    docx = pytest.importorskip("docx")
    document = docx.Document()
    document.add_paragraph("The codes zorbax quillfeather are secret, and zorbax  alone.")
    buffer = io.BytesIO()
    document.save(buffer)
    section = {"deny_list": {"CODENAME": ["zorbax", "quillfeather"]}}
    run = deidentify_uploads([("codes.docx", buffer.getvalue())], section)
    assert not run.failed
    assert run.records[0].entities == {"CODENAME": 3}
    out = docx.Document(io.BytesIO(run.outputs["codes.docx"]))
    # hand-written: the pair is one replacement, the lone word another, the rest unchanged
    assert [p.text for p in out.paragraphs] == [
        "The codes <CODENAME> are secret, and <CODENAME>  alone."
    ]
