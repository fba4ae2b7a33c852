"""The offline map makes no outside connection, in the browser or on the server.

Debian's chromium loads the geocoded sample and draws the Data page's map while the app runs
under strace: every request the page makes goes to 127.0.0.1 (plotly's bundle included, no tile
server, no web font), and the server process connects to nothing outside loopback. Skips locally
without chromium or strace; under CI (CI=true) a missing browser is a failure, as in test_e2e.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.browser import ARGS, CHROMIUM, RESULTS, require_chromium, running_app, settle

require_chromium()
playwright = pytest.importorskip("playwright.sync_api")


def _strace() -> str:
    strace = shutil.which("strace")
    if strace is None:
        if os.environ.get("CI"):
            pytest.fail("CI must run the strace check, but strace is missing (see .ci/run)")
        pytest.skip("strace is not installed (apt-get install strace)")
    probe = subprocess.run([strace, "-f", "-o", os.devnull, "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip(f"strace cannot attach here: {probe.stderr.decode()[:200]}")
    return strace


def _outside_connections(trace: Path) -> list[str]:
    outside = []
    for line in trace.read_text().splitlines():
        if ("connect(" not in line and "sendto(" not in line) or "AF_INET" not in line:
            continue  # AF_UNIX and netlink are local by definition
        if not any(a in line for a in ('inet_addr("127.', "::1", "::ffff:127.")):
            outside.append(line)
    return outside


def test_the_map_page_connects_to_nothing_outside_loopback(tmp_path):
    strace = _strace()
    trace = tmp_path / "trace.txt"
    requests: list[str] = []
    with running_app([strace, "-f", "-e", "trace=connect,sendto", "-o", str(trace)], 90) as url:
        RESULTS.mkdir(exist_ok=True)
        with playwright.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
            context = browser.new_context(viewport={"width": 1400, "height": 1000})
            pg = context.new_page()
            pg.set_default_timeout(90_000)
            pg.on("request", lambda r: requests.append(r.url))
            pg.goto(url)
            settle(pg)
            pg.get_by_text("Built-in sample").first.wait_for()
            pg.locator('[data-testid="stSelectbox"]').first.click()
            pg.get_by_role("option", name="Geocoded patients", exact=False).first.click()
            pg.get_by_role("button", name="Load this sample").click()
            settle(pg)
            pg.get_by_text("Locations (").first.wait_for()
            # the map is a plotly figure drawn in the page (WebGL points and a heatmap)
            pg.locator(".js-plotly-plot").first.wait_for()
            settle(pg)
            pg.screenshot(path=str(RESULTS / "map_offline.png"), full_page=True)
            context.close()
            browser.close()
    assert requests, "the browser made no request at all (the page did not load)"
    browser_outside = [
        r
        for r in requests
        if urlsplit(r).scheme not in ("data", "blob", "about")
        and urlsplit(r).hostname not in ("127.0.0.1", "localhost")
    ]
    assert not browser_outside, browser_outside[:5]
    outside = _outside_connections(trace)
    assert not outside, "\n".join(outside[:5])
