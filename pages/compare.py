"""Compare: release methods side by side on the same split, the same attacks and the same utility.

Nothing runs until **Compare** is pressed; each comparison is kept under a fingerprint of the data,
the configuration and the page's settings, so a revisit shows it at once and an Undo never shows
figures of another configuration.
"""

from __future__ import annotations

import streamlit as st

from ui.compare import (
    comparison_key,
    default_index,
    describe_run,
    explored_nodes,
    last_settings,
    measure_choices,
    measure_label,
    method_choice,
    method_parameters,
    protection_lines,
    recommend_section,
    result_table,
    risk_utility_chart,
    run_comparison,
    stored_comparison,
    target_choice,
    use_release_picker,
)
from ui.widgets import explain, friendly_errors, start_page

ws = start_page("Compare", "⚖️ Compare release methods")
with st.expander("🏆 Recommend a release that passes the acceptance criteria"), friendly_errors():
    recommend_section(ws)

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
        "trained on the release and tested on the held-back records; marginal and association distances. "
        "Generalization uses the workspace's configuration and its current transformation (the one the "
        "Privacy page shows), applied to the released part.",
    )
    last = last_settings(ws)
    names = method_choice(default=last.get("methods"))
    specs = method_parameters(ws, names, last.get("specs"))
    target = target_choice(ws, last.get("target"))
    left, mid, right = st.columns(3)
    baseline = left.checkbox(
        "Add the unprotected copy", value=last.get("baseline", True), key="cmp_baseline"
    )
    n_attacks = int(
        mid.number_input(
            "Guesses per attack", 20, 5000, int(last.get("n_attacks", 200)), step=20, key="cmp_n"
        )
    )
    seed = int(right.number_input("Seed", 0, 2**31 - 1, int(last.get("seed", 0)), key="cmp_seed"))
    forest = st.checkbox(
        "ML utility also with a random forest (slower)",
        value="random_forest" in last.get("ml_models", ()),
        key="cmp_forest",
    )
    ml_models = ["logistic_regression"] + (["random_forest"] if forest else [])
    shadow = st.checkbox(
        "Shadow-model membership attack on synthetic and perturbative methods (16 re-fits each)",
        value=bool(last.get("shadow", False)),
        key="cmp_shadow",
    )
    nodes = explored_nodes(ws)
    if nodes and st.checkbox(
        f"Also score {len(nodes)} explored generalization nodes (the search's frontier)",
        value=bool(last.get("nodes")),
        key="cmp_nodes",
    ):
        specs = specs + nodes
    settings = {
        "methods": names,
        "specs": specs,
        "target": target,
        "baseline": baseline,
        "n_attacks": n_attacks,
        "seed": seed,
        "ml_models": ml_models,
        "shadow": shadow,
        "nodes": len(specs) > len(names),
    }
    key = comparison_key(ws, settings)
    if st.button("⚖️ Compare", type="primary", disabled=not specs, key="cmp_run"):
        comparison = run_comparison(ws, settings, key)
    else:
        comparison = stored_comparison(key)
    if comparison is None:
        st.info(
            "The settings changed since the last comparison: press **Compare** to run them."
            if last
            else "Choose the methods and press **Compare**: nothing runs before that.",
            icon="⚖️",
        )
        st.stop()
    st.caption(describe_run(comparison, settings))
    attacks, utilities = measure_choices(comparison)
    if not attacks or not utilities:
        protection_lines(comparison)
        st.warning("No method produced figures to compare.", icon="⚠️")
        st.stop()
    pick_a, pick_u = st.columns(2)
    attack = pick_a.selectbox(
        "Risk (attack figure)",
        attacks,
        index=default_index(attacks, ("singling_out.multivariate.risk", "singling_out.risk")),
        format_func=measure_label,
        key="cmp_attack",
    )
    utility = pick_u.selectbox(
        "Utility (measure)",
        utilities,
        index=default_index(utilities, ("ml.accuracy", "marginal_distance")),
        format_func=measure_label,
        key="cmp_utility",
    )
    st.plotly_chart(risk_utility_chart(comparison, attack, utility), key="cmp_chart")
    st.dataframe(
        result_table(comparison, attack, utility).drop(columns=["method"]), hide_index=True
    )
    use_release_picker(ws, comparison)
    st.subheader("What each method protects")
    protection_lines(comparison)
