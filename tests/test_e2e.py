"""End to end in a real browser: Playwright driving Debian's chromium against the running app.

Skips locally when /usr/bin/chromium is absent; under CI (CI=true) a missing
browser is a failure, since .ci/run installs it. Screenshots go to test-results/.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from tests.browser import ARGS, CHROMIUM, RESULTS, require_chromium, running_app, settle

require_chromium()
playwright = pytest.importorskip("playwright.sync_api")


@pytest.fixture(scope="module")
def server():
    with running_app(wait_s=120) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    RESULTS.mkdir(exist_ok=True)
    with playwright.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def page(server, browser):
    context = browser.new_context(accept_downloads=True, viewport={"width": 1400, "height": 1000})
    pg = context.new_page()
    pg.set_default_timeout(60_000)
    pg.goto(server)
    settle(pg)
    yield pg
    context.close()


def goto(pg, title: str) -> None:
    pg.locator('[data-testid="stSidebarNav"] a', has_text=title).first.click()
    settle(pg)
    pg.get_by_role("heading", name=title).first.wait_for()
    pg.screenshot(path=str(RESULTS / f"page_{title.lower()}.png"), full_page=True)


def chart_data(pg, key: str) -> str:
    """The data of the plotly chart with Streamlit key ``key`` (its container has class st-key-<key>)."""
    selector = f".st-key-{key} .js-plotly-plot"
    pg.wait_for_function(
        f"() => {{ const el = document.querySelector('{selector}'); return el && el.data; }}"
    )
    return pg.evaluate(f"() => JSON.stringify(document.querySelector('{selector}').data)")


def test_upload_mark_move_k_download(page, tmp_path):
    pg = page
    rows = "".join(
        f"{20 + i % 40},0213{i % 6},{'FM'[i % 2]},d{i % 4},w{i % 3}\n" for i in range(600)
    )
    data = tmp_path / "people.csv"
    data.write_text("age,zip,sex,disease,ward\n" + rows)
    pg.locator('input[type="file"]').first.set_input_files(str(data))
    settle(pg)
    pg.get_by_text("people.csv").first.wait_for()
    pg.screenshot(path=str(RESULTS / "page_data.png"), full_page=True)

    goto(pg, "Attributes")
    sidebar = pg.locator('[data-testid="stSidebar"]')
    sidebar.get_by_text("4 quasi-identifiers").wait_for()  # age, zip, sex, ward suggested
    pg.get_by_role("button", name="Remove ward").first.click()  # un-mark a quasi-identifier
    settle(pg)
    sidebar.get_by_text("3 quasi-identifiers").wait_for()

    goto(pg, "Privacy")
    before = chart_data(pg, "classes")
    k_input = pg.get_by_label("k", exact=True).first
    k_input.fill("40")
    k_input.press("Enter")
    settle(pg)
    pg.wait_for_function(
        "(before) => { const el = document.querySelector('.st-key-classes .js-plotly-plot');"
        " return el && el.data && JSON.stringify(el.data) !== before; }",
        arg=before,
    )
    after = chart_data(pg, "classes")
    assert before != after, "the class-size chart did not change when k moved"
    pg.get_by_role("button", name="🔎 Find the optimum").click()
    settle(pg)
    pg.get_by_text("Optimum found").first.wait_for()
    pg.screenshot(path=str(RESULTS / "page_privacy.png"), full_page=True)

    goto(pg, "Explore")
    goto(pg, "Risk")
    goto(pg, "Utility")
    goto(pg, "Release")
    with pg.expect_download() as info:
        pg.get_by_role("button", name="⬇️ CSV").click()
    target = tmp_path / "released.csv"
    info.value.save_as(target)
    released = pd.read_csv(target, dtype=str)
    assert len(released) > 0
    qis = [c for c in ["age", "zip", "sex"] if c in released.columns]
    assert set(qis) == {"age", "zip", "sex"} and "ward" in released.columns
    assert released.groupby(qis).size().min() >= 40


# Every page at a projector's sizes: no metric tile, heading or tab label is cut (text wider than
# its box, which the browser ends with "…"), and each tile shows its whole text.
PROJECTOR_SIZES = [(1024, 768), (1280, 800)]
ALL_PAGES = [
    "Data",
    "Attributes",
    "Protect",
    "Privacy",
    "Explore",
    "Evaluate",
    "Release",
    "PII",
    "Risk",
    "Attacks",
    "Utility",
    "Compare",
    "Differential privacy",
]
CUT_JS = """() => {
  const boxes = '[data-testid="stMetricValue"], [data-testid="stMetricLabel"], '
    + '[data-testid="stHeading"], h1, h2, h3, [data-baseweb="tab"]';
  const cut = [];
  for (const box of document.querySelectorAll(boxes)) {
    if (box.offsetParent === null) continue;  // hidden (e.g. a closed expander)
    for (const el of [box, ...box.querySelectorAll('*')]) {
      if (el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1) {
        cut.push((box.dataset.testid || box.tagName) + ': ' + box.innerText.trim().slice(0, 80));
        break;
      }
    }
  }
  return cut;
}"""
# Cut text on pages this test's owner does not own, reported to their owners (see the notes):
# tolerated here so the rest stays checked; anything else cut fails the test.
KNOWN_CUT: dict[str, tuple[str, ...]] = {}
TILES_JS = """() => [...document.querySelectorAll('[data-testid="stMetric"]')].map(m => {
  const value = m.querySelector('[data-testid="stMetricValue"]');
  const box = value.querySelector('div') || value;
  return [value.textContent.trim(), value.innerText.trim(), box.scrollWidth <= box.clientWidth + 1];
})"""


@pytest.mark.parametrize("size", PROJECTOR_SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_every_page_is_readable_on_a_projector(server, browser, size):
    width, height = size
    context = browser.new_context(viewport={"width": width, "height": height})
    pg = context.new_page()
    pg.set_default_timeout(60_000)
    try:
        pg.goto(server)
        settle(pg)
        problems = {}
        for title in ALL_PAGES:
            pg.locator('[data-testid="stSidebarNav"] a', has_text=title).first.click()
            settle(pg)
            pg.get_by_role("heading", name=title).first.wait_for()
            name = title.lower().replace(" ", "_")
            pg.screenshot(
                path=str(RESULTS / f"projector_{width}x{height}_{name}.png"), full_page=True
            )
            cut = pg.evaluate(CUT_JS)
            tiles = pg.evaluate(TILES_JS)
            cut += [f"tile {full!r} shows {shown!r}" for full, shown, fits in tiles if not fits]
            known = KNOWN_CUT.get(title, ())
            cut = [c for c in cut if not any(k in c for k in known)]
            if cut:
                problems[title] = cut
        assert not problems, f"cut text at {width}x{height}: {problems}"
    finally:
        context.close()


# ------------------------------------------------------------------ the three journeys
HOSPITAL_QIS = ["zip_code", "birth_date", "sex", "admission_date", "length_of_stay"]
HOSPITAL_IDENTIFIERS = ["patient_name", "email", "phone", "notes"]


def _fresh(server, browser):
    context = browser.new_context(accept_downloads=True, viewport={"width": 1400, "height": 1000})
    pg = context.new_page()
    pg.set_default_timeout(240_000)
    pg.goto(server)
    settle(pg)
    return context, pg


def _download(pg, label: str, target: Path) -> bytes:
    with pg.expect_download() as info:
        pg.get_by_role("button", name=label).first.click()
    info.value.save_as(target)
    return target.read_bytes()


def _shown_sha(pg) -> str:
    text = pg.get_by_text("SHA-256 of the CSV release").first.inner_text()
    return text.split("`")[1] if "`" in text else text.split(":")[1].split()[0].strip()


def _min_class(frame: pd.DataFrame, qis: list[str]) -> int:
    stars = (frame[qis] == "*").all(axis=1)
    return int(frame[~stars].groupby(qis, dropna=False).size().min())


def test_journey_presenter_on_the_sample_evaluates_and_releases(server, browser, tmp_path):
    """Presenter: the built-in sample, Evaluate (verdict), Release: k holds on the downloaded rows,
    no identifier column, and the page shows the SHA-256 of the bytes downloaded."""
    import hashlib

    context, pg = _fresh(server, browser)
    try:
        goto(pg, "Evaluate")
        pg.get_by_role("button", name="🧪 Measure the evidence (attacks and utility)").click()
        settle(pg)
        pg.get_by_text("acceptance criteria").first.wait_for()
        pg.get_by_text("Singling out (attack)").first.wait_for()
        pg.screenshot(path=str(RESULTS / "journey_presenter_evaluate.png"), full_page=True)
        goto(pg, "Release")
        data = _download(pg, "⬇️ CSV", tmp_path / "released.csv")
        assert hashlib.sha256(data).hexdigest() == _shown_sha(pg)
        released = pd.read_csv(tmp_path / "released.csv", dtype=str, keep_default_na=False)
        assert not set(HOSPITAL_IDENTIFIERS) & set(released.columns)
        assert _min_class(released, HOSPITAL_QIS) >= 5
    finally:
        context.close()


def test_journey_analyst_uploads_free_text_and_releases_it_deidentified(server, browser, tmp_path):
    """Analyst: an upload with free-text notes holding names and phones; the notes are released
    only de-identified (PII page), and the downloaded rows carry none of those names or phones."""
    import random

    rng = random.Random(5)
    first = ["Anna", "Bernd", "Chloe", "Dmitri", "Elena", "Farid", "Greta", "Hiro", "Ines", "Jonas"]
    last = ["Keller", "Lindqvist", "Moreau", "Nakamura", "Okafor", "Petrov", "Quinn", "Rossi"]
    rows = []
    for i in range(400):
        name = f"{rng.choice(first)} {rng.choice(last)}"
        phone = f"(617) 555-{1000 + i:04d}"
        rows.append(
            {
                "age": 20 + i % 50,
                "zip": f"0213{i % 8}",
                "sex": "FM"[i % 2],
                "diagnosis": ["flu", "asthma", "copd"][i % 3],
                "notes": f"Patient {name} was seen today and can be reached at {phone} for follow-up.",
            }
        )
    frame = pd.DataFrame(rows)
    path = tmp_path / "clinic.csv"
    frame.to_csv(path, index=False)
    context, pg = _fresh(server, browser)
    try:
        pg.locator('input[type="file"]').first.set_input_files(str(path))
        settle(pg)
        pg.get_by_text("clinic.csv").first.wait_for()
        goto(pg, "PII")
        pg.get_by_role("button", name="🔎 Scan for personal data").click()
        settle(pg)
        pg.get_by_role("button", name="✅ Release notes de-identified with these operators").click()
        settle(pg)
        pg.get_by_text("The release de-identifies notes").first.wait_for()
        goto(pg, "Privacy")
        pg.get_by_role("button", name="🔎 Find the optimum").click()
        settle(pg)
        goto(pg, "Release")
        pg.get_by_text("still hold a direct identifier").first.wait_for()
        _download(pg, "⬇️ CSV", tmp_path / "released.csv")
        released = pd.read_csv(tmp_path / "released.csv", dtype=str, keep_default_na=False)
        assert "notes" in released.columns
        text = " ".join(released["notes"])
        surnames = [s for s in last if s in text]
        phones = [p for p in frame["notes"].str.extract(r"(\(617\) 555-\d{4})")[0] if p in text]
        assert len(phones) == 0, phones[:3]
        assert len(surnames) == 0, surnames
        qis = [c for c in ("age", "zip", "sex") if c in released.columns]
        assert _min_class(released, qis) >= 5
    finally:
        context.close()


def test_journey_officer_resumes_a_method_configuration_and_signs_its_dossier(
    server, browser, tmp_path
):
    """Officer: a configuration with a non-generalization method resumed on the Release page is
    the release shown, evaluated and downloaded (same SHA-256 as the page and the dossier)."""
    import hashlib
    import json as _json

    config = {
        "input": {"path": "hospital_discharge.csv"},
        "attributes": {
            **{c: {"role": "identifier"} for c in HOSPITAL_IDENTIFIERS},
            **{c: {"role": "quasi-identifier"} for c in HOSPITAL_QIS},
            "diagnosis": {"role": "sensitive"},
        },
        "privacy_models": [{"model": "k-anonymity", "k": 5}],
        "suppression_limit": 0.02,
        "method": {"name": "microaggregation", "k": 5, "columns": ["length_of_stay"]},
    }
    path = tmp_path / "release.json"
    path.write_text(_json.dumps(config))
    context, pg = _fresh(server, browser)
    try:
        goto(pg, "Release")
        pg.locator('input[type="file"]').last.set_input_files(str(path))
        settle(pg)
        pg.get_by_text("Microaggregation").first.wait_for()
        data = _download(pg, "⬇️ CSV", tmp_path / "released.csv")
        shown = _shown_sha(pg)
        assert hashlib.sha256(data).hexdigest() == shown
        released = pd.read_csv(tmp_path / "released.csv", dtype=str, keep_default_na=False)
        assert not set(HOSPITAL_IDENTIFIERS) & set(released.columns)
        groups = released["length_of_stay"].replace("", None).dropna().value_counts()
        assert groups.min() >= 5  # MDAV: every released value stands for at least k records
        pg.get_by_role("button", name="🧪 Measure the evidence (attacks and utility)").click()
        settle(pg)
        pg.get_by_text("acceptance criteria").first.wait_for()
        pg.get_by_label("Name").first.fill("Olga Officer")
        pg.get_by_label("Role").first.fill("Data protection officer")
        pg.get_by_text("❌ reject it").first.click()
        pg.get_by_role("button", name="📝 Sign and write the dossier").click()
        settle(pg)
        dossier = _download(pg, "⬇️ Dossier (HTML)", tmp_path / "dossier.html").decode()
        figures = _json.loads(
            dossier.split('<script type="application/json" id="release-figures">')[1].split(
                "</script>"
            )[0]
        )
        assert figures["release"]["method"] == "microaggregation"
        assert figures["output"]["file"]["sha256"] == shown
        pg.screenshot(path=str(RESULTS / "journey_officer_release.png"), full_page=True)
    finally:
        context.close()
