"""Comparing a report's figures with a re-run's, and a released file with its fingerprint."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from anon_core.report.model import path_fingerprint

_FLOAT_RTOL = 1e-9
_FLOAT_ATOL = 1e-12


def diff_figures(a: Any, b: Any, where: str, out: list[str]) -> None:
    """Append to ``out`` every difference between the report's ``a`` and the re-run's ``b``
    (numbers to a relative 1e-9)."""
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        for k in sorted(set(a) | set(b)):
            p = f"{where}.{k}" if where else str(k)
            if k not in b:
                out.append(f"{p}: in the report ({short(a[k])}) but not in the re-run")
            elif k not in a:
                out.append(f"{p}: not in the report, re-run gives {short(b[k])}")
            else:
                diff_figures(a[k], b[k], p, out)
        return
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append(f"{where}: the report lists {len(a)} entries, the re-run {len(b)}")
            if not all(isinstance(x, Mapping | list) for x in a + b):
                return
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            diff_figures(x, y, f"{where}[{i}]", out)
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
        out.append(f"{where}: report {short(a)}, re-run {short(b)}")


def short(x: Any) -> str:
    """A value as JSON, cut to 80 characters (for one-line differences)."""
    text = json.dumps(x, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= 80 else text[:77] + "..."


def check_released(path: Path, figures: Mapping[str, Any], out: list[str]) -> str:
    """'matches' when the file hashes as the report records, else 'differs' (said in ``out``)."""
    if not path.exists():
        out.append(f"released file {str(path)!r} does not exist")
        return "differs"
    digest = path_fingerprint(path)["sha256"]
    reported = (figures.get("output") or {}).get("file")
    expected = reported["sha256"] if reported else None
    if expected is None and path.suffix.lower() in {".csv", ""}:
        expected = (figures.get("output") or {}).get("csv_sha256")
    if expected is None:
        out.append(f"released file {path.name}: the report has no fingerprint of a released file")
        return "differs"
    if digest != expected:
        out.append(f"released file {path.name}: SHA-256 {digest}, the report states {expected}")
        return "differs"
    return "matches"
