"""Shared helpers of the benchmark scripts: the Adult reference data and a median timer.

Adult is read from ../shared (never copied into the project).
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from anon_core import Hierarchy, load_table  # noqa: E402

ADULT = ROOT.parent / "shared" / "data" / "adult"


def timed(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    """Median wall time in seconds over ``repeat`` runs, and the last value."""
    times, value = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), value


def timed_cpu(fn: Callable[[], Any], repeat: int, warmup: int = 1) -> tuple[float, float, Any]:
    """Median wall and CPU (time.process_time) seconds over ``repeat`` runs after
    ``warmup`` untimed ones, and the last value."""
    for _ in range(warmup):
        fn()
    walls, cpus, value = [], [], None
    for _ in range(repeat):
        c0, w0 = time.process_time(), time.perf_counter()
        value = fn()
        cpus.append(time.process_time() - c0)
        walls.append(time.perf_counter() - w0)
    return statistics.median(walls), statistics.median(cpus), value


def load_adult():
    """(frame, ARX's attribute order, hierarchies by attribute), or None with a message if absent."""
    if not (ADULT / "adult.csv").is_file():
        print("../shared/data/adult is not beside the checkout; nothing to measure.")
        return None
    frame = load_table(ADULT / "adult.csv").frame
    reference = ADULT.parent / "arx_reference.json"
    order = (
        json.loads(reference.read_text())["attribute_order"]
        if reference.is_file()
        else list(frame.columns)
    )
    hierarchies = {a: Hierarchy.from_csv(ADULT / f"adult_hierarchy_{a}.csv") for a in order}
    return frame, order, hierarchies
