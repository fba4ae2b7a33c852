"""What the browser tests share: Debian's chromium, the app on a free loopback port, settling.

Import it after ``require_chromium()`` has run at module level: locally a missing chromium skips
the module; under CI (CI=true) it is a failure, since .ci/run installs the browser.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator, Sequence
from pathlib import Path

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


def require_chromium() -> None:
    """Skip the calling module without Debian's chromium (fail under CI)."""
    if CHROMIUM.exists():
        return
    if os.environ.get("CI"):
        pytest.fail(
            "CI must run the browser tests, but /usr/bin/chromium is missing (see .ci/run)",
            pytrace=False,
        )
    pytest.skip("Debian's chromium (/usr/bin/chromium) is not installed", allow_module_level=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def running_app(prefix: Sequence[str] = (), wait_s: float = 60) -> Iterator[str]:
    """The dashboard on 127.0.0.1 (optionally under ``prefix``, e.g. strace); yields its URL.

    The process group is stopped afterwards (a tracer detaches on SIGTERM)."""
    port = free_port()
    log = tempfile.TemporaryFile()  # the app's own output, read only to explain a failed start
    proc = subprocess.Popen(
        [
            *prefix,
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
        env=dict(os.environ, STREAMLIT_BROWSER_GATHER_USAGE_STATS="false"),
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + wait_s
        while True:
            try:
                if urllib.request.urlopen(f"{url}/_stcore/health", timeout=1).read() == b"ok":
                    break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    if proc.poll() is None:
                        os.killpg(proc.pid, 9)
                        proc.wait(timeout=20)
                    log.seek(0)
                    out = log.read().decode(errors="replace")[-2000:]
                    pytest.fail(f"the app did not start: {out}")
                time.sleep(0.5)
        yield url
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, 15)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, 9)
                proc.wait(timeout=20)
        log.close()


def settle(pg) -> None:
    """Wait for the rerun to finish: no stale elements and no running indicator."""
    pg.wait_for_timeout(400)
    pg.wait_for_function(
        "() => !document.querySelector('[data-stale=\"true\"]') && "
        '!document.querySelector(\'[data-testid="stStatusWidget"] '
        '[data-testid="stStatusWidgetRunningIcon"]\')'
    )
    pg.wait_for_timeout(300)
