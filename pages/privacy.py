"""Privacy: models, suppression, quality metric, levels per QI, and the live figures."""

from __future__ import annotations

import streamlit as st
from streamlit.errors import StreamlitAPIException

from anon_core.services.catalogue import METRICS, MODELS
from anon_core.services.risk import released_risk_dict
from ui.evidence import attack_headline
from ui.widgets import (
    WS_KEY,
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


def set_param(i: int, name: str, key: str, cast) -> None:
    """A model parameter's callback: applied before the fragment reruns, so a k change costs one
    run (not a run that notices the change and a second one that shows it)."""
    ws = st.session_state[WS_KEY]
    models = [dict(m) for m in ws.models]
    if i < len(models) and key in st.session_state:
        models[i][name] = cast(st.session_state[key])
        if models != ws.models:
            ws.update("model parameters", models=models)


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
                            on_change=set_param,
                            args=(i, p.name, key, int),
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
                            on_change=set_param,
                            args=(i, p.name, key, float),
                        )
                    )
                elif p.kind == "choice":
                    spec[p.name] = st.selectbox(
                        p.name,
                        p.choices,
                        index=p.choices.index(value),
                        key=key,
                        help=p.help,
                        on_change=set_param,
                        args=(i, p.name, key, str),
                    )
                else:
                    options = ws.sensitive or ["(mark a sensitive attribute)"]
                    current = value if value in options else options[0]
                    spec[p.name] = st.selectbox(
                        p.name,
                        options,
                        index=options.index(current),
                        key=key,
                        help=p.help,
                        on_change=set_param,
                        args=(i, p.name, key, str),
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


#: The detail charts of the figures column: one is drawn at a time (a move redraws one plotly
#: chart, not four: most of a move's time in the browser is drawing charts).
DETAILS = {
    "classes": "Class sizes",
    "riskdist": "Risk distribution",
    "loss": "Loss per attribute",
}


def privacy_figures() -> dict:
    """What the figures column shows, computed once per configuration fingerprint."""
    ev = evaluator(ws)
    result = ev.evaluate(current_levels(ws))
    return {
        "ev": ev,
        "result": result,
        # the Risk page's figure (classes whose QIs are all '*' left out, as ARX does); no QI analysis
        "report": released_risk_dict(result),
    }


def detail_chart(kind: str, fig: dict):
    """The plotly figure of one detail chart (None when it has nothing to show)."""
    result, ev = fig["result"], fig["ev"]
    if kind == "classes":
        return class_size_chart(result)
    if kind == "riskdist":
        return risk_distribution_chart(fig["report"]["distribution"])
    per = result.quality.per_attribute
    return per_attribute_chart(per, ev.metric.label) if per else None


def figures_column() -> None:
    key = ws.config_key()
    fig = cached_figure("privacy", key, privacy_figures)
    ev, result, report = fig["ev"], fig["result"], fig["report"]
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
            (  # the share in the label: "2,000 (100.0%)" does not fit a tile at 1024 px
                f"Suppressed ({result.suppressed_records / n:.1%})",
                f"{result.suppressed_records:,}",
                "Records removed because their class violates a model (in brackets: their share "
                "of all records).",
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
    tiles(
        [
            (
                "Highest",
                f"{report['prosecutor']['highest_risk']:.1%}",
                "Prosecutor model: the highest probability of re-identifying one released "
                "record (1 / size of its class). The journalist model gives the same figure "
                "when no population table is given.",
            ),
            (
                "Average",
                f"{report['prosecutor']['average_risk']:.1%}",
                "Prosecutor model: the probability of re-identification averaged over the "
                "released records.",
            ),
            (
                "Marketer",
                f"{report['marketer']['average_risk']:.1%}",
                "Expected share of records an attacker re-identifies by matching all of them "
                "(classes / records).",
            ),
        ],
        per_row=3,  # short labels: three fit the figures column at 1024 px
    )
    attack_headline(ws)
    explain(
        "Probability that an attacker re-identifies a record: highest over records, on average, "
        "and the share a mass matching re-identifies.",
        "Prosecutor: the attacker knows the person is in the data; risk of a record = 1 / size of its class. "
        "Journalist: equals the prosecutor model when no population table is given. Marketer: expected share "
        "of records re-identified = classes / records. The Risk page has the full analysis.",
    )

    st.subheader("Details")
    kind = st.segmented_control(
        "Chart",
        list(DETAILS),
        format_func=DETAILS.get,
        default="classes",
        key="privacy_detail",
        help="One chart at a time keeps a move of a slider quick to redraw.",
    )
    kind = kind or "classes"  # a second click on the selected option clears it
    chart = cached_figure(f"privacy-{kind}", key, lambda: detail_chart(kind, fig))
    if chart is None:
        st.info("This metric has no per-attribute figures.")
    else:
        st.plotly_chart(chart, key=kind)
    if kind == "classes":
        explain(
            "How many released records sit in classes of each size; small classes are the risky ones.",
            "An equivalence class is the set of records sharing the same generalized quasi-identifier values.",
        )
    elif kind == "riskdist":
        explain(
            "Share of released records by their prosecutor re-identification risk (1 / class size)."
        )
    else:
        explain(
            f"{ev.metric.label} of each quasi-identifier (0 = original values).",
            ev.metric.description,
        )


live()
