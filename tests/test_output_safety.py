"""Outputs never land on an input or a non-regular file, a failed run writes nothing, temporary
files never linger, and column names never run as spreadsheet formulas.

CLI cases run ``anon_core.cli.main`` in process. Expected header texts are written out by hand
from the cell rule (a leading apostrophe on text starting with = + - @ tab or CR, unless it is a
plain signed number), never computed by the code under test.
"""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from anon_core.cli import main
from anon_core.config import parse_config
from anon_core.data import safe_write
from anon_core.data.paths import PathGuard, check_run_outputs
from anon_core.errors import ConfigError
from anon_core.release.engines import get_engine
from anon_core.release.engines.base import write_frame
from anon_core.transform.problem import Problem

ROOT = Path(__file__).resolve().parents[1]


# ============================================================================ a small run
def _case(folder: Path, **extra) -> Path:
    """data.csv, a hierarchy file sex.csv, a population table pop.csv, the attack section's
    control.csv and config.json naming them all (relative to the configuration's folder)."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {
            "age": rng.integers(20, 70, 120),
            "zip": rng.choice(["02139", "02138", "02141", "02142"], 120),
            "sex": rng.choice(["F", "M"], 120),
            "note": rng.choice(["ok", "fine"], 120),
        }
    )
    frame.to_csv(folder / "data.csv", index=False)
    frame.iloc[:40].to_csv(folder / "released_part.csv", index=False)
    frame.iloc[40:80].to_csv(folder / "control.csv", index=False)
    frame[["age", "zip", "sex"]].to_csv(folder / "pop.csv", index=False)
    (folder / "sex.csv").write_text("F;*\nM;*\n")
    config = {
        "input": {"path": "data.csv"},
        "attributes": {
            "age": {"role": "quasi-identifier", "hierarchy": {"builder": "intervals", "width": 10}},
            "zip": {"role": "quasi-identifier", "hierarchy": {"builder": "masking"}},
            "sex": {"role": "quasi-identifier", "hierarchy": {"file": "sex.csv"}},
            "note": {"role": "insensitive"},
        },
        "privacy_models": [{"model": "k-anonymity", "k": 3}],
        "suppression_limit": 0.1,
        "population": {"table": "pop.csv"},
        "attack": {"released": "released_part.csv", "control": "control.csv"},
        **extra,
    }
    path = folder / "config.json"
    path.write_text(json.dumps(config))
    return path


def _snapshot(folder: Path) -> dict[str, tuple]:
    """Every entry of the folder: its kind, and the bytes of regular files / a link's target."""
    out = {}
    for p in sorted(folder.iterdir()):
        st = os.lstat(p)
        if stat.S_ISLNK(st.st_mode):
            out[p.name] = ("link", os.readlink(p))
        elif stat.S_ISREG(st.st_mode):
            out[p.name] = ("file", p.read_bytes())
        else:
            out[p.name] = (stat.S_IFMT(st.st_mode), None)
    return out


def _one_error(capsys) -> str:
    err = [line for line in capsys.readouterr().err.splitlines() if not line.startswith("warning:")]
    assert len(err) == 1 and err[0].startswith("error: "), err
    assert "Traceback" not in err[0] and len(err[0]) < 600
    return err[0]


def _refused(capsys, folder: Path, args: list[str], needle: str) -> None:
    before = _snapshot(folder)
    assert main(args) == 2
    assert needle in _one_error(capsys)
    assert _snapshot(folder) == before  # nothing written, replaced or left behind


# ============================================================================ files the run reads
@pytest.mark.parametrize("command", ["anonymize", "release"])
@pytest.mark.parametrize(
    "target, role",
    [
        ("sex.csv", "attributes.sex.hierarchy.file"),
        ("pop.csv", "population.table"),
        ("control.csv", "attack.control"),
        ("released_part.csv", "attack.released"),
        ("./x/../data.csv", "input.path"),
    ],
)
def test_an_output_that_is_a_file_the_run_reads_is_refused(
    tmp_path, monkeypatch, capsys, command, target, role
):
    _case(tmp_path)
    monkeypatch.chdir(tmp_path)
    _refused(capsys, tmp_path, [command, "config.json", "-o", target], f"same file as {role}")


def test_a_hard_link_or_symlink_to_the_input_is_refused(tmp_path, monkeypatch, capsys):
    _case(tmp_path)
    os.link(tmp_path / "data.csv", tmp_path / "hard.csv")
    (tmp_path / "soft.csv").symlink_to(tmp_path / "sex.csv")
    monkeypatch.chdir(tmp_path)
    for command in ("anonymize", "release"):
        _refused(capsys, tmp_path, [command, "config.json", "-o", "hard.csv"], "input.path")
        _refused(capsys, tmp_path, [command, "config.json", "-o", "soft.csv"], "hierarchy.file")


def test_an_external_key_or_signing_file_anywhere_in_the_configuration_is_protected(
    tmp_path, monkeypatch, capsys
):
    _case(tmp_path, output={"signing_key_file": "key.pem"})
    (tmp_path / "key.pem").write_text("not a real key\n")
    monkeypatch.chdir(tmp_path)
    _refused(
        capsys,
        tmp_path,
        ["anonymize", "config.json", "-o", "key.pem"],
        "same file as output.signing_key_file",
    )


# ============================================================================ not a regular file
def _special(tmp_path: Path, kind: str) -> str:
    name = f"{kind}.csv"
    path = tmp_path / name
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dangling":
        path.symlink_to(tmp_path / "missing" / "nowhere.csv")
    elif kind == "folder":
        path.mkdir()
    elif kind == "device":
        try:
            os.mknod(path, 0o600 | stat.S_IFCHR, os.makedev(1, 3))
        except (PermissionError, OSError):
            pytest.skip("creating a character device needs privileges this run does not have")
    return name


@pytest.mark.skipif(os.name != "posix", reason="FIFOs and devices are POSIX")
@pytest.mark.parametrize("command", ["anonymize", "release"])
@pytest.mark.parametrize(
    "kind, needle",
    [
        ("fifo", "is a named pipe (FIFO), not a regular file"),
        ("dangling", "is a symbolic link to a missing file"),
        ("device", "is a character device, not a regular file"),
        ("folder", "is a folder; name a file"),
    ],
)
def test_an_output_that_is_not_a_regular_file_is_refused(
    tmp_path, monkeypatch, capsys, command, kind, needle
):
    _case(tmp_path)
    name = _special(tmp_path, kind)
    monkeypatch.chdir(tmp_path)
    _refused(capsys, tmp_path, [command, "config.json", "-o", name], needle)
    assert not (tmp_path / "missing").exists()  # the link's target was not created either


def test_the_dashboard_write_guard_refuses_a_fifo(tmp_path):
    os.mkfifo(tmp_path / "p.csv")
    with pytest.raises(ConfigError, match="named pipe"):
        PathGuard((tmp_path,)).for_write("p.csv")


def test_an_output_under_a_file_is_refused_up_front(tmp_path):
    (tmp_path / "plain.txt").write_text("x")
    with pytest.raises(ConfigError, match="is not a folder"):
        check_run_outputs({"--output": (tmp_path / "plain.txt" / "out.csv", "table")})


# ============================================================================ compare --output DIR
@pytest.mark.parametrize(
    "rename, needle",
    [
        ({"data.csv": "generalization.csv"}, "would hold generalization.csv"),
        ({"sex.csv": "pram.csv"}, "would hold pram.csv"),
    ],
)
def test_compare_output_folder_never_overwrites_an_input(
    tmp_path, monkeypatch, capsys, rename, needle
):
    cfg = _case(tmp_path)
    config = json.loads(cfg.read_text())
    for old, new in rename.items():
        (tmp_path / old).rename(tmp_path / new)
    config["input"]["path"] = rename.get("data.csv", "data.csv")
    config["attributes"]["sex"]["hierarchy"]["file"] = rename.get("sex.csv", "sex.csv")
    cfg.write_text(json.dumps(config))
    monkeypatch.chdir(tmp_path)
    args = ["compare", "config.json", "--methods", "generalization,pram", "--output", "."]
    _refused(capsys, tmp_path, args, needle)


def test_compare_output_must_be_a_folder(tmp_path, monkeypatch, capsys):
    _case(tmp_path)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "taken").write_text("mine")
    args = ["compare", "config.json", "--methods", "pram", "--output", "taken"]
    _refused(capsys, tmp_path, args, "is a file, not a folder")


# ============================================================================ fail before writing
def test_an_unsupported_report_format_writes_nothing(tmp_path, monkeypatch, capsys):
    _case(tmp_path)
    monkeypatch.chdir(tmp_path)
    _refused(
        capsys,
        tmp_path,
        ["anonymize", "config.json", "-o", "out.csv", "--report", "r.docx"],
        "report format '.docx' is not supported",
    )
    assert not (tmp_path / "out.csv").exists()


def test_an_unsupported_table_format_writes_nothing(tmp_path, monkeypatch, capsys):
    _case(tmp_path)
    monkeypatch.chdir(tmp_path)
    _refused(
        capsys,
        tmp_path,
        ["anonymize", "config.json", "-o", "out.csv", "--pseudonym-map", "map.docx"],
        "Output format '.docx' is not supported",
    )


def test_a_good_run_still_writes(tmp_path, monkeypatch, capsys):
    _case(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["anonymize", "config.json", "-o", "out/released.csv"]) == 0
    released = pd.read_csv(tmp_path / "out" / "released.csv", dtype=str)
    assert list(released.columns) == ["age", "zip", "sex", "note"]
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["released.csv"]


# ============================================================================ temporary files
def _dead_pid() -> int:
    """The id of a process that has exited (and been reaped)."""
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True
    )
    return int(done.stdout)


def _stale(folder: Path, pid: int, name: str = "out.csv") -> Path:
    path = folder / f".{name}.{pid}-0123abcd.anon-partial"
    path.write_text("age,zip\n20-29,021**\n")  # released rows of a killed write
    return path


def test_temporary_names_follow_the_pattern():
    tmp = safe_write.temp_name(Path("/x/released.csv"))
    assert tmp.parent == Path("/x")
    assert safe_write.TEMP_PATTERN.match(tmp.name)
    assert tmp.name.startswith(f".released.csv.{os.getpid()}-")
    assert not safe_write.TEMP_PATTERN.match("released.csv")
    assert not safe_write.TEMP_PATTERN.match(".released.csv.partial")  # not ours: kept


def test_a_write_removes_temporary_files_of_dead_processes_only(tmp_path):
    dead = _stale(tmp_path, _dead_pid())
    alive = _stale(tmp_path, os.getppid(), "other.csv")  # a running process
    foreign = tmp_path / ".notes.anon-partial.txt"  # another pattern: never touched
    foreign.write_text("keep")
    dead_folder = tmp_path / f".x.parquet.{_dead_pid()}-89abcdef.anon-partial"
    dead_folder.mkdir()  # Spark's temporary folder
    (dead_folder / "part-0.csv").write_text("a\n1\n")
    safe_write.atomic_write(tmp_path / "out.csv", b"a\n1\n")
    assert not dead.exists() and not dead_folder.exists()
    assert alive.exists() and foreign.read_text() == "keep"
    assert (tmp_path / "out.csv").read_bytes() == b"a\n1\n"


def test_a_cli_release_sweeps_a_stale_temporary_file(tmp_path, monkeypatch, capsys):
    _case(tmp_path)
    stale = _stale(tmp_path, _dead_pid(), "released.csv")
    monkeypatch.chdir(tmp_path)
    assert main(["anonymize", "config.json", "-o", "released.csv"]) == 0
    assert not stale.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".anon-partial")]


def test_an_exception_mid_write_leaves_no_temporary_file_and_the_old_output(tmp_path):
    target = tmp_path / "out.csv"
    target.write_text("old\n")

    def half_then_fail(handle):
        handle.write(b"age,zip\n20-29,021**\n")
        raise RuntimeError("disk gone")

    with pytest.raises(RuntimeError, match="disk gone"):
        safe_write.atomic_write(target, half_then_fail)
    assert target.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv"]


def _duck_problem(tmp_path: Path):
    data = tmp_path / "d.csv"
    pd.DataFrame({"x": [1, 1, 2, 2] * 50, "y": ["a", "b"] * 100}).to_csv(data, index=False)
    config = parse_config(
        {
            "input": {"path": str(data)},
            "attributes": {"x": {"role": "quasi-identifier"}, "y": {"role": "insensitive"}},
            "privacy_models": [{"model": "k-anonymity", "k": 2}],
        }
    )
    engine = get_engine("duckdb")
    problem = Problem.from_source(config, engine)
    return problem, engine


@pytest.mark.parametrize("path", ["sql", "batches", "arrow"])
def test_a_duckdb_write_failing_midway_leaves_no_temporary_file(tmp_path, monkeypatch, path):
    from anon_core.release.engines import arrow_release, duckdb_engine

    problem, engine = _duck_problem(tmp_path)
    out = tmp_path / ("out.parquet" if path == "arrow" else "out.csv")
    out.write_text("old\n")
    seen = []

    def fail(*args, **kwargs):
        temps = [p for p in tmp_path.iterdir() if p.name.endswith(".anon-partial")]
        for p in temps:  # a partial file of released rows exists at this point
            p.write_text("x,y\n1,a\n")
        seen.extend(temps)
        raise OSError(28, "No space left on device")

    if path == "sql":
        monkeypatch.setattr(
            duckdb_engine.DuckDBEngine,
            "_copy",
            lambda self, sql, *a: (
                Path(sql.split("TO '")[1].split("'")[0]).write_text("x,y\n1,a\n"),
                fail(),
            )[1],
        )
    elif path == "batches":
        monkeypatch.setattr(duckdb_engine.DuckDBEngine, "_release_query", lambda *a, **k: None)
        monkeypatch.setattr(arrow_release.BatchWriter, "write", fail)
    else:
        monkeypatch.setattr(arrow_release, "supported", lambda *a: True)
        monkeypatch.setattr(
            arrow_release,
            "write",
            lambda source, plan, tmp, progress: (tmp.write_text("x,y\n1,a\n"), fail())[1],
        )
    try:
        with pytest.raises(OSError, match="No space"):
            problem.write_release(problem.evaluate({"x": 0}), out)
    finally:
        engine.close()
    assert seen, "the failure came before any temporary file existed"
    assert out.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["d.csv", out.name])


_WRITER = textwrap.dedent(
    """
    import sys, time
    from anon_core.data import safe_write
    with safe_write.atomic_file(sys.argv[1]) as handle:
        handle.write(b"age,zip\\n20-29,021**\\n" * 1000)
        handle.flush()
        print("writing", flush=True)
        time.sleep(60)
    """
)


def _start_writer(target: Path) -> subprocess.Popen:
    proc = subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(target)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    assert proc.stdout.readline().strip() == "writing"
    return proc


def _temps(folder: Path) -> list[Path]:
    return [p for p in folder.iterdir() if safe_write.TEMP_PATTERN.match(p.name)]


@pytest.mark.skipif(os.name != "posix", reason="signals")
def test_sigterm_mid_write_removes_the_temporary_file(tmp_path):
    target = tmp_path / "out.csv"
    target.write_text("old\n")
    proc = _start_writer(target)
    assert len(_temps(tmp_path)) == 1  # the partial file exists while the write runs
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == -signal.SIGTERM  # still dies of the signal
    assert _temps(tmp_path) == []
    assert target.read_text() == "old\n"


@pytest.mark.skipif(os.name != "posix", reason="signals")
def test_kill_9_mid_write_leaves_a_temporary_file_the_next_write_removes(tmp_path):
    target = tmp_path / "out.csv"
    target.write_text("old\n")
    proc = _start_writer(target)
    proc.kill()
    proc.wait(timeout=30)
    left = _temps(tmp_path)
    assert len(left) == 1 and left[0].stat().st_size > 0  # what SIGKILL cannot prevent
    assert target.read_text() == "old\n"
    safe_write.atomic_write(tmp_path / "other.csv", b"a\n")  # the next write to the folder
    assert _temps(tmp_path) == []


# ============================================================================ formula-like headers
NAMES = ["=cmd|' /C calc'!A0", "+SUM(1)", "-1+1", "@x", "-5", "plain"]
#: By hand: an apostrophe before each name a spreadsheet would run; "-5" is a number, kept.
ESCAPED = ["'=cmd|' /C calc'!A0", "'+SUM(1)", "'-1+1", "'@x", "-5", "plain"]


def _named_frame() -> pd.DataFrame:
    return pd.DataFrame([["a", "b", "c", "d", "e", "=f"]], columns=NAMES)


@pytest.mark.parametrize("suffix, sep", [(".csv", ","), (".tsv", "\t")])
def test_pandas_writer_escapes_header_like_cells(tmp_path, suffix, sep):
    out = write_frame(_named_frame(), tmp_path / f"t{suffix}")
    header, row = out.read_text().splitlines()
    assert header == sep.join(ESCAPED)  # no name holds the separator or a quote: none is quoted
    assert row.split(sep)[-1] == "'=f"  # the cells, as before
    raw = write_frame(_named_frame(), tmp_path / f"raw{suffix}", formula_escape=False)
    assert raw.read_text().splitlines()[0].split(sep) == NAMES


def test_excel_header_is_text_never_a_formula(tmp_path):
    out = write_frame(_named_frame(), tmp_path / "t.xlsx")
    with zipfile.ZipFile(out) as z:
        sheet = z.read("xl/worksheets/sheet1.xml").decode()
    assert "<f>" not in sheet and "<f " not in sheet  # no cell, header included, is a formula
    for name in NAMES[:4]:
        assert (
            f'<c r="{_cell(NAMES.index(name))}1" t="inlineStr"><is><t xml:space="preserve">{name}</t></is></c>'
            in sheet
        )


def _cell(column: int) -> str:
    return "ABCDEF"[column]


def _header_case(tmp_path: Path) -> Path:
    folder = tmp_path / "h"
    folder.mkdir()
    frame = pd.DataFrame(
        {
            "=cmd|' /C calc'!A0": ["x", "y"] * 10,
            "+SUM(1)": ["p", "q"] * 10,
            "@x": [str(i % 2) for i in range(20)],
        }
    )
    frame.to_csv(folder / "d.csv", index=False)
    config = {
        "input": {"path": "d.csv"},
        "attributes": {
            "@x": {"role": "quasi-identifier"},
            "=cmd|' /C calc'!A0": {"role": "insensitive"},
            "+SUM(1)": {"role": "insensitive"},
        },
        "privacy_models": [{"model": "k-anonymity", "k": 2}],
        "transformation": {"@x": 0},
    }
    (folder / "c.json").write_text(json.dumps(config))
    return folder


def _header(path: Path) -> list[str]:
    import csv

    if path.is_dir():  # Spark's folder of parts
        path = sorted(path.glob("part-*"))[0]
    with path.open(newline="") as handle:
        return next(csv.reader(handle))


@pytest.mark.parametrize("engine", ["pandas", "duckdb"])
def test_cli_release_escapes_formula_headers(tmp_path, capsys, engine):
    folder = _header_case(tmp_path)
    out = folder / "out.csv"
    args = ["anonymize", str(folder / "c.json"), "--engine", engine, "-o", str(out)]
    assert main(args) == 0, capsys.readouterr().err
    assert _header(out) == ["'=cmd|' /C calc'!A0", "'+SUM(1)", "'@x"]


def test_duckdb_batch_writer_escapes_headers(tmp_path, monkeypatch):
    from anon_core.release.engines import duckdb_engine

    monkeypatch.setattr(duckdb_engine.DuckDBEngine, "_release_query", lambda *a, **k: None)
    folder = _header_case(tmp_path)
    assert (
        main(
            ["anonymize", str(folder / "c.json"), "--engine", "duckdb", "-o", str(folder / "o.csv")]
        )
        == 0
    )
    assert _header(folder / "o.csv") == ["'=cmd|' /C calc'!A0", "'+SUM(1)", "'@x"]


@pytest.mark.skipif(
    __import__("shutil").which("java") is None, reason="the Spark engine needs a Java runtime"
)
def test_spark_csv_writer_escapes_headers(tmp_path, capsys):
    pytest.importorskip("pyspark")
    folder = _header_case(tmp_path)
    out = folder / "spark.csv"
    args = ["anonymize", str(folder / "c.json"), "--engine", "spark", "-o", str(out)]
    assert main(args) == 0, capsys.readouterr().err
    assert _header(out) == ["'=cmd|' /C calc'!A0", "'+SUM(1)", "'@x"]
    assert not _temps(folder)


def test_verify_regenerates_an_escaped_header_byte_for_byte(tmp_path, monkeypatch, capsys):
    folder = _header_case(tmp_path)
    monkeypatch.chdir(folder)
    assert main(["anonymize", "c.json", "-o", "out.csv", "--report", "r.html"]) == 0
    assert _header(folder / "out.csv")[0] == "'=cmd|' /C calc'!A0"
    capsys.readouterr()
    assert main(["verify", "c.json", "r.html", "--released", "out.csv"]) == 0
    assert json.loads(capsys.readouterr().out)["release_file"] == "matches"


def test_a_refused_release_writes_no_pseudonym_map_either(tmp_path, monkeypatch, capsys):
    """k larger than the table: nothing satisfies the models, so neither -o nor the map is written."""
    cfg = _case(tmp_path)
    config = json.loads(cfg.read_text())
    frame = pd.read_csv(tmp_path / "data.csv")
    frame.assign(email=[f"p{i}@x.org" for i in range(len(frame))]).to_csv(
        tmp_path / "data.csv", index=False
    )
    config["attributes"]["email"] = {"role": "identifier"}
    config["pseudonymize"] = {"columns": {"email": {"method": "hmac", "key_env": "ANON_TEST_KEY"}}}
    config["privacy_models"] = [{"model": "k-anonymity", "k": 1000}]
    config["suppression_limit"] = 0.0
    cfg.write_text(json.dumps(config))
    monkeypatch.setenv("ANON_TEST_KEY", "0123456789abcdef0123456789abcdef")
    monkeypatch.chdir(tmp_path)
    args = ["anonymize", "config.json", "-o", "out.csv", "--pseudonym-map", "map.csv"]
    assert main(args) == 3
    assert "nothing was written" in _one_error(capsys)
    assert not (tmp_path / "out.csv").exists() and not (tmp_path / "map.csv").exists()
    config["privacy_models"] = [{"model": "k-anonymity", "k": 2}]
    config["suppression_limit"] = 1.0
    cfg.write_text(json.dumps(config))
    assert main(args) == 0  # the same run, satisfiable: both written
    assert set(pd.read_csv(tmp_path / "map.csv")["column"]) == {"email"}


def test_compare_writes_each_release_into_its_folder(tmp_path, monkeypatch, capsys):
    cfg = _case(tmp_path)
    config = json.loads(cfg.read_text())
    del config["attack"]  # compare splits the input itself
    cfg.write_text(json.dumps(config))
    monkeypatch.chdir(tmp_path)
    args = ["compare", "config.json", "--methods", "pram", "--baseline", "--output", "releases"]
    args += ["--n-attacks", "20", "--ml-models", "logistic_regression"]
    assert main(args) == 0, capsys.readouterr().err
    written = json.loads(capsys.readouterr().out)["written"]
    assert sorted(Path(p).name for p in written) == ["pram.csv", "unprotected-copy.csv"]
    assert sorted(p.name for p in (tmp_path / "releases").iterdir()) == sorted(
        ["pram.csv", "unprotected-copy.csv"]
    )
    copy = pd.read_csv(tmp_path / "releases" / "unprotected-copy.csv")
    assert list(copy.columns) == ["age", "zip", "sex", "note"]
    assert 0 < len(copy) < 120  # the released part of the split, never the control records


def test_the_compare_service_writer_uses_the_same_rules(tmp_path):
    from anon_core.services.compare import write_atomic

    data = tmp_path / "in.csv"
    data.write_text("a\n1\n")
    os.link(data, tmp_path / "hard.csv")
    frame = pd.DataFrame({"=x": ["=y"]})
    with pytest.raises(ConfigError, match="same file as protected file 1"):
        write_atomic(frame, tmp_path / "hard.csv", protect=[data])
    out = write_atomic(frame, tmp_path / "sub" / "o.csv", protect=[data])
    assert out.read_text() == "'=x\n'=y\n"
    assert sorted(p.name for p in out.parent.iterdir()) == ["o.csv"]
