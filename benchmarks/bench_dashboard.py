"""Server compute of one slider or parameter change on the Privacy page.

Drives the page logic without a browser: with the frequency table cached (as the
dashboard caches it per dataset and role assignment), a change rebuilds the
evaluator, evaluates the transformation, computes the risk figures and builds
every chart. Targets (dashboard issue): <= 100 ms on Adult-sized data (30k rows)
and <= 1 s at 1M rows. The 1M table resamples Adult's rows (fixed seed).

Run: python benchmarks/bench_dashboard.py [--rows 1000000]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from anon_core import Hierarchy, load_table  # noqa: E402
from anon_core.analysis.risk import report_dict, risk_from_sizes  # noqa: E402
from anon_core.data.frequency import FrequencyTable  # noqa: E402
from anon_core.workspace import Workspace  # noqa: E402
from ui.widgets import class_size_chart, per_attribute_chart  # noqa: E402

ADULT = ROOT.parent / "shared" / "data" / "adult"


def one_change(ws: Workspace, freq: FrequencyTable, k: int, levels: dict[str, int]) -> None:
    ws.models = [{"model": "k-anonymity", "k": k}]
    ev = ws.evaluator(freq)
    result = ev.evaluate(levels)
    report = report_dict(risk_from_sizes(result.table.sizes[~result.suppressed]))
    class_size_chart(result)
    per_attribute_chart(result.quality.per_attribute, ev.metric.label)
    assert report["prosecutor"]["average_risk"] >= 0


def measure(frame, hierarchies, label: str, repeat: int) -> float:
    ws = Workspace.from_frame(frame, label)
    ws.roles = {c: "quasi-identifier" for c in frame.columns if c != "salary-class"}
    ws.roles["salary-class"] = "sensitive"
    ws.hierarchy_specs = {
        c: {"table": h.table.tolist()} for c, h in hierarchies.items() if c in ws.qis
    }
    t0 = time.perf_counter()
    freq = FrequencyTable(ws.dataset())
    build = time.perf_counter() - t0
    heights = dict(zip(freq.qis, freq.dataset.heights, strict=True))
    changes = []
    for i in range(repeat):
        levels = {q: (i + j) % heights[q] for j, q in enumerate(freq.qis)}
        freq._cache.clear()  # a new transformation each time: no class-table cache hit
        t0 = time.perf_counter()
        one_change(ws, freq, 2 + i % 20, levels)
        changes.append(time.perf_counter() - t0)
    median = statistics.median(changes) * 1e3
    print(
        f"{label:28s} {len(frame):>10,} rows  frequency table {build * 1e3:8.0f} ms (once)   "
        f"one change {median:7.1f} ms median, {max(changes) * 1e3:7.1f} ms max"
    )
    return median


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    if not (ADULT / "adult.csv").is_file():
        print("../shared/data/adult is not beside the checkout; nothing to measure.")
        return 1
    frame = load_table(ADULT / "adult.csv").frame
    hierarchies = {
        p.stem.removeprefix("adult_hierarchy_"): Hierarchy.from_csv(p)
        for p in ADULT.glob("adult_hierarchy_*.csv")
    }
    small = measure(frame, hierarchies, "Adult", args.repeat)
    big_frame = frame.sample(args.rows, replace=True, random_state=0).reset_index(drop=True)
    big = measure(big_frame, hierarchies, "Adult resampled", args.repeat)
    print(
        f"\ntarget 100 ms at 30k rows: {small:.1f} ms ({small / 100:.2f}x of target); "
        f"target 1000 ms at {args.rows:,} rows: {big:.1f} ms ({big / 1000:.2f}x of target)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
