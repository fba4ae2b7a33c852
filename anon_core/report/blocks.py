"""Renderer-neutral report blocks (text, key-value, table, chart, code) and value formatting."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from anon_core.report.numbers import number, percent


def fmt(x: Any, digits: int = 4) -> str:
    """A value as the report prints it: counts with thousands separators, other numbers with
    ``digits`` significant digits (:mod:`anon_core.report.numbers`), booleans as yes/no."""
    if x is None:
        return "n/a"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int | float):
        return number(x, digits)
    if isinstance(x, Mapping | list):
        return json.dumps(x, ensure_ascii=False, sort_keys=True)
    return str(x)


def pct(x: Any) -> str:
    """A share as a percentage with one decimal (7.7%)."""
    return percent(x)


def levels_text(d: Mapping[str, Any]) -> str:
    return ", ".join(f"{k} {v}" for k, v in d.items())


def text_block(t: str) -> dict:
    return {"kind": "text", "text": t}


def kv_block(rows: Sequence[tuple[str, Any]]) -> dict:
    return {"kind": "kv", "rows": [(str(k), v if isinstance(v, str) else fmt(v)) for k, v in rows]}


def table_block(
    columns: Sequence[str],
    rows: Sequence[Sequence[Any]],
    note: str | None = None,
    text_columns: Sequence[int] = (0,),
) -> dict:
    """A table block; columns not in ``text_columns`` holding numbers are right-aligned in HTML."""
    return {
        "kind": "table",
        "columns": list(columns),
        "rows": [[c if isinstance(c, str) else fmt(c) for c in r] for r in rows],
        "note": note,
        "text_columns": list(text_columns),
    }


def bars_block(
    title: str, categories: Sequence[str], series: Mapping[str, Sequence[Any]], unit: str = ""
) -> dict:
    return {
        "kind": "chart",
        "chart": {
            "type": "bars",
            "title": title,
            "categories": list(categories),
            "series": {k: list(v) for k, v in series.items()},
            "unit": unit,
        },
    }


def key_values(obj: Mapping[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    rows: list[tuple[str, Any]] = []
    for k, v in obj.items():
        if isinstance(v, Mapping) and v:
            rows += key_values(v, f"{prefix}{k}.")
        else:
            rows.append((f"{prefix}{k}", v))
    return rows


def compact_json(obj: Any, indent: int = 0) -> str:
    """Readable JSON with every list of scalars (hierarchy rows, models' values) on one line."""
    pad, inner = " " * indent, " " * (indent + 2)
    if isinstance(obj, Mapping):
        if not obj:
            return "{}"
        items = [
            f"{inner}{json.dumps(str(k), ensure_ascii=False)}: {compact_json(v, indent + 2)}"
            for k, v in obj.items()
        ]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(obj, list):
        if all(not isinstance(v, Mapping | list) for v in obj):
            return json.dumps(obj, ensure_ascii=False)
        return (
            "[\n" + ",\n".join(inner + compact_json(v, indent + 2) for v in obj) + "\n" + pad + "]"
        )
    return json.dumps(obj, ensure_ascii=False)


def section(sid: str, title: str, *blocks: dict | None) -> dict[str, Any]:
    """A report section: an id (HTML anchor), a title and its blocks (None blocks left out)."""
    return {"id": sid, "title": title, "blocks": [b for b in blocks if b is not None]}
