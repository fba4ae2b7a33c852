"""The release report of the Release page, made like ``anon-core anonymize --report``: the
workspace's configuration opened as a session, its transformation resolved (configured, else
searched), the session's evidence rendered by ``anon_core.report``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import streamlit as st

from anon_core.errors import ConfigError
from anon_core.report import build_report
from anon_core.services.session import Session
from anon_core.workspace import Workspace


def input_file_bytes(ws: Workspace) -> bytes | None:
    """The bytes the report fingerprints as the input: the upload's, else a built-in sample's file."""
    from ui.widgets import SAMPLE_DIR

    if ws.input_bytes is not None:
        return ws.input_bytes
    sample = SAMPLE_DIR / ws.source
    from_sample = (st.session_state.get("loaded_from") or ("sample",))[0] == "sample"
    if ws.large is None and from_sample and sample.is_file():
        return sample.read_bytes()
    return None


def release_report(
    ws: Workspace,
    config: Mapping[str, Any],
    signoff: Mapping[str, Any],
    audit: Sequence[Mapping[str, Any]],
) -> Any:
    """The signed-off release report of ``config`` (the workspace's, as it is embedded)."""
    data = input_file_bytes(ws)
    if ws.large is not None:  # the engine groups the file itself
        session = Session.open(config, base_dir=ws.base_dir, input_bytes=data)
        resolution = session.resolution(engine=ws.large.engine.name)
    else:
        session = Session.open(config, ws.frame, base_dir=ws.base_dir, input_bytes=data)
        resolution = session.resolution()
    if resolution.result is None:
        raise ConfigError(
            "No transformation satisfies the privacy models within the suppression limit, so "
            "there is no release to report. Relax the models or raise the suppression limit."
        )
    return build_report(
        dict(config),
        evidence=session.report_evidence(resolution),
        input_bytes=data,
        signoff=signoff,
        audit=audit,
        chosen_by=ws.chosen_by,
    )
