"""Release methods on Adult: time (wall and CPU), attack figures and ML utility in one table.

Every method releases the same 80 % of Adult (the attack lab's seeded control split keeps 20 %
back as never-released control records, which also serve as the ML holdout), through
:func:`anon_core.services.compare.compare`: the same attack battery and the same utility
yardstick for all. The baseline of the time ratio is ``generalization`` (the lattice search, the
existing method); the unprotected copy is the risk baseline. Synthetic methods are included
when their extra is installed (the DP synthesizers at epsilon = 1 and 10).

Run: python benchmarks/bench_release_methods.py [--n-attacks N] [--only m1,m2] [--rows N]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from anon_core.config import parse_config  # noqa: E402
from anon_core.errors import AnonError  # noqa: E402
from anon_core.methods import METHODS, method_available  # noqa: E402
from anon_core.services.compare import BASELINE, compare, run_method  # noqa: E402
from benchmarks.common import ADULT, load_adult  # noqa: E402

QIS = ["age", "sex", "race", "marital-status", "education", "native-country", "workclass"]
BASELINE_METHOD = "generalization"
CORE = [
    {"name": "generalization"},
    {"name": "mondrian", "k": 5},
    {"name": "microaggregation", "k": 5},
    {"name": "noise", "noise": 50},
    {"name": "noise", "noise": 50, "method": "correlated2", "delta": 0.5, "label": "noise-c2"},
    {"name": "rank-swapping", "p": 5},
    {"name": "pram", "retention": 0.8},
]


def synthetic_specs() -> list[dict]:
    """The installed synthetic methods; DP ones at epsilon 1 and 10, CTGAN with few epochs."""
    specs = []
    for name, cls in METHODS.items():
        if cls.extra is None or not method_available(name)[0]:
            continue
        params = {p.name for p in cls.params}
        if "epsilon" in params:
            specs += [{"name": name, "epsilon": e, "label": f"{name} (eps={e:g})"} for e in (1, 10)]
        elif "epochs" in params:
            specs.append({"name": name, "epochs": 5, "label": f"{name} (5 epochs)"})
        else:
            specs.append({"name": name})
    return specs


def config(n_attacks: int):
    return parse_config(
        {
            "attributes": {
                **{
                    q: {
                        "role": "quasi-identifier",
                        "hierarchy": {"file": str(ADULT / f"adult_hierarchy_{q}.csv")},
                    }
                    for q in QIS
                },
                # hierarchy files declare these columns' domains too (DP synthesizers read them)
                "salary-class": {
                    "role": "sensitive",
                    "hierarchy": {"file": str(ADULT / "adult_hierarchy_salary-class.csv")},
                },
                "occupation": {
                    "role": "insensitive",
                    "hierarchy": {"file": str(ADULT / "adult_hierarchy_occupation.csv")},
                },
            },
            "privacy_models": [{"model": "k-anonymity", "k": 5}],
            "suppression_limit": 0.05,
            "attack": {"n_attacks": n_attacks, "random_state": 0, "control_fraction": 0.2},
        }
    )


def _get(d, *path):
    for p in path:
        if not isinstance(d, dict) or p not in d:
            return None
        d = d[p]
    return d


def _fmt(v, pattern="{:.3f}"):
    return "n/a" if v is None else pattern.format(v)


def _row(m, base_seconds: float | None) -> str:
    if m.error:
        return f"{m.name:<34} error: {m.error}"
    a, u = m.attacks, m.utility
    ratio = m.seconds / base_seconds if base_seconds else None
    inference = _get(a, "inference") or {}
    infer = max((v.get("risk", 0.0) for v in inference.values()), default=None)
    return (
        f"{m.name:<34}{m.seconds:>9.2f}{m.cpu_seconds:>9.2f}{_fmt(ratio, '{:.2f}'):>9}"
        f"{_fmt(_get(a, 'singling_out', 'multivariate', 'risk')):>10}"
        f"{_fmt(_get(a, 'singling_out', 'univariate', 'risk')):>8}"
        f"{_fmt(_get(a, 'linkability', 'risk')):>7}{_fmt(infer):>7}"
        f"{_fmt(_get(a, 'membership', 'advantage')):>8}"
        f"{_fmt(_get(u, 'ml', 'accuracy')):>8}{_fmt(_get(u, 'ml', 'accuracy_drop')):>8}"
        f"{_fmt(u.get('marginal_distance')):>7}{_fmt(u.get('association_distance')):>7}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-attacks", type=int, default=500)
    parser.add_argument("--only", help="comma-separated labels to run")
    parser.add_argument("--rows", type=int, help="use the first N rows of Adult only")
    parser.add_argument(
        "--ml-models", default="logistic_regression", help="ML utility models (comma-separated)"
    )
    args = parser.parse_args()
    loaded = load_adult()
    if loaded is None:
        return
    frame = loaded[0]
    if args.rows:
        frame = frame.head(args.rows)
    specs = CORE + synthetic_specs()
    if args.only:
        keep = set(args.only.split(","))
        specs = [s for s in specs if s.get("label", s["name"]) in keep]
    cfg = config(args.n_attacks)
    options = {"models": args.ml_models.split(",")}
    print(
        f"Adult: {len(frame):,} rows, QIs {', '.join(QIS)}; target salary-class "
        f"(ML: {args.ml_models}); n_attacks={args.n_attacks}; 20 % control/holdout; seed 0",
        flush=True,
    )
    header = (
        f"{'method':<34}{'wall s':>9}{'CPU s':>9}{'x gen':>9}{'SO-multi':>10}{'SO-uni':>8}"
        f"{'link':>7}{'infer':>7}{'member':>8}{'ML acc':>8}{'ML drop':>8}{'marg':>7}{'assoc':>7}"
    )
    print(header)
    print("-" * len(header), flush=True)
    t0, c0 = time.perf_counter(), time.process_time()
    base_seconds = None
    # One comparison per method (the seeded split is the same every time), printed as it ends.
    for i, spec in enumerate(specs):
        try:
            result = compare(
                cfg, frame, [spec], baseline=(i == 0), random_state=0, utility_options=options
            )
        except AnonError as exc:  # the battery or yardstick missing: time the method alone
            from anon_core.methods.config import parse_method_section

            section = parse_method_section({k: v for k, v in spec.items() if k != "label"})
            rel = run_method(section.method, frame, cfg, random_state=0)
            print(f"{spec.get('label', spec['name']):<34}{rel.seconds:>9.2f}{rel.cpu_seconds:>9.2f}"
                  f"   (figures unavailable: {exc})", flush=True)  # fmt: skip
            continue
        for m in result.methods:
            if m.name == BASELINE_METHOD and not m.error:
                base_seconds = m.seconds
            print(_row(m, base_seconds), flush=True)
    print(
        f"\nwhole run: {time.perf_counter() - t0:.1f} s wall, {time.process_time() - c0:.1f} s CPU; "
        f"'x gen' = wall time / {BASELINE_METHOD}'s; {BASELINE} is the unprotected risk baseline; "
        "risks are anonymeter-style (0 = no better than the control baseline), 'member' is the DCR "
        "membership advantage."
    )


if __name__ == "__main__":
    main()
