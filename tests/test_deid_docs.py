"""``anon-core deid-docs IN_DIR OUT_DIR``: a folder of documents into a new folder with a log.

Oracles: hand counts of the letters below, hashlib over the files written, the csv module."""

from __future__ import annotations

import hashlib
import json

import pytest

from anon_core.cli import main

NAME, PHONE, EMAIL = "Margaret Holloway", "+44 20 7946 0958", "m.holloway@example.org"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["deid-docs", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def folder(tmp_path):
    source = tmp_path / "in"
    (source / "sub").mkdir(parents=True)
    (source / "a.txt").write_text(f"Please call {NAME} on {PHONE}.\n", encoding="utf-8")
    (source / "sub" / "b.txt").write_text(f"Write to {EMAIL}.\n", encoding="utf-8")
    (source / "notes.md").write_text(f"{NAME}\n", encoding="utf-8")  # not a document: skipped
    return source


def test_a_folder_is_deidentified_with_its_log(folder, tmp_path, capsys):
    before = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    target = tmp_path / "out"
    code, out, err = run(capsys, str(folder), str(target))
    assert code == 0, err
    summary = json.loads(out)
    assert summary["deidentified"] == 2 and summary["failed"] == []
    # hand counts: a name and a phone in a.txt, an e-mail in sub/b.txt
    assert summary["entities"] == {"EMAIL_ADDRESS": 1, "PERSON": 1, "PHONE_NUMBER": 1}
    written = sorted(p.relative_to(target).as_posix() for p in target.rglob("*") if p.is_file())
    assert written == [
        "a.txt",
        "deidentification-log.csv",
        "deidentification-log.json",
        "sub/b.txt",
    ]
    assert (target / "a.txt").read_text(encoding="utf-8") == (
        "Please call <PERSON> on <PHONE_NUMBER>.\n"
    )
    logged = json.loads((target / "deidentification-log.json").read_text(encoding="utf-8"))
    for entry in logged["files"]:
        assert (
            entry["output_sha256"]
            == hashlib.sha256((target / entry["name"]).read_bytes()).hexdigest()
        )
        assert (
            entry["input_sha256"]
            == hashlib.sha256((folder / entry["name"]).read_bytes()).hexdigest()
        )
    everything = out + err + "".join(p.read_text(encoding="utf-8") for p in target.rglob("*.*"))
    for value in (NAME, "Holloway", PHONE, EMAIL):
        assert value not in everything
    assert {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()} == before


def test_a_bad_file_is_listed_the_others_written_and_one_error_line(folder, tmp_path, capsys):
    (folder / "old.txt").write_bytes("Hélène".encode("latin-1"))
    target = tmp_path / "out"
    code, out, err = run(capsys, str(folder), str(target))
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("error: 1 of 3 documents")
    assert json.loads(out)["failed"][0]["name"] == "old.txt"
    assert (target / "a.txt").is_file() and not (target / "old.txt").exists()


@pytest.mark.parametrize("where", ["inside", "parent", "not-empty", "same", "not-a-folder"])
def test_outputs_never_land_on_inputs(folder, tmp_path, capsys, where):
    source = folder
    target = {
        "inside": folder / "out",
        "parent": tmp_path,
        "not-empty": tmp_path / "full",
        "same": folder,
        "not-a-folder": tmp_path / "new",
    }[where]
    if where == "not-empty":
        target.mkdir()
        (target / "keep.txt").write_text("mine", encoding="utf-8")
    if where == "not-a-folder":
        source = folder / "a.txt"
    before = sorted(str(p) for p in tmp_path.rglob("*"))
    code, out, err = run(capsys, str(source), str(target))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("error: ")
    assert sorted(str(p) for p in tmp_path.rglob("*")) == before  # nothing written


def test_numbered_names_hide_the_file_names(folder, tmp_path, capsys):
    target = tmp_path / "out"
    code, _out, err = run(capsys, str(folder), str(target), "--numbered")
    assert code == 0, err
    names = sorted(p.name for p in target.iterdir())
    assert names == [
        "deidentification-log.csv",
        "deidentification-log.json",
        "document-001.txt",
        "document-002.txt",
    ]


def test_deid_docs_makes_no_network_connection_and_ocr_writes_no_file(folder, tmp_path):
    """strace (the oracle) sees every connect/sendto of the command and its children (tesseract
    included, for an image) and every file opened for writing: none outside loopback, and no
    file written outside the output folder."""
    import os
    import shutil
    import subprocess
    import sys

    strace = shutil.which("strace")
    if strace is None or shutil.which("tesseract") is None:
        pytest.skip("needs strace and tesseract (apt-get install strace tesseract-ocr)")
    probe = subprocess.run([strace, "-f", "-o", os.devnull, "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip(f"strace cannot attach here: {probe.stderr.decode()[:200]}")
    from PIL import Image, ImageDraw, ImageFont

    image = Image.new("L", (1400, 200), 255)
    ImageDraw.Draw(image).text(
        (30, 60), f"Please call {NAME}", font=ImageFont.load_default(size=48), fill=0
    )
    image.save(folder / "scan.png")
    target, trace = tmp_path / "out", tmp_path / "trace.txt"
    done = subprocess.run(
        [
            strace,
            "-f",
            "-e",
            "trace=connect,sendto,open,openat,creat",
            "-o",
            str(trace),
            sys.executable,
            "-B",  # no bytecode caches: a fresh checkout would write them on import
            "-m",
            "anon_core.cli",
            "deid-docs",
            str(folder),
            str(target),
        ],
        capture_output=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert (target / "scan.png").is_file()
    outside, written = [], []
    lines = trace.read_text().splitlines()
    # the trace sees the command's own writes (so the filter below is not vacuous)
    assert any("O_CREAT" in line and str(target) in line for line in lines)
    for line in lines:
        if ("connect(" in line or "sendto(" in line) and "AF_INET" in line:
            if not any(a in line for a in ('inet_addr("127.', "::1", "::ffff:127.")):
                outside.append(line)
        if ("open" in line or "creat(" in line) and any(
            flag in line for flag in ("O_WRONLY", "O_RDWR", "O_CREAT")
        ):
            if "= -1" not in line and "/dev/" not in line and str(target) not in line:
                written.append(line)
    assert not outside, "\n".join(outside[:5])
    assert not written, "\n".join(written[:5])
