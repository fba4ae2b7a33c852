"""The release, its evidence and verdict in the dashboard: one Session per workspace state.

Everything derived is cached under the workspace's configuration fingerprint (``config_key``), so
Undo and other data never show old figures; the heavy part (attacks and utility) runs only when
the user asks, with a progress bar and a cancel button.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from anon_core.report.numbers import number, percent, percent_interval
from anon_core.services.catalogue import DEFAULT_METHOD, METHODS, method_available
from anon_core.services.evidence import Evidence
from anon_core.services.release import Release
from anon_core.services.session import Session
from anon_core.services.shadow_evidence import shadow_time_estimate
from anon_core.services.tables import table_bytes
from anon_core.workspace import Workspace, fingerprint
from ui.long_work import cancel_button
from ui.widgets import cached, peek

#: Guesses per attack in the dashboard's evidence (the CLI's default is 2,000).
DASHBOARD_ATTACKS = 1000


def method_name(ws: Workspace) -> str:
    """The method of the workspace's configuration (generalization without a ``method`` section)."""
    raw = ws.sections.get("method")
    if isinstance(raw, str):
        return raw
    if isinstance(raw, dict) and raw.get("name"):
        return str(raw["name"])
    return DEFAULT_METHOD


def method_label(name: str) -> str:
    cls = METHODS.get(name)
    return cls.label if cls is not None else name


def session(ws: Workspace) -> Session:
    """The workspace's session; a built-in sample is fingerprinted by its file's bytes, as
    ``verify`` reads it."""
    from ui.widgets import SAMPLE_DIR

    sample = SAMPLE_DIR / ws.source
    from_sample = (st.session_state.get("loaded_from") or ("sample",))[0] == "sample"
    data = None
    if ws.input_bytes is None and ws.large is None and from_sample and sample.is_file():
        data = sample.read_bytes()
    return Session.from_workspace(ws, input_bytes=data)


def release_key(ws: Workspace, suppressed_records: str | None = None) -> str:
    """The fingerprint of the release of the workspace's configuration, with the suppressed
    records ``remove``d or ``mask``ed when given (the configuration's ``output`` choice if None)."""
    output = ws.sections.get("output")
    configured = (
        output.get("suppressed_records", "remove") if isinstance(output, dict) else "remove"
    )
    if suppressed_records is None or suppressed_records == configured:
        return ws.config_key()
    return fingerprint(ws.config_key(), suppressed_records)


def release_value(ws: Workspace, suppressed_records: str | None = None) -> Release:
    """The one release of the workspace's configuration through its session (cached by its
    fingerprint); ``suppressed_records`` overrides the configuration's ``output`` choice."""

    def build() -> Release:
        s = session(ws)
        if suppressed_records is not None:
            s = s.with_config(suppressed_records=suppressed_records)
        return s.release()

    return cached("release-value", release_key(ws, suppressed_records), build)


def download_bytes(release: Release, fmt: str, formula_escape: bool = True) -> bytes:
    """The bytes of a download of ``release`` (a CSV's SHA-256 is what the dossier records)."""
    return table_bytes(release.table, fmt, formula_escape=formula_escape)


def evidence_key(ws: Workspace) -> str:
    """The evidence of a workspace state is kept under its configuration fingerprint."""
    return ws.config_key()


def known_evidence(ws: Workspace) -> tuple[Evidence, Any] | None:
    """The evidence and verdict already measured for this state, else None (never runs)."""
    key = evidence_key(ws)
    return peek("evidence+shadow", key) or peek("evidence", key)


def measure_evidence(
    ws: Workspace, release: Release, key: str, shadow: bool = False
) -> tuple[Evidence, Any] | None:
    """Evidence and verdict of ``release``: shown at once when known, else on the button
    (``shadow``: with the shadow-model membership attack, measured again if it lacks it)."""
    found = known_evidence(ws)
    if found is not None and (not shadow or found[0].options.get("shadow")):
        return found
    if shadow:
        estimate = shadow_time_estimate(release)
        st.caption(
            f"⏱️ Shadow attack: {estimate[1]}."
            if estimate is not None
            else "The shadow attack is defined for synthetic and perturbative releases only."
        )
    left, right = st.columns([3, 1])
    go = left.button(
        "🧪 Measure the evidence (attacks and utility)", type="primary", key=f"{key}_run"
    )
    if cancel_button(f"{key}_cancel") and not go:
        st.info("The measurement was cancelled.", icon="⏹️")
        return None
    if not go:
        right.caption("Runs the attack battery and the utility yardstick on a rehearsal.")
        return None
    bar = st.progress(0.0, text="Starting…")

    def step(fraction: float, message: str) -> None:
        bar.progress(min(max(fraction, 0.0), 1.0), text=message)

    def build():
        s = session(ws)
        evidence = s.evidence(release, n_attacks=DASHBOARD_ATTACKS, progress=step, shadow=shadow)
        return evidence, s.verdict(evidence)

    found = cached("evidence+shadow" if shadow else "evidence", evidence_key(ws), build)
    bar.empty()
    return found


def figure_text(fig: dict) -> str:
    """A figure as a page prints it: a share as a percentage with its interval."""
    v = fig.get("value")
    if v is None:
        return "n/a"
    ci = fig.get("ci")
    if ci:
        return percent_interval(v, ci[0], ci[1])
    return percent(v) if 0.0 <= v <= 1.0 else number(v)


def verdict_box(verdict: Any) -> None:
    """The verdict as the headline: one line, then the checklist."""
    (st.success if verdict.passed else st.error)(
        verdict.headline()
        + (
            " (default criteria; set your own in the configuration's 'acceptance' section)"
            if verdict.defaults
            else ""
        ),
        icon="✅" if verdict.passed else "🚫",
    )
    rows = []
    for c in verdict.criteria:
        shown = (
            "n/a"
            if c.value is None
            else figure_text({"value": c.value, "ci": None if c.ci is None else list(c.ci)})
        )
        rows.append(
            {
                "criterion": c.criterion.describe(),
                "value": shown,
                "result": "n/a" if c.passed is None else ("✅ pass" if c.passed else "❌ fail"),
                "note or source": c.note or c.criterion.source,
            }
        )
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    st.caption(
        "Each criterion is read at the end of the 95% interval it names; a default whose figure "
        "is not defined for this method does not apply."
    )


def evidence_table(evidence: Evidence) -> None:
    rows = [
        {
            "figure": name,
            "kind": fig.get("kind", ""),
            "value": figure_text(fig) if fig.get("value") is not None else f"n/a: {fig.get('why')}",
            "what it measures": fig.get("explain", ""),
        }
        for name, fig in evidence.figures.items()
    ]
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")


EXPOSURE_EXPLAINED = (
    "🎯 Most vulnerable records: the 1% of the rehearsal's records farthest from their 5th "
    "nearest neighbour (Gower distance over the quasi-identifiers), the outliers attacks reach "
    "first. Singled out: alone in the release on their quasi-identifiers; linked: the same "
    "released row is nearest by both halves of their quasi-identifiers; inferred: the battery's "
    "inference attack guesses one of their secrets right (compare with its baseline). Counts "
    "only: no record's values are shown."
)


def exposure_line(evidence: Evidence) -> None:
    """One line on what the exposure of the most vulnerable records counts (when measured)."""
    if evidence.attacks.get("vulnerable_exposure"):
        st.caption(EXPOSURE_EXPLAINED)


def headline_pair(evidence: Evidence) -> tuple[str, str]:
    """(class-based highest risk, multivariate singling out) as printed."""
    f = evidence.figures
    return (
        figure_text(f.get("highest_prosecutor_risk", {})),
        figure_text(f.get("singling_out_multivariate", {})),
    )


WHY_THEY_DIFFER = (
    "Class-based risk counts how small the released classes are; the attacks guess with every "
    "column the release shows (an attacker who knows a sensitive value or an unusual combination "
    "can single out a record that hides in a large class), so the two can differ widely."
)


def available_methods() -> list[str]:
    """Registered methods that can run here, generalization first."""
    names = [n for n in METHODS if method_available(n)[0]]
    return sorted(names, key=lambda n: (n != DEFAULT_METHOD, n))


def attack_headline(ws: Workspace) -> None:
    """Beside the class-based risk: the attacks' headline when the Evaluate page measured this
    state (never runs anything), with one line on why the two can differ."""
    found = known_evidence(ws)
    if found is None:
        st.caption("Attack-based figures of this release: measure them on the Evaluate page.")
        return
    evidence, verdict = found
    _, singling_out = headline_pair(evidence)
    membership = figure_text(evidence.figures.get("membership_advantage", {}))
    st.markdown(
        f"**Attacks on this release** (Evaluate page): singling out {singling_out}, membership "
        f"advantage {membership}; verdict: {'pass' if verdict.passed else 'FAIL'}."
    )
    st.caption(WHY_THEY_DIFFER)
