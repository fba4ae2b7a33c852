"""Reusable widget groups and charts of the dashboard (Streamlit side only).

Every figure shown is computed by ``anon_core``; this module only asks, caches
and draws. Pages import from here and stay thin.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from collections import OrderedDict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from anon_core.errors import AnonError
from anon_core.services.generalization import (
    Evaluator,
    FrequencyTable,
    Problem,
    SearchResult,
    TransformationResult,
    optimal_search,
    problem_of,
)
from anon_core.services.generalization import (
    frequency_table as build_frequency_table,
)
from anon_core.services.tables import LoadedTable, PathGuard, load_table
from anon_core.workspace import Workspace
from ui.session_store import save_session, session_token

log = logging.getLogger("workbench")
T = TypeVar("T")

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_DIR = ROOT / "sample_data"
SAMPLES = {
    "🏥 Hospital discharges (2,000 patients)": "hospital_discharge.csv",
    "📊 Census income (5,000 people)": "census_income.csv",
    "📍 Geocoded patients (2,500 homes)": "geo_patients.csv",
}
#: The guided path: Data -> Attributes -> Protect (Privacy and Explore tune generalization) ->
#: Evaluate -> Release & sign-off.
STEPS = [
    ("📂", "Data", "pages/data.py"),
    ("🏷️", "Attributes", "pages/attributes.py"),
    ("🧰", "Protect", "pages/protect.py"),
    ("🧪", "Evaluate", "pages/evaluate.py"),
    ("📦", "Release", "pages/release.py"),
]
WS_KEY = "workspace"


# --------------------------------------------------------------------------- errors
@contextlib.contextmanager
def friendly_errors() -> Iterator[None]:
    """Show problems as plain-word errors, never as a traceback."""
    try:
        yield
    except AnonError as exc:
        st.error(str(exc), icon="🚫")
    except Exception as exc:  # noqa: BLE001 - the browser must never see a traceback
        log.exception("unexpected error")
        st.error(f"Something went wrong: {exc}. Your data and settings are unchanged.", icon="🚫")


# --------------------------------------------------------------------------- data
@st.cache_data(show_spinner="Loading sample…", max_entries=4)
def load_sample(path: str) -> LoadedTable:
    return load_table(path)


PREVIOUS_KEY = "previous_workspaces"
GUARD_KEY = "path_guard"
#: Folders the dashboard may open and write files in by path (os.pathsep-separated); default:
#: the folder it was started from. Nothing outside them is read or written.
ALLOWED_FOLDERS_ENV = "ANON_ALLOWED_FOLDERS"


def path_guard() -> PathGuard:
    """The session's guard for open/write by path (allowed folders, files read so far)."""
    guard = st.session_state.get(GUARD_KEY)
    if guard is None:
        folders = [f for f in os.environ.get(ALLOWED_FOLDERS_ENV, "").split(os.pathsep) if f]
        roots = tuple(Path(f).expanduser().resolve() for f in folders) or (Path.cwd(),)
        guard = st.session_state[GUARD_KEY] = PathGuard(allowed_roots=roots)
    return guard


def _replace_workspace(ws: Workspace) -> Workspace:
    """Make ``ws`` current; the one it replaces is kept so Undo can bring it back."""
    old = st.session_state.get(WS_KEY)
    if old is not None:
        stack = st.session_state.setdefault(PREVIOUS_KEY, [])
        stack.append((old, st.session_state.get("loaded_from")))
        del stack[:-3]  # keep the last few tables, not every one ever loaded
    st.session_state[WS_KEY] = ws
    return ws


def set_workspace(
    frame: pd.DataFrame, source: str, content: bytes | None = None, at_optimum: bool = False
) -> Workspace:
    """A new table (a sample, or an upload whose bytes are hashed in memory for the report).

    ``at_optimum``: start at the optimum of the default configuration (a sample). The workspace
    is kept only once it is there, so a first run interrupted by a click (Streamlit stops the
    script) starts again instead of leaving the failing all-zero transformation."""
    ws = Workspace.from_frame(frame, source)
    ws.input_bytes = content
    if at_optimum:
        start_at_optimum(ws)
    return _replace_workspace(ws)


def set_large_workspace(large) -> Workspace:
    """A workspace over a file opened by path (see anon_core.release.engines.large)."""
    return _replace_workspace(Workspace.from_large(large))


def undo(ws: Workspace) -> None:
    """Undo the last change; with none left, go back to the table loaded before this one."""
    if ws.undo():
        return
    stack = st.session_state.get(PREVIOUS_KEY) or []
    if stack:
        previous, loaded_from = stack.pop()
        st.session_state[WS_KEY] = previous
        st.session_state["loaded_from"] = loaded_from


def workspace() -> Workspace | None:
    """The session's workspace; on first visit the hospital sample, so demos start at once."""
    session_token()  # a reload's first run gets the session's state back before anything reads it
    ws = st.session_state.get(WS_KEY)
    if ws is None:
        name = next(iter(SAMPLES.values()))
        try:
            ws = set_workspace(load_sample(str(SAMPLE_DIR / name)).frame, name, at_optimum=True)
            st.session_state["loaded_from"] = ("sample", name, name, ("detect", "detect"))
        except AnonError as exc:
            st.error(str(exc), icon="🚫")
            return None
    return ws


def start_at_optimum(ws: Workspace) -> None:
    """A sample starts at the optimum of its default configuration, not at a failing all-zero
    transformation with every record suppressed (the first screen of a workshop)."""
    if ws.qis and ws.transformation is None:
        found = run_search(ws)
        if found.optimum is not None:
            ws.start_at(found.optimum.transformation, "search")


def require_qis(ws: Workspace) -> None:
    """Stop the page with a pointer to the Attributes page when no column is a quasi-identifier."""
    if not ws.qis:
        st.warning("Mark at least one quasi-identifier on the Attributes page.", icon="⚠️")
        st.page_link("pages/attributes.py", label="Go to Attributes", icon="🏷️")
        st.stop()


def start_page(step: str, title: str, needs_qis: bool = True) -> Workspace:
    """The common top of a page: step line, sidebar, title, and the workspace (stops if unusable)."""
    sidebar(step)
    ws = require_workspace()
    st.title(title)
    if needs_qis:
        require_qis(ws)
    return ws


def require_workspace() -> Workspace:
    ws = workspace()
    if ws is None:
        st.info("Load a table on the Data page first.", icon="📂")
        st.page_link("pages/data.py", label="Go to Data", icon="📂")
        st.stop()
    return ws


# --------------------------------------------------------------------------- derived state
# Everything derived from the workspace is cached per browser session under a fingerprint of the
# data and the configuration (Workspace.data_key / search_key / config_key): a change, an Undo or a
# Redo changes the key, so nothing is ever invalidated by hand and no session sees another's tables.
DERIVED_KEY = "_derived"
MAX_DERIVED = 8


def _lru(store_key: str, limit: int, kind: str, key: str, build: Callable[[], T]) -> T:
    """The session's value of ``kind`` for ``key`` in the store ``store_key``, built once (the
    least recently used entries beyond ``limit`` are dropped)."""
    store: OrderedDict = st.session_state.setdefault(store_key, OrderedDict())
    slot = (kind, key)
    if slot in store:
        store.move_to_end(slot)
        return store[slot]
    value = build()
    store[slot] = value
    while len(store) > limit:
        store.popitem(last=False)
    return value


def cached(kind: str, key: str, build: Callable[[], T]) -> T:
    """The session's value of ``kind`` for ``key``, built once (least recently used dropped)."""
    return _lru(DERIVED_KEY, MAX_DERIVED, kind, key, build)


def peek(kind: str, key: str) -> Any:
    """The session's cached value of ``kind`` for ``key``, or None (never builds)."""
    return st.session_state.get(DERIVED_KEY, {}).get((kind, key))


def keep(kind: str, key: str, value: T) -> T:
    """Keep a result the user asked for (a curve, a model run) in the session slot ``kind``,
    with the fingerprint ``key`` of the data and settings it was computed for (one per kind)."""
    st.session_state[kind] = value
    st.session_state[f"{kind}_fingerprint"] = key
    return value


def kept(kind: str, key: str) -> Any:
    """The result in slot ``kind`` if it was computed for ``key``, else None: a result of other
    data or settings (before an Undo, say) is never shown as this state's."""
    if st.session_state.get(f"{kind}_fingerprint") != key:
        return None
    return st.session_state.get(kind)


def frequency_table(ws: Workspace) -> FrequencyTable:
    """Built once per dataset, roles and hierarchies (the only step that reads every row)."""
    if ws.large is not None and ws.qis and not ws.large.has_group(ws.encoded_columns()):
        bar = st.progress(0.0, text=f"Grouping {ws.n_rows:,} rows with {ws.large.engine.name}…")
        ws.large.group(
            ws.encoded_columns(),
            lambda f, m: bar.progress(min(max(f, 0.0), 1.0), text=f"{m}: {f:.0%}"),
        )
        bar.empty()
    return cached("frequency", ws.data_key(), lambda: build_frequency_table(ws.dataset()))


def search_result(ws: Workspace) -> SearchResult | None:
    """The optimal search of the current configuration, if it ran in this session."""
    return peek("search", ws.search_key())


def run_search(ws: Workspace, progress: Callable[[float], None] | None = None) -> SearchResult:
    """Run (or reuse) the optimal search of the current configuration, with its search options."""
    ev = evaluator(ws)
    return cached(
        "search", ws.search_key(), lambda: optimal_search(ev, ws.search_options, progress)
    )


def evaluator(ws: Workspace) -> Evaluator:
    return ws.evaluator(frequency_table(ws))


def problem(ws: Workspace) -> Problem:
    """The workspace's Problem over the cached frequency table."""
    return problem_of(evaluator(ws))


@st.cache_data(show_spinner="Scanning a sample of every column for personal data…", max_entries=8)
def _pii_scan(frame_hash: str, _frame: pd.DataFrame, sample_size: int, random_state: int):
    from anon_core.services.pii import scan_table  # Presidio loads only when a scan is asked for

    return scan_table(_frame, sample_size=sample_size, random_state=random_state)


def pii_scan(ws: Workspace, sample_size: int = 100, random_state: int = 0):
    """Presidio scan of a sample of every column (cached per table and settings)."""
    return _pii_scan(ws.frame_hash, ws.frame, sample_size, random_state)


def current_levels(ws: Workspace) -> dict[str, int]:
    levels = ws.default_transformation()
    levels.update({q: v for q, v in (ws.transformation or {}).items() if q in levels})
    return levels


def current_result(ws: Workspace) -> TransformationResult:
    return evaluator(ws).evaluate(current_levels(ws))


# --------------------------------------------------------------------------- layout
def sidebar(current: str) -> None:
    """Workshop step indicator (one line on top of the page), undo, and what is loaded."""
    session_token()
    save_session()  # as well as at the end of the run (app.py): every page draws a sidebar
    ws = st.session_state.get(WS_KEY)
    done = {
        "Data": ws is not None,
        "Attributes": ws is not None and bool(ws.qis),
        "Protect": ws is not None and (ws.transformation is not None or "method" in ws.sections),
        "Evaluate": ws is not None and peek("evidence", ws.config_key()) is not None,
        "Release": False,
    }
    names = [name for _, name, _ in STEPS]
    parts = []
    for icon, name, _ in STEPS:
        if name == current:
            parts.append(f"**{icon} {name}**")
        else:
            parts.append(f"{icon} {name}{' ✅' if done.get(name) else ''}")
    step = f"Step {names.index(current) + 1} of {len(names)} · " if current in names else ""
    st.caption(step + " → ".join(parts))
    with st.sidebar:
        if ws is not None:
            st.caption(
                f"Table: {ws.source} · {ws.n_rows:,} rows · {len(ws.qis)} quasi-identifiers"
                f"{' · by path (' + ws.large.engine.name + ')' if ws.large is not None else ''}"
            )
            left, right = st.columns(2)
            can_undo, can_redo = undo_state(ws)
            st.session_state[SIDEBAR_STATE_KEY] = (id(ws), can_undo, can_redo)
            if left.button("↩️ Undo", disabled=not can_undo, width="stretch"):
                undo(ws)
                st.rerun()
            if right.button("↪️ Redo", disabled=not can_redo, width="stretch"):
                ws.redo()
                st.rerun()


SIDEBAR_STATE_KEY = "_sidebar_state"


def undo_state(ws: Workspace) -> tuple[bool, bool]:
    """Whether Undo and Redo can do something now."""
    return bool(ws.history or st.session_state.get(PREVIOUS_KEY)), bool(ws.redo_stack)


def sidebar_outdated(ws: Workspace) -> bool:
    """True when a fragment's change made the sidebar (drawn outside the fragment) wrong: its
    Undo/Redo buttons or the table it names. The fragment then reruns the whole page once."""
    return st.session_state.get(SIDEBAR_STATE_KEY) != (id(ws), *undo_state(ws))


def explain(line: str, definition: str | None = None) -> None:
    """One line under a chart, with the formal definition in an expander."""
    st.caption(line)
    if definition:
        with st.expander("Definition"):
            st.markdown(definition)


def download_name(ws: Workspace, suffix: str) -> str:
    return f"{Path(ws.source).stem}_released{suffix}"


# --------------------------------------------------------------------------- charts
CHART_MARGIN = dict(l=10, r=10, t=30, b=10)


def class_size_chart(result: TransformationResult) -> go.Figure:
    """Records per class size (released classes only); built with graph objects, not plotly
    express, since this redraws on every move of a slider (about 5 ms instead of 60 ms)."""
    sizes = np.asarray(result.table.sizes[~result.suppressed], dtype=np.int64)
    values, counts = np.unique(sizes, return_counts=True)
    if len(values) <= 50:
        x = [f"{v:,}" for v in values]
        y = values * counts
    else:  # at most 50 bars: equal-width size ranges, weighted by records
        y, edges = np.histogram(sizes, bins=50, weights=sizes)
        lows, highs = np.ceil(edges[:-1]).astype(int), np.floor(edges[1:]).astype(int)
        keep = y > 0
        x = [f"{lo:,}–{hi:,}" for lo, hi in zip(lows[keep], highs[keep], strict=True)]
        y = y[keep]
    fig = go.Figure(
        go.Bar(x=x, y=y, hovertemplate="class size %{x}: %{y:,} records<extra></extra>")
    )
    fig.update_layout(
        xaxis_title="class size (records)",
        yaxis_title="records in classes of that size",
        xaxis_type="category",
        bargap=0.05,
        height=320,
        margin=CHART_MARGIN,
    )
    return fig


def per_attribute_chart(per_attribute: dict[str, float], metric: str) -> go.Figure:
    fig = go.Figure(
        go.Bar(
            x=list(per_attribute),
            y=list(per_attribute.values()),
            hovertemplate="%{x}: %{y:.3g}<extra></extra>",
        )
    )
    fig.update_layout(
        xaxis_title="attribute",
        yaxis_title=f"{metric} (per attribute)",
        xaxis_type="category",
        height=320,
        margin=CHART_MARGIN,
    )
    return fig


def risk_distribution_chart(distribution: list[dict]) -> go.Figure | None:
    """Share of records per prosecutor-risk interval (ARX's intervals), or None when empty."""
    if not distribution:
        return None
    x = [f"({d['low']:.3g}, {d['high']:.3g}]" for d in distribution]
    fig = go.Figure(
        go.Bar(
            x=x,
            y=[d["records"] for d in distribution],
            hovertemplate="risk %{x}: %{y:.1%} of records<extra></extra>",
        )
    )
    fig.update_layout(
        xaxis_title="prosecutor risk interval",
        yaxis_title="share of records",
        xaxis_type="category",
        height=320,
        yaxis_tickformat=".0%",
        margin=CHART_MARGIN,
    )
    return fig


FIGURES_KEY = "_figures"
MAX_FIGURES = 24


def cached_figure(kind: str, key: str, build: Callable[[], T]) -> T:
    """A chart of ``kind`` for the fingerprint ``key``, built once per session. Kept apart from
    :func:`cached` so that charts never push a frequency table or a search out of its store."""
    return _lru(FIGURES_KEY, MAX_FIGURES, kind, key, build)


def model_status_lines(result: TransformationResult, ev: Evaluator) -> None:
    """Each model's status in words."""
    for status in result.models:
        if status.violating_records == 0 and status.satisfied:
            st.markdown(f"✅ **{status.model}**: holds for every released class.")
        elif status.satisfied:
            st.markdown(
                f"✅ **{status.model}**: holds after suppressing {status.violating_records:,} records in "
                f"{status.violating_classes:,} classes (limit {ev.max_outliers:,})."
            )
        else:
            st.markdown(
                f"❌ **{status.model}**: {status.violating_records:,} records in {status.violating_classes:,} "
                f"classes violate it; the suppression limit allows {ev.max_outliers:,}."
            )


def config_json(ws: Workspace) -> str:
    return json.dumps(ws.to_config(), indent=2, ensure_ascii=False)


# --------------------------------------------------------------------------- projector-friendly tiles
def tiles(items: list[tuple[str, str, str | None]], per_row: int = 3) -> None:
    """Metric tiles (label, value, help) in rows of ``per_row``: short labels and at most three a
    row keep every label and value whole at 1024 px (a projector), the full name in the help."""
    for start in range(0, len(items), per_row):
        columns = st.columns(per_row)
        for column, (label, value, help_text) in zip(
            columns, items[start : start + per_row], strict=False
        ):
            column.metric(label, value, help=help_text)
