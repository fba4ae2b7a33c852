"""The dashboard's latency in a real browser: Playwright driving Debian's chromium on Adult.

Run: .venv/bin/python benchmarks/bench_browser.py [--moves 10]

Starts ``streamlit run app.py`` on 127.0.0.1 (a free port), uploads Adult on the Data page,
resumes a configuration on the Release page (ARX's hierarchies inline as level tables,
k-anonymity k=5 + distinct 3-diversity on occupation, 0% suppression like ARX's reference)
and times, from the user's action to the settled page:

- level-slider moves and k changes on the Privacy page (median and max over ``--moves``),
- page switches, Find the optimum, the Release page appearing, resuming the configuration.

"Settled" means: the server sent the ``script_finished`` message of the run the action caused
(read from the websocket with Streamlit's own protobuf), and the page shows no stale element
and no running indicator. Server CPU is the streamlit process's user+system time (psutil) over
the same interval. The target is 300 ms median, 500 ms max for slider and k moves on Adult.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.common import ADULT  # noqa: E402

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
TARGET_MS = 300.0
QIS = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass"]
SENSITIVE = "occupation"
SETTLED_JS = (
    "() => !document.querySelector('[data-stale=\"true\"]') && "
    "!document.querySelector('[data-testid=\"stStatusWidgetRunningIcon\"]')"
)


def adult_config() -> dict:
    """The benchmark's release configuration: ARX's hierarchy files as inline level tables."""
    attributes: dict = {}
    for column in [*QIS, SENSITIVE, "salary-class"]:
        if column in QIS:
            path = ADULT / f"adult_hierarchy_{column}.csv"
            rows = [line.split(";") for line in path.read_text().splitlines() if line.strip()]
            attributes[column] = {"role": "quasi-identifier", "hierarchy": {"table": rows}}
        elif column == SENSITIVE:
            attributes[column] = {"role": "sensitive"}
        else:
            attributes[column] = {"role": "insensitive"}
    return {
        "attributes": attributes,
        "privacy_models": [
            {"model": "k-anonymity", "k": 5},
            {"model": "distinct-l-diversity", "attribute": SENSITIVE, "l": 3},
        ],
        "suppression_limit": 0.0,
        "quality_metric": {"name": "loss"},
    }


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """``streamlit run app.py`` on loopback, with its CPU time readable through psutil."""

    def __init__(self, watcher: str = "none") -> None:
        import psutil

        self.port = _free_port()
        env = dict(os.environ, STREAMLIT_BROWSER_GATHER_USAGE_STATS="false")
        cmd = [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py")]
        cmd += ["--server.port", str(self.port), "--server.address", "127.0.0.1"]
        cmd += ["--server.headless", "true"]
        # Streamlit's file watcher: without the watchdog package it polls every module of the
        # app's folder from its own threads (measured: about 690 ms of CPU per second with one
        # session open, competing with the script for the GIL); "none" is how a deployment
        # serves the app (no reload on save).
        cmd += ["--server.fileWatcherType", watcher]
        cmd += os.environ.get("BENCH_EXTRA", "").split()
        self.proc = subprocess.Popen(
            cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        self.ps = psutil.Process(self.proc.pid)
        self.url = f"http://127.0.0.1:{self.port}"
        for _ in range(240):
            try:
                if urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=1).read() == b"ok":
                    return
            except OSError:
                time.sleep(0.5)
        self.stop()
        raise SystemExit("the app did not start")

    def cpu(self) -> float:
        t = self.ps.cpu_times()
        return t.user + t.system

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()


class Runs:
    """Follows the server's script runs (whole page or fragment) on the websocket."""

    def __init__(self, page) -> None:
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        self.finished = 0
        self.running = False
        self.last_message = time.perf_counter()
        self._msg = ForwardMsg
        page.on("websocket", lambda ws: ws.on("framereceived", self._frame))

    def _frame(self, payload) -> None:
        if isinstance(payload, str):
            return
        try:
            msg = self._msg.FromString(payload)
        except Exception:  # noqa: BLE001 - not a ForwardMsg (e.g. a ping)
            return
        self.last_message = time.perf_counter()
        kind = msg.WhichOneof("type")
        if kind == "session_status_changed":
            self.running = msg.session_status_changed.script_is_running
        elif kind == "script_finished":
            if msg.script_finished != self._msg.FINISHED_EARLY_FOR_RERUN:
                self.finished += 1

    def wait_idle(self, pg, quiet_ms: float = 250.0) -> None:
        """Until no script runs and no message came for ``quiet_ms`` (a late run is not
        counted as the next action's)."""
        while self.running or (time.perf_counter() - self.last_message) * 1000 < quiet_ms:
            pg.wait_for_timeout(20)


def measure(pg, runs: Runs, server: Server, action, ready=None, timeout_s: float = 600.0):
    """(wall ms, server CPU ms) from ``action()`` to the settled page."""
    runs.wait_idle(pg)
    pg.wait_for_function(SETTLED_JS, polling="raf", timeout=timeout_s * 1000)
    before = runs.finished
    c0 = server.cpu()
    t0 = time.perf_counter()
    action()
    deadline = t0 + timeout_s
    while runs.finished == before or runs.running:
        if time.perf_counter() > deadline:
            raise TimeoutError("no script run finished")
        pg.wait_for_timeout(5)
    if ready is not None:
        ready()
    pg.wait_for_function(SETTLED_JS, polling="raf", timeout=timeout_s * 1000)
    wall = (time.perf_counter() - t0) * 1000
    cpu = (server.cpu() - c0) * 1000
    if os.environ.get("BENCH_BROWSER_VERBOSE"):
        print(
            f"  {wall:,.0f} ms wall, {cpu:,.0f} ms CPU, {runs.finished - before} run(s)",
            file=sys.stderr,
        )
    return wall, cpu


def goto(pg, title: str):
    def click():
        pg.locator('[data-testid="stSidebarNav"] a', has_text=title).first.click()

    return click


def row(name: str, walls: list[float], cpus: list[float]) -> str:
    med, worst = statistics.median(walls), max(walls)
    cpu = statistics.median(cpus)
    return (
        f"| {name} | {len(walls)} | {med:,.0f} | {worst:,.0f} | {cpu:,.0f} | "
        f"{med / TARGET_MS:.2f} |"
    )


def record(table: list[str], line: str) -> None:
    """Keep a table row and show it at once (a long run shows its progress)."""
    table.append(line)
    print(line, file=sys.stderr, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=10, help="slider moves and k changes (>= 10)")
    parser.add_argument(
        "--file-watcher",
        default="none",
        choices=["none", "auto", "poll", "watchdog"],
        help="Streamlit's server.fileWatcherType (default none, as deployed; auto = its default)",
    )
    parser.add_argument("--width", type=int, default=1400)
    parser.add_argument("--height", type=int, default=1000)
    args = parser.parse_args()
    if not (ADULT / "adult.csv").is_file() or not CHROMIUM.exists():
        print("Needs ../shared/data/adult and /usr/bin/chromium; nothing to measure.")
        return
    from playwright.sync_api import sync_playwright

    server = Server(args.file_watcher)
    table: list[str] = []
    try:
        with sync_playwright() as p, tempfile.TemporaryDirectory() as tmp:
            config_path = Path(tmp) / "adult_release.json"
            config_path.write_text(json.dumps(adult_config()))
            browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
            context = browser.new_context(viewport={"width": args.width, "height": args.height})
            pg = context.new_page()
            pg.set_default_timeout(120_000)
            runs = Runs(pg)
            try:
                steps(pg, runs, server, config_path, args.moves, table)
            except Exception:
                pg.screenshot(
                    path=str(Path(tmp).parent / "bench_browser_failure.png"), full_page=True
                )
                raise
            browser.close()
    finally:
        server.stop()
    print(
        f"Dashboard latency in chromium (Adult, {args.width}x{args.height}, file watcher "
        f"{args.file_watcher}; target "
        f"{TARGET_MS:.0f} ms median, 500 ms max for moves)\n"
    )
    print(
        "| action | n | median wall ms | max wall ms | server CPU ms (median) | ratio to 300 ms |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    print("\n".join(table))


def steps(pg, runs, server, config_path, moves: int, table: list[str]) -> None:
    """The measured path: upload, Release, resume, page switches, optimum, moves, Release."""
    pg.goto(server.url)
    pg.get_by_role("heading", name="Data").first.wait_for()
    pg.wait_for_function(SETTLED_JS)

    def upload():
        pg.locator('input[type="file"]').first.set_input_files(str(ADULT / "adult.csv"))

    w, c = measure(pg, runs, server, upload, lambda: pg.get_by_text("adult.csv").first.wait_for())
    record(table, row("Upload Adult (Data page)", [w], [c]))

    w, c = measure(pg, runs, server, goto(pg, "Release"))
    record(table, row("Release page appears (default configuration)", [w], [c]))

    def resume():
        pg.locator('[data-testid="stFileUploader"] input[type="file"]').last.set_input_files(
            str(config_path)
        )

    w, c = measure(pg, runs, server, resume)
    pg.wait_for_function(SETTLED_JS)
    record(table, row("Resume the configuration (ARX hierarchies)", [w], [c]))

    switches_w, switches_c = [], []
    for title in ["Privacy", "Explore", "Attributes", "Privacy"]:
        w, c = measure(pg, runs, server, goto(pg, title))
        switches_w.append(w)
        switches_c.append(c)
    record(table, row("Page switch (Privacy, Explore, Attributes)", switches_w, switches_c))

    w, c = measure(
        pg,
        runs,
        server,
        lambda: pg.get_by_role("button", name="🔎 Find the optimum").click(),
        lambda: pg.get_by_text("Optimum found").first.wait_for(),
    )
    record(table, row("Find the optimum (Adult, k=5 + 3-diversity)", [w], [c]))

    slider = pg.locator('[data-testid="stSlider"]', has_text="age").locator('input[type="range"]')
    thumb = slider.first
    up = int(thumb.input_value()) < int(thumb.get_attribute("max") or 0)
    thumb.focus()
    moves_w, moves_c = [], []
    for i in range(moves):  # back and forth between two neighbouring levels
        key = "ArrowRight" if (i % 2 == 0) == up else "ArrowLeft"
        w, c = measure(pg, runs, server, lambda key=key: pg.keyboard.press(key))
        moves_w.append(w)
        moves_c.append(c)
        thumb.focus()
    record(table, row("Level slider move (age)", moves_w, moves_c))

    k_input = pg.get_by_label("k", exact=True).first
    k_w, k_c = [], []
    for i in range(moves):
        value = "6" if i % 2 == 0 else "5"

        def set_k(value=value):
            k_input.fill(value)
            k_input.press("Enter")

        w, c = measure(pg, runs, server, set_k)
        k_w.append(w)
        k_c.append(c)
    record(table, row("k change (5 <-> 6)", k_w, k_c))

    w, c = measure(pg, runs, server, goto(pg, "Release"))
    record(table, row("Release page appears (after the optimum)", [w], [c]))


if __name__ == "__main__":
    main()
