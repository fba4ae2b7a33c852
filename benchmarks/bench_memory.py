"""Resident memory for the search benchmark: the process's resident set, its peak, a guard
that stops a configuration whose memory runs away, and one configuration run in a fresh
process (its own peak, and its resident set after imports and after reading the data), so
our memory is compared with ARX's heap for the same run and not with what earlier
configurations left in one long process."""

from __future__ import annotations

import _thread
import json
import os
import resource
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

#: The line before the child's result (anything the child prints before it is ignored).
RESULT_MARK = "bench-search-result: "


def rss_mib() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def reset_peak_rss() -> None:
    """Reset the kernel's peak resident set (VmHWM) so each block has its own peak."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
    except OSError:
        pass


def peak_rss_mib() -> float:
    try:
        with open("/proc/self/status") as fh:
            line = next(x for x in fh if x.startswith("VmHWM:"))
        return int(line.split()[1]) / 1024
    except (OSError, StopIteration):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class MemoryGuard:
    """Stops ours when the process's resident set passes ``limit_mib`` (a configuration
    that blows up must not take a shared machine down): the main thread gets a
    KeyboardInterrupt; if memory still grows 10 s later, the process is killed."""

    def __init__(self, limit_mib: float, reset: bool = True) -> None:
        self.limit, self.tripped, self._stop = limit_mib, False, threading.Event()
        self.reset = reset  # a fresh process keeps its whole peak (imports included)

    def __enter__(self) -> MemoryGuard:
        self.tripped = False
        self._stop.clear()
        if self.reset:
            reset_peak_rss()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _watch(self) -> None:
        while not self._stop.wait(0.05):
            if rss_mib() > self.limit and not self.tripped:
                self.tripped = True
                _thread.interrupt_main()
                if not self._stop.wait(10) and rss_mib() > 1.5 * self.limit:
                    print(f"ours passed {1.5 * self.limit:.0f} MiB and did not stop: killed")
                    os.kill(os.getpid(), signal.SIGKILL)


def child_report(result: dict[str, Any]) -> None:
    """The child's one result line (read by :func:`run_fresh`)."""
    print(RESULT_MARK + json.dumps(result), flush=True)


def run_fresh(script: Path, config_id: str, args: list[str], timeout_s: float) -> dict[str, Any]:
    """Ours for one configuration in a fresh Python process (``script --child ID args``): its
    result with ``peak_rss_mib`` (the process's whole peak), ``import_rss_mib`` (after the
    imports) and ``data_rss_mib`` (after reading the data set), or ``{'stopped': why}``."""
    cmd = [sys.executable, str(script), "--child", config_id, *args]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s, check=False)
    except subprocess.TimeoutExpired:
        return {"stopped": f"the fresh process ran past {timeout_s:.0f} s", "peak_rss_mib": None}
    lines = [x for x in done.stdout.splitlines() if x.startswith(RESULT_MARK)]
    if done.returncode != 0 or not lines:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return {"stopped": f"the fresh process failed ({tail})", "peak_rss_mib": None}
    return json.loads(lines[-1][len(RESULT_MARK) :])
