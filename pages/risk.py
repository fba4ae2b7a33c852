"""Risk: re-identification risk of the original or the released table, and attribute disclosure."""

from __future__ import annotations

import pandas as pd
import plotly.express as px
import streamlit as st

from anon_core.services.risk import USA_POPULATION, attribute_disclosures, reidentification
from ui.population import population_upload, suda_section, weighted_section
from ui.widgets import (
    CHART_MARGIN,
    current_result,
    explain,
    friendly_errors,
    problem,
    risk_distribution_chart,
    start_page,
)

ws = start_page("Risk", "🎯 Risk")

with friendly_errors():
    which = st.radio(
        "Table",
        ["released", "original"],
        horizontal=True,
        key="risk_table",
        format_func=lambda w: (
            "released (current transformation)" if w == "released" else "original"
        ),
    )
    population = int(
        st.number_input(
            "Population size",
            min_value=len(ws.frame),
            value=max(USA_POPULATION, len(ws.frame)),
            step=1_000_000,
            key="population",
            help="The population the table was sampled from (default: ARX's US figure).",
        )
    )
    prob = problem(ws)
    result = current_result(ws)
    matcher = population_upload(ws, prob)
    report, data = reidentification(which, prob, result, population, matcher)

    st.subheader("Attacker models")
    rows = []
    for model in ("prosecutor", "journalist"):
        figures = data[model]
        rows.append(
            {
                "attacker": model,
                "highest risk": figures["highest_risk"],
                "records at highest risk": figures["records_at_highest_risk"],
                "average risk": figures["average_risk"],
                **{f"records at risk > {t}": v for t, v in figures["records_at_risk"].items()},
            }
        )
    rows.append({"attacker": "marketer", "average risk": data["marketer"]["average_risk"]})
    attackers = pd.DataFrame(rows).set_index("attacker").astype(float)  # n/a cells stay empty
    st.dataframe(
        attackers,
        column_config={
            c: st.column_config.NumberColumn(c, format="percent") for c in attackers.columns
        },
    )
    explain(
        "Shares of records: the chance an attacker re-identifies a record, and how many records exceed each "
        "risk threshold.",
        "Prosecutor: the attacker knows the target is in the table; risk = 1 / class size. "
        "Journalist: the attacker only knows the target is in the population; risk = 1 / population class "
        "size (ARX). Marketer: expected share re-identified when every record is attacked = classes / "
        "records. Thresholds are strict (risk > t).",
    )
    st.caption(report.journalist_basis)

    c = st.columns(4)
    c[0].metric("Records counted", f"{report.records:,}")
    c[1].metric("Equivalence classes", f"{report.equivalence_classes:,}")
    c[2].metric(
        "Sample uniques",
        f"{report.sample_uniques:,}",
        help=f"{report.sample_uniques_share:.1%} of records are alone in their class.",
    )
    c[3].metric("Suppressed records", f"{report.suppressed_records:,}")

    st.subheader("Population uniqueness")
    pu = data["population_uniqueness"]
    st.dataframe(
        pd.DataFrame(
            [{"estimator": k, "share of the population that is unique": v} for k, v in pu.items()]
        ),
        hide_index=True,
    )
    explain(
        f"Estimated share of the population of {population:,} that is unique on the quasi-identifiers "
        "(empty where an estimator does not converge).",
        "Zayatz (1991), Pitman (Hoshino 2001), SNB (Chen and Keller-McNulty 1998); Dankar et al. (2012) choose "
        "Pitman when the sampling fraction is at most 10%, else the smaller of Zayatz and SNB, as ARX does.",
    )

    fig = risk_distribution_chart(data["distribution"])
    if fig is not None:
        st.plotly_chart(fig, key="risk_distribution")
        explain("Records by re-identification risk, in ARX's risk intervals.")

    if report.qi_analysis:
        st.subheader("Which quasi-identifiers drive re-identification")
        qi = pd.DataFrame(
            [
                {
                    "attributes": " + ".join(s.attributes),
                    "size": len(s.attributes),
                    "distinction": s.distinction,
                    "separation": s.separation,
                }
                for s in report.qi_analysis
            ]
        )
        top = qi.sort_values(["distinction", "separation"], ascending=False).head(20)
        fig = px.bar(
            top,
            x="distinction",
            y="attributes",
            orientation="h",
            color=top["size"].astype(str),  # 1, 2 or 3 columns: discrete colours, not a scale
            labels={
                "distinction": "alpha-distinction (distinct combinations / records)",
                "color": "columns combined",
            },
            color_discrete_sequence=px.colors.qualitative.Set1,
        )
        fig.update_layout(
            height=420,
            yaxis={"categoryorder": "total ascending"},
            margin=CHART_MARGIN,
        )
        st.plotly_chart(fig, key="qi_analysis")
        explain(
            "The combinations of columns that single out the most records; generalize those first.",
            "Distinction = distinct value combinations / records; separation = share of record pairs with "
            "different values (Motwani and Xu 2007).",
        )

    weighted_section(ws, prob, result, which)
    suda_section(ws, prob, result, which)

    if ws.sensitive and which == "released":
        st.subheader("Attribute disclosure")
        for attribute, disclosure in attribute_disclosures(result).items():
            s = disclosure.summary
            extra = "".join(
                f", largest {name} t {value:.3f}"
                for name, value in (
                    ("ordered-distance", s.max_t_ordered),
                    ("hierarchical", s.max_t_hierarchical),
                )
                if value is not None
            )
            st.markdown(
                f"**{attribute}**: {s.classes:,} classes; smallest distinct l {s.min_distinct_l}, smallest entropy l "
                f"{s.min_entropy_l:.2f}, largest equal-distance t {s.max_t_equal:.3f}{extra}; "
                f"{s.homogeneous_records:,} records in {s.homogeneous_classes:,} homogeneous classes."
            )
            st.dataframe(disclosure.classes.head(200), hide_index=True)
        explain(
            "Per released class: the sensitive values, the l and t it reaches, and whether it is homogeneous "
            "(one value: everyone in it is disclosed)."
        )
