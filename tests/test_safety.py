"""Never lose or leak data (issue #19): safe writes, formula-safe exports, faithful decoding,
tamper-evident sign-off, a private server, nothing personal in reports.

Oracles are independent of the code under test: the bytes a file held before a
failed write, the strings the test encoded itself, openpyxl (the reference XLSX
reader) for cell types, the ``cryptography`` primitives for signatures, strace
for the server's connections.
"""

from __future__ import annotations

import errno
import io
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from anon_core.cli import main
from anon_core.data import safe_write
from anon_core.data.io import (
    DataWarning,
    detect_encoding,
    load_table,
    table_bytes,
    write_table,
)
from anon_core.data.paths import PathGuard, resolve_user_path
from anon_core.errors import AnonError, ConfigError
from anon_core.services.inputs import problem_for_release

ROOT = Path(__file__).resolve().parents[1]


# ============================================================================ safe writes
def test_atomic_write_keeps_the_old_file_when_the_disk_is_full(tmp_path, monkeypatch):
    target = tmp_path / "release.csv"
    target.write_bytes(b"the previous release\n")

    def full_disk(handle):
        handle.write(b"half a rel")
        raise OSError(errno.ENOSPC, "No space left on device")

    with pytest.raises(OSError, match="No space"):
        safe_write.atomic_write(target, full_disk)
    assert target.read_bytes() == b"the previous release\n"
    assert [p.name for p in tmp_path.iterdir()] == ["release.csv"]  # no partial file left


def test_write_table_failing_fsync_leaves_old_file(tmp_path, monkeypatch):
    target = tmp_path / "out.csv"
    target.write_text("old\n")

    def boom(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(safe_write.os, "fsync", boom)
    with pytest.raises(OSError):
        write_table(pd.DataFrame({"a": [1, 2]}), target)
    assert target.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv"]


def test_atomic_write_replaces_and_creates_folders(tmp_path):
    target = tmp_path / "new" / "folder" / "x.bin"
    safe_write.atomic_write(target, b"abc")
    assert target.read_bytes() == b"abc"
    safe_write.atomic_write(target, lambda h: h.write(b"def"))
    assert target.read_bytes() == b"def"


def test_check_outputs_refuses_every_spelling_of_an_input(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    data = tmp_path / "in.csv"
    data.write_text("a\n1\n")
    (tmp_path / "link.csv").symlink_to(data)
    inputs = {"input.path": data, "the configuration": tmp_path / "c.json"}
    for spelling in ("in.csv", "./sub/../in.csv", str(data), "link.csv", "c.json"):
        with pytest.raises(ConfigError, match="same file as") as err:
            safe_write.check_outputs({"--output": spelling}, inputs)
        assert "\n" not in str(err.value)
    with pytest.raises(ConfigError, match="same file as --output"):
        safe_write.check_outputs({"--output": "o.csv", "--report": "./o.csv"}, inputs)
    safe_write.check_outputs({"--output": "o.csv", "--report": "r.html"}, inputs)  # fine


def test_check_outputs_protects_a_folder_input(tmp_path):
    parts = tmp_path / "parts"
    parts.mkdir()
    (parts / "p0.parquet").write_bytes(b"PAR1")
    with pytest.raises(ConfigError, match="inside input.path"):
        safe_write.check_outputs({"--output": parts / "new.parquet"}, {"input.path": parts})


def _release_case(folder: Path, **extra) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {
            "age": rng.integers(20, 70, 200),
            "zip": rng.choice(["02139", "02138", "02141", "02142"], 200),
            "sex": rng.choice(["F", "M"], 200),
            "note": rng.choice(['=HYPERLINK("http://x")', "+1", "-2", "@A1", "ok"], 200),
            "n": rng.integers(-5, 5, 200),
        }
    )
    frame.to_csv(folder / "data.csv", index=False)
    config = {
        "input": {"path": "data.csv"},
        "attributes": {
            "age": {"role": "quasi-identifier", "hierarchy": {"builder": "intervals", "width": 10}},
            "zip": {"role": "quasi-identifier", "hierarchy": {"builder": "masking"}},
            "sex": {"role": "quasi-identifier"},
            "note": {"role": "insensitive"},
            "n": {"role": "insensitive"},
        },
        "privacy_models": [{"model": "k-anonymity", "k": 3}],
        "suppression_limit": 0.1,
        **extra,
    }
    path = folder / "config.json"
    path.write_text(json.dumps(config))
    return path


@pytest.mark.parametrize(
    "args",
    [
        ["anonymize", "config.json", "-o", "./x/../data.csv"],
        ["anonymize", "config.json", "-o", "config.json"],
        ["anonymize", "config.json", "-o", "out.csv", "--pseudonym-map", "data.csv"],
        ["anonymize", "config.json", "-o", "out.csv", "--report", "out.csv"],
        ["dp", "config.json", "-o", "data.csv"],
    ],
)
def test_cli_refuses_to_overwrite_an_input(tmp_path, monkeypatch, capsys, args):
    cfg = _release_case(tmp_path)
    before = {p: p.read_bytes() for p in (tmp_path / "data.csv", cfg)}
    monkeypatch.chdir(tmp_path)
    assert main(args) == 2
    err = [line for line in capsys.readouterr().err.splitlines() if line.startswith("error")]
    assert len(err) == 1 and "same file as" in err[0]
    assert {p: p.read_bytes() for p in before} == before
    assert not (tmp_path / "out.csv").exists()


# ============================================================================ formulas
def test_csv_cells_that_start_a_formula_are_neutralized_numbers_stay():
    frame = pd.DataFrame(
        {"t": ["=1+2", "+3", "-x", "@SUM(A1)", "\tTAB", "\rCR", "ok", None], "n": range(-4, 4)}
    )
    text = table_bytes(frame, "csv").decode()
    back = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
    assert back["t"].tolist()[:7] == ["'=1+2", "+3", "'-x", "'@SUM(A1)", "'\tTAB", "'\rCR", "ok"]
    assert back["n"].tolist() == [str(i) for i in range(-4, 4)]  # -4 stays the number -4
    raw = table_bytes(frame, "csv", formula_escape=False).decode()
    assert pd.read_csv(io.StringIO(raw), dtype=str)["t"][0] == "=1+2"
    tsv = table_bytes(frame.iloc[[0, 1, 6]], "tsv").decode().splitlines()
    assert tsv[1] == "'=1+2\t-4"  # no bare CR in this table: minimal quoting


def test_xlsx_cells_are_text_never_formulas(tmp_path):
    from openpyxl import load_workbook

    frame = pd.DataFrame({"t": ['=HYPERLINK("http://evil","x")', "+1", "plain"], "n": [-5, 2, 3]})
    path = tmp_path / "r.xlsx"
    write_table(frame, path)
    sheet = load_workbook(path).active
    cells = [[c for c in row] for row in sheet.iter_rows(min_row=2)]
    assert [c[0].data_type for c in cells] == ["s", "s", "s"]  # 'f' would be a live formula
    assert cells[0][0].value == '=HYPERLINK("http://evil","x")'
    assert [c[1].value for c in cells] == [-5, 2, 3] and cells[0][1].data_type == "n"
    with zipfile.ZipFile(path) as z:
        assert "<f>" not in z.read("xl/worksheets/sheet1.xml").decode()


def test_xlsx_is_byte_identical_with_source_date_epoch_and_written_in_memory(monkeypatch):
    import tempfile

    frame = pd.DataFrame({"a": ["x", "=y"], "b": [1.5, 2.0]})

    def no_temp(*a, **k):
        raise AssertionError("a temporary file was created")

    monkeypatch.setattr(tempfile, "mkstemp", no_temp)
    monkeypatch.setattr(tempfile, "NamedTemporaryFile", no_temp)
    monkeypatch.setattr(tempfile, "TemporaryFile", no_temp)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    first = table_bytes(frame, "xlsx")
    time.sleep(1.1)
    assert table_bytes(frame, "xlsx") == first
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1800000000")
    assert table_bytes(frame, "xlsx") != first  # the stamp is the epoch's, not a constant
    with zipfile.ZipFile(io.BytesIO(first)) as z:
        assert all(i.date_time == (2023, 11, 14, 22, 13, 20) for i in z.infolist())
        assert "2023-11-14T22:13:20Z" in z.read("docProps/core.xml").decode()


def test_formula_escape_option_in_the_configuration(tmp_path, monkeypatch, capsys):
    for escape, expected in ((True, "'=HYPERLINK"), (False, "=HYPERLINK")):
        folder = tmp_path / str(escape)
        _release_case(folder, output={"formula_escape": escape})
        monkeypatch.chdir(folder)
        assert main(["anonymize", "config.json", "-o", "out.csv"]) == 0
        summary = json.loads(capsys.readouterr().out)
        released = pd.read_csv(folder / "out.csv", dtype=str)
        notes = set(released["note"])
        assert any(v.startswith(expected) for v in notes)
        assert all(not v.startswith("=") for v in notes) == escape
        assert set(released["n"].astype(int)) <= set(range(-5, 5))  # "-3" is a number: untouched
        # the fingerprint follows the written bytes
        import hashlib

        assert (
            summary["output"]["sha256"]
            == hashlib.sha256((folder / "out.csv").read_bytes()).hexdigest()
        )


# ============================================================================ decoding
WESTERN = ["Hélène", "François", "José", "Zoë", "Œuvre", "Müller"]
NORDIC = ["Søren", "Åsa", "Jökull", "Þórunn", "Ægir", "Dagný"]
CENTRAL = ["Łódź", "Dvořák", "Győr", "Ścibor", "Čapek", "Żaneta"]
SIZES = [1024, 64 * 1024, 1024 * 1024]


def _table_text(names: list[str], size: int) -> str:
    rows, i, total = ["name,city,n"], 0, 12
    while total < size:
        row = f"{names[i % len(names)]},{names[(i + 3) % len(names)]} {i},{i}"
        rows.append(row)
        total += len(row) + 1
        i += 1
    return "\n".join(rows) + "\n"


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize(
    "encoding", ["utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-16-be", "utf-32"]
)
def test_unicode_files_decode_exactly(size, encoding):
    text = _table_text(WESTERN + NORDIC + CENTRAL, size)
    raw = text.encode(encoding)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DataWarning)
        loaded = load_table(raw, name="t.csv")
    expected = pd.read_csv(io.StringIO(text), dtype=str)
    pd.testing.assert_frame_equal(loaded.frame, expected)
    assert loaded.encoding_note is None


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("encoding", ["latin-1", "cp1252"])
@pytest.mark.parametrize("names", [WESTERN[:3] + WESTERN[5:], NORDIC], ids=["western", "nordic"])
def test_single_byte_western_and_nordic_files_decode_exactly_and_say_so(size, encoding, names):
    text = _table_text(names, size)
    raw = text.encode(encoding)
    assert detect_encoding(raw) == "cp1252"  # never a code page guessed from statistics
    with pytest.warns(DataWarning, match="not UTF-8; it was read as cp1252"):
        loaded = load_table(raw, name="t.csv")
    pd.testing.assert_frame_equal(loaded.frame, pd.read_csv(io.StringIO(text), dtype=str))
    assert "input.encoding" in loaded.encoding_note


@pytest.mark.parametrize("size", SIZES)
def test_central_european_file_tells_the_user_to_set_the_encoding(size):
    text = _table_text(CENTRAL, size)
    raw = text.encode("cp1250")
    with pytest.warns(DataWarning, match="set input.encoding") as caught:
        guessed = load_table(raw, name="t.csv")
    assert "cp1250" in str(caught[0].message)
    assert "Łódź" not in set(guessed.frame["name"])  # cp1252 cannot represent it: said, not hidden
    exact = load_table(raw, name="t.csv", encoding="cp1250")
    pd.testing.assert_frame_equal(exact.frame, pd.read_csv(io.StringIO(text), dtype=str))


def test_utf16_without_bom_is_not_called_binary():
    text = _table_text(NORDIC, 4096)
    for enc in ("utf-16-le", "utf-16-be"):
        assert load_table(text.encode(enc), name="t.csv").frame.shape[0] > 10
    with pytest.raises(AnonError, match="binary"):
        load_table(b"\x00\x01\x02\x03\xff" * 100, name="t.csv")


def test_hierarchy_and_configuration_files_decode_faithfully(tmp_path):
    from anon_core.config import read_config_file
    from anon_core.data.hierarchy import Hierarchy

    h = tmp_path / "h.csv"
    h.write_bytes("Søren;S*;*\r\nÅsa;Å*;*\r\n".encode("utf-16"))
    assert Hierarchy.from_csv(h).values == ["Søren", "Åsa"]
    h.write_bytes("Søren;S*;*\rÅsa;Å*;*\r".encode("cp1252"))  # CR-only line ends
    with pytest.warns(DataWarning):
        assert Hierarchy.from_csv(h).values == ["Søren", "Åsa"]
    c = tmp_path / "c.json"
    c.write_bytes('{"input": {"path": "Åsa.csv"}}'.encode("utf-8-sig"))
    assert read_config_file(c)["input"]["path"] == "Åsa.csv"


# ============================================================================ paths
def test_resolve_user_path_stays_inside_the_allowed_folders(tmp_path):
    root = tmp_path / "work"
    (root / "sub").mkdir(parents=True)
    (root / "data.csv").write_text("a\n1\n")
    outside = tmp_path / "secret.csv"
    outside.write_text("x\n")
    (root / "escape.csv").symlink_to(outside)
    assert resolve_user_path("data.csv", [root]) == (root / "data.csv").resolve()
    assert resolve_user_path("sub/../data.csv", [root]) == (root / "data.csv").resolve()
    for bad in ("../secret.csv", str(outside), "escape.csv", "/etc/passwd", "sub/../../secret.csv"):
        with pytest.raises(ConfigError, match="outside the allowed folder") as err:
            resolve_user_path(bad, [root])
        assert "\n" not in str(err.value)
    guard = PathGuard((root,))
    guard.for_read("data.csv")
    with pytest.raises(ConfigError, match="read in this session"):
        guard.for_write("./sub/../data.csv")
    assert guard.for_write("released.csv") == (root / "released.csv").resolve()


def test_resolve_user_path_defaults_to_the_working_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert resolve_user_path("x.csv") == (tmp_path / "x.csv").resolve()
    with pytest.raises(ConfigError):
        resolve_user_path(tmp_path.parent / "y.csv")


# ============================================================================ zero tracebacks
def test_whitespace_and_infinite_values_get_hierarchies(tmp_path, monkeypatch, capsys):
    frame = pd.DataFrame(
        {
            "age": ["30", "inf", "35", "-inf", "41", "30"] * 5,
            "sex": ["M", " ", "F", " ", "M", "F"] * 5,
        }
    )
    frame.to_csv(tmp_path / "d.csv", index=False)
    (tmp_path / "c.json").write_text(
        json.dumps(
            {
                "input": {"path": "d.csv"},
                "attributes": {
                    "age": {
                        "role": "quasi-identifier",
                        "hierarchy": {"builder": "intervals", "width": 10},
                    },
                    "sex": {"role": "quasi-identifier"},
                },
                "privacy_models": [{"model": "k-anonymity", "k": 2}],
                "transformation": {"age": 1, "sex": 0},
            }
        )
    )
    monkeypatch.chdir(tmp_path)
    assert main(["anonymize", "c.json", "-o", "o.csv"]) == 0
    out = pd.read_csv(tmp_path / "o.csv", dtype=str, keep_default_na=False)
    assert set(out["sex"]) == {"M", "F", " "}  # the blank value is a value, kept as such
    assert {">=50", "<30"} <= set(out["age"])  # inf top-coded, -inf bottom-coded


# ============================================================================ reports
@pytest.fixture(scope="module")
def signed(tmp_path_factory):
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    folder = tmp_path_factory.mktemp("signed")
    key, other = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    (folder / "key.pem").write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    for name, k in (("key.pub.pem", key), ("other.pub.pem", other)):
        (folder / name).write_bytes(
            k.public_key().public_bytes(
                serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
            )
        )
    _release_case(folder, output={"signing_key_file": "key.pem"})
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        assert main(["anonymize", "config.json", "-o", "out.csv", "--report", "r.html"]) == 0
        assert main(["anonymize", "config.json", "-o", "out.csv", "--report", "r.pdf"]) == 0
    finally:
        os.chdir(cwd)
    return folder


def _verify(folder: Path, report: str, *extra: str) -> tuple[int, dict, str]:
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        out, err = io.StringIO(), io.StringIO()
        old = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = out, err
        try:
            code = main(["verify", "config.json", report, *extra])
        finally:
            sys.stdout, sys.stderr = old
    finally:
        os.chdir(cwd)
    return code, json.loads(out.getvalue()), err.getvalue()


def test_signed_report_verifies_with_its_key_and_fails_with_another(signed):
    code, out, _ = _verify(signed, "r.html", "--released", "out.csv", "--public-key", "key.pub.pem")
    assert code == 0 and out["signature"] == "valid" and out["release_file"] == "matches"
    code, out, _ = _verify(signed, "r.pdf", "--released", "out.csv", "--public-key", "key.pub.pem")
    assert code == 0 and out["signature"] == "valid"
    code, out, err = _verify(signed, "r.html", "--public-key", "other.pub.pem")
    assert code == 4 and out["signature"] == "invalid" and "not with the public key given" in err
    key = (signed / "key.pem").read_text()
    assert (
        key.split("\n")[1] not in (signed / "r.html").read_text()
    )  # the private key is not embedded


def test_without_released_verify_says_the_release_was_not_checked(signed):
    code, out, err = _verify(signed, "r.html", "--public-key", "key.pub.pem")
    assert code == 0
    assert out["release_file"] == "not checked" and "NOT checked" in out["status"]
    assert "note: the release file was NOT checked" in err
    # without the public key a signed report's sign-off is unverified: a failure
    code, out, err = _verify(signed, "r.html")
    assert code == 4 and out["signature"] == "unverified" and "UNVERIFIED" in err


def _tampered(signed: Path, name: str, data: bytes) -> str:
    (signed / name).write_bytes(data)
    return name


def test_every_tamper_makes_verify_exit_4(signed):
    from pypdf import PdfReader, PdfWriter

    html = (signed / "r.html").read_text(encoding="utf-8")
    assert "pending sign-off" in html
    cases = {
        "visible text edited": html.replace("pending sign-off", "approve", 1),
        "figure edited": html.replace("<td>2</td>", "<td>0.001</td>", 1)
        if "<td>2</td>" in html
        else html.replace("</h2>", " risk 0.001</h2>", 1),
        "sign-off injected into the metadata": html.replace(
            '"signoff": null', '"signoff": {"name": "DPO", "decision": "approve"}', 1
        ),
        "meta tag injected": html.replace(
            "<title>", '<meta name="signoff" content="approved by DPO"><title>', 1
        ),
    }
    for what, text in cases.items():
        assert text != html, what
        name = _tampered(signed, "t.html", text.encode("utf-8"))
        code, out, _ = _verify(signed, name, "--released", "out.csv", "--no-signature")
        assert code == 4, what
    pdf = (signed / "r.pdf").read_bytes()
    reader = PdfReader(io.BytesIO(pdf))
    edited = PdfWriter(clone_from=reader)
    meta = json.loads(reader.attachments["release-meta.json"][0])
    meta["signoff"] = {"name": "DPO", "role": "DPO", "decision": "approve"}
    edited.add_attachment("release-signoff.json", json.dumps(meta).encode())
    page1 = PdfWriter(clone_from=reader)
    page1.pages[0].merge_page(PdfWriter().add_blank_page(595, 842))
    for what, writer in (("attachment added", edited), ("page 1 overwritten", page1)):
        buf = io.BytesIO()
        writer.write(buf)
        name = _tampered(signed, "t.pdf", buf.getvalue())
        code, out, _ = _verify(signed, name, "--released", "out.csv", "--no-signature")
        assert code == 4, what
    released = (signed / "out.csv").read_bytes()
    _tampered(signed, "t.csv", released.replace(b"\n", b"\nx", 1))
    assert _verify(signed, "r.html", "--released", "t.csv")[0] == 4


def test_report_shows_no_exact_original_values(tmp_path):
    """A ZIP code held by one person must not appear in the report's charts or tables."""
    from anon_core import report as R
    from anon_core.config import load_config

    cfg = _release_case(tmp_path)
    frame = pd.read_csv(tmp_path / "data.csv", dtype=str)
    frame.loc[0, "zip"] = "99417"  # one person's ZIP: generalized to 9941* or above in the release
    frame.to_csv(tmp_path / "data.csv", index=False)
    config = load_config(cfg)
    problem, _, _ = problem_for_release(config)
    result = problem.evaluate({"age": 2, "zip": 2, "sex": 0})
    report = R.build_report(cfg, problem, result)
    page = R.render_html(report)
    assert "99417" not in page
    for values in report.details["distributions"].values():
        shares = values["original"]
        assert all(round(s * 200) >= 5 for s in shares[:-1])  # small cells merged into "other"


# ============================================================================ private server
@pytest.mark.slow
def test_dashboard_makes_no_connection_outside_loopback(tmp_path):
    strace = shutil.which("strace")
    if strace is None:
        pytest.skip("strace is not installed (apt-get install strace)")
    probe = subprocess.run([strace, "-f", "-o", os.devnull, "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip(f"strace cannot attach here: {probe.stderr.decode()[:200]}")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    trace = tmp_path / "trace.txt"
    streamlit = ROOT / ".venv" / "bin" / "streamlit"
    cmd = [str(streamlit)] if streamlit.exists() else [sys.executable, "-m", "streamlit"]
    proc = subprocess.Popen(
        [
            strace,
            "-f",
            "-e",
            "trace=connect,sendto",
            "-o",
            str(trace),
            *cmd,
            "run",
            "app.py",
            "--server.port",
            str(port),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env={**os.environ, "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"},
        start_new_session=True,  # strace detaches on SIGTERM: stop the whole group
    )
    try:
        deadline = time.monotonic() + 90
        page = b""
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1) as c:
                    c.sendall(b"GET /_stcore/health HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
                    page = c.recv(1000)
                    break
            except OSError:
                time.sleep(0.5)
        assert b"ok" in page, "the dashboard did not answer on 127.0.0.1"
        with socket.create_connection(("127.0.0.1", port), timeout=5) as c:
            c.sendall(b"GET / HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
            c.recv(1000)
        time.sleep(3)  # startup lookups run in the background
        # Not reachable from another interface: it listens on loopback only.
        listening = subprocess.run(["ss", "-ltn"], capture_output=True, text=True).stdout
        if listening:
            assert f"127.0.0.1:{port}" in listening and f"0.0.0.0:{port}" not in listening
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
    outside = []
    for line in trace.read_text().splitlines():
        if "connect(" not in line and "sendto(" not in line:
            continue
        if "AF_INET" not in line:  # AF_UNIX, netlink: local by definition
            continue
        loopback = any(a in line for a in ('inet_addr("127.', "::1", "::ffff:127."))
        if not loopback:
            outside.append(line)
    assert not outside, "\n".join(outside[:5])


def test_served_configuration_is_private_and_light():
    """.streamlit/config.toml: loopback only, no usage statistics, no file watcher polling the
    app's modules, and no full garbage collection after every run (each cost the live dashboard
    CPU on every slider move; see benchmarks/bench_browser.py)."""
    import tomllib

    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["server"]["address"] == "127.0.0.1"
    assert config["browser"]["gatherUsageStats"] is False
    assert config["server"]["fileWatcherType"] == "none"
    assert config["runner"]["postScriptGC"] is False
