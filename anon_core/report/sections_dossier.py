"""The dossier's sections: summary with the verdict, the acceptance checklist, the evidence, the
method and hashes (renderer-neutral blocks, like every other section)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from anon_core.report.blocks import kv_block, section, table_block, text_block
from anon_core.report.model import Report
from anon_core.report.numbers import count, number, percent, percent_interval

DOSSIER_SCHEMA = "anon-core/release-dossier/1"


def is_dossier(report: Report | Mapping[str, Any]) -> bool:
    figures = report.figures if isinstance(report, Report) else report
    return isinstance(figures, Mapping) and figures.get("schema") == DOSSIER_SCHEMA


# ------------------------------------------------------------------ sections
def _value_text(fig: Mapping[str, Any]) -> str:
    v = fig.get("value")
    if v is None:
        return f"not defined: {fig.get('why') or 'not measured'}"
    ci = fig.get("ci")
    if ci:
        return percent_interval(v, ci[0], ci[1])
    return percent(v) if 0.0 <= v <= 1.0 else number(v)


#: Figures that are not shares (printed as numbers, not percentages).
NOT_SHARES = {"epsilon"}


def _threshold(c: Mapping[str, Any]) -> str:
    show = number if c.get("figure") in NOT_SHARES else percent
    parts = []
    if c.get("max") is not None:
        parts.append(f"≤ {show(c['max'])}")
    if c.get("min") is not None:
        parts.append(f"≥ {show(c['min'])}")
    end = {"upper": " (upper end)", "lower": " (lower end)"}.get(c.get("bound", "value"), "")
    return " and ".join(parts) + end


def _result(c: Mapping[str, Any]) -> str:
    if c.get("passed") is None:
        return "n/a"
    return "PASS" if c["passed"] else "FAIL"


def dossier_summary(report: Report) -> dict[str, Any] | None:
    if not is_dossier(report):
        return None
    f = report.figures
    rel, ver = f["release"], f["verdict"]
    signoff = report.provided.get("signoff") or {}
    failed = [c["figure"] for c in ver["criteria"] if c.get("passed") is False]
    verdict_text = (
        "PASS: every applicable acceptance criterion holds"
        if ver["passed"]
        else f"FAIL: {', '.join(failed) or 'no criterion applies'}"
    )
    rows = [
        ("verdict", verdict_text),
        ("criteria", "the configuration's" if not ver.get("defaults") else "the defaults"),
        ("decision", signoff.get("decision") or "pending sign-off"),
        ("method", f"{rel['label']} ({rel['method']})"),
        ("guarantee", rel["guarantee"]),
        ("records released", f"{count(f['output']['rows'])} of {count(f['input']['rows'])}"),
        ("what was attacked", _rehearsal_text(rel["rehearsal"])),
        ("generated (UTC)", report.meta["generated_at"]),
        ("figures SHA-256", report.meta["figures_sha256"]),
    ]
    if signoff.get("justification"):
        rows.insert(3, ("justification", signoff["justification"]))
    return section("summary", "Summary", kv_block(rows))


def _rehearsal_text(r: Mapping[str, Any]) -> str:
    if r.get("scope") == "part":
        return (
            f"the released file itself: {count(r['released_part'])} records released, "
            f"{count(r['control'])} control records never released"
        )
    return (
        f"a rehearsal: the same method on a seeded part of {count(r['released_part'])} records, "
        f"attacked with {count(r['control'])} records it never saw; the file covers the whole table"
    )


def dossier_checklist(report: Report) -> dict[str, Any] | None:
    if not is_dossier(report):
        return None
    ver = report.figures["verdict"]
    figs = report.figures["evidence"]["figures"]
    rows = []
    for c in ver["criteria"]:
        fig = figs.get(c["figure"], {"value": c.get("value"), "ci": c.get("ci")})
        shown = _value_text(fig) if c.get("value") is not None else (c.get("note") or "n/a")
        rows.append([c["figure"], shown, _threshold(c), _result(c), c.get("source", "")])
    return section(
        "acceptance",
        "Acceptance checklist",
        text_block(
            "Each criterion is checked against the figure (or the named end of its 95% interval). "
            "A default whose figure is not defined for this method is not applicable; a criterion "
            "the configuration names and the evidence lacks fails."
        ),
        table_block(["figure", "value", "threshold", "result", "source"], rows),
    )


def dossier_evidence(report: Report) -> dict[str, Any] | None:
    if not is_dossier(report):
        return None
    ev = report.figures["evidence"]
    rows = []
    for name, fig in ev["figures"].items():
        rows.append([name, fig.get("kind", ""), _value_text(fig), fig.get("explain") or ""])
    blocks = [
        text_block(
            "Class-based figures are read from the released file; attack and utility figures from "
            "the records the attacks could compare (see 'what was attacked' in the summary)."
        ),
        table_block(["figure", "kind", "value", "what it measures"], rows),
    ]
    blocks += dp_audit_blocks((ev["figures"].get("dp_audit_violation") or {}).get("details"))
    for note in ev.get("notes") or []:
        blocks.append(text_block(note))
    return section("evidence", "Evidence", *blocks)


#: One line under the DP audit's table (the same words as the DP page's).
DP_AUDIT_EXPLANATION = (
    "DP audit: the method's noisy-measurement step was run many times on the rehearsal's part "
    "and without its most exposed record; the audited ε is the smallest ε consistent with how "
    "well a test told the two apart (95% confidence) and should stay at or below the step's "
    "ε. A violation is an implementation fault of the mechanism, not a risk figure."
)


def dp_audit_blocks(details: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """The DP audit's claimed against audited ε (when the release asked for it), else nothing."""
    if not details:
        return []
    ci = details.get("ci") or [None, None]
    rows = [
        ["audited step", str(details.get("step", ""))],
        ["release ε (claimed)", number(details.get("release_epsilon"))],
        ["step ε (claimed, its share of the release's budget)", number(details.get("epsilon"))],
        ["audited ε (95% lower bound)", number(details.get("epsilon_lower_bound"))],
        [
            "advantage TPR − FPR [95% interval]",
            f"{number(details.get('advantage'))} [{number(ci[0])}, {number(ci[1])}]",
        ],
        ["largest advantage the step's ε allows", number(details.get("bound"))],
        ["violation", "yes" if details.get("violation") else "no"],
        ["runs per side", count(details.get("runs"))],
    ]
    return [table_block(["DP audit", "value"], rows), text_block(DP_AUDIT_EXPLANATION)]


def dossier_method(report: Report) -> dict[str, Any] | None:
    if not is_dossier(report):
        return None
    rel = report.figures["release"]
    rows = [
        ("method", f"{rel['label']} ({rel['method']})"),
        (
            "parameters",
            ", ".join(f"{k}={v}" for k, v in rel["parameters"].items() if v is not None)
            or "defaults",
        ),
        ("random state (seed)", rel["random_state"]),
        ("guarantee", rel["guarantee"]),
        ("synthetic rows", rel["synthetic"]),
        ("bit-reproducible", rel["reproducible"]),
        ("input SHA-256", rel["input_sha256"]),
        ("released table SHA-256 (CSV)", rel["output_sha256"]),
        ("columns released", ", ".join(rel["columns"])),
    ]
    return section("method", "Release method and hashes", kv_block(rows))


def dossier_documents(report: Report) -> dict[str, Any] | None:
    """The documents de-identified with the release: per file its input and output SHA-256 and
    the entity types and counts found (never a value)."""
    if not is_dossier(report) or not report.figures.get("documents"):
        return None
    rows = []
    for d in report.figures["documents"]:
        found = ", ".join(f"{e} {count(n)}" for e, n in sorted(d["entities"].items())) or "none"
        model = "yes" if d.get("names_by_model") else "no (patterns only)"
        rows.append(
            [
                d["name"],
                d["kind"],
                d["language"],
                model,
                found,
                d["input_sha256"],
                d["output_sha256"],
            ]
        )
    return section(
        "documents",
        "Documents",
        text_block(
            "Documents de-identified with this release. 'verify --documents' checks that the "
            "de-identified files hash as recorded here."
        ),
        table_block(
            [
                "file",
                "kind",
                "language",
                "names by a model",
                "entities found",
                "input SHA-256",
                "output SHA-256",
            ],
            rows,
        ),
    )


DOSSIER_SECTION_BUILDERS = (
    dossier_summary,
    dossier_checklist,
    dossier_evidence,
    dossier_method,
    dossier_documents,
)
