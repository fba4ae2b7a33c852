"""Search time of the population models on Adult (30,162 rows), wall and CPU, against named baselines.

Cases are ARX's own JUnit configurations (TestAnonymizationKMap, TestAnonymizationRiskBased):

* k-map, zero-truncated Poisson, population USA, k = 3 and 1000, 5% suppression, non-monotonic
  non-uniform entropy, occupation sensitive. Baseline: k-anonymity with ARX's derived k' (the
  same classes are checked; the estimator only changes k).
* population uniqueness 0.0001 at the USA population with each estimator, 4% suppression, all
  nine attributes quasi-identifiers. Baseline: sample uniqueness 0.0001 (the same sample-based
  enforcement, no estimator to solve).

Each search builds a fresh problem (no cache shared between runs). Prints the median of
``--repeat`` runs after one warm-up run, wall and CPU (time.process_time), the ratio to the
baseline's wall time, and whether the optimum is ARX's.

The load average (1 minute) is printed after each row: on a shared machine wall time also counts
waiting for a core, so compare CPU times.

Run: python benchmarks/bench_population.py [--repeat 7] [--estimators zayatz,snb,pitman,dankar]
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from anon_core import Problem, make_metric, make_model  # noqa: E402
from benchmarks.common import load_adult, timed_cpu  # noqa: E402

NE = {"name": "non-uniform-entropy", "monotonic": False}
KMAP = [
    (3, [0, 0, 1, 1, 0, 2, 2, 0]),
    (1000, [0, 0, 1, 1, 1, 2, 1, 0]),
]
PU = {
    "dankar": (NE, [0, 0, 1, 1, 1, 2, 1, 0, 0]),
    "zayatz": ("loss", [0, 3, 0, 0, 1, 1, 1, 1, 0]),
    "pitman": (NE, [0, 0, 1, 1, 1, 2, 1, 0, 0]),
    "snb": ("loss", [0, 3, 0, 0, 2, 1, 1, 1, 0]),
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--repeat", type=int, default=7, help="timed runs after one warm-up (median)"
    )
    parser.add_argument(
        "--estimators", default="zayatz,snb,pitman,dankar", help="population-uniqueness estimators"
    )
    args = parser.parse_args()
    adult = load_adult()
    if adult is None:
        return 1
    frame, order, hierarchies = adult
    frame = frame[order]

    def searcher(models, limit, metric, sensitive=None):
        roles = {a: "quasi-identifier" for a in order}
        if sensitive:
            roles[sensitive] = "sensitive"

        def run():
            problem = Problem(
                frame,
                roles,
                hierarchies,
                [make_model(m) for m in models],
                limit,
                make_metric(metric),
            )
            return problem.search().optimum

        return run

    rows = []
    for k, levels in KMAP:
        spec = {
            "model": "k-map",
            "k": k,
            "significance": 0.01,
            "estimator": "zero-truncated-poisson",
            "population": "USA",
        }
        derived = make_model(spec)
        derived.prepare(
            Problem(frame, {a: "quasi-identifier" for a in order}, hierarchies, [], 0.0).freq
        )
        base = searcher([{"model": "k-anonymity", "k": derived.derived_k}], 0.05, NE, "occupation")
        rows.append(
            (
                f"k-map k={k} (ZTP, USA)",
                searcher([spec], 0.05, NE, "occupation"),
                levels,
                f"k-anonymity k={derived.derived_k}",
                base,
            )
        )
    for est in [e.strip() for e in args.estimators.split(",") if e.strip()]:
        metric, levels = PU[est]
        spec = {
            "model": "population-uniqueness",
            "threshold": 0.0001,
            "estimator": est,
            "population": "USA",
            "iterations_per_try": 15,
        }
        base = searcher([{"model": "sample-uniqueness", "threshold": 0.0001}], 0.04, metric)
        rows.append(
            (
                f"population uniqueness ({est})",
                searcher([spec], 0.04, metric),
                levels,
                "sample uniqueness 0.0001",
                base,
            )
        )

    print(
        f"Adult: {len(frame)} rows; median of {args.repeat} runs after 1 warm-up; {os.cpu_count()} CPUs; "
        f"load average {' '.join(f'{v:.1f}' for v in os.getloadavg())}"
    )
    header = f"{'search':32s} {'wall s':>8s} {'CPU s':>8s} {'baseline':26s} {'wall s':>8s} {'CPU s':>8s} {'ratio':>7s}  ARX optimum"
    print(header)
    print("-" * len(header))
    for name, run, levels, base_name, base in rows:
        wall, cpu, optimum = timed_cpu(run, args.repeat)
        bwall, bcpu, _ = timed_cpu(base, args.repeat)
        same = optimum is not None and list(optimum.transformation.values()) == levels
        print(
            f"{name:32s} {wall:8.3f} {cpu:8.3f} {base_name:26s} {bwall:8.3f} {bcpu:8.3f} {wall / bwall:7.1f}  {'yes' if same else 'NO'}"
            f"  (load {os.getloadavg()[0]:.1f})",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
