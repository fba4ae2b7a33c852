"""Utility: what the release keeps, by metric, by attribute distribution, and for machine learning."""

from __future__ import annotations

import plotly.express as px
import streamlit as st

from anon_core.analysis.utility import compare_distributions, ml_utility, quality_summary
from anon_core.data.dataset import Role
from ui.widgets import (
    current_result,
    explain,
    friendly_errors,
    problem,
    start_page,
)

ws = start_page("Utility", "📈 Utility")

with friendly_errors():
    prob = problem(ws)
    result = current_result(ws)
    st.caption(f"Current transformation: {result.transformation}")

    st.subheader("Quality metrics")
    summary = quality_summary(prob, result)
    st.dataframe(summary.to_frame(), hide_index=True)
    explain(
        f"Every quality metric on the current transformation; {summary.suppression_rate:.1%} of records "
        "suppressed. All are minimised: lower keeps more information.",
        "Definitions as ARX's: Loss (share of each hierarchy spanned), Precision (level / height), "
        "Discernability (sum of squared class sizes), Non-uniform entropy (bits lost), AECS (records per class).",
    )

    st.subheader("Distributions, original against released")
    comparison = compare_distributions(prob, result)
    distances = comparison.to_frame()
    fig = px.bar(
        distances,
        x="attribute",
        y="hellinger",
        range_y=[0, 1],
        labels={"hellinger": "Hellinger distance (0 = same, 1 = disjoint)"},
    )
    fig.update_layout(height=300, margin=dict(l=10, r=10, t=30, b=10))
    st.plotly_chart(fig, key="hellinger")
    explain(
        "How far each attribute's released distribution is from the original one.",
        "H(P, Q) = sqrt(1 - sum_i sqrt(p_i q_i)); the released mass of a generalized value is spread uniformly "
        "over the original values it covers; suppressed records are left out.",
    )
    attribute = st.selectbox("Attribute", list(distances["attribute"]), key="dist_attr")
    dist = comparison.distributions
    part = dist[dist["attribute"] == attribute].melt(
        id_vars=["value"],
        value_vars=["original_share", "released_share"],
        var_name="table",
        value_name="share",
    )
    fig = px.bar(
        part,
        x="value",
        y="share",
        color="table",
        barmode="group",
        labels={"share": "share of records"},
    )
    fig.update_layout(height=320, yaxis_tickformat=".0%", margin=dict(l=10, r=10, t=30, b=10))
    st.plotly_chart(fig, key="distribution")
    explain(f"Share of records per original value of {attribute}, before and after release.")

    st.subheader("Machine-learning utility")
    kept = [
        c
        for c in ws.frame.columns
        if ws.roles.get(c) in (Role.SENSITIVE.value, Role.INSENSITIVE.value)
    ]
    if not kept:
        st.info(
            "Keep a target column (role sensitive or insensitive) to measure machine-learning utility.",
            icon="ℹ️",
        )
        st.stop()
    if ws.large is not None:
        st.caption(
            f"The file was opened by path: models are trained on its seeded sample of {len(ws.frame):,} rows "
            "and on the same rows as released."
        )
    target = st.selectbox("Target column", kept, key="ml_target")
    folds = st.slider("Cross-validation folds", 2, 10, 5, key="ml_folds")
    if st.button("▶️ Train on original and released data", type="primary"):
        bar = st.progress(0.0, text="Training…")
        # A file opened by path: train on its sample's rows and their released form.
        released = ws.sample_release(result) if ws.large is not None else prob.apply(result)
        original = ws.frame.drop(
            columns=[c for c in ws.frame.columns if ws.roles.get(c) == Role.IDENTIFIER.value]
        )
        out = ml_utility(
            original,
            released,
            target,
            cv=folds,
            model_params={"random_forest": {"n_estimators": 100}},
            progress=lambda f, msg: bar.progress(min(max(f, 0.0), 1.0), text=msg),
        )
        bar.empty()
        st.session_state["ml_result"] = out.to_frame()
    if "ml_result" in st.session_state:
        st.dataframe(st.session_state["ml_result"], hide_index=True)
        explain(
            "Cross-validated scores of models trained on the original and on the released table, and the drop.",
            "Logistic regression and random forest (scikit-learn), stratified k-fold; accuracy, macro F1 and "
            "ROC AUC; categorical and generalized values one-hot encoded.",
        )
