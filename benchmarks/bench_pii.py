"""PII discovery and text de-identification: accuracy on the labeled synthetic set, and speed.

    python benchmarks/bench_pii.py [--rows 100000] [--columns 50]

Prints:

* per-entity precision and recall of the column scan (a column counts as found for
  an entity when the scan's deciding entity is that one) and of the text analysis
  (a labeled span is found when a predicted span of the same type overlaps it);
* the share of columns whose suggested role is right (target >= 95%);
* text recall against the targets (>= 0.9 for pattern entities, >= 0.8 for PERSON);
* the scan time of a wide table (50 columns x 100,000 rows; target <= 15 s): only a
  sample of 100 values per column is analysed;
* text de-identification throughput (rows per second, spaCy ``nlp.pipe`` batches).

Runs offline; sockets are blocked for the whole run to prove it.
"""

from __future__ import annotations

import argparse
import importlib.util
import socket
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from anon_core.pii import (  # noqa: E402
    RecognizerSpec,
    TextConfig,
    apply_text_deidentification,
    deidentify_texts,
    load_engine,
    scan_table,
    validate_text_section,
)

PATTERN_ENTITIES = (
    "EMAIL_ADDRESS",
    "PHONE_NUMBER",
    "US_SSN",
    "CREDIT_CARD",
    "IBAN_CODE",
    "IP_ADDRESS",
    "EMPLOYEE_ID",
    "STREET_ADDRESS",
    "AGE",
)


def _block_network() -> None:
    def refuse(*args, **kwargs):
        raise OSError("network access is blocked in bench_pii")

    socket.socket.connect = refuse  # type: ignore[method-assign]
    socket.create_connection = refuse  # type: ignore[assignment]


def _generator():
    spec = importlib.util.spec_from_file_location(
        "generate_pii", ROOT / "sample_data" / "generate_pii.py"
    )
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


def _employee_spec(gen) -> RecognizerSpec:
    r = gen.EMPLOYEE_RECOGNIZER
    return RecognizerSpec(
        r["name"],
        r["entity"],
        patterns=(r["regex"],),
        score=r["score"],
        context=tuple(r["context"]),
    )


def column_figures(frame: pd.DataFrame, labels: dict, spec: RecognizerSpec) -> None:
    report = scan_table(frame, recognizers=[spec])
    expected = labels["columns"]
    right = 0
    print("\n## Column scan (role suggestion)")
    print(f"{'column':16} {'expected':18} {'suggested':18} entity")
    for name, col in report.columns.items():
        ok = col.suggested_role == expected[name]
        right += ok
        print(
            f"{name:16} {expected[name]!s:18} {col.suggested_role!s:18} {col.entity or '-'}{'' if ok else '   <- wrong'}"
        )
    accuracy = right / len(report.columns)
    print(f"\nrole accuracy: {right}/{len(report.columns)} = {accuracy:.1%} (target >= 95%)")
    # per-entity precision/recall at column level: the deciding entity against the generator's
    truth = {
        "full_name": "PERSON",
        "email": "EMAIL_ADDRESS",
        "phone": "PHONE_NUMBER",
        "ssn": "US_SSN",
        "credit_card": "CREDIT_CARD",
        "iban": "IBAN_CODE",
        "ip_address": "IP_ADDRESS",
        "home_address": "STREET_ADDRESS",
        "employee_id": "EMPLOYEE_ID",
        "zip_code": "ZIP_CODE",
        "city": "LOCATION",
        "birth_date": "DATE_TIME",
        "visit_date": "DATE_TIME",
        "age": "AGE",
        "sex": "GENDER",
        "gender": "GENDER",
    }
    _print_pr(
        "column entities (deciding entity per column)",
        [
            (
                truth.get(n),
                c.entity if c.suggested_role in ("identifier", "quasi-identifier") else None,
            )
            for n, c in report.columns.items()
        ],
    )


def _print_pr(title: str, pairs: list[tuple[str | None, str | None]]) -> None:
    tp, fp, fn = defaultdict(int), defaultdict(int), defaultdict(int)
    for want, got in pairs:
        if want is not None and got == want:
            tp[want] += 1
        else:
            if want is not None:
                fn[want] += 1
            if got is not None:
                fp[got] += 1
    print(f"\n## {title}")
    print(f"{'entity':16} {'precision':>9} {'recall':>7} {'support':>7}")
    for entity in sorted(set(tp) | set(fn) | set(fp)):
        p = tp[entity] / (tp[entity] + fp[entity]) if tp[entity] + fp[entity] else float("nan")
        r = tp[entity] / (tp[entity] + fn[entity]) if tp[entity] + fn[entity] else float("nan")
        print(f"{entity:16} {p:9.3f} {r:7.3f} {tp[entity] + fn[entity]:7d}")


def text_figures(frame: pd.DataFrame, labels: dict, cfg: TextConfig) -> None:
    results = deidentify_texts(list(frame["notes"]), cfg)
    tp, fp, fn = defaultdict(int), defaultdict(int), defaultdict(int)
    for res, truth in zip(results, labels["texts"]["notes"], strict=True):
        found = list(res.found)
        for start, end, entity in truth:
            hit = any(s.entity == entity and s.start < end and start < s.end for s in found)
            (tp if hit else fn)[entity] += 1
        for s in found:
            if not any(
                entity == s.entity and s.start < end and start < s.end
                for start, end, entity in truth
            ):
                fp[s.entity] += 1
    print("\n## Text analysis (notes column, span overlap with the same type)")
    print(f"{'entity':16} {'precision':>9} {'recall':>7} {'support':>7} {'false +':>7} target")
    for entity in sorted(set(tp) | set(fn) | set(fp)):
        p = tp[entity] / (tp[entity] + fp[entity]) if tp[entity] + fp[entity] else float("nan")
        r = tp[entity] / (tp[entity] + fn[entity]) if tp[entity] + fn[entity] else float("nan")
        target = 0.9 if entity in PATTERN_ENTITIES else 0.8 if entity == "PERSON" else None
        verdict = "" if target is None else f">= {target} {'ok' if r >= target else 'MISSED'}"
        print(
            f"{entity:16} {p:9.3f} {r:7.3f} {tp[entity] + fn[entity]:7d} {fp[entity]:7d} {verdict}"
        )


HOSPITAL_ROLES = {
    "patient_name": "identifier",
    "email": "identifier",
    "phone": "identifier",
    "zip_code": "quasi-identifier",
    "birth_date": "quasi-identifier",
    "sex": "quasi-identifier",
    "admission_date": "quasi-identifier",
    "diagnosis": None,
    "length_of_stay": None,
    "notes": "insensitive",
}


def hospital_figures() -> None:
    """The committed hospital sample (a different generator and templates) as a second check."""
    from anon_core.data.io import load_table

    frame = load_table(ROOT / "sample_data" / "hospital_discharge.csv").frame
    report = scan_table(frame)
    right = sum(report.columns[c].suggested_role == role for c, role in HOSPITAL_ROLES.items())
    wrong = {
        c: report.columns[c].suggested_role
        for c, role in HOSPITAL_ROLES.items()
        if report.columns[c].suggested_role != role
    }
    print(
        f"\nrole accuracy on sample_data/hospital_discharge.csv: {right}/{len(HOSPITAL_ROLES)}"
        f"{' wrong: ' + str(wrong) if wrong else ''}"
    )


def wide_table(frame: pd.DataFrame, rows: int, columns: int) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    picks = rng.integers(0, len(frame), size=rows)
    base = frame.iloc[picks].reset_index(drop=True)
    names = list(frame.columns)
    data = {}
    for i in range(columns):
        name = names[i % len(names)]
        data[name if i < len(names) else f"{name}_{i // len(names) + 1}"] = base[name].to_numpy()
    return pd.DataFrame(data)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--columns", type=int, default=50)
    args = parser.parse_args()
    _block_network()
    gen = _generator()
    frame, labels = gen.generate()
    spec = _employee_spec(gen)
    started = time.perf_counter()
    engine = load_engine()
    print(
        f"engine load (spaCy {engine.model}, NLP {'on' if engine.nlp_loaded else 'OFF'}): "
        f"{time.perf_counter() - started:.2f} s"
    )
    column_figures(frame, labels, spec)
    hospital_figures()
    cfg = validate_text_section({"columns": ["notes"], "recognizers": [gen.EMPLOYEE_RECOGNIZER]})
    text_figures(frame, labels, cfg)

    wide = wide_table(gen.generate(rows=5000, seed=1)[0], args.rows, args.columns)
    started = time.perf_counter()
    report = scan_table(wide, recognizers=[spec])
    seconds = time.perf_counter() - started
    print(
        f"\n## Speed\nscan of {args.columns} columns x {args.rows:,} rows (sample 100 per column): "
        f"{seconds:.2f} s (target <= 15 s); {len(report.proposed_roles())} roles proposed"
    )

    notes, _ = gen.generate(rows=2000, seed=2)
    for batch in (1, 64):
        started = time.perf_counter()
        apply_text_deidentification(notes[["notes"]], cfg, batch_size=batch)
        seconds = time.perf_counter() - started
        print(
            f"text de-identification, 2,000 distinct notes, batch_size={batch}: {2000 / seconds:,.0f} rows/s"
        )


if __name__ == "__main__":
    main()
