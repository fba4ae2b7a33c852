"""Widgets and charts of the Compare page: method choice, parameter widgets generated from the
registry's Param declarations, the ML target, per-method progress bars, and the risk/utility
scatter.

Nothing runs until the Compare button is pressed. Each comparison is kept in the session under a
fingerprint of (data and configuration, methods and their parameters, target, seed, attacks, ML
models), never under a fixed key: a revisit shows the last comparison at once (the widgets come
back with its settings), and after an Undo or with other data no earlier figure is ever shown.

Every figure comes from :func:`anon_core.services.compare.compare`; this module only asks and draws.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

import ui.widgets as widgets
from anon_core.data.dataset import Role
from anon_core.params import Param
from anon_core.services.catalogue import METHODS, method_available
from anon_core.services.compare import BASELINE, Comparison, compare
from anon_core.services.compare_figures import figure_explanation, figure_label
from anon_core.services.compare_target import default_target
from anon_core.services.session import Session
from anon_core.services.tables import infer_kinds
from anon_core.workspace import Workspace, fingerprint

#: Methods preselected on the page: quick on the sample data.
DEFAULT_METHODS = ("generalization", "pram")
#: Session-state slot of the comparisons already run, by fingerprint (least recent dropped).
RESULTS_KEY = "_compare_results"
#: Session-state slot of the settings of the last comparison per data and configuration.
LAST_KEY = "_compare_last"
MAX_RESULTS = 4
#: Leaves of the attack/utility figures that are not risk or utility measures.
COUNT_FIELDS = {"n", "error", "confidence", "random_state", "seed", "ci", "seconds"}
#: Most explored generalization nodes (from the search's frontier) added to a comparison.
MAX_NODES = 4


# ------------------------------------------------------------------ names in words
def display_name(name: str) -> str:
    """A method's short name for charts and tables ("Microaggregation", not "microaggregation")."""
    if name == BASELINE:
        return "Unprotected copy"
    cls = METHODS.get(name)
    return cls.label.split(" (")[0] if cls is not None else name


_WORDS = {
    "singling_out": "Singling out",
    "linkability": "Linkability",
    "inference": "Inference",
    "membership": "Membership inference",
    "univariate": "univariate",
    "multivariate": "multivariate",
    "ml": "ML",
    "f1_macro": "macro F1",
    "roc_auc": "ROC AUC",
    "logistic_regression": "logistic regression",
    "random_forest": "random forest",
    "marginal_per_column": "Marginal distance of",
}
_UNITS = {
    "risk": "risk (share of guesses, 0–1)",
    "attack_rate": "success on released records (share, 0–1)",
    "control_rate": "success on control records (share, 0–1)",
    "baseline_rate": "random-guess success (share, 0–1)",
    "advantage": "advantage (TPR − FPR, 0–1)",
    "accuracy": "accuracy on the original holdout (share, 0–1)",
    "baseline_accuracy": "accuracy when trained on the original (share, 0–1)",
    "accuracy_drop": "accuracy drop against the original (share)",
    "majority_rate": "majority-class accuracy (share, 0–1)",
    "roc_auc": "ROC AUC (0.5 = chance, 1 = perfect)",
    "f1_macro": "macro F1 (0–1)",
    "precision": "precision over the predicates found (share, 0–1)",
    "expected_reidentified": "expected re-identifications (records)",
    "reidentified_share": "expected re-identifications (share, 0–1)",
    "marginal_distance": "Marginal distance (total variation, 0 = same, 1 = disjoint)",
    "association_distance": "Association distance (0 = same associations)",
}


def measure_label(key: str) -> str:
    """Words and units for a figure's key: 'singling_out.multivariate.risk' ->
    'Singling out multivariate: risk (share of guesses, 0–1)'."""
    known = figure_label(key)
    if known is not None:
        return known
    parts = key.split(".")
    if len(parts) == 1:
        return _UNITS.get(key, key.replace("_", " ").capitalize())
    if parts[0] == "marginal_per_column":
        return f"Marginal distance of {'.'.join(parts[1:])} (total variation, 0–1)"
    if parts[0] == "ml" and len(parts) >= 5 and parts[1] == "models":  # ml.models.M.which.score
        which = {"release": "trained on the release", "baseline": "trained on the original"}
        head = f"ML {_WORDS.get(parts[2], parts[2])} {which.get(parts[3], parts[3])}"
        return f"{head}: {_WORDS.get(parts[4], parts[4])}"
    head = " ".join(_WORDS.get(p, p.replace("_", " ")) for p in parts[:-1])
    if parts[0] == "inference" and len(parts) == 3:
        head = f"Inference of {parts[1]}"
    return f"{head}: {_UNITS.get(parts[-1], parts[-1].replace('_', ' '))}"


# ------------------------------------------------------------------ settings
def last_settings(ws: Workspace) -> dict[str, Any]:
    """The settings of the last comparison run on this data and configuration, or {}."""
    return dict(st.session_state.get(LAST_KEY, {}).get(ws.config_key(), {}))


def _label(name: str) -> str:
    cls = METHODS[name]
    ok, why = method_available(name)
    return f"{cls.label}" if ok else f"{cls.label} — {why}"


def method_choice(key: str = "cmp_methods", default: list[str] | None = None) -> list[str]:
    """Multiselect of registered methods; unavailable ones say what to install."""
    names = list(METHODS)
    chosen = st.multiselect(
        "Release methods",
        names,
        default=[n for n in (default or DEFAULT_METHODS) if n in names],
        format_func=_label,
        key=key,
    )
    for name in chosen:
        ok, why = method_available(name)
        if not ok:
            st.info(f"{METHODS[name].label}: {why}", icon="📦")
    return [n for n in chosen if method_available(n)[0]]


def _param_widget(p: Param, columns: list[str], key: str, given: Any = None) -> Any:
    label = f"{p.name}"
    default = p.default if given is None else given
    if p.kind == "int":
        return int(
            st.number_input(
                label,
                value=int(default if default is not None else (p.minimum or 2)),
                min_value=None if p.minimum is None else int(p.minimum),
                max_value=None if p.maximum is None else int(p.maximum),
                step=1,
                help=p.help,
                key=key,
            )
        )
    if p.kind == "float":
        if default is None:
            return None
        return st.number_input(
            label,
            value=float(default),
            min_value=None if p.minimum is None else float(p.minimum),
            max_value=None if p.maximum is None else float(p.maximum),
            help=p.help,
            key=key,
        )
    if p.kind == "bool":
        return st.checkbox(label, value=bool(default), help=p.help, key=key)
    if p.kind == "choice":
        choices = list(p.choices)
        index = choices.index(default) if default in choices else choices.index(p.default)
        return st.selectbox(label, choices, index=index, help=p.help, key=key)
    if p.kind == "columns":
        picked = st.multiselect(
            label,
            columns,
            default=[c for c in (given or []) if c in columns],
            help=(p.help + " — empty: the default"),
            key=key,
        )
        return picked or None
    return None  # mappings (e.g. a fixed transformation) come from the configuration


def method_parameters(
    ws: Workspace, names: list[str], last: list[dict[str, Any]] | None = None
) -> list[dict[str, Any]]:
    """One expander per method with a widget per declared parameter; returns the method specs
    (``last``: the specs of the last comparison, whose values the widgets start from)."""
    kinds = infer_kinds(ws.frame)
    before = {s["name"]: s for s in (last or []) if "label" not in s}
    specs = []
    for name in names:
        cls = METHODS[name]
        given = before.get(name, {})
        with st.expander(f"{cls.label} — parameters", expanded=False):
            st.caption(f"Guarantee: {cls.guarantee}. {'Randomized.' if cls.randomized else ''}")
            columns = [c for c in ws.frame.columns if str(kinds[c]) in cls.accepts]
            spec: dict[str, Any] = {"name": name}
            for p in cls.params:
                if p.kind == "int" and p.default is None:
                    if not st.checkbox(
                        f"set {p.name}",
                        value=p.name in given,
                        key=f"cmp_{name}_{p.name}_on",
                        help=p.help,
                    ):
                        continue
                    spec[p.name] = int(
                        st.number_input(
                            p.name,
                            value=int(given.get(p.name, p.minimum or 2)),
                            min_value=None if p.minimum is None else int(p.minimum),
                            step=1,
                            key=f"cmp_{name}_{p.name}",
                        )
                    )
                    continue
                value = _param_widget(p, columns, f"cmp_{name}_{p.name}", given.get(p.name))
                if value is not None:
                    spec[p.name] = value
            specs.append(spec)
    return specs


def target_choice(ws: Workspace, given: str | None = None, key: str = "cmp_target") -> str | None:
    """The column the ML utility predicts: any column the release keeps; by default the last
    comparison's, else the first sensitive attribute, else the categorical column with the fewest
    classes. A numeric column with many values is predicted as its quantile class."""
    kept = [c for c in ws.frame.columns if ws.roles.get(c) != Role.IDENTIFIER.value]
    if not kept:
        return None
    default = given if given in kept else default_target(ws.roles, ws.frame)
    index = kept.index(default) if default in kept else 0
    kinds = infer_kinds(ws.frame)
    return st.selectbox(
        "ML target (the column the utility models predict)",
        kept,
        index=index,
        key=key,
        format_func=lambda c: f"{c} ({kinds[c]}, {ws.roles.get(c, 'insensitive')})",
        help="Default: the first sensitive attribute, else the categorical column with the fewest "
        "classes. A numeric column with more than 10 values is predicted as its quartile class.",
    )


def explored_nodes(ws: Workspace) -> list[dict[str, Any]]:
    """Generalization specs for the search's frontier nodes (when a search ran this session)."""
    getter = getattr(widgets, "search_result", None)  # the session's search, where kept
    found = getter(ws) if getter is not None else None
    if found is None:
        return []
    rows = found.pareto_frontier()[:MAX_NODES]
    specs = []
    for row in rows:
        levels = {q: int(row[q]) for q in found.qis}
        specs.append(
            {
                "name": "generalization",
                "transformation": levels,
                "label": "node " + "/".join(str(v) for v in levels.values()),
            }
        )
    return specs


# ------------------------------------------------------------------ running and keeping
def comparison_key(ws: Workspace, settings: Mapping[str, Any]) -> str:
    """Fingerprint of everything a comparison depends on: the data and the whole configuration
    (``Workspace.config_key``) and the page's settings (methods, parameters, target, seed...)."""
    return fingerprint(ws.config_key(), dict(settings))


def stored_comparison(key: str) -> Comparison | None:
    """The comparison already run for ``key`` in this session, or None (never runs one)."""
    store: OrderedDict = st.session_state.setdefault(RESULTS_KEY, OrderedDict())
    if key in store:
        store.move_to_end(key)
        return store[key]
    return None


def run_comparison(ws: Workspace, settings: Mapping[str, Any], key: str) -> Comparison:
    """Run the comparison of ``settings`` with one progress bar per method, and keep it."""
    specs = list(settings["specs"])
    baseline = bool(settings["baseline"])
    names = ([BASELINE] if baseline else []) + [s.get("label", s["name"]) for s in specs]
    bars = {n: st.progress(0.0, text=f"{display_name(n)}: waiting") for n in names}

    def progress(name: str, fraction: float, message: str) -> None:
        if name in bars:
            bars[name].progress(
                min(max(fraction, 0.0), 1.0), text=f"{display_name(name)}: {message}"
            )

    config = Session.from_workspace(ws).config
    models = settings.get("ml_models")
    result = compare(
        config,
        ws.frame,
        specs,
        target=settings.get("target"),
        baseline=baseline,
        random_state=int(settings["seed"]),
        n_attacks=int(settings["n_attacks"]),
        utility_options={"models": list(models)} if models else None,
        progress=progress,
        shadow=bool(settings.get("shadow", False)),
    )
    for bar in bars.values():
        bar.empty()
    store: OrderedDict = st.session_state.setdefault(RESULTS_KEY, OrderedDict())
    store[key] = result
    while len(store) > MAX_RESULTS:
        store.popitem(last=False)
    st.session_state.setdefault(LAST_KEY, {})[ws.config_key()] = dict(settings)
    return result


# ------------------------------------------------------------------ figures
def _leaves(value: Any, prefix: str = "") -> dict[str, float]:
    """Numeric leaves of a nested mapping as 'a.b.c' -> value."""
    out: dict[str, float] = {}
    if isinstance(value, Mapping):
        for k, v in value.items():
            out.update(_leaves(v, f"{prefix}.{k}" if prefix else str(k)))
    elif isinstance(value, int | float) and not isinstance(value, bool):
        out[prefix] = float(value)
    return out


def measure_choices(comparison: Comparison) -> tuple[list[str], list[str]]:
    """The attack figures (risks, advantages) and the utility figures of the methods that ran
    (a figure some row lacks, e.g. a utility that could not be measured, is left blank there)."""
    rows = [m for m in comparison.methods if m.error is None]
    if not rows:
        return [], []

    def figure(name: str) -> bool:  # not a count, a seed, a time or an error bar
        last = name.rsplit(".", 1)[-1]
        return not (last.startswith("n_") or last in COUNT_FIELDS)

    def union(part: str) -> list[str]:
        names = sorted(set().union(*(set(_leaves(getattr(m, part))) for m in rows)))
        return [n for n in names if figure(n)]

    return union("attacks"), union("utility")


def default_index(choices: list[str], wanted: tuple[str, ...]) -> int:
    for w in wanted:
        if w in choices:
            return choices.index(w)
    return 0


def result_table(comparison: Comparison, attack: str, utility: str) -> pd.DataFrame:
    rows = []
    for m in comparison.methods:
        a, u = _leaves(m.attacks), _leaves(m.utility)
        rows.append(
            {
                "method": m.name,
                "Method": display_name(m.name),
                "Guarantee": m.privacy_guarantee,
                measure_label(attack): a.get(attack),
                measure_label(utility): u.get(utility),
                "Seconds": round(m.seconds, 2),
                "Note": m.error or " ".join(m.notes),
            }
        )
    return pd.DataFrame(rows)


def risk_utility_chart(comparison: Comparison, attack: str, utility: str) -> go.Figure:
    """One point per method (and explored node): attack figure against utility figure."""
    x_title, y_title = measure_label(utility), measure_label(attack)
    table = result_table(comparison, attack, utility).dropna(subset=[x_title, y_title])
    nodes = table["method"].str.startswith("node ")
    fig = go.Figure()
    for mask, name, symbol in (
        (~nodes, "release methods", "circle"),
        (nodes, "explored nodes", "diamond"),
    ):
        part = table[mask]
        if len(part):
            fig.add_trace(
                go.Scatter(
                    x=part[x_title],
                    y=part[y_title],
                    mode="markers+text",
                    text=part["Method"],
                    customdata=part["method"],
                    textposition="top center",
                    cliponaxis=False,  # labels near an edge are drawn whole
                    marker={"size": 12, "symbol": symbol},
                    name=name,
                    hovertemplate="%{text}<br>%{x:.3g}, %{y:.3g}<extra></extra>",
                )
            )
    meaning = figure_explanation(attack)
    fig.update_layout(
        height=460,
        title={"text": meaning, "font": {"size": 12}} if meaning else None,
        xaxis={"title": {"text": x_title}, "automargin": True},
        yaxis={"title": {"text": f"{y_title} — lower is safer"}, "automargin": True},
        legend={"orientation": "h", "y": -0.25},
        margin={**widgets.CHART_MARGIN, "t": 40, "r": 40},
    )
    return fig


def protection_lines(comparison: Comparison) -> None:
    """One line per method: what it protects and what it does not, and its notes."""
    for m in comparison.methods:
        name = display_name(m.name)
        st.markdown(f"**{name}** — protects: {m.protects} Does not protect: {m.does_not_protect}")
        if m.error:
            st.warning(f"{name} did not run: {m.error}", icon="⚠️")
        for note in m.notes:
            st.info(f"{name}: {note}", icon="ℹ️")


def describe_run(comparison: Comparison, settings: Mapping[str, Any]) -> str:
    """One line: the split, the target and the seed the figures come from."""
    target = comparison.target or "(chosen by the yardstick)"
    line = (
        f"Released part {comparison.n_released_part:,} records, control {comparison.n_control:,} "
        f"(never released); ML target {target}; seed {comparison.random_state}; "
        f"{int(settings.get('n_attacks', 0)):,} guesses per attack."
    )
    if comparison.target_bins is not None:
        line += " " + comparison.target_bins.describe()
    return line


def use_release_picker(ws: Workspace, comparison: Any) -> None:
    """'Use this release': any point of the chart becomes the workspace's release (its method and
    parameters; for generalization its transformation), for Evaluate and Release & sign-off."""
    usable = [m for m in comparison.methods if m.error is None and m.name in METHODS]
    if not usable:
        return
    names = [m.name for m in usable]
    left, right = st.columns([3, 1])
    picked = left.selectbox(
        "Use this release", names, format_func=lambda n: METHODS[n].label, key="cmp_use_pick"
    )
    if right.button("✅ Use this release", key="cmp_use"):
        row = usable[names.index(picked)]
        if picked == "generalization":
            levels = dict(row.details.get("transformation") or {})
            sections = {k: v for k, v in ws.sections.items() if k != "method"}
            changes: dict[str, Any] = {"sections": sections}
            if levels:
                changes.update(transformation=levels, chosen_by="manual")
            ws.update("release from Compare: generalization", **changes)
        else:
            params = {k: v for k, v in dict(row.parameters).items() if v is not None}
            spec = {"name": picked, **params, "random_state": comparison.random_state}
            ws.update(f"release from Compare: {picked}", sections={**ws.sections, "method": spec})
        st.success(
            f"The release now uses {METHODS[picked].label}: see Evaluate and Release & sign-off.",
            icon="✅",
        )


# ------------------------------------------------------------------ the recommendation
RECOMMEND_KEY = "_recommendation"


def recommendation_chart(found: Any) -> go.Figure:
    """Every setting tried: utility against the highest attack risk, passing ones filled."""
    from anon_core.services.catalogue import METHODS as registered

    fig = go.Figure()
    for family in sorted({t.family for t in found.tried}):
        trials = [t for t in found.tried if t.family == family and t.error is None]
        if not trials:
            continue
        fig.add_trace(
            go.Scatter(
                x=[t.risk for t in trials],
                y=[t.utility for t in trials],
                mode="markers+text",
                name=registered[family].label if family in registered else family,
                text=[f"{t.parameter}={t.value}" for t in trials],
                textposition="top center",
                cliponaxis=False,
                marker={
                    "size": 11,
                    "symbol": ["circle" if t.passed else "circle-open" for t in trials],
                },
            )
        )
    fig.update_layout(
        height=420,
        margin=widgets.CHART_MARGIN,
        xaxis={"title": "highest attack risk (upper end of its 95% interval)", "tickformat": ".0%",
               "automargin": True},
        yaxis={"title": "ML accuracy on the release / on the original", "tickformat": ".0%",
               "automargin": True},
        legend={"orientation": "h", "y": -0.25},
    )  # fmt: skip
    return fig


def recommend_section(ws: Workspace) -> None:
    """A button that tries each family's main parameter against the acceptance criteria and
    shows the winner, each family's best and runner-up, and every setting on one chart."""
    from anon_core.services.recommend import FAMILIES, recommend
    from ui.evidence import session
    from ui.long_work import cancel_button

    st.subheader("🏆 Recommend a release")
    st.caption(
        "Tries each family's main parameter (k, noise, swap range, PRAM retention, ε) on the seeded "
        "rehearsal and keeps the setting with the best ML utility that passes the acceptance "
        "criteria (the configuration's, else the defaults). Takes minutes on a large table."
    )
    available = [f for f in FAMILIES if method_available(f)[0]]
    families = st.multiselect(
        "Families", available, default=available, key="rec_families",
        format_func=lambda f: METHODS[f].label,
    )  # fmt: skip
    key = fingerprint(ws.config_key(), sorted(families))
    store: dict = st.session_state.setdefault(RECOMMEND_KEY, {})
    go_ = st.button("🏆 Recommend", type="primary", disabled=not families, key="rec_run")
    if cancel_button("rec_cancel") and not go_:
        st.info("The recommendation was cancelled.", icon="⏹️")
    if go_:
        bar = st.progress(0.0, text="Starting…")
        found = recommend(
            session(ws),
            families,
            n_attacks=500,
            progress=lambda f, m: bar.progress(min(max(f, 0.0), 1.0), text=m),
        )
        bar.empty()
        store.clear()
        store[key] = found
    found = store.get(key)
    if found is None:
        return
    if found.winner is None:
        st.warning(found.notes[-1], icon="⚠️")
    else:
        w = found.winner
        st.success(
            f"Winner: {METHODS[w.family].label} with {w.parameter} = {w.value} (ML accuracy "
            f"{(w.utility or 0):.0%} of the original's; highest attack risk {(w.risk or 0):.1%}).",
            icon="🏆",
        )
        if st.button("✅ Use the winner", key="rec_use"):
            section = found.method_section()
            if section["name"] == "generalization":
                ws.update(
                    "release from the recommendation: generalization",
                    sections={k: v for k, v in ws.sections.items() if k != "method"},
                    models=[m for m in ws.models if m.get("model") != "k-anonymity"]
                    + [{"model": "k-anonymity", "k": int(w.value)}],
                    transformation=None,
                )
            else:
                ws.update(
                    f"release from the recommendation: {section['name']}",
                    sections={**ws.sections, "method": section},
                )
            st.rerun()
    rows = [
        {
            "family": METHODS[f].label,
            "best": "—" if b is None else f"{b.parameter}={b.value}",
            "runner-up": "—" if r is None else f"{r.parameter}={r.value}",
        }
        for f, (b, r) in found.per_family.items()
    ]
    st.dataframe(pd.DataFrame(rows), hide_index=True)
    st.plotly_chart(recommendation_chart(found), key="rec_chart")
    st.caption(
        "Every setting tried: filled markers pass the acceptance criteria, open ones fail; up is "
        "more utility, left is less risk."
    )
    for note in found.notes:
        st.caption(note)
