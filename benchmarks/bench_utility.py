"""Utility analysis of Adult's k=5 optimum: quality summary, distributions and ML utility.

Adult (30,162 rows): the 8 columns other than ``salary-class`` are quasi-identifiers
with ARX's hierarchy files, ``salary-class`` is kept insensitive (the classifier's
target). The k=5 optimum (Loss, suppression limit as given) is found with
``problem.search()``; then the script times ``quality_summary``,
``compare_distributions`` (median of ``--repeat`` runs) and one ``ml_utility`` run
(logistic regression and random forest, stratified ``--cv``-fold cross-validation on
the original and on the released table), and prints the scores with the drop.

Run: python benchmarks/bench_utility.py [--repeat N] [--cv 5] [--trees 100] [--jobs 1] [--suppression 0.0]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from anon_core import Problem, make_model  # noqa: E402
from anon_core.utility.summary import compare_distributions, ml_utility, quality_summary  # noqa: E402
from benchmarks.common import load_adult, timed  # noqa: E402

TARGET = "salary-class"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--repeat", type=int, default=10, help="repetitions of the quality and distribution timings"
    )
    parser.add_argument("--cv", type=int, default=5, help="cross-validation folds")
    parser.add_argument("--trees", type=int, default=100, help="random forest n_estimators")
    parser.add_argument("--jobs", type=int, default=1, help="random forest n_jobs (-1: all cores)")
    parser.add_argument(
        "--suppression", type=float, default=0.0, help="suppression limit of the search"
    )
    args = parser.parse_args()
    adult = load_adult()
    if adult is None:
        return 1
    frame, _, hierarchies = adult
    qis = [c for c in frame.columns if c != TARGET]
    t0 = time.perf_counter()
    problem = Problem(
        frame,
        dict.fromkeys(qis, "quasi-identifier") | {TARGET: "insensitive"},
        hierarchies,
        [make_model({"model": "k-anonymity", "k": 5})],
        args.suppression,
    )
    build_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    found = problem.search()
    search_s = time.perf_counter() - t0
    result = found.optimum
    if result is None:
        print("no transformation satisfies k=5 with this suppression limit")
        return 1
    released = problem.apply(result)
    print(
        f"Adult: {len(frame)} rows, {len(qis)} QIs, target {TARGET!r} insensitive; "
        f"problem {build_s * 1e3:.0f} ms, search {search_s * 1e3:.0f} ms"
    )
    print(f"k=5 optimum (Loss, suppression limit {args.suppression}): {result.transformation}")
    print(
        f"released rows {len(released)}, suppressed {result.suppressed_records}, "
        f"classes {result.equivalence_classes}\n"
    )

    q_s, summary = timed(lambda: quality_summary(problem, result), args.repeat)
    d_s, comp = timed(lambda: compare_distributions(problem, result), args.repeat)
    progress_log: list[float] = []
    t0 = time.perf_counter()
    ml = ml_utility(
        frame,
        released,
        TARGET,
        cv=args.cv,
        model_params={"random_forest": {"n_estimators": args.trees, "n_jobs": args.jobs}},
        progress=lambda f, m: progress_log.append(f),
    )
    ml_s = time.perf_counter() - t0

    print(f"{'step':32s} {'median ms':>10s}")
    print(f"{'quality_summary':32s} {q_s * 1e3:10.1f}")
    print(f"{'compare_distributions':32s} {d_s * 1e3:10.1f}")
    print(f"{'ml_utility (1 run)':32s} {ml_s * 1e3:10.0f}   ({len(progress_log)} progress calls)\n")

    print(f"suppression rate {summary.suppression_rate:.4f}")
    print(summary.to_frame()[["name", "value", "optimized"]].to_string(index=False))
    print()
    print(comp.to_frame().to_string(index=False))
    print()
    print(
        f"ML utility: target {TARGET!r}, classes {list(ml.classes)}, {ml.cv}-fold stratified CV, "
        f"majority rate original {ml.majority_rate['original']:.4f} / released {ml.majority_rate['released']:.4f}"
    )
    print(
        f"numeric (scaled) features: original {list(ml.numeric_features['original'])}, "
        f"released {list(ml.numeric_features['released'])}"
    )
    header = f"{'model':20s} {'score':9s} {'original':>17s} {'released':>17s} {'drop':>8s}"
    print(header)
    print("-" * len(header))
    for row in ml.to_frame().itertuples(index=False):
        print(
            f"{row.model:20s} {row.score:9s} {row.original_mean:8.4f} ± {row.original_std:6.4f} "
            f"{row.released_mean:8.4f} ± {row.released_std:6.4f} {row.drop:8.4f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
