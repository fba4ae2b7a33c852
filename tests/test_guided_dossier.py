"""The guided path with a method other than generalization, in the dashboard (AppTest):
Protect (microaggregation / MST) -> Evaluate (evidence and verdict) -> Release & sign-off (dossier).
The evidence is measured on the table whose CSV the page offers for download (same SHA-256)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from anon_core.methods import method_available

ROOT = Path(__file__).resolve().parents[1]
APP = ROOT / "app.py"


def _goto(at: AppTest, page: str) -> AppTest:
    at.switch_page(page).run()
    assert not at.exception, at.exception
    return at


def _click(at: AppTest, label_start: str) -> AppTest:
    buttons = [b for b in at.button if b.label.startswith(label_start)]
    assert buttons, (label_start, [b.label for b in at.button])
    buttons[0].click().run()
    assert not at.exception, at.exception
    return at


@pytest.mark.slow
@pytest.mark.parametrize(
    "method, spec",
    [
        ("microaggregation", {"name": "microaggregation", "k": 5, "columns": ["length_of_stay"]}),
        ("synthetic-mst", {"name": "synthetic-mst", "epsilon": 1.0, "iters": 100}),
    ],
)
def test_guided_path_to_a_signed_dossier(method, spec):
    if not method_available(method)[0]:
        pytest.skip(f"{method} is not installed here")
    at = AppTest.from_file(str(APP), default_timeout=600)
    at.run()
    at = _goto(at, "pages/protect.py")
    ws = at.session_state["workspace"]
    # the Protect page lists every available method; choosing one writes the method section
    ws.update(f"release method: {method}", sections={**ws.sections, "method": spec})
    at = _goto(at, "pages/protect.py")
    assert any("with these parameters" in s.value for s in at.success), [
        s.value for s in at.success
    ]
    at = _goto(at, "pages/evaluate.py")
    at = _click(at, "🧪 Measure the evidence")
    assert at.error == [] or all("FAIL" in e.value for e in at.error), [e.value for e in at.error]
    headline = [m.value for m in [*at.success, *at.error] if "acceptance criteria" in m.value]
    assert headline, "the verdict is the page's headline"
    at = _goto(at, "pages/release.py")
    downloads = {d.label: d for d in at.get("download_button")}
    assert "⬇️ CSV" in downloads
    ws = at.session_state["workspace"]
    release = at.session_state["_derived"][("release-value", ws.config_key())]
    evidence, verdict = at.session_state["_derived"][("evidence", ws.config_key())]
    assert release.method == method
    csv = at.session_state["_derived"][("release-value-csv", ws.config_key())]
    # the page shows the hash of the bytes it offers, the same release the evidence measured
    shown = [c.value for c in at.caption if "SHA-256 of the CSV release" in c.value]
    assert shown and hashlib.sha256(csv).hexdigest() in shown[0]
    # sign-off: approving a failing release needs a justification; rejecting does not
    at.text_input(key="dossier_name").set_value("Ada Officer")
    at.text_input(key="dossier_role").set_value("DPO")
    at.radio(key="dossier_decision").set_value("approve")
    at = _click(at, "📝 Sign and write the dossier")
    made = at.session_state["release_dossier"] if "release_dossier" in at.session_state else None
    if not verdict.passed:
        assert made is None and any("justification" in e.value for e in at.error)
        at.text_area(key="dossier_justification").set_value("Released to a secure enclave only.")
        at = _click(at, "📝 Sign and write the dossier")
        made = at.session_state["release_dossier"]
    assert made is not None
    html = made["html"]
    figures = json.loads(
        html.split('<script type="application/json" id="release-figures">')[1].split("</script>")[0]
    )
    assert figures["release"]["method"] == method
    assert figures["release"]["output_sha256"] == release.output_sha256
    assert figures["output"]["file"]["sha256"] == hashlib.sha256(csv).hexdigest()
    assert figures["verdict"]["passed"] == verdict.passed
    assert figures["evidence"]["figures"]["singling_out_multivariate"]["value"] == pytest.approx(
        evidence.figures["singling_out_multivariate"]["value"]
    )


def test_a_dashboard_dossier_verifies_from_the_command_line(tmp_path):
    """The officer's check: the configuration the Release page offers, its CSV download and the
    dossier it signed pass `anon-core verify` (same input hash, same release, same figures)."""
    import shutil

    from anon_core.cli import main
    from ui.widgets import SAMPLE_DIR, config_json

    at = AppTest.from_file(str(APP), default_timeout=600)
    at.run()
    ws = at.session_state["workspace"]
    spec = {"name": "pram", "columns": ["sex", "diagnosis"], "retention": 0.8}
    ws.update("release method: pram", sections={**ws.sections, "method": spec})
    at = _goto(at, "pages/release.py")
    at = _click(at, "🧪 Measure the evidence")
    at.text_input(key="dossier_name").set_value("Ada Officer")
    at.text_input(key="dossier_role").set_value("DPO")
    at.radio(key="dossier_decision").set_value("reject")
    at = _click(at, "📝 Sign and write the dossier")
    ws = at.session_state["workspace"]
    made = at.session_state["release_dossier"]
    csv = at.session_state["_derived"][("release-value-csv", ws.config_key())]
    (tmp_path / "release.json").write_text(config_json(ws))
    shutil.copy(SAMPLE_DIR / ws.source, tmp_path / ws.source)
    (tmp_path / "dossier.html").write_text(made["html"])
    (tmp_path / "released.csv").write_bytes(csv)
    args = [
        "verify",
        str(tmp_path / "release.json"),
        str(tmp_path / "dossier.html"),
        "--released",
        str(tmp_path / "released.csv"),
        "--no-signature",
    ]
    assert main(args) == 0
    (tmp_path / "released.csv").write_bytes(csv.replace(b"F", b"M", 1))
    assert main(args) == 4
