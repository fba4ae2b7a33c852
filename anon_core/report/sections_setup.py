"""Report sections on what was done: summary, fingerprints, roles, hierarchies, models, transformation."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from anon_core.report.blocks import (
    fmt,
    kv_block,
    levels_text,
    section,
    table_block,
    text_block,
)
from anon_core.report.model import MIN_CELL, SHOWN_LABELS, Report
from anon_core.report.numbers import count, percent

CHOSEN_BY_TEXT = {
    "search": "search optimum",
    "explore": "picked on the trade-off chart (Explore)",
    "manual": "levels set by hand",
    "configured": "configured",
}


def _chosen_by_text(chosen_by: str | None, method: str) -> str:
    """How the transformation was chosen: as the dashboard recorded it, else as the figures say."""
    if chosen_by is None:
        chosen_by = "search" if method == "search" else "configured"
    return CHOSEN_BY_TEXT.get(chosen_by, chosen_by)


def summary_section(report: Report) -> dict[str, Any] | None:
    """Verdict, decision, transformation and the headline figures."""
    f = report.figures
    meta = report.meta
    prov = report.provided
    tr = f["transformation"]
    priv = f["privacy"]
    sel = f["transformation"]["selection"]
    before = f["risk"]["before"]
    after = f["risk"]["after"]
    signoff = prov.get("signoff") or {}
    return section(
        "summary",
        "Summary",
        kv_block(
            [
                (
                    "verdict",
                    "satisfies the privacy models within the suppression limit"
                    if tr["satisfied"]
                    else "DOES NOT satisfy the privacy models within the suppression limit",
                ),
                ("decision", signoff.get("decision") or "pending sign-off"),
                ("transformation", levels_text(tr["transformation"])),
                ("chosen by", _chosen_by_text(report.provided.get("chosen_by"), sel["method"])),
                ("records released", f"{f['output']['rows']:,} of {f['input']['rows']:,}"),
                (
                    "highest prosecutor risk",
                    f"{percent(before['prosecutor']['highest_risk'])} before, "
                    f"{percent(after['prosecutor']['highest_risk'])} after",
                ),
                (f"quality ({priv['quality_metric']['label']})", tr["quality"]["value"]),
                ("generated (UTC)", meta["generated_at"]),
                ("figures SHA-256", meta["figures_sha256"]),
            ]
        ),
    )


def fingerprints_section(report: Report) -> dict[str, Any] | None:
    """SHA-256 of the input, released table and files, hierarchy files."""
    f = report.figures
    inp, out = f["input"], f["output"]
    fp_rows = [
        (
            "input file",
            "not fingerprinted (no file bytes given)"
            if inp["file"] is None
            else inp["file"]["name"] or "-",
        ),
        ("input file SHA-256", "-" if inp["file"] is None else inp["file"]["sha256"]),
        ("input file size (bytes)", None if inp["file"] is None else inp["file"]["bytes"]),
        (
            "input table SHA-256 (canonical CSV)",
            inp["table_sha256"]
            or f"- (read by path with {inp.get('engine')}: the file's SHA-256 fingerprints it)",
        ),
        ("input rows x columns", f"{inp['rows']:,} x {len(inp['columns'])}"),
        (
            "released file",
            "not fingerprinted (no file given)"
            if out["file"] is None
            else out["file"]["name"] or "-",
        ),
        ("released file SHA-256", "-" if out["file"] is None else out["file"]["sha256"]),
        (
            "released table SHA-256 (canonical CSV)",
            out["csv_sha256"]
            or "- (written by the engine: the released file's SHA-256 fingerprints it)",
        ),
        ("released rows x columns", f"{out['rows']:,} x {len(out['columns'])}"),
        (
            "suppressed records in the release",
            "removed"
            if out["suppressed_records"] == "remove"
            else "kept with every quasi-identifier '*'",
        ),
    ]
    for name, fp in inp["hierarchy_files"].items():
        fp_rows.append((f"hierarchy file of {name} ({fp['name']}) SHA-256", fp["sha256"]))
    return section(
        "fingerprints",
        "Input and output fingerprints",
        kv_block(fp_rows),
        text_block("Released columns: " + ", ".join(out["columns"])),
    )


def attributes_section(report: Report) -> dict[str, Any] | None:
    """Each attribute's role and what the release does with it."""
    f = report.figures
    return section(
        "attributes",
        "Attribute roles",
        table_block(
            ["attribute", "role", "treatment"],
            [
                [
                    c,
                    r,
                    {
                        "identifier": "removed",
                        "quasi-identifier": "generalized",
                        "sensitive": "kept, protected",
                        "insensitive": "kept unchanged",
                    }[r],
                ]
                for c, r in f["attributes"].items()
            ],
        ),
    )


def hierarchies_section(report: Report) -> dict[str, Any] | None:
    """Hierarchies, levels used and the generalized labels with what they cover."""
    f = report.figures
    det = report.details
    blocks = [
        table_block(
            [
                "attribute",
                "hierarchy",
                "level used",
                "of levels",
                "original values",
                "released labels",
            ],
            [
                [
                    q,
                    h["source"],
                    "-" if h["level"] is None else h["level"],
                    h["height"] - 1,
                    h["values"],
                    "-" if h["labels"] is None else len(h["labels"]),
                ]
                for q, h in f["hierarchies"].items()
            ],
        )
    ]
    for q, pairs in det.get("hierarchies", {}).items():
        rows = [[lab, n, _covered(shown, hidden)] for lab, n, shown, hidden in pairs[:SHOWN_LABELS]]
        more = len(pairs) - SHOWN_LABELS
        blocks.append(
            table_block(
                [f"{q}: released label (level {f['hierarchies'][q]['level']})", "values", "covers"],
                rows,
                note=(f"... and {more} more labels (all in the figures JSON). " if more > 0 else "")
                + f"Original values held by fewer than {MIN_CELL} records are not named.",
                text_columns=(0, 2),
            )
        )
    return section("hierarchies", "Hierarchies and generalized labels", *blocks)


def _covered(shown: list[str], hidden: int) -> str:
    text = ", ".join(shown[:8]) + (f", ... (+{len(shown) - 8})" if len(shown) > 8 else "")
    if hidden:
        text += f"{'; ' if text else ''}{hidden} rarer value(s) not named"
    return text


def privacy_section(report: Report) -> dict[str, Any] | None:
    """Privacy models and their status, suppression, quality metric."""
    f = report.figures
    priv = f["privacy"]
    return section(
        "privacy",
        "Privacy models, suppression and quality metric",
        table_block(
            ["model", "parameters", "status", "violating classes", "violating records"],
            [
                [
                    m["model"],
                    ", ".join(f"{k}={v}" for k, v in m.items() if k != "model"),
                    ("holds" if not s["violating_records"] else "holds after suppression")
                    if s["satisfied"]
                    else "VIOLATED",
                    s["violating_classes"],
                    s["violating_records"],
                ]
                for m, s in zip(priv["models"], priv["status"], strict=True)
            ],
        ),
        kv_block(
            [
                (
                    "suppression limit",
                    f"{percent(priv['suppression_limit'])} of the records "
                    f"(at most {count(priv['max_suppressed_records'])})",
                ),
                ("suppressed records", priv["suppressed_records"]),
                ("quality metric", priv["quality_metric"]["label"]),
            ]
        ),
    )


def transformation_section(report: Report) -> dict[str, Any] | None:
    """The chosen transformation and how it was chosen (search, ties, Pareto frontier)."""
    f = report.figures
    meta = report.meta
    tr = f["transformation"]
    sel = f["transformation"]["selection"]
    blocks = [
        kv_block(
            [
                ("transformation", levels_text(tr["transformation"])),
                ("satisfied", tr["satisfied"]),
                (f"quality ({tr['quality']['metric']})", tr["quality"]["value"]),
                ("equivalence classes", tr["equivalence_classes"]),
                (
                    "class sizes (min / average / max)",
                    f"{tr['min_class_size']:,} / {fmt(tr['average_class_size'])} / {tr['max_class_size']:,}",
                ),
                ("suppressed records", tr["suppressed_records"]),
            ]
        )
    ]
    if sel["method"] == "search":
        search_ms = meta.get("search_ms")
        blocks.append(
            text_block(
                f"Chosen as the optimum of the {'heuristic' if sel['heuristic'] else 'exact'} search: "
                f"{sel['nodes_checked']:,} of {sel['lattice_size']:,} transformations checked"
                + (f" in {count(search_ms)} ms" if search_ms is not None else "")
                + f"; {len(sel['ties'])} tie(s) of equal quality"
                + (" (ties: lowest quality, then lowest sum of levels)." if sel["ties"] else ".")
            )
        )
        qis = list(tr["transformation"])
        order = "levels in the order " + ", ".join(qis)

        def vector(levels: Mapping[str, Any]) -> str:
            return "(" + ", ".join(str(levels[q]) for q in qis) + ")"

        if sel["ties"]:
            blocks.append(
                table_block(["tie (other optimum)"], [[vector(t)] for t in sel["ties"]], note=order)
            )
        front = sel["pareto_frontier"]
        if front:
            chosen = [all(r[q] == tr["transformation"][q] for q in qis) for r in front]
            blocks.append(
                table_block(
                    [
                        "levels",
                        "quality",
                        "average risk",
                        "highest risk",
                        "suppressed records",
                        "chosen",
                    ],
                    [
                        [
                            vector(r),
                            r["quality"],
                            percent(r["average_risk"]),
                            percent(r["highest_risk"]),
                            r["suppressed_records"],
                            "yes" if c else "",
                        ]
                        for r, c in zip(front, chosen, strict=True)
                    ],
                    note=f"Pareto frontier of the {sel['nodes_checked']:,} transformations the search checked: none is "
                    f"better in both average prosecutor risk and quality ({order}).",
                    text_columns=(0, 5),
                )
            )
            blocks.append(
                {
                    "kind": "chart",
                    "chart": {
                        "type": "scatter",
                        "title": "Pareto frontier: average risk against quality",
                        "x": [r["average_risk"] for r in front],
                        "y": [r["quality"] for r in front],
                        "labels": [levels_text({q: r[q] for q in qis}) for r in front],
                        "chosen": chosen,
                        "x_title": "average prosecutor risk",
                        "y_title": f"quality ({tr['quality']['metric']})",
                    },
                }
            )
    else:
        blocks.append(
            text_block(
                "The transformation was set in the configuration (not searched in this run)."
            )
        )
    return section("transformation", "Chosen transformation", *blocks)
