"""The release journey's first three defects, each with a regression test:

1. the dashboard's release crashed whenever text de-identification or pseudonymization was on;
2. a pre-selected PII proposal released raw clinical notes (free text is released only
   de-identified, and the measured share of identifiers left is shown);
3. ``anonymize`` with a non-generalization ``method`` wrote a generalized file under a report
   labelled with the other method.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
APP = ROOT / "app.py"
SAMPLE = ROOT / "sample_data" / "hospital_discharge.csv"
HMAC_KEY = "hmac-key-for-the-release-journey-0123"


def _app() -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=180)
    at.run()
    assert not at.exception, at.exception
    return at


def _goto(at: AppTest, page: str) -> AppTest:
    at.switch_page(page).run()
    assert not at.exception, at.exception
    return at


def _released(at: AppTest) -> pd.DataFrame:
    frames = [f.value for f in at.dataframe]
    assert frames, "the Release page shows no released table"
    return frames[0]


# ------------------------------------------------------------------ 1. the release crash
def test_release_page_releases_with_text_and_pseudonym_sections(monkeypatch):
    monkeypatch.setenv("ANON_HMAC_KEY", HMAC_KEY)
    at = _goto(_app(), "pages/release.py")
    ws = at.session_state["workspace"]
    frame = ws.frame
    sections = {
        **ws.sections,
        "text": {"columns": ["notes"], "operators": {"DEFAULT": {"type": "replace"}}},
        "pseudonymize": {"columns": {"email": {"method": "hmac", "key_env": "ANON_HMAC_KEY"}}},
    }
    ws.update("sections", sections=sections)
    at = _goto(at, "pages/release.py")
    assert not at.error, [e.value for e in at.error]
    released = _released(at)
    # the notes are released de-identified, the e-mails as pseudonyms, the names dropped
    assert "notes" in released.columns and "email" in released.columns
    assert "patient_name" not in released.columns
    assert not set(released["email"]) & set(frame["email"])
    names = frame["patient_name"].head(200).tolist()
    notes = " ".join(released["notes"].astype(str))
    left = [n for n in names if n in notes]
    assert len(left) <= 0.05 * len(names), left[:5]
    # the measured share of identifiers left is stated on the page
    assert any("still hold a direct identifier" in m.value for m in [*at.info, *at.warning])


# ------------------------------------------------------------------ 2. the notes leak
def test_free_text_is_never_released_raw_from_the_dashboard():
    at = _goto(_app(), "pages/release.py")
    ws = at.session_state["workspace"]
    assert ws.roles["notes"] == "identifier"  # the default keeps the notes out
    roles = {**ws.roles, "notes": "insensitive"}  # what accepting the old proposal did
    ws.update("notes kept", roles=roles)
    at = _goto(at, "pages/release.py")
    assert any("free text" in e.value and "notes" in e.value for e in at.error)
    for frame in (f.value for f in at.dataframe):
        assert "notes" not in frame.columns


def test_the_scan_never_proposes_releasing_free_text_raw():
    from anon_core.pii import load_engine, scan_table

    frame = pd.read_csv(SAMPLE, dtype=str).head(300)
    report = scan_table(frame, engine=load_engine())
    notes = report.columns["notes"]
    assert notes.free_text and notes.suggested_role == "identifier"
    assert "de-identified" in notes.reason


def test_lowering_protection_is_recognised():
    from anon_core.pii import lowers_protection

    assert lowers_protection("identifier", "insensitive")
    assert lowers_protection("quasi-identifier", "sensitive")
    assert not lowers_protection("insensitive", "identifier")
    assert not lowers_protection("identifier", "identifier")


def test_pii_page_does_not_preselect_a_proposal_that_lowers_protection():
    at = _goto(_app(), "pages/pii.py")
    ws = at.session_state["workspace"]
    ws.update("email was an identifier", roles={**ws.roles, "sex": "identifier"})
    at = _goto(at, "pages/pii.py")
    at.button(key="ask_pii_scan").click().run()
    select = [m for m in at.multiselect if m.label == "Proposals to accept"]
    if select:  # every proposal listed; none that lowers protection is pre-selected
        for name in select[0].value:
            assert not (name == "sex" and "→ insensitive" in name)
        assert "notes" not in select[0].value


# residual identifiers: hand-worked cases
def test_residual_identifiers_on_hand_worked_rows():
    from anon_core.pii import residual_identifiers

    original = pd.DataFrame(
        {
            "name": ["Matthew Sullivan", "Ann Leeson", "Bo Kim", "Cy Ray"],
            "phone": ["(857) 555-0185", "555 123 4567", None, "617-555-0100"],
            "notes": ["x", "y", "z", ""],
        }
    )
    deid = original.copy()
    deid["notes"] = [
        "Seen by <PERSON>; call 857.555.0185",  # own phone, other spelling
        "Sullivan left on 2025-06-18",  # another patient's name; a date is not a phone
        "Mail bo@example.org, card 4111 1111 1111 1111",  # e-mail and a Luhn-valid card
        "",  # empty: not checked
    ]
    check = residual_identifiers(original, deid, ["notes"], ["name", "phone"])
    assert check.rows == 3
    assert check.rows_with_own_values == 1  # row 0 only (row 1's name is not Sullivan)
    assert check.rows_with_patterns == 2  # row 0 (phone) and row 2 (e-mail, card)
    assert check.rows_with_any == 2
    assert check.by_kind == {
        "own phone or number": 1,
        "phone pattern": 1,
        "e-mail pattern": 1,
        "card pattern": 1,
    }
    assert check.share == pytest.approx(2 / 3) and check.flagged
    clean = deid.assign(notes=["<PERSON> called", "left on 2025-06-18", "mail <EMAIL>", ""])
    assert residual_identifiers(original, clean, ["notes"], ["name", "phone"]).rows_with_any == 0


def test_residual_finds_a_surname_left_in_the_record_own_note():
    from anon_core.pii import residual_identifiers

    original = pd.DataFrame({"name": ["Johannes Varvio"], "notes": ["."]})
    deid = pd.DataFrame({"name": ["Johannes Varvio"], "notes": ["Directed by: <PERSON> Varvio"]})
    assert residual_identifiers(original, deid, ["notes"], ["name"]).rows_with_own_values == 1


# ------------------------------------------------------------------ 3. the mislabelled report
@pytest.mark.parametrize("method", ["microaggregation", "noise"])
def test_anonymize_refuses_a_configuration_whose_method_is_not_generalization(
    tmp_path, capsys, method
):
    from anon_core.cli import main

    frame = pd.read_csv(SAMPLE, dtype=str).head(200)
    frame.to_csv(tmp_path / "in.csv", index=False)
    config = {
        "input": {"path": "in.csv"},
        "attributes": {
            "patient_name": {"role": "identifier"},
            "sex": {"role": "quasi-identifier"},
            "length_of_stay": {"role": "quasi-identifier"},
        },
        "privacy_models": [{"model": "k-anonymity", "k": 2}],
        "method": {"name": method},
    }
    (tmp_path / "c.json").write_text(json.dumps(config))
    out, report = tmp_path / "out.csv", tmp_path / "r.html"
    code = main(["anonymize", str(tmp_path / "c.json"), "-o", str(out), "--report", str(report)])
    err = capsys.readouterr().err
    assert code == 2, err
    lines = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(lines) == 1 and method in lines[0] and "anon-core release" in lines[0]
    assert not out.exists() and not report.exists()
    assert not re.search(r"Traceback", err)


# ------------------------------------------------------------------ one highest risk
def test_privacy_tile_and_risk_page_agree_when_a_class_is_all_stars():
    """Regression: the Privacy tile counted a class whose QIs are all '*' (risk_from_sizes), the
    Risk page left it out (risk_of_result, as ARX): 100% against 33.3% on this table."""
    from anon_core.workspace import Workspace

    frame = pd.DataFrame({"a": ["x", "x", "x", "y"], "b": ["m", "f", "m", "f"]})
    ws = Workspace.from_frame(frame, source="tiny.csv")
    ws.update(
        "roles",
        roles={"a": "quasi-identifier", "b": "quasi-identifier"},
        hierarchy_specs={
            "a": {"table": [["x", "x", "*"], ["y", "*", "*"]]},
            "b": {"table": [["m", "*"], ["f", "*"]]},
        },
        models=[{"model": "k-anonymity", "k": 1}],
        transformation={"a": 1, "b": 1},
    )
    at = AppTest.from_file(str(APP), default_timeout=180)
    at.run()
    at.session_state["workspace"] = ws
    at = _goto(at, "pages/privacy.py")
    highest = [m for m in at.metric if m.label == "Highest"]
    assert highest and highest[0].value == "33.3%", [(m.label, m.value) for m in at.metric]


def test_a_name_after_a_title_is_found_where_ner_misses_it():
    """Regression (found by the analyst journey): spaCy's small model missed "Ines Quinn" after
    "Patient"; the cue-word recognizer finds it, and does not fire on lower-case words."""
    from anon_core.pii import deidentify_texts, text_section, validate_text_section

    section = validate_text_section(text_section(["notes"], {"DEFAULT": {"type": "replace"}}))
    texts = [
        "Patient Ines Quinn was seen today.",
        "Directed By: Johannes Varvio",
        "Dr. Smith-Jones called back.",
        "Patient was seen by the team.",
    ]
    out = [r.text for r in deidentify_texts(texts, section)]
    assert out[0] == "Patient <PERSON> was seen today."
    assert out[1] == "Directed By: <PERSON>"
    assert out[2] == "<TITLE> <PERSON> called back."  # a courtesy title before a name is TITLE
    assert out[3] == texts[3]


def test_release_page_shows_levels_in_words_and_no_none_cells():
    """Regression: the Release page printed a Python dict of levels and 'None' in missing cells."""
    at = _goto(_app(), "pages/release.py")
    captions = [c.value for c in at.caption if "rows released of" in c.value]
    assert captions and "{" not in captions[0] and "level" in captions[0]
    shown = _released(at)
    assert shown.isna().sum().sum() == 0  # missing cells are empty, as in the CSV
    assert not (shown.astype(str) == "None").any().any()


def test_download_bytes_escape_formula_like_column_names():
    """Regression: the dashboard's CSV download (io.table_bytes) wrote formula-like headers raw."""
    from anon_core.data.io import table_bytes

    frame = pd.DataFrame({"=cmd|' /C calc'!A0": ["a"], "+SUM(1)": ["=1+1"], "age": [-5]})
    header, row = table_bytes(frame, "csv").decode().splitlines()
    assert header == "'=cmd|' /C calc'!A0,'+SUM(1),age"
    assert row == "a,'=1+1,-5"
    raw = table_bytes(frame, "csv", formula_escape=False).decode().splitlines()[0]
    assert raw == "=cmd|' /C calc'!A0,+SUM(1),age"
