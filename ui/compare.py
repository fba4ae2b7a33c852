"""Widgets and charts of the Compare page: method choice, parameter widgets generated from the
registry's MethodParam declarations, per-method progress bars, and the risk/utility scatter.

Every figure comes from :func:`anon_core.services.compare.compare`; this module only asks and draws.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

import ui.widgets as widgets
from anon_core.config import parse_config
from anon_core.data.io import infer_kinds
from anon_core.release.methods import METHODS, method_available
from anon_core.release.methods.registry import MethodParam
from anon_core.services.compare import BASELINE, Comparison, compare
from anon_core.workspace import Workspace

#: Methods preselected on the page: quick on the sample data.
DEFAULT_METHODS = ("generalization", "pram")
#: Session-state slot of the comparisons already run (keyed by data, configuration and choices).
RESULTS_KEY = "_compare_results"
#: Leaves of the attack/utility figures that are not risk or utility measures.
COUNT_FIELDS = {"n", "error", "confidence", "random_state", "seed", "ci"}
#: Most explored generalization nodes (from the search's frontier) added to a comparison.
MAX_NODES = 4


def _label(name: str) -> str:
    cls = METHODS[name]
    ok, why = method_available(name)
    return f"{cls.label}" if ok else f"{cls.label} — {why}"


def method_choice(key: str = "cmp_methods") -> list[str]:
    """Multiselect of registered methods; unavailable ones say what to install."""
    names = list(METHODS)
    chosen = st.multiselect(
        "Release methods",
        names,
        default=[n for n in DEFAULT_METHODS if n in names],
        format_func=_label,
        key=key,
    )
    for name in chosen:
        ok, why = method_available(name)
        if not ok:
            st.info(f"{METHODS[name].label}: {why}", icon="📦")
    return [n for n in chosen if method_available(n)[0]]


def _param_widget(p: MethodParam, columns: list[str], key: str) -> Any:
    label = f"{p.name}"
    if p.kind == "int":
        return int(
            st.number_input(
                label,
                value=int(p.default if p.default is not None else (p.minimum or 2)),
                min_value=None if p.minimum is None else int(p.minimum),
                max_value=None if p.maximum is None else int(p.maximum),
                step=1,
                help=p.help,
                key=key,
            )
        )
    if p.kind == "float":
        if p.default is None:
            return None
        return st.number_input(
            label,
            value=float(p.default),
            min_value=None if p.minimum is None else float(p.minimum),
            max_value=None if p.maximum is None else float(p.maximum),
            help=p.help,
            key=key,
        )
    if p.kind == "bool":
        return st.checkbox(label, value=bool(p.default), help=p.help, key=key)
    if p.kind == "choice":
        return st.selectbox(
            label, list(p.choices), index=list(p.choices).index(p.default), help=p.help, key=key
        )
    if p.kind == "columns":
        picked = st.multiselect(
            label, columns, default=[], help=(p.help + " — empty: the default"), key=key
        )
        return picked or None
    return None  # mappings (e.g. a fixed transformation) come from the configuration


def method_parameters(ws: Workspace, names: list[str]) -> list[dict[str, Any]]:
    """One expander per method with a widget per declared parameter; returns the method specs."""
    kinds = infer_kinds(ws.frame)
    specs = []
    for name in names:
        cls = METHODS[name]
        with st.expander(f"{cls.label} — parameters", expanded=False):
            st.caption(f"Guarantee: {cls.guarantee}. {'Randomized.' if cls.randomized else ''}")
            columns = [c for c in ws.frame.columns if str(kinds[c]) in cls.accepts]
            spec: dict[str, Any] = {"name": name}
            for p in cls.params:
                if p.kind == "int" and p.default is None:
                    if not st.checkbox(
                        f"set {p.name}", value=False, key=f"cmp_{name}_{p.name}_on", help=p.help
                    ):
                        continue
                    spec[p.name] = int(
                        st.number_input(
                            p.name,
                            value=int(p.minimum or 2),
                            min_value=None if p.minimum is None else int(p.minimum),
                            step=1,
                            key=f"cmp_{name}_{p.name}",
                        )
                    )
                    continue
                value = _param_widget(p, columns, f"cmp_{name}_{p.name}")
                if value is not None:
                    spec[p.name] = value
            specs.append(spec)
    return specs


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


def run_comparison(
    ws: Workspace,
    specs: list[dict[str, Any]],
    baseline: bool,
    n_attacks: int,
    seed: int,
    ml_models: list[str] | None = None,
) -> Comparison:
    """Run (or reuse) the comparison, with one progress bar per method."""
    state = [ws.data_key(), ws.to_config(), specs, baseline, n_attacks, seed, ml_models]
    key = hashlib.sha256(json.dumps(state, sort_keys=True, default=str).encode()).hexdigest()
    store: dict[str, Comparison] = st.session_state.setdefault(RESULTS_KEY, {})
    if key in store:
        return store[key]
    names = ([BASELINE] if baseline else []) + [s.get("label", s["name"]) for s in specs]
    bars = {n: st.progress(0.0, text=f"{n}: waiting") for n in names}

    def progress(name: str, fraction: float, message: str) -> None:
        if name in bars:
            bars[name].progress(min(max(fraction, 0.0), 1.0), text=f"{name}: {message}")

    config = parse_config(ws.to_config())
    result = compare(
        config,
        ws.frame,
        specs,
        baseline=baseline,
        random_state=seed,
        n_attacks=n_attacks,
        utility_options={"models": ml_models} if ml_models else None,
        progress=progress,
    )
    for old in list(store)[: max(len(store) - 2, 0)]:
        del store[old]  # keep the last few comparisons of this session
    store[key] = result
    return result


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
    """The attack figures (risks, advantages) and the utility figures available in every row."""
    rows = [m for m in comparison.methods if m.error is None]
    if not rows:
        return [], []

    def common(part: str, keep: Callable[[str], bool]) -> list[str]:
        sets = [set(_leaves(getattr(m, part))) for m in rows]
        names = sorted(set.intersection(*sets))
        return [n for n in names if keep(n)]

    def figure(name: str) -> bool:  # not a count, a seed or an error bar
        last = name.rsplit(".", 1)[-1]
        return not (last.startswith("n_") or last in COUNT_FIELDS)

    return common("attacks", figure), common("utility", figure)


def result_table(comparison: Comparison, attack: str, utility: str) -> pd.DataFrame:
    rows = []
    for m in comparison.methods:
        a, u = _leaves(m.attacks), _leaves(m.utility)
        rows.append(
            {
                "method": m.name,
                "guarantee": m.privacy_guarantee,
                attack: a.get(attack),
                utility: u.get(utility),
                "seconds": round(m.seconds, 2),
                "error": m.error or "",
            }
        )
    return pd.DataFrame(rows)


def risk_utility_chart(comparison: Comparison, attack: str, utility: str) -> go.Figure:
    """One point per method (and explored node): attack figure against utility figure."""
    table = result_table(comparison, attack, utility).dropna(subset=[attack, utility])
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
                    x=part[utility],
                    y=part[attack],
                    mode="markers+text",
                    text=part["method"],
                    textposition="top center",
                    marker={"size": 12, "symbol": symbol},
                    name=name,
                )
            )
    fig.update_layout(
        height=420,
        xaxis_title=utility,
        yaxis_title=f"{attack} (lower is safer)",
        margin=widgets.CHART_MARGIN,
    )
    return fig


def protection_lines(comparison: Comparison) -> None:
    """One line per method: what it protects and what it does not."""
    for m in comparison.methods:
        line = f"**{m.name}** — protects: {m.protects} Does not protect: {m.does_not_protect}"
        st.markdown(line)
        if m.error:
            st.warning(f"{m.name} did not run: {m.error}", icon="⚠️")
