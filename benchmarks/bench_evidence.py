"""Time to full evidence of one release on Adult, and a recommendation across families.

Through the application's front door (Session): release -> evidence (the attack battery with
2,000 guesses per attack on a seeded rehearsal, plus the utility yardstick with one model) ->
verdict, for generalization (k=5), microaggregation (MDAV, k=5 on age) and MST (epsilon 1; with
the synthetic extra). Then ``recommend`` across generalization, Mondrian, MDAV, noise, PRAM and MST.

Targets (issue: one release, one verdict): full evidence for generalization within 5 s of CPU;
the recommendation within 3 min of CPU on 2 cores. Figures are CPU seconds of this process
(time.process_time, all threads) beside wall seconds, with the machine's load average at the
start, since the machine is shared. There is no external baseline for these end-to-end figures:
no other tool produces this evidence; the ratio printed is against the target.

Run: ``python benchmarks/bench_evidence.py [--attacks 2000] [--skip-recommend]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from anon_core.methods import method_available  # noqa: E402
from anon_core.services.recommend import recommend  # noqa: E402
from anon_core.services.session import Session  # noqa: E402
from benchmarks.common import ADULT, load_adult  # noqa: E402

QIS = ("age", "sex", "race", "marital-status", "education", "native-country", "workclass")
TARGET_GENERALIZATION_CPU = 5.0
TARGET_RECOMMEND_CPU = 180.0


def _config(method: dict | None) -> dict:
    attributes = {
        q: {
            "role": "quasi-identifier",
            "hierarchy": {"file": str(ADULT / f"adult_hierarchy_{q}.csv")},
        }
        for q in QIS
    }
    attributes["occupation"] = {"role": "sensitive"}
    attributes["salary-class"] = {"role": "insensitive"}
    config = {
        "input": {"path": str(ADULT / "adult.csv"), "separator": ";"},
        "attributes": attributes,
        "privacy_models": [{"model": "k-anonymity", "k": 5}],
        "suppression_limit": 0.02,
    }
    if method is not None:
        config["method"] = method
    return config


def _measure(label: str, method: dict | None, frame, attacks: int) -> None:
    name = (method or {}).get("name", "generalization")
    if not method_available(name)[0]:
        print(f"{label:34s} not installed here")
        return
    session = Session.open(_config(method), frame)
    w0, c0 = time.perf_counter(), time.process_time()
    release = session.release()
    w1, c1 = time.perf_counter(), time.process_time()
    evidence = session.evidence(release, n_attacks=attacks)
    verdict = session.verdict(evidence)
    w2, c2 = time.perf_counter(), time.process_time()
    so = evidence.figures["singling_out_multivariate"]
    print(
        f"{label:34s} release {c1 - c0:6.1f} s CPU ({w1 - w0:6.1f} wall)  evidence "
        f"{c2 - c1:6.1f} s CPU ({w2 - w1:6.1f} wall)  total {c2 - c0:6.1f} s CPU  "
        f"singling out {so['value'] or 0:.3f}  verdict {'pass' if verdict.passed else 'fail'}"
    )
    if name == "generalization":
        total = c2 - c0
        print(
            f"{'':34s} generalization full evidence: {total:.1f} s CPU, "
            f"{total / TARGET_GENERALIZATION_CPU:.2f}x the {TARGET_GENERALIZATION_CPU:.0f} s target"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attacks", type=int, default=2000)
    parser.add_argument("--skip-recommend", action="store_true")
    args = parser.parse_args()
    adult = load_adult()
    if adult is None:
        return
    frame = adult[0]
    load = os.getloadavg()
    print(
        f"Adult: {len(frame):,} rows; {args.attacks:,} guesses per attack; machine load "
        f"{load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} (1/5/15 min) on {os.cpu_count()} cores"
    )
    _measure("generalization (k=5)", None, frame, args.attacks)
    _measure(
        "microaggregation (MDAV, k=5, age)",
        {"name": "microaggregation", "k": 5, "columns": ["age"]},
        frame,
        args.attacks,
    )
    _measure("MST (epsilon 1)", {"name": "synthetic-mst", "epsilon": 1.0}, frame, args.attacks)
    if args.skip_recommend:
        return
    families = ["generalization", "mondrian", "microaggregation", "noise", "pram", "synthetic-mst"]
    session = Session.open(_config(None), frame)
    w0, c0 = time.perf_counter(), time.process_time()
    found = recommend(session, families, n_attacks=500)
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    winner = found.method_section()
    print(
        f"recommend ({len(found.tried)} settings of {len(families)} families): {cpu:.0f} s CPU "
        f"({wall:.0f} s wall), {cpu / TARGET_RECOMMEND_CPU:.2f}x the "
        f"{TARGET_RECOMMEND_CPU:.0f} s target; winner {winner}"
    )


if __name__ == "__main__":
    main()
