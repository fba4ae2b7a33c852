"""The DP ledger (anon_core.dp.ledger): spends per input table, composition, persistence, and the
DP page reading it across sessions."""

from __future__ import annotations

import hashlib
import json
import math
import os
import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest

from anon_core.dp import PrivacyBudget
from anon_core.dp.ledger import DPLedger, LedgerError
from anon_core.errors import ConfigError

ROOT = Path(__file__).resolve().parents[1]
APP = ROOT / "app.py"
T1 = hashlib.sha256(b"table one").hexdigest()
T2 = hashlib.sha256(b"table two").hexdigest()


def test_sequential_composition_sums_epsilon_and_delta_per_table():
    ledger = DPLedger()
    ledger.record(T1, 0.1, 0.0, "count(rows)")
    ledger.record(T1, 0.25, 1e-6, "histogram(sex)")
    ledger.record(T1, 0.05, 2e-6, "mean(age)")
    ledger.record(T2, 0.7, 0.0, "count(rows)")
    # by hand: 0.1 + 0.25 + 0.05 = 0.4; 1e-6 + 2e-6 = 3e-6; the other table apart
    eps, delta = ledger.spent(T1)
    assert eps == pytest.approx(0.4, abs=1e-15) and delta == pytest.approx(3e-6, abs=1e-18)
    assert ledger.spent(T2) == (0.7, 0.0)
    assert ledger.remaining(T1, 1.0, 1e-5) == pytest.approx((0.6, 7e-6))
    assert [s.what for s in ledger.spends(T1)] == ["count(rows)", "histogram(sex)", "mean(age)"]
    assert ledger.spent(hashlib.sha256(b"never asked").hexdigest()) == (0.0, 0.0)


def test_check_refuses_beyond_the_total_and_admits_up_to_it():
    ledger = DPLedger()
    ledger.record(T1, 0.3)
    ledger.record(T1, 0.15)
    ledger.check(T1, 0.05, 0.0, total_epsilon=0.5)  # 0.45 + 0.05 = 0.5: exactly the total
    with pytest.raises(ConfigError, match=r"ε = 0.1 but ε = 0.45 of the total ε = 0.5"):
        ledger.check(T1, 0.1, 0.0, total_epsilon=0.5)
    ledger.record(T1, 0.0, 4e-6)
    with pytest.raises(ConfigError, match="δ"):
        ledger.check(T1, 0.01, 2e-6, total_epsilon=1.0, total_delta=5e-6)  # 4e-6 + 2e-6 > 5e-6


def test_a_budget_after_earlier_spends_has_the_rest_left():
    budget = PrivacyBudget.after(1.0, 0.0, [(0.3, 0.0, "a"), (0.45, 0.0, "b")])
    assert budget.spent == pytest.approx(0.75) and budget.remaining == pytest.approx(0.25)
    assert len(budget.ledger) == 2
    with pytest.raises(ConfigError, match="only ε = 0.25"):
        budget.admit("count", 0.3)
    assert budget.admit("count", 0.2) == 0.2
    # a total lowered below what was spent leaves nothing (never a negative remainder)
    low = PrivacyBudget.after(0.5, 0.0, [(0.3, 0.0, "a"), (0.45, 0.0, "b")])
    assert low.remaining == 0.0
    with pytest.raises(ConfigError):
        low.admit("count", 0.01)


def test_a_ledger_file_keeps_the_spends_and_holds_no_data(tmp_path):
    path = tmp_path / "ledger.json"
    ledger = DPLedger(path)
    when = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    ledger.record(T1, 0.2, 0.0, "mean(length_of_stay)", when=when)
    ledger.record(T1, 0.3, 1e-6, "histogram(sex)", when=when)
    again = DPLedger(path)  # a restarted server
    assert again.spent(T1) == pytest.approx((0.5, 1e-6))
    raw = json.loads(path.read_text())
    assert set(raw) == {"format", "version", "tables"} and list(raw["tables"]) == [T1]
    assert raw["tables"][T1][0] == {
        "epsilon": 0.2,
        "delta": 0.0,
        "what": "mean(length_of_stay)",
        "when": "2026-01-02T03:04:05+00:00",
    }
    assert [p.name for p in tmp_path.iterdir()] == ["ledger.json"]  # no temporary file left


def test_a_failed_write_keeps_the_old_file_and_takes_the_spend_back(tmp_path, monkeypatch):
    path = tmp_path / "ledger.json"
    ledger = DPLedger(path)
    ledger.record(T1, 0.2)
    before = path.read_bytes()

    def broken_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(LedgerError, match="cannot be written.*not released"):
        ledger.record(T1, 0.3)
    assert path.read_bytes() == before  # atomic: the previous file, whole
    assert ledger.spent(T1) == (0.2, 0.0)  # the spend was taken back
    assert [p.name for p in tmp_path.iterdir()] == ["ledger.json"]


@pytest.mark.parametrize(
    "content,needle",
    [
        (b"{not json", "cannot be read"),
        (b"\xff\xfe\x00garbage", "cannot be read"),
        (b"[]", "format"),
        (
            json.dumps({"format": "anon-core dp ledger", "version": 9, "tables": {}}).encode(),
            "version",
        ),
        (
            json.dumps(
                {"format": "anon-core dp ledger", "version": 1, "tables": {"abc": []}}
            ).encode(),
            "not a SHA-256",
        ),
        (
            json.dumps(
                {
                    "format": "anon-core dp ledger",
                    "version": 1,
                    "tables": {
                        T1: [{"epsilon": -1, "delta": 0, "what": "x", "when": "2026-01-01"}]
                    },
                }
            ).encode(),
            "'epsilon' must be between 0",
        ),
        (
            json.dumps(
                {
                    "format": "anon-core dp ledger",
                    "version": 1,
                    "tables": {T1: [{"epsilon": 0.1}]},
                }
            ).encode(),
            "a spend must be an object",
        ),
    ],
)
def test_a_corrupted_ledger_file_is_an_error_never_a_silent_reset(tmp_path, content, needle):
    path = tmp_path / "ledger.json"
    path.write_bytes(content)
    with pytest.raises(LedgerError) as caught:
        DPLedger(path)
    message = str(caught.value)
    assert needle in message and str(path) in message and "never reset" in message
    assert path.read_bytes() == content  # left as it was, for the officer to look at


def test_a_folder_as_ledger_path_is_an_error(tmp_path):
    with pytest.raises(LedgerError, match="is a folder"):
        DPLedger(tmp_path)


def test_bad_keys_and_values_are_refused():
    ledger = DPLedger()
    with pytest.raises(ConfigError, match="SHA-256"):
        ledger.record("patient 17", 0.1)
    with pytest.raises(ConfigError, match="epsilon"):
        ledger.record(T1, math.nan)
    with pytest.raises(ConfigError, match="delta"):
        ledger.record(T1, 0.1, 2.0)
    assert ledger.tables() == []


def test_concurrent_sessions_cannot_overspend_together():
    """Eight sessions each ask for 0.1 of a total 0.5 at the same moment: exactly five get it."""
    ledger = DPLedger()
    granted, refused = [], []
    start = threading.Barrier(8)

    def session():
        start.wait()
        with ledger.transaction():
            try:
                ledger.check(T1, 0.1, 0.0, total_epsilon=0.5)
            except ConfigError:
                refused.append(1)
                return
            ledger.record(T1, 0.1)
            granted.append(1)

    threads = [threading.Thread(target=session) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert len(granted) == 5 and len(refused) == 3
    assert ledger.spent(T1)[0] == pytest.approx(0.5)


# ----------------------------------------------------------------------------- the page
@pytest.fixture
def fresh_ledger():
    from ui import session_store

    session_store.set_dp_ledger(DPLedger())
    yield session_store.dp_ledger()
    session_store.set_dp_ledger(None)


def _dp_page():
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(APP), default_timeout=120)
    at.run()
    assert not at.exception, at.exception
    at.switch_page("pages/dp.py").run()
    assert not at.exception, at.exception
    return at


def _metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def test_a_second_session_on_the_same_table_sees_the_spend(fresh_ledger):
    first = _dp_page()
    assert _metrics(first)["Spent ε"] == "0"
    first.selectbox(key="dp_type").set_value("count").run()
    first.number_input(key="dp_epsilon").set_value(0.3).run()
    first.button(key="dp_run").click().run()
    assert not first.exception, first.exception
    assert _metrics(first)["Spent ε"] == "0.3"
    # another browser (no session token): a new session on the same sample table
    second = _dp_page()
    metrics = _metrics(second)
    assert metrics["Spent ε"] == "0.3" and metrics["Remaining ε"] == "0.7"
    assert metrics["Queries"] == "1"
    # a new release in that session gives nothing back
    second.button(key="dp_new_budget").click().run()
    assert _metrics(second)["Spent ε"] == "0.3"
    # and it is refused beyond the total: 0.3 spent, 0.8 asked of 1
    second.selectbox(key="dp_type").set_value("count").run()
    second.number_input(key="dp_epsilon").set_value(0.8).run()
    second.button(key="dp_run").click().run()
    assert any("asks for ε = 0.8" in e.value for e in second.error), [e.value for e in second.error]
    assert _metrics(second)["Spent ε"] == "0.3"
    (table,) = fresh_ledger.tables()
    assert [s.what for s in fresh_ledger.spends(table)] == ["count(rows)"]


def test_an_unreadable_ledger_file_stops_the_page_with_the_fix(tmp_path, monkeypatch):
    from ui import session_store

    bad = tmp_path / "ledger.json"
    bad.write_text("{broken")
    monkeypatch.setenv("ANON_DP_LEDGER", str(bad))
    session_store.set_dp_ledger(None)
    try:
        at = _dp_page()
        assert any("cannot be read" in e.value and "never reset" in e.value for e in at.error)
        assert all(b.key != "dp_run" for b in at.button)  # no query can run
    finally:
        session_store.set_dp_ledger(None)
    assert bad.read_text() == "{broken"
