"""Re-identification risk report timings on Adult (30,162 rows, all 9 columns quasi-identifiers).

Times the full risk report (sample risks, distribution, population uniqueness
with Zayatz, Pitman, SNB and Dankar's rule at the USA population, and the QI
analysis of every combination of up to 3 QIs, 129 of them):

* of the original table (``risk_of_original``, from the built frequency table,
  and ``risk_of_frame`` from the DataFrame: encoding and grouping included);
* of the released table at the k=5 optimum (``risk_of_result``), found with
  ``problem.search()`` beforehand;
* of that release written to CSV and read back (``risk_of_frame``, grouping the
  released values as text), without the file I/O.

Prints the median in ms and its ratio to the 200 ms target, and checks the
original-table figures against ARX's (arx_reference.json).

Run: python benchmarks/bench_risk.py [--repeat N]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from anon_core import Problem, load_table, make_model  # noqa: E402
from anon_core.cli import write_table  # noqa: E402
from anon_core.risk.reidentification import (  # noqa: E402
    USA_POPULATION,
    risk_of_frame,
    risk_of_original,
    risk_of_result,
)
from anon_core.risk.suda import suda2  # noqa: E402
from anon_core.risk.weighted_risk import weighted_risk  # noqa: E402
from benchmarks.common import load_adult, timed, timed_cpu  # noqa: E402

TARGET_MS = 200.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20, help="repetitions (median)")
    args = parser.parse_args()
    adult = load_adult()
    if adult is None:
        return 1
    frame, order, hierarchies = adult
    frame = frame[order]
    roles = {a: "quasi-identifier" for a in order}
    problem = Problem(
        frame, roles, hierarchies, [make_model({"model": "k-anonymity", "k": 5})], 0.0
    )
    optimum = problem.search().optimum
    assert optimum is not None

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "released.csv"
        write_table(problem.apply(optimum), path)
        released = load_table(path).frame

    rows = [
        ("original (9 QIs)", lambda: risk_of_original(problem)),
        ("original (from the DataFrame)", lambda: risk_of_frame(frame, order)),
        ("k=5 optimum (result)", lambda: risk_of_result(optimum)),
        ("k=5 optimum (released file)", lambda: risk_of_frame(released, order)),
    ]
    print(
        f"Adult: {len(frame)} rows, {len(order)} QIs, QI combinations up to 3; median of {args.repeat} runs"
    )
    print(f"k=5 optimum: {optimum.transformation}")
    header = f"{'risk report':30s} {'ms':>9s} {'/ 200 ms':>9s} {'classes':>8s} {'QI combos':>10s}  Dankar (model)"
    print(header)
    print("-" * len(header))
    reports = {}
    for name, fn in rows:
        t, report = timed(fn, args.repeat)
        reports[name] = report
        pop = report.population
        print(
            f"{name:30s} {t * 1e3:9.2f} {t * 1e3 / TARGET_MS:9.3f} {report.equivalence_classes:8d} "
            f"{len(report.qi_analysis):10d}  {pop.dankar:.6g} ({pop.dankar_model})"
        )

    # Record-level figures (sdcMicro): weighted individual risk with uniform survey weights of
    # population / records, and SUDA2 on the nine keys; wall and CPU, median after a warm-up.
    weighted = frame.assign(w=USA_POPULATION / len(frame))
    extra = [
        ("weighted risk (sdcMicro)", lambda: weighted_risk(weighted, order, "w")),
        ("SUDA2 (9 keys, all MSU sizes)", lambda: suda2(frame, order)),
    ]
    print()
    print(f"{'record-level figure':30s} {'wall ms':>9s} {'CPU ms':>9s}")
    for name, fn in extra:
        wall, cpu, _ = timed_cpu(fn, max(args.repeat // 4, 7))
        print(f"{name:30s} {wall * 1e3:9.1f} {cpu * 1e3:9.1f}")

    reference = json.loads((ROOT.parent / "shared" / "data" / "arx_reference.json").read_text())
    ref = reference["risk_of_original_all_9_qis"]
    orig = reports["original (9 QIs)"]
    checks = {
        "equivalence classes": (orig.equivalence_classes, ref["equivalence_classes"]),
        "sample uniques": (orig.sample_uniques, ref["sample_uniques"]),
        "highest risk": (orig.prosecutor.highest_risk, ref["highest_prosecutor_risk"]),
        "records at highest risk": (
            orig.prosecutor.records_at_highest_risk,
            ref["fraction_records_at_highest_risk"],
        ),
        "average risk": (
            orig.prosecutor.average_risk,
            ref["average_prosecutor_risk (= marketer success rate)"],
        ),
    }
    for t, share in ref["records_at_risk_by_threshold"].items():
        checks[f"records at risk > {t}"] = (dict(orig.prosecutor.records_at_risk)[float(t)], share)
    print()
    print(
        "original vs ARX:",
        ", ".join(
            f"{k} {'equal' if a == b else f'DIFFERENT ({a} vs {b})'}"
            for k, (a, b) in checks.items()
        ),
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
