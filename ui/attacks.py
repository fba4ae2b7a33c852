"""Widgets and charts of the Attacks page (Streamlit side only; the attacks are anon_core's)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from anon_core.errors import AnonError
from anon_core.services.attack_lab import VulnerableProfile, vulnerable_profile
from anon_core.services.rehearsal import (
    CANDIDATE_ATTACKS,
    AttackReport,
    AttackSection,
    LinkageResult,
    attack_rehearsal,
    parse_attack_section,
)
from anon_core.services.rehearsal import (
    candidate_attack_risks as measure_candidates,
)
from anon_core.services.tables import load_table
from anon_core.workspace import Workspace
from ui.long_work import cancel_button, eta_progress

RESULTS_KEY = "attack_reports"
RATE_LINES = {
    "main attack": "share of guesses about **released** records that were right",
    "control": "the same guesses about records that were **never released**: what anyone learns from the release",
    "baseline": "random guessing: an attack no better than this learns nothing",
}


def attack_settings(ws: Workspace) -> AttackSection:
    """Control fraction, guesses per attack and seed, from the workspace's ``attack`` section."""
    current = parse_attack_section(ws.sections.get("attack"))
    c = st.columns(3)
    fraction = c[0].slider(
        "Control share",
        0.1,
        0.5,
        float(round(current.control_fraction, 2)),
        0.05,
        key="attack_fraction",
        help="Records held back as the control set: never released, so the attacks can tell what the "
        "release teaches about anyone from what it reveals about its own records.",
    )
    n_attacks = c[1].number_input(
        "Guesses per attack",
        min_value=10,
        max_value=20_000,
        value=min(current.n_attacks, 500),
        step=100,
        key="attack_n",
        help="More guesses, narrower intervals, longer runs (the CLI default is 2,000).",
    )
    seed = c[2].number_input(
        "Seed", min_value=0, value=current.random_state, step=1, key="attack_seed"
    )
    section = dict(ws.sections.get("attack") or {})
    section.update(
        control_fraction=float(fraction), n_attacks=int(n_attacks), random_state=int(seed)
    )
    for key in ("control", "released", "external", "id_column"):
        section.pop(key, None)
    return parse_attack_section(section)


def external_upload() -> tuple[pd.DataFrame | None, str]:
    """The external table for linkage (an identifier plus raw quasi-identifiers), if uploaded."""
    uploaded = st.file_uploader(
        "External table for the linkage attack (CSV, TSV, Excel, Parquet, JSON)",
        type=["csv", "tsv", "txt", "xlsx", "parquet", "json"],
        key="attack_external",
        help="What an attacker could hold: a name or other identifier plus raw values of some "
        "quasi-identifiers under the same column names.",
    )
    if uploaded is None:
        return None, ""
    raw = uploaded.getvalue()
    return load_table(raw, name=uploaded.name).frame, hashlib.sha256(raw).hexdigest()


def run_attacks(
    ws: Workspace,
    levels: dict[str, int],
    section: AttackSection,
    external: pd.DataFrame | None,
    external_key: str,
    full_table_satisfied: bool | None = None,
) -> tuple[AttackReport, VulnerableProfile | None, str | None] | None:
    """Run the battery and rank the vulnerable records on the current transformation, with a
    progress bar (time left) and a Cancel button; cached per fingerprint. Returns (report, the
    vulnerable records' profile or None, why the profile is missing) once run, else None.

    ``full_table_satisfied``: whether the transformation satisfies the models on the whole table
    (the Privacy page's status); when it does and only the released part fails, that is said as
    a rehearsal note, not as a failing transformation."""
    fingerprint = hashlib.sha256(
        json.dumps(
            [
                ws.data_key(),
                levels,
                section.to_dict(),
                external_key,
                ws.models,
                ws.suppression_limit,
                ws.metric,
            ],
            sort_keys=True,
            default=str,
        ).encode()
    ).hexdigest()
    cache: dict[str, Any] = st.session_state.setdefault(RESULTS_KEY, {})
    if fingerprint in cache:
        report, satisfied, profile, note = cache[fingerprint]
    else:
        left, right, _ = st.columns([1, 1, 3])
        go_ = left.button("Run the attacks", type="primary", key="attack_run")
        with right:
            cancelled = cancel_button("attack_cancel")
        if cancelled and not go_:
            st.info("The attacks were cancelled; nothing was kept.", icon="⏹️")
        if not go_:
            return None
        report, satisfied, profile, note = _run(ws, levels, section, external, fingerprint, cache)
    if not satisfied and full_table_satisfied:
        st.info(
            "Rehearsal note: the whole table satisfies the privacy models with this transformation "
            "(Privacy page), but the released part alone, with fewer records per class, would need "
            "more suppression than the limit allows. The rehearsal attacked the part with those "
            "classes released, so the risks shown are likely higher than the real release's.",
            icon="ℹ️",
        )
    elif not satisfied:
        st.warning(
            "The current transformation does not satisfy the privacy models within the suppression limit, "
            "so it would not be released; it was attacked with every record released (what it would leak). "
            "Pick a satisfying transformation on the Explore page.",
            icon="⚠️",
        )
    return report, profile, note


def _run(
    ws: Workspace,
    levels: dict[str, int],
    section: AttackSection,
    external: pd.DataFrame | None,
    fingerprint: str,
    cache: dict[str, Any],
) -> tuple[AttackReport, bool, VulnerableProfile | None, str | None]:
    bar = st.progress(0.0, text="Splitting and releasing…")
    update = eta_progress(bar)
    report, satisfied = attack_rehearsal(
        ws, levels, section, external, lambda f, m: update(0.95 * float(f), m)
    )
    update(0.95, "ranking the most vulnerable records")
    profile, note = None, None
    try:
        profile = vulnerable_profile(ws, levels, section)
    except AnonError as exc:
        note = f"The vulnerable records could not be ranked: {exc}"
    bar.empty()
    cache.clear()  # one report per session is enough; the next fingerprint replaces it
    cache[fingerprint] = (report, satisfied, profile, note)
    return report, satisfied, profile, note


def risk_chart(report: AttackReport) -> go.Figure:
    """Risk with its interval per attack, beside the main, control and baseline success rates."""
    rows = report.rows()
    names = [r["attack"] for r in rows]
    fig = go.Figure()
    fig.add_trace(
        go.Bar(
            name="risk",
            x=names,
            y=[r["risk"] for r in rows],
            error_y={
                "type": "data",
                "symmetric": False,
                "array": [r["ci_high"] - r["risk"] for r in rows],
                "arrayminus": [r["risk"] - r["ci_low"] for r in rows],
            },
        )
    )
    for key, label in (("attack", "main attack"), ("control", "control"), ("baseline", "baseline")):
        fig.add_trace(
            go.Scatter(
                name=label,
                x=names,
                y=[r[f"{key}_rate"] for r in rows],
                mode="markers",
                error_y={"type": "data", "array": [r[f"{key}_error"] for r in rows]},
            )
        )
    fig.update_layout(
        yaxis_title="risk (share of guesses)",
        yaxis_range=[0, 1.05],
        margin={"t": 30},
        legend={"orientation": "h"},
    )
    return fig


def singling_out_notes(report: AttackReport) -> None:
    """Per singling-out mode: predicates found of those requested, their precision, and how the
    control count was brought to the original's size (a failed fit is shown, not hidden)."""
    for mode, result in report.singling_out.items():
        d = result.detail
        found, requested = d.get("n_predicates_found"), d.get("n_requested")
        if found is None:
            continue
        precision = d.get("precision")
        search = d.get("search") or {}
        stop = (
            "all found"
            if found >= requested
            else "search saturated"
            if search.get("saturated")
            else "stopped at the try limit"
        )
        st.markdown(
            f"- **Singling out ({mode})**: {found:,} predicates found of {requested:,} requested "
            f"({stop}); precision "
            + ("n/a" if precision is None else f"**{precision:.1%}**")
            + f" beside the attack rate {result.attack_rate.value:.1%}: anonymeter's rate divides the "
            "records singled out by the requested count, precision by the found count."
        )
        correction = d.get("correction") or {}
        if correction.get("fit_ok") is False:
            st.warning(
                f"Singling out ({mode}): the control-size correction was not used: "
                f"{correction.get('note', '')}.",
                icon="⚠️",
            )
        elif correction.get("method") in ("fit", "subsample"):
            st.caption(f"Singling out ({mode}) control count: {correction.get('note', '')}.")


def linkage_chart(result: LinkageResult) -> go.Figure:
    """External records per size of their matching released group (0: no match)."""
    sizes = pd.Series(result.group_sizes, name="matching group size")
    fig = go.Figure(go.Histogram(x=sizes, nbinsx=min(50, max(5, int(sizes.nunique())))))
    fig.update_layout(
        xaxis_title="matching released group size (0: no match)",
        yaxis_title="external records",
        margin={"t": 30},
    )
    return fig


EXPLORE_KEY = "explore_attack_risks"


def add_attack_risk_trace(
    fig: go.Figure, rows: pd.DataFrame, risk_axis: str, ws: Workspace
) -> None:
    """Colour the candidates whose attack risk was measured (Explore page), by that risk."""
    stored = st.session_state.get(EXPLORE_KEY)
    if not stored or stored["key"] != ws.search_key():
        return
    measured = rows[rows["transformation"].isin(stored["risks"])]
    if measured.empty:
        return
    risks = [stored["risks"][t] for t in measured["transformation"]]
    fig.add_trace(
        go.Scatter(
            x=measured[risk_axis],
            y=measured["quality"],
            mode="markers",
            name=f"{stored['attack']} risk",
            marker=dict(
                color=[r[0] for r in risks],
                colorscale="YlOrRd",
                cmin=0.0,
                cmax=max(0.05, max(r[0] for r in risks)),
                size=14,
                symbol="diamond",
                line=dict(width=1, color="#333"),
                colorbar=dict(title="attack risk", x=1.02),
            ),
            customdata=[
                [t, lab, r[0], r[1], r[2]]
                for t, lab, r in zip(
                    measured["transformation"], measured["levels"], risks, strict=True
                )
            ],
            hovertemplate="%{customdata[1]}<br>attack risk %{customdata[2]:.1%} "
            "[%{customdata[3]:.1%}, %{customdata[4]:.1%}]<extra></extra>",
        )
    )


def candidate_attack_risks(ws: Workspace, satisfying: pd.DataFrame, qis: list[str]) -> None:
    """Pick satisfying candidates and an attack; measure it on each (same split and seed)."""
    with st.expander("🗡️ Colour candidates by an attack risk"):
        names = dict(zip(satisfying["transformation"], satisfying["levels"], strict=False))
        chosen = st.multiselect(
            "Candidates (satisfying transformations, best quality first)",
            list(names),
            default=list(names)[:3],
            format_func=lambda t: names.get(t, t),
            max_selections=12,
            key="explore_attack_candidates",
        )
        c = st.columns(3)
        attack = c[0].selectbox("Attack", list(CANDIDATE_ATTACKS), key="explore_attack")
        n_attacks = int(c[1].number_input("Guesses", 10, 5000, 300, 50, key="explore_attack_n"))
        seed = int(c[2].number_input("Seed", 0, value=0, key="explore_attack_seed"))
        if st.button("Measure", key="explore_attack_run", disabled=not chosen):
            bar = st.progress(0.0, text="Attacking the candidates…")
            checks = measure_candidates(
                ws,
                [dict(zip(qis, map(int, t.split("-")), strict=True)) for t in chosen],
                attack,
                n_attacks,
                seed,
                progress=lambda f, m: bar.progress(min(max(f, 0.0), 1.0), text=m),
            )
            st.session_state[EXPLORE_KEY] = {
                "key": ws.search_key(),
                "attack": attack,
                "risks": {
                    t: (c.risk, c.ci[0], c.ci[1]) for t, c in zip(chosen, checks, strict=True)
                },
            }
            st.rerun()
        st.caption(
            "The input is split once (a third held back as never-released control records); each "
            "candidate's release is attacked with the same seed, so the colours compare."
        )
