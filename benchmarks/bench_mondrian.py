"""Mondrian local recoding on Adult (9 QIs; occupation sensitive where a model names it) next to
the global optimum.

Mondrian is strict multidimensional partitioning (LeFevre, DeWitt and
Ramakrishnan, "Mondrian multidimensional k-anonymity", ICDE 2006) with age cut
at medians into ranges and the other QIs cut along their hierarchies. The global
optimum is ``problem.search()`` (full-domain generalization, Loss, no
suppression: Mondrian suppresses nothing either). Times are medians of
``--repeat`` runs with the frequency table built; Loss is ARX's Loss (for
Mondrian its local-recoding version, which equals it on full-domain classes).

Run: python benchmarks/bench_mondrian.py [--repeat N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from anon_core import Hierarchy, Problem, load_table, make_model  # noqa: E402
from anon_core.transform.mondrian import mondrian  # noqa: E402

ADULT = ROOT.parent / "shared" / "data" / "adult"
S = "occupation"
CASES = [
    ("k=5", [{"model": "k-anonymity", "k": 5}]),
    ("k=10", [{"model": "k-anonymity", "k": 10}]),
    (
        "k=5 + distinct 3-diversity",
        [
            {"model": "k-anonymity", "k": 5},
            {"model": "distinct-l-diversity", "attribute": S, "l": 3},
        ],
    ),
]


def _median_ms(fn, repeat: int):
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times), out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if not (ADULT / "adult.csv").is_file():
        print("../shared/data/adult is not beside the checkout; nothing to measure.")
        return 1
    frame = load_table(ADULT / "adult.csv").frame
    reference = ADULT.parent / "arx_reference.json"
    order = (
        json.loads(reference.read_text())["attribute_order"]
        if reference.is_file()
        else list(frame.columns)
    )
    hierarchies = {a: Hierarchy.from_csv(ADULT / f"adult_hierarchy_{a}.csv") for a in order}
    print(f"Adult: {len(frame)} records, QIs {order}")
    header = (
        f"{'configuration':28s} {'mondrian ms':>11s} {'partitions':>10s} {'sizes':>9s} {'Loss':>9s}   "
        f"{'optimum ms':>10s} {'classes':>8s} {'Loss':>9s}  optimum levels"
    )
    print(header)
    print("-" * len(header))
    for name, models in CASES:
        roles = {a: "quasi-identifier" for a in order}
        if any(m.get("attribute") == S for m in models):
            roles[S] = "sensitive"
        problem = Problem(frame[order], roles, hierarchies, [make_model(m) for m in models], 0.0)
        m_ms, result = _median_ms(lambda p=problem: mondrian(p), args.repeat)

        def run_search(p=problem):
            p.freq._cache.clear()
            return p.search()

        s_ms, found = _median_ms(run_search, args.repeat)
        opt = found.optimum
        opt_loss = f"{opt.quality.value:9.6f}" if opt else "     none"
        classes = opt.equivalence_classes if opt else 0
        levels = "".join(str(v) for v in opt.levels) if opt else "-"
        sizes = f"{result.min_partition_size}-{result.max_partition_size}"
        print(
            f"{name:28s} {m_ms:11.0f} {result.n_partitions:10d} {sizes:>9s} {result.loss:9.6f}   "
            f"{s_ms:10.0f} {classes:8d} {opt_loss}  {levels}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
