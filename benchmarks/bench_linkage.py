"""Probabilistic (Fellegi-Sunter) against exact linkage of a noisy external table, on Adult.

The attacker holds 5,000 Adult records (seeded sample) with seeded noise (``noisy_aux`` defaults:
5% typos in text, 5% ages off by 1-2 years, 2% missing fields, 2% other codings such as
``Male -> M``) and an identifier, so the truth of every link is known. Two releases of the whole
table (30,162 records) are attacked:

* ARX's Adult example: k=5 + distinct 3-diversity (occupation), 2% suppression;
* the unprotected table (the quasi-identifiers as they are).

Per release: exact linkage (``anon_core.attacks.linkage``) of the noisy and of the clean
external table, and probabilistic linkage of the noisy one: wall and CPU time, expected
re-identifications (sum of the true records' posteriors, or of 1/group size for exact linkage),
precision and recall of "claim the best match when its posterior >= t", and what probabilistic
linkage adds over exact linkage of the same noisy table. With ``--splink`` (and splink installed:
``pip install splink``) splink 5 on DuckDB and ours run the unprotected task on the first
``--splink-external`` (1,000) noisy records, for the library choice.

Usage: .venv/bin/python benchmarks/bench_linkage.py [--n-external 5000] [--splink [--splink-external 1000]]
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

import numpy as np
import pandas as pd
from common import load_adult

from anon_core.attacks.linkage import linkage
from anon_core.attacks.noisy_aux import noisy_aux
from anon_core.attacks.probabilistic_linkage import probabilistic_linkage
from anon_core.privacy.models import make_model
from anon_core.release.apply import apply_transformation
from anon_core.transform.problem import Problem

SEED = 0
SENSITIVE = "occupation"


def _timed(fn: Any) -> tuple[float, float, Any]:
    c0, w0 = time.process_time(), time.perf_counter()
    value = fn()
    return time.perf_counter() - w0, time.process_time() - c0, value


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} CPUs"


def _pr(at: dict[str, Any]) -> str:
    def f(x: float | None) -> str:
        return "-" if x is None else f"{x:.3f}"

    return "  ".join(
        f"t={k}: {v['matches']} claims P={f(v['precision'])} R={f(v['recall'])}"
        for k, v in at.items()
    )


def k5_release(
    frame: pd.DataFrame, hierarchies: dict[str, Any]
) -> tuple[pd.DataFrame, np.ndarray, dict]:
    roles = {c: "quasi-identifier" for c in frame.columns}
    roles[SENSITIVE] = "sensitive"
    problem = Problem(
        frame,
        roles,
        {q: h for q, h in hierarchies.items() if roles[q] == "quasi-identifier"},
        [
            make_model({"model": "k-anonymity", "k": 5}),
            make_model({"model": "distinct-l-diversity", "attribute": SENSITIVE, "l": 3}),
        ],
        0.02,
    )
    result = problem.search().optimum
    released = apply_transformation(problem.dataset, result, "remove")
    kept = ~result.suppressed[result.table.record_class()]
    return (
        released.reset_index(drop=True),
        frame.index.to_numpy()[kept],
        dict(result.transformation),
    )


def run_release(
    name: str,
    released: pd.DataFrame,
    released_ids: np.ndarray,
    qis: list[str],
    hierarchies: dict[str, Any],
    levels: dict[str, int] | None,
    clean: pd.DataFrame,
    noisy: pd.DataFrame,
) -> None:
    print(f"\n== {name}: {len(released):,} released records; {_load()}")
    for label, ext in (("clean", clean), ("noisy", noisy)):
        wall, cpu, r = _timed(
            lambda ext=ext: linkage(
                ext,
                released,
                qis=qis,
                hierarchies=hierarchies,
                levels=levels,
                id_column="id",
                released_ids=released_ids,
            )
        )
        print(
            f"exact linkage, {label} external: {wall:.2f}s wall {cpu:.2f}s CPU; matched "
            f"{r.matched_records:,}, unique {r.unique_matches:,}, expected re-identified "
            f"{r.expected_reidentified:,.1f}"
        )
        if label == "noisy":
            exact = r
    wall, cpu, fs = _timed(
        lambda: probabilistic_linkage(
            noisy,
            released,
            columns=qis,
            hierarchies=hierarchies,
            id_column="id",
            released_ids=released_ids,
        )
    )
    print(
        f"probabilistic linkage, noisy external: {wall:.2f}s wall {cpu:.2f}s CPU; "
        f"{fs.candidate_pairs:,} candidate pairs (block on {fs.block_on}), {fs.em_iterations} EM "
        f"iterations, prior {fs.prior:.3f}; expected re-identified {fs.expected_reidentified:,.1f} "
        f"(+{fs.expected_reidentified - exact.expected_reidentified:,.1f} over exact linkage of the "
        f"same noisy table); {_load()}"
    )
    print("   " + _pr(dict(fs.at_thresholds)))
    best = np.asarray(fs.best_match_probability)
    unmatched = np.asarray(exact.group_sizes) == 0
    print(
        f"   noisy records exact linkage cannot match: {int(unmatched.sum()):,}; of these, best "
        f"posterior >= 0.9: {int((best[unmatched] >= 0.9).sum()):,}"
    )
    print(f"   comparators: {dict(fs.kinds)}")


def run_splink(released: pd.DataFrame, noisy: pd.DataFrame, qis: list[str]) -> None:
    """splink 5 (DuckDB) on the unprotected task: u by random sampling, m by EM, predict on sex."""
    try:
        import splink.comparison_library as cl
        from splink import DuckDBAPI, Linker, SettingsCreator, block_on
    except ImportError:
        print("\nsplink is not installed (pip install splink): its comparison is skipped.")
        return
    left = noisy.rename(columns={"id": "uid"}).copy()
    right = released[qis].copy()
    right["uid"] = np.arange(len(right))
    for t in (left, right):
        t["age"] = pd.to_numeric(t["age"], errors="coerce").astype(float)
    text = [q for q in qis if q != "age"]
    age = {
        "output_column_name": "age",
        "comparison_levels": [
            {"sql_condition": "age_l IS NULL OR age_r IS NULL", "is_null_level": True},
            {"sql_condition": "age_l = age_r", "label_for_charts": "exact"},
            {"sql_condition": "abs(age_l - age_r) <= 1", "label_for_charts": "within 1"},
            {"sql_condition": "abs(age_l - age_r) <= 2", "label_for_charts": "within 2"},
            {"sql_condition": "ELSE", "label_for_charts": "else"},
        ],
    }

    def run() -> pd.DataFrame:
        db = DuckDBAPI()
        settings = SettingsCreator(
            link_type="link_only",
            unique_id_column_name="uid",
            comparisons=[cl.JaroWinklerAtThresholds(c, [0.92, 0.8]) for c in text] + [age],
            blocking_rules_to_generate_predictions=[block_on("sex")],
        )
        linker = Linker(
            [db.register(left, table_name="ext"), db.register(right, table_name="rel")],
            settings,
            log_level=None,
        )
        linker.training.estimate_probability_two_random_records_match([block_on(*qis)], recall=0.7)
        linker.training.estimate_u_using_random_sampling(max_pairs=1e6, seed=SEED)
        linker.training.estimate_parameters_using_expectation_maximisation(
            block_on("sex", "race", "native-country")
        )
        linker.training.estimate_parameters_using_expectation_maximisation(
            block_on("education", "marital-status")
        )
        return linker.inference.predict(threshold_match_probability=0.01).as_pandas_dataframe()

    wall, cpu, pairs = _timed(run)
    # Per external record its best pair (splink's match probability is per pair).
    ext_side = "uid_l" if set(pairs["source_dataset_l"]) == {"ext"} else "uid_r"
    rel_side = "uid_r" if ext_side == "uid_l" else "uid_l"
    best = pairs.sort_values("match_probability", ascending=False).drop_duplicates(ext_side)
    correct = best[rel_side].to_numpy() == best[ext_side].to_numpy()
    parts = []
    for t in (0.5, 0.9, 0.99):
        claim = best["match_probability"].to_numpy() >= t
        n = int(claim.sum())
        hits = int((claim & correct).sum())
        parts.append(
            f"t={t}: {n} claims P={hits / n if n else float('nan'):.3f} R={hits / len(left):.3f}"
        )
    print(
        f"\nsplink 5 (DuckDB), noisy external vs unprotected: {wall:.2f}s wall {cpu:.2f}s CPU "
        f"(CPU is this process only; DuckDB threads count); {len(pairs):,} pairs above 0.01; {_load()}"
    )
    print("   " + "  ".join(parts))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n-external", type=int, default=5000)
    parser.add_argument("--splink", action="store_true", help="also run splink 5 (if installed)")
    parser.add_argument(
        "--splink-external",
        type=int,
        default=1000,
        help="external records of the splink comparison (5,000 did not finish in 15 minutes here)",
    )
    args = parser.parse_args(argv)
    loaded = load_adult()
    if loaded is None:
        return 0
    frame, _order, hierarchies = loaded
    qis = [c for c in frame.columns if c != SENSITIVE]
    sample = frame.sample(args.n_external, random_state=SEED)
    clean = sample[qis].assign(id=sample.index.to_numpy())
    noisy = noisy_aux(clean, qis, SEED, keep=["id"])
    print(
        f"{args.n_external:,} external records of Adult ({len(frame):,} records), noisy_aux seed "
        f"{SEED} with default rates; quasi-identifiers {qis}"
    )
    qi_h = {q: hierarchies[q] for q in qis}
    wall, cpu, (released, ids, levels) = _timed(lambda: k5_release(frame, hierarchies))
    print(f"k=5 release built in {wall:.1f}s: levels {levels}")
    run_release("k=5 + 3-diversity release", released, ids, qis, qi_h, levels, clean, noisy)
    run_release(
        "unprotected table", frame[qis], frame.index.to_numpy(), qis, {}, None, clean, noisy
    )
    if args.splink:
        subset = noisy.head(args.splink_external)
        wall, cpu, fs = _timed(
            lambda: probabilistic_linkage(
                subset, frame[qis], columns=qis, id_column="id", released_ids=frame.index.to_numpy()
            )
        )
        print(
            f"\nours, {len(subset):,} noisy external vs unprotected: {wall:.2f}s wall {cpu:.2f}s CPU; "
            f"{_load()}\n   " + _pr(dict(fs.at_thresholds))
        )
        run_splink(frame, subset, qis)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
