"""Privacy: models, suppression, quality metric, levels per QI, and the live figures."""

from __future__ import annotations

import pandas as pd
import plotly.express as px
import streamlit as st

from anon_core.analysis.risk import report_dict, risk_from_sizes
from anon_core.privacy.models import MODELS
from anon_core.quality.metrics import METRICS
from ui.widgets import (
    class_size_chart,
    current_levels,
    evaluator,
    explain,
    frequency_table,
    friendly_errors,
    model_status_lines,
    per_attribute_chart,
    risk_distribution_chart,
    run_search,
    search_result,
    start_page,
)

ws = start_page("Privacy", "🛡️ Privacy")

settings, figures = st.columns([2, 3], gap="large")
version = len(ws.history)  # widget keys change after undo so widgets show the restored state

# ----------------------------------------------------------------------------- settings
with settings:
    st.subheader("Privacy models")
    models = [dict(m) for m in ws.models]
    for i, spec in enumerate(models):
        cls = MODELS[spec["model"]]
        with st.expander(f"{cls.label}", expanded=True):
            for p in cls.params:
                key = f"m{i}_{p.name}_{version}"
                value = spec.get(p.name, p.default)
                if p.kind == "int":
                    spec[p.name] = int(
                        st.number_input(
                            p.name,
                            min_value=int(p.minimum or 1),
                            value=int(value),
                            step=1,
                            key=key,
                            help=p.help,
                        )
                    )
                elif p.kind == "float":
                    spec[p.name] = float(
                        st.number_input(
                            p.name,
                            min_value=float(p.minimum or 0.0),
                            max_value=float(p.maximum) if p.maximum else None,
                            value=float(value),
                            step=0.01 if (p.maximum or 2) <= 1 else 0.5,
                            key=key,
                            help=p.help,
                        )
                    )
                elif p.kind == "choice":
                    spec[p.name] = st.selectbox(
                        p.name, p.choices, index=p.choices.index(value), key=key, help=p.help
                    )
                else:
                    options = ws.sensitive or ["(mark a sensitive attribute)"]
                    current = value if value in options else options[0]
                    spec[p.name] = st.selectbox(
                        p.name, options, index=options.index(current), key=key, help=p.help
                    )
            if st.button("Remove", key=f"rm{i}_{version}"):
                models.pop(i)
                ws.update(f"removed {cls.label}", models=models)
                st.rerun()
    if models != ws.models:
        ws.update("model parameters", models=models)
        st.rerun()
    add_col, btn_col = st.columns([3, 1])
    to_add = add_col.selectbox(
        "Add a model", list(MODELS), format_func=lambda k: MODELS[k].label, key=f"add_{version}"
    )
    if btn_col.button("➕ Add", key=f"addbtn_{version}"):
        cls = MODELS[to_add]
        spec = {"model": to_add}
        for p in cls.params:
            spec[p.name] = (
                (ws.sensitive[0] if ws.sensitive else "") if p.kind == "attribute" else p.default
            )
        if any(p.kind == "attribute" for p in cls.params) and not ws.sensitive:
            st.error(
                "This model protects a sensitive attribute: mark one as 'sensitive' on the Attributes page.",
                icon="🚫",
            )
        else:
            ws.update(f"added {cls.label}", models=[*ws.models, spec])
            st.rerun()

    limit = st.slider(
        "Suppression limit (% of records)",
        0.0,
        20.0,
        float(ws.suppression_limit * 100),
        0.5,
        key=f"limit_{version}",
        help="Records of classes that violate a model are removed, up to this share.",
    )
    metric_key = st.selectbox(
        "Quality metric",
        list(METRICS),
        index=list(METRICS).index(ws.metric["name"]),
        format_func=lambda k: METRICS[k].label,
        key=f"metric_{version}",
    )
    metric = {"name": metric_key}
    if METRICS[metric_key].has_monotonic_variant:
        metric["monotonic"] = st.toggle(
            "Monotonic variant (ARX)",
            value=bool(ws.metric.get("monotonic", False)),
            key=f"mono_{version}",
        )
    if abs(limit / 100 - ws.suppression_limit) > 1e-12 or metric != ws.metric:
        ws.update("suppression and metric", suppression_limit=round(limit / 100, 6), metric=metric)
        st.rerun()

    st.subheader("Generalization levels")
    levels = current_levels(ws)
    with friendly_errors():
        freq = frequency_table(ws)
        heights = dict(zip(freq.qis, freq.dataset.heights, strict=True))
        new_levels = {}
        for q in ws.qis:
            enc = freq.dataset.hierarchy(q)
            example = enc.labels[levels[q]][0] if enc.cardinality(levels[q]) else ""
            new_levels[q] = st.slider(
                f"{q}  (e.g. {example})", 0, heights[q] - 1, levels[q], key=f"lv_{q}_{version}"
            )
        if new_levels != levels:
            ws.update("levels", transformation=new_levels)
            st.rerun()
        if st.button("🔎 Find the optimum", type="primary"):
            bar = st.progress(0.0, text="Searching the lattice…")
            found = run_search(
                ws,
                lambda f: bar.progress(min(max(f, 0.0), 1.0), text="Searching the lattice…"),
            )
            bar.empty()
            if found.optimum is None:
                st.error(
                    "No transformation satisfies the models within the suppression limit. Relax a model, "
                    "raise the limit or use taller hierarchies.",
                    icon="🚫",
                )
            else:
                ws.update(
                    "optimum",
                    transformation=dict(found.optimum.transformation),
                    chosen_by="search",
                )
                st.rerun()

# ----------------------------------------------------------------------------- figures
with figures, friendly_errors():
    ev = evaluator(ws)
    result = ev.evaluate(current_levels(ws))
    found = search_result(ws)
    if found is not None and found.optimum is not None:
        st.success(
            f"Optimum found: {found.nodes_checked:,} of {found.lattice_size:,} transformations checked in "
            f"{found.search_ms:,.0f} ms"
            + (f"; {len(found.ties)} tie(s)" if found.ties else "")
            + (" (heuristic)" if found.heuristic else ""),
            icon="🎯",
        )
    st.subheader("Status")
    st.markdown(
        "✅ **The transformation satisfies the configuration.**"
        if result.satisfied
        else "❌ **The transformation does not satisfy the configuration.**"
    )
    model_status_lines(result, ev)
    if not result.satisfied:
        st.warning(
            "These figures describe a transformation that fails its privacy models: they assume "
            f"{result.suppressed_records:,} records suppressed, more than the limit of "
            f"{ev.max_outliers:,}, so this transformation cannot be released. Press **Find the "
            "optimum** or raise the levels.",
            icon="⚠️",
        )
    n = ev.freq.n_records
    c = st.columns(5)
    c[0].metric(ev.metric.label, f"{result.quality.value:.4g}")
    c[1].metric(
        "Suppressed records",
        f"{result.suppressed_records:,}",
        f"{result.suppressed_records / n:.1%}",
        delta_color="off",
    )
    c[2].metric("Classes", f"{result.equivalence_classes:,}")
    c[3].metric("Smallest class", f"{result.min_class_size:,}")
    c[4].metric("Average class", f"{result.average_class_size:,.1f}")

    report = report_dict(risk_from_sizes(result.table.sizes[~result.suppressed]))
    st.subheader("Re-identification risk")
    attackers = pd.DataFrame(
        {
            "attacker model": ["prosecutor", "journalist", "marketer"],
            "highest risk": [
                report["prosecutor"]["highest_risk"],
                report["journalist"]["highest_risk"],
                None,
            ],
            "average risk": [
                report["prosecutor"]["average_risk"],
                report["journalist"]["average_risk"],
                report["marketer"]["average_risk"],
            ],
        }
    )
    fig = px.bar(
        attackers.melt(id_vars="attacker model", var_name="figure", value_name="risk").dropna(),
        x="attacker model",
        y="risk",
        color="figure",
        barmode="group",
        range_y=[0, 1],
    )
    fig.update_layout(height=300, yaxis_tickformat=".0%", margin=dict(l=10, r=10, t=30, b=10))
    st.plotly_chart(fig, key="attackers")
    explain(
        "Probability that an attacker re-identifies a record: highest over records, and on average.",
        "Prosecutor: the attacker knows the person is in the data; risk of a record = 1 / size of its class. "
        "Journalist: equals the prosecutor model when no population table is given. Marketer: expected share "
        "of records re-identified = classes / records.",
    )
    fig = risk_distribution_chart(report["distribution"])
    if fig is not None:
        st.plotly_chart(fig, key="riskdist")
        explain(
            "Share of released records by their prosecutor re-identification risk (1 / class size)."
        )

    st.subheader("Equivalence classes")
    st.plotly_chart(class_size_chart(result), key="classes")
    explain(
        "How many released records sit in classes of each size; small classes are the risky ones.",
        "An equivalence class is the set of records sharing the same generalized quasi-identifier values.",
    )
    per = result.quality.per_attribute
    if per:
        st.subheader("Information loss per attribute")
        st.plotly_chart(per_attribute_chart(per, ev.metric.label), key="loss")
        explain(
            f"{ev.metric.label} of each quasi-identifier (0 = original values).",
            ev.metric.description,
        )
