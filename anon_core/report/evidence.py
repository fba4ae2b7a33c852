"""The report's evidence beyond class sizes, rendered: the release method and its guarantee, the
attack battery (when the configuration has an ``attack`` section) and the population figures
(journalist risk basis, survey-weighted risk, SUDA2).

The figures are computed by :mod:`anon_core.services.report_evidence` (``verify`` re-runs that with
the same seeds and compares); this module turns them into the report's blocks and sections.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from anon_core.report.attacks import attacks_section
from anon_core.report.blocks import fmt, kv_block, section, table_block, text_block
from anon_core.report.model import Report
from anon_core.report.numbers import percent, percent_interval

if TYPE_CHECKING:
    from anon_core.attacks.battery import AttackReport


# ----------------------------------------------------------------------------- figures
def attack_figures(report: AttackReport | None) -> dict[str, Any] | None:
    """The report's "attacks" figures from the battery's report (None without one): the
    ``anon-core attack`` figures, the rows, how to re-run them and what they mean."""
    if report is None:
        return None
    out = attacks_section(report)
    return {
        "figures": out["figures"],
        "rows": out["rows"],
        "reproduce": out["reproduce"],
        "explanation": out["explanation"],
    }


# ----------------------------------------------------------------------------- sections
def method_report_section(report: Report) -> dict[str, Any] | None:
    """How the table was released: the method, its parameters and its guarantee."""
    m = report.figures.get("method")
    if not m:
        return None
    return section(
        "method",
        "Release method",
        kv_block(
            [
                ("method", f"{m['label']} ({m['name']})"),
                *[(f"parameter {k}", fmt(v)) for k, v in m["parameters"].items()],
                ("random_state", fmt(m["random_state"])),
                ("guarantee", m["guarantee"]),
                ("protects", m["protects"]),
                ("does not protect", m["does_not_protect"]),
            ]
        ),
    )


def attacks_report_section(report: Report) -> dict[str, Any] | None:
    """The attack battery's figures with their intervals, seeds, n_attacks and split."""
    a = report.figures.get("attacks")
    if not a:
        return None
    rows = []
    for row in a["rows"]:
        cells = [
            str(row.get("attack", "")),
            percent_interval(row.get("risk"), row.get("ci_low"), row.get("ci_high")),
        ]
        for key in ("attack_rate", "control_rate", "baseline_rate"):
            cells.append(percent(row.get(key)))
        rows.append(cells)
    header = ["attack", "risk [95% interval]", "attack rate", "control rate", "baseline"]
    figures = a["figures"]
    extra = []
    if "linkage" in figures:
        extra.append(kv_block([(f"linkage: {k}", fmt(v)) for k, v in figures["linkage"].items()]))
    if "membership" in figures:
        m = figures["membership"]
        ci = m.get("ci") or [None, None]
        extra.append(
            kv_block([("membership advantage", percent_interval(m.get("advantage"), ci[0], ci[1]))])
        )
    reproduce = a["reproduce"]
    return section(
        "attacks",
        "Attacks",
        text_block(a["explanation"]),
        table_block(header, rows, text_columns=(0,)) if rows else None,
        *extra,
        kv_block(
            [
                ("random_state", fmt(reproduce.get("random_state"))),
                ("n_attacks", fmt(reproduce.get("n_attacks"))),
                ("split", fmt(reproduce.get("split"))),
                ("re-run", "anon-core attack CONFIG (verify re-runs it with the same seeds)"),
            ]
        ),
    )


def population_report_section(report: Report) -> dict[str, Any] | None:
    """Journalist risk's basis, survey-weighted risk and SUDA2 of the release."""
    p = report.figures.get("population")
    if not p:
        return None
    rows = [("journalist risk basis", fmt(p.get("journalist_basis")))]
    for key in ("weighted_risk", "suda2"):
        part = p.get(key) or {}
        if "explanation" in part and len(part) == 1:
            rows.append((key.replace("_", " "), part["explanation"]))
            continue
        for k, v in part.items():
            if k == "explanation" or isinstance(v, dict | list):
                continue
            rows.append((f"{key.replace('_', ' ')}: {k.replace('_', ' ')}", fmt(v)))
    return section("population", "Population figures", kv_block(rows))
