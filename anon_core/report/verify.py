"""Verifying a release report: re-run the configuration, re-render the visible content, check the signature."""

from __future__ import annotations

import json
import math
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from anon_core.config import load_config, read_config_file
from anon_core.report.figures import compute_figures
from anon_core.report.files import read_report
from anon_core.report.model import (
    REGENERATED_FORMATS,
    figures_sha256,
    file_fingerprint,
    path_fingerprint,
    scrub_config,
)
from anon_core.services.problem import Problem

_FLOAT_RTOL = 1e-9
_FLOAT_ATOL = 1e-12
_MAX_DIFFERENCES = 60


def _diff(a: Any, b: Any, where: str, out: list[str]) -> None:
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        for k in sorted(set(a) | set(b)):
            p = f"{where}.{k}" if where else str(k)
            if k not in b:
                out.append(f"{p}: in the report ({_short(a[k])}) but not in the re-run")
            elif k not in a:
                out.append(f"{p}: not in the report, re-run gives {_short(b[k])}")
            else:
                _diff(a[k], b[k], p, out)
        return
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append(f"{where}: the report lists {len(a)} entries, the re-run {len(b)}")
            if not all(isinstance(x, Mapping | list) for x in a + b):
                return
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            _diff(x, y, f"{where}[{i}]", out)
        return
    numbers = (int, float)
    if (
        isinstance(a, numbers)
        and isinstance(b, numbers)
        and not isinstance(a, bool)
        and not isinstance(b, bool)
        and math.isclose(a, b, rel_tol=_FLOAT_RTOL, abs_tol=_FLOAT_ATOL)
    ):
        return
    if a != b:
        out.append(f"{where}: report {_short(a)}, re-run {_short(b)}")


def _short(x: Any) -> str:
    text = json.dumps(x, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= 80 else text[:77] + "..."


def _regenerate(frame: pd.DataFrame, suffix: str) -> bytes:
    """The released file's bytes as the CLI writes them (its own writer, via a temporary file)."""
    import tempfile

    from anon_core.data.io import write_table

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"released{suffix}"
        write_table(frame, path)
        return path.read_bytes()


def verify(
    config_path: str | os.PathLike[str],
    report_path: str | os.PathLike[str],
    released_path: str | os.PathLike[str] | None = None,
) -> list[str]:
    """Re-run the configuration and compare with the report; the differences, or [] when all match.

    Checks: the report's figures against its own SHA-256 (an edited report); the
    configuration file against the one embedded (module sections' secrets
    redacted on both sides); every figure of a re-run (same input, same
    selection: a searched optimum is searched again) against the report's,
    numbers to a relative 1e-9; the released file given against the report's
    fingerprint, and, for .csv/.tsv/.json, the re-run's own output file. The
    input file is compared when the report fingerprinted one.
    """
    embedded = read_report(report_path)
    figures = embedded["figures"]
    differences: list[str] = []
    stated = (embedded.get("meta") or {}).get("figures_sha256")
    if stated is not None and stated != figures_sha256(figures):
        differences.append(
            f"report: its figures do not hash to the SHA-256 it states ({stated}): the report was edited"
        )
    config_file = read_config_file(config_path)
    if "config" in embedded:
        _diff(embedded["config"], scrub_config(config_file), "configuration", differences)
    else:
        differences.append("report: it embeds no configuration")

    config = load_config(config_path)
    # Build from the section-applied configuration, but compare against the one as written.
    problem, _, _ = Problem.for_release(config)
    method = (figures.get("transformation") or {}).get("selection", {}).get("method", "configured")
    found = None
    if config.transformation is None or method == "search":
        found = problem.search(**config.search)
    result = (
        problem.evaluate(config.transformation)
        if config.transformation is not None
        else found.optimum
    )
    if result is None:
        return [
            *differences,
            "re-run: no transformation satisfies the privacy models within the suppression limit",
        ]
    reported_out = (figures.get("output") or {}).get("file")
    rerun_out = None
    released = None if problem.dataset.grouped else problem.apply(result, config.suppressed_records)
    if reported_out is not None:
        suffix = Path(reported_out.get("name") or "released.csv").suffix.lower() or ".csv"
        if released is None and suffix in {".csv", ".parquet"}:  # the engine writes it again
            with tempfile.TemporaryDirectory(prefix="anon-verify-") as tmp:
                out = problem.write_release(
                    result,
                    Path(tmp) / (reported_out.get("name") or f"released{suffix}"),
                    config.suppressed_records,
                )
                rerun_out = {**path_fingerprint(out.path), "name": reported_out.get("name")}
        elif released is None:
            rerun_out = reported_out
        elif suffix in REGENERATED_FORMATS:
            rerun_out = file_fingerprint(reported_out.get("name"), _regenerate(released, suffix))
        else:
            rerun_out = (
                reported_out  # not byte-reproducible (e.g. Excel stamps the time): not compared
            )
    input_file = None
    if (figures.get("input") or {}).get("file") is not None and config.input_path is not None:
        input_file = path_fingerprint(config.input_path)
    rerun = compute_figures(config, problem, result, found, input_file, rerun_out)[0]
    _diff(figures, rerun, "", differences)
    if released_path is not None:
        path = Path(released_path)
        if not path.exists():
            differences.append(f"released file {str(path)!r} does not exist")
        else:
            digest = path_fingerprint(path)["sha256"]
            expected = reported_out["sha256"] if reported_out is not None else None
            if expected is None and path.suffix.lower() in {".csv", ""}:
                expected = figures["output"]["csv_sha256"]
            if expected is None:
                differences.append(
                    f"released file {path.name}: the report has no fingerprint of a released file"
                )
            elif digest != expected:
                differences.append(
                    f"released file {path.name}: SHA-256 {digest}, the report states {expected}"
                )
    if len(differences) > _MAX_DIFFERENCES:
        more = len(differences) - _MAX_DIFFERENCES
        differences = [*differences[:_MAX_DIFFERENCES], f"... and {more} more differences"]
    return differences
