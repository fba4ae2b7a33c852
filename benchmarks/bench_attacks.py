"""Attack lab benchmark on Adult: our attacks against anonymeter's, in the same run.

The release is ARX's Adult example: k=5 + distinct 3-diversity (occupation), 2% suppression,
on a seeded 2/3 : 1/3 split (20,108 released-part records, 10,054 control records); the
original and control records are generalized with the release's own transformation. Each
attack makes 2,000 guesses. anonymeter runs in its own venv (``benchmarks/oracle_env.py``
creates it) as a subprocess that times itself; the ratio is ours / anonymeter's. The
class-based figures of the same release (ARX's prosecutor risk, sample uniques) are printed
beside the attacks.

Usage: .venv/bin/python benchmarks/bench_attacks.py [--n-attacks 2000] [--no-oracle] [--quick]
[--parts release,speed,shadow,rmia] [--anonymeter-data DIR] [--repeats 5] [--mst]

Beside the Adult release rows, the script times (``attack_timings.py``): the battery against
anonymeter on anonymeter's own example data at 100 and 2,000 attacks (median of ``--repeats``
runs, CPU beside wall, load average, the ratio), the shadow-model membership attack (Gaussian
copula; MST with ``--mst``) and RMIA. ``--quick`` keeps the run bounded: speed at 100 attacks,
the Gaussian-copula shadow attack and RMIA.

More rows: append a function ``rows(ctx: BenchContext) -> list[Row]`` to ``ROW_BUILDERS``
(e.g. linkage of an external table, the risk-bounded search); ``main`` prints them all.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import attack_timings as timings
import pandas as pd
from common import ROOT, load_adult
from oracle_env import ORACLE, ensure_oracle_env

from anon_core.attacks import get_attack
from anon_core.attacks.battery import AttackInputs, attack_inputs
from anon_core.attacks.split import split_frame
from anon_core.privacy.models import make_model
from anon_core.risk.reidentification import risk_of_result
from anon_core.transform.problem import Problem

SEED = 0
SENSITIVE = "occupation"
#: The attacker's two tables for linkability: the QIs split in two.
AUX = (
    ["sex", "age", "race", "marital-status"],
    ["education", "native-country", "workclass", "salary-class"],
)
SECRETS = ("salary-class", "occupation")
#: Both implementations stop generating multivariate predicates after this many tries.
MAX_ATTEMPTS = 100_000


@dataclass
class BenchContext:
    """What every row builder may use: the Adult split, the release and its attack inputs."""

    part: pd.DataFrame
    control: pd.DataFrame
    hierarchies: dict[str, Any]
    roles: dict[str, str]
    problem: Problem
    result: Any
    inputs: AttackInputs
    n_attacks: int
    oracle: bool
    workdir: Path
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class Row:
    """One line of the table: our figure and time, and optionally the baseline's."""

    name: str
    figure: str
    wall: float
    cpu: float
    baseline_name: str = ""
    baseline_figure: str = ""
    baseline_wall: float | None = None
    baseline_cpu: float | None = None
    agree: str = ""


def build_context(n_attacks: int, oracle: bool, workdir: Path) -> BenchContext | None:
    loaded = load_adult()
    if loaded is None:
        return None
    frame, _order, hierarchies = loaded
    part, control = split_frame(frame, 1 / 3, SEED)
    roles = {c: "quasi-identifier" for c in frame.columns}
    roles[SENSITIVE] = "sensitive"
    problem = Problem(
        part,
        roles,
        {q: h for q, h in hierarchies.items() if roles[q] == "quasi-identifier"},
        [
            make_model({"model": "k-anonymity", "k": 5}),
            make_model({"model": "distinct-l-diversity", "attribute": SENSITIVE, "l": 3}),
        ],
        0.02,
    )
    result = problem.search().optimum
    inputs = attack_inputs(problem.dataset, result, control)
    return BenchContext(
        part, control, hierarchies, roles, problem, result, inputs, n_attacks, oracle, workdir
    )


def _read(path: Path) -> pd.DataFrame:
    """The CSV reader the oracle script uses, so both sides attack the very same values."""
    return pd.read_csv(path, keep_default_na=False, na_values=[""])


def _interval(risk: float, ci) -> str:
    return f"{risk:.3f} [{ci[0]:.3f}, {ci[1]:.3f}]"


def class_rows(ctx: BenchContext) -> list[Row]:
    """ARX's class-based figures of the same release, for comparison with the attacks."""
    c0, w0 = time.process_time(), time.perf_counter()
    report = risk_of_result(ctx.result)
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    return [
        Row(
            "class-based: highest prosecutor risk / sample uniques",
            f"{report.prosecutor.highest_risk:.3f} / {report.sample_uniques}",
            wall,
            cpu,
        )
    ]


def _attack_specs(n: int) -> list[dict[str, Any]]:
    specs: list[dict[str, Any]] = [
        {"name": "singling-out-multivariate", "n_attacks": n, "max_attempts": MAX_ATTEMPTS},
        {"name": "singling-out-univariate", "n_attacks": n},
        {"name": "linkability", "n_attacks": n, "aux_columns": [list(g) for g in AUX]},
    ]
    for secret in SECRETS:
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


def run_ours(spec: dict[str, Any], original, released, control, seed: int):
    """Our attack of an oracle spec, through the attack registry (the spec's parameters)."""
    params = {k: v for k, v in spec.items() if k not in ("name", "key")}
    return get_attack(spec["name"]).run(original, released, control, random_state=seed, **params)


def run_oracle(paths: list[Path], specs: list[dict[str, Any]], seed: int) -> dict[str, Any]:
    """anonymeter's figures and self-measured times, from its venv (one subprocess)."""
    python = ensure_oracle_env()
    options = json.dumps({"attacks": specs, "seed": seed, "n_jobs": 1})
    done = subprocess.run(
        [str(python), str(ORACLE), *map(str, paths), options],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


def within_each_other(ours, theirs: dict[str, Any], slack: float = 1e-9) -> bool:
    lo, hi = theirs["ci"]
    return (lo - slack <= ours.risk <= hi + slack) and (
        ours.ci[0] - slack <= theirs["risk"] <= ours.ci[1] + slack
    )


def attack_rows(ctx: BenchContext) -> list[Row]:
    """Singling out (multi/univariate), linkability and inference per secret: ours vs anonymeter."""
    paths = []
    for name, frame in (
        ("original", ctx.inputs.original),
        ("released", ctx.inputs.released),
        ("control", ctx.inputs.control),
    ):
        path = ctx.workdir / f"{name}.csv"
        frame.to_csv(path, index=False)
        paths.append(path)
    original, released, control = (_read(p) for p in paths)
    specs = _attack_specs(ctx.n_attacks)
    theirs = run_oracle(paths, specs, SEED) if ctx.oracle else {}
    rows = []
    for spec in specs:
        key = spec.get("key", spec["name"])
        c0, w0 = time.process_time(), time.perf_counter()
        ours = run_ours(spec, original, released, control, SEED)
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
        row = Row(f"{key} (n={ctx.n_attacks})", _interval(ours.risk, ours.ci), wall, cpu)
        if key in theirs:
            t = theirs[key]
            row.baseline_name = "anonymeter 1.1"
            row.baseline_figure = _interval(t["risk"], t["ci"])
            row.baseline_wall, row.baseline_cpu = t["seconds_wall"], t["seconds_cpu"]
            row.agree = "yes" if within_each_other(ours, t) else "NO"
        rows.append(row)
    return rows


#: Row builders, in print order; each takes the context and returns rows.
ROW_BUILDERS: list[Callable[[BenchContext], list[Row]]] = [class_rows, attack_rows]


# ---------------------------------------------------------------- attacks-battery rows
#: The risk-bounded search's bound: multivariate singling-out risk (the plain search's optimum
#: measures about 0.03 here; every candidate that fails the bound costs one more attack run).
BOUND = {
    "model": "attack-risk",
    "attack": "singling-out-multivariate",
    "max_attempts": MAX_ATTEMPTS,
}
#: 0.05 passes at the plain optimum (one attack run); 0.02 needs a walk down the candidates.
THRESHOLDS = (0.05, 0.02)
N_EXTERNAL = 5000


def _pandas_linkage(external: pd.DataFrame, ctx: BenchContext, qis: list[str]) -> float:
    """Baseline: generalize with Series.map per column, count released groups, merge."""
    levels = ctx.result.transformation
    ext = pd.DataFrame(
        {
            q: external[q]
            .astype(str)
            .map(
                dict(
                    zip(
                        ctx.hierarchies[q].table[:, 0],
                        ctx.hierarchies[q].table[:, levels[q]],
                        strict=True,
                    )
                )
            )
            for q in qis
        }
    )
    sizes = ctx.inputs.released.groupby(qis).size().rename("size").reset_index()
    merged = ext.merge(sizes, on=qis, how="left")
    return float((1.0 / merged["size"].dropna()).sum())


def linkage_rows(ctx: BenchContext) -> list[Row]:
    """Linkage of a 5,000-record external table (raw QIs of released-part records, an id)."""
    from anon_core.attacks.linkage import linkage

    qis = list(ctx.inputs.qis)
    external = ctx.part.sample(N_EXTERNAL, random_state=SEED)[qis]
    external = external.assign(id=external.index.to_numpy())
    kept = ~ctx.result.suppressed[ctx.result.table.record_class()]
    released_ids = ctx.part.index.to_numpy()[kept]
    c0, w0 = time.process_time(), time.perf_counter()
    ours = linkage(
        external,
        ctx.inputs.released,
        qis=qis,
        hierarchies=ctx.inputs.hierarchies,
        levels=ctx.inputs.levels,
        id_column="id",
        released_ids=released_ids,
    )
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    blind = linkage(
        external.drop(columns="id"),
        ctx.inputs.released,
        qis=qis,
        hierarchies=ctx.inputs.hierarchies,
        levels=ctx.inputs.levels,
    )
    c0, w0 = time.process_time(), time.perf_counter()
    expected = _pandas_linkage(external, ctx, qis)
    b_wall, b_cpu = time.perf_counter() - w0, time.process_time() - c0
    return [
        Row(
            f"linkage of {N_EXTERNAL:,} external records: expected re-id",
            f"{ours.expected_reidentified:.1f} ({ours.unique_matches} unique)",
            wall,
            cpu,
            "pandas map+merge, sum 1/size",
            f"{expected:.1f} expected re-id",
            b_wall,
            b_cpu,
            "yes"
            if abs(blind.expected_reidentified - expected) < 1e-6 * max(1.0, expected)
            else "NO",
        )
    ]


def bounded_search_rows(ctx: BenchContext) -> list[Row]:
    """Risk-bounded search (k=5 + 3-diversity + singling-out risk bounds) against the plain search."""
    from anon_core.transform.attack_bounded import measure_attack

    models = [
        make_model({"model": "k-anonymity", "k": 5}),
        make_model({"model": "distinct-l-diversity", "attribute": SENSITIVE, "l": 3}),
    ]
    hierarchies = {q: h for q, h in ctx.hierarchies.items() if ctx.roles[q] == "quasi-identifier"}
    plain = Problem(ctx.part, ctx.roles, hierarchies, models, 0.02)
    c0, w0 = time.process_time(), time.perf_counter()
    base = plain.search()
    b_wall, b_cpu = time.perf_counter() - w0, time.process_time() - c0
    rows = []
    for threshold in THRESHOLDS:
        spec = {**BOUND, "threshold": threshold, "n_attacks": ctx.n_attacks}
        bounded = Problem(
            ctx.part, ctx.roles, hierarchies, [*models, make_model(spec).bind(ctx.control)], 0.02
        )
        c0, w0 = time.process_time(), time.perf_counter()
        found = bounded.search()
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
        runs, figure = len(found.attack_checks), "none passes"
        if found.optimum is not None:
            # Re-measured with a fresh model (no cache): the bound holds on the optimum.
            check = measure_attack(
                make_model(spec).bind(ctx.control), bounded.evaluator, found.optimum
            )
            figure = f"loss {found.optimum.quality.value:.4f} risk {check.risk:.3f}"
        rows.append(
            Row(
                f"risk-bounded search, singling out <= {threshold} ({runs} attack runs)",
                figure,
                wall,
                cpu,
                "plain search (k=5 + 3-diversity)",
                f"loss {base.optimum.quality.value:.4f}",
                b_wall,
                b_cpu,
            )
        )
    return rows


def _enumerated_predicates(ctx: BenchContext) -> tuple[int, int]:
    """Every 3-column singling-out predicate of the release and how many single out an original
    record, by enumeration (all columns are labels on this release: equality predicates)."""
    from itertools import combinations

    rel = ctx.inputs.released.astype(str).drop_duplicates()
    ori = ctx.inputs.original.astype(str).drop_duplicates()
    total = singled = 0
    for combo in combinations(rel.columns, 3):
        counts = rel.groupby(list(combo)).size()
        unique = counts[counts == 1].index
        total += len(unique)
        singled += int((ori.groupby(list(combo)).size().reindex(unique).fillna(0) == 1).sum())
    return total, singled


def saturation_rows(ctx: BenchContext) -> list[Row]:
    """The saturated multivariate search (default bound on tries): predicates found of those
    requested and their precision, against an enumeration of every singling-out predicate."""
    from anon_core.attacks.singling_out import singling_out

    c0, w0 = time.process_time(), time.perf_counter()
    r = singling_out(
        ctx.inputs.original,
        ctx.inputs.released,
        ctx.inputs.control,
        n_attacks=ctx.n_attacks,
        random_state=SEED,
    )
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    c0, w0 = time.process_time(), time.perf_counter()
    total, singled = _enumerated_predicates(ctx)
    b_wall, b_cpu = time.perf_counter() - w0, time.process_time() - c0
    d = r.detail
    precision = "-" if d["precision"] is None else f"{d['precision']:.3f}"
    return [
        Row(
            f"singling out saturated: found/requested, precision ({d['search']['tries']:,} tries)",
            f"{d['n_predicates_found']}/{d['n_requested']}, {precision}",
            wall,
            cpu,
            "enumeration of all predicates",
            f"{total}, {singled / max(total, 1):.3f}",
            b_wall,
            b_cpu,
        )
    ]


ROW_BUILDERS.extend([linkage_rows, bounded_search_rows, saturation_rows])


def _ratio(ours: float, theirs: float | None) -> str:
    if theirs is None or theirs <= 0:
        return "-"
    return f"{ours / theirs:.3f}x"


def print_table(rows: list[Row]) -> None:
    head = (
        f"{'measure':<52} {'ours (risk [CI])':<24} {'wall s':>7} {'CPU s':>7} "
        f"{'baseline (risk [CI])':<24} {'wall s':>7} {'CPU s':>7} {'wall ratio':>10} "
        f"{'CPU ratio':>10} {'agree':>5}"
    )
    print(head)
    print("-" * len(head))
    for r in rows:
        bw = "-" if r.baseline_wall is None else f"{r.baseline_wall:.2f}"
        bc = "-" if r.baseline_cpu is None else f"{r.baseline_cpu:.2f}"
        print(
            f"{r.name:<52} {r.figure:<24} {r.wall:>7.2f} {r.cpu:>7.2f} "
            f"{r.baseline_figure or '-':<24} {bw:>7} {bc:>7} "
            f"{_ratio(r.wall, r.baseline_wall):>10} {_ratio(r.cpu, r.baseline_cpu):>10} "
            f"{r.agree or '-':>5}"
        )


PARTS = ("release", "speed", "shadow", "rmia")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-attacks", type=int, default=2000)
    parser.add_argument("--no-oracle", action="store_true", help="skip anonymeter")
    parser.add_argument(
        "--quick",
        action="store_true",
        help="bounded run: the battery speed at 100 attacks only, the Gaussian-copula shadow "
        "attack and RMIA; no Adult release rows",
    )
    parser.add_argument(
        "--parts", default=",".join(PARTS), help=f"comma-separated subset of {','.join(PARTS)}"
    )
    parser.add_argument(
        "--anonymeter-data",
        type=Path,
        default=os.environ.get("ANONYMETER_DATA"),
        help="anonymeter's notebooks/datasets folder (adults_syn_ctgan.csv, adults_control.csv)",
    )
    parser.add_argument("--repeats", type=int, default=5, help="runs per speed figure (median)")
    parser.add_argument("--mst", action="store_true", help="also the MST shadow attack (slow)")
    args = parser.parse_args(argv)
    parts = {p.strip() for p in args.parts.split(",") if p.strip()}
    if args.quick:
        parts -= {"release"}
    with tempfile.TemporaryDirectory(prefix="bench_attacks_") as tmp:
        if "release" in parts:
            release_table(args, Path(tmp))
        if "speed" in parts:
            if args.anonymeter_data is None:
                print("\nBattery speed: pass --anonymeter-data (anonymeter's notebooks/datasets).")
            else:
                sizes = (100,) if args.quick else (100, 2000)
                found = timings.battery_speed(
                    Path(args.anonymeter_data), Path(tmp), sizes, args.repeats, not args.no_oracle
                )
                if found is None:
                    print(
                        f"\nBattery speed: no anonymeter example files in {args.anonymeter_data}."
                    )
                else:
                    timings.print_speed(*found)
        loaded = load_adult() if parts & {"shadow", "rmia"} else None
        if loaded is not None:
            frame = loaded[0]
            shadows = []
            if "shadow" in parts:
                methods = ["synthetic-gaussian-copula", *(["synthetic-mst"] if args.mst else [])]
                shadows = [timings.shadow_timing(frame, m) for m in methods]
            rmia = timings.rmia_timing(frame, "salary-class") if "rmia" in parts else None
            timings.print_model_attacks(shadows, rmia)
    return 0


def release_table(args, workdir: Path) -> None:
    """The Adult release rows: our attacks against anonymeter's, linkage, the bounded search."""
    ctx = build_context(args.n_attacks, not args.no_oracle, workdir)
    if ctx is None:
        return
    levels = dict(ctx.result.transformation)
    print(
        f"Adult: {len(ctx.part)} released-part / {len(ctx.control)} control records; "
        f"k=5 + distinct 3-diversity({SENSITIVE}), 2% suppression; levels {levels}; "
        f"{len(ctx.inputs.released)} released rows; seed {SEED}; root {ROOT}"
    )
    rows: list[Row] = []
    for build in ROW_BUILDERS:
        rows.extend(build(ctx))
    print_table(rows)


if __name__ == "__main__":
    sys.exit(main())
