"""Differential privacy: private statistics under a privacy budget, a DP release, DP models.

Every figure comes from ``anon_core.dp`` (diffprivlib underneath); this page asks and draws.
What was spent on a table is the server's :class:`~anon_core.dp.ledger.DPLedger` (per table
hash, across sessions and releases: a reload or a new release never gives budget back); the
session keeps this release's total, answers and seed.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import plotly.express as px
import plotly.graph_objects as go
import streamlit as st

from anon_core.data.dataset import Role
from anon_core.errors import AnonError, PrivacyWarning
from anon_core.services.dp import (
    PrivacyBudget,
    dp_query,
    dp_section,
    error_curve,
    parse_query,
    query_seed,
)
from anon_core.services.tables import ColumnKind, infer_kind
from anon_core.workspace import fingerprint
from ui.dp_audit import audit_section
from ui.session_store import dp_ledger
from ui.training import diffprivlib_section, dpsgd_section
from ui.widgets import (
    CHART_MARGIN,
    download_name,
    explain,
    friendly_errors,
    keep,
    kept,
    require_workspace,
    sidebar,
)

TOTAL, RESULTS, HASH, SEED = "dp_total", "dp_results", "dp_frame_hash", "dp_seed"
QUERY_LABELS = {
    "count": "🔢 Count",
    "histogram": "📊 Histogram",
    "histogram2d": "🧮 Contingency table (2-D histogram)",
    "sum": "➕ Sum",
    "mean": "⚖️ Mean",
    "var": "〰️ Variance",
    "quantile": "📐 Quantile",
    "median": "🎯 Median",
}

sidebar("Differential privacy")
ws = require_workspace()
st.title("🎲 Differential privacy")
st.caption(
    "Answer questions about the original table with calibrated noise instead of releasing rows. Each answer "
    "spends part of a privacy budget ε; smaller ε means more noise and stronger privacy."
)

# ------------------------------------------------------------------ the ledger and this release
# The table's spends come from the server's ledger (all sessions); the session keeps this
# release's total (epsilon, delta), its answers and its seed.
try:
    ledger = dp_ledger()
except AnonError as exc:  # an unreadable ledger file: the budget is unknown, so nothing runs
    st.error(str(exc), icon="🚫")
    st.stop()
table_hash = ws.frame_hash


def ledger_budget() -> PrivacyBudget:
    """This release's total minus everything spent on the table so far (the ledger)."""
    eps_total, delta_total = st.session_state[TOTAL]
    earlier = [(s.epsilon, s.delta, s.what) for s in ledger.spends(table_hash)]
    return PrivacyBudget.after(eps_total, delta_total, earlier)


if st.session_state.get(HASH) != ws.frame_hash or TOTAL not in st.session_state:
    st.session_state[HASH] = ws.frame_hash
    st.session_state[TOTAL] = (1.0, 0.0)
    st.session_state[RESULTS] = []
    st.session_state[SEED] = None
budget_box = st.container()  # drawn at the end, so it shows this run's spending

with st.expander("💰 Privacy budget of this table", expanded=not st.session_state[RESULTS]):
    c = st.columns(3)
    total = c[0].number_input(
        "Total ε",
        min_value=0.001,
        max_value=100.0,
        value=float(st.session_state[TOTAL][0]),  # the current release's (also after a reload)
        step=0.1,
        format="%.3f",
        key="dp_total_epsilon",
        help="The most that may be spent on this table, counting every query in every session "
        "and release on this server.",
    )
    delta = c[1].number_input(
        "Total δ",
        min_value=0.0,
        max_value=0.5,
        value=float(st.session_state[TOTAL][1]),
        step=1e-6,
        format="%g",
        key="dp_delta",
        help="Laplace and geometric queries spend δ = 0; with δ > 0 the Gaussian mechanism is "
        "offered and each Gaussian query spends part of it.",
    )
    seed = c[2].number_input(
        "Random seed (optional)",
        min_value=0,
        value=None,
        step=1,
        key="dp_seed_input",
        help="Makes the noise reproducible (the dp section records it). Anyone who knows the "
        "seed can recompute the noise: leave it empty for a real release.",
    )
    budget = ledger_budget()
    if st.button("🔄 Start a new release with this budget", key="dp_new_budget"):
        with friendly_errors():
            PrivacyBudget(float(total), float(delta))  # checks the values
            st.session_state[TOTAL] = (float(total), float(delta))
            st.session_state[RESULTS] = []
            st.session_state[SEED] = None if seed is None else int(seed)
            for key in ("dp_error_curve",):
                st.session_state.pop(key, None)
            st.rerun()
    if (float(total), float(delta)) != (budget.epsilon, budget.delta) or st.session_state[
        SEED
    ] != seed:
        st.caption(
            "ℹ️ Press **Start a new release** to use these settings; the current release keeps "
            f"ε = {budget.epsilon:g}, δ = {budget.delta:g}."
        )
    st.caption(
        "Everything spent on this table counts, in every session and release (sequential "
        "composition: the ε add up). A new release starts a new list of answers; it gives no "
        "budget back."
    )

budget = ledger_budget()
results: list = st.session_state[RESULTS]
columns = [str(c) for c in ws.frame.columns if ws.roles.get(c) != Role.IDENTIFIER.value]
kinds = {c: infer_kind(ws.frame[c]) for c in columns}
numeric_columns = [c for c in columns if kinds[c] == ColumnKind.NUMERIC]


# ------------------------------------------------------------------ query builder
def axis_inputs(prefix: str, title: str) -> dict:
    """Widgets for one histogram axis; returns its part of the query."""
    col = st.selectbox(title, columns, key=f"{prefix}_column")
    numeric = st.radio(
        "Kind",
        ["categorical", "numeric"],
        horizontal=True,
        key=f"{prefix}_kind_{col}",
        index=1 if kinds.get(col) == ColumnKind.NUMERIC else 0,
    )
    spec: dict = {"column": col}
    if numeric == "numeric":
        c = st.columns(3)
        lo = c[0].number_input("Lower bound", value=None, key=f"{prefix}_lower_{col}")
        hi = c[1].number_input("Upper bound", value=None, key=f"{prefix}_upper_{col}")
        spec["bins"] = int(
            c[2].number_input("Bins", min_value=1, max_value=200, value=10, key=f"{prefix}_bins")
        )
        from_data = st.checkbox(
            "Bounds from the data (leaks the minimum and maximum)", key=f"{prefix}_bounds_data"
        )
        spec["bounds"] = "data" if from_data else (None if lo is None or hi is None else [lo, hi])
    else:
        text = st.text_input(
            "Categories, comma-separated (from the codebook)",
            key=f"{prefix}_categories_{col}",
            placeholder="e.g. F, M",
        )
        from_data = st.checkbox(
            "Categories from the data (reveals which values occur)", key=f"{prefix}_categories_data"
        )
        cats = [t.strip() for t in text.split(",") if t.strip()]
        spec["categories"] = "data" if from_data else (cats or None)
    return spec


st.subheader("🧮 Ask a question")
qtype = st.selectbox("Query", list(QUERY_LABELS), format_func=QUERY_LABELS.get, key="dp_type")
raw: dict = {"type": qtype}
if qtype == "count":
    col = st.selectbox("Column", ["(all rows)", *columns], key="dp_count_column")
    if col != "(all rows)":
        raw["column"] = col
        value = st.text_input(
            "Count rows equal to (empty: every non-missing value)", key="dp_count_value"
        )
        if value.strip():
            raw["value"] = value.strip()
elif qtype == "histogram":
    raw.update(axis_inputs("dp_x", "Column"))
elif qtype == "histogram2d":
    c = st.columns(2)
    with c[0]:
        raw["x"] = axis_inputs("dp_x", "Rows (x)")
    with c[1]:
        raw["y"] = axis_inputs("dp_y", "Columns (y)")
else:
    if not numeric_columns:
        st.info("No numeric column: sums, means, variances and quantiles need one.", icon="ℹ️")
    col = st.selectbox("Numeric column", numeric_columns, key="dp_column")
    raw["column"] = col
    c = st.columns(2)
    lo = c[0].number_input(
        "Lower bound",
        value=None,
        key=f"dp_lower_{col}",
        help="From domain knowledge, not from the data; values below are clipped.",
    )
    hi = c[1].number_input(
        "Upper bound",
        value=None,
        key=f"dp_upper_{col}",
        help="From domain knowledge, not from the data; values above are clipped.",
    )
    if st.checkbox(
        "Take the bounds from the data (leaks the minimum and maximum)", key="dp_bounds_data"
    ):
        raw["bounds"] = "data"
    elif lo is not None and hi is not None:
        raw["bounds"] = [lo, hi]
    if qtype == "quantile":
        raw["quantile"] = st.slider("Quantile", 0.0, 1.0, 0.9, 0.01, key="dp_quantile")
    public_n = st.number_input(
        "Number of values, if it is public (empty: kept private)",
        min_value=1,
        value=None,
        step=1,
        key="dp_public_n",
        help="Only if everyone may know it (e.g. a published census total): the query then uses "
        "it instead of spending part of ε on a noisy count, and shows it. It must be exact.",
    )
    if public_n is not None:
        raw["n"] = int(public_n)
if budget.delta > 0 and qtype not in ("quantile", "median"):
    c = st.columns(2)
    if (
        c[0].radio(
            "Mechanism",
            ["laplace", "gaussian"],
            format_func={
                "laplace": "Laplace / geometric (δ = 0)",
                "gaussian": "Gaussian (ε, δ)",
            }.get,
            horizontal=True,
            key="dp_mechanism",
        )
        == "gaussian"
    ):
        raw["mechanism"] = "gaussian"
        raw["delta"] = float(
            c[1].number_input(
                "δ for this query",
                min_value=1e-12,
                max_value=float(budget.delta),
                value=float(budget.delta) / 10,
                format="%g",
                key="dp_query_delta",
            )
        )
remaining = budget.remaining
eps = st.number_input(
    "ε for this query",
    min_value=0.001,
    max_value=100.0,
    value=min(0.1, max(remaining, 0.001)),
    step=0.05,
    format="%.3f",
    key="dp_epsilon",
    help=f"Spent from the budget; {remaining:.4g} remains.",
)
raw["epsilon"] = float(eps)
if st.button("▶️ Run the query (spends ε)", type="primary", key="dp_run"):
    with friendly_errors():
        query = parse_query(raw)
        with warnings.catch_warnings(record=True) as caught, ledger.transaction():
            warnings.simplefilter("always", PrivacyWarning)
            budget = ledger_budget()  # what the ledger says now (another session may have spent)
            result = dp_query(
                ws.frame,
                query,
                budget,
                random_state=query_seed(st.session_state[SEED], len(results)),
                compare=True,
            )  # true values stay on this page; shown only with the toggle
            # recorded before the answer is shown (a ledger that cannot be written: no answer);
            # what spent it is named by query type and columns, never by a value of the data
            ledger.record(
                table_hash,
                result.epsilon,
                result.delta,
                f"{query.type}({', '.join(query.columns) or 'rows'})",
            )
        results.append(result)
        st.success(f"✅ {result.label}: ε = {result.epsilon:.4g} spent.")
        for w in caught:
            if issubclass(w.category, PrivacyWarning):
                st.warning(str(w.message), icon="⚠️")

# ------------------------------------------------------------------ results
st.subheader("📋 Results")
compare = st.toggle(
    "🔍 Compare with the true values (not private: for you, never for the release)",
    value=False,
    key="dp_compare",
)
if not results:
    st.info("No query yet: build one above and run it.", icon="ℹ️")
else:
    rows = pd.DataFrame([r.row(compare=compare) for r in results])
    st.dataframe(
        rows,
        hide_index=True,
        column_config={
            "epsilon": st.column_config.NumberColumn("ε", format="%.4g"),
            "expected_error": st.column_config.NumberColumn("expected error", format="%.4g"),
            "abs_error": st.column_config.NumberColumn("actual error", format="%.4g"),
        },
    )
    explain(
        "Each private answer with the ε it spent and its expected error (mean absolute noise).",
        "Neighbours differ by one record added or removed, so the number of records stays private "
        "and is never shown. Count and histogram bins: 1/sinh(ε) (geometric noise; Gaussian: σ·√(2/π)). "
        "Sum: max(|lower|, |upper|)/ε. Mean and variance: a quarter of ε buys a noisy count, the rest "
        "noisy sums; their error is estimated from the noisy answers. With a public n: replace-one "
        "neighbours, mean (upper − lower)/(n·ε), variance the bounded-domain Laplace scale. "
        "Quantiles: the exponential mechanism; empirical error, 50 draws with a fixed seed (uses the "
        "true data, shown only when comparing). Sources: Dwork et al., TCC 2006; diffprivlib.",
    )
    tables = [i for i, r in enumerate(results) if r.table is not None]
    if tables:
        st.markdown("**📦 DP release: a noisy table**")
        pick = st.selectbox(
            "Table",
            tables,
            format_func=lambda i: f"{i + 1}. {results[i].label}",
            index=len(tables) - 1,
            key="dp_table_pick",
        )
        chosen = results[pick]
        shown = chosen.table if compare else chosen.release_frame()
        st.dataframe(shown, hide_index=True)
        long = chosen.table
        x = chosen.query.columns[0]
        if chosen.query.type == "histogram2d":
            y = chosen.query.columns[1]
            grid = long.pivot(index=x, columns=y, values="noisy_count")
            grid = grid.loc[pd.unique(long[x]), pd.unique(long[y])]
            fig = px.imshow(
                grid.to_numpy(),
                x=[str(c) for c in grid.columns],
                y=[str(i) for i in grid.index],
                labels={"x": y, "y": x, "color": "noisy count"},
                aspect="auto",
                color_continuous_scale="Blues",
            )
            line = (
                f"Noisy counts of {chosen.label} (ε = {chosen.epsilon:.4g}), one cell per pair of values; "
                f"each is off by {chosen.expected_error:.3g} on average."
            )
        else:
            fig = px.bar(
                long,
                x=x,
                y="noisy_count",
                error_y="expected_error",
                labels={"noisy_count": "noisy count"},
            )
            if compare:
                fig.add_trace(
                    go.Scatter(
                        x=long[x],
                        y=long["true_count"],
                        mode="markers",
                        name="true count",
                        marker=dict(symbol="x", color="black"),
                    )
                )
            line = f"Noisy counts of {chosen.label} (ε = {chosen.epsilon:.4g}); the whiskers span ± the expected error."
        fig.update_xaxes(type="category")
        if chosen.query.type == "histogram2d":
            fig.update_yaxes(type="category")
        fig.update_layout(
            height=420 if chosen.query.type == "histogram2d" else 340,
            margin=CHART_MARGIN,
        )
        st.plotly_chart(fig, key="dp_hist_chart")
        explain(line)
        c = st.columns(2)
        c[0].download_button(
            "⬇️ Noisy table (CSV)",
            chosen.release_frame().to_csv(index=False, lineterminator="\n"),
            download_name(ws, f"_dp_{pick + 1}.csv"),
            "text/csv",
            key="dp_download_table",
        )
    section = dp_section(results, budget.epsilon, budget.delta, st.session_state[SEED])
    st.download_button(
        "⬇️ dp configuration section (JSON)",
        json.dumps({"dp": section}, indent=2),
        "dp_section.json",
        "application/json",
        key="dp_download_section",
        help="The queries with their ε and parameters; `anon-core dp` reruns them.",
    )

# ------------------------------------------------------------------ error against epsilon
st.subheader("📉 Error against ε")
if not results:
    st.caption("Run a query first: its error is then plotted for ε from 0.01 to 10.")
else:
    c = st.columns(3)
    repeats = c[0].slider("Draws per ε", 5, 100, 20, key="dp_err_repeats")
    scale = c[1].radio("Error", ["absolute", "relative"], horizontal=True, key="dp_err_scale")
    queries = list({r.label: r.query for r in results}.values())  # each question once
    # The curves of this table, these questions and draws (a new query or table hides old ones).
    curve_key = fingerprint(ws.frame_hash, [q.to_dict() for q in queries], repeats)
    if c[2].button("📉 Compute the error curves", key="dp_err_run"):
        with friendly_errors():
            bar = st.progress(0.0, text="Drawing…")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", PrivacyWarning)  # already shown when the query ran
                keep(
                    "dp_error_curve",
                    curve_key,
                    error_curve(
                        ws.frame,
                        queries,
                        repeats=repeats,
                        random_state=0,
                        progress=lambda f, msg: bar.progress(min(max(f, 0.0), 1.0), text=msg),
                    ),
                )
            bar.empty()
    curve = kept("dp_error_curve", curve_key)
    if curve is not None:
        y = "mae" if scale == "absolute" else "relative_error"
        fig = go.Figure()
        for i, (name, part) in enumerate(curve.groupby("query", sort=False)):
            color = px.colors.qualitative.Plotly[i % 10]
            if (
                y == "mae"
            ):  # band: 10th to 90th percentile of the draws (cut at a tenth of the mean: log axis)
                upper, lower = part["mae_p90"], np.maximum(part["mae_p10"], part["mae"] / 10)
                fig.add_trace(
                    go.Scatter(
                        x=list(part["epsilon"]) + list(part["epsilon"])[::-1],
                        y=list(upper) + list(lower)[::-1],
                        fill="toself",
                        line=dict(width=0),
                        fillcolor=color,
                        opacity=0.15,
                        showlegend=False,
                        hoverinfo="skip",
                    )
                )
                if part["expected_error"].notna().any():
                    fig.add_trace(
                        go.Scatter(
                            x=part["epsilon"],
                            y=part["expected_error"],
                            mode="lines",
                            line=dict(color=color, dash="dot"),
                            name=f"{name} (expected)",
                        )
                    )
            fig.add_trace(
                go.Scatter(
                    x=part["epsilon"],
                    y=part[y],
                    mode="lines+markers",
                    line=dict(color=color),
                    name=name,
                )
            )
        fig.update_layout(
            height=380,
            xaxis_type="log",
            yaxis_type="log",
            xaxis_title="ε",
            yaxis_title="mean absolute error"
            if y == "mae"
            else "relative error (Σ|error| / Σ|true|)",
            margin=CHART_MARGIN,
        )
        st.plotly_chart(fig, key="dp_error_chart")
        explain(
            "Error of each query against ε over repeated draws (band: 10th to 90th percentile; dotted: the "
            "formula); pick the smallest ε whose error you can accept. Planning only: uses the true data, spends "
            "no budget."
        )

# ------------------------------------------------------------------ audit (ui/dp_audit.py)
audit_section(ws, list({r.label: r.query for r in results}.values()))

# ------------------------------------------------------------------ models (ui/training.py)
diffprivlib_section(ws, columns, kinds)
dpsgd_section(ws)

# ------------------------------------------------------------------ budget (top of the page and sidebar)
budget = ledger_budget()  # after this run's query
for box in (budget_box, st.sidebar):
    with box:
        spent, left = budget.spent, budget.remaining
        st.progress(
            budget.fraction_spent,
            text=f"💰 Privacy budget: ε {spent:.4g} of {budget.epsilon:g} spent",
        )
        if box is budget_box:
            c = st.columns(4)
            c[0].metric("Total ε", f"{budget.epsilon:g}")
            c[1].metric("Spent ε", f"{spent:.4g}")
            c[2].metric("Remaining ε", f"{left:.4g}")
            c[3].metric(
                "Queries",
                f"{len(budget.ledger)}",
                help="Answers given from this table, in every session and release.",
            )
        if left <= 0:
            st.error(
                "The budget of this table is spent: nothing more can be asked of it.", icon="🚫"
            )
