"""Parts of ``bench_attacks.py``: the battery against anonymeter on anonymeter's own example
data at small and large attack counts, the shadow-model membership attack, and RMIA.

**Battery speed.** anonymeter's example notebook (``notebooks/anonymeter_example.ipynb`` of
github.com/statice/anonymeter) attacks a CTGAN release of Adult (``adults_syn_ctgan.csv``,
39,040 rows) with ``adults_train.csv`` as the original and ``adults_control.csv`` (9,758 rows)
as the control. Point ``--anonymeter-data`` (or ``ANONYMETER_DATA``) at that folder. When
``adults_train.csv`` is absent or empty (the repository's copy is a large-file pointer), the
control file is split in two halves: the first 4,879 rows play the original, the others the
control. The battery is the notebook's: univariate singling out, multivariate singling out on 4
columns, linkability on the notebook's two column groups with 10 neighbours, and inference of
two secrets (income, occupation) from every other column; each at the same ``n_attacks``. Both
sides are timed per attack inside their own process (anonymeter in its venv, see
``oracle_env.py``), so imports and file reading are not counted; the figure is the median over
``repeats`` runs of the battery's summed CPU seconds (wall beside it), runs interleaved.

**Shadow MIA.** :func:`anon_core.attacks.shadow.shadow_membership` with the evidence's budget
(10 most vulnerable targets, 8 fits per side) against a release method on a seeded 5,000-row
Adult sample (released part and control split as the evidence does).

**RMIA.** RMIA (2 reference models) beside the loss-threshold attack on an overfit MLP trained on
200 Adult records (the test's setting), DP-SGD not applied.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
from oracle_env import ORACLE, ensure_oracle_env

from anon_core.attacks import get_attack

SEED = 0
#: The notebook's linkability column groups.
NOTEBOOK_AUX = (
    ["type_employer", "education", "hr_per_week", "capital_loss", "capital_gain"],
    ["race", "sex", "fnlwgt", "age", "country"],
)
NOTEBOOK_SECRETS = ("income", "occupation")
SHADOW_ROWS = 5000


def _read(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, keep_default_na=False, na_values=[""])


def anonymeter_files(folder: Path, workdir: Path) -> tuple[list[Path], str] | None:
    """(original, released, control) CSV paths for both sides, and a line saying what they are;
    None when the folder lacks the notebook's files."""
    syn, control = folder / "adults_syn_ctgan.csv", folder / "adults_control.csv"
    if not (syn.is_file() and control.is_file()):
        return None
    train = folder / "adults_train.csv"
    if train.is_file() and train.stat().st_size > 0:
        return [train, syn, control], "adults_train / adults_syn_ctgan / adults_control"
    table = _read(control)
    half = len(table) // 2
    paths = [workdir / "anonymeter_ori.csv", syn, workdir / "anonymeter_control.csv"]
    table.iloc[:half].to_csv(paths[0], index=False)
    table.iloc[half:].to_csv(paths[2], index=False)
    return paths, (
        f"adults_syn_ctgan ({sum(1 for _ in open(syn)) - 1:,} rows) released; adults_train.csv "
        f"absent, so adults_control split: {half:,} rows original, {len(table) - half:,} control"
    )


def battery_specs(n: int) -> list[dict[str, Any]]:
    specs: list[dict[str, Any]] = [
        {"name": "singling-out-univariate", "n_attacks": n},
        {"name": "singling-out-multivariate", "n_attacks": n, "n_cols": 4},
        {
            "name": "linkability",
            "n_attacks": n,
            "aux_columns": [list(g) for g in NOTEBOOK_AUX],
            "n_neighbors": 10,
        },
    ]
    for secret in NOTEBOOK_SECRETS:
        specs.append(
            {
                "name": "inference",
                "key": f"inference-{secret}",
                "secret": secret,
                "n_attacks": n,
                "regression": False,
            }
        )
    return specs


def _ours_once(frames, specs) -> tuple[float, float, dict[str, float]]:
    """One battery run on one BLAS thread (anonymeter runs with n_jobs=1: both single-threaded;
    a second BLAS thread adds CPU seconds spent waiting, not work)."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):
        return _ours_run(frames, specs)


def _ours_run(frames, specs) -> tuple[float, float, dict[str, float]]:
    cpu = wall = 0.0
    risks = {}
    for spec in specs:
        params = {k: v for k, v in spec.items() if k not in ("name", "key")}
        c0, w0 = time.process_time(), time.perf_counter()
        result = get_attack(spec["name"]).run(*frames, random_state=SEED, **params)
        cpu += time.process_time() - c0
        wall += time.perf_counter() - w0
        risks[spec.get("key", spec["name"])] = result.risk
    return cpu, wall, risks


def _theirs_once(paths, specs) -> tuple[float, float, dict[str, float]]:
    python = ensure_oracle_env()
    options = json.dumps({"attacks": specs, "seed": SEED, "n_jobs": 1})
    done = subprocess.run(
        [str(python), str(ORACLE), *map(str, paths), options],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "OMP_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1"},
    )
    out = json.loads(done.stdout)
    cpu = sum(v["seconds_cpu"] for v in out.values())
    wall = sum(v["seconds_wall"] for v in out.values())
    return cpu, wall, {k: v["risk"] for k, v in out.items()}


@dataclass
class SpeedRow:
    n_attacks: int
    ours_cpu: float
    ours_wall: float
    theirs_cpu: float | None
    theirs_wall: float | None
    runs: int
    load: tuple[float, float, float]
    risks: dict[str, tuple[float, float | None]]


def battery_speed(
    folder: Path, workdir: Path, sizes: Sequence[int], repeats: int, oracle: bool
) -> tuple[list[SpeedRow], str] | None:
    """Median battery CPU and wall, ours and anonymeter's, per attack count (interleaved runs)."""
    found = anonymeter_files(folder, workdir)
    if found is None:
        return None
    paths, what = found
    frames = [_read(p) for p in paths]
    _ours_once(frames, battery_specs(10))  # imports and first-call costs, untimed
    rows = []
    for n in sizes:
        specs = battery_specs(n)
        ours, theirs = [], []
        for _ in range(repeats):
            ours.append(_ours_once(frames, specs))
            if oracle:
                theirs.append(_theirs_once(paths, specs))
        med = statistics.median
        risks = {k: (ours[-1][2][k], theirs[-1][2].get(k) if theirs else None) for k in ours[-1][2]}
        rows.append(
            SpeedRow(
                n,
                med(o[0] for o in ours),
                med(o[1] for o in ours),
                med(t[0] for t in theirs) if theirs else None,
                med(t[1] for t in theirs) if theirs else None,
                repeats,
                os.getloadavg(),
                risks,
            )
        )
    return rows, what


def print_speed(rows: list[SpeedRow], what: str) -> None:
    print(f"\nBattery on anonymeter's example data ({what}); median of runs, seconds")
    head = (
        f"{'n_attacks':>9} {'runs':>4} {'ours CPU':>9} {'ours wall':>9} {'anonymeter CPU':>14} "
        f"{'anonymeter wall':>15} {'CPU ratio':>9}  load (1/5/15 min)"
    )
    print(head)
    print("-" * len(head))
    for r in rows:
        tc = "-" if r.theirs_cpu is None else f"{r.theirs_cpu:.2f}"
        tw = "-" if r.theirs_wall is None else f"{r.theirs_wall:.2f}"
        ratio = "-" if not r.theirs_cpu else f"{r.ours_cpu / r.theirs_cpu:.3f}x"
        load = "/".join(f"{x:.1f}" for x in r.load)
        print(
            f"{r.n_attacks:>9} {r.runs:>4} {r.ours_cpu:>9.2f} {r.ours_wall:>9.2f} {tc:>14} "
            f"{tw:>15} {ratio:>9}  {load}"
        )
        risks = ", ".join(
            f"{k} {o:.3f}" + ("" if t is None else f"/{t:.3f}") for k, (o, t) in r.risks.items()
        )
        print(f"{'':>9} risks ours/anonymeter: {risks}")


# ---------------------------------------------------------------- shadow MIA and RMIA
def shadow_timing(frame: pd.DataFrame, method_name: str) -> dict[str, Any]:
    """The evidence's shadow attack against ``method_name`` on a 5,000-row sample of ``frame``:
    CPU and wall seconds, fits, the mean AUC with its interval."""
    from anon_core.attacks.shadow import shadow_membership
    from anon_core.attacks.split import split_frame
    from anon_core.methods.registry import make_context, make_method
    from anon_core.services.shadow_evidence import SHADOW_SHADOWS, SHADOW_TARGETS

    sample = frame.sample(SHADOW_ROWS, random_state=SEED).reset_index(drop=True)
    part, control = split_frame(sample, 1 / 3, SEED)
    method = make_method({"name": method_name})

    def fit(table: pd.DataFrame, seed: int) -> pd.DataFrame:
        with warnings.catch_warnings():  # MST's note on domains read from the data, per fit
            warnings.simplefilter("ignore")
            return method.release(table, make_context(table), random_state=seed).table

    c0, w0 = time.process_time(), time.perf_counter()
    result = shadow_membership(
        fit,
        part,
        control,
        n_targets=SHADOW_TARGETS,
        n_shadows=SHADOW_SHADOWS,
        random_state=SEED,
    )
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    return {
        "method": method_name,
        "cpu": cpu,
        "wall": wall,
        "fits": result.fits,
        "targets": len(result.targets),
        "auc": result.auc,
        "auc_ci": result.auc_ci,
        "per_target_cpu": cpu / max(len(result.targets), 1),
    }


def rmia_timing(frame: pd.DataFrame, target: str) -> dict[str, Any]:
    """RMIA and the loss attack on an MLP overfit on 200 records of ``frame`` (no DP)."""
    import math

    from anon_core.training import parse_train_section
    from anon_core.training.dpsgd import train_model
    from anon_core.training.experiment import attack_model, encode, rmia_model, split_table

    table = frame.sample(1000, random_state=SEED).reset_index(drop=True)
    config = parse_train_section(
        {
            "target": target,
            "epsilon": 1.0,
            "test_size": 0.8,
            "epochs": 100,
            "batch_size": 20,
            "hidden": [64],
        }
    )
    split = split_table(table, target, 0.8, SEED)
    data = encode(table, config, split)
    X, y = data.part("train")
    model = train_model(X, y, len(split.classes), config.settings, random_state=SEED)
    c0, w0 = time.process_time(), time.perf_counter()
    loss = attack_model(model, data, "loss", SEED)
    loss_cpu, loss_wall = time.process_time() - c0, time.perf_counter() - w0
    c0, w0 = time.process_time(), time.perf_counter()
    rmia, why = rmia_model(model, data, config, math.inf)
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    return {
        "cpu": cpu,
        "wall": wall,
        "auc": None if rmia is None else rmia.auc,
        "auc_ci": None if rmia is None else rmia.auc_ci,
        "references": None if rmia is None else rmia.references,
        "why": why,
        "loss_cpu": loss_cpu,
        "loss_wall": loss_wall,
        "loss_auc": loss.auc,
    }


def print_model_attacks(shadows: list[dict[str, Any]], rmia: dict[str, Any] | None) -> None:
    if shadows:
        print(
            f"\nShadow-model membership inference, {SHADOW_ROWS:,}-row Adult sample "
            "(10 most vulnerable targets, 8 fits per side)"
        )
        head = f"{'method':<28} {'fits':>4} {'CPU s':>8} {'wall s':>8} {'CPU s/target':>12}  AUC [95% CI]"
        print(head)
        print("-" * len(head))
        for s in shadows:
            lo, hi = s["auc_ci"]
            print(
                f"{s['method']:<28} {s['fits']:>4} {s['cpu']:>8.1f} {s['wall']:>8.1f} "
                f"{s['per_target_cpu']:>12.2f}  {s['auc']:.3f} [{lo:.3f}, {hi:.3f}]"
            )
    if rmia is not None:
        print("\nModel attacks on an MLP overfit on 200 Adult records (no DP)")
        if rmia["auc"] is None:
            print(f"RMIA did not run: {rmia['why']}")
        else:
            lo, hi = rmia["auc_ci"]
            print(
                f"RMIA ({rmia['references']} reference models): CPU {rmia['cpu']:.2f} s, wall "
                f"{rmia['wall']:.2f} s, AUC {rmia['auc']:.3f} [{lo:.3f}, {hi:.3f}]"
            )
        print(
            f"loss-threshold attack: CPU {rmia['loss_cpu']:.2f} s, wall {rmia['loss_wall']:.2f} s, "
            f"AUC {rmia['loss_auc']:.3f}"
        )
