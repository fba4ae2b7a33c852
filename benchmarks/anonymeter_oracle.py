"""Run anonymeter's evaluators as an oracle (inside /work/main/.venv-anonymeter only).

Reads three CSV files (original, released, control) and a JSON options object, runs the
requested anonymeter attacks and prints one JSON object: per attack its risk, interval, the
three success rates (value, error), the numbers of attacks and the wall and CPU seconds the
evaluator took. Create the venv with ``python3 benchmarks/oracle_env.py``.

Options: {"attacks": [{"name": "singling-out-multivariate", "n_attacks": 500, "n_cols": 3},
{"name": "singling-out-univariate", ...}, {"name": "linkability", "aux_columns": [[..], [..]],
"n_neighbors": 1}, {"name": "inference", "secret": "col", "aux_columns": [..] | null,
"regression": false}], "seed": 0, "confidence": 0.95, "n_jobs": 1}
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
import warnings

import numpy as np
import pandas as pd


def _read(path: str) -> pd.DataFrame:
    return pd.read_csv(path, keep_default_na=False, na_values=[""])


def _rate(rate) -> dict:
    return {"value": float(rate.value), "error": float(rate.error)}


def _run(spec: dict, ori, syn, control, seed: int, confidence: float, n_jobs: int) -> dict:
    from anonymeter.evaluators import (
        InferenceEvaluator,
        LinkabilityEvaluator,
        SinglingOutEvaluator,
    )

    name = spec["name"]
    n_attacks = int(spec.get("n_attacks", 500))
    np.random.seed(seed)  # pandas .sample in linkability/inference uses the global generator
    c0, w0 = time.process_time(), time.perf_counter()
    if name.startswith("singling-out-"):
        evaluator = SinglingOutEvaluator(
            ori=ori,
            syn=syn,
            control=control,
            n_attacks=n_attacks,
            n_cols=int(spec.get("n_cols", 3)),
            max_attempts=spec.get("max_attempts", 10_000_000),
            seed=seed,
        ).evaluate(mode=name.removeprefix("singling-out-"))
    elif name == "linkability":
        aux = tuple(list(group) for group in spec["aux_columns"])
        evaluator = LinkabilityEvaluator(
            ori=ori,
            syn=syn,
            control=control,
            aux_cols=aux,
            n_attacks=n_attacks,
            n_neighbors=int(spec.get("n_neighbors", 1)),
        ).evaluate(n_jobs=n_jobs)
    elif name == "inference":
        secret = spec["secret"]
        aux = spec.get("aux_columns") or [c for c in ori.columns if c != secret]
        regression = spec.get("regression")
        if regression is None:
            regression = bool(pd.api.types.is_numeric_dtype(ori[secret]))
        evaluator = InferenceEvaluator(
            ori=ori,
            syn=syn,
            control=control,
            aux_cols=list(aux),
            secret=secret,
            regression=regression,
            n_attacks=n_attacks,
        ).evaluate(n_jobs=n_jobs)
    else:
        raise SystemExit(f"unknown attack {name!r}")
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    results = evaluator.results(confidence_level=confidence)
    risk = results.risk()
    return {
        "attack": name,
        "risk": float(risk.value),
        "ci": [float(risk.ci[0]), float(risk.ci[1])],
        "attack_rate": _rate(results.attack_rate),
        "control_rate": _rate(results.control_rate),
        "baseline_rate": _rate(results.baseline_rate),
        "seconds_wall": wall,
        "seconds_cpu": cpu,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("original")
    parser.add_argument("released")
    parser.add_argument("control")
    parser.add_argument("options", help="a JSON object or the path of a JSON file")
    args = parser.parse_args()
    text = args.options
    if not text.lstrip().startswith("{"):
        with open(text, encoding="utf-8") as handle:
            text = handle.read()
    options = json.loads(text)
    logging.disable(logging.WARNING)
    warnings.simplefilter("ignore")
    ori, syn, control = (_read(p) for p in (args.original, args.released, args.control))
    seed = int(options.get("seed", 0))
    confidence = float(options.get("confidence", 0.95))
    n_jobs = int(options.get("n_jobs", 1))
    out = {}
    for i, spec in enumerate(options.get("attacks", [])):
        key = spec.get("key") or spec["name"]
        out[key] = _run(spec, ori, syn, control, seed + i, confidence, n_jobs)
    json.dump(out, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
