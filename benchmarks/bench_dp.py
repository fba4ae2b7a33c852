"""Differential privacy on the census sample: accuracy against epsilon, and error against epsilon.

1. Accuracy against epsilon (``anon_core.dp.dp_ml_curve``): diffprivlib's LogisticRegression,
   GaussianNB and RandomForestClassifier predicting ``income`` from the other ten columns of
   ``sample_data/census_income.csv`` (5,000 rows), on the log-spaced grid 0.01 to 10, repeated
   with ``--repeats`` seeds (stratified 70/30 splits); mean ± standard deviation of the test
   accuracy, next to the scikit-learn counterpart on the same encoding (non-private) and the
   counterpart trained on the k-anonymized release (k = 5, 2% suppression, optimum of
   ``problem.search()`` with age, sex, race, native_region and zip_code as quasi-identifiers).
   Bounds: age [17, 90], hours_per_week [1, 99], classes given; the categories of the other
   columns come from the data (the warnings say so; fine for a benchmark).
2. Error against epsilon (``anon_core.dp.error_curve``): mean absolute error over ``--draws``
   draws of a count, a mean, a sum, a variance, a median and a histogram, next to the expected
   error of the module's formulas (quantiles: none in closed form). Means, sums and variances
   keep n private (add/remove-one neighbours; a noisy count for means and variances).
3. Cost of keeping n private: wall and CPU time (time.process_time, median of ``--timing``
   calls) of one ``dp_query`` per numeric query, n private against the baseline with a public
   n (diffprivlib's replace-one ``sum``/``mean``/``var``), with the ratio and the mean absolute
   error of each at epsilon 1.

Run: python benchmarks/bench_dp.py [--repeats 5] [--points 7] [--draws 200] [--timing 50]
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from anon_core import Problem, load_table, make_model  # noqa: E402
from anon_core.dp import PrivacyBudget, dp_ml_curve, dp_query, error_curve  # noqa: E402
from anon_core.errors import PrivacyWarning  # noqa: E402

CENSUS = ROOT / "sample_data" / "census_income.csv"
TARGET = "income"
QIS = ["age", "sex", "race", "native_region", "zip_code"]
BOUNDS = {"age": [17, 90], "hours_per_week": [1, 99]}


def k_anonymized(frame: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, int]]:
    roles = {c: "quasi-identifier" if c in QIS else "insensitive" for c in frame.columns}
    problem = Problem(frame, roles, None, [make_model({"model": "k-anonymity", "k": 5})], 0.02)
    optimum = problem.search().optimum
    return problem.apply(optimum), dict(optimum.transformation)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--repeats", type=int, default=5, help="seeds per epsilon (train/test splits)"
    )
    parser.add_argument(
        "--points", type=int, default=7, help="epsilons on the grid 0.01 to 10 (log-spaced)"
    )
    parser.add_argument(
        "--draws", type=int, default=200, help="draws per epsilon for the statistics"
    )
    parser.add_argument("--timing", type=int, default=50, help="timed calls per query (median)")
    args = parser.parse_args()
    frame = load_table(CENSUS).frame
    epsilons = np.logspace(-2, 1, args.points)
    pd.set_option("display.width", 200)
    pd.set_option("display.max_columns", 30)

    t0 = time.perf_counter()
    released, levels = k_anonymized(frame)
    print(
        f"k-anonymized release (k=5, 2% suppression): levels {levels}, {len(released):,} of {len(frame):,} rows "
        f"({time.perf_counter() - t0:.1f} s)"
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PrivacyWarning)
        ml = dp_ml_curve(
            frame,
            TARGET,
            epsilons=epsilons,
            repeats=args.repeats,
            bounds=BOUNDS,
            classes=["<=50K", ">50K"],
            released=released,
            random_state=0,
        )
    print(
        f"\nAccuracy against epsilon predicting {TARGET!r} ({args.repeats} seeds, 30% test; majority class "
        f"{ml.majority_rate:.3f}; {ml.seconds:.1f} s; {len(caught)} privacy notes: categories from the data)"
    )
    print(ml.to_frame().to_string(index=False))

    queries = [
        {"type": "count", "column": "sex", "value": "Female", "epsilon": 1.0},
        {"type": "mean", "column": "age", "epsilon": 1.0, "bounds": [17, 90]},
        {"type": "sum", "column": "hours_per_week", "epsilon": 1.0, "bounds": [1, 99]},
        {"type": "var", "column": "age", "epsilon": 1.0, "bounds": [17, 90]},
        {"type": "median", "column": "age", "epsilon": 1.0, "bounds": [17, 90]},
        {
            "type": "histogram",
            "column": "education",
            "epsilon": 1.0,
            "categories": sorted(frame["education"].unique()),
        },
    ]
    t0 = time.perf_counter()
    curve = error_curve(frame, queries, epsilons=epsilons, repeats=args.draws, random_state=0)
    seconds = time.perf_counter() - t0
    curve["cell"] = [
        f"{m:.4g} ({e:.4g})" if np.isfinite(e) else f"{m:.4g}"
        for m, e in zip(curve["mae"], curve["expected_error"], strict=True)
    ]
    table = curve.pivot(index="query", columns="epsilon", values="cell")
    table = table.loc[list(dict.fromkeys(curve["query"]))]
    table.columns = [f"ε={e:g}" for e in table.columns]
    print(
        f"\nMean absolute error against epsilon ({args.draws} draws per cell; expected error in brackets; "
        f"{seconds:.1f} s)"
    )
    print(table.to_string())
    rel = curve.pivot(index="query", columns="epsilon", values="relative_error").loc[table.index]
    rel.columns = table.columns
    print("\nRelative error (sum |error| / sum |true|)")
    print(rel.map(lambda v: f"{v:.2%}").to_string())
    timing_table(frame, args.timing)
    return 0


def timing_table(frame: pd.DataFrame, calls: int) -> None:
    """Part 3: n private against a public n (the baseline), per numeric query."""
    n_age = int(frame["age"].notna().sum())
    print(
        f"\nCost of keeping n private: median of {calls} dp_query calls at ε = 1 (baseline: public n, "
        "diffprivlib's replace-one tools)"
    )
    print(
        f"{'query':8s} {'wall ms':>8s} {'CPU ms':>7s} {'base wall':>9s} {'base CPU':>8s} "
        f"{'wall/base':>9s} {'CPU/base':>8s} {'MAE':>9s} {'base MAE':>9s}"
    )
    for qtype in ("sum", "mean", "var"):
        query = {"type": qtype, "column": "age", "epsilon": 1.0, "bounds": [17, 90]}
        row = []
        for q in (query, {**query, "n": n_age}):
            walls, cpus, errors = [], [], []
            truth = None
            for i in range(calls):
                w0, c0 = time.perf_counter(), time.process_time()
                r = dp_query(frame, q, PrivacyBudget(math.inf), random_state=i, compare=True)
                cpus.append(time.process_time() - c0)
                walls.append(time.perf_counter() - w0)
                truth = r.true_value
                errors.append(abs(r.value - truth))
            row.append(
                (statistics.median(walls) * 1e3, statistics.median(cpus) * 1e3, np.mean(errors))
            )
        (w, c, e), (bw, bc, be) = row
        print(
            f"{qtype:8s} {w:8.2f} {c:7.2f} {bw:9.2f} {bc:8.2f} {w / bw:8.2f}x {c / bc:7.2f}x "
            f"{e:9.4g} {be:9.4g}"
        )


if __name__ == "__main__":
    sys.exit(main())
