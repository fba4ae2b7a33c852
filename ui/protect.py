"""The Protect page's form: a release method's declared parameters as widgets."""

from __future__ import annotations

from typing import Any

import streamlit as st

from anon_core.services.catalogue import METHODS, parse_method_section
from anon_core.workspace import Workspace


def _released_columns(ws: Workspace) -> list[str]:
    return [c for c in ws.frame.columns if ws.roles.get(c) != "identifier"]


def method_parameters(ws: Workspace, name: str) -> dict[str, Any] | None:
    """The ``method`` section the form describes (validated), or None when it is not valid yet."""
    cls = METHODS[name]
    raw = ws.sections.get("method")
    current = raw if isinstance(raw, dict) and raw.get("name") == name else {}
    spec: dict[str, Any] = {"name": name}
    for p in cls.params:
        key = f"protect_{name}_{p.name}_{len(ws.history)}"
        value = current.get(p.name, p.default)
        label = f"{p.name}: {p.help}" if p.help else p.name
        if p.kind == "int":
            lo = None if p.minimum is None else int(p.minimum)
            hi = None if p.maximum is None else int(p.maximum)
            given = st.number_input(label, min_value=lo, max_value=hi, value=value, step=1, key=key)
            if given is not None:
                spec[p.name] = int(given)
        elif p.kind == "float":
            given = st.number_input(
                label,
                min_value=None if p.minimum is None else float(p.minimum),
                max_value=None if p.maximum is None else float(p.maximum),
                value=None if value is None else float(value),
                key=key,
            )
            if given is not None:
                spec[p.name] = float(given)
        elif p.kind == "bool":
            spec[p.name] = st.checkbox(label, value=bool(value), key=key)
        elif p.kind == "choice":
            choices = list(p.choices)
            spec[p.name] = st.selectbox(
                label, choices, index=choices.index(value) if value in choices else 0, key=key
            )
        elif p.kind == "columns":
            options = _released_columns(ws)
            picked = st.multiselect(
                label, options, default=[c for c in (value or []) if c in options], key=key
            )
            if picked:
                spec[p.name] = picked
        else:  # mappings (domains, fixed transformations) come from the configuration file
            if value is not None:
                spec[p.name] = value
    seed = st.number_input(
        "random_state (seed of a randomized method)",
        min_value=0,
        value=int(current.get("random_state", 0)),
        step=1,
        key=f"protect_{name}_seed_{len(ws.history)}",
    )
    spec["random_state"] = int(seed)
    parse_method_section(spec)  # one clear message when a value does not fit
    return spec


def same_method(a: Any, b: Any) -> bool:
    """Whether two ``method`` sections describe the same method, parameters and seed (defaults
    written out or left implicit alike)."""
    return parse_method_section(a).to_dict() == parse_method_section(b).to_dict()
