"""Compare: release methods side by side on the same split, the same attacks and the same utility."""

from __future__ import annotations

import streamlit as st

from ui.compare import (
    explored_nodes,
    measure_choices,
    method_choice,
    method_parameters,
    protection_lines,
    result_table,
    risk_utility_chart,
    run_comparison,
)
from ui.widgets import explain, friendly_errors, start_page

ws = start_page("Compare", "⚖️ Compare release methods")

with friendly_errors():
    if ws.large is not None:
        st.info(
            "Compare works on tables in memory; open a sample or upload a smaller table.", icon="ℹ️"
        )
        st.stop()
    explain(
        "Each method releases the same part of the table; the rest is kept back as never-released "
        "control records. Every release then meets the same attacks and the same utility measures.",
        "Attacks: singling out, linkability, inference, DCR membership (attack lab). Utility: a model "
        "trained on the release and tested on the held-back records; marginal and association distances.",
    )
    names = method_choice()
    specs = method_parameters(ws, names)
    left, mid, right = st.columns(3)
    baseline = left.checkbox("Add the unprotected copy", value=True, key="cmp_baseline")
    n_attacks = int(mid.number_input("Attacks per attack", 20, 5000, 200, step=20, key="cmp_n"))
    seed = int(right.number_input("Seed", 0, 2**31 - 1, 0, key="cmp_seed"))
    forest = st.checkbox(
        "ML utility also with a random forest (slower)", value=False, key="cmp_forest"
    )
    ml_models = ["logistic_regression"] + (["random_forest"] if forest else [])
    nodes = explored_nodes(ws)
    if nodes and st.checkbox(
        f"Also score {len(nodes)} explored generalization nodes (the search's frontier)",
        value=False,
        key="cmp_nodes",
    ):
        specs = specs + nodes
    if st.button("⚖️ Compare", type="primary", disabled=not specs, key="cmp_run"):
        st.session_state["cmp_ran"] = True
    if not st.session_state.get("cmp_ran"):
        st.stop()
    comparison = run_comparison(ws, specs, baseline, n_attacks, seed, ml_models)
    attacks, utilities = measure_choices(comparison)
    if not attacks or not utilities:
        protection_lines(comparison)
        st.warning("No method produced figures to compare.", icon="⚠️")
        st.stop()
    pick_a, pick_u = st.columns(2)
    default_a = next((i for i, a in enumerate(attacks) if "singling_out" in a), 0)
    attack = pick_a.selectbox("Risk (attack figure)", attacks, index=default_a, key="cmp_attack")
    utility = pick_u.selectbox("Utility (measure)", utilities, key="cmp_utility")
    chart, table = st.columns([3, 2])
    chart.plotly_chart(risk_utility_chart(comparison, attack, utility), key="cmp_chart")
    table.dataframe(result_table(comparison, attack, utility), hide_index=True)
    st.subheader("What each method protects")
    protection_lines(comparison)
