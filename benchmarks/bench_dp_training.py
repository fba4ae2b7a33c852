"""DP-SGD on Adult income: accuracy and membership advantage against epsilon, time per epoch.

An MLP (64-32, Adam 0.01, batch 256, C = 1, PRV accountant, delta = 1/(10 n)) predicts
``salary-class`` from the other eight columns of ``../shared/data/adult`` (30,162 rows;
70/30 stratified split per seed: the training records are the members, half of the held-out
records the evaluation non-members). For each epsilon of ``--epsilons`` (``inf``: the same
model without DP, the **baseline**) and each of ``--seeds`` seeds: test accuracy, and the
membership advantage (TPR - FPR) and AUC of the loss-threshold attack (Yeom et al.) and of the
offline likelihood-ratio attack. Reference row: the same non-private model trained on the k=5
release (ARX hierarchies, every column but the target a quasi-identifier, 2 % suppression with
suppressed records masked as ``*``, so the release is aligned with the table). Time per epoch is wall and CPU (time.process_time) on one
torch thread, with the ratio against the non-private baseline.

``--rows 2000 --epochs 30 --hidden 256,256`` trains a larger model on a small sample, which
overfits, so that the membership attack has something to find.

Run: python benchmarks/bench_dp_training.py [--seeds 3] [--epochs 3] [--epsilons 0.5,1,2,4,8,inf]
     [--rows N] [--hidden 64,32] [--accountant prv|rdp]
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from anon_core import Problem, make_model  # noqa: E402
from anon_core.training import (  # noqa: E402
    parse_train_section,
    training_available,
    training_curve,
)
from benchmarks.common import load_adult  # noqa: E402

TARGET = "salary-class"


def k5_release(frame: pd.DataFrame, order: list[str], hierarchies: dict) -> pd.DataFrame:
    roles = {a: "quasi-identifier" for a in order if a != TARGET}
    roles[TARGET] = "insensitive"
    hier = {a: h for a, h in hierarchies.items() if a != TARGET}
    problem = Problem(
        frame[order], roles, hier, [make_model({"model": "k-anonymity", "k": 5})], 0.02
    )
    optimum = problem.search().optimum
    print(f"k=5 release (2% suppression, masked): levels {dict(optimum.transformation)}")
    return problem.apply(optimum, "mask")  # suppressed rows kept as '*': aligned with the table


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--epsilons", default="0.5,1,2,4,8,inf")
    parser.add_argument("--accountant", default="prv", choices=["prv", "rdp"])
    parser.add_argument(
        "--rows", type=int, default=0, help="use a seeded sample of this many rows (0: all)"
    )
    parser.add_argument("--hidden", default="64,32", help="MLP hidden layer sizes")
    args = parser.parse_args()
    if not training_available():
        print('PyTorch/Opacus are not installed: pip install -e ".[training]"')
        return 1
    adult = load_adult()
    if adult is None:
        return 1
    frame, order, hierarchies = adult
    if args.rows:  # a small training set overfits: membership leakage becomes measurable
        frame = frame.sample(n=args.rows, random_state=0).reset_index(drop=True)
    hidden = [int(h) for h in args.hidden.split(",") if h.strip()]
    epsilons = [math.inf if e.strip() == "inf" else float(e) for e in args.epsilons.split(",")]
    config = parse_train_section(
        {
            "target": TARGET,
            "epsilon": 1.0,
            "model": "mlp",
            "hidden": hidden,
            "epochs": args.epochs,
            "batch_size": 256,
            "learning_rate": 0.01,
            "accountant": args.accountant,
        }
    )
    released = k5_release(frame, order, hierarchies)
    w0, c0 = time.perf_counter(), time.process_time()
    curve = training_curve(
        frame[order],
        config,
        epsilons=epsilons,
        seeds=args.seeds,
        references={"k=5 release": released[order]},
    )
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    loss, lr = curve.summary("loss"), curve.summary("lr")
    base = loss[loss["setting"] == "non_private"]
    base_wall = float(base["seconds_per_epoch"].iloc[0]) if len(base) else math.nan
    base_cpu = float(base["cpu_per_epoch"].iloc[0]) if len(base) else math.nan
    print(
        f"\nAdult {TARGET} ({len(frame):,} rows): MLP {args.hidden}, {args.epochs} epochs, batch 256, {args.accountant.upper()} "
        f"accountant, {args.seeds} seeds; majority class {curve.majority_rate:.3f}; "
        f"whole run {wall:.0f} s wall, {cpu:.0f} s CPU. Baseline of the time ratio: non-private "
        "training (ε = ∞)."
    )
    header = (
        f"{'setting':12s} {'ε':>5s} {'σ':>6s} {'ε spent':>8s} {'accuracy':>15s} "
        f"{'adv (loss)':>15s} {'AUC (loss)':>10s} {'adv (LR)':>15s} {'AUC (LR)':>9s} "
        f"{'s/epoch':>8s} {'CPU s/ep':>8s} {'wall/base':>9s} {'CPU/base':>8s}"
    )
    print(header)
    print("-" * len(header))
    for (_, a), (_, b) in zip(loss.iterrows(), lr.iterrows(), strict=True):
        eps = (
            ""
            if pd.isna(a["epsilon"])
            else ("∞" if math.isinf(a["epsilon"]) else f"{a['epsilon']:g}")
        )
        spent = "" if not math.isfinite(a["epsilon_spent"]) else f"{a['epsilon_spent']:.3f}"
        print(
            f"{a['setting']:12s} {eps:>5s} {a['noise_multiplier']:6.3f} {spent:>8s} "
            f"{a['accuracy']:8.4f} ± {a['accuracy_std']:.3f} "
            f"{a['advantage']:8.4f} ± {a['advantage_std']:.3f} {a['auc']:10.4f} "
            f"{b['advantage']:8.4f} ± {b['advantage_std']:.3f} {b['auc']:9.4f} "
            f"{a['seconds_per_epoch']:8.3f} {a['cpu_per_epoch']:8.3f} "
            f"{a['seconds_per_epoch'] / base_wall:8.2f}x {a['cpu_per_epoch'] / base_cpu:7.2f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
