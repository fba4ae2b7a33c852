"""The dashboard's front door: ``pages/``, ``ui/`` and ``app.py`` reach the engine only through the
application layer (``anon_core.services``), the workspace, the errors and a short list of value
types and renderers. Every import counts: module-level, function-level and type-checking alike.

A page that needs something else asks ``anon_core.services`` for it (a new or existing module
there), so the application layer stays the one place where the dashboard, the CLI and the report
meet the engine.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: Modules the dashboard may import anything from (and their submodules).
OPEN_MODULES = ("anon_core.services", "anon_core.workspace", "anon_core.errors")
#: Value types and renderers, by module: the only names the dashboard takes from elsewhere.
#: ``anon_core.report`` renders given figures and ranks above the services, so it is reached
#: directly, like the CLI reaches it.
NAMED = {
    "anon_core.data.dataset": {"Role"},
    "anon_core.params": {"Param"},
    "anon_core.report": {
        "DECISIONS",
        "audit_csv",
        "audit_json",
        "build_report",
        "render_html",
        "render_pdf",
    },
    "anon_core.report.dossier": {"build_dossier"},
    "anon_core.report.numbers": {"number", "percent", "percent_interval"},
}


def _open(module: str) -> bool:
    return any(module == m or module.startswith(m + ".") for m in OPEN_MODULES)


def violations(source: str, where: str) -> list[str]:
    """Imports of ``anon_core`` in ``source`` outside the allowlist, as ``where:line module.name``."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "anon_core" and not _open(alias.name):
                    out.append(f"{where}:{node.lineno} import {alias.name}")
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            module = node.module
            if module.split(".")[0] != "anon_core":
                continue
            for alias in node.names:
                if module == "anon_core":  # from anon_core import report: the whole module
                    if not _open(f"anon_core.{alias.name}"):
                        out.append(f"{where}:{node.lineno} from anon_core import {alias.name}")
                elif not _open(module) and alias.name not in NAMED.get(module, set()):
                    out.append(f"{where}:{node.lineno} from {module} import {alias.name}")
    return out


def _dashboard_files() -> list[Path]:
    files = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py"))]
    return files + sorted((ROOT / "ui").glob("*.py"))


def test_the_dashboard_imports_only_the_application_layer():
    found = []
    for path in _dashboard_files():
        found += violations(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    assert found == [], "reach these through anon_core.services:\n" + "\n".join(found)


def test_the_rule_reads_every_file_of_pages_and_ui():
    names = {p.relative_to(ROOT).as_posix() for p in _dashboard_files()}
    assert {"pages/release.py", "pages/risk.py", "ui/widgets.py", "ui/dossier.py"} <= names


def test_the_rule_catches_planted_imports():
    planted = """
import pandas as pd
from anon_core.services.session import Session
from anon_core.workspace import Workspace, fingerprint
from anon_core.errors import AnonError
from anon_core.data.dataset import Role
from anon_core.data.dataset import Dataset
from anon_core.report import render_html
from anon_core import report
import anon_core.search.lattice
import anon_core.services.risk


def late():
    from anon_core.risk.suda import suda2  # a function-level import counts
    return suda2


if False:  # a type-checking import counts too
    from anon_core.search.evaluate import Evaluator
"""
    assert violations(planted, "planted.py") == [
        "planted.py:7 from anon_core.data.dataset import Dataset",
        "planted.py:9 from anon_core import report",
        "planted.py:10 import anon_core.search.lattice",
        "planted.py:15 from anon_core.risk.suda import suda2",
        "planted.py:20 from anon_core.search.evaluate import Evaluator",
    ]


def test_the_rule_passes_an_import_of_the_application_layer_only():
    clean = "from anon_core.services.tables import load_table\nimport anon_core.services\n"
    assert violations(clean, "clean.py") == []


# ------------------------------------------------------------------ one release, every caller
APP = ROOT / "app.py"
ADULT = ROOT.parent / "shared" / "data" / "adult"


def _goto(at, page: str):
    at.switch_page(page).run()
    assert not at.exception, at.exception
    return at


def _cli_bytes(tmp_path: Path, config_path: Path) -> tuple[bytes, bytes]:
    """The CSV bytes `anon-core anonymize` and `anon-core release --method generalization` write."""
    from anon_core.cli import main

    out_a, out_r = tmp_path / "anonymized.csv", tmp_path / "released.csv"
    assert main(["anonymize", str(config_path), "-o", str(out_a)]) == 0
    args = ["release", str(config_path), "--method", "generalization", "--no-evidence"]
    assert main([*args, "-o", str(out_r)]) == 0
    return out_a.read_bytes(), out_r.read_bytes()


def test_the_release_page_and_the_cli_write_the_same_bytes_on_the_hospital_sample(tmp_path):
    """The Release page's generalized CSV comes from the Session, as the command line's does:
    the configuration the page offers, run headless, writes byte-identical files."""
    import shutil

    from streamlit.testing.v1 import AppTest

    from ui.widgets import SAMPLE_DIR, config_json

    at = AppTest.from_file(str(APP), default_timeout=300)
    at.run()
    assert not at.exception, at.exception
    at = _goto(at, "pages/release.py")
    assert not at.error, [e.value for e in at.error]
    ws = at.session_state["workspace"]
    page_csv = at.session_state["_derived"][("release-value-csv", ws.config_key())]
    shown = [f.value for f in at.dataframe][0]
    (tmp_path / "release.json").write_text(config_json(ws))
    shutil.copy(SAMPLE_DIR / ws.source, tmp_path / ws.source)
    anonymized, released = _cli_bytes(tmp_path, tmp_path / "release.json")
    assert page_csv == anonymized == released
    # the page's preview is that table: its row count is the file's (header excluded)
    assert page_csv.count(b"\n") - 1 >= len(shown)
    assert "patient_name" not in shown.columns  # an identifier is never released


@pytest.mark.skipif(not (ADULT / "adult.csv").is_file(), reason="../shared/data/adult is absent")
def test_the_dashboard_session_and_the_cli_write_the_same_bytes_on_adult(tmp_path):
    """Adult with ARX's hierarchy files: the dashboard's release (its workspace's Session, its CSV
    download) and both CLI commands give byte-identical CSVs; the search picks the transformation."""
    from anon_core.data.io import load_table
    from anon_core.services.session import Session
    from anon_core.workspace import Workspace
    from ui.evidence import download_bytes

    qis = ("age", "sex", "race", "marital-status")
    config = {
        "input": {"path": str(ADULT / "adult.csv"), "separator": ";"},
        "attributes": {
            **{
                q: {"role": "quasi-identifier", "hierarchy": {"file": f"adult_hierarchy_{q}.csv"}}
                for q in qis
            },
            "salary-class": {"role": "sensitive"},
        },
        "privacy_models": [{"model": "k-anonymity", "k": 5}],
        "suppression_limit": 0.02,
    }
    frame = load_table(ADULT / "adult.csv", separator=";").frame
    ws = Workspace.from_config(config, frame, "adult.csv", base_dir=ADULT)
    release = Session.from_workspace(ws).release()
    dashboard = download_bytes(release, "csv")
    assert release.method == "generalization" and release.details["transformation"]
    written = ws.to_config(input_path=str(ADULT / "adult.csv"))
    for spec in written["attributes"].values():  # the CLI reads the configuration from tmp_path
        if isinstance(spec.get("hierarchy"), dict) and "file" in spec["hierarchy"]:
            spec["hierarchy"]["file"] = str(ADULT / Path(spec["hierarchy"]["file"]).name)
    (tmp_path / "release.json").write_text(json.dumps(written))
    anonymized, released = _cli_bytes(tmp_path, tmp_path / "release.json")
    assert dashboard == anonymized == released
    # an independent count: the release keeps every input row but the suppressed ones
    rows = dashboard.count(b"\n") - 1
    assert len(frame) - int(0.02 * len(frame)) <= rows <= len(frame)


# ------------------------------------------------------------------ derived state follows the state
def _suda_figure(at) -> dict:
    charts = {c.proto.id: json.loads(c.proto.spec) for c in at.get("plotly_chart")}
    match = [spec for cid, spec in charts.items() if "suda_dis" in cid]
    assert match, list(charts)
    return match[0]


def test_the_risk_page_figures_follow_a_change_and_its_undo():
    """The SUDA2 scores of the released table are kept under the configuration's fingerprint:
    a coarser transformation changes the chart and Undo brings the first one back (a key blind
    to the transformation kept showing the first chart)."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(APP), default_timeout=300)
    at.run()
    at = _goto(at, "pages/risk.py")
    at.toggle(key="suda_on").set_value(True).run()
    assert not at.exception, at.exception
    first = _suda_figure(at)
    ws = at.session_state["workspace"]
    heights = ws.problem().dataset.heights
    coarser = {q: max(h - 2, 0) for q, h in zip(ws.qis, heights, strict=True)}
    assert coarser != ws.transformation
    ws.update("coarser", transformation=coarser)
    at = _goto(at, "pages/risk.py")
    assert _suda_figure(at) != first
    at.session_state["workspace"].undo()
    at = _goto(at, "pages/risk.py")
    assert _suda_figure(at) == first


def test_a_configuration_file_that_is_not_utf8_is_one_clear_error():
    from anon_core.errors import ConfigError
    from anon_core.services.configuration import config_from_bytes

    with pytest.raises(ConfigError, match=r"release\.json is not UTF-8 text"):
        config_from_bytes(b'{"suppression_limit": "\xff"}', "release.json")
    assert config_from_bytes(b"suppression_limit: 0.1\n", "release.YML") == {
        "suppression_limit": 0.1
    }
    with pytest.raises(ConfigError):  # YAML text in a .json file is not JSON
        config_from_bytes(b"suppression_limit: 0.1\n", "release.json")


@pytest.fixture
def fresh_ledger():
    """A fresh in-memory DP ledger (nothing spent on the sample yet), the server's again after."""
    from anon_core.services.dp import DPLedger
    from ui.session_store import set_dp_ledger

    set_dp_ledger(DPLedger(None))
    yield
    set_dp_ledger(None)


def test_dp_figures_are_shown_only_for_the_state_they_were_computed_for(fresh_ledger):
    """The DP page's error curves belong to the questions asked, its accuracy curves to the
    configuration (their k-anonymized baseline follows the transformation): a new question hides
    the old curves, an Undo hides the curves of the undone transformation, a Redo shows them."""
    from streamlit.testing.v1 import AppTest

    def charts(at) -> set[str]:
        return {c.proto.id for c in at.get("plotly_chart")}

    def has(at, key: str) -> bool:
        return any(key in cid for cid in charts(at))

    at = AppTest.from_file(str(APP), default_timeout=300)
    at.run()
    at = _goto(at, "pages/dp.py")
    at.selectbox(key="dp_type").set_value("count").run()
    at.number_input(key="dp_epsilon").set_value(0.1).run()
    at.button(key="dp_run").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    at.slider(key="dp_err_repeats").set_value(5).run()
    at.button(key="dp_err_run").click().run()
    assert has(at, "dp_error_chart")
    at.button(key="dp_run").click().run()  # the same question again: still one question
    assert has(at, "dp_error_chart")
    at.selectbox(key="dp_count_column").set_value("sex").run()
    at.button(key="dp_run").click().run()  # another question: the curves are not its curves
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert not has(at, "dp_error_chart")

    ws = at.session_state["workspace"]
    heights = ws.problem().dataset.heights
    ws.update("coarse", transformation={q: h - 2 for q, h in zip(ws.qis, heights, strict=True)})
    at = _goto(at, "pages/dp.py")
    at.selectbox(key="dp_ml_target").set_value("sex").run()
    at.multiselect(key="dp_ml_features_sex").set_value(["diagnosis"]).run()
    at.multiselect(key="dp_ml_models").set_value(["gaussian_nb"]).run()
    at.slider(key="dp_ml_repeats").set_value(1).run()
    at.slider(key="dp_ml_points").set_value(3).run()
    at.button(key="dp_ml_run").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert has(at, "dp_ml_chart")
    at.session_state["workspace"].undo()
    at = _goto(at, "pages/dp.py")
    assert not has(at, "dp_ml_chart")
    at.session_state["workspace"].redo()
    at = _goto(at, "pages/dp.py")
    assert has(at, "dp_ml_chart")
