"""How far the singling-out control-size correction is from the count it stands for.

Singling out counts how many of the attacker's predicates single out one control record and
brings that count to the original table's size (``correction`` in the JSON,
:mod:`anon_core.attacks.size_correction`). With a control table at least as large as the
original the count at the original's size is exact (the expectation over control subsamples of
that size); with a smaller one it is extrapolated by a fitted curve, which is refused when it
misses one of the counts it was fitted to. This script measures the extrapolation against the
exact count: per release, the full control table gives the exact count (``subsample``); random
control subsets of 10-75% of the original's size (three seeds each) give the fitted one, on the
same predicates (the search reads only the original and the release).

Releases: Adult unprotected and Adult at k=5 + distinct 3-diversity (occupation), 2% suppression
(original 40%, control 60% of the rows, seed 0), and the two built-in samples unprotected
(census_income, hospital_discharge without its direct identifiers and notes; also 40/60).

Usage: .venv/bin/python benchmarks/bench_size_correction.py [--n-attacks 500] [--quick]
"""

from __future__ import annotations

import argparse
import statistics
import time

import pandas as pd
from common import ROOT, load_adult

from anon_core.attacks.battery import attack_inputs
from anon_core.attacks.singling_out import singling_out
from anon_core.attacks.split import split_frame
from anon_core.data.io import load_table
from anon_core.privacy.models import make_model
from anon_core.transform.problem import Problem

SHARES = (0.1, 0.25, 0.5, 0.75)
SEEDS = (0, 1, 2)
HOSPITAL_QIS = ["zip_code", "birth_date", "sex", "admission_date", "diagnosis", "length_of_stay"]


def releases(quick: bool):
    """(name, original, released, control) per release."""
    adult = load_adult()
    if adult is not None:
        frame, _, hierarchies = adult
        part, control = split_frame(frame, 0.6, 0)
        yield "Adult, unprotected", part, part, control
        if not quick:
            roles = {c: "quasi-identifier" for c in part.columns}
            roles["occupation"] = "sensitive"
            problem = Problem(
                part,
                roles,
                {q: h for q, h in hierarchies.items() if roles.get(q) == "quasi-identifier"},
                [
                    make_model({"model": "k-anonymity", "k": 5}),
                    make_model(
                        {"model": "distinct-l-diversity", "attribute": "occupation", "l": 3}
                    ),
                ],
                0.02,
            )
            inputs = attack_inputs(problem.dataset, problem.search().optimum, control)
            yield "Adult, k=5 + 3-diversity", inputs.original, inputs.released, inputs.control
    census = load_table(ROOT / "sample_data" / "census_income.csv").frame
    part, control = split_frame(census, 0.6, 0)
    yield "census sample, unprotected", part, part, control
    hospital = load_table(ROOT / "sample_data" / "hospital_discharge.csv").frame[HOSPITAL_QIS]
    part, control = split_frame(hospital, 0.6, 0)
    yield "hospital sample, unprotected", part, part, control


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-attacks", type=int, default=500)
    parser.add_argument("--quick", action="store_true", help="Adult unprotected and the samples")
    args = parser.parse_args()
    print(
        "| release | mode | control rows | exact at original size | fitted (median, min–max) "
        "| fitted − exact, predicates (median, worst; share of exact) | fits refused "
        "| uncorrected count (median) |"
    )
    print("|---|---|---|---|---|---|---|---|")
    start = time.process_time()
    for name, original, released, control in releases(args.quick):
        for mode in ("univariate", "multivariate"):

            def run(
                c: pd.DataFrame,
                mode: str = mode,
                original: pd.DataFrame = original,
                released: pd.DataFrame = released,
            ) -> dict:
                r = singling_out(
                    original, released, c, mode=mode, n_attacks=args.n_attacks, random_state=0
                )
                return r.detail["correction"]

            exact = run(control)
            if exact["method"] != "subsample":
                print(f"| {name} | {mode} | {len(control):,} | not exact ({exact['method']}) |")
                continue
            truth = float(exact["corrected"])
            for share in SHARES:
                size = max(2, int(share * len(original)))
                fits = [run(control.sample(size, random_state=s)) for s in SEEDS]
                used = [float(f["corrected"]) for f in fits if f.get("fit_ok")]
                refused = sum(1 for f in fits if f.get("fit_ok") is False)
                counted = statistics.median(float(f["counted"]) for f in fits)
                if used:
                    errors = [u - truth for u in used]
                    worst = max(errors, key=abs)
                    fitted = f"{statistics.median(used):.1f} ({min(used):.1f}–{max(used):.1f})"
                    error = f"{statistics.median(errors):+.1f}, {worst:+.1f}"
                    if truth >= 10:
                        error += (
                            f" ({statistics.median(errors) / truth:+.0%}, {worst / truth:+.0%})"
                        )
                else:
                    fitted, error = "none used", "n/a"
                print(
                    f"| {name} | {mode} | {size:,} ({share:.0%}) | {truth:.1f} | {fitted} | "
                    f"{error} | {refused} of {len(fits)} | {counted:.1f} |"
                )
    print(f"\nCPU: {time.process_time() - start:.1f} s; n_attacks {args.n_attacks}, seed 0.")


if __name__ == "__main__":
    main()
