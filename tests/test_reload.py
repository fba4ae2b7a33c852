"""A reload or a second tab of the same browser session gets the session back (ui/session_store).

Driven with AppTest from app.py: a second AppTest whose URL carries the first one's token
(``?s=…``) is a reload; one without a token is another browser, which gets nothing."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from ui.session_store import SessionStore

ROOT = Path(__file__).resolve().parents[1]
APP = ROOT / "app.py"
TIMEOUT = 180


def _run(at: AppTest) -> AppTest:
    at.run()
    assert not at.exception, at.exception
    return at


def _token(at: AppTest) -> str:
    token = at.query_params.get("s")
    token = token[0] if isinstance(token, list) else token
    assert token and re.fullmatch(r"[0-9a-f]{32}", token), at.query_params
    return token


def _reload(token: str | None) -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    if token is not None:
        at.query_params["s"] = token
    return _run(at)


def test_a_reload_restores_data_configuration_history_and_signoff():
    at = _run(AppTest.from_file(str(APP), default_timeout=TIMEOUT))
    token = _token(at)
    data = "age,zip,sex,disease\n" + "".join(
        f"{20 + i % 30},0213{i % 5},{'FM'[i % 2]},d{i % 3}\n" for i in range(90)
    )
    at.file_uploader[0].upload("people.csv", data.encode(), "text/csv")
    _run(at)
    ws = at.session_state["workspace"]
    ws.update(
        "roles",
        roles={
            "age": "quasi-identifier",
            "zip": "quasi-identifier",
            "sex": "insensitive",
            "disease": "sensitive",
        },
    )
    ws.update("k", models=[{"model": "k-anonymity", "k": 3}])
    at.session_state["release_report"] = {"key": "k", "sha": "0" * 64, "html": "<p>signed</p>"}
    _run(at.switch_page("pages/privacy.py"))  # a run saves the state
    assert _token(at) == token  # the token stays in the URL on other pages

    again = _reload(token)
    restored = again.session_state["workspace"]
    assert restored.source == "people.csv" and len(restored.frame) == 90
    assert restored.frame["zip"].iloc[0] == "02130"
    assert restored.roles["sex"] == "insensitive" and restored.models == [
        {"model": "k-anonymity", "k": 3}
    ]
    assert len(restored.history) == len(ws.history) >= 2  # Undo still has its steps
    assert again.session_state["release_report"]["html"] == "<p>signed</p>"
    assert again.session_state["loaded_from"][1] == "people.csv"
    assert _token(again) == token
    restored.undo()  # the undo history works after the reload
    assert restored.models != [{"model": "k-anonymity", "k": 3}]


def test_another_browser_gets_a_new_token_and_nothing_of_the_session():
    first = _run(AppTest.from_file(str(APP), default_timeout=TIMEOUT))
    first.session_state["workspace"].update("k", models=[{"model": "k-anonymity", "k": 7}])
    _run(first)
    other = _reload(None)
    assert _token(other) != _token(first)
    assert other.session_state["workspace"].models != [{"model": "k-anonymity", "k": 7}]
    # a token nobody was given restores nothing either, and is replaced by a new one
    stranger = _reload("0123456789abcdef0123456789abcdef")
    assert _token(stranger) != "0123456789abcdef0123456789abcdef"
    bad = _reload("../../etc/passwd")
    assert re.fullmatch(r"[0-9a-f]{32}", _token(bad))


def test_tokens_are_random_not_derived_from_the_data():
    a, b = _reload(None), _reload(None)  # the same sample, the same first screen
    assert _token(a) != _token(b)


def test_the_store_is_bounded_by_count_and_idle_time():
    now = [0.0]
    store = SessionStore(max_sessions=2, idle_seconds=100, clock=lambda: now[0])
    store.save("a", {"x": 1})
    store.save("b", {"x": 2})
    assert store.load("a") == {"x": 1}  # a is now the most recently used
    store.save("c", {"x": 3})  # over the limit: b, least recently used, goes
    assert store.load("b") is None and store.load("a") == {"x": 1} and len(store) == 2
    now[0] = 150.0  # a was last used at 0, c at 0: both idle for 150 s > 100 s
    assert store.load("a") is None and store.load("c") is None and len(store) == 0
    store.save("d", {"x": 4})
    now[0] = 240.0
    assert store.load("d") == {"x": 4}  # 90 s idle: kept, and the load counts as use
    now[0] = 330.0
    assert store.load("d") == {"x": 4}


@pytest.mark.parametrize("value", [[1, 2], {"a": 1}])
def test_restored_containers_are_copies_so_two_tabs_do_not_share_one_list(value):
    from ui.session_store import _copy_container

    copied = _copy_container(value)
    assert copied == value and copied is not value


def test_a_reload_keeps_the_dp_answers_and_the_spent_budget():
    from anon_core.dp.ledger import DPLedger
    from ui import session_store

    session_store.set_dp_ledger(DPLedger())
    try:
        at = _run(AppTest.from_file(str(APP), default_timeout=TIMEOUT))
        token = _token(at)
        _run(at.switch_page("pages/dp.py"))
        at.number_input(key="dp_total_epsilon").set_value(0.9).run()
        at.button(key="dp_new_budget").click().run()
        at.selectbox(key="dp_type").set_value("count").run()
        at.number_input(key="dp_epsilon").set_value(0.9).run()
        at.button(key="dp_run").click().run()
        assert not at.exception, at.exception
        _run(at)  # the next run saves what the click produced
        again = _reload(token)
        _run(again.switch_page("pages/dp.py"))
        metrics = {m.label: m.value for m in again.metric}
        assert metrics["Total ε"] == "0.9" and metrics["Spent ε"] == "0.9"
        assert metrics["Remaining ε"] == "0"  # 0.9 spent stays spent: not back to 0
        assert list(again.dataframe[0].value["query"]) == ["count(rows)"]  # the answer too
    finally:
        session_store.set_dp_ledger(None)


def test_without_streamlit_internals_no_widget_like_value_is_kept(monkeypatch):
    from ui import session_store

    monkeypatch.setattr(session_store, "_widget_keys", lambda: None)
    at = _run(AppTest.from_file(str(APP), default_timeout=TIMEOUT))
    token = _token(at)
    at.session_state["workspace"].update("k", models=[{"model": "k-anonymity", "k": 7}])
    _run(at.switch_page("pages/privacy.py"))
    saved = session_store.STORE.load(token)
    assert "workspace" in saved and "loaded_from" in saved  # objects and tuples are kept
    assert not any(isinstance(v, bool | int | float | str) for v in saved.values())
    again = _reload(token)  # and a reload works (no button value forced on a button)
    assert again.session_state["workspace"].models == [{"model": "k-anonymity", "k": 7}]
