"""Release report: figures equal the core's, verify detects tampering, runs are reproducible,
no secret leaks, the PDF renders and the HTML works offline."""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from anon_core import ConfigError, Problem, load_config
from anon_core import report as R
from anon_core.cli import write_table
from anon_core.risk.disclosure import attribute_disclosure, disclosure_dict
from anon_core.risk.reidentification import report_dict, risk_of_original, risk_of_result
from anon_core.services.inputs import problem_for_release
from anon_core.utility.summary import compare_distributions, ml_utility, quality_summary
from anon_core.workspace import Workspace

from .conftest import ADULT, needs_shared

SECRETS = ("s4lt-DO-NOT-LEAK", "k3y-DO-NOT-LEAK", "pseudo-k3y-DO-NOT-LEAK")
SECTIONS = [
    "summary",
    "fingerprints",
    "attributes",
    "hierarchies",
    "privacy",
    "method",
    "transformation",
    "risk",
    "population",
    "disclosure",
    "utility",
    "pii",
    "dp",
    "software",
    "audit",
    "signoff",
    "configuration",
]
CHROMIUM = Path("/usr/bin/chromium")
SIGNOFF = {
    "name": "Ada Lovelace",
    "role": "Data protection officer",
    "decision": "approve",
    "comments": "Fine for the research partner.",
}
AUDIT = [
    {"change": "roles", "at": "2025-01-02T10:00:00+00:00"},
    {"change": "privacy models", "at": "2025-01-02T10:05:00+00:00"},
]
HMAC_ENV = "ANON_TEST_REPORT_HMAC_KEY"
os.environ.setdefault(
    HMAC_ENV, SECRETS[2]
)  # the pseudonymization secret never enters a config or report
PII = {"entities": ["EMAIL", "PHONE"], "method": "pseudonymize", "salt": SECRETS[0]}
DP = {"epsilon": 1.0, "delta": 1e-6, "spent": 0.4, "mechanism": "laplace", "key": SECRETS[1]}


# ----------------------------------------------------------------------------- data
def _frame(n: int = 300, seed: int = 7) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "name": [f"person {i}" for i in range(n)],
            "zip": [f"0213{d}" for d in rng.integers(0, 10, n)],
            "age": rng.integers(18, 90, n).astype(str),
            "sex": rng.choice(["F", "M"], n),
            "disease": rng.choice(["flu", "cold", "asthma", "diabetes"], n),
            "notes": [f"note {i}" for i in range(n)],
        }
    )


def _config(**overrides) -> dict:
    cfg = {
        "input": {"path": "people.csv"},
        "attributes": {
            "name": {"role": "identifier"},
            "zip": {"role": "quasi-identifier", "hierarchy": {"builder": "masking", "levels": 5}},
            "age": {"role": "quasi-identifier", "hierarchy": {"builder": "intervals", "width": 5}},
            "sex": {"role": "quasi-identifier"},
            "disease": {"role": "sensitive"},
            "notes": {"role": "insensitive"},
        },
        "privacy_models": [
            {"model": "k-anonymity", "k": 4},
            {"model": "distinct-l-diversity", "attribute": "disease", "l": 2},
        ],
        "suppression_limit": 0.05,
        "quality_metric": {"name": "loss"},
        # The HMAC key comes from the environment (set below); the config only names the variable.
        "pseudonymize": {"columns": {"name": {"method": "hmac", "key_env": HMAC_ENV}}},
    }
    cfg.update(overrides)
    return cfg


def _write_case(folder: Path, config: dict | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    _frame().to_csv(folder / "people.csv", index=False)
    path = folder / "release.json"
    path.write_text(json.dumps(config or _config(), indent=2))
    return path


def _anonymize(cfg_path: Path, out: Path, report_path: Path, **extra):
    """What `anon-core anonymize CONFIG --output OUT --report REPORT` does, through the module's functions."""
    config = load_config(cfg_path)
    problem, _, _ = problem_for_release(config)  # as the CLI builds it (sections applied)
    found = problem.search(**config.search) if config.transformation is None else None
    result = found.optimum if found is not None else problem.evaluate(config.transformation)
    write_table(problem.apply(result, config.suppressed_records), out)
    report = R.build_report(cfg_path, problem, result, search_result=found, released=out, **extra)
    R.write_report(report, report_path)
    return problem, found, result, report


@pytest.fixture(scope="module")
def case(tmp_path_factory):
    folder = tmp_path_factory.mktemp("release")
    cfg_path = _write_case(folder)
    out = folder / "released.csv"
    problem, found, result, report = _anonymize(
        cfg_path, out, folder / "report.html", signoff=SIGNOFF, audit=AUDIT, pii=PII, dp=DP
    )
    R.write_report(report, folder / "report.pdf")
    return {
        "folder": folder,
        "config": cfg_path,
        "out": out,
        "problem": problem,
        "found": found,
        "result": result,
        "report": report,
        "html": folder / "report.html",
        "pdf": folder / "report.pdf",
    }


def _pdf_text(path: Path) -> str:
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(str(path))
    try:
        return "\n".join(pdf[i].get_textpage().get_text_range() for i in range(len(pdf)))
    finally:
        pdf.close()


def _json(x):
    return json.loads(json.dumps(x, allow_nan=True).replace("NaN", "null"))


def _contains(figures, core) -> bool:
    """Every entry of the core's dict is in the report's figures, equal (the report may add entries)."""
    if isinstance(core, dict):
        return isinstance(figures, dict) and all(
            k in figures and _contains(figures[k], v) for k, v in core.items()
        )
    return figures == core


# ----------------------------------------------------------------------------- content
def test_every_section_is_in_the_model_the_html_and_the_pdf(case):
    sections = R.report_sections(case["report"])
    assert [s["id"] for s in sections] == SECTIONS
    page = case["html"].read_text(encoding="utf-8")
    text = _pdf_text(case["pdf"])
    for s in sections:
        assert f'<section id="{s["id"]}">' in page
        assert s["title"] in text, s["title"]
    assert "Ada Lovelace" in page and "Ada Lovelace" in text
    assert "Fine for the research partner." in text


def test_figures_equal_the_cores_own(case):
    f, problem, result, found = (
        case["report"].figures,
        case["problem"],
        case["result"],
        case["found"],
    )
    assert _contains(f["risk"]["before"], _json(report_dict(risk_of_original(problem))))
    assert _contains(f["risk"]["after"], _json(report_dict(risk_of_result(result))))
    assert f["utility"]["quality"] == _json(quality_summary(problem, result).to_dict())
    assert f["utility"]["distributions"] == _json(compare_distributions(problem, result).to_dict())
    assert f["disclosure"] == _json(disclosure_dict(attribute_disclosure(result)))
    summary = result.summary()
    assert {k: f["transformation"][k] for k in summary} == _json(summary)
    assert [s["violating_records"] for s in f["privacy"]["status"]] == [
        s.violating_records for s in result.models
    ]
    assert f["privacy"]["max_suppressed_records"] == problem.evaluator.max_outliers == 15
    assert f["privacy"]["suppressed_records"] == result.suppressed_records
    assert f["privacy"]["models"] == _config()["privacy_models"]
    sel = f["transformation"]["selection"]
    assert sel["method"] == "search"
    assert (sel["nodes_checked"], sel["lattice_size"]) == (found.nodes_checked, found.lattice_size)
    assert sel["ties"] == [dict(t) for t in found.ties]
    front = sel["pareto_frontier"]
    assert front and all(r["satisfied"] for r in front)
    assert [r["average_risk"] for r in front] == sorted(r["average_risk"] for r in front)
    assert all(a["quality"] > b["quality"] for a, b in zip(front, front[1:], strict=False))
    assert front[-1]["quality"] == pytest.approx(result.quality.value, rel=1e-12)
    # fingerprints
    data = (case["folder"] / "people.csv").read_bytes()
    assert f["input"]["file"] == {
        "name": "people.csv",
        "sha256": hashlib.sha256(data).hexdigest(),
        "bytes": len(data),
    }
    released = problem.apply(result)
    assert f["output"]["file"]["sha256"] == hashlib.sha256(case["out"].read_bytes()).hexdigest()
    assert (
        f["output"]["csv_sha256"]
        == hashlib.sha256(released.to_csv(index=False, lineterminator="\n").encode()).hexdigest()
    )
    assert (f["output"]["rows"], f["output"]["columns"]) == (len(released), list(released.columns))
    assert f["input"]["rows"] == 300
    # 'name' is pseudonymized (HMAC), so it is released as pseudonyms, never as the names themselves.
    assert "name" in f["output"]["columns"]
    assert not set(released["name"]) & set(_frame()["name"])
    # roles and hierarchies
    # the effective role: a pseudonymized identifier is released (as pseudonyms), i.e. insensitive
    assert f["attributes"]["name"] == "insensitive" and f["attributes"]["disease"] == "sensitive"
    assert case["report"].config["pseudonymize"]["columns"]["name"]["method"] == "hmac"
    for j, q in enumerate(problem.freq.qis):
        enc = problem.dataset.hierarchy(q)
        h = f["hierarchies"][q]
        assert h["level"] == result.transformation[q] and h["height"] == enc.height
        assert h["labels"] == [str(v) for v in enc.labels[result.levels[j]]]


def test_the_report_reads_back_from_html_and_pdf(case):
    report = case["report"]
    figures = R.report_figures(report)
    assert R.read_report_figures(case["html"]) == figures == R.read_report_figures(case["pdf"])
    assert report.figures_sha256 == hashlib.sha256(R.figures_json(figures).encode()).hexdigest()
    for path in (case["html"], case["pdf"]):
        embedded = R.read_report(path)
        assert embedded["config"]["privacy_models"] == _config()["privacy_models"]
        assert embedded["meta"]["figures_sha256"] == report.figures_sha256
        assert embedded["meta"]["signoff"]["decision"] == "approve"
        assert embedded["meta"]["audit"] == AUDIT
    assert set(report.meta["software"]) >= {
        "python",
        "anon_core",
        "numpy",
        "pandas",
        "scikit-learn",
    }
    assert report.meta["generated_at"].endswith("Z")


def test_no_secret_in_any_report(case):
    report = case["report"]
    from pypdf import PdfReader

    attachments = PdfReader(str(case["pdf"])).attachments
    assert set(attachments) == set(R.ATTACHMENTS.values())
    texts = {
        "model": json.dumps(report.to_dict()),
        "html": case["html"].read_text(encoding="utf-8"),
        "pdf text": _pdf_text(case["pdf"]),
        "pdf attachments": "".join(b.decode() for v in attachments.values() for b in v),
        "pdf bytes": case["pdf"].read_bytes().decode("latin-1"),
    }
    for where, text in texts.items():
        for secret in SECRETS:
            assert secret not in text, (where, secret)
    assert (
        report.provided["pii"]["salt"] == R.REDACTED and report.provided["dp"]["key"] == R.REDACTED
    )
    assert report.config["pseudonymize"] == {
        "columns": {"name": {"method": "hmac", "key_env": HMAC_ENV}}
    }
    assert report.provided["dp"]["epsilon"] == 1.0  # non-secret settings are kept


def test_pdf_first_page_is_not_blank(case):
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(str(case["pdf"]))
    try:
        assert len(pdf) >= 4
        image = np.asarray(pdf[0].render(scale=1.0).to_pil().convert("L"), dtype=float)
    finally:
        pdf.close()
    assert image.std() > 20, image.std()
    assert (image < 128).mean() > 0.01  # a fair share of dark (text) pixels


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.urls: list[tuple[str, str, str]] = []
        self.tags: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        for name, value in attrs:
            if (
                name in {"src", "href", "data", "action", "poster", "srcset", "background"}
                and value
            ):
                self.urls.append((tag, name, value))


def test_html_is_self_contained_and_works_offline(case):
    page = case["html"].read_text(encoding="utf-8")
    links = _Links()
    links.feed(page)
    remote = [
        u for u in links.urls if u[2].strip().lower().startswith(("http:", "https:", "//", "ftp:"))
    ]
    assert remote == []
    assert all(
        u[1] == "href" and u[2].startswith("#") for u in links.urls
    )  # only the in-page contents
    assert "link" not in links.tags and "iframe" not in links.tags and "@import" not in page
    assert page.count("plotly.js v") == 1  # plotly.js inlined once for every chart
    assert page.count("Plotly.newPlot(") >= 6
    assert '<script type="application/json" id="release-config">' in page
    assert '<script type="application/json" id="release-figures">' in page


@pytest.mark.skipif(
    not CHROMIUM.exists(), reason="Debian's chromium (/usr/bin/chromium) is not installed"
)
def test_html_charts_draw_in_a_browser_without_network(case):
    proc = subprocess.run(
        [
            str(CHROMIUM),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--no-first-run",
            "--proxy-server=http://127.0.0.1:9",
            "--proxy-bypass-list=<-loopback>",
            "--virtual-time-budget=10000",
            "--dump-dom",
            case["html"].resolve().as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=90,
    )
    charts = case["html"].read_text(encoding="utf-8").count("Plotly.newPlot(")
    assert proc.stdout.count('class="plot-container plotly"') == charts, proc.stderr[-2000:]


def test_ml_section_only_when_given(case, tmp_path):
    problem, result = case["problem"], case["result"]
    sections = {s["id"]: s for s in R.report_sections(case["report"])}
    assert any(
        "ML utility was not assessed" in b.get("text", "") for b in sections["utility"]["blocks"]
    )
    ml = ml_utility(
        problem.dataset.frame,
        problem.apply(result),
        "disease",
        models=["logistic_regression"],
        cv=3,
    )
    report = R.build_report(case["config"], problem, result, search_result=case["found"], ml=ml)
    assert report.provided["ml"]["models"] == _json(ml.to_dict())["models"]
    assert report.figures == case["report"].figures | {"output": report.figures["output"]}
    blocks = {s["id"]: s for s in R.report_sections(report)}["utility"]["blocks"]
    table = next(
        b for b in blocks if b["kind"] == "table" and b["columns"][:2] == ["model", "score"]
    )
    accuracy = ml.model("logistic_regression").original.accuracy.mean
    assert table["rows"][0][:3] == ["logistic_regression", "accuracy", R.fmt(accuracy)]
    R.write_report(report, tmp_path / "ml.pdf")
    assert "ML utility: original against released" in _pdf_text(tmp_path / "ml.pdf")


# ----------------------------------------------------------------------------- verify
def test_verify_passes_for_an_untouched_release(case):
    # The case's sign-off is not signed: its figures verify, its sign-off cannot (one difference).
    for path in (case["html"], case["pdf"]):
        assert R.verify(case["config"], path, case["out"], no_signature=True) == []
        differences = R.verify(case["config"], path, case["out"])
        assert len(differences) == 1 and "sign-off that is not signed" in differences[0]
    assert R.verify(case["config"], case["pdf"], no_signature=True) == []


def test_verify_detects_a_tampered_released_file(case, tmp_path):
    tampered = tmp_path / "released.csv"
    lines = case["out"].read_text().splitlines()
    lines[1] = lines[1].replace("flu", "hiv") if "flu" in lines[1] else lines[1] + "x"
    tampered.write_text("\n".join(lines) + "\n")
    differences = R.verify(case["config"], case["pdf"], tampered, no_signature=True)
    assert len(differences) == 1 and differences[0].startswith(
        "released file released.csv: SHA-256"
    )


def test_verify_detects_an_edited_configuration(case, tmp_path):
    cfg = _config()
    cfg["privacy_models"][0]["k"] = 6
    edited = _write_case(tmp_path, cfg)
    differences = R.verify(edited, case["html"], case["out"])
    assert "configuration.privacy_models[0].k: report 4, re-run 6" in differences
    assert any(d.startswith("privacy.models[0].k") for d in differences)
    assert any(d.startswith(("risk.after", "transformation.")) for d in differences)


def test_verify_detects_a_changed_input_file(case, tmp_path):
    folder = tmp_path / "changed"
    cfg_path = _write_case(folder)
    frame = pd.read_csv(folder / "people.csv", dtype=str)
    frame.loc[0, "age"] = "19" if frame.loc[0, "age"] != "19" else "20"
    frame.to_csv(folder / "people.csv", index=False)
    differences = R.verify(cfg_path, case["pdf"])
    assert any(d.startswith("input.file.sha256") for d in differences)
    assert any(d.startswith("input.table_sha256") for d in differences)


def test_verify_detects_an_edited_report(case, tmp_path):
    page = case["html"].read_text(encoding="utf-8")
    start = page.index('id="release-figures">') + len('id="release-figures">')
    end = page.index("</script>", start)
    figures = json.loads(page[start:end])
    figures["risk"]["after"]["prosecutor"]["highest_risk"] = 0.01
    edited = tmp_path / "edited.html"
    edited.write_text(page[:start] + json.dumps(figures) + page[end:], encoding="utf-8")
    differences = R.verify(case["config"], edited)
    assert differences[0].startswith("report: its figures do not hash to the SHA-256 it states")
    assert any(d.startswith("risk.after.prosecutor.highest_risk: report 0.01") for d in differences)


def test_verify_rejects_a_file_that_is_not_a_report(case, tmp_path):
    other = tmp_path / "other.html"
    other.write_text("<html><body>hello</body></html>")
    with pytest.raises(ConfigError, match="holds no release figures"):
        R.verify(case["config"], other)


# ----------------------------------------------------------------------------- reproducibility
def test_two_runs_give_identical_release_figures_and_reports(tmp_path, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    runs = []
    for name in ("a", "b"):
        cfg_path = _write_case(tmp_path / name)
        out, rep = tmp_path / name / "released.csv", tmp_path / name / "report.html"
        report = _anonymize(cfg_path, out, rep, signoff=SIGNOFF)[3]
        R.write_report(report, tmp_path / name / "report.pdf")
        runs.append(
            (
                out.read_bytes(),
                R.figures_json(report.figures),
                report.figures_sha256,
                rep.read_bytes(),
                (tmp_path / name / "report.pdf").read_bytes(),
            )
        )
    assert runs[0] == runs[1]
    assert R.read_report_figures(tmp_path / "a" / "report.pdf") == R.read_report_figures(
        tmp_path / "b" / "report.html"
    )


def test_configured_transformation_is_reported_as_configured(case, tmp_path):
    cfg = _config(transformation=dict(case["result"].transformation))
    cfg_path = _write_case(tmp_path, cfg)
    _, found, result, report = _anonymize(cfg_path, tmp_path / "out.csv", tmp_path / "r.html")
    assert found is None and report.figures["transformation"]["selection"] == {
        "method": "configured"
    }
    assert report.figures["risk"] == case["report"].figures["risk"]
    assert R.verify(cfg_path, tmp_path / "r.html", tmp_path / "out.csv") == []


# ----------------------------------------------------------------------------- inputs
def test_audit_trail_from_the_workspace_and_its_downloads():
    ws = Workspace.from_frame(_frame(60))
    ws.update("k", models=[{"model": "k-anonymity", "k": 3}])
    ws.update("suppression", suppression_limit=0.1)
    assert [a["change"] for a in ws.audit] == ["k", "suppression"]
    back = pd.read_csv(io.StringIO(R.audit_csv(ws.audit)))
    assert back.to_dict(orient="records") == ws.audit
    assert json.loads(R.audit_json(ws.audit)) == ws.audit
    config = ws.to_config()
    problem = ws.problem()
    report = R.build_report(
        config,
        problem,
        problem.evaluate(ws.default_transformation()),
        audit=ws.audit,
        signoff={"decision": "reject", "name": "B", "role": "", "comments": "too risky"},
    )
    rows = next(
        b for b in next(s for s in R.report_sections(report) if s["id"] == "audit")["blocks"]
    )["rows"]
    assert [r[1:] for r in rows] == [[a["change"], a["at"]] for a in ws.audit]
    assert (
        report.figures["input"]["file"] is None
    )  # a mapping configuration: only the table is fingerprinted
    assert (
        report.figures["input"]["table_sha256"]
        == hashlib.sha256(ws.frame.to_csv(index=False, lineterminator="\n").encode()).hexdigest()
    )


def test_a_dashboard_report_verifies_against_the_configuration_it_embeds(tmp_path):
    """The Release page's flow: workspace, search, optimum; then the CLI's verify on the downloaded files."""
    from anon_core.data.frequency import FrequencyTable
    from anon_core.data.io import load_table
    from anon_core.search.lattice import search

    sample = Path(__file__).resolve().parents[1] / "sample_data" / "hospital_discharge.csv"
    ws = Workspace.from_frame(load_table(sample).frame, sample.name)
    ev = ws.evaluator(FrequencyTable(ws.dataset()))
    found = search(ev)
    ws.update("optimum", transformation=dict(found.optimum.transformation))
    problem = Problem.from_evaluator(ws.evaluator(ev.freq))
    config = ws.to_config()
    report = R.build_report(
        config,
        problem,
        problem.evaluate(ws.transformation),
        search_result=found,
        input_bytes=sample.read_bytes(),
        audit=ws.audit,
        signoff=SIGNOFF,
    )
    assert report.figures["transformation"]["selection"]["method"] == "search"
    (tmp_path / sample.name).write_bytes(sample.read_bytes())
    (tmp_path / "release.json").write_text(
        json.dumps(R.read_report(R.write_report(report, tmp_path / "r.pdf"))["config"])
    )
    assert R.verify(tmp_path / "release.json", tmp_path / "r.pdf", no_signature=True) == []
    config["privacy_models"][0]["k"] += 1
    (tmp_path / "release.json").write_text(json.dumps(config))
    assert R.verify(tmp_path / "release.json", tmp_path / "r.pdf", no_signature=True)


def test_bad_inputs_are_explained(case):
    problem, result = case["problem"], case["result"]
    with pytest.raises(ConfigError, match="signoff.decision"):
        R.build_report(case["config"], problem, result, signoff={"decision": "maybe"})
    with pytest.raises(ConfigError, match="signoff"):
        R.build_report(case["config"], problem, result, signoff={"name": "x", "mood": "good"})
    with pytest.raises(ConfigError, match="audit"):
        R.build_report(case["config"], problem, result, audit=[{"change": "x"}])
    with pytest.raises(ConfigError, match="nothing to report"):
        R.build_report(case["config"], problem, None)
    with pytest.raises(ConfigError, match="not built from this configuration"):
        R.build_report(_config(suppression_limit=0.1), problem, result)
    with pytest.raises(ConfigError, match=".html or .pdf"):
        R.write_report(case["report"], case["folder"] / "report.docx")


# ----------------------------------------------------------------------------- ARX end to end
@needs_shared
def test_adult_end_to_end_gives_arxs_optimum_and_risk(
    tmp_path, adult_frame, adult_hierarchies, arx_reference
):
    order = arx_reference["attribute_order"]
    case = next(
        c
        for c in arx_reference["arx_test_suite_cases"]
        if c["description"].startswith("k-anonymity k=5, suppression limit 0.04")
    )
    cfg = {
        "input": {"path": str(ADULT / "adult.csv"), "separator": ";"},
        "attributes": {
            a: {
                "role": "quasi-identifier",
                "hierarchy": {"file": str(ADULT / f"adult_hierarchy_{a}.csv")},
            }
            for a in order
        },
        "privacy_models": case["privacy_models"],
        "suppression_limit": case["suppression_limit"],
        "quality_metric": case["quality_metric"],
    }
    cfg_path = tmp_path / "adult.json"
    cfg_path.write_text(json.dumps(cfg))
    problem, found, result, report = _anonymize(
        cfg_path, tmp_path / "adult_out.csv", tmp_path / "adult.html"
    )
    R.write_report(report, tmp_path / "adult.pdf")
    f = report.figures
    assert f["transformation"]["transformation"] == case["expected"]["levels"]
    assert f["transformation"]["quality"]["value"] == pytest.approx(
        case["expected"]["quality"], rel=1e-9, abs=0
    )
    assert (
        f["transformation"]["suppressed_records"] == result.suppressed_records <= 1206
    )  # floor(4 % of 30,162)
    ref = arx_reference["risk_of_original_all_9_qis"]
    before = f["risk"]["before"]
    assert before["equivalence_classes"] == ref["equivalence_classes"]
    assert before["sample_uniques"] == ref["sample_uniques"]
    assert before["prosecutor"]["highest_risk"] == ref["highest_prosecutor_risk"]
    assert before["prosecutor"]["average_risk"] == pytest.approx(
        ref["average_prosecutor_risk (= marketer success rate)"], rel=1e-12
    )
    for t, share in ref["records_at_risk_by_threshold"].items():
        assert before["prosecutor"]["records_at_risk"][str(float(t))] == pytest.approx(
            share, rel=1e-12
        )
    assert set(f["input"]["hierarchy_files"]) == set(order)
    age_level = case["expected"]["levels"]["age"]
    assert set(f["hierarchies"]["age"]["labels"]) <= set(
        adult_hierarchies["age"].table[:, age_level].astype(str)
    )
    assert R.verify(cfg_path, tmp_path / "adult.pdf", tmp_path / "adult_out.csv") == []


# ----------------------------------------------------------------------------- CLI
def _cli_wired() -> bool:
    from anon_core.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    anonymize = sub.choices["anonymize"]
    return "verify" in sub.choices and any(
        "--report" in a.option_strings for a in anonymize._actions
    )


def cli_wired(test):  # wired (asserted below), so these always run
    return test


def test_report_and_verify_are_wired_into_the_cli():
    assert _cli_wired()


@cli_wired
@pytest.mark.parametrize("suffix", [".html", ".pdf"])
def test_cli_report_runs_are_byte_identical_and_verify(tmp_path, capsys, suffix):
    from anon_core.cli import main

    outputs = []
    for name in ("one", "two"):
        cfg_path = _write_case(tmp_path / name)
        out, rep = tmp_path / name / "released.csv", tmp_path / name / f"report{suffix}"
        assert main(["anonymize", str(cfg_path), "--output", str(out), "--report", str(rep)]) == 0
        summary = json.loads(capsys.readouterr().out)
        outputs.append((out.read_bytes(), R.read_report_figures(rep)))
        assert summary["report"]["figures_sha256"] == R.figures_sha256(outputs[-1][1])
    assert outputs[0] == outputs[1]
    cfg_path, rep, out = (
        tmp_path / "one" / "release.json",
        tmp_path / "one" / f"report{suffix}",
        tmp_path / "one" / "released.csv",
    )
    assert main(["verify", str(cfg_path), str(rep), "--released", str(out)]) == 0
    assert json.loads(capsys.readouterr().out)["differences"] == []
    out.write_text(out.read_text().replace("\n", "\r\n"))
    assert main(["verify", str(cfg_path), str(rep), "--released", str(out)]) != 0
    captured = capsys.readouterr()
    assert "released file released.csv: SHA-256" in captured.err
    assert json.loads(captured.out)["verified"] is False


@cli_wired
def test_cli_verify_lists_an_edited_configuration(tmp_path, capsys):
    from anon_core.cli import main

    cfg_path = _write_case(tmp_path)
    rep = tmp_path / "report.pdf"
    assert (
        main(
            [
                "anonymize",
                str(cfg_path),
                "--output",
                str(tmp_path / "out.csv"),
                "--report",
                str(rep),
            ]
        )
        == 0
    )
    capsys.readouterr()
    cfg = _config()
    cfg["suppression_limit"] = 0.0
    cfg_path.write_text(json.dumps(cfg))
    assert main(["verify", str(cfg_path), str(rep)]) != 0
    captured = capsys.readouterr()
    assert "configuration.suppression_limit: report 0.05, re-run 0.0" in captured.err
    assert main(["verify", str(cfg_path), str(tmp_path / "missing.pdf")]) == 2


# ----------------------------------------------------------------------------- dashboard
def test_release_page_signs_off_and_offers_the_report_and_audit_trail():
    from streamlit.testing.v1 import AppTest

    root = Path(__file__).resolve().parents[1]
    at = AppTest.from_file(str(root / "app.py"), default_timeout=120)
    at.run()
    at.switch_page("pages/release.py").run()
    assert not at.exception, at.exception
    labels = [b.label for b in at.get("download_button")]
    assert "⬇️ Audit trail (CSV)" in labels and "⬇️ Report (HTML)" not in labels
    decision = next(r for r in at.radio if r.label == "Decision")
    assert decision.value is None  # no decision is pre-selected
    next(t for t in at.text_input if t.label == "Role").input("DPO")
    next(b for b in at.button if "Generate the report" in b.label).click().run()
    assert any("needs your name, decision" in e.value for e in at.error)  # empty fields refused
    assert "release_report" not in at.session_state
    next(t for t in at.text_input if t.label == "Name").input("Grace Hopper")
    next(r for r in at.radio if r.label == "Decision").set_value("approve")
    next(t for t in at.text_area if t.label == "Comments").input("Approved for the pilot.")
    next(b for b in at.button if "Generate the report" in b.label).click().run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    made = at.session_state["release_report"]
    assert "Grace Hopper" in made["html"] and made["pdf"].startswith(b"%PDF-")
    labels = [b.label for b in at.get("download_button")]
    assert {"⬇️ Report (HTML)", "⬇️ Report (PDF)", "⬇️ Audit trail (JSON)"} <= set(labels)
