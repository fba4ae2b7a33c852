"""Synthetic releases of Adult: time (wall and CPU), utility yardstick and memorization checks.

Adult (30,162 rows, 9 columns) is split 80/20 (seeded): each synthesizer is fitted on the 80%
part; the 20% holdout is the utility yardstick's test set and the DCR's reference. MST and AIM get
their domains from ARX's hierarchy files (leaves; age as integer bounds), so nothing is read from the
data. Rows: synthesizer and parameters; columns: wall and CPU seconds (one run each: the
synthesizers are long), the ratio of wall time to the named baseline (the Gaussian copula),
ML utility trained on the release and tested on the holdout (logistic regression, accuracy and
its drop from the baseline trained on the original part), marginal and association distances,
exact copies of training rows and the share of checked rows closer to training than to holdout.

Run: python benchmarks/bench_synthetic.py [--epsilons 1,10] [--ctgan-epochs 5] [--rows N]
     [--skip-ctgan] [--skip-aim] [--mst-iters 1000]

AIM alone, several seeds: python benchmarks/bench_synthetic.py --aim-seeds 0,1,2 [--epsilons 1]
     [--aim rounds=36 --aim iters=200 ...]. For each seed: wall and CPU seconds of the release, the
     rounds run, and the mean total-variation distance of every 2-way marginal of the release from the
     training part's (age in ten equal-width bins), then the medians and means over the seeds.
     --mst-seeds 0,1,2 does the same for MST (default parameters; --aim key=value applies to it).
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from anon_core.methods import make_method  # noqa: E402
from anon_core.methods.registry import make_context  # noqa: E402
from anon_core.utility.synthetic_checks import synthetic_checks  # noqa: E402
from anon_core.utility.yardstick import utility_yardstick  # noqa: E402
from benchmarks.common import load_adult  # noqa: E402

TARGET = "salary-class"
BASELINE = "synthetic-gaussian-copula"


def declared_domains(hierarchies) -> dict:
    """Categories (hierarchy leaves) per column; age as integer bounds."""
    out = {}
    for name, h in hierarchies.items():
        leaves = h.values
        numbers = pd.to_numeric(pd.Series(leaves), errors="coerce")
        if name == "age" and not numbers.isna().any():
            out[name] = {"min": float(numbers.min()), "max": float(numbers.max()), "integer": True}
        else:
            out[name] = leaves
    return out


def two_way_tvd(original: pd.DataFrame, released: pd.DataFrame) -> tuple[float, float]:
    """Mean and largest total-variation distance over every pair of columns (age in 10 bins)."""

    def labels(frame: pd.DataFrame) -> pd.DataFrame:
        out = frame.astype(str)
        age = pd.to_numeric(frame["age"], errors="coerce")
        out["age"] = pd.cut(age, np.linspace(17, 90, 11), include_lowest=True).astype(str)
        return out

    a, b = labels(original), labels(released[original.columns])
    tvds = []
    for x, y in itertools.combinations(a.columns, 2):
        p = a.groupby([x, y]).size() / len(a)
        q = b.groupby([x, y]).size() / len(b)
        p, q = p.align(q, fill_value=0.0)
        tvds.append(0.5 * float(np.abs(p - q).sum()))
    return float(np.mean(tvds)), float(np.max(tvds))


def aim_seeds(
    train: pd.DataFrame, context, domains: dict, args, name: str = "synthetic-aim"
) -> int:
    """AIM (or MST) alone at each seed: time, rounds and 2-way marginal error (module docstring)."""
    extra = {}
    for item in args.aim:
        key, _, value = item.partition("=")
        extra[key] = float(value) if "." in value else int(value)
    epsilon = float(args.epsilons.split(",")[0])
    spec = {"name": name, "epsilon": epsilon, "domains": domains, **extra}
    load = os.getloadavg()
    print(
        f"{name} eps={epsilon:g} {extra or '(defaults)'}; {len(train)} training rows; load {load}"
    )
    rows = []
    seeds = args.aim_seeds if name == "synthetic-aim" else args.mst_seeds
    for seed in [int(s) for s in seeds.split(",")]:
        c0, w0 = time.process_time(), time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = make_method(spec).release(train, context, random_state=seed)
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
        mean, worst = two_way_tvd(train, out.table)
        rounds = out.details.get("rounds", len(out.details.get("selected_pairs", [])))
        rows.append((seed, wall, cpu, mean, worst))
        print(
            f"seed {seed}: {wall:.1f} s wall, {cpu:.1f} s CPU, rounds {rounds}, "
            f"2-way TVD mean {mean:.4f} max {worst:.4f}; load {os.getloadavg()}",
            flush=True,
        )
    arr = np.array(rows)
    print(
        f"median wall {np.median(arr[:, 1]):.1f} s, median CPU {np.median(arr[:, 2]):.1f} s; "
        f"2-way TVD mean over seeds {arr[:, 3].mean():.4f} (sd {arr[:, 3].std(ddof=1) if len(arr) > 1 else 0:.4f}), "
        f"max {arr[:, 4].mean():.4f}"
    )
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epsilons", default="1,10", help="MST budgets (comma-separated)")
    parser.add_argument("--ctgan-epochs", type=int, default=5)
    parser.add_argument("--skip-ctgan", action="store_true")
    parser.add_argument("--skip-aim", action="store_true")
    parser.add_argument("--mst-iters", type=int, default=1000)
    parser.add_argument("--rows", type=int, default=None, help="use only the first N rows")
    parser.add_argument("--aim-seeds", default=None, help="AIM alone with these seeds (0,1,2)")
    parser.add_argument("--mst-seeds", default=None, help="MST alone with these seeds (0,1,2)")
    parser.add_argument(
        "--aim", action="append", default=[], help="an AIM parameter, key=value (repeatable)"
    )
    args = parser.parse_args()
    loaded = load_adult()
    if loaded is None:
        return 0
    frame, _, hierarchies = loaded
    frame = frame.assign(age=pd.to_numeric(frame["age"]))
    if args.rows:
        frame = frame.iloc[: args.rows]
    order = np.random.default_rng(0).permutation(len(frame))
    cut = int(0.8 * len(frame))
    train = frame.iloc[order[:cut]].reset_index(drop=True)
    holdout = frame.iloc[order[cut:]].reset_index(drop=True)
    context = make_context(train)
    domains = declared_domains(hierarchies)
    if args.aim_seeds is not None:
        return aim_seeds(train, context, domains, args)
    if args.mst_seeds is not None:
        return aim_seeds(train, context, domains, args, "synthetic-mst")
    specs = [{"name": "synthetic-gaussian-copula"}]
    for e in args.epsilons.split(","):
        specs.append(
            {
                "name": "synthetic-mst",
                "epsilon": float(e),
                "iters": args.mst_iters,
                "domains": domains,
            }
        )
        if not args.skip_aim:
            specs.append({"name": "synthetic-aim", "epsilon": float(e), "domains": domains})
    if not args.skip_ctgan:
        specs.append({"name": "synthetic-ctgan", "epochs": args.ctgan_epochs})
    rows = []
    for spec in [{"name": "unprotected-copy"}, *specs]:
        c0, w0 = time.process_time(), time.perf_counter()
        if spec["name"] == "unprotected-copy":
            released, guarantee = train, "none"
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out = make_method(spec).release(train, context, random_state=0)
            released, guarantee = out.table, out.guarantee
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
        report = utility_yardstick(
            train, holdout, released, TARGET, models=["logistic_regression"], random_state=0
        )
        checks = synthetic_checks(train, holdout, released, random_state=0)
        ml = report.to_dict()["ml"]
        label = spec["name"] + (
            f" eps={spec['epsilon']:g}"
            if "epsilon" in spec
            else (f" epochs={spec['epochs']}" if "epochs" in spec else "")
        )
        rows.append(
            {
                "method": label,
                "guarantee": guarantee,
                "rows": len(released),
                "wall_s": wall,
                "cpu_s": cpu,
                "accuracy": ml["accuracy"],
                "acc_drop": ml["accuracy_drop"],
                "roc_auc": ml["roc_auc"],
                "marginal": report.marginal_distance,
                "association": report.association_distance,
                "copies": checks.exact_copies,
                "closer_train": checks.share_closer_to_training,
            }
        )
        print(f"done: {label} ({wall:.1f} s wall, {cpu:.1f} s CPU)", flush=True)
    table = pd.DataFrame(rows)
    base = table.loc[table["method"] == BASELINE, "wall_s"]
    table["x_baseline"] = table["wall_s"] / float(base.iloc[0]) if len(base) else np.nan
    print(f"\nAdult: {len(train)} training rows, {len(holdout)} holdout rows; baseline: {BASELINE}")
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(table.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
