"""The bad-input corpus (tests/bad_inputs/<case>/): every case gives ONE clear line, never a traceback.

Each case folder holds ``config.json`` (and its data or hierarchy files), a
``README`` saying what is wrong, optionally ``ARGS`` (extra CLI arguments) and
``EXIT`` (the expected exit code when it is not 2, e.g. 3 for "no release
satisfies the models"). The CLI's ``main`` runs in-process (fast; an uncaught
exception fails the test with its traceback); one case also runs as a subprocess,
exactly as a user runs it.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

CORPUS = Path(__file__).parent / "bad_inputs"
CASES = sorted(p.name for p in CORPUS.iterdir() if p.is_dir())


def test_the_corpus_is_there():
    assert len(CASES) >= 20


def _prepare(case: str, tmp_path: Path) -> tuple[Path, list[str], int, dict[str, bytes]]:
    folder = tmp_path / case
    shutil.copytree(CORPUS / case, folder)
    before = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    args = (folder / "ARGS").read_text().split() if (folder / "ARGS").is_file() else []
    expected = int((folder / "EXIT").read_text()) if (folder / "EXIT").is_file() else 2
    return folder, args, expected, before


def _check(folder: Path, code: int, stderr: str, expected: int, before: dict[str, bytes]) -> None:
    errors = [line for line in stderr.splitlines() if not line.startswith("warning:")]
    assert "Traceback" not in stderr, stderr[-2000:]
    assert code == expected, (code, stderr)
    assert len(errors) == 1 and errors[0].startswith("error: "), stderr
    assert len(errors[0]) < 600, errors[0]
    # Nothing the run was given was changed or destroyed.
    for name, data in before.items():
        assert (folder / name).read_bytes() == data, name


@pytest.mark.parametrize("case", CASES)
def test_bad_input_gives_one_line(case, tmp_path, monkeypatch, capsys):
    from anon_core.cli import main

    folder, args, expected, before = _prepare(case, tmp_path)
    monkeypatch.chdir(folder)
    code = main(["anonymize", "config.json", *args])
    _check(folder, code, capsys.readouterr().err, expected, before)


def test_bad_input_in_a_subprocess(tmp_path):
    folder, args, expected, before = _prepare("output_is_input", tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "anon_core.cli", "anonymize", "config.json", *args],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
    )
    _check(folder, done.returncode, done.stderr, expected, before)
