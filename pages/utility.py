"""Utility: what the release keeps, by metric, by attribute distribution, and for machine learning."""

from __future__ import annotations

import pandas as pd
import plotly.express as px
import streamlit as st

from anon_core.services.utility import (
    compare_distributions,
    ml_scores,
    original_for,
    quality_summary,
    target_columns,
)
from anon_core.workspace import fingerprint
from ui.evidence import release_value
from ui.labels import ML_COLUMNS, human_frame, human_ml_frame
from ui.long_work import (
    calibrate_ml,
    cancel_button,
    default_target,
    estimate_text,
    human_duration,
    measured_estimate,
    ml_seconds,
)
from ui.widgets import (
    CHART_MARGIN,
    current_result,
    explain,
    friendly_errors,
    problem,
    start_page,
)

ws = start_page("Utility", "📈 Utility")
ML_RUN = ("logistic_regression", "random_forest")
#: Session-state slot of the machine-learning scores, by fingerprint (the last few kept).
ML_RESULTS = "_ml_results"
MAX_ML_RESULTS = 4

with friendly_errors():
    prob = problem(ws)
    result = current_result(ws)
    st.caption(
        "Current transformation: "
        + ", ".join(f"{q} level {level}" for q, level in result.transformation.items())
    )

    st.subheader("Quality metrics")
    summary = quality_summary(prob, result)
    st.dataframe(human_frame(summary.to_frame().drop(columns=["metric"])), hide_index=True)
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
        labels={
            "hellinger": "Hellinger distance (0 = same, 1 = disjoint)",
            "attribute": "attribute",
        },
    )
    fig.update_layout(height=300, margin=CHART_MARGIN, xaxis_type="category")
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
    part["table"] = part["table"].map({"original_share": "original", "released_share": "released"})
    fig = px.bar(
        part,
        x="value",
        y="share",
        color="table",
        barmode="group",
        labels={"share": "share of records", "value": attribute, "table": ""},
    )
    # ".3~%" prints 0.5% and 1% (never "1%, 1%, 2%" on a small range); values are categories
    fig.update_layout(
        height=320,
        yaxis_tickformat=".3~%",
        xaxis_type="category",
        margin=CHART_MARGIN,
    )
    st.plotly_chart(fig, key="distribution")
    explain(f"Share of records per original value of {attribute}, before and after release.")

    st.subheader("Machine-learning utility")
    kept = target_columns(ws.frame, ws.roles)
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
    target = st.selectbox(
        "Target column",
        kept,
        index=default_target(ws.frame, kept),
        key="ml_target",
        help="By default the kept column with the fewest classes (2 to 5): a binary target when "
        "there is one.",
    )
    folds = st.slider("Cross-validation folds", 2, 10, 5, key="ml_folds")
    rows = len(ws.frame)
    estimate = ml_seconds(rows, folds, ML_RUN)
    measured = measured_estimate(
        "ml_utility",
        fingerprint(ws.config_key(), target, folds, ML_RUN),
        lambda: calibrate_ml(
            original_for(ws.frame, ws.roles, ws.frame),
            original_for(ws.frame, ws.roles, ws.frame),
            target,
            folds,
            ML_RUN,
            {"random_forest": {"n_estimators": 100}},
        ),
    )
    if measured is not None:
        st.caption(
            f"Measured on this machine: {estimate_text(measured)}. Cancel stops it between folds."
        )
    else:
        st.caption(
            f"Rough time: {human_duration(estimate)} ({rows:,} rows × {len(ML_RUN)} models × "
            f"{folds} folds; a model fitted on Adult): measure it on this machine for a range. "
            "Cancel stops it between folds."
        )
    # Scores belong to this table, configuration (transformation included), target and folds:
    # kept under their fingerprint, so scores of other data or settings are never shown.
    ml_key = fingerprint(ws.config_key(), target, folds, ML_RUN)
    ml_store: dict = st.session_state.setdefault(ML_RESULTS, {})
    run, cancel = st.columns([3, 1])
    start = run.button("▶️ Train on original and released data", type="primary")
    with cancel:
        stop = cancel_button("ml_cancel")
    if stop and not start:
        ml_store.pop(ml_key, None)
        st.info("Training cancelled: no scores are shown.", icon="⏹️")
    if start:
        with st.status(f"Training, {human_duration(estimate)}…", expanded=True) as status:
            bar = st.progress(0.0, text="Training…")
            # A file opened by path: train on its sample's rows and their released form.
            if ws.large is not None:
                released = ws.sample_release(result)
            else:  # the one release the Release page ships (text and pseudonym sections applied)
                released = release_value(ws).table
            original = original_for(ws.frame, ws.roles, released)
            frames = []
            for i, model in enumerate(ML_RUN):  # one model at a time: Cancel stops between them

                def step(f, msg, i=i):
                    share = (i + min(max(f, 0.0), 1.0)) / len(ML_RUN)
                    bar.progress(share, text=msg)

                out = ml_scores(original, released, target, model, folds, progress=step)
                frames.append(out.to_frame())
            status.update(label="Training done", state="complete", expanded=False)
        ml_store[ml_key] = pd.concat(frames, ignore_index=True)
        for old in list(ml_store)[:-MAX_ML_RESULTS]:
            del ml_store[old]
    if ml_key in ml_store:
        st.caption(f"Scores for target {target!r}, {folds} folds, on the current transformation.")
        st.dataframe(
            human_ml_frame(ml_store[ml_key]),
            hide_index=True,
            column_config=ML_COLUMNS,
        )
        explain(
            "Cross-validated scores of models trained on the original and on the released table, and the drop.",
            "Logistic regression and random forest (scikit-learn), stratified k-fold; accuracy, macro F1 and "
            "ROC AUC; categorical and generalized values one-hot encoded.",
        )
