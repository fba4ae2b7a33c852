"""Sessions that survive a reload: a token in the URL and the session's state in server memory.

A browser reload or a second tab starts a new Streamlit session with an empty
``st.session_state``. The first run of a session puts a random token in the URL (``?s=…``,
128 bits from :mod:`secrets`, never derived from data); at the end of every script run the
session's state is saved under it, and a new session whose URL carries a known token gets that
state back: the table, its configuration and undo history, the sign-off report, the DP results.

The store is a module-level dict in this server process, guarded by a lock, bounded (at most
:data:`MAX_SESSIONS` sessions, least recently used dropped first; a session idle for
:data:`IDLE_SECONDS` is forgotten). Nothing is written to disk. Widget values are not kept
(Streamlit refuses some of them, e.g. buttons, and warns on others): the settings live in the
workspace, which is kept.

Also here: the process's :class:`~anon_core.dp.ledger.DPLedger`, shared by every session
(``ANON_DP_LEDGER`` names a JSON file to keep it across restarts).
"""

from __future__ import annotations

import copy
import logging
import os
import re
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any

import streamlit as st

from anon_core.services.dp import DPLedger, LedgerError

log = logging.getLogger("workbench")

TOKEN_PARAM = "s"
#: Sessions kept at once (the least recently used beyond it is dropped).
MAX_SESSIONS = int(os.environ.get("ANON_MAX_SESSIONS", "32"))
#: A session not used for this long is forgotten (seconds).
IDLE_SECONDS = float(os.environ.get("ANON_SESSION_IDLE_SECONDS", str(4 * 3600)))
LEDGER_ENV = "ANON_DP_LEDGER"
_TOKEN = re.compile(r"^[0-9a-f]{32}$")
#: Keys never saved: this module's own marker, and the page's one-off flags.
_OWN_KEYS = ("_session_token",)


class SessionStore:
    """Token -> saved state, least recently used first out, idle entries expire."""

    def __init__(
        self,
        max_sessions: int = MAX_SESSIONS,
        idle_seconds: float = IDLE_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.max_sessions = max(int(max_sessions), 1)
        self.idle_seconds = float(idle_seconds)
        self._clock = clock
        self._lock = threading.Lock()
        self._entries: OrderedDict[str, tuple[float, dict[str, Any]]] = OrderedDict()

    def _expire(self, now: float) -> None:
        while self._entries:
            token, (seen, _) = next(iter(self._entries.items()))
            if now - seen <= self.idle_seconds:
                break
            del self._entries[token]

    def save(self, token: str, state: Mapping[str, Any]) -> None:
        now = self._clock()
        with self._lock:
            self._entries[token] = (now, dict(state))
            self._entries.move_to_end(token)
            self._expire(now)
            while len(self._entries) > self.max_sessions:
                self._entries.popitem(last=False)

    def load(self, token: str) -> dict[str, Any] | None:
        now = self._clock()
        with self._lock:
            self._expire(now)
            entry = self._entries.get(token)
            if entry is None:
                return None
            self._entries[token] = (now, entry[1])
            self._entries.move_to_end(token)
            return dict(entry[1])

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


STORE = SessionStore()


def new_token() -> str:
    """128 random bits as 32 hex digits."""
    return secrets.token_hex(16)


def _widget_keys() -> set[str] | None:
    """User keys of the widgets Streamlit knows in this session (not saved: see the docstring),
    or None when Streamlit's internals changed and they cannot be listed."""
    try:  # no public list of widget keys: read it from the session's state, defensively
        from streamlit.runtime.state.session_state_proxy import get_session_state

        state = get_session_state()._state  # noqa: SLF001
        return set(state._key_id_mapper._key_id_mapping)  # noqa: SLF001
    except Exception:  # noqa: BLE001
        log.warning("widget keys unavailable: only non-widget-like values are kept for reloads")
        return None


def _widget_like(value: Any) -> bool:
    """A value a widget could hold (a button's bool, a number, a text, an uploaded file)."""
    from streamlit.runtime.uploaded_file_manager import UploadedFile

    return value is None or isinstance(value, bool | int | float | str | UploadedFile)


def _savable(key: Any, value: Any, widget_keys: set[str] | None) -> bool:
    if not isinstance(key, str) or key in _OWN_KEYS or key.startswith(("$$", "FormSubmitter:")):
        return False
    if widget_keys is None:  # cannot tell widgets apart: keep only what no widget holds
        return not _widget_like(value)
    return key not in widget_keys


def _copy_container(value: Any) -> Any:
    """Containers are copied one level deep, so two tabs never mutate one dict or list at once;
    the objects in them (a workspace, a frequency table) are shared, not duplicated."""
    if isinstance(value, dict | list | OrderedDict):
        return copy.copy(value)
    return value


def session_token() -> str:
    """This session's token: restored from the URL (and the state with it) on the session's first
    run, or a new one put in the URL."""
    token = st.session_state.get("_session_token")
    if token is not None:
        if st.query_params.get(TOKEN_PARAM) != token:  # a page switch may drop the parameter
            st.query_params[TOKEN_PARAM] = token
        return token
    asked = st.query_params.get(TOKEN_PARAM)
    if isinstance(asked, str) and _TOKEN.match(asked):
        saved = STORE.load(asked)
        if saved is not None:
            for key, value in saved.items():
                if key not in st.session_state:
                    st.session_state[key] = _copy_container(value)
            token = asked
    if token is None:
        token = new_token()
    st.session_state["_session_token"] = token
    st.query_params[TOKEN_PARAM] = token
    return token


def save_session() -> None:
    """Save this session's state under its token: at the end of every script run (app.py) and
    when a page draws its sidebar. The saved values are the session's own objects (no copy), so a
    workspace changed later in the run is saved as it is then."""
    token = st.session_state.get("_session_token")
    if token is None:
        return
    widgets = _widget_keys()
    state = {k: v for k, v in st.session_state.items() if _savable(k, v, widgets)}
    STORE.save(token, state)


# --------------------------------------------------------------------------- the DP ledger
_LEDGER: DPLedger | None = None
_LEDGER_LOCK = threading.Lock()


def dp_ledger() -> DPLedger:
    """The server's DP ledger (in memory; in the JSON file ``ANON_DP_LEDGER`` names, if set).
    Raises LedgerError when that file cannot be read: the page then refuses every query."""
    global _LEDGER
    with _LEDGER_LOCK:
        if _LEDGER is None:
            path = os.environ.get(LEDGER_ENV, "").strip() or None
            _LEDGER = DPLedger(path)
        return _LEDGER


def set_dp_ledger(ledger: DPLedger | None) -> None:
    """Replace the server's ledger (tests; None: made again from the environment on next use)."""
    global _LEDGER
    with _LEDGER_LOCK:
        _LEDGER = ledger


__all__ = [
    "STORE",
    "LedgerError",
    "SessionStore",
    "dp_ledger",
    "new_token",
    "save_session",
    "session_token",
    "set_dp_ledger",
]
