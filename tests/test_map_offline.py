"""The offline map makes no outside connection, in the browser or on the server.

Debian's chromium loads the geocoded sample and draws the Data page's map while the app runs
under strace: every request the page makes goes to 127.0.0.1 (plotly's bundle included, no tile
server, no web font), and the server process connects to nothing outside loopback. Skips locally
without chromium or strace; under CI (CI=true) a missing browser is a failure, as in test_e2e.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

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


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _settle(pg) -> None:
    pg.wait_for_timeout(400)
    pg.wait_for_function(
        "() => !document.querySelector('[data-stale=\"true\"]') && "
        '!document.querySelector(\'[data-testid="stStatusWidget"] '
        '[data-testid="stStatusWidgetRunningIcon"]\')'
    )
    pg.wait_for_timeout(300)


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
    port = _free_port()
    trace = tmp_path / "trace.txt"
    proc = subprocess.Popen(
        [
            strace,
            "-f",
            "-e",
            "trace=connect,sendto",
            "-o",
            str(trace),
            sys.executable,
            "-m",
            "streamlit",
            "run",
            str(ROOT / "app.py"),
            "--server.port",
            str(port),
            "--server.headless",
            "true",
            "--server.fileWatcherType",
            "none",
        ],
        cwd=ROOT,
        env=dict(os.environ, STREAMLIT_BROWSER_GATHER_USAGE_STATS="false"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # strace detaches on SIGTERM: stop the whole group
    )
    url = f"http://127.0.0.1:{port}"
    requests: list[str] = []
    try:
        for _ in range(180):
            try:
                if urllib.request.urlopen(f"{url}/_stcore/health", timeout=1).read() == b"ok":
                    break
            except OSError:
                time.sleep(0.5)
        else:
            pytest.fail("the app did not start under strace within 90 s")
        RESULTS.mkdir(exist_ok=True)
        with playwright.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
            context = browser.new_context(viewport={"width": 1400, "height": 1000})
            pg = context.new_page()
            pg.set_default_timeout(90_000)
            pg.on("request", lambda r: requests.append(r.url))
            pg.goto(url)
            _settle(pg)
            pg.get_by_text("Built-in sample").first.wait_for()
            pg.locator('[data-testid="stSelectbox"]').first.click()
            pg.get_by_role("option", name="Geocoded patients", exact=False).first.click()
            pg.get_by_role("button", name="Load this sample").click()
            _settle(pg)
            pg.get_by_text("Locations (").first.wait_for()
            # the map is a plotly figure drawn in the page (WebGL points and a heatmap)
            pg.locator(".js-plotly-plot").first.wait_for()
            _settle(pg)
            pg.screenshot(path=str(RESULTS / "map_offline.png"), full_page=True)
            context.close()
            browser.close()
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
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
