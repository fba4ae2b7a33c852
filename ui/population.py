"""Risk page widgets for the population figures: a population-table upload (journalist risk),
weighted (survey) risk and SUDA2 special uniques. Layout only; the figures come from anon_core."""

from __future__ import annotations

import hashlib
from typing import Any

import pandas as pd
import plotly.express as px
import streamlit as st

from anon_core.services.risk import (
    EXPLAIN,
    MAX_KEYS,
    population_matcher,
    suda_scores,
    weighted_figures,
)
from ui.widgets import CHART_MARGIN, cached, explain


def population_upload(ws, prob) -> Any:
    """An optional population table (a file with the quasi-identifier columns) for journalist risk."""
    upload = st.file_uploader(
        "Population table (optional)",
        type=["csv", "tsv", "txt", "xlsx", "parquet"],
        key="population_table",
        help="People the sample was drawn from, with the quasi-identifier columns (one row per person). "
        "With it, journalist risk uses the population's class sizes.",
    )
    if upload is None:
        return None
    content = upload.getvalue()
    key = f"{hashlib.sha256(content).hexdigest()}:{ws.data_key()}"

    matcher = cached(
        "population", key, lambda: population_matcher(content, upload.name, ws.qis, prob)
    )
    st.caption(f"Population table {upload.name}: {matcher.population.size:,} people.")
    return matcher


def weighted_section(ws, prob, result, which: str) -> None:
    """sdcMicro's individual risk with the survey weights of the column of role 'weight'."""
    report = weighted_figures(which, prob, result, ws.roles, ws.qis)
    st.subheader("Weighted (survey) risk")
    if report is None:
        st.caption(
            "Give a column the role 'weight' (survey weights) on the Attributes page to see it."
        )
        return
    c = st.columns(3)
    c[0].metric("Expected re-identifications", f"{report.expected_reidentifications:,.1f}")
    c[1].metric("Global risk", f"{report.global_risk:.2%}")
    c[2].metric("Highest individual risk", f"{report.highest_risk:.3f}")
    if report.records:
        fig = px.histogram(
            pd.DataFrame({"individual risk": report.individual}), x="individual risk", nbins=40
        )
        fig.update_layout(height=260, margin=CHART_MARGIN)
        st.plotly_chart(fig, key="weighted_risk")
    explain(
        EXPLAIN["weighted"],
        "Benedetti and Franconi's individual risk as sdcMicro's measure_risk: p = f/F with f the records of the "
        "key and F the sum of their weights; f=1: p/(1-p) log(1/p); f=2: p/(1-p) - (p/(1-p))^2 log(1/p); "
        "f>2: p/(f-(1-p)); 1/f when F = f.",
    )


def suda_section(ws, prob, result, which: str) -> None:
    """SUDA2 scores on demand (every subset of the quasi-identifiers is scanned)."""
    st.subheader("Special uniques (SUDA2)")
    if len(ws.qis) > MAX_KEYS:
        st.caption(f"SUDA2 needs at most {MAX_KEYS} quasi-identifiers.")
        return
    if not st.toggle("Compute SUDA2 scores", key="suda_on"):
        st.caption(EXPLAIN["suda"])
        return
    # The original's scores follow the data and roles; the released table's also follow the
    # transformation, the models and the suppression limit: the whole configuration.
    state = ws.data_key() if which == "original" else ws.config_key()
    res = cached("suda2", f"{state}:{which}", lambda: suda_scores(which, prob, result, ws.qis))
    table = pd.DataFrame(res.dis_table(), columns=["DIS score", "records"])
    contrib = pd.DataFrame(res.contributions, columns=["variable", "contribution %"])
    left, right = st.columns(2)
    left.plotly_chart(px.bar(table, x="DIS score", y="records", height=280), key="suda_dis")
    right.plotly_chart(
        px.bar(
            contrib.sort_values("contribution %"),
            x="contribution %",
            y="variable",
            orientation="h",
            height=280,
        ),
        key="suda_contrib",
    )
    explain(
        EXPLAIN["suda"],
        "An MSU of size k among M key variables adds (M-k)! to a record's SUDA score (Elliot's scores, "
        "sdcMicro's default); DIS-SUDA as sdcMicro with DisFraction 0.01.",
    )
