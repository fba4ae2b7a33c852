"""Report sections on the results: re-identification risk, attribute disclosure, utility, PII and DP."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from anon_core.report.blocks import (
    bars_block,
    fmt,
    key_values,
    section,
    table_block,
    text_block,
)
from anon_core.report.model import MIN_CELL, SHOWN_QI_ROWS, Report
from anon_core.report.numbers import count, number, percent


def _risk_rows(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """(measure, before, after) as printed: shares as percentages, counts with separators."""

    def both(show: Any, *keys: str) -> tuple[str, str]:
        def get(d: Mapping[str, Any]) -> Any:
            for k in keys:
                d = d.get(k) if isinstance(d, Mapping) else None
            return d

        return show(get(before)), show(get(after))

    rows = [
        ("records counted", *both(count, "records")),
        ("equivalence classes", *both(count, "equivalence_classes")),
        ("prosecutor: highest risk", *both(percent, "prosecutor", "highest_risk")),
        (
            "prosecutor: records at highest risk",
            *both(percent, "prosecutor", "records_at_highest_risk"),
        ),
        ("prosecutor: average risk", *both(percent, "prosecutor", "average_risk")),
    ]
    for t, v in before["prosecutor"]["records_at_risk"].items():
        rows.append(
            (
                f"prosecutor: records at risk > {percent(float(t))}",
                percent(v),
                percent(after["prosecutor"]["records_at_risk"].get(t)),
            )
        )
    rows += [
        ("journalist: highest risk", *both(percent, "journalist", "highest_risk")),
        ("journalist: average risk", *both(percent, "journalist", "average_risk")),
        ("marketer: average risk", *both(percent, "marketer", "average_risk")),
        ("sample uniques", *both(count, "sample_uniques")),
        ("sample uniques (share)", *both(percent, "sample_uniques_share")),
    ]
    for k in ("zayatz", "pitman", "snb", "dankar"):
        rows.append(
            (
                f"population uniques: {k} (share of the population)",
                *both(number, "population_uniqueness", k),
            )
        )
    rows.append(
        (
            "population model chosen (Dankar)",
            str(before["population_uniqueness"]["dankar_model"]),
            str(after["population_uniqueness"]["dankar_model"]),
        )
    )
    return rows


def _top_qi(rows: list[dict[str, Any]]) -> list[list[Any]]:
    ranked = sorted(rows, key=lambda r: (-(r["distinction"] or 0), -(r["separation"] or 0)))
    return [
        [", ".join(r["attributes"]), percent(r["distinction"]), percent(r["separation"])]
        for r in ranked[:SHOWN_QI_ROWS]
    ]


def risk_section(report: Report) -> dict[str, Any] | None:
    """Re-identification risk before and after."""
    f = report.figures
    before = f["risk"]["before"]
    after = f["risk"]["after"]
    risk_rows = _risk_rows(before, after)
    thresholds = list(before["prosecutor"]["records_at_risk"])
    return section(
        "risk",
        "Re-identification risk before and after",
        text_block(
            "Shares are fractions of the records counted (suppressed records are left out, as ARX does). "
            + f["risk"]["note"]
            + "."
        ),
        table_block(
            ["measure", "before (input)", "after (release)"], [[a, b, c] for a, b, c in risk_rows]
        ),
        bars_block(
            "Prosecutor risk before and after",
            [
                "highest risk",
                "average risk",
                *[f"records at risk > {percent(float(t))}" for t in thresholds],
                "sample uniques share",
            ],
            {
                "before": [
                    before["prosecutor"]["highest_risk"],
                    before["prosecutor"]["average_risk"],
                    *[before["prosecutor"]["records_at_risk"][t] for t in thresholds],
                    before["sample_uniques_share"],
                ],
                "after": [
                    after["prosecutor"]["highest_risk"],
                    after["prosecutor"]["average_risk"],
                    *[after["prosecutor"]["records_at_risk"][t] for t in thresholds],
                    after["sample_uniques_share"],
                ],
            },
            unit="share",
        ),
        {
            "kind": "chart",
            "chart": {
                "type": "lines",
                "title": "Risk distribution: cumulative share of records by risk",
                "x": [b["high"] for b in before["distribution"]],
                "series": {
                    "before": [b["cumulative"] for b in before["distribution"]],
                    "after": [b["cumulative"] for b in after["distribution"]],
                },
                "x_title": "risk (1 / class size) at most",
                "y_title": "share of records",
            },
        },
        table_block(
            ["QI combination (input)", "distinction", "separation"],
            _top_qi(before["qi_analysis"]),
            note="The combinations of quasi-identifiers that identify most records in the input.",
        ),
        table_block(
            ["QI combination (release)", "distinction", "separation"], _top_qi(after["qi_analysis"])
        ),
    )


def disclosure_section(report: Report) -> dict[str, Any] | None:
    """Attribute disclosure of the sensitive attributes."""
    f = report.figures
    if f["disclosure"]:
        return section(
            "disclosure",
            "Attribute disclosure",
            table_block(
                [
                    "sensitive attribute",
                    "classes",
                    "min distinct l",
                    "min entropy l",
                    "max t (equal)",
                    "max t (ordered)",
                    "max t (hierarchical)",
                    "homogeneous classes",
                    "homogeneous records",
                ],
                [
                    [
                        a,
                        count(d["classes"]),
                        number(d["min_distinct_l"]),
                        number(d["min_entropy_l"]),
                        number(d["max_t_equal"]),
                        number(d["max_t_ordered"]),
                        number(d["max_t_hierarchical"]),
                        count(d["homogeneous_classes"]),
                        f"{count(d['homogeneous_records'])} ({percent(d['homogeneous_share'])})",
                    ]
                    for a, d in f["disclosure"].items()
                ],
                note="A homogeneous class has a single sensitive value: membership in it discloses the value.",
            ),
        )
    else:
        return section(
            "disclosure",
            "Attribute disclosure",
            text_block("No attribute has the role 'sensitive'."),
        )


def utility_section(report: Report) -> dict[str, Any] | None:
    """Quality metrics, distribution distances, ML utility."""
    f = report.figures
    prov = report.provided
    det = report.details
    q, dist = f["utility"]["quality"], f["utility"]["distributions"]
    optimized = next((m for m in q["metrics"] if m["optimized"]), None)
    blocks = [
        table_block(
            ["metric", "variant", "value", "range", "optimized"],
            [
                [
                    m["name"],
                    "monotonic" if m["monotonic"] else "non-monotonic",
                    m["value"],
                    f"{fmt(m['lower'])} - {fmt(m['upper'])}",
                    "yes" if m["optimized"] else "",
                ]
                for m in q["metrics"]
            ],
            note=f"Suppression rate {percent(q['suppression_rate'])} ({count(q['suppressed_records'])} "
            "records).",
        ),
    ]
    if optimized and optimized["per_attribute"]:
        blocks.append(
            bars_block(
                f"{optimized['name']} per attribute",
                list(optimized["per_attribute"]),
                {"loss": list(optimized["per_attribute"].values())},
            )
        )
    blocks += [
        table_block(
            ["attribute", "role", "level", "values", "Hellinger distance"],
            [
                [
                    a["attribute"],
                    a["role"],
                    "-" if a["level"] is None else a["level"],
                    a["n_values"],
                    a["hellinger"],
                ]
                for a in dist["attributes"]
            ],
            note="Hellinger distance between the original distribution and the released one projected back "
            "uniformly onto the original values (0 = unchanged, 1 = disjoint).",
        ),
        bars_block(
            "Hellinger distance per attribute",
            [a["attribute"] for a in dist["attributes"]],
            {"distance": [a["hellinger"] for a in dist["attributes"]]},
        ),
    ]
    if det.get("distributions"):
        blocks.append(
            {
                "kind": "chart",
                "chart": {
                    "type": "distributions",
                    "title": "Distributions before and after (released values; cells under "
                    f"{MIN_CELL} records merged)",
                    "attributes": det["distributions"],
                },
            }
        )
    ml = prov.get("ml")
    if ml:
        rows, cats, orig, rel = [], [], [], []
        for m in ml.get("models", []):
            for s in ("accuracy", "f1_macro", "roc_auc"):
                o, r = m["original"][s]["mean"], m["released"][s]["mean"]
                rows.append([m["model"], s, o, r, m["drop"][s]])
                cats.append(f"{m['model']}: {s}")
                orig.append(o)
                rel.append(r)
        blocks += [
            text_block(
                f"ML utility: predicting {ml.get('target')!r} with {ml.get('cv')}-fold stratified cross-validation "
                f"(random_state {ml.get('random_state')}); {count(ml.get('n_original', 0))} original and "
                f"{count(ml.get('n_released', 0))} released rows."
            ),
            table_block(["model", "score", "original", "released", "drop"], rows),
            bars_block(
                "ML utility: original against released", cats, {"original": orig, "released": rel}
            ),
        ]
    else:
        blocks.append(text_block("ML utility was not assessed for this release."))
    return section("utility", "Utility", *blocks)


def pii_section(report: Report) -> dict[str, Any] | None:
    """How personal data in identifiers and free text was handled (when it was)."""
    prov = report.provided
    blocks: list[dict[str, Any]] = []
    if prov.get("pii") is not None:
        blocks.append(table_block(["setting", "value"], key_values(prov["pii"])))
    if "text" in report.config:
        blocks.append(_miss_rate_block())
    return section("pii", "PII handling", *blocks) if blocks else None


def _miss_rate_block() -> dict[str, Any]:
    """The measured miss rate of the free-text de-identification (it ran for this release)."""
    from anon_core.pii.text import TEXT_MISS_RATE

    rates = [(k, v) for k, v in TEXT_MISS_RATE.items() if k != "source"]
    return table_block(
        ["entity type", "measured miss rate (left in the text)"],
        [[k, percent(v)] for k, v in rates],
        note="Free text was de-identified for this release. Detection is statistical: the rates above were "
        f"measured by {TEXT_MISS_RATE['source']} (labeled synthetic notes); on other text they may be higher, "
        "and what is missed is released verbatim. Review the released text.",
    )


def dp_section(report: Report) -> dict[str, Any] | None:
    """The differential-privacy budget (when DP was used)."""
    prov = report.provided
    if prov.get("dp") is not None:
        return section(
            "dp",
            "Differential privacy budget",
            table_block(["setting", "value"], key_values(prov["dp"])),
        )

    return None
