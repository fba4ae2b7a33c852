"""End to end in a real browser: Playwright driving Debian's chromium against the running app.

Skips locally when /usr/bin/chromium is absent; under CI (CI=true) a missing
browser is a failure, since .ci/run installs it. Screenshots go to test-results/.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
RESULTS = ROOT / "test-results"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

if not CHROMIUM.exists():
    if os.environ.get("CI"):
        pytest.fail(
            "CI must run the browser tests, but /usr/bin/chromium is missing (see .ci/run)",
            pytrace=False,
        )
    pytest.skip("Debian's chromium (/usr/bin/chromium) is not installed", allow_module_level=True)
playwright = pytest.importorskip("playwright.sync_api")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server():
    port = _free_port()
    env = dict(os.environ, STREAMLIT_BROWSER_GATHER_USAGE_STATS="false")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            str(ROOT / "app.py"),
            "--server.port",
            str(port),
            "--server.address",
            "127.0.0.1",
            "--server.headless",
            "true",
            "--server.fileWatcherType",  # no polling of every module (CPU the app needs)
            "none",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(120):
        try:
            if urllib.request.urlopen(f"{url}/_stcore/health", timeout=1).read() == b"ok":
                break
        except OSError:
            time.sleep(0.5)
    else:
        proc.kill()
        pytest.fail("the app did not start: " + proc.stdout.read().decode(errors="replace")[-2000:])
    yield url
    proc.terminate()
    proc.wait(timeout=20)


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


def settle(pg) -> None:
    """Wait for the rerun to finish: no stale elements and no running indicator."""
    pg.wait_for_timeout(400)
    pg.wait_for_function(
        "() => !document.querySelector('[data-stale=\"true\"]') && "
        '!document.querySelector(\'[data-testid="stStatusWidget"] [data-testid="stStatusWidgetRunningIcon"]\')'
    )
    pg.wait_for_timeout(300)


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
    "Privacy",
    "Explore",
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
