"""Smoke tests of the Streamlit data-preview page with streamlit's AppTest."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

APP = Path(__file__).resolve().parents[1] / "app.py"
TIMEOUT = 60


@pytest.fixture
def app() -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    at.run()
    assert not at.exception, at.exception
    return at


def test_default_sample_shows_preview_and_profile(app: AppTest) -> None:
    assert not app.error
    assert app.selectbox[0].value == app.selectbox[0].options[0]
    assert "hospital" in app.selectbox[0].value.lower()
    preview, profile = app.dataframe[0].value, app.dataframe[1].value
    assert len(preview) == 200
    assert "patient_name" in preview.columns
    assert list(profile.columns) == ["column", "kind", "missing", "distinct", "unique_share"]
    assert len(profile) == preview.shape[1]
    metrics = {m.label: m.value for m in app.metric}
    assert metrics["Rows"] == "2,000"
    assert metrics["Encoding"] == "utf-8"
    assert "comma" in metrics["Separator"]


def test_switching_sample(app: AppTest) -> None:
    other = app.selectbox[0].options[1]
    app.selectbox[0].set_value(other).run()
    assert not app.exception, app.exception
    assert not app.error
    preview = app.dataframe[0].value
    assert "income" in preview.columns
    assert {m.label: m.value for m in app.metric}["Rows"] == "5,000"
    profile = app.dataframe[1].value
    assert set(profile["column"]) == set(preview.columns)


def test_load_error_is_shown_as_message(tmp_path: Path) -> None:
    """A table that cannot be loaded gives st.error with the engine's message, no traceback."""
    script = tmp_path / "app.py"  # a copy without sample_data/ next to it
    script.write_text(APP.read_text(encoding="utf-8"), encoding="utf-8")
    at = AppTest.from_file(str(script), default_timeout=TIMEOUT)
    at.run()
    assert not at.exception, at.exception
    assert len(at.error) == 1
    assert "does not exist" in at.error[0].value
    assert not at.dataframe
