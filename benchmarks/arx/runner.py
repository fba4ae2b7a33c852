"""The ARX side of benchmarks/bench_search.py: ArxBench.java compiled and run in one JVM.

The harness is compiled into a temporary folder against ARX's classpath on each start
(a second or two); configurations are sent one line at a time and ARX's per-run figures
come back as JSON lines.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import statistics
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
ARX_ENV = "ARX_CLASSPATH"
DEFAULT_ARX_LIB = ROOT.parent / "arx-build" / "lib"
HARNESS = Path(__file__).resolve().parent / "ArxBench.java"


def arx_classpath(args: argparse.Namespace) -> str | None:
    """The ARX classpath from --arx-classpath, --arx-jar (dependencies beside it), the
    ARX_CLASSPATH variable or ../arx-build/lib; None when none is there."""
    if args.arx_classpath:
        return args.arx_classpath
    if args.arx_jar:
        jar = Path(args.arx_jar)
        return f"{jar}{os.pathsep}{jar.parent / '*'}" if jar.is_file() else None
    if os.environ.get(ARX_ENV):
        return os.environ[ARX_ENV]
    if DEFAULT_ARX_LIB.is_dir() and any(DEFAULT_ARX_LIB.glob("arx*.jar")):
        return str(DEFAULT_ARX_LIB / "*")
    return None


class ArxRunner:
    """ArxBench in one JVM, fed one configuration line at a time."""

    def __init__(self, classpath: str, java: str, jvm_opts: list[str]) -> None:
        javac = shutil.which("javac")
        if javac is None:
            raise RuntimeError("javac is not installed (a JDK is needed to build the harness)")
        self._build = tempfile.TemporaryDirectory(prefix="arxbench-")
        done = subprocess.run(
            [javac, "-nowarn", "-cp", classpath, "-d", self._build.name, str(HARNESS)],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            self._build.cleanup()
            last = (done.stderr.strip().splitlines() or ["no message"])[-1]
            raise RuntimeError(f"the harness does not compile against {classpath!r}: {last}")
        cmd = [java, *jvm_opts, "-cp", f"{self._build.name}{os.pathsep}{classpath}", "ArxBench"]
        self.proc = subprocess.Popen(
            cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )
        self.info = self._line()
        if not self.info.get("ready"):
            raise RuntimeError(f"the ARX harness did not start: {self.info}")

    def _line(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        text = self.proc.stdout.readline()
        if not text:
            raise RuntimeError("the ARX harness stopped (its JVM exited)")
        return json.loads(text)

    def run(self, line: str) -> dict[str, Any]:
        """Medians of ARX's timed runs and its optimum, or {'error': ...}."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        timed, last, error, peak = [], None, None, None
        while True:
            msg = self._line()
            if msg.get("done"):
                peak = msg.get("peak_heap_mib")
                break
            if "error" in msg:
                error = msg["error"]
            elif not msg.get("warmup"):
                timed.append(msg)
            last = msg
        if error or not timed or last is None:
            return {"error": error or "no timed run"}
        return {
            "cpu_ms": statistics.median(m["cpu_ms"] for m in timed),
            "process_cpu_ms": statistics.median(m["process_cpu_ms"] for m in timed),
            "wall_ms": statistics.median(m["wall_ms"] for m in timed),
            "levels": last["levels"],
            "loss": last["loss"],
            "peak_heap_mib": peak,
        }

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """The JVM stopped (SIGSTOP) while the other side is timed, then resumed.

        After a block the JVM's compiler and collector threads go on working (longer as its
        heap grows) and share the machine's two cores with the other side, whose CPU time
        grows with them. Stopped, they take nothing; the next ARX block starts with warm-ups.
        """
        stop = getattr(signal, "SIGSTOP", None)
        if stop is None or self.proc.poll() is not None:
            yield
            return
        os.kill(self.proc.pid, stop)
        try:
            yield
        finally:
            os.kill(self.proc.pid, signal.SIGCONT)

    def close(self) -> None:
        try:
            if self.proc.stdin is not None:
                self.proc.stdin.write("quit\n")
                self.proc.stdin.close()
            self.proc.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
        self._build.cleanup()


def start_arx(args: argparse.Namespace) -> tuple[ArxRunner | None, str]:
    classpath = arx_classpath(args)
    if classpath is None:
        return None, (
            "ARX is not built here: ARX's columns are skipped. Build it (docs/benchmarks.md, "
            "'Search against ARX, end to end') and pass --arx-classpath or --arx-jar."
        )
    try:
        runner = ArxRunner(classpath, args.java, args.jvm_opt)
    except (RuntimeError, OSError) as exc:
        return None, f"ARX is skipped: {exc}"
    return (
        runner,
        f"ARX: {classpath} (Java {runner.info.get('java')}, max heap {runner.info.get('max_heap_mb')} MiB)",
    )
