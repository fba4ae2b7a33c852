"""Privacy: models, suppression, quality metric, levels per QI, and the live figures."""

from __future__ import annotations

import streamlit as st
from streamlit.errors import StreamlitAPIException

from anon_core.analysis.risk import report_dict, risk_from_sizes
from anon_core.privacy.models import MODELS
from anon_core.quality.metrics import METRICS
from ui.widgets import (
    WS_KEY,
    attacker_chart,
    cached_figure,
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
    sidebar_outdated,
    start_page,
    tiles,
)

ws = start_page("Privacy", "🛡️ Privacy")


# Everything below is one fragment: moving a level slider, k or the suppression limit reruns
# this part only (not the sidebar and the page around it), and applies the change in the same
# run (no second rerun). Figures are cached by the configuration's fingerprint.
@st.fragment
def live() -> None:
    settings, figures = st.columns([2, 3], gap="large")
    version = len(ws.history)  # widget keys change with every change, so Undo shows its state
    with settings:
        settings_column(version)
    if sidebar_outdated(ws):  # e.g. the first change makes Undo usable: redraw the sidebar once
        st.rerun(scope="app")
    with figures, friendly_errors():
        figures_column()


def rerun_fragment() -> None:
    """Rerun the fragment only, or the page when this run is a whole-page run (Streamlit allows
    scope="fragment" during a fragment's own rerun only)."""
    try:
        st.rerun(scope="fragment")
    except StreamlitAPIException:
        st.rerun()


def set_level(q: str, key: str) -> None:
    """A level slider's callback: applied before the fragment reruns, so one run shows it and the
    slider keeps its key (and the keyboard focus)."""
    ws = st.session_state[WS_KEY]
    ws.update("levels", transformation={**current_levels(ws), q: int(st.session_state[key])})


def level_labels(freq, q: str):
    """Level -> "level: example value" (the slider shows the example of the level it is at)."""
    enc = freq.dataset.hierarchy(q)

    def label(level: int) -> str:
        example = enc.labels[level][0] if enc.cardinality(level) else ""
        return f"{level}: {example}"

    return label


def settings_column(version: int) -> None:
    """Models, suppression, metric and levels; a change is applied in this run (no rerun)."""
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
                rerun_fragment()
    if models != ws.models:
        ws.update("model parameters", models=models)
        rerun_fragment()  # the widgets' keys follow the history (Undo shows its state)
    add_col, btn_col = st.columns([3, 2], vertical_alignment="bottom")
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
            rerun_fragment()

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
        rerun_fragment()

    st.subheader("Generalization levels")
    levels = current_levels(ws)
    with friendly_errors():
        freq = frequency_table(ws)
        heights = dict(zip(freq.qis, freq.dataset.heights, strict=True))
        for q in ws.qis:
            key = f"lv_{q}"
            if st.session_state.get(key) != levels[q]:  # after Undo, Redo, a search or a load
                st.session_state[key] = levels[q]
            st.select_slider(
                q,
                options=list(range(heights[q])),
                format_func=level_labels(freq, q),
                key=key,
                on_change=set_level,
                args=(q, key),
                help="Generalization level of this quasi-identifier, with an example value.",
            )
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
                rerun_fragment()


def privacy_figures() -> dict:
    """Everything the figures column shows, computed once per configuration fingerprint."""
    ev = evaluator(ws)
    result = ev.evaluate(current_levels(ws))
    report = report_dict(risk_from_sizes(result.table.sizes[~result.suppressed]))
    per = result.quality.per_attribute
    return {
        "ev": ev,
        "result": result,
        "attackers": attacker_chart(
            {
                "prosecutor": report["prosecutor"]["highest_risk"],
                "journalist": report["journalist"]["highest_risk"],
                "marketer": None,
            },
            {
                "prosecutor": report["prosecutor"]["average_risk"],
                "journalist": report["journalist"]["average_risk"],
                "marketer": report["marketer"]["average_risk"],
            },
        ),
        "riskdist": risk_distribution_chart(report["distribution"]),
        "classes": class_size_chart(result),
        "loss": per_attribute_chart(per, ev.metric.label) if per else None,
    }


def figures_column() -> None:
    fig = cached_figure("privacy", ws.config_key(), privacy_figures)
    ev, result = fig["ev"], fig["result"]
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
    tiles(
        [
            (ev.metric.label, f"{result.quality.value:.4g}", ev.metric.description),
            (
                "Suppressed",
                f"{result.suppressed_records:,} ({result.suppressed_records / n:.1%})",
                "Records removed because their class violates a model (share of all records).",
            ),
            ("Classes", f"{result.equivalence_classes:,}", "Equivalence classes released."),
            ("Smallest class", f"{result.min_class_size:,}", "Records in the smallest class."),
            (
                "Mean class",
                f"{result.average_class_size:,.1f}",
                "Average records per class (ARX's AECS).",
            ),
        ],
        per_row=2,  # the figures column is 3/5 of the page: two tiles keep 1024 px readable
    )

    st.subheader("Re-identification risk")
    st.plotly_chart(fig["attackers"], key="attackers")
    explain(
        "Probability that an attacker re-identifies a record: highest over records, and on average.",
        "Prosecutor: the attacker knows the person is in the data; risk of a record = 1 / size of its class. "
        "Journalist: equals the prosecutor model when no population table is given. Marketer: expected share "
        "of records re-identified = classes / records.",
    )
    if fig["riskdist"] is not None:
        st.plotly_chart(fig["riskdist"], key="riskdist")
        explain(
            "Share of released records by their prosecutor re-identification risk (1 / class size)."
        )

    st.subheader("Equivalence classes")
    st.plotly_chart(fig["classes"], key="classes")
    explain(
        "How many released records sit in classes of each size; small classes are the risky ones.",
        "An equivalence class is the set of records sharing the same generalized quasi-identifier values.",
    )
    if fig["loss"] is not None:
        st.subheader("Information loss per attribute")
        st.plotly_chart(fig["loss"], key="loss")
        explain(
            f"{ev.metric.label} of each quasi-identifier (0 = original values).",
            ev.metric.description,
        )


live()
