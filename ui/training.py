"""Model sections of the differential-privacy page (computation in ``anon_core.dp`` and
``anon_core.training``): diffprivlib's classifiers against epsilon, and DP-SGD with Opacus -
settings, a time estimate, a per-epoch progress bar, and the accuracy / membership-advantage
charts against epsilon with the other releases as references."""

from __future__ import annotations

import math
import time
import warnings

import numpy as np
import pandas as pd
import plotly.express as px
import plotly.graph_objects as go
import streamlit as st

from anon_core.data.dataset import Role
from anon_core.errors import PrivacyWarning
from anon_core.services.dp import DP_MODELS, dp_ml_curve
from anon_core.services.tables import ColumnKind, infer_kind
from anon_core.services.timing import Estimate, fit, measure
from anon_core.services.training import (
    DEFAULT_CURVE_EPSILONS,
    INSTALL_HINT,
    MODEL_ATTACKS,
    TrainingCurve,
    advantage_bound,
    calibration_pieces,
    parse_train_section,
    synthetic_release,
    train_and_attack,
    training_available,
    training_curve,
)
from anon_core.workspace import fingerprint
from ui.long_work import (
    calibration_sizes,
    cancel_button,
    estimate_text,
    eta_progress,
    measured_estimate,
)
from ui.references import k_anonymized_table
from ui.widgets import CHART_MARGIN, current_result, explain, friendly_errors, keep, kept

CURVE_KEY = "dpsgd_curve"
RMIA_KEY = "dpsgd_rmia"
MODEL_LABELS = {
    "logistic_regression": "Logistic regression",
    "gaussian_nb": "Gaussian naive Bayes",
    "random_forest": "Random forest",
}
EPSILON_DELTA = (
    "ε bounds how much one person's record can change what the model learns (smaller = more "
    "private: the chance of any outcome changes by at most a factor e^ε); δ is the small chance, "
    "here 1/(10 n), that this bound fails."
)
REFERENCE_STYLES = {"non_private": ("grey", "dash"), "k-anonymized": ("#2ca02c", "dot")}


def _epsilon_label(e: float) -> str:
    return "∞ (no DP)" if math.isinf(e) else f"{e:g}"


def _reference_lines(fig: go.Figure, summary: pd.DataFrame, column: str, x_range) -> None:
    """Horizontal lines for the non-private model and the reference releases."""
    for _, row in summary[summary["setting"] != "dp"].iterrows():
        name = row["setting"]
        color, dash = REFERENCE_STYLES.get(name, ("#9467bd", "dashdot"))
        label = "no DP (ε = ∞)" if name == "non_private" else f"trained on the {name} release"
        fig.add_trace(
            go.Scatter(
                x=list(x_range),
                y=[row[column]] * 2,
                mode="lines",
                line=dict(color=color, dash=dash),
                name=label,
            )
        )


def accuracy_chart(curve: TrainingCurve) -> go.Figure:
    """Test accuracy against ε (mean ± std over seeds), with the references as horizontal lines."""
    summary = curve.summary("loss")
    dp = summary[summary["setting"] == "dp"].sort_values("epsilon")
    fig = go.Figure()
    x_range = (dp["epsilon"].min(), dp["epsilon"].max()) if len(dp) else (0.5, 8)
    fig.add_trace(
        go.Scatter(
            x=dp["epsilon"],
            y=dp["accuracy"],
            error_y=dict(type="data", array=dp["accuracy_std"], visible=True),
            mode="lines+markers",
            name=f"DP-SGD ({curve.model})",
        )
    )
    _reference_lines(fig, summary, "accuracy", x_range)
    fig.add_hline(
        y=curve.majority_rate,
        line=dict(color="lightgrey", width=1),
        annotation_text="majority class",
        annotation_position="bottom right",
    )
    fig.update_layout(
        height=360,
        xaxis_type="log",
        xaxis_title="ε (privacy budget, log scale; smaller = more private)",
        yaxis_title="test accuracy (share of held-out records)",
        margin=CHART_MARGIN,
    )
    return fig


def advantage_chart(curve: TrainingCurve, attack: str = "loss") -> go.Figure:
    """Membership advantage (TPR − FPR) against ε, the references, and the bound DP guarantees."""
    summary = curve.summary(attack)
    dp = summary[summary["setting"] == "dp"].sort_values("epsilon")
    fig = go.Figure()
    x_range = (dp["epsilon"].min(), dp["epsilon"].max()) if len(dp) else (0.5, 8)
    fig.add_trace(
        go.Scatter(
            x=dp["epsilon"],
            y=dp["advantage"],
            error_y=dict(type="data", array=dp["advantage_std"], visible=True),
            mode="lines+markers",
            name="measured advantage (DP-SGD)",
        )
    )
    if len(dp):
        bound = [advantage_bound(e, 1e-5) for e in dp["epsilon"]]
        fig.add_trace(
            go.Scatter(
                x=dp["epsilon"],
                y=bound,
                mode="lines",
                line=dict(color="firebrick", width=1, dash="dot"),
                name="most any attack can reach at this ε",
            )
        )
    _reference_lines(fig, summary, "advantage", x_range)
    fig.add_hline(y=0, line=dict(color="lightgrey", width=1))
    fig.update_layout(
        height=360,
        xaxis_type="log",
        xaxis_title="ε (privacy budget, log scale; smaller = more private)",
        yaxis_title="membership advantage (TPR − FPR)",
        yaxis_range=[-0.1, 1.0],
        margin=CHART_MARGIN,
    )
    return fig


#: Plain (non-private) training steps cost about this share of DP-SGD steps (per-example
#: gradients, clipping and noise are the difference; benchmarks/bench_dp_training.py).
PLAIN_STEP_SHARE = 0.12
SPREAD = 1.5


def calibrate_dpsgd(
    frame: pd.DataFrame,
    raw: dict,
    epsilons: list[float],
    seeds: int,
    references: int,
) -> Estimate:
    """Measure what a DP-SGD run will take, in two parts.

    * The accountant's noise calibration at the run's own settings (sample rate, epochs, each
      finite epsilon): timed as is, and cached, so the run itself reuses it.
    * Training and attacks: one epoch on two small samples of the rows (2 % and 4 %, at least two
      batches; each sample run once untimed first, for imports and its own noise calibration),
      fitted as ``fixed + per_row * rows`` and extrapolated to ``rows * epochs`` per model; plain
      models and references at :data:`PLAIN_STEP_SHARE` of that, times the seeds.
    """
    training_rows, default_delta, noise_multiplier_for = calibration_pieces()

    n = len(frame)
    config = parse_train_section(raw)
    finite = [float(e) for e in epsilons if math.isfinite(float(e))]
    one_epoch = parse_train_section({**raw, "epochs": 1, "seeds": 1})
    least = math.ceil(2 * int(raw["batch_size"]) / (1 - one_epoch.test_size))
    sizes = calibration_sizes(n, minimum=least)

    def run(m: int) -> None:
        training_curve(
            frame.sample(m, random_state=0), one_epoch, epsilons=[(finite or [1.0])[0]], seeds=1
        )

    for m in sizes:  # warm-up, not timed
        run(m)
    fixed, per_row = fit(measure(run, sizes))
    epochs = config.settings.epochs
    n_train = len(training_rows(frame, config))
    sample_rate = 1.0 / math.ceil(n_train / config.settings.batch_size)
    start = time.perf_counter()
    for e in finite:
        noise_multiplier_for(
            e, default_delta(n_train), sample_rate, epochs, config.settings.accountant
        )
    accountant = time.perf_counter() - start
    per_model = fixed + per_row * n * epochs
    private = len(finite)
    plain = len(epsilons) - private + references
    central = seeds * (private + plain * PLAIN_STEP_SHARE) * per_model + accountant
    return Estimate(
        central,
        central / SPREAD,
        central * SPREAD,
        f"one epoch timed on {sizes[-1] / n:.0%} of the rows",
    )


def dpsgd_section(ws) -> None:
    """The DP-SGD part of the page (draws its own header)."""
    st.subheader("🧠 Train a neural network with DP-SGD (Opacus)")
    if not training_available():
        st.info(f"📦 {INSTALL_HINT}", icon="ℹ️")
        return
    columns = [str(c) for c in ws.frame.columns if ws.roles.get(c) != Role.IDENTIFIER.value]
    targets = [c for c in columns if 2 <= ws.frame[c].nunique() <= 20]
    if not targets:
        st.info("No column with 2 to 20 classes to predict.", icon="ℹ️")
        return
    default = "income" if "income" in targets else targets[-1]
    target = st.selectbox("Target", targets, index=targets.index(default), key="dpsgd_target")
    candidates = [c for c in columns if c != target and infer_kind(ws.frame[c]) != ColumnKind.TEXT]
    defaults = [
        c for c in candidates if ws.frame[c].nunique() <= 100 or ws.frame[c].dtype.kind in "if"
    ]
    features = st.multiselect(
        "Features", candidates, default=defaults, key=f"dpsgd_features_{target}"
    )
    c = st.columns(4)
    model = c[0].radio(
        "Model",
        ["mlp", "logistic_regression"],
        format_func={"mlp": "MLP (64-32)", "logistic_regression": "Logistic regression"}.get,
        key="dpsgd_model",
    )
    epochs = c[1].slider("Epochs", 1, 20, 3, key="dpsgd_epochs")
    batch = c[2].select_slider("Batch size", [64, 128, 256, 512], 256, key="dpsgd_batch")
    seeds = c[3].slider("Seeds", 1, 5, 1, key="dpsgd_seeds")
    grid = st.multiselect(
        "ε values (∞ = the same model without DP)",
        list(DEFAULT_CURVE_EPSILONS),
        default=list(DEFAULT_CURVE_EPSILONS),
        format_func=_epsilon_label,
        key="dpsgd_epsilons",
    )
    c = st.columns(3)
    accountant = c[0].radio(
        "Accountant",
        ["prv", "rdp"],
        horizontal=True,
        key="dpsgd_accountant",
        help="PRV (default) accounts numerically and needs less noise for the same ε; RDP is the "
        "classic upper bound.",
    )
    current = current_result(ws) if ws.qis else None
    use_k = c[1].checkbox(
        "k-anonymized release as a reference",
        value=current is not None and current.satisfied,
        disabled=current is None or not current.satisfied,
        key="dpsgd_use_k",
    )
    use_synth = c[2].checkbox(
        "Synthetic release (SDV) as a reference",
        value=False,
        key="dpsgd_use_synth",
        help="Fits a Gaussian copula on each seed's training records (needs the synthetic extra).",
    )
    if not features or not grid:
        st.caption("Choose at least one feature and one ε.")
        return
    raw = {
        "target": target,
        "epsilon": 1.0,
        "features": features,
        "model": model,
        "epochs": epochs,
        "batch_size": batch,
        "accountant": accountant,
        "seeds": seeds,
    }
    config = parse_train_section(raw)
    refs = int(use_k) + int(use_synth)
    # The estimate is measured on request (never on a visit): one epoch on a small sample.
    # The number of records stays private: the caption gives only the share used for training.
    settings = repr((ws.frame_hash, sorted(raw.items(), key=str), sorted(map(float, grid)), refs))
    curve_key = fingerprint(ws.config_key(), settings, use_k, use_synth)
    estimate = measured_estimate(
        "dpsgd",
        settings,
        lambda: calibrate_dpsgd(ws.frame[columns], raw, grid, seeds, refs),
    )
    work = (
        f"{len(grid) * seeds + refs * seeds} models, {epochs} epoch(s) each, trained on "
        f"{1 - config.test_size:.0%} of the rows"
    )
    st.caption(f"⏱️ {work}. {estimate_text(estimate)}")
    run_col, cancel_col = st.columns([3, 1])
    start = run_col.button("▶️ Train and attack", type="primary", key="dpsgd_run")
    with cancel_col:
        stopped = cancel_button("dpsgd_cancel")
    if stopped and not start:
        st.info("Training cancelled.", icon="⏹️")
    if start:
        with friendly_errors():
            original = ws.frame[columns]
            references: dict = {}
            if use_k and current is not None and current.satisfied:
                # aligned with the input: suppressed rows as '*'
                released = k_anonymized_table(ws, current, "mask")
                references["k-anonymized"] = released[[c for c in columns if c in released]]
            if use_synth:
                roles = {c: ws.roles.get(c, "insensitive") for c in columns}
                references["synthetic"] = lambda rows, seed: synthetic_release(rows, seed, roles)
            bar = st.progress(0.0, text="Training…")
            keep(
                CURVE_KEY,
                curve_key,
                training_curve(
                    original,
                    config,
                    epsilons=grid,
                    seeds=seeds,
                    references=references,
                    progress=eta_progress(bar),
                ),
            )
            bar.empty()
    curve = kept(CURVE_KEY, curve_key)  # this state's and settings' curves only (Undo hides them)
    if curve is None:
        rmia_panel(ws.frame[columns], config, grid, curve_key)
        return
    st.caption(f"ℹ️ {EPSILON_DELTA}")
    left, right = st.columns(2)
    with left:
        st.plotly_chart(accuracy_chart(curve), key="dpsgd_accuracy_chart")
        explain(
            f"Accuracy predicting {curve.target} on held-out records against ε; lines: the same "
            "model without DP and trained on the other releases.",
            "DP-SGD (Abadi et al., CCS 2016) with Opacus: per-example gradients clipped to norm C, "
            "Gaussian noise of σ·C per batch, Poisson-sampled batches; σ from the accountant so "
            "that the ε spent after all epochs is at most the target.",
        )
    with right:
        attack = st.radio(
            "Attack",
            ["loss", "lr"],
            format_func=lambda a: MODEL_ATTACKS[a].label,
            horizontal=True,
            key="dpsgd_attack",
        )
        st.plotly_chart(advantage_chart(curve, attack), key="dpsgd_advantage_chart")
        explain(
            "How much better than a coin flip an attacker tells training records from others "
            "(0 = no leak); dotted red: the most DP allows at each ε.",
            "Advantage = TPR − FPR of the attack's guess 'member' (Yeom et al., CSF 2018: loss "
            "below the mean training loss; likelihood ratio: per-class calibrated confidence, "
            "threshold at 10 % false positives). An (ε, δ)-DP model bounds it by "
            "(e^ε − 1 + 2δ)/(e^ε + 1).",
        )
    table = curve.summary(attack)
    table["epsilon"] = table["epsilon"].map(
        lambda e: "" if pd.isna(e) else _epsilon_label(float(e))
    )
    st.dataframe(table, hide_index=True)
    if curve.from_data:
        st.caption(
            "Feature scaling and categories were taken from the training records and are not "
            f"covered by DP: {', '.join(curve.from_data)}."
        )
    rmia_panel(ws.frame[columns], config, grid, curve_key)


def rmia_panel(original: pd.DataFrame, config, grid: list[float], state: str = "") -> None:
    """RMIA beside the loss attack at one ε (reference models: on request), kept under ``state``."""
    finite = sorted(float(e) for e in grid if math.isfinite(float(e)))
    if not finite:
        return
    st.markdown("**Stronger attack: RMIA**")
    st.caption(
        "RMIA (Zarifzadeh, Liu and Shokri, ICML 2024) compares each record's likelihood under "
        "the model with reference models trained on held-out records and with other population "
        "records: a stronger membership test than the loss threshold."
    )
    c = st.columns([2, 1])
    eps = c[0].select_slider(
        "ε of the RMIA run", finite, value=finite[len(finite) // 2], key="dpsgd_rmia_eps"
    )
    if c[1].button("▶️ Run RMIA", key="dpsgd_rmia_run"):
        with friendly_errors(), st.spinner("Training the model and 2 reference models…"):
            result = train_and_attack(original, config.with_overrides(epsilon=eps))
            keep(RMIA_KEY, state, (eps, result.to_dict()))
    stored = kept(RMIA_KEY, state)
    if stored is None:
        return
    eps, out = stored
    bound = advantage_bound(eps, out["delta"])
    rows = []
    for name, loss, rmia in (
        (f"DP-SGD, ε = {_epsilon_label(eps)}", out["membership"], out["rmia"]),
        ("without DP", out["baseline_membership"], out["baseline_rmia"]),
    ):
        rows.append(
            {
                "model": name,
                "loss attack AUC": loss["auc"],
                "loss attack advantage": loss["advantage"],
                "RMIA AUC": None if rmia is None else rmia["auc"],
                "RMIA advantage (best threshold)": None if rmia is None else rmia["advantage"],
            }
        )
    st.dataframe(pd.DataFrame(rows), hide_index=True)
    st.caption(f"The most any attack can reach at ε = {_epsilon_label(eps)}: {bound:.3f}.")
    audit, fault = out.get("dp_audit") or {}, "an implementation fault, not a risk figure"
    if audit.get("violation"):
        lo, hi = audit["advantage_ci"]
        why = f"the model does not satisfy its ε ({fault})"
        st.error(f"DP audit: {audit['attack']} advantage [{lo:.3f}, {hi:.3f}] > bound: {why}.")
    elif audit:
        st.caption(f"DP audit: no advantage interval lies above the bound (that would be {fault}).")


def diffprivlib_section(ws, columns: list[str], kinds: dict) -> None:
    """diffprivlib's classifiers against ε with non-private and k-anonymized baselines."""
    st.subheader("🤖 Machine learning with differential privacy")
    targets = [c for c in columns if 2 <= ws.frame[c].nunique() <= 20]
    if not targets:
        st.info("No column with 2 to 20 classes to predict.", icon="ℹ️")
    else:
        default_target = (
            "income"
            if "income" in targets
            else ws.sensitive[0]
            if ws.sensitive and ws.sensitive[0] in targets
            else targets[-1]
        )
        target = st.selectbox(
            "Target", targets, index=targets.index(default_target), key="dp_ml_target"
        )
        candidates = [c for c in columns if c != target and kinds[c] != ColumnKind.TEXT]
        defaults = [
            c for c in candidates if kinds[c] == ColumnKind.NUMERIC or ws.frame[c].nunique() <= 100
        ]
        features = st.multiselect(
            "Features", candidates, default=defaults, key=f"dp_ml_features_{target}"
        )
        models = st.multiselect(
            "Models",
            list(DP_MODELS),
            default=list(DP_MODELS),
            format_func=MODEL_LABELS.get,
            key="dp_ml_models",
        )
        c = st.columns(2)
        repeats_ml = c[0].slider("Repeats (seeds)", 1, 10, 3, key="dp_ml_repeats")
        points = c[1].slider("ε grid points (0.01 to 10)", 3, 13, 7, key="dp_ml_points")
        numeric_features = [f for f in features if kinds[f] == ColumnKind.NUMERIC]
        bounds: dict = {}
        if numeric_features:
            st.caption(
                "Bounds of the numeric features, from domain knowledge (values outside are clipped):"
            )
            for f in numeric_features:
                cc = st.columns(2)
                lo = cc[0].number_input(f"{f}: lower", value=None, key=f"dp_ml_lower_{f}")
                hi = cc[1].number_input(f"{f}: upper", value=None, key=f"dp_ml_upper_{f}")
                if lo is not None and hi is not None:
                    bounds[f] = [lo, hi]
        from_data = st.checkbox(
            "Take missing bounds from the data (leaks the minimum and maximum)",
            key="dp_ml_from_data",
        )
        st.caption(
            "Categories of the categorical features and the target's classes are taken from the data "
            "(a warning says so)."
        )
        ml_key = fingerprint(  # the baseline follows the transformation: the whole state counts
            ws.config_key(), target, features, models, repeats_ml, points, bounds, from_data
        )
        if st.button("▶️ Compute accuracy against ε", type="primary", key="dp_ml_run"):
            with friendly_errors():
                missing = [f for f in numeric_features if f not in bounds]
                if missing and not from_data:
                    st.error(
                        f"Enter lower and upper bounds for {missing}, or tick 'Take missing bounds from the data'.",
                        icon="🚫",
                    )
                elif not features or not models:
                    st.error("Choose at least one feature and one model.", icon="🚫")
                else:
                    released = None
                    current = current_result(ws) if ws.qis else None
                    if current is not None and current.satisfied:
                        released = k_anonymized_table(ws, current, "remove")
                    else:
                        st.info(
                            "No k-anonymized baseline: the current transformation does not satisfy the privacy "
                            "models. Choose one on the Privacy or Explore page.",
                            icon="ℹ️",
                        )
                    original = ws.frame[
                        [c for c in ws.frame.columns if ws.roles.get(c) != Role.IDENTIFIER.value]
                    ]
                    bar = st.progress(0.0, text="Training…")
                    with warnings.catch_warnings():
                        warnings.simplefilter(
                            "ignore", PrivacyWarning
                        )  # summarised below from out.from_data
                        out = dp_ml_curve(
                            original,
                            target,
                            features=features,
                            models=models,
                            epsilons=np.logspace(-2, 1, points),
                            repeats=repeats_ml,
                            bounds={f: bounds.get(f, "data") for f in numeric_features},
                            categories={f: "data" for f in features if f not in numeric_features},
                            released=released
                            if released is not None and target in released.columns
                            else None,
                            random_state=0,
                            progress=lambda f, msg: bar.progress(min(max(f, 0.0), 1.0), text=msg),
                        )
                    bar.empty()
                    keep("dp_ml_result", ml_key, out)
                    if out.from_data:
                        st.warning(
                            "Taken from the data, so not covered by differential privacy: "
                            f"{'; '.join(out.from_data)}. Enter them from domain knowledge (a codebook) before "
                            "training a model for release.",
                            icon="⚠️",
                        )
        out = kept("dp_ml_result", ml_key)
        if out is not None:
            curve = out.curve()
            base = out.baselines()
            fig = go.Figure()
            for i, (name, part) in enumerate(curve.groupby("model", sort=False)):
                color = px.colors.qualitative.Plotly[i % 10]
                fig.add_trace(
                    go.Scatter(
                        x=list(part["epsilon"]) + list(part["epsilon"])[::-1],
                        y=list(part["mean"] + part["std"]) + list(part["mean"] - part["std"])[::-1],
                        fill="toself",
                        line=dict(width=0),
                        fillcolor=color,
                        opacity=0.2,
                        showlegend=False,
                        hoverinfo="skip",
                    )
                )
                fig.add_trace(
                    go.Scatter(
                        x=part["epsilon"],
                        y=part["mean"],
                        mode="lines+markers",
                        line=dict(color=color),
                        name=f"{MODEL_LABELS[name]} (DP)",
                    )
                )
                for setting, dash in (("non_private", "dash"), ("k_anonymized", "dot")):
                    b = base[(base["model"] == name) & (base["setting"] == setting)]
                    if len(b):
                        fig.add_trace(
                            go.Scatter(
                                x=[curve["epsilon"].min(), curve["epsilon"].max()],
                                y=[b["mean"].iloc[0]] * 2,
                                mode="lines",
                                line=dict(color=color, dash=dash),
                                name=f"{MODEL_LABELS[name]} ({setting.replace('_', ' ')})",
                            )
                        )
            fig.add_hline(
                y=out.majority_rate,
                line=dict(color="grey", width=1),
                annotation_text="majority class",
                annotation_position="bottom right",
            )
            fig.update_layout(
                height=420,
                xaxis_type="log",
                xaxis_title="ε",
                yaxis_title="test accuracy",
                margin=CHART_MARGIN,
            )
            st.plotly_chart(fig, key="dp_ml_chart")
            explain(
                f"Accuracy predicting {out.target} against ε (band: ± one standard deviation over {out.repeats} "
                "seeds); dashed: the same model without privacy; dotted: trained on the k-anonymized release.",
                "diffprivlib's LogisticRegression (Chaudhuri et al. 2011), GaussianNB (Vaidya et al. 2013) and "
                "RandomForestClassifier (Fletcher and Islam 2017) against scikit-learn's; features scaled to [0, 1] "
                "by their bounds, categories one-hot. Planning only: scored on the true test rows; spends no budget.",
            )
            st.dataframe(out.to_frame(), hide_index=True)
